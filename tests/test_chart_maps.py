"""The maps' initial view (ui.charts.maps.view_state): every point fits the narrowest map canvas, the main column of
a 1024 px window (issue 35: fitted for 700–900 px, the Data page's taxi path and the Spatiotemporal grid ran off
both sides at 1024 px)."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk import data
from lmdk.priste import views as priste_views
from ui.charts import maps


def offsets_px(lat, lon, view) -> np.ndarray:
    """Screen offsets (x, y) in px of points from the view's centre: deck.gl's web-Mercator world of 512·2^zoom px."""
    scale = 512 * 2.0**view.zoom

    def merc(phi):
        return np.log(np.tan(np.pi / 4 + np.radians(phi) / 2))

    x = (np.asarray(lon) - view.longitude) / 360 * scale
    y = -(merc(np.asarray(lat)) - merc(view.latitude)) / (2 * np.pi) * scale
    return np.stack((x, y), axis=-1)


def test_the_taxi_path_fits_the_map_of_a_1024_px_window():
    latlon = data.sample("taxi", n=150).latlon()
    view = maps.view_state(latlon[:, 0], latlon[:, 1], height_px=480)
    xy = offsets_px(latlon[:, 0], latlon[:, 1], view)
    assert np.abs(xy[:, 0]).max() <= maps.NARROWEST_MAP_PX / 2 and np.abs(xy[:, 1]).max() <= 240
    assert maps.NARROWEST_MAP_PX <= 565  # the main column at 1024 px, measured in the every-page screenshots


@pytest.mark.parametrize("trace_seed", [0, 3])
def test_the_spatiotemporal_grid_fits_the_map_of_a_1024_px_window(trace_seed):
    """The page's default: the synthetic taxi trace (40 fixes) on a grid of 500 m cells fitted around it."""
    latlon = data.sample("taxi", n=40, seed=trace_seed).latlon()  # as ui.priste.taxi_latlon reads it
    grid, _ = priste_views.snap_trace(latlon[:, 0], latlon[:, 1], 500.0)
    lat, lon = grid.cell_to_latlon(np.arange(grid.m))
    view = maps.view_state(lat, lon, height_px=520)
    corners = grid.corners_latlon().reshape(-1, 2)  # (lon, lat) of every cell's corners: the whole grid drawn
    xy = offsets_px(corners[:, 1], corners[:, 0], view)
    assert np.abs(xy[:, 0]).max() <= maps.NARROWEST_MAP_PX / 2 and np.abs(xy[:, 1]).max() <= 260
