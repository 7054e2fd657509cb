"""The import step of the Data & landmarks page: upload → proposed import mapping → confirm or change → series.

The core (``lmdk.data.mapping``) proposes and applies the mapping; this module only draws it. The file stays
in the uploader widget of this session (read again from there when a setting changes; never written to disk).
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui import text
from ui.session import memory, state

UPLOAD_WIDGET = "upload_file"
FORM = "import_form"
_FIELD = "imp_"  # prefix of the form's widget keys
_NONE = "(none)"
LAYOUT_NAMES = {"hue": "HUE smart-meter export (date, hour, energy)", "geolife": "GeoLife trajectory (.plt)",
                "tdrive": "T-drive taxi trajectory"}
KIND_NAMES = {"values": "values (readings)", "trajectory": "trajectory (locations)",
              "contacts": "contacts (ids met)"}
GENERIC_ERROR = ("This file could not be read. Upload a text table (CSV, TSV, semicolon- or space-separated; "
                 "any extension) or Parquet with a time column and a value, latitude/longitude or contact column.")


def uploaded_file():
    """(bytes, name) of this session's upload, or None."""
    file = st.session_state.get(UPLOAD_WIDGET)
    return None if file is None else (file.getvalue(), file.name)


def load_upload(spec, upload=None) -> None:
    """Apply ``spec`` to the uploaded file (or ``upload``: (bytes, name) kept in the session); the series or the error
    goes to the session."""
    import io

    from lmdk.data import mapping

    ss = st.session_state
    upload = upload or uploaded_file()
    if upload is None:
        return
    raw, name = upload
    buffer = io.BytesIO(raw)
    buffer.name = name
    try:
        series = mapping.apply(buffer, spec, name=name, audience="app")  # warnings point to the import settings
    except ValueError as exc:  # lmdk.errors.*: the message names the field and the fix
        ss[state.UPLOAD_ERROR] = str(exc)
        return
    except Exception:  # never show a traceback to a visitor
        ss[state.UPLOAD_ERROR] = GENERIC_ERROR
        return
    ss[state.UPLOAD_ERROR] = None
    ss[state.IMPORT_SPEC] = spec
    ss[state.SERIES_UPLOAD] = series
    ss[state.SOURCE] = "upload"
    ss[state.LANDMARKS_TOKEN] = None
    from ui import long_series

    long_series.reset()  # taken whole up to state.N_MAX; longer: the page offers a window or an aggregation


def on_upload() -> None:
    """A new file: propose a mapping (detect) and load the series with it."""
    from lmdk.data import mapping

    ss = st.session_state
    for key in (state.UPLOAD_ERROR, state.IMPORT_DETECTION, state.IMPORT_SPEC, state.SERIES_UPLOAD):
        ss[key] = None
    _clear_form()
    upload = uploaded_file()
    if upload is None:
        return
    raw, name = upload
    ss[state.UPLOAD_FILE_NAME] = name  # for the generated script: the user runs it beside their file
    try:
        detection = mapping.detect_bytes(raw, name)
    except ValueError as exc:
        ss[state.UPLOAD_ERROR] = str(exc)
        return
    except Exception:
        ss[state.UPLOAD_ERROR] = GENERIC_ERROR
        return
    ss[state.IMPORT_DETECTION] = detection
    load_upload(detection.spec)
    memory.release_freed_memory()  # the parse's temporaries, and whatever sessions that ended left freed


def _clear_form() -> None:
    """Forget the form's widget values so they show the new proposal."""
    for key in [k for k in st.session_state if str(k).startswith(_FIELD)]:
        del st.session_state[key]


