"""Ctrl-C at a point fixed in advance in a search with ``n_jobs=2``, with no timer.

Optuna runs each trial of ``n_jobs > 1`` in a thread of a ``ThreadPoolExecutor``; the main
thread only submits trials and waits for them (``concurrent.futures.wait``). A real Ctrl-C
(SIGINT) is raised in the main thread, so the tests raise it there:

- :func:`ctrl_c_at_submit`: at a submit, once ``n`` trials are submitted (not at a wait: how
  many trials a wait collects, hence submits after it, depends on the threads).
- :func:`blocked_threads`: the CV of chosen trials blocks until the test releases it (a
  ``Barrier``, then an ``Event``); the first Ctrl-C comes in the main thread's wait once both
  threads run a blocked trial, and optionally a second one in the join of the threads.
- :func:`sigint_with_two_trials_running`: that, with the first two trials blocked and SIGINT.

The Ctrl-C itself is the caller's: ``signal.raise_signal(signal.SIGINT)``, which runs the
SIGINT handler before it returns (``select``'s own, or Python's under the conftest fixture
``default_ctrl_c``), or a bare ``raise KeyboardInterrupt``, as that handler does.

**Optuna's private module.** Both hooks replace names in ``optuna.study._optimize`` (Optuna
5.0.0): ``ThreadPoolExecutor`` and ``wait``, the names that module imports from
``concurrent.futures`` and calls in ``_optimize`` for ``n_jobs > 1``. Optuna has no public
hook in the loop of its threads, and a test of what a Ctrl-C there does needs one; the
package itself does not use the module (``tests/compat/test_private_api_boundary.py``). If Optuna
renames the module or these names, ``monkeypatch.setattr`` raises ``AttributeError`` (the
tests fail, loudly). If it keeps them but stops calling them (another pool, another wait),
the patches are not reached: a blocked-thread test then hangs (both threads wait at the
Barrier for a main thread that never comes; ``-o faulthandler_timeout=60`` shows where) or
fails its asserts, and the submit tests fail theirs. This module is the one place to adapt.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import concurrent.futures
import contextlib
import signal
import threading
from typing import Any
from typing import TypeVar

from optuna.study import _optimize
import pytest


T = TypeVar("T")


def ctrl_c_at_submit(patch: pytest.MonkeyPatch, n: int) -> None:
    """``KeyboardInterrupt`` in the main thread at the submit of trial ``n + 1`` (after
    ``n`` submits), through ``patch`` (undone with it)."""
    submitted: list[int] = []

    class Executor(concurrent.futures.ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            if len(submitted) == n:
                raise KeyboardInterrupt
            submitted.append(1)
            return super().submit(*args, **kwargs)

    patch.setattr(_optimize, "ThreadPoolExecutor", Executor)


@contextlib.contextmanager
def blocked_threads(
    patch: pytest.MonkeyPatch,
    *,
    blocks: Callable[[int], bool],
    first_ctrl_c: Callable[[threading.Event], None],
    second_ctrl_c: Callable[[], None] | None = None,
) -> Iterator[threading.Event]:
    """Block the CV of chosen trials and call ``first_ctrl_c`` (and ``second_ctrl_c``) at
    fixed points of Optuna's ``n_jobs=2`` loop; yields the ``Event`` that releases the CV.

    Args:
        patch: Where the patches go (a ``monkeypatch.context()``: undone when it closes).
        blocks: Whether the CV of the ``k``-th call (0-based, in call order over both
            threads) blocks until the release. The blocked trials must be able to occupy
            both threads at once (e.g. ``k < 2``, or ``k >= 2``).
        first_ctrl_c: Called in the main thread, in Optuna's wait for the threads, once both
            threads run a blocked trial; it gets the release ``Event`` (to let the trials in
            progress finish) and should deliver the Ctrl-C.
        second_ctrl_c: If given, called in the main thread in the join of the threads (the
            executor's ``shutdown``), after the join is started without waiting; the threads
            are joined for real when the ``with`` block ends. Without it the join waits.

    On leaving the ``with`` block (normally or by an exception) the CV is released and the
    threads left running by a second Ctrl-C are joined, so no thread outlives the test.
    """
    from optuna_psms.fms import objective as objective_module
    from optuna_psms.fms._folds import run_folds as real_folds

    release = threading.Event()
    both_blocked = threading.Barrier(3)  # the two threads' blocked trials and the main thread
    folds: list[int] = []
    lock = threading.Lock()

    def run_folds(*args: Any, **kwargs: Any) -> Any:
        with lock:
            folds.append(1)
            k = len(folds) - 1
        if blocks(k):
            both_blocked.wait()
            release.wait()
        return real_folds(*args, **kwargs)

    def wait(fs: Any, timeout: Any = None, return_when: Any = None) -> Any:
        # The first Ctrl-C, once both threads run a blocked trial. Until then the real wait,
        # in short steps: with both threads blocked it would never return. (The steps are a
        # poll, not a timer the outcome depends on: any step length gives the same result.)
        while True:
            if both_blocked.n_waiting == 2:
                both_blocked.wait()
                first_ctrl_c(release)
            done, not_done = concurrent.futures.wait(fs, 0.05, return_when)
            if done:
                return done, not_done

    executors: list[concurrent.futures.ThreadPoolExecutor] = []

    class Executor(concurrent.futures.ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            if second_ctrl_c is None:
                super().shutdown(wait=wait, cancel_futures=cancel_futures)
                return
            executors.append(self)  # the second Ctrl-C, in the join of the threads
            super().shutdown(wait=False)
            second_ctrl_c()

    patch.setattr(objective_module, "run_folds", run_folds)
    patch.setattr(_optimize, "wait", wait)
    patch.setattr(_optimize, "ThreadPoolExecutor", Executor)
    try:
        yield release
    finally:
        release.set()
        for executor in executors:  # joins its threads
            concurrent.futures.ThreadPoolExecutor.shutdown(executor, wait=True)


@contextlib.contextmanager
def sigint_with_two_trials_running(
    patch: pytest.MonkeyPatch, *, second: bool, look: Callable[[], T]
) -> Iterator[list[T]]:
    """SIGINT (``signal.raise_signal``) in the main thread's wait once the first two trials run,
    one in each thread; yields the list that gets ``look()``, called right after the handler.

    Without ``second`` the two trials are then released and finish; with it they stay blocked
    and a second SIGINT comes in the join of the threads (see :func:`blocked_threads`).
    """
    seen: list[T] = []

    def first_ctrl_c(release: threading.Event) -> None:
        try:
            signal.raise_signal(signal.SIGINT)
        finally:
            seen.append(look())
            if not second:
                release.set()  # the trials in progress finish now

    def second_ctrl_c() -> None:
        signal.raise_signal(signal.SIGINT)

    with blocked_threads(
        patch,
        blocks=lambda k: k < 2,  # the first two trials run until the test releases them
        first_ctrl_c=first_ctrl_c,
        second_ctrl_c=second_ctrl_c if second else None,
    ):
        yield seen
