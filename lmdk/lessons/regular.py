"""Three lessons on what the schemes assign and what landmark privacy does and does not protect (issue 56): the
schemes' budgets (§3.2), regular events protected one at a time (Definition 3, §3.1) and w-event against landmark
privacy (§2.2, Theorem 2).

Every reveal is an exact computation on budgets fixed by n, L, ε and w (``schemes.allocate``; Adaptive: its initial
reservation) and the Theorem 2 accounting of ``lmdk.privacy``: no noise and no seed, so every copy agrees.
"""
from __future__ import annotations

import math

import numpy as np

from lmdk import privacy, schemes
from lmdk.lessons.base import Lesson, Reveal, Setting, number
from lmdk.present.views import encode_landmarks

EPS = 1.0  # the three lessons' total budget ε
SCHEME_NAMES = {"uniform": "Uniform", "skip": "Skip", "adaptive": "Adaptive"}
SCHEME_KEYS = {name: key for key, name in SCHEME_NAMES.items()}  # a setting's shown name → lmdk.schemes' name


def _vector(budgets: np.ndarray) -> str:
    """Per-timestamp budgets for a reader: "0.333, 0.333, …"."""
    return ", ".join(f"{b:.3g}" for b in budgets.tolist())


# ------------------------------------------------------------------ the schemes' budgets (§3.2)

N_BUDGETS = 10
LANDMARKS_BY_COUNT = {1: (4,), 2: (1, 4), 3: (1, 4, 7)}
CHOICES_BUDGETS = ("Nothing (0)", "ε/(|L|+1)", "All of ε")


def budget_landmarks(count: int) -> np.ndarray:
    """The budgets lesson's landmark timestamps for ``count`` landmarks among N_BUDGETS events."""
    return np.asarray(LANDMARKS_BY_COUNT[int(count)], dtype=np.int64)


def _budget_choice(value: float, count: int) -> str:
    """Which of CHOICES_BUDGETS a per-timestamp budget is (ε = EPS, |L| = ``count``)."""
    for share, choice in zip((0.0, EPS / (count + 1), EPS), CHOICES_BUDGETS, strict=True):
        if math.isclose(value, share, abs_tol=1e-12):
            return choice
    raise ValueError(f"budget {value!r} is none of the lesson's choices")  # a scheme changed its rule


def _budgets(v: dict) -> Reveal:
    """Each scheme's per-timestamp budget on a small series (§3.2; Adaptive: its initial reservation)."""
    scheme, where, count = SCHEME_KEYS[str(v["scheme"])], str(v["where"]), int(v["k"])
    L = budget_landmarks(count)
    regular = np.setdiff1d(np.arange(N_BUDGETS), L)
    t = int(L[0] if where == "landmark" else regular[0])
    assigned = {s: schemes.allocate(s, N_BUDGETS, L, EPS) for s in SCHEME_NAMES}
    worst = {s: float(privacy.landmark_loss(b, L).max()) for s, b in assigned.items()}
    value = float(assigned[scheme][t])
    share = EPS / (count + 1)
    rules = {"uniform": f"ε/(|L|+1) = {share:.3g} at every timestamp, landmark or not",
             "skip": "all of ε at each regular event and nothing at a landmark, where it republishes the last release",
             "adaptive": (f"to start with Uniform's reservation ε/(|L|+1) = {share:.3g} at every timestamp; as it "
                          "sees the data it skips releases and passes the unspent budget on, so what it finally "
                          "spends depends on the data")}
    name = SCHEME_NAMES[scheme]
    return Reveal(
        answer=_budget_choice(value, count),
        numbers={"landmarks L": ", ".join(map(str, L.tolist())), "ε": number(EPS)}
        | {f"{SCHEME_NAMES[s]} εₜ at t = 0…{N_BUDGETS - 1}": _vector(b) for s, b in assigned.items()}
        | {"largest Σ over L ∪ {t} (Theorem 2)": ", ".join(f"{SCHEME_NAMES[s]} {number(w)}"
                                                            for s, w in worst.items())},
        why=(f"{name} assigns εₜ = {value:.3g} to the {where} at t = {t}: {rules[scheme]}. Every scheme keeps the "
             f"{count} landmark budgets plus any one regular event's within ε = {EPS:g} (largest sum "
             f"{max(worst.values()):.3g}), as Theorem 2 asks."))


