"""One home or a district (aggregates) and places and times (PriSTE's spatiotemporal events), each decided over
many seeds."""
from __future__ import annotations

import numpy as np

from lmdk import metrics, priste, relation, schemes
from lmdk.lessons.base import SEED, Lesson, Reveal, Setting, consistent, number, percent, seed_streams, share_interval

HOURS = 168  # one week of hourly readings: the declared landmarks (Sunday mornings) fall inside it
HOME_RANGE = (0.0, 25.0)  # kWh: one home's public range, as the app's district
DISTRICT_RULE = "calendar:sun@09:00-12:00"  # declared, never read from the data
DISTRICT_REPETITIONS = 50
CHOICES_7 = ("The district's total", "About the same", "One home")


def _district(users: int, seed: int = SEED):
    """(one home's readings, the hourly sum over ``users`` homes, the declared landmarks) of a synthetic district."""
    from lmdk.aggregate import build
    from lmdk.landmarks import parse_rule
    from lmdk.population.fleet import synthetic_fleet
    from lmdk.population.input import frame_source
    from lmdk.present.population import user_series

    fleet = synthetic_fleet(users, HOURS, (0.05, 0.6), rng=seed)
    source = frame_source(fleet.table)
    total = build(source, "sum", value_range=HOME_RANGE, bin="1h").to_series(units="kWh")
    home = user_series(source, 0, name="one home")
    landmarks = np.asarray(parse_rule(DISTRICT_RULE).indices(total), dtype=np.int64)
    return np.asarray(home.values, dtype=float), np.asarray(total.values, dtype=float), landmarks


def _relative_mae(x: np.ndarray, landmarks: np.ndarray, eps: float, protects, gen) -> tuple[float, float]:
    """(MAE, MAE ÷ mean reading) of Uniform releases of ``x``."""
    released = schemes.release(x, landmarks[landmarks < x.size], "uniform", eps, protects=protects,
                               repetitions=DISTRICT_REPETITIONS, rng=gen)
    mae = metrics.mae(x, released.values).mean
    return mae, mae / float(np.mean(np.abs(x)))


def _aggregate(v: dict, seed: int = SEED) -> Reveal:
    """One home's own release against the district's total under the aggregate relation (one home's readings)."""
    users, eps = int(v["users"]), float(v["eps"])
    home, total, landmarks = _district(users, seed)
    gen = np.random.default_rng(seed)
    alone, alone_share = _relative_mae(home, landmarks, eps, relation.public_range(*HOME_RANGE, "kWh"), gen)
    protects = relation.aggregate("sum", users=users, low=HOME_RANGE[0], high=HOME_RANGE[1], unit="kWh",
                                  who="household")
    together, together_share = _relative_mae(total, landmarks, eps, protects, gen)
    scale = protects.sensitivity / float(schemes.allocate("uniform", HOURS, landmarks, eps)[0])
    ratio = together_share / alone_share
    answer = CHOICES_7[1] if 0.8 <= ratio <= 1.25 else CHOICES_7[0] if ratio < 1 else CHOICES_7[2]
    verdict = ("still larger than the total itself" if together_share >= 1 else
               "a sizeable share of it" if together_share >= 0.2 else "a small share of it")
    return Reveal(
        answer=answer,
        numbers={"Δ, one home's readings (kWh)": number(protects.sensitivity),
                 "Laplace scale Δ/εₜ, both releases (kWh)": number(scale),
                 "one home: MAE (kWh)": number(alone), "one home: MAE ÷ mean reading": percent(alone_share),
                 f"total of {users:,}: MAE (kWh)": number(together),
                 f"total of {users:,}: MAE ÷ mean total": percent(together_share)},
        why=(f"Both releases protect one home's readings anywhere in 0–{HOME_RANGE[1]:g} kWh, so both draw Laplace "
             f"noise of scale Δ/εₜ = {scale:.3g} kWh. One home's release is clamped to its range 0–"
             f"{HOME_RANGE[1]:g} kWh, which keeps its mean error down to {alone:.3g} kWh, while the total's range is "
             f"{users:,} times wider, so its error in kWh is larger ({together:.3g} kWh); relative to their sizes "
             f"the total wins, {percent(together_share)} against {percent(alone_share)} — {verdict}. The promise "
             "is the same for every home: the aggregate is more accurate, not more private."))


SIDE = 6  # cells per side of the synthetic walk's grid
CELL_M = 500.0
STEPS = 16
SIGMA = 1.0
REGION = (14, 15, 20, 21)  # four central cells
WINDOW = (5, 8)  # the event's first and last timestamp


RELEASES = 20  # PriSTE releases of the walk, each from its own seed
CHOICES_8 = ("In nearly every release (95 % or more)", "In some releases (5–95 %)", "In nearly none (5 % or less)")
BANDS_8 = {CHOICES_8[0]: (0.95, 1.0), CHOICES_8[1]: (0.05, 0.95), CHOICES_8[2]: (0.0, 0.05)}
# ε = 2 left out: there the share sits near a band's edge (α = 2: 16 %, α = 5: 83 % over 200 releases), which 20
# releases cannot place on one side


