"""The Policies page's state and helpers: this session's policy table (memory only), its rows' status under the
officer's bounds, the one-week preview of a calendar window, and each user's budget from the ledger."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from lmdk.errors import LmdkError
from lmdk.policies import COLUMNS, Bounds, PolicyTable, table_from_frame
from ui.charts.style import LANDMARK_COLOUR, base_layout
from ui.session import state

DAYS = {"daily": "every day", "mon-fri": "weekdays (Mon–Fri)", "sat,sun": "weekend (Sat, Sun)", "mon": "Monday",
        "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday"}
HOURS = [f"{h:02d}:00" for h in range(25)]
UPLOAD_TYPES = ["csv", "parquet", "json"]


def window_rule(days: str, start: str, end: str) -> str:
    """The ``calendar:`` rule of a weekly window (``end`` ≤ ``start`` wraps past midnight)."""
    return f"calendar:{days}@{start}-{end}"


def rows() -> list[dict]:
    """This session's policy rows (table cells), in the order they were added."""
    return st.session_state.setdefault(state.POLICY_ROWS, [])


def table(cells: list[dict] | None = None) -> PolicyTable:
    """The rows as a validated table (rule files are named, not read: they stay with the officer)."""
    frame = pd.DataFrame(rows() if cells is None else cells, columns=list(COLUMNS))
    return table_from_frame(frame, "this policy table", files=False)


def put(cells: dict) -> str | None:
    """Add the row, or replace the row of the same user; returns an error message (None when it was kept)."""
    user = str(cells.get("user") or "").strip()
    kept = [r for r in rows() if str(r["user"]) != user]
    try:
        table([*kept, {**cells, "user": user}])
    except LmdkError as exc:
        return str(exc)
    st.session_state[state.POLICY_ROWS] = [*kept, {**cells, "user": user}]
    return None


def remove(user: str) -> None:
    """Drop the row of ``user``."""
    st.session_state[state.POLICY_ROWS] = [r for r in rows() if str(r["user"]) != str(user)]


def load(raw: bytes, name: str) -> str | None:
    """Replace the rows with an uploaded table's; returns an error message (None when it was read)."""
    from lmdk.policies.table import read_frame

    try:
        loaded = table_from_frame(read_frame(raw, name), f"policy table {name!r}", files=False)
    except LmdkError as exc:
        return str(exc)
    st.session_state[state.POLICY_ROWS] = [row.to_record() for row in loaded.rows]
    return None


def status(policy_table: PolicyTable, bounds: Bounds) -> list[str]:
    """Per row: "within the bounds" or the bound it passes (such a user is withheld by ``lmdk population``)."""
    out = []
    for row in policy_table.rows:
        breach = bounds.breach(row.epsilon, row.scheme)
        out.append(f"withheld: {breach}" if breach else "within the bounds")
    return out


def ledger_budget(users: list[str], dataset: str | None = None) -> pd.DataFrame:
    """Each user's spent and remaining ε: from the operator's ledger database per (``dataset``, user) when
    ``LMDK_LEDGER_URL`` is set (``lmdk.ledger.summary``; a ledger of one dataset needs no name), else this session's
    ledger (``ui.ledger``) and its cap. The one place the page reads budgets; an LmdkError names what is wrong."""
    from lmdk.policies.budget import from_ledger_summary, spent_by_user
    from ui import ledger

    url = ledger.database_url()
    if url is not None:
        from lmdk.ledger import redact, summary

        try:
            return from_ledger_summary(summary(url, dataset=dataset or None, users=True), users)
        except LmdkError as exc:  # shown to every visitor: the server's name only, never the URL's secrets
            raise type(exc)(redact(url, str(exc))) from None
    return spent_by_user(ledger.entries(), users, st.session_state.get(state.LEDGER_CAP))


def no_budget(users: int) -> pd.DataFrame:
    """The budget columns when the ledger cannot be read: nothing known of any of the ``users``."""
    return pd.DataFrame({"epsilon_basic": [None] * users, "remaining": [None] * users})


def shown(policy_table: PolicyTable, bounds: Bounds, budget: pd.DataFrame) -> pd.DataFrame:
    """The table the page shows: each row's cells (no mechanism, w or dummies), its status under ``bounds`` and the
    user's spent and remaining ε (``ledger_budget``)."""
    frame = policy_table.to_frame().drop(columns=["mechanism", "w", "dummies"])
    frame["status"] = status(policy_table, bounds)
    frame["ε spent"] = budget["epsilon_basic"].to_numpy()
    frame["ε remaining"] = ["no cap" if pd.isna(v) else f"{v:g}" for v in budget["remaining"]]
    return frame


def marked_hours(week: pd.DataFrame) -> int:
    """How many hours of ``preview``'s week table are landmarks."""
    return int((week["landmark"] == "landmark").sum())


def preview(rule: str) -> tuple[go.Figure, pd.DataFrame]:
    """The one-week preview of a calendar rule: a weekday × hour grid, landmark hours black."""
    from lmdk.declared.calendar import week_grid, week_preview

    week = week_preview(rule)
    grid = week_grid(rule, week)
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(dtype=float), x=[f"{h:02d}:00" for h in grid.columns],
                               y=list(grid.index), zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
                               colorscale=[[0, "#EEEEEE"], [1, LANDMARK_COLOUR]],
                               hovertemplate="%{y} %{x}: %{customdata}<extra></extra>",
                               customdata=[["landmark" if v else "regular" for v in r] for r in grid.to_numpy()]))
    marked = int(week["landmark"].sum())
    base_layout(fig, height=260, meta={"rule": rule, "marked": marked}, legend=False)
    fig.update_layout(margin={"l": 50, "r": 10, "t": 10, "b": 40}, xaxis_title="hour of the day (wall clock)",
                      yaxis={"autorange": "reversed"}, xaxis={"dtick": 3})
    table_ = week.assign(landmark=week["landmark"].map({True: "landmark", False: "regular"}))
    return fig, table_[["weekday", "hour", "landmark"]]
