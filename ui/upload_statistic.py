"""The Data page's choice for a multi-user upload: one user's own series, or the total, mean or count over all users
(or one group) — built by :mod:`lmdk.aggregate.upload`; the chosen statistic becomes the series of every page, and
its relation (which change of which person's data, Δ over the users, the clamp) goes with it
(``ui.session.relation``)."""
from __future__ import annotations

import streamlit as st

from ui import text
from ui.session import state

_P = "_ustat_"  # prefix of this panel's widget keys (session only: an upload is never in a link)
STAT, LOW, HIGH, BIN, K, BY, GROUP, LAT, LON, RADIUS, START, END, DROP = (_P + k for k in (
    "stat", "low", "high", "bin", "k", "by", "group", "lat", "lon", "radius", "start", "end", "drop"))
DROP_LABEL = "drop rows without a user id"
APPLIED = "_ustat_applied"  # {widget key: value} of the statistic in use (seeds the panel when the page is reopened)
ERROR = "_ustat_error"
FILE = "_ustat_file"  # (bytes, name) of the multi-user upload (memory only): the uploader forgets it on another page
_GROUPS = "_ustat_groups"  # (file hash, column, group names): the groups of the chosen column, read once
_NO_GROUP = "(all users)"
NAMES = {"one": "one user's own series", "sum": "the total over all users", "mean": "the mean over all users",
         "count": "the count over all users"}


def multi_user(detection) -> bool:
    """Whether the upload holds several users (a user/device column with two or more ids)."""
    return detection is not None and detection.entities is not None and len(detection.entities) > 1


def _upload():
    """(bytes, name) of this session's multi-user upload: the uploader's, or the one kept when a statistic was used."""
    from ui import import_step

    ss = st.session_state
    upload = import_step.uploaded_file()
    kept = ss.get(FILE)
    if upload is not None and (kept is None or kept[1] != upload[1] or kept[0] != upload[0]):
        ss[FILE] = upload
    return upload or kept


def _spec():
    ss = st.session_state
    detection = ss.get(state.IMPORT_DETECTION)
    return ss.get(state.IMPORT_SPEC) or (detection.spec if detection is not None else None)


def _choice():
    """The panel's widgets as an :class:`lmdk.aggregate.upload.UploadStatistic`."""
    from lmdk.aggregate import Region
    from lmdk.aggregate.upload import UploadStatistic
    from lmdk.errors import ParameterError

    ss = st.session_state
    by = ss.get(BY)
    by = None if by in (None, _NO_GROUP) else by
    region = None
    if _spec().kind == "trajectory" and None not in (ss.get(LAT), ss.get(LON), ss.get(RADIUS)):
        region = Region(float(ss[LAT]), float(ss[LON]), float(ss[RADIUS]))
    start, end = str(ss.get(START) or "").strip(), str(ss.get(END) or "").strip()
    if bool(start) != bool(end):
        raise ParameterError("time range: give both its start and its end (public, e.g. 2024-03-01 and 2024-04-01), "
                             "or neither")
    return UploadStatistic(statistic=ss[STAT], low=ss.get(LOW), high=ss.get(HIGH), bin=str(ss.get(BIN) or "1h"),
                           max_per_user=int(ss.get(K) or 1), by=by, group=ss.get(GROUP) if by else None,
                           region=region, time_range=(start, end) if start else None,
                           drop_rows_without_user=bool(ss.get(DROP)))


