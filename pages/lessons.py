"""Lessons: predict, then see — each lesson's reveal computed by the core (lmdk.lessons) at the student's setting."""
import streamlit as st

from lmdk import lessons
from lmdk.errors import LmdkError
from lmdk.lessons import sheets
from ui import classroom, epsilon_meaning, explain, text, widgets
from ui.downloads import download_deferred
from ui.session import state

QUERY = "lesson"  # ?lesson=N opens lesson N (kept in the URL by this page, not by state.PARAMS)
PICK = "lessons_pick"  # the open lesson's number (the selectbox)
CHECKED = "_lessons_checked"  # lesson number → {"setting", "prediction", "feedback", "reveal"} of its last Check
URL_SEEN = "_lessons_url"  # the ?lesson= value this session has applied (a new link opens its lesson)

state.current()  # reroutes a run Streamlit started without app.py (ui.ensure_entrypoint)
ss = st.session_state
checked: dict = ss.setdefault(CHECKED, {})


def _key(lesson, name: str) -> str:
    """A widget key of one lesson."""
    return f"lessons_{lesson.number}_{name}"


def _from_url() -> None:
    """Open the lesson a (new) ?lesson=N names; a bad N says so and opens lesson 1."""
    wanted = st.query_params.get(QUERY)
    if wanted is None or wanted == ss.get(URL_SEEN):
        ss.setdefault(PICK, 1)
        return
    ss[URL_SEEN] = wanted
    try:
        ss[PICK] = lessons.lesson(wanted).number
    except LmdkError as exc:
        st.error(text.escape_markdown(exc))
        ss.setdefault(PICK, 1)


def _label(number: int) -> str:
    """A lesson's title in the picker, marked when it has been checked."""
    title = lessons.LESSONS[number - 1].title
    return f"{title} — checked" if number in checked else title


def _progress() -> None:
    """Which lessons have been checked, and how many were right."""
    done = sorted(checked)
    if not done:
        st.caption(f"Lessons checked: none of {len(lessons.LESSONS)} yet.")
        return
    right = sum(checked[n]["feedback"].correct for n in done)
    marks = ", ".join(f"{n} ({'correct' if checked[n]['feedback'].correct else 'not quite'})" for n in done)
    st.caption(f"Lessons checked: {len(done)} of {len(lessons.LESSONS)} — lesson {marks}; {right} predicted "
               "right.")


def _settings(lesson) -> dict:
    """The lesson's setting controls; returns the chosen values."""
    chosen = {}
    box = st.container(horizontal=True, gap="medium")
    for s in lesson.settings:
        chosen[s.key] = box.select_slider(s.label, options=s.options, value=s.default, key=_key(lesson, s.key),
                                          format_func=lambda v: f"{v:g}" if isinstance(v, float) else str(v),
                                          width=260)
    for key in filter(epsilon_meaning.is_epsilon_key, chosen):
        epsilon_meaning.caption(chosen[key])
    return chosen


def _prediction(lesson):
    """The prediction widget: a choice or a number (None until the student commits to one)."""
    if lesson.choices:
        return st.radio("Your prediction", lesson.choices, index=None, key=_key(lesson, "prediction"))
    return st.number_input(f"Your prediction: {lesson.number_label.lower()}", min_value=0.0, value=None,
                           step=1.0, format="%g", key=_key(lesson, "prediction"))


def _check(lesson, chosen: dict, prediction) -> None:
    """Compute the reveal at the setting and judge the prediction (the Check button's callback)."""
    try:
        reveal = lesson.reveal(chosen)
    except LmdkError as exc:
        ss[_key(lesson, "error")] = str(exc)
        return
    ss.pop(_key(lesson, "error"), None)
    checked[lesson.number] = {"setting": dict(chosen), "prediction": prediction, "reveal": reveal,
                              "feedback": reveal.judge(prediction)}


def _numbers(reveal) -> None:
    """The numbers behind a reveal, as a two-column table."""
    rows = "\n".join(f"| {text.escape_markdown(k)} | {text.escape_markdown(v)} |" for k, v in reveal.numbers.items())
    st.markdown("| quantity | value |\n|---|---|\n" + rows)


