"""The lecturer's summary of a class: one row per lesson asked (CSV) and a printable page of the room's distributions
(HTML: bars drawn in HTML and SVG, no external resource, every text escaped). The lecturer's token is required."""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np

from lmdk.classroom.model import ClassStore, Tally
from lmdk.exports.cells import csv_text
from lmdk.lessons import Lesson, Reveal, lesson

HISTOGRAM_BINS = 10
COLUMNS = ("lesson", "title", "setting", "answered", "counts", "q1", "median", "q3", "answer", "share_correct")


@dataclass(frozen=True)
class LessonSummary:
    """One lesson asked: the lesson, its setting, the room's tally, the computed answer, how many were right."""

    lesson: Lesson
    setting: dict
    tally: Tally
    reveal: Reveal
    correct: int

    @property
    def share_correct(self) -> float | None:
        """The share of the answers that were right (None: nobody answered)."""
        return self.correct / self.tally.answered if self.tally.answered else None

    @property
    def setting_text(self) -> str:
        """The setting as ``label = value`` pairs in the lesson's order."""
        return "; ".join(f"{s.label} = {self.setting.get(s.key)}{(' ' + s.unit) if s.unit else ''}"
                         for s in self.lesson.settings)

    @property
    def quartiles(self) -> tuple[float, float, float] | None:
        """(q1, median, q3) of a number lesson's answers (None: a choice lesson or no answer)."""
        if not self.tally.values:
            return None
        q1, q2, q3 = np.percentile(np.asarray(self.tally.values, dtype=float), [25, 50, 75])
        return float(q1), float(q2), float(q3)


def summarise(store: ClassStore, code: str, token: str) -> tuple[LessonSummary, ...]:
    """Every lesson the class was asked, in order, with its tally, answer and share correct (the lecturer only)."""
    out = []
    for asked in store.history(code, token):
        found = lesson(asked.lesson)
        tally = store.tally(code, asked.lesson)
        reveal = found.reveal(asked.setting)
        if found.choices:
            correct = sum(n for choice, n in tally.counts.items() if reveal.judge(choice).correct)
        else:
            correct = sum(1 for value in tally.values if reveal.judge(value).correct)
        out.append(LessonSummary(found, found.values(asked.setting), tally, reveal, correct))
    return tuple(out)


def _number(value: float | None) -> str:
    """A number as the CSV writes it ('' for none)."""
    return "" if value is None else f"{value:.6g}"


def summary_csv(store: ClassStore, code: str, token: str) -> bytes:
    """One row per lesson asked: lesson, title, setting, answered, each choice's count or the numbers' quartiles,
    the computed answer, the share correct (UTF-8; text cells a spreadsheet would run as formulas marked)."""
    import pandas as pd

    rows = []
    for item in summarise(store, code, token):
        counts = "; ".join(f"{choice}: {n}" for choice, n in item.tally.counts.items())
        q = item.quartiles or (None, None, None)
        rows.append([item.lesson.number, item.lesson.title, item.setting_text, item.tally.answered, counts,
                     *map(_number, q), item.reveal.answer_text, _number(item.share_correct)])
    frame = pd.DataFrame(rows, columns=list(COLUMNS)).astype({COLUMNS[0]: "int64", COLUMNS[3]: "int64"})
    return csv_text(frame).encode("utf-8")


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a;
       line-height: 1.5; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-bottom: 0.2rem; }
