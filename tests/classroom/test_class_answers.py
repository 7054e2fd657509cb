"""A class's rules on both stores: answers editable until the reveal (the last counts), refused after it, for another
lesson or when malformed; every write bumps the version; the lecturer's token guards reveal and move; a class expires
with its answers; a poll is one cheap read; a bad LMDK_CLASS_URL is a ParameterError naming the fix."""
from __future__ import annotations

import math
import os
import stat
import time

import pytest

from lmdk.classroom import data_dir, default_url, new_student_id, open_store
from lmdk.classroom import sql as class_sql
from lmdk.errors import ClassAccessError, ParameterError


def count_rows(store, table: str, code: str) -> int:
    """Rows of ``table`` for class ``code``, read straight from the database."""
    with store.read() as cur:
        cur.execute(store.q(f"SELECT COUNT(*) FROM {table} WHERE code = ?"), (code,))
        return int(cur.fetchone()[0])


def test_a_class_starts_at_its_lesson_and_setting_with_version_1(store, choice_lesson):
    code, token = store.start(choice_lesson.number)
    state = store.state(code.lower())
    assert (state.code, state.lesson, state.revealed, state.version) == (code, choice_lesson.number, False, 1)
    assert state.setting == choice_lesson.defaults()
    assert 23.9 * 3600 < state.expires_at - time.time() <= 24 * 3600
    tally = store.tally(code)
    assert tally.answered == 0 and tally.counts == dict.fromkeys(choice_lesson.choices, 0) and tally.values == ()


def test_answers_are_editable_until_the_reveal_and_the_last_counts(store, choice_lesson):
    code, token = store.start(choice_lesson.number)
    first, second, late = new_student_id(), new_student_id(), new_student_id()
    a, b = choice_lesson.choices[0], choice_lesson.choices[-1]
    store.answer(code, first, choice_lesson.number, a)
    store.answer(code, first, choice_lesson.number, b)  # changed their mind: the last counts
    store.answer(code, second, choice_lesson.number, a)
    assert store.my_answer(code, first, choice_lesson.number) == b
    assert store.my_answer(code, late, choice_lesson.number) is None
    tally = store.tally(code, choice_lesson.number)
    assert tally.answered == 2 and sum(tally.counts.values()) == 2
    assert tally.counts[a] == 1 + (a == b) and tally.counts[b] == 1 + (a == b)
    assert store.state(code).version == 1 + 3
    revealed = store.reveal(code, token)
    assert revealed.revealed and revealed.version == 5
    assert store.reveal(code, token).version == 5  # revealing again writes nothing
    for student in (first, late):
        with pytest.raises(ParameterError, match="revealed"):
            store.answer(code, student, choice_lesson.number, a)
    assert store.tally(code) == tally and store.state(code).version == 5


def test_answers_to_another_lesson_or_malformed_ones_are_refused(store, choice_lesson, number_lesson):
    code, _ = store.start(choice_lesson.number)
    student = new_student_id()
    with pytest.raises(ParameterError, match=f"on lesson {choice_lesson.number} now"):
        store.answer(code, student, number_lesson.number, 3.0)
    for bad in ["Maybe", "", None, 1.0, True, choice_lesson.choices[0].lower() + " ", "x" * 1_000_000]:
        with pytest.raises(ParameterError, match="one of"):
            store.answer(code, student, choice_lesson.number, bad)
    for lesson in [0, -1, 10_000, "1; DROP TABLE lmdk_classes", None, math.nan]:
        with pytest.raises(ParameterError, match="lesson"):
            store.answer(code, student, lesson, choice_lesson.choices[0])
    with pytest.raises(ParameterError, match="student id"):
        store.answer(code, "'; DELETE FROM lmdk_class_answers; --", choice_lesson.number, choice_lesson.choices[0])
    with pytest.raises(ParameterError, match="has ended or never existed"):
        store.answer("ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY", student, choice_lesson.number,
                     choice_lesson.choices[0])
    assert store.tally(code).answered == 0 and store.state(code).version == 1  # nothing refused was written


