"""Lessons 7 and 8: one home or a district (aggregates) and places and times (PriSTE's spatiotemporal events)."""
from __future__ import annotations

import numpy as np

from lmdk import metrics, priste, relation, schemes
from lmdk.lessons.base import SEED, Lesson, Reveal, Setting, number, percent

HOURS = 168  # one week of hourly readings: the declared landmarks (Sunday mornings) fall inside it
HOME_RANGE = (0.0, 25.0)  # kWh: one home's public range, as the app's district
DISTRICT_RULE = "calendar:sun@09:00-12:00"  # declared, never read from the data
DISTRICT_REPETITIONS = 50
CHOICES_7 = ("The district's total", "About the same", "One home")


def _district(users: int):
    """(one home's readings, the hourly sum over ``users`` homes, the declared landmarks) of a synthetic district."""
    from lmdk.aggregate import build
    from lmdk.landmarks import parse_rule
    from lmdk.population.fleet import synthetic_fleet
    from lmdk.population.input import frame_source
    from lmdk.present.population import user_series

    fleet = synthetic_fleet(users, HOURS, (0.05, 0.6), rng=SEED)
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


def _aggregate(v: dict) -> Reveal:
    """One home's own release against the district's total under the aggregate relation (one home's readings)."""
    users, eps = int(v["users"]), float(v["eps"])
    home, total, landmarks = _district(users)
    gen = np.random.default_rng(SEED)
    alone, alone_share = _relative_mae(home, landmarks, eps, relation.public_range(*HOME_RANGE, "kWh"), gen)
    protects = relation.aggregate("sum", users=users, low=HOME_RANGE[0], high=HOME_RANGE[1], unit="kWh",
                                  who="household")
    together, together_share = _relative_mae(total, landmarks, eps, protects, gen)
    ratio = together_share / alone_share
    answer = CHOICES_7[1] if 0.8 <= ratio <= 1.25 else CHOICES_7[0] if ratio < 1 else CHOICES_7[2]
    return Reveal(
        answer=answer,
        numbers={"Δ, one home's readings (kWh)": number(protects.sensitivity),
                 "one home: MAE (kWh)": number(alone), "one home: MAE ÷ mean reading": percent(alone_share),
                 f"total of {users:,}: MAE (kWh)": number(together),
                 f"total of {users:,}: MAE ÷ mean total": percent(together_share)},
        why=(f"Both releases protect one home's readings anywhere in 0–{HOME_RANGE[1]:g} kWh, so the noise has the "
             f"same scale, but the total of {users:,} homes is about {users:,} times bigger: its error is "
             f"{percent(together_share)} of its size against {percent(alone_share)} for one home. Many "
             "people's data hide each one of them, which is why published statistics are aggregates."))


SIDE = 6  # cells per side of the synthetic walk's grid
CELL_M = 500.0
STEPS = 16
SIGMA = 1.0
REGION = (14, 15, 20, 21)  # four central cells
WINDOW = (5, 8)  # the event's first and last timestamp


def _spatiotemporal(v: dict) -> Reveal:
    """PriSTE (Algorithms 1–3): how often α had to be cut so the PRESENCE event stays ε-private."""
    alpha, eps = float(v["alpha"]), float(v["eps"])
    from lmdk.priste.views import synthetic_walk

    grid, M, cells = synthetic_walk(SIDE, SIDE, CELL_M, SIGMA, STEPS, 0)
    event = priste.make_event("presence", list(REGION), range(WINDOW[0], WINDOW[1] + 1), grid.m)
    result = priste.release(cells, [event], eps, alpha, M, grid, rng=SEED)
    cut = int((result.halvings > 0).sum())
    leak = float(result.max_leakage.max())
    if cut:
        first = (f"With α = {alpha:g} per km the planar Laplace alone would have revealed too much about the event "
                 f"at {cut} of {STEPS} steps, so PriSTE cut α there and the event's largest leakage is {leak:.3g} "
                 f"≤ ε = {eps:g}.")
    else:
        first = (f"With α = {alpha:g} per km the event's leakage stayed at most {leak:.3g} ≤ ε = {eps:g}, so PriSTE "
                 "kept α at every step.")
    return Reveal(
        answer="Yes" if cut else "No",
        numbers={"steps where α was cut": f"{cut} of {STEPS}", "smallest α used (per km)": number(
            float(result.alpha.min())), "largest leakage of the event": number(leak), "ε": number(eps),
            "mean distance to the true cell (m)": number(float(result.distance_m.mean()))},
        why=first + (" An event spans many releases (being in a place during a time window), so a larger α or a "
                     "smaller ε forces more cuts and more noise."))


LESSON_7 = Lesson(
    number=7, name="One home or a district",
    setting=(f"A district of {{users}} homes reads its meters every hour for a week ({HOURS} hours; each reading "
             f"in 0–{HOME_RANGE[1]:g} kWh). Either one home releases its own series, or the district releases the "
             "total of all homes per hour; both with Uniform at ε = {eps}, protecting one home's readings."),
    question="Whose release has the smaller error relative to its size?",
    choices=CHOICES_7,
    settings=(Setting("users", "Homes in the district", (10, 100, 1000), 100),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="users", reveal_fn=_aggregate, section="aggregates (issue 36)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "district", "d_users": str(v["users"]), "d_n": str(HOURS), "d_stat": "sum",
                            "eps": f"{v['eps']:g}", "schemes": "uniform,skip,adaptive"},
    takeaway="The same noise is small beside a big total: aggregates over many people cost little accuracy.")

LESSON_8 = Lesson(
    number=8, name="Places and times",
    setting=(f"Someone walks {STEPS} steps on a {SIDE} × {SIDE} grid of {CELL_M:g} m cells. The event to protect: "
             f"being in the four central cells between steps {WINDOW[0]} and {WINDOW[1]}. PriSTE releases a "
             "noisy cell per step with the planar Laplace at α = {alpha} per km and ε = {eps} for the event."),
    question="Will PriSTE have to cut α (add noise) at some step of this release to keep the event ε-private?",
    choices=("Yes", "No"),
    settings=(Setting("alpha", "α of the planar Laplace (per km)", (0.5, 1.0, 2.0, 5.0), 2.0),
              Setting("eps", "ε of the event", (0.5, 1.0, 2.0), 1.0)),
    play="alpha", reveal_fn=_spatiotemporal, section="PriSTE §4, Algorithms 1–3",
    lab_page="spatiotemporal_events", lab_title="Spatiotemporal events",
    lab_query_fn=lambda v: {"st_src": "walk", "st_side": str(SIDE), "st_cell": f"{CELL_M:g}", "st_t": str(STEPS),
                            "st_sigma": f"{SIGMA:g}", "st_tseed": "0", "st_alpha": f"{v['alpha']:g}",
                            "st_eps": f"{v['eps']:g}", "st_kind": "presence",
                            "st_win": f"{WINDOW[0]}-{WINDOW[1]}", "st_cells": ",".join(map(str, REGION))},
    takeaway="Protecting a place-and-time event limits every release that could reveal it, not just one.")
