"""Hardening (issue 18): odd uploads and RunConfigs give clean messages, never a traceback; user text is inert."""
from __future__ import annotations

import re
from functools import partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.data import load_series
from lmdk.errors import DataError, ParameterError
from lmdk.exports import RunConfig
from ui.session import state

open_page = partial(app_support.open_page, "pages/data_landmarks.py", 60)


upload = app_support.upload


def test_values_near_the_float_limit_are_refused_with_a_message():
    rows = "\n".join(f"2024-01-01 {h:02d}:00,{v}" for h, v in enumerate([1e308, -1e308, 3.0] * 4))
    data = f"timestamp,value\n{rows}\n".encode()
    with pytest.raises(DataError, match="too large for a reading"):
        load_series(data, mapping="detect")
    at = upload(open_page(source="upload"), "huge.csv", data)
    assert at.error and "too large" in at.error[0].value


def test_a_trajectory_at_the_pole_is_refused_with_a_message():
    rows = "\n".join(f"2024-01-01 00:{m:02d},89.99,{10 + m / 100}" for m in range(20))
    data = f"timestamp,lat,lon\n{rows}\n".encode()
    at = upload(open_page(source="upload"), "pole.csv", data)
    assert at.error and "pole" in at.error[0].value


def test_a_deeply_nested_runconfig_is_a_parameter_error():
    with pytest.raises(ParameterError, match="nested too deeply"):
        RunConfig.from_json("[" * 100_000)


def test_runconfig_epsilon_off_the_slider_is_mapped_on_a_log_scale_and_said():
    assert state.nearest_epsilon(1e17) == max(state.EPSILON_OPTIONS)
    assert state.nearest_epsilon(1e-9) == min(state.EPSILON_OPTIONS)
    at = app_support.open_exports(app_support.open_page("pages/schemes_utility.py", 60))
    cfg = RunConfig(data="sample:hue", events=1000, landmarks=(1, 2), schemes=("uniform",), mechanism="laplace",
                    epsilon=1e17, s=0.1)
    at.file_uploader(key=state.CONFIG_UPLOAD).set_value(("cfg.json", cfg.to_json().encode(), "application/json"))
    at.run()
    assert not at.exception
    assert at.session_state[state.EPSILON] == max(state.EPSILON_OPTIONS)
    warning = app_support.shown(at)
    assert "not on the slider" in warning and "s = 0.1" in warning


def test_markdown_in_names_and_cells_is_escaped_in_messages():
    rows = "".join(f"2024-01-01 {h:02d}:00,{h}\n" for h in range(10))
    data = f"timestamp,[x](http://evil.example)\n{rows}2024-01-01 11:00,![t](http://evil.example/c.png)\n".encode()
    at = upload(open_page(source="upload"), "![t](http://evil.example/f.png).csv", data)
    raw = " ".join(str(e.value) for e in list(at.error) + list(at.warning) + list(at.caption))
    assert "evil" in raw and "[x]" in raw.replace("\\", "")  # the column name and cell are shown …
    assert not re.search(r"(?<!\\)\]\(", raw) and not re.search(r"(?<!\\)!(?<!\\)\[", raw)  # … as inert text
