"""Where the bundled data lives: ``assets/`` in a checkout, ``lmdk/_assets`` in an installed wheel."""
from __future__ import annotations

from pathlib import Path


def assets_dir() -> Path:
    """The folder holding the HUE sample, its licence note and the cached experiment runs."""
    checkout = Path(__file__).resolve().parents[1] / "assets"
    if checkout.is_dir():
        return checkout
    return Path(__file__).resolve().parent / "_assets"


ASSETS = assets_dir()
