"""Nothing computed from an upload outlives its session or reaches another one (ui.session.cache_scope); samples
share."""
from __future__ import annotations

from functools import partial

import app_support
import numpy as np
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import cache_scope

open_data = partial(app_support.open_page, "pages/data_landmarks.py", 120)

METER = ("timestamp,value\n" + "\n".join(f"2024-01-{1 + h // 24:02d} {h % 24:02d}:00,{(h * 7919) % 23 / 10}"
                                         for h in range(240)) + "\n").encode()


@pytest.fixture
def releases(monkeypatch):
    """Count the core's scheme releases (every computed scheme summary runs one)."""
    from lmdk import schemes

    calls = []
    original = schemes.release

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(schemes, "release", counting)
    return calls


def schemes_after_upload():
    """A new session that uploads METER and opens Schemes & utility."""
    at = open_data(source="upload")
    at.file_uploader(key="upload_file").set_value(("meter.csv", METER, "text/csv")).run()
    assert not at.exception, at.exception
    at.switch_page("pages/schemes_utility.py").run()
    assert not at.exception, at.exception
    return at


def test_a_second_session_on_the_same_upload_computes_its_own_releases(releases):
    first = schemes_after_upload()
    in_first = len(releases)
    assert in_first > 0
    memo = first.session_state[cache_scope.SESSION_KEY]
    assert any(name.endswith(("scheme_summary", "scheme_summaries")) and len(entries) for name, entries in memo.items())
    first.run()  # a rerun of the same session is served from its own memo
    assert len(releases) == in_first
    schemes_after_upload()
    assert len(releases) == 2 * in_first  # nothing of the first session's upload was served to the second


def test_sessions_on_a_bundled_sample_share_the_cache(releases):
    app_support.open_page("pages/schemes_utility.py", 120, source="sample", sample="hue", n="200", eps="0.7")
    computed = len(releases)
    second = app_support.open_page("pages/schemes_utility.py", 120, source="sample", sample="hue", n="200", eps="0.7")
    assert len(releases) == computed
    assert cache_scope.SESSION_KEY not in second.session_state


def test_the_memo_key_covers_contents_dtype_and_every_named_argument():
    keys = [cache_scope.digest((np.arange(3), "a"), {}), cache_scope.digest((np.arange(3), "b"), {}),
            cache_scope.digest((np.arange(4), "a"), {}), cache_scope.digest((np.arange(3.0), "a"), {})]
    assert len(set(keys)) == 4  # contents, dtype and every plain argument are part of the key
    assert cache_scope.digest((1,), {"_series": object()}) == cache_scope.digest((1,), {"_series": None})


def _read_only_app():
    """Two calls of a read-only cached function, in a session working on a sample or an upload (query ?source=)."""
    import streamlit as st

    from ui.session import cache_scope, state

    st.session_state[state.SOURCE] = st.query_params.get("source", "sample")

    @cache_scope.bounded_cache(4, read_only=True)
    def table(n: int) -> list:
        st.session_state["builds"] = st.session_state.get("builds", 0) + 1
        return list(range(n))

    first, again = table(3), table(3)
    st.session_state["same"] = first is again


@pytest.mark.parametrize("source", ["sample", "upload"])
def test_a_read_only_cache_hands_every_caller_the_one_object_it_built(source):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_read_only_app)
    at.query_params["source"] = source
    at.run()
    assert not at.exception, at.exception
    # not a copy per call (st.cache_data's pickle, the upload memo's deepcopy): a figure costs its build only once
    assert at.session_state["same"] is True
    if source == "upload":
        assert at.session_state["builds"] == 1
        assert any(name.endswith("table") for name in at.session_state[cache_scope.SESSION_KEY])
