"""``audit``: release a series and its worst neighbours thousands of times and measure what an attacker learns —
the empirical privacy loss per neighbouring pair, the landmark-position attack with and without dummy landmarks,
the value attack against e^ε/(1+e^ε), and (given a correlation strength s) the attack on a correlated series next
to its temporal-privacy-loss bound.

Every release goes through the release engine (``lmdk.schemes.release``) calibrated by ``protects=`` — the exports'
Δ, sampler and public range (``Relation.calibration``) — with repetitions as axis 0. The audit is an experiment: its
randomness comes from ``seed`` alone (one stream per scheme, part and chunk), so the same seed gives the same numbers.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from lmdk.audit import correlation as corr
from lmdk.audit import loss as loss_mod
from lmdk.audit import neighbours as nb
from lmdk.audit import positions as pos
from lmdk.audit import values as val
from lmdk.errors import LmdkError, ParameterError

CHUNK = 500  # trials per release call (progress is reported between chunks; results do not depend on it)
POSITION_TRIALS = 200  # releases per position-attack configuration (each gives an AUC over all n timestamps)
PILOT = 64  # releases that pick the worst regular event and landmark (largest mean budget)
PARTS = {"pilot": 0, "loss": 1, "positions": 2, "values": 3, "correlation": 4, "flip": 5, "group": 6}
VIEW_SEED = 0
"""The Adversary lab's audit seed (the CLI's default): public and the same in every session. An audit measures the
mechanism, not the session's demonstration release, so a class auditing one configuration shares one run whatever
each student's demonstration seed (issue 34: thirty seeds were thirty 7-second audits on one server)."""

DUMMY_METHODS = ("optimal", "heuristic", "partitioned", "random")
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class PairResult:
    """The empirical loss of one neighbouring pair beside what the policy claims for it."""

    name: str
    description: str
    cells: tuple[int, ...]
    claimed: float  # ε
    spent: float  # mean Σ ε_t over the changed events (the scheme's own accounting, Theorem 2)
    estimate: loss_mod.LossEstimate

    def to_dict(self) -> dict:
        """JSON-ready fields (the changed cells are listed only when few)."""
        out = {"description": self.description, "epsilon_claimed": self.claimed, "budget_spent": self.spent,
               **{f"epsilon_{k}": v for k, v in self.estimate.to_dict().items() if k in ("lower", "upper", "estimate")},
               "event": self.estimate.event, "counts": list(self.estimate.counts)}
        if len(self.cells) <= 3:
            out["timestamps"] = list(self.cells)
        else:
            out["changed_events"] = len(self.cells)
        return out


