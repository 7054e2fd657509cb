"""Real multi-user files from ../shared/data/realworld/ (skipped when that folder is absent)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk import population
from lmdk.data import load_series
from lmdk.relation import radius

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"


def _file(name: str) -> Path:
    """A real-world file, or skip."""
    path = REALWORLD / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path


def test_two_taxis_of_one_tdrive_file(tmp_path):
    path = _file("tdrive_taxi1_and_2_combined.txt")
    result = population.release(path, {"landmarks": "stay:30min:500m", "scheme": "skip", "epsilon": 0.01,
                                                "allow_data_landmarks": True},
                                out=tmp_path / "taxis", protects=radius(1.0, bound=50_000))
    single = [len(load_series(str(path), entity=taxi)) for taxi in ("1", "2")]  # the one-series loader
    assert list(result.summary["user"]) == ["1", "2"] and list(result.summary["n"]) == single
    released = pd.read_parquet(result.released)
    assert {"released_lat", "released_lon"} <= set(released.columns)
    assert np.all(np.abs(released["released_lat"] - 39.9) < 1.0)  # within the bound around Beijing
    assert result.summary["theorem2_holds"].all() and result.aggregates["mechanism"] == "planar_laplace"


def test_sociopatterns_contacts_of_every_child(tmp_path):
    path = _file("sociopatterns_primaryschool.csv")
    result = population.release(path, {"landmarks": "share:10", "scheme": "adaptive", "epsilon": 1.0, "seed": 0})
    s = result.summary
    assert len(s) == 242 and result.aggregates["kind"] == "contacts"
    assert s["n"].sum() == 2 * 125_773  # every contact counts for both children
    assert s["theorem2_holds"].all()
    assert ((s["landmark_share"] > 0.05) & (s["landmark_share"] < 0.2)).all()
