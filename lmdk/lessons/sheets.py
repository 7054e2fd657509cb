"""The printable worksheet (every question, one lesson per page) and the answer sheet (answers and the numbers
behind them at each lesson's default setting, fixed seed) as standalone HTML; every text is escaped."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from lmdk.lessons.base import SEED, Lesson

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a;
       line-height: 1.5; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 0; }
.lesson { break-after: page; page-break-after: always; padding-top: 1rem; }
.lesson:last-of-type { break-after: auto; page-break-after: auto; }
.setting { background: #f3f3f3; padding: 0.6rem 0.8rem; border-radius: 0.3rem; }
.choices { list-style: none; padding-left: 0; } .choices li::before { content: "\\2610\\00a0\\00a0"; }
.blank { display: inline-block; min-width: 12rem; border-bottom: 1px solid #1a1a1a; }
.lines { border-bottom: 1px solid #1a1a1a; height: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; } th, td { text-align: left; padding: 0.2rem 0.6rem;
       border-bottom: 1px solid #ccc; vertical-align: top; }
.note { color: #4a4a4a; font-size: 0.9rem; }
@media print { body { margin: 0; max-width: none; } }
"""


def _page(title: str, intro: str, sections: list[str]) -> str:
    """A standalone HTML document."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{escape(title)}</h1>\n<p class=\"note\">{escape(intro)}</p>\n" + "\n".join(sections)
            + "\n</main>\n</body>\n</html>\n")


def _head(lesson: Lesson) -> str:
    """The lesson's title, setting (at its defaults) and question."""
    return (f"<h2>{escape(lesson.title)}</h2>\n<p class=\"setting\">{escape(lesson.setting_text())}</p>\n"
            f"<p><strong>{escape(lesson.question_text())}</strong></p>\n")


def worksheet(lessons: Sequence[Lesson]) -> str:
    """Every lesson's setting and question with room for the prediction and the reason, one lesson per page."""
    sections = []
    for lesson in lessons:
        if lesson.choices:
            answer = ("<p>Tick one:</p>\n<ul class=\"choices\">"
                      + "".join(f"<li>{escape(c)}</li>" for c in lesson.choices) + "</ul>\n")
        else:
            answer = f"<p>{escape(lesson.number_label)}: <span class=\"blank\">&nbsp;</span></p>\n"
        sections.append(f"<section class=\"lesson\" aria-label=\"{escape(lesson.title)}\">\n{_head(lesson)}"
                        f"<p>Your prediction, before you check:</p>\n{answer}"
                        "<p>Why do you think so?</p>\n<div class=\"lines\"></div><div class=\"lines\"></div>\n"
                        "<p>After checking in the app: what did you learn?</p>\n<div class=\"lines\"></div>\n"
                        "</section>")
    return _page("lmdk lessons — worksheet",
                 "Predict first, then check each lesson on the Lessons page of the lmdk app (/lessons?lesson=N) "
                 "with the setting shown here.", sections)


def answer_sheet(lessons: Sequence[Lesson]) -> str:
    """Every lesson's answer at its default setting, the numbers behind it and why (seed fixed: copies agree)."""
    sections = []
    for lesson in lessons:
        reveal = lesson.reveal()
        rows = "".join(f"<tr><th scope=\"row\">{escape(k)}</th><td>{escape(v)}</td></tr>"
                       for k, v in reveal.numbers.items())
        sections.append(f"<section class=\"lesson\" aria-label=\"{escape(lesson.title)}\">\n{_head(lesson)}"
                        f"<p>Answer: <strong>{escape(reveal.answer_text)}</strong></p>\n"
                        f"<table><caption class=\"note\">The numbers behind it</caption>{rows}</table>\n"
                        f"<p>{escape(reveal.why)}</p>\n<p><em>Takeaway:</em> {escape(lesson.takeaway)}</p>\n"
                        "</section>")
    return _page("lmdk lessons — answer sheet",
                 f"Computed by the lmdk core at each lesson's default setting with the fixed seed {SEED}, so every "
                 "copy agrees. A student who changes the setting in the app gets the answer for that setting.",
                 sections)
