"""What a mechanism perturbs for each kind of series (paper §4.1.2): values, local metres, or 0/1 reports."""
from __future__ import annotations

import numpy as np

MECHANISM_FOR_KIND = {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}
"""The §4.1.2 mechanism of each kind of series."""


def release_input(series, landmarks) -> tuple[np.ndarray, str, tuple | None]:
    """What the mechanism perturbs: (array, mechanism, origin). Values → kWh etc. (Laplace); trajectories →
    local metres (planar Laplace, origin for converting back); contacts → the 0/1 landmark indicator
    reported by randomized response, as in the paper's contact experiment (§4.1.2)."""
    kind = series.kind
    if kind == "values":
        return series.values, "laplace", None
    if kind == "trajectory":
        xy, origin = series.xy()
        return np.asarray(xy, dtype=float), "planar_laplace", tuple(origin)
    bits = np.zeros(len(series), dtype=np.int64)
    bits[np.asarray(landmarks, dtype=np.int64)] = 1
    return bits, "randomized_response", None
