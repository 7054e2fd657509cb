"""Figures drawn once per mount (``figure``, ``single_draw``; read their meta with ``meta_of``) and their export
(``figure_spec``, ``to_html``)."""
from __future__ import annotations

import copy
import functools
import hashlib

import numpy as np
import plotly.graph_objects as go

from ui.charts.style import AXIS, MODEBAR, TEMPLATE_FONT


def data_revision(data: list[dict]) -> str:
    """A short digest of the traces' values, for ``layout.datarevision``."""
    h = hashlib.blake2b(digest_size=8)
    for trace in data:
        for key in sorted(trace):
            value = trace[key]
            h.update(key.encode())
            numeric = isinstance(value, np.ndarray) and value.dtype.kind != "O"  # object arrays' bytes are pointers
            h.update(value.tobytes() if numeric else repr(value.tolist() if isinstance(value, np.ndarray)
                                                             else value).encode())
    return h.hexdigest()


class DrawOnceFigure(go.Figure):
    """A figure built by ``figure``: ``to_dict`` hands out its dicts with numpy arrays as they are (no deep copy,
    no base64), so ``st.plotly_chart``'s ``to_dict`` + orjson writes them straight into plain JSON lists — a deep
    copy of per-point Python lists cost more server time than building the chart.

    Plotly.py's own objects (``fig.layout``, ``fig.data``, …) are built only when something asks for them (tests,
    exports): even unvalidated, building them cost ~10 ms per chart and ε change, which st.plotly_chart never
    needs (issue 34)."""

    def __init__(self, data: list[dict], layout: dict) -> None:
        """Keep the traces and layout as they are; plotly's objects come at first use."""
        object.__setattr__(self, "_spec", (data, layout))

    def __getattr__(self, name: str):
        """Build plotly's objects (unvalidated) the first time an attribute of theirs is asked for."""
        spec = self.__dict__.get("_spec")
        if spec is None or name == "_spec":
            raise AttributeError(name)
        object.__setattr__(self, "_spec", None)
        go.Figure.__init__(self, data=spec[0], layout=spec[1], _validate=False)
        return getattr(self, name)

    def __reduce__(self):
        """Pickled and copied as its traces and layout (st.cache_data, copy.deepcopy)."""
        spec = self.to_dict()
        return DrawOnceFigure, (spec["data"], spec["layout"])

    def to_dict(self):
        """The traces and layout as shallow dict copies (arrays as they are)."""
        spec = self.__dict__.get("_spec")
        data, layout = spec if spec is not None else (self._data, self._layout)
        return {"data": [dict(trace) for trace in data], "layout": dict(layout)}


def figure(data: list[dict], layout: dict, *, title_room: bool = True) -> go.Figure:
    """A figure drawn ONCE per mount, from plain dicts built by the chart modules (tests validate them against
    plotly's schema; skipping plotly.py's per-property validation saves ~10 ms per multi-panel chart and rerun).

    Streamlit's chart element hands plotly.js a JSON deep copy of the figure right after mounting it, and
    plotly.js redraws everything when an object-valued setting is a new object: the data arrays (unless
    ``datarevision`` is set), base64 typed arrays (decoded, they are compared as objects whatever the
    datarevision), ``layout.template`` and ``layout.meta``. So here the template is inlined (``template`` is
    ``False``), ``datarevision`` is a digest of the data, arrays travel as plain JSON lists (C-contiguous
    numpy arrays that orjson writes as lists, see ``DrawOnceFigure``), and ``meta`` is wrapped in a
    one-element list (arrays are compared by ``datarevision``): read it with ``meta_of``. That halves the
    browser's work per ε change. ``title_room``: at least 84 px on the left for a y axis's tick labels and rotated
    title (False: the layout's own left margin, for a chart without either).
    """
    data = [contiguous_arrays(trace) for trace in data]
    revision = data_revision(data)
    layout = {**layout, "template": False, "datarevision": revision,
              "meta": [layout.get("meta") or {}], "paper_bgcolor": "white", "plot_bgcolor": "white",
              "font": {**TEMPLATE_FONT, **layout.get("font", {})},
              # room for 6-character tick labels ("0.0005") beside a rotated axis title without overlap
              "margin": {**layout.get("margin", {}),
                         "l": max(84 if title_room else 0, layout.get("margin", {}).get("l", 0))}}
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")):
            title = {**AXIS["title"], **axis.get("title", {})}
            if not title.get("text"):  # plotly measures every tick label of an axis whose title has a standoff
                title.pop("standoff")
            layout[key] = {**AXIS, **axis, "title": title}
    return DrawOnceFigure(data, layout)


