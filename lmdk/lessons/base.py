"""The shape of a lesson: its setting controls, the prediction, the reveal computed by the core, the feedback."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from lmdk.errors import ParameterError

SEED = 20_260_101  # every reveal draws from this seed: the page, the tests and every answer sheet agree
Z95 = 1.959963984540054  # the normal 95 % quantile (Wilson intervals of a share)
NUMBER_TOLERANCE = 0.1  # a number prediction within 10 % of the answer counts as correct


@dataclass(frozen=True)
class Setting:
    """One control of a lesson's setting: a name, a label, the values it offers and its default."""

    key: str
    label: str
    options: tuple
    default: Any
    unit: str = ""

    def parse(self, value) -> Any:
        """``value`` if it is one of the options (a URL's text is matched by its printed form), else an error."""
        for option in self.options:
            if value == option or str(value) == str(option):
                return option
            if isinstance(option, (int, float)) and not isinstance(value, bool):
                try:
                    if float(value) == float(option):
                        return option
                except (TypeError, ValueError):
                    pass
        raise ParameterError(f"{self.label} must be one of {', '.join(map(str, self.options))}, got {value!r}")


@dataclass(frozen=True)
class Reveal:
    """What the core computed at the student's setting: the right answer, the numbers behind it, why."""

    answer: Any  # the correct choice (text) or number
    numbers: dict[str, str]  # label → formatted number, in reading order
    why: str  # two sentences saying why, with the numbers
    correct_choices: tuple = ()  # several choices are right when the computation cannot tell them apart (a tie)

    def judge(self, prediction) -> Feedback:
        """Correct or Not quite, then why."""
        if isinstance(self.answer, str):
            right = prediction in (self.correct_choices or (self.answer,))
        else:
            try:
                guess = float(prediction)
            except (TypeError, ValueError):
                right = False
            else:
                right = abs(guess - float(self.answer)) <= NUMBER_TOLERANCE * abs(float(self.answer))
        return Feedback(right, ("Correct. " if right else "Not quite. ") + self.why)

    @property
    def answer_text(self) -> str:
        """The answer as a reader sees it."""
        if isinstance(self.answer, str):
            return " or ".join(self.correct_choices) if len(self.correct_choices) > 1 else self.answer
        return f"{self.answer:,.4g}"


@dataclass(frozen=True)
class Feedback:
    """The verdict on one prediction: right or not, and the text that starts with "Correct" or "Not quite"."""

    correct: bool
    text: str


@dataclass(frozen=True)
class Lesson:
    """One lesson: setting, question, how to reveal the answer, where the lab goes deeper, the takeaway."""

    name: str
    setting: str  # the short setting, formatted with the setting's values ({key})
    question: str  # formatted the same way
    settings: tuple[Setting, ...]
    play: str  # the key of the one control to play with after the check
    reveal_fn: Callable[..., Reveal]  # (values) → Reveal; a seeded lesson's also takes seed=
    lab_page: str  # URL path of the page that goes deeper
    lab_title: str
    lab_query_fn: Callable[[dict], dict[str, str]]
    takeaway: str
    choices: tuple[str, ...] = ()  # empty: the prediction is a number
    number_label: str = ""
    section: str = ""  # the paper's section behind the lesson
    not_in_lab: tuple[str, ...] = ()  # settings the lab page has no control for (said beside the link)
    seeded: bool = False  # the reveal draws noise: reveal_fn takes ``seed=`` (the tests vary it)
    number: int = 0  # its place in LESSONS, set by :func:`numbered` (never by hand)

    @property
    def title(self) -> str:
        """'Lesson N · name'."""
        return f"Lesson {self.number} · {self.name}"

    def defaults(self) -> dict:
        """The setting's default values."""
        return {s.key: s.default for s in self.settings}

    def values(self, chosen: dict | None = None) -> dict:
        """The defaults overridden by ``chosen`` (each checked against its options)."""
        out = self.defaults()
        for s in self.settings:
            if chosen and s.key in chosen and chosen[s.key] is not None:
                out[s.key] = s.parse(chosen[s.key])
        return out

    def setting_text(self, chosen: dict | None = None) -> str:
        """The setting with the chosen values filled in."""
        return self.setting.format(**self.values(chosen))

    def question_text(self, chosen: dict | None = None) -> str:
        """The question with the chosen values filled in."""
        return self.question.format(**self.values(chosen))

    def reveal(self, chosen: dict | None = None, *, seed: int | None = None) -> Reveal:
        """The answer computed by the core at the setting (``seed``: SEED unless given; exact lessons ignore it)."""
        if self.seeded and seed is not None:
            return self.reveal_fn(self.values(chosen), seed=seed)
        return self.reveal_fn(self.values(chosen))

    def check(self, prediction, chosen: dict | None = None) -> Feedback:
        """Reveal at the setting and judge ``prediction``."""
        return self.reveal(chosen).judge(prediction)

    def lab_query(self, chosen: dict | None = None) -> dict[str, str]:
        """The lab page's query parameters that reproduce this lesson's setting there."""
        return self.lab_query_fn(self.values(chosen))

    def lab_link(self, chosen: dict | None = None) -> str:
        """Relative URL of the deeper page with the setting in its query."""
        from urllib.parse import urlencode

        return f"{self.lab_page}?{urlencode(self.lab_query(chosen))}"


def numbered(lessons: Iterable[Lesson]) -> tuple[Lesson, ...]:
    """The lessons in order, each numbered by its place (1-based): reordering never renumbers by hand."""
    return tuple(replace(x, number=i) for i, x in enumerate(lessons, start=1))


def seed_streams(seed: int, count: int) -> list[np.random.Generator]:
    """``count`` independent generators spawned from ``seed``: the many seeds a robust answer is decided over."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(int(seed)).spawn(int(count))]


def share_interval(hits: int, trials: int) -> tuple[float, float]:
    """Wilson 95 % interval of a share ``hits``/``trials`` (stays inside 0–1, sensible at 0 and at all)."""
    p, z2 = hits / trials, Z95**2
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * np.sqrt(p * (1 - p) / trials + z2 / (4 * trials**2)) / (1 + z2 / trials)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


def consistent(bands: dict[str, tuple[float, float]], low: float, high: float) -> tuple[str, ...]:
    """The choices whose band [lo, hi] meets the 95 % interval [low, high]: every answer the noise cannot rule out."""
    return tuple(c for c, (lo, hi) in bands.items() if lo <= high and low <= hi)


def number(value: float, digits: int = 3) -> str:
    """A number for a reader: ``digits`` significant digits, thousands separated."""
    return f"{value:,.{digits}g}"


def interval(mean: float, ci: tuple[float, float], unit: str = "") -> str:
    """'mean (95 % CI low–high) unit'."""
    tail = f" {unit}" if unit else ""
    return f"{mean:.3f} (95 % CI {ci[0]:.3f}–{ci[1]:.3f}){tail}"


def percent(share: float) -> str:
    """A share as a percentage: three significant digits below 100 %, whole numbers with separators above."""
    value = 100.0 * share
    return f"{value:,.0f} %" if abs(value) >= 100 else f"{value:.3g} %"
