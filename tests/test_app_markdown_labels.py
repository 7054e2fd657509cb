"""Nothing injectable in labels (issue 54): a unit the user typed, a user id from an upload and whose readings an
aggregate counts are shown as text wherever Markdown renders them — the sidebar's "Protected: …" caption, the
relation's number inputs, the Population caption, buttons and the charts' "Show data" expanders and sentences."""
from __future__ import annotations

import re
from functools import partial

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)
from test_app_injection import messages

from lmdk import relation as rel
from ui import text
from ui.charts import alt_text
from ui.session import state

LINK = "[Sign in](https://evil.example/login)"
open_data = partial(app_support.open_page, "pages/data_landmarks.py", 90)
open_population = partial(app_support.open_page, "pages/population.py", 90)


def links(body: str) -> list[str]:
    """Where a link or image could form: an unescaped ``](`` or ``![`` (CommonMark allows no space between a link's
    text and its target) or an unbroken bare URL, each with the text around it."""
    return [body[max(0, m.start() - 80):m.end() + 40]
            for m in re.finditer(r"(?<!\\)\]\(|(?<!\\)!\[|https://evil", body)]


def inert(body: str) -> bool:
    """No link or image can form from the text (see ``links``)."""
    return not links(body)


def labels(at) -> str:
    """Every widget label and expander label of the page (Markdown source, as the browser receives it)."""
    kinds = ("button", "download_button", "number_input", "text_input", "radio", "selectbox", "expander", "toggle",
             "checkbox")
    found = []
    for kind in kinds:
        for element in at.get(kind):
            label = getattr(element, "label", None)
            found.append(label if label is not None else str(getattr(element.proto, "label", "")))
    return "\n".join(found)


def unescaped(body: str) -> str:
    """What a reader sees: backslash escapes and the word joiners that break autolinks removed."""
    return re.sub(r"\\(.)", r"\1", body).replace("\u2060", "")


def test_a_typed_unit_is_shown_as_text_in_the_protected_caption_and_the_range_inputs():
    raw = "timestamp,value\n" + "".join(f"2024-01-01 {h:02d}:00,{h % 5}\n" for h in range(24))
    at = app_support.upload(open_data(source="upload"), "meter.csv", raw.encode())
    at.text_input(key="imp_units").input(f"kWh {LINK}")
    next(b for b in at.button if b.label == "Apply import settings").click().run()
    assert not at.exception, at.exception
    assert at.session_state[state.SERIES_UPLOAD].units == f"kWh {LINK}"
    at.switch_page("pages/schemes_utility.py").run()  # the sidebar's relation controls
    at.number_input(key=state.widget_key(state.REL_LOW)).set_value(0.0)
    at.number_input(key=state.widget_key(state.REL_HIGH)).set_value(25.0).run()
    sidebar = " ".join(str(c.value) for c in at.sidebar.caption)
    assert "Protected:" in sidebar and "evil" in sidebar, sidebar
    assert inert(sidebar), sidebar  # before: the unit was a link in "Protected: … between 0 and 25 kWh [Sign in](…)"
    assert f"between 0 and 25 kWh {LINK}" in unescaped(sidebar)  # the reader sees the unit as typed
    shown = labels(at)
    assert "evil" in shown and inert(shown), shown  # "low (kWh [Sign in](…))": a widget label renders Markdown
    assert not links(messages(at)), links(messages(at))


def test_an_uploaded_user_id_is_shown_as_text_in_buttons_expanders_and_sentences():
    users = [f"u{i} {LINK}" for i in range(3)]
    rows = "".join(f'"{u}",2024-01-01 {h:02d}:00,{h % 5}\n' for u in users for h in range(24))
    at = open_population(pop_src="upload")
    at.file_uploader(key="pop_file").set_value(("meters.csv", ("user,timestamp,value\n" + rows).encode(),
                                                "text/plain")).run()
    for key in ("pop_mae", "pop_scatter"):
        at.session_state[alt_text.OPEN_PREFIX + key] = True
    at.run()
    at.selectbox(key="pop_user_pick").set_value(users[0]).run()
    assert not at.exception, at.exception
    shown = labels(at)
    assert "Open user" in shown and "evil" in shown, shown  # the page offers the worst user by id
    assert inert(shown), shown  # before: "Open user u0 [Sign in](…) on the single-series pages" was a link
    body = messages(at)
    assert inert(body), body


def test_the_relations_user_words_are_escaped_and_the_rest_kept():
    total = rel.aggregate("sum", users=12, low=0, high=25, unit=f"kWh {LINK}", who=f"home {LINK}")
    for words in (total.label(), total.protects("hour")):
        assert not inert(words)  # the relation itself keeps the text as given (files, JSON, the CLI)
    escaped = text.escaped_relation(total)
    assert inert(escaped.label()) and inert(escaped.protects("hour"))
    assert unescaped(escaped.label()) == total.label() and unescaped(escaped.protects("hour")) == total.protects("hour")
    assert "the sum in [0, 300]" in escaped.label()  # the relation's own words are unchanged (tests pin them)
    plain = rel.public_range(0, 25, "kWh")
    assert text.escaped_relation(plain).label() == plain.label() and text.escaped_relation(None) is None


def test_a_chart_sentence_and_its_expander_label_are_escaped():
    import pandas as pd

    data = pd.DataFrame({"user": [f"u {LINK}", "b"], "MAE": [0.5, 1.0]})
    words = alt_text.sentence(data, f"Error per user ({LINK})")
    assert inert(words) and "evil" in words
    assert unescaped(words) == alt_text.summarize(data, f"Error per user ({LINK})")
