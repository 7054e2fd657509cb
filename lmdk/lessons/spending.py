"""The schemes' error (MAE of Uniform, Skip, Adaptive), correlated events (temporal privacy loss) and hiding where
the landmarks are (dummy landmarks against the position attack). The measured answers are decided over many seeds:
each seed draws its own series, landmarks and noise, and the 95 % intervals span them all."""
from __future__ import annotations

import numpy as np

from lmdk import metrics, relation, schemes, synthetic, tpl
from lmdk.audit import positions
from lmdk.dummies import DummySpec
from lmdk.lessons.base import SEED, Lesson, Reveal, Setting, consistent, interval, number, seed_streams

N = 100  # events of the lessons' synthetic series
REPETITIONS = 200  # releases per scheme in all: SERIES seeds × REPETITIONS // SERIES releases each
SERIES = 8  # seeds of the schemes lesson: each its own series, landmarks and noise
CORRELATION = 0.9  # the synthetic series' temporal correlation
SPENDERS = schemes.LANDMARK_SCHEMES  # the schemes that spend by L (§3.2)
SCHEME_NAMES = {"uniform": "Uniform", "skip": "Skip", "adaptive": "Adaptive"}
PROTECTS = relation.public_range(0.0, 1.0, "kWh")  # any reading in 0–1 kWh, Δ = 1 kWh


