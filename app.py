"""lmdk — the Streamlit entry point (the full dashboard is built in pages/)."""
import streamlit as st

st.set_page_config(page_title="lmdk — landmark privacy lab", layout="wide")
st.title("lmdk — landmark privacy lab")
st.write("Differential privacy for time series with landmark events.")
