"""AppTest: the live class on the Lessons page (issue 56) — a lecturer starts a class (join link and QR code shown,
the lecturer token nowhere in the address or on screen), a student joins with an anonymous id kept in the address,
Check stores the answer, the lecturer's view counts it, Reveal unlocks the student's feedback, Next lesson moves the
student's page; bad class links, hostile student ids, a resume link's token and an unwritable store are handled.
AppTest has no timer, so a fragment's poll is played by a run of the page (it runs every fragment)."""
from __future__ import annotations

import html
import re
from functools import partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.classroom import check_student, open_store
from lmdk.lessons import LESSONS, lesson
from ui import classroom
from ui.text import escape_markdown

PAGE = "pages/lessons.py"
open_page = partial(app_support.open_page, PAGE, 120)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Every test its own class store (a fresh SQLite file under LMDK_DATA_DIR), no public URL configured."""
    monkeypatch.setenv("LMDK_DATA_DIR", str(tmp_path))
    for name in ("LMDK_CLASS_URL", "LMDK_PUBLIC_URL", "LMDK_LEDGER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def shown(at) -> str:
    """Every text element of the main area (markdown, headers, alerts, captions), as one string."""
    parts = [m.value for m in at.main.markdown] + [h.value for h in at.main.header]
    parts += [str(e.value) for e in list(at.success) + list(at.warning) + list(at.info) + list(at.error)
              + list(at.caption)]
    return "\n".join(parts).replace("<wbr>", "")  # a line-break opportunity shows nothing


def query(at) -> dict:
    """The page's query parameters as plain strings."""
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}


def start_class(monkeypatch=None):
    """A lecturer's session that pressed Start a class: (AppTest, code, token)."""
    at = open_page()
    assert not at.button(key="class_start").disabled
    at.button(key="class_start").click().run()
    assert not at.exception, at.exception
    held = at.session_state[classroom.LECTURER]
    return at, held["code"], held["token"]


def predict(at, code: str, x, value) -> None:
    """Set a student's prediction for lesson x and press Check."""
    key = f"class_{code}_{x.number}_prediction"
    widget = at.radio(key=key) if x.choices else at.number_input(key=key)
    widget.set_value(value).run()
    at.button(key="class_check").click().run()
    assert not at.exception, at.exception


def a_prediction(x):
    """A prediction the lesson accepts (its last choice, or a number)."""
    return x.choices[-1] if x.choices else 1.0


def test_the_lecturer_starts_a_class_with_a_join_link_and_a_qr_code_and_no_token_in_sight():
    at, code, token = start_class()
    assert len(token) >= 22  # ≥ 128 bits of URL-safe base64
    text = shown(at)
    assert f"/lessons?class={code}" in text
    qr = at.get("image")
    assert len(qr) == 1 and qr[0].proto.imgs[0].alt.endswith(f"/lessons?class={code}")
    assert qr[0].proto.imgs[0].url.endswith(".png")
    assert token not in text
    assert all(token not in str(v) for v in dict(at.query_params).values())
    assert "class" not in query(at) and "lecturer" not in query(at)
    assert at.button(key="class_reveal") and at.button(key="class_next")
    state = open_store().state(code)
    assert state.lesson == 1 and not state.revealed


def test_the_qr_code_encodes_the_join_link():
    png = classroom.qr_png("http://localhost:8501/lessons?class=ABCDEF")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == height >= 400  # scanned from the back of a room
    assert classroom.qr_png("http://localhost:8501/lessons?class=ABCDEG") != png


def test_the_join_link_comes_from_lmdk_public_url_and_a_bad_one_is_refused(monkeypatch):
    assert classroom.join_link("https://lab.example.org", "ABCDEF") == "https://lab.example.org/lessons?class=ABCDEF"
    assert classroom.checked_base("https://lab.example.org/sub/", "X") == "https://lab.example.org/sub"
    for bad in ("javascript:alert(1)", "ftp://x.org", "https://", "https://x.org/?a=1"):
        with pytest.raises(ValueError, match="X must be"):
            classroom.checked_base(bad, "X")
    monkeypatch.setenv("LMDK_PUBLIC_URL", "https://lab.example.org")
    at, code, _ = start_class()
    assert f"https://lab.example.org/lessons?class={code}" in shown(at)
    monkeypatch.setenv("LMDK_PUBLIC_URL", "javascript:alert(1)")
    at.run()
    assert "LMDK_PUBLIC_URL must be" in " ".join(str(e.value) for e in at.error).replace("\\", "")
    links = [line for line in shown(at).splitlines() if f"/lessons?class={code}" in line]
    assert links and all("javascript" not in line and "/lessons/lessons" not in line for line in links)


