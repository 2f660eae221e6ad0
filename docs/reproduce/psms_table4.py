"""PSMS (paper 000) Table 4 in reduced form: held-out test BER of full model selection.

For each KEEL set and seed: a stratified, seeded 70/30 train/test split; on the training
split ``FullModelSelector(sampler=s, n_trials=N, cv=2, random_state=seed)`` for each sampler
``s`` (``pso`` = PSMS, ``pattern`` = PATSMS, ``tpe``, ``random``), whose refitted best pipeline
is scored on the test split by the balanced error rate (BER, %). Two fixed baselines on the
same split: a class-balanced logistic regression with standardisation, and an RBF SVC
(standardised, class-balanced) tuned by a 3-fold ``GridSearchCV`` over ``C`` and ``gamma``
(5 x 4 = 20 settings). Categorical columns are one-hot encoded and missing values imputed
for the baselines only (the selector handles its own preprocessing). Prints one line per run,
the mean test BER per set and method, and wins / ties / losses (test BER, per set x seed) of
PSO against PATSMS and against TPE.

Run::

    python docs/reproduce/psms_table4.py --sets heart breast pima titanic german \\
        --trials 100 --seeds 3 --jobs 2

``--option KEY=JSON`` (repeatable) passes another ``FullModelSelector`` argument to every
search, e.g. ``--option cv=5`` or ``--option reselect_top=10``; the script keeps the paper's
single refitted pipeline (``ensemble_top=1``) unless ``--option ensemble_top=10`` asks for
the package's default vote. ``--preprocessors NAME ...``
restricts the pool's preprocessing steps (default: all of ``normalize``, ``standardize``,
``shift_scale``), e.g. ``--preprocessors standardize shift_scale`` searches without the
row-wise ``normalize``; the rest of the pool is unchanged. ``--out FILE.jsonl`` appends one
JSON line per finished (set, seed) run (its test BERs, and each sampler's CV BER and seconds),
so the runs finished before an interrupted command are kept.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import math
from pathlib import Path
import statistics
import time
from typing import Any
import warnings

import numpy as np
import optuna
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GridSearchCV
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms import FullModelSelector
from optuna_psms import FullModelSpace
from optuna_psms.fms.datasets import load_dataset
from optuna_psms.fms.space import PREPROCESSORS


def _ber(model: object, x: object, y: np.ndarray) -> float:
    pred = model.predict(x)  # type: ignore[attr-defined]
    return 100.0 * (1.0 - float(balanced_accuracy_score(y, pred)))


def split(name: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """The table's split of KEEL set ``name``: stratified 70/30, seeded by ``seed``.

    ``NAME@N`` is KEEL set ``NAME`` cut once to ``N`` rows (stratified, ``random_state=0``,
    the same rows for every seed) before the split: a larger set made a small-data task.
    """
    base, _, rows = name.partition("@")
    x_raw, y = load_dataset(f"keel:{base}")
    if rows:
        x_raw, _, y, _ = train_test_split(
            pd.DataFrame(x_raw), y, train_size=int(rows), stratify=y, random_state=0
        )
    x_tr, x_te, y_tr, y_te = train_test_split(
        pd.DataFrame(x_raw), y, test_size=0.3, stratify=y, random_state=seed
    )
    return x_tr, x_te, y_tr, y_te


def select(
    sampler: optuna.samplers.BaseSampler | str,
    x_tr: pd.DataFrame,
    y_tr: np.ndarray,
    trials: int,
    seed: int,
    options: dict[str, object],
    preprocessors: list[str] | None = None,
) -> FullModelSelector:
    """The table's search: ``FullModelSelector`` (``cv=2`` and ``ensemble_top=1``, the
    paper's single refitted pipeline, unless ``options`` say otherwise).

    ``preprocessors`` (names) restricts the pool's preprocessing steps; ``None``: the default
    pool (no ``space`` argument).
    """
    kwargs: dict[str, Any] = {"cv": 2, "ensemble_top": 1, **options}
    if preprocessors is not None:
        kwargs["space"] = FullModelSpace(preprocessors=preprocessors)
    selector = FullModelSelector(
        sampler=sampler, n_trials=trials, random_state=seed, final_check=None, **kwargs
    )
    return selector.fit(x_tr, y_tr)


def encode(x_tr: pd.DataFrame, x_te: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The baselines' features: both parts one-hot encoded together (``pd.get_dummies``)."""
    both = pd.get_dummies(pd.concat([x_tr, x_te]), dtype=float)
    return both.iloc[: len(x_tr)], both.iloc[len(x_tr) :]


