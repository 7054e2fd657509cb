"""Settings the papers leave open and we had to assume, shared by the figure modules and their charts."""

TABLE2_EPSILON = 1.0  # PriSTE Table 2 does not state ε, α₀ or the event; assumed: ε = 1, PRESENCE(S=[1:10], T=[4:8])

DEFAULT_CELL_KM = 0.1
"""Cell side (km) inferred from Table 2 (α 0.31 per km at 0.97 km mean distance, §5.4): the PLM's mean distance
2/α = 6.5 km exceeds 0.97 km, so the distance is capped by the map (≈ 0.52 × its side for near-uniform releases):
a ≈ 2 km map, i.e. ≈ 100 m cells; our exact calibration then gives α ≈ 0.3 per km and ≈ 1 km (scan in REPRODUCTION)."""
SCALES = {0.1: "100 m cells (paper's scale, inferred from Table 2)", 1.0: "1 km cells"}
"""The two labelled scales the report shows side by side (cell side in km → label)."""
UNITS = {"alpha_unit": "per km", "cell_unit": "km"}


def scale_label(cell_km: float, *, long: bool = False) -> str:
    """'100 m cells' / '2 km cells'; with ``long`` a labelled scale's full label from SCALES."""
    c = float(cell_km)
    short = f"{c * 1000:g} m cells" if c < 1 else f"{c:g} km cells"
    return SCALES.get(c, short) if long else short
