"""Argument types shared by the `lmdk` commands: one message each."""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def positive_int(label: str, upper: int) -> Callable[[str], int]:
    """A whole number in 1..upper, else an argparse error naming ``label``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{label} must be a whole number, got {text!r}") from None
        if not 1 <= value <= upper:
            raise argparse.ArgumentTypeError(f"{label} must be between 1 and {upper:,}, got {value}")
        return value

    return parse


def positive_float(label: str) -> Callable[[str], float]:
    """A finite number > 0, else an argparse error naming ``label``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{label} must be a finite number > 0, got {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{label} must be a finite number > 0, got {text!r}")
        return value

    return parse


def seed(text: str) -> int:
    """A demonstration seed: a whole number in 0..2^63−1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"seed must be non-negative and below 2^63, got {value}")
    return value
