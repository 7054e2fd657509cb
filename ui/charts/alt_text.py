"""Text alternatives of the charts and maps (issue 28): under each one a "Show data" expander holding a summary in
words, its numbers as a table and a CSV download (the summary moved inside in issue 35: visible, it was in the way).

For whoever cannot see the picture (a screen reader, a projector that washes the colours out, colour blindness)
and for the privacy officer who wants the numbers rather than a picture. A page calls ``describe`` right after
``st.plotly_chart`` / ``st.pydeck_chart`` with the data the chart was drawn from (the builders below make the
common tables; without ``data`` the figure's own named traces are read). The summary is written from the same
table, so it states what the chart shows: the range and mean of every column, the count of landmarks.

Every text alternative sits in a container keyed ``chart_text_<key>``; tests/test_browser_a11y.py checks that each
page has one per chart.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
import streamlit as st

from ui import text
from ui.charts.style import number
from ui.downloads import download_deferred
from ui.session.cache import MAX_ENTRIES
from ui.session.cache_scope import bounded_cache

TABLE_ROWS = 500  # rows shown in the expander (every k-th row beyond); the CSV holds all of them
KEY_PREFIX = "chart_text_"
OPEN_PREFIX = "show_data_"  # key of a chart's "Show data" expander (its open state)
Timestamps = pd.Index | np.ndarray | list  # the events' times: a DatetimeIndex, an array or a list
Columns = Mapping[str, Any]  # a chart's numbers as plain columns: name -> array or list, every one n long
MAX_COLUMNS_SAID = 8  # columns the sentence names; the rest are in the table
MAE_COLUMNS = {"mae": "MAE", "low": "95 % CI low", "high": "95 % CI high", "clamped": "MAE clamped",
               "clamped_low": "clamped CI low", "clamped_high": "clamped CI high"}  # the pages' MAE rows


def describe(key: str, data: pd.DataFrame | Columns | None = None, *, what: str, summary: str | None = None, fig=None,
             over: str | None = None, said: list[str] | None = None, csv: bool = True, table: bool = True,
             container=None) -> str:
    """The summary (a caption) and the "Show data" expander (table, CSV) of one chart; returns the summary.

    ``data``: the chart's numbers, a DataFrame or plain ``Columns`` (or ``fig``: a plotly figure whose named traces
    are read); ``what``: what the chart shows, starting the sentence ("Budget εₜ per timestamp"); ``summary``: a
    sentence of the page's own instead; ``over``: the column the others run over (e.g. "t"), named with its range;
    ``said``: the columns the sentence names (default: every numeric one, up to ``MAX_COLUMNS_SAID``); ``csv``:
    False when the page offers the same CSV beside the chart already; ``table``: False when the page shows the same
    table (the expander then says so and holds only the CSV)."""
    if data is None:
        data = figure_table(fig) if fig is not None else pd.DataFrame()
    words = summary or sentence(data, what, over=over, said=said)
    box = (container or st).container(key=KEY_PREFIX + key)
    with box:
        # the numbers in words go inside the expander (issue 35: up to 11 visible lines under a chart were in the
        # way); the expander's label stays in the reading order, so a screen reader reaches them in one step
        # lazy (issue 34): the table and its CSV are built only while the expander is open — opening it reruns the
        # page (or its fragment); closed, it holds the sentence only, so an ε change does not convert every table
        expander = st.expander(f"Show data — {text.escape_markdown(what[0].lower() + what[1:])}",
                               icon=":material/table:", key=f"{OPEN_PREFIX}{key}", on_change="rerun")
        with expander:
            st.caption(words)
            if expander.open:
                _table_and_csv(key, data, what, csv=csv, table=table)
    return words


def describe_run(key: str, run: str, build, *, what: str, over: str | None = None, said: list[str] | None = None,
                 **options) -> str:
    """``describe`` of the table ``build()`` makes from the run ``run`` (``ui.session.cache.run_key``): the table (a
    DataFrame or, cheaper, plain ``Columns``) and its sentence are built once per run and shared (``chart_text``),
    not on every rerun; plain columns become a DataFrame only when the "Show data" expander is opened."""
    data, words = chart_text(key, run, what, over, None if said is None else tuple(said), _build=build)
    return describe(key, data, what=what, summary=words, over=over, said=said, **options)


@bounded_cache(MAX_ENTRIES, read_only=True)
def chart_text(kind: str, key: str, what: str, over: str | None, said: tuple[str, ...] | None, _build):
    """(table, sentence) of chart ``kind`` of the run ``key``: ``_build()``'s table and its ``sentence``, built once
    per run and handed to every session asking for it, as ``ui.charts.drawn``'s figures are (issue 34: with the
    charts, a third of an ε change's server time when a class follows one link)."""
    data = _build()
    return data, sentence(data, what, over=over, said=list(said) if said is not None else None)


