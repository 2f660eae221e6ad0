"""DynamicRandomSampler from OptunaHub: random search that narrows around its incumbent."""

from __future__ import annotations

import optuna
import optunahub


def network_loss(trial: optuna.Trial) -> float:
    layers = trial.suggest_int("layers", 1, 6)
    width = trial.suggest_int("width", 16, 512, log=True)
    activation = trial.suggest_categorical("activation", ["relu", "tanh", "gelu"])
    dropout = trial.suggest_float("dropout", 0.0, 0.5)
    bonus = {"relu": 0.0, "tanh": 0.05, "gelu": -0.01}[activation]
    return abs(layers - 3) * 0.1 + abs(width - 128) / 512 + (dropout - 0.2) ** 2 + bonus


module = optunahub.load_module(package="samplers/psms_dynamic_random")
study = optuna.create_study(sampler=module.DynamicRandomSampler(batch_size=5, seed=0))
study.optimize(network_loss, n_trials=20)
print(f"best loss {study.best_value:.4f}: {study.best_params}")
