"""AppTest: the Lessons page — ?lesson=N opens lesson N; in every lesson a wrong prediction gets "Not quite", the
right one "Correct", the numbers shown are the core's (lmdk.lessons at the same setting), the play control
recomputes them, the lab link and the takeaway appear, and the page lists the lessons checked. One app session
walks through every lesson (each test continues it)."""
from __future__ import annotations

import re
from functools import partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.lessons import LESSONS, lesson

PAGE = "pages/lessons.py"
open_page = partial(app_support.open_page, PAGE, 120)


def plain(value: str) -> str:
    """Markdown as a reader sees it (backslash escapes removed)."""
    return re.sub(r"\\(.)", r"\1", value)


def page_text(at) -> str:
    """Every markdown, header, alert and caption of the main area, unescaped."""
    parts = [m.value for m in at.main.markdown] + [h.value for h in at.main.header]
    parts += [str(e.value) for e in list(at.success) + list(at.warning) + list(at.info) + list(at.caption)]
    return plain("\n".join(parts))


def predict(at, x, value):
    """Set lesson x's prediction widget."""
    widget = at.radio(key=f"lessons_{x.number}_prediction") if x.choices else \
        at.number_input(key=f"lessons_{x.number}_prediction")
    widget.set_value(value).run()


def check(at, x) -> str:
    """Press Check; the feedback shown (success or warning)."""
    at.button(key=f"lessons_{x.number}_check").click().run()
    assert not at.exception, at.exception
    shown = [plain(str(e.value)) for e in list(at.success) + list(at.warning)]
    assert len(shown) == 1, shown
    return shown[0]


@pytest.fixture(scope="module")
def session():
    """One session opened at ?lesson=6 (the schemes' error)."""
    return open_page(lesson="6")


def test_the_link_opens_its_lesson_and_nothing_is_checked_yet(session):
    at = session
    assert [h.value for h in at.main.header] == [LESSONS[5].title] and LESSONS[5].name == "Spending the budget"
    assert at.selectbox(key="lessons_pick").value == 6
    assert at.query_params["lesson"] == ["6"] or at.query_params["lesson"] == "6"
    assert f"Lessons checked: none of {len(LESSONS)} yet." in page_text(at)
    assert at.button(key="lessons_6_check").disabled  # commit to a prediction first
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Worksheet (HTML)", "Answer sheet (HTML)"]


def reading_order(node) -> list:
    """The main area's blocks and elements top first (depth first)."""
    kids = getattr(node, "children", None) or {}
    return [node] + [e for key in sorted(kids) for e in reading_order(kids[key])]


def test_what_am_i_looking_at_sits_above_the_lesson(session):
    """Issue 35: the explanation was the page's last element, under the whole lesson."""
    order = [type(e).__name__ + ":" + str(getattr(e, "label", getattr(e, "value", ""))) for e in
             reading_order(session.main)]
    explain = next(i for i, e in enumerate(order) if e == "Expander:What am I looking at?")
    lesson = next(i for i, e in enumerate(order) if e.startswith("Selectbox:Lesson"))
    assert explain < lesson, order[:12]


@pytest.mark.parametrize("number", range(1, len(LESSONS) + 1))
def test_each_lesson_wrong_then_right_with_the_cores_numbers(session, number):
    at, x = session, lesson(number)
    at.selectbox(key="lessons_pick").set_value(number).run()
    assert not at.exception, at.exception
    assert [h.value for h in at.main.header] == [x.title]
    assert plain(at.main.markdown[1].value) == x.setting_text() or x.setting_text() in page_text(at)
    reveal = x.reveal()  # the page opens at the lesson's defaults
    if x.choices:
        wrong = next(c for c in x.choices if c not in reveal.correct_choices + (reveal.answer,))
        right = reveal.answer
    else:
        wrong, right = float(reveal.answer) * 3 + 1, float(reveal.answer)
    predict(at, x, wrong)
    assert check(at, x) == "Not quite. " + reveal.why
    predict(at, x, right)
    assert check(at, x) == "Correct. " + reveal.why
    shown = page_text(at)
    for label, value in reveal.numbers.items():
        assert f"| {label} | {value} |" in shown, (label, value)
    assert "Open this in the lab" in shown and x.takeaway in shown
    link = re.search(r"\[Open this in the lab\]\(([^)]*)\)", shown).group(1)
    assert link == x.lab_link()
    # the play control recomputes the answer with the core at the new value
    played = next(s for s in x.settings if s.key == x.play)
    other = next(o for o in played.options if o != played.default)
    at.select_slider(key=f"lessons_{number}_play").set_value(other).run()
    moved = x.reveal({x.play: other})
    shown = page_text(at)
    assert f", the answer is **{moved.answer_text}**." in shown
    for label, value in moved.numbers.items():
        assert f"| {label} | {value} |" in shown, (label, value)
    assert f"Lessons checked: {number} of {len(LESSONS)}" in shown and at.selectbox(key="lessons_pick").value == number


def test_a_changed_setting_is_checked_at_the_students_own_setting(session):
    at, x = session, lesson(6)
    at.selectbox(key="lessons_pick").set_value(6).run()
    at.select_slider(key="lessons_6_share").set_value(0.7).run()
    assert "press Check again" in page_text(at)
    reveal = x.reveal({"share": 0.7})
    predict(at, x, reveal.answer)
    assert check(at, x).startswith("Correct. ") and reveal.why in page_text(at)
    assert "press Check again" not in page_text(at)
    assert "syn_frac=0.7" in page_text(at)  # the lab link carries the student's setting


def test_the_picker_marks_the_checked_lessons(session):
    options = session.selectbox(key="lessons_pick").options
    assert all(o.endswith("— checked") for o in options)


def test_a_bad_lesson_number_says_so_and_opens_lesson_1():
    at = open_page(lesson=str(len(LESSONS) + 1))
    assert f"lesson must be a number from 1 to {len(LESSONS)}" in plain(" ".join(str(e.value) for e in at.error))
    assert [h.value for h in at.main.header] == [LESSONS[0].title]
