"""Fold evaluation of one trial: in this process, over joblib workers, or in a killable worker.

With a per-trial time limit the folds run in a persistent worker process of this thread
(:class:`FoldWorker`, below): a fresh interpreter, not a fork, so no lock held by
another thread of the search can hang it. It returns each fold's result as soon as it is
computed; the search waits at most until the trial's deadline and past it kills the
worker, which is restarted for the next trial. A thread could not be stopped this way: an
SVC stuck in libsvm holds its thread until it returns.
"""

from __future__ import annotations

import atexit
from collections.abc import Generator
from collections.abc import Iterator
from contextlib import contextmanager
import dataclasses
import math
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any
from typing import BinaryIO
import warnings

import cloudpickle
from joblib import delayed
from joblib import Parallel
import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from optuna_psms.fms._memory import limit_memory
from optuna_psms.fms._memory import memory_reason
from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.metrics import model_size


# ---- The persistent process that runs timed trials' folds (``trial_timeout``).

_HEADER = struct.Struct("!Q")


class WorkerTimeout(Exception):
    """No reply before the deadline (the worker has been killed)."""


class WorkerDied(Exception):
    """The worker's output ended: it exited or was killed."""


def dumps(obj: Any) -> bytes:
    """Cloudpickle bytes of ``obj`` (classes of ``__main__`` by value)."""
    return bytes(cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _write(stream: BinaryIO, message: Any) -> None:
    payload = dumps(message)
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _read(stream: BinaryIO) -> Any:
    """One frame, or ``None`` at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        return None
    return pickle.loads(payload)


class FoldWorker:
    """Parent side of one worker process; used by one thread at a time."""

    def __init__(self) -> None:
        self.owner = threading.current_thread()
        self.pid_of_parent = os.getpid()
        self.proc: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[Any] = queue.Queue()
        self._busy = False
        self._data: tuple[Any, Any] | None = None

    # ------------------------------------------------------------------ life cycle
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure_started(self, grace: float) -> None:
        """Start the process unless it runs; wait at most ``grace`` s until it is ready."""
        if self.alive:
            return
        self.kill()
        paths = [p for p in sys.path if isinstance(p, str)]
        code = (
            f"import sys; sys.path[:0] = {paths!r}; "
            "from optuna_psms.fms._folds import serve; serve()"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._replies = queue.Queue()
        self._data = None
        stdout = self.proc.stdout
        replies = self._replies
        assert stdout is not None

        def pump() -> None:
            frame: Any = ()
            while frame is not None:
                try:
                    frame = _read(stdout)  # type: ignore[arg-type]
                except Exception:  # an undecodable reply counts as the worker's end
                    frame = None
                replies.put(frame)

        threading.Thread(target=pump, name="optuna-psms-fold-worker", daemon=True).start()
        self._busy = True
        try:
            self.reply(time.monotonic() + grace)
        except WorkerTimeout:
            raise WorkerTimeout(f"the trial's process did not start within {grace:g}s") from None

    def kill(self) -> None:
        """Stop the process at once (idle or busy) and forget its data."""
        proc, self.proc = self.proc, None
        self._data = None
        self._busy = False
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    # ------------------------------------------------------------------- requests
    def send(self, message: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            _write(self.proc.stdin, message)  # type: ignore[arg-type]
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._died()) from None
        self._busy = True

    def reply(self, deadline: float | None) -> Any:
        """The next reply, waiting until ``deadline`` (``time.monotonic``; ``None``: no limit);
        kills on timeout."""
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        try:
            frame = self._replies.get(timeout=wait)
        except queue.Empty:
            self.kill()
            raise WorkerTimeout("no reply before the deadline") from None
        if frame is None:
            message = self._died()
            self.kill()
            raise WorkerDied(message)
        self._busy = False
        return frame

    def _died(self) -> str:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                pass
        return f"the trial's process ended (exit code {code})"

    def set_data(self, X: Any, y: Any) -> bool:
        """Whether ``(X, y)`` must be sent (not the arrays the worker already holds)."""
        if self._data is not None and self._data[0] is X and self._data[1] is y:
            return False
        self._data = (X, y)  # the references keep the identities from being reused
        return True

    def release(self) -> None:
        """After a trial: a worker still computing (trial interrupted mid-fold) is killed."""
        if self._busy:
            self.kill()


# ------------------------------------------------------------------ one worker per thread
_registry_lock = threading.Lock()
_workers: list[FoldWorker] = []
_local = threading.local()


def worker_of_this_thread() -> FoldWorker:
    """This thread's worker (created lazily); workers of finished threads are stopped."""
    worker: FoldWorker | None = getattr(_local, "worker", None)
    if worker is not None and worker.pid_of_parent == os.getpid():
        return worker
    worker = FoldWorker()
    _local.worker = worker
    with _registry_lock:
        for other in [w for w in _workers if not w.owner.is_alive()]:
            other.kill()
            _workers.remove(other)
        _workers.append(worker)
    return worker


def _stop_all() -> None:
    with _registry_lock:
        for worker in _workers:
            if worker.pid_of_parent == os.getpid():
                worker.kill()
        _workers.clear()


def _forget_after_fork() -> None:
    # A forked child must neither use nor kill its parent's workers.
    global _local, _registry_lock
    _registry_lock = threading.Lock()
    _workers.clear()
    _local = threading.local()


atexit.register(_stop_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


# ----------------------------------------------------------------------- worker side
def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def serve() -> None:
    """Main loop of the worker process (``python -c``; see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # prints of a pipeline go to stderr, never into the frames
    os.close(null)
    if os.name == "posix":
        threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    state: dict[str, Any] = {}
    _write(out, ("ready", os.getpid()))
    while True:
        try:
            message = _read(inp)
        except Exception as exc:
            _write(out, ("error", f"WorkerDied: unreadable request ({exc})"[:1000]))
            return
        if message is None:
            return
        try:
            result = handle_request(state, *message)
        except BaseException as exc:  # reported to the parent, which fails the trial
            _write(out, ("error", f"{type(exc).__name__}: {exc}"[:1000]))
        else:
            _write(out, ("ok", result))


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
    """Serve one request in the worker process (:mod:`optuna_psms.fms._folds`).

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
