"""Issue 54: web rules never name a server path, and every reader checks size, rows and columns before it decodes.

The bombs are the ones found against the landed main: a small Parquet file of 20 M rows (1.76 GB on the Population
upload, 0.97 GB on Policies), a 209 kB CSV of 20,000 columns (44 s of server CPU on the Data page) and ``ics:``
reading a whole file (a 400 MB file, /dev/zero) before its size cap. Each is refused in under a second with the
process' peak memory under 300 MB above what it held before (measured in a fresh interpreter: pyarrow's buffers are
not seen by tracemalloc)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from lmdk.errors import ParameterError

BOMB_ROWS = 20_000_000
WIDE_COLUMNS = 20_000
PEAK_MB = 300


@pytest.fixture(scope="module")
def parquet_bomb(tmp_path_factory) -> str:
    """A Parquet long table (user, timestamp, value) of 20 M identical rows: a few hundred kB on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("bomb") / "bomb.parquet"
    chunk = 1_000_000
    piece = pa.table({"user": pa.array(["u1"] * chunk), "timestamp": pa.array([1_700_000_000] * chunk),
                      "value": pa.array([1.0] * chunk)})
    with pq.ParquetWriter(path, piece.schema, compression="zstd") as writer:
        for _ in range(BOMB_ROWS // chunk):
            writer.write_table(piece)
    assert path.stat().st_size < 2_000_000
    return str(path)


def wide_csv(columns: int = WIDE_COLUMNS) -> bytes:
    """A small CSV of ``columns`` columns: a header and three rows of ones."""
    header = ",".join(f"c{i}" for i in range(columns))
    return (header + "\n" + "\n".join(",".join(["1"] * columns) for _ in range(3)) + "\n").encode()


def measured(code: str, timeout: float = 60) -> dict:
    """Run ``code`` (which sets ``error``) in a fresh interpreter; its time, peak memory above what the process held
    before, and the error's type and message."""
    script = f"""
import json, resource, time
import pyarrow, pyarrow.parquet, pandas, lmdk.data.mapping, lmdk.population.input, lmdk.policies.table
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
error = None
try:
{chr(10).join('    ' + line for line in code.strip().splitlines())}
except Exception as exc:
    error = exc
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": seconds, "peak_mb": (peak - before) / 1024, "type": type(error).__name__,
                  "message": str(error)}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_refused_cheaply(result: dict, words: str) -> None:
    assert result["type"] != "NoneType", result  # refused, not read
    assert words in result["message"], result
    assert result["seconds"] < 1.0, result
    assert result["peak_mb"] < PEAK_MB, result


@pytest.mark.parametrize("reader", [
    "from lmdk.population.input import upload_source; upload_source(raw, 'bomb.parquet')",  # Population upload
    "from lmdk.policies.table import read_frame; read_frame(raw, 'bomb.parquet')",  # Policies upload
    "from lmdk.data.mapping import detect_bytes; detect_bytes(raw, 'bomb.parquet')",  # Data page
])
def test_a_parquet_bomb_is_refused_by_its_metadata_before_decoding(parquet_bomb, reader):
    result = measured(f"raw = open({parquet_bomb!r}, 'rb').read()\n{reader}")
    assert_refused_cheaply(result, "1,000,000")


def test_parquet_metadata_limits_columns_and_decoded_size():
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from lmdk.data.read import DataTooLargeError, parquet_file

    def parquet(table) -> bytes:
        out = io.BytesIO()
        pq.write_table(table, out, compression="zstd", use_dictionary=False)
        return out.getvalue()

    wide = parquet(pa.table({f"c{i}": [1] for i in range(1_001)}))
    with pytest.raises(DataTooLargeError, match="1,000 columns"):
        parquet_file(wide)
    big = parquet(pa.table({"text": ["x" * 1_000] * 60_000}))  # 60 MB of text, a few kB compressed
    with pytest.raises(DataTooLargeError, match="decodes to more than"):
        parquet_file(big)
    assert parquet_file(parquet(pa.table({"a": [1, 2]}))).metadata.num_rows == 2


@pytest.mark.parametrize("reader", [
    "from lmdk.data.mapping import detect_bytes; detect_bytes(raw, 'wide.csv')",  # Data page
    "from lmdk.population.input import upload_source; upload_source(raw, 'wide.csv')",  # Population upload
    "from lmdk.data import load_series; load_series(raw)",
])
def test_a_csv_of_20000_columns_is_refused_before_detection(reader, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(wide_csv())
    assert_refused_cheaply(measured(f"raw = open({str(path)!r}, 'rb').read()\n{reader}"), "1,000 columns")


def test_a_policy_table_wider_than_its_columns_is_refused():
    from lmdk.policies.table import PolicyTableError, read_frame

    start = time.perf_counter()
    with pytest.raises(PolicyTableError, match="columns"):
        read_frame(wide_csv(), "policies.csv")
    assert time.perf_counter() - start < 1.0


def test_the_header_check_is_linear():
    """The duplicate-name check was quadratic (a list searched per column): 1,000 columns stay instant."""
    from lmdk.data.read import parse_raw

    columns = 1_000
    raw = ("t," + ",".join(f"c{i}" for i in range(columns - 1)) + "\n" + ",".join(["1"] * columns) + "\n").encode()
    start = time.perf_counter()
    assert parse_raw(raw, "ok.csv").frame.shape == (1, columns)
    assert time.perf_counter() - start < 1.0


def test_an_ics_file_over_its_cap_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.ics"
    with open(path, "wb") as handle:  # 1 GB, sparse: the old reader read all of it before the cap
        handle.truncate(1_000_000_000)
    result = measured(f"from lmdk.declared.ics import read_calendar\nread_calendar({str(path)!r})")
    assert_refused_cheaply(result, "over 20,000,000 bytes")


@pytest.mark.parametrize("kind", ["ics", "times"])
def test_a_device_is_refused_before_any_read(kind):
    reader = ("from lmdk.declared.ics import validate" if kind == "ics" else "from lmdk.declared.times import validate")
    result = measured(f"{reader}\nvalidate('/dev/zero')", timeout=30)  # the old ics: reader grew until killed
    assert_refused_cheaply(result, "not a regular file")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    from lmdk.declared.files import read_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = measured(f"from lmdk.declared.files import read_text\nread_text({str(fifo)!r}, 'times file')",
                      timeout=20)
    assert_refused_cheaply(result, "not a regular file")
    with pytest.raises(ParameterError, match="not a regular file"):
        read_text(str(tmp_path), "times file")  # a folder


def test_a_small_declared_file_still_reads(tmp_path):
    from lmdk.declared.files import read_bytes, read_text

    path = tmp_path / "times.txt"
    path.write_text("\ufefftime\n2024-05-01 14:30\n", encoding="utf-8")
    assert read_text(str(path), "times file") == "time\n2024-05-01 14:30\n"
    with pytest.raises(ParameterError, match="over 10 bytes"):
        read_bytes(str(path), 10, "times file")


@pytest.mark.parametrize("rule", ["times:/etc/passwd", "ics:/etc/passwd", "file:/etc/passwd", "contacts:/etc/passwd",
                                  " TIMES:/etc/passwd", "file:/no/such/file"])
def test_web_rules_never_name_a_server_path(rule):
    from lmdk.landmarks import parse_rule, web_rule

    with pytest.raises(ParameterError) as refused:
        web_rule(rule)
    message = str(refused.value)
    assert "/etc" not in message and "/no/such" not in message and "command line" in message
    assert parse_rule(rule.strip()).path  # the command line keeps its paths


def test_a_rule_of_an_existing_path_and_of_a_missing_one_are_refused_alike():
    from lmdk.landmarks import web_rule

    messages = []
    for path in ("/etc/passwd", "/no/such/file"):
        with pytest.raises(ParameterError) as refused:
            web_rule(f"file:{path}")
        messages.append(str(refused.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("rule", ["calendar:sun@09:00-12:00", "percentile:20", "place:52.5,13.4,200", "none"])
def test_web_rules_keep_the_kinds_that_carry_their_content(rule):
    from lmdk.landmarks import parse_rule, web_rule

    assert web_rule(rule) == parse_rule(rule)
