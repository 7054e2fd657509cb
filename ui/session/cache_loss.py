"""Bounded ``st.cache_data`` wrappers for the temporal-loss and dummy-landmark pages (see ui.session.cache for the
rules).

Arguments are arrays and plain values (cache keys include the arrays, so a session's uploaded matrix
or landmark set only ever hits its own entries); ``token`` names the series the arrays came from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui.session import state
from ui.session.cache_scope import bounded_cache

MAX_ENTRIES = 32
COMPARISON_N_MAX = 1_000  # Figure 9 on the page uses min(n, this): 44 landmark draws × 5 repetitions stay < 0.3 s
COMPARISON_REPETITIONS = 5
COMPARISON_SEED = 9  # Figure 9's landmark draws: public and the same for every session (issue 34, see below)


@dataclass(frozen=True)
class Losses:
    """Everything the temporal-loss page draws for one budget sequence and one matrix."""

    bpl: np.ndarray
    fpl: np.ndarray
    tpl: np.ndarray
    overall: np.ndarray
    own: np.ndarray
    bound: np.ndarray
    reference: np.ndarray  # privacy.landmark_loss: the overall loss without correlation (Theorem 2)
    asymptotes: object  # lmdk.present.views_loss.Asymptotes


@bounded_cache(MAX_ENTRIES)
def temporal_losses(budgets: np.ndarray, landmarks: np.ndarray, P: np.ndarray) -> Losses:
    """BPL/FPL/TPL (lmdk.tpl.temporal), the landmark temporal privacy loss, its no-correlation line and the
    asymptotes."""
    from lmdk import privacy, tpl
    from lmdk.present import views_loss

    bpl, fpl, tp = tpl.temporal_privacy_loss(budgets, P)
    lm = tpl.landmark_temporal_privacy_loss(budgets, landmarks, P)
    return Losses(bpl=bpl, fpl=fpl, tpl=tp, overall=lm.overall, own=lm.own, bound=lm.bound,
                  reference=privacy.landmark_loss(budgets, landmarks),
                  asymptotes=views_loss.loss_asymptotes(budgets, P))


@bounded_cache(64)
def distribution_comparison(n: int, epsilon: float, P: np.ndarray):
    """Figure 9 for the current matrix and ε at n capped to COMPARISON_N_MAX (lmdk.present.views_loss).

    Its landmark sets are synthetic draws, not the session's release, so they come from the fixed
    COMPARISON_SEED rather than the session's demonstration seed: a class moving ε through the slider's
    options computes each (n, ε, matrix) once for everyone instead of once per student (issue 34)."""
    from lmdk.present import views_loss

    return views_loss.distribution_comparison(min(int(n), COMPARISON_N_MAX), epsilon, P,
                                              repetitions=COMPARISON_REPETITIONS,
                                              rng=np.random.default_rng([COMPARISON_SEED, 9]))


@bounded_cache(MAX_ENTRIES)
def selection(token: str, n: int, landmarks: np.ndarray, epsilon: float, method: str, utility: str, seed: int):
    """One private dummy-landmark selection (lmdk.dummies.selection.select) at the selection budget ``epsilon``."""
    from lmdk import dummies

    return dummies.select(n, landmarks, epsilon, method=method, utility=utility, rng=np.random.default_rng([seed, 7]))


@bounded_cache(MAX_ENTRIES)
def budgets_for(token: str, x: np.ndarray, landmarks: np.ndarray, scheme: str, epsilon: float, mechanism: str,
                seed: int, w: int, options: tuple = ()) -> np.ndarray:
    """Budgets of one run of ``scheme`` on a given landmark set (e.g. the chosen L′) with total ``epsilon``;
    ``options``: the relation's Δ, sampler and range (``ui.session.relation.options``)."""
    return one_run_budgets(x, landmarks, scheme, epsilon, mechanism, seed, w, options)


def one_run_budgets(x: np.ndarray, landmarks: np.ndarray, scheme: str, epsilon: float, mechanism: str, seed: int,
                    w: int, options: tuple = ()) -> np.ndarray:
    """``budgets_for`` without the cache (for a report built on click: the same seed, the same budgets)."""
    from lmdk import schemes

    rng = np.random.default_rng([seed, state.ALL_SCHEME_NAMES.index(scheme)])
    return schemes.release(x, landmarks, scheme, epsilon, mechanism=mechanism, repetitions=1, rng=rng,
                           w=w, **dict(options)).budgets[0]


@bounded_cache(8)
def dummy_masks(token: str, n: int, landmarks: np.ndarray, epsilon: float, repetitions: int, seed: int,
                method: str, share: float, utility: str) -> tuple[np.ndarray, float]:
    """One private L′ per repetition and the ε left for publishing (lmdk.dummies.selection.landmark_sets_for_release,
    what schemes.release(dummies=…) runs); generated once and shared by every scheme on the page."""
    from lmdk import dummies

    spec = dummies.DummySpec(method=method, share=share, utility=utility)
    mask, eps_pub, _ = dummies.landmark_sets_for_release(n, landmarks, epsilon, spec, repetitions,
                                                         np.random.default_rng([seed, 11]))
    return mask, eps_pub


@bounded_cache(MAX_ENTRIES)
def dummy_maes(key: str, schemes: tuple[str, ...], epsilon: float, mechanism: str, repetitions: int, seed: int,
               w: int, method: str, share: float, utility: str, options: tuple = (), _token: str = "",
               _x: np.ndarray | None = None, _landmarks: np.ndarray | None = None) -> dict[str, tuple[float, tuple]]:
    """MAE and 95 % CI of every scheme in ``schemes`` run on the dummy_masks L′ (one per repetition) with ε − ε_sel,
    in one cached call; ``key``: ``ui.session.cache.data_key(token, x, landmarks)``, which identifies ``_token``,
    ``_x`` and ``_landmarks`` (left out of the hash).

    Equivalent to schemes.release(dummies=…), which would regenerate the options for every scheme
    (seconds for 'heuristic' at n = 10,000); sharing the draws also compares the schemes on the same L′.
    """
    return {s: _dummy_mae(_token, _x, _landmarks, s, epsilon, mechanism, repetitions, seed, w, method, share, utility,
                          options) for s in schemes}


def _dummy_mae(token, x, landmarks, scheme, epsilon, mechanism, repetitions, seed, w, method, share, utility,
               options) -> tuple[float, tuple]:
    """One scheme's entry of ``dummy_maes`` (the L′ draws come from the cached ``dummy_masks``)."""
    from lmdk import metrics, schemes

    mask, eps_pub = dummy_masks(token, len(x), landmarks, epsilon, repetitions, seed, method, share, utility)
    rng = np.random.default_rng([seed, state.ALL_SCHEME_NAMES.index(scheme), 1])
    release = schemes.release(x, mask, scheme, eps_pub, mechanism=mechanism, repetitions=repetitions, rng=rng, w=w,
                              **dict(options))
    error = metrics.mae(x, release.values, mechanism)
    return error.mean, error.ci
