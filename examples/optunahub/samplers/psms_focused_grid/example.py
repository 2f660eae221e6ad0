"""FocusedGridSampler from OptunaHub: annealed focused grid search (AFGS) on Branin."""

from __future__ import annotations

import math

import optuna
import optunahub


def branin(trial: optuna.Trial) -> float:
    x1 = trial.suggest_float("x1", -5.0, 10.0)
    x2 = trial.suggest_float("x2", 0.0, 15.0)
    b, c = 5.1 / (4 * math.pi**2), 5 / math.pi
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


module = optunahub.load_module(package="samplers/psms_focused_grid")
# mode="deterministic" is DFGS; "annealed" (AFGS) accepts worse focus points early on.
study = optuna.create_study(sampler=module.FocusedGridSampler(mode="annealed", budget=20, seed=0))
study.optimize(branin, n_trials=20)
print(f"Branin: {study.best_value:.3f} (global minimum 0.398) at {study.best_params}")
