"""Univariate marginal distribution algorithm (UMDA) with Gaussian marginals.

The OptunaHub package of :class:`optuna_psms.UMDASampler` (``pip install optuna-psms``).
"""

from optuna_psms import load_study
from optuna_psms import UMDASampler


__all__ = ["UMDASampler", "load_study"]
