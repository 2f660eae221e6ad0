"""Factories of every population sampler of the package, for parametrised tests."""

from __future__ import annotations

from typing import Any

import optuna

import optuna_psms


def _factories() -> dict[str, Any]:
    out: dict[str, Any] = {"pso": lambda **kw: optuna_psms.PSOSampler(**kw)}
    extra = {
        "pso_ring": lambda **kw: optuna_psms.PSOSampler(topology="ring", **kw),
        "pattern": lambda **kw: optuna_psms.PatternSearchSampler(**kw),
        "dfgs": lambda **kw: optuna_psms.FocusedGridSampler(mode="deterministic", **kw),
        "afgs": lambda **kw: optuna_psms.FocusedGridSampler(mode="annealed", **kw),
        "umda": lambda **kw: optuna_psms.UMDASampler(**kw),
        "bumda": lambda **kw: optuna_psms.BUMDASampler(**kw),
        "drs": lambda **kw: optuna_psms.DynamicRandomSampler(**kw),
    }
    needs = {
        "pso_ring": "PSOSampler",
        "pattern": "PatternSearchSampler",
        "dfgs": "FocusedGridSampler",
        "afgs": "FocusedGridSampler",
        "umda": "UMDASampler",
        "bumda": "BUMDASampler",
        "drs": "DynamicRandomSampler",
    }
    for key, factory in extra.items():
        if hasattr(optuna_psms, needs[key]):
            out[key] = factory
    return out


SAMPLERS: dict[str, Any] = _factories()


def make(name: str, **kwargs: Any) -> optuna.samplers.BaseSampler:
    sampler: optuna.samplers.BaseSampler = SAMPLERS[name](**kwargs)
    return sampler
