"""Helpers shared by the search estimators of :mod:`optuna_psms.fms`: score sign, logging."""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import logging

import optuna


#: Losses defined as ``1 - score`` (the classification built-ins; ``"r2"``: ``1 - R^2``).
ONE_MINUS_SCORE = frozenset({"ber", "error", "auc", "pi_svm", "r2"})


def score_from_loss(metric: str, loss: float) -> float:
    """The higher-is-better score of a loss of :func:`optuna_psms.fms.metrics.fold_loss`.

    The losses of :data:`ONE_MINUS_SCORE` are ``1 - score`` (``"ber"``: the score is
    ``1 - BER`` = balanced accuracy, ``"error"``: accuracy, ``"auc"``: ROC AUC,
    ``"pi_svm"``: PI_SVM, ``"r2"``: R^2). Any other loss (a scikit-learn scorer's negated
    value, or an error such as RMSE) is negated: ``"f1_macro"`` gives F1,
    ``"neg_log_loss"`` minus the log loss, as in scikit-learn's search estimators.

    Args:
        metric: A metric name accepted by :func:`optuna_psms.fms.metrics.check_metric`.
        loss: The loss (lower is better).

    Returns:
        The score (higher is better).
    """
    if metric in ONE_MINUS_SCORE:
        return 1.0 - loss
    return -loss


def verbosity_level(verbose: int | bool) -> int:
    """The ``logging`` level of Optuna's messages for a scikit-learn ``verbose`` value.

    ``0``/``False``: ``WARNING`` (no per-trial lines; failed trials and real problems
    still show), ``1``/``True``: ``INFO`` (one line per trial), ``2`` or more: ``DEBUG``.

    Raises:
        ValueError: ``verbose`` is not a non-negative int.
    """
    if not isinstance(verbose, int) or verbose < 0:
        raise ValueError(f"verbose must be a non-negative int; got {verbose!r}.")
    if verbose >= 2:
        return logging.DEBUG
    return logging.INFO if verbose >= 1 else logging.WARNING


@contextlib.contextmanager
def optuna_verbosity(verbose: int | bool) -> Iterator[None]:
    """Set Optuna's verbosity from ``verbose`` for the block, then restore it.

    This is what ``optuna.integration.OptunaSearchCV(verbose=...)`` does: Optuna's loggers
    are process-wide, so the level applies to every study of the process while the block
    runs.
    """
    level = verbosity_level(verbose)
    previous = optuna.logging.get_verbosity()
    if not verbose:
        # Quiet never makes Optuna louder than the process asked for (the CLI sets ERROR).
        level = max(level, previous)
    optuna.logging.set_verbosity(level)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(previous)
