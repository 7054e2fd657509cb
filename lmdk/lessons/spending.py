"""Lessons 3, 5 and 6: spending the budget (MAE of Uniform, Skip, Adaptive), correlated events (temporal privacy
loss) and hiding where the landmarks are (dummy landmarks against the position attack)."""
from __future__ import annotations

import numpy as np

from lmdk import metrics, relation, schemes, synthetic, tpl
from lmdk.audit import positions
from lmdk.dummies import DummySpec
from lmdk.lessons.base import SEED, Lesson, Reveal, Setting, interval, number

N = 100  # events of the lessons' synthetic series
REPETITIONS = 200  # releases per scheme: the 95 % intervals of the MAE are about ±1 % wide at N = 100
CORRELATION = 0.9  # the synthetic series' temporal correlation
SPENDERS = schemes.LANDMARK_SCHEMES  # the schemes that spend by L (§3.2)
SCHEME_NAMES = {"uniform": "Uniform", "skip": "Skip", "adaptive": "Adaptive"}
PROTECTS = relation.public_range(0.0, 1.0, "kWh")  # any reading in 0–1 kWh, Δ = 1 kWh


def series_and_landmarks(share: float) -> tuple[np.ndarray, np.ndarray]:
    """The lessons' series (readings in 0–1 kWh) and a landmark set of ``share`` of its events (fixed seed)."""
    gen = np.random.default_rng(SEED)
    x = np.clip((synthetic.values(N, CORRELATION, gen) + 3.0) / 6.0, 0.0, 1.0)
    return x, synthetic.landmarks(N, share, rng=gen)


def _spending(v: dict) -> Reveal:
    """MAE of each scheme over REPETITIONS releases (§3.3 Uniform, Skip; §3.4 Adaptive), ties within the 95 % CI."""
    share, eps = float(v["share"]), float(v["eps"])
    x, L = series_and_landmarks(share)
    gen = np.random.default_rng(SEED)
    errors = {s: metrics.mae(x, schemes.release(x, L, s, eps, protects=PROTECTS, repetitions=REPETITIONS,
                                                rng=gen).values) for s in SPENDERS}
    best = min(errors, key=lambda s: errors[s].mean)
    tied = tuple(SCHEME_NAMES[s] for s in SPENDERS if errors[s].ci_low <= errors[best].ci_high)
    if len(tied) > 1:
        second = "They tie within the noise of the measurement: " + " and ".join(tied) + " overlap."
    else:
        second = ("Skip spends the budget only at landmarks and a few regular events and republishes in between, "
                  "which pays off when readings change slowly; Uniform spreads ε thinly over every event; Adaptive "
                  "adapts its spending to the changes it sees.")
    return Reveal(
        answer=SCHEME_NAMES[best], correct_choices=tied,
        numbers={f"MAE of {SCHEME_NAMES[s]} (kWh)": interval(errors[s].mean, errors[s].ci) for s in SPENDERS}
        | {"landmarks": f"{L.size} of {N}", "repetitions": f"{REPETITIONS}"},
        why=(f"At ε = {eps:g} with {L.size} landmarks among {N} events, {SCHEME_NAMES[best]} has the lowest mean "
             f"absolute error, {errors[best].mean:.3f} kWh over {REPETITIONS} releases. {second}"))


CHOICES_5 = ("about εₜ (less than 1.5 × εₜ)", "1.5 to 5 × εₜ", "more than 5 × εₜ")


def _correlation(v: dict) -> Reveal:
    """Largest temporal privacy loss of event-level releases under a Markov chain of strength s (§2.3, Eq. 2)."""
    s, eps = float(v["s"]), float(v["eps"])
    budgets = schemes.allocate("event", CHAIN_N, [], eps)
    _, _, loss = tpl.temporal_privacy_loss(budgets, tpl.transition_matrix(s))
    worst = float(loss.max())
    ratio = worst / eps
    answer = CHOICES_5[0] if ratio < 1.5 else CHOICES_5[1] if ratio <= 5.0 else CHOICES_5[2]
    return Reveal(
        answer=answer,
        numbers={"εₜ": number(eps), "largest TPL": number(worst), "TPL ÷ εₜ": number(ratio),
                 "upper limit n·εₜ": number(CHAIN_N * eps)},
        why=(f"With s = {s:g} the adversary's Markov model links neighbouring events, so the releases around an "
             f"event also tell about it: its temporal privacy loss reaches {worst:.3g}, {ratio:.3g} × εₜ. Smaller s "
             "means stronger correlation and a larger loss, up to the whole series' budget n·εₜ."))


CHAIN_N = 50


DUMMY = DummySpec("partitioned", 0.01, "position")  # the paper's 1 % of ε spent on choosing the dummies (§3.4)
CHOICES_6 = ("The attacker does worse (lower AUC)", "No change (within noise)", "The attacker does better")


