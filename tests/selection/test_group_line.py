"""Issue 53: the group line of a privately selected landmark set states the true bound.

Moving k values moves every count the threshold's exponential mechanism scores by up to k, so a group of k changed
values costs the selection k·ε_sel (threshold k·ε_q plus randomized response k·ε_rr), not ε_q + k·ε_rr. The
finding, run the way an attacker runs it: D = [0×5, 2×6] against D′ = [25×5, 2×6] under ``percentile:50`` at
ε_sel = 2, many selections of each, the exact likelihood ratio of the selected set as the statistic, and a
Clopper–Pearson lower bound of the loss that lies above the old line's ε_q + 5·ε_rr = 6 (exactly 8.98) and within
the new 5·ε_sel = 10.
"""
from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from lmdk import cli
from lmdk.audit.loss import empirical_epsilon
from lmdk.exports.export import export_scheme_release
from lmdk.relation import public_range
from lmdk.selection.export import export_landmarks
from lmdk.selection.private import group_epsilon, mask_log_likelihood, select, select_masks

RANGE = (0.0, 25.0)
RULE = "percentile:50"
EPS, EPS_SEL = 0.01, 2.0
D = np.array([0.0] * 5 + [2.0] * 6)
D_MOVED = np.array([25.0] * 5 + [2.0] * 6)  # the five lowest values moved together across the public range
OLD_LINE = EPS + EPS_SEL / 2 + 5 * EPS_SEL / 2  # ε + ε_q + k·ε_rr for these five: what the old group line said


def _loss_lower_bound(trials: int, seed: int) -> float:
    """The attacker: ``trials`` private selections of each neighbour, the exact log-likelihood ratio of the selected
    set as the statistic, the Clopper–Pearson lower bound of the loss of its best tail event."""
    rng = np.random.default_rng(seed)
    stats = []
    for x in (D, D_MOVED):
        parts = []
        for start in range(0, trials, 500_000):  # vectorised, half a million selections at a time
            masks = select_masks(np.tile(x, (min(500_000, trials - start), 1)), RULE, EPS_SEL, RANGE, rng)
            parts.append(mask_log_likelihood(masks, D_MOVED, RULE, EPS_SEL, RANGE)
                         - mask_log_likelihood(masks, D, RULE, EPS_SEL, RANGE))
        stats.append(np.concatenate(parts))
    return empirical_epsilon(stats[0], stats[1], 0.95).lower


def test_the_selection_of_five_moved_values_costs_more_than_the_old_line_and_at_most_five_selections():
    lower = _loss_lower_bound(300_000, seed=53)
    assert OLD_LINE < lower <= group_epsilon(0.0, EPS_SEL, 5)


@pytest.mark.slow
def test_the_issue_attack_with_four_million_selections_beats_the_old_printed_seven():
    lower = _loss_lower_bound(4_000_000, seed=8)  # the issue: ε̂ 8.69, lower bound 8.10, exact 8.98
    assert EPS + EPS_SEL / 2 + 6 * EPS_SEL / 2 < lower <= group_epsilon(0.0, EPS_SEL, 5)  # old line printed 7.01


def test_the_exact_loss_of_the_group_lies_between_the_old_and_the_new_bound():
    masks = np.array(list(itertools.product([False, True], repeat=D.size)))
    exact = np.max(np.abs(mask_log_likelihood(masks, D, RULE, EPS_SEL, RANGE)
                          - mask_log_likelihood(masks, D_MOVED, RULE, EPS_SEL, RANGE)))
    assert exact == pytest.approx(8.98, abs=0.01)  # the issue's exact value
    assert OLD_LINE - EPS < exact <= 5 * EPS_SEL


@pytest.mark.parametrize("rule", ["percentile:34", "share:34", "below:10", "above:10"])
def test_the_likelihood_is_the_selections_distribution(rule):
    x = np.array([20.0, 5.0, 20.0])
    masks = select_masks(np.tile(x, (100_000, 1)), rule, 1.0, RANGE, np.random.default_rng(1))
    seen, counts = np.unique(masks, axis=0, return_counts=True)
    p = np.exp(mask_log_likelihood(seen, x, rule, 1.0, RANGE))
    every = np.array(list(itertools.product([False, True], repeat=3)))
    assert np.exp(mask_log_likelihood(every, x, rule, 1.0, RANGE)).sum() == pytest.approx(1.0)
    assert np.max(np.abs(counts / 100_000 - p)) < 0.01


@pytest.mark.parametrize("rule", ["percentile:20", "below:0.5"])
def test_one_formula_for_every_copy_of_the_group_bound(rule):
    import lmdk

    series = lmdk.sample("hue")
    chosen = select(series, rule, 2.0, RANGE, rng=11)
    source = export_landmarks(series, rule, landmark_epsilon=2.0, value_range=RANGE, rng=np.random.default_rng(11))
    for s in (chosen, source):
        assert s.landmark_level_epsilon(1.0) == pytest.approx(1.0 + (len(s.indices) + 1) * 2.0)


def _five_selected_seed() -> int:
    """A seed whose private selection on [25×5, 2×6] picks five landmarks (as in the issue's run)."""
    x = D_MOVED
    for seed in range(200):
        if select(x, RULE, EPS_SEL, RANGE, rng=np.random.default_rng(seed)).indices.size == 5:
            return seed
    raise AssertionError("no seed selects five")


def test_the_export_prints_twelve_for_five_selected_landmarks():
    from lmdk.data.series import from_values

    seed = _five_selected_seed()
    exported = export_scheme_release(from_values(D_MOVED), RULE, "skip", EPS, landmark_epsilon=EPS_SEL,
                                     protects=public_range(0, 25), rng=np.random.default_rng(seed), event="hour")
    assert exported.landmark_source.indices.size == 5
    assert "all 5 selected landmark hours together with any one other hour at ε = 12.01" in exported.note
    assert "several hours changed together add the selection's ε_sel = 2 per hour" in exported.note


def test_lmdk_release_prints_the_group_bound(tmp_path, capsys):
    import pandas as pd

    data = tmp_path / "lm.csv"
    pd.DataFrame({"timestamp": pd.date_range("2024-01-01", periods=11, freq="h"), "value": D_MOVED}).to_csv(
        data, index=False)
    summary = tmp_path / "s.json"
    for _attempt in range(5):  # a selection of none has no group line; each export selects afresh
        code = cli.main(["release", str(data), "--scheme", "skip", "--epsilon", "0.01", "--landmarks", RULE,
                         "--landmark-epsilon", "2", "--range", "0", "25", "--out", str(tmp_path / "r.csv"),
                         "--summary", str(summary)])
        _, err = capsys.readouterr()
        assert code == 0, err
        found = re.search(r"all (\d+) selected landmark hours together with any one other hour at ε = ([\d.]+)", err)
        if found:
            break
    assert found, err
    size, printed = int(found.group(1)), float(found.group(2))
    assert printed == pytest.approx(EPS + (size + 1) * EPS_SEL)  # ε + (|S| + 1)·ε_sel: 12.01 for five
    assert f"at ε = {printed:g}" in json.loads(summary.read_text())["guarantee"]["protected"]
    assert "Released under the Skip scheme." in err