LESSON_BUDGETS = Lesson(
    name="The schemes' budgets",
    setting=(f"A series of {N_BUDGETS} events (t = 0…{N_BUDGETS - 1}) has {{k}} landmark(s); ε = {EPS:g}. Uniform, "
             "Skip and Adaptive each assign a budget εₜ to every timestamp before releasing."),
    question="How much does {scheme} assign to a {where}? (Adaptive: what it reserves before it sees the data.)",
    choices=CHOICES_BUDGETS,
    settings=(Setting("scheme", "Scheme", tuple(SCHEME_NAMES.values()), "Skip"),
              Setting("where", "Timestamp", ("landmark", "regular event"), "landmark"),
              Setting("k", "Landmarks |L|", tuple(LANDMARKS_BY_COUNT), 2)),
    play="scheme", reveal_fn=_budgets, section="§3.2 (Uniform, Skip, Adaptive)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N_BUDGETS),
                            "lm": encode_landmarks(budget_landmarks(v["k"])), "eps": f"{EPS:g}",
                            "schemes": SCHEME_KEYS[v["scheme"]]},
    not_in_lab=("where",),  # the lab's budget chart shows every timestamp, landmarks and regular events
    takeaway=("Uniform gives every timestamp ε/(|L|+1); Skip gives regular events all of ε and landmarks nothing; "
              "Adaptive starts from Uniform's reservation and moves it with the data."))


# ------------------------------------------------------------------ regular events one at a time (Definition 3)

N_REGULAR = 10
LANDMARKS_REGULAR = np.array([1, 4, 7])
CHANGED = (2, 5, 8)  # the regular readings that change together, the first k of them


def pair_loss(budgets, landmarks, changed) -> float:
    """Σ εᵢ over L ∪ ``changed``: Theorem 2's loss with all but the last changed reading counted as landmarks."""
    *others, last = (int(t) for t in changed)
    extended = np.union1d(np.asarray(landmarks, dtype=np.int64), np.asarray(others, dtype=np.int64))
    return float(privacy.landmark_loss(budgets, extended)[last])


def _regular(v: dict) -> Reveal:
    """The loss when the landmarks and k regular readings change together (Definition 3, Theorem 2, §3.1)."""
    scheme, k, eps = SCHEME_KEYS[str(v["scheme"])], int(v["k"]), float(v["eps"])
    budgets = schemes.allocate(scheme, N_REGULAR, LANDMARKS_REGULAR, eps)
    changed = CHANGED[:k]
    loss = pair_loss(budgets, LANDMARKS_REGULAR, changed)
    one = float(privacy.landmark_loss(budgets, LANDMARKS_REGULAR).max())
    on_landmarks = float(budgets[LANDMARKS_REGULAR].sum())
    each = float(budgets[changed[0]])
    name = SCHEME_NAMES[scheme]
    return Reveal(
        answer=loss,
        numbers={"landmarks L": ", ".join(map(str, LANDMARKS_REGULAR.tolist())),
                 "regular readings changed": ", ".join(map(str, changed)),
                 f"{name} εₜ at t = 0…{N_REGULAR - 1}": _vector(budgets),
                 "Σ εᵢ over L ∪ {t}, one regular t (Theorem 2)": number(one),
                 "Σ εᵢ over L and the changed readings": number(loss), "ε": number(eps)},
        why=(f"Under {name} the landmarks together spend {on_landmarks:.3g} and each regular reading "
             f"{each:.3g}, so a change of the landmarks and {k} regular reading(s) costs {on_landmarks:.3g} + {k} × "
             f"{each:.3g} = {loss:.3g}, against {one:.3g} ≤ ε = {eps:g} for the landmarks and one regular reading. "
             "Definition 3's neighbours differ on the landmarks and at most one regular event, so landmark privacy "
             "protects regular events one at a time: several together are protected only by the sum of their "
             "budgets."))


