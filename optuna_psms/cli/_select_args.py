"""The command line of ``optuna-psms select``: its arguments, help and epilog."""

from __future__ import annotations

import argparse
import math
from typing import Any

from optuna_psms.cli._common import add_columns_option
from optuna_psms.cli._common import add_initial_pipelines_option
from optuna_psms.cli._common import CLASSIFIER_NAMES
from optuna_psms.cli._common import METRIC_NAMES
from optuna_psms.cli._common import REGRESSION_METRIC_NAMES
from optuna_psms.cli._common import REGRESSION_SELECTOR_NAMES
from optuna_psms.cli._common import REGRESSOR_NAMES
from optuna_psms.cli._common import SAMPLER_NAMES
from optuna_psms.cli._common import SELECTOR_NAMES
from optuna_psms.cli._common import TASK_NAMES
from optuna_psms.cli._common import UserError


DEFAULT_STORAGE = "sqlite:///psms.db"
DEFAULT_OUTPUT = "psms_model.joblib"

_EPILOG = f"""\
names:
  samplers:    {", ".join(SAMPLER_NAMES)}
  classification (--task classification):
    classifiers: {", ".join(CLASSIFIER_NAMES)}
    selectors:   {", ".join(SELECTOR_NAMES)}
    metrics:     {", ".join(METRIC_NAMES)} (default: ber)
  regression (--task regression):
    regressors:  {", ".join(REGRESSOR_NAMES)}
    selectors:   {", ".join(REGRESSION_SELECTOR_NAMES)}
    metrics:     {", ".join(REGRESSION_METRIC_NAMES)} (default: rmse; r2 minimises 1-R^2)
  metrics may also be a scikit-learn scorer name (higher-is-better scorers are negated)

task (--task auto, the default): regression when the target is numeric (not boolean) and
has a non-integer value, or more than 20 distinct values with under 5 rows per value on
average; classification otherwise. A warning line says when it made a regression of a
target with at most 10 distinct values or of one that looks like a row identifier.

storages (--storage URL):
  sqlite:///FILE.db                 SQLite file (default: {DEFAULT_STORAGE})
  postgresql://USER:PW@HOST/DB      PostgreSQL   (extra: postgresql)
  mysql://USER:PW@HOST/DB           MySQL/MariaDB (extra: mysql)
  journal:///ABS/PATH.log, X.log    Optuna journal file
  redis://HOST:PORT/DB              Optuna journal in Redis (extra: redis)
  grpc://HOST:PORT                  Optuna gRPC storage proxy (extra: grpc)

workers: start the same command (same --storage and --study-name) in several terminals or
machines; they share one study. The last to finish saves the model.
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``select`` subcommand's parser, with its arguments, to the subparsers ``sub``."""
    sel: argparse.ArgumentParser = sub.add_parser(
        "select",
        help="search preprocessing + feature selection + classifier/regressor for a dataset",
        description=(
            "Search a full model (preprocessing, feature selection, classifier or regressor "
            "and their "
            "hyperparameters) by cross-validation on the search rows, print the chosen "
            "pipeline's CV loss and its loss on held-out rows the search never saw, and "
            "save it refitted on all rows."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = sel.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", metavar="PATH", help="CSV file with a header row")
    source.add_argument(
        "--dataset", metavar="NAME", help="bundled dataset: sklearn:breast_cancer, keel:heart, ..."
    )
    sel.add_argument("--target", metavar="COLUMN", help="label column of the CSV file")
    add_columns_option(
        sel,
        "--drop",
        "columns to leave out of the search, e.g. an ID (--drop id name, or id,name); "
        "the saved model ignores them in new data",
    )
    sel.add_argument("--sampler", default=None, help="sampler name (default: pso)")
    sel.add_argument(
        "--n-trials",
        type=int,
        default=None,
        metavar="N",
        help="trials of this worker (default: 100; with --time-budget, as many as it allows)",
    )
    sel.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="S",
        help="seconds for this worker's whole search, final check and refit: the search "
        "stops early enough for the rest to fit, and a line says when the budget ended it; "
        "without a terminal a progress line every 30 s (default: none)",
    )
    sel.add_argument(
        "--trial-memory",
        type=int,
        default=None,
        metavar="MB",
        help="memory ceiling of one trial in MiB (Linux): a pipeline past it fails its trial "
        "(reason recorded) and the search goes on (default: none)",
    )
    sel.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="start no new trial of this worker after S seconds (default: none)",
    )
    sel.add_argument(
        "--trial-timeout",
        type=float,
        default=None,
        metavar="S",
        help="time limit of one trial in seconds: a pipeline still fitting then fails its "
        "trial (reason recorded) and the search goes on; a limit of this worker, not stored "
        "in the study; the final check and the refits after the search have no limit "
        "(default: none)",
    )
    sel.add_argument("--cv", type=int, default=2, metavar="K", help="CV folds (default: 2)")
    sel.add_argument(
        "--reselect-top",
        type=int,
        default=0,
        metavar="K",
        help="after the search, re-evaluate the K best pipelines by a --reselect-cv-fold CV "
        "and refit the lowest (default: 0, off: refit the best search value)",
    )
    sel.add_argument(
        "--reselect-cv",
        type=int,
        default=5,
        metavar="K",
        help="folds of that re-evaluation (default: 5)",
    )
    sel.add_argument(
        "--ensemble-top",
        type=int,
        default=10,
        metavar="K",
        help="classification: the saved model predicts by a vote of the K best distinct "
        "pipelines, each refitted (default: 10; 1: the chosen pipeline alone; see "
        "FullModelSelector's ensemble_top)",
    )
    sel.add_argument(
        "--final-check",
        choices=["none", "svc"],
        default=None,
        help="classification: after the search, a 5-fold CV on the search rows chooses "
        "between the vote and a grid-tuned RBF SVC, a tie going to the vote (default for a "
        "classification: svc; none keeps the vote; see FullModelSelector's final_check)",
    )
    add_initial_pipelines_option(sel, "classification and regression")
    sel.add_argument(
        "--test-size",
        type=float,
        default=0.25,
        metavar="F",
        help="fraction of rows held out from the search to score the chosen model "
        "(stratified for classification, shuffled for regression; default: 0.25; "
        "0: no hold-out)",
    )
    sel.add_argument(
        "--task",
        default="auto",
        choices=TASK_NAMES,
        help="classification or regression (default: auto, from the target; see below)",
    )
    sel.add_argument(
        "--metric",
        default=None,
        help="loss to minimise (default: ber for classification, rmse for regression)",
    )
    sel.add_argument(
        "--subsample",
        type=float,
        default=1.0,
        metavar="F",
        help="fraction of the search rows per trial (default: 1)",
    )
    sel.add_argument(
        "--classifiers",
        "--regressors",
        dest="classifiers",
        default=None,
        metavar="A,B",
        help="restrict the classifiers (the regressors for a regression)",
    )
    sel.add_argument(
        "--selectors", default=None, metavar="A,B", help="restrict the feature selectors"
    )
    sel.add_argument(
        "--storage",
        default=DEFAULT_STORAGE,
        metavar="URL",
        help=f"Optuna storage URL (default: {DEFAULT_STORAGE})",
    )
    sel.add_argument(
        "--study-name",
        default=None,
        metavar="NAME",
        help="study to create, or to join if it exists (default: a new timestamped name)",
    )
    sel.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the split, folds and sampler (default: derived from the study name, "
        "stored in the study)",
    )
    sel.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        metavar="N",
        help="trials run at once in this process (Optuna's threads; -1: one per CPU; default: 1)",
    )
    sel.add_argument(
        "--output",
        default=None,
        metavar="FILE",
        help=f"save the refitted model here, even if other workers are still running "
        f"(default: {DEFAULT_OUTPUT}, written by the last worker)",
    )
    sel.add_argument(
        "--publish-every",
        type=int,
        default=50,
        metavar="N",
        help="save the study's figures for optuna-dashboard every N trials while it runs, at "
        "most every 10 s per worker, and at the end (default: 50; 0: only at the end)",
    )
    sel.add_argument(
        "--no-progress-bar",
        action="store_true",
        help="no progress bar on stderr (there is none when stderr is not a terminal)",
    )
    return sel