def _on_apply() -> None:
    """The form was submitted: re-read with changed parse settings, then load with the chosen columns."""
    from lmdk.data import mapping

    ss = st.session_state
    detection = ss.get(state.IMPORT_DETECTION)
    if detection is None:
        return
    old = detection.spec

    def value(name: str, default=None):
        """The import setting ``name`` as its widget holds it."""
        return ss.get(_FIELD + name, default)

    def column(name: str) -> str | None:
        """The column chosen in setting ``name``; None for "(none)"."""
        return None if value(name) in (None, _NONE) else value(name)

    try:
        spec = old
        if old.layout == "table":
            parse = dict(delimiter=value("delimiter", old.delimiter), decimal=value("decimal", old.decimal),
                         header=bool(value("header", old.header)), skip_rows=int(value("skip_rows", old.skip_rows)))
            if any(getattr(old, k) != v for k, v in parse.items()):
                upload = uploaded_file()
                detection = mapping.propose_bytes(upload[0], replace(old, **parse))
                ss[state.IMPORT_DETECTION] = detection
                _clear_form()
                load_upload(detection.spec)
                return
            spec = replace(old, time_column=column("time_column"), date_column=column("date_column"),
                           time_format=value("time_format", old.time_format), start=value("start", old.start),
                           timezone=value("timezone") or None, kind=value("kind", old.kind),
                           value_column=column("value_column"), lat_column=column("lat_column"),
                           lon_column=column("lon_column"), contact_column=column("contact_column"),
                           units=value("units", old.units) or "")
        if detection.entity_candidates and column("entity_column") != spec.entity_column:
            upload = uploaded_file()  # a user/device column chosen (or dropped): count its ids, the largest is proposed
            detection = mapping.with_entity_column(upload[0], replace(detection, spec=spec),
                                                   column("entity_column"), filename=upload[1])
            spec = detection.spec
            ss.pop(_FIELD + "entity", None)  # the ids of the old column are no choice any more
        elif detection.entities is not None and value("entity") is not None:
            spec = replace(spec, entity=str(value("entity")))
    except ValueError as exc:
        ss[state.UPLOAD_ERROR] = str(exc)
        return
    ss[state.IMPORT_DETECTION] = replace(detection, spec=spec)
    load_upload(spec)


def _select(container, label: str, options: list, current, name: str, **kw):
    """A selectbox of the form whose default is the proposal."""
    index = options.index(current) if current in options else 0
    return container.selectbox(label, options, index=index, key=_FIELD + name, **kw)


def import_step() -> None:
    """The uploader, the proposed mapping with a preview, and the form to change it."""
    st.file_uploader("A data file: CSV, TSV, semicolon- or space-separated text (.csv .txt .dat .plt …) or "
                     "Parquet — max 50 MB; it stays in this browser session only", type=None, key=UPLOAD_WIDGET,
                     on_change=on_upload)
    ss = st.session_state
    if ss.get(state.UPLOAD_ERROR):
        st.error(text.escape_markdown(ss[state.UPLOAD_ERROR]), icon=":material/error:")
    detection = ss.get(state.IMPORT_DETECTION)
    if detection is None or uploaded_file() is None:
        return
    for question in detection.questions:
        st.warning(text.escape_markdown(question), icon=":material/help:")
    spec = detection.spec
    with st.expander("Import settings — how the file is read", expanded=bool(detection.questions
                                                                              or ss.get(state.UPLOAD_ERROR))):
        if spec.layout != "table":
            st.caption(f"Recognised as a **{LAYOUT_NAMES[spec.layout]}**: nothing to set"
                       + (" but which taxi." if detection.entities is not None and len(detection.entities) > 1
                          else "."))
        st.caption("The first rows as read:")
        st.dataframe(detection.preview, hide_index=True, height=160)
        with st.form(FORM, border=False):
            if spec.layout == "table":
                _table_fields(detection)
            if detection.entity_candidates:
                options = [_NONE] + list(detection.entity_candidates)
                if spec.entity_column and spec.entity_column not in options:
                    options.append(spec.entity_column)
                _select(st, "User / device column — its values make the timestamps repeat: one series each",
                        options, spec.entity_column or _NONE, "entity_column",
                        help="Rows of several users, devices or sources in one table share timestamps. Choose the "
                             "column that names them to read one of them; (none) averages the readings that share "
                             "a timestamp (locations: keeps the first).")
            if detection.entities is not None and len(detection.entities) > 1:
                counts = detection.entities
                what = "Taxi" if spec.layout == "tdrive" else "Person" if spec.kind == "contacts" else "User / device"
                _select(st, f"{what} ({len(counts):,} in the file, with their number of rows)",
                        [str(i) for i in counts.index], spec.entity, "entity",
                        format_func=lambda i: f"{i} — {int(counts[i]):,} rows")
            st.form_submit_button("Apply import settings", on_click=_on_apply, type="primary")


