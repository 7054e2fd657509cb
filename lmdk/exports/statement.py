"""The guarantee an export gives, in words a privacy officer can sign: what is protected, what is not, how.

Every export carries it (CSV comment lines, Parquet metadata, the CLI's JSON summary, HTML reports, the app
next to its downloads), built from the same facts as the release itself: the neighbouring relation
(:mod:`lmdk.relation`), the scheme and its Theorem 2 verdict, the mechanism and the sampler.
"""
from __future__ import annotations

from dataclasses import dataclass

from lmdk.schemes import LANDMARK_SCHEMES

SAMPLER_PROOFS = {
    "discrete": ("exact discrete Laplace on a 2^k grid (Canonne, Kamath & Steinke 2020, Alg. 2), drawn from integer "
                 "uniforms only; values clamped to the public range and rounded to the grid, so the proof holds at "
                 "every scale and the output's low bits carry nothing"),
    "snapping": ("planar Laplace from full-precision uniforms, snapped to a 2^k grid inside the public box "
                 "(Mironov 2012's snapping; his theorem is one-dimensional, the planar version's bound is not "
                 "proven here — only that the grid hides the low bits)"),
    "randomized_response": ("randomized response with its flip decided by a full-precision uniform "
                            "(the flip probability 1/(1+e^ε) is exact to a double's precision)"),
    "textbook": "the textbook floating-point sampler (a demonstration: its low bits can leak, Mironov 2012)",
}


@dataclass(frozen=True)
class Guarantee:
    """The signed statement of one export: protected, not protected, sampler, and the full text."""

    protected: str
    not_protected: tuple[str, ...]
    sampler: str
    relation: str
    landmark_set: str = ""  # which kind of landmark set the release used (declared, privately selected, data-derived)
    warning: str = ""  # said before anything else: a data-derived landmark set exported unprotected
    public: tuple[str, ...] = ()  # what the release treats as public by construction (aggregates: N, groups, K)
    scheme: str = ""  # the scheme the statement describes, in words ("the Skip scheme")

    def text(self) -> str:
        """The statement as one paragraph."""
        first = f"NOT PROTECTED: {self.warning}. " if self.warning else ""
        under = f"Released under {self.scheme}. " if self.scheme else ""
        landmarks = f" Landmark set: {self.landmark_set}." if self.landmark_set else ""
        public = f" Public: {'; '.join(self.public)}." if self.public else ""
        return (f"{first}{under}Protected: {self.protected}. Not protected: {'; '.join(self.not_protected)}."
                f"{public}{landmarks} Sampler: {self.sampler}.")

    def lines(self) -> list[str]:
        """The statement as short lines (CSV comment lines, report paragraphs)."""
        first = [f"NOT PROTECTED: {self.warning}."] if self.warning else []
        first += [f"Released under {self.scheme}."] if self.scheme else []
        landmarks = [f"Landmark set: {self.landmark_set}."] if self.landmark_set else []
        return [*first, f"Protected: {self.protected}.", *(f"Not protected: {n}." for n in self.not_protected),
                *(f"Public: {p}." for p in self.public), *landmarks, f"Sampler: {self.sampler}.",
                f"Neighbouring relation: {self.relation}."]

    def to_dict(self) -> dict:
        """JSON-ready (the CLI's summary, the population's aggregates, the ledger)."""
        out = {"scheme": self.scheme, "protected": self.protected, "not_protected": list(self.not_protected),
               "sampler": self.sampler,
               "relation": self.relation, "landmark_set": self.landmark_set, "warning": self.warning,
               "text": self.text()}
        if self.public:
            out["public"] = list(self.public)
        return out


SCHEME_WORDS = {"uniform": "the Uniform scheme", "skip": "the Skip scheme", "adaptive": "the Adaptive scheme",
                "user": "user-level privacy", "event": "event-level privacy", "w-event": "w-event privacy"}
"""How a statement names the scheme it describes ("Released under the Skip scheme")."""
REVEAL = {"skip": " (Skip repeats the previous value at every landmark)",
          "uniform": " (Uniform's budget ε/(|L| + 1) reveals how many there are)",
          "adaptive": " (Adaptive spends and skips differently around landmarks)"}
