"""FGS (paper 001) in reduced form: DFGS / AFGS against CMA-ES and random search.

Equal model counts: every sampler gets ``--trials`` trials; a trial's value is the 3-fold
stratified CV error on a 70% training split (folds fixed by the seed); the best trial's
settings are refitted on the training split and scored on the 30% test split. KEEL sets
``pima``, ``german``, ``heart`` (one-hot encoded, standardised inside each fit). ``--model``:

* ``svm`` (Table 4): an RBF SVM over ``log2 C in [-5, 15]`` and ``log2 gamma in [-15, 3]``.
* ``mlp`` (Table 3): one hidden layer; the paper tunes the number of hidden units and the
  weight decay ``rho`` and gives no ranges, so ours are ``hidden in {1, ..., 32}`` and
  ``log10 alpha in [-4, 2]`` (scikit-learn's L2 penalty). ``MLPClassifier`` with
  ``solver="lbfgs"`` (batch quasi-Newton, the nearest to the paper's conjugate gradient),
  ``--max-iter`` iterations, no early stopping, ``random_state`` = the seed.
* ``aniso-svm`` (Tables 5-6): the anisotropic Gaussian kernel
  ``exp(-sum_j gamma_j (x_j - x'_j)^2)``, i.e. each standardised feature scaled by
  ``sqrt(gamma_j)`` and then ``SVC(kernel="rbf", gamma=1)``: ``D + 1`` parameters,
  ``log2 C in [-5, 15]`` and ``log2 gamma_j in [-15, 3]`` for every feature ``j``.
  DFGS needs ``3^M + 2^M`` models per level (20,195 at ``M = 9``) and is not in the
  default samplers, as in the paper.

DFGS and AFGS get ``budget=--trials``. BLAS runs on one thread. Prints one line per run,
then the mean test error (%) over seeds per set and sampler with the mean best CV error in
brackets (last row: over sets).

Run::

    python docs/reproduce/fgs_svm.py --trials 60 --seeds 3
    python docs/reproduce/fgs_svm.py --model mlp --sets pima heart --trials 60 --seeds 3
    python docs/reproduce/fgs_svm.py --model aniso-svm --sets pima heart --trials 60 --seeds 3
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Sequence
import functools
import json
from pathlib import Path
import statistics
from typing import Any
import warnings

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from optuna_psms import FocusedGridSampler
from optuna_psms.fms.datasets import load_dataset


MODELS = ("svm", "mlp", "aniso-svm")
DEFAULT_SAMPLERS = {
    "svm": ["random", "cmaes", "dfgs", "afgs"],
    "mlp": ["random", "cmaes", "dfgs", "afgs"],
    "aniso-svm": ["random", "cmaes", "afgs"],
}


def numeric_set(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A bundled set as a float matrix (categorical columns one-hot) and its labels.

    ``name`` is a KEEL set (``pima``) or ``sklearn:<name>`` (``sklearn:breast_cancer``).
    """
    x_raw, y = load_dataset(name if ":" in name else f"keel:{name}")
    return pd.get_dummies(pd.DataFrame(x_raw)).to_numpy(dtype=float), np.asarray(y)