class Draft:
    """A figure being built as plain dicts, with the few ``go.Figure`` methods the chart modules call (``add_trace``
    with dict traces, ``update_layout`` merging nested dicts, ``update_xaxes`` / ``update_yaxes`` on every axis of
    that letter); ``done()`` gives the draw-once figure (``figure``). Plotly.py validates every property of a
    go.Figure built trace by trace: ~40 ms of server CPU per loss chart and ε change (issue 34)."""

    def __init__(self, layout: dict | None = None) -> None:
        """An empty figure (on a copy of ``layout``, e.g. ``subplot_layout``'s)."""
        self.data: list[dict] = []
        self.layout: dict = copy.deepcopy(layout) if layout else {}

    def add_trace(self, trace: dict, row: int | None = None, col: int | None = None) -> Draft:
        """Append one trace (a dict with its ``type``); ``row`` (one column of subplots): on that row's axes."""
        if row is not None:
            trace = {**trace, "xaxis": _axis_name("x", row), "yaxis": _axis_name("y", row)}
        self.data.append(trace)
        return self

    def update_annotations(self, **changes) -> Draft:
        """Merge ``changes`` into every annotation (e.g. the subplot titles)."""
        for annotation in self.layout.get("annotations", []):
            _merge(annotation, changes)
        return self

    def update_layout(self, **changes) -> Draft:
        """Merge ``changes`` into the layout (nested dicts merged, as go.Figure.update_layout)."""
        _merge(self.layout, changes)
        return self

    def update_xaxes(self, row: int | None = None, col: int | None = None, **changes) -> Draft:
        """Merge ``changes`` into every x axis, or the one of ``row`` (``title_text``: the axis title's text)."""
        return self._update_axes("xaxis", changes, row)

    def update_yaxes(self, row: int | None = None, col: int | None = None, **changes) -> Draft:
        """Merge ``changes`` into every y axis, or the one of ``row`` (``title_text``: the axis title's text)."""
        return self._update_axes("yaxis", changes, row)

    def _update_axes(self, letter: str, changes: dict, row: int | None) -> Draft:
        """Merge ``changes`` into the layout's axes named ``letter``, ``letter``2, … (at least the first), or into
        the axis of ``row`` only."""
        if "title_text" in changes:
            changes = {**changes, "title": {**changes.get("title", {}), "text": changes.pop("title_text")}}
        names = ([letter + _axis_name("", row)] if row is not None
                 else [k for k in self.layout if k.startswith(letter)] or [letter])
        for name in names:
            _merge(self.layout.setdefault(name, {}), changes)
        return self

    def done(self) -> go.Figure:
        """The draw-once figure of these traces and this layout."""
        return figure(self.data, self.layout)

    def as_built(self) -> go.Figure:
        """These traces and this layout as they are (template and all, for Streamlit's theme to style), in a figure
        that skips plotly.py's validation and hands its arrays to st.plotly_chart as they are."""
        layout = dict(self.layout)
        if isinstance(layout.get("template"), go.layout.Template):
            layout["template"] = _template_dict(layout["template"])
        return DrawOnceFigure([contiguous_arrays(t) for t in self.data], layout)


_TEMPLATES: dict[int, dict] = {}


def _template_dict(template: go.layout.Template) -> dict:
    """A template as a plain dict (the shared TEMPLATE converted once)."""
    key = id(template)
    if key not in _TEMPLATES:
        _TEMPLATES[key] = template.to_plotly_json()
    return _TEMPLATES[key]


def _axis_name(letter: str, row: int) -> str:
    """The axis of subplot row ``row`` (one column): x, x2, x3, … (``letter`` "": the suffix only)."""
    return letter + ("" if row == 1 else str(row))


