"""Transition operator (lmdk.priste.transition): Kronecker factors found exactly where they exist, products as dense."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk.priste import Grid, estimate_transition, gaussian_transition, simulate_trajectory
from lmdk.priste.transition import kronecker_factors, transition_operator


@pytest.mark.parametrize("rows,cols,sigma", [(20, 20, 1.0), (20, 20, 0.5), (3, 5, 0.7), (6, 2, 2.5), (4, 4, 0.3)])
def test_gaussian_mobility_is_factored_and_products_equal_the_dense_ones(rows, cols, sigma):
    M = gaussian_transition(Grid(rows, cols), sigma)
    op = transition_operator(M, rows, cols)
    assert op.factored
    A, B = op.row_factor, op.col_factor
    assert A.shape == (rows, rows) and B.shape == (cols, cols)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(np.kron(A, B), M, rtol=1e-12, atol=1e-300)
    rng = np.random.default_rng(0)
    X = rng.random((7, M.shape[0])) * np.exp(-rng.uniform(0, 200, (7, M.shape[0])))  # many magnitudes
    np.testing.assert_allclose(op.right(X), X @ M, rtol=1e-12, atol=1e-290)
    V = rng.random((M.shape[0], 3))
    np.testing.assert_allclose(op.left(V), M @ V, rtol=1e-12)
    np.testing.assert_allclose(op.left(V[:, 0]), M @ V[:, 0], rtol=1e-12)


def test_asymmetric_factors_are_recovered_in_the_right_order():
    rng = np.random.default_rng(3)
    A, B = rng.dirichlet(np.ones(3), size=3), rng.dirichlet(np.ones(4), size=4)
    M = np.kron(A, B)
    fa, fb = kronecker_factors(M, 3, 4)
    np.testing.assert_allclose(fa, A, rtol=1e-12)
    np.testing.assert_allclose(fb, B, rtol=1e-12)
    assert kronecker_factors(M, 4, 3) is None  # the wrong grid orientation is not a Kronecker product


def test_non_separable_matrices_stay_dense():
    g = Grid(4, 5)
    M = estimate_transition(simulate_trajectory(gaussian_transition(g, 1.0), 300, rng=1), 0.5, m=g.m)
    assert not transition_operator(M, 4, 5).factored
    assert not transition_operator(gaussian_transition(g, 1.0)).factored  # no grid shape given
    almost = gaussian_transition(g, 1.0)
    almost[0] = np.roll(almost[0], 1)  # one row moved: still stochastic, no longer a product
    assert not transition_operator(almost, 4, 5).factored
    X = np.random.default_rng(2).random((3, g.m))
    op = transition_operator(M, 4, 5)
    np.testing.assert_array_equal(op.right(X), X @ M)


def test_single_row_or_column_grids_use_the_dense_matrix():
    M = gaussian_transition(Grid(1, 6), 1.0)
    assert not transition_operator(M, 1, 6).factored
