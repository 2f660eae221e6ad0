"""Ctrl-C, in one place: the trials it leaves ``RUNNING``, the line said while trials finish,
and the handler of a comparison's worker processes.

Optuna fails the trial whose objective a Ctrl-C (``KeyboardInterrupt``) cuts. A Ctrl-C that
lands in Optuna's own code instead (in the sampler while ``study.ask`` prepares the trial, or
in the storage write that ends it) leaves the trial ``RUNNING`` for good: a rerun of
``optuna-psms select`` then takes it for another worker's trial still running (and leaves the
saving of the model to that worker), and the samplers see a trial in progress.

:class:`StartedTrials` remembers, while it is active, the trials this process starts in a
storage or takes from its queue of enqueued ones; after the interrupt,
:meth:`StartedTrials.fail_running` fails those still ``RUNNING``, with the user attr
``fms:interrupted = True``. Other workers' trials are never touched.

A Ctrl-C that lands between the storage's commit of a trial and the recording of its id is
held until the id is recorded, then raised (:func:`_ctrl_c_held`), so no such trial escapes.
Every other storage call runs with a Ctrl-C held as well: one landing inside an RDB storage's
session left SQLite's lock with the interrupted connection, and the process could then write
nothing (not even the failure of the trial the Ctrl-C cut).
What is left: a *second* Ctrl-C during that same storage call raises at once (a storage that
hangs must stay interruptible), and the trial it was creating may stay ``RUNNING``
(``docs/deployment.md``, "A trial a Ctrl-C left RUNNING", says what to do); so does a kill.

It wraps the storage's trial-creating methods, one of them private (``_create_new_trial``,
which Optuna's cache over an RDB storage calls), and reads a frozen trial's id: Optuna
internals, hence here in :mod:`optuna_psms._compat`; it is tested on the oldest supported
Optuna too (``tests/compat/test_interrupted_trials.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from contextlib import nullcontext
import signal
import threading
from types import TracebackType
from typing import Any
from typing import TYPE_CHECKING

from optuna_psms._messages import say


if TYPE_CHECKING:
    from optuna.trial import TrialState

# Optuna is imported on use: the command line imports this module for ``--help`` too.

#: The user attr (``True``) of a trial failed because a Ctrl-C cut it
#: (``optuna_psms.fms._outcome.INTERRUPTED``).
INTERRUPTED_ATTR = "fms:interrupted"


def cut_by_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while Python handled a Ctrl-C (a KeyboardInterrupt in its
    ``__context__`` chain).

    Optuna 5.0's ``_run_trial`` turns a Ctrl-C that lands inside its final storage write into
    an ``UnboundLocalError`` from its ``finally`` block (seen in ``.ci/run``, 25 Nov 2026);
    that is still the user's interrupt.
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__context__
    return False


def _storage_methods() -> tuple[str, ...]:
    """The storage methods a study calls: :class:`optuna.storages.BaseStorage`'s public ones and
    the private ones Optuna's cache over an RDB storage calls on it (Optuna internals)."""
    import optuna

    base = optuna.storages.BaseStorage
    public = [n for n in dir(base) if not n.startswith("_") and callable(getattr(base, n))]
    private = ["_get_trials", "_set_trial_param", "_get_best_trial_id", "_get_stale_trial_ids"]
    return tuple(public + private)


