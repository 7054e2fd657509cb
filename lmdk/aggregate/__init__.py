"""Aggregate streams (:mod:`lmdk.aggregate.build`): the sum, mean or count over many users per time bin — the
statistic a utility, a transport authority or a contact study publishes — released under landmark privacy."""
from __future__ import annotations

from lmdk.aggregate.build import STATISTICS, Aggregate, build, membership
from lmdk.aggregate.partial import ALL, Region

__all__ = ["ALL", "STATISTICS", "Aggregate", "Region", "build", "membership"]
