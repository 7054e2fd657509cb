"""The Adversary lab's default-view audits that ship with the app (ui.audit.BUNDLE_FILE, issue 34): they equal a
fresh run of the page, a fresh server's default view reads them instead of computing, and any other configuration
is computed."""
from __future__ import annotations

import dataclasses
import math
import pickle
import sys
from functools import partial
from pathlib import Path

import app_support
import numpy as np

from lmdk.assets import ASSETS
from ui import audit as ui_audit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import bundle_audit  # noqa: E402  (deploy/bundle_audit.py, the script that writes the bundle)

PAGE = "pages/adversary_lab.py"
open_page = partial(app_support.open_page, PAGE, 300)
STALE = "assets/audit_default is stale: run  python deploy/bundle_audit.py  and commit the file"


def same(a, b, where: str = "audit") -> None:
    """Assert two audits (or parts of them) are equal: every field, floats and arrays to 1e-9 relative."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, type(a)) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape, f"{where}: shapes differ"
        if a.dtype.kind in "fc":
            assert np.allclose(a, b, rtol=1e-9, atol=0, equal_nan=True), f"{where}: values differ"
        else:
            assert np.array_equal(a, b), f"{where}: values differ"
    elif isinstance(a, (float, np.floating)) and not isinstance(a, bool):
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300), \
            f"{where}: {a!r} vs {b!r}"
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


def test_the_shipped_audits_equal_a_fresh_run_of_the_default_view():
    with open(ASSETS / ui_audit.BUNDLE_FILE, "rb") as f:
        shipped = pickle.load(f)
    fresh = bundle_audit.record_default_view()
    assert set(shipped["audits"]) == set(fresh), STALE  # the same configurations, series content included
    assert set(shipped["tokens"]) == {token for token, _ in fresh.values()}, STALE
    assert [a.scheme for _, a in fresh.values()] == ["event", "user", "w-event", "uniform", "skip", "adaptive"]
    for digest, (_, result) in fresh.items():
        try:
            same(result, shipped["audits"][digest], result.scheme)
        except AssertionError as exc:
            raise AssertionError(f"{STALE}: {exc}") from None


def test_a_fresh_server_opens_the_default_view_from_the_bundle_and_computes_any_other(monkeypatch):
    calls = app_support.audits_computed(monkeypatch)
    at = open_page()
    assert calls == [] and not at.error  # six audits shown, none computed
    assert app_support.headline(at).startswith("##### ")
    assert len(at.get("plotly_chart")) >= 3
    at = open_page(aud_n="200")  # another configuration: computed, scheme by scheme
    assert calls == ["event", "user", "w-event", "uniform", "skip", "adaptive"]
    ui_audit.clear()


def test_a_missing_or_unreadable_bundle_is_no_bundle(tmp_path, monkeypatch, caplog):
    import lmdk.assets

    (tmp_path / "audit_default").mkdir()
    (tmp_path / ui_audit.BUNDLE_FILE).write_bytes(b"not a pickle")
    monkeypatch.setattr(lmdk.assets, "ASSETS", tmp_path)
    assert ui_audit._read_bundle() == {"tokens": set(), "audits": {}}
    assert "python deploy/bundle_audit.py" in caplog.text  # a broken file is said in the server's log
    (tmp_path / ui_audit.BUNDLE_FILE).unlink()
    assert ui_audit._read_bundle() == {"tokens": set(), "audits": {}}
