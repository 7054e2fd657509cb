"""Declared landmarks: landmark sets given in advance, from the clock or a person's own declaration, never read
from the data being released (:mod:`lmdk.declared.calendar`: ``calendar:`` windows)."""
from __future__ import annotations

from lmdk.declared.calendar import CalendarRule
from lmdk.declared.calendar import parse as parse_calendar

__all__ = ["CalendarRule", "parse_calendar"]
