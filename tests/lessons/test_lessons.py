"""lmdk.lessons: numbered by their place in the issue's order; every lesson's answer at its defaults and across its
settings against the core computed independently here; every measured answer holds for five base seeds at every
setting (issue 56); the judging of predictions (Correct / Not quite, ties, number tolerance), settings checked
against their options, lab links that carry the setting, and the worksheet / answer sheet HTML (every question,
one lesson per page, escaped)."""
from __future__ import annotations

import itertools
from html import escape
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from lmdk import metrics, privacy, relation, schemes, tpl
from lmdk.errors import ParameterError
from lmdk.lessons import LESSONS, SEED, Lesson, Reveal, Setting, lesson, numbered, places, sheets, spending
from lmdk.lessons.base import consistent, seed_streams, share_interval

# the issue's order (issue 56): each lesson's place in LESSONS is its number
ORDER = ("One event or the whole series", "What ε protects", "What ε means", "Landmarks and Theorem 2",
         "The schemes' budgets", "Spending the budget", "Regular events are protected one at a time",
         "w-event vs landmark privacy", "When events are correlated", "Hiding where the landmarks are",
         "Measure, observe, remeasure", "One home or a district", "Places and times")


def by_name(name: str) -> Lesson:
    """The lesson called ``name`` (the tests name lessons, so reordering LESSONS never breaks them)."""
    return next(x for x in LESSONS if x.name == name)


def test_the_lessons_are_numbered_by_their_place_in_the_issues_order():
    assert tuple(x.name for x in LESSONS) == ORDER
    assert [x.number for x in LESSONS] == list(range(1, len(LESSONS) + 1))
    for x in LESSONS:
        assert lesson(x.number) is x and x.title.startswith(f"Lesson {x.number} · ")
        assert x.play in {s.key for s in x.settings}
        assert all(s.default in s.options for s in x.settings)
        assert x.choices or x.number_label
    # numbering comes from the order alone: a reordered tuple renumbers itself
    swapped = numbered((LESSONS[1], LESSONS[0]))
    assert [(x.number, x.name) for x in swapped] == [(1, ORDER[1]), (2, ORDER[0])]


def test_the_sections_are_the_papers():
    """Theorem 2 is §3.1, the schemes §3.2, PriSTE's Algorithm 2 §4.3 (papers 000 and 001)."""
    assert by_name("Landmarks and Theorem 2").section.startswith("§3.1")
    assert by_name("Spending the budget").section.startswith("§3.2")
    assert by_name("Places and times").section == "PriSTE §4.3, Algorithm 2"
    assert by_name("One event or the whole series").section == "§2.2"
    assert by_name("When events are correlated").section.startswith("§2.3")
    assert by_name("Hiding where the landmarks are").section.startswith("§3.4")


# the right answer of the measured and closed-form lessons at their defaults (the answer sheet prints these)
DEFAULT_ANSWERS = {"One event or the whole series": 100.0, "What ε protects": 25.0, "Landmarks and Theorem 2": "No",
                   "Spending the budget": "Skip", "When events are correlated": "more than 5 × εₜ",
                   "Hiding where the landmarks are": "The attacker does worse (lower AUC)",
                   "One home or a district": "The district's total",
                   "Places and times": "In some releases (5–95 %)"}


@pytest.mark.parametrize("name", ORDER)
def test_answers_at_the_defaults_and_the_feedback_starts_right(name):
    x = by_name(name)
    reveal = x.reveal()
    if name in DEFAULT_ANSWERS:
        assert reveal.answer == DEFAULT_ANSWERS[name]
    right = reveal.answer if x.choices else str(reveal.answer)
    wrong = next(c for c in x.choices if c not in reveal.correct_choices + (reveal.answer,)) if x.choices else "3"
    yes, no = x.check(right), x.check(wrong)
    assert yes.correct and yes.text.startswith("Correct. ")
    assert not no.correct and no.text.startswith("Not quite. ")
    assert yes.text.removeprefix("Correct. ") == no.text.removeprefix("Not quite. ") == reveal.why
    assert reveal.why.count(". ") >= 1 and reveal.numbers  # says why, with the numbers behind it


OTHER_SEEDS = (1, 2, 3, 4)  # with SEED, five base seeds


def _grid(x: Lesson) -> list[dict]:
    """Every setting of ``x``."""
    keys = [s.key for s in x.settings]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(s.options for s in x.settings))]


def _around_defaults(x: Lesson) -> list[dict]:
    """Every value of each setting with the others at their defaults (a representative grid of a slow reveal)."""
    out = [x.defaults()]
    for s in x.settings:
        out += [x.defaults() | {s.key: o} for o in s.options if o != s.default]
    return out


FULL_GRID = {"Spending the budget"}  # fast enough for every setting × five seeds; the others: around the defaults
PLAY_ONLY = {"Places and times"}  # ~0.4 s a reveal (20 PriSTE releases): its play control α at the default ε


