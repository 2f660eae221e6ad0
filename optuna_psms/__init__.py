"""optuna-psms: population-based samplers and full model selection for Optuna.

The samplers import only Optuna and numpy (``pip install optuna-psms``). The
full-model-selection names (:class:`FullModelSelector`, :class:`FullModelSpace`,
:class:`FullModelRegressor`, :class:`RegressionSpace`, :class:`Component`,
:func:`make_objective`, from :mod:`optuna_psms.fms`) need the ``fms``
extra (``pip install 'optuna-psms[fms]'``). Every name is loaded on first use, so that
importing a sampler does not import scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optuna_psms import _extras
from optuna_psms import _lazy
from optuna_psms import _moved
from optuna_psms.samplers import __all__ as _samplers_all


_moved.install()


if TYPE_CHECKING:
    from optuna_psms.fms import Component
    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import make_objective
    from optuna_psms.fms import RegressionSpace
    from optuna_psms.samplers._adapter import PopulationSampler
    from optuna_psms.samplers._restore import load_study
    from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
    from optuna_psms.samplers.eda import BUMDASampler
    from optuna_psms.samplers.eda import UMDASampler
    from optuna_psms.samplers.grid import FocusedGridSampler
    from optuna_psms.samplers.pattern import PatternSearchSampler
    from optuna_psms.samplers.pso import PSOSampler

__version__ = "0.1.0"

# Every public name is imported on first use: ``import optuna_psms`` (and the CLI's
# ``--help``) stays fast, and the sampler names never import scikit-learn.
_LAZY = {
    **{name: "optuna_psms.samplers" for name in _samplers_all},
    "Component": "optuna_psms.fms",
    "FullModelRegressor": "optuna_psms.fms",
    "FullModelSelector": "optuna_psms.fms",
    "FullModelSpace": "optuna_psms.fms",
    "RegressionSpace": "optuna_psms.fms",
    "make_objective": "optuna_psms.fms",
}

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
    "load_study",
    "make_objective",
]
if _extras.missing("fms"):  # the core alone: `from optuna_psms import *` gives the samplers
    __all__ = [n for n in __all__ if _LAZY.get(n) != "optuna_psms.fms"]


__getattr__, __dir__ = _lazy.attach("optuna_psms", globals(), _LAZY, __all__)
