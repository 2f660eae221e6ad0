"""Random search with dynamic updating (Milletich & Asmar).

The OptunaHub package of :class:`optuna_psms.DynamicRandomSampler` (``pip install optuna-psms``).
"""

from optuna_psms import DynamicRandomSampler
from optuna_psms import load_study


__all__ = ["DynamicRandomSampler", "load_study"]