def test_a_student_joins_answers_and_follows_the_reveal_and_the_move():
    lecturer, code, _ = start_class()
    student = open_page(**{"class": code})
    sid = query(student)["student"]
    assert check_student(sid) == sid and len(sid) >= 16  # ≥ 64 bits, kept in the address
    x = lesson(open_store().state(code).lesson)
    assert x.title in shown(student)
    assert not student.get("select_slider"), "the class's setting is not the student's to change"
    value = a_prediction(x)
    predict(student, code, x, value)
    assert open_store().my_answer(code, sid, x.number) == value
    assert "Sent — waiting for the lecturer to reveal" in shown(student)
    assert query(student)["student"] == sid

    lecturer.run()  # the live view's poll
    assert lecturer.metric[0].value == "1"

    lecturer.button(key="class_reveal").click().run()
    assert not lecturer.exception, lecturer.exception
    answer = x.reveal(x.defaults())
    assert answer.answer_text in shown(lecturer)
    student.run()  # the student's poll: the reveal arrived
    verdict = [str(e.value) for e in list(student.success) + list(student.warning)]
    assert any(v.startswith(("Correct", "Not quite")) for v in verdict), verdict
    assert answer.judge(value).text[:20] in "\n".join(verdict).replace("\\", "")

    lecturer.button(key="class_next").click().run()
    assert open_store().state(code).lesson == x.number + 1
    student.run()
    assert LESSONS[x.number].title in shown(student)
    assert query(student)["student"] == sid


def test_a_reload_keeps_the_student_id_and_shows_the_answer_sent():
    _, code, _ = start_class()
    first = open_page(**{"class": code})
    sid = query(first)["student"]
    x = lesson(open_store().state(code).lesson)
    predict(first, code, x, a_prediction(x))
    again = open_page(**{"class": code, "student": sid})
    assert query(again)["student"] == sid
    assert "Sent — waiting for the lecturer to reveal" in shown(again)


def test_an_answer_sent_again_replaces_the_first():
    lecturer, code, _ = start_class()
    student = open_page(**{"class": code})
    x = lesson(open_store().state(code).lesson)
    first, second = (x.choices[0], x.choices[-1]) if x.choices else (1.0, 2.0)
    predict(student, code, x, first)
    predict(student, code, x, second)
    assert open_store().my_answer(code, query(student)["student"], x.number) == second
    assert open_store().tally(code).answered == 1


@pytest.mark.parametrize("hostile", ["<script>alert(1)</script>", "x" * 5000, "' OR 1=1 --", "short"])
def test_a_hostile_student_id_becomes_a_fresh_one(hostile):
    _, code, _ = start_class()
    at = open_page(**{"class": code, "student": hostile})
    sid = query(at)["student"]
    assert sid != hostile and check_student(sid) == sid


@pytest.mark.parametrize("bad", ["not a code!", "ABCDEF", "<b>x</b>"])
def test_a_bad_or_ended_class_link_says_what_to_do_and_the_lessons_still_work(bad):
    at = open_page(**{"class": bad})
    errors = " ".join(str(e.value) for e in at.error)
    assert "ask your lecturer for the new link" in errors
    assert at.selectbox(key="lessons_pick")  # the lessons go on


def test_a_resume_link_gives_the_class_back_and_its_token_leaves_the_address():
    _, code, token = start_class()
    at = open_page(**{"class": code, "lecturer": token})
    assert at.session_state[classroom.LECTURER] == {"code": code, "token": token}
    assert "lecturer" not in query(at) and "class" not in query(at)
    assert at.button(key="class_reveal")
    at.button(key="class_reveal").click().run()
    assert open_store().state(code).revealed