def _dummies(v: dict) -> Reveal:
    """The adversary lab's position attack (ROC AUC of ranking events as landmarks) without and with dummies."""
    scheme, eps = str(v["scheme"]), float(v["eps"])
    x, L = series_and_landmarks(0.2)
    mask = np.zeros(N, dtype=bool)
    mask[L] = True
    gen = np.random.default_rng(SEED)
    plain, hidden = (positions.attack(np.asarray(schemes.release(x, L, scheme, eps, protects=PROTECTS,
                                                                 repetitions=REPETITIONS, rng=gen,
                                                                 dummies=d).values), mask)
                     for d in (None, DUMMY))
    half = float(np.hypot(plain.auc_ci[1] - plain.auc, hidden.auc_ci[1] - hidden.auc))
    change = hidden.auc - plain.auc
    answer = CHOICES_6[1] if abs(change) <= half else CHOICES_6[0] if change < 0 else CHOICES_6[2]
    name = SCHEME_NAMES[scheme]
    if answer == CHOICES_6[1]:
        second = (f"{name}'s releases already look the same at landmarks and regular events, so the attacker is "
                  "near guessing (0.5) either way.")
    else:
        second = ("The dummies are released exactly like landmarks, so the attacker's best ranking finds them "
                  "too and the real landmarks hide among them.")
    return Reveal(
        answer=answer,
        numbers={"AUC without dummies": interval(plain.auc, plain.auc_ci),
                 "AUC with dummies": interval(hidden.auc, hidden.auc_ci),
                 "change": f"{change:+.3f} (± {half:.3f})", "guessing": "0.5", "releases": f"{REPETITIONS}"},
        why=(f"Under {name} at ε = {eps:g}, the position attack's AUC goes from {plain.auc:.3f} without dummies to "
             f"{hidden.auc:.3f} with them. {second}"))


LESSON_3 = Lesson(
    number=3, name="Spending the budget",
    setting=(f"A series of {N} readings in 0–1 kWh (Δ = 1 kWh) has landmarks on {{share}} of its events; "
             "ε = {eps}. Uniform, Skip and Adaptive spend it differently."),
    question="Which scheme has the lowest mean absolute error?",
    choices=tuple(SCHEME_NAMES.values()),
    settings=(Setting("share", "Landmark share", (0.1, 0.2, 0.3, 0.5, 0.7), 0.2),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="share", reveal_fn=_spending, section="§3.3–3.4",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N), "syn_frac": f"{v['share']:g}",
                            "syn_corr": f"{CORRELATION:g}", "eps": f"{v['eps']:g}",
                            "schemes": ",".join(SPENDERS), "reps": str(REPETITIONS)},
    takeaway="Which scheme wins depends on the landmark share and ε: measure it, with its confidence interval.")

LESSON_5 = Lesson(
    number=5, name="When events are correlated",
    setting=(f"Each of {CHAIN_N} events is released with εₜ = {{eps}} (event level). The adversary knows a Markov "
             "chain linking neighbouring events, of strength s = {s} (smaller s = stronger correlation)."),
    question="How large does the largest temporal privacy loss of one event get?",
    choices=CHOICES_5,
    settings=(Setting("s", "Correlation strength s", (0.01, 0.1, 1.0, 10.0), 0.1),
              Setting("eps", "εₜ", (0.1, 0.5), 0.1)),
    play="s", reveal_fn=_correlation, section="§2.3, Eq. 2",
    lab_page="temporal_loss", lab_title="Temporal privacy loss",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(CHAIN_N), "corr": "custom", "s": f"{v['s']:g}",
                            "eps": f"{v['eps']:g}", "tpl_scheme": "event"},
    takeaway="Correlation adds up the leaks of neighbouring releases: the stronger it is, the more one event loses.")

LESSON_6 = Lesson(
    number=6, name="Hiding where the landmarks are",
    setting=(f"A series of {N} readings has landmarks on 20 % of its events; it is released with {{scheme}} at "
             "ε = {eps}. An attacker ranks the events by how landmark-like their releases look (the adversary "
             "lab's position attack)."),
    question="What happens to the attack when dummy landmarks (partitioned, 1 % of ε) are added?",
    choices=CHOICES_6,
    settings=(Setting("scheme", "Scheme", SPENDERS, "skip"),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="scheme", reveal_fn=_dummies, section="§3.4 (dummy landmarks)",
    lab_page="adversary_lab", lab_title="Adversary lab",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N), "syn_frac": "0.2",
                            "syn_corr": f"{CORRELATION:g}", "eps": f"{v['eps']:g}", "schemes": v["scheme"],
                            "dummy_method": "partitioned", "dummy_share": "0.01"},
    takeaway="Dummy landmarks hide the real ones only where a scheme's releases give them away.")
