"""The lecturer's summary: one CSV row per lesson asked with the room's counts or quartiles, the computed answer and
the share correct; a printable HTML page with every text escaped; both only with the lecturer's token."""
from __future__ import annotations

import csv
import dataclasses
import io

import pytest

import lmdk.lessons
from lmdk.classroom import new_student_id, summary_csv, summary_html
from lmdk.errors import ClassAccessError
from lmdk.lessons import Reveal

FORMULA = '=HYPERLINK("http://x")'


def rows(data: bytes) -> list[dict]:
    """The CSV's rows."""
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def test_the_csv_has_a_row_per_lesson_asked_with_counts_quartiles_answer_and_share(store, choice_lesson,
                                                                                    number_lesson):
    code, token = store.start(choice_lesson.number)
    choices = choice_lesson.choices
    picks = [choices[0]] * 3 + [choices[-1]] * 2
    for pick in picks:
        store.answer(code, new_student_id(), choice_lesson.number, pick)
    store.move(code, token, number_lesson.number)
    for value in [1.0, 2.0, 3.0, 4.0, 5.0]:
        store.answer(code, new_student_id(), number_lesson.number, value)
    table = rows(summary_csv(store, code, token))
    assert [int(r["lesson"]) for r in table] == [choice_lesson.number, number_lesson.number]
    first, second = table
    reveal = choice_lesson.reveal()
    right = sum(1 for pick in picks if reveal.judge(pick).correct)
    assert first["answered"] == "5" and first["title"] == choice_lesson.title
    assert first["counts"] == "; ".join(f"{c}: {picks.count(c)}" for c in choices)
    assert first["answer"] == reveal.answer_text and float(first["share_correct"]) == pytest.approx(right / 5)
    assert first["q1"] == first["median"] == first["q3"] == ""
    assert (second["q1"], second["median"], second["q3"]) == ("2", "3", "4") and second["counts"] == ""
    answer = number_lesson.reveal()
    right = sum(1 for v in [1, 2, 3, 4, 5] if answer.judge(v).correct)
    assert second["answer"] == answer.answer_text and float(second["share_correct"]) == pytest.approx(right / 5)
    for label in (s.label for s in number_lesson.settings):
        assert label in second["setting"]


def test_the_summary_needs_the_lecturers_token(store, choice_lesson):
    code, token = store.start(choice_lesson.number)
    other_code, other_token = store.start(choice_lesson.number)
    for make in (summary_csv, summary_html):
        with pytest.raises(ClassAccessError):
            make(store, code, other_token)
        with pytest.raises(ClassAccessError):
            make(store, code, "")


def test_the_html_page_is_self_contained_and_escapes_every_text(store, choice_lesson, number_lesson, monkeypatch):
    evil = "<script>alert(1)</script>"
    hostile = dataclasses.replace(
        choice_lesson, name=f"Cookies {evil}", choices=(FORMULA, f"<b>{evil}</b>"),
        question="Which? <img src=x onerror=alert(2)>",
        reveal_fn=lambda v: Reveal(answer=FORMULA, numbers={}, why=evil))
    lessons = tuple(hostile if found.number == choice_lesson.number else found for found in lmdk.lessons.LESSONS)
    monkeypatch.setattr(lmdk.lessons, "LESSONS", lessons)
    code, token = store.start(choice_lesson.number)
    for pick in hostile.choices:
        store.answer(code, new_student_id(), choice_lesson.number, pick)
    store.move(code, token, number_lesson.number)
    for value in [0.5, 7.0]:
        store.answer(code, new_student_id(), number_lesson.number, value)
    page = summary_html(store, code, token).decode("utf-8")
    assert "<script" not in page and "<img" not in page and "<b>" not in page and "onerror=alert" not in page.replace(
        "onerror=alert(2)&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "=HYPERLINK(&quot;http://x&quot;)" in page
    assert "src=" not in page.replace("src=x", "") and "http://" not in page.replace(
        "http://www.w3.org/2000/svg", "").replace("&quot;http://x&quot;", "")  # no external resource
    assert page.count("<section>") == 2 and "<svg" in page and f"Class {code}" in page
    table = rows(summary_csv(store, code, token))
    assert table[0]["counts"].startswith("'" + FORMULA) and table[0]["answer"] == "'" + FORMULA  # never run
    for row in table:
        for value in row.values():
            assert not value.startswith(("=", "+", "@")) or value.lstrip("+-").replace(".", "").isdigit()