LESSON_REGULAR = Lesson(
    name="Regular events are protected one at a time",
    setting=(f"A series of {N_REGULAR} readings has landmarks at t = 1, 4 and 7 and is released with {{scheme}} at "
             "ε = {eps}, which satisfies (ε, L)-landmark privacy. An attacker compares two series that differ in the "
             f"landmarks and in {{k}} regular reading(s), the first of t = {', '.join(map(str, CHANGED))}."),
    question="What privacy loss Σ εᵢ protects the landmarks and those {k} regular reading(s) together?",
    number_label="Privacy loss Σ εᵢ",
    settings=(Setting("scheme", "Scheme", ("Skip", "Uniform"), "Skip"),
              Setting("k", "Regular readings changed together", (1, 2, 3), 2),
              Setting("eps", "ε", (0.5, 1.0, 2.0), 1.0)),
    play="k", reveal_fn=_regular, section="§3.1 (Definition 3, Theorem 2)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N_REGULAR),
                            "lm": encode_landmarks(LANDMARKS_REGULAR), "eps": f"{v['eps']:g}",
                            "schemes": SCHEME_KEYS[v["scheme"]]},
    not_in_lab=("k",),
    takeaway=("Landmark privacy protects the landmarks with one regular event at a time: under Skip two regular "
              "readings changed together cost 2ε, three cost 3ε."))


# ------------------------------------------------------------------ w-event against landmark privacy (§2.2)

N_WINDOW = 60


def window_landmarks(count: int) -> np.ndarray:
    """``count`` landmarks spread over the N_WINDOW events (farther apart than a window: w does not cover them)."""
    return np.linspace(2, N_WINDOW - 3, int(count)).round().astype(np.int64)


def largest_window_sum(budgets: np.ndarray, w: int) -> float:
    """The largest Σ εᵢ over w consecutive timestamps: what w-event privacy bounds by ε (§2.2)."""
    return float(np.convolve(budgets, np.ones(w), mode="valid").max())


def _w_event(v: dict) -> Reveal:
    """Whether w-event's ε/w per timestamp meets Theorem 2 for |L| landmarks: (|L|+1)·ε/w ≤ ε."""
    w, count = int(v["w"]), int(v["count"])
    L = window_landmarks(count)
    budgets = schemes.allocate("w-event", N_WINDOW, L, EPS, w=w)
    window = largest_window_sum(budgets, w)
    worst = float(privacy.landmark_loss(budgets, L).max())
    holds = privacy.satisfies_landmark_privacy(budgets, L, EPS)
    verdict = "within" if holds else "above"
    return Reveal(
        answer="Yes" if holds else "No",
        numbers={"landmarks L": ", ".join(map(str, L.tolist())), "ε/w at every timestamp": number(float(budgets[0])),
                 f"largest Σ over {w} consecutive events (w-event's promise)": number(window),
                 "largest Σ over L ∪ {t} (Theorem 2)": number(worst), "ε": number(EPS),
                 "|L| + 1 against w": f"{count + 1} against {w}"},
        why=(f"w-event privacy with w = {w} spends ε/w = {float(budgets[0]):.3g} at every timestamp, so any {w} "
             f"consecutive events share at most ε = {EPS:g}; but Theorem 2 adds the budgets of all {count} landmarks, "
             f"spread over {N_WINDOW} events, and one regular event: ({count} + 1)/{w} × ε = {worst:.3g}, {verdict} "
             f"ε. A window protects w events in a row, landmark privacy protects every landmark wherever it is, so "
             "w-event privacy gives (ε, L)-landmark privacy only when |L| + 1 ≤ w."))


LESSON_W_EVENT = Lesson(
    name="w-event vs landmark privacy",
    setting=(f"A series of {N_WINDOW} events has {{count}} landmarks spread over it. It is released with w-event "
             f"privacy, ε = {EPS:g} for any window of w = {{w}} consecutive events (ε/w at every timestamp, §2.2)."),
    question="Does this release satisfy (ε, L)-landmark privacy with |L| = {count}?",
    choices=("Yes", "No"),
    settings=(Setting("w", "Window w", (5, 10, 12, 13, 20), 10),
              Setting("count", "Landmarks |L|", (4, 9, 12, 19), 12)),
    play="w", reveal_fn=_w_event, section="§2.2 (w-event) and §3.1 (Theorem 2)",
    lab_page="schemes_utility", lab_title="Schemes & utility",
    lab_query_fn=lambda v: {"source": "synthetic", "syn_n": str(N_WINDOW),
                            "lm": encode_landmarks(window_landmarks(v["count"])), "eps": f"{EPS:g}",
                            "w": str(v["w"]), "schemes": "w-event,uniform,skip"},
    takeaway=("A window is not a landmark set: w-event privacy gives (ε, L)-landmark privacy only when w ≥ |L| + 1 "
              "— w = 10 does not cover 12 landmarks spread over the series, w = 13 does."))