def baseline_models(seed: int) -> dict[str, Any]:
    """The two fixed baselines, unfitted: a class-balanced logistic regression and the RBF SVC
    tuned by a seeded 3-fold ``GridSearchCV`` over ``C`` x ``gamma`` (balanced accuracy)."""
    logreg = make_pipeline(
        SimpleImputer(),
        StandardScaler(),
        LogisticRegression(class_weight="balanced", max_iter=2000),
    )
    svc = GridSearchCV(
        make_pipeline(SimpleImputer(), StandardScaler(), SVC(class_weight="balanced")),
        {"svc__C": [0.1, 1.0, 10.0, 100.0, 1000.0], "svc__gamma": ["scale", 0.001, 0.01, 0.1]},
        cv=StratifiedKFold(3, shuffle=True, random_state=seed),
        scoring="balanced_accuracy",
    )
    return {"logreg": logreg, "svc-grid": svc}


def _baselines(
    x_tr: pd.DataFrame, x_te: pd.DataFrame, y_tr: np.ndarray, y_te: np.ndarray, seed: int
) -> dict[str, float]:
    a, b = encode(x_tr, x_te)
    return {k: _ber(m.fit(a, y_tr), b, y_te) for k, m in baseline_models(seed).items()}


def _wtl(a: list[float], b: list[float]) -> str:
    w = sum(x < y for x, y in zip(a, b))
    lo = sum(x > y for x, y in zip(a, b))
    return f"{w}/{len(a) - w - lo}/{lo}"


def _mean_se(d: list[float]) -> str:
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return f"{statistics.fmean(d):+.2f} +- {se:.2f}"


