"""PSOSampler from OptunaHub: a swarm over an SVM-like mixed space, sized by the budget."""

from __future__ import annotations

import math

import optuna
import optunahub


def validation_error(trial: optuna.Trial) -> float:
    log_c = math.log10(trial.suggest_float("C", 1e-3, 1e3, log=True))
    log_gamma = math.log10(trial.suggest_float("gamma", 1e-4, 1e1, log=True))
    kernel = trial.suggest_categorical("kernel", ["rbf", "linear"])
    penalty = 0.0 if kernel == "rbf" else 0.1
    return 0.05 + 0.01 * ((log_c - 1.0) ** 2 + (log_gamma + 2.0) ** 2) + penalty


module = optunahub.load_module(package="samplers/psms_pso")
# budget: the swarm's size and iterations are chosen for 20 trials.
study = optuna.create_study(sampler=module.PSOSampler(budget=20, seed=0))
study.optimize(validation_error, n_trials=20)
print(f"best error {study.best_value:.4f} with {study.best_params}")
