"""The compiled Adaptive loop (lmdk.adaptive_kernel, issue 34) gives the Python loop's releases bit for bit, including
the samples it hands back to Python (more bits of F, restarts) and the budgets the sampler refuses."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk import discrete_lockstep, relation, schemes
from lmdk.errors import ParameterError


def _release(compiled: bool, monkeypatch, x, landmarks, eps, reps, protects, seed):
    monkeypatch.setattr(schemes, "_COMPILED_ADAPTIVE", compiled)
    return schemes.release(x, landmarks, "adaptive", eps, mechanism="laplace", repetitions=reps,
                           rng=np.random.default_rng(seed), protects=protects)


def _same(monkeypatch, *args) -> None:
    python, compiled = (_release(c, monkeypatch, *args) for c in (False, True))
    for name in ("values", "budgets", "published"):
        assert np.array_equal(getattr(python, name), getattr(compiled, name)), name


@pytest.mark.parametrize("case", range(40))
def test_random_series_landmarks_budgets_and_ranges(monkeypatch, case):
    rng = np.random.default_rng(case)
    n, reps = int(rng.integers(1, 300)), int(rng.integers(1, 30))
    x = rng.uniform(0, 5, n) * float(rng.choice([1.0, 0.001, 1000.0]))
    if case % 3 == 0:
        x = np.round(x)  # flat stretches: Adaptive's intervals grow
    landmarks = np.flatnonzero(rng.random(n) < float(rng.choice([0.0, 0.05, 0.3, 1.0])))
    high = float(rng.choice([5.0, 0.01, 1e4]))
    protects = (relation.public_range(0.0, high, "u") if case % 2 else relation.up_to(high / 10, 0.0, high, "u"))
    _same(monkeypatch, x, landmarks, float(np.exp(rng.uniform(-6, 5))), reps, protects, case)


@pytest.mark.parametrize("eps", [1e-9, 60.0])
def test_samples_finished_in_python_are_the_same(monkeypatch, eps):
    """ε = 1e-9: every floor needs more bits of F (t ≈ 2·10^12); ε = 60: t ≈ 35, many restarts at B = 1, Y = 0."""
    finished = []
    real = discrete_lockstep.LockstepNoise.finish

    def counting(self, *args):
        finished.append(args)
        return real(self, *args)

    monkeypatch.setattr(discrete_lockstep.LockstepNoise, "finish", counting)
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 5, 1000)  # at ε = 60 every change is "evolving": about 10^5 samples, 1 in ~3,000 restarts
    _same(monkeypatch, x, np.arange(0, 1000, 9), eps, 100, relation.public_range(0.0, 5.0, "kWh"), 3)
    assert len(finished) >= 5  # the compiled loop handed samples back (the Python loop never calls finish)


def test_a_budget_the_sampler_refuses_is_refused_alike(monkeypatch):
    args = (np.linspace(0, 5, 50), [3, 9], 1e-14, 4, relation.public_range(0.0, 5.0, "kWh"), 1)
    messages = []
    for compiled in (False, True):
        with pytest.raises(ParameterError) as error:
            _release(compiled, monkeypatch, *args)
        messages.append(str(error.value))
    assert messages[0] == messages[1] and "too small for the exact discrete Laplace" in messages[0]
