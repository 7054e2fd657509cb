"""Baseline for bench_browser.py: a trivial one-chart Streamlit page driven by the same ε slider."""
import numpy as np
import plotly.graph_objects as go
import streamlit as st

OPTIONS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
eps = st.select_slider("Privacy budget ε (log scale)", options=OPTIONS, value=1.0, key="w_eps")
fig = go.Figure(go.Scatter(x=np.arange(10), y=np.full(10, eps), mode="lines"))
fig.update_layout(meta={"eps": eps}, height=300)
st.plotly_chart(fig, key="budget_chart")