def sentence(data: pd.DataFrame | Columns, what: str, *, over: str | None = None, said: list[str] | None = None) -> str:
    """``describe``'s sentence of a table: ``summarize`` of the columns ``said`` (all numeric ones when None), escaped
    for the caption's markdown (labels, ids and units may come from the user's file)."""
    columns = None if said is None else [c for c in data if c == over or c in said]  # no sub-table copied
    return text.escape_markdown(summarize(data, what, over=over, columns=columns))


def _table_and_csv(key: str, data: pd.DataFrame | Columns, what: str, *, csv: bool, table: bool) -> None:
    """What an open "Show data" expander holds below the sentence: the table (thinned) and its CSV download."""
    data = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)  # built only now: the expander is open
    if table:
        shown, step = thin(data)
        st.dataframe(shown, hide_index=True, width="stretch", height=min(38 + 35 * len(shown), 320))
        if step > 1:
            st.caption(f"One row in {step} of {len(data):,}; the CSV has all of them.")
    else:
        st.caption("The table shown with the chart holds these numbers.")
    if csv:
        download_deferred(f"{text.escape_markdown(what)} (CSV)", _csv, data, key=f"dl_{KEY_PREFIX}{key}",
                          file_name=f"{key}.csv", mime="text/csv", icon=":material/download:")


def _csv(data: pd.DataFrame) -> str:
    """The table as CSV text (no index column; no cell a spreadsheet would run as a formula)."""
    from lmdk.exports.cells import csv_text

    return csv_text(data)


def thin(data: pd.DataFrame, rows: int = TABLE_ROWS) -> tuple[pd.DataFrame, int]:
    """At most ``rows`` rows for display: every k-th row (first and last kept); returns (rows, k)."""
    if len(data) <= rows:
        return data, 1
    step = int(np.ceil(len(data) / rows))
    picked = np.unique(np.r_[np.arange(0, len(data), step), len(data) - 1])
    return data.iloc[picked], step


# ------------------------------------------------------------------ the sentence
class _Table:
    """A table's columns as numpy arrays, read on demand, from a DataFrame or plain ``Columns`` alike: the sentence
    of a chart is written from arrays, so a page need not build a DataFrame to say what a chart shows (issue 56: the
    DataFrames of three charts and their sentences were a fifth of an ε change's server time)."""

    def __init__(self, data: pd.DataFrame | Columns):
        """Wrap ``data``; a DataFrame's column kinds are read from its dtypes, plain columns' from their arrays."""
        self.frame = data if isinstance(data, pd.DataFrame) else None
        self.data = data
        # a DataFrame's dtypes read once: ``frame.dtypes`` builds a Series on every access
        self._dtypes = (dict(zip(self.frame.columns, self.frame.dtypes, strict=True)) if self.frame is not None
                        else {})
        self.names: list[Any] = list(data)  # a DataFrame iterates over its column names too
        self.n = len(data) if self.frame is not None or not self.names else len(data[self.names[0]])
        self._arrays: dict[Any, np.ndarray] = {}

    def kind(self, name: Any) -> str:
        """"flag" (bool), "number", "text" (object or string) or "other" — as the sentence reads a column."""
        if self.frame is not None:
            dtype = self._dtypes[name]
            if dtype == np.dtype(bool):
                return "flag"
            if pd.api.types.is_numeric_dtype(dtype):
                return "number"
            return "text" if dtype == np.dtype(object) or isinstance(dtype, pd.StringDtype) else "other"
        values = self.array(name)
        if values.dtype == bool:
            return "flag"
        return {"i": "number", "u": "number", "f": "number", "c": "number", "O": "text", "U": "text",
                "S": "text"}.get(values.dtype.kind, "other")

    def array(self, name: Any) -> np.ndarray:
        """Column ``name`` as a numpy array (a DataFrame's numbers as floats, NA as NaN)."""
        if name not in self._arrays:
            if self.frame is not None:
                col = self.frame[name]
                numeric = pd.api.types.is_numeric_dtype(col.dtype) and col.dtype != bool
                self._arrays[name] = (col.to_numpy(dtype=float, na_value=np.nan) if numeric else col.to_numpy())
            else:
                value = self.data[name]
                self._arrays[name] = value if isinstance(value, np.ndarray) else np.asarray(value)
        return self._arrays[name]