def _test_grid(x: Lesson) -> list[dict]:
    """The settings the five-seed test visits for ``x``."""
    if x.name in FULL_GRID:
        return _grid(x)
    if x.name in PLAY_ONLY:
        played = next(s for s in x.settings if s.key == x.play)
        return [x.defaults() | {played.key: o} for o in played.options]
    return _around_defaults(x)


def _holds(base: Reveal, other: Reveal) -> bool:
    """``base``'s answer is right under ``other`` too (a choice it accepts, a number within the tolerance)."""
    if isinstance(base.answer, str):
        return base.answer in (other.correct_choices or (other.answer,))
    return abs(float(base.answer) - float(other.answer)) <= 0.1 * abs(float(other.answer))


@pytest.mark.parametrize("name", [x.name for x in LESSONS if x.seeded])
def test_a_measured_answer_holds_for_five_seeds_at_every_setting(name):
    """Issue 56: an answer decided over many seeds; the default seed's answer is right under four other base seeds
    at every setting (differences within the 95 % intervals are ties, accepted by correct_choices)."""
    x = by_name(name)
    for v in _test_grid(x):
        base = x.reveal(v)
        assert base.answer in (base.correct_choices or (base.answer,))
        for seed in OTHER_SEEDS:
            other = x.reveal(v, seed=seed)
            assert _holds(base, other), (v, seed, base.answer, other.correct_choices or other.answer)


def test_the_seed_moves_a_measured_reveal_and_leaves_an_exact_one():
    measured, exact = by_name("Spending the budget"), by_name("One event or the whole series")
    assert measured.reveal(seed=1).numbers != measured.reveal().numbers  # a new draw: new numbers, same answer
    assert measured.reveal(seed=1).answer == measured.reveal().answer
    assert exact.reveal(seed=1) == exact.reveal()  # exact: no seed to move


def test_event_vs_user_level_is_the_ratio_of_the_noise_scales_and_says_the_clamped_error():
    x = by_name("One event or the whole series")
    for n, eps in itertools.product(*(s.options for s in x.settings)):
        user, event = schemes.allocate("user", n, [], eps), schemes.allocate("event", n, [], eps)
        reveal = x.reveal({"n": n, "eps": eps})
        assert reveal.answer == pytest.approx(event[0] / user[0]) == pytest.approx(n)
        # the error a reader sees is clamped to the range 0–1 kWh: far less than n times more (issue 56: 0.38 vs 0.50)
        err = [float(metrics.laplace_expected_error(np.array([0.5]), 1.0 / e, (0.0, 1.0))[0]) for e in (event[0],
                                                                                                    user[0])]
        assert f"{err[0]:.3g} kWh on average at event level and {err[1]:.3g} kWh at user level" in reveal.why
        assert err[1] <= 0.5 and err[1] / err[0] < 2 <= n
    assert "1.5 kWh" not in x.reveal({"n": 100, "eps": 1.0}).why
    assert "0.393 kWh on average at event level and 0.499 kWh at user level" in x.reveal({"n": 100, "eps": 1.0}).why


def test_theorem_2_at_every_setting():
    x = by_name("Landmarks and Theorem 2")
    for k, a, b in itertools.product(*(s.options for s in x.settings)):
        budgets = np.full(10, b)
        landmarks = np.linspace(1, 8, k).round().astype(int)
        budgets[landmarks] = a
        expected = "Yes" if k * a + b <= 1.0 + 1e-9 else "No"
        assert privacy.satisfies_landmark_privacy(budgets, landmarks, 1.0) == (expected == "Yes")
        assert x.reveal({"k": k, "a": a, "b": b}).answer == expected


def test_what_eps_protects_is_the_ratio_of_the_sensitivities_and_says_what_stays_hidden():
    x = by_name("What ε protects")
    for high, d, eps in itertools.product(*(s.options for s in x.settings)):
        expected = relation.public_range(0, high).sensitivity / relation.up_to(d, 0, high).sensitivity
        assert expected == pytest.approx(high / min(d, high))
        reveal = x.reveal({"high": high, "d": d, "eps": eps})
        assert reveal.answer == pytest.approx(expected)
        if d >= high:  # issue 56: at d = high the change covers the range, so 0 vs high is hidden at ε
            assert f"hidden at ε = {eps:g} either way" in reveal.why and "only at" not in reveal.why
        else:  # group privacy: 0 vs high is high/d protected changes apart
            assert f"hidden only at ε × {high:g}/{d:g} = {eps * high / d:.3g}" in reveal.why


