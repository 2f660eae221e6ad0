"""
Full model selection
====================

Full model selection on the breast-cancer set, comparing two samplers on one objective.

Run: ``python examples/full_model_selection.py`` (about a minute).
"""

from __future__ import annotations

import optuna
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from optuna_psms.fms import balanced_error_rate
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms.selector import default_sampler_name


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

    # 1. The objective alone: any Optuna sampler can search the same full-model space.
    objective = make_objective(X_tr, y_tr, cv=2, random_state=0)
    for sampler in [optuna.samplers.TPESampler(seed=0), optuna.samplers.RandomSampler(seed=0)]:
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=30)
        best = study.best_trial
        print(
            f"{type(sampler).__name__:>14}: CV BER {best.value:.4f}  "
            f"{best.user_attrs['fms:pipeline']}"
        )

    # 2. The scikit-learn estimator: search, refit the best pipeline, predict.
    space = FullModelSpace(classifiers=["svc", "logistic", "random_forest", "xgboost"])
    model = FullModelSelector(
        space=space, sampler=default_sampler_name(), n_trials=30, random_state=0
    )
    model.fit(X_tr, y_tr)
    print("selected:", model.describe())
    print(f"held-out BER: {balanced_error_rate(y_te, model.predict(X_te)):.4f}")


if __name__ == "__main__":
    main()