def summarize(data: pd.DataFrame | Columns, what: str, *, over: str | None = None,
              columns: list | None = None) -> str:
    """One sentence from a table: "{what} for t = 0–999 (1,000 values): landmark: 200 of 1,000; a 0 to 2 (mean 0.5)."

    ``data``: a DataFrame or plain ``Columns``. A first column of distinct labels (at most 12 rows, e.g. schemes) is
    read row by row instead. ``columns``: read only these (in the table's order), as if the table held no others."""
    if data is None:
        return f"{what}: no data."
    table = _Table(data)
    names = table.names
    if columns is not None and list(columns) != names:
        if not columns:
            names = []
        elif over is None and table.n <= 12:  # the row by row reading: the named columns only (a few rows)
            names = list(columns)
    if not names or not table.n:
        return f"{what}: no data."
    cols = names if columns is None else list(columns)
    n = table.n
    first = cols[0]
    if over is None and n <= 12 and table.kind(first) == "text":
        labels = table.array(first).tolist()
        if len(set(labels)) == n:
            rows = []
            for i, label in enumerate(labels):
                values = [f"{c} {_value(table.array(c)[i])}" for c in names[1:MAX_COLUMNS_SAID + 1]
                          if _value(table.array(c)[i])]
                rows.append(f"{label}: " + ", ".join(values) if values else str(label))
            return f"{what} — " + "; ".join(rows) + "."
    if cols == ["trace", "x", "y"] and table.frame is not None:  # a figure's own traces (figure_table)
        parts = [f"{name} {_range(group['y'])}" for name, group in table.frame.groupby("trace", sort=False)]
        return f"{what} ({n:,} points): " + "; ".join(parts[:MAX_COLUMNS_SAID]) + "."
    lead = f"{what} ({n:,} rows)"
    if over is not None and over in names:
        span = table.array(over)
        lead = f"{what} for {over} = {_value(span[0])}–{_value(span[-1])} ({n:,} values)"
    kinds = {c: table.kind(c) for c in cols if c != over}
    said = [c for c, kind in kinds.items() if kind in ("flag", "number")]
    places = [c[:-8] for c in said if c.endswith("latitude") and c[:-8] + "longitude" in said]  # "latitude": 8
    said = [c for c in said if not any(c in (p + "latitude", p + "longitude") for p in places)]
    parts = [_extent(table.array(p + "latitude"), table.array(p + "longitude"),
                     f"{p.strip()}'s release" if p else "the path") for p in places]
    parts += [f"{c}: {int(table.array(c).sum()):,} of {n:,}" if kinds[c] == "flag" else f"{c} {_range(table.array(c))}"
              for c in said[:MAX_COLUMNS_SAID]]
    tail = f"; {len(said) - MAX_COLUMNS_SAID} more columns in the data" if len(said) > MAX_COLUMNS_SAID else ""
    return lead + (": " + "; ".join(parts) if parts else "") + tail + "."


def summarize_by(data: pd.DataFrame, group: str, column: str, what: str, *, how: str = "max") -> str:
    """"{what}: a 0.5; b 0.93." — one value of ``column`` per ``group`` (its ``how``: max, min, first, …)."""
    if data is None or data.empty:
        return f"{what}: no data."
    values = data.groupby(group, sort=False)[column].agg(how)
    return f"{what}: " + "; ".join(f"{k} {_value(v)}" for k, v in values.items()) + "."


def _extent(lat, lon, name: str) -> str:
    """"{name} within 6.1 km × 4.3 km around (39.9130, 116.3500)": a path's box, east–west × north–south."""
    lat, lon = np.asarray(lat, dtype=float), np.asarray(lon, dtype=float)
    ok = np.isfinite(lat) & np.isfinite(lon)
    if not ok.any():
        return f"{name} empty"
    lat, lon = lat[ok], lon[ok]
    mid = (lat.min() + lat.max()) / 2
    ew = (lon.max() - lon.min()) * 111.32 * np.cos(np.radians(mid))
    ns = (lat.max() - lat.min()) * 110.57
    return (f"{name} within {number(float(ew))} km × {number(float(ns))} km around "
            f"({mid:.4f}, {(lon.min() + lon.max()) / 2:.4f})")