def test_number_answers_must_be_finite_and_not_negative(store, number_lesson):
    code, _ = store.start(number_lesson.number)
    student = new_student_id()
    for bad in [math.nan, "nan", -1, -1e-9, "-3", math.inf, "inf", "1e400", 10 ** 400, True, None, "", "3 kWh",
                [3], "9" * 100]:
        with pytest.raises(ParameterError, match="finite number"):
            store.answer(code, student, number_lesson.number, bad)
    store.answer(code, student, number_lesson.number, "2.5")
    store.answer(code, new_student_id(), number_lesson.number, 0)
    store.answer(code, new_student_id(), number_lesson.number, -0.0)
    assert store.my_answer(code, student, number_lesson.number) == 2.5
    tally = store.tally(code)
    assert tally.values == (0.0, 0.0, 2.5) and tally.answered == 3 and tally.counts == {}


def test_only_the_lecturers_token_reveals_or_moves_the_class(store, choice_lesson, other_lesson):
    code, token = store.start(choice_lesson.number)
    other_code, other_token = store.start(choice_lesson.number)
    for wrong in [other_token, "", None, token[:-1], token + "A", "x" * 1_000_000, "' OR 1=1 --"]:
        with pytest.raises(ClassAccessError, match="lecturer"):
            store.reveal(code, wrong)
        with pytest.raises(ClassAccessError, match="lecturer"):
            store.move(code, wrong, other_lesson.number)
        with pytest.raises(ClassAccessError, match="lecturer"):
            store.history(code, wrong)
    state = store.state(code)
    assert (state.revealed, state.lesson, state.version) == (False, choice_lesson.number, 1)
    assert store.state(other_code).version == 1


def test_only_the_tokens_digest_is_stored(store_url, store, choice_lesson):
    code, token = store.start(choice_lesson.number)
    with store.read() as cur:
        cur.execute(store.q("SELECT token_sha256 FROM lmdk_classes WHERE code = ?"), (code,))
        (stored,) = cur.fetchone()
    assert stored != token and token not in stored and len(stored) == 64
    if store_url.startswith("sqlite:///"):
        store.close()
        raw = b"".join(p.read_bytes() for p in store.path.parent.glob("classes.db*"))
        assert token.encode() not in raw and stored.encode() in raw


def test_the_store_keeps_no_data_beyond_the_answers(store):
    with store.read() as cur:
        cur.execute("SELECT * FROM lmdk_class_answers WHERE 1 = 0")
        columns = [d[0] for d in cur.description]
    assert columns == ["code", "lesson", "student", "choice", "value"]  # no name, no address, no time


def test_moving_keeps_a_lessons_answers_at_the_same_setting_and_drops_them_at_another(store, choice_lesson,
                                                                                      other_lesson):
    control = next(s for s in choice_lesson.settings if len(s.options) > 1)
    changed = next(o for o in control.options if o != control.default)
    code, token = store.start(choice_lesson.number)
    student = new_student_id()
    store.answer(code, student, choice_lesson.number, choice_lesson.choices[0])
    moved = store.move(code, token, other_lesson.number)
    assert (moved.lesson, moved.revealed, moved.setting, moved.version) == (
        other_lesson.number, False, other_lesson.defaults(), 3)
    back = store.move(code, token, choice_lesson.number)  # the same question again: its answers stay
    assert store.tally(code).answered == 1 and back.version == 4
    store.reveal(code, token)
    again = store.move(code, token, choice_lesson.number, {control.key: changed})  # another question
    assert not again.revealed and again.setting[control.key] == changed and again.version == 6
    assert store.tally(code).answered == 0 and store.my_answer(code, student, choice_lesson.number) is None
    with pytest.raises(ParameterError):
        store.move(code, token, choice_lesson.number, {control.key: "<b>not an option</b>"})
    with pytest.raises(ParameterError, match="lesson"):
        store.move(code, token, 0)
    assert store.state(code).version == 6
    assert [(a.lesson, a.setting) for a in store.history(code, token)] == [
        (other_lesson.number, other_lesson.defaults()), (choice_lesson.number, again.setting)]


