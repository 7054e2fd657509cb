"""A user's spend in the current period (a day or month cap) from SQLite's running totals, reading only the batch's
users' rows (issue 52): each total row also carries its charge's ``time``, ``high`` (the latest time of the user's
charges up to it) and ``late`` (how many of them came earlier than one before them: an import of old entries).

With ``k`` the user's last row whose ``high`` is before the period's start (found by bisection over n, ``high`` only
grows with n), every charge after ``k`` is in the period unless one came late: the spend is ``total(N) − total(k)``
when ``late(N) = late(k)``, else the rows k+1…N are read one by one (their ε: consecutive totals' differences).
"""
from __future__ import annotations

import json
from collections import Counter

FIRST_OUTSIDE = """
WITH RECURSIVE asked (person, top, g) AS MATERIALIZED (
    SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]')
    FROM json_each(?3) j),
guessed (person, top, g, total, late, at, above) AS MATERIALIZED (
    SELECT q.person, q.top, q.g, a.total, a.late, q.g = 0 OR COALESCE(a.high < ?2, 0), COALESCE(b.high < ?2, 0)
    FROM asked q
    LEFT JOIN lmdk_totals a ON a.dataset = ?1 AND a.n = q.g AND a.person = q.person
    LEFT JOIN lmdk_totals b ON b.dataset = ?1 AND b.n = q.g + 1 AND b.person = q.person),
probe (person, lo, hi) AS (
    SELECT person, CASE WHEN NOT at THEN 0 ELSE g + 1 END, CASE WHEN NOT at THEN g ELSE top + 1 END
    FROM guessed WHERE NOT (at AND NOT above)
    UNION ALL
    SELECT p.person, CASE WHEN x.high < ?2 THEN (p.lo + p.hi) / 2 ELSE p.lo END,
           CASE WHEN x.high < ?2 THEN p.hi ELSE (p.lo + p.hi) / 2 END
    FROM probe p LEFT JOIN lmdk_totals x ON x.dataset = ?1 AND x.n = (p.lo + p.hi) / 2 AND x.person = p.person
    WHERE p.hi > p.lo + 1)
SELECT person, g, total, late FROM guessed WHERE at AND NOT above
UNION ALL
SELECT probe.person, probe.lo, t.total, t.late FROM probe
LEFT JOIN lmdk_totals t ON t.dataset = ?1 AND t.n = probe.lo AND t.person = probe.person
WHERE probe.hi = probe.lo + 1"""
"""Each user's last row before the period (parameters: dataset, the period's start, the users as a JSON array of
[person, N, guessed k]): (person, k, total(k), late(k)), k = 0 (no row, NULLs) when every charge is in the period.
Invariant: the row at ``lo`` is before the period (or ``lo`` = 0) and the one at ``hi`` is not (or ``hi`` = N + 1);
a guess right (most users of a daily release) costs two probes and ends there."""
ROWS = """
SELECT t.person, t.n, t.total, t.time FROM json_each(?2) j CROSS JOIN lmdk_totals t
WHERE t.dataset = ?1 AND t.n = json_extract(j.value, '$[1]') AND t.person = json_extract(j.value, '$[0]')"""
"""Rows of named users at named n (parameters: dataset, a JSON array of [person, n]): one probe each."""
SAMPLE = 64
"""Users of a batch bisected first: their most common N − k sets the guess for the rest."""


def period_spent(cur, dataset: str, since: str, latest: dict[str, tuple[int, float, str, int]]) -> dict[str, float]:
    """Σ ε at or after ``since`` of each user of ``latest`` ({user: (N, total(N), high(N), late(N))}, their last
    rows; users without a row left out), cancelled charges included: one bisection per user over its own rows."""
    users = sorted(person for person, (top, _, _, _) in latest.items() if top > 0)
    if not users:
        return {}
    sample = users[::max(1, len(users) // SAMPLE)]
    cur.execute(FIRST_OUTSIDE, (dataset, since, json.dumps([[p, latest[p][0], latest[p][0]] for p in sample])))
    gaps = Counter(latest[person][0] - int(k) for person, k, _, _ in cur.fetchall())
    gap = gaps.most_common(1)[0][0] if gaps else 0
    asked = [[p, latest[p][0], max(0, latest[p][0] - gap)] for p in users]
    cur.execute(FIRST_OUTSIDE, (dataset, since, json.dumps(asked)))
    spent: dict[str, float] = {}
    late_users: dict[str, tuple[int, float]] = {}
    for person, k, total, late in cur.fetchall():
        top, last, _, last_late = latest[person]
        if int(late or 0) == last_late:  # every charge after k is in the period
            spent[person] = last - float(total or 0.0)
        else:
            late_users[person] = (int(k), float(total or 0.0))
    if late_users:  # a charge after k came late (an import): the user's rows after k read one by one
        pairs = [[p, n] for p, (k, _) in late_users.items() for n in range(k + 1, latest[p][0] + 1)]
        cur.execute(ROWS, (dataset, json.dumps(pairs)))
        rows = sorted((person, int(n), float(total), time) for person, n, total, time in cur.fetchall())
        previous = {p: total for p, (_, total) in late_users.items()}
        for person, _, total, time in rows:
            if time >= since:
                spent[person] = spent.get(person, 0.0) + total - previous[person]
            previous[person] = total
            spent.setdefault(person, 0.0)
    return spent
