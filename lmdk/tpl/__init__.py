"""Temporal privacy loss under Markov correlation, with and without landmarks (papers/000 §2.3, §3.3; papers/004).

* :mod:`~lmdk.tpl.temporal`: BPL/FPL/TPL (Cao et al.), the landmark temporal privacy loss, temporal distance;
* :mod:`~lmdk.tpl.loss`: the loss increment L(α) of one step, transition matrices of a correlation strength;
* :mod:`~lmdk.tpl.chains`: the restarted recursions shared by the above.
"""
from lmdk.tpl.temporal import (
    CORRELATION,
    LandmarkLoss,
    LossFunction,
    TemporalDistance,
    landmark_temporal_privacy_loss,
    loss_function,
    loss_increment,
    privacy_loss_supremum,
    temporal_distance,
    temporal_privacy_loss,
    transition_matrix,
    validate_transition_matrix,
)

__all__ = [
    "CORRELATION", "LandmarkLoss", "LossFunction", "TemporalDistance", "landmark_temporal_privacy_loss",
    "loss_function", "loss_increment", "privacy_loss_supremum", "temporal_distance", "temporal_privacy_loss",
    "transition_matrix", "validate_transition_matrix",
]
