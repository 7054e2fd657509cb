"""lmdk.lessons: every lesson's answer at its defaults and across its settings against the core computed
independently here, the judging of predictions (Correct / Not quite, ties, number tolerance), settings checked
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
from lmdk.lessons import LESSONS, SEED, Lesson, Reveal, Setting, lesson, sheets, spending


def test_there_are_eight_numbered_lessons_with_the_issues_titles():
    assert len(LESSONS) >= 8
    assert [x.number for x in LESSONS] == list(range(1, len(LESSONS) + 1))
    for x in LESSONS:
        assert x.title.startswith(f"Lesson {x.number} · ")
        assert x.play in {s.key for s in x.settings}
        assert all(s.default in s.options for s in x.settings)
        assert x.choices or x.number_label


# the right answer of every lesson at its default setting (seed fixed: the answer sheet prints these)
DEFAULT_ANSWERS = {1: 100.0, 2: "No", 3: "Skip", 4: 25.0, 5: "more than 5 × εₜ",
                   6: "The attacker does worse (lower AUC)", 7: "The district's total", 8: "Yes"}


@pytest.mark.parametrize("number", sorted(DEFAULT_ANSWERS))
def test_answers_at_the_defaults_and_the_feedback_starts_right(number):
    x = lesson(number)
    reveal = x.reveal()
    assert reveal.answer == DEFAULT_ANSWERS[number]
    right = reveal.answer if x.choices else str(reveal.answer)
    wrong = next(c for c in x.choices if c not in reveal.correct_choices + (reveal.answer,)) if x.choices else "3"
    yes, no = x.check(right), x.check(wrong)
    assert yes.correct and yes.text.startswith("Correct. ")
    assert not no.correct and no.text.startswith("Not quite. ")
    assert yes.text.removeprefix("Correct. ") == no.text.removeprefix("Not quite. ") == reveal.why
    assert reveal.why.count(". ") >= 1 and reveal.numbers  # says why, with the numbers behind it


def test_lesson_1_is_the_ratio_of_the_schemes_noise_scales_at_every_setting():
    x = lesson(1)
    for n, eps in itertools.product(*(s.options for s in x.settings)):
        user, event = schemes.allocate("user", n, [], eps), schemes.allocate("event", n, [], eps)
        assert x.reveal({"n": n, "eps": eps}).answer == pytest.approx(event[0] / user[0]) == pytest.approx(n)


def test_lesson_2_answers_theorem_2_at_every_setting():
    x = lesson(2)
    for k, a, b in itertools.product(*(s.options for s in x.settings)):
        budgets = np.full(10, b)
        landmarks = np.linspace(1, 8, k).round().astype(int)
        budgets[landmarks] = a
        expected = "Yes" if k * a + b <= 1.0 + 1e-9 else "No"
        assert privacy.satisfies_landmark_privacy(budgets, landmarks, 1.0) == (expected == "Yes")
        assert x.reveal({"k": k, "a": a, "b": b}).answer == expected


def test_lesson_4_is_the_ratio_of_the_relations_sensitivities():
    x = lesson(4)
    for high, d, eps in itertools.product(*(s.options for s in x.settings)):
        expected = relation.public_range(0, high).sensitivity / relation.up_to(d, 0, high).sensitivity
        assert expected == pytest.approx(high / d)
        assert x.reveal({"high": high, "d": d, "eps": eps}).answer == pytest.approx(expected)


def test_lesson_5_bins_the_temporal_privacy_loss_computed_by_the_core():
    x = lesson(5)
    for s, eps in itertools.product(*(o.options for o in x.settings)):
        _, _, loss = tpl.temporal_privacy_loss(np.full(50, eps), tpl.transition_matrix(s))
        ratio = loss.max() / eps
        reveal = x.reveal({"s": s, "eps": eps})
        assert reveal.answer == spending.CHOICES_5[0 if ratio < 1.5 else 1 if ratio <= 5 else 2]
        assert reveal.numbers["largest TPL"] == f"{loss.max():,.3g}"
    # stronger correlation (smaller s), larger loss: the lesson's point holds on its own options
    worst = [float(x.reveal({"s": s, "eps": 0.1}).numbers["largest TPL"]) for s in (0.01, 0.1, 1.0, 10.0)]
    assert worst == sorted(worst, reverse=True)


def test_lesson_3_is_the_lowest_mae_measured_with_the_seed_and_reports_the_intervals():
    x, v = lesson(3), {"share": 0.2, "eps": 1.0}
    data, L = spending.series_and_landmarks(0.2)
    gen = np.random.default_rng(SEED)
    errors = {s: metrics.mae(data, schemes.release(data, L, s, 1.0, protects=spending.PROTECTS,
                                                   repetitions=spending.REPETITIONS, rng=gen).values)
              for s in spending.SPENDERS}
    reveal = x.reveal(v)
    assert reveal.answer == spending.SCHEME_NAMES[min(errors, key=lambda s: errors[s].mean)]
    for s, e in errors.items():
        assert reveal.numbers[f"MAE of {spending.SCHEME_NAMES[s]} (kWh)"].startswith(f"{e.mean:.3f} (95 % CI")
    # a clear winner here: its interval is below the others', so only it counts as correct
    assert reveal.correct_choices == ("Skip",)


def test_a_tie_within_noise_accepts_every_tied_scheme_and_says_so():
    reveal = Reveal(answer="Skip", numbers={"x": "1"}, why="They tie.", correct_choices=("Uniform", "Skip"))
    assert reveal.judge("Uniform").correct and reveal.judge("Skip").correct and not reveal.judge("Adaptive").correct
    assert reveal.answer_text == "Uniform or Skip"
    # the lesson itself: when intervals overlap, the feedback names the tie (searched over the lesson's settings)
    x = lesson(3)
    for share, eps in itertools.product(*(s.options for s in x.settings)):
        r = x.reveal({"share": share, "eps": eps})
        assert r.answer in r.correct_choices
        assert ("tie within the noise" in r.why) == (len(r.correct_choices) > 1)


def test_lessons_6_to_8_answers_follow_their_numbers():
    plain = lesson(6).reveal({"scheme": "uniform", "eps": 1.0})
    assert plain.answer == spending.CHOICES_6[1]  # Uniform's releases do not mark the landmarks: nothing to hide
    hidden = lesson(6).reveal({"scheme": "skip", "eps": 2.0})
    assert float(hidden.numbers["AUC with dummies"].split()[0]) < float(hidden.numbers["AUC without dummies"]
                                                                       .split()[0])
    for users in (10, 100, 1000):
        r = lesson(7).reveal({"users": users, "eps": 1.0})
        assert r.answer == "The district's total" and r.numbers["Δ, one home's readings (kWh)"] == "25"
    cuts = {a: lesson(8).reveal({"alpha": a, "eps": 1.0}) for a in (0.5, 5.0)}
    for r in cuts.values():
        assert (r.answer == "Yes") == (not r.numbers["steps where α was cut"].startswith("0 "))
        assert float(r.numbers["largest leakage of the event"]) <= 1.0 + 1e-9


def test_number_predictions_count_within_ten_percent():
    x = lesson(4)
    assert x.check("25").correct and x.check(23).correct and x.check("27.4").correct
    assert not x.check(22).correct and not x.check("lots").correct and not x.check(None).correct


def test_settings_are_checked_against_their_options():
    x = lesson(3)
    assert x.values({"share": "0.5", "eps": "2"}) == {"share": 0.5, "eps": 2.0}
    with pytest.raises(ParameterError, match="Landmark share"):
        x.values({"share": 0.25})
    with pytest.raises(ParameterError, match="lesson must be a number from 1 to 8"):
        lesson("nine")
    with pytest.raises(ParameterError):
        lesson(0)


@pytest.mark.parametrize("number", range(1, 9))
def test_the_lab_link_carries_the_lessons_setting(number):
    x = lesson(number)
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
    x = Lesson(number=1, name=evil, setting=evil + " {v}", question=evil, settings=(Setting("v", evil, (1,), 1),),
               play="v", reveal_fn=lambda v: Reveal(answer=evil, numbers={evil: evil}, why=evil),
               lab_page="p", lab_title=evil, lab_query_fn=lambda v: {}, takeaway=evil, choices=(evil, "b"))
    for html in (sheets.worksheet([x]), sheets.answer_sheet([x])):
        assert "<script>" not in html and "&lt;script&gt;" in html
