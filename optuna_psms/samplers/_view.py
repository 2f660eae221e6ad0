"""The study view: this process's incremental copy of a study, as strategies see it.

:class:`StudyView` reads from storage only the trials that are new or were unfinished at the
last look (:func:`optuna_psms._compat.fetch_changed_trials`), parses each trial once (its
loss, its validated record, its enqueued values), keeps the search space (the union of the
parameters trials suggested, sorted by name) and tells every trial to the strategy of its
run. When the space grows, or a heartbeat retry un-tells a trial, the strategies are rebuilt
by replaying the parsed trials (:meth:`StudyView.rebuild`). Run starts are kept by
:class:`optuna_psms.samplers._lifecycle.Runs`; retries' slot numbers by
:class:`optuna_psms.samplers._runs.Numbering`.

The view only reads storage; what a trial being asked writes comes back through
:meth:`StudyView.add_own`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
import math
from typing import Protocol

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.study import Study
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms import _compat
from optuna_psms.samplers import _records
from optuna_psms.samplers import _runs
from optuna_psms.samplers import _space
from optuna_psms.samplers._align import aligned_record
from optuna_psms.samplers._align import Parsed as Parsed
from optuna_psms.samplers._lifecycle import Runs
from optuna_psms.samplers.core.base import constrained_loss
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy


_logger = optuna.logging.get_logger(__name__)

#: Unfinished trials without a record re-read per sync (see ``_pending_to_read``).
BARE_PER_SYNC = 16
#: States of a trial without a record that takes no slot (a FAILed one may be a trial of
#: this sampler whose worker died before writing its record; see ``_runs``).
_SLOTLESS = (TrialState.COMPLETE, TrialState.PRUNED)


#: Distributions whose ``==`` is Optuna's base one: same type and same ``__dict__``.
_PLAIN = (FloatDistribution, IntDistribution)


def _same(a: BaseDistribution, b: BaseDistribution) -> bool:
    """``a == b``, without Optuna's abstract-class ``isinstance`` for floats and ints.

    Every finished trial's distributions are compared with the space's (a range may change):
    Optuna's ``__eq__`` cost about a third of the view's sync in a profile of PSO trials.
    """
    kind = type(a)
    if kind is type(b) and kind in _PLAIN:
        return a.__dict__ == b.__dict__
    return a == b


class Algorithm(Protocol):
    """What the view needs of a sampler: its record tag and its strategies."""

    @property
    def algorithm(self) -> str: ...

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> Strategy: ...

    def _pad_vector(self, key: str, u: np.ndarray) -> np.ndarray: ...


@dataclass(slots=True)
class Asked:
    """What the sampler decided for a trial of this process (for ``sample_independent``)."""

    seed: int
    number: int
    coords: dict[str, float]


class StudyView:
    """One study as this process has read it (see the module documentation).

    Args:
        algorithm: The sampler (record tag, strategy factory, vector padding).
        sign: ``1`` to minimise, ``-1`` to maximise.
    """

    def __init__(self, algorithm: Algorithm, sign: float) -> None:
        self.algorithm = algorithm
        self.sign = sign
        self.cursor = _compat.ReadCursor()
        self.pending: dict[int, int] = {}  # number -> trial id, unfinished when last read
        self.bare_cursor = 0  # rotation over pending trials that have no record yet
        self.names: list[str] = []
        self.dims: tuple[Dim, ...] = ()
        self.index: dict[str, int] = {}
        self.dists: dict[str, BaseDistribution] = {}
        self.dist_number: dict[str, int] = {}
        self.parsed: dict[int, Parsed] = {}
        self.records: dict[int, Record] = {}
        self.runs = Runs()
        self.strategies: dict[int, Strategy] = {}
        self.numbering = _runs.Numbering()  # retries (RetryFailedTrialCallback) keep slots
        self.adopted_seed: int | None = None
        self.asked: OrderedDict[int, Asked] = OrderedDict()  # by trial id
        self.record_warned = False  # an invalid record was reported (once per study)
        self.info_written = False  # the adapter wrote the study's sampler attrs (once)

    # ------------------------------------------------------------------ reading storage
    def sync(
        self, study: Study, current: FrozenTrial | None = None, bare: dict[int, int] | None = None
    ) -> None:
        """Bring the view up to date with storage (new and previously unfinished trials).

        ``current``: the trial being asked, as Optuna passed it (saves re-reading it).
        ``bare``: the record-less unfinished trials to re-read (default: a rotating slice).
        """
        bare_trials, running_trials = self._pending_to_read()
        if bare is not None:
            bare_trials = bare
        gap_retries: dict[int, object] = {}
        trials = _compat.fetch_changed_trials(
            study, self.cursor, bare_trials, running_trials, current, gap_retries
        )
        changed: list[Parsed] = []
        new_names = dims_changed = retold = False
        for number, root_attr in sorted(gap_retries.items()):
            # Retries created just before ``current`` (not read yet): their slots first.
            root = _runs.retry_root(number, {_runs.RETRY_ATTR: root_attr})
            if root is not None:
                replaced = self.numbering.add_retry(number, root)
                told = self.records.get(replaced) if replaced is not None else None
                retold |= told is not None and told.finished
        for trial in sorted(trials, key=lambda t: t.number):
            prev = self.parsed.get(trial.number)
            if prev is not None and prev.loss is not None:
                continue  # finished trials never change
            finished = trial.state.is_finished()
            if finished:
                self.pending.pop(trial.number, None)
            else:
                self.pending[trial.number] = _compat.trial_id(trial)
            for name, dist in trial.distributions.items():
                seen = self.dist_number.get(name, -1)
                if seen == trial.number:
                    continue  # read from this very trial before (it cannot change)
                known = self.dists.get(name)
                if known is not None and _same(known, dist):
                    # The usual case: unchanged (and so not single-valued, as ``known``).
                    if seen < trial.number:
                        self.dist_number[name] = trial.number
                    continue
                if dist.single():
                    continue  # fixed: no coordinate
                if name not in self.dists:
                    new_names = True
                if self.dist_number.get(name, -1) <= trial.number:
                    if name in self.dists and not _same(self.dists[name], dist):
                        dims_changed = True
                    self.dists[name] = dist
                    self.dist_number[name] = trial.number
            if prev is None:
                # A retry takes its dead trial's slot from the moment it exists, record or
                # not: a trial that died before its record was written (in ``ask``) has a
                # retry without one, and later trials' slots must not wait for its record.
                root = _runs.retry_root(trial.number, trial.system_attrs)
                if root is not None:
                    replaced = self.numbering.add_retry(trial.number, root)
                    told = self.records.get(replaced) if replaced is not None else None
                    # A failed trial already told as such: only a replay un-tells it.
                    retold |= told is not None and told.finished
            if not finished and (prev is not None or not _records.present(trial.system_attrs)):
                continue  # running: record already known, or not written yet
            parsed = self._parse(trial, prev.rec if prev is not None else None)
            if parsed.loss is None and parsed.rec is None:
                continue
            if parsed.rec is None:
                if (
                    trial.state in _SLOTLESS
                    and _runs.RETRY_ATTR not in trial.system_attrs
                    and not getattr(self.algorithm, "foreign_trials_take_slots", False)
                ):
                    self.numbering.add_foreign(trial.number)  # takes no slot (_runs)
            elif prev is None:
                # The slot the record stores; a retry's is its dead trial's (registered
                # above), so later slots are not counted from it.
                is_retry = _runs.retry_root(trial.number, trial.system_attrs) is not None
                self.numbering.store(trial.number, parsed.rec.get("sl"), anchor=not is_retry)
            self.parsed[parsed.number] = parsed
            changed.append(parsed)
        if self.adopted_seed is None:
            seeds = [p for p in changed if p.rec is not None]
            if seeds:
                rec = min(seeds, key=lambda p: p.number).rec
                assert rec is not None
                self.adopted_seed = int(rec.get("s", 0))
        if new_names or retold:
            self.rebuild()
            return
        if dims_changed:
            # Coordinates are relative to the range, so records stay valid; strategies
            # only learn the new grids (a replay here would cost O(trials)).
            self.dims = tuple(_space.dim_of(n, self.dists[n]) for n in self.names)
            for strategy in self.strategies.values():
                strategy.space_changed(self.dims)
        if self._register_runs(changed):
            # Two runs claimed one start and the earlier won (only past the restart
            # horizon, see _lifecycle): the strategy counted its slots from the later one.
            self.rebuild()
            return
        for parsed in changed:
            if parsed.number in self.numbering.superseded:
                continue  # retried: the retry stands for it
            running = self.records.get(parsed.number)
            if running is None and parsed.loss is None:
                running = self._running_predecessor(parsed.number)
                if running is not None:
                    # A running retry of a trial told as running: same slot, same record;
                    # the strategy already holds it.
                    self.records[parsed.number] = running
                    continue
            if running is not None and running.ours and not running.finished:
                # Same record, now finished: its arrays are already aligned and the
                # strategy checked it when it was told as running.
                self.tell(parsed, running.with_loss(parsed.loss), checked=True)
            else:
                self.tell(parsed)

    def unseen_before(self, study: Study, number: int, horizon: int) -> bool:
        """Whether a trial in ``[number - horizon, number)`` is unfinished without a record.

        The record-less ones are read again first (one read, no waiting).
        """
        low = number - horizon
        bare = {
            n: t for n, t in self.pending.items() if low <= n < number and n not in self.parsed
        }
        if bare or self.cursor.next_number < number:
            self.sync(study, bare=bare)
        if self.cursor.next_number < number:
            return True
        return any(low <= n < number and n not in self.parsed for n in self.pending)

    def _pending_to_read(self) -> tuple[dict[int, int], dict[int, int]]:
        """Unfinished trials to look at again: ``(bare, running)``, number to storage id.

        Running trials carry a record: only their finishing matters, which storages that
        filter by state report at the cost of an id each (see
        :func:`~optuna_psms._compat.fetch_changed_trials`). A trial left RUNNING for ever by a
        dead worker therefore costs no round trip. Trials without a record ("bare") are
        waiting (``enqueue_trial``) or were just created by another worker and must be read
        in full; there can be many, so a rotating slice of :data:`BARE_PER_SYNC` of them is
        read per call. This process registers the trials it asks itself, so a sequential
        run never waits on that rotation.
        """
        known = self.parsed
        running = {num: tid for num, tid in self.pending.items() if num in known}
        bare = [(num, tid) for num, tid in self.pending.items() if num not in known]
        if len(bare) > BARE_PER_SYNC:
            start = self.bare_cursor % len(bare)
            self.bare_cursor = start + BARE_PER_SYNC
            bare = (bare + bare)[start : start + BARE_PER_SYNC]
        return dict(bare), running

    def _loss(self, trial: FrozenTrial) -> float | None:
        if not trial.state.is_finished():
            return None
        if trial.state != TrialState.COMPLETE or trial.value is None:
            return math.inf
        value = self.sign * float(trial.value)
        if not math.isfinite(value):
            return math.inf
        # Deb's rules as one loss (constrained_loss): the one place constraints enter.
        return constrained_loss(value, _compat.violation(trial.system_attrs))

    def _parse(self, trial: FrozenTrial, known: _records.Stored | None = None) -> Parsed:
        """``known``: the trial's record if this process already holds it (no JSON parse).

        A record that fails validation (:func:`optuna_psms.samplers._records.read`) is reported
        once
        per study and the trial is read as a trial of another sampler.
        """
        rec = known
        if rec is None:
            got = _records.read(trial.system_attrs, self.algorithm.algorithm, trial.number)
            if isinstance(got, str):
                self._invalid_record(trial.number, got)
                got = None
            rec = got
        fixed = _compat.fixed_params(trial)
        if rec is None:
            params, distributions = dict(trial.params), dict(trial.distributions)
        else:
            # The record holds the position; only enqueued values need their distribution.
            # (Holding less per trial also keeps the garbage collector's full passes short.)
            params = {}
            distributions = {n: d for n, d in trial.distributions.items() if n in fixed}
        return Parsed(trial.number, self._loss(trial), params, distributions, fixed, rec)

    # ------------------------------------------------------------------ strategies
    def add_own(self, parsed: Parsed, record: Record, trial_id: int, retry: bool = False) -> None:
        """A trial this process has just asked (and written ``parsed.rec`` for).

        ``retry``: the trial is a heartbeat retry (its stored slot is its dead trial's, so
        later slots are not counted from it, see :meth:`_runs.Numbering.store`).
        """
        self.parsed[parsed.number] = parsed
        self.pending[parsed.number] = trial_id
        if parsed.rec is not None:
            self.numbering.store(parsed.number, parsed.rec.get("sl"), anchor=not retry)
        self._register_runs([parsed])
        self.tell(parsed, record)

    def _running_predecessor(self, number: int) -> Record | None:
        """The running record the strategy holds for the trial that retry ``number`` replaces."""
        previous = self.numbering.predecessor.get(number)
        record = self.records.get(previous) if previous is not None else None
        return record if record is not None and not record.finished else None

    def _register_runs(self, parsed: list[Parsed]) -> bool:
        """Record run starts; returns whether an existing strategy now has the wrong start."""
        claims = [(int(p.rec["r"]), int(p.rec["rs"])) for p in parsed if p.rec is not None]
        return self.runs.register(claims, self.strategies)

    def rebuild(self) -> None:
        """Re-align every record with the (grown) space and replay it into fresh strategies."""
        self.names = sorted(self.dists)
        self.dims = tuple(_space.dim_of(n, self.dists[n]) for n in self.names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.records.clear()
        self.strategies.clear()
        self.runs.counts.clear()
        ordered = [self.parsed[k] for k in sorted(self.parsed)]
        self._register_runs(ordered)
        superseded = self.numbering.superseded
        for parsed in ordered:
            if parsed.number not in superseded:
                self.tell(parsed)

    def strategy(self, run: int) -> Strategy:
        """The strategy of ``run`` (made on first use)."""
        strategy = self.strategies.get(run)
        if strategy is None:
            start = self.runs.starts.get(run, 0)
            numbering = self.numbering
            inner = self.algorithm._make_strategy(self.dims, numbering.start_slot(start))
            strategy = _runs.Renumbered(inner, numbering, start)
            self.strategies[run] = strategy
        return strategy

    def _invalid_record(self, number: int, reason: str) -> None:
        """Report an unusable record, once per study and process (records are re-read)."""
        if self.record_warned:
            return
        self.record_warned = True
        _logger.warning(
            "%s ignores the stored record of trial %d (%s) and reads the trial as one of "
            "another sampler; further invalid records of this study are not reported.",
            type(self.algorithm).__name__,
            number,
            reason,
        )

    def tell(self, parsed: Parsed, record: Record | None = None, checked: bool = False) -> None:
        """Tell trial ``parsed`` to the strategy of its run.

        ``record``: already aligned; ``checked``: it passed the strategy's check already (a
        running record told again with its loss).
        """
        if record is None:
            record = aligned_record(parsed, self.names, self.algorithm._pad_vector)
        if parsed.rec is not None:
            run = parsed.rec["r"]
        else:
            run = self.runs.run_of(parsed.number)
        strategy = self.strategy(run)
        if record.ours and not checked:
            # What the record says must also make sense to the algorithm (a particle of the
            # swarm, a level of the grid, ...); if it does not, the trial is a foreign one.
            try:
                reason = strategy.check(record)
            except Exception:  # a check must not break a study either
                reason = f"{type(strategy).__name__}.check failed on it"
            if reason is not None:
                self._invalid_record(parsed.number, reason)
                record = Record(parsed.number, -1, -1, record.x, loss=record.loss, ours=False)
        self.records[parsed.number] = record
        if record.ours and record.finished:
            self.runs.counts[run] = self.runs.counts.get(run, 0) + 1
        try:
            strategy.tell(record)
        except Exception:  # a strategy bug must not lose the study: log and carry on
            _logger.exception("Strategy failed to take trial %d into account.", parsed.number)
