"""The RunConfig of the current view and its upload: what a saved configuration holds and how it is restored."""
from __future__ import annotations

import streamlit as st

from ui.session import plan_target, relation
from ui.session.state import (
    AGGREGATE,
    AGGREGATE_HOW,
    CONFIG_ERROR,
    CONFIG_NOTE,
    CONFIG_UPLOAD,
    DATA_DERIVED_ORIGINS,
    EPSILON,
    IMPORT_SPEC,
    LANDMARKS,
    LANDMARKS_ORIGIN,
    LANDMARKS_TOKEN,
    LAST_EDIT,
    LENGTH,
    MECHANISM,
    N_MAX,
    N_MIN,
    REPETITIONS,
    REPETITIONS_MAX,
    REPS_CHOSEN,
    SAMPLE,
    SCHEME_NAMES,
    SCHEMES,
    SEED,
    SEED_MAX,
    SERIES_UPLOAD,
    SOURCE,
    START,
    W_MAX,
    W,
    current,
    nearest_epsilon,
)


def run_config(cur):
    """The lmdk.exports.RunConfig of the current view (data reference, landmarks, scheme settings)."""
    from lmdk.exports.runconfig import RunConfig, sample_reference

    ss = st.session_state
    mapping = None
    if ss[SOURCE] == "sample":
        data_ref = sample_reference(ss[SAMPLE])
    elif ss[SOURCE] == "upload" and ss.get(SERIES_UPLOAD) is not None:  # the file's hash and how it was read
        data_ref = "sha256:" + ss[SERIES_UPLOAD].source_hash
        mapping = ss[IMPORT_SPEC].to_dict() if ss.get(IMPORT_SPEC) is not None else None
    else:  # a synthetic series: its content hash
        data_ref = "sha256:" + cur.series.source_hash
    view = None
    if getattr(cur, "start", 0) or getattr(cur, "aggregation", None) is not None:  # which events of the data
        aggregation = cur.aggregation or (None, None)
        view = {"start": int(cur.start), "aggregate": aggregation[0], "how": aggregation[1]}
    schemes = tuple(ss[SCHEMES]) or SCHEME_NAMES
    protected = relation.current(cur)
    return RunConfig(data=data_ref, events=cur.n, landmarks=tuple(int(i) for i in cur.landmarks), schemes=schemes,
                     mechanism=ss[MECHANISM], epsilon=float(ss[EPSILON]), w=min(int(ss[W]), cur.n),
                     repetitions=int(ss[REPETITIONS]), seed=int(ss[SEED]), mapping=mapping,
                     relation=protected.to_dict() if protected is not None else None, target=plan_target.target_dict(),
                     view=view, landmark_origin=_origin(ss.get(LANDMARKS_ORIGIN)))


def _origin(origin) -> str:
    """The session's landmark origin as a RunConfig records it: "data", "viewed" or "declared"."""
    return origin if origin in DATA_DERIVED_ORIGINS else "declared"


def load_run_config() -> None:
    """Callback of the RunConfig upload: validate it and apply it to the session (errors go to CONFIG_ERROR)."""
    from lmdk.exports.runconfig import RunConfig

    ss = st.session_state
    ss[CONFIG_ERROR] = ss[CONFIG_NOTE] = None
    file = ss.get(CONFIG_UPLOAD)
    if file is None:
        return
    try:
        cfg = RunConfig.from_json(file.getvalue())
    except ValueError as exc:
        ss[CONFIG_ERROR] = f"This RunConfig is not valid: {exc}"
        return
    if cfg.data.startswith("sample:"):
        name = cfg.data.split(":")[1]
        ss[SOURCE], ss[SAMPLE], ss[LENGTH] = "sample", name, max(N_MIN, min(N_MAX, cfg.events))
    elif ss.get(SERIES_UPLOAD) is None or ss[SERIES_UPLOAD].source_hash != cfg.data[len("sha256:"):]:
        ss[CONFIG_ERROR] = ("This RunConfig refers to other data (content hash differs): load or upload the same "
                            "series first, then the config.")
        return
    else:
        ss[LENGTH] = max(N_MIN, min(N_MAX, cfg.events))
    view = cfg.view or {"start": 0, "aggregate": None, "how": None}  # the window / aggregation of the data
    ss[START], ss[AGGREGATE], ss[AGGREGATE_HOW] = view["start"], view["aggregate"] or "none", view["how"]
    ss[SCHEMES] = list(cfg.schemes)
    ss[EPSILON] = nearest_epsilon(cfg.epsilon)
    if cfg.w is not None:
        ss[W] = min(cfg.w, W_MAX)
    ss[REPETITIONS] = max(1, min(REPETITIONS_MAX, cfg.repetitions))
    ss[REPS_CHOSEN] = True  # the config's repetitions, not the long-series default
    ss[SEED] = min(cfg.seed, SEED_MAX)
    ss[LANDMARKS] = tuple(cfg.landmarks)
    ss[LANDMARKS_ORIGIN] = cfg.origin  # as the config says; a config that does not say: "viewed" (issue 53)
    ss[LANDMARKS_TOKEN] = "url"  # re-attached (and range-checked) to the series on the next run
    notes = []
    if ss[EPSILON] != cfg.epsilon:
        notes.append(f"ε {cfg.epsilon:g} is not on the slider: using {ss[EPSILON]:g}, the nearest value")
    if ss[REPETITIONS] != cfg.repetitions:
        notes.append(f"repetitions capped at {REPETITIONS_MAX}")
    kind_mechanism = {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}
    cur = current()
    if cur is not None and kind_mechanism[cur.series.kind] != cfg.mechanism:
        notes.append(f"the mechanism follows the kind of series: {kind_mechanism[cur.series.kind]}, not the "
                     f"config's {cfg.mechanism}")
    if cfg.s is not None:
        notes.append(f"the correlation strength s = {cfg.s:g} is set on the Temporal privacy loss page, not restored")
    if cfg.landmark_origin is None:
        notes.append("it does not say how its landmarks were marked, so they are treated as marked while viewing the "
                     "values (a release to hand out starts with NOT PROTECTED and needs the tick); if they were "
                     "declared in advance, confirm it on the command line: `lmdk release --config runconfig.json "
                     "--declared-landmarks` (the statement records it)")
    note = relation.restore(cfg)
    plan_target.restore(cfg)
    if note:
        notes.append(note)
    ss[LAST_EDIT] = "RunConfig loaded" + (f" ({'; '.join(notes)})" if notes else "") + "."
    ss[CONFIG_NOTE] = "; ".join(notes) or None
