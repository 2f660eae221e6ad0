"""Fold evaluation of one trial: in this process, over joblib workers, or in a killable worker.

With a per-trial time limit the folds run in a persistent worker process of this thread
(:mod:`optuna_psms.fms._worker`): a fresh interpreter, not a fork, so no lock held by
another thread of the search can hang it. It returns each fold's result as soon as it is
computed; the search waits at most until the trial's deadline and past it kills the
worker, which is restarted for the next trial. A thread could not be stopped this way: an
SVC stuck in libsvm holds its thread until it returns.
"""

from __future__ import annotations

from collections.abc import Generator
from collections.abc import Iterator
from contextlib import contextmanager
import dataclasses
import math
import pickle
import time
from typing import Any
import warnings

from joblib import delayed
from joblib import Parallel
import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from optuna_psms.fms._memory import limit_memory
from optuna_psms.fms._memory import memory_reason
from optuna_psms.fms._worker import dumps
from optuna_psms.fms._worker import worker_of_this_thread
from optuna_psms.fms._worker import WorkerDied
from optuna_psms.fms._worker import WorkerTimeout
from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.metrics import model_size


Split = tuple[NDArray[np.intp], NDArray[np.intp]]
#: ``(loss, features reaching the model, model size in [0, 1], fit seconds)`` of one fold.
FoldResult = tuple[float, int, float, float]


#: scikit-learn's MLP warns this instead of letting a Ctrl-C in its training loop through.
MLP_INTERRUPTED = "Training interrupted by user."

#: Seconds a timed trial's worker process may take to start, on top of ``trial_timeout``.
STARTUP_GRACE = 60.0


class TrialTimeoutError(Exception):
    """A trial's pipeline ran past ``trial_timeout``; its worker process was killed."""


class FoldError(Exception):
    """A fold raised in the worker process; the message is ``"<ExceptionType>: <text>"``."""


@dataclasses.dataclass(frozen=True)
class FoldTask:
    """What one trial evaluates: a pipeline over its folds, scored by ``metric``."""

    pipeline: Pipeline
    splits: list[Split]
    metric: str
    n_classes: int
    memory_mb: float | None = None  # the trial's memory ceiling (fms/_memory.py), MiB


@contextmanager
def quiet_fit() -> Iterator[None]:
    """Silence warnings (a fit inside a search or a refit), but raise scikit-learn MLP's
    "Training interrupted by user." as the Ctrl-C it was; and fit on one OpenMP thread.

    One thread, as every other component of the pool (``n_jobs=1``): scikit-learn's
    histogram gradient boosting uses OpenMP, whose threads spin while they wait. On the
    2-core machine shared with other jobs (load 8), one ``HistGradientBoostingRegressor()``
    fit on 4,800 rows took 29.2 s with OpenMP's default threads and 0.98 s with one
    (issue 32, 28 Nov 2026).

    ``MLPClassifier``/``MLPRegressor`` catch a Ctrl-C in their training loop, warn and return
    the half-trained model: with the warning silenced the search went on as if nothing had
    been pressed (2 of 12 Ctrl-C's lost on keel:car-good; usertrial7, 26 Nov 2026).

    Raises:
        KeyboardInterrupt: An MLP's training was interrupted by Ctrl-C.
    """
    with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="openmp"):
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", message=MLP_INTERRUPTED)
        try:
            yield
        except UserWarning as exc:
            if str(exc) != MLP_INTERRUPTED:
                raise
            raise KeyboardInterrupt from None


def evaluate_fold(
    task: FoldTask, X: NDArray[np.float64], y: NDArray[Any], fold: int
) -> FoldResult:
    """Fit a clone of the pipeline on the training part of fold ``fold``; score the rest."""
    train, test = task.splits[fold]
    start = time.perf_counter()
    with quiet_fit():
        fitted = clone(task.pipeline).fit(X[train], y[train])
        loss = fold_loss(task.metric, fitted, X[test], y[test], task.n_classes)
        n_used = X.shape[1]
        if len(fitted) > 1:
            n_used = int(np.asarray(fitted[:-1].transform(X[test][:1])).shape[1])
        size = model_size(fitted[-1], len(train))
    if not math.isfinite(loss):
        raise ValueError(f"the {task.metric!r} loss is not finite ({loss})")
    return loss, n_used, size, time.perf_counter() - start


