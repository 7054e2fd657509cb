"""Plain-language headlines: the verdict of a page in one or two sentences a lay reader can say aloud.

Each headline is filled from the same numbers the page charts (MAE per scheme, Theorem 2 verdicts), by a small
template per page; tests check that it names the right winner and ratio.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

SCHEME_NAMES = {"event": "Event level", "user": "User level", "w-event": "w-event", "uniform": "Uniform",
                "skip": "Skip", "adaptive": "Adaptive", "bd": "BD (w-event)", "ba": "BA (w-event)",
                "fast": "FAST (user level)", "pegasus": "PeGaSus (event level)"}  # the baselines: lmdk.baselines


MAX_SENTENCES = 2  # a headline a person reads at a glance (issue 35: the Adversary lab's was seven bold lines)
# a sentence ends at . ! or ? (after any closing emphasis) before a space and a capital, digit or ε, so "0.93" and
# "e.g. the" do not end one
_SENTENCE_END = re.compile(r"[.!?][*_]*\s+(?=[\"'(*_]*[A-Z0-9ε])")


def sentence_count(text: str) -> int:
    """How many sentences a headline's markdown holds (its leading '#' marks ignored)."""
    body = text.lstrip("# ").strip()
    return len(_SENTENCE_END.split(body)) if body else 0


def readable(value: float) -> str:
    """A number rounded for reading aloud: two significant figures, thousands separated."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    digits = 1 - int(math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    digits = 1 - int(math.floor(math.log10(abs(rounded))))  # 9.98 rounds to 10: one figure fewer after the point
    return f"{rounded:,.{digits}f}" if digits > 0 else f"{rounded:,.0f}"


def ratio(value: float) -> str:
    """'27×' or '1.5×'."""
    return f"{value:.0f}×" if value >= 10 else f"{value:.1f}×"


def event_word(kind: str, step_seconds: float | None) -> str:
    """What one event is called in the headline: hours/days for regular meter readings, else fixes or contacts."""
    if kind == "trajectory":
        return "locations"
    if kind == "contacts":
        return "contacts"
    if step_seconds is not None and abs(step_seconds - 3600) < 1:
        return "hours"
    if step_seconds is not None and abs(step_seconds - 86400) < 1:
        return "days"
    return "readings"


def median_step_seconds(timestamps) -> float | None:
    """The typical time between events (None for fewer than two)."""
    ns = np.asarray(timestamps.asi8 if hasattr(timestamps, "asi8") else timestamps, dtype=np.int64)
    return float(np.median(np.diff(ns)) / 1e9) if ns.size > 1 else None


def plus_minus(low: float, high: float) -> str:
    """" ± 0.012": half a 95 % interval, rounded for reading (empty when the interval is unknown)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f" ± {readable((high - low) / 2)}"


HELP = ("a larger ε, a narrower protected change (the sidebar's *What ε protects*) or a statistic over many users "
        "(the Population page)")  # what would bring the error below the data-free guess
BARELY = 1.25  # a scheme less than this many times better than the data-free guess is "barely better"


@dataclass(frozen=True)
class Guess:
    """The data-free guess a headline compares with: its MAE, the guessed value, the public range in words, and
    whether that range is far wider than the values (then the range, not the scheme, sets the error)."""

    mae: float
    value: float
    range_text: str
    range_far_wider: bool = False

    @classmethod
    def of(cls, values, value_range: tuple[float, float], unit: str = "") -> Guess:
        """The data-free guess for ``values`` in the public ``value_range`` (``lmdk.metrics.data_free_guess_mae``);
        the range is "far wider" when its width is over four times the spread of the values."""
        from lmdk import metrics

        x = np.asarray(values, dtype=float)
        low, high = (float(v) for v in value_range)
        unit = f" {unit}" if unit else ""
        return cls(mae=metrics.data_free_guess_mae(x, (low, high)), value=metrics.data_free_guess((low, high)),
                   range_text=f"{low:g}–{high:g}{unit}", range_far_wider=(high - low) > 4 * float(np.ptp(x)))


