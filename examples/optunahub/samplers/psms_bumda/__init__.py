"""Boltzmann univariate marginal distribution algorithm (BUMDA).

The OptunaHub package of :class:`optuna_psms.BUMDASampler` (``pip install optuna-psms``).
"""

from optuna_psms import BUMDASampler
from optuna_psms import load_study


__all__ = ["BUMDASampler", "load_study"]