def _apply() -> None:
    """Make the chosen series the current one: one user (the import as read) or the statistic with its relation."""
    from lmdk.aggregate.upload import choose
    from ui import import_step, long_series

    ss = st.session_state
    ss[ERROR] = None
    upload, spec = _upload(), _spec()
    if upload is None or spec is None:
        return
    if ss[STAT] == "one":
        ss.pop(state.TOTAL_OF_USERS, None)
        ss[APPLIED] = {STAT: "one"}
        import_step.load_upload(spec, upload)
        return
    try:
        chosen = choose(upload[0], upload[1], spec, _choice(), units=spec.units or "", tz=spec.timezone)
    except ValueError as exc:  # lmdk.errors.*: the message names the field and the fix (the CLI's flags: this panel's)
        ss[ERROR] = (str(exc).replace("pass --drop-rows-without-user", f"tick “{DROP_LABEL}”")
                     .replace("(--time-range)", "(the time range above)"))
        return
    except Exception:  # never a traceback
        ss[ERROR] = "The statistic could not be built from this file; check the import settings and the fields above."
        return
    ss[state.SERIES_UPLOAD] = chosen.series
    ss[state.TOTAL_OF_USERS] = {"hash": chosen.series.source_hash, "relation": chosen.relation.to_dict(),
                                "notes": list(chosen.notes)}
    ss[state.SOURCE] = "upload"
    ss[state.LANDMARKS_TOKEN] = None
    ss[APPLIED] = {k: ss.get(k) for k in (STAT, LOW, HIGH, BIN, K, BY, GROUP, LAT, LON, RADIUS, START, END, DROP)}
    long_series.reset()


def _groups(column: str) -> list[str]:
    """The group names of ``column`` in this session's upload (read once per file and column)."""
    from lmdk.aggregate.inputs import Upload, group_pairs

    ss = st.session_state
    upload = _upload()
    if upload is None:
        return []
    key = (hash(upload[0]), column)
    memo = ss.get(_GROUPS)
    if memo is None or memo[0] != key:
        try:
            names = sorted(set(group_pairs(Upload(upload[0], upload[1]), column, _spec())["group"]))
        except ValueError as exc:
            ss[ERROR] = str(exc)
            names = []
        memo = (key, names)
        ss[_GROUPS] = memo
    return memo[1]


def _seed(spec) -> None:
    """Give the panel's widgets the statistic in use (or the defaults) when they have no value yet."""
    ss = st.session_state
    defaults = {STAT: "one", LOW: None, HIGH: None, BIN: "5min" if spec.kind == "contacts" else "1h", K: 1,
                BY: _NO_GROUP, GROUP: None, LAT: None, LON: None, RADIUS: 500.0, START: "", END: "", DROP: False}
    defaults.update(ss.get(APPLIED) or {})
    for key, value in defaults.items():
        if key not in ss:
            ss[key] = value


def in_use() -> str:
    """'Now studied: …' — the series every page works on, and what its ε protects."""
    from ui.session import relation

    ss = st.session_state
    total = relation.aggregate_relation()
    series = ss.get(state.SERIES_UPLOAD)
    if total is None or series is None:
        return "Now studied: one user's own series (the user chosen in the import settings)."
    notes = " ".join((ss.get(state.TOTAL_OF_USERS) or {}).get("notes") or ())
    return (f"Now studied: **{text.escape_markdown(series.name or 'the statistic')}**. ε protects "
            f"{text.escape_markdown(total.protects('bin'))}: {text.escape_markdown(total.label())}."
            + (f" {text.escape_markdown(notes)}" if notes else ""))


def controls() -> None:
    """The panel under the import step: one user, or the total, mean or count over all users or one group."""
    from lmdk.aggregate.upload import group_columns, statistics_for

    ss = st.session_state
    detection, spec = ss.get(state.IMPORT_DETECTION), _spec()
    if detection is None or not multi_user(detection) or spec is None or spec.entity_column is None \
            or _upload() is None:
        return
    _seed(spec)
    offered = ("one",) + statistics_for(spec.kind)
    if ss[STAT] not in offered:
        ss[STAT] = "one"
    with st.container(border=True):
        st.markdown(f"**One user, or a statistic over all {len(detection.entities):,} users** "
                    f"(column `{text.escape_markdown(spec.entity_column)}`)")
        st.radio("Series", offered, key=STAT, horizontal=True, format_func=NAMES.get,
                 help="One user: ε protects one of that user's own events. A statistic: ε protects any one user's "
                      "readings at every landmark bin and any one other bin; the statistic grows with the number "
                      "of users, the noise does not.")
        if ss[STAT] != "one":
            _statistic_fields(spec, group_columns(detection.columns, spec))
        st.button("Use this series", on_click=_apply, type="primary", key=_P + "apply")
        if ss.get(ERROR):
            st.error(text.escape_markdown(ss[ERROR]), icon=":material/error:")
        st.caption(in_use() + " Command line: `lmdk aggregate`.")