def handle_request(state: dict[str, Any], kind: str, *args: Any) -> Any:
    """Serve one request in the worker process (:mod:`optuna_psms.fms._worker`).

    ``("trial", task_bytes, data_bytes | None)`` loads a trial's :class:`FoldTask` (and new
    data ``(X, y)``, kept for the next trials); ``("fold", i)`` evaluates its fold ``i``.
    """
    if kind == "trial":
        task, data = args
        if data is not None:
            state["data"] = pickle.loads(data)
        state["task"] = pickle.loads(task)
        limit_memory(getattr(state["task"], "memory_mb", None))
        return None
    if kind == "fold":
        X, y = state["data"]
        return evaluate_fold(state["task"], X, y, args[0])
    raise ValueError(f"unknown request {kind!r}")


def _folds_in_worker(
    task: FoldTask, X: NDArray[np.float64], y: NDArray[Any], timeout: float | None
) -> Generator[FoldResult, None, None]:
    worker = worker_of_this_thread()
    done = 0
    try:
        try:
            # Starting the process and importing the pool (seconds the first time on a
            # loaded machine) are not the pipeline's fault: STARTUP_GRACE of their own.
            worker.ensure_started((timeout or 0.0) + STARTUP_GRACE)
        except WorkerTimeout as exc:
            raise TrialTimeoutError(str(exc)) from None
        deadline = None if timeout is None else time.monotonic() + timeout
        data = dumps((X, y)) if worker.set_data(X, y) else None
        requests: list[tuple[Any, ...]] = [("trial", dumps(task), data)]
        requests += [("fold", i) for i in range(len(task.splits))]
        for request in requests:
            worker.send(request)
            kind, payload = worker.reply(deadline)
            if kind == "error":
                if task.memory_mb is not None:
                    worker.kill()  # after a MemoryError, a fresh process for the next trial
                    raise FoldError(memory_reason(str(payload), task.memory_mb))
                raise FoldError(str(payload))
            if request[0] == "fold":
                done += 1
                yield payload
    except WorkerTimeout:
        raise TrialTimeoutError(
            f"exceeded trial_timeout={timeout:g}s ({done} of {len(task.splits)} folds done); "
            f"the pipeline was stopped"
        ) from None
    except WorkerDied as exc:
        reason = f"WorkerDied: {exc}"
        if task.memory_mb is not None:
            reason = memory_reason(reason, task.memory_mb)
        raise FoldError(reason) from None
    finally:
        # Pruning closes this generator between folds (the worker is idle and kept); an
        # exception or Ctrl-C while a fold runs leaves it busy, and then it is killed.
        worker.release()


def run_folds(
    task: FoldTask,
    X: NDArray[np.float64],
    y: NDArray[Any],
    *,
    n_jobs: int = 1,
    trial_timeout: float | None = None,
) -> Generator[FoldResult, None, None]:
    """Yield each fold's result as soon as it is known (in fold order).

    With ``trial_timeout`` or a memory ceiling (``task.memory_mb``, see
    :mod:`optuna_psms.fms._memory`) the folds run in this thread's worker process, killed at
    the deadline (:class:`TrialTimeoutError`); a fold that raises there surfaces as
    :class:`FoldError`, and closing the iterator (pruning) skips the remaining folds.
    Otherwise they run here (``n_jobs=1``, one at a time, so a pruner can stop after any
    fold) or over joblib workers (all folds at once, then yielded).
    """
    folds = range(len(task.splits))
    if trial_timeout is not None or task.memory_mb is not None:
        yield from _folds_in_worker(task, X, y, trial_timeout)
    elif n_jobs == 1:
        for fold in folds:
            yield evaluate_fold(task, X, y, fold)
    else:
        yield from Parallel(n_jobs=n_jobs)(delayed(evaluate_fold)(task, X, y, f) for f in folds)
