"""Issue 54, loose ends of "check before decoding": files whose metadata passes but whose decoded size does not.

A Parquet column's dictionary page holds a long string once and its data pages only small indices, so 1 M rows of
one 10 kB string are a 3 kB file whose metadata (rows, columns, uncompressed size) passes every check and which
decodes to 10 GB. A JSON policy table of ``[{},{},…]`` within the 50 MB upload limit is 16 M Python dicts (1.1 GB).
Each is refused in under a second with the process' peak memory under 300 MB above what it held before (measured
in a fresh interpreter, as tests/test_input_bombs.py does)."""
from __future__ import annotations

import io

import pytest
from test_input_bombs import assert_refused_cheaply, measured

DICTIONARY_BOMB = """
import io, pyarrow as pa, pyarrow.parquet as pq
out = io.BytesIO()
indices = pa.array([0] * 1_000_000, pa.int32())
pq.write_table(pa.table({{"user": pa.DictionaryArray.from_arrays(indices, pa.array(["y" * 10_000]))}}), out,
               compression="zstd")
raw = out.getvalue()
assert len(raw) < 100_000
from lmdk.data.read import parquet_file
parquet_file(raw)  # the metadata passes: the bomb is in what the dictionary pages decode to
{reader}
"""


@pytest.mark.parametrize("reader", [
    "from lmdk.population.input import upload_source; upload_source(raw, 'bomb.parquet')",  # Population upload
    "from lmdk.policies.table import read_frame; read_frame(raw, 'bomb.parquet')",  # Policies upload
    "from lmdk.data.mapping import detect_bytes; detect_bytes(raw, 'bomb.parquet')",  # Data page
    "from lmdk.data import load_series; load_series(raw)",
])
def test_a_dictionary_encoded_parquet_bomb_is_refused_while_decoding(reader):
    result = measured(DICTIONARY_BOMB.format(reader=reader))
    assert_refused_cheaply(result, "decodes to more than 50,000,000 bytes")


@pytest.mark.parametrize("reader", [
    "from lmdk.data.read import read_parquet; read_parquet(raw)",
    "from lmdk.aggregate.inputs import Upload, group_pairs\nfrom lmdk.data.import_spec import ImportSpec\n"
    "group_pairs(Upload(raw, 'bomb.parquet'), 'user', ImportSpec(entity_column='user'))",  # the app's group column
])
def test_the_group_column_of_an_upload_reads_parquet_through_the_same_bound(reader):
    assert_refused_cheaply(measured(DICTIONARY_BOMB.format(reader=reader)), "decodes to more than")


def parquet(table, **options) -> bytes:
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd", **options)
    return out.getvalue()


def test_decoded_size_is_counted_for_text_and_numbers():
    import pyarrow as pa

    from lmdk.data.read import DataTooLargeError, parquet_file, read_parquet

    text = parquet(pa.table({"user": ["x" * 1_000] * 60_000}))  # the dictionary makes it a few kB
    parquet_file(text)  # passes the metadata checks
    with pytest.raises(DataTooLargeError, match="decodes to more than"):
        read_parquet(text)
    numbers = parquet(pa.table({f"c{i}": pa.array([7] * 100_000, pa.int64()) for i in range(100)}))  # 80 MB
    parquet_file(numbers)
    with pytest.raises(DataTooLargeError, match="decodes to more than"):
        read_parquet(numbers)
    assert read_parquet(text, max_bytes=70_000_000).shape == (60_000, 1)


def test_prefix_shared_text_and_nested_columns_are_refused_by_their_encoding():
    import pyarrow as pa

    from lmdk.data.read import read_parquet
    from lmdk.errors import DataError

    delta = parquet(pa.table({"user": ["x" * 1_000] * 60_000}), use_dictionary=False,
                    column_encoding={"user": "DELTA_BYTE_ARRAY"})
    with pytest.raises(DataError, match="DELTA_BYTE_ARRAY"):
        read_parquet(delta)
    nested = parquet(pa.table({"user": [["x" * 1_000] * 1_000] * 100}))
    with pytest.raises(DataError, match="nested"):
        read_parquet(nested)


def test_an_ordinary_parquet_file_reads_as_before():
    import pandas as pd

    from lmdk.data.read import read_parquet

    frame = pd.DataFrame({"user": ["a", "b", None], "when": pd.to_datetime(["2024-01-01", "2024-01-02", None]),
                          "value": [1.5, 2.0, 3.0], "kind": pd.Categorical(["x", "y", "x"])})
    out = io.BytesIO()
    frame.to_parquet(out)
    read = read_parquet(out.getvalue())
    pd.testing.assert_frame_equal(read, frame)
    indexed = io.BytesIO()
    frame.set_index("when").to_parquet(indexed)
    assert read_parquet(indexed.getvalue()).index.name == "when"


JSON_BOMBS = {  # each within the 50 MB upload limit
    "empty objects": lambda: b"[" + b"{}," * 15_999_999 + b"{}]",  # 16 M dicts: 1.1 GB decoded
    "wrapped": lambda: b'{"policies": [' + b"{}," * 15_999_999 + b"{}]}",
    "empty lists": lambda: b'[{"user": "a"}, ' + b"[]," * 15_999_999 + b"[]]",
    "numbers": lambda: b"[" + b"0.5," * 12_000_000 + b"1]",
    "one wide row": lambda: ("[{" + ",".join(f'"k{i}": 1' for i in range(3_000_000)) + "}]").encode(),
}


@pytest.mark.parametrize("bomb", list(JSON_BOMBS))
def test_a_json_policy_table_bomb_is_refused_before_its_objects_are_built(bomb, tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(JSON_BOMBS[bomb]())
    assert path.stat().st_size <= 50_000_000
    result = measured(f"raw = open({str(path)!r}, 'rb').read()\nfrom lmdk.policies.table import read_frame\n"
                      "read_frame(raw, 'p.json')")
    assert result["type"] == "PolicyTableError", result
    assert_refused_cheaply(result, "policy table 'p.json'")


def test_a_json_policy_table_at_the_row_cap_is_read_and_one_row_more_is_refused(monkeypatch):
    from lmdk.policies import table

    monkeypatch.setattr(table, "MAX_ROWS", 3)
    row = '{"user": "u%d", "landmarks": "none", "epsilon": 1, "scheme": "user", "dummies": {"share": 0.1}}'
    assert table.read_frame(("[" + ",".join(row % i for i in range(3)) + "]").encode(), "p.json").shape == (3, 5)
    plain = '{"user": "u%d", "landmarks": "none", "epsilon": 1, "scheme": "user"}'
    with pytest.raises(table.PolicyTableError, match="4 rows, over 3"):
        table.read_frame(("[" + ",".join(plain % i for i in range(4)) + "]").encode(), "p.json")
    with pytest.raises(table.PolicyTableError, match="more than 7 JSON objects"):
        table.read_frame(("[" + ",".join("{}" for _ in range(8)) + "]").encode(), "p.json")
    text = '[{"user": "a,{{{{{{{{,,,,,,,,,,", "landmarks": "none", "epsilon": 1, "scheme": "user"}]'
    assert table.read_frame(text.encode(), "p.json").shape == (1, 4)  # braces and commas inside strings count not
