"""AppTest, issue 55: the Schemes page says when the noise swamps an aggregate's answer, with the fix in words, as
``lmdk aggregate`` does — and says nothing when it does not."""
from __future__ import annotations

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import state


def schemes(eps: float):
    at = app_support.open_page("pages/schemes_utility.py", 120, source="district", d_users="30", d_n="200",
                               d_stat="sum", schemes="uniform")
    at.session_state[state.EPSILON] = eps
    at.run()
    assert not at.exception, at.exception
    return app_support.open_exports(at)


def test_noise_that_swamps_the_districts_total_is_said_with_the_fix():
    shown = " ".join(w.value for w in schemes(0.001).warning)
    assert "noise swamps the answer" in shown
    assert all(fix in shown for fix in ("fewer landmarks", "larger ε", "wider bins", "Skip"))


def test_a_comfortable_epsilon_says_nothing_of_the_kind():
    assert "noise swamps" not in " ".join(w.value for w in schemes(50.0).warning)
