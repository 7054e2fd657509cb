"""pydeck builders for trajectories: explicit view state, the path as a LineLayer, events as a
pickable ScatterplotLayer. Readable on a blank background (the base map is optional: it loads
tiles from a third party, which also learns the region you look at)."""
from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import pydeck as pdk

from ui.charts.style import SCHEME_COLOURS

EVENTS_LAYER = "events"  # id of the pickable layer; selections come back under this key
PATH_RGB = [90, 90, 90]
REGULAR_RGBA = [140, 140, 140, 200]
LANDMARK_RGBA = [0, 0, 0, 255]
DUMMY_FILL_RGBA = [255, 255, 255, 255]
# A map style with no tile sources, as a data: URL (Streamlit wants a string): nothing is fetched from
# the internet, the data layers are drawn on a plain white sheet.
BLANK_STYLE = "data:application/json;base64," + base64.b64encode(json.dumps(
    {"version": 8, "sources": {}, "layers": [
        {"id": "background", "type": "background", "paint": {"background-color": "#ffffff"}}]}).encode()).decode()


def hex_rgb(colour: str) -> list[int]:
    """'#RRGGBB' → [r, g, b]."""
    h = colour.lstrip("#")
    return [int(h[i : i + 2], 16) for i in (0, 2, 4)]


# deck.gl's view state is fixed in pixels while its canvas takes the main column's width: fit the narrowest one, the
# column of a 1024 px window (a projector), ~565 px — fitted for 700–900 px, maps were cut on both sides there
NARROWEST_MAP_PX = 560


def view_state(lat: np.ndarray, lon: np.ndarray, *, width_px: int = NARROWEST_MAP_PX,
               height_px: int = 480) -> pdk.ViewState:
    """A view centred on the points' bounding box, zoomed so that all of them fit (web-Mercator) in a canvas of
    ``width_px`` × ``height_px``."""
    lat = np.asarray(lat, dtype=float)
    lon = np.asarray(lon, dtype=float)
    lat_c = float((lat.min() + lat.max()) / 2)
    lon_c = float((lon.min() + lon.max()) / 2)
    lon_span = max(float(lon.max() - lon.min()), 1e-5)

    def merc(phi: np.ndarray) -> np.ndarray:
        """Web-Mercator y of a latitude in degrees (radians of the projected plane)."""
        return np.log(np.tan(np.pi / 4 + np.radians(phi) / 2))

    y_span = max(float(merc(np.array(lat.max())) - merc(np.array(lat.min()))), 1e-7)
    zoom_x = math.log2(width_px * 360.0 / (512.0 * lon_span))
    zoom_y = math.log2(height_px * 2 * math.pi / (512.0 * y_span))
    zoom = max(0.0, min(zoom_x, zoom_y, 18.0) - 0.3)
    return pdk.ViewState(latitude=lat_c, longitude=lon_c, zoom=zoom, pitch=0, bearing=0)


def _segments(lat: np.ndarray, lon: np.ndarray) -> pd.DataFrame:
    """Consecutive points as line segments (start and end lon/lat), one row per step of the path."""
    return pd.DataFrame({"s_lon": lon[:-1], "s_lat": lat[:-1], "e_lon": lon[1:], "e_lat": lat[1:]})


def trajectory_deck(
    lat: np.ndarray,
    lon: np.ndarray,
    landmarks: Iterable[int],
    *,
    dummies: Iterable[int] = (),
    released: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    times: Sequence | None = None,
    basemap: bool = False,
    height: int = 480,
) -> pdk.Deck:
    """The trajectory with landmarks (black), regular events (grey), dummies (white, black ring);
    ``released`` adds one path per scheme (lat, lon of the released median) in the scheme's colour."""
    lat = np.asarray(lat, dtype=float)
    lon = np.asarray(lon, dtype=float)
    n = lat.size
    lm = np.zeros(n, dtype=bool)
    lm[np.asarray(list(landmarks), dtype=int)] = True
    dm = np.zeros(n, dtype=bool)
    dm[np.asarray(list(dummies), dtype=int)] = True
    dm &= ~lm
    kind = np.where(lm, "landmark", np.where(dm, "dummy landmark", "regular event"))
    fill = np.where(lm[:, None], LANDMARK_RGBA, np.where(dm[:, None], DUMMY_FILL_RGBA, REGULAR_RGBA))
    events = pd.DataFrame({
        "t": np.arange(n), "lat": lat, "lon": lon, "kind": kind,
        "time": [str(x) for x in times] if times is not None else np.arange(n).astype(str),
        "radius": np.where(lm | dm, 7, 4),
    })
    events["fill"] = fill.tolist()
    layers: list[pdk.Layer] = []
    if n > 1:
        layers.append(pdk.Layer("LineLayer", data=_segments(lat, lon), id="path",
                                get_source_position="[s_lon, s_lat]", get_target_position="[e_lon, e_lat]",
                                get_color=PATH_RGB, get_width=2, width_units="'pixels'", pickable=False))
    all_lat, all_lon = [lat], [lon]
    for scheme, (rlat, rlon) in (released or {}).items():
        rlat = np.asarray(rlat, dtype=float)
        rlon = np.asarray(rlon, dtype=float)
        all_lat.append(rlat)
        all_lon.append(rlon)
        layers.append(pdk.Layer("LineLayer", data=_segments(rlat, rlon), id=f"released-{scheme}",
                                get_source_position="[s_lon, s_lat]", get_target_position="[e_lon, e_lat]",
                                get_color=hex_rgb(SCHEME_COLOURS.get(scheme, "#555555")), get_width=2.5,
                                width_units="'pixels'", pickable=False))
    layers.append(pdk.Layer("ScatterplotLayer", data=events, id=EVENTS_LAYER, get_position="[lon, lat]",
                            get_fill_color="fill", get_line_color=[0, 0, 0], stroked=True, line_width_min_pixels=1,
                            get_radius="radius", radius_units="'pixels'", pickable=True, auto_highlight=True))
    vs = view_state(np.concatenate(all_lat), np.concatenate(all_lon), height_px=height)
    return pdk.Deck(
        layers=layers,
        initial_view_state=vs,
        map_provider="carto" if basemap else None,
        map_style="light" if basemap else BLANK_STYLE,
        tooltip={"text": "t = {t}\n{time}\n{kind}"},
        height=height,
    )
