"""Exceptions raised by the lmdk core; every one names the offending field and the fix."""
from __future__ import annotations


class LmdkError(ValueError):
    """Base class of every error the core raises on bad input."""


class ParameterError(LmdkError):
    """A parameter (epsilon, shape, landmark set, …) is out of range or inconsistent."""


class DataError(LmdkError):
    """Uploaded or loaded data is malformed; the message names the row/column and the fix."""


class TooLargeError(LmdkError):
    """A request exceeds a documented size limit (e.g. exhaustive search, upload size)."""


class LedgerUnavailable(LmdkError):
    """The privacy ledger cannot be reached or is not ready (a server down, a file locked, the schema missing): the
    command line exits with code 5 and nothing was released or charged; the message names no secret."""


class ReservationKept(LedgerUnavailable):
    """The ledger could not withdraw the reservation of an export that was then refused or stopped: nothing was
    released, but the reserved ε stays charged — the command line exits with code 5 and says so (never "nothing
    was charged"); the message names the reservation so the privacy officer knows that ε was reserved."""


class PolicyRefused(LmdkError):
    """A policy whose stated guarantee would not hold (e.g. landmarks computed from the released values without a
    private selection): the command line exits with code 3, the code of a policy that violates its guarantee."""


class ClassAccessError(LmdkError):
    """A live class's lecturer action (reveal, move, summary) with a wrong or missing lecturer token: nothing
    changed; the fix is to open the class from the lecturer's own page (the token never enters a share link)."""


class ClassStoreUnavailable(LmdkError):
    """The live classes' store (``LMDK_CLASS_URL``: an SQLite file or a PostgreSQL server) cannot be reached or is
    locked past its timeout: nothing was written; the message names no secret."""