def subplot_layout(rows: int, vertical_spacing: float, row_heights: tuple | None = None,
                   titles: tuple | None = None) -> dict:
    """The layout plotly's ``make_subplots(rows, 1, shared_xaxes=True, …)`` builds (axes' domains and anchors,
    subplot titles), computed once per shape: ``Draft(subplot_layout(…))`` then adds traces by ``row``.

    Titles that change with ε (issue 34: ~0.05 s of make_subplots per ε change on Dummy landmarks) are written into
    the layout of their shape: plotly places a title by its row only, and makes none for an empty one."""
    slots = tuple(f"title {i}" if title else "" for i, title in enumerate(titles)) if titles else None
    layout = _subplot_shape(rows, vertical_spacing, row_heights, slots)
    if not titles:
        return layout
    texts = iter(title for title in titles if title)
    return {**layout, "annotations": [{**note, "text": next(texts)} for note in layout["annotations"]]}


@functools.lru_cache(maxsize=32)
def _subplot_shape(rows: int, vertical_spacing: float, row_heights: tuple | None, titles: tuple | None) -> dict:
    """``subplot_layout`` of one shape (``titles``: placeholders, empty where a row has none)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=vertical_spacing,
                        row_heights=list(row_heights) if row_heights else None,
                        subplot_titles=list(titles) if titles else None)
    return {k: v for k, v in fig.layout.to_plotly_json().items() if k != "template"}  # draw-once: inlined


def _merge(into: dict, changes: dict) -> None:
    """Merge ``changes`` into ``into`` in place: dicts key by key, anything else replaced."""
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = _copied(value)


def _copied(value):
    """``value`` with its dicts copied (nested too): merging later never changes a caller's constant."""
    return {k: _copied(v) for k, v in value.items()} if isinstance(value, dict) else value


def contiguous_arrays(value):
    """Every array (numpy, or a base64 typed array from ``to_plotly_json``; also nested in dicts) as a
    C-contiguous numpy array, which orjson serialises as a plain JSON list (NaN → null: a gap in a line)."""
    if isinstance(value, dict):
        if set(value) <= {"dtype", "bdata", "shape"} and "bdata" in value:
            import base64

            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
            if value.get("shape"):
                array = array.reshape([int(d) for d in str(value["shape"]).split(",")])
            value = array.astype(array.dtype.newbyteorder("="))
        else:
            return {k: contiguous_arrays(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "US":  # strings: plain lists (orjson does not write numpy string arrays)
            return value.tolist()
        value = np.ascontiguousarray(value, dtype=np.float32 if value.dtype == np.float16 else None)
    return value


def single_draw(fig: go.Figure) -> go.Figure:
    """Any figure styled by ui.charts.style (``TEMPLATE``) in the draw-once form of ``figure`` — for pages whose
    charts are rebuilt on every ε change. Its ``layout.meta`` becomes a one-element list (see ``meta_of``); a figure
    that already is one (built by ``figure`` or a ``Draft``) comes back as it is."""
    if isinstance(fig, DrawOnceFigure):
        return fig
    spec = fig.to_plotly_json()
    layout = {k: v for k, v in spec["layout"].items() if k != "template"}
    return figure(spec["data"], layout)


def meta_of(layout) -> dict:
    """``layout.meta`` as a dict, whether stored plainly or (figures from ``figure``) as a one-element list."""
    meta = layout.get("meta") if isinstance(layout, dict) else layout.meta
    return (meta[0] if isinstance(meta, (list, tuple)) and meta else meta) or {}


def figure_spec(fig: go.Figure) -> dict:
    """The figure as a plain plotly spec, ready for plotly.io outside Streamlit."""
    spec = fig.to_dict()
    if spec["layout"].get("template") is False:  # draw-once figures inline their styling (see figure)
        spec["layout"] = {k: v for k, v in spec["layout"].items() if k != "template"}
    return spec


def to_html(fig: go.Figure) -> str:
    """A standalone HTML file of the figure (plotly.js from the CDN keeps the file small)."""
    import plotly.io as pio

    return pio.to_html(figure_spec(fig), include_plotlyjs="cdn", full_html=True, config=MODEBAR, validate=False)
