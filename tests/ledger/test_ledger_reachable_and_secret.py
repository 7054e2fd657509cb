"""No secret leaves the process, and a ledger that cannot be reached is not bad input: the password of a
PostgreSQL URL (user-info or query) and a malformed URL never appear in an error of the command line or the app;
an unreachable, locked or uninitialised ledger exits 5 ("nothing was released or charged"), distinct from 2 (bad
input, e.g. a malformed URL);
``lmdk ledger init URL`` creates the schema once, and a file named ``init`` is given as ``./init``."""
from __future__ import annotations

import json
import socket
import sqlite3

import numpy as np
import pandas as pd
import pytest

from lmdk import ledger
from lmdk.cli import main
from lmdk.errors import LmdkError

RELEASE = ["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks",
           "calendar:sun@09:00-12:00", "--range", "0", "25", "--quiet"]
SECRETS = ("s3cr3t-user-info", "s3cr3t-query")


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def secret_urls(port: int) -> list[str]:
    """PostgreSQL URLs holding a password in the user-info, in the query, and malformed around one."""
    return [f"postgresql://lmdk:{SECRETS[0]}@127.0.0.1:{port}/lmdk",
            f"postgresql://127.0.0.1:{port}/lmdk?user=lmdk&password={SECRETS[1]}",
            f"postgresql://lmdk:{SECRETS[0]}@127.0.0.1:{port}x/lmdk?password={SECRETS[1]}",
            f"postgres://lmdk:{SECRETS[0]}@127.0.0.1:{port}/lmdk?password={SECRETS[1]}&connect_timeout=x"]


def population_input(tmp_path):
    rng = np.random.default_rng(0)
    times = pd.date_range("2026-01-01", periods=24, freq="h").astype(str)
    table = pd.concat([pd.DataFrame({"user": u, "timestamp": times, "value": rng.uniform(0, 5, 24)})
                       for u in ("a", "b")])
    table.to_csv(tmp_path / "day.csv", index=False)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "calendar:daily@18:00-22:00",
                                                      "scheme": "uniform", "epsilon": 0.5}))
    return ["population", str(tmp_path / "day.csv"), "--config", str(tmp_path / "policy.json"), "--range", "0",
            "25", "--quiet", "--dataset", "meters"]


def test_redact_names_host_port_and_database_only():
    assert ledger.redact("postgresql://lmdk:pw@db.example:6543/budgets?sslmode=require&password=q") == \
        "postgresql://db.example:6543/budgets"
    assert ledger.redact("postgresql://db/budgets?user=u&password=q") == "postgresql://db:5432/budgets"
    assert ledger.redact("postgresql://u:pw@db:54x/b") == "postgresql://(a malformed URL)"
    assert ledger.redact("sqlite:///srv/l.db") == "sqlite:///srv/l.db"
    url = "postgresql://u:pw%21@db/b?password=qq"
    text = f"missing '=' in {url}; password pw! and qq"
    assert ledger.redact(url, text) == "missing '=' in postgresql://db:5432/b; password *** and ***"


@pytest.mark.parametrize("command", ["release", "population", "aggregate", "ledger", "import", "cap", "init"])
def test_an_unreachable_server_exits_5_and_no_password_is_printed(tmp_path, capsys, command):
    port = closed_port()
    for url in secret_urls(port):
        if command == "release":
            argv = RELEASE + ["--out", str(tmp_path / "r.csv"), "--ledger", url, "--dataset", "hue"]
        elif command == "population":
            argv = population_input(tmp_path) + ["--out", str(tmp_path / "pop"), "--ledger", url]
        elif command == "aggregate":
            population_input(tmp_path)
            argv = ["aggregate", str(tmp_path / "day.csv"), "--statistic", "sum", "--range", "0", "25",
                    "--landmarks", "calendar:sun@09:00-12:00", "--scheme", "uniform", "--epsilon", "0.5", "--quiet",
                    "--ledger", url, "--dataset", "district", "--out", str(tmp_path / "r.csv")]
        elif command == "import":
            ledger.append(tmp_path / "s.jsonl", ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=1.0,
                                                                   scheme="uniform", mechanism="laplace"))
            argv = ["ledger", "import", str(tmp_path / "s.jsonl"), "--into", url]
        elif command == "cap":
            argv = ["ledger", "cap", url, "--dataset", "meters", "--cap", "1"]
        elif command == "init":
            argv = ["ledger", "init", url]
        else:
            argv = ["ledger", url]
        capsys.readouterr()
        malformed = f":{port}x/" in url  # bad input, found before any connection (exit 2)
        assert main(argv) == (2 if malformed else 5), url
        captured = capsys.readouterr()
        text = captured.out + captured.err
        assert ("port is not a number" if malformed else "nothing was released or charged") in text
        assert not any(secret in text for secret in SECRETS), text
        assert "Traceback" not in text
        assert not (tmp_path / "r.csv").exists() and not (tmp_path / "pop").exists()


