"""The live class on the Lessons page (issue 56): Start a class, the lecturer's view and a student's page, drawn over
the core's store (lmdk.classroom).

- The lecturer's session holds the class code and the lecturer token in ``st.session_state`` only. A resume link
  (``?class=CODE&lecturer=TOKEN``, offered as a private download) is taken into the session and removed from the
  address when the page opens, so the token never reaches a copied or shared link.
- A student's address is ``/lessons?class=CODE&student=ID``: the random id survives a reload; nothing else about
  the student is kept.
- Both views poll the class's state in a fragment every ``POLL_S`` seconds. A student's poll compares what the
  page was drawn for (lesson, setting, revealed) and does nothing else unless it changed, when the whole page
  reruns; the lecturer's poll reruns the view only when the class's version changed (an answer, a reveal, a
  move), and the tally is recomputed only then.
"""
from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from urllib.parse import urlsplit

import streamlit as st

from lmdk import lessons
from lmdk.classroom import check_code, check_student, new_student_id, open_store, summary_csv, summary_html
from lmdk.errors import ClassStoreUnavailable, LmdkError, ParameterError
from ui import auth, epsilon_meaning, text
from ui.charts import PLOTLY_KW, alt_text, class_charts
from ui.downloads import download_deferred

CLASS_QUERY = "class"  # ?class=CODE: a student's join link
STUDENT_QUERY = "student"  # ?student=ID: the student's anonymous id, kept in the address across reloads
LECTURER_QUERY = "lecturer"  # a resume link's token: taken into the session, removed from the address at once
PUBLIC_URL_ENV = "LMDK_PUBLIC_URL"  # the join link's host when the browser's address is not the one students reach
POLL_S = 2.5  # the fragments' refresh (the issue asks for 2–3 s)
PAGE_PATH = "lessons"

LECTURER = "_class_lecturer"  # {"code", "token"}: the class this session runs (never in the address)
STUDENT = "_class_student"  # this session's student id
ERROR = "_class_error"  # the last store error of a button's callback, shown once
VIEW = "_class_view"  # the lecturer's last tally view: {"version", "tally", "figure"}
QR = "_class_qr"  # (link, PNG bytes) of the join link's QR code

STORE_FIX = ("the live class needs a writable store: set LMDK_DATA_DIR to a folder this server may write (the "
             "default is a per-user data folder), or LMDK_CLASS_URL to sqlite:///ABSOLUTE/PATH.db or "
             "postgresql://…")
ss = st.session_state


@st.cache_resource(show_spinner=False)
def _shared_store(url: str, data: str):
    """One store per database for every session of this server (the store serialises its own writes); keyed by
    the two settings that choose it, so a poll reads no file system to find it."""
    return open_store()


def store():
    """The class store of this deployment (``LMDK_CLASS_URL``, else the SQLite file under ``LMDK_DATA_DIR``)."""
    return _shared_store(os.environ.get("LMDK_CLASS_URL", ""), os.environ.get("LMDK_DATA_DIR", ""))


def _store_error(exc: Exception) -> None:
    """A store that cannot be opened or written, said with the settings that fix it."""
    st.error(f"The class store is not available: {text.escape_markdown(exc)}. Fix: {text.escape_markdown(STORE_FIX)}.")


STORE_ERRORS = (LmdkError, OSError)  # the core wraps database errors in ClassStoreUnavailable (an LmdkError)


@st.cache_resource(show_spinner=False, max_entries=256)
def _reveal(number: int, setting_json: str):
    """A lesson's reveal at a class's setting, computed once per server for every student of the class."""
    return lessons.lesson(number).reveal(json.loads(setting_json))


def reveal(number: int, setting: dict):
    """The class lesson's computed answer at its setting (shared by the room); None after saying why it could not
    be computed."""
    try:
        return _reveal(number, json.dumps(setting, sort_keys=True))
    except LmdkError as exc:
        st.error(f"The answer could not be computed: {text.escape_markdown(exc)}")
        return None


# ---------------------------------------------------------------- links


def public_base() -> str:
    """The app's address as students reach it: ``LMDK_PUBLIC_URL`` when set (an http(s) URL), else the browser's."""
    configured = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if configured:
        return checked_base(configured, PUBLIC_URL_ENV)
    return browser_base()