"""Per landmark scheme, what in its output can reveal where the landmarks are."""


def scheme_words(scheme: str, w: int | None = None) -> str:
    """The scheme a statement describes, in words: "the Skip scheme", "w-event privacy (w = 12)", or a baseline's
    title with its level."""
    if scheme in ("bd", "ba", "fast", "pegasus"):
        from lmdk.baselines import LEVEL, TITLES

        return f"{TITLES[scheme]} ({SCHEME_WORDS.get(LEVEL[scheme], LEVEL[scheme])})"
    words = SCHEME_WORDS.get(scheme, f"the {scheme} scheme")
    return f"{words} (w = {w})" if scheme == "w-event" and w is not None else words


def _changed_value(relation, event: str) -> tuple[str, str]:
    """(whose value a landmark flip exposes, the change that leaves the landmark set alone), in the relation's words:
    "the value of any hour" of one series; "any one household's reading at any hour" of an aggregate."""
    if getattr(relation, "kind", None) == "aggregate":
        who = f"any one {relation.who}"
        return f"{who}'s reading at any {event}", f"a change of {who}'s readings"
    return f"the value of any {event}", f"a change of one {event}'s value"


def _landmark_words(landmark_set, epsilon: float, event: str, relation=None) -> tuple[str, str, str]:
    """(kind, the 'Landmark set' line, the first warning) of a :class:`lmdk.selection.export.LandmarkSource` (None:
    a set given by the caller, taken as declared)."""
    kind = getattr(landmark_set, "kind", None)
    rule = getattr(landmark_set, "rule", None)
    named = f" ({rule})" if rule else ""
    if kind == "private":
        sel = float(landmark_set.selection_epsilon)
        return kind, (f"selected privately from these values{named} at ε_sel = {sel:g} (lmdk.selection.private: "
                      f"randomized response per {event}, after a private threshold for percentile and share), "
                      f"included in the total ε = {epsilon + sel:g} = ε_sel {sel:g} + release {epsilon:g}; the "
                      "selected set is itself an output"), ""
    if kind == "unprotected":
        return kind, (f"computed from these values{named} and exported anyway (--allow-data-landmarks): not "
                      "selected privately, not declared"), (
            f"{_changed_value(relation, event)[0]} whose landmark status could change{named} is not protected at ε = "
            f"{epsilon:g} — the landmarks were computed from the values being released, and one value moved across "
            "the rule's threshold changes the landmark set, which budgets and repeated values reveal")
    if kind == "declared":
        return kind, (f"declared in advance{named}: it does not read the values, so Theorem 2 holds as stated"), ""
    return "given", "", ""


