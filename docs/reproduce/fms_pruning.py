"""Fold pruning in full model selection: work saved and held-out quality, per sampler.

Each run splits a dataset into a stratified 70 % search part and a 30 % hold-out, runs
:class:`~optuna_psms.fms.FullModelSelector` (k-fold CV BER, the given number of trials) with
no pruner, Optuna's ``MedianPruner`` and ``WilcoxonPruner``, and reports per sampler and
pruner the means over the seeds of: folds fitted (the work, independent of machine load),
wall-clock seconds of the search (load-dependent), pruned trials, the best CV BER, and the
BER of the refitted pipeline on the hold-out.

Run::

    python docs/reproduce/fms_pruning.py                       # the docs' table
    python docs/reproduce/fms_pruning.py --trials 10 --seeds 1  # a quick look
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import time
import warnings

import numpy as np
import optuna
from sklearn import datasets
from sklearn.model_selection import train_test_split

from optuna_psms.fms import balanced_error_rate
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace


CLASSIFIERS = ["naive_bayes", "mean_variance", "logistic", "kridge", "svc", "random_forest"]


def make_pruner(name: str) -> optuna.pruners.BasePruner | None:
    """``none``, ``median`` (MedianPruner: 5 startup trials, from fold 1) or ``wilcoxon``."""
    if name == "none":
        return None
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=0)
    if name == "wilcoxon":
        return optuna.pruners.WilcoxonPruner(p_threshold=0.1)
    raise ValueError(f"unknown pruner {name!r}; use none, median or wilcoxon.")


def run(
    dataset: str, sampler: str, pruner: str, trials: int, cv: int, seed: int
) -> dict[str, float]:
    """One search; returns folds, seconds, pruned, cv_ber and holdout_ber."""
    X, y = getattr(datasets, f"load_{dataset}")(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    space = FullModelSpace(classifiers=CLASSIFIERS)
    model = FullModelSelector(
        space=space,
        sampler=sampler,
        n_trials=trials,
        cv=cv,
        pruner=make_pruner(pruner),
        random_state=seed,
        final_check=None,  # the search's cost, as measured before the check existed
    )
    start = time.perf_counter()
    model.fit(X_tr, y_tr)
    seconds = time.perf_counter() - start
    frozen = model.study_.get_trials(deepcopy=False)
    return {
        "folds": float(sum(len(t.user_attrs.get("fms:fold_scores", [])) for t in frozen)),
        "seconds": seconds,
        "pruned": float(sum(t.state == optuna.trial.TrialState.PRUNED for t in frozen)),
        "cv_ber": float(model.study_.best_value),
        "holdout_ber": balanced_error_rate(y_te, model.predict(X_te)),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="breast_cancer", help="an sklearn load_<name>")
    parser.add_argument("--samplers", nargs="+", default=["pso", "tpe"])
    parser.add_argument("--pruners", nargs="+", default=["none", "median", "wilcoxon"])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    print(
        f"{args.dataset}, {args.trials} trials, {args.cv}-fold CV BER, means over "
        f"{args.seeds} seeds (70/30 stratified split per seed)"
    )
    print(
        "| sampler | pruner | folds fitted | search s | pruned trials | best CV BER "
        "| hold-out BER |"
    )
    print("|---|---|---|---|---|---|---|")
    for sampler in args.samplers:
        for pruner in args.pruners:
            rows = [
                run(args.dataset, sampler, pruner, args.trials, args.cv, seed)
                for seed in range(args.seeds)
            ]
            mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
            print(
                f"| {sampler} | {pruner} | {mean['folds']:.0f} | {mean['seconds']:.1f} "
                f"| {mean['pruned']:.1f} | {mean['cv_ber']:.4f} | {mean['holdout_ber']:.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