def markdown(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def search_space(model: str, n_features: int) -> dict[str, BaseDistribution]:
    """The tuned hyperparameters of ``model``, in the order they are suggested."""
    if model == "svm":
        return {
            "log2_C": FloatDistribution(-5.0, 15.0),
            "log2_gamma": FloatDistribution(-15.0, 3.0),
        }
    if model == "mlp":
        return {"hidden": IntDistribution(1, 32), "log10_alpha": FloatDistribution(-4.0, 2.0)}
    if model == "aniso-svm":
        gammas = {f"log2_gamma_{j}": FloatDistribution(-15.0, 3.0) for j in range(n_features)}
        return {"log2_C": FloatDistribution(-5.0, 15.0), **gammas}
    raise ValueError(f"unknown model {model!r}; choose from {', '.join(MODELS)}.")


def build(model: str, params: dict[str, Any], seed: int, max_iter: int = 100) -> Any:
    """The (unfitted) pipeline of ``model`` at ``params``: standardise, then the model."""
    if model == "svm":
        return make_pipeline(
            StandardScaler(), SVC(C=2.0 ** params["log2_C"], gamma=2.0 ** params["log2_gamma"])
        )
    if model == "mlp":
        mlp = MLPClassifier(
            hidden_layer_sizes=(int(params["hidden"]),),
            alpha=10.0 ** params["log10_alpha"],
            solver="lbfgs",
            max_iter=max_iter,
            early_stopping=False,
            random_state=seed,
        )
        return make_pipeline(StandardScaler(), mlp)
    if model == "aniso-svm":
        n = len(params) - 1
        scale = np.array([2.0 ** (params[f"log2_gamma_{j}"] / 2.0) for j in range(n)])
        return make_pipeline(
            StandardScaler(),
            FunctionTransformer(functools.partial(np.multiply, scale)),
            SVC(C=2.0 ** params["log2_C"], gamma=1.0),
        )
    raise ValueError(f"unknown model {model!r}; choose from {', '.join(MODELS)}.")


def suggest(trial: optuna.Trial, space: dict[str, BaseDistribution]) -> dict[str, Any]:
    """Suggest every parameter of ``space`` in order."""
    params: dict[str, Any] = {}
    for name, dist in space.items():
        if isinstance(dist, IntDistribution):
            params[name] = trial.suggest_int(name, dist.low, dist.high)
        else:
            assert isinstance(dist, FloatDistribution)
            params[name] = trial.suggest_float(name, dist.low, dist.high)
    return params


def _sampler(name: str, seed: int, trials: int) -> optuna.samplers.BaseSampler:
    if name == "dfgs":
        return FocusedGridSampler(mode="deterministic", budget=trials, seed=seed)
    if name == "afgs":
        return FocusedGridSampler(mode="annealed", budget=trials, seed=seed)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def run(
    model: str, name: str, seed: int, samplers: Sequence[str], trials: int, max_iter: int = 100
) -> list[dict[str, Any]]:
    """One split of set ``name``: every sampler tunes ``model`` with ``trials`` trials.

    Returns per sampler the set, seed, sampler, number of parameters, number of finished
    trials, best CV error and test error (fractions).
    """
    x, y = numeric_set(name)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, stratify=y, random_state=seed)
    folds = StratifiedKFold(3, shuffle=True, random_state=seed)
    space = search_space(model, x.shape[1])
    make: Callable[[dict[str, Any]], Any] = functools.partial(
        build, model, seed=seed, max_iter=max_iter
    )

    def objective(trial: optuna.Trial) -> float:
        score = cross_val_score(make(suggest(trial, space)), x_tr, y_tr, cv=folds)
        return float(1.0 - np.mean(score))

    results: list[dict[str, Any]] = []
    for s in samplers:
        study = optuna.create_study(sampler=_sampler(s, seed, trials))
        study.optimize(objective, n_trials=trials)
        fitted = make(study.best_params).fit(x_tr, y_tr)
        finished = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        results.append(
            {
                "set": name,
                "seed": seed,
                "sampler": s,
                "n_params": len(study.best_params),
                "n_trials": len(finished),
                "cv": study.best_value,
                "test": float(np.mean(fitted.predict(x_te) != y_te)),
            }
        )
        print(f"{name} seed={seed} {s}: cv {100 * study.best_value:.2f} "
              f"test {100 * results[-1]['test']:.2f}", flush=True)  # fmt: skip
    return results


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the comparison, print its table and return the per-run results."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", choices=MODELS, default="svm")
    parser.add_argument("--sets", nargs="+", default=["pima", "german", "heart"])
    parser.add_argument("--samplers", nargs="+", default=None)
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=100, help="MLP (L-BFGS) iterations")
    parser.add_argument("--json", type=Path, default=None, help="write the per-run results")
    args = parser.parse_args(argv)
    samplers = args.samplers or DEFAULT_SAMPLERS[args.model]
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    results: list[dict[str, Any]] = []
    with threadpool_limits(1):  # small BLAS calls: threads cost ~5x the CPU (one process)
        for name in args.sets:
            for seed in range(args.seeds):
                results += run(args.model, name, seed, samplers, args.trials, args.max_iter)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))

    def cell(n: str | None, s: str) -> str:
        rs = [r for r in results if r["sampler"] == s and n in (None, r["set"])]
        test = 100 * statistics.fmean(r["test"] for r in rs)
        return f"{test:.2f} ({100 * statistics.fmean(r['cv'] for r in rs):.2f})"

    rows = [[n] + [cell(n, s) for s in samplers] for n in args.sets]
    rows.append(["mean"] + [cell(None, s) for s in samplers])
    print("\n" + markdown(["set", *samplers], rows))
    return results


if __name__ == "__main__":
    main()
