"""The Data & landmarks page's landmark arithmetic (ui.landmark_edit) and the helpers the pages moved into ui."""
from __future__ import annotations

import numpy as np
import pytest

from ui import landmark_edit
from ui.charts import priste_charts


def test_each_edit_keeps_positions_inside_the_series():
    old = np.array([1, 4, 7], dtype=np.int64)
    assert landmark_edit.edited("replace", [9, 3, -1, 12], old, 10).tolist() == [9, 3]
    assert landmark_edit.edited("replace", (), old, 10).dtype == np.int64
    assert landmark_edit.edited("add", [2, 4, 11], old, 10).tolist() == [1, 2, 4, 7]
    assert landmark_edit.edited("remove", [4, 5], old, 10).tolist() == [1, 7]
    assert landmark_edit.edited("toggle", [4, 5], old, 10).tolist() == [1, 5, 7]


def test_a_selection_gives_its_points_and_whether_it_had_an_area():
    click = {"selection": {"points": [{"customdata": [5]}, {"customdata": 2}, {"customdata": []}, {}]}}
    idx, area = landmark_edit.selected_indices(click)
    assert idx.tolist() == [2, 5] and not area
    idx, area = landmark_edit.selected_indices({"selection": {"points": [], "box": [{"x": [0, 1]}]}})
    assert idx.size == 0 and area
    assert landmark_edit.selected_indices(None)[0].dtype == np.int64
    assert landmark_edit.map_picks([{"t": 3}, {"x": 1}, {"t": "8"}]).tolist() == [3, 8]


def test_detector_defaults():
    assert landmark_edit.threshold_default(np.arange(11, dtype=float), "below") == 2.0
    assert landmark_edit.threshold_default(np.arange(11, dtype=float), "above") == 8.0
    ids = landmark_edit.contact_ids(np.array([-1, 7, 3, 7, 3, 12]))
    assert ids == [3, 7, 12] and all(type(i) is int for i in ids)


def test_log_ticks_are_1_2_5_per_decade():
    assert priste_charts.ticks_125(np.array([0.3, 40.0])) == pytest.approx([0.2, 0.5, 1, 2, 5, 10, 20, 50])
    assert priste_charts.cells_in_region([1, 2, 2, 9], [2, 9]) == 3