def _spatiotemporal(v: dict, seed: int = SEED) -> Reveal:
    """PriSTE with the planar Laplace (§4.3, Algorithm 2): in how many of RELEASES releases of the walk α had to
    be cut so the PRESENCE event stays ε-private; every band the share's 95 % interval meets is right."""
    alpha, eps = float(v["alpha"]), float(v["eps"])
    from lmdk.priste.views import synthetic_walk

    grid, M, cells = synthetic_walk(SIDE, SIDE, CELL_M, SIGMA, STEPS, 0)
    event = priste.make_event("presence", list(REGION), range(WINDOW[0], WINDOW[1] + 1), grid.m)
    # exact_leakage=False: the same cells and cuts, without the exact leakage the lesson does not show
    runs = [priste.release(cells, [event], eps, alpha, M, grid, rng=gen, exact_leakage=False)
            for gen in seed_streams(seed, RELEASES)]
    cuts = np.array([int((r.halvings > 0).sum()) for r in runs])
    hit = int((cuts > 0).sum())
    share = hit / RELEASES
    low, high = share_interval(hit, RELEASES)
    answer = CHOICES_8[2] if share <= 0.05 else CHOICES_8[0] if share >= 0.95 else CHOICES_8[1]
    return Reveal(
        answer=answer, correct_choices=consistent(BANDS_8, low, high),
        numbers={"releases where α was cut": f"{hit} of {RELEASES} (95 % CI {100 * low:.0f}–{100 * high:.0f} %)",
                 "steps cut per release, mean": number(float(cuts.mean())),
                 "smallest α used (per km)": number(float(min(r.alpha.min() for r in runs))), "ε": number(eps),
                 "mean distance to the true cell (m)": number(float(np.mean([r.distance_m.mean() for r in runs])))},
        why=(f"With α = {alpha:g} per km and ε = {eps:g}, PriSTE had to cut α at some step in {hit} of {RELEASES} "
             f"releases of this walk (95 % CI {100 * low:.0f}–{100 * high:.0f} %), on average at {cuts.mean():.2g} of "
             f"{STEPS} steps: where a noisy cell would have told too much about the event, it halved α and drew "
             "again, so every release keeps the event ε-private. Whether a release needs a cut depends on its own "
             "noise; a larger α or a smaller ε makes cuts more frequent."))


LESSON_AGGREGATES = Lesson(
    name="One home or a district",
    setting=(f"A district of {{users}} homes reads its meters every hour for a week ({HOURS} hours; each reading "
             f"in 0–{HOME_RANGE[1]:g} kWh). Either one home releases its own series, or the district releases the "
             "total of all homes per hour; both with Uniform at ε = {eps}, protecting one home's readings."),
    question="Whose release has the smaller error relative to its size?",
    choices=CHOICES_7,
    settings=(Setting("users", "Homes in the district", (10, 100, 1000), 100),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="users", reveal_fn=_aggregate, seeded=True, section="aggregates (issue 36)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "district", "d_users": str(v["users"]), "d_n": str(HOURS), "d_stat": "sum",
                            "eps": f"{v['eps']:g}", "schemes": "uniform,skip,adaptive"},
    takeaway=("Protecting one home in a total takes noise of one home's size, so the total's relative error shrinks as "
              "homes are added — it is more accurate, not more private; with small readings it takes many homes "
              "before the error is small."))

LESSON_PRISTE = Lesson(
    name="Places and times",
    setting=(f"Someone walks {STEPS} steps on a {SIDE} × {SIDE} grid of {CELL_M:g} m cells. The event to protect: "
             f"being in the four central cells between steps {WINDOW[0]} and {WINDOW[1]}. PriSTE releases a "
             "noisy cell per step with the planar Laplace at α = {alpha} per km and ε = {eps} for the event."),
    question=(f"In how many of {RELEASES} releases of this walk will PriSTE have to cut α (add noise) at some step "
              "to keep the event ε-private?"),
    choices=CHOICES_8,
    settings=(Setting("alpha", "α of the planar Laplace (per km)", (0.5, 1.0, 2.0, 5.0), 2.0),
              Setting("eps", "ε of the event", (0.5, 1.0), 1.0)),
    play="alpha", reveal_fn=_spatiotemporal, seeded=True, section="PriSTE §4.3, Algorithm 2",
    lab_page="spatiotemporal_events", lab_title="Spatiotemporal events",
    lab_query_fn=lambda v: {"st_src": "walk", "st_side": str(SIDE), "st_cell": f"{CELL_M:g}", "st_t": str(STEPS),
                            "st_sigma": f"{SIGMA:g}", "st_tseed": "0", "st_alpha": f"{v['alpha']:g}",
                            "st_eps": f"{v['eps']:g}", "st_kind": "presence",
                            "st_win": f"{WINDOW[0]}-{WINDOW[1]}", "st_cells": ",".join(map(str, REGION))},
    takeaway="Protecting a place-and-time event limits every release that could reveal it, not just one.")
