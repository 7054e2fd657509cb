"""A hundred students answering within one second, on both stores: each as a separate server would be (its own
store object and connection), each answering twice (the last counts). No answer is lost, none counted twice, the
tally is exactly the expected one and the class's version grew by exactly the number of writes."""
from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from lmdk.classroom import new_student_id, open_store

STUDENTS = 100
PG_CONNECTIONS = 25  # the throwaway server allows 40 connections: 25 "replicas", each serving 4 students


def plan(choices: tuple[str, ...], seed: int) -> list[tuple[str, str, str]]:
    """(student, first answer, final answer) for every student."""
    rng = np.random.default_rng(seed)
    return [(new_student_id(), str(rng.choice(choices)), str(rng.choice(choices))) for _ in range(STUDENTS)]


def answer_all(stores: list, code: str, number: int, answers: list[tuple[str, str, str]]) -> float:
    """Every student answers twice, all released at once by a barrier; the seconds from release to the last write."""
    barrier = threading.Barrier(len(answers))

    def one(i: int) -> float:
        student, first, final = answers[i]
        store = stores[i % len(stores)]
        barrier.wait()
        store.answer(code, student, number, first)
        store.answer(code, student, number, final)
        return time.perf_counter()

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(answers)) as pool:
        ends = list(pool.map(one, range(len(answers))))
    return max(ends) - start


def check_room(url: str, choice_lesson, connections: int) -> None:
    """The concurrent class on the store at ``url`` with ``connections`` store objects."""
    lecturer = open_store(url)
    stores = [open_store(url) for _ in range(connections)]
    try:
        code, _ = lecturer.start(choice_lesson.number)
        before = lecturer.state(code).version
        answers = plan(choice_lesson.choices, seed=56)
        elapsed = answer_all(stores, code, choice_lesson.number, answers)
        print(f"{url.split(':')[0]}: {2 * STUDENTS} answers from {connections} connections in {elapsed:.2f} s")
        tally = lecturer.tally(code)
        expected = Counter(final for _, _, final in answers)
        assert tally.answered == STUDENTS
        assert tally.counts == {choice: expected.get(choice, 0) for choice in choice_lesson.choices}
        assert lecturer.state(code).version - before == 2 * STUDENTS
        for student, _, final in answers[:10]:
            assert stores[-1].my_answer(code, student, choice_lesson.number) == final
    finally:
        for store in [lecturer, *stores]:
            store.close()


def test_a_hundred_students_at_once_on_sqlite(tmp_path, choice_lesson):
    check_room(f"sqlite:///{tmp_path / 'classes.db'}", choice_lesson, STUDENTS)


def test_a_hundred_students_at_once_on_postgresql(pg_server, choice_lesson):
    import uuid

    from postgres_support import fresh_database

    check_room(fresh_database(pg_server, "c" + uuid.uuid4().hex[:12]), choice_lesson, PG_CONNECTIONS)


def _process_answers(url: str, code: str, number: int, answers: list, barrier) -> None:
    """One server process: its own store, its students answering twice each once every process is ready."""
    with open_store(url) as store:
        barrier.wait()
        for student, first, final in answers:
            store.answer(code, student, number, first)
            store.answer(code, student, number, final)


def test_a_hundred_students_from_four_processes_on_sqlite(tmp_path, choice_lesson):
    url = f"sqlite:///{tmp_path / 'classes.db'}"
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with open_store(url) as lecturer:
        code, _ = lecturer.start(choice_lesson.number)
        answers = plan(choice_lesson.choices, seed=57)
        barrier = context.Barrier(4)
        processes = [context.Process(target=_process_answers,
                                     args=(url, code, choice_lesson.number, answers[i::4], barrier))
                     for i in range(4)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(60)
        assert [p.exitcode for p in processes] == [0, 0, 0, 0]
        tally = lecturer.tally(code)
        expected = Counter(final for _, _, final in answers)
        assert tally.answered == STUDENTS
        assert tally.counts == {choice: expected.get(choice, 0) for choice in choice_lesson.choices}
        assert lecturer.state(code).version == 1 + 2 * STUDENTS


def test_no_answer_lands_after_the_reveal_it_raced(store_url, choice_lesson):
    """Students answer while the lecturer reveals: each answer is either counted (before) or refused (after)."""
    from lmdk.errors import ParameterError

    lecturer = open_store(store_url)
    stores = [open_store(store_url) for _ in range(10)]
    try:
        code, token = lecturer.start(choice_lesson.number)
        barrier = threading.Barrier(STUDENTS + 1)

        def student(i: int) -> bool:
            barrier.wait()
            time.sleep(0.0005 * (i % 20))
            try:
                stores[i % len(stores)].answer(code, new_student_id(), choice_lesson.number, choice_lesson.choices[0])
            except ParameterError as exc:
                assert "revealed" in str(exc)
                return False
            return True

        def reveal() -> None:
            barrier.wait()
            time.sleep(0.004)
            lecturer.reveal(code, token)

        with ThreadPoolExecutor(max_workers=STUDENTS + 1) as pool:
            revealing = pool.submit(reveal)
            accepted = sum(pool.map(student, range(STUDENTS)))
            revealing.result()
        assert lecturer.tally(code).answered == accepted
        assert lecturer.state(code).version == 1 + accepted + 1
    finally:
        for store in [lecturer, *stores]:
            store.close()
