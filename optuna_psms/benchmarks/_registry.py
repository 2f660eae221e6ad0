"""Sampler factories shared by the benchmark scripts."""

from __future__ import annotations

from collections.abc import Callable
import warnings

import optuna

import optuna_psms


def _ours() -> dict[str, Callable[[int], optuna.samplers.BaseSampler]]:
    out: dict[str, Callable[[int], optuna.samplers.BaseSampler]] = {
        "pso": lambda s: optuna_psms.PSOSampler(seed=s),
        "pso_ring": lambda s: optuna_psms.PSOSampler(seed=s, topology="ring"),
    }
    lazy: dict[str, tuple[str, Callable[[int], optuna.samplers.BaseSampler]]] = {
        "pattern": ("PatternSearchSampler", lambda s: optuna_psms.PatternSearchSampler(seed=s)),
        "dfgs": (
            "FocusedGridSampler",
            lambda s: optuna_psms.FocusedGridSampler(mode="deterministic", seed=s),
        ),
        "afgs": (
            "FocusedGridSampler",
            lambda s: optuna_psms.FocusedGridSampler(mode="annealed", seed=s),
        ),
        "umda": ("UMDASampler", lambda s: optuna_psms.UMDASampler(seed=s)),
        "bumda": ("BUMDASampler", lambda s: optuna_psms.BUMDASampler(seed=s)),
        "drs": ("DynamicRandomSampler", lambda s: optuna_psms.DynamicRandomSampler(seed=s)),
        "drs_nobatch": (
            "DynamicRandomSampler",
            lambda s: optuna_psms.DynamicRandomSampler(seed=s, n_batches=None),
        ),
    }
    for key, (attr, factory) in lazy.items():
        if hasattr(optuna_psms, attr):
            out[key] = factory
    return out


def _cmaes(seed: int) -> optuna.samplers.BaseSampler:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return optuna.samplers.CmaEsSampler(seed=seed)


OURS = _ours()
BASELINES: dict[str, Callable[[int], optuna.samplers.BaseSampler]] = {
    "random": lambda s: optuna.samplers.RandomSampler(seed=s),
    "tpe": lambda s: optuna.samplers.TPESampler(seed=s),
    "cmaes": _cmaes,
}
ALL = {**BASELINES, **OURS}