def _held(original: Any) -> Any:
    """``original`` (a storage method) run with a Ctrl-C held until it returns."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with _ctrl_c_held():
            return original(*args, **kwargs)

    return call


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) that arrives inside the block until the block ends.

    The storage call that creates a trial and the line that records its id are one step for a
    Ctrl-C: one that lands between the storage's commit and the recording is raised after the
    recording, so :meth:`StartedTrials.fail_running` finds the trial. A second Ctrl-C inside
    the block is not held (a storage that hangs stays interruptible): it raises at once, and
    the trial being created, if the storage created it, is left ``RUNNING``.

    Python runs signal handlers in the main thread only, and a handler can be set there only:
    elsewhere (the threads of ``study.optimize(n_jobs=...)``) no Ctrl-C can land, and nothing
    is held. Nothing is held either when the SIGINT handler is not a Python function (ignored,
    or set outside Python), or inside an enclosing hold.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or getattr(previous, "_psms_hold", False):
        yield
        return
    held: list[Any] = []

    def hold(signum: int, frame: Any) -> None:
        if held:  # the second Ctrl-C: the user insists
            previous(signum, frame)
        else:
            held.append(frame)

    hold._psms_hold = True  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            previous(signal.SIGINT, held[0])


class StartedTrials:
    """Within a ``with`` block, the ids of the trials this process starts in ``storage``.

    It wraps the storage object's methods that create a trial (``create_new_trial``, and
    ``_create_new_trial``, which Optuna's cache over an RDB storage calls) and that set an
    enqueued trial ``RUNNING`` (``set_trial_state_values``), and restores them on leaving.
    Pass the storage object the study is created with (a URL string or ``None`` records
    nothing). :meth:`in_progress` counts those of its trials that have begun and not ended,
    from the same calls (no storage read), for a line said when Ctrl-C lands.

    Args:
        storage: The storage object of the study.

    Example:

        .. testcode::

            import optuna

            from optuna_psms._compat._interrupted import StartedTrials

            storage = optuna.storages.InMemoryStorage()
            study = optuna.create_study(storage=storage)
            with StartedTrials(storage) as started:
                trial = study.ask()  # a Ctrl-C here would leave it RUNNING
            assert started.fail_running() == [trial.number]
            assert study.trials[0].state == optuna.trial.TrialState.FAIL
    """

    def __init__(self, storage: Any) -> None:
        import optuna

        self._storage = storage if isinstance(storage, optuna.storages.BaseStorage) else None
        self.trial_ids: set[int] = set()
        # The ids of trials begun (RUNNING) and not seen to end; changed by the threads of
        # n_jobs > 1, read by a signal handler: set.add/discard and len hold the GIL.
        self._running: set[int] = set()
        self._replaced: list[str] = []

    def in_progress(self) -> int:
        """The number of trials started here (created ``RUNNING`` or taken from the queue) that
        have not ended (no state set to a finished one through this storage object).

        It reads no storage, so a signal handler may call it.
        """
        return len(self._running)

    def __enter__(self) -> StartedTrials:
        from optuna.trial import TrialState

        storage = self._storage
        if storage is None:
            return self
        started = self.trial_ids
        running = self._running

        def wrap(name: str, wrapper: Any) -> None:
            if name in vars(storage) or not hasattr(storage, name):
                return  # wrapped already (nested), or not a method of this storage
            setattr(storage, name, wrapper(getattr(storage, name)))
            self._replaced.append(name)

        # Each storage call and the recording of its trial run with a Ctrl-C held, so that
        # none lands between the storage's commit and the recording (_ctrl_c_held).
        def create_new_trial(original: Any) -> Any:
            def create(*args: Any, **kwargs: Any) -> Any:
                # create_new_trial(study_id, template_trial=None): RUNNING without a template
                template = kwargs.get("template_trial", args[1] if len(args) > 1 else None)
                with _ctrl_c_held():
                    trial_id = original(*args, **kwargs)
                    started.add(int(trial_id))
                    if template is None or template.state == TrialState.RUNNING:
                        running.add(int(trial_id))
                return trial_id

            return create

        def create_frozen(original: Any) -> Any:
            def create(*args: Any, **kwargs: Any) -> Any:
                with _ctrl_c_held():
                    frozen = original(*args, **kwargs)
                    started.add(int(frozen._trial_id))
                    if frozen.state == TrialState.RUNNING:
                        running.add(int(frozen._trial_id))
                return frozen

            return create

        def set_state(original: Any) -> Any:
            def set_trial_state_values(
                trial_id: int, state: TrialState, values: Any = None
            ) -> bool:
                with _ctrl_c_held():
                    taken = bool(original(trial_id, state=state, values=values))
                    if taken and state == TrialState.RUNNING:  # an enqueued trial, now ours
                        started.add(int(trial_id))
                        running.add(int(trial_id))
                    elif taken and state.is_finished():
                        running.discard(int(trial_id))
                return taken

            return set_trial_state_values

        wrap("create_new_trial", create_new_trial)
        wrap("_create_new_trial", create_frozen)
        wrap("set_trial_state_values", set_state)
        # Every other storage call too: a Ctrl-C landing inside an RDB storage's session (a
        # write's commit, a read's open cursor) left SQLite's lock held by the interrupted
        # connection, and each later write of the process waited 5 s and failed ("database is
        # locked"): the trial cut by the Ctrl-C could not be failed, Optuna's _run_trial
        # raised "Should not reach." and select exited 1 (1 run in ~40 of
        # test_ctrl_c_saves_the_best_so_far_and_the_study_resumes). Held, it is raised as the
        # call returns, with the session closed.
        for name in _storage_methods():
            wrap(name, _held)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for name in self._replaced:
            delattr(self._storage, name)
        self._replaced.clear()

    def fail_running(self) -> list[int]:
        """Fail the trials started here that are still ``RUNNING``, each with the user attr
        ``fms:interrupted = True``; a trial another process finished meanwhile, or one the
        storage cannot reach, is left as it is.

        Returns:
            The numbers of the trials failed.
        """
        from optuna.trial import TrialState

        storage = self._storage
        failed: list[int] = []
        if storage is None:
            return failed
        for trial_id in sorted(self.trial_ids):
            try:
                trial = storage.get_trial(trial_id)
                if trial.state != TrialState.RUNNING:
                    continue
                storage.set_trial_user_attr(trial_id, INTERRUPTED_ATTR, True)
                storage.set_trial_state_values(trial_id, state=TrialState.FAIL)
            except Exception:  # finished meanwhile, or the interrupt cut the connection
                continue
            failed.append(trial.number)
        return failed


@contextmanager
def trials_failed_on_ctrl_c(storage: Any, *, n_jobs: int) -> Iterator[StartedTrials]:
    """Run a search in the block so that a Ctrl-C leaves no trial of this process ``RUNNING``.

    Within the block, :class:`StartedTrials` records the trials started in ``storage``; with
    ``n_jobs`` other than 1 the first Ctrl-C that lands while trials are in progress says at
    once that the search waits for them (:func:`say_when_trials_finish`).
    On a ``KeyboardInterrupt``, or an exception raised while Python handled one
    (:func:`cut_by_ctrl_c`, re-raised as a ``KeyboardInterrupt`` from it), the trials started
    here and still ``RUNNING`` are failed (``fms:interrupted``) before it propagates, so the
    study can be resumed. ``FullModelSelector.fit`` / ``FullModelRegressor.fit`` run their
    search in it, and so ``optuna-psms select`` relies on it.

    Args:
        storage: The storage object of the study (see :class:`StartedTrials`).
        n_jobs: The search's ``n_jobs``.
    """

    started = StartedTrials(storage)
    finishing: Any = say_when_trials_finish(started.in_progress) if n_jobs != 1 else nullcontext()
    try:
        with started, finishing:
            yield started
    except KeyboardInterrupt:
        started.fail_running()
        raise
    except Exception as exc:
        if not cut_by_ctrl_c(exc):
            raise
        started.fail_running()
        raise KeyboardInterrupt from exc


# ---- the line said while trials in threads finish (select, fit with n_jobs > 1)
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

    def handler(signum: int, frame: Any) -> None:
        if not said:
            n_running = in_progress()
            if n_running > 0:
                said.append(True)
                try:
                    say(finishing_line(n_running))
                except (OSError, RuntimeError):  # stderr closed, or a reentrant write
                    pass
        previous(signum, frame)

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# ---- a comparison's main process: the first Ctrl-C stops, the second interrupts
@contextmanager
def sigint_handler(handler: Any) -> Iterator[None]:
    """Install a SIGINT handler for the block (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def stop_on_sigint(stop: Any) -> Callable[[int, Any], None]:
    """First Ctrl-C: ask the running studies to stop after their current trial. Second:
    KeyboardInterrupt at once."""

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    return handler