def check_args(args: argparse.Namespace) -> None:
    """Refuse an option's value that is out of its range, before any data is read.

    Raises:
        UserError: The first such option, named with the value it got.
    """
    if args.n_trials is not None and args.n_trials < 1:
        raise UserError("--n-trials must be at least 1")
    if args.time_budget is not None and not (
        math.isfinite(args.time_budget) and args.time_budget > 0
    ):
        raise UserError(
            f"--time-budget must be a positive number of seconds; got {args.time_budget}"
        )
    if args.trial_memory is not None and args.trial_memory < 1:
        raise UserError(
            f"--trial-memory must be a positive number of MiB; got {args.trial_memory}"
        )
    if args.n_trials is None and args.time_budget is None:
        args.n_trials = 100
    if args.trial_timeout is not None and not (
        math.isfinite(args.trial_timeout) and args.trial_timeout > 0
    ):
        raise UserError(
            f"--trial-timeout must be a positive number of seconds; got {args.trial_timeout}"
        )
    if args.publish_every < 0:
        raise UserError("--publish-every must be 0 (only at the end) or a number of trials")
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UserError(f"--timeout must be a positive number of seconds; got {args.timeout}")
    if args.n_jobs < 1 and args.n_jobs != -1:
        raise UserError(f"--n-jobs must be at least 1 (or -1: one per CPU); got {args.n_jobs}")
    if args.seed is not None and not 0 <= args.seed < 2**32:
        raise UserError(f"--seed must be an integer in [0, 2**32); got {args.seed}")
    if args.cv < 2:
        raise UserError(f"--cv must be at least 2 (the number of CV folds); got {args.cv}")
    if args.reselect_top < 0:
        raise UserError(f"--reselect-top must be 0 (off) or more; got {args.reselect_top}")
    if args.reselect_cv < 2:
        raise UserError(f"--reselect-cv must be at least 2; got {args.reselect_cv}")
    if args.ensemble_top < 1:
        raise UserError(f"--ensemble-top must be at least 1; got {args.ensemble_top}")
    if not (math.isfinite(args.subsample) and 0.0 < args.subsample <= 1.0):
        raise UserError(f"--subsample must be in (0, 1]; got {args.subsample}")
    if not 0.0 <= args.test_size < 1.0:
        # --test-size 25 for 25 % (usertrial7, 26 Nov 2026): say it is a fraction.
        percent = ""
        if 1.0 < args.test_size < 100.0:
            percent = (
                f" (a fraction of the rows: {args.test_size / 100:g} for {args.test_size:g} %)"
            )
        raise UserError(f"--test-size must be in [0, 1); got {args.test_size:g}{percent}")
    if args.sampler is not None and args.sampler.lower() not in SAMPLER_NAMES:
        from optuna_psms._names import did_you_mean

        hint = did_you_mean(args.sampler, SAMPLER_NAMES)
        raise UserError(
            f"unknown sampler {args.sampler!r}; {hint}choose one of {', '.join(SAMPLER_NAMES)}"
        )