def guarantee(relation, scheme: str, epsilon: float, *, landmarks: int | None, sampler: str, event: str = "event",
              w: int | None = None, satisfies: bool = True, dummies: bool = False,
              selection_epsilon: float = 0.0, landmark_set=None) -> Guarantee:
    """The statement of a release of ``scheme`` at total ε under ``relation`` with ``landmarks`` landmarks (None:
    each user of a population has their own landmark set). ``landmark_set``: how the landmarks were obtained (a
    :class:`lmdk.selection.export.LandmarkSource`): declared, privately selected (its ε_sel adds to ε and Theorem 2
    is restated for a selected set) or data-derived and unprotected (said first; no value-level ε is claimed)."""
    source_kind, landmark_line, warning = _landmark_words(landmark_set, float(epsilon), event, relation)
    named_scheme = scheme_words(scheme, w)
    release_epsilon = float(epsilon)
    if source_kind == "private":
        epsilon = release_epsilon + float(landmark_set.selection_epsilon)
    what = relation.protects(event)
    plural = f"{event}s"
    baseline = None
    if scheme in ("bd", "ba", "fast", "pegasus"):  # lmdk.baselines: stated at their own level, not landmark-aware
        from lmdk.baselines import LEVEL, TITLES

        baseline, scheme = TITLES[scheme], LEVEL[scheme]
    count = f"{landmarks:,} " if landmarks is not None else ""
    whose = "" if landmarks is not None else " of each user"
    landmarks = 1 if landmarks is None else landmarks
    eps = f"ε = {epsilon:g}"
    if scheme == "user":
        protected = f"{what}, and all {plural} of the series together, at {eps} (user level)"
    elif scheme == "event":
        protected = f"{what}, each {event} on its own at {eps} (event level)"
    elif scheme == "w-event":
        protected = f"{what}; any {w} consecutive {plural} together at {eps} (w-event level)"
    else:
        protected = f"{what}, at {eps}"
    if source_kind == "unprotected":  # no value-level claim: a change across the rule's threshold is not covered
        protected = (f"only {_changed_value(relation, event)[1]} that leaves every {event}'s landmark status as it "
                     f"is ({scheme} level, ε = {release_epsilon:g})")
    elif source_kind == "private":
        protected += (f" (landmark selection ε_sel = {float(landmark_set.selection_epsilon):g} + release "
                      f"{release_epsilon:g}; several {plural} changed together add the selection's ε_sel = "
                      f"{float(landmark_set.selection_epsilon):g} per {event})")
    if baseline is not None:
        protected += f" by {baseline}, which does not use the landmark set"
    not_protected = []
    if scheme in LANDMARK_SCHEMES or scheme == "user":
        if satisfies and landmarks and source_kind == "private":
            from lmdk.selection.private import group_words

            group = group_words(release_epsilon, float(landmark_set.selection_epsilon),
                                landmarks if count else None, event)
            protected += (f"; all {count}selected landmark {plural}{whose} together with any one other {event} "
                          f"at {group}")
        elif satisfies and landmarks and source_kind != "unprotected" and relation.kind == "aggregate":
            protected += (f"; {relation.aggregate_protects(event, epsilon, landmarks)} ((ε, L)-landmark privacy, "
                          "Theorem 2, on the aggregate stream)")
        elif satisfies and landmarks and source_kind != "unprotected":
            protected += (f"; all {count}landmark {plural}{whose} together with any one other {event} at {eps} "
                          "((ε, L)-landmark privacy, Theorem 2)")
        elif landmarks and source_kind == "unprotected":
            not_protected.append(f"the {count}landmark {plural}{whose} together: Theorem 2 takes the landmark set as "
                                 "fixed in advance, and this one was computed from their values")
        elif landmarks:
            not_protected.append(f"the {count}landmark {plural}{whose} together: this release violates Theorem 2")
    elif landmarks:
        not_protected.append(f"the {count}landmark {plural}{whose} together: {scheme}-level privacy spends ε per "
                             f"{event}, so k landmarks together are protected only at k·ε")
    if landmarks and scheme != "user" and baseline is None:  # a baseline's budgets do not depend on L
        hide = ("dummy landmarks hide them among L′ (the selection's own ε is "
                f"{selection_epsilon:g}, included in {eps})" if dummies else "no dummy landmarks hide them")
        not_protected.append(f"which {plural} are landmarks: budgets and repeated values{REVEAL.get(scheme, '')} can "
                             f"reveal their positions; {hide}")
    if source_kind == "given":
        not_protected.append("a landmark set chosen by looking at these values: landmark privacy takes the set as "
                             "given by the policy")
    if relation.kind == "up_to":
        not_protected.append(f"changes larger than {relation.d:g} {relation.unit}".rstrip() +
                             ": a change of c units is protected only at c/d·ε")
    if relation.kind == "radius":
        not_protected.append(f"moves farther than {relation.d:g} m: a move of c metres is protected only at "
                             f"c/{relation.d:g}·ε")
    not_protected.append("other releases of the same data: each export spends ε again (see the ledger)")
    public = relation.aggregate_said() if relation.kind == "aggregate" else ()
    return Guarantee(protected=protected, not_protected=tuple(not_protected),
                     sampler=SAMPLER_PROOFS.get(sampler, sampler), relation=relation.label(),
                     landmark_set=landmark_line, warning=warning, public=public, scheme=named_scheme)
