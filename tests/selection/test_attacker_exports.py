"""Issue 33 tested as an attacker would: many releases of [20, a, 20] with a on either side of a data-derived rule's
threshold, for every value rule kind and every scheme that treats landmarks differently.

- Private selection (``--landmark-epsilon``): the Clopper–Pearson lower bound of the privacy loss of every
  distinguishing event stays within the stated total ε_sel + ε.
- Without it an export is refused (exit code 3, one line naming the declared alternatives).
- With ``--allow-data-landmarks`` the attack succeeds (Skip: a loss far above ε), and the statement says first that
  the value is not protected and no longer claims the value-level ε.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import beta

import lmdk
from lmdk import cli
from lmdk.data.series import from_values
from lmdk.errors import PolicyRefused
from lmdk.exports.export import export_scheme_release
from lmdk.landmarks import parse_rule
from lmdk.relation import public_range
from lmdk.selection.private import select_masks

RANGE = (0.0, 25.0)
PROTECTS = public_range(0, 25, "kWh")
EPS, EPS_SEL = 1.0, 1.0
TRIALS = 20_000
RULES = {  # rule → (a on one side of its threshold, a on the other)
    "below:10": (5.0, 15.0),
    "above:10": (5.0, 15.0),
    "percentile:34": (5.0, 25.0),  # one landmark of three: the middle event (a = 5) or the first 20 (a = 25)
    "share:34": (5.0, 25.0),
}
SCHEMES = ("uniform", "skip", "adaptive")
ALPHA = 1e-6


def _bounds(k: int, trials: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of a binomial proportion."""
    low = beta.ppf(alpha / 2, k, trials - k + 1) if k else 0.0
    high = beta.ppf(1 - alpha / 2, k + 1, trials - k) if k < trials else 1.0
    return float(low), float(high)


def loss_lower_bound(hits_a: np.ndarray, hits_b: np.ndarray, trials: int) -> float:
    """The largest Clopper–Pearson lower bound of |ln P(E | a) / P(E | a′)| over the events given (their hit counts),
    both directions, Bonferroni over all of them at ALPHA."""
    alpha = ALPHA / (2 * len(hits_a))
    best = 0.0
    for ka, kb in zip(hits_a.tolist(), hits_b.tolist(), strict=True):
        (la, ha), (lb, hb) = _bounds(ka, trials, alpha), _bounds(kb, trials, alpha)
        for num, den in ((la, hb), (lb, ha)):
            if num > 0:
                best = max(best, float(np.log(num / den)))
    return best


def _events(values: np.ndarray) -> np.ndarray:
    """Hit counts of the distinguishing events an attacker tries: repeats (Skip), and the middle release below
    several cut-offs (the value itself, and the budget's noise scale)."""
    middle = values[:, 1]
    events = [values[:, 1] == values[:, 0], values[:, 2] == values[:, 1]]
    events += [middle <= cut for cut in (2.5, 5.0, 7.5, 10.0, 12.5, 15.0, 17.5, 20.0)]
    events += [np.abs(middle - 10.0) <= w for w in (2.0, 5.0)]
    hits = np.array([int(e.sum()) for e in events])
    return np.concatenate([hits, len(values) - hits])  # and their complements


def _releases(a: float, rule: str, scheme: str, rng, private: bool) -> np.ndarray:
    """TRIALS exported releases of [20, a, 20] (one fresh landmark set per release when selected privately)."""
    x = np.array([20.0, a, 20.0])
    if private:
        mask = select_masks(np.tile(x, (TRIALS, 1)), rule, EPS_SEL, RANGE, rng)
    else:
        mask = np.zeros(3, dtype=bool)
        mask[parse_rule(rule).indices(from_values(x))] = True
    rel = lmdk.release(x, mask, scheme, EPS, protects=PROTECTS, repetitions=TRIALS, rng=rng)
    return np.asarray(rel.values)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("rule", list(RULES))
def test_private_selection_keeps_the_loss_within_the_stated_total(rule, scheme):
    rng = np.random.default_rng(33)
    a, b = RULES[rule]
    hits_a = _events(_releases(a, rule, scheme, rng, private=True))
    hits_b = _events(_releases(b, rule, scheme, rng, private=True))
    measured = loss_lower_bound(hits_a, hits_b, TRIALS)
    stated = EPS_SEL + EPS
    assert measured <= stated, f"{rule} {scheme}: loss ≥ {measured:.3f} > stated {stated}"


@pytest.mark.parametrize("rule", list(RULES))
def test_without_private_selection_skip_tells_the_neighbours_apart(rule):
    """The attack the refusal prevents: the landmark decision at the middle event repeats Skip's release."""
    rng = np.random.default_rng(34)
    a, b = RULES[rule]
    hits_a = _events(_releases(a, rule, "skip", rng, private=False))
    hits_b = _events(_releases(b, rule, "skip", rng, private=False))
    assert loss_lower_bound(hits_a, hits_b, TRIALS) > 3 * EPS


