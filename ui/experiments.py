"""The Experiments page's helpers: its markdown with tables as grids, a run's tidy table for reading, its chart."""
from __future__ import annotations

import re

import pandas as pd
import streamlit as st


def markdown_with_tables(text: str) -> None:
    """Markdown whose tables become st.dataframe grids: the figures' tables are wider than the page at 1024 px, and
    a grid scrolls under the keyboard (a markdown table in a scrolling box cannot take the focus)."""
    def cells(line: str) -> list[str]:
        return [re.sub(r"\*\*|`", "", c).strip() for c in line.strip().strip("|").split("|")]

    lines: list[str] = []
    table: list[str] = []
    for line in text.splitlines() + [""]:
        if line.lstrip().startswith("|"):
            table.append(line)
            continue
        if table:
            if "".join(lines).strip():
                st.markdown("\n".join(lines))
            lines = []
            rows = [cells(r) for r in table if not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", r)]
            head = [c + "\u200b" * rows[0][:i].count(c) for i, c in enumerate(rows[0])]  # distinct names
            body = [(r + [""] * len(head))[:len(head)] for r in rows[1:]]
            st.dataframe(pd.DataFrame(body, columns=head), hide_index=True, width="stretch")
            table = []
        lines.append(line)
    if "".join(lines).strip():
        st.markdown("\n".join(lines))


def readable_column(name: str) -> str:
    """A tidy column's name for reading ('mae_ci_low' → 'MAE 95 % CI low'); the CSV keeps the names the runner wrote."""
    for suffix, words in (("_ci_low", " 95 % CI low"), ("_ci_high", " 95 % CI high"), ("_std", " sd")):
        if name.endswith(suffix):
            return readable_column(name.removesuffix(suffix)) + words
    return {"mae": "MAE", "epsilon": "ε"}.get(name, name.replace("_", " "))


def readable(df: pd.DataFrame) -> pd.DataFrame:
    """The run's table with ``readable_column`` names (the chart's text alternative)."""
    return df.rename(columns=readable_column)


def nonnegative_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """The run with every error's interval clipped at 0 (runs cached before issue 35 can hold a negative bound)."""
    from lmdk.experiments.spec import nonnegative

    return df.assign(**{c: df[c].clip(lower=0) for c in df.columns
                        if c.endswith("_ci_low") and nonnegative(c.removesuffix("_ci_low"))})


def csv_bytes(df: pd.DataFrame) -> bytes:
    """The run as the CSV the runner writes (no index; no cell a spreadsheet would run as a formula)."""
    from lmdk.exports.cells import csv_text

    return csv_text(df).encode()


def chart(name: str, df: pd.DataFrame, source: str):
    """The figure's chart (``lmdk.experiments.charts``) with its name and source in the figure's meta."""
    from lmdk.experiments import charts as ech

    fig = ech.figure_chart(name, df)
    fig.update_layout(meta={"figure": name, "source": source})
    return fig
