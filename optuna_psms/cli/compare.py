"""``optuna-psms compare``: several samplers x seeds on one objective.

The arguments are declared here with the standard library only, so that ``optuna-psms
--help`` imports nothing heavy; the command itself is :func:`optuna_psms.cli._compare.run`.
"""

from __future__ import annotations

import argparse
from typing import Any

from optuna_psms.cli._common import add_columns_option
from optuna_psms.cli._common import add_initial_pipelines_option


DEFAULT_STORAGE = "sqlite:///psms.db"
#: Trials between two publications of a study's figures while it runs (--publish-every).
DEFAULT_PUBLISH_EVERY = 50


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand to the subparsers ``sub``."""
    add_parser(sub).set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``optuna-psms compare`` (imports Optuna and the comparison code on first use)."""
    from optuna_psms.cli import _compare

    return _compare.run(args)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``compare`` on the ``optuna-psms`` sub-command parsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "compare",
        help="run several samplers x seeds on one objective and compare them with a baseline",
        description=(
            "Run each sampler on seeds 0..N-1 (one study each, named <name>/<sampler>/seed<k>, "
            "in one storage), print per sampler the median final best value, its IQR, "
            "wins/ties/losses against the baseline on the same seeds and a paired Wilcoxon "
            "test, and write an HTML report with the best-so-far curves. Full model "
            "selection (--dataset, --csv) is classification only here; for a regression "
            "target use optuna-psms select --task regression, or compare --objective with "
            "optuna_psms.fms.make_objective(X, y, space=RegressionSpace()) (docs/compare.md)."
        ),
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--dataset", metavar="NAME", help="full model selection (classification) on sklearn:iris…"
    )
    source.add_argument(
        "--csv",
        metavar="PATH",
        help="full model selection on a CSV file (classification: --target holds class labels)",
    )
    source.add_argument(
        "--function",
        metavar="NAME",
        help=(
            "benchmark function: sphere, ackley, griewank, rastrigin, rosenbrock, schwefel, "
            "styblinski_tang, step, alpine; or a COCO bbob function bbob:f1 ... bbob:f24 "
            "(its regret; needs the bench extra; see --dim, --instance)"
        ),
    )
    source.add_argument(
        "--objective",
        metavar="MODULE:FUNCTION",
        help="your objective(trial) -> float, importable from the current directory",
    )
    p.add_argument("--target", metavar="COLUMN", help="label column of the CSV file")
    add_columns_option(
        p,
        "--drop",
        "full model selection: columns to leave out of the search, e.g. an ID "
        "(--drop id name, or id,name)",
    )
    add_initial_pipelines_option(p, "full model selection, the same for every sampler and seed")
    p.add_argument(
        "--dim", type=int, default=None, metavar="D", help="function dimensions (default: 10)"
    )
    p.add_argument(
        "--instance",
        type=int,
        default=1,
        metavar="N",
        help="instance of a bbob function (COCO instance index, default: 1)",
    )
    p.add_argument(
        "--no-shift",
        action="store_true",
        help="keep the function's minimiser at its textbook place (often the box centre)",
    )
    p.add_argument(
        "--cv", type=int, default=None, metavar="K", help="full model selection: CV folds (2)"
    )
    p.add_argument(
        "--metric",
        default=None,
        help=(
            "full model selection: ber, error, auc, pi_svm or a scikit-learn scorer such as "
            "accuracy (default: ber)"
        ),
    )
    p.add_argument(
        "--subsample",
        type=float,
        default=None,
        metavar="F",
        help="fraction of the samples per trial, full model selection (default: 1)",
    )
    p.add_argument(
        "--direction",
        choices=("minimize", "maximize"),
        default="minimize",
        help="of --objective (default: minimize)",
    )
    p.add_argument(
        "--samplers", required=True, metavar="A,B,…", help="e.g. pso,pattern,umda,tpe,random"
    )
    p.add_argument("--seeds", type=int, default=5, metavar="N", help="seeds 0..N-1 (default: 5)")
    p.add_argument(
        "--n-trials", type=int, default=100, metavar="N", help="COMPLETE trials per study (100)"
    )
    p.add_argument(
        "--storage",
        default=DEFAULT_STORAGE,
        metavar="URL",
        help=f"Optuna storage (default: {DEFAULT_STORAGE})",
    )
    p.add_argument(
        "--name", metavar="NAME", help="study-name prefix (default: from the objective)"
    )
    p.add_argument(
        "--report",
        metavar="FILE.html",
        help="HTML report (default: compare-<name>.html; 'none' for no report)",
    )
    p.add_argument(
        "--baseline", default="tpe", help="sampler the others are tested against (tpe; 'none')"
    )
    p.add_argument(
        "--n-workers",
        type=int,
        default=None,
        metavar="K",
        help="worker processes, each running whole studies (default: number of CPUs)",
    )
    p.add_argument(
        "--workers-sim",
        type=int,
        default=1,
        metavar="W",
        help=(
            "run each study as W asynchronous workers sharing it (W trials running at once in "
            "one process, seeded log-normal durations; default 1: one trial at a time)"
        ),
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue this comparison: run only what is missing",
    )
    p.add_argument(
        "--publish-every",
        type=int,
        default=DEFAULT_PUBLISH_EVERY,
        metavar="N",
        help=(
            "save each study's figures for optuna-dashboard every N trials while it runs, at "
            f"most every 10 s per study, and at the end (default: {DEFAULT_PUBLISH_EVERY}; "
            "0: only at the end)"
        ),
    )
    p.add_argument(
        "--no-progress-bar",
        action="store_true",
        help="no progress bar on stderr (there is none when stderr is not a terminal)",
    )
    return p
