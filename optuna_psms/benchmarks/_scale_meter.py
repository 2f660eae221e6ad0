"""What the scale benchmark measures: the time inside a sampler's hooks and the storage calls
(:class:`Meter`), throughput, duplicated population slots, a process's CPU time.

Split from :mod:`optuna_psms.benchmarks.scale`, which re-exports
:func:`process_cpu_seconds`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
import os
import time
from typing import Any

import optuna
from optuna.trial import TrialState

from optuna_psms.samplers import _records


def slot_duplicates(trials: Sequence[optuna.trial.FrozenTrial]) -> tuple[int, int]:
    """``(slots seen more than once, trials with a record)`` over (run, member, iteration)."""
    slots: Counter[tuple[Any, Any, Any]] = Counter()
    for t in trials:
        rec = _records.load(t.system_attrs)
        if isinstance(rec, dict) and rec.get("m", -1) != -1:
            slots[(rec.get("r"), rec.get("m"), rec.get("g"))] += 1
    return sum(1 for n in slots.values() if n > 1), sum(slots.values())


def throughput(trials: Sequence[optuna.trial.FrozenTrial]) -> float:
    done = [t for t in trials if t.state == TrialState.COMPLETE]
    starts = [t.datetime_start for t in done if t.datetime_start is not None]
    ends = [t.datetime_complete for t in done if t.datetime_complete is not None]
    if not starts or not ends:
        return float("nan")
    span = (max(ends) - min(starts)).total_seconds()
    return len(done) / span if span > 0 else float("nan")


class Meter:
    """Time spent inside a sampler's hooks and calls made to a storage, counted from outside.

    The hooks are Optuna's calls into the sampler (``before_trial``,
    ``infer_relative_search_space``, ``sample_relative``, ``sample_independent``,
    ``after_trial``); the storage calls are, on an :class:`~optuna.storages.RDBStorage`
    (behind Optuna's trial cache), its transactions (a commit or a read, one or a few
    statements), and on any other storage the calls of its methods (a journal: a log append
    or a log read each). A call made from inside another one (a storage method calling
    another, a hook calling a hook) is not counted again.
    """

    HOOKS = (
        "before_trial",
        "infer_relative_search_space",
        "sample_relative",
        "sample_independent",
        "after_trial",
    )
    #: Private reads ``optuna_psms._compat`` may call directly, besides the public API.
    PRIVATE_READS = ("_get_trials", "_sync_with_backend")
    #: Public storage methods that make no call to the storage's backend.
    LOCAL = ("check_trial_is_updatable",)

    def __init__(self) -> None:
        self.sampler_s = 0.0
        self.sampler_cpu_s = 0.0  # CPU time of the thread in the hooks
        self.ask_s = 0.0  # time in Study.ask outside the sampler's hooks (Optuna's own)
        self.calls = 0
        self.sampler_calls = 0
        self._in_sampler = 0
        self._in_storage = 0

    def reset(self) -> None:
        self.sampler_s, self.sampler_cpu_s, self.calls, self.sampler_calls = 0.0, 0.0, 0, 0
        self.ask_s = 0.0

    def wrap_ask(self, study: optuna.Study) -> None:
        """Time ``study.ask`` (as ``optimize`` calls it) less the sampler's hooks inside it."""
        ask = study.ask

        def timed(*args: Any, **kwargs: Any) -> Any:
            start, hooks = time.perf_counter(), self.sampler_s
            try:
                return ask(*args, **kwargs)
            finally:
                self.ask_s += time.perf_counter() - start - (self.sampler_s - hooks)

        study.ask = timed  # type: ignore[method-assign]

    def wrap_sampler(self, sampler: optuna.samplers.BaseSampler) -> None:
        for name in self.HOOKS:
            setattr(sampler, name, self._timed(getattr(sampler, name)))

    def wrap_storage(self, storage: optuna.storages.BaseStorage) -> None:
        """Count calls: transactions on an RDB, else outermost storage method calls."""
        if isinstance(storage, optuna.storages.RDBStorage):
            storage.scoped_session = _Sessions(storage.scoped_session, self._counted)  # type: ignore[assignment]
            return
        names = [n for n in dir(optuna.storages.BaseStorage) if not n.startswith("_")]
        for name in [*names, *self.PRIVATE_READS]:
            method = getattr(storage, name, None)
            if callable(method) and name not in self.LOCAL:
                setattr(storage, name, self._counted(method))

    def _timed(self, method: Any) -> Any:
        def hook(*args: Any, **kwargs: Any) -> Any:
            self._in_sampler += 1
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                self._in_sampler -= 1
                if not self._in_sampler:
                    self.sampler_s += time.perf_counter() - start
                    self.sampler_cpu_s += time.thread_time() - cpu

        return hook

    def _counted(self, method: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if not self._in_storage:
                self.calls += 1
                self.sampler_calls += self._in_sampler > 0
            self._in_storage += 1
            try:
                return method(*args, **kwargs)
            finally:
                self._in_storage -= 1

        return call


class _Sessions:
    """An RDB's ``scoped_session`` whose calls (one per transaction) are counted."""

    def __init__(self, sessions: Any, counted: Any) -> None:
        self._sessions = sessions
        self._call = counted(sessions)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sessions, name)


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
