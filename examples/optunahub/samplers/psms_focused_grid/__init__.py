"""Focused grid search (Barbero, López & Dorronsoro, Neurocomputing 2009).

The OptunaHub package of :class:`optuna_psms.FocusedGridSampler` (``pip install optuna-psms``).
"""

from optuna_psms import FocusedGridSampler
from optuna_psms import load_study


__all__ = ["FocusedGridSampler", "load_study"]
