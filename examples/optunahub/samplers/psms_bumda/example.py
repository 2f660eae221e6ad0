"""BUMDASampler from OptunaHub: the Boltzmann-weighted EDA on a shifted sphere."""

from __future__ import annotations

import optuna
import optunahub


CENTRE = (0.7, -1.3, 2.1)


def shifted_sphere(trial: optuna.Trial) -> float:
    point = [trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(len(CENTRE))]
    return sum((p - c) ** 2 for p, c in zip(point, CENTRE))


module = optunahub.load_module(package="samplers/psms_bumda")
study = optuna.create_study(sampler=module.BUMDASampler(budget=20, seed=0))
study.optimize(shifted_sphere, n_trials=20)
generations = {t.user_attrs.get("psms:generation") for t in study.trials}
print(f"best {study.best_value:.3f} after {len(generations)} generation(s)")
