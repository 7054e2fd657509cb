"""Private selection of data-derived landmark sets (:mod:`lmdk.selection.private`): a rule that reads the values
being released spends its own stated budget, so the export's ε is the total it really is."""
from __future__ import annotations

from lmdk.selection.private import PrivateLandmarks, select

__all__ = ["PrivateLandmarks", "select"]
