"""``study.optimize`` for a worker of a full-model search: it goes on past an enqueued trial
that another worker ran too (SQLite has no row lock, Optuna issue #4002)."""

from __future__ import annotations

from collections.abc import Callable
import time
from typing import Any

import optuna


def _taken_by_another_worker(exc: BaseException) -> bool:
    """Whether ``exc`` is Optuna's refusal to tell a trial that is already finished."""
    return isinstance(exc, ValueError) and str(exc).startswith("Cannot tell a ")


def optimize_past_taken_trials(
    study: optuna.Study,
    objective: Callable[[optuna.Trial], Any],
    *,
    n_trials: int | None,
    timeout: float | None,
    n_jobs: int = 1,
    show_progress_bar: bool = False,
    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] | None = None,
) -> None:
    """``study.optimize``, going on when another worker finished a trial this one ran too.

    Two workers may pop the same enqueued trial (an initial pipeline) when the storage has
    no row lock: SQLite ignores Optuna's ``SELECT ... FOR UPDATE``, so both see it
    ``WAITING`` and both run it (Optuna issue #4002). The first to finish tells it; the
    second's tell raises ``ValueError: Cannot tell a COMPLETE trial.``, which ended that
    worker's search (``optuna-psms select`` printed it as an error and exited with 2). Here
    that trial counts as one of this worker's ``n_trials`` (it ran it) and the search goes
    on with the rest, within what is left of ``timeout``.

    Args:
        study: The study.
        objective: The objective.
        n_trials: Trials of this worker (``None``: until ``timeout``).
        timeout: Seconds after which no new trial starts (``None``: no limit).
        n_jobs: As ``study.optimize``.
        show_progress_bar: As ``study.optimize``.
        callbacks: As ``study.optimize``.
    """
    ran = 0

    def count(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        nonlocal ran
        ran += 1

    start = time.monotonic()
    while True:
        left = None if timeout is None else timeout - (time.monotonic() - start)
        todo = None if n_trials is None else n_trials - ran
        if (left is not None and left <= 0) or (todo is not None and todo <= 0):
            return
        try:
            study.optimize(
                objective,
                n_trials=todo,
                timeout=left,
                n_jobs=n_jobs,
                show_progress_bar=show_progress_bar,
                callbacks=[*(callbacks or []), count],
            )
            return
        except ValueError as exc:
            if not _taken_by_another_worker(exc):
                raise
            ran += 1
