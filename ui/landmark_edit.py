"""Landmark edits of the Data & landmarks page: the index arithmetic behind its callbacks (add, remove, toggle or
replace positions; a timeline selection or map click as positions) and the detectors' default settings."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import streamlit as st

from ui.charts import downsample
from ui.charts.style import time_values
from ui.session import cache, state

CONTACTS_SHOWN = 500  # contact ids offered in the watch-list


def edited(action: str, indices: Iterable[int] | np.ndarray, old: np.ndarray, n: int) -> np.ndarray:
    """The landmark set ``old`` after ``action`` ("replace", "add", "remove", else toggle) with ``indices`` (those
    outside 0..n-1 are dropped)."""
    from lmdk import landmarks as lmk

    picked = np.asarray(indices, dtype=np.int64)
    picked = picked[(picked >= 0) & (picked < n)]
    if action == "replace":
        return picked
    if action == "add":
        return lmk.merge(old, picked)
    if action == "remove":
        return np.setdiff1d(old, picked)
    return lmk.toggle(old, picked, n)


def edit(action: str, indices: Iterable[int] | np.ndarray, note: str, origin: str | None = None) -> None:
    """Change the current series' landmarks (``edited``) and remember ``note``; a replacement without ``origin`` is
    "declared" (a file, or clearing: nothing read from the values)."""
    cur = state.current()
    if cur is None:
        return
    new = edited(action, indices, cur.landmarks, cur.n)
    if action == "replace" and origin is None:
        origin = "declared"
    cache.set_landmarks(new, note, origin=origin)


def marked_origin(old: str | None, values_shown: bool) -> str:
    """The origin of a set after marks made by hand (issue 53): a detector's set stays "data"; marks made while the
    chart showed the values make it "viewed" (a person who marks the low values is a data-derived rule), and so does
    a set already "viewed"; marks on the values-free timeline keep a declared set "declared"."""
    if old == "data":
        return "data"
    return "viewed" if values_shown or old == "viewed" else "declared"


def values_hidden() -> bool:
    """Whether the Data page's timeline is drawn without the values (marks made on it stay declared)."""
    return bool(st.session_state.get(state.TIMELINE_BLIND))


def edit_marked(action: str, indices: Iterable[int] | np.ndarray, note: str, values_shown: bool | None = None) -> None:
    """``edit`` for marks made by hand (timeline clicks and boxes, typed positions, map clicks): their origin follows
    ``marked_origin``; ``values_shown`` None: whether the timeline shows the values (the map always does)."""
    shown = not values_hidden() if values_shown is None else values_shown
    edit(action, indices, note, marked_origin(st.session_state.get(state.LANDMARKS_ORIGIN), shown))


def timeline_values(cur) -> tuple[np.ndarray, str]:
    """(y, axis title) of the Data page's timeline: the values, or a flat line of times when they are hidden."""
    from lmdk.present import views

    if values_hidden():
        return np.zeros(cur.n), "values hidden: mark by time"
    return views.timeline_values(cur.series)


def selected_indices(event) -> tuple[np.ndarray, bool]:
    """Timestamp indices of a plotly selection and whether it came from a box/lasso (else a click)."""
    if event is None:
        return np.zeros(0, dtype=np.int64), False
    sel = event["selection"]
    idx = []
    for point in sel.get("points", []):
        cd = point.get("customdata")
        if isinstance(cd, (list, tuple)):
            cd = cd[0] if cd else None
        if cd is not None:
            idx.append(int(cd))
    area = bool(sel.get("box")) or bool(sel.get("lasso"))
    return np.unique(np.asarray(idx, dtype=np.int64)), area


def with_area(idx: np.ndarray, selection: dict, cur, first: int, stop: int) -> np.ndarray:
    """``idx`` plus every event of [first, stop) inside a box or lasso ``selection`` of a downsampled timeline,
    drawn or not."""
    y_all, _ = timeline_values(cur)  # the y the chart drew (a flat line when the values are hidden)
    inside = downsample.events_in_selection(selection, time_values(cur.series.timestamps), y_all, first, stop)
    return np.union1d(idx, inside)


def map_picks(objects: list[dict]) -> np.ndarray:
    """The event positions ``t`` of the map's picked objects."""
    return np.asarray([int(o["t"]) for o in objects if "t" in o], dtype=np.int64)


def threshold_default(values: np.ndarray, side: str) -> float:
    """The threshold detector's starting level: the value at the 20th (below) or 80th (above) percentile."""
    return float(np.round(np.quantile(values, 0.2 if side == "below" else 0.8, method="nearest"), 3))


def contact_ids(contacts: np.ndarray) -> list[int]:
    """The first ``CONTACTS_SHOWN`` contact ids seen (no-contact markers < 0 left out), in order."""
    ids = np.unique(contacts)
    return ids[ids >= 0][:CONTACTS_SHOWN].tolist()