def _range(col) -> str:
    """"a to b (mean m)", "v throughout" or "empty" of a numeric column (an array of numbers or a Series)."""
    if isinstance(col, np.ndarray) and col.dtype.kind in "iuf":
        v = col.astype(float, copy=False)
    elif isinstance(col, pd.Series) and pd.api.types.is_numeric_dtype(col) and col.dtype != bool:
        v = col.to_numpy(dtype=float, na_value=np.nan)  # as it is: no Series rebuilt per column and run
    else:
        v = pd.to_numeric(pd.Series(col), errors="coerce").to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return "empty"
    low, high = number(float(v.min())), number(float(v.max()))
    if low == high:
        return f"{low} throughout" if v.min() == v.max() else f"about {low} throughout"
    return f"{low} to {high} (mean {number(float(v.mean()))})"


def _value(v) -> str:
    """One cell as the summary sentence writes it: yes/no, 1,234, a short number, or its text."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return number(float(v)) if np.isfinite(v) else ""
    return str(v)


# ------------------------------------------------------------------ tables of the common charts
def budget_table(budgets_by_scheme: dict[str, np.ndarray], landmarks: Iterable[int], *,
                 dummies: Iterable[int] = ()) -> pd.DataFrame:
    """t, landmark (, dummy), then εₜ of every scheme."""
    # one DataFrame from one dict: inserting columns one by one cost ~5 ms per chart and ε change (issue 34)
    return pd.DataFrame(budget_columns(budgets_by_scheme, landmarks, dummies=dummies))


def budget_columns(budgets_by_scheme: dict[str, np.ndarray], landmarks: Iterable[int], *,
                   dummies: Iterable[int] = ()) -> dict[str, np.ndarray]:
    """``budget_table``'s columns, as plain arrays (``describe_run`` builds the DataFrame only when it is shown)."""
    n = max((len(b) for b in budgets_by_scheme.values()), default=0)
    return {"t": np.arange(n), **_flags(n, landmarks, dummies),
            **{f"{scheme} εₜ": np.asarray(b, dtype=float) for scheme, b in budgets_by_scheme.items()}}


def series_table(timestamps: Timestamps, values: np.ndarray, landmarks: Iterable[int], *, value_name: str,
                 dummies: Iterable[int] = (), labels: list[str] | None = None) -> pd.DataFrame:
    """t, time, the value, landmark (, dummy) — the timeline's events; ``labels``: ``time_labels(timestamps)`` when
    the caller keeps them (``series_time_labels``)."""
    values = np.asarray(values, dtype=float)
    labels = labels if labels is not None else time_labels(timestamps)
    return pd.DataFrame({"t": np.arange(values.size), "time": labels, value_name: values,
                         **_flags(values.size, landmarks, dummies)})


def release_table(timestamps: Timestamps, original: np.ndarray, summaries: dict, *, value_name: str,
                  labels: list[str] | None = None) -> pd.DataFrame:
    """t, time, original, then every scheme's median and its band (low, high) over the repetitions (``labels`` as
    in ``series_table``)."""
    return pd.DataFrame(release_columns(timestamps, original, summaries, value_name=value_name, labels=labels))


def release_columns(timestamps: Timestamps, original: np.ndarray, summaries: dict, *, value_name: str,
                    labels: list[str] | None = None) -> dict:
    """``release_table``'s columns, as plain arrays (the times as a list of text)."""
    columns = {"t": np.arange(len(original)), "time": labels if labels is not None else time_labels(timestamps),
               f"original {value_name}": np.asarray(original, dtype=float)}
    for scheme, (median, low, high) in summaries.items():
        columns |= {f"{scheme} median": np.asarray(median, dtype=float), f"{scheme} low": np.asarray(low, dtype=float),
                    f"{scheme} high": np.asarray(high, dtype=float)}
    return columns


def track_table(timestamps: Timestamps, lat: np.ndarray, lon: np.ndarray, landmarks: Iterable[int],
                released: dict[str, tuple[np.ndarray, np.ndarray]] | None = None, *,
                labels: list[str] | None = None) -> pd.DataFrame:
    """t, time, lat, lon, landmark, then each release's lat/lon — a map's events (``labels`` as in
    ``series_table``)."""
    lat = np.asarray(lat, dtype=float)
    labels = labels if labels is not None else time_labels(timestamps)
    table = pd.DataFrame({"t": np.arange(lat.size), "time": labels, "latitude": lat,
                          "longitude": np.asarray(lon, dtype=float), **_flags(lat.size, landmarks, ())})
    for name, (rlat, rlon) in (released or {}).items():
        table[f"{name} latitude"] = np.asarray(rlat, dtype=float)
        table[f"{name} longitude"] = np.asarray(rlon, dtype=float)
    return table


