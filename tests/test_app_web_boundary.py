"""AppTest, issue 54: a link or a box of the app never names a server path, and an upload bomb is refused quickly
(the Population and Policies uploads of a 20 M-row Parquet file, the Data page's CSV of 20,000 columns)."""
from __future__ import annotations

import io
import time
from functools import cache, partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 — an autouse fixture

from ui.session import state

open_population = partial(app_support.open_page, "pages/population.py", 90)
SECRET = "S3CRETpw"


@pytest.fixture
def secret_file(tmp_path) -> str:
    """A server file the visitor must never see: a times file whose second line is a secret."""
    path = tmp_path / "secret.txt"
    path.write_text(f"time\npassword = \"{SECRET}\"\n", encoding="utf-8")
    return str(path)


def everything(at) -> str:
    """All text the page shows (errors, warnings, captions, markdown, inputs)."""
    parts = [str(getattr(e, "value", "")) for kind in ("error", "warning", "info", "caption", "markdown", "text")
             for e in getattr(at, kind)]
    return "\n".join(parts)


@pytest.mark.parametrize("kind", ["times", "ics", "file", "contacts"])
def test_a_link_naming_a_server_file_reads_nothing(secret_file, kind):
    at = open_population(pop_users="10", pop_n="100", pop_rule=f"{kind}:{secret_file}")
    shown = everything(at)
    assert SECRET not in shown and "password" not in shown
    assert at.session_state[state.POP_RULE] is None  # the link's rule was dropped: the default applies
    assert at.text_input(key="pop_rule_text").value != f"{kind}:{secret_file}"


def test_the_etc_passwd_link_of_the_finding_shows_no_content():
    at = open_population(pop_users="10", pop_n="100", pop_rule="times:/etc/passwd")
    assert "daemon" not in everything(at) and "root:" not in everything(at)


@pytest.mark.parametrize("kind", ["times", "ics", "file", "contacts"])
def test_a_rule_typed_into_the_box_reads_no_server_file(secret_file, kind):
    at = open_population(pop_users="10", pop_n="100")
    at.text_input(key="pop_rule_text").set_value(f"{kind}:{secret_file}").run()
    shown = everything(at)
    assert SECRET not in shown and "password" not in shown
    assert any("reads no file on its server" in e.value for e in at.error)
    assert not at.get("plotly_chart")


def test_the_box_does_not_tell_whether_a_path_exists(secret_file):
    answers = []
    for path in (secret_file, secret_file + ".missing"):
        at = open_population(pop_users="10", pop_n="100")
        at.text_input(key="pop_rule_text").set_value(f"file:{path}").run()
        answers.append([e.value for e in at.error])
    assert answers[0] == answers[1] and answers[0]


def test_the_data_pages_calendar_box_refuses_a_path():
    at = app_support.open_page("pages/data_landmarks.py", 60)
    at.text_input(key="cal_rule").set_value("times:/etc/passwd").run()
    at.button(key="cal_apply").click().run()
    assert "daemon" not in everything(at) and "root:" not in everything(at)


@cache  # written once per process (seconds of zstd over 20 M rows), read by both pages' tests and the browser's
def parquet_bomb(rows: int = 20_000_000) -> bytes:
    """A Parquet long table (user, timestamp, value) of ``rows`` identical rows: a few hundred kB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = 1_000_000
    piece = pa.table({"user": pa.array(["u1"] * chunk), "timestamp": pa.array([1_700_000_000] * chunk),
                      "value": pa.array([1.0] * chunk)})
    out = io.BytesIO()
    with pq.ParquetWriter(out, piece.schema, compression="zstd") as writer:
        for _ in range(rows // chunk):
            writer.write_table(piece)
    return out.getvalue()


def timed_upload(at, key: str, name: str, raw: bytes) -> float:
    """Seconds the run after giving uploader ``key`` the file took."""
    start = time.perf_counter()
    at.file_uploader(key=key).set_value((name, raw, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return time.perf_counter() - start


def test_the_population_upload_refuses_a_parquet_bomb_by_its_row_count():
    at = open_population(pop_src="upload")
    seconds = timed_upload(at, "pop_file", "bomb.parquet", parquet_bomb())
    assert any("1,000,000" in e.value and "rows" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state[state.POP_UPLOAD] is None
    assert seconds < 10  # the page's own run included; decoding the 20 M rows took far longer (and 1.76 GB)


def test_the_policies_upload_refuses_a_parquet_bomb_by_its_row_count():
    at = app_support.open_page("pages/policies.py", 60)
    seconds = timed_upload(at, "policy_file", "bomb.parquet", parquet_bomb())
    assert any("1,000,000" in e.value for e in at.error), [e.value for e in at.error]
    assert seconds < 10


def test_the_data_page_refuses_a_csv_of_20000_columns_at_once():
    columns = 20_000
    raw = (",".join(f"c{i}" for i in range(columns)) + "\n" + ",".join(["1"] * columns) + "\n").encode()
    at = app_support.open_page("pages/data_landmarks.py", 60, source="upload")
    seconds = timed_upload(at, "upload_file", "wide.csv", raw)
    assert "1,000 columns" in everything(at)
    assert seconds < 10  # 44 s of server CPU before
