"""Which policy each user's series is released under: their row of the policy table, else ``--config``, else
withheld ("no policy"); and the officer's bounds (``--max-epsilon``, ``--schemes``) every row must keep.

A row outside the bounds is *refused for that user*: the user is withheld with a reason naming the row and the
bound (the summary's ``withheld`` column, and a printed line), and the other users are released — the same
treatment as a user over a budget cap. A ``--config`` outside the bounds is the officer's own input and fails the
run (exit code 2). The bound on ε is on each user's total: the release's ε plus a private landmark selection's
ε_sel, what the ledger charges.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from lmdk.errors import ParameterError
from lmdk.policies.table import PolicyRow, PolicyTable, user_key

NO_POLICY = "no policy"
CONFIG = "--config"


@dataclass(frozen=True)
class Bounds:
    """The officer's bounds: the largest total ε per user, and the schemes allowed (None: no bound)."""

    max_epsilon: float | None = None
    schemes: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        """Check the bounds, naming the flag."""
        from lmdk.policies.policy import SCHEME_NAMES

        if self.max_epsilon is not None and not float(self.max_epsilon) > 0:
            raise ParameterError(f"--max-epsilon must be a number > 0, not {self.max_epsilon!r}")
        if self.schemes is not None:
            unknown = [s for s in self.schemes if s not in SCHEME_NAMES]
            if unknown or not self.schemes:
                raise ParameterError(f"--schemes: {', '.join(unknown) or 'nothing'} is not a scheme; give a "
                                     f"comma-separated list of {', '.join(SCHEME_NAMES)}")

    def breach(self, epsilon_total: float, scheme: str) -> str | None:
        """The bound a policy passes (in words), or None when it keeps them all."""
        if self.max_epsilon is not None and epsilon_total > float(self.max_epsilon) * (1 + 1e-12):
            return f"epsilon {epsilon_total:g} is over --max-epsilon {float(self.max_epsilon):g}"
        if self.schemes is not None and scheme not in self.schemes:
            return f"scheme {scheme!r} is not among --schemes {','.join(self.schemes)}"
        return None


def parse_schemes(text: str) -> tuple[str, ...]:
    """The allowed schemes from ``--schemes adaptive,skip``."""
    return tuple(part.strip().lower() for part in str(text).split(",") if part.strip())


@dataclass(frozen=True)
class Assignment:
    """The distinct policies of a run (``variants``, with the table rows or ``--config`` they came from) and each
    user's: a variant's index, or the reason the user is withheld. Users are compared as text."""

    variants: tuple  # of lmdk.population.Policy
    origins: tuple[str, ...]  # per variant: "--config" or "policy table row 3" (first row with that policy)
    by_user: dict[str, int | str]
    fallback: int | str  # users without a row: the --config variant, or NO_POLICY
    refused: tuple[tuple[PolicyRow, str], ...] = ()  # rows outside the bounds, with the bound they pass

    def of(self, user) -> int | str:
        """The variant index of ``user``, or the reason they are withheld."""
        return self.by_user.get(user_key(user), self.fallback)


def row_policy(row: PolicyRow, base):
    """The Policy of one table row: its landmarks, ε, scheme (and mechanism, w, dummies when given) over ``base``
    (what ε protects, the seed, the mapping, the landmark flags come from ``--config`` and the command line; a
    private selection's ε_sel only for a row whose rule reads the data)."""
    fields = {"landmarks": row.landmarks, "epsilon": row.epsilon, "scheme": row.scheme, "w": row.w,
              "dummies": row.dummies}
    if row.mechanism is not None:
        fields["mechanism"] = row.mechanism
    try:
        return selection_where_needed(replace(base, **fields))
    except ParameterError as exc:
        raise ParameterError(f"{row.label}: {exc}") from None


def selection_where_needed(policy):
    """``policy`` without a private selection's ε_sel when its rule is declared (nothing to select): with a table,
    ``--landmark-epsilon`` applies to the rules that read the data."""
    if policy.landmark_epsilon is None or policy.rule.data_dependent:
        return policy
    return replace(policy, landmark_epsilon=None)


def _total(policy) -> float:
    """ε a user spends under ``policy``: the release's ε plus a private selection's."""
    return float(policy.epsilon) + float(policy.landmark_epsilon or 0.0)


def assign(table: PolicyTable, default, base, bounds: Bounds | None = None) -> Assignment:
    """Each user's policy: ``table``'s row over ``base``, else ``default`` (``--config``, may be None → "no
    policy"); rows outside ``bounds`` are withheld with the bound named. ``base``: the settings a row does not
    carry (a Policy; ``default`` itself when given)."""
    bounds = bounds or Bounds()
    variants: list = []
    origins: list[str] = []
    index: dict[str, int] = {}

    def variant(policy, origin: str, key: str | None = None) -> int:
        key = policy.to_json() if key is None else key
        if key not in index:
            index[key] = len(variants)
            variants.append(policy)
            origins.append(origin)
        return index[key]

    fallback: int | str = NO_POLICY
    if default is not None:
        default = selection_where_needed(default)
        breach = bounds.breach(_total(default), default.scheme)
        if breach:
            raise ParameterError(f"--config: {breach}; the default policy must keep the officer's bounds")
        fallback = variant(default, CONFIG)
    by_user: dict[str, int | str] = {}
    refused = []
    built: dict[tuple, tuple] = {}  # rows that differ only in their user share one Policy (and its key)
    for row in table.rows:
        fields = (row.landmarks, row.epsilon, row.scheme, row.mechanism, row.w, repr(row.dummies))
        if fields not in built:
            made = row_policy(row, base)
            built[fields] = (made, made.to_json())
        policy, key = built[fields]
        breach = bounds.breach(_total(policy), policy.scheme)
        if breach:
            by_user[row.user] = f"refused: {row.label}: {breach}"
            refused.append((row, breach))
        else:
            by_user[row.user] = variant(policy, f"policy table row {row.row}", key)
    return Assignment(tuple(variants), tuple(origins), by_user, fallback, tuple(refused))


def charges(assignment: Assignment, users) -> dict[str, float]:
    """{user key: ε} each released user of ``users`` (one user column: keys by :func:`lmdk.data.ids.key_map`, so
    7 and 7.0 are one person) is charged under ``assignment``: their own policy's total ε (ε + a private
    selection's ε_sel), summed over ids of one key; users the table withholds are charged nothing."""
    from lmdk.data.ids import key_map

    keys = key_map(users)
    out: dict[str, float] = {}
    for user, key in keys.items():
        choice = assignment.of(user)
        if not isinstance(choice, str):
            policy = assignment.variants[choice]
            out[key] = out.get(key, 0.0) + float(policy.epsilon) + float(policy.landmark_epsilon or 0.0)
    return out
