"""Event vs user level, what ε protects (the honest Δ) and Theorem 2: closed forms from the core, no noise drawn."""
from __future__ import annotations

import numpy as np

from lmdk import metrics, privacy, relation, schemes
from lmdk.lessons.base import Lesson, Reveal, Setting, number
from lmdk.present.views import encode_landmarks

UNIT_RANGE = (0.0, 1.0)  # the event-vs-user lesson's public range of one reading, kWh (Δ = 1 kWh)
MIDDLE = 0.5  # a reading in the middle of that range: its expected error after clamping


def _event_or_user(v: dict) -> Reveal:
    """User level shares ε over n events (ε/n each), event level gives each event ε (§2.2)."""
    n, eps = int(v["n"]), float(v["eps"])
    protected = relation.public_range(*UNIT_RANGE, "kWh")
    delta = protected.sensitivity
    user = schemes.allocate("user", n, [], eps)
    event = schemes.allocate("event", n, [], eps)
    scale_user, scale_event = delta / float(user[0]), delta / float(event[0])
    ratio = scale_user / scale_event
    # releases stay in the public range (clamped, lmdk.relation): the error a reader sees saturates at half of it
    err_event, err_user = metrics.laplace_expected_error(np.full(2, MIDDLE), np.array([scale_event, scale_user]),
                                                         UNIT_RANGE).tolist()
    return Reveal(
        answer=ratio,
        numbers={"ε per event, event level": number(float(event[0])),
                 "ε per event, user level": number(float(user[0])),
                 "Laplace scale Δ/εₜ, event level (kWh)": number(scale_event),
                 "Laplace scale Δ/εₜ, user level (kWh)": number(scale_user),
                 "ratio of the scales": number(ratio),
                 f"expected error of a {MIDDLE:g} kWh reading, event level (kWh)": number(err_event),
                 f"expected error of a {MIDDLE:g} kWh reading, user level (kWh)": number(err_user)},
        why=(f"User level shares ε = {eps:g} over all {n:,} events, so each gets ε/n = {float(user[0]):.3g} and its "
             f"Laplace noise has scale Δ/εₜ = {scale_user:.3g} kWh against {scale_event:.3g} kWh at event level: "
             f"{ratio:,.4g} times more, in proportion to the length of the series. The error a reader sees grows "
             f"less, because every release is clamped to the public range 0–1 kWh: a {MIDDLE:g} kWh reading is off "
             f"by {err_event:.3g} kWh on average at event level and {err_user:.3g} kWh at user level — the most it "
             "can be off is 0.5 kWh, so at user level the release is nearly pure noise."))


def _theorem2_budgets(v: dict) -> tuple[np.ndarray, np.ndarray]:
    """The lesson's assignment: ``a`` at each of k spread landmarks, ``b`` at each regular event of N2 events."""
    k, a, b = int(v["k"]), float(v["a"]), float(v["b"])
    landmarks = np.linspace(1, N2 - 2, k).round().astype(np.int64)
    budgets = np.full(N2, b)
    budgets[landmarks] = a
    return budgets, landmarks


N2 = 10
EPS2 = 1.0


def _theorem2(v: dict) -> Reveal:
    """Theorem 2 (§3.1): the budgets of L ∪ {t} must add up to at most ε for every regular t."""
    budgets, landmarks = _theorem2_budgets(v)
    worst = float(privacy.landmark_loss(budgets, landmarks).max())
    holds = privacy.satisfies_landmark_privacy(budgets, landmarks, EPS2)
    k, a, b = int(v["k"]), float(v["a"]), float(v["b"])
    verdict = "within" if holds else "above"
    return Reveal(
        answer="Yes" if holds else "No",
        numbers={"landmarks": ", ".join(map(str, landmarks.tolist())),
                 "largest loss Σ_{L∪{t}} εᵢ": number(worst), "ε": number(EPS2)},
        why=(f"Theorem 2 adds the budgets of all {k} landmarks and of any one regular event: {k} × {a:g} + {b:g} = "
             f"{worst:.3g}, which is {verdict} ε = {EPS2:g}. A landmark's budget counts against every regular event, "
             "so each extra landmark leaves less for the others."))


