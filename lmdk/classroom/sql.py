"""What the SQLite and PostgreSQL class stores share: the tables and every statement of a class.

``lmdk_classes`` (code, token_sha256, lesson, setting, revealed, version, expires_at): one row per class;
``lmdk_class_lessons`` (code, lesson, setting, asked): the lessons a class was asked, for the summary;
``lmdk_class_answers`` (code, lesson, student, choice, value): one row per student and lesson, the last answer.
Nothing else is kept: no names, no addresses, no times of answers; a class and its rows are deleted when it expires.

Every write is one transaction that first updates the class's row (``version = version + 1``): the row's write lock
orders the writes of one class (SQLite: ``BEGIN IMMEDIATE`` takes the file's lock; PostgreSQL, read committed: the
row lock, re-checked after a wait), so an answer never lands after the reveal it raced, none is lost, and the
version grows by exactly one per write. A poll (:meth:`SqlClassStore.state`) is one primary-key read.
"""
from __future__ import annotations

import json
import threading
import time
from contextlib import AbstractContextManager

from lmdk.classroom.codes import check_code, check_student, check_token, new_code, new_token, token_digest
from lmdk.classroom.model import (
    Asked,
    ClassState,
    Tally,
    check_prediction,
    lesson_at,
    make_tally,
    stored_prediction,
    ttl_seconds,
)
from lmdk.errors import ClassStoreUnavailable, ParameterError
from lmdk.lessons import lesson as find_lesson

CODE_ATTEMPTS = 20
"""New codes tried when the first is taken (with 10⁹ codes and a handful of live classes, one is plenty)."""
STATE_COLUMNS = "lesson, setting, revealed, version, expires_at"
MAX_STUDENTS = 5000
"""Students a class takes answers from per lesson (a lecture hall with room to spare): anyone holding the join link
can make up student ids, so without a bound one scripted visitor could grow a class's rows for as long as it lives."""


def schema(real: str, integer: str) -> str:
    """The tables with the backend's float and integer types."""
    return f"""
CREATE TABLE IF NOT EXISTS lmdk_classes (code TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL, lesson {integer} NOT NULL,
    setting TEXT NOT NULL, revealed {integer} NOT NULL, version {integer} NOT NULL, expires_at {real} NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_classes_by_expiry ON lmdk_classes (expires_at);
CREATE TABLE IF NOT EXISTS lmdk_class_lessons (code TEXT NOT NULL, lesson {integer} NOT NULL, setting TEXT NOT NULL,
    asked {integer} NOT NULL, PRIMARY KEY (code, lesson));
CREATE TABLE IF NOT EXISTS lmdk_class_answers (code TEXT NOT NULL, lesson {integer} NOT NULL, student TEXT NOT NULL,
    choice TEXT, value {real}, PRIMARY KEY (code, lesson, student));
"""


def ended(code: str) -> ParameterError:
    """The error for a class that is unknown or expired."""
    return ParameterError(f"class {code} has ended or never existed; ask the lecturer for the current join link")


def dump(setting: dict) -> str:
    """A setting as stored (JSON, keys sorted)."""
    return json.dumps(setting, sort_keys=True, ensure_ascii=False)