@dataclass(frozen=True)
class Audit:
    """What one scheme's releases of one series leak: losses, position and value attacks, correlation."""

    scheme: str
    epsilon: float
    trials: int
    seed: int
    confidence: float
    relation: dict | None
    n: int
    landmarks: int
    pairs: dict[str, PairResult]
    positions: dict[str, object]  # "none" or a dummy method → PositionResult, or the reason it was not run
    configured: str  # the positions entry of the policy as configured ("none" or its dummy method)
    values: dict[str, val.GuessResult]
    correlation: corr.CorrelationResult | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    landmark_epsilon: float = 0.0  # ε_sel of a privately selected rule (0: the landmark set is fixed)

    @property
    def promised(self) -> float:
        """The total ε the statement promises for one event's value: ε_sel + ε (ε when the set is fixed)."""
        return float(self.epsilon) + float(self.landmark_epsilon)

    @property
    def worst(self) -> PairResult | None:
        """The pair whose lower bound of the loss is the largest share of the ε claimed for it (with equal claims:
        the largest lower bound); a group pair claimed at ε + k·ε_sel is weighed against its own claim."""
        return max(self.pairs.values(), key=lambda p: p.estimate.lower / max(p.claimed, 1e-300), default=None)

    @property
    def epsilon_lower(self) -> float:
        """The lower confidence bound of the loss of the worst pair (:attr:`worst`)."""
        return self.worst.estimate.lower if self.worst else 0.0

    @property
    def epsilon_upper(self) -> float:
        """The upper confidence bound of that pair's best event."""
        return self.worst.estimate.upper if self.worst else 0.0

    @property
    def exceeds(self) -> bool:
        """True when some pair's measured lower bound is above the ε claimed for it (ε, or ε_sel + ε for the flip
        pair of a privately selected rule): the release leaks more than it says."""
        return any(p.estimate.lower > p.claimed * (1 + 1e-9) for p in self.pairs.values())

    def value_attack(self) -> val.GuessResult | None:
        """The headline value attack: at the landmark if there is one, else at the regular event."""
        return self.values.get("landmark") or self.values.get("regular")

    def to_dict(self) -> dict:
        """The audit as JSON-ready data (the keys of ``lmdk audit --json``)."""
        def num(v):
            return float(v) if v is not None and np.isfinite(v) else None

        worst = self.worst
        inference = self.positions.get(self.configured)
        landmark = (inference.to_dict() if isinstance(inference, pos.PositionResult)
                    else {"auc": None, "precision_at_k": None, "chance": self.landmarks / self.n,
                          "note": str(inference)})
        landmark["dummies"] = self.configured
        landmark["by_dummies"] = {k: (v.to_dict() if isinstance(v, pos.PositionResult) else {"note": str(v)})
                                  for k, v in self.positions.items()}
        value = self.value_attack()
        return {
            "scheme": self.scheme, "epsilon_claimed": self.promised, "epsilon_release": self.epsilon,
            "landmark_epsilon": self.landmark_epsilon, "epsilon_lower": num(self.epsilon_lower),
            "epsilon_upper": num(self.epsilon_upper),
            "epsilon_estimate": num(worst.estimate.estimate) if worst else None,
            "worst_neighbour": worst.name if worst else None, "exceeds_claim": self.exceeds,
            "confidence": self.confidence, "trials": self.trials, "seed": self.seed, "relation": self.relation,
            "events": self.n, "landmarks": self.landmarks,
            "neighbours": {k: p.to_dict() for k, p in self.pairs.items()},
            "landmark_inference": landmark,
            "value_inference": ({**value.to_dict(), "by_event": {k: v.to_dict() for k, v in self.values.items()}}
                                if value else None),
            "correlation": self.correlation.to_dict() if self.correlation else None,
            "notes": list(self.notes),
        }


def stream(seed: int, scheme: str, part: str, index: int = 0) -> np.random.Generator:
    """The Generator of one part of one scheme's audit (independent streams, fixed by the seed)."""
    return np.random.default_rng([int(seed), zlib.crc32(scheme.encode()), PARTS[part], int(index)])


def _release(x, landmarks, scheme, epsilon, mechanism, w, options, trials, seed, part, index, tick, columns=None):
    """``trials`` releases in chunks of CHUNK (each chunk its own stream), stacked along axis 0; only the timestamps
    ``columns`` are kept when given (the changed events: the rest is drawn, as an export draws it, and dropped)."""
    from types import SimpleNamespace

    from lmdk import schemes

    keep = slice(None) if columns is None else np.asarray(columns)
    parts: dict[str, list] = {"values": [], "budgets": [], "published": [], "landmarks": []}
    rel = None
    spec, cal, protects = options.get("dummies"), options["calibration"], options["protects"]
    for c, start in enumerate(range(0, trials, CHUNK)):
        reps = min(CHUNK, trials - start)
        gen = stream(seed, scheme, part, index * 1000 + c)
        if spec is None:
            rel = schemes.release_engine(x, landmarks, scheme, epsilon, cal, mechanism=mechanism, repetitions=reps,
                                         rng=gen, w=w, protects=protects)
        else:
            masks, eps_pub = dummy_masks(len(x), landmarks, epsilon, spec, reps, gen)
            rel = schemes.release_engine(x, masks, scheme, eps_pub, cal, mechanism=mechanism, repetitions=reps,
                                         rng=gen, w=w, protects=protects)
        for name, arrays in parts.items():
            arrays.append(np.asarray(getattr(rel, name))[:, keep])
        tick(reps)
    if rel is None:
        raise ParameterError(f"trials must be at least 1 (releases to draw), got {trials!r}")
    joined = {k: v[0] if len(v) == 1 else np.concatenate(v) for k, v in parts.items()}
    return SimpleNamespace(**joined, mechanism=rel.mechanism, sensitivity=rel.sensitivity)