def _range_or_change(v: dict) -> Reveal:
    """The honest Δ: any reading in the public range (Δ = high − low) against a change of up to d (Δ = d)."""
    high, d, eps = float(v["high"]), float(v["d"]), float(v["eps"])
    whole = relation.public_range(0.0, high, "kWh")
    change = relation.up_to(d, 0.0, high, "kWh")
    ratio = whole.sensitivity / change.sensitivity
    if ratio > 1:
        # group privacy: readings high kWh apart are high/d protected changes apart, so hidden only at ε·high/d
        last = (f"The smaller promise is cheaper: a change of up to {d:g} kWh is hidden at ε = {eps:g}, but whether "
                f"the reading was 0 or {high:g} kWh is hidden only at ε × {high:g}/{change.sensitivity:g} = "
                f"{eps * ratio:.3g}.")
    else:
        last = (f"Here a change of up to {d:g} kWh already covers the whole range 0–{high:g} kWh, so both promises "
                f"are the same: whether the reading was 0 or {high:g} kWh is hidden at ε = {eps:g} either way.")
    return Reveal(
        answer=ratio,
        numbers={"Δ, any reading in 0–high (kWh)": number(whole.sensitivity),
                 "Δ, a change of up to d (kWh)": number(change.sensitivity),
                 f"Laplace scale at ε = {eps:g}, any reading (kWh)": number(whole.sensitivity / eps),
                 f"Laplace scale at ε = {eps:g}, up to d (kWh)": number(change.sensitivity / eps),
                 "ratio": number(ratio),
                 f"ε that hides 0 vs {high:g} kWh, protecting up to d": number(eps * ratio)},
        why=(f"Protecting any reading in the public range 0–{high:g} kWh means Δ = {whole.sensitivity:g} kWh, while "
             f"protecting a change of up to {d:g} kWh means Δ = {change.sensitivity:g} kWh, so the noise scale Δ/ε is "
             f"{ratio:,.4g} times larger. {last}"))


LESSON_LEVELS = Lesson(
    name="One event or the whole series",
    setting=("A smart meter sends {n} readings, each in the public range 0–1 kWh (Δ = 1 kWh), with ε = {eps}. "
             "Event level protects any one reading with ε; user level protects the whole series with ε."),
    question="How many times larger is the Laplace noise scale Δ/εₜ on each reading at user level than at event "
             "level?",
    number_label="Times larger",
    settings=(Setting("n", "Readings in the series", (10, 50, 100, 500, 1000), 100),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="n", reveal_fn=_event_or_user, section="§2.2",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(v["n"]), "eps": f"{v['eps']:g}",
                            "schemes": "event,user", "rel": "range", "rlo": "0", "rhi": "1"},
    takeaway=("User level divides ε among all events: its noise scale grows with the length of the series, until "
              "the releases say little more than the public range."))

LESSON_THEOREM2 = Lesson(
    name="Landmarks and Theorem 2",
    setting=(f"A series of {N2} events has {{k}} landmarks. The budget is {{a}} at each landmark and {{b}} at each "
             f"regular event; the goal is ε = {EPS2:g}."),
    question="Does this budget assignment satisfy (ε, L)-landmark privacy (Theorem 2)?",
    choices=("Yes", "No"),
    settings=(Setting("k", "Landmarks", (1, 2, 3, 4), 3),
              Setting("a", "Budget at each landmark", (0.1, 0.2, 0.25, 0.3, 0.5), 0.3),
              Setting("b", "Budget at each regular event", (0.1, 0.2, 0.25, 0.3, 0.5), 0.2)),
    play="a", reveal_fn=_theorem2, section="§3.1, Theorem 2",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N2),
                            "lm": encode_landmarks(_theorem2_budgets(v)[1]), "eps": f"{EPS2:g}",
                            "schemes": "uniform,skip,adaptive"},
    not_in_lab=("a", "b"),  # the lab's schemes assign the budgets: it shows theirs against Theorem 2
    takeaway="Landmarks share ε with every regular event: all landmarks plus any one other event stay within ε.")

LESSON_DELTA = Lesson(
    name="What ε protects",
    setting=("A meter reads 0–{high} kWh. You can protect any reading in that public range, or only changes of up "
             "to {d} kWh; ε = {eps}."),
    question="How many times more noise does protecting any reading need than protecting a change of up to {d} kWh?",
    number_label="Times more noise",
    settings=(Setting("high", "Top of the public range (kWh)", (5.0, 10.0, 25.0, 50.0), 25.0),
              Setting("d", "Largest protected change d (kWh)", (0.5, 1.0, 2.0, 5.0), 1.0),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="d", reveal_fn=_range_or_change, section="§2.1 (sensitivity Δ)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "eps": f"{v['eps']:g}", "rel": "up_to", "rd": f"{v['d']:g}",
                            "rlo": "0", "rhi": f"{v['high']:g}"},
    takeaway=("Δ is the promise: the whole public range costs (high − low)/d times the noise of a change of d, and "
              "protecting only changes of d leaves larger differences less hidden."))
