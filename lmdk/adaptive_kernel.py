"""The compiled step loop of the Adaptive scheme (§3.2, Figure 4) with the exact discrete Laplace (sampler="discrete",
laplace values): ``lmdk.schemes.run_adaptive``'s budget management, sampling and change test, step by step and row by
row in one numba pass instead of a dozen numpy calls per timestamp (issue 34: Adaptive was a third of a view's
server CPU).

The same numbers as the Python loop, bit for bit (tests/test_adaptive_kernel.py): the same IEEE operations in the
same order per row, the calibration of ``lmdk.discrete_laplace_kernel.calibrate_one`` and the floor of
``floor_scaled`` on the noise's pre-drawn (V, F_b, B). The rare samples that need more bits of F or a restart
(B = 1, Y = 0) need their row's own Generator, which lives in Python: the kernel then stops before changing anything
at that step, names the rows, and the caller finishes their samples (``LockstepNoise.finish``) and calls it again
from the same step with those samples fixed.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from lmdk.discrete_laplace_kernel import calibrate_one, floor_scaled, representable

DONE = 0
"""Every step was run."""
NEEDS_PYTHON = 1
"""Some publishing rows of the returned step need their Generator (``need``): finish them, call again."""
OUT_OF_RANGE = 2
"""A publishing step's budgets leave the sampler's integers (t > 2^52 or a grid index > 2^61): the caller raises."""


@njit(cache=True, nogil=True, error_model="numpy")
def adaptive_steps(x, mask_t, frees_t, inv_left, any_landmark, v, f, b, delta, cal_delta, low, high, grid_bits, bits,
                   threshold_factor, max_interval, start, level, pool, last, last_scale, interval, next_pub, fixed,
                   fixed_flag, need, need_t, need_x, need_sure, budget, values, budgets, published):
    """Steps ``start``.. of Adaptive on the clamped series ``x`` (n,) for every row; arrays are (steps, rows) or
    (rows,), updated in place; ``delta``: Δ of the change test's scales, ``cal_delta``: the Δ the calibration uses
    (at most the range's width). Returns (status, step): DONE, or the step at which NEEDS_PYTHON / OUT_OF_RANGE."""
    n, reps = mask_t.shape
    share = np.empty(reps)
    noisy = np.empty(reps)
    cal_for = np.full(reps, np.nan)  # the budget each row's cached calibration is for
    cal_k = np.zeros(reps, dtype=np.int64)
    cal_t = np.zeros(reps)
    cal_lo = np.zeros(reps)
    cal_hi = np.zeros(reps)
    for t in range(start, n):
        landmark_step = any_landmark[t]
        publishing = False
        for r in range(reps):
            if landmark_step:
                share[r] = pool[r] * inv_left[t, r]
            budget[r] = share[r] if landmark_step and mask_t[t, r] else level[r]
            publishing = publishing or next_pub[r] == t
        if publishing:  # the Python hook calibrates every row's budget at a publishing step (0 → 1): so here
            waiting = False
            for r in range(reps):
                eps = budget[r] if budget[r] > 0 else 1.0
                if eps != cal_for[r]:
                    k, _, scale, lo, hi = calibrate_one(eps, cal_delta, low, high, grid_bits)
                    if not representable(scale, lo, hi):
                        return OUT_OF_RANGE, t
                    cal_for[r], cal_k[r], cal_t[r], cal_lo[r], cal_hi[r] = eps, k, scale, lo, hi
                if next_pub[r] != t:
                    continue
                if fixed_flag[r]:
                    z = fixed[r]
                else:
                    scaled = int(cal_t[r])
                    y, sure = floor_scaled(scaled, v[t, r], f[t, r], bits)
                    if not sure or (b[t, r] == 1 and y == 0):
                        need[r], need_t[r], need_x[r], need_sure[r] = True, scaled, y, sure
                        waiting = True
                        continue
                    z = -y if b[t, r] == 1 else y
                grid = np.int64(np.rint(math.ldexp(x[t], -cal_k[r]))) + z  # lmdk.discrete_laplace.on_grid
                grid = min(max(grid, np.int64(cal_lo[r])), np.int64(cal_hi[r]))
                noisy[r] = math.ldexp(float(grid), cal_k[r])
            if waiting:
                return NEEDS_PYTHON, t
        for r in range(reps):
            pub = next_pub[r] == t
            scale = delta / budget[r]
            threshold = scale + last_scale[r]
            if threshold_factor != 1.0:
                threshold *= threshold_factor
            evolving = abs((noisy[r] if pub else x[t]) - last[r]) > threshold
            if pub:
                last[r] = noisy[r]
            values[t, r], budgets[t, r], published[t, r] = last[r], budget[r], pub
            if landmark_step:  # a published landmark spends its share; an approximated one frees it into R
                lm, frees = mask_t[t, r], frees_t[t, r]
                pool[r] -= share[r] * (1.0 if frees ^ ((lm ^ frees) & pub) else 0.0)
                level[r] += share[r] * (1.0 if frees and not pub else 0.0)
            if pub:
                last_scale[r] = scale
                grown = min(interval[r] + 1, max_interval)
                interval[r] = 1 if evolving else grown
                next_pub[r] = interval[r] + t
            fixed_flag[r] = False
    return DONE, n
