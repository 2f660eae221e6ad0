"""Parameter importance with a 10,000-bit feature mask: the dashboard's view vs ours.

A synthetic full-model-selection study (40 trials, ``fs:mask:0000 ... fs:mask:9999``) whose
value depends only on the classifier. Prints the time and the top of the ranking of
Optuna's PED-ANOVA over every parameter (what optuna-dashboard's importance panel computes)
and of :func:`optuna_psms.visualization.plot_choice_importances`::

    python docs/reproduce/wide_mask_importance.py [--features 10000] [--trials 40]
"""

from __future__ import annotations

import argparse
import time
import warnings

import optuna
from optuna.distributions import CategoricalDistribution
from optuna.importance import PedAnovaImportanceEvaluator

from optuna_psms.visualization import plot_choice_importances


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=40)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")
    bit = CategoricalDistribution([False, True])
    classifiers = ["svc", "knn", "naive_bayes"]
    study = optuna.create_study()
    for n in range(args.trials):
        bits = {f"fs:mask:{i:04d}": (i * 7 + n) % 3 != 0 for i in range(args.features)}
        study.add_trial(
            optuna.trial.create_trial(
                params={"clf:method": classifiers[n % 3], "fs:method": "mask", **bits},
                distributions={
                    "clf:method": CategoricalDistribution(classifiers),
                    "fs:method": CategoricalDistribution(["none", "mask"]),
                    **{name: bit for name in bits},
                },
                value=0.1 * (n % 3) + 0.001 * n,
                user_attrs={"fms:n_features": sum(bits.values())},
            )
        )
    start = time.perf_counter()
    ranking = optuna.importance.get_param_importances(
        study, evaluator=PedAnovaImportanceEvaluator()
    )
    print(
        f"PED-ANOVA over {len(ranking)} parameters: {time.perf_counter() - start:.1f} s; "
        f"top 3: {list(ranking)[:3]}"
    )
    start = time.perf_counter()
    figure = plot_choice_importances(study)
    bars = list(figure.data[0].y)[::-1]
    print(f"plot_choice_importances: {time.perf_counter() - start:.1f} s; ranking: {bars}")


if __name__ == "__main__":
    main()
