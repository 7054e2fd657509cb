"""Budget Distribution (BD) and Budget Absorption (BA): w-event privacy with a private dissimilarity test and
budget recycling (Kellaris, Papadopoulos, Xiao & Papadias, "Differentially private event sequences over infinite
streams", PVLDB 7(12), 2014, §4.3–4.4, Algorithms 2 and 3), for one series of values (d = 1 statistic per
timestamp) and every repetition at once.

Both split every timestamp's mechanism M_t into M_{t,1}, a private dissimilarity test with ε_{t,1} = ε/(2w), and
M_{t,2}, a publication whose budgets sum to at most ε/2 in any window of w timestamps; so any w consecutive
timestamps spend at most w·ε/(2w) + ε/2 = ε (their Theorem 4/5). M_{t,1} computes dis = |c_t − o_l| + Lap(Δ/ε_{t,1})
against the last release o_l (the public default before the first one); M_{t,2} publishes c_t + Lap(Δ/ε_{t,2}) when
dis exceeds that publication's expected error Δ/ε_{t,2}, and republishes o_l otherwise (approximation, ε_{t,2} = 0).

BD (Alg. 2) gives each publication half of what its window has left, ε_{t,2} = ε_rm/2 with
ε_rm = ε/2 − Σ_{i=t−w+1}^{t−1} ε_{i,2}: an exponentially decreasing distribution that is recycled as timestamps
leave the window. BA (Alg. 3) gives every timestamp ε/(2w); a skipped publication leaves its share to the next
one, which absorbs up to w shares (ε_{t,2} = ε/(2w)·min(t_A, w)), and a publication that absorbed k shares
nullifies the next k − 1 timestamps (no test, no publication) so no window spends them twice.

``budgets`` are what each timestamp actually spends: ε_{t,1} + ε_{t,2} — except at BA's nullified timestamps,
which spend nothing (Alg. 3 computes dis there but its outcome is never used: not drawing it is the same
mechanism). ``published`` marks the timestamps where M_{t,2} published.
"""
from __future__ import annotations

import numpy as np

from lmdk.baselines._noise import Noise


def budget_distribution(x: np.ndarray, epsilon: float, w: int, noise: Noise, default: np.ndarray):
    """BD (Kellaris et al. 2014, Alg. 2) on values ``x`` (n,), or (n, reps) with one series per repetition:
    (values, budgets, published), each (reps, n)."""
    reps, n = noise.reps, noise.n
    eps1 = epsilon / (2.0 * w)  # Alg. 2, M_{t,1}: ε_{t,1} = ε/(2w)
    half = epsilon / 2.0  # publications may spend ε/2 in any window of w (M_{t,2})
    test = noise.statistic(eps1, noise.width)  # dis has sensitivity Δ (one value changes by at most Δ)
    draw = noise.stepper()
    last = np.broadcast_to(default, (reps,)).astype(np.float64)
    spent = np.zeros(reps)  # Σ ε_{i,2} over the window's earlier timestamps t−w+1 … t−1
    pub_budget = np.zeros((n, reps))
    values = np.empty((n, reps))
    published = np.zeros((n, reps), dtype=bool)
    for t in range(n):
        if t >= w:  # budget recycling: timestamp t−w leaves the window of M_{t,2}'s sum
            spent -= pub_budget[t - w]
        dis = test.noisy(np.abs(x[t] - last), t)  # M_{t,1}: dis = |c_t − o_l| + Lap(Δ/ε_{t,1}) (d = 1)
        eps_rm = np.maximum(half - spent, 0.0)  # M_{t,2}: ε_rm = ε/2 − Σ_{i=t−w+1}^{t−1} ε_{i,2}
        eps2 = eps_rm / 2.0  # λ_{t,2} = 2/ε_rm, i.e. ε_{t,2} = ε_rm/2
        with np.errstate(divide="ignore"):
            pub = (eps2 > 0) & (dis > noise.sensitivity / eps2)  # publish if dis > λ_{t,2} (Δ = 1 there)
        if pub.any():
            noisy = draw(t, x[t], np.where(pub, eps2, 1.0), pub)  # o_t = c_t + Lap(λ_{t,2})
            np.copyto(last, noisy, where=pub)
            pub_budget[t] = np.where(pub, eps2, 0.0)
            spent += pub_budget[t]
        values[t], published[t] = last, pub  # otherwise o_t = o_l (approximation, ε_{t,2} = 0)
    budgets = eps1 + pub_budget
    return values.T.copy(), budgets.T.copy(), published.T.copy()


def budget_absorption(x: np.ndarray, epsilon: float, w: int, noise: Noise, default: np.ndarray):
    """BA (Kellaris et al. 2014, Alg. 3) on values ``x`` (n,), or (n, reps) with one series per repetition:
    (values, budgets, published), each (reps, n)."""
    reps, n = noise.reps, noise.n
    unit = epsilon / (2.0 * w)  # Alg. 3: ε_{t,1} = ε/(2w), and each timestamp's publication share ε/(2w)
    test = noise.statistic(unit, noise.width)
    draw = noise.stepper(levels=unit * np.maximum(np.arange(w + 1), 1))  # publications spend k·ε/(2w), k = 1 … w
    last = np.broadcast_to(default, (reps,)).astype(np.float64)
    l_pub = np.full(reps, -1, dtype=np.int64)  # l: the last publication (−1: none yet, as one with one share)
    shares = np.ones(reps, dtype=np.int64)  # ε_{l,2}/(ε/(2w)): shares the last publication spent
    values = np.empty((n, reps))
    budgets = np.zeros((n, reps))
    published = np.zeros((n, reps), dtype=bool)
    for t in range(n):
        t_n = shares - 1  # M_{t,2}: t_N = ε_{l,2}/(ε/(2w)) − 1 timestamps to nullify after l
        active = (t - l_pub) > t_n  # t − l ≤ t_N → nullified (o_t = o_l, nothing spent)
        t_a = t - (l_pub + t_n)  # t_A = t − (l + t_N) shares to absorb (this one included)
        k = np.minimum(t_a, w)
        eps2 = unit * k  # ε_{t,2} = ε/(2w)·min(t_A, w)
        dis = test.noisy(np.abs(x[t] - last), t)  # M_{t,1} (drawn for every row; used where active)
        with np.errstate(divide="ignore"):  # ε_{t,2} ≤ 0 only where nullified
            pub = active & (dis > noise.sensitivity / eps2)  # publish if dis > λ_{t,2} = Δ/ε_{t,2}
        if pub.any():
            noisy = draw(t, x[t], np.where(pub, eps2, 1.0), pub, level=k)  # o_t = c_t + Lap(λ_{t,2})
            np.copyto(last, noisy, where=pub)
            np.copyto(l_pub, t, where=pub)
            np.copyto(shares, k, where=pub)
        values[t], published[t] = last, pub  # otherwise o_t = o_l, ε_{t,2} = 0 (absorbed later)
        budgets[t] = np.where(active, unit, 0.0) + np.where(pub, eps2, 0.0)
    return values.T.copy(), budgets.T.copy(), published.T.copy()
