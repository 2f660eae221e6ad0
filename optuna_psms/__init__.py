"""optuna-psms: population-based samplers and full model selection for Optuna.

The samplers import only Optuna and numpy. The full-model-selection names
(:class:`FullModelSelector`, :class:`FullModelRegressor`, :class:`FullModelSpace`,
:class:`RegressionSpace`, :class:`Component`, :func:`make_objective`, from
:mod:`optuna_psms.fms`) are loaded on first use, so that importing a sampler does not
import scikit-learn and XGBoost.
"""

from __future__ import annotations

from typing import Any
from typing import TYPE_CHECKING

from optuna_psms._adapter import PopulationSampler
from optuna_psms._dynamic_random import DynamicRandomSampler
from optuna_psms._eda import BUMDASampler
from optuna_psms._eda import UMDASampler
from optuna_psms._grid import FocusedGridSampler
from optuna_psms._pattern import PatternSearchSampler
from optuna_psms._pso import PSOSampler


if TYPE_CHECKING:
    from optuna_psms.fms import Component
    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import make_objective
    from optuna_psms.fms import RegressionSpace

__version__ = "0.1.0"

_FMS_NAMES = (
    "Component",
    "FullModelRegressor",
    "FullModelSelector",
    "FullModelSpace",
    "RegressionSpace",
    "make_objective",
)

__all__ = [
    "BUMDASampler",
    "Component",
    "DynamicRandomSampler",
    "FocusedGridSampler",
    "FullModelRegressor",
    "FullModelSelector",
    "FullModelSpace",
    "PSOSampler",
    "PatternSearchSampler",
    "PopulationSampler",
    "RegressionSpace",
    "UMDASampler",
    "__version__",
    "make_objective",
]


def __getattr__(name: str) -> Any:
    if name in _FMS_NAMES:
        from optuna_psms import fms

        return getattr(fms, name)
    raise AttributeError(f"module 'optuna_psms' has no attribute {name!r}")