def test_a_class_expires_and_its_answers_are_deleted(store, choice_lesson, monkeypatch):
    code, token = store.start(choice_lesson.number, ttl_hours=1)
    keep, _ = store.start(choice_lesson.number, ttl_hours=3)
    for target in (code, keep):
        for _ in range(3):
            store.answer(target, new_student_id(), choice_lesson.number, choice_lesson.choices[0])
    assert count_rows(store, "lmdk_class_answers", code) == 3
    later = time.time() + 2 * 3600
    monkeypatch.setattr(class_sql.time, "time", lambda: later)  # two hours on: the first class has ended
    for call in (lambda: store.state(code), lambda: store.tally(code), lambda: store.reveal(code, token),
                 lambda: store.answer(code, new_student_id(), choice_lesson.number, choice_lesson.choices[0])):
        with pytest.raises(ParameterError, match=f"class {code} has ended or never existed"):
            call()
    store.start(choice_lesson.number)  # starting a class purges the expired ones
    assert count_rows(store, "lmdk_class_answers", code) == 0
    assert count_rows(store, "lmdk_class_lessons", code) == 0 and count_rows(store, "lmdk_classes", code) == 0
    assert count_rows(store, "lmdk_class_answers", keep) == 3 and store.tally(keep).answered == 3
    assert store.purge_expired(now=later + 2 * 3600) == 1  # four hours on, ``keep`` (3 h) has ended; 24 h has not
    assert count_rows(store, "lmdk_class_answers", keep) == 0


def test_the_lifetime_is_configurable_and_bounded(store, choice_lesson, monkeypatch):
    monkeypatch.setenv("LMDK_CLASS_TTL_HOURS", "2")
    code, _ = store.start(choice_lesson.number)
    assert 1.99 * 3600 < store.state(code).expires_at - time.time() <= 2 * 3600
    code, _ = store.start(choice_lesson.number, ttl_hours=0.5)  # the argument wins over the environment
    assert store.state(code).expires_at - time.time() <= 1800
    for bad in [0, -1, math.nan, math.inf, 24 * 7 + 1, "x", True]:
        with pytest.raises(ParameterError, match="ttl_hours"):
            store.start(choice_lesson.number, ttl_hours=bad)
    monkeypatch.setenv("LMDK_CLASS_TTL_HOURS", "forever")
    with pytest.raises(ParameterError, match="LMDK_CLASS_TTL_HOURS"):
        store.start(choice_lesson.number)


def test_a_poll_is_well_under_a_millisecond_on_sqlite(tmp_path, choice_lesson):
    with open_store(f"sqlite:///{tmp_path / 'classes.db'}") as store:
        code, _ = store.start(choice_lesson.number)
        for _ in range(50):
            store.answer(code, new_student_id(), choice_lesson.number, choice_lesson.choices[0])
        for _ in range(200):  # warm
            store.state(code)
        calls = 5000
        start = time.perf_counter()
        for _ in range(calls):
            store.state(code)
        per_call = (time.perf_counter() - start) / calls
    print(f"state(): {per_call * 1e6:.1f} µs per call on SQLite")
    assert per_call < 0.001


def test_the_poll_reads_the_class_by_its_primary_key(tmp_path, choice_lesson):
    with open_store(f"sqlite:///{tmp_path / 'classes.db'}") as store:
        with store.read() as cur:
            cur.execute(f"EXPLAIN QUERY PLAN SELECT {class_sql.STATE_COLUMNS} FROM lmdk_classes WHERE code = ?",
                        ("ABCDEF",))
            plan = " ".join(str(row[-1]) for row in cur.fetchall())
    assert "USING INDEX" in plan and "SCAN" not in plan


@pytest.mark.parametrize("url", ["mysql://u@h/db", "sqlite://relative.db", "classes.db", "sqlite:///",
                                 "postgresql://u:hunter2@host:notaport/db", "postgresql://u:hunter2@[::1/db",
                                 "http://example.org", "x" * 10_000])
def test_a_bad_class_url_names_the_variable_and_the_accepted_forms(url, monkeypatch):
    monkeypatch.setenv("LMDK_CLASS_URL", url)
    with pytest.raises(ParameterError, match="LMDK_CLASS_URL") as caught:
        open_store()
    assert "hunter2" not in str(caught.value)
    assert ("sqlite:///" in str(caught.value) and "postgresql://" in str(caught.value)) or url.startswith("postgres")


