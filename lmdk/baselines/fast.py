"""FAST: user-level privacy over a finite horizon by adaptive sampling and filtering (Fan & Xiong, "An adaptive
approach to real-time aggregate monitoring with differential privacy", IEEE TKDE 26(9), 2014; arXiv:1202.3461),
for one series of values and every repetition at once.

FAST takes at most M samples of the n timestamps, each perturbed with Lap(Δ·M/ε), so the whole series spends at
most M·ε/M = ε (user level over the horizon; Alg. 1). Everything else is post-processing of those noisy
samples:

- Kalman filter (§4, Eqs. for the prediction and correction steps) with the process model x_{k+1} = x_k + ω,
  ω ~ N(0, Q), and the measurement z_k = x_k + ν, ν ~ N(0, R) standing in for the Laplace noise: at every
  timestamp the prior x̂⁻_k = x̂_{k−1}, P⁻_k = P_{k−1} + Q; at a sample K_k = P⁻_k/(P⁻_k + R),
  x̂_k = x̂⁻_k + K_k(z_k − x̂⁻_k), P_k = (1 − K_k)P⁻_k. FAST releases the posterior at samples and the prior elsewhere.
  The gains K_k depend only on Q, R, P_0 and when samples are taken — not on the data's unit — so the published
  constants apply to any unit.
- Adaptive sampling by a PID controller (§5): at the n-th sample k_n the feedback error
  E_{k_n} = |x̂_{k_n} − x̂⁻_{k_n}| / x̂_{k_n} (Def. 4; the denominator floored at Δ, as the public re-implementation
  floors it at one count), the PID error Δ = C_p·E_{k_n} + C_i·(Σ_{j=n−T_i+1}^{n} E_{k_j})/T_i
  + C_d·(E_{k_n} − E_{k_{n−1}})/(k_n − k_{n−1}), and the next interval I' = max{1, I + θ(1 − e^{(Δ−ξ)/ξ})}.
  The first T_i timestamps are all sampled (the integral term needs T_i errors).

Defaults: C_p = 0.9, C_i = 0.1, C_d = 0, T_i = 5, θ = 5, ξ = 0.1, Q = 10^5, R = 10^6, P_0 = 100 and
M = 0.15·n — the values of the public re-implementation of Schäler et al. ("Benchmarking the utility of w-event
differential privacy mechanisms", 2022; github.com/chryenix/streamdp-benchmark, FAST_w.java), which was checked
against the authors' binaries; its notes give M = 0.15·T for the paper.
"""
from __future__ import annotations

import math

import numpy as np

from lmdk.baselines._noise import Noise

CP, CI, CD = 0.9, 0.1, 0.0  # PID gains (§5.1)
TI = 5  # integral window T_i (samples)
THETA, XI = 5.0, 0.1  # interval adjustment: I' = max{1, I + θ(1 − e^{(Δ−ξ)/ξ})}
Q, R, P0 = 1e5, 1e6, 100.0  # Kalman filter: process and measurement noise variances, initial P
SAMPLE_SHARE = 0.15  # M = ⌈0.15·n⌉ samples at most


def max_samples(n: int, share: float = SAMPLE_SHARE) -> int:
    """M: the largest number of samples (at least 1)."""
    return max(1, int(math.ceil(share * n - 1e-9)))


def fast(x: np.ndarray, epsilon: float, noise: Noise, *, samples: int | None = None):
    """FAST (Fan & Xiong 2014, Alg. 1) on values ``x`` (n,), or (n, reps) with one series per repetition:
    (values, budgets, published), each (reps, n)."""
    reps, n = noise.reps, noise.n
    m = max_samples(n) if samples is None else int(samples)
    per_sample = epsilon / m  # Alg. 1: perturb z_k = x_k + Lap(Δ·M/α) — ε/M per sample
    draws = noise.samples(per_sample, m)  # the j-th sample of a repetition takes its j-th draw
    floor = noise.sensitivity
    post = np.zeros(reps)  # x̂_{k−1}
    p = np.full(reps, P0)
    count = np.zeros(reps, dtype=np.int64)  # samples taken
    interval = np.ones(reps, dtype=np.int64)
    next_sample = np.full(reps, TI, dtype=np.int64)  # the first PID-controlled sample follows the T_i initial ones
    errors = np.zeros((TI, reps))  # the last T_i feedback errors (ring buffer)
    last_error = np.zeros(reps)
    last_k = np.zeros(reps, dtype=np.int64)
    values = np.empty((n, reps))
    published = np.zeros((n, reps), dtype=bool)
    for t in range(n):
        prior = post  # prediction: x̂⁻_k = x̂_{k−1}
        p_minus = p + Q if t > 0 else p  # P⁻_k = P_{k−1} + Q
        initial = count < TI
        sample = (initial | (next_sample == t)) & (count < m)  # Alg. 1: a sampling point and fewer than M samples
        rows = np.flatnonzero(sample)
        z = np.zeros(reps)
        if rows.size:
            z[rows] = draws.noisy(x[t] if x.ndim == 1 else x[t, rows], rows, np.minimum(count[rows], m - 1))
        if t == 0:  # the first sample is released as drawn (nothing to correct it with)
            post = np.where(sample, z, prior)
            p = p_minus
        else:
            gain = p_minus / (p_minus + R)  # Alg. 1: posterior estimate from the correction
            post = np.where(sample, prior + gain * (z - prior), prior)
            p = np.where(sample, (1.0 - gain) * p_minus, p_minus)
        values[t], published[t] = post, sample
        if not sample.any():
            continue
        count += sample
        error = np.abs(post - prior) / np.maximum(np.abs(post), floor)  # Def. 4 feedback error E_{k_n}
        error = np.where(t == 0, 0.0, error)  # the first sample has no prediction to be compared with
        errors = np.where(sample[None, :], np.roll(errors, 1, axis=0), errors)  # the last T_i errors, newest first
        errors[0] = np.where(sample, error, errors[0])
        controlled = sample & ~initial  # Alg. 1: adjust the sampling rate (the PID controller, §5)
        if controlled.any():
            gap = np.maximum(t - last_k, 1)
            pid = CP * error + CI * errors.sum(axis=0) / TI + CD * (error - last_error) / gap  # Eq. (PID error)
            change = THETA * (1.0 - np.exp(np.minimum((pid - XI) / XI, 700.0)))  # I' = I + θ(1 − e^{(Δ−ξ)/ξ})
            grown = np.maximum(interval + np.trunc(np.maximum(change, -1e18)).astype(np.int64), 1)
            np.copyto(interval, grown, where=controlled)
            np.copyto(next_sample, t + interval, where=controlled)
        np.copyto(last_error, error, where=sample)
        np.copyto(last_k, t, where=sample)
    budgets = np.where(published, per_sample, 0.0)
    return values.T.copy(), budgets.T.copy(), published.T.copy()