def guess_line_caption(guess: Guess, unit: str) -> str:
    """The caption of the dashed data-free-guess line on an error chart: what it is and how to read a bar against it."""
    return (f"Dashed line ({guess.mae:.3g} {unit}): the error of guessing {guess.value:g} {unit}, the middle of the "
            f"public range {guess.range_text}, without looking at the data — a bar that reaches it tells no more than "
            "the range does.")


def guess_sentence(error: float, guess: Guess, unit: str) -> str:
    """One sentence comparing a scheme's error with the data-free guess (the middle of the public range), saying
    plainly when the scheme is no better and what would help."""
    unit = f" {unit}" if unit else ""
    said = (f"guessing {guess.value:.3g}{unit} (the middle of the public range {guess.range_text}) without "
            f"looking at the data, which is off by {guess.mae:.3g}{unit}")
    if error >= guess.mae:
        cause = " — the public range, not the scheme, sets this error" if guess.range_far_wider else ""
        return f"That is **no better** than {said}{cause}; {HELP} would help."
    if error * BARELY > guess.mae:
        return f"That is **barely better** than {said}; {HELP} would help."
    return f"That is {ratio(guess.mae / error)} better than {said}."


def schemes_headline(epsilon: float, n: int, n_landmarks: int, words: str, unit: str, mae: dict[str, float],
                     satisfies: dict[str, bool], protects: str | None = None,
                     ci: dict[str, tuple[float, float]] | None = None, guess: Guess | None = None) -> str:
    """Schemes & utility in at most two sentences: which scheme protects the sensitive events at the smallest error
    (against user level), and how that error compares with the data-free guess (``guess``).

    ``protects``: the neighbouring relation in words (``lmdk.relation.Relation.protects``), said as a last sentence
    only without a ``guess`` (the page then shows it under the headline); the errors are those of the release handed
    out (same Δ, sampler). ``ci``: the 95 % interval of each MAE over the repetitions, said as "± half its width".
    """
    unit_ = f" {unit}" if unit else ""
    protecting = {s: e for s, e in mae.items() if satisfies.get(s)}
    winners = {s: e for s, e in protecting.items() if s != "user"} or protecting
    lead = f"With ε = {epsilon:g} and {n_landmarks:,} sensitive {words} out of {n:,}, "
    if not winners:
        return lead + "none of the chosen schemes protects the sensitive " + words + " together; add User level or " \
                      "a landmark scheme (Uniform, Skip, Adaptive)."
    best = min(winners, key=winners.__getitem__)
    spread = plus_minus(*ci[best]) if ci and best in ci else ""
    text = lead + f"*{SCHEME_NAMES[best]}* keeps the typical error at {readable(winners[best])}{spread}{unit_}"
    if best not in ("user", "fast") and "user" in mae and winners[best] > 0:  # FAST is user level itself
        text += f" — {ratio(mae['user'] / winners[best])} better than protecting every one of the {words} equally " \
                "(user level)"
    else:
        text += ", and it guarantees the protection of the sensitive " + words
    better = {s: e for s, e in mae.items() if not satisfies.get(s) and e < winners[best]}
    if better:
        rival = min(better, key=better.__getitem__)
        text += (f"; *{SCHEME_NAMES[rival]}* is more accurate still but does **not** protect the sensitive "
                 f"{words} together")
    text += "."
    if guess is not None:
        said = guess_sentence(winners[best], guess, unit)
        no_better = [SCHEME_NAMES.get(s, s) for s, e in mae.items() if s != best and e >= guess.mae]
        if no_better and winners[best] < guess.mae:  # the best beats the guess, others do not: name them
            names = " and ".join(", ".join(f"*{n}*" for n in no_better).rsplit(", ", 1))
            cause = ": the public range, not the scheme, sets their error" if guess.range_far_wider else ""
            said = said.removesuffix(".") + (f"; {names} {'is' if len(no_better) == 1 else 'are'} **no better** than "
                                             f"that guess{cause}.")
        return text + " " + said
    if protects:
        text += f" Protected: {protects}, at ε = {epsilon:g}."
    return text


