"""The guides say what the app opens with (issue 56): the lecturer's and the stakeholder's guides name the default
landmark rule the code declares (lmdk.declared.calendar.DEFAULT_RULE) and the count it marks on the app's default
series, computed here from the code and the bundled sample, never copied into the test."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmdk.data import sample
from lmdk.declared.calendar import DEFAULT_RULE
from lmdk.landmarks import parse_rule
from ui.session import state

GUIDES = Path(__file__).resolve().parents[1] / "docs" / "guides"
GUIDE_FILES = ("lecturer.md", "stakeholder.md")

_COUNT = re.compile(r"(\d[\d,]*) (?:sensitive |landmark )?(?:hours|events) out of (?:the )?(\d[\d,]*)"
                    r"|(\d[\d,]*) of the (\d[\d,]*) hours")
_OTHERS = re.compile(r"[Tt]he other (\d[\d,]*) hours")
_RULE = re.compile(r"`(calendar:[^`]+)`")
_OPENS = re.compile(r"opens with|by default|the default", re.I)
_VALUE_READ_DEFAULT = re.compile(r"(?:opens with|landmarks of the meter are|readings marked as landmarks)"
                                 r"[^.]*(?:lowest|percentile)", re.I)


def app_default() -> tuple[int, int]:
    """(landmarks, events) the app opens with: the default rule on the default sample's default window."""
    params = state.PARAMS
    assert params[state.SOURCE].default == "sample"
    series = sample(params[state.SAMPLE].default, n=params[state.LENGTH].default)
    return len(parse_rule(DEFAULT_RULE).indices(series)), len(series.values)


def number(text: str) -> int:
    """'1,000' → 1000."""
    return int(text.replace(",", ""))


def problems(text: str, rule: str, count: int, n: int) -> list[str]:
    """What a guide's text says about the app's opening landmarks that the code contradicts (empty: none)."""
    found = []
    if rule not in text:
        found.append(f"never names the default rule {rule}")
    sentences = re.split(r"(?<=[.:;])\s", " ".join(text.split()))
    for sentence in sentences:
        if _OPENS.search(sentence):
            found += [f"a default rule {other} (the code's is {rule})" for other in _RULE.findall(sentence)
                      if other != rule]
    flat = " ".join(text.split())
    found += [f"says the app opens with value-read landmarks: …{m.group(0)}…"
              for m in _VALUE_READ_DEFAULT.finditer(flat)]
    counts = [(number(a or c), number(b or d)) for a, b, c, d in _COUNT.findall(flat)]
    if not counts:
        found.append(f"never says how many landmarks the rule marks ({count:,} of {n:,})")
    found += [f"{k:,} of {m:,} (the code marks {count:,} of {n:,})" for k, m in counts if (k, m) != (count, n)]
    found += [f"the other {number(k):,} hours (the code leaves {n - count:,})" for k in _OTHERS.findall(flat)
              if number(k) != n - count]
    return found


def test_the_app_default_is_a_declared_rule_on_a_real_count():
    count, n = app_default()
    assert DEFAULT_RULE.startswith("calendar:") and 0 < count < n


@pytest.mark.parametrize("name", GUIDE_FILES)
def test_the_guide_states_the_codes_default_landmarks(name):
    count, n = app_default()
    text = (GUIDES / name).read_text(encoding="utf-8")
    assert problems(text, DEFAULT_RULE, count, n) == []


def test_the_check_catches_the_old_wording_and_a_wrong_count():
    count, n = app_default()
    old = ("The landmarks of the meter are the 20 % lowest readings. With ε = 1 and 200 sensitive hours out of "
           "1,000, Skip wins. The other 800 hours are protected one at a time.")
    found = problems(old, DEFAULT_RULE, count, n)
    assert any("never names the default rule" in f for f in found)
    assert any("value-read landmarks" in f for f in found)
    assert any(f.startswith("200 of 1,000") for f in found) and any("other 800" in f for f in found)
    other_rule = (f"The app opens with `calendar:daily@02:00-05:00`, `{DEFAULT_RULE}` elsewhere: {count:,} of the "
                  f"{n:,} hours.")
    assert any("calendar:daily@02:00-05:00" in f for f in problems(other_rule, DEFAULT_RULE, count, n))
    right = f"The app opens with `{DEFAULT_RULE}`: {count:,} of the {n:,} hours. The other {n - count:,} hours."
    assert problems(right, DEFAULT_RULE, count, n) == []
