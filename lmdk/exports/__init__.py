"""Exports, statements and RunConfigs: what a release hands out and says (above the schemes).

:mod:`lmdk.exports.export` writes a release as CSV/Parquet, :mod:`lmdk.exports.statement` says what it guarantees,
:mod:`lmdk.exports.runconfig` holds everything needed to reproduce a run (``RunConfig``).
"""
from __future__ import annotations

from lmdk.exports import export, runconfig, statement
from lmdk.exports.export import export_release, release_frame
from lmdk.exports.runconfig import RunConfig

__all__ = ["RunConfig", "export_release", "release_frame", "export", "runconfig", "statement"]
