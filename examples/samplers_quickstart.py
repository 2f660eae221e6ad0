"""
Every sampler on one objective
==============================

Every optuna-psms sampler on one conditional objective, beside Optuna's random search.

Run: python examples/samplers_quickstart.py
"""

from __future__ import annotations

import math

import optuna

import optuna_psms


def objective(trial: optuna.Trial) -> float:
    # A conditional space in the spirit of PSMS: a model choice with its own hyperparameters.
    model = trial.suggest_categorical("model", ["linear", "kernel"])
    if model == "linear":
        return 0.2 + (trial.suggest_float("alpha", 1e-4, 1e2, log=True) - 1.0) ** 2 / 1e4
    c = trial.suggest_float("C", 1e-3, 1e3, log=True)
    gamma = trial.suggest_float("gamma", 1e-4, 1e1, log=True)
    return 0.05 + 0.01 * (math.log10(c) - 1) ** 2 + 0.01 * (math.log10(gamma) + 2) ** 2


SAMPLERS = {
    "random": lambda: optuna.samplers.RandomSampler(seed=0),
    "pso": lambda: optuna_psms.PSOSampler(seed=0),
    "pattern": lambda: optuna_psms.PatternSearchSampler(seed=0),
    "dfgs": lambda: optuna_psms.FocusedGridSampler(mode="deterministic", seed=0),
    "afgs": lambda: optuna_psms.FocusedGridSampler(mode="annealed", seed=0),
    "umda": lambda: optuna_psms.UMDASampler(seed=0),
    "bumda": lambda: optuna_psms.BUMDASampler(seed=0),
    "drs": lambda: optuna_psms.DynamicRandomSampler(seed=0),
}

if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for name, make in SAMPLERS.items():
        study = optuna.create_study(sampler=make())
        study.optimize(objective, n_trials=200)
        print(f"{name:8} best {study.best_value:.4f}  {study.best_params}")
