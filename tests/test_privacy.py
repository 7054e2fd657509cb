"""Tests of lmdk.privacy: Theorem 2 accounting against a brute-force set sum and the paper's Figure 3."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmdk.errors import ParameterError
from lmdk.privacy import landmark_loss, landmark_mask, satisfies_landmark_privacy

FIG3_LANDMARKS = [0, 2, 4, 7]  # o1, o3, o5, o8 of Figure 3 (0-based)


def test_figure3_uniform_and_skip():
    uniform = np.full(8, 1 / 5)
    assert np.allclose(landmark_loss(uniform, FIG3_LANDMARKS), [0.8, 1, 0.8, 1, 0.8, 1, 1, 0.8])
    assert satisfies_landmark_privacy(uniform, FIG3_LANDMARKS, 1.0)
    skip = np.array([0, 1, 0, 1, 0, 1, 1, 0.0])
    assert np.allclose(landmark_loss(skip, FIG3_LANDMARKS), np.where(skip > 0, 1.0, 0.0))
    assert satisfies_landmark_privacy(skip, FIG3_LANDMARKS, 1.0)
    event = np.ones(8)
    assert landmark_loss(event, FIG3_LANDMARKS).max() == pytest.approx(5.0)
    assert not satisfies_landmark_privacy(event, FIG3_LANDMARKS, 1.0)


@st.composite
def budgets_and_landmarks(draw):
    n = draw(st.integers(1, 40))
    reps = draw(st.integers(1, 3))
    budgets = np.array(draw(st.lists(st.floats(0, 5), min_size=reps * n, max_size=reps * n))).reshape(reps, n)
    lmdk = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
    return budgets, lmdk


@given(budgets_and_landmarks())
def test_loss_matches_brute_force_set_sum(case):
    budgets, lmdk = case
    loss = landmark_loss(budgets, lmdk)
    mask = landmark_mask(lmdk, budgets.shape[1])
    assert loss.shape == budgets.shape
    for r in range(budgets.shape[0]):
        for t in range(budgets.shape[1]):
            expected = sum(budgets[r, i] for i in set(lmdk) | {t})
            assert loss[r, t] == pytest.approx(expected, abs=1e-9)
    assert np.array_equal(loss, landmark_loss(budgets, mask))
    assert np.array_equal(loss[0], landmark_loss(budgets[0], lmdk))


def test_per_repetition_mask():
    budgets = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    mask = np.array([[True, False, False], [False, False, False]])
    assert np.allclose(landmark_loss(budgets, mask), [[1, 2, 2], [1, 1, 1]])
    assert not satisfies_landmark_privacy(budgets, mask, 1.5)
    assert satisfies_landmark_privacy(budgets, mask, 2.0)


def test_tolerance_and_validation():
    budgets = np.full(4, 0.25 + 1e-12)
    assert satisfies_landmark_privacy(budgets, [0, 1, 2], 1.0)
    assert not satisfies_landmark_privacy(budgets, [0, 1, 2], 1.0, tol=0.0)
    with pytest.raises(ParameterError, match="landmarks"):
        landmark_loss(np.ones(3), [3])
    with pytest.raises(ParameterError, match="landmarks"):
        landmark_loss(np.ones(3), [0.5])
    with pytest.raises(ParameterError, match="landmarks"):
        landmark_loss(np.ones(3), np.ones(4, dtype=bool))
    with pytest.raises(ParameterError, match="budgets"):
        landmark_loss([1.0, -0.1], [])
    with pytest.raises(ParameterError, match="budgets"):
        landmark_loss([1.0, np.nan], [])
    with pytest.raises(ParameterError, match="repetitions"):
        landmark_loss(np.ones((2, 3)), np.ones((3, 3), dtype=bool))
    with pytest.raises(ParameterError, match="epsilon"):
        satisfies_landmark_privacy(np.ones(3), [], 0.0)
    assert np.array_equal(landmark_mask([], 3), [False] * 3)
    assert np.array_equal(landmark_mask(np.array([2.0, 0.0]), 3), [True, False, True])
