"""Run the studies of a comparison (samplers x seeds on one objective), in worker processes.

Each study is topped up to its number of COMPLETE trials, so a comparison resumes where it
stopped; Ctrl-C stops every study after its current trial. The studies themselves (names,
attrs, storage, creating them): :mod:`optuna_psms.compare._studies`.
"""

from __future__ import annotations

from collections.abc import Callable
import concurrent.futures
from dataclasses import dataclass
import multiprocessing
import queue
import signal
import threading
from typing import Any

import optuna
from optuna.trial import TrialState

from optuna_psms._compat._interrupted import cut_by_ctrl_c
from optuna_psms._compat._interrupted import sigint_handler
from optuna_psms._compat._interrupted import StartedTrials
from optuna_psms._compat._interrupted import stop_on_sigint
from optuna_psms.compare._objective import Objective
from optuna_psms.compare._objective import ObjectiveSpec
from optuna_psms.compare._studies import _complete
from optuna_psms.compare._studies import ComparisonError
from optuna_psms.compare._studies import open_comparison_storage
from optuna_psms.compare._studies import Task
from optuna_psms.samplers._registry import make_sampler


@dataclass(frozen=True)
class _Outcome:
    study_name: str
    status: str  # "done" | "interrupted" | "error"
    message: str = ""


# ---- worker side ---------------------------------------------------------------------

_progress: Any = None
_stop: Any = None
#: A worker's first copy of each objective spec: the later tasks of the same spec reuse it,
#: and with it the data it read (:meth:`ObjectiveSpec.load`), so a worker reads a CSV file
#: once, not once per study. A worker lives for one comparison.
_specs: dict[ObjectiveSpec, ObjectiveSpec] = {}


def _init_worker(progress: Any, stop: Any, verbosity: int) -> None:
    global _progress, _stop
    _progress, _stop = progress, stop
    optuna.logging.set_verbosity(verbosity)
    # Ctrl-C in a terminal reaches every process of the group; workers ignore it and stop
    # when the main process sets `stop` (after their current trial).
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # already inherited; kept explicit


def _top_up(
    task: Task,
    objective: Objective,
    storage: optuna.storages.BaseStorage,
    on_complete: Callable[[], None],
    should_stop: Callable[[], bool],
    publish_every: int = 0,
) -> _Outcome:
    """Run ``task``'s study until it has ``n_trials`` COMPLETE trials (or is stopped),
    publishing its figures every ``publish_every`` trials (``0``: never).

    No pruner: a comparison of samplers gives every trial its full evaluation (full model
    selection reports each fold, and Optuna's default MedianPruner would prune most trials,
    which then count as not completed).
    """
    study = optuna.load_study(
        study_name=task.study_name,
        storage=storage,
        sampler=make_sampler(task.sampler, task.seed),
        pruner=optuna.pruners.NopPruner(),
    )

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.state == TrialState.COMPLETE:
            on_complete()
        if should_stop():
            study.stop()

    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] = [callback]
    if publish_every:
        from optuna_psms.visualization import PublishCallback

        callbacks.append(PublishCallback(publish_every))
    failed_in_a_row = 0
    while True:
        done = _complete(study)
        missing = task.n_trials - done
        if missing <= 0:
            return _Outcome(task.study_name, "done")
        if should_stop():
            return _Outcome(task.study_name, "interrupted")
        try:
            if task.workers_sim > 1:
                _simulate(study, objective, missing, task, callbacks[1:], on_complete, should_stop)
            else:
                study.optimize(objective, n_trials=missing, callbacks=callbacks)
        except Exception as exc:
            if cut_by_ctrl_c(exc):  # Optuna's UnboundLocalError when Ctrl-C cuts its last write
                raise KeyboardInterrupt from None
            number = max((t.number for t in study.get_trials(deepcopy=False)), default=0)
            return _Outcome(
                task.study_name,
                "error",
                f"the objective raised {type(exc).__name__}: {exc} "
                f"(study {task.study_name!r}, trial {number})",
            )
        if should_stop():
            return _Outcome(task.study_name, "interrupted")
        # Failed trials (an FMS pipeline that raises, a NaN) are retried; an objective that
        # fails max(10, n_trials) times in a row stops the comparison.
        failed_in_a_row = 0 if _complete(study) > done else failed_in_a_row + missing
        if failed_in_a_row >= max(10, task.n_trials):
            return _Outcome(
                task.study_name,
                "error",
                f"no trial completed in {failed_in_a_row} tries in a row in study "
                f"{task.study_name!r} (every trial failed or returned NaN{_last_error(study)})",
            )


def _simulate(
    study: optuna.Study,
    objective: Objective,
    n_trials: int,
    task: Task,
    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]],
    on_complete: Callable[[], None],
    should_stop: Callable[[], bool],
) -> None:
    """``n_trials`` of ``task.workers_sim`` simulated asynchronous workers
    (:func:`optuna_psms.benchmarks.parallel.simulate`; log-normal durations seeded by the
    task's seed and the trials already in the study, the same for every sampler)."""
    from optuna_psms.benchmarks import parallel

    def told(now: float, trial: optuna.trial.FrozenTrial) -> None:
        if trial.state == TrialState.COMPLETE:
            on_complete()
        for callback in callbacks:
            callback(study, trial)

    offset = len(study.get_trials(deepcopy=False))
    durations = parallel.durations("lognormal", task.seed, offset + n_trials)[offset:]
    parallel.simulate(
        study,
        objective,
        n_trials,
        task.workers_sim,
        durations,
        told,
        catch=False,
        should_stop=should_stop,
    )


