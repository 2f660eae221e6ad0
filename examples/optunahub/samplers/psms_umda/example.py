"""UMDASampler from OptunaHub, on a mixed search space."""

from __future__ import annotations

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    n = trial.suggest_int("n", 1, 10)
    kind = trial.suggest_categorical("kind", ["square", "abs"])
    return (x - 1.0) ** 2 + (n - 3) ** 2 if kind == "square" else abs(x - 1.0) + abs(n - 3)


module = optunahub.load_module(package="samplers/psms_umda")
study = optuna.create_study(sampler=module.UMDASampler(seed=0))
study.optimize(objective, n_trials=20)
print(study.best_trial.number, study.best_value, study.best_params)