def series_and_landmarks(share: float, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """The lessons' series (readings in 0–1 kWh) and a landmark set of ``share`` of its events (``rng``: SEED)."""
    gen = np.random.default_rng(SEED if rng is None else rng)
    x = np.clip((synthetic.values(N, CORRELATION, gen) + 3.0) / 6.0, 0.0, 1.0)
    return x, synthetic.landmarks(N, share, rng=gen)


def scheme_errors(share: float, eps: float, seed: int = SEED) -> dict[str, metrics.MAE]:
    """Each scheme's MAE over SERIES seeds (series, landmarks and noise each), REPETITIONS releases in all."""
    per_rep: dict[str, list[np.ndarray]] = {s: [] for s in SPENDERS}
    for gen in seed_streams(seed, SERIES):
        x, L = series_and_landmarks(share, gen)
        for s in SPENDERS:
            released = schemes.release(x, L, s, eps, protects=PROTECTS, repetitions=REPETITIONS // SERIES, rng=gen)
            per_rep[s].append(metrics.mae(x, released.values).per_repetition)
    out = {}
    for s, parts in per_rep.items():
        values = np.concatenate(parts)
        mean, low, high = metrics.mean_ci95(values)
        out[s] = metrics.MAE(values, mean, low, high, "kWh")
    return out


def _spending(v: dict, seed: int = SEED) -> Reveal:
    """MAE of each scheme over many seeds (§3.2: Uniform, Skip, Adaptive), ties within the 95 % CI."""
    share, eps = float(v["share"]), float(v["eps"])
    errors = scheme_errors(share, eps, seed)
    landmarks = int(round(share * N))
    best = min(errors, key=lambda s: errors[s].mean)
    tied = tuple(SCHEME_NAMES[s] for s in SPENDERS if errors[s].ci_low <= errors[best].ci_high)
    if len(tied) > 1:
        second = "They tie within the noise of the measurement: " + " and ".join(tied) + " overlap."
    else:
        second = (f"{SCHEME_NAMES[best]}'s 95 % interval lies below the others'. Skip spends the whole ε at every "
                  "regular event and nothing at a landmark, where it republishes the last regular release; Uniform "
                  f"gives every event ε/(|L|+1) = {eps / (landmarks + 1):.3g}; Adaptive starts from Uniform's budget "
                  "and approximates between its samples. Skip wins at every share and ε of this lesson: its error "
                  "at a landmark is only the change since the last regular release, and these readings change "
                  "slowly.")
    return Reveal(
        answer=SCHEME_NAMES[best], correct_choices=tied,
        numbers={f"MAE of {SCHEME_NAMES[s]} (kWh)": interval(errors[s].mean, errors[s].ci) for s in SPENDERS}
        | {"landmarks": f"{landmarks} of {N}", "releases": f"{REPETITIONS} ({SERIES} series × "
                                                           f"{REPETITIONS // SERIES})"},
        why=(f"At ε = {eps:g} with {landmarks} landmarks among {N} events, {SCHEME_NAMES[best]} has the lowest mean "
             f"absolute error, {errors[best].mean:.3f} kWh over {REPETITIONS} releases of {SERIES} series. {second}"))


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
DUMMY_SEEDS = 12  # seeds of the dummies lesson (series, landmarks, dummies and noise each)
DUMMY_RELEASES = 50  # releases per seed and configuration
NEGLIGIBLE = 0.01  # an AUC change smaller than this is no change (the bands of CHOICES_6)
BANDS_6 = {CHOICES_6[0]: (-np.inf, -NEGLIGIBLE), CHOICES_6[1]: (-NEGLIGIBLE, NEGLIGIBLE),
           CHOICES_6[2]: (NEGLIGIBLE, np.inf)}


def dummy_attack(scheme: str, eps: float, seed: int = SEED) -> np.ndarray:
    """(seeds, 3): the position attack's AUC without and with dummies, and the mean |L′|, per seed."""
    rows = []
    for gen in seed_streams(seed, DUMMY_SEEDS):
        x, L = series_and_landmarks(0.2, gen)
        mask = np.zeros(N, dtype=bool)
        mask[L] = True
        plain, hidden = (schemes.release(x, L, scheme, eps, protects=PROTECTS, repetitions=DUMMY_RELEASES, rng=gen,
                                         dummies=d) for d in (None, DUMMY))
        rows.append((positions.attack(np.asarray(plain.values), mask).auc,
                     positions.attack(np.asarray(hidden.values), mask).auc, float(hidden.landmarks.sum(1).mean())))
    return np.asarray(rows)


def _dummies(v: dict, seed: int = SEED) -> Reveal:
    """The adversary lab's position attack (ROC AUC of ranking events as landmarks) without and with dummies, over
    many seeds; the answer is every band of CHOICES_6 the 95 % interval of the change meets."""
    scheme, eps = str(v["scheme"]), float(v["eps"])
    runs = dummy_attack(scheme, eps, seed)
    plain, hidden = (metrics.mean_ci95(runs[:, i]) for i in (0, 1))
    change, low, high = metrics.mean_ci95(runs[:, 1] - runs[:, 0])
    answer = next(c for c, (lo, hi) in BANDS_6.items() if lo <= change <= hi)
    name = SCHEME_NAMES[scheme]
    if answer == CHOICES_6[1]:
        second = (f"{name}'s releases look alike at landmarks and regular events, so the attacker is near guessing "
                  f"(0.5) either way and the dummies change its AUC by less than {NEGLIGIBLE:g}.")
    elif answer == CHOICES_6[0]:
        second = (f"The dummies are released like landmarks, so the attacker's ranking flags them too, but not down to "
                  f"guessing (0.5): every real landmark stays in L′ ({runs[:, 2].mean():.0f} events marked instead of "
                  f"{int(round(0.2 * N))}) and is still released as one, so the dummies blur the real landmarks "
                  "without hiding them.")
    else:
        second = "Here the dummies' own releases make the landmark pattern easier to see."
    return Reveal(
        answer=answer, correct_choices=consistent(BANDS_6, low, high),
        numbers={"AUC without dummies": interval(plain[0], plain[1:]),
                 "AUC with dummies": interval(hidden[0], hidden[1:]),
                 "change": interval(change, (low, high)),
                 f"events marked as landmarks (L′ ⊇ L, |L| = {int(round(0.2 * N))})": number(float(runs[:, 2].mean())),
                 "guessing": "0.5", "releases": f"{DUMMY_SEEDS * DUMMY_RELEASES} ({DUMMY_SEEDS} series × "
                                                 f"{DUMMY_RELEASES}) each"},
        why=(f"Under {name} at ε = {eps:g}, the position attack's AUC goes from {plain[0]:.3f} without dummies to "
             f"{hidden[0]:.3f} with them, a change of {change:+.3f} (95 % CI {low:+.3f} to {high:+.3f}) over "
             f"{DUMMY_SEEDS} series. {second}"))


LESSON_SCHEMES = Lesson(
    name="Spending the budget",
    setting=(f"A series of {N} readings in 0–1 kWh (Δ = 1 kWh) has landmarks on {{share}} of its events; "
             "ε = {eps}. Uniform, Skip and Adaptive spend it differently."),
    question="Which scheme has the lowest mean absolute error?",
    choices=tuple(SCHEME_NAMES.values()),
    settings=(Setting("share", "Landmark share", (0.1, 0.2, 0.3, 0.5, 0.7), 0.2),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="share", reveal_fn=_spending, seeded=True, section="§3.2 (Uniform, Skip, Adaptive)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N), "syn_frac": f"{v['share']:g}",
                            "syn_corr": f"{CORRELATION:g}", "eps": f"{v['eps']:g}",
                            "schemes": ",".join(SPENDERS), "reps": str(REPETITIONS)},
    takeaway=("Skip has the lowest error here because it spends nothing at landmarks and republishes there — the "
              "repeats that can give the landmarks away (see the lesson on dummy landmarks)."))

LESSON_TPL = Lesson(
    name="When events are correlated",
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

LESSON_DUMMIES = Lesson(
    name="Hiding where the landmarks are",
    setting=(f"A series of {N} readings has landmarks on 20 % of its events; it is released with {{scheme}} at "
             "ε = {eps}. An attacker ranks the events by how landmark-like their releases look (the adversary "
             "lab's position attack)."),
    question="What happens to the attack when dummy landmarks (partitioned, 1 % of ε) are added?",
    choices=CHOICES_6,
    settings=(Setting("scheme", "Scheme", SPENDERS, "skip"),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="scheme", reveal_fn=_dummies, seeded=True, section="§3.4 (dummy landmarks)",
    lab_page="adversary_lab", lab_title="Adversary lab",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N), "syn_frac": "0.2",
                            "syn_corr": f"{CORRELATION:g}", "eps": f"{v['eps']:g}", "schemes": v["scheme"],
                            "dummy_method": "partitioned", "dummy_share": "0.01"},
    takeaway=("Dummy landmarks matter only where a scheme's releases give the landmarks away, and there they blur "
              "them without hiding them: every real landmark stays in L′."))
