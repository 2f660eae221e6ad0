"""FGS (paper 001) in reduced form: DFGS / AFGS against CMA-ES tuning an RBF SVM.

Equal model counts: every sampler gets ``--trials`` trials over ``log2 C in [-5, 15]`` and
``log2 gamma in [-15, 3]``; a trial's value is the 3-fold stratified CV error on a 70%
training split (folds fixed by the seed); the best trial's settings are refitted on the
training split and scored on the 30% test split. KEEL sets ``pima``, ``german``, ``heart``
(one-hot encoded, standardised). Prints mean test error (%) over seeds per set and sampler.

Run::

    python docs/fgs_svm.py --trials 60 --seeds 3
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
import optuna
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms import FocusedGridSampler
from optuna_psms.cli._data import load_dataset


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["pima", "german", "heart"])
    parser.add_argument("--samplers", nargs="+", default=["random", "cmaes", "dfgs", "afgs"])
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    table: dict[tuple[str, str], list[float]] = {}
    for name in args.sets:
        x, y = numeric_set(name)
        for seed in range(args.seeds):
            x_tr, x_te, y_tr, y_te = train_test_split(
                x, y, test_size=0.3, stratify=y, random_state=seed
            )
            folds = StratifiedKFold(3, shuffle=True, random_state=seed)

            def model(c: float, g: float) -> object:
                return make_pipeline(StandardScaler(), SVC(C=2.0**c, gamma=2.0**g))

            def objective(
                trial: optuna.Trial, data: tuple[object, ...] = (x_tr, y_tr, folds)
            ) -> float:
                c = trial.suggest_float("log2_C", -5.0, 15.0)
                g = trial.suggest_float("log2_gamma", -15.0, 3.0)
                score = cross_val_score(model(c, g), data[0], data[1], cv=data[2])  # type: ignore[arg-type]
                return float(1.0 - np.mean(score))

            for s in args.samplers:
                study = optuna.create_study(sampler=_sampler(s, seed, args.trials))
                study.optimize(objective, n_trials=args.trials)
                best = study.best_params
                fitted = model(best["log2_C"], best["log2_gamma"])
                fitted.fit(x_tr, y_tr)  # type: ignore[attr-defined]
                err = 100.0 * float(np.mean(fitted.predict(x_te) != y_te))  # type: ignore[attr-defined]
                table.setdefault((name, s), []).append(err)
                print(f"{name} seed={seed} {s}: cv {100 * study.best_value:.2f} test {err:.2f}",
                      flush=True)  # fmt: skip
    rows = [
        [n] + [f"{statistics.fmean(table[(n, s)]):.2f}" for s in args.samplers] for n in args.sets
    ]
    print("\n" + markdown(["set", *args.samplers], rows))


if __name__ == "__main__":
    main()
