"""release_common.discrete_cells: the column-wise path for repeated data-independent budgets (issue 34) gives the
same numbers as drawing and rounding cell by cell."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk import discrete_laplace as dl
from lmdk.release_common import discrete_cells

RANGE = (0.0, 25.0)


def cell_by_cell(x, budgets, published, delta, seed):
    """The definition: each published cell calibrated at its own budget, drawn in row-major order, put on its grid."""
    xs = np.broadcast_to(x, budgets.shape)
    values = np.array(xs, dtype=np.float64)
    cal = dl.calibrate_unchecked(budgets[published], delta, *RANGE)
    values[published] = dl.on_grid(xs[published], cal, dl.discrete_laplace(cal.scale, 1, np.random.default_rng(seed)))
    return values


@settings(max_examples=60, deadline=None)
@given(reps=st.integers(2, 5), n=st.integers(1, 30), seed=st.integers(0, 2**32 - 1),
       delta=st.floats(0.01, 40.0), per_row_x=st.booleans(), some_cells=st.booleans())
def test_repeated_budgets_give_the_cell_by_cell_release(reps, n, seed, delta, per_row_x, some_cells):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.uniform(-2.0, 27.0, (reps, n) if per_row_x else n), *RANGE)
    row = rng.uniform(0.01, 3.0, n) * (rng.random(n) < 0.8)  # budget 0: a column nobody publishes
    budgets = np.broadcast_to(row, (reps, n)).copy()
    published = budgets > 0
    if some_cells:
        published &= rng.random((reps, n)) < 0.7
    got = discrete_cells(x, budgets, published, delta, RANGE, np.random.default_rng(seed))
    np.testing.assert_array_equal(got, cell_by_cell(x, budgets, published, delta, seed))


def test_a_fully_published_scheme_releases_on_its_grid_inside_the_range():
    budgets = np.full((50, 40), 0.5)
    got = discrete_cells(np.linspace(0, 25, 40), budgets, budgets > 0, 1.0, RANGE, np.random.default_rng(1))
    g = dl.calibrate_unchecked(budgets[0], 1.0, *RANGE).grid
    assert got.min() >= 0 and got.max() <= 25 and np.all(got / g == np.rint(got / g))
    assert np.std(got - np.linspace(0, 25, 40), axis=0).min() > 0  # noise in every column