def _statistic_fields(spec, columns: list[str]) -> None:
    """The statistic's public parameters: the range (clamp), K or the region, the bin, the group."""
    ss = st.session_state
    c1, c2, c3 = st.columns(3)
    unit = text.escape_markdown(spec.units or "value units")  # widget labels render markdown
    if ss[STAT] in ("sum", "mean"):
        c1.number_input(f"lowest reading ({unit})", value=None, key=LOW, placeholder="public, e.g. 0",
                        help="The public range of one user's reading, from the device or the domain — never from the "
                             "data. Readings outside it are clamped (and counted). A user without a reading in a bin "
                             "counts 0, so Δ = max(0, high) − min(0, low).")
        c2.number_input(f"highest reading ({unit})", value=None, key=HIGH, placeholder="e.g. 25",
                        help="E.g. the meter's rating. The total lies in [N·min(0, low), N·max(0, high)]; a mean's "
                             "Δ is that Δ ÷ N (N: the users counted from the user column, public).")
    elif spec.kind == "contacts":
        c1.number_input("K: contact rows per person and bin", min_value=1, max_value=1_000, step=1, key=K,
                        help="Public: each person adds at most K rows per bin (extra rows are dropped and counted); "
                             "Δ = K.")
    else:
        c1.number_input("region latitude", -90.0, 90.0, value=None, key=LAT, placeholder="centre, e.g. 39.9")
        c2.number_input("region longitude", -180.0, 180.0, value=None, key=LON, placeholder="e.g. 116.4")
        c3.number_input("radius (m)", min_value=1.0, key=RADIUS, help="The public circle users are counted in; Δ = 1.")
    c1, c2, c3 = st.columns(3)
    c1.text_input("bin", key=BIN, help="The common time grid, as lmdk aggregate --bin: 30min, 1h (aligned on "
                                        "multiples of the width), 1d, 1w, 1month, 1quarter, 1year (from local "
                                        "midnight, weeks from Monday); 1m and MS are ambiguous (write 1min or "
                                        "1month). One contribution per user and bin (several readings of one user "
                                        "in a bin are averaged, and counted).")
    t1, t2, t3 = st.columns(3)
    t1.text_input("time range start", key=START, placeholder="public, e.g. 2024-03-01",
                  help="The public time range of the released bins, given in advance (as lmdk aggregate --time-range): "
                       "readings outside it are dropped and counted, bins inside without readings are released with "
                       "noise. Empty: the range is read from the data, so the earliest and latest reading of any one "
                       "user are published (the statement says so).")
    t2.text_input("time range end (exclusive)", key=END, placeholder="e.g. 2024-04-01",
                  help="Naive times are read in the import's time zone; the range is widened outward to whole bins.")
    t3.checkbox(DROP_LABEL, key=DROP,
                help="As lmdk aggregate --drop-rows-without-user: rows whose user id is empty are dropped and counted. "
                     "Without it such rows are refused: they would count as one more user (N and the mean move).")
    if spec.kind != "contacts" and columns:
        c2.selectbox("group column", [_NO_GROUP] + columns, key=BY,
                     help="Release one group's statistic (district, feeder, class): each user in exactly one group; "
                          "membership is treated as public; disjoint groups compose in parallel.")
        if ss.get(BY) not in (None, _NO_GROUP):
            names = _groups(ss[BY])
            if ss.get(GROUP) not in names:
                ss[GROUP] = names[0] if names else None
            c3.selectbox("group", names, key=GROUP)
