"""UMDASampler from OptunaHub: a Gaussian EDA with a constraint (Deb's feasibility rules)."""

from __future__ import annotations

import optuna
import optunahub


def cost(trial: optuna.Trial) -> float:
    width = trial.suggest_float("width", 0.1, 10.0)
    height = trial.suggest_float("height", 0.1, 10.0)
    trial.set_user_attr("constraint", [20.0 - width * height])  # feasible: area >= 20
    return 2.0 * (width + height)


def constraints(trial: optuna.trial.FrozenTrial) -> list[float]:
    return list(trial.user_attrs["constraint"])


module = optunahub.load_module(package="samplers/psms_umda")
sampler = module.UMDASampler(population_size=5, seed=0, constraints_func=constraints)
study = optuna.create_study(sampler=sampler)
study.optimize(cost, n_trials=20)
feasible = [t for t in study.trials if t.user_attrs["constraint"][0] <= 0.0]
best = min(t.values[0] for t in feasible)
print(f"{len(feasible)} of 20 feasible; best perimeter {best:.3f} (optimum 17.889)")
