"""High-dimensional full model selection benchmark: joint feature mask + XGBoost.

A generated 10,000-feature, 100-sample binary problem (20 informative features) is
searched with the joint feature mask, XGBoost's 14 hyperparameters (Milletich & Asmar,
Table 2) and the ``bias`` threshold step, 2-fold CV BER, on a SQLite storage. It prints,
per representation of the mask, the time per trial, the part of it spent outside the model
fits (sampler + storage), and the SQLite bytes per trial.

Run::

    python -m optuna_psms.benchmarks.fms_highdim                  # 20 trials, 100 blocks
    python -m optuna_psms.benchmarks.fms_highdim --per-feature-trials 3  # + 10,000 params
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import os
import tempfile
import time

import numpy as np
import optuna
from sklearn.datasets import make_classification

from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms import make_sampler


def run(
    *,
    n_features: int,
    n_samples: int,
    n_trials: int,
    sampler: str,
    max_mask_params: int | None,
    seed: int,
    directory: str,
) -> dict[str, float]:
    """Run one study and measure it.

    Returns:
        ``params_per_trial``, ``seconds_per_trial``, ``overhead_per_trial`` (trial time
        outside the CV fits), ``bytes_per_trial``, ``best_value`` and ``n_complete``.
    """
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=20,
        n_redundant=0,
        random_state=seed,
    )
    space = FullModelSpace(
        classifiers=["xgboost"],
        selectors=["mask"],
        preprocessors=[],
        bias=True,
        max_mask_params=max_mask_params,
    )
    objective = make_objective(X, y, space=space, cv=2, random_state=seed)
    label = "per-feature" if max_mask_params is None else f"blocks-{max_mask_params}"
    path = os.path.join(directory, f"fms_highdim_{label}_{sampler}.db")
    if os.path.exists(path):
        os.remove(path)
    url = f"sqlite:///{path}"
    study = optuna.create_study(
        storage=url, sampler=make_sampler(sampler, seed), direction="minimize"
    )
    size_before = os.path.getsize(path)
    start = time.perf_counter()
    study.optimize(objective, n_trials=n_trials)
    elapsed = time.perf_counter() - start
    size_after = os.path.getsize(path)
    trials = study.get_trials(deepcopy=False)
    fit_time = sum(float(t.user_attrs.get("fms:fit_time", 0.0)) for t in trials)
    complete = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    return {
        "params_per_trial": float(np.mean([len(t.params) for t in trials])),
        "seconds_per_trial": elapsed / n_trials,
        "overhead_per_trial": (elapsed - fit_time) / n_trials,
        "bytes_per_trial": (size_after - size_before) / n_trials,
        "best_value": float(study.best_value) if complete else float("nan"),
        "n_complete": float(len(complete)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; prints one row per mask representation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-features", type=int, default=10_000)
    parser.add_argument("--n-samples", type=int, default=100)
    parser.add_argument("--n-trials", type=int, default=20)
    parser.add_argument("--sampler", default="tpe", help="tpe, random, pso, drs, ...")
    parser.add_argument("--max-mask-params", type=int, default=100)
    parser.add_argument(
        "--per-feature-trials",
        type=int,
        default=0,
        help="also run this many trials with one parameter per feature",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", default=None, help="directory of the SQLite files")
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    directory = args.dir or tempfile.mkdtemp(prefix="fms_highdim_")
    os.makedirs(directory, exist_ok=True)
    configs: list[tuple[str, int | None, int]] = [
        (f"blocks-{args.max_mask_params}", args.max_mask_params, args.n_trials)
    ]
    if args.per_feature_trials > 0:
        configs.append(("per-feature", None, args.per_feature_trials))
    print(
        f"{args.n_samples} samples x {args.n_features} features, joint mask + XGBoost, "
        f"2-fold CV BER, sampler {args.sampler}, SQLite in {directory}"
    )
    header = (
        f"{'mask':<14}{'params/trial':>13}{'trials':>8}{'s/trial':>10}"
        f"{'overhead s/trial':>18}{'SQLite bytes/trial':>20}{'best BER':>10}"
    )
    print(header)
    for label, limit, n_trials in configs:
        res = run(
            n_features=args.n_features,
            n_samples=args.n_samples,
            n_trials=n_trials,
            sampler=args.sampler,
            max_mask_params=limit,
            seed=args.seed,
            directory=directory,
        )
        print(
            f"{label:<14}{res['params_per_trial']:>13.0f}{n_trials:>8d}"
            f"{res['seconds_per_trial']:>10.2f}{res['overhead_per_trial']:>18.3f}"
            f"{res['bytes_per_trial']:>20,.0f}{res['best_value']:>10.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