section { break-inside: avoid; page-break-inside: avoid; border-top: 1px solid #ccc; padding-top: 0.6rem; }
.setting, .note { color: #4a4a4a; font-size: 0.95rem; }
.bars { border-collapse: collapse; width: 100%; } .bars td { padding: 0.15rem 0.4rem; vertical-align: middle; }
.bars td.label { width: 30%; } .bars td.n { width: 4rem; text-align: right; }
.bar { background: #1f5f99; height: 1.1rem; min-width: 1px; print-color-adjust: exact;
       -webkit-print-color-adjust: exact; }
.right .bar { background: #1b7f3b; }
svg rect { fill: #1f5f99; } svg line { stroke: #1a1a1a; } svg text { font-size: 11px; fill: #1a1a1a; }
@media print { body { margin: 0; max-width: none; } }
"""


def _choice_bars(item: LessonSummary) -> str:
    """A table with one bar per choice, the right choice(s) marked."""
    top = max(item.tally.counts.values(), default=0) or 1
    rows = []
    for choice, n in item.tally.counts.items():
        right = item.reveal.judge(choice).correct
        mark = " ✓" if right else ""
        rows.append(f"<tr class=\"{'right' if right else ''}\"><td class=\"label\">{escape(choice)}{mark}</td>"
                    f"<td><div class=\"bar\" style=\"width: {100 * n / top:.1f}%\"></div></td>"
                    f"<td class=\"n\">{n}</td></tr>")
    return "<table class=\"bars\">" + "".join(rows) + "</table>"


def _histogram(item: LessonSummary) -> str:
    """An SVG histogram of a number lesson's answers, the computed answer drawn as a line."""
    values = np.asarray(item.tally.values, dtype=float)
    if values.size == 0:
        return "<p class=\"note\">No answers.</p>"
    answer = float(item.reveal.answer)
    low, high = float(min(values.min(), answer)), float(max(values.max(), answer))
    if high <= low:
        low, high = low - 0.5, high + 0.5
    counts, edges = np.histogram(values, bins=HISTOGRAM_BINS, range=(low, high))
    width, height, pad = 480, 140, 20
    top = int(counts.max()) or 1
    step = (width - 2 * pad) / HISTOGRAM_BINS
    bars = []
    for i, n in enumerate(counts.tolist()):
        h = (height - 2 * pad) * n / top
        bars.append(f"<rect x=\"{pad + i * step + 1:.1f}\" y=\"{height - pad - h:.1f}\" width=\"{step - 2:.1f}\" "
                    f"height=\"{h:.1f}\"><title>{edges[i]:.4g}–{edges[i + 1]:.4g}: {n}</title></rect>")
    x = pad + (answer - low) / (high - low) * (width - 2 * pad)
    label = f"answer {item.reveal.answer_text}"
    return (f"<svg role=\"img\" aria-label=\"{escape(f'Histogram of {values.size} answers; {label}')}\" "
            f"viewBox=\"0 0 {width} {height}\" width=\"100%\" xmlns=\"http://www.w3.org/2000/svg\">"
            + "".join(bars)
            + f"<line x1=\"{x:.1f}\" x2=\"{x:.1f}\" y1=\"{pad / 2}\" y2=\"{height - pad}\" stroke-width=\"2\"/>"
            f"<text x=\"{x + 3:.1f}\" y=\"{pad}\">{escape(label)}</text>"
            f"<text x=\"{pad}\" y=\"{height - 4}\">{escape(f'{low:.4g}')}</text>"
            f"<text x=\"{width - pad}\" y=\"{height - 4}\" text-anchor=\"end\">{escape(f'{high:.4g}')}</text></svg>")


def _section(item: LessonSummary) -> str:
    """One lesson: title, setting, question, the room's distribution, the answer and the share correct."""
    share = item.share_correct
    right = "nobody answered" if share is None else f"{100 * share:.0f} % correct"
    q = item.quartiles
    spread = "" if q is None else f"; quartiles {q[0]:.4g}, {q[1]:.4g}, {q[2]:.4g}"
    chart = _choice_bars(item) if item.lesson.choices else _histogram(item)
    return (f"<section>\n<h2>{escape(item.lesson.title)}</h2>\n"
            f"<p class=\"setting\">{escape(item.setting_text)}</p>\n"
            f"<p><strong>{escape(item.lesson.question_text(item.setting))}</strong></p>\n{chart}\n"
            f"<p>{item.tally.answered} answered{escape(spread)}. Answer: <strong>"
            f"{escape(item.reveal.answer_text)}</strong> ({escape(right)}).</p>\n</section>")


def summary_html(store: ClassStore, code: str, token: str) -> bytes:
    """A self-contained printable HTML page of the class's distributions, lesson by lesson (UTF-8)."""
    items = summarise(store, code, token)
    state = store.state(code)
    title = f"Class {state.code}: the room's predictions"
    body = "\n".join(_section(item) for item in items) or "<p>No lesson was asked.</p>"
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{escape(title)}</h1>\n<p class=\"note\">{len(items)} lessons asked. Only the anonymous answers "
            "were kept; they are deleted when the class expires.</p>\n" + body + "\n</main>\n</body>\n</html>\n")
    return page.encode("utf-8")
