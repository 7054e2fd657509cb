"""The ledger attack tests' fixtures: one real PostgreSQL server per session (:mod:`postgres_support`), and a fresh,
initialised ledger of each backend (JSON Lines, SQLite, PostgreSQL)."""
from __future__ import annotations

import uuid

import pytest

BACKENDS = ["jsonl", "sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for these tests (initdb + pg_ctl in a temporary folder); its owner's URL."""
    from postgres_support import postgres_server, require_postgres

    require_postgres()
    with postgres_server() as url:
        yield url


def new_database(request) -> str:
    """A new, empty database (no ledger tables) on the session's server."""
    from postgres_support import fresh_database

    return fresh_database(request.getfixturevalue("pg_server"), "a" + uuid.uuid4().hex[:12])


@pytest.fixture
def blank_database(request) -> str:
    """A new PostgreSQL database without the ledger's tables (``lmdk ledger init`` not run)."""
    return new_database(request)


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    """A fresh ledger of each backend, created as ``lmdk ledger init URL`` creates it."""
    from lmdk import ledger

    if request.param == "jsonl":
        found = str(tmp_path / "ledger.jsonl")
    elif request.param == "sqlite":
        found = f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        found = new_database(request)
    ledger.init_ledger(found)
    return found
