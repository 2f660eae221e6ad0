"""Samplers by name: the one table behind ``optuna-psms select --sampler``,
:func:`optuna_psms.fms.make_sampler`, the benchmark scripts and the tests.

It imports only the sampler modules (Optuna and numpy), never scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable

import optuna

from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
from optuna_psms.samplers.eda import BUMDASampler
from optuna_psms.samplers.eda import UMDASampler
from optuna_psms.samplers.grid import FocusedGridSampler
from optuna_psms.samplers.pattern import PatternSearchSampler
from optuna_psms.samplers.pso import PSOSampler


Factory = Callable[[int | None], optuna.samplers.BaseSampler]

#: Optuna's own samplers, the baselines.
BASELINES: dict[str, Factory] = {
    "random": lambda seed: optuna.samplers.RandomSampler(seed=seed),
    "tpe": lambda seed: optuna.samplers.TPESampler(seed=seed),
    "cmaes": lambda seed: optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False),
}

#: This package's samplers with their papers' defaults, plus two documented variants.
OURS: dict[str, Factory] = {
    "pso": lambda seed: PSOSampler(seed=seed),
    "pso_ring": lambda seed: PSOSampler(seed=seed, topology="ring"),
    "pattern": lambda seed: PatternSearchSampler(seed=seed),
    "dfgs": lambda seed: FocusedGridSampler(mode="deterministic", seed=seed),
    "afgs": lambda seed: FocusedGridSampler(mode="annealed", seed=seed),
    "umda": lambda seed: UMDASampler(seed=seed),
    "bumda": lambda seed: BUMDASampler(seed=seed),
    "drs": lambda seed: DynamicRandomSampler(seed=seed),
    "drs_nobatch": lambda seed: DynamicRandomSampler(seed=seed, n_batches=None),
}

SAMPLERS: dict[str, Factory] = {**OURS, **BASELINES}


def make_sampler(name: str, seed: int | None = None) -> optuna.samplers.BaseSampler:
    """The sampler called ``name`` (case-insensitive), seeded with ``seed``.

    Raises:
        ValueError: ``name`` is not in :data:`SAMPLERS`.
    """
    key = name.lower()
    if key not in SAMPLERS:
        from optuna_psms._names import did_you_mean

        hint = did_you_mean(name, SAMPLERS)
        raise ValueError(f"unknown sampler {name!r}; {hint}choose one of {', '.join(SAMPLERS)}.")
    return SAMPLERS[key](seed)
