"""The docs cannot rot: the quickstart runs top to bottom. (Every code block of the README and docs/*.md runs in
test_docs_examples.py; the API and command-line references are built by `mkdocs build --strict` in .ci/run.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
