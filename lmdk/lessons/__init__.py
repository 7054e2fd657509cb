"""Lessons for a class (issue 38): predict, then see — each reveal computed by the core at the student's setting.

* :mod:`~lmdk.lessons.base`: ``Lesson``, ``Setting``, ``Reveal`` (answer, numbers, why) and ``Feedback``;
* :mod:`~lmdk.lessons.budgets`: lessons 1, 2, 4 (event vs user level, Theorem 2, the honest Δ);
* :mod:`~lmdk.lessons.spending`: lessons 3, 5, 6 (schemes' MAE, temporal privacy loss, dummy landmarks);
* :mod:`~lmdk.lessons.places`: lessons 7, 8 (aggregates, PriSTE);
* :mod:`~lmdk.lessons.sheets`: the printable worksheet and answer sheet (HTML).
"""
from __future__ import annotations

from lmdk.errors import ParameterError
from lmdk.lessons.base import SEED, Feedback, Lesson, Reveal, Setting
from lmdk.lessons.budgets import LESSON_1, LESSON_2, LESSON_4
from lmdk.lessons.places import LESSON_7, LESSON_8
from lmdk.lessons.spending import LESSON_3, LESSON_5, LESSON_6

LESSONS: tuple[Lesson, ...] = (LESSON_1, LESSON_2, LESSON_3, LESSON_4, LESSON_5, LESSON_6, LESSON_7, LESSON_8)


def lesson(number) -> Lesson:
    """Lesson ``number`` (1-based), or a ParameterError naming the lessons there are."""
    try:
        n = int(number)
    except (TypeError, ValueError):
        n = 0
    if not 1 <= n <= len(LESSONS):
        raise ParameterError(f"lesson must be a number from 1 to {len(LESSONS)}, got {number!r}")
    return LESSONS[n - 1]


__all__ = ["LESSONS", "SEED", "Feedback", "Lesson", "Reveal", "Setting", "lesson"]
