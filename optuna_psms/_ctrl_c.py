"""The line said at once when the first Ctrl-C lands while trials run in threads
(``n_jobs`` above 1), by ``optuna-psms select`` and by ``FullModelSelector.fit`` /
``FullModelRegressor.fit``.

Standard library only: the command line imports it for ``--help`` too.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
import signal
import sys
import threading
from typing import Any


def _say(line: str) -> None:
    """``line`` on stderr, after what stdout holds (as :func:`optuna_psms._messages.say`)."""
    sys.stdout.flush()
    print(line, file=sys.stderr, flush=True)


def finishing_line(n_running: int) -> str:
    """The line said at once when the first Ctrl-C lands while ``n_running`` trials run in
    threads (``--n-jobs`` / ``n_jobs`` above 1): the search waits for them, and a second
    Ctrl-C fails them."""
    trials = "the trial" if n_running == 1 else f"the {n_running} trials"
    return (
        f"optuna-psms: Ctrl-C: the search stops once {trials} in progress "
        f"finish{'es' if n_running == 1 else ''} (Ctrl-C again fails "
        f"{'it' if n_running == 1 else 'them'} instead)"
    )


@contextmanager
def say_when_trials_finish(in_progress: Callable[[], int]) -> Iterator[None]:
    """Within the block, the first Ctrl-C that lands while trials are in progress prints
    :func:`finishing_line` on stderr before it raises ``KeyboardInterrupt`` as before.

    With ``n_jobs`` above 1 Optuna runs the trials in threads and the main thread, where a
    Ctrl-C lands, waits for them; the interrupt makes it leave Optuna's thread pool, which
    waits for the trials in progress to end (a whole CV each) with nothing printed, as if the
    command hung. The line says so at once. Each Ctrl-C is then handled by the handler that
    was in place (``KeyboardInterrupt``), the line is said once, and nothing is said when no
    trial is in progress (the Ctrl-C stops at once).

    Outside the main thread, or when the SIGINT handler is not a Python function, nothing is
    changed.

    Args:
        in_progress: The number of trials in progress; called in the signal handler, so it
            must not block (:meth:`~optuna_psms._compat._interrupted.StartedTrials.in_progress`).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    said: list[bool] = []

    def say(signum: int, frame: Any) -> None:
        if not said:
            n_running = in_progress()
            if n_running > 0:
                said.append(True)
                try:
                    _say(finishing_line(n_running))
                except (OSError, RuntimeError):  # stderr closed, or a reentrant write
                    pass
        previous(signum, frame)

    signal.signal(signal.SIGINT, say)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
