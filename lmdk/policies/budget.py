"""What each user of a policy table has spent and has left: the ledger's entries composed per user.

An entry is one user's when it names the user (``entry.user``, compared as text as the policy table does); the
totals are :func:`lmdk.ledger.compose`'s (Σ ε and the PLD total at δ), ``remaining`` the cap minus Σ ε (None
without a cap). Ledgers whose entries name no user (the app's per-session ledger of single-series exports) give
every user zero spent.
"""
from __future__ import annotations

import pandas as pd

from lmdk.policies.table import user_key

COLUMNS = ("user", "releases", "epsilon_basic", "epsilon_pld", "remaining")


def spent_by_user(entries, users, cap: float | None = None, delta: float | None = None) -> pd.DataFrame:
    """One row per user of ``users``: releases, ε spent (basic, PLD at ``delta``) and ε remaining under ``cap``."""
    from lmdk import ledger

    by_user: dict[str, list] = {}
    for entry in entries:
        owner = getattr(entry, "user", None)
        if owner is not None:
            by_user.setdefault(user_key(owner), []).append(entry)
    rows = []
    for user in users:
        totals = ledger.compose(by_user.get(user_key(user), []), delta or ledger.DELTA)
        left = None if cap is None else max(0.0, float(cap) - totals["epsilon_basic"])
        rows.append((user_key(user), totals["releases"], totals["epsilon_basic"], totals["epsilon_pld"], left))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def from_ledger_summary(summary: dict, users) -> pd.DataFrame:
    """The rows of :func:`spent_by_user` read from a ledger database's per-user summary
    (``lmdk.ledger.summary(url, dataset=…, users=True)``): a user it does not name has spent nothing and has the
    whole stored cap left (None without one)."""
    cap = (summary.get("cap") or {}).get("epsilon")
    found = {user_key(u): v for u, v in (summary.get("by_user") or {}).items()}
    rows = []
    for user in users:
        seen = found.get(user_key(user))
        if seen is None:
            rows.append((user_key(user), 0, 0.0, 0.0, None if cap is None else float(cap)))
        else:
            rows.append((user_key(user), int(seen["releases"]), float(seen["epsilon_basic"]),
                         float(seen["epsilon_pld"]), seen["remaining"]))
    return pd.DataFrame(rows, columns=list(COLUMNS))