class SqlClassStore:
    """A class store in a database: a backend gives ``write()`` and ``read()`` (context managers yielding a DB-API
    cursor, in one write transaction or for a read), ``placeholder`` and ``name``. One connection per store,
    used by one thread at a time (``self.lock``); several stores (processes, replicas) share the database."""

    name = "class store"
    placeholder = "?"

    def __init__(self) -> None:
        """The lock that orders this store's use of its connection."""
        self.lock = threading.RLock()

    def write(self) -> AbstractContextManager:  # pragma: no cover - every backend overrides it
        """A cursor inside one write transaction, committed when the block ends."""
        raise NotImplementedError

    def read(self) -> AbstractContextManager:  # pragma: no cover - every backend overrides it
        """A cursor for single-statement reads."""
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - every backend overrides it
        """Release the connection."""
        raise NotImplementedError

    def __enter__(self):
        """The store itself (closed when the block ends)."""
        return self

    def __exit__(self, *exc) -> None:
        """Close the store."""
        self.close()

    def q(self, sql: str) -> str:
        """The statement with ``?`` placeholders in the backend's style."""
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def run(self, cur, sql: str, args: tuple = ()) -> None:
        """Execute ``sql`` (written with ``?``) on ``cur``."""
        cur.execute(self.q(sql), args)

    # --- the lecturer ------------------------------------------------------------------------------------------

    def start(self, lesson: int, setting: dict | None = None, ttl_hours: float | None = None) -> tuple[str, str]:
        """A new class at ``lesson`` (its setting's defaults overridden by ``setting``): (code, lecturer token).
        The class lives ``ttl_hours`` (else ``LMDK_CLASS_TTL_HOURS``, else 24 h); expired classes are purged first."""
        found, values = lesson_at(lesson, setting)
        lifetime = ttl_seconds(ttl_hours)
        self.purge_expired()
        token = new_token()
        for _ in range(CODE_ATTEMPTS):
            code, now = new_code(), time.time()
            with self.write() as cur:
                self.run(cur, "INSERT INTO lmdk_classes (code, token_sha256, lesson, setting, revealed, version, "
                              "expires_at) VALUES (?, ?, ?, ?, 0, 1, ?) ON CONFLICT (code) DO NOTHING",
                         (code, token_digest(token), found.number, dump(values), now + lifetime))
                if cur.rowcount == 1:
                    self.run(cur, "INSERT INTO lmdk_class_lessons (code, lesson, setting, asked) VALUES (?, ?, ?, 1)",
                             (code, found.number, dump(values)))
                    return code, token
        raise ClassStoreUnavailable(f"{self.name}: no free class code after {CODE_ATTEMPTS} tries; try again")

    def locked_class(self, cur, code: str) -> tuple[str, int, int]:
        """(token digest, lesson, version) of a live class, its row locked for this transaction; else an error."""
        self.run(cur, "UPDATE lmdk_classes SET version = version WHERE code = ? AND expires_at > ? "
                      "RETURNING token_sha256, lesson, version", (code, time.time()))
        row = cur.fetchone()
        if row is None:
            raise ended(code)
        return row[0], int(row[1]), int(row[2])

    def reveal(self, code: str, token: str) -> ClassState:
        """Reveal the current lesson's answer (the lecturer's token checked in constant time); revealing again
        changes nothing."""
        code = check_code(code)
        with self.write() as cur:
            digest, _, _ = self.locked_class(cur, code)
            check_token(token, digest, code)
            self.run(cur, "UPDATE lmdk_classes SET revealed = 1, version = version + 1 "
                          "WHERE code = ? AND revealed = 0", (code,))
        return self.state(code)

    def move(self, code: str, token: str, lesson: int, setting: dict | None = None) -> ClassState:
        """The class goes to ``lesson`` at ``setting`` (defaults if None), not revealed. Its earlier answers to that
        lesson stay when the setting is the same (asked again) and are deleted when it differs (another question)."""
        code = check_code(code)
        found, values = lesson_at(lesson, setting)
        text = dump(values)
        with self.write() as cur:
            digest, _, version = self.locked_class(cur, code)
            check_token(token, digest, code)
            self.run(cur, "SELECT setting FROM lmdk_class_lessons WHERE code = ? AND lesson = ?",
                     (code, found.number))
            before = cur.fetchone()
            if before is not None and before[0] != text:
                self.run(cur, "DELETE FROM lmdk_class_answers WHERE code = ? AND lesson = ?", (code, found.number))
            self.run(cur, "INSERT INTO lmdk_class_lessons (code, lesson, setting, asked) VALUES (?, ?, ?, ?) "
                          "ON CONFLICT (code, lesson) DO UPDATE SET setting = excluded.setting, asked = excluded.asked",
                     (code, found.number, text, version + 1))
            self.run(cur, "UPDATE lmdk_classes SET lesson = ?, setting = ?, revealed = 0, version = version + 1 "
                          "WHERE code = ?", (found.number, text, code))
        return self.state(code)

    def history(self, code: str, token: str) -> tuple[Asked, ...]:
        """The lessons the class was asked, in the order last asked, each at its setting (the lecturer only)."""
        code = check_code(code)
        with self.write() as cur:  # a consistent view, and the token checked against the same row
            digest, _, _ = self.locked_class(cur, code)
            check_token(token, digest, code)
            self.run(cur, "SELECT lesson, setting FROM lmdk_class_lessons WHERE code = ? ORDER BY asked", (code,))
            rows = cur.fetchall()
        return tuple(Asked(int(number), json.loads(setting)) for number, setting in rows)

    def purge_expired(self, now: float | None = None) -> int:
        """Delete every class expired at ``now`` (default: now) with its lessons and answers; how many classes."""
        moment = time.time() if now is None else float(now)
        expired = "code IN (SELECT code FROM lmdk_classes WHERE expires_at <= ?)"
        with self.write() as cur:
            self.run(cur, f"DELETE FROM lmdk_class_answers WHERE {expired}", (moment,))
            self.run(cur, f"DELETE FROM lmdk_class_lessons WHERE {expired}", (moment,))
            self.run(cur, "DELETE FROM lmdk_classes WHERE expires_at <= ?", (moment,))
            return max(int(cur.rowcount), 0)

    # --- the students --------------------------------------------------------------------------------------------

    def state(self, code: str) -> ClassState:
        """The class's state: one primary-key read; an unknown or expired class is a ParameterError."""
        code = check_code(code)
        with self.read() as cur:
            self.run(cur, f"SELECT {STATE_COLUMNS} FROM lmdk_classes WHERE code = ?", (code,))
            row = cur.fetchone()
        if row is None:
            raise ended(code)
        if row[4] <= time.time():
            self.purge_expired()  # a class is deleted with its answers when it is next looked at after expiry
            raise ended(code)
        return ClassState(code, int(row[0]), json.loads(row[1]), bool(row[2]), int(row[3]), float(row[4]))

    def answer(self, code: str, student: str, lesson: int, prediction: str | float) -> None:
        """Record the student's answer to ``lesson`` (the last counts). Refused when the lesson is not the class's
        current one or is revealed, or the prediction is not one of its choices / not a finite number ≥ 0."""
        code, student = check_code(code), check_student(student)
        found = find_lesson(lesson)
        choice, value = check_prediction(found, prediction)
        with self.write() as cur:
            self.run(cur, "UPDATE lmdk_classes SET version = version + 1 WHERE code = ? AND expires_at > ? "
                          "AND lesson = ? AND revealed = 0 RETURNING version", (code, time.time(), found.number))
            if cur.fetchone() is None:
                raise self.refusal(cur, code, found.number)
            self.run(cur, "SELECT COUNT(*), COUNT(CASE WHEN student = ? THEN 1 END) FROM lmdk_class_answers "
                          "WHERE code = ? AND lesson = ?", (student, code, found.number))
            students, known = cur.fetchone()
            if not known and int(students) >= MAX_STUDENTS:
                raise ParameterError(f"class {code}: lesson {found.number} has answers from {MAX_STUDENTS:,} students, "
                                     "the most a class takes; a larger audience needs a class per room")
            self.run(cur, "INSERT INTO lmdk_class_answers (code, lesson, student, choice, value) "
                          "VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, lesson, student) "
                          "DO UPDATE SET choice = excluded.choice, value = excluded.value",
                     (code, found.number, student, choice, value))

    def refusal(self, cur, code: str, number: int) -> ParameterError:
        """Why an answer to lesson ``number`` was refused: the class ended, moved on, or revealed the answer."""
        self.run(cur, "SELECT lesson, revealed, expires_at FROM lmdk_classes WHERE code = ?", (code,))
        row = cur.fetchone()
        if row is None or row[2] <= time.time():
            return ended(code)
        if int(row[0]) != number:
            return ParameterError(f"class {code} is on lesson {int(row[0])} now, not lesson {number}: answers go to "
                                  "the current lesson")
        return ParameterError(f"class {code}: the answer to lesson {number} is revealed, so answers are closed")

    def my_answer(self, code: str, student: str, lesson: int) -> str | float | None:
        """The student's last answer to ``lesson`` (None: none yet); an ended class is a ParameterError."""
        code, student = check_code(code), check_student(student)
        number = find_lesson(lesson).number
        with self.read() as cur:
            self.run(cur, "SELECT c.expires_at, a.choice, a.value FROM lmdk_classes c LEFT JOIN lmdk_class_answers a "
                          "ON a.code = c.code AND a.lesson = ? AND a.student = ? WHERE c.code = ?",
                     (number, student, code))
            row = cur.fetchone()
        if row is None or row[0] <= time.time():
            raise ended(code)
        return stored_prediction(row[1], row[2])

    def tally(self, code: str, lesson: int | None = None) -> Tally:
        """The room's answers to ``lesson`` (None: the current lesson), in one statement (one snapshot)."""
        code = check_code(code)
        number = None if lesson is None else find_lesson(lesson).number
        with self.read() as cur:
            self.run(cur, "SELECT c.lesson, c.expires_at, a.choice, a.value FROM lmdk_classes c "
                          "LEFT JOIN lmdk_class_answers a ON a.code = c.code "
                          "AND a.lesson = COALESCE(CAST(? AS INTEGER), c.lesson) WHERE c.code = ?", (number, code))
            rows = cur.fetchall()
        if not rows or rows[0][1] <= time.time():
            raise ended(code)
        return make_tally(int(rows[0][0]) if number is None else number, ((r[2], r[3]) for r in rows))