def pair(a_file: str, b_file: str) -> None:
    """Print two runs' searches against each other, paired by (set, seed).

    Each file holds ``--out`` rows; the sampler columns they share are compared (``a - b``,
    test BER points; a win is a lower BER in ``a``), and each run's against the baselines.
    Splits are paired only where both files have them.
    """
    rows = [
        {(r["set"], r["seed"]): r for r in map(json.loads, Path(f).read_text().splitlines())}
        for f in (a_file, b_file)
    ]
    keys = sorted(rows[0].keys() & rows[1].keys())
    print(f"{len(keys)} paired splits; a = {a_file}, b = {b_file}")
    print("| comparison | W/T/L | mean difference +- s.e. |")
    print("|---|---|---|")
    samplers = [s for s in rows[0][keys[0]]["cv_ber"] if s in rows[1][keys[0]]["cv_ber"]]
    for s in samplers:
        a = [rows[0][k]["test_ber"][s] for k in keys]
        b = [rows[1][k]["test_ber"][s] for k in keys]
        d = [x - y for x, y in zip(a, b)]
        print(f"| {s}: a against b | {_wtl(a, b)} | {_mean_se(d)} |")
        for label, side in (("a", 0), ("b", 1)):
            for base in ("logreg", "svc-grid"):
                x = [rows[side][k]["test_ber"][s] for k in keys]
                y = [rows[side][k]["test_ber"][base] for k in keys]
                d = [u - v for u, v in zip(x, y)]
                print(f"| {s} ({label}) against {base} | {_wtl(x, y)} | {_mean_se(d)} |")
    columns = [f"{s} ({label})" for s in samplers for label in "ab"] + ["logreg", "svc-grid"]
    print("\nmean test BER (%) per set, paired splits only")
    print("| set | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name in [*sorted({k[0] for k in keys}), "mean"]:
        ks = [k for k in keys if name in ("mean", k[0])]
        values = [[rows[side][k]["test_ber"][s] for k in ks] for s in samplers for side in (0, 1)]
        values += [[rows[0][k]["test_ber"][b] for k in ks] for b in ("logreg", "svc-grid")]
        print(f"| {name} | " + " | ".join(f"{statistics.fmean(v):.2f}" for v in values) + " |")


def _run(
    task: tuple[str, int, list[str], int, dict[str, object], list[str] | None, str | None],
) -> dict[str, float]:
    """Test BER of every method on one (set, seed); printed as it goes, appended to ``out``."""
    name, seed, samplers, trials, options, preprocessors, out = task
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    x_tr, x_te, y_tr, y_te = split(name, seed)
    results = _baselines(x_tr, x_te, y_tr, y_te, seed)
    cvs: dict[str, float] = {}
    seconds: dict[str, float] = {}
    for s in samplers:
        start = time.perf_counter()
        selector = select(s, x_tr, y_tr, trials, seed, options, preprocessors)
        results[s] = _ber(selector, x_te, y_te)
        cv = cvs[s] = 100.0 * (1.0 - float(selector.best_score_))
        seconds[s] = time.perf_counter() - start
        print(f"{name} seed={seed} {s}: cv BER {cv:.2f} test BER {results[s]:.2f} "
              f"({seconds[s]:.0f} s)", flush=True)  # fmt: skip
    print(f"{name} seed={seed} logreg {results['logreg']:.2f} "
          f"svc-grid {results['svc-grid']:.2f}", flush=True)  # fmt: skip
    if out is not None:
        row = {"set": name, "seed": seed, "trials": trials, "options": options,
               "preprocessors": preprocessors, "test_ber": results, "cv_ber": cvs,
               "seconds": seconds}  # fmt: skip
        with open(out, "a") as f:
            f.write(json.dumps(row) + "\n")  # one write per line: whole lines only
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["heart", "breast", "pima", "titanic"])
    parser.add_argument("--samplers", nargs="+", default=["pso", "pattern", "tpe", "random"])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--jobs", type=int, default=1, help="worker processes, one (set, seed) each"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="a FullModelSelector argument for every search, e.g. cv=5 (default: cv=2)",
    )
    parser.add_argument(
        "--preprocessors",
        nargs="+",
        choices=PREPROCESSORS,
        default=None,
        metavar="NAME",
        help=f"restrict the pool's preprocessing to these ({', '.join(PREPROCESSORS)}; "
        "default: all)",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="FILE.jsonl",
        help="append one JSON line per finished (set, seed) run to this file",
    )
    parser.add_argument(
        "--pair",
        nargs=2,
        default=None,
        metavar="FILE.jsonl",
        help="run nothing: compare the searches of two --out files, paired by set and seed",
    )
    args = parser.parse_args(argv)
    if args.pair is not None:
        pair(*args.pair)
        return
    options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
    methods = [*args.samplers, "logreg", "svc-grid"]
    tasks = [
        (n, k, args.samplers, args.trials, options, args.preprocessors, args.out)
        for n in args.sets
        for k in range(args.seeds)
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(_run, tasks))
    table: dict[tuple[str, str], list[float]] = {}
    for (name, *_), results in zip(tasks, runs):
        for m in methods:
            table.setdefault((name, m), []).append(results[m])
    shown = ", ".join(args.option) or "cv=2"
    if args.preprocessors is not None:
        shown += f", preprocessors {' '.join(args.preprocessors)}"
    print(f"\nmean test BER (%), {args.trials} trials, seeds 0..{args.seeds - 1}, {shown}")
    print("| set | " + " | ".join(methods) + " |")
    print("|---" * (len(methods) + 1) + "|")
    for name in [*args.sets, "mean"]:
        sets = args.sets if name == "mean" else [name]
        cells = [
            f"{statistics.fmean(v for n in sets for v in table[(n, m)]):.2f}" for m in methods
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if "pso" in args.samplers:
        for other in [m for m in methods if m != "pso"]:
            a = [v for n in args.sets for v in table[(n, "pso")]]
            b = [v for n in args.sets for v in table[(n, other)]]
            print(f"PSO vs {other}: W/T/L {_wtl(a, b)} (test BER, per set x seed)")


if __name__ == "__main__":
    main()