@pytest.mark.parametrize("rule", list(RULES))
def test_an_export_of_a_data_derived_rule_is_refused_with_the_declared_alternatives(rule):
    series = from_values(np.array([20.0, 5.0, 20.0]))
    with pytest.raises(PolicyRefused, match="calendar:") as caught:
        export_scheme_release(series, rule, "skip", EPS, protects=PROTECTS)
    message = str(caught.value)
    assert "\n" not in message and "a file of times" in message and "--landmark-epsilon" in message


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("rule", ["below:0.5", "above:1", "percentile:20", "share:20"])
def test_the_command_line_refuses_with_exit_code_3_and_one_line(capsys, tmp_path, rule, scheme):
    out = tmp_path / "r.csv"
    code = cli.main(["release", "sample:hue", "--scheme", scheme, "--epsilon", "1", "--landmarks", rule,
                     "--range", "0", "25", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == cli.EXIT_VIOLATION and not out.exists()
    (line,) = [text for text in err.splitlines() if text.startswith("lmdk:")]
    assert "calendar:" in line and "a file of times" in line


def test_locations_and_contacts_rules_are_refused_too(capsys, tmp_path):
    code = cli.main(["release", "sample:taxi", "--scheme", "skip", "--epsilon", "1", "--landmarks", "stay:30min",
                     "--radius", "200", "--bound", "50000", "--out", str(tmp_path / "t.csv")])
    assert code == cli.EXIT_VIOLATION and "calendar:" in capsys.readouterr().err
    code = cli.main(["release", "sample:taxi", "--scheme", "skip", "--epsilon", "1", "--landmarks", "stay:30min",
                     "--radius", "200", "--bound", "50000", "--landmark-epsilon", "1",
                     "--out", str(tmp_path / "t.csv")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_VIOLATION and "cannot be selected privately" in err
    watch = tmp_path / "watch.txt"
    watch.write_text("1\n2\n3\n")
    code = cli.main(["release", "sample:contacts", "--scheme", "skip", "--epsilon", "1", "--landmarks",
                     f"contacts:{watch}", "--out", str(tmp_path / "c.csv")])
    assert code == cli.EXIT_VIOLATION and "calendar:" in capsys.readouterr().err


@pytest.mark.parametrize("scheme", SCHEMES)
def test_allow_data_landmarks_says_first_what_is_not_protected(capsys, tmp_path, scheme):
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    code = cli.main(["release", "sample:hue", "--scheme", scheme, "--epsilon", "1", "--landmarks", "below:0.5",
                     "--range", "0", "25", "--out", str(out), "--summary", str(summary), "--allow-data-landmarks"])
    assert code == 0, capsys.readouterr().err
    head = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert head[1].startswith("# NOT PROTECTED: the value of any hour whose landmark status could change")
    text = "\n".join(head)
    assert "whatever it is between 0 and 25 kWh, at ε = 1" not in text  # no value-level claim
    assert "(ε, L)-landmark privacy, Theorem 2)" not in text
    said = json.loads(summary.read_text())
    assert said["landmark_set"]["kind"] == "unprotected" and said["guarantee"]["warning"]


def test_private_selection_states_the_total_and_the_ledger_spends_it(capsys, tmp_path):
    out, summary, ledger_file = tmp_path / "r.csv", tmp_path / "s.json", tmp_path / "L.jsonl"
    code = cli.main(["release", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks", "percentile:20",
                     "--range", "0", "25", "--landmark-epsilon", "0.5", "--out", str(out), "--summary", str(summary),
                     "--ledger", str(ledger_file)])
    assert code == 0, capsys.readouterr().err
    text = out.read_text()
    assert "whatever it is between 0 and 25 kWh, at ε = 1.5 (landmark selection ε_sel = 0.5 + release 1" in text
    assert "Landmark set: selected privately from these values (percentile:20) at ε_sel = 0.5" in text
    said = json.loads(summary.read_text())
    assert said["epsilon_total"] == 1.5 and said["landmark_set"]["kind"] == "private"
    (entry,) = lmdk.ledger.read(ledger_file)
    assert (entry.epsilon, entry.landmark_epsilon) == (1.5, 0.5)


def test_a_declared_rule_keeps_the_release_epsilon_and_says_so():
    series = lmdk.sample("hue")
    exported = export_scheme_release(series, "calendar:daily@18:00-22:00", "skip", EPS, protects=PROTECTS,
                                     event="hour")
    assert exported.landmark_source.kind == "declared" and exported.landmark_epsilon == 0.0
    assert "at ε = 1; all" in exported.guarantee.protected
    assert exported.guarantee.landmark_set.startswith("declared in advance (calendar:daily@18:00-22:00)")
    with pytest.raises(lmdk.errors.ParameterError, match="nothing to select privately"):
        export_scheme_release(series, "calendar:daily@18:00-22:00", "skip", EPS, protects=PROTECTS,
                              landmark_epsilon=0.5)


def test_the_planner_counts_the_selection_budget():
    from lmdk import plan

    series = lmdk.sample("hue").head(200)
    result = plan.plan(series.values, "percentile:20", plan.Target(error=3.0), protects=PROTECTS,
                       schemes=("uniform",), rng=0, landmark_epsilon=0.5, repetitions=20)
    answer = result.schemes["uniform"]
    assert result.landmark_epsilon == 0.5 and result.total_epsilon("uniform") == answer.epsilon + 0.5
    assert result.to_json()["uniform"]["epsilon_total"] == answer.epsilon + 0.5
    with pytest.raises(PolicyRefused):
        plan.plan(series.values, "stay:30min", plan.Target(error=3.0), protects=PROTECTS, landmark_epsilon=0.5)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_audit_flips_a_landmark_and_its_verdict_covers_it(scheme):
    from lmdk.audit import audit

    x = np.array([20.0, 5.0, 20.0, 18.0, 3.0, 22.0])
    series = from_values(x)
    L = parse_rule("below:10").indices(series)
    plain = audit(series, L, scheme, EPS, protects=PROTECTS, trials=1000, rule="below:10", dummy_methods=(),
                  position_trials=20)
    flip = plain.pairs["flip"]
    assert "landmark status flips" in flip.description and flip.claimed == EPS
    if scheme == "skip":  # the repeat gives it away: the verdict says so
        assert flip.estimate.lower > 2 * EPS and plain.exceeds
    private = audit(series, L, scheme, EPS, protects=PROTECTS, trials=1000, rule="below:10", landmark_epsilon=EPS_SEL,
                    dummy_methods=(), position_trials=20)
    assert private.pairs["flip"].claimed == EPS + EPS_SEL
    assert private.pairs["flip"].estimate.lower <= EPS + EPS_SEL and not private.exceeds
    declared = audit(series, [1], scheme, EPS, protects=PROTECTS, trials=200, rule="calendar:daily@00:00-01:00",
                     dummy_methods=(), position_trials=20)
    assert "flip" not in declared.pairs and any("declared" in note for note in declared.notes)


def test_a_population_export_selects_privately_or_is_refused(tmp_path, capsys):
    import pandas as pd

    rng = np.random.default_rng(5)
    times = pd.date_range("2024-01-01", periods=24, freq="h").astype(str)
    pd.concat([pd.DataFrame({"user": f"u{u}", "timestamp": times, "value": rng.uniform(0, 25, 24)})
               for u in range(4)]).to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "p.json").write_text(json.dumps({"landmarks": "below:10", "scheme": "skip", "epsilon": 1.0}))
    base = ["population", str(tmp_path / "m.csv"), "--config", str(tmp_path / "p.json"), "--range", "0", "25",
            "--quiet", "--ledger", str(tmp_path / "L.jsonl"), "--dataset", "meters"]  # a ledger names its dataset
    assert cli.main(base + ["--out", str(tmp_path / "a")]) == cli.EXIT_VIOLATION
    assert "calendar:" in capsys.readouterr().err and not (tmp_path / "a" / "released").exists()
    assert cli.main(base + ["--out", str(tmp_path / "b"), "--landmark-epsilon", "0.5"]) == 0
    totals = json.loads((tmp_path / "b" / "aggregates.json").read_text())
    assert totals["epsilon_total"] == 1.5 and totals["landmark_set"]["kind"] == "private"
    # each user's series has its own selected set: no one count for all of them (it read 0 before)
    assert totals["landmark_set"]["landmarks"] is None and totals["landmark_set"]["per_user"] is True
    assert "at ε = 1.5 (landmark selection ε_sel = 0.5" in totals["guarantee"]["protected"]
    (entry,) = lmdk.ledger.read(tmp_path / "L.jsonl")
    assert (entry.epsilon, entry.landmark_epsilon, entry.users) == (1.5, 0.5, 4)
    assert lmdk.ledger.would_exceed([entry], 1.0, 2.4)  # a cap counts the selection: 1.5 + 1 > 2.4
    assert cli.main(base + ["--out", str(tmp_path / "c"), "--allow-data-landmarks"]) == 0
    totals = json.loads((tmp_path / "c" / "aggregates.json").read_text())
    assert totals["guarantee"]["warning"].startswith("the value of any reading whose landmark status could change")