def _table_fields(detection) -> None:
    """Delimiter, decimal mark, header, time column(s) and format, zone, kind and its columns, units."""
    from lmdk.data.mapping import DECIMALS, DELIMITERS, KINDS, TIME_FORMATS

    spec = detection.spec
    cols = list(detection.columns)
    optional = [_NONE] + cols
    c1, c2, c3 = st.columns(3)
    _select(c1, "Delimiter", list(DELIMITERS), spec.delimiter, "delimiter", format_func=DELIMITERS.get)
    _select(c2, "Decimal mark", list(DECIMALS), spec.decimal, "decimal", format_func=DECIMALS.get)
    c3.number_input("Lines to skip at the top", 0, 1000, spec.skip_rows, key=_FIELD + "skip_rows")
    c3.checkbox("Header row", value=spec.header, key=_FIELD + "header", help="The first row names the columns.")
    c1, c2, c3 = st.columns(3)
    _select(c1, "Time column", cols, spec.time_column, "time_column")
    _select(c2, "Separate date column", optional, spec.date_column or _NONE, "date_column",
            help="When the date and the time of day stand in two columns.")
    _select(c3, "Time format", list(TIME_FORMATS), spec.time_format, "time_format", format_func=TIME_FORMATS.get)
    c1, c2 = st.columns(2)
    c1.text_input("Time zone (IANA name)", value=spec.timezone or "", key=_FIELD + "timezone",
                  placeholder="e.g. Europe/Berlin — empty: as written in the file",
                  help="The zone the file's clock times are in; they are converted to UTC.")
    if spec.time_format == "relative_s":
        c2.text_input("Start of the relative seconds", value=spec.start, key=_FIELD + "start")
    c1, c2, c3 = st.columns(3)
    _select(c1, "Kind of series", list(KINDS), spec.kind, "kind", format_func=KIND_NAMES.get)
    _select(c2, "Value column", optional, spec.value_column or _NONE, "value_column")
    c3.text_input("Units of the values", value=spec.units, key=_FIELD + "units", placeholder="e.g. kWh")
    c1, c2, c3 = st.columns(3)
    _select(c1, "Latitude column", optional, spec.lat_column or _NONE, "lat_column")
    _select(c2, "Longitude column", optional, spec.lon_column or _NONE, "lon_column")
    _select(c3, "Contact id column", optional, spec.contact_column or _NONE, "contact_column")


def length_note(n_used: int) -> str | None:
    """'604,800 events loaded; analysing 110,000 …' when the upload is analysed in part (ui.long_series)."""
    from ui import long_series

    return long_series.length_note(state.current())


def district_controls() -> None:
    """The Data page's synthetic district: how many homes, how long, and whether to study one home's series or
    the total or mean over all of them (a statistic over many people, lmdk.aggregate)."""
    from ui import widgets
    from ui.session.cache import DISTRICT_RULE

    c1, c2, c3 = st.columns([1, 1, 2])
    c1.number_input("homes", min_value=2, max_value=2_000, step=50, **widgets.bind(state.DIST_USERS))
    c1.number_input("seed", min_value=0, max_value=state.SEED_MAX, **widgets.bind(state.DIST_SEED))
    c2.number_input("hours", min_value=state.N_MIN, max_value=5_000, step=168, **widgets.bind(state.DIST_N))
    c3.radio("Series", state.DIST_STATISTICS, **widgets.bind(state.DIST_STATISTIC),
             format_func={"one": "one home's own readings", "sum": "the total over all homes",
                          "mean": "the mean over all homes"}.get,
             help="One home: ε protects one reading of that home (Δ = 25 kWh). Total or mean: ε protects any one "
                  "home's readings at every landmark hour and one other hour (Δ = 25 kWh on the total, 25 kWh ÷ N "
                  "on the mean); the statistic is N times larger, the noise is not.")
    st.caption(f"Synthetic smart meters (public range 0–25 kWh each), hourly from 2024-01-01. Landmarks start as "
               f"`{DISTRICT_RULE}` — declared by the clock, never read from the data. Command line: "
               "`lmdk aggregate`.")
