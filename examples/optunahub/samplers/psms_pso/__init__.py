"""Particle swarm optimisation as in PSMS (Escalante, Montes & Sucar, JMLR 2009).

The OptunaHub package of :class:`optuna_psms.PSOSampler` (``pip install optuna-psms``).
"""

from optuna_psms import load_study
from optuna_psms import PSOSampler


__all__ = ["PSOSampler", "load_study"]