def temporal_loss_headline(epsilon: float, scheme: str, correlation: str, worst: float, reference: float,
                           words: str) -> str:
    """Temporal privacy loss: how much the sensitive events together can leak once events are correlated, in nats
    (the unit of ε), with what that means: the odds of any guess about them change by at most e^loss."""
    name = SCHEME_NAMES.get(scheme, scheme)
    lead = (f"With ε = {epsilon:g} and {correlation} correlation between consecutive {words}, an adversary who knows "
            f"that correlation learns ")
    if worst <= reference * (1 + 1e-9):
        return lead + (f"no more about the sensitive {words} together from *{name}* than without it "
                       f"({readable(worst)} nats, the unit of ε).")
    return (lead + f"up to {readable(worst)} nats (the unit of ε) about the sensitive {words} together from *{name}* "
            f"— {ratio(worst / reference)} the {readable(reference)} nats that hold when {words} are independent. "
            f"The odds of any guess about them can change by up to e^{readable(worst)} ≈ {odds(worst)}.")


def odds(loss: float) -> str:
    """e^loss as a readable factor: '33×' (a privacy loss in nats as the change of a guess's odds)."""
    factor = math.exp(min(loss, 700.0))
    return f"{readable(factor)}×" if factor < 1e6 else f"{factor:.1e}×"


def distance(metres: float) -> str:
    """A distance for reading: '4.7 km' from 1 km on, '350 m' below (one style for a page's headline and figures)."""
    return f"{readable(metres / 1000)} km" if metres >= 1000 else f"{readable(metres)} m"


def spatiotemporal_headline(epsilon: float, plain_leak: float, plain_distance_m: float, priste_distance_m: float,
                            alpha0: float, alpha: float, guess_m: float | None = None,
                            guess_data_free: bool = True) -> str:
    """Spatiotemporal events: what PriSTE's calibration buys (event kept within ε) and costs (distance), beside the
    error of guessing the map's centre (``guess_m``; ``guess_data_free`` False when the map was fitted to the trace,
    so that guess read the data too); the leak in nats, the unit of ε; distances as ``distance`` writes them."""
    km = distance
    guess = ""
    if guess_m is not None:
        if guess_data_free:
            worse = " — no better than that guess" if priste_distance_m >= guess_m else ""
            guess = f" (guessing the map's centre: {km(guess_m)}){worse}"
        else:
            guess = (f" (the centre of this map, fitted around the trace and so not a data-free guess, is "
                     f"{km(guess_m)} off)")
    acted = alpha < alpha0 * (1 - 1e-9)  # PriSTE halved α somewhere, in some repetition
    if plain_leak <= epsilon * (1 + 1e-9) and not acted:
        return (f"Here the plain location noise already keeps the sensitive event within ε = {epsilon:g}: released "
                f"locations are {km(plain_distance_m)} off on average{guess}, and PriSTE has nothing to change.")
    if plain_leak <= epsilon * (1 + 1e-9):  # within ε at the median, above it in some repetitions
        return (f"Plain location noise keeps the sensitive event within ε = {epsilon:g} in a typical repetition but "
                f"not in all of them. PriSTE adds noise where one exceeds it (α {readable(alpha0)} → "
                f"{readable(alpha)} per km on average): released locations are {km(priste_distance_m)} off instead "
                f"of {km(plain_distance_m)}{guess}.")
    return (f"Plain location noise lets an observer learn up to {readable(plain_leak)} nats (the unit of ε) about the "
            f"sensitive event, "
            f"above ε = {epsilon:g}. PriSTE keeps it within ε by adding more noise where needed "
            f"(α {readable(alpha0)} → {readable(alpha)} per km on average): released locations are "
            f"{km(priste_distance_m)} off instead of {km(plain_distance_m)}{guess}.")


