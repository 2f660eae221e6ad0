"""The population samplers: each an :class:`optuna.samplers.BaseSampler` whose state lives
in the study's storage.

This wing needs only Optuna and numpy. :mod:`optuna_psms.samplers.core` holds the
Optuna-free numerical cores (one module per algorithm, readable beside its paper);
:class:`PopulationSampler` is the one adapter between a study and a core; each public module
(:mod:`~optuna_psms.samplers.pso`, :mod:`~optuna_psms.samplers.pattern`,
:mod:`~optuna_psms.samplers.grid`, :mod:`~optuna_psms.samplers.eda`,
:mod:`~optuna_psms.samplers.dynamic_random`) is one sampler family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optuna_psms import _lazy


if TYPE_CHECKING:
    from optuna_psms.samplers._adapter import PopulationSampler
    from optuna_psms.samplers._restore import load_study
    from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
    from optuna_psms.samplers.eda import BUMDASampler
    from optuna_psms.samplers.eda import UMDASampler
    from optuna_psms.samplers.grid import FocusedGridSampler
    from optuna_psms.samplers.pattern import PatternSearchSampler
    from optuna_psms.samplers.pso import PSOSampler

# Imported on first use: the registry and the identities are read without Optuna.
_LAZY = {
    "PopulationSampler": "optuna_psms.samplers._adapter",
    "load_study": "optuna_psms.samplers._restore",
    "DynamicRandomSampler": "optuna_psms.samplers.dynamic_random",
    "BUMDASampler": "optuna_psms.samplers.eda",
    "UMDASampler": "optuna_psms.samplers.eda",
    "FocusedGridSampler": "optuna_psms.samplers.grid",
    "PatternSearchSampler": "optuna_psms.samplers.pattern",
    "PSOSampler": "optuna_psms.samplers.pso",
}

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


__getattr__, __dir__ = _lazy.attach("optuna_psms.samplers", globals(), _LAZY, __all__)
