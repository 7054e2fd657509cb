"""Bundled samples: the real HUE residence 1 and two synthetic traces generated from a seed.

§4.1.1 of the landmark-privacy paper uses the first 1,000 entries of HUE residence 1, of T-drive
taxi 2 and of Copenhagen device 449. Only HUE is bundled (CC BY 4.0, see assets/hue_NOTICE.md);
the taxi and contact traces are synthetic imitations with the statistics the paper reports.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk.assets import ASSETS
from lmdk.data.load import load_series
from lmdk.data.series import NON_PARTICIPANT, NOTHING_FOUND, Series, from_contacts, from_trajectory
from lmdk.errors import ParameterError
from lmdk.mechanisms import metres_to_latlon
from lmdk.rng import as_generator

HUE_FILE = ASSETS / "hue_residential_1.csv"

TAXI_INTERVAL_S = 177.0
"""T-drive: a fix every 177 s on average (§4.1.1)."""
TAXI_STEP_M = 623.0
"""T-drive: 623 m between consecutive fixes on average (§4.1.1)."""
BEIJING = (39.9042, 116.4074)
SCAN_INTERVAL_S = 300.0
"""Copenhagen: each phone scans for Bluetooth devices every 5 minutes (§4.1.1)."""


@dataclass(frozen=True)
class SampleInfo:
    """What a bundled sample is; ``synthetic`` samples must be labelled as such in the app."""

    name: str
    title: str
    kind: str
    synthetic: bool
    description: str
    default_n: int | None
    relation: dict | None = None  # the public neighbouring relation of the sample (lmdk.relation.Relation fields)
    relation_source: str = ""  # where that public fact comes from (never the data)


SAMPLES: dict[str, SampleInfo] = {
    "hue": SampleInfo(
        "hue", "HUE smart meter, residence 1 (real)", "values", False,
        "Real hourly electricity use (kWh) of residence 1 of the HUE data set (BC Hydro, British "
        "Columbia, from 2012-06-01; Makonin, CC BY 4.0). The paper uses the first 1,000 hours.",
        1000, {"kind": "range", "low": 0.0, "high": 25.0, "unit": "kWh"},
        "a residential service of 100 A at 240 V delivers at most 24 kW, so one hour reads at most 24 kWh"),
    "taxi": SampleInfo(
        "taxi", "Beijing taxi (synthetic)", "trajectory", True,
        "Synthetic taxi trace in Beijing imitating T-drive: a GPS fix about every 177 s, about "
        "623 m apart on average, with stops of varying length. Generated from a seed; not real data.",
        1000, {"kind": "radius", "d": 200.0, "unit": "m"},
        "a city block: whether the taxi stood at one address or another one within 200 m"),
    "contacts": SampleInfo(
        "contacts", "Bluetooth contacts (synthetic)", "contacts", True,
        "Synthetic Bluetooth contact log imitating the Copenhagen Networks Study: one scan every "
        "5 minutes; contact ids of participants, −1 when nothing was found and −2 for a "
        "non-participating device. Times count from the study start (1970-01-01 = day 0). "
        "Generated from a seed; not real data.",
        1000),
}


def sample(name: str, *, n: int | None = -1, seed: int = 0) -> Series:
    """A bundled sample: ``n`` events (default: the sample's default, 1,000; None: all of HUE)."""
    if name not in SAMPLES:
        raise ParameterError(f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}")
    info = SAMPLES[name]
    if n == -1:
        n = info.default_n
    if n is not None and (not isinstance(n, (int, np.integer)) or n < 1):
        raise ParameterError(f"n must be a positive number of events or None, not {n!r}")
    if name == "hue":
        if n is None:
            return load_series(HUE_FILE, name=info.title, strict=True)
        with open(HUE_FILE, "rb") as handle:  # the first n data rows, so warnings concern them only
            head = b"".join(line for _, line in zip(range(int(n) + 1), handle, strict=False))
        return load_series(head, name=info.title, strict=True)
    if n is None:
        raise ParameterError(f"sample {name!r} is synthetic: give n, the number of events")
    if name == "taxi":
        return synthetic_taxi(int(n), seed=seed)
    return synthetic_contacts(int(n), seed=seed)


def _taxi_segments(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per fix: (stopped, pace). Stops last 2–150 fixes (≈6 min–7 h), trips 5–60 fixes; each trip
    has its own pace (cruising for passengers in traffic … expressway)."""
    stopped = np.zeros(n, dtype=bool)
    pace = np.ones(n)
    i, stop = 0, False
    while i < n:
        if stop:
            length = int(np.clip(rng.lognormal(np.log(12), 0.9), 2, 150))
        else:
            length = int(np.clip(rng.lognormal(np.log(18), 0.6), 5, 60))
            pace[i:i + length] = rng.lognormal(0.0, 0.9)
        stopped[i:i + length] = stop
        i, stop = i + length, not stop
    return stopped, pace


def synthetic_taxi(n: int = 1000, *, seed=0) -> Series:
    """A synthetic Beijing taxi trace with T-drive's mean interval (177 s) and step (623 m)."""
    rng = as_generator(seed)
    stopped, pace = _taxi_segments(n, rng)
    dt = rng.gamma(1.5, 1.0, n - 1)
    dt = dt * (TAXI_INTERVAL_S * (n - 1) / dt.sum()) if n > 1 else dt
    heading = np.cumsum(rng.choice([0.0, np.pi / 2, -np.pi / 2], n, p=[0.8, 0.1, 0.1])
                        + rng.normal(0, 0.15, n)) + rng.uniform(0, 2 * np.pi)
    speed = rng.gamma(4.0, 1.0, n) * pace  # relative speed; scaled below to hit the mean step
    drive = np.column_stack([np.cos(heading), np.sin(heading)]) * speed[:, None]
    drive[stopped] = 0.0
    drive[0] = 0.0
    jitter = rng.normal(0.0, 12.0, (n, 2)) * stopped[:, None]  # GPS noise while parked
    anchor = np.cumsum(drive, axis=0)
    anchor -= anchor.mean(axis=0)  # keep the trip centred on Beijing

    def mean_step(scale: float) -> float:
        """Mean distance between consecutive fixes when the driving is scaled by ``scale``."""
        steps = np.diff(anchor * scale + jitter, axis=0)
        return float(np.mean(np.hypot(steps[:, 0], steps[:, 1]))) if n > 1 else TAXI_STEP_M

    lo, hi = 0.0, 1.0
    while mean_step(hi) < TAXI_STEP_M and hi < 1e9:
        hi *= 2.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if mean_step(mid) < TAXI_STEP_M else (lo, mid)
    xy = anchor * hi + jitter
    lat, lon = metres_to_latlon(xy, BEIJING)
    seconds = np.concatenate([[0.0], np.cumsum(np.maximum(np.round(dt), 1.0))])
    times = pd.Timestamp("2008-02-02 13:30:00") + pd.to_timedelta(seconds, unit="s")
    return from_trajectory(times, np.round(lat, 6), np.round(lon, 6),
                           name=f"{SAMPLES['taxi'].title}, seed {seed}")


def synthetic_contacts(n: int = 1000, *, seed=0) -> Series:
    """A synthetic Bluetooth contact log: 5-minute scans, a daily rhythm, −1/−2 and repeat contacts."""
    rng = as_generator(seed)
    slots = np.arange(int(n * 1.08) + 10)
    kept = slots[rng.random(slots.size) > 0.07][:n]  # ~7 % of scans missed (phone off, no data)
    seconds = kept * SCAN_INTERVAL_S + rng.integers(0, 8, kept.size)
    hour = (seconds // 3600) % 24
    night, day = (hour < 8), (hour >= 9) & (hour < 17)
    participants = rng.choice(np.arange(1, 400), 120, replace=False)  # random order = popularity rank
    popularity = 1.0 / np.arange(1, participants.size + 1) ** 1.1  # few close contacts, many rare
    popularity /= popularity.sum()
    roommate, friends = participants[rng.permutation(8)[:1]], participants[rng.permutation(20)[:5]]
    contact = rng.choice(participants, kept.size, p=popularity)
    evening_friend = rng.choice(friends, kept.size)
    contact = np.where(~day & ~night, np.where(rng.random(kept.size) < 0.5, evening_friend, contact), contact)
    contact = np.where(night & (rng.random(kept.size) < 0.7), roommate[0], contact)
    u = rng.random(kept.size)
    nothing = np.where(night, 0.30, np.where(day, 0.04, 0.12))
    outsider = np.where(night, 0.05, np.where(day, 0.12, 0.10))
    contact = np.where(u < nothing, NOTHING_FOUND, np.where(u < nothing + outsider, NON_PARTICIPANT, contact))
    return from_contacts(pd.to_datetime(seconds.astype(np.int64), unit="s"), contact.astype(np.int64),
                         name=f"{SAMPLES['contacts'].title}, seed {seed}")
