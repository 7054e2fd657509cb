"""The five lessons of issue 56 (lmdk.lessons.meaning, lmdk.lessons.regular): every setting's answer against a small
computation written here independently of the core (Bayes' rule, the exact composition of pure ε-DP releases, the
paper's budget rules), the judging (Correct / Not quite), the reveals' independence of any seed (they are exact) and
that the budgets they rest on are what releases really spend for several seeds, and lab links the lab can read."""
from __future__ import annotations

import itertools
import math
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from lmdk import relation, schemes
from lmdk.lessons import base, meaning, regular
from lmdk.lessons.meaning import LESSON_MEANING, LESSON_REMEASURE
from lmdk.lessons.regular import LESSON_BUDGETS, LESSON_REGULAR, LESSON_W_EVENT
from ui.session import state

NEW = (LESSON_MEANING, LESSON_REMEASURE, LESSON_BUDGETS, LESSON_REGULAR, LESSON_W_EVENT)
PAGES = Path(__file__).resolve().parents[2] / "pages"
SEEDS = (0, 1, 2, 3, 4, 5)


def every_setting(lesson):
    """Every combination of a lesson's setting options, as the values dict its reveal takes."""
    keys = [s.key for s in lesson.settings]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(s.options for s in lesson.settings))]


# ------------------------------------------------------------------ independent computations


def bayes_bound(eps: float, prior: float) -> float:
    """Posterior odds at most e^ε times the prior odds, back to a probability."""
    odds = math.exp(eps) * prior / (1 - prior)
    return odds / (1 + odds)


def exact_composition(eps: float, k: int, delta: float) -> float:
    """The smallest ε′ with δ(ε′) ≤ delta for k pure ε-DP releases: the loss is ±ε per release, +ε with probability
    e^ε/(1+e^ε) (randomised response, the worst case), and δ(ε′) = E[(1 − e^(ε′ − loss))₊]; by bisection."""
    p = math.exp(eps) / (1 + math.exp(eps))
    weights = [math.comb(k, i) * p ** (k - i) * (1 - p) ** i for i in range(k + 1)]

    def failure(e: float) -> float:
        return sum(w * max(0.0, 1 - math.exp(e - (k - 2 * i) * eps)) for i, w in enumerate(weights))

    low, high = 0.0, k * eps
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (low, mid) if failure(mid) <= delta else (mid, high)
    return high


def paper_budget(scheme: str, is_landmark: bool, count: int, eps: float) -> float:
    """§3.2: Uniform ε/(|L|+1) everywhere; Skip ε at regular events, 0 at landmarks; Adaptive reserves as Uniform."""
    if scheme == "skip":
        return 0.0 if is_landmark else eps
    return eps / (count + 1)


# ------------------------------------------------------------------ the shape every lesson keeps


@pytest.mark.parametrize("lesson", NEW, ids=lambda x: x.name)
def test_each_lesson_is_complete_and_its_defaults_are_options(lesson):
    assert lesson.name and lesson.setting_text() and lesson.question_text() and lesson.takeaway
    assert lesson.play in {s.key for s in lesson.settings}
    assert all(s.default in s.options for s in lesson.settings)
    assert bool(lesson.choices) != bool(lesson.number_label)  # a choice or a number, not both
    assert lesson.section.startswith("§")
    assert set(lesson.not_in_lab) <= {s.key for s in lesson.settings}


@pytest.mark.parametrize("lesson", NEW, ids=lambda x: x.name)
def test_every_setting_gives_a_reveal_with_numbers_and_a_two_sentence_why(lesson):
    for values in every_setting(lesson):
        reveal = lesson.reveal(values)
        assert reveal.numbers and all(isinstance(v, str) and v for v in reveal.numbers.values())
        assert reveal.why.count(". ") >= 1 and any(ch.isdigit() for ch in reveal.why)
        if lesson.choices:
            assert reveal.answer in lesson.choices


# ------------------------------------------------------------------ answers against independent computations


