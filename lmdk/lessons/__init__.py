"""Lessons for a class (issues 38, 56): predict, then see — each reveal computed by the core at the student's setting.

A lesson's number is its place in :data:`LESSONS` (:func:`~lmdk.lessons.base.numbered`): reorder the tuple, never
renumber by hand.

* :mod:`~lmdk.lessons.base`: ``Lesson``, ``Setting``, ``Reveal`` (answer, numbers, why), ``Feedback``, ``numbered``;
* :mod:`~lmdk.lessons.budgets`: event vs user level, what ε protects (the honest Δ), Theorem 2;
* :mod:`~lmdk.lessons.meaning`: what ε means, measure–observe–remeasure;
* :mod:`~lmdk.lessons.regular`: the schemes' budgets, regular events one at a time, w-event vs landmark privacy;
* :mod:`~lmdk.lessons.spending`: the schemes' error, temporal privacy loss, dummy landmarks;
* :mod:`~lmdk.lessons.places`: aggregates, PriSTE;
* :mod:`~lmdk.lessons.sheets`: the printable worksheet and answer sheet (HTML).
"""
from __future__ import annotations

from lmdk.errors import ParameterError
from lmdk.lessons.base import SEED, Feedback, Lesson, Reveal, Setting, numbered
from lmdk.lessons.budgets import LESSON_DELTA, LESSON_LEVELS, LESSON_THEOREM2
from lmdk.lessons.meaning import LESSON_MEANING, LESSON_REMEASURE
from lmdk.lessons.places import LESSON_AGGREGATES, LESSON_PRISTE
from lmdk.lessons.regular import LESSON_BUDGETS, LESSON_REGULAR, LESSON_W_EVENT
from lmdk.lessons.spending import LESSON_DUMMIES, LESSON_SCHEMES, LESSON_TPL

LESSONS: tuple[Lesson, ...] = numbered((
    LESSON_LEVELS, LESSON_DELTA, LESSON_MEANING, LESSON_THEOREM2, LESSON_BUDGETS, LESSON_SCHEMES, LESSON_REGULAR,
    LESSON_W_EVENT, LESSON_TPL, LESSON_DUMMIES, LESSON_REMEASURE, LESSON_AGGREGATES, LESSON_PRISTE,
))


def lesson(number) -> Lesson:
    """Lesson ``number`` (1-based), or a ParameterError naming the lessons there are."""
    try:
        n = int(number)
    except (TypeError, ValueError):
        n = 0
    if not 1 <= n <= len(LESSONS):
        raise ParameterError(f"lesson must be a number from 1 to {len(LESSONS)}, got {number!r}")
    return LESSONS[n - 1]


__all__ = ["LESSONS", "SEED", "Feedback", "Lesson", "Reveal", "Setting", "lesson", "numbered"]