def test_a_wrong_lecturer_token_changes_nothing_and_says_so():
    _, code, _ = start_class()
    at = open_page(**{"class": code, "lecturer": "A" * 32})
    at.button(key="class_reveal").click().run()
    assert not at.exception, at.exception
    assert not open_store().state(code).revealed
    assert "only the lecturer who started it" in " ".join(str(e.value) for e in at.error)


def test_end_class_leaves_class_mode():
    at, _, _ = start_class()
    at.button(key="class_end").click().run()
    assert classroom.LECTURER not in at.session_state
    assert at.button(key="class_start")


def test_an_unwritable_store_names_the_settings_that_fix_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LMDK_CLASS_URL", f"sqlite:///{tmp_path}/missing/classes.db")
    at = open_page()
    at.button(key="class_start").click().run()
    assert not at.exception, at.exception
    errors = " ".join(str(e.value) for e in at.error).replace("\\", "")
    assert "LMDK_DATA_DIR" in errors and "LMDK_CLASS_URL" in errors
    assert classroom.LECTURER not in at.session_state
    student = open_page(**{"class": "ABCDEF"})
    errors = " ".join(str(e.value) for e in student.error).replace("\\", "")
    assert "LMDK_DATA_DIR" in errors and "LMDK_CLASS_URL" in errors


def test_the_distribution_charts_count_every_choice_and_mark_the_answer():
    from ui.charts import class_charts

    spec = class_charts.choices({"Yes": 3, "No": 1, "Maybe": 0}, ("No",)).to_dict()
    bars = spec["data"][0]
    assert list(bars["y"]) == ["Yes", "No", "Maybe"] and list(bars["x"]) == [3, 1, 0]
    assert bars["text"][1].endswith("✓ right") and not bars["text"][0].endswith("✓ right")
    spec = class_charts.histogram([1.0, 2.0, 2.5, 10.0], answer=20.0).to_dict()
    assert sum(spec["data"][0]["y"]) == 4
    assert spec["layout"]["shapes"][0]["x0"] == 20.0
    assert max(spec["data"][0]["x"]) + max(spec["data"][0]["width"]) >= 20.0  # the answer's line is on the chart
    assert sum(class_charts.histogram([5.0, 5.0]).to_dict()["data"][0]["y"]) == 2  # one value: still drawn


@pytest.mark.parametrize("top", [1, 2, 3, 7, 100])
def test_the_count_axis_has_whole_distinct_ticks_and_room_for_the_labels(top):
    from ui.charts import class_charts

    layout = class_charts.choices({"Yes": top, "No": 1, "Maybe": 0}, ("No",)).to_dict()["layout"]
    axis = layout["xaxis"]
    assert axis["tick0"] == 0 and axis["tickformat"] == "d"
    assert axis["dtick"] >= 1 and axis["dtick"] == int(axis["dtick"])  # no rounded 0.2 steps: "0 1 1"
    assert axis["range"][1] / axis["dtick"] <= 2 * class_charts.TICKS_MAX  # and not a tick per student
    assert axis["range"][1] >= 1.5 * top  # the labels beyond the longest bar fit
    histogram = class_charts.histogram([1.0] * top + [2.0]).to_dict()["layout"]["yaxis"]
    assert histogram["dtick"] >= 1 and histogram["range"][1] / histogram["dtick"] <= 2 * class_charts.TICKS_MAX


def test_the_right_choice_is_said_in_words_outside_its_bar_and_on_its_label_above_it():
    from ui.charts import class_charts

    spec = class_charts.choices({"Yes": 1, "No": 1, "Maybe": 1}, ("No",)).to_dict()
    assert spec["data"][0]["textposition"] == "outside"  # inside a short bar "✓ right" was clipped
    assert list(spec["data"][0]["y"]) == ["Yes", "No", "Maybe"]  # the categories stay the choices
    labels = [re.sub("<[^>]+>", "", note["text"]) for note in spec["layout"]["annotations"]]
    assert labels == ["Yes", "✓ No", "Maybe"]
    assert not spec["layout"]["yaxis"]["showticklabels"]  # the labels are above the bars, not beside them


