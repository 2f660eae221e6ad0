"""Pattern search as in PATSMS (Escalante, Montes & Sucar, JMLR 2009, Algorithm 2).

The OptunaHub package of :class:`optuna_psms.PatternSearchSampler` (``pip install optuna-psms``).
"""

from optuna_psms import load_study
from optuna_psms import PatternSearchSampler


__all__ = ["PatternSearchSampler", "load_study"]