def browser_base() -> str:
    """The app's address in this browser (``st.context.url`` without the page's path)."""
    url = st.context.url or "http://localhost:8501/"
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if path.endswith("/" + PAGE_PATH):
        path = path[: -len(PAGE_PATH) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def checked_base(url: str, name: str) -> str:
    """``url`` as a base address (no trailing slash) if it is http(s) with a host and no query, else an error."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ParameterError(f"{name} must be the app's public address, an http:// or https:// URL with a host and no "
                        f"query, e.g. https://lmdk.example.org, got {url!r}")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def join_link(base: str, code: str) -> str:
    """The link students open: the Lessons page with the class code (and nothing else)."""
    return f"{base}/{PAGE_PATH}?{CLASS_QUERY}={code}"


def resume_link(base: str, code: str, token: str) -> str:
    """The lecturer's private link back to their class (the page removes the token from the address on open)."""
    return f"{base}/{PAGE_PATH}?{CLASS_QUERY}={code}&{LECTURER_QUERY}={token}"


def qr_png(link: str) -> bytes:
    """The QR code of ``link`` as a PNG big enough to scan from the back of a room (medium error correction)."""
    import segno

    out = io.BytesIO()
    segno.make(link, error="m", micro=False).save(out, kind="png", scale=12, border=3)
    return out.getvalue()


# ---------------------------------------------------------------- start


def take_resume_link() -> None:
    """A resume link's token goes into this session and out of the address before anything is drawn."""
    token = st.query_params.get(LECTURER_QUERY)
    if token is None:
        return
    del st.query_params[LECTURER_QUERY]
    raw = st.query_params.get(CLASS_QUERY)
    if CLASS_QUERY in st.query_params:
        del st.query_params[CLASS_QUERY]
    try:
        ss[LECTURER] = {"code": check_code(raw), "token": str(token)}
    except LmdkError:
        st.error("This resume link is not valid: open the class from the page that started it, or start a new one.")


def may_start() -> tuple[bool, str]:
    """Whether this visitor may start a class, and why not: where a login is configured, only a logged-in user."""
    access = auth.current()
    if access.login and access.subject is None:
        return False, "Log in to start a class: this deployment lets logged-in users run classes."
    return True, "Students join with a link and a QR code; you see their predictions live, then reveal the answer."


def start_button(number: int, container=None) -> None:
    """The "Start a class" button (in ``container``): a new class at lesson ``number`` run from this session."""
    allowed, why = may_start()
    (container or st).button("Start a class", key="class_start", icon=":material/co_present:",
                             disabled=not allowed, help=why, on_click=_start, args=(number,))
    _shown_error()


def _start(number: int) -> None:
    """Open a class at lesson ``number`` (the button's callback)."""
    try:
        code, token = store().start(number)
    except STORE_ERRORS as exc:
        ss[ERROR] = str(exc)
        return
    ss.pop(ERROR, None)
    ss.pop(VIEW, None)
    ss[LECTURER] = {"code": code, "token": token}


def _shown_error() -> None:
    """The last callback's store error, once."""
    if error := ss.pop(ERROR, None):
        st.error(f"{text.escape_markdown(error)}. If the store cannot be written: "
                 f"{text.escape_markdown(STORE_FIX)}.")


def lecturing() -> dict | None:
    """The class this session runs ({"code", "token"}), unless the address opens another class as a student."""
    held = ss.get(LECTURER)
    if not held:
        return None
    wanted = st.query_params.get(CLASS_QUERY)
    if wanted is not None and wanted != held["code"]:
        return None
    if wanted is not None:
        del st.query_params[CLASS_QUERY]
    return held


def page() -> bool:
    """The Lessons page in a live class: the lecturer's view or a student's page; False when neither (a bad or
    ended class link is said first), and the lessons go on as usual."""
    take_resume_link()
    held = lecturing()
    if held is not None:
        lecturer(held)
        return True
    place = joined()
    return place is not None and student(*place)


# ---------------------------------------------------------------- students


def joined() -> tuple[str, str] | None:
    """(class code, student id) of a join link, or None; a bad or ended class is said here (and is None)."""
    raw = st.query_params.get(CLASS_QUERY)
    if raw is None:
        return None
    try:
        code = check_code(raw)
    except LmdkError:
        st.error("This class link is not valid (its class code is wrong): ask your lecturer for the new link. "
                 "Meanwhile the lessons below work on your own.", icon=":material/link_off:")
        return None
    return code, student_id()


def student_id() -> str:
    """The student's id from the address (a reload keeps it); a missing or malformed one becomes a fresh id."""
    raw = st.query_params.get(STUDENT_QUERY)
    try:
        sid = check_student(raw)
    except LmdkError:
        sid = ss.get(STUDENT) or new_student_id()
    ss[STUDENT] = sid
    if raw != sid:
        st.query_params[STUDENT_QUERY] = sid
    return sid


def student(code: str, sid: str) -> bool:
    """A student's page of class ``code``: the class's lesson at its setting, Check sends, the reveal follows.
    False (after saying why) when the class cannot be shown."""
    state = _state_or_say(code, f"Class {code} has ended or never existed: ask your lecturer for the new link. "
                                "Meanwhile the lessons below work on your own.", icon=":material/event_busy:")
    if state is None:
        return False
    lesson = lessons.lesson(state.lesson)
    setting = lesson.values(state.setting)
    st.caption(f"Class {code} · you are anonymous: a random id in this page's address keeps your answer, nothing "
               "else about you is stored.")
    st.header(lesson.title)
    st.markdown(text.escape_markdown(lesson.setting_text(setting)))
    _epsilon_captions(setting)
    st.markdown(f"**{text.escape_markdown(lesson.question_text(setting))}**")
    try:
        sent = store().my_answer(code, sid, lesson.number)
    except STORE_ERRORS as exc:
        _store_error(exc)
        sent = None
    with st.container(key="class_student_answer"):
        if state.revealed:
            _student_reveal(lesson, setting, sent)
        else:
            _student_predict(code, sid, lesson, sent)
    _follow(code, _drawn(state))
    return True


class _StoreFailed(LmdkError):
    """The store could not be opened (its message names the setting at fault)."""


def _opened():
    """The store, or a _StoreFailed when it cannot be opened (a class error is then not mistaken for it)."""
    try:
        return store()
    except STORE_ERRORS as exc:
        raise _StoreFailed(str(exc)) from None


def _epsilon_captions(setting: dict) -> None:
    """What the class's ε means, in the world's terms (the students have no ε control for its caption)."""
    for key in filter(epsilon_meaning.is_epsilon_key, setting):
        epsilon_meaning.caption(setting[key])


def _state_or_say(code: str, ended: str, icon: str | None = None):
    """The class's state, or None after saying why: the store failing (naming its settings) or ``ended``."""
    try:
        return _opened().state(code)
    except STORE_ERRORS as exc:
        if _is_store_failure(exc):
            _store_error(exc)
        else:
            st.error(ended, icon=icon)
        return None


def _is_store_failure(exc: Exception) -> bool:
    """Whether ``exc`` is the store failing (rather than the class being unknown or over)."""
    return isinstance(exc, (OSError, ClassStoreUnavailable, _StoreFailed))


def _student_predict(code: str, sid: str, lesson, sent) -> None:
    """The prediction, Check (sends it), and whether it was sent."""
    key = f"class_{code}_{lesson.number}_prediction"
    if key not in ss and sent is not None:
        ss[key] = sent  # a reload shows the answer already sent
    if lesson.choices:
        prediction = st.radio("Your prediction", lesson.choices, index=None, key=key)
    else:
        prediction = st.number_input(f"Your prediction: {lesson.number_label.lower()}", min_value=0.0, value=None,
                                     step=1.0, format="%g", key=key)
    st.button("Check", key="class_check", type="primary", disabled=prediction is None,
              on_click=_send, args=(code, sid, lesson.number, prediction),
              help="Sends your prediction to the lecturer; you can change it until they reveal the answer.")
    _shown_error()
    if sent is None:
        st.caption("Predict, then press Check: the lecturer sees the room's predictions and reveals the answer.")
    elif sent == prediction:
        st.success("Sent — waiting for the lecturer to reveal. You can change your answer and press Check again "
                   "until then.", icon=":material/hourglass_top:")
    else:
        st.info(f"Sent: {text.escape_markdown(_shown(sent))}. Press Check again to send your new prediction instead.")


def _send(code: str, sid: str, number: int, prediction) -> None:
    """Store the student's answer (the Check button's callback); a refusal is shown."""
    try:
        store().answer(code, sid, number, prediction)
    except STORE_ERRORS as exc:
        ss[ERROR] = str(exc)
    else:
        ss.pop(ERROR, None)


def _student_reveal(lesson, setting: dict, sent) -> None:
    """After the lecturer's reveal: the student's verdict, the answer and the numbers behind it."""
    shown = reveal(lesson.number, setting)
    if shown is None:
        return
    if sent is None:
        st.info(f"You did not send a prediction. The answer: **{text.escape_markdown(shown.answer_text)}**.")
        st.markdown(text.escape_markdown(shown.why))
    else:
        st.markdown(f"Your prediction: **{text.escape_markdown(_shown(sent))}**")
        feedback = shown.judge(sent)
        (st.success if feedback.correct else st.warning)(text.escape_markdown(feedback.text))
    numbers(shown)
    st.info(f"**Takeaway.** {text.escape_markdown(lesson.takeaway)}", icon=":material/lightbulb:")


def _shown(prediction) -> str:
    """A prediction as a reader sees it."""
    return f"{prediction:g}" if isinstance(prediction, float) else str(prediction)


def numbers(shown) -> None:
    """The numbers behind a reveal, as a two-column table."""
    rows = "\n".join(f"| {text.escape_markdown(k)} | {text.escape_markdown(v)} |" for k, v in shown.numbers.items())
    st.markdown("| quantity | value |\n|---|---|\n" + rows)


def _drawn(state) -> tuple:
    """What a student's page shows of the class: a change of any of it redraws the whole page."""
    return state.lesson, json.dumps(state.setting, sort_keys=True), state.revealed


@st.fragment(run_every=POLL_S)
def _follow(code: str, drawn: tuple) -> None:
    """Every POLL_S seconds: one read of the class's state; the whole page reruns only when the lesson, its setting
    or the reveal changed (other students' answers change nothing here)."""
    try:
        state = store().state(code)
    except STORE_ERRORS:
        st.rerun(scope="app")  # the full run says what went wrong
    if _drawn(state) != drawn:
        st.rerun(scope="app")


# ---------------------------------------------------------------- the lecturer


def lecturer(held: dict) -> None:
    """The lecturer's view: the join link and QR code, the current lesson, the live tally, Reveal, moves,
    summaries, End class."""
    code, token = held["code"], held["token"]
    state = _state_or_say(code, f"Class {code} has ended (a class lasts 24 hours) or never existed: end it here "
                                "and start a new one.")
    if state is None:
        st.button("End class", key="class_end", on_click=_end, icon=":material/logout:")
        return
    _join(code, token)
    lesson = lessons.lesson(state.lesson)
    setting = lesson.values(state.setting)
    st.header(lesson.title)
    st.markdown(text.escape_markdown(lesson.setting_text(setting)))
    _epsilon_captions(setting)
    st.markdown(f"### {text.escape_markdown(lesson.question_text(setting))}")
    _buttons(code, token, state)  # above the tally: on a projector they stay near the top after a reveal
    _shown_error()
    _tally(code, state)
    _watch(code, state.version)
    _more(code, token, state)


def _join(code: str, token: str) -> None:
    """The join link in large text and its QR code, side by side (stacked on a narrow screen)."""
    try:
        base = public_base()
    except LmdkError as exc:
        st.error(text.escape_markdown(exc))
        base = browser_base()
    link = join_link(base, code)
    cached = ss.get(QR)
    if not cached or cached[0] != link:
        cached = ss[QR] = (link, qr_png(link))
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left, st.container(key="class_join_link"):
        st.markdown("Join the class: open")
        # breaks only after a "/" or before the "?" (never inside "class"), smaller on a narrow screen
        st.markdown(f'<p style="font-size: clamp(1.5rem, 3vw, 2.6rem); font-weight: 600; line-height: 1.2; '
                    f'overflow-wrap: anywhere; margin: 0">{breakable(link)}</p>', unsafe_allow_html=True)
        st.markdown(f'<p style="font-size: 1.6rem; margin: 0.5rem 0 0">class code <strong>{_html(code)}</strong>'
                    "</p>", unsafe_allow_html=True)
        st.caption("Students stay anonymous: a random id in their page's address, nothing else.")
    with right, st.container(key="class_qr"):
        st.image(cached[1], width=300, output_format="PNG", alt=f"QR code of the join link {link}")
    download_deferred("Resume link (private)", _resume_file, (base, code, token), key="class_resume",
                      file_name=f"lmdk_class_{code}_resume.txt", mime="text/plain", icon=":material/key:",
                      help="A link back to this lecturer's view if this tab closes. Keep it private: it controls "
                           "the class. It is never shown on screen.")


def breakable(link: str) -> str:
    """``link`` as HTML with line-break opportunities (``<wbr>``) after each single "/" and before the "?"."""
    return re.sub(r"(?<!/)/(?!/)", "/<wbr>", _html(link)).replace("?", "<wbr>?")


def _resume_file(args) -> str:
    """The resume download's text."""
    base, code, token = args
    return ("Open this link to take your live class back (keep it private: it controls the class):\n"
            f"{resume_link(base, code, token)}\n")


def _html(value) -> str:
    """Text for an HTML snippet."""
    import html

    return html.escape(str(value))


@st.fragment(run_every=POLL_S)
def _watch(code: str, drawn_version: int) -> None:
    """Every POLL_S seconds: one read of the class's state; the lecturer's view reruns only when the class changed
    (an answer, a reveal, a move). A poll that draws nothing stays cheap: redrawing the chart on every poll cost
    more than the issue's 5 ms per refresh."""
    try:
        state = store().state(code)
    except STORE_ERRORS:
        st.rerun(scope="app")
    if state.version != drawn_version:
        st.rerun(scope="app")


def _tally(code: str, state) -> None:
    """"N answered" and the room's distribution; recomputed only when the class's version changed, else drawn from
    the session."""
    view = ss.get(VIEW)
    if view is None or view["version"] != (code, state.version):
        view = ss[VIEW] = _tally_view(code, state)
    tally, figure = view["tally"], view["figure"]
    with st.container(key="class_answered"):
        st.metric("Answered", f"{tally.answered}", help="Students who sent a prediction for this lesson (the "
                  "last one each sent counts).")
    if view["answer"] is None:
        st.plotly_chart(figure, key="class_distribution", **PLOTLY_KW)
        alt_text.describe("class_distribution", view["columns"], what=view["what"])
        return
    # one row: the room's distribution, and beside it the answer (centred on each other: whichever is shorter
    # leaves its gap above and below, not one big gap under it)
    with st.container(key="class_revealed"):
        chart, said = st.columns(2, gap="medium", vertical_alignment="center")
        with chart:
            st.plotly_chart(figure, key="class_distribution", **PLOTLY_KW)
            alt_text.describe("class_distribution", view["columns"], what=view["what"])
        with said:
            _answer(view)
    # full width and folded: in a narrow column its values wrapped line by line and pushed the page long
    with st.expander("The numbers behind the answer"):
        numbers(view["answer"])


def _answer(view: dict) -> None:
    """The revealed answer beside the chart: the answer, the room's share that predicted it, why. The chart's choice
    labels sit above its bars (class_charts.choices), so half the row at 1024 px is wide enough for them."""
    with st.container(key="class_answer"):
        st.markdown(f'<p style="font-size: 1.4rem; margin: 0">The answer</p><p style="font-size: clamp(1.6rem, '
                    f'2.6vw, 2.4rem); font-weight: 600; line-height: 1.2; margin: 0">'
                    f'{_html(view["answer"].answer_text).replace(" %", "&nbsp;%")}</p>', unsafe_allow_html=True)
        if view["right"] is not None:
            st.markdown(f"**{view['right']}** of the room predicted it.")
        st.markdown(text.escape_markdown(view["answer"].why))


def _tally_view(code: str, state) -> dict:
    """The tally of the class's current lesson, its chart and (once revealed) the answer beside it."""
    tally = store().tally(code)
    lesson = lessons.lesson(state.lesson)
    shown = reveal(lesson.number, lesson.values(state.setting)) if state.revealed else None
    meta = {"answered": tally.answered, "lesson": lesson.number, "revealed": state.revealed}
    right: str | None = None
    if lesson.choices:
        good = tuple(shown.correct_choices or (shown.answer,)) if shown else ()
        figure = class_charts.choices(tally.counts, good, meta=meta)
        named = list(dict.fromkeys([*lesson.choices, *tally.counts]))
        columns: dict = {"choice": named, "predictions": [tally.counts.get(c, 0) for c in named]}
        if shown:
            columns["right"] = [c in good for c in named]
        if shown and tally.answered:
            hits = sum(tally.counts.get(c, 0) for c in good)
            right = f"{hits} of {tally.answered} ({100 * hits / tally.answered:.0f} %)"
    else:
        answer = float(shown.answer) if shown else None
        figure = class_charts.histogram(tally.values, answer, meta=meta)
        columns = {"prediction": list(tally.values)}
        if shown and tally.answered:
            hits = sum(shown.judge(v).correct for v in tally.values)
            right = f"{hits} of {tally.answered} ({100 * hits / tally.answered:.0f} %, within 10 %)"
    what = f"The room's predictions ({tally.answered} answered)"
    return {"version": (code, state.version), "tally": tally, "figure": figure, "answer": shown, "right": right,
            "columns": columns, "what": what}


def _buttons(code: str, token: str, state) -> None:
    """Reveal, Next lesson and End class, in one row."""
    last = state.lesson >= len(lessons.LESSONS)
    row = st.container(horizontal=True, gap="medium")
    row.button("Reveal", key="class_reveal", type="primary", disabled=state.revealed, icon=":material/visibility:",
               on_click=_act, args=(lambda s: s.reveal(code, token),),
               help="Shows the computed answer beside the room's predictions and on every student's screen.")
    row.button("Next lesson", key="class_next", disabled=last, icon=":material/skip_next:",
               on_click=_act, args=(lambda s: s.move(code, token, state.lesson + 1),),
               help="Moves the class to the next lesson at its default setting; the students' pages follow.")
    row.button("End class", key="class_end", on_click=_end, icon=":material/logout:",
               help="Leaves class mode on this page. The class's answers are deleted when it expires (24 hours).")


def _more(code: str, token: str, state) -> None:
    """The summaries and a lesson picker with its setting."""
    downloads = st.container(horizontal=True, gap="small")
    download_deferred("Summary (CSV)", _summary, (summary_csv, code, token), key="class_summary_csv",
                      file_name=f"lmdk_class_{code}.csv", mime="text/csv", container=downloads,
                      icon=":material/table:", help="One row per lesson asked: answers, counts, the answer.")
    download_deferred("Summary (HTML)", _summary, (summary_html, code, token), key="class_summary_html",
                      file_name=f"lmdk_class_{code}.html", mime="text/html", container=downloads,
                      icon=":material/bar_chart:", help="A printable page of the room's distributions.")
    with st.expander("Move the class to another lesson or setting"):
        number = st.selectbox("Lesson", [x.number for x in lessons.LESSONS], key="class_pick",
                              index=state.lesson - 1, format_func=lambda n: lessons.LESSONS[n - 1].title)
        target = lessons.lesson(number)
        box = st.container(horizontal=True, gap="medium")
        chosen = {s.key: box.select_slider(s.label, options=s.options, value=s.default, width=260,
                                           key=f"class_setting_{number}_{s.key}",
                                           format_func=lambda v: f"{v:g}" if isinstance(v, float) else str(v))
                  for s in target.settings}
        st.button("Move the class", key="class_move", icon=":material/move_down:",
                  on_click=_act, args=(lambda s: s.move(code, token, number, chosen),),
                  help="The class goes to this lesson at this setting, not revealed; the students' pages follow.")


def _act(action: Callable) -> None:
    """Run a lecturer's action on the store (a button's callback); a refusal is shown."""
    try:
        action(store())
    except STORE_ERRORS as exc:
        ss[ERROR] = str(exc)
    else:
        ss.pop(ERROR, None)
        ss.pop(VIEW, None)


def _summary(args) -> bytes:
    """A summary download built on click."""
    build, code, token = args
    return build(store(), code, token)


def _end() -> None:
    """Leave class mode (the class itself expires with its answers)."""
    for key in (LECTURER, VIEW, QR, ERROR):
        ss.pop(key, None)