def test_a_long_choice_is_wrapped_at_word_boundaries_whole_and_escaped():
    from ui.charts import class_charts

    long = "The attacker does worse (lower AUC) & <b>not</b> down to guessing (95 %)"
    spec = class_charts.choices({long: 2, "No": 1}, (long,)).to_dict()
    label = spec["layout"]["annotations"][0]["text"]
    assert label.startswith("<b>") and label.endswith("</b>")  # the right one in bold, as well as "✓"
    lines = label[len("<b>"):-len("</b>")].split("<br>")
    assert len(lines) > 1 and all(len(html.unescape(line)) <= class_charts.WRAP for line in lines)
    assert "<" not in "".join(lines)  # the choice's own "<b>" is text, escaped
    assert html.unescape(" ".join(lines)).replace("\u00a0", " ") == "✓ " + long  # nothing dropped or shortened
    assert lines[-1].endswith("(95\u00a0%)")  # "%" stays with its number
    short = class_charts.choices({"Yes": 1, "No": 1}).to_dict()["layout"]
    assert spec["layout"]["height"] > short["height"]  # the wrapped lines get their room above the bars


def test_the_join_link_breaks_only_between_its_parts():
    html = classroom.breakable("http://127.0.0.1:54069/lessons?class=CPC97T")
    assert html == "http://127.0.0.1:54069/<wbr>lessons<wbr>?class=CPC97T"
    assert classroom.breakable('https://x.org/a"b/') == "https://x.org/<wbr>a&quot;b/<wbr>"


def revealed_row(at) -> tuple[list, list]:
    """The keys in the two columns of the revealed answer's row (chart's side, answer's side)."""
    row = next(e for e in at.main if getattr(e, "key", None) == "class_revealed")
    (block,) = row.children.values()
    columns = list(block.children.values())
    assert [type(c).__name__ for c in columns] == ["Column", "Column"]  # one horizontal row of two columns
    chart, said = ([getattr(e, "key", None) for e in column] for column in columns)
    return chart, said


@pytest.mark.parametrize("kind", ["number", "choice"])
def test_after_a_reveal_the_answer_is_beside_the_chart_and_the_numbers_are_folded_full_width(kind):
    at, code, token = start_class()
    if kind == "choice":
        open_store().move(code, token, next(x for x in LESSONS if x.choices).number)
        at.run()
    student = open_page(**{"class": code})
    x = lesson(open_store().state(code).lesson)
    assert bool(x.choices) == (kind == "choice")
    predict(student, code, x, a_prediction(x))
    at.run()
    assert "class_revealed" not in [getattr(e, "key", None) for e in at.main]  # before: the chart alone
    at.button(key="class_reveal").click().run()
    assert not at.exception, at.exception
    order = [getattr(e, "key", None) or type(e).__name__ for e in at.main]
    assert order.index("class_next") < order.index("class_answered") < order.index("class_revealed")
    chart, said = revealed_row(at)
    assert "class_distribution" in chart and "class_answer" in said  # one row: the chart, the answer beside it
    assert "chart_text_class_distribution" in chart  # its text alternative under it, in the same column
    alternative = next(c.value for c in at.caption if c.value.startswith("The room"))
    assert "1 answered" in alternative and (("right yes" in alternative) if kind == "choice" else
                                            "prediction" in alternative), alternative
    answer = x.reveal(x.defaults())
    words = "\n".join(m.value for m in at.main.markdown)
    assert answer.answer_text in words and re.search(r"\*\*[01] of 1 \(.*\*\* of the room predicted it", words)
    assert escape_markdown(answer.why) in words
    numbers = [e for e in at.expander if e.label == "The numbers behind the answer"]
    assert numbers and "| quantity | value |" in numbers[0].markdown[0].value
    assert not any("| quantity | value |" in m.value for column in at.get("column") for m in column.markdown)


def test_where_a_login_is_configured_only_a_logged_in_user_starts_a_class():
    at = open_page()
    at.secrets = app_support.OFFICER_SECRETS
    at.run()
    assert at.button(key="class_start").disabled
    at.user = {"is_logged_in": True, "sub": "someone"}
    at.run()
    assert not at.button(key="class_start").disabled
