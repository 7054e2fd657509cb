"""Spatiotemporal events PRESENCE and PATTERN (paper §2.2, Definitions 2.2–2.3), times 0-based."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError

KINDS = ("presence", "pattern")


@dataclass(frozen=True, eq=False)
class Event:
    """PRESENCE (in regions[k] at times[k] for at least one k) or PATTERN (for every k); regions is (n, m) bool."""

    kind: str
    regions: np.ndarray
    times: np.ndarray

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ParameterError(f"kind must be one of {KINDS}, got {self.kind!r}")
        t = np.asarray(self.times)
        if t.ndim != 1 or t.size == 0 or not np.issubdtype(t.dtype, np.integer) or t.min() < 0:
            raise ParameterError("times must be a non-empty 1-D sequence of integer timestamps ≥ 0")
        if np.any(np.diff(t) <= 0):
            raise ParameterError("times must be strictly increasing")
        r = np.asarray(self.regions)
        if r.ndim == 1:
            r = np.broadcast_to(r, (t.size, r.size))
        if r.ndim != 2 or r.shape[0] != t.size or r.dtype != bool:
            raise ParameterError("regions must be boolean masks over the cells, one per timestamp (shape (n, m))")
        object.__setattr__(self, "times", t.astype(np.int64))
        object.__setattr__(self, "regions", np.array(r, dtype=bool))
        self.regions.setflags(write=False)
        self.times.setflags(write=False)

    @property
    def m(self) -> int:
        """Number of cells of the map the regions are defined on."""
        return self.regions.shape[1]

    @property
    def start(self) -> int:
        """First timestamp of the event."""
        return int(self.times[0])

    @property
    def end(self) -> int:
        """Last timestamp of the event."""
        return int(self.times[-1])

    @property
    def length(self) -> int:
        """Number of timestamps (the paper's event length)."""
        return int(self.times.size)

    def region_at(self, t: int) -> np.ndarray | None:
        """Region mask at timestamp t, or None when t is not one of the event's times."""
        k = np.searchsorted(self.times, t)
        return self.regions[k] if k < self.times.size and self.times[k] == t else None

    def holds(self, trajectories) -> np.ndarray:
        """Truth value of the event for trajectories of shape (..., T) with T > end (Definitions 2.2–2.3)."""
        x = np.asarray(trajectories)
        if x.shape[-1] <= self.end:
            raise ParameterError(f"trajectories must cover timestamp {self.end} (the event's end)")
        inside = self.regions[np.arange(self.times.size), x[..., self.times]]
        return inside.any(axis=-1) if self.kind == "presence" else inside.all(axis=-1)

    def validate_for(self, m: int) -> None:
        """Raise unless the regions are masks over m cells."""
        if self.m != m:
            raise ParameterError(f"the event's regions cover {self.m} cells but the map has {m}")


def make_event(kind: str, cells, times, m: int) -> Event:
    """Event with the same region (a list of cell ids) at every one of ``times``."""
    mask = np.zeros(m, dtype=bool)
    ids = np.asarray(cells, dtype=np.int64)
    if ids.size == 0 or ids.min() < 0 or ids.max() >= m:
        raise ParameterError(f"cells must be a non-empty list of cell ids in 0..{m - 1}")
    mask[ids] = True
    return Event(kind, mask, np.asarray(times, dtype=np.int64))
