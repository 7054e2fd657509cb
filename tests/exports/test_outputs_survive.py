"""Outputs that survive anything, seeded outputs that say what they are, exported noise from a cryptographically
secure generator (issue 52)."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from lmdk.cli import main
from lmdk.errors import ParameterError
from lmdk.exports import files

RELEASE = ["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "calendar:sun@09:00-12:00",
           "--range", "0", "25", "--quiet"]


# --------------------------------------------------------------------------- atomic files and folders
def _crash_half_way(monkeypatch):
    """pyarrow writes half the file, then the process 'dies' (an OSError where a SIGKILL would land)."""
    real = pq.write_table

    def half(table, where, *args, **kwargs):
        real(table, where, *args, **kwargs)
        with open(where, "r+b") as handle:
            handle.truncate(os.path.getsize(where) // 2)
        raise OSError("killed while writing")

    monkeypatch.setattr(pq, "write_table", half)


def test_a_release_killed_while_writing_leaves_no_truncated_output(tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"
    _crash_half_way(monkeypatch)
    with pytest.raises(OSError):
        main(RELEASE + ["--out", str(out)])
    assert not out.exists() and os.listdir(tmp_path) == []  # no 0-byte or half file, no temporary left


def test_a_failed_rewrite_keeps_the_previous_file_whole(tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"
    assert main(RELEASE + ["--out", str(out)]) == 0
    before = out.read_bytes()
    _crash_half_way(monkeypatch)
    with pytest.raises(OSError):
        main(RELEASE + ["--out", str(out)])
    assert out.read_bytes() == before and pq.read_table(out).num_rows == 1000


def test_write_atomic_replaces_in_one_step_with_the_usual_permissions(tmp_path):
    path = tmp_path / "a.json"
    files.write_atomic(path, "one")
    files.write_atomic(path, "two")
    assert path.read_text() == "two" and sorted(os.listdir(tmp_path)) == ["a.json"]
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def _population(tmp_path):
    rng = np.random.default_rng(2)
    times = pd.date_range("2026-01-05", periods=24, freq="h")
    pd.DataFrame({"user": np.repeat([1, 2, 3], 24), "timestamp": np.tile(times.astype(str), 3),
                  "value": rng.uniform(0, 5, 72)}).to_parquet(tmp_path / "m.parquet", index=False)
    (tmp_path / "p.json").write_text(json.dumps({"landmarks": "none", "scheme": "uniform", "epsilon": 1.0}))
    return ["population", str(tmp_path / "m.parquet"), "--config", str(tmp_path / "p.json"), "--range", "0", "25",
            "--quiet"]


def test_a_population_killed_before_it_completes_leaves_no_out_folder(tmp_path, monkeypatch):
    import lmdk.population.api as api

    def killed(*args, **kwargs):
        raise OSError("killed while writing the summary")

    monkeypatch.setattr(api, "_write_summary", killed)
    with pytest.raises(OSError):
        main(_population(tmp_path) + ["--out", str(tmp_path / "out")])
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.partial-*"))


def test_a_population_out_folder_appears_whole(tmp_path):
    assert main(_population(tmp_path) + ["--out", str(tmp_path / "out")]) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["aggregates.json", "policy.json", "released", "summary.parquet"]
    assert len(list((tmp_path / "out" / "released").glob("user=*/part-0.parquet"))) == 3
    assert not list(tmp_path.glob(".out.partial-*"))
    assert main(_population(tmp_path) + ["--out", str(tmp_path / "out")]) == 2  # a folder is written once


def test_check_new_folder_names_the_flag():
    with pytest.raises(ParameterError, match="--out"):
        files.check_new_folder(__file__)


# --------------------------------------------------------------------------- seeded outputs say so inside
def test_every_seeded_release_file_says_demonstration_only_inside(tmp_path):
    csv, parquet, summary = tmp_path / "d.csv", tmp_path / "d.parquet", tmp_path / "s.json"
    assert main(RELEASE + ["--seed", "3", "--out", str(csv), "--summary", str(summary)]) == 0
    assert main(RELEASE + ["--seed", "3", "--out", str(parquet)]) == 0
    assert csv.read_text().startswith(files.DEMONSTRATION) and "seed 3" in csv.read_text().splitlines()[0]
    assert pq.read_schema(parquet).metadata[b"lmdk"].decode().startswith(files.DEMONSTRATION)
    assert json.loads(summary.read_text())["demonstration_only"].startswith("DEMONSTRATION ONLY")
    frame = pd.read_csv(csv, comment="#")  # the readers of these files skip the comment
    assert len(frame) == 1000


def test_an_export_without_a_seed_does_not_say_demonstration(tmp_path):
    out = tmp_path / "e.csv"
    assert main(RELEASE + ["--out", str(out)]) == 0
    assert files.DEMONSTRATION not in out.read_text()


def test_every_seeded_population_file_says_demonstration_only_inside(tmp_path):
    out = tmp_path / "demo"
    assert main(_population(tmp_path) + ["--out", str(out), "--seed", "5"]) == 0
    parts = list((out / "released").glob("user=*/part-0.parquet"))
    assert parts and all(pq.read_schema(p).metadata[b"lmdk"].decode().startswith(files.DEMONSTRATION)
                         for p in parts)
    assert pq.read_schema(out / "summary.parquet").metadata[b"lmdk"].decode().startswith(files.DEMONSTRATION)
    assert json.loads((out / "aggregates.json").read_text())["demonstration_only"].startswith("DEMONSTRATION ONLY")


def test_the_apps_demonstration_csv_says_demonstration_only_in_its_first_line():
    import lmdk
    from ui import widgets

    series = lmdk.sample("hue")
    rel = lmdk.release(series.values, np.array([3, 7]), "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE,
                       rng=0)
    text = widgets._demonstration_csv((series, rel, np.array([3, 7]), "laplace", None, 11))
    assert text.splitlines()[0] == files.demonstration_note(11)
    assert len(pd.read_csv(pd.io.common.StringIO(text), comment="#")) == len(series.values)


# --------------------------------------------------------------------------- a cryptographically secure generator
def test_exports_draw_from_aescounter_keyed_from_os_urandom(monkeypatch):
    import randomgen

    from lmdk.rng import is_secure
    from lmdk.snapping import fresh_generator

    calls = []
    real = randomgen.AESCounter

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(randomgen, "AESCounter", spy)
    monkeypatch.setattr(os, "urandom", lambda n: bytes(range(n)))  # the key is the OS entropy, used directly
    gen = fresh_generator()
    assert is_secure(gen) and calls == [((), {"key": int.from_bytes(bytes(range(16)), "little")})]
    same = real(key=int.from_bytes(bytes(range(16)), "little"))
    assert np.array_equal(gen.bit_generator.random_raw(4), same.random_raw(4))


def test_an_exported_release_and_a_population_batch_use_the_secure_generator(monkeypatch):
    import lmdk
    import lmdk.rng as rng_module
    from lmdk.exports.export import export_scheme_release
    from lmdk.population import seeding

    made = []
    real = rng_module.secure_generator

    def counting(key=None):
        made.append(key)
        return real(key)

    monkeypatch.setattr(rng_module, "secure_generator", counting)
    series = lmdk.sample("hue")
    export_scheme_release(series, "none", "uniform", 1.0, protects=lmdk.relation.public_range(0, 25))
    assert len(made) == 1
    gens = seeding.generators(None, "uniform", ["a", "b", "c"])
    assert len(made) == 2 and all(rng_module.is_secure(g) for g in gens)  # one keyed generator per batch
    assert not rng_module.is_secure(seeding.generators(0, "uniform", ["a"])[0])  # a demonstration stays seeded


def test_the_exact_samplers_refinements_stay_on_a_secure_generator():
    from lmdk.discrete_lockstep import LockstepNoise
    from lmdk.rng import is_secure, secure_generator

    noise = LockstepNoise.from_generators([secure_generator(), secure_generator()], [5, 5], 5)
    assert is_secure(noise._child(0))
    seeded = LockstepNoise.from_generators([np.random.default_rng(0)], [5], 5)
    assert not is_secure(seeded._child(0))