def test_what_eps_means_is_the_bayes_bound_at_every_setting():
    for v in every_setting(LESSON_MEANING):
        expected = 100 * bayes_bound(v["eps"], v["prior"] / 100)
        reveal = LESSON_MEANING.reveal(v)
        assert reveal.answer == pytest.approx(expected, rel=1e-12)
        assert reveal.numbers["belief after the release, at most"] == f"{expected:.4g} %"
    assert LESSON_MEANING.reveal().answer == pytest.approx(73.105857, abs=1e-6)  # the 73 % at ε = 1
    # from a 50 % belief, rounded as a reader reads them (the options are ε the lab offers: its link keeps them)
    assert [round(LESSON_MEANING.reveal({"eps": e}).answer, 1) for e in (1.0, 2.0, 5.0, 10.0)] == [73.1, 88.1, 99.3,
                                                                                                  100.0]
    assert set(LESSON_MEANING.settings[0].options) <= set(state.EPSILON_OPTIONS)


def test_what_eps_means_places_eps_among_the_registrys_deployments():
    from lmdk import epsilon_meaning

    for eps in (0.5, 5.0, 10.0):
        numbers = LESSON_MEANING.reveal({"eps": eps}).numbers
        assert numbers["among published deployments"] == epsilon_meaning.meaning(eps).position
        assert "OpenDP" in numbers["source"]
    low = LESSON_MEANING.reveal({"eps": 1.0}).why
    assert "below all of them" in low and "Apple emoji suggestions" in low
    between = LESSON_MEANING.reveal({"eps": 5.0}).why
    assert "sits between ε 4" in between and "and ε 8 (Apple Safari" in between
    assert "between ε 9.98" in LESSON_MEANING.reveal({"eps": 10.0}).why
    smallest = min(d.epsilon for d in epsilon_meaning.DEPLOYMENTS)
    assert f"from {smallest:g} to 34.9" in LESSON_MEANING.takeaway and "73.11 %" in LESSON_MEANING.takeaway


def test_remeasure_matches_the_exact_composition_of_pure_dp_releases_at_every_setting():
    for v in every_setting(LESSON_REMEASURE):
        eps, k = v["eps"], v["k"]
        exact = min(k * eps, max(exact_composition(eps, k, 1e-6), eps))  # the ledger's valid range [max ε, Σ ε]
        basic, pld = meaning.running_totals(eps, k)
        assert basic == pytest.approx(k * eps)
        assert exact - 1e-6 <= pld <= exact * 1.005 + 1e-6  # PLD rounds losses up, never down
        ratio = exact / (k * eps)
        expected = meaning.CHOICES_REMEASURE[0 if ratio >= 0.99 else 1 if ratio > 0.5 else 2]
        reveal = LESSON_REMEASURE.reveal(v)
        assert reveal.answer == expected, v
        # away from the buckets' edges: the answer cannot flip on the PLD's discretisation
        assert min(abs(ratio - 0.99), abs(ratio - 0.5)) > 0.005, v
        assert reveal.numbers["basic total k·ε"] == base.number(k * eps, 4)


def test_remeasure_lists_the_running_totals_step_by_step_and_each_look_adds():
    reveal = LESSON_REMEASURE.reveal({"eps": 0.1, "k": 200})
    rows = [(label, value) for label, value in reveal.numbers.items() if label.startswith("after release ")]
    assert [label.split()[2].rstrip(":") for label, _ in rows] == ["1", "50", "100", "200"]
    basics = [float(value.split(" / ")[0]) for _, value in rows]
    plds = [float(value.split(" / ")[1]) for _, value in rows]
    assert basics == pytest.approx([0.1, 5.0, 10.0, 20.0])
    assert plds == sorted(plds) and all(p <= b + 1e-9 for p, b in zip(plds, basics, strict=True))
    assert reveal.answer == "Less than half of k·ε"
    few = LESSON_REMEASURE.reveal({"eps": 1.0, "k": 5})
    assert few.answer == meaning.CHOICES_REMEASURE[0] and "every look costs its full ε" in few.why


def test_the_schemes_budgets_follow_section_3_2_at_every_setting():
    assert schemes.allocate("skip", 6, [1, 4], 1.0).tolist() == [1, 0, 1, 1, 0, 1]  # the example
    for v in every_setting(LESSON_BUDGETS):
        scheme = regular.SCHEME_KEYS[v["scheme"]]
        value = paper_budget(scheme, v["where"] == "landmark", v["k"], 1.0)
        expected = ("Nothing (0)" if value == 0 else "All of ε" if value == 1.0 else "ε/(|L|+1)")
        reveal = LESSON_BUDGETS.reveal(v)
        assert reveal.answer == expected, v
        L = regular.budget_landmarks(v["k"])
        shown = reveal.numbers[f"{v['scheme']} εₜ at t = 0…9"].split(", ")
        assert [float(x) for x in shown] == pytest.approx(
            [paper_budget(scheme, t in L, v["k"], 1.0) for t in range(10)], abs=1e-3)
    assert LESSON_BUDGETS.reveal().answer == "Nothing (0)"  # Skip spends nothing at a landmark (the default)


