"""Population releases: one landmark-privacy policy applied to every user's series (issue 17).

    import lmdk
    from lmdk import population
    policy = population.Policy(landmarks="calendar:daily@01:00-06:00", scheme="adaptive", epsilon=1.0)
    # a rule that reads the values (percentile:20) is refused in an export unless landmark_epsilon=E selects it
    # privately (ε per user: E + epsilon) or allow_data_landmarks=True says what is not protected
    result = population.release("fleet.parquet", policy, out="released/",
                                protects=lmdk.relation.public_range(0, 25, "kWh"))
    result.summary        # one row per user: n, |L|, share, worst Σ, Theorem 2, MAE, published share …
    result.aggregates     # MAE quantiles, landmark-share histogram, violated / degenerate counts

Users of equal length run in lockstep on a (users, n) array (``batch``); each user's randomness comes
from a SeedSequence keyed by (seed, scheme, user id) (``seeding``), so the output does not depend on the
batching, the partitioning or the engine (in-process, or Dask: ``engine``). ``lmdk population`` is the
command line (``command``).
"""
from __future__ import annotations

from lmdk.policies.policy import Policy, load_policy
from lmdk.population.api import PopulationRelease, release, with_scheme
from lmdk.population.batch import BatchRelease, release_batch

__all__ = ["BatchRelease", "Policy", "PopulationRelease", "load_policy", "release", "release_batch", "with_scheme"]
