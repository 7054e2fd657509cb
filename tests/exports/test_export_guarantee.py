"""Exports state the guarantee they give (issue 25): the relation's Δ calibrates the noise, the preview is the export,
the statement names what is and is not protected, and an attacker measures no more than ε."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

import lmdk
from lmdk import cli, relation
from lmdk.data.series import from_values
from lmdk.errors import ParameterError
from lmdk.exports import export

SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")


def constant_series(value: float, n: int):
    times = pd.date_range("2024-01-01", periods=n, freq="h")
    return from_values(np.full(n, value), timestamps=times, units="kWh")


def clopper_pearson_lower_loss(k1: int, k0: int, trials: int, alpha: float = 1e-3) -> float:
    """Lower confidence bound of ln(P1/P0) for one output bin, from counts k1, k0 out of ``trials`` each."""
    p1_low = beta.ppf(alpha / 2, k1, trials - k1 + 1) if k1 > 0 else 0.0
    p0_high = beta.ppf(1 - alpha / 2, k0 + 1, trials - k0) if k0 < trials else 1.0
    return float(np.log(p1_low / p0_high)) if p1_low > 0 else -np.inf


def empirical_loss_lower_bound(low_draws: np.ndarray, high_draws: np.ndarray, bins: int = 40) -> float:
    """The largest lower confidence bound of the privacy loss over output bins, both directions."""
    edges = np.quantile(np.r_[low_draws, high_draws], np.linspace(0, 1, bins + 1))
    a, _ = np.histogram(low_draws, edges)
    b, _ = np.histogram(high_draws, edges)
    n = low_draws.size
    return max(max(clopper_pearson_lower_loss(x, y, n), clopper_pearson_lower_loss(y, x, n))
               for x, y in zip(a, b, strict=True))


def one_event_exports(value: float, protected, trials: int, seed: int) -> np.ndarray:
    """``trials`` exports of a one-event series at ``value`` (event level), vectorised over a seeded generator."""
    x = np.full(1, value)
    rel = lmdk.release(x, np.zeros(0, dtype=np.int64), "event", 1.0, protects=protected, repetitions=trials, rng=seed)
    return np.asarray(rel.values)[:, 0]


def test_attacker_on_the_export_path_measures_at_most_epsilon():
    protected = relation.public_range(0, 25, "kWh")
    low = one_event_exports(0.0, protected, 20_000, 1)
    high = one_event_exports(25.0, protected, 20_000, 2)
    assert empirical_loss_lower_bound(low, high) <= 1.0


def test_the_same_attack_catches_delta_one_on_a_25_unit_range():
    broken = relation.up_to(1, 0, 25, "kWh")  # the papers' Δ = 1 where readings span 25 kWh
    low = one_event_exports(0.0, broken, 20_000, 1)
    high = one_event_exports(25.0, broken, 20_000, 2)
    assert empirical_loss_lower_bound(low, high) > 5.0


@settings(max_examples=25, deadline=None)
@given(scheme=st.sampled_from(SCHEMES), low=st.floats(-50, 50), width=st.floats(0.5, 100),
       eps=st.floats(0.05, 5), share=st.floats(0.1, 1.0), seed=st.integers(0, 2**32))
def test_the_preview_is_the_export(scheme, low, width, eps, share, seed):
    """Views (protects=) and exports share Δ, sampler and range: the same seed gives the same release."""
    protected = relation.up_to(share * width, low, low + width, "kWh")
    series = from_values(np.linspace(low - 1, low + width + 1, 48),
                         timestamps=pd.date_range("2024-01-01", periods=48, freq="h"), units="kWh")
    L = np.arange(0, 48, 5)
    exported = export.export_scheme_release(series, L, scheme, eps, protects=protected, w=6,
                                            rng=np.random.default_rng(seed))
    view = lmdk.release(series.values, L, scheme, eps, protects=protected, w=6, rng=np.random.default_rng(seed))
    assert np.array_equal(exported.release.values, view.values)
    assert exported.release.sensitivity == protected.sensitivity
    values = exported.frame["released"].to_numpy()
    assert values.min() >= low and values.max() <= low + width  # clamped to the public range


def test_statement_names_protected_and_unprotected(capsys, tmp_path):
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    rule = "calendar:daily@18:00-22:00"  # declared: Theorem 2 holds as stated (issue 33)
    code = cli.main(["release", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks", rule,
                     "--range", "0", "25", "--out", str(out), "--summary", str(summary)])
    _, err = capsys.readouterr()
    assert code == 0, err
    head = [line for line in out.read_text().splitlines() if line.startswith("#")]
    text = "\n".join(head)
    assert "any single hour's value, whatever it is between 0 and 25 kWh" in text
    assert "Skip repeats the previous value at every landmark" in text
    assert "exact discrete Laplace" in text and "range [0, 25] kWh (Δ = 25)" in text
    said = json.loads(summary.read_text())
    assert said["sensitivity"] == 25 and said["sampler"] == "discrete"
    count = len(lmdk.landmarks.parse_rule(rule).indices(lmdk.sample("hue")))
    assert f"all {count:,} landmark hours together" in said["guarantee"]["protected"]
    assert said["guarantee"]["landmark_set"].startswith(f"declared in advance ({rule})")
    assert "chosen by looking at these values" not in text
    released = pd.read_csv(out, comment="#")["released"]
    assert released.between(0, 25).all()
    assert "Protected: any single hour's value" in err


def test_up_to_says_so_everywhere(capsys, tmp_path):
    out = tmp_path / "r.csv"
    code = cli.main(["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "none",
                     "--range", "0", "25", "--up-to", "2", "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 0, err
    text = out.read_text()
    assert "a change of up to 2 kWh" in text and "changes larger than 2 kWh" in text and "(Δ = 2)" in text


def test_an_export_without_a_relation_names_the_fix(capsys):
    code = cli.main(["release", "sample:hue", "--scheme", "event", "--epsilon", "1", "--landmarks", "none"])
    _, err = capsys.readouterr()
    assert code == cli.EXIT_INPUT and "public range" in err and err.count("\n") == 1


def test_locations_refuse_a_box_the_snapping_proof_cannot_cover():
    series = lmdk.sample("taxi", n=50)
    with pytest.raises(ParameterError, match="below the public bound"):
        export.export_scheme_release(series, np.arange(0, 50, 10), "uniform", 0.5, protects=relation.radius(500),
                                     bound=1000, rng=np.random.default_rng(0))
    ok = export.export_scheme_release(series, np.arange(0, 50, 10), "uniform", 1.0,
                                      protects=relation.radius(100, bound=50_000), rng=np.random.default_rng(0))
    assert "within 100 m" in ok.note