def dummy_masks(n: int, landmarks, epsilon: float, spec, trials: int, gen: np.random.Generator):
    """(trials, n) landmark sets L′ and the publishing ε, one independent selection per trial — as each export makes
    its own (``schemes.release(..., dummies=spec)`` draws L′ with ``landmark_sets_for_release``, §3.4.2).

    One vectorised call serves methods whose candidate sets are fixed (optimal, heuristic) or only the chosen
    histogram matters (partitioned); 'random' draws its addition order once per call, which every repetition of
    that call would share, so it is called once per trial."""
    from lmdk.dummies.selection import DummySpec, landmark_sets_for_release

    spec = DummySpec(**spec) if isinstance(spec, dict) else spec
    L = np.asarray(landmarks, dtype=np.int64)
    if spec.method != "random":
        mask, eps_pub, _ = landmark_sets_for_release(n, L, epsilon, spec, trials, gen)
        return mask, eps_pub
    rows = [landmark_sets_for_release(n, L, epsilon, spec, 1, gen) for _ in range(trials)]
    return np.concatenate([r[0] for r in rows]), rows[0][1]


class _Ticker:
    """Turns finished releases into the progress fraction."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done, self.progress, self.text = max(total, 1), 0, progress, ""

    def __call__(self, reps: int) -> None:
        self.done += reps
        if self.progress is not None:
            self.progress(min(self.done / self.total, 1.0), self.text)


def _validate(trials, confidence, prior, s) -> None:
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or not 100 <= trials <= 1_000_000:
        raise ParameterError("trials must be an integer from 100 to 1,000,000 (releases per neighbour), "
                             f"got {trials!r}")
    if not 0.5 <= confidence < 1:
        raise ParameterError(f"confidence must lie in [0.5, 1), e.g. 0.95, got {confidence!r}")
    if prior not in ("range", "histogram"):
        raise ParameterError(f"prior must be 'range' (the public range's two ends) or 'histogram', got {prior!r}")
    if s is not None and not (isinstance(s, (int, float)) and np.isfinite(s) and s > 0):
        raise ParameterError(f"s (correlation strength) must be a number > 0 (smaller = stronger), got {s!r}")


def _dummy_spec(dummies, method: str) -> dict:
    """The DummySpec fields of ``method`` with the policy's share and utility (the paper's 1 %, position)."""
    base = dummies if isinstance(dummies, dict) else (vars(dummies) if dummies is not None else {})
    return {"method": method, "share": float(base.get("share", 0.01)), "utility": base.get("utility", "position")}


def audit(series, landmarks, scheme: str, epsilon: float, *, protects=None, w=None, dummies=None,
          trials: int = 2000, seed: int = 0, confidence: float = 0.95, prior: str = "range", s: float | None = None,
          position_trials: int = POSITION_TRIALS, dummy_methods=DUMMY_METHODS, position_dummies: dict | None = None,
          progress: Progress | None = None, event: str = "event", rule=None, landmark_epsilon: float | None = None,
          **removed) -> Audit:
    """Audit ``scheme`` at ``epsilon`` on ``series`` (an lmdk Series) with landmarks L (see the module docstring).

    ``protects``: what ε protects (:mod:`lmdk.relation`; values need a public range, locations a radius); its
    calibration is what is audited. To audit a deliberately broken mechanism against the claim (the audit's power),
    pass ``protects=lmdk.relation.miscalibrated(claim, noise_sensitivity=…)`` (e.g. Δ = 1 on a 25-unit range).
    ``dummies``: the policy's dummy landmarks (a DummySpec or its dict), used in every release of the loss,
    value and correlation parts; the position attack runs without dummies and with each of ``dummy_methods`` (share
    and utility from ``position_dummies``, else the policy's dummies, else 1 % and position).
    ``s``: correlation strength of the correlation part (None: not run). ``progress(fraction, text)`` is called
    between chunks of releases. ``rule``: the landmark rule ``landmarks`` came from; when it reads the values
    (:data:`lmdk.landmarks.DATA_DEPENDENT_KINDS`) the audit adds the **flip** pair — one value moved across the
    public range, hence across the rule's threshold, so that event's landmark status flips and each neighbour is
    released with its own landmark set (``landmark_epsilon``: selected privately per release, as an export with
    ``--landmark-epsilon`` does; claimed ε_sel + ε) — and the verdict covers it. With ``landmark_epsilon`` it also
    adds the **group** pair (:mod:`lmdk.audit.group`): the k events the rule marks on the series moved together,
    claimed ε + k·ε_sel; ``epsilon_claimed`` is then the total ε_sel + ε the statement promises for one event.
    """
    from lmdk.data.mechanism_input import release_input
    from lmdk.privacy import landmark_mask
    from lmdk.schemes import protects_relation, refuse_removed

    refuse_removed("audit", removed)
    relation = protects_relation("audit", protects)
    _validate(trials, confidence, prior, s)
    L = np.asarray(landmarks, dtype=np.int64).ravel()
    x, mechanism, _ = release_input(series, L)
    n = len(x)
    mask = landmark_mask(L, n)
    options = {"calibration": relation.calibration(mechanism), "protects": relation, "dummies": dummies,
               "confidence": confidence}
    a, b = nb.values_ab(np.asarray(x, dtype=float), mechanism, relation)
    methods = tuple(dummy_methods) if mask.any() and not mask.all() else ()
    pilot = min(PILOT, trials)
    hist = prior == "histogram" and mechanism == "laplace"
    units = pilot + 4 * trials + len(methods + ("none",)) * position_trials + (trials if s is not None else 0)
    units += 2 * trials if rule is not None else 0
    units += 2 * trials if rule is not None and landmark_epsilon is not None else 0
    tick = _Ticker(units + (val.HISTOGRAM_BINS * trials if hist else 0), progress)
    notes: list[str] = []

    tick.text = "choosing the worst events"
    first = _release(x, L, scheme, epsilon, mechanism, w, options, pilot, seed, "pilot", 0, tick)
    t, lm = nb.choose_cells(first.budgets, mask)
    changed = np.union1d(L, [c for c in (t, lm) if c is not None]).astype(np.int64)
    x_base = np.array(x, dtype=float)
    x_base[changed] = a[changed]
    if mechanism == "randomized_response":
        x_base = x_base.astype(np.int64)
    tick.text = "releasing the neighbours"
    col = {int(c): i for i, c in enumerate(changed)}  # timestamp → column of the kept releases
    ca, cb = a[changed], b[changed]
    base = _release(x_base, L, scheme, epsilon, mechanism, w, options, trials, seed, "loss", 0, tick, changed)
    pairs, stats = {}, {}
    for i, pair in enumerate(nb.pairs(n, L, t, lm, epsilon, event), start=1):
        x_pair = x_base.copy()
        x_pair[pair.cells] = b[pair.cells]
        other = _release(x_pair, L, scheme, epsilon, mechanism, w, options, trials, seed, "loss", i, tick, changed)
        cols = np.array([col[int(c)] for c in pair.cells])
        s0, s1 = nb.statistic(base, cols, ca, cb), nb.statistic(other, cols, ca, cb)
        stats[pair.name] = (s0, s1)
        spent = float(np.asarray(base.budgets)[:, cols].sum(axis=1).mean())
        pairs[pair.name] = PairResult(pair.name, pair.description, tuple(int(c) for c in pair.cells), epsilon,
                                      spent, loss_mod.empirical_epsilon(s0, s1, confidence))

    if rule is not None:
        flip = _flip_pair(x, rule, t, a, b, scheme, epsilon, landmark_epsilon, relation, mechanism, w, options,
                          trials, seed, tick, event)
        if isinstance(flip, str):
            notes.append(flip)
        else:
            pairs["flip"] = flip
        if landmark_epsilon is not None:
            group = _group_pair(x, rule, float(landmark_epsilon), scheme, epsilon, relation, mechanism, w, options,
                                trials, seed, tick, event)
            if isinstance(group, str):
                notes.append(group)
            else:
                pairs["group"] = group

    values = {}
    for name, cell in (("landmark", lm), ("regular", t)):
        if cell is None or name not in stats:
            continue
        s0, s1 = stats[name]
        budget = float(np.asarray(base.budgets)[:, col[cell]].mean())
        if hist:
            values[name] = _histogram_guess(series, x_base, cell, L, scheme, epsilon, mechanism, w, options, trials,
                                            seed, relation, tick, name)
            continue
        ll = [np.stack([np.zeros_like(s0), s0], axis=1), np.stack([np.zeros_like(s1), s1], axis=1)]
        success, ci = val.map_success(ll, [0.5, 0.5])
        values[name] = val.GuessResult(success, ci, val.bound(epsilon, [0.5, 0.5]), 0.5, int(cell), "range",
                                       trials, val.bound(budget, [0.5, 0.5]))
    if prior == "histogram" and not hist:
        notes.append("a histogram prior applies to values; the range prior (a fair binary guess) was used")

    tick.text = "attacking the landmark positions"
    positions: dict[str, object] = {}
    plain = {**options, "dummies": None}
    for j, method in enumerate(("none",) + methods):
        opts = plain if method == "none" else {**plain, "dummies": _dummy_spec(position_dummies or dummies, method)}
        try:
            rel = _release(x, L, scheme, epsilon, mechanism, w, opts, position_trials, seed, "positions", j, tick)
        except LmdkError as exc:
            positions[method] = f"not run: {exc}"
            tick(position_trials)
            continue
        marked = float(np.asarray(rel.landmarks).sum(axis=1).mean())
        positions[method] = pos.attack(np.asarray(rel.values), mask, marked)
    if not mask.any() or mask.all():
        notes.append("every event is a landmark or none is: there are no landmark positions to hide")
    configured = "none"
    if dummies is not None:
        configured = dummies["method"] if isinstance(dummies, dict) else dummies.method

    correlation = None
    if s is not None:
        tick.text = "attacking a correlated series"
        a0, b0 = (a[0], b[0]) if mechanism != "planar_laplace" else (np.zeros(2), np.array([b[0, 0] - a[0, 0], 0.0]))
        correlation = corr.attack(a0, b0, L, n, scheme, epsilon, float(s), trials, stream(seed, scheme, "correlation"),
                                  options["calibration"], mechanism, w, options["dummies"])
        tick(trials)
    protected = relation.to_dict()
    return Audit(scheme, float(epsilon), int(trials), int(seed), float(confidence), protected, n, int(mask.sum()),
                 pairs, positions, configured, values, correlation, tuple(notes), float(landmark_epsilon or 0.0))


def _group_pair(x, rule, landmark_epsilon, scheme, epsilon, relation, mechanism, w, options, trials, seed, tick,
                event) -> PairResult | str:
    """The group pair of a privately selected rule (:mod:`lmdk.audit.group`): the k positions the rule marks on the
    series moved together, each neighbour selected privately per release; claimed ε + k·ε_sel."""
    from lmdk import schemes
    from lmdk.audit.group import group_statistic, group_worlds
    from lmdk.selection.private import group_epsilon, select_masks

    text = rule if isinstance(rule, str) else getattr(rule, "kind", str(rule))
    if mechanism != "laplace" or relation.value_range is None:
        return f"group neighbours of {text} are built for values with a public range only"
    worlds = group_worlds(np.asarray(x, dtype=float), rule, relation.value_range)
    if isinstance(worlds, str):
        return worlds
    stats, spent = [], []
    for side, xw in enumerate((worlds.first, worlds.second)):
        parts = []
        for c, start in enumerate(range(0, trials, CHUNK)):
            reps = min(CHUNK, trials - start)
            gen = stream(seed, scheme, "group", side * 1000 + c)
            masks = select_masks(np.tile(xw, (reps, 1)), rule, landmark_epsilon, relation.value_range, gen)
            rel = schemes.release_engine(xw, masks, scheme, epsilon, options["calibration"], mechanism=mechanism,
                                         repetitions=reps, rng=gen, w=w, protects=options["protects"])
            parts.append(group_statistic(rel, masks, worlds, rule, landmark_epsilon, relation.value_range))
            spent += [float(np.asarray(rel.budgets)[:, worlds.cells].sum(axis=1).sum())] if side == 0 else []
            tick(reps)
        stats.append(np.concatenate(parts))
    k = int(worlds.cells.size)
    claimed = group_epsilon(epsilon, landmark_epsilon, k)
    description = (f"the {k:,} {event}s {text} marks on the series moved together (landmarks selected privately at "
                   f"ε_sel = {landmark_epsilon:g} per release; claimed ε + k·ε_sel)")
    return PairResult("group", description, tuple(int(c) for c in worlds.cells), claimed, sum(spent) / trials,
                      loss_mod.empirical_epsilon(stats[0], stats[1], options.get("confidence", 0.95)))


def _flip_pair(x, rule, t, a, b, scheme, epsilon, landmark_epsilon, relation, mechanism, w, options, trials, seed,
               tick, event) -> PairResult | str:
    """The pair whose landmark set differs: event t at the range's two ends, each neighbour released with the landmark
    set its own values give under ``rule`` (or a private selection of it per release); a note when it does not apply.

    The attacker's statistic adds to the likelihood ratio at t what the landmark decision changes: t's budget, whether
    t was published, and whether its release repeats the previous one (Skip) — all visible in an export."""
    from lmdk import schemes
    from lmdk.data.series import from_values
    from lmdk.landmarks import LandmarkRule, parse_rule
    from lmdk.selection.private import select_masks

    parsed = rule if isinstance(rule, LandmarkRule) else parse_rule(rule)
    text = rule if isinstance(rule, str) else parsed.kind
    if not parsed.data_dependent:
        return f"the landmark rule {text} is declared: no value changes the landmark set (no flip neighbours)"
    if mechanism != "laplace" or t is None:
        return (f"flip neighbours of the data-derived rule {text} are built for values only: a location or contact "
                "rule is audited by its fixed landmark set alone")
    n = len(x)
    worlds = []
    for end in (a, b):
        xw = np.array(x, dtype=float)
        xw[t] = end[t]
        worlds.append(xw)
    sets = [np.zeros(n, dtype=bool) for _ in worlds]
    for xw, m in zip(worlds, sets, strict=True):
        m[parsed.indices(from_values(xw))] = True
    if np.array_equal(sets[0], sets[1]):
        return f"moving one value across the public range does not change the landmark set of {text} here"
    keep = np.array([max(t - 1, 0), t])
    value_range = relation.value_range or (float(np.min(a)), float(np.max(b)))
    stats = []
    for side, (xw, fixed) in enumerate(zip(worlds, sets, strict=True)):
        parts = []
        for c, start in enumerate(range(0, trials, CHUNK)):
            reps = min(CHUNK, trials - start)
            gen = stream(seed, scheme, "flip", side * 1000 + c)
            mask = (select_masks(np.tile(xw, (reps, 1)), parsed, float(landmark_epsilon), value_range, gen)
                    if landmark_epsilon is not None else fixed)
            rel = schemes.release_engine(xw, mask, scheme, epsilon, options["calibration"], mechanism=mechanism,
                                         repetitions=reps, rng=gen, w=w, protects=options["protects"])
            values = np.asarray(rel.values)[:, keep]
            budgets = np.asarray(rel.budgets)[:, keep]
            published = np.asarray(rel.published)[:, keep]
            ratio = nb.llr(values[:, 1:], budgets[:, 1:], published[:, 1:], a[t:t + 1], b[t:t + 1], mechanism,
                           rel.sensitivity)[:, 0]
            repeat = (values[:, 1] == values[:, 0]) & (t > 0)
            parts.append(ratio + 1e3 * budgets[:, 1] + 1e4 * (1 - published[:, 1]) + 1e5 * repeat)
            tick(reps)
        stats.append(np.concatenate(parts))
    claimed = float(epsilon) + float(landmark_epsilon or 0.0)
    how = (f"selected privately at ε_sel = {float(landmark_epsilon):g}" if landmark_epsilon is not None
           else "computed from the values")
    description = (f"one {event}'s value moved across the rule's threshold (t = {t}, {text}; landmarks {how}), so "
                   "its landmark status flips")
    return PairResult("flip", description, (int(t),), claimed, float(epsilon),
                      loss_mod.empirical_epsilon(stats[0], stats[1], options.get("confidence", 0.95)))


def _histogram_guess(series, x_base, cell, L, scheme, epsilon, mechanism, w, options, trials, seed, relation, tick,
                     name) -> val.GuessResult:
    """The MAP guess of one event's value under the series' own histogram (a population's stand-in) as the prior."""
    low, high = relation.value_range
    prior = val.histogram(series.values, low, high)
    loglik = []
    budget = 0.0
    for j, v in enumerate(prior.support):
        xj = x_base.copy()
        xj[cell] = v
        rel = _release(xj, L, scheme, epsilon, mechanism, w, options, trials, seed, "values",
                       (1 if name == "landmark" else 2) * 100 + j, tick, [cell])
        budgets = np.asarray(rel.budgets)[:, 0]
        budget = float(budgets.mean())
        loglik.append(val.log_likelihood(np.asarray(rel.values)[:, 0], budgets, np.asarray(rel.published)[:, 0],
                                         prior.support, mechanism, rel.sensitivity))
    success, ci = val.map_success(loglik, prior.weights)
    return val.GuessResult(success, ci, val.bound(epsilon, prior.weights), float(np.max(prior.weights)), int(cell),
                           "histogram", trials, val.bound(budget, prior.weights))