def test_two_regular_readings_under_skip_cost_two_epsilon_and_every_setting_is_the_sum_over_the_changed_set():
    L = {1, 4, 7}
    for v in every_setting(LESSON_REGULAR):
        scheme, k, eps = regular.SCHEME_KEYS[v["scheme"]], v["k"], v["eps"]
        changed = regular.CHANGED[:k]
        assert not L & set(changed)  # regular readings
        expected = sum(paper_budget(scheme, True, 3, eps) for _ in L) + k * paper_budget(scheme, False, 3, eps)
        reveal = LESSON_REGULAR.reveal(v)
        assert reveal.answer == pytest.approx(expected), v
        assert (reveal.answer <= eps + 1e-9) == (k == 1)  # within ε only for one regular reading at a time
    assert LESSON_REGULAR.reveal().answer == pytest.approx(2.0)  # the "two regular readings under Skip: 2ε"
    assert LESSON_REGULAR.reveal({"scheme": "Uniform", "k": 2}).answer == pytest.approx(1.25)


def test_the_pair_loss_is_theorem_2s_sum_over_the_landmarks_and_the_changed_readings():
    budgets = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    assert regular.pair_loss(budgets, [1], [0, 3]) == pytest.approx(0.2 + 0.1 + 0.4)
    assert regular.pair_loss(budgets, [1, 2], [4]) == pytest.approx(0.2 + 0.3 + 0.5)
    assert regular.pair_loss(budgets, [], [0, 2, 4]) == pytest.approx(0.1 + 0.3 + 0.5)


def test_w_event_satisfies_landmark_privacy_exactly_when_the_landmarks_and_one_event_fit_the_window():
    for v in every_setting(LESSON_W_EVENT):
        w, count = v["w"], v["count"]
        L = regular.window_landmarks(count)
        assert len(set(L.tolist())) == count and L.max() - L.min() + 1 > w  # spread wider than one window
        expected = "Yes" if (count + 1) / w <= 1 + 1e-9 else "No"
        reveal = LESSON_W_EVENT.reveal(v)
        assert reveal.answer == expected, v
        assert reveal.numbers["largest Σ over L ∪ {t} (Theorem 2)"] == base.number((count + 1) / w)
        assert reveal.numbers[f"largest Σ over {w} consecutive events (w-event's promise)"] == "1"
    assert LESSON_W_EVENT.reveal().answer == "No"  # the question: w = 10, |L| = 12
    assert LESSON_W_EVENT.reveal({"w": 13, "count": 12}).answer == "Yes"  # (12 + 1)/13 = ε exactly
    assert regular.largest_window_sum(np.array([0.1, 0.5, 0.2, 0.4]), 2) == pytest.approx(0.7)


# ------------------------------------------------------------------ judging


@pytest.mark.parametrize("lesson, right, wrong", [
    (LESSON_MEANING, "73", "50"),
    (LESSON_REMEASURE, "The same as k·ε (within 1 %)", "Less than half of k·ε"),
    (LESSON_BUDGETS, "Nothing (0)", "ε/(|L|+1)"),
    (LESSON_REGULAR, "2", "1"),
    (LESSON_W_EVENT, "No", "Yes"),
], ids=lambda x: getattr(x, "name", str(x)))
def test_a_right_prediction_is_correct_and_a_wrong_one_not_quite_with_the_same_why(lesson, right, wrong):
    reveal = lesson.reveal()
    yes, no = lesson.check(right), lesson.check(wrong)
    assert yes.correct and yes.text == "Correct. " + reveal.why
    assert not no.correct and no.text == "Not quite. " + reveal.why
    assert not lesson.check(None).correct


def test_number_predictions_within_ten_percent_count():
    assert LESSON_MEANING.check(66).correct and LESSON_MEANING.check("80").correct  # 73.1 ± 7.3
    assert not LESSON_MEANING.check(65).correct and not LESSON_MEANING.check("lots").correct
    assert LESSON_REGULAR.check(2.19, {"scheme": "Skip", "k": 2}).correct
    assert not LESSON_REGULAR.check(1.0, {"scheme": "Uniform", "k": 2}).correct  # 1.25: more than ε, not ε


