"""Fold evaluation of one trial: in this process, over joblib workers, or in a killable child.

With a per-trial time limit the folds run in a child process that sends each fold's result
through a pipe as soon as it is computed. The parent waits at most until the trial's
deadline; past it, or when the trial is pruned, it kills the child. A thread could not be
stopped this way: an SVC stuck in libsvm holds its thread until it returns.

On Linux the child is forked: it starts in milliseconds, inherits the data without a copy
and never re-imports the user's script (so a script without an ``if __name__ ==
"__main__":`` guard works). Forking a process with other threads (``n_jobs > 1``) can leave
a lock held in the child; such a child hangs and is stopped by the same time limit, so the
cost is that one trial. Elsewhere the ``forkserver`` (macOS) or ``spawn`` (Windows) start
method is used, and, as for any multiprocessing code, the main script must be guarded.
"""

from __future__ import annotations

from collections.abc import Generator
import math
import multiprocessing
from multiprocessing.connection import Connection
import sys
import threading
import time
from typing import Any
import warnings

from joblib import delayed
from joblib import Parallel
import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.metrics import model_size


Split = tuple[NDArray[np.intp], NDArray[np.intp]]
#: ``(loss, features reaching the model, model size in [0, 1], fit seconds)`` of one fold.
FoldResult = tuple[float, int, float, float]


#: Seconds a timed trial's child process may take to start, on top of ``trial_timeout``.
STARTUP_GRACE = 60.0


class TrialTimeoutError(Exception):
    """A trial's pipeline ran past ``trial_timeout``; its child process was killed."""


class FoldError(Exception):
    """A fold raised in the child process; the message is ``"<ExceptionType>: <text>"``."""


def evaluate_fold(
    pipeline: Pipeline,
    X: NDArray[np.float64],
    y: NDArray[Any],
    split: Split,
    metric: str,
    n_classes: int,
) -> FoldResult:
    """Fit a clone of ``pipeline`` on the training part of ``split`` and score the rest."""
    train, test = split
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(pipeline).fit(X[train], y[train])
        loss = fold_loss(metric, fitted, X[test], y[test], n_classes)
        n_used = X.shape[1]
        if len(fitted) > 1:
            n_used = int(np.asarray(fitted[:-1].transform(X[test][:1])).shape[1])
        size = model_size(fitted[-1], len(train))
    if not math.isfinite(loss):
        raise ValueError(f"the {metric!r} loss is not finite ({loss})")
    return loss, n_used, size, time.perf_counter() - start


def _worker(
    conn: Connection,
    pipeline: Pipeline,
    X: NDArray[np.float64],
    y: NDArray[Any],
    splits: list[Split],
    metric: str,
    n_classes: int,
) -> None:
    try:
        conn.send(("ready", None))  # arguments unpickled, modules imported
        for split in splits:
            conn.send(("ok", evaluate_fold(pipeline, X, y, split, metric, n_classes)))
    except BaseException as exc:  # reported to the parent, which fails the trial
        conn.send(("error", f"{type(exc).__name__}: {exc}"[:1000]))
    finally:
        conn.close()


_context_lock = threading.Lock()
_context: Any = None


def _process_context() -> Any:
    """The multiprocessing context of timed trials (see the module docstring)."""
    global _context
    with _context_lock:
        if _context is None:
            ctx: Any
            methods = multiprocessing.get_all_start_methods()
            if sys.platform.startswith("linux") and "fork" in methods:
                ctx = multiprocessing.get_context("fork")
            elif "forkserver" in methods:
                ctx = multiprocessing.get_context("forkserver")
                # The server imports the pool once; each trial's child is forked from it.
                ctx.set_forkserver_preload(["optuna_psms.fms.regression"])
            else:
                ctx = multiprocessing.get_context("spawn")
            _context = ctx
        return _context


def _folds_in_child(
    pipeline: Pipeline,
    X: NDArray[np.float64],
    y: NDArray[Any],
    splits: list[Split],
    metric: str,
    n_classes: int,
    timeout: float,
) -> Generator[FoldResult, None, None]:
    ctx = _process_context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_worker, args=(sender, pipeline, X, y, splits, metric, n_classes), daemon=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads, Python 3.12+
        proc.start()
    sender.close()
    try:
        # The limit counts from the moment the child is ready: starting the process and
        # importing the pool (seconds the first time on a loaded machine) are not the
        # pipeline's fault. They get STARTUP_GRACE seconds of their own.
        if not receiver.poll(timeout + STARTUP_GRACE):
            raise TrialTimeoutError(
                f"the trial's process did not start within {timeout + STARTUP_GRACE:g}s"
            )
        try:
            receiver.recv()
        except EOFError:
            raise FoldError("WorkerDied: the trial's process ended while starting") from None
        deadline = time.monotonic() + timeout
        for done in range(len(splits)):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not receiver.poll(remaining):
                raise TrialTimeoutError(
                    f"exceeded trial_timeout={timeout:g}s ({done} of {len(splits)} folds done); "
                    f"the pipeline was stopped"
                )
            try:
                kind, payload = receiver.recv()
            except EOFError:
                proc.join(1.0)
                raise FoldError(
                    f"WorkerDied: the trial's process ended (exit code {proc.exitcode})"
                ) from None
            if kind == "error":
                raise FoldError(str(payload))
            yield payload
    finally:
        # Runs on success, timeout, error, pruning (generator closed) and Ctrl-C alike.
        if proc.is_alive():
            proc.kill()
        proc.join()
        receiver.close()


def run_folds(
    pipeline: Pipeline,
    X: NDArray[np.float64],
    y: NDArray[Any],
    splits: list[Split],
    metric: str,
    n_classes: int,
    *,
    n_jobs: int = 1,
    trial_timeout: float | None = None,
) -> Generator[FoldResult, None, None]:
    """Yield each fold's result as soon as it is known (in fold order).

    With ``trial_timeout`` the folds run in a child process killed at the deadline
    (:class:`TrialTimeoutError`) or when the caller closes the iterator (pruning); a fold
    that raises there surfaces as :class:`FoldError`. Otherwise they run here (``n_jobs=1``,
    one at a time, so a pruner can stop after any fold) or over joblib workers (all folds
    at once, then yielded).
    """
    if trial_timeout is not None:
        yield from _folds_in_child(pipeline, X, y, splits, metric, n_classes, trial_timeout)
    elif n_jobs == 1:
        for split in splits:
            yield evaluate_fold(pipeline, X, y, split, metric, n_classes)
    else:
        results = Parallel(n_jobs=n_jobs)(
            delayed(evaluate_fold)(pipeline, X, y, s, metric, n_classes) for s in splits
        )
        yield from results
