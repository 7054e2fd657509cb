"""Draw-once figures (ui.charts.figure): st.plotly_chart gets their dicts without plotly.py's objects being built;
anything else that asks for those objects gets them (issue 34)."""
from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import plotly.io as pio
import plotly.tools

from ui.charts.figure import DrawOnceFigure, figure, meta_of


def _figure() -> DrawOnceFigure:
    return figure([{"type": "scatter", "x": np.arange(3), "y": np.array([1.0, np.nan, 3.0])}],
                  {"meta": {"eps": 0.5}, "height": 300})


def test_streamlits_path_leaves_plotlys_objects_unbuilt():
    """st.plotly_chart's conversion (return_figure_from_figure_or_data, then to_json) reads the dicts only."""
    fig = _figure()
    spec = json.loads(pio.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True),
                                  validate=False))
    assert fig.__dict__.get("_spec") is not None  # nothing built
    assert spec["data"][0]["y"] == [1.0, None, 3.0]
    assert spec["layout"]["meta"] == [{"eps": 0.5}] and spec["layout"]["template"] is False


def test_plotlys_objects_are_built_when_asked_for_and_changes_reach_the_dicts():
    fig = _figure()
    assert meta_of(fig.layout) == {"eps": 0.5}
    assert list(fig.data[0].x) == [0, 1, 2]
    fig.update_layout(height=420)
    assert fig.to_dict()["layout"]["height"] == 420


def test_copies_and_pickles_are_draw_once_figures_with_the_same_spec():
    fig = _figure()
    for other in (copy.deepcopy(fig), pickle.loads(pickle.dumps(fig))):
        assert isinstance(other, DrawOnceFigure)
        assert other.to_dict()["layout"] == fig.to_dict()["layout"]
        assert other.layout.height == 300


def test_subplot_layout_is_make_subplots_with_titles_written_into_one_cached_shape():
    """Titles that change with ε reuse their shape's layout (one make_subplots per shape) and equal make_subplots'."""
    from plotly.subplots import make_subplots

    from ui.charts.figure import _subplot_shape, subplot_layout

    _subplot_shape.cache_clear()
    for eps in (0.5, 2.0):
        for titles in ((f"before: ε = {eps:g}", f"after: {eps / 2:g}", ""), (f"ε {eps:g}", "", "c")):
            want = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.09, row_heights=[170, 170, 30],
                                 subplot_titles=list(titles)).layout.to_plotly_json()
            assert subplot_layout(3, 0.09, (170, 170, 30), titles) == {k: v for k, v in want.items()
                                                                       if k != "template"}
    assert _subplot_shape.cache_info().misses == 2  # one per shape of titles, whatever ε says