def _last_error(study: optuna.Study) -> str:
    """``"; the last: <reason>"`` from the last failed trial's ``fms:error`` (a full model
    selection's failed pipeline), on one line; ``""`` when it has none. The error line
    said only "every trial failed", above ten warnings naming the reason (26 Nov 2026)."""
    failed = study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
    reason = failed[-1].user_attrs.get("fms:error") if failed else None
    if not isinstance(reason, str) or not reason.strip():
        return ""
    line = " ".join(reason.split())
    return f"; the last: {line[:300]}{'...' if len(line) > 300 else ''}"


def _build(objective: ObjectiveSpec | Objective, seed: int) -> Objective:
    return objective.build(seed) if isinstance(objective, ObjectiveSpec) else objective


def _run_in_worker(
    task: Task, objective: ObjectiveSpec | Objective, storage_url: str, publish_every: int
) -> _Outcome:
    def on_complete() -> None:
        _progress.put(1)

    def should_stop() -> bool:
        return bool(_stop.is_set())

    try:
        if isinstance(objective, ObjectiveSpec):
            objective = _specs.setdefault(objective, objective)
        built = _build(objective, task.seed)
        storage = open_comparison_storage(storage_url)
        return _top_up(task, built, storage, on_complete, should_stop, publish_every)
    except Exception as exc:  # reported by the main process in one line
        return _Outcome(task.study_name, "error", str(exc))


# ---- main side -----------------------------------------------------------------------


def execute(
    todo: list[Task],
    objective: ObjectiveSpec | Objective,
    storage: optuna.storages.BaseStorage,
    storage_url: str | None,
    n_workers: int,
    progress: Callable[[int], None],
    publish_every: int = 0,
) -> None:
    """Run the tasks, in this process (``n_workers == 1``) or in worker processes; each
    study publishes its figures every ``publish_every`` trials (``0``: never).

    Ctrl-C (SIGINT) lets every running study finish its current trial and stop, so that no
    trial is left RUNNING; a second Ctrl-C stops at once (in this process, a trial it leaves
    RUNNING, cut in Optuna's own code, is failed with the user attr ``fms:interrupted``).

    Raises:
        ComparisonError: A task failed (the first failure's message).
        KeyboardInterrupt: Interrupted; the finished trials are in storage.
    """
    if not todo:
        return
    if n_workers <= 1 or len(todo) == 1:
        local_stop = threading.Event()
        started = StartedTrials(storage)
        try:
            with sigint_handler(stop_on_sigint(local_stop)), started:
                for task in todo:
                    built = _build(objective, task.seed)
                    outcome = _top_up(
                        task, built, storage, lambda: progress(1), local_stop.is_set, publish_every
                    )
                    if outcome.status == "error":
                        raise ComparisonError(outcome.message)
                    if outcome.status == "interrupted":
                        raise KeyboardInterrupt
        except KeyboardInterrupt:
            started.fail_running()  # the second Ctrl-C may have cut Optuna's own code
            raise
        return
    if storage_url is None:
        raise ComparisonError(
            "parallel workers need a storage URL (e.g. sqlite:///compare.db), not in-memory"
        )
    ctx = multiprocessing.get_context("spawn")
    progress_queue = ctx.Queue()
    stop = ctx.Event()
    errors: list[str] = []
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=min(n_workers, len(todo)),
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(progress_queue, stop, optuna.logging.get_verbosity()),
    ) as pool:
        # Workers are started by submit(); started with SIGINT ignored, they keep ignoring
        # it (Ctrl-C in a terminal reaches the whole process group) and stop on `stop`.
        with sigint_handler(signal.SIG_IGN):
            futures = [
                pool.submit(_run_in_worker, t, objective, storage_url, publish_every) for t in todo
            ]
        pending = set(futures)

        def drain() -> None:
            while True:
                try:
                    progress(progress_queue.get_nowait())
                except queue.Empty:
                    return

        with sigint_handler(stop_on_sigint(stop)):
            while pending:
                done, pending = concurrent.futures.wait(
                    pending, timeout=0.2, return_when=concurrent.futures.FIRST_COMPLETED
                )
                drain()
                for future in done:
                    try:
                        outcome = future.result()
                    except concurrent.futures.CancelledError:
                        continue
                    except Exception as exc:  # a worker process died
                        outcome = _Outcome("", "error", f"a worker failed: {exc!r}")
                    if outcome.status == "error" and not errors:
                        errors.append(outcome.message)
                        stop.set()
                if stop.is_set():
                    for f in pending:
                        f.cancel()
        drain()
    if errors:
        raise ComparisonError(errors[0])
    if stop.is_set():
        raise KeyboardInterrupt
