"""Exact worst-case spatiotemporal event leakage over all initial distributions π (Theorem 4.1, Eqs. 15–16).

Reduction. For a prior π on the simplex Δ_m let

    x = π·a = Pr(EVENT),  v = π·ā = Pr(¬EVENT) = 1 − x,
    y = π·b ∝ Pr(EVENT, o),  u = π·d ∝ Pr(¬EVENT, o)   (b, d share one positive factor).

Eqs. (15)–(16) are y·v ≤ e^ε·x·u and x·u ≤ e^ε·y·v, i.e. |log F| ≤ ε with

    F(π) = Pr(o | EVENT) / Pr(o | ¬EVENT) = (y·v) / (x·u)  on  D = {π : 0 < x < 1, y + u > 0}.

So the worst case W = sup_D |log F| depends on π only through the image point (x, y, u) of π,
which ranges over the polytope Q = conv{(a_i, b_i, d_i)} ⊂ R³ (v = 1 − x on the simplex).

Claim: sup_Q F and sup_Q 1/F are attained (or approached) on an edge of Q, hence on a segment
between two vertices of Q. Proof. Take any face Φ of Q of dimension ≥ 2 and a point p in its
relative interior with x(p)·u(p) > 0 (F finite there; the cases F = ±∞ are caught on the
boundary, see below). The direction space of Φ has dimension ≥ 2, so it contains a direction
δ ≠ 0 with δ_x = 0. Along the line p + sδ, x and v = 1 − x are constant, hence

    F(p + sδ) = ((1 − x)/x) · y(s)/u(s),

a positive constant times a ratio of two affine functions of s — a linear-fractional function,
which is monotone on the interval where u(s) > 0 (and so is 1/F). Moving in the non-decreasing
direction until the line leaves Φ reaches the relative boundary of Φ without decreasing F
(u, being ≥ 0 and affine, can only vanish on the boundary unless it vanishes on all of Φ, and
then F = +∞ everywhere on Φ including its boundary). By induction on the face dimension every
value of F (and of 1/F) in Q is matched or exceeded, as a value or a limit, on the union of the
edges of Q. The same holds verbatim on the simplex itself, whose edges are the pairs {e_i, e_j};
every edge of Q is the image of such a pair with i, j vertices of Q. ∎

(Equivalently: the level-set function y·v − λ·x·u is a quadratic form whose Hessian
−(a wᵀ + w aᵀ) has at most one negative eigenvalue, so no 2-D face is negative-definite and a
quadratic-program solver as in the paper is unnecessary.)

Algorithm (default, method="screen"). (1) Evaluate every vertex e_i of the simplex and the
segments among the few cells with the most extreme log(b_i/a_i) and log(d_i/ā_i) — the cells the
O(m) upper bound of :func:`leakage_upper_bound` combines, where the tiny-weight maximisers live.
(2) The mediant bound of :func:`_uncertified_pairs` lists every simplex edge {e_i, e_j} whose
maximum could still exceed that value (cells are pre-screened by a separable version of the same
bound, :func:`_screen_cells`); those edges are searched exactly, in decreasing order of their bound,
until the bound of every edge left is at most the best value found. By the claim above (applied to
the simplex's own edges) the result is the supremum — no hull is needed. In the release, step (1) alone
rejects most candidates (a feasible prior above ε), so step (2) runs mainly for accepted ones.

Algorithm (method="hull", kept for cross-checks). Candidate vertices are the vertices of the 3-D convex hull of
the m points (Qhull via scipy.spatial.ConvexHull on per-coordinate min–max scaled points); when Qhull cannot build a
3-D hull (fewer than 5 points, coplanar or collinear sets) every distinct point is a candidate.
Every pair of candidates is a segment inside Q, and the pairs include every edge, so the search
is exact — up to Qhull dropping a vertex within its rounding tolerance. To be exact regardless,
the hull's value is then certified: after checking all m vertices, a per-pair upper bound from
the mediant inequality (see _uncertified_pairs) lists every pair of points whose segment could
still beat it — typically a dozen of the 80,000 — and those are searched too.

On a segment π(s) = (1 − s)e_i + s e_j, F(s) = N(s)/D(s) with N = y·v and D = x·u quadratics in s;
F′ = 0 ⇔ N′D − ND′ = 0, whose cubic terms cancel:

    (n₂d₁ − n₁d₂)s² + 2(n₂d₀ − n₀d₂)s + (n₁d₀ − n₀d₁) = 0.

So log F is evaluated at the endpoints, at the real roots in (0, 1) and, for limits at endpoints
where x, v or y + u vanish, at η = 1e-12 from each endpoint. Each segment is searched in both
orientations with s ≤ 1/2 and evaluated as a convex combination of endpoint values, so a maximiser
that puts a tiny weight (say 1e-30) on one cell is found to full relative precision. Vectorised over
all pairs: O(k²) for k hull vertices (k ≤ m; ≈ 80,000 pairs in the fully degenerate m = 400 case).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from lmdk.errors import ParameterError
from lmdk.priste.events import Event
from lmdk.priste.quantify import event_vectors4

METHODS = ("screen", "hull", "pairs")
QUICK_K = 8
"""Cells taken from each tail of log(b/a) and log(d/ā) for the cheap candidate segments."""
CHUNK = 256
"""Flagged simplex edges searched at a time (largest bound first) before pruning the rest against the best value."""
ETA = 1e-12
"""Inward offset from segment endpoints to evaluate limits where a conditional is undefined at the endpoint."""


def _distinct(P: np.ndarray) -> np.ndarray:
    """Sorted indices of the first occurrence of each distinct row of P."""
    order = np.lexsort(P.T[::-1])
    keep = np.ones(order.size, dtype=bool)
    keep[1:] = np.any(P[order[1:]] != P[order[:-1]], axis=1)
    return np.sort(order[keep])


def _candidate_vertices(P: np.ndarray, method: str) -> np.ndarray:
    """Indices (into P's rows) of the points whose pairs must be searched."""
    if method == "hull" and P.shape[0] >= 5:
        span = P.max(axis=0) - P.min(axis=0)
        if np.all(span > 0):
            try:
                return np.sort(ConvexHull((P - P.min(axis=0)) / span).vertices)
            except QhullError:
                pass
    return _distinct(P)


def _log_f(s, x0, x1, v0, v1, y0, y1, u0, u1) -> np.ndarray:
    """log F at π = (1 − s)e_i + s e_j, each functional given by its values (·0 at e_i, ·1 at e_j); NaN outside D.

    Convex combinations of the endpoint values (never ``p + s·(q − p)``) keep full relative precision
    when the two endpoint values differ by many orders of magnitude.
    """
    w = 1.0 - s
    x, v = w * x0 + s * x1, w * v0 + s * v1
    y, u = w * y0 + s * y1, w * u0 + s * u1
    with np.errstate(divide="ignore", invalid="ignore"):
        lf = np.log(y) + np.log(v) - np.log(x) - np.log(u)
    ok = (x > 0) & (v > 0) & (y + u > 0)
    return np.where(ok, lf, np.nan)


def _stationary(x0, x1, v0, v1, y0, y1, u0, u1) -> tuple[np.ndarray, np.ndarray]:
    """The two roots of N′D − ND′ = 0 per segment (NaN where none is real); arguments as in :func:`_log_f`."""
    x1, v1, y1, u1 = x1 - x0, v1 - v0, y1 - y0, u1 - u0
    n0, n1, n2 = y0 * v0, y0 * v1 + y1 * v0, y1 * v1
    d0, d1, d2 = x0 * u0, x0 * u1 + x1 * u0, x1 * u1
    A, B, C = n2 * d1 - n1 * d2, 2.0 * (n2 * d0 - n0 * d2), n1 * d0 - n0 * d1
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = B * B - 4.0 * A * C
        sq = np.sqrt(np.where(disc >= 0, disc, np.nan))
        q = -0.5 * (B + np.where(B >= 0, sq, -sq))
        r1 = np.where(A != 0, q / A, np.where(B != 0, -C / B, np.nan))
        r2 = np.where(q != 0, C / q, np.nan)
    return r1, r2


def worst_case_from_vectors(a, b, d, *, a_not=None, method: str = "screen",
                            stop_above: float | None = None) -> tuple[float, np.ndarray, float]:
    """sup over π of |log Pr(o|E)/Pr(o|¬E)| from :func:`event_vectors4`'s vectors; returns (value, π*, log F(π*)).

    ``method``: "screen" (default) searches the vertices and the segments among the most extreme cells
    (:func:`leakage_lower_bound`), then every simplex edge whose mediant bound (see _uncertified_pairs)
    could still beat that value — exact by the edge theorem above, no hull needed; "hull" searches the
    pairs of Qhull's hull vertices and then certifies with the same bound; "pairs" searches every pair of
    distinct points (O(m²)). All three return the same supremum.
    ``stop_above``: if a cheap search (:func:`leakage_lower_bound`'s candidates) or the hull search
    already finds a prior whose leakage exceeds it, return that (a lower bound of the supremum, attained
    by the returned π) without certifying — enough to reject a candidate release.
    The value is +inf when some prior makes the observations impossible under exactly one of
    EVENT/¬EVENT, and 0 when no prior gives both EVENT and ¬EVENT positive probability.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    vecs = prepare_vectors(a, b, d, a_not)
    a, an, b, d = vecs
    m = a.size
    if method == "screen" or stop_above is not None:  # the vertices and the segments among the most extreme cells
        quick = quick_search(vecs, QUICK_K, stop_above)
        if stop_above is not None and quick[0] > stop_above:
            return _result(quick, m)
    if method == "screen":
        best = screen_from(vecs, quick)
    elif method == "pairs":
        best = _search(_all_pairs(_distinct(np.stack((a, b, d), axis=1))), vecs)
    else:
        best = _search(_all_pairs(_candidate_vertices(np.stack((a, b, d), axis=1), method)), vecs)
        if stop_above is None or best[0] <= stop_above:  # certify: every vertex, then the pairs the bound allows
            value = lambda r: r[0]  # noqa: E731 — a one-line closure over this scope's values
            best = max(best, _search((np.arange(m), np.arange(m)), vecs), key=value)
            best = max(best, _search(_uncertified_pairs(vecs, best[0]), vecs), key=value)
    return _result(best, m)


def screen_from(vecs, quick, *, stop_above: float | None = None,
                floor: float | None = None) -> tuple[float, tuple[int, int, float], float]:
    """The exact supremum given :func:`quick_search`'s result (which covers every vertex): search the
    simplex edges whose mediant bound could still beat it, largest bound first, pruning as the best value
    rises (the edge theorem above makes this exact).

    ``stop_above``: return as soon as a value above it is found (enough to reject a candidate release).
    ``floor``: also skip edges whose bound is ≤ ``floor`` — this only decides whether the supremum exceeds
    ``floor`` (if the result is ≤ ``floor``, so is the supremum), and the value returned is a lower bound.
    """
    level = lambda v: v if floor is None else max(v, floor)  # noqa: E731 — a one-line closure over this scope's values
    i, j, bound = _uncertified_pairs(vecs, level(quick[0]), with_bounds=True)
    order = np.argsort(-bound, kind="stable")
    best = quick
    for lo in range(0, order.size, CHUNK):
        thr = level(best[0])
        chunk = order[lo:lo + CHUNK]
        chunk = chunk[bound[chunk] > thr + 1e-12 * max(1.0, abs(thr))]
        if chunk.size == 0:  # bounds are sorted: no edge left can beat the best value
            break
        best = _better(best, _search((i[chunk], j[chunk]), vecs, ends=False))
        if stop_above is not None and best[0] > stop_above:
            break
    return best


def _better(r1, r2):
    """The larger of two :func:`_search` results (a defined value beats the NaN placeholder)."""
    if np.isnan(r1[2]):
        return r2 if not np.isnan(r2[2]) else r1
    return r2 if not np.isnan(r2[2]) and r2[0] > r1[0] else r1


def _result(best, m: int) -> tuple[float, np.ndarray, float]:
    """(value, π as a length-m vector, log F) from a :func:`_search` result."""
    value, (pi_i, pi_j, s), lf = best
    pi = np.zeros(m)
    if np.isnan(lf):
        pi[0] = 1.0
        return 0.0, pi, lf
    pi[pi_i] += 1.0 - s
    pi[pi_j] += s
    return value, pi, lf


def _all_pairs(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered pair of the given indices (the single index paired with itself when there is one)."""
    i, j = _upper_pairs(idx.size) if idx.size > 1 else (np.zeros(1, dtype=np.int64),) * 2
    return idx[i], idx[j]


@lru_cache(maxsize=64)
def _upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """np.triu_indices(n, k=1), read-only and cached (it is called for every candidate release)."""
    i, j = np.triu_indices(n, k=1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def _search(pairs: tuple[np.ndarray, np.ndarray], vecs, *,
            ends: bool = True) -> tuple[float, tuple[int, int, float], float]:
    """max |log F| over the segments ``pairs``: (value, (i, j, s) of the maximiser, log F there).

    Candidates: every endpoint (unless ``ends`` is False), the stationary points (both orientations, so every
    evaluated s ≤ 1/2 and the small weight is represented exactly) and, only where x, v or y + u vanish at an
    endpoint, the limit point η inside the segment.
    """
    a, an, b, d = vecs
    pi_, pj_ = pairs
    cand_i, cand_j, cand_s, cand_l = [], [], [], []
    if ends:  # callers that have already evaluated every vertex pass ends=False
        e = np.unique(np.concatenate((pi_, pj_)))
        cand_i, cand_j, cand_s = [e], [e], [np.zeros(e.size)]
        cand_l = [_log_f(0.0, a[e], a[e], an[e], an[e], b[e], b[e], d[e], d[e])]
    i, j = np.concatenate((pi_, pj_)), np.concatenate((pj_, pi_))
    p, S, L = _segment_points((a[i], an[i], b[i], d[i]), (a[j], an[j], b[j], d[j]))
    ci, cj = np.concatenate(cand_i + [i[p]]), np.concatenate(cand_j + [j[p]])
    S, L = np.concatenate(cand_s + [S]), np.concatenate(cand_l + [L])
    if not np.any(~np.isnan(L)):
        return 0.0, (0, 0, 0.0), float("nan")
    A = np.where(np.isnan(L), -np.inf, np.abs(L))
    k = int(np.argmax(A))
    return float(A[k]), (int(ci[k]), int(cj[k]), float(S[k])), float(L[k])


def _segment_points(ei, ej) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interior evaluation points of the segments from e_i to e_j: (segment index, s, log F) per point.

    ``ei``, ``ej`` = (a, ā, b, d) at the segments' two endpoints (one entry per segment). Points: the
    stationary points with 0 < s ≤ 1/2 and, where x, v or y + u vanish at e_i, the limit point η.
    """
    (a0, an0, b0, d0), (a1, an1, b1, d1) = ei, ej
    idx, pts = [], []
    for r in _stationary(a0, a1, an0, an1, b0, b1, d0, d1):
        ok = (r > 0) & (r <= 0.5)
        idx.append(np.flatnonzero(ok))
        pts.append(r[ok])
    degenerate = (a0 <= 0) | (an0 <= 0) | (b0 + d0 <= 0)
    idx.append(np.flatnonzero(degenerate))
    pts.append(np.full(int(degenerate.sum()), ETA))
    p, S = np.concatenate(idx), np.concatenate(pts)
    return p, S, _log_f(S, a0[p], a1[p], an0[p], an1[p], b0[p], b1[p], d0[p], d1[p])


def lower_bound_rows(a, a_not, B, D) -> np.ndarray:
    """Per row q of (B, D): a lower bound on the worst case for (a, ā, B[q], D[q]) — cheaper than :func:`quick_search`.

    The best of the m vertices and of the segments among the four cells extremising log(b_i/a_i) and
    log(d_i/ā_i) (the cells :func:`leakage_upper_bound` combines); every value is attained by a prior,
    so a row above ε is unsafe. Vectorised over the rows (candidate releases of one timestamp).
    """
    k, m = B.shape
    P, R = _log_likelihood_ratios((a, a_not, B, D))  # log F is homogeneous in (b, d): no rescaling needed
    with np.errstate(invalid="ignore"):
        lv = P + R  # vertex e_i: log F = P_i + R_i
    valid = (a > 0) & (a_not > 0) & (B + D > 0)
    best = np.where(valid & ~np.isnan(lv), np.abs(lv), -np.inf).max(axis=1)
    P_lo, P_hi = np.where(np.isnan(P), np.inf, P), np.where(np.isnan(P), -np.inf, P)
    R_lo, R_hi = np.where(np.isnan(R), np.inf, R), np.where(np.isnan(R), -np.inf, R)
    ends = [np.argmax(P_hi, axis=1), np.argmin(P_lo, axis=1), np.argmax(R_hi, axis=1), np.argmin(R_lo, axis=1)]
    first, second = _upper_pairs(4)
    cells = np.stack(ends, axis=1)  # k×4
    i = np.concatenate((cells[:, first], cells[:, second]), axis=1).ravel()
    j = np.concatenate((cells[:, second], cells[:, first]), axis=1).ravel()
    row = np.repeat(np.arange(k), 2 * first.size)
    p, _, L = _segment_points((a[i], a_not[i], B[row, i], D[row, i]), (a[j], a_not[j], B[row, j], D[row, j]))
    np.maximum.at(best, row[p], np.where(np.isnan(L), -np.inf, np.abs(L)))
    return np.where(np.isinf(best) & (best < 0), 0.0, best)


def _uncertified_pairs(vecs, value: float, block: int = 512, *, screened: bool = False, with_bounds: bool = False):
    """Pairs whose segment could exceed ``value``: a bound that makes the hull search immune to Qhull's precision.

    On the segment π(s) = (1 − s)e_i + s e_j, F = N/D with N = y·v and D = x·u, and both expand in the
    non-negative weights ((1 − s)², s(1 − s), s²):
        N = (1−s)²·b_iā_i + s(1−s)·(b_iā_j + b_jā_i) + s²·b_jā_j,
        D = (1−s)²·a_id_i + s(1−s)·(a_id_j + a_jd_i) + s²·a_jd_j.
    A ratio of such sums never exceeds the largest ratio of its terms (the mediant inequality), so
    max(F, 1/F) on the segment is at most max over {F(e_i), F(e_j), C_ij} and their inverses, with
    C_ij = (b_iā_j + b_jā_i)/(a_id_j + a_jd_i). The caller has checked every vertex e_i, so only pairs
    with |log C_ij| > ``value`` (C = c/0 counts as +∞, 0/c as 0) can beat it; they are returned for exact search
    as (i, j), or (i, j, |log C_ij|) ``with_bounds``. ``screened``: the cells were already screened.
    """
    thr = value + 1e-12 * max(1.0, abs(value))
    cells = np.arange(vecs[0].size) if screened else _screen_cells(vecs, thr)
    if cells.size < 2:
        none = np.zeros(0, dtype=np.int64)
        return (none, none, np.zeros(0)) if with_bounds else (none, none)
    if cells.size < vecs[0].size:  # only these cells can pair up into a flagged segment
        ii, jj, *rest = _uncertified_pairs([v[cells] for v in vecs], value, block, screened=True,
                                           with_bounds=with_bounds)
        lo, hi = cells[ii], cells[jj]
        return (np.minimum(lo, hi), np.maximum(lo, hi), *rest)
    a, an, b, d = vecs
    positive = np.concatenate([v[v > 0] for v in vecs])
    linear = thr < 700 and (positive.size == 0 or positive.min() > 1e-150)  # no product can underflow
    if not linear:
        with np.errstate(divide="ignore"):
            a, an, b, d = np.log(a), np.log(an), np.log(b), np.log(d)
    out_i, out_j, out_b = [], [], []
    m = a.size
    for lo in range(0, m, block):
        rows = slice(lo, min(lo + block, m))
        # C = 0/0 means the middle term is absent (e.g. x ≡ 0 on the segment): the vertices bound it
        with np.errstate(divide="ignore", invalid="ignore"):
            if linear:
                c = (b[rows, None] * an[None, :] + an[rows, None] * b[None, :]) / \
                    (a[rows, None] * d[None, :] + d[rows, None] * a[None, :])
                flag = (c > np.exp(thr)) | (c < np.exp(-thr))
            else:
                lc = (np.logaddexp(b[rows, None] + an[None, :], an[rows, None] + b[None, :])
                      - np.logaddexp(a[rows, None] + d[None, :], d[rows, None] + a[None, :]))
                flag = np.abs(lc) > thr
        ii, jj = np.nonzero(flag)
        keep = jj > ii + lo
        if with_bounds:
            with np.errstate(divide="ignore"):
                out_b.append(np.abs(np.log(c[ii[keep], jj[keep]]) if linear else lc[ii[keep], jj[keep]]))
        out_i.append(ii[keep] + lo)
        out_j.append(jj[keep])
    pairs = np.concatenate(out_i), np.concatenate(out_j)
    return (*pairs, np.concatenate(out_b)) if with_bounds else pairs


def _log_likelihood_ratios(vecs) -> tuple[np.ndarray, np.ndarray]:
    """P_i = log(b_i / a_i) ∝ log Pr(o | EVENT, l_0 = i) and R_i = log(ā_i / d_i) ∝ −log Pr(o | ¬EVENT, l_0 = i).

    NaN marks 0/0 (the cell carries no mass in that world); c/0 gives +inf and 0/c gives −inf.
    """
    a, an, b, d = vecs
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(b) - np.log(a), np.log(an) - np.log(d)


def prepare_vectors(a, b, d, a_not) -> tuple:
    """Validated float vectors (a, ā, b, d), b and d rescaled to max(b + d) = 1 (the ratio is homogeneous)."""
    a = np.asarray(a, dtype=float)
    b, d = np.asarray(b, dtype=float), np.asarray(d, dtype=float)
    an = 1.0 - a if a_not is None else np.asarray(a_not, dtype=float)
    m = a.size
    if not (b.shape == d.shape == an.shape == (m,)) or m == 0:
        raise ParameterError("a, b, d (and a_not) must be vectors of the same length m ≥ 1")
    scale = (b + d).max()
    if scale > 0:
        b, d = b / scale, d / scale
    return a, an, b, d


def leakage_upper_bound(a, b, d, *, a_not=None) -> float:
    """Certified O(m) upper bound on :func:`worst_case_from_vectors`'s value (never below the supremum).

    Pr(o|EVENT) = π·b / π·a is a weighted mean of b_i/a_i and Pr(o|¬EVENT) = π·d / π·ā one of d_i/ā_i
    (the mediant inequality), so for every prior
    log F ≤ max_i log(b_i/a_i) + max_j log(ā_j/d_j) and −log F ≤ max_i log(a_i/b_i) + max_j log(d_j/ā_j).
    Cells with 0/0 carry no mass in that world and are skipped. The bound is approached by priors that
    put a vanishing weight on the cell maximising one ratio and the rest on the cell extremising the other.
    """
    P, R = _log_likelihood_ratios(prepare_vectors(a, b, d, a_not))
    if np.all(np.isnan(P)) or np.all(np.isnan(R)):
        return 0.0  # one world is impossible under every prior: no prior gives both positive probability
    with np.errstate(invalid="ignore"):  # +inf + −inf: both worlds' extremes are 0/c and c/0 — NaN → +inf below
        hi = np.nanmax(P) + np.nanmax(R)
        lo = np.nanmin(P) + np.nanmin(R)
    value = max(hi, -lo, 0.0)
    return float(value) if not np.isnan(value) else float("inf")


def leakage_lower_bound(a, b, d, *, a_not=None, k: int = QUICK_K,
                        stop_above: float | None = None) -> tuple[float, np.ndarray, float]:
    """The leakage at the best of a few feasible priors — a lower bound on the supremum, with its π and log F.

    Candidates: every vertex e_i and every segment among the 4k cells with the most extreme
    log(b_i/a_i) or log(d_i/ā_i) on either side (the cells the upper bound's maximisers use), searched
    exactly as in :func:`worst_case_from_vectors`. O(m + k²); a value above ε proves a release unsafe.
    With ``stop_above`` the segments are skipped when a vertex already exceeds it.
    """
    vecs = prepare_vectors(a, b, d, a_not)
    return _result(quick_search(vecs, k, stop_above), vecs[0].size)


def quick_search(vecs, k: int, stop_above: float | None = None) -> tuple[float, tuple[int, int, float], float]:
    """Best of the m vertices and of :func:`_search` over the segments among the 4k most extreme cells.

    With ``stop_above``, a vertex already above it is returned without searching the segments.
    """
    a, an, b, d = vecs
    m = a.size
    lv = _log_f(0.0, a, a, an, an, b, b, d, d)  # the vertices e_i
    A = np.where(np.isnan(lv), -np.inf, np.abs(lv))
    top = int(np.argmax(A))
    best = (float(A[top]), (top, top, 0.0), float(lv[top])) if A[top] > -np.inf else (0.0, (0, 0, 0.0), float("nan"))
    if stop_above is not None and best[0] > stop_above:
        return best
    P, R = _log_likelihood_ratios(vecs)
    kk = min(k, m)
    picks = []
    for v in (P, -P, R, -R):
        w = np.where(np.isnan(v), -np.inf, v)
        picks.append(np.argpartition(-w, kk - 1)[:kk] if kk < m else np.arange(m))
    K = np.unique(np.concatenate(picks))
    if K.size > 1:
        i, j = _upper_pairs(K.size)
        best = _better(best, _search((K[i], K[j]), vecs, ends=False))
    return best


def _screen_cells(vecs, thr: float) -> np.ndarray:
    """Cells that can belong to a pair flagged by :func:`_uncertified_pairs` at threshold ``thr`` (a superset).

    C_ij's two terms are b_iā_j/(a_id_j) = exp(P_i + R_j) and exp(P_j + R_i) (see :func:`_log_likelihood_ratios`),
    and C_ij lies between its smallest and largest present term (mediant inequality). So a pair with
    log C_ij > thr has P_i + R_j > thr for one orientation, which needs P_i > thr − max R and
    R_j > thr − max P; likewise below −thr with the minima. Only cells passing one of these four
    separable tests can be in a flagged pair. A 1e-9 relative margin absorbs rounding.
    """
    P, R = _log_likelihood_ratios(vecs)
    t = thr - 1e-9 * max(1.0, abs(thr))
    Pn, Rn = np.where(np.isnan(P), -np.inf, P), np.where(np.isnan(R), -np.inf, R)
    Px, Rx = np.where(np.isnan(P), np.inf, P), np.where(np.isnan(R), np.inf, R)
    with np.errstate(invalid="ignore"):
        keep = (Pn + Rn.max() > t) | (Pn.max() + Rn > t) | (Px + Rx.min() < -t) | (Px.min() + Rx < -t)
    return np.flatnonzero(keep)


def worst_case_leakage(event: Event, M, E, observations, *, method: str = "screen",
                       grid_shape: tuple[int, int] | None = None) -> tuple[float, np.ndarray]:
    """(W, π*): the exact supremum over initial distributions of the leakage at the last observation, a maximiser.

    ``grid_shape`` = (rows, cols) lets a Kronecker-factored M (:mod:`lmdk.priste.transition`) be used.
    """
    a, an, b, d = event_vectors4(event, M, E, observations, grid_shape=grid_shape)
    value, pi, _ = worst_case_from_vectors(a, b, d, a_not=an, method=method)
    return value, pi
