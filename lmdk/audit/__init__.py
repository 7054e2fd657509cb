"""The adversary lab: what an attacker learns from a policy's releases (empirical ε, landmark positions, values,
correlation), measured by releasing a series and its neighbours many times.

* :mod:`~lmdk.audit.run`: ``audit`` — the whole experiment for one scheme, and its JSON;
* :mod:`~lmdk.audit.loss`: Clopper–Pearson bounds of the privacy loss from two samples of a statistic;
* :mod:`~lmdk.audit.neighbours`: the audited neighbours and the likelihood-ratio statistic;
* :mod:`~lmdk.audit.group`: the group neighbours of a privately selected landmark set (claimed ε + k·ε_sel);
* :mod:`~lmdk.audit.positions`: the landmark-position attack (ROC AUC, precision at |L|);
* :mod:`~lmdk.audit.values`: the Bayesian value guess against e^ε/(1+e^ε);
* :mod:`~lmdk.audit.correlation`: the attack on a correlated series next to its temporal privacy loss;
* :mod:`~lmdk.audit.rows`: ``schemes.release`` with one series per repetition.
"""
from lmdk.audit.loss import LossEstimate, clopper_pearson, empirical_epsilon
from lmdk.audit.run import DUMMY_METHODS, VIEW_SEED, Audit, PairResult, audit

__all__ = ["Audit", "DUMMY_METHODS", "LossEstimate", "PairResult", "VIEW_SEED", "audit", "clopper_pearson",
           "empirical_epsilon"]