def _play(lesson, setting: dict) -> None:
    """One control to play with after the check: the reveal recomputed as it moves."""
    played = next(s for s in lesson.settings if s.key == lesson.play)
    st.subheader("Play with it")
    value = st.select_slider(f"Change {played.label.lower()} and watch the answer", options=played.options,
                             value=setting[played.key], key=_key(lesson, "play"),
                             format_func=lambda v: f"{v:g}" if isinstance(v, float) else str(v), width=360)
    reveal = lesson.reveal({**setting, played.key: value})
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    st.markdown(f"With {text.escape_markdown(played.label.lower())} = {text.escape_markdown(shown)}, the answer is "
                f"**{text.escape_markdown(reveal.answer_text)}**.")
    if value != setting[played.key]:
        _numbers(reveal)


def _lesson(lesson) -> None:
    """One lesson: setting, prediction and Check, then the reveal, the play control, the lab link, the takeaway."""
    st.header(lesson.title)
    chosen = _settings(lesson)
    st.markdown(text.escape_markdown(lesson.setting_text(chosen)))
    st.markdown(f"**{text.escape_markdown(lesson.question_text(chosen))}**")
    prediction = _prediction(lesson)
    st.button("Check", key=_key(lesson, "check"), type="primary", disabled=prediction is None,
              on_click=_check, args=(lesson, chosen, prediction),
              help="Commit to a prediction first; the answer is computed at your setting.")
    if error := ss.get(_key(lesson, "error")):
        st.error(text.escape_markdown(error))
    done = checked.get(lesson.number)
    if done is None:
        st.caption("Predict first: the answer appears when you press Check.")
        return
    feedback = done["feedback"]
    (st.success if feedback.correct else st.warning)(text.escape_markdown(feedback.text))
    if done["setting"] != chosen or done["prediction"] != prediction:
        st.caption("You changed the setting or the prediction since this check: press Check again to test it.")
    _numbers(done["reveal"])
    _play(lesson, done["setting"])
    own = [s.label.lower() for s in lesson.settings if s.key in lesson.not_in_lab]
    note = f" ({', '.join(own)}: not set there, the page shows its own)" if own else ""
    st.markdown(f"[Open this in the lab]({lesson.lab_link(done['setting'])}) — the "
                f"{text.escape_markdown(lesson.lab_title)} page with this setting{text.escape_markdown(note)} "
                "(opens in a new tab).")
    st.info(f"**Takeaway.** {text.escape_markdown(lesson.takeaway)}", icon=":material/lightbulb:")


st.title("Lessons")
st.markdown("Predict, then see: each lesson asks a question about landmark privacy, you commit to an answer, and "
            "the lab computes the truth at your own setting.")
explain.explain(
    "**How the lessons work.** Every answer is computed on the spot by the lmdk core with your setting and a fixed "
    f"seed ({lessons.SEED}), so a class sees the same numbers: the schemes' budgets and errors, Theorem 2's check, "
    "the neighbouring relation's Δ, the temporal privacy loss, the position attack with and without dummy "
    "landmarks, a district's total and PriSTE's calibration. Where a measured answer has noise, the 95 % "
    "confidence intervals are shown and a tie within them counts as a tie. The worksheet has every question (one "
    "lesson per printed page); the answer sheet has the answers at the default settings.",
    section="§2–§4; PriSTE §4")
if classroom.page():  # a live class (issue 56): the lecturer's view or a student's page instead of the lessons
    st.stop()
_from_url()
st.selectbox("Lesson", [lesson.number for lesson in lessons.LESSONS], format_func=_label, key=PICK)
st.query_params[QUERY] = str(ss[PICK])
_progress()
downloads = widgets.button_row(key="lessons_downloads")
download_deferred("Worksheet (HTML)", sheets.worksheet, lessons.LESSONS, key="dl_lessons_worksheet",
                  file_name="lmdk_lessons_worksheet.html", mime="text/html", container=downloads,
                  icon=":material/assignment:", help="Every question, printable, one lesson per page.")
download_deferred("Answer sheet (HTML)", sheets.answer_sheet, lessons.LESSONS, key="dl_lessons_answers",
                  file_name="lmdk_lessons_answers.html", mime="text/html", container=downloads,
                  icon=":material/fact_check:",
                  help="The answers and the numbers behind them at each lesson's default setting (fixed "
                       f"seed {lessons.SEED}: every copy agrees).")
classroom.start_button(ss[PICK], container=downloads)
_lesson(lessons.LESSONS[ss[PICK] - 1])
