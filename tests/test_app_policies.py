"""AppTest: the Policies page — add users with a calendar window and its one-week preview, ε and scheme, the
officer's bounds, an uploaded table, removal, and the CSV download."""
from __future__ import annotations

import io
import json
from functools import partial

import app_support
import pandas as pd
from app_support import navigation_mode  # noqa: F401 — navigation_mode is an autouse fixture

from lmdk.policies import table_from_frame
from ui.session import state

PAGE = "pages/policies.py"
open_page = partial(app_support.open_page, PAGE, 60)


def _add(at, user: str, eps: float, scheme: str, days: str | None = None, hours=None, rule: str | None = None):
    at.text_input(key="policy_user").set_value(user)
    at.number_input(key="policy_eps").set_value(eps)
    at.selectbox(key="policy_scheme").set_value(scheme)
    if days is not None:
        at.selectbox(key="policy_days").set_value(days)
    if hours is not None:
        at.select_slider(key="policy_hours").set_value(hours)
    at.text_input(key="policy_rule").set_value(rule or "")
    at.run()
    at.button(key="policy_add").click().run()
    assert not at.exception, at.exception


def _table(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "status" in d.value.columns)


def _preview(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def test_add_users_preview_bounds_and_table():
    at = open_page()
    assert any("No user yet" in i.value for i in at.info)
    meta = _preview(at)["layout"]["meta"]
    assert meta == {"rule": "calendar:mon-fri@18:00-22:00", "marked": 20}  # 5 evenings × 4 hours
    _add(at, "alice", 0.5, "skip", days="sat,sun", hours=("09:00", "12:00"))
    assert _preview(at)["layout"]["meta"] == {"rule": "calendar:sat,sun@09:00-12:00", "marked": 6}
    _add(at, "bob", 3.0, "uniform", rule="ics:bob.ics")
    rows = at.session_state[state.POLICY_ROWS]
    assert [(r["user"], r["landmarks"], float(r["epsilon"]), r["scheme"]) for r in rows] == [
        ("alice", "calendar:sat,sun@09:00-12:00", 0.5, "skip"), ("bob", "ics:bob.ics", 3.0, "uniform")]
    shown = _table(at)
    assert shown["status"].tolist() == ["within the bounds", "within the bounds"]
    assert shown["ε spent"].tolist() == [0.0, 0.0] and shown["ε remaining"].tolist() == ["no cap"] * 2
    at.session_state[state.LEDGER_CAP] = 4.0  # the session ledger's cap: nothing spent yet, all of it remains
    at.number_input(key="policy_max_eps").set_value(2.0).run()
    assert _table(at)["ε remaining"].tolist() == ["4", "4"]
    assert _table(at)["status"].tolist() == [
        "within the bounds", "withheld: epsilon 3 is over --max-epsilon 2"]
    assert any("1 of 2 rows pass the officer's bounds" in w.value for w in at.warning)
    _add(at, "alice", 1.0, "adaptive")  # the same user again replaces the row
    assert [r["user"] for r in at.session_state[state.POLICY_ROWS]] == ["bob", "alice"]
    at.selectbox(key="policy_remove_user").set_value("bob").run()
    at.button(key="policy_remove").click().run()
    assert [r["user"] for r in at.session_state[state.POLICY_ROWS]] == ["alice"]
    downloaded = at.get("download_button")
    assert downloaded and not at.exception


def test_bad_rows_are_named_and_not_kept():
    at = open_page()
    _add(at, "", 1.0, "adaptive")
    assert "column 'user': the cell is empty" in app_support.shown(at)
    _add(at, "carol", 1.0, "adaptive", rule="sometimes:maybe")
    assert "column 'landmarks': unknown landmark rule 'sometimes:maybe'" in app_support.shown(at)
    assert at.session_state[state.POLICY_ROWS] == []


def test_the_table_csv_reads_back_as_a_policy_table():
    at = open_page()
    _add(at, "house-1", 0.8, "w-event", days="daily", hours=("01:00", "06:00"))
    from ui import policies as _  # noqa: F401 — the page's helper builds the CSV

    rows = at.session_state[state.POLICY_ROWS]
    frame = pd.DataFrame(rows)
    table = table_from_frame(frame, files=False)
    again = table_from_frame(pd.read_csv(io.StringIO(table.to_csv()), dtype=str, keep_default_na=False), files=False)
    assert again.rows == table.rows and again.rows[0].landmarks == "calendar:daily@01:00-06:00"


def test_budgets_come_from_the_operators_ledger_database_per_dataset(tmp_path, monkeypatch):
    from lmdk import ledger

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    entry = ledger.LedgerEntry(fingerprint="f", epsilon=1.0, scheme="adaptive", mechanism="laplace")
    ledger.reserve_users(url, "meters-2026", {"alice": 1.5}, cap=2.0, entry=entry)
    ledger.reserve_users(url, "gps-2026", {"alice": 0.25, "bob": 0.5}, entry=entry)
    monkeypatch.setenv("LMDK_LEDGER_URL", url)
    at = app_support.as_officer(open_page())  # a ledger deployment shows budgets to its officers only (issue 54)
    _add(at, "alice", 1.0, "adaptive")
    _add(at, "bob", 1.0, "adaptive")
    assert "2 datasets" in app_support.shown(at) and "--dataset" in app_support.shown(at)  # which one: named
    at.text_input(key="policy_dataset").set_value("meters-2026").run()
    shown = _table(at)
    assert shown["ε spent"].tolist() == [1.5, 0.0] and shown["ε remaining"].tolist() == ["0.5", "2"]
    at.text_input(key="policy_dataset").set_value("gps-2026").run()
    shown = _table(at)
    assert shown["ε spent"].tolist() == [0.25, 0.5] and shown["ε remaining"].tolist() == ["no cap"] * 2
    assert not at.exception