# ------------------------------------------------------------------ robust: exact, and true of real releases


@pytest.mark.parametrize("lesson", NEW, ids=lambda x: x.name)
def test_the_reveals_are_exact_no_seed_changes_them(lesson, monkeypatch):
    before = [lesson.reveal(v) for v in every_setting(lesson)]
    for seed in SEEDS:
        monkeypatch.setattr(base, "SEED", seed)
        np.random.seed(seed)  # even a stray global draw would show here
        assert [lesson.reveal(v) for v in every_setting(lesson)] == before


@pytest.mark.parametrize("seed", SEEDS)
def test_the_budgets_the_lessons_state_are_what_releases_spend_for_every_seed(seed):
    gen = np.random.default_rng(seed)
    x = gen.uniform(0, 1, 10)
    protects = relation.public_range(0.0, 1.0, "kWh")
    for count in (1, 2, 3):  # Uniform and Skip spend exactly their assignment
        L = regular.budget_landmarks(count)
        for scheme in ("uniform", "skip"):
            spent = schemes.release(x, L, scheme, 1.0, protects=protects, repetitions=3, rng=gen).budgets
            assert np.allclose(spent, schemes.allocate(scheme, 10, L, 1.0))
        adaptive = schemes.release(x, L, "adaptive", 1.0, protects=protects, repetitions=20, rng=gen)
        from lmdk import privacy

        assert privacy.satisfies_landmark_privacy(adaptive.budgets, L, 1.0)  # moved, never over Theorem 2
    w = 10
    L = regular.window_landmarks(12)
    series = gen.uniform(0, 1, regular.N_WINDOW)
    spent = schemes.release(series, L, "w-event", 1.0, protects=protects, w=w, rng=gen).budgets[0]
    assert np.allclose(spent, 1.0 / w)


def test_adaptive_spends_by_the_data_so_the_lesson_asks_only_for_its_reservation():
    protects = relation.public_range(0.0, 1.0, "kWh")
    L = regular.budget_landmarks(2)
    reservation = schemes.allocate("adaptive", 10, L, 1.0)
    moved = 0
    for seed in SEEDS:
        gen = np.random.default_rng(seed)
        spent = schemes.release(gen.uniform(0, 1, 10), L, "adaptive", 1.0, protects=protects, repetitions=20,
                                rng=gen).budgets
        moved += int(not np.allclose(spent, reservation))
    assert moved > 0  # what it spends is not its reservation: hence "before it sees the data"
    assert "before it sees the data" in LESSON_BUDGETS.question


# ------------------------------------------------------------------ lab links


@pytest.mark.parametrize("lesson", NEW, ids=lambda x: x.name)
def test_the_lab_link_parses_on_the_lab_page_and_carries_the_setting(lesson):
    assert (PAGES / f"{lesson.lab_page}.py").is_file()
    for v in every_setting(lesson):
        url = urlsplit(lesson.lab_link(v))
        assert url.path == lesson.lab_page and not url.path.startswith("/")
        query = parse_qs(url.query, strict_parsing=True)
        for key, (value,) in query.items():
            assert key in state.PARAMS, key
            assert state.PARAMS[key].parse(value) is not None, (key, value)
        if "eps" in v:
            assert state.PARAMS["eps"].parse(query["eps"][0]) == pytest.approx(v["eps"])
        if "w" in v:
            assert state.PARAMS["w"].parse(query["w"][0]) == v["w"]
        if "lm" in query:
            n = state.PARAMS["syn_n"].parse(query["syn_n"][0])
            assert max(state.PARAMS["lm"].parse(query["lm"][0])) < n
    defaults = parse_qs(urlsplit(lesson.lab_link()).query)
    for s in lesson.settings:  # every setting the lab has a control for reaches its URL
        if s.key not in lesson.not_in_lab:
            moved = {s.key: next(o for o in s.options if o != s.default)}
            assert parse_qs(urlsplit(lesson.lab_link(moved)).query) != defaults, s.key


def test_the_w_event_link_opens_the_lessons_landmarks_and_window():
    query = parse_qs(urlsplit(LESSON_W_EVENT.lab_link()).query)
    assert state.PARAMS["lm"].parse(query["lm"][0]) == tuple(regular.window_landmarks(12).tolist())
    assert query["w"] == ["10"] and "w-event" in state.PARAMS["schemes"].parse(query["schemes"][0])