def dummies_headline(marked: int, real: int, chance_real: float, words: str) -> str:
    """Dummy landmarks: how well the dummies hide which marked events are the real sensitive ones."""
    hidden = marked - real
    return (f"{hidden:,} ordinary {words} are marked as sensitive next to the {real:,} real ones, so an observer who "
            f"knows the method can only say that a marked one is real with {round(100 * chance_real):.0f} % "
            f"certainty; the {words} left unmarked are known to be ordinary.")


def overview_headline(epsilon: float, n: int, landmarks: int, verdicts: dict[str, bool]) -> str:
    """The Overview example in one sentence: which schemes protect the landmarks together at this ε."""
    ok = [s for s, holds in verdicts.items() if holds]
    bad = [s for s, holds in verdicts.items() if not holds]
    named = lambda names: ", ".join(f"*{s}*" for s in names)  # noqa: E731 — a one-line closure over this scope's values
    text = f"With ε = {epsilon:g} and {landmarks} landmark{'s' if landmarks != 1 else ''} among {n} events, "
    if ok:
        text += f"{named(ok)} protect{'s' if len(ok) == 1 else ''} the landmarks together"
    if bad:
        text += (" — " if ok else "") + f"{named(bad)} do{'es' if len(bad) == 1 else ''} **not**"
    return text + "."


def plan_headline(result, unit: str, words: str) -> str:
    """The planner (lmdk.plan.Plan) in one or two sentences: the least ε among the schemes that protect the sensitive
    events together, user level's, cheaper schemes that do not protect them, and schemes no ε gets there."""
    target = result.target
    amount = f"{target.error:g} {unit}".strip()
    where = {"all": words, "landmarks": f"sensitive {words}", "regular": f"regular {words}"}[target.at]
    if target.probability is None:
        goal = f"To keep the mean error of the {where} within {amount}"
    else:
        goal = (f"To keep the error of each of the {where} within ±{amount} with probability "
                f"{100 * target.probability:g} %")
    answers = result.schemes

    def cost(name: str) -> str:
        p = answers[name]
        return "any ε" if p.any_epsilon else f"ε = {readable(p.epsilon)}"

    feasible = {s: p.epsilon for s, p in answers.items() if p.feasible}
    protecting = {s: e for s, e in feasible.items() if answers[s].satisfies}
    winners = {s: e for s, e in protecting.items() if s != "user"} or protecting
    parts = []
    if winners:
        best = min(winners, key=winners.__getitem__)
        text = f"{goal}, *{SCHEME_NAMES.get(best, best)}* needs {cost(best)}"
        if len(protecting) > 1:
            text += f" — the least of the schemes that protect the sensitive {words} together"
        if best != "user" and "user" in protecting:
            text += f"; user-level privacy needs {cost('user')}"
        parts.append(text + ".")
        cheaper = {s: e for s, e in feasible.items() if not answers[s].satisfies and e < winners[best]}
        if cheaper:
            rival = min(cheaper, key=cheaper.__getitem__)
            parts.append(f"*{SCHEME_NAMES.get(rival, rival)}* needs only {cost(rival)} but does **not** protect the "
                         f"sensitive {words} together.")
    elif feasible:
        rival = min(feasible, key=feasible.__getitem__)
        parts.append(f"{goal}, *{SCHEME_NAMES.get(rival, rival)}* needs {cost(rival)}, but none of the schemes that "
                     f"meet it protects the sensitive {words} together.")
    else:
        parts.append(f"{goal}: none of the chosen schemes gets there at any ε.")
    for name, p in answers.items():
        if not p.feasible and feasible:
            floor = f"{readable(p.achieved_mae)} {unit}".strip()
            parts.append(f"*{SCHEME_NAMES.get(name, name)}* cannot get there at any ε (its mean error stays at "
                         f"{floor}).")
    return " ".join(parts)
