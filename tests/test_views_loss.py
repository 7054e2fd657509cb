"""lmdk.present.views_loss: matrix upload parsing, loss asymptotes, the Figure 9 comparison for any matrix."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk.errors import DataError, ParameterError, TooLargeError
from lmdk.present import views_loss as vl
from lmdk.privacy import landmark_loss
from lmdk.tpl.temporal import landmark_temporal_privacy_loss, temporal_privacy_loss, transition_matrix


@pytest.mark.parametrize("text", ["0.9,0.1\n0.2,0.8\n", "from_a,from_b\n0.9,0.1\n0.2,0.8", "0.9;0.1\n0.2;0.8",
                                  "\ufeff0.9, 0.1\n0.2, 0.8"])
def test_read_matrix_accepts_plain_csv_with_optional_header(text):
    P = vl.read_transition_matrix(text.encode("utf-8"))
    np.testing.assert_allclose(P, [[0.9, 0.1], [0.2, 0.8]])


@pytest.mark.parametrize("text, error, words", [
    ("0.5,0.6\n0.2,0.8", ParameterError, "row-stochastic"),
    ("0.5,0.5\n0.2,x", DataError, "row 2, column 2"),
    ("", DataError, "empty"),
    ("1.0", DataError, "at least 2 states"),
    ("0.5,0.5,0\n0.5,0.5,0", ParameterError, "square"),
    ("-0.1,1.1\n0.5,0.5", ParameterError, "negative"),
])
def test_read_matrix_rejects_bad_files_with_a_message_naming_the_problem(text, error, words):
    with pytest.raises(error, match=words):
        vl.read_transition_matrix(text.encode())


def test_read_matrix_bounds_size_and_encoding():
    big = "\n".join(",".join(["0.1"] * 10) for _ in range(10))
    with pytest.raises(TooLargeError, match="at most 5 states"):
        vl.read_transition_matrix(big.encode(), max_states=5)
    with pytest.raises(DataError, match="UTF-8"):
        vl.read_transition_matrix(b"\xff\xfe\x00garbage")


def test_asymptotes_are_the_limits_under_constant_budgets_and_bounds_otherwise():
    P = transition_matrix(0.1)
    eps = np.full(400, 0.3)
    bpl, fpl, tpl = temporal_privacy_loss(eps, P)
    a = vl.loss_asymptotes(eps, P)
    assert a.constant and a.epsilon_max == pytest.approx(0.3)
    assert bpl[-1] == pytest.approx(a.bpl, rel=1e-6) and tpl[200] == pytest.approx(a.tpl, rel=1e-6)
    rng = np.random.default_rng(3)
    varied = rng.uniform(0, 0.3, 400)
    b2, f2, t2 = temporal_privacy_loss(varied, P)
    a2 = vl.loss_asymptotes(varied, P)
    assert not a2.constant
    assert b2.max() <= a2.bpl + 1e-12 and f2.max() <= a2.bpl + 1e-12 and t2.max() <= a2.tpl + 1e-12
    assert vl.loss_asymptotes(eps, np.eye(2)).bpl == np.inf  # deterministic chain: the loss diverges


def test_distribution_comparison_matches_the_core_definition_for_one_draw():
    P = transition_matrix(0.01)
    df = vl.distribution_comparison(50, 1.0, P, percentages=(0, 20, 100), distributions=("skewed",),
                                    repetitions=1, rng=7)
    assert set(df.columns) == set(vl.COMPARISON_COLUMNS) and len(df) == 3 * 3 * 2
    from lmdk import synthetic

    # the 20 % row equals the core quantity for the draw the function made (same generator, 0 % drawn first)
    gen = np.random.default_rng(7)
    synthetic.landmarks(50, 0.0, "skewed", gen)
    lm = synthetic.landmarks(50, 0.2, "skewed", gen)
    budgets = np.full(50, 1.0 / (lm.size + 1))
    loss = landmark_temporal_privacy_loss(budgets, lm, P)
    row = df[(df.landmark_pct == 20) & (df.quantity == "overall") & (df.statistic == "max")].iloc[0]
    assert row.value == pytest.approx(loss.overall.max())
    assert row.reference == pytest.approx(landmark_loss(budgets, lm).max()) == pytest.approx(1.0)
    full = df[(df.landmark_pct == 100) & (df.quantity == "overall")]
    np.testing.assert_allclose(full.value, 50 / 51)  # every t a landmark: Σ ε regardless of correlation
    assert (df.value >= df.reference - 1e-12).all()  # correlation never lowers the loss


def test_distribution_comparison_validates_its_arguments():
    P = transition_matrix(0.1)
    with pytest.raises(ParameterError, match="epsilon"):
        vl.distribution_comparison(10, 0.0, P)
    with pytest.raises(ParameterError, match="n"):
        vl.distribution_comparison(0, 1.0, P)
    with pytest.raises(ParameterError, match="repetitions"):
        vl.distribution_comparison(10, 1.0, P, repetitions=0)