def test_a_file_that_is_not_a_class_database_is_a_parameter_error(tmp_path):
    path = tmp_path / "not.db"
    path.write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(ParameterError, match="LMDK_CLASS_URL"):
        open_store(f"sqlite:///{path}")
    with pytest.raises(ParameterError, match="does not exist"):
        open_store(f"sqlite:///{tmp_path / 'missing' / 'classes.db'}")


def test_the_default_store_is_a_file_in_a_private_data_folder(tmp_path, monkeypatch, choice_lesson):
    monkeypatch.delenv("LMDK_CLASS_URL", raising=False)
    monkeypatch.setenv("LMDK_DATA_DIR", str(tmp_path / "a" / "b"))
    folder = data_dir()
    assert folder == (tmp_path / "a" / "b").resolve() and folder.is_dir()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert default_url() == f"sqlite:///{folder / 'classes.db'}"
    with open_store() as store:
        code, _ = store.start(choice_lesson.number)
        assert store.state(code).lesson == choice_lesson.number
    assert (folder / "classes.db").is_file()
    monkeypatch.delenv("LMDK_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == (tmp_path / "xdg" / "lmdk").resolve()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("LMDK_DATA_DIR", str(tmp_path / "file" / "sub"))
    with pytest.raises(ParameterError, match="LMDK_DATA_DIR"):
        data_dir()


def test_an_expired_class_is_deleted_when_looked_at_or_when_a_server_opens_the_store(store_url, store, choice_lesson,
                                                                                 monkeypatch):
    looked, _ = store.start(choice_lesson.number, ttl_hours=1)
    unseen, _ = store.start(choice_lesson.number, ttl_hours=3)
    for target in (looked, unseen):
        store.answer(target, new_student_id(), choice_lesson.number, choice_lesson.choices[0])
    later = time.time() + 2 * 3600
    monkeypatch.setattr(class_sql.time, "time", lambda: later)
    with pytest.raises(ParameterError, match="has ended"):
        store.state(looked)  # a student's poll after the end: nothing of the class is left
    assert count_rows(store, "lmdk_class_answers", looked) == 0 and count_rows(store, "lmdk_classes", looked) == 0
    assert count_rows(store, "lmdk_class_answers", unseen) == 1  # not ended yet: kept
    monkeypatch.undo()
    with store.write() as cur:
        store.run(cur, "UPDATE lmdk_classes SET expires_at = ? WHERE code = ?", (time.time() - 1, unseen))
    assert count_rows(store, "lmdk_class_answers", unseen) == 1
    reopened = open_store(store_url)  # a server starting after the end deletes it before anyone asks
    try:
        assert count_rows(reopened, "lmdk_class_answers", unseen) == 0
        assert count_rows(reopened, "lmdk_classes", unseen) == 0
    finally:
        reopened.close()


def test_a_lesson_takes_answers_from_at_most_max_students_and_theirs_stay_editable(store, choice_lesson,
                                                                                     monkeypatch):
    # anyone with the join link can make up student ids: a scripted visitor must not grow a class without bound
    monkeypatch.setattr(class_sql, "MAX_STUDENTS", 3)
    code, _ = store.start(choice_lesson.number)
    first, second = choice_lesson.choices[:2]
    students = [new_student_id() for _ in range(4)]
    for sid in students[:3]:
        store.answer(code, sid, choice_lesson.number, first)
    version = store.state(code).version
    with pytest.raises(ParameterError, match=r"answers from 3 students, the most a class takes"):
        store.answer(code, students[3], choice_lesson.number, first)
    assert store.state(code).version == version  # the refused write left nothing, not even the version bump
    store.answer(code, students[0], choice_lesson.number, second)  # one already counted may still change theirs
    assert count_rows(store, "lmdk_class_answers", code) == 3
    assert store.my_answer(code, students[0], choice_lesson.number) == second
    assert store.my_answer(code, students[3], choice_lesson.number) is None
