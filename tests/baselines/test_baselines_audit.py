"""The adversary audit (lmdk.audit) on each baseline: the measured loss of one event stays within ε, and FAST's
(user level) also for all landmarks and one more event changed together (Theorem 2's neighbour)."""
from __future__ import annotations

import pytest

import lmdk
from lmdk import relation
from lmdk.audit import audit


@pytest.mark.parametrize("scheme", ["bd", "ba", "fast", "pegasus"])
def test_audit_passes(scheme):
    series = lmdk.sample("hue", n=200)
    landmarks = [5, 50, 120] if scheme == "fast" else []
    result = audit(series, landmarks, scheme, 1.0, protects=relation.public_range(0, 25, "kWh"), w=24, trials=1500,
                   seed=2, dummy_methods=())
    assert not result.exceeds, result.to_dict()["neighbours"]
    assert "regular" in result.pairs and (scheme != "fast" or "theorem2" in result.pairs)
