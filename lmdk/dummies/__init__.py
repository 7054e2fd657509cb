"""Private dummy-landmark selection (papers/000 §3.4; thesis "Selection of events").

* :mod:`~lmdk.dummies.selection`: candidate sets L ⊂ L′ (``options``), their utilities and the exponential
  mechanism that picks one (``select``), and the per-repetition L′ the schemes release on;
* :mod:`~lmdk.dummies.chains`: histogram bins and the orders in which regular timestamps join L′.
"""
from lmdk.dummies.selection import (
    METHODS,
    METRICS,
    OPTIMAL_MAX_REGULAR,
    UTILITIES,
    DummySpec,
    MembershipDisclosure,
    Options,
    Selection,
    count_utility,
    landmark_set_distance,
    landmark_sets_for_release,
    membership_disclosure,
    options,
    position_utility,
    select,
    utility_sensitivity,
)

__all__ = [
    "METHODS", "UTILITIES", "METRICS", "OPTIMAL_MAX_REGULAR", "DummySpec", "Options", "Selection",
    "options", "position_utility", "count_utility", "utility_sensitivity", "select",
    "landmark_sets_for_release", "landmark_set_distance", "MembershipDisclosure", "membership_disclosure",
]
