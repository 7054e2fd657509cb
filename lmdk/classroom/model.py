"""What a live class is (its state, a lesson's tally, the store's interface) and the rules an answer obeys."""
from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from lmdk.errors import ParameterError
from lmdk.lessons import Lesson, lesson

DEFAULT_TTL_HOURS = 24.0
"""How long a class lives (and its answers are kept) unless ``ttl_hours`` or ``LMDK_CLASS_TTL_HOURS`` says."""
MAX_TTL_HOURS = 24.0 * 7
"""The longest a class may live: answers are kept for a lesson, not archived."""
TTL_ENV = "LMDK_CLASS_TTL_HOURS"
MAX_NUMBER_TEXT = 40
"""Longest text read as a number prediction."""


@dataclass(frozen=True)
class ClassState:
    """Where a class is: its lesson and setting, whether the answer is revealed, a version every write increases."""

    code: str
    lesson: int
    setting: dict
    revealed: bool
    version: int
    expires_at: float


@dataclass(frozen=True)
class Tally:
    """The room's answers to one lesson: how many answered, counts per choice or the numbers (sorted)."""

    lesson: int
    answered: int
    counts: dict[str, int]
    values: tuple[float, ...]


@dataclass(frozen=True)
class Asked:
    """A lesson a class was asked, at its setting, in the order asked (the summary's rows)."""

    lesson: int
    setting: dict


class ClassStore(Protocol):
    """A store of live classes (SQLite or PostgreSQL, the same behaviour)."""

    name: str

    def start(self, lesson: int, setting: dict | None = None,
              ttl_hours: float | None = None) -> tuple[str, str]:
        """A new class at ``lesson``: (code, lecturer token)."""
        ...

    def state(self, code: str) -> ClassState:
        """The class's state (one indexed read)."""
        ...

    def answer(self, code: str, student: str, lesson: int, prediction: str | float) -> None:
        """Record the student's answer to the current lesson (the last counts)."""
        ...

    def my_answer(self, code: str, student: str, lesson: int) -> str | float | None:
        """The student's answer to ``lesson`` (None: none)."""
        ...

    def tally(self, code: str, lesson: int | None = None) -> Tally:
        """The answers to ``lesson`` (None: the current one)."""
        ...

    def reveal(self, code: str, token: str) -> ClassState:
        """Reveal the current lesson's answer (the lecturer only)."""
        ...

    def move(self, code: str, token: str, lesson: int, setting: dict | None = None) -> ClassState:
        """Move the class to ``lesson`` at ``setting`` (the lecturer only)."""
        ...

    def history(self, code: str, token: str) -> tuple[Asked, ...]:
        """The lessons asked, in order (the lecturer only)."""
        ...

    def purge_expired(self, now: float | None = None) -> int:
        """Delete expired classes and their answers; how many classes."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


def lesson_at(number, setting: dict | None = None) -> tuple[Lesson, dict]:
    """The lesson ``number`` and its full setting (defaults overridden by ``setting``, each value checked)."""
    found = lesson(number)
    if setting is not None and not isinstance(setting, dict):
        raise ParameterError("setting must be a mapping of the lesson's controls to values")
    return found, found.values(setting)


def ttl_seconds(ttl_hours: float | str | None = None) -> float:
    """A class's lifetime in seconds: ``ttl_hours``, else ``LMDK_CLASS_TTL_HOURS``, else 24 h; at most a week."""
    source, given = "ttl_hours", ttl_hours
    if given is None:
        text = os.environ.get(TTL_ENV, "").strip()
        if not text:
            return DEFAULT_TTL_HOURS * 3600.0
        source, given = TTL_ENV, text[:MAX_NUMBER_TEXT]
    try:
        hours = float(given)
    except (TypeError, ValueError, OverflowError):
        hours = math.nan
    if isinstance(given, bool) or not (0 < hours <= MAX_TTL_HOURS):
        raise ParameterError(f"{source} must be a number of hours above 0 and at most {MAX_TTL_HOURS:g} "
                             f"(a week), e.g. 24")
    return hours * 3600.0


def check_prediction(found: Lesson, prediction) -> tuple[str | None, float | None]:
    """(choice, number) as stored: one of the lesson's choices, or a finite number ≥ 0; else a ParameterError."""
    if found.choices:
        if isinstance(prediction, str) and prediction in found.choices:
            return prediction, None
        raise ParameterError(f"prediction must be one of {', '.join(found.choices)} ({found.title})")
    fix = f"prediction must be a finite number ≥ 0 ({found.title})"
    if isinstance(prediction, bool) or not isinstance(prediction, (int, float, str)):
        raise ParameterError(fix)
    if isinstance(prediction, str) and len(prediction) > MAX_NUMBER_TEXT:
        raise ParameterError(fix)
    try:
        value = float(prediction)
    except (ValueError, OverflowError):
        raise ParameterError(fix) from None
    if not math.isfinite(value) or value < 0:
        raise ParameterError(fix)
    return None, value + 0.0  # -0.0 stored as 0.0


def stored_prediction(choice: str | None, value: float | None) -> str | float | None:
    """A stored answer as the student gave it (its choice or its number)."""
    return choice if choice is not None else (None if value is None else float(value))


def make_tally(number: int, rows: Iterable[tuple[str | None, float | None]]) -> Tally:
    """The tally of lesson ``number`` from its stored (choice, number) rows, one per student."""
    found = lesson(number)
    answers = [(choice, value) for choice, value in rows if choice is not None or value is not None]
    if found.choices:
        counts = dict.fromkeys(found.choices, 0)
        for choice, _ in answers:
            if choice in counts:  # a choice a later version of the lesson renamed is not counted
                counts[choice] += 1
        return Tally(number, sum(counts.values()), counts, ())
    values = tuple(sorted(float(value) for _, value in answers if value is not None))
    return Tally(number, len(values), {}, values)
