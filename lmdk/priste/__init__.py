"""PriSTE — spatiotemporal event privacy (Cao et al., TKDE): public API re-exported from the lmdk.priste_* modules.

* map model: :class:`Grid`, :func:`planar_laplace_emission`, :func:`delta_location_set`,
  :func:`restricted_emission`, :func:`gaussian_transition`, :func:`estimate_transition` (lmdk.priste.grid);
* events: :class:`Event`, :func:`make_event` (lmdk.priste.events);
* quantification (§3): :func:`prior_probability`, :func:`joint_probability`,
  :func:`observation_probability`, :func:`leakage`, :func:`event_vectors` (lmdk.priste.quantify);
* exact worst case over initial distributions (§4.2): :func:`worst_case_leakage`, with certified
  cheap bounds :func:`leakage_upper_bound` / :func:`leakage_lower_bound` (lmdk.priste.worst);
* release (§4, Algorithms 1–3): :func:`release` (check="any_prior" exact, or "fixed_prior" at one π),
  :func:`release_repetitions`, :func:`audit_worst_case`, :class:`ReleaseResult` (lmdk.priste.calibration).
  α is per kilometre (planar Laplace on cell centres); distances are in metres (``distance_m``). Times are 0-based
  (the paper's are 1-based).
"""
from lmdk.priste.calibration import CHECKS, ReleaseResult, audit_worst_case, band, release, release_repetitions
from lmdk.priste.events import KINDS, Event, make_event
from lmdk.priste.grid import (
    Grid,
    delta_location_set,
    estimate_transition,
    gaussian_transition,
    grid_around,
    planar_laplace_emission,
    posterior,
    restricted_emission,
    simulate_trajectory,
)
from lmdk.priste.quantify import (
    EventTracker,
    event_vectors,
    event_vectors4,
    joint_probability,
    leakage,
    log_ratio,
    observation_probability,
    prior_probability,
    prior_vector,
)
from lmdk.priste.worst import leakage_lower_bound, leakage_upper_bound, worst_case_from_vectors, worst_case_leakage

__all__ = [
    "KINDS", "Event", "make_event", "Grid", "delta_location_set", "estimate_transition", "gaussian_transition",
    "grid_around", "planar_laplace_emission", "posterior", "restricted_emission", "simulate_trajectory",
    "EventTracker", "event_vectors", "event_vectors4", "joint_probability", "leakage", "log_ratio",
    "observation_probability", "prior_probability", "prior_vector", "CHECKS", "ReleaseResult", "audit_worst_case",
    "band", "release", "release_repetitions", "leakage_lower_bound", "leakage_upper_bound", "worst_case_from_vectors",
    "worst_case_leakage",
]