def per_timestamp_table(n: int, landmarks: np.ndarray, columns: dict) -> pd.DataFrame:
    """t, landmark (whether t is in ``landmarks``), then ``columns`` — a per-timestamp chart's n events."""
    t = np.arange(n)
    return pd.DataFrame({"t": t, "landmark": np.isin(t, landmarks), **columns})


def rows_table(rows: list[dict], names: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per dict of ``rows`` (a chart's bars), its columns renamed by ``names``."""
    table = pd.DataFrame(rows)
    return table.rename(columns=names) if names is not None else table


def rows_columns(rows: list[dict], names: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """``rows_table``'s columns, as plain arrays (a key missing from a row: NaN, as in the DataFrame)."""
    keys = list(dict.fromkeys(k for row in rows for k in row))
    names = names or {}
    return {names.get(k, k): np.asarray([row.get(k, np.nan) for row in rows]) for k in keys}


def _flags(n: int, landmarks: Iterable[int], dummies: Iterable[int]) -> dict:
    """Boolean columns per event: landmark, and dummy (a dummy that is not a landmark) when there are dummies."""
    lm = np.zeros(n, dtype=bool)
    idx = np.asarray(list(landmarks), dtype=np.int64)
    lm[idx[(idx >= 0) & (idx < n)]] = True
    flags = {"landmark": lm}
    dm = np.asarray(list(dummies), dtype=np.int64)
    if dm.size:
        d = np.zeros(n, dtype=bool)
        d[dm[(dm >= 0) & (dm < n)]] = True
        flags["dummy"] = d & ~lm
    return flags


def series_time_labels(cur) -> list[str]:
    """The times of the current series' events (``ui.session.cache.Current``) as ``time_labels`` writes them: worked
    out once per series, not on every ε change (issue 34)."""
    return _series_time_labels(cur.token, cur.series.timestamps)


@bounded_cache(MAX_ENTRIES, read_only=True)
def _series_time_labels(token: str, _timestamps) -> list[str]:
    """``time_labels`` of the series ``token`` names."""
    return time_labels(_timestamps)


def time_labels(timestamps: Timestamps) -> list[str]:
    """Timestamps as text, local wall time as ``str(pd.Timestamp)`` writes it ("2024-01-01 00:00:00", microseconds
    only when some are non-zero): the CSV and table read the same. Vectorised (numpy's ISO formatter): a Python
    ``str`` per timestamp took 0.5 s per table at a year of 5-minute readings."""
    try:
        index = pd.DatetimeIndex(timestamps)
    except (TypeError, ValueError):
        return [str(t) for t in timestamps]
    local = (index.tz_localize(None) if index.tz is not None else index).as_unit("ns").values
    known = ~np.isnat(local)
    ticks = local.view(np.int64)[known]
    unit: Literal["s", "us", "ns"] = "ns"
    if not np.any(ticks % 1_000):
        unit = "us" if np.any(ticks % 1_000_000_000) else "s"
    text = np.datetime_as_string(local, unit=unit).astype(object)
    text[known] = np.char.replace(text[known].astype(str), "T", " ")
    return text.tolist()


# ------------------------------------------------------------------ a figure's own traces
def figure_table(fig) -> pd.DataFrame:
    """The named traces of a plotly figure as a long table (trace, x, y) — for charts without a table of their
    own. Traces without a name or with hover switched off (band edges, strips) are left out."""
    spec = fig if isinstance(fig, dict) else fig.to_plotly_json()
    frames = []
    for trace in spec.get("data", []):
        name = trace.get("name")
        y = _array(trace.get("y"))
        if not name or y is None or trace.get("hoverinfo") == "skip":
            continue
        x = _array(trace.get("x"))
        if x is None:
            x = float(trace.get("x0", 0)) + float(trace.get("dx", 1)) * np.arange(len(y))
        if trace.get("orientation") == "h":
            x, y = y, x
        frames.append(pd.DataFrame({"trace": name, "x": x[:len(y)], "y": y[:len(x)]}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _array(value):
    """A trace's values (a list, an array or a base64 typed array) as a numpy array; None stays None."""
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:
        from ui.charts.figure import contiguous_arrays

        value = contiguous_arrays(value)
    return np.asarray(value)
