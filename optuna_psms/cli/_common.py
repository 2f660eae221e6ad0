"""Pieces shared by the subcommands: the error type, the lines to stderr, the name lists
shown in ``--help``, atomic saving."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any

from optuna_psms._messages import InputError
from optuna_psms._messages import say
from optuna_psms.samplers._registry import SAMPLERS


#: Ends the line of an error converted from a ``ValueError`` / ``RuntimeError`` of the work
#: itself (the search, a refit, a prediction): it may be a bug of optuna-psms or of a library
#: under it rather than a mistake in the command, and its traceback tells which.
TRACEBACK_HINT = "(rerun with --traceback to see where it came from)"
#: Set to ``1`` (or ``true``/``yes``/``on``), the environment variable does what ``--traceback``
#: does (for CI logs, where the command line is written once).
TRACEBACK_ENV = "OPTUNA_PSMS_TRACEBACK"


#: A mistake in the command line or its inputs: reported in one line, exit code 2 (the
#: library's :class:`~optuna_psms._messages.InputError`, which the workflow raises).
UserError = InputError
#: One line to stderr after flushing stdout (:func:`optuna_psms._messages.say`).
warn = say


def show_progress_bar(args: argparse.Namespace) -> bool:
    """Whether a command shows its progress bar: not with ``--no-progress-bar``, and only when
    stderr is a terminal, as tqdm-like tools do (into a log file the bar wrote about 10 KB of
    ``\\r`` updates for 60 trials)."""
    isatty = getattr(sys.stderr, "isatty", None)
    return not args.no_progress_bar and callable(isatty) and bool(isatty())


# The names ``select --help`` lists (the sampler registry imports nothing; the component
# names are written out so that ``--help`` imports nothing heavy);
# tests/cli/test_commands.py checks them against the registries they mirror.
SAMPLER_NAMES = tuple(SAMPLERS)
CLASSIFIER_NAMES = (
    "mean_variance",
    "naive_bayes",
    "logistic",
    "kridge",
    "gradient_boosting",
    "mlp",
    "svc",
    "random_forest",
    "xgboost",
    "hist_gradient_boosting",
)
SELECTOR_NAMES = (
    "none",
    "ftest",
    "mutual_info",
    "auc",
    "s2n",
    "pearson",
    "rf",
    "svcrfe",
    "pca",
    "mask",
)
REGRESSOR_NAMES = (
    "linear",
    "kridge",
    "svr",
    "knn",
    "random_forest",
    "gradient_boosting",
    "mlp",
    "xgboost",
    "hist_gradient_boosting",
)
REGRESSION_SELECTOR_NAMES = ("none", "ftest", "mutual_info", "rf", "pca", "mask")
METRIC_NAMES = ("ber", "error", "auc", "pi_svm")
REGRESSION_METRIC_NAMES = ("rmse", "mae", "mse", "r2")
TASK_NAMES = ("auto", "classification", "regression")


def require_fms() -> None:
    """Raise the one-line missing-extra error when the ``fms`` extra is not installed."""
    from optuna_psms._extras import require

    require("fms", "this command (full model selection)")


def comma_list(text: str | None) -> list[str] | None:
    """``"a, b"`` -> ``["a", "b"]``; ``None`` stays ``None``."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def save_model(model: Any, path: str) -> None:
    """joblib-dump ``model`` to ``path`` atomically (a temporary file, then a rename), so
    that two workers saving at once never leave a torn file.

    Raises:
        UserError: The file cannot be written.
    """
    import joblib

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".psms-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            joblib.dump(model, handle)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; a saved model is a normal file
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


#: What ``--initial-pipelines defaults`` evaluates first, for the options' help.
INITIAL_HELP = (
    "'defaults' evaluates textbook pipelines first, as the first trials of every new study "
    "(classification: scikit-learn's default RBF SVC, logistic regression, random forest and "
    "gradient boosting, histogram gradient boosting first on large data; regression: "
    "histogram gradient boosting, ridge on standardised columns, a random forest); 'none': "
    "the sampler proposes every trial (default: defaults; see FullModelSelector's "
    "initial_pipelines)"
)


def add_columns_option(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    """A column-list option such as ``--drop``: ``--drop id name`` or ``--drop id,name``,
    and given twice it adds up (the names are read by ``cli._data.drop_names``)."""
    parser.add_argument(flag, nargs="+", action="extend", default=None, metavar="COL", help=help)


def add_initial_pipelines_option(parser: argparse.ArgumentParser, scope: str) -> None:
    """``--initial-pipelines {defaults,none}`` (``None`` when not given: the default), its help
    starting with ``scope`` (e.g. ``"classification"``)."""
    parser.add_argument(
        "--initial-pipelines",
        choices=["defaults", "none"],
        default=None,
        help=f"{scope}: {INITIAL_HELP}",
    )
