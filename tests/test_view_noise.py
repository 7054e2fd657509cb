"""ui.session.cache: a view's releases reuse its seed's noise parts between ε changes (issue 56) and give the numbers
the seed's Generator gives — the numbers the exported script reproduces."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk import relation, schemes
from lmdk.exports.runconfig import scheme_rng
from lmdk.present import views
from ui.session import cache

METER = (("protects", relation.public_range(0.0, 25.0, "kWh")),)


@pytest.fixture
def counted(monkeypatch):
    """How often the noise parts are drawn."""
    cache.noise_parts.clear()
    calls = {"draws": 0}
    real = schemes.draw_noise

    def counting(*args, **kwargs):
        calls["draws"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(schemes, "draw_noise", counting)
    yield calls
    cache.noise_parts.clear()


def test_every_epsilon_of_a_seed_is_the_generators_release_from_one_draw(counted):
    rng = np.random.default_rng(4)
    x, landmarks = np.clip(rng.normal(9.0, 6.0, 300), 0, 25), np.arange(3, 300, 7)
    for scheme in schemes.SCHEMES:
        for eps in (1.0, 0.2, 5.0, 1.0):
            got = cache._summary(x, landmarks, scheme, eps, "laplace", 12, 17, 6, None, METER)
            release = schemes.release(x, landmarks, scheme, eps, mechanism="laplace", repetitions=12,
                                      rng=scheme_rng(17, scheme), w=6, **dict(METER))
            want = views.summarize(scheme, x, release, landmarks, eps, "laplace")
            np.testing.assert_array_equal(got.median, want.median)
            np.testing.assert_array_equal(got.first, want.first)
            assert got.mae == want.mae and got.budgets.tolist() == want.budgets.tolist()
    assert counted["draws"] == len(schemes.SCHEMES)  # once per scheme, not once per ε


def test_other_relations_and_long_runs_draw_from_the_generator(counted):
    x, landmarks = np.linspace(0, 20, 80), np.arange(0, 80, 9)
    cache._summary(x, landmarks, "uniform", 1.0, "laplace", 5, 3, 4, None,
                   (("protects", relation.PAPERS_UNIT_CHANGE),))
    cache._summary((x > 10).astype(float), landmarks, "uniform", 1.0, "randomized_response", 5, 3, 4, None,
                   (("protects", relation.PAPERS_UNIT_CHANGE),))
    long = np.zeros(cache.NOISE_CELLS_KEPT // 5 + 1)
    cache._summary(long, np.arange(0, long.size, 50), "uniform", 1.0, "laplace", 5, 3, 4, None, METER)
    assert counted["draws"] == 0