def test_the_app_shows_and_writes_no_password(monkeypatch):
    from ui import ledger as app_ledger
    from ui import policies

    port = closed_port()
    for url in secret_urls(port):
        monkeypatch.setenv("LMDK_LEDGER_URL", url)
        fields = {"fingerprint": "sha256:ab", "epsilon": 1.0, "scheme": "uniform", "mechanism": "laplace",
                  "released_by": "officer-sub"}  # an officer's release: the app reserves it in the database
        download = app_ledger.reserving(lambda payload: "released", fields)(None)  # the file handed out
        assert download.startswith("# The privacy ledger could not record this release")
        assert not any(secret in download for secret in SECRETS), download
        with pytest.raises(LmdkError) as caught:
            policies.ledger_budget(["a"], "meters")
        assert not any(secret in str(caught.value) for secret in SECRETS), str(caught.value)


def test_a_locked_sqlite_ledger_exits_5_not_2(tmp_path, capsys, monkeypatch):
    import lmdk.ledger.sqlite as backend

    path = tmp_path / "l.db"
    ledger.init_ledger(f"sqlite:///{path}")
    monkeypatch.setattr(backend, "TIMEOUT", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock past the timeout
    try:
        assert main(RELEASE + ["--out", str(tmp_path / "r.csv"), "--ledger", f"sqlite:///{path}"]) == 5
    finally:
        holder.rollback()
        holder.close()
    err = capsys.readouterr().err
    assert "cannot be reached" in err and "nothing was released or charged" in err
    assert not (tmp_path / "r.csv").exists()
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)  # bad input stays exit 2
    assert main(RELEASE + ["--out", str(tmp_path / "r.csv"), "--ledger", f"sqlite:///{tmp_path / 'junk.db'}"]) == 2


def test_a_release_against_postgresql_without_the_schema_says_to_run_init(blank_database, tmp_path, capsys):
    url = blank_database
    assert main(RELEASE + ["--out", str(tmp_path / "r.csv"), "--ledger", url, "--dataset", "hue"]) == 5
    err = capsys.readouterr().err
    assert "lmdk ledger init URL" in err and not (tmp_path / "r.csv").exists()
    assert main(["ledger", "init", url]) == 0
    assert main(["ledger", "init", url]) == 0  # once is enough; again changes nothing
    assert main(RELEASE + ["--out", str(tmp_path / "r.csv"), "--ledger", url, "--dataset", "hue"]) == 0
    assert ledger.summary(url, dataset="hue")["releases"] == 1


def test_a_ledger_file_named_init_cap_or_import_is_given_with_a_path(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("init", "cap", "import"):
        ledger.append(tmp_path / name, ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=1.0, scheme="uniform",
                                                          mechanism="laplace"))
        capsys.readouterr()
        assert main(["ledger", name]) == 2
        assert f"./{name}" in capsys.readouterr().err
        assert main(["ledger", f"./{name}"]) == 0
        assert json.loads(capsys.readouterr().out)["releases"] == 1
    assert main(["ledger", "init", "fresh.jsonl"]) == 0 and (tmp_path / "fresh.jsonl").is_file()
    assert main(["ledger", "init", "sqlite:///fresh.db"]) == 0
    assert sqlite3.connect(tmp_path / "fresh.db").execute("SELECT count(*) FROM lmdk_exports").fetchone() == (0,)
