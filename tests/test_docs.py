"""The docs cannot rot: the quickstart runs top to bottom and the API reference builds from the docstrings."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_runs_and_prints_the_mae_table():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "quickstart.py")], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT / "docs")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()[:1]
            and line.split()[0] in ("event", "user", "w-event", "uniform", "skip", "adaptive")}
    assert len(rows) == 6
    assert rows["user"].endswith("holds") and rows["event"].endswith("violated")


@pytest.mark.slow
def test_api_reference_builds_from_docstrings(tmp_path):
    pytest.importorskip("pdoc")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "pdoc", "lmdk", "-o", str(tmp_path), "--no-search"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for page in ("lmdk.html", "lmdk/schemes.html", "lmdk/data.html", "lmdk/tpl.html", "lmdk/priste.html",
                 "lmdk/dummies.html", "lmdk/experiments.html", "lmdk/cli.html", "lmdk/cli/release.html",
                 "lmdk/present.html", "lmdk/present/report.html", "lmdk/relation.html", "lmdk/ledger.html",
                 "lmdk/discrete_laplace.html", "lmdk/data/statement.html"):
        assert (tmp_path / page).is_file(), page
    schemes = (tmp_path / "lmdk" / "schemes.html").read_text(encoding="utf-8")
    assert 'id="release"' in schemes and "Theorem 2" in (tmp_path / "lmdk" / "privacy.html").read_text(encoding="utf-8")
    assert "Warn:" not in done.stderr
