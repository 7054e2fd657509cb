"""The adversary lab in words and tables: the plain headline and the tables the Audit page, the HTML report and
``lmdk audit`` share. Everything reads ``lmdk.audit.Audit.to_dict()`` output (plain data), one dict per scheme."""
from __future__ import annotations

import pandas as pd

from lmdk.present.headlines import SCHEME_NAMES

READABLE_AUC = 0.7  # from here on the headline says the landmark positions are readable


def _name(scheme: str) -> str:
    return SCHEME_NAMES.get(scheme, scheme)


def _f(value, digits: int = 2) -> str:
    return "∞" if value is None else f"{value:.{digits}f}"


def loss_headline(audits: list[dict], event: str) -> str:
    """One sentence on the empirical loss: every scheme within its claim (with the largest measured bound), or
    the schemes that leak more than they claim. The ε quoted is the total the statement promises for one event
    (ε_sel + ε of a privately selected set, ``epsilon_claimed``)."""
    if not audits:
        return ""
    eps = audits[0]["epsilon_claimed"]
    bad = [a for a in audits if a["exceeds_claim"]]
    if bad:
        worst = max(bad, key=lambda a: a["epsilon_lower"])
        names = " and ".join(", ".join(_name(a["scheme"]) for a in bad).rsplit(", ", 1))
        verb = "leaks" if len(bad) == 1 else "leak"
        # short and plain for a reader who opens the link cold (issue 35): which neighbours, the interval and the
        # other schemes are in the loss table under it
        pair = worst.get("neighbours", {}).get(worst.get("worst_neighbour") or "", {})
        claim = pair.get("epsilon_claimed", eps)
        promise = (f"ε = {eps:g}" if claim == eps else
                   f"ε = {claim:g} for those neighbours (ε = {eps:g} for one {event})")
        return (f"**{names} {verb} more than promised**: an attacker measured ε̂ ≥ {_f(worst['epsilon_lower'])}, "
                f"the promise was {promise}.")
    worst = max(audits, key=lambda a: a["epsilon_lower"] or 0.0)
    return (f"No attack broke the promise of ε = {eps:g} for one {event} (strongest: ε̂ ≥ "
            f"{_f(worst['epsilon_lower'])}, {_name(worst['scheme'])}).")


def _missing(value) -> bool:
    """None or NaN: an AUC that was not measured (no landmarks, or no regular events to rank them against)."""
    return value is None or value != value


def positions_headline(audits: list[dict]) -> str:
    """One sentence on the landmark-position attack: the most readable scheme and what dummies do to it."""
    if audits and all(not a.get("landmarks") for a in audits):
        return "There are no landmarks (|L| = 0) to find."
    measured = [a for a in audits
                if not _missing(a["landmark_inference"].get("by_dummies", {}).get("none", {}).get("auc"))]
    if not measured:
        return ""
    worst = max(measured, key=lambda a: a["landmark_inference"]["by_dummies"]["none"]["auc"])
    plain = worst["landmark_inference"]["by_dummies"]["none"]
    if plain["auc"] < READABLE_AUC:
        return f"The landmarks' positions stay hidden (best attack AUC {_f(plain['auc'])}, chance 0.50)."
    text = f"*{_name(worst['scheme'])}* lets an attacker find the landmarks (AUC {_f(plain['auc'])}, chance 0.50)"
    hidden = {m: r["auc"] for m, r in worst["landmark_inference"]["by_dummies"].items()
              if m != "none" and not _missing(r.get("auc"))}
    if hidden:
        best = min(hidden, key=hidden.__getitem__)
        text += f"; {best} dummy landmarks cut it to {_f(hidden[best])}"
    return text + "."


def headline(audits: list[dict], event: str) -> str:
    """The page's headline: the loss sentence and the position sentence (two short sentences, issue 35)."""
    return " ".join(t for t in (loss_headline(audits, event), positions_headline(audits)) if t)


def loss_table(audits: list[dict]) -> pd.DataFrame:
    """One row per scheme and neighbouring pair: claimed ε, the budget spent, measured ε̂ with its interval."""
    rows = []
    for a in audits:
        for p in a["neighbours"].values():
            rows.append({"scheme": a["scheme"], "neighbours": p["description"], "claimed ε": p["epsilon_claimed"],
                         "Σ εₜ spent": p["budget_spent"], "ε̂ lower": p["epsilon_lower"],
                         "ε̂ upper": p["epsilon_upper"] if p["epsilon_upper"] is not None else float("inf"),
                         "exceeds": (p["epsilon_lower"] or 0) > p["epsilon_claimed"]})
    return pd.DataFrame(rows)


def positions_table(audits: list[dict]) -> pd.DataFrame:
    """One row per scheme and dummy method: AUC, precision at |L|, chance, |L′| and the strongest attacker."""
    rows = []
    for a in audits:
        for method, r in a["landmark_inference"]["by_dummies"].items():
            rows.append({"scheme": a["scheme"], "dummies": method, "AUC": r.get("auc"),
                         "precision at |L|": r.get("precision_at_k"), "chance": r.get("chance"),
                         "marked |L′|": r.get("marked"), "attacker": r.get("attacker") or r.get("note", "")})
    return pd.DataFrame(rows)


def values_table(audits: list[dict]) -> pd.DataFrame:
    """One row per scheme and attacked event: the guess's success, its interval, the bound and the prior's best."""
    rows = []
    for a in audits:
        for which, v in ((a["value_inference"] or {}).get("by_event") or {}).items():
            rows.append({"scheme": a["scheme"], "event": f"{which} (t = {v['event']})", "prior": v["prior"],
                         "success": v["success"], "95 % CI": f"[{v['ci'][0]:.3f}, {v['ci'][1]:.3f}]",
                         "bound at ε": v["bound"], "bound at εₜ": v["budget_bound"], "no release": v["chance"]})
    return pd.DataFrame(rows)


def correlation_table(audits: list[dict]) -> pd.DataFrame:
    """One row per scheme: the correlated attack's success at its target and the two bounds."""
    rows = []
    for a in audits:
        c = a.get("correlation")
        if c:
            rows.append({"scheme": a["scheme"], "s": c["s"], "event": c["event"], "success": c["success"],
                         "95 % CI": f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]", "TPL α": c["tpl"],
                         "bound (TPL)": c["bound_tpl"], "bound without correlation": c["bound_no_correlation"]})
    return pd.DataFrame(rows)
