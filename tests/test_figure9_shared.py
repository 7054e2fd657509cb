"""Figure 9 on the Temporal privacy loss page is shared by every session (issue 34): its landmark draws come
from a fixed public seed, so the session's demonstration seed is no part of its cache key."""
import inspect

import numpy as np

from lmdk import tpl
from lmdk.present import views_loss
from ui.session import cache_loss


def test_figure9_takes_no_session_seed_and_is_the_fixed_seeds_draws():
    assert "seed" not in inspect.signature(cache_loss.distribution_comparison).parameters
    P = tpl.transition_matrix(0.5)
    cache_loss.distribution_comparison.clear()
    frame = cache_loss.distribution_comparison(40, 1.0, P)
    expected = views_loss.distribution_comparison(40, 1.0, P, repetitions=cache_loss.COMPARISON_REPETITIONS,
                                                  rng=np.random.default_rng([cache_loss.COMPARISON_SEED, 9]))
    assert frame.equals(expected)


def test_a_second_session_with_another_seed_reuses_figure9(monkeypatch):
    calls = []
    real = views_loss.distribution_comparison

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(views_loss, "distribution_comparison", counted)
    cache_loss.distribution_comparison.clear()
    P = tpl.transition_matrix(0.5)
    first = cache_loss.distribution_comparison(40, 0.5, P)
    again = cache_loss.distribution_comparison(40, 0.5, P)  # any session, whatever its seed: the same key
    assert len(calls) == 1 and first.equals(again)
    cache_loss.distribution_comparison(40, 2.0, P)  # ε does change Figure 9: computed afresh
    assert len(calls) == 2
