"""The live-class tests' fixtures: a store of each backend (SQLite in a temporary folder; PostgreSQL on one real
throwaway server per session, :mod:`postgres_support`, a fresh database per test) and the lessons they use, found
through ``lmdk.lessons.LESSONS`` (lesson numbers change)."""
from __future__ import annotations

import uuid

import pytest

from lmdk.classroom import open_store
from lmdk.lessons import LESSONS


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for these tests (initdb + pg_ctl in a temporary folder); its owner's URL."""
    from postgres_support import postgres_server, require_postgres

    require_postgres()
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    """The URL of a fresh, empty class store of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classes.db'}"
    from postgres_support import fresh_database

    return fresh_database(request.getfixturevalue("pg_server"), "c" + uuid.uuid4().hex[:12])


@pytest.fixture
def store(store_url):
    """An open store at ``store_url`` (closed after the test)."""
    opened = open_store(store_url)
    yield opened
    opened.close()


@pytest.fixture
def choice_lesson():
    """A lesson answered with one of its choices."""
    return next(found for found in LESSONS if found.choices)


@pytest.fixture
def number_lesson():
    """A lesson answered with a number."""
    return [found for found in LESSONS if not found.choices][-1]


@pytest.fixture
def other_lesson(choice_lesson):
    """A lesson other than ``choice_lesson``."""
    return next(other for other in LESSONS if other.number != choice_lesson.number)
