"""``sample:district``: a synthetic district of homes whose hourly electricity use follows the bundled HUE
residence's profile — a population to try ``lmdk aggregate``, ``lmdk population`` and ``lmdk plan --statistic`` on.

The profile is HUE residence 1's mean kWh per (month, weekday, hour); home ``i`` reads its profile times its own
scale (log-normal around 1), times a slowly varying AR(1) factor, rounded to Wh and clamped to the public range
[0, 25] kWh (a 100 A service at 240 V). The homes sit on four feeders (``feeder``: north, south, east, west), 25
each, so ``--by feeder`` has groups. Everything is drawn from one fixed seed: the sample is the same every time.
Synthetic, not real data (the profile is CC BY 4.0, see assets/hue_NOTICE.md).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError

DISTRICT_NAME = "sample:district"
"""How the command line names the sample (INPUT)."""
DISTRICT_HOMES, DISTRICT_HOURS, DISTRICT_SEED = 100, 8_760, 55
DISTRICT_START = "2024-01-01"  # naive wall-clock hours, as the HUE export writes them
DISTRICT_RANGE = (0.0, 25.0)  # kWh: one home's public range in an hour (the HUE sample's)
FEEDERS = ("north", "south", "east", "west")


@lru_cache(maxsize=1)
def hue_profile() -> np.ndarray:
    """HUE residence 1's mean kWh per (month 1–12, weekday 0–6, hour 0–23), shape (12, 7, 24)."""
    from lmdk.data.samples import HUE_FILE

    frame = pd.read_csv(HUE_FILE)
    times = pd.to_datetime(frame["date"], format="%m/%d/%Y") + pd.to_timedelta(frame["hour"], unit="h")
    kwh = pd.to_numeric(frame["energy_kWh"], errors="coerce")
    keep = kwh.notna().to_numpy()
    means = kwh[keep].groupby([times[keep].dt.month, times[keep].dt.weekday, times[keep].dt.hour]).mean()
    full = pd.MultiIndex.from_product([range(1, 13), range(7), range(24)])
    profile = means.reindex(full)
    fallback = kwh[keep].groupby(times[keep].dt.hour).mean()  # a (month, weekday, hour) HUE never saw: its hour
    filled = profile.to_numpy().copy()
    hours = np.tile(np.arange(24), 12 * 7)
    gaps = np.isnan(filled)
    filled[gaps] = fallback.reindex(hours[gaps]).to_numpy()
    return filled.reshape(12, 7, 24)


@lru_cache(maxsize=1)
def district_sample() -> pd.DataFrame:
    """``sample:district`` (100 homes × 8,760 hours, the fixed seed), made once per process; do not modify it."""
    return district_table()


def district_table(homes: int = DISTRICT_HOMES, hours: int = DISTRICT_HOURS, seed: int = DISTRICT_SEED
                   ) -> pd.DataFrame:
    """The long table (user, timestamp, value, feeder) of ``homes`` homes × ``hours`` hours; see the module
    docstring (the defaults are ``sample:district``)."""
    if not 1 <= homes <= 10_000 or not 1 <= hours <= 100_000 or homes * hours > 10_000_000:
        raise ParameterError(f"district: homes must lie in 1..10,000 and hours in 1..100,000 (at most 10 million "
                             f"readings), not {homes} × {hours}")
    gen = np.random.default_rng(seed)
    times = pd.date_range(DISTRICT_START, periods=hours, freq="h")
    base = hue_profile()[times.month.to_numpy() - 1, times.weekday.to_numpy(), times.hour.to_numpy()]
    scale = gen.lognormal(0.0, 0.35, size=(homes, 1))
    z = gen.standard_normal((homes, hours))
    from scipy.signal import lfilter  # here: scipy.signal imports scipy.stats (slow to import)

    drift = lfilter([np.sqrt(1 - 0.9**2)], [1.0, -0.9], z, axis=1)  # stationary AR(1), unit variance
    values = np.clip(np.round(base * scale * np.exp(0.3 * drift), 3), *DISTRICT_RANGE)
    return pd.DataFrame({
        "user": np.repeat([f"home{i:03d}" for i in range(homes)], hours),
        "timestamp": np.tile(times.to_numpy(), homes),
        "value": values.reshape(-1),
        "feeder": np.repeat(np.asarray(FEEDERS)[np.arange(homes) % len(FEEDERS)], hours),
    })
