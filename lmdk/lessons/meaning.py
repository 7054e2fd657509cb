"""Two lessons on ε in the world's terms (issue 56): how far one release lets an attacker's belief move (beside the
published deployments' ε), and what a budget spent in steps adds up to in the ledger (basic and PLD totals).

Both reveals are exact computations (no noise, no seed): the belief bound is closed-form and the PLD total is
dp_accounting's deterministic privacy-loss-distribution composition.
"""
from __future__ import annotations

import math

from lmdk import epsilon_meaning, ledger
from lmdk.lessons.base import Lesson, Reveal, Setting, number


def _times(ratio: float) -> str:
    """A likelihood ratio for a reader: three significant digits, whole numbers with separators from 100 on."""
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def _believed(share: float) -> str:
    """A belief as a percentage, four significant digits (99.97 %, not a rounded-up 100 %)."""
    return f"{100.0 * share:.4g} %"


def _belief(v: dict) -> Reveal:
    """The most a prior belief in one protected event can become after one ε-DP release (§2.1, Definition 1)."""
    eps, prior = float(v["eps"]), float(v["prior"]) / 100.0
    bound = epsilon_meaning.belief_bound(eps, prior)
    ratio = math.exp(eps)
    place = epsilon_meaning.meaning(eps)
    return Reveal(
        answer=100.0 * bound,
        numbers={"e^ε: the most an output's likelihood can differ between the two worlds": _times(ratio),
                 "prior belief": _believed(prior),
                 "prior odds → posterior odds at most": f"{number(prior / (1 - prior))} → "
                                                         f"{number(ratio * prior / (1 - prior))}",
                 "belief after the release, at most": _believed(bound),
                 "among published deployments": place.position,
                 "source": f"{epsilon_meaning.SOURCE.publisher} {epsilon_meaning.SOURCE.name}",
                 "caveat": place.note},
        why=(f"ε = {eps:g} bounds how much likelier any output can be with the event than without it by "
             f"e^ε = {_times(ratio)}, so the attacker's odds can grow at most {_times(ratio)}-fold: from "
             f"{_believed(prior)} to at most {_believed(bound)}. Among published deployments, ε = {eps:g} "
             f"{'is' if place.placement == 'equal' else 'sits'} {place.position.removesuffix('.')}."))


_PUBLISHED = sorted(d.epsilon for d in epsilon_meaning.DEPLOYMENTS)


LESSON_MEANING = Lesson(
    name="What ε means",
    setting=("A release satisfies ε-differential privacy with ε = {eps}. Before seeing it, an attacker believes with "
             "probability {prior} % that one protected event (say, a reading at 3 a.m.) happened."),
    question="After seeing the release, how likely can the attacker believe the event is, at most (in %)?",
    number_label="Belief at most (%)",
    settings=(Setting("eps", "ε", (0.5, 1.0, 2.0, 5.0, 10.0), 1.0),
              Setting("prior", "The attacker's belief before (prior)", (10, 25, 50), 50, unit="%")),
    play="eps", reveal_fn=_belief, section="§2.1 (Definition 1: e^ε bounds the likelihood ratio)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "eps": f"{v['eps']:g}"},
    not_in_lab=("prior",),
    takeaway=(f"ε is a bound on belief: at ε = 1 a 50 % guess can reach at most "
              f"{_believed(epsilon_meaning.belief_bound(1.0))}, at ε = 10 "
              f"{_believed(epsilon_meaning.belief_bound(10.0))} — and published deployments use ε from "
              f"{_PUBLISHED[0]:g} to {_PUBLISHED[-1]:g}, each protecting a different unit."))


PLD_DELTA = ledger.DELTA  # the ledger's δ of its (ε, δ) total, 10⁻⁶
CHOICES_REMEASURE = ("The same as k·ε (within 1 %)", "Smaller, but more than half of k·ε", "Less than half of k·ε")


def steps_shown(k: int) -> tuple[int, ...]:
    """The steps whose running totals the reveal lists: the first, a quarter, half way and the last."""
    return tuple(sorted({1, max(1, k // 4), max(1, k // 2), k}))


def running_totals(eps: float, k: int) -> tuple[float, float]:
    """The ledger's totals after ``k`` releases at ``eps`` each: basic Σ ε (pure DP) and PLD ε at PLD_DELTA."""
    return eps * k, ledger.pld_epsilon(((eps, k),), PLD_DELTA)


def _remeasure(v: dict) -> Reveal:
    """Basic and PLD totals of k releases at ε each (§2.1.2 sequential composition; dp_accounting's PLD)."""
    eps, k = float(v["eps"]), int(v["k"])
    basic, pld = running_totals(eps, k)
    ratio = pld / basic
    answer = (CHOICES_REMEASURE[0] if ratio >= 0.99 else CHOICES_REMEASURE[1] if ratio > 0.5
              else CHOICES_REMEASURE[2])
    steps = {}
    for step in steps_shown(k):
        b, p = running_totals(eps, step)
        steps[f"after release {step}: Σ ε / PLD ε at δ = 10⁻⁶"] = f"{b:.4g} / {p:.4g}"
    if answer == CHOICES_REMEASURE[0]:
        second = ("With this few looks the (ε, δ) accounting cannot beat the plain sum: every look costs its full ε, "
                  "so decide before each release whether the next one is worth it.")
    else:
        second = ("The privacy losses of many small independent releases add up to far less than their worst case "
                  "k·ε with overwhelming probability, so a total allowed to fail with probability δ = 10⁻⁶ grows "
                  "more slowly — but only once there are many releases.")
    return Reveal(
        answer=answer,
        numbers={"releases k": f"{k:,}", "ε of each": number(eps), "basic total k·ε": number(basic, 4),
                 "PLD total at δ = 10⁻⁶": number(pld, 4), "PLD ÷ basic": f"{100 * ratio:.1f} %"} | steps,
        why=(f"After {k:,} releases at ε = {eps:g} the ledger's basic total is {basic:.4g} and its PLD total at "
             f"δ = 10⁻⁶ is {pld:.4g}, {100 * ratio:.1f} % of it. {second}"))


LESSON_REMEASURE = Lesson(
    name="Measure, observe, remeasure",
    setting=("You release a series at ε = {eps}, look at the result, and decide to release it again at ε = {eps}; "
             "you keep looking and releasing until you have made {k} releases. The privacy ledger adds them up two "
             "ways: the basic total Σ ε (pure ε-DP) and the PLD total at δ = 10⁻⁶ (privacy-loss distributions)."),
    question="After {k} releases, how does the PLD total compare with the basic total k·ε?",
    choices=CHOICES_REMEASURE,
    settings=(Setting("eps", "ε of each release", (0.1, 0.5, 1.0), 0.5),
              Setting("k", "Releases k", (1, 5, 10, 50, 100, 200), 10)),
    play="k", reveal_fn=_remeasure, section="§2.1.2 (sequential composition); the ledger's PLD total",
    lab_page="schemes_utility", lab_title="Schemes & utility",  # its export panel keeps the session's ledger
    lab_query_fn=lambda v: {"source": "synthetic", "eps": f"{v['eps']:g}"},
    not_in_lab=("k",),
    takeaway=("Every look spends ε again: a few releases cost their full sum, and only many small ones let the "
              "(ε, δ) total fall well below k·ε."))
