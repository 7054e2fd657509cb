"""A throwaway PostgreSQL server for the ledger tests: ``initdb`` and ``pg_ctl`` in a temporary folder, on a free
port, run as an unprivileged user when the tests run as root (both refuse root; CI runs as root).

Skipped locally when PostgreSQL is not installed; fails in CI (CI=true or LMDK_REQUIRE_POSTGRES=1), where
``.ci/run`` installs Debian's ``postgresql``.
"""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

UNPRIVILEGED = "nobody"


def required() -> bool:
    """Whether a missing server must fail the run (CI) rather than skip."""
    return os.environ.get("CI") == "true" or os.environ.get("LMDK_REQUIRE_POSTGRES") == "1"


def binaries() -> tuple[str, str] | None:
    """(initdb, pg_ctl): on PATH, else Debian's /usr/lib/postgresql/<version>/bin (newest first)."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return initdb, pg_ctl
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(f"{folder}/initdb", os.X_OK) and os.access(f"{folder}/pg_ctl", os.X_OK):
            return f"{folder}/initdb", f"{folder}/pg_ctl"
    return None


def require_postgres() -> tuple[str, str]:
    """The binaries, else skip (locally) or fail (CI)."""
    import pytest

    found = binaries()
    missing = None
    if found is None:
        missing = "PostgreSQL's initdb/pg_ctl not found (apt-get install -y postgresql)"
    else:
        try:
            import psycopg  # noqa: F401 — the ledger's driver
        except ImportError:
            missing = "psycopg is not installed (pip install -r requirements.txt)"
    if missing:
        if required():
            pytest.fail(f"PostgreSQL tests are required here but {missing}")
        pytest.skip(missing)
    assert found is not None
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user(command: list[str]) -> list[str]:
    """``command`` run as the unprivileged user when we are root (runuser), else as is."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", UNPRIVILEGED, "--", *command]


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A running server; yields its URL (postgresql://postgres@127.0.0.1:PORT/postgres) and removes it after."""
    initdb, pg_ctl = require_postgres()
    folder = Path(tempfile.mkdtemp(prefix="lmdk-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, UNPRIVILEGED)
    port = _free_port()
    log = folder / "server.log"
    try:
        subprocess.run(_as_user([initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync",
                                 "-E", "UTF8"]), check=True, capture_output=True, timeout=120, cwd=folder)
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40"
        subprocess.run(_as_user([pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "-t", "60",
                                 "start"]), check=True, capture_output=True, timeout=120, cwd=folder)
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(_as_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
                           capture_output=True, timeout=60, cwd=folder)
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode(errors="replace")[-800:]
        server = log.read_text(errors="replace")[-800:] if log.exists() else ""
        raise RuntimeError(f"PostgreSQL did not start: {detail}\n{server}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new empty database on the server at ``url``; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