def test_the_temporal_privacy_loss_bins_the_cores_loss():
    x = by_name("When events are correlated")
    for s, eps in itertools.product(*(o.options for o in x.settings)):
        _, _, loss = tpl.temporal_privacy_loss(np.full(50, eps), tpl.transition_matrix(s))
        ratio = loss.max() / eps
        reveal = x.reveal({"s": s, "eps": eps})
        assert reveal.answer == spending.CHOICES_5[0 if ratio < 1.5 else 1 if ratio <= 5 else 2]
        assert reveal.numbers["largest TPL"] == f"{loss.max():,.3g}"
    # stronger correlation (smaller s), larger loss: the lesson's point holds on its own options
    worst = [float(x.reveal({"s": s, "eps": 0.1}).numbers["largest TPL"]) for s in (0.01, 0.1, 1.0, 10.0)]
    assert worst == sorted(worst, reverse=True)


def test_the_schemes_error_is_measured_over_many_series_and_says_what_skip_does():
    x, v = by_name("Spending the budget"), {"share": 0.2, "eps": 1.0}
    per_rep = {s: [] for s in spending.SPENDERS}
    for gen in seed_streams(SEED, spending.SERIES):  # independently: each seed its own series, landmarks, noise
        data, L = spending.series_and_landmarks(0.2, gen)
        for s in spending.SPENDERS:
            released = schemes.release(data, L, s, 1.0, protects=spending.PROTECTS,
                                       repetitions=spending.REPETITIONS // spending.SERIES, rng=gen)
            per_rep[s].append(np.abs(released.values - data).mean(axis=1))
    means = {s: float(np.concatenate(p).mean()) for s, p in per_rep.items()}
    reveal = x.reveal(v)
    assert reveal.answer == spending.SCHEME_NAMES[min(means, key=means.get)] == "Skip"
    for s, m in means.items():
        assert reveal.numbers[f"MAE of {spending.SCHEME_NAMES[s]} (kWh)"].startswith(f"{m:.3f} (95 % CI")
    assert reveal.correct_choices == ("Skip",)  # a clear winner: its interval is below the others'
    # issue 56: Skip spends the whole ε at regular events and 0 at landmarks, and the text says so
    assert schemes.allocate("skip", 6, [1, 4], 1.0).tolist() == [1, 0, 1, 1, 0, 1]
    assert "Skip spends the whole ε at every regular event and nothing at a landmark" in reveal.why
    assert "Skip wins at every share and ε" in reveal.why and "Skip" in x.takeaway and "depends" not in x.takeaway


def test_skip_wins_at_every_setting_as_the_text_says():
    x = by_name("Spending the budget")
    for v in _grid(x):
        assert x.reveal(v).correct_choices == ("Skip",), v


def test_a_tie_within_noise_accepts_every_tied_choice_and_says_so():
    reveal = Reveal(answer="Skip", numbers={"x": "1"}, why="They tie.", correct_choices=("Uniform", "Skip"))
    assert reveal.judge("Uniform").correct and reveal.judge("Skip").correct and not reveal.judge("Adaptive").correct
    assert reveal.answer_text == "Uniform or Skip"
    bands = {"low": (0.0, 0.1), "mid": (0.1, 0.9), "high": (0.9, 1.0)}
    assert consistent(bands, 0.02, 0.08) == ("low",) and consistent(bands, 0.05, 0.3) == ("low", "mid")
    assert share_interval(0, 20)[0] == 0.0 and 0.1 < share_interval(0, 20)[1] < 0.2
    low, high = share_interval(10, 20)
    assert low < 0.5 < high and high - low < 0.45


def test_dummies_are_decided_over_many_seeds_and_do_not_overclaim():
    x = by_name("Hiding where the landmarks are")
    for eps in (1.0, 2.0):  # issue 56: Adaptive's "better" was one seed's artefact
        r = x.reveal({"scheme": "adaptive", "eps": eps})
        assert r.answer == spending.CHOICES_6[1] and spending.CHOICES_6[2] not in r.correct_choices
    plain = x.reveal({"scheme": "uniform", "eps": 1.0})
    assert plain.answer == spending.CHOICES_6[1]  # Uniform's releases do not mark the landmarks: nothing to hide
    hidden = x.reveal({"scheme": "skip", "eps": 2.0})
    auc = float(hidden.numbers["AUC with dummies"].split()[0])
    assert hidden.correct_choices == (spending.CHOICES_6[0],)
    assert 0.6 < auc < float(hidden.numbers["AUC without dummies"].split()[0])  # lower, but far from guessing
    assert "hide among" not in hidden.why and "every real landmark stays in L′" in hidden.why
    assert float(hidden.numbers["events marked as landmarks (L′ ⊇ L, |L| = 20)"]) > 20


def test_the_aggregate_says_what_is_true():
    x = by_name("One home or a district")
    for users in (10, 100, 1000):
        r = x.reveal({"users": users, "eps": 1.0})
        assert r.answer == "The district's total" and r.numbers["Δ, one home's readings (kWh)"] == "25"
        alone, together = (float(r.numbers[k].replace(",", "")) for k in ("one home: MAE (kWh)",
                                                                          f"total of {users:,}: MAE (kWh)"))
        assert together > alone  # issue 56: not "the same scale" of error — the home's release is clamped
        assert "more accurate, not more private" in r.why and "hide each" not in r.why
    default = x.reveal()
    assert default.numbers["total of 100: MAE ÷ mean total"].endswith("%")
    assert "still larger than the total itself" in default.why  # ~180 %: not "little accuracy"
    assert "little accuracy" not in x.takeaway


def test_priste_counts_the_releases_that_cut_alpha():
    x = by_name("Places and times")
    for alpha in (0.5, 5.0):
        r = x.reveal({"alpha": alpha, "eps": 1.0})
        hit = int(r.numbers["releases where α was cut"].split()[0])
        assert r.answer == places.CHOICES_8[2 if hit <= 1 else 0 if hit >= 19 else 1]
        assert float(r.numbers["smallest α used (per km)"]) < alpha or hit == 0
    assert x.reveal({"alpha": 5.0, "eps": 0.5}).answer == places.CHOICES_8[0]  # a large α and a small ε: always


def test_number_predictions_count_within_ten_percent():
    x = by_name("What ε protects")
    assert x.check("25").correct and x.check(23).correct and x.check("27.4").correct
    assert not x.check(22).correct and not x.check("lots").correct and not x.check(None).correct


def test_settings_are_checked_against_their_options():
    x = by_name("Spending the budget")
    assert x.values({"share": "0.5", "eps": "2"}) == {"share": 0.5, "eps": 2.0}
    with pytest.raises(ParameterError, match="Landmark share"):
        x.values({"share": 0.25})
    with pytest.raises(ParameterError, match=f"lesson must be a number from 1 to {len(LESSONS)}"):
        lesson("nine")
    with pytest.raises(ParameterError):
        lesson(0)
    with pytest.raises(ParameterError):
        lesson(len(LESSONS) + 1)


@pytest.mark.parametrize("name", ORDER)
def test_the_lab_link_carries_the_lessons_setting(name):
    x = by_name(name)
    url = urlsplit(x.lab_link())
    assert url.path == x.lab_page and not url.path.startswith("/")  # relative: works behind a path prefix
    assert x.lab_page in {"schemes_utility", "temporal_loss", "adversary_lab", "spatiotemporal_events"}
    for s in x.settings:  # every setting the lab has a control for reaches its URL
        if s.key in x.not_in_lab:
            continue
        moved = {s.key: next(o for o in s.options if o != s.default)}
        assert parse_qs(urlsplit(x.lab_link(moved)).query) != parse_qs(url.query), s.key
    eps = next((s for s in x.settings if s.key == "eps"), None)
    if eps is not None:
        assert parse_qs(url.query).get("eps", parse_qs(url.query).get("st_eps")) == [f"{eps.default:g}"]


def test_the_worksheet_has_every_question_one_lesson_per_page_and_no_answers():
    html = sheets.worksheet(LESSONS)
    assert html.startswith("<!DOCTYPE html>") and 'lang="en"' in html
    assert html.count('<section class="lesson"') == len(LESSONS)
    assert "break-after: page" in html and "page-break-after: always" in html
    for x in LESSONS:
        assert escape(x.title) in html and escape(x.question_text()) in html and escape(x.setting_text()) in html
        for choice in x.choices:
            assert escape(choice) in html
        assert escape(x.reveal().why) not in html and escape(x.takeaway) not in html


def test_the_answer_sheet_has_every_answer_and_its_numbers_and_every_copy_agrees():
    html = sheets.answer_sheet(LESSONS)
    assert html == sheets.answer_sheet(LESSONS)  # fixed seed
    assert str(SEED) in html and html.count('<section class="lesson"') == len(LESSONS)
    for x in LESSONS:
        reveal = x.reveal()
        assert escape(x.question_text()) in html and escape(reveal.answer_text) in html
        assert escape(reveal.why) in html and escape(x.takeaway) in html
        for label, value in reveal.numbers.items():
            assert f"{escape(label)}</th><td>{escape(value)}" in html


def test_every_text_of_the_sheets_is_escaped():
    evil = "<script>alert('x')</script> & \"q\""
    x = Lesson(name=evil, setting=evil + " {v}", question=evil, settings=(Setting("v", evil, (1,), 1),),
               play="v", reveal_fn=lambda v: Reveal(answer=evil, numbers={evil: evil}, why=evil),
               lab_page="p", lab_title=evil, lab_query_fn=lambda v: {}, takeaway=evil, choices=(evil, "b"))
    for html in (sheets.worksheet([x]), sheets.answer_sheet([x])):
        assert "<script>" not in html and "&lt;script&gt;" in html
