"""The persistent process that runs timed trials' folds (``trial_timeout``).

Each thread of the search that runs timed trials owns one worker: a fresh Python process
started with :mod:`subprocess` (``python -c``, never a fork of the searching process), so no
lock another thread holds here (logging, BLAS, OpenMP, a user's) can be inherited in a held
state and hang the fit. The worker imports scikit-learn and the pools once, then serves
trial after trial; it is killed only when a trial runs past its limit (or is interrupted
mid-fold), and a new one is started for the next trial.

It never re-imports the user's ``__main__`` (unlike the ``spawn`` and ``forkserver`` start
methods of :mod:`multiprocessing`), so a script without an ``if __name__ == "__main__":``
guard works. Pipelines travel as cloudpickle bytes, so an estimator class defined in that
script travels by value; the data ``(X, y)`` is sent once per objective and kept there.
This is in-memory transport between two processes of the same search, never storage:
what goes to storage stays JSON.

Frames on the worker's stdin/stdout are an 8-byte length followed by a pickle; the worker
points its own file descriptor 1 at stderr, so prints of a pipeline cannot corrupt them. A
reader thread in the parent turns the frames into a queue, so the parent waits with a
timeout on every platform. The worker exits when its stdin closes or its parent dies.
"""

from __future__ import annotations

import atexit
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

import cloudpickle


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
            "from optuna_psms.fms._worker import serve; serve()"
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
    from optuna_psms.fms._folds import handle_request  # scikit-learn and the pools, once

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
