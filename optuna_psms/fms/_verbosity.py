"""Optuna's verbosity for a scikit-learn ``verbose`` value, set while a search runs.

Split from :mod:`optuna_psms.fms._search`.
"""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import logging

import optuna


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
