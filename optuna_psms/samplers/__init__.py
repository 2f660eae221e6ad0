"""The population samplers: each an :class:`optuna.samplers.BaseSampler` whose state lives
in the study's storage.

This wing needs only Optuna and numpy. :mod:`optuna_psms.samplers.core` holds the
Optuna-free numerical cores (one module per algorithm, readable beside its paper);
:class:`PopulationSampler` is the one adapter between a study and a core; each public module
(:mod:`~optuna_psms.samplers.pso`, :mod:`~optuna_psms.samplers.pattern`,
:mod:`~optuna_psms.samplers.grid`, :mod:`~optuna_psms.samplers.eda`,
:mod:`~optuna_psms.samplers.dynamic_random`) is one sampler family.
"""

from optuna_psms.samplers._adapter import PopulationSampler
from optuna_psms.samplers._restore import load_study
from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
from optuna_psms.samplers.eda import BUMDASampler
from optuna_psms.samplers.eda import UMDASampler
from optuna_psms.samplers.grid import FocusedGridSampler
from optuna_psms.samplers.pattern import PatternSearchSampler
from optuna_psms.samplers.pso import PSOSampler


__all__ = [
    "BUMDASampler",
    "DynamicRandomSampler",
    "FocusedGridSampler",
    "PSOSampler",
    "PatternSearchSampler",
    "PopulationSampler",
    "UMDASampler",
    "load_study",
]
