"""PatternSearchSampler from OptunaHub: compass steps on the Rosenbrock valley."""

from __future__ import annotations

import optuna
import optunahub


def rosenbrock(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    y = trial.suggest_float("y", -1.0, 3.0)
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


module = optunahub.load_module(package="samplers/psms_pattern_search")
sampler = module.PatternSearchSampler(initial_step=0.25, budget=20, seed=0)
study = optuna.create_study(sampler=sampler)
study.optimize(rosenbrock, n_trials=20)
best = study.best_trial
print(f"trial {best.number}: {best.value:.4g} at {best.params} (the minimum: 0 at x=y=1)")
