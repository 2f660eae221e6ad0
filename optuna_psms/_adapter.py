"""The shared Optuna adapter of every population sampler in this package.

:class:`PopulationSampler` turns a study into what an algorithm core
(:class:`~optuna_psms.core.base.Strategy`) understands and back:

Search space
    The union of every parameter any trial of the study has suggested (single-value
    distributions excluded), sorted by name, each parameter one coordinate of the unit box
    (:mod:`optuna_psms._space`). A parameter that is not suggested by a trial (a conditional
    branch not taken) keeps its coordinate in that trial's vector: this is the fixed-length
    representation of PSMS. A parameter that first appears mid-study extends every vector;
    the coordinate a vector lacks is filled with a uniform draw fixed by ``(seed, trial number,
    name)``, the same draw the trial used if it sampled that parameter itself. When a
    parameter's range changes, coordinates are kept and decoded into the new range.

State
    Everything is re-derived from the study's trials: parameters, values, states and one
    JSON record per trial (system attrs ``psms:rec*``, :mod:`optuna_psms._records`) holding
    the algorithm tag, seed, run, member, generation, the full encoded vector and any further
    per-dimension vector (the velocity for PSO). An in-process cache reads only the trials
    that are new or were unfinished at the last look, so a trial costs
    ``O(population x dimensions)`` and not ``O(number of trials)``. The cache is rebuilt from
    the records whenever the space grows.

Determinism
    Every random draw of trial ``n`` derives from ``(seed, n)``. A strategy's state is a
    function of the set of records it has seen, so a fresh process with a fresh sampler
    continues a stopped study exactly as an uninterrupted run would have. With ``seed=None`` a
    sampler adopts the seed recorded by the study's earliest record, if any.

Failures
    A failed, pruned, NaN or infinite trial has loss ``inf`` (the worst value) and never
    raises inside the sampler; what that means for a member is the strategy's business (all
    strategies here leave the member's state as it was before the failed trial).

Enqueued trials
    A trial created by :meth:`~optuna.study.Study.enqueue_trial` is asked like any other
    trial (in :meth:`before_trial`), and its fixed parameters overwrite the proposed
    coordinates, so the enqueued point joins the population as that member's position.

Convergence
    A strategy may report convergence. ``on_converged="restart"`` starts a new run (a fresh
    strategy from trial ``n`` on, its run index recorded in each record), ``"stop"`` calls
    :meth:`~optuna.study.Study.stop` (ignored under ask-and-tell) and keeps proposing from the
    converged run. The trial that detects convergence gets the user attrs
    ``psms:converged_run``, ``psms:run_trials`` and ``psms:pfc`` (trials the run used divided by
    the budget the algorithm is designed for: the PFC figure of Rojas-Dominguez et al.).
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
import math
import secrets
import threading
import time
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms import _compat
from optuna_psms import _records
from optuna_psms import _runs
from optuna_psms import _space
from optuna_psms import _study_info
from optuna_psms.core.base import Dim
from optuna_psms.core.base import Proposal
from optuna_psms.core.base import Record
from optuna_psms.core.base import Strategy
from optuna_psms.core.rng import hash_uniform
from optuna_psms.core.rng import TrialRng


_logger = optuna.logging.get_logger(__name__)

#: Version of the record layout written by this package (:data:`optuna_psms._records.VERSION`).
RECORD_VERSION = _records.VERSION
#: Decimals kept in stored vectors; values are rounded before use, so a re-read is exact.
_DECIMALS = 12
#: Foreign trials (no record of ours) fill missing coordinates with this seed.
_FOREIGN_SEED = 0
_ON_CONVERGED = ("restart", "stop")
#: Unfinished trials without a record re-read per sync (see ``_pending_to_read``).
_BARE_PER_SYNC = 16
#: Longest wait (s) for earlier trials' records before a restart (see ``_await_records``).
RESTART_WAIT = 5.0


def _stored(values: Any) -> np.ndarray:
    """A vector as stored in a record: non-finite values replaced by 0, rounded."""
    v = np.asarray(values, dtype=float)
    if not np.isfinite(v).all():
        v = np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0)
    out: np.ndarray = v.round(_DECIMALS)
    return out


@dataclass(slots=True)
class _Parsed:
    """A trial reduced to what the adapter needs (kept to rebuild records)."""

    number: int
    loss: float | None
    params: dict[str, Any]
    distributions: dict[str, BaseDistribution]
    fixed: dict[str, Any]
    rec: _records.Stored | None  # validated; None for a trial without a usable record


@dataclass(slots=True)
class _Asked:
    """What the sampler decided for a trial of this process (for ``sample_independent``)."""

    seed: int
    number: int
    coords: dict[str, float]


class _StudyCache:
    def __init__(self) -> None:
        self.cursor = _compat.ReadCursor()
        self.pending: dict[int, int] = {}  # number -> trial id, unfinished when last read
        self.bare_cursor = 0  # rotation over pending trials that have no record yet
        self.names: list[str] = []
        self.dims: tuple[Dim, ...] = ()
        self.index: dict[str, int] = {}
        self.run_counts: dict[int, int] = {}  # finished trials of ours per run
        self.dists: dict[str, BaseDistribution] = {}
        self.dist_number: dict[str, int] = {}
        self.parsed: dict[int, _Parsed] = {}
        self.records: dict[int, Record] = {}
        self.run_starts: dict[int, int] = {}
        self.latest_run = 0
        self.strategies: dict[int, Strategy] = {}
        self.numbering = _runs.Numbering()  # retries (RetryFailedTrialCallback) keep slots
        self.adopted_seed: int | None = None
        self.sign = 1.0
        self.asked: OrderedDict[int, _Asked] = OrderedDict()
        self.stop_logged = False
        self.record_warned = False  # an invalid record was reported (once per study)

    def set_run_start(self, run: int, start: int) -> None:
        self.run_starts[run] = start
        self.latest_run = max(self.latest_run, run)


class PopulationSampler(BaseSampler, abc.ABC):
    """Base class of the population samplers: storage-backed, reproducible, concurrent.

    Subclasses provide :meth:`_make_strategy` (and usually nothing else). See the module
    documentation for the search-space, storage, determinism and failure rules.

    Args:
        seed: Seed of every random draw (with the trial number). ``None`` adopts the seed
            recorded in the study, or draws a fresh one.
        record_user_attrs: Write ``psms:*`` user attrs (member, iteration, ...) that
            optuna-dashboard shows with each trial.
        on_converged: ``"restart"`` or ``"stop"``; only used by strategies that converge.
    """

    #: Algorithm tag written into every record; records with another tag are foreign.
    algorithm: str = ""

    def __init__(
        self,
        *,
        seed: int | None = None,
        record_user_attrs: bool = True,
        on_converged: str = "restart",
    ) -> None:
        if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}.")
        if on_converged not in _ON_CONVERGED:
            raise ValueError(f"on_converged must be one of {_ON_CONVERGED}, got {on_converged!r}.")
        self._seed = None if seed is None else int(seed)
        self._fallback_seed = secrets.randbits(31)
        self._record_user_attrs = bool(record_user_attrs)
        self._on_converged = on_converged
        self._lock = threading.RLock()
        self._caches: dict[tuple[int, int], _StudyCache] = {}
        self._rngs = TrialRng()  # re-keyed per trial; used under the lock only

    def __getstate__(self) -> dict[str, Any]:
        # The lock cannot be pickled and the caches are only an optimisation: a sampler
        # restored from a pickle re-reads its state from storage on first use.
        state = self.__dict__.copy()
        del state["_lock"]
        del state["_rngs"]
        state["_caches"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._rngs = TrialRng()

    # ------------------------------------------------------------------ subclass hooks
    @abc.abstractmethod
    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> Strategy:
        """A fresh strategy for a run over ``dims`` (one per coordinate) from ``run_start``."""

    def _pad_vector(self, key: str, u: np.ndarray) -> np.ndarray:
        """Components of vector ``key`` a record lacks, from uniform draws ``u``.

        A record lacks a component when its parameter appeared after the trial was asked.
        The draws are fixed by ``(seed, trial number, key:name)``. Default: zeros.
        """
        return np.zeros_like(u)

    # ------------------------------------------------------------------ Optuna API
    def reseed_rng(self) -> None:
        """No-op: draws derive from ``(seed, trial number)``, so threads never share a stream."""

    def _check_single_objective(self, study: Study) -> None:
        # Called once per study and process (when its cache is made): directions never change.
        if len(study.directions) > 1:
            raise ValueError(
                f"{type(self).__name__} optimises a single objective, but this study has "
                f"{len(study.directions)} directions: multi-objective optimization is not "
                "supported."
            )

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        with self._lock:
            self._ensure_asked(study, trial)

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        with self._lock:
            cache = self._cache(study)
            if _compat.trial_id(trial) not in cache.asked:  # before_trial synced already
                cache = self._sync(study)
            return {name: cache.dists[name] for name in cache.names}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            with self._lock:
                self._ensure_asked(study, trial)
            return {}
        with self._lock:
            asked = self._ensure_asked(study, trial)
            coords = self._coords(asked, list(search_space))
        return {
            name: _space.decode(u, dist)
            for (name, dist), u in zip(search_space.items(), coords)
            if not dist.single()
        }

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        with self._lock:
            asked = self._ensure_asked(study, trial)
            (u,) = self._coords(asked, [param_name])
        return _space.decode(u, param_distribution)

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        with self._lock:
            cache = self._caches.get(self._key(study))
            if cache is not None:
                cache.asked.pop(_compat.trial_id(trial), None)

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _key(study: Study) -> tuple[int, int]:
        storage, study_id = _compat.storage_of(study)
        return id(storage), study_id

    def _seed_for(self, cache: _StudyCache) -> int:
        if self._seed is not None:
            return self._seed
        if cache.adopted_seed is not None:
            return cache.adopted_seed
        return self._fallback_seed

    @staticmethod
    def _coords(asked: _Asked, names: list[str]) -> list[float]:
        missing = [n for n in names if n not in asked.coords]
        if missing:
            fill = hash_uniform(asked.seed, asked.number, missing)
            extra = dict(zip(missing, (float(u) for u in fill)))
        else:
            extra = {}
        return [asked.coords[n] if n in asked.coords else extra[n] for n in names]

    def _cache(self, study: Study) -> _StudyCache:
        key = self._key(study)
        cache = self._caches.get(key)
        if cache is None:
            self._check_single_objective(study)
            cache = _StudyCache()
            cache.sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
            self._caches[key] = cache
        return cache

    def _loss(self, cache: _StudyCache, trial: FrozenTrial) -> float | None:
        if not trial.state.is_finished():
            return None
        if trial.state != TrialState.COMPLETE or trial.value is None:
            return math.inf
        value = cache.sign * float(trial.value)
        return value if math.isfinite(value) else math.inf

    def _parse(
        self, cache: _StudyCache, trial: FrozenTrial, known: _records.Stored | None = None
    ) -> _Parsed:
        """``known``: the trial's record if this process already holds it (no JSON parse).

        A record that fails validation (:func:`optuna_psms._records.read`) is reported once
        per study and the trial is read as a trial of another sampler.
        """
        rec = known
        if rec is None:
            got = _records.read(trial.system_attrs, self.algorithm, trial.number)
            if isinstance(got, str):
                self._invalid_record(cache, trial.number, got)
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
        return _Parsed(trial.number, self._loss(cache, trial), params, distributions, fixed, rec)

    def _sync(
        self, study: Study, current: FrozenTrial | None = None, bare: dict[int, int] | None = None
    ) -> _StudyCache:
        """Bring the cache up to date with storage (new and previously unfinished trials).

        ``current``: the trial being asked, as Optuna passed it (saves re-reading it).
        ``bare``: the record-less unfinished trials to re-read (default: a rotating slice).
        """
        cache = self._cache(study)
        bare_trials, running_trials = self._pending_to_read(cache)
        if bare is not None:
            bare_trials = bare
        trials = _compat.fetch_changed_trials(
            study, cache.cursor, bare_trials, running_trials, current
        )
        changed: list[_Parsed] = []
        new_names = dims_changed = retold = False
        for trial in sorted(trials, key=lambda t: t.number):
            prev = cache.parsed.get(trial.number)
            if prev is not None and prev.loss is not None:
                continue  # finished trials never change
            finished = trial.state.is_finished()
            if finished:
                cache.pending.pop(trial.number, None)
            else:
                cache.pending[trial.number] = _compat.trial_id(trial)
            for name, dist in trial.distributions.items():
                if dist.single():
                    continue
                if name not in cache.dists:
                    new_names = True
                if cache.dist_number.get(name, -1) <= trial.number:
                    if name in cache.dists and cache.dists[name] != dist:
                        dims_changed = True
                    cache.dists[name] = dist
                    cache.dist_number[name] = trial.number
            if not finished and (prev is not None or not _records.present(trial.system_attrs)):
                continue  # running: record already known, or not written yet
            parsed = self._parse(cache, trial, prev.rec if prev is not None else None)
            if parsed.loss is None and parsed.rec is None:
                continue
            if prev is None and parsed.rec is not None:
                root = _runs.retry_root(trial.number, trial.system_attrs)
                if root is not None:
                    replaced = cache.numbering.add_retry(trial.number, root)
                    told = cache.records.get(replaced) if replaced is not None else None
                    # A failed trial already told as such: only a replay un-tells it.
                    retold |= told is not None and told.finished
            cache.parsed[parsed.number] = parsed
            changed.append(parsed)
        if cache.adopted_seed is None:
            seeds = [p for p in changed if p.rec is not None]
            if seeds:
                rec = min(seeds, key=lambda p: p.number).rec
                assert rec is not None
                cache.adopted_seed = int(rec.get("s", 0))
        if new_names or retold:
            self._rebuild(cache)
        else:
            if dims_changed:
                # Coordinates are relative to the range, so records stay valid; strategies
                # only learn the new grids (a replay here would cost O(trials)).
                cache.dims = tuple(_space.dim_of(n, cache.dists[n]) for n in cache.names)
                for strategy in cache.strategies.values():
                    strategy.dims = cache.dims
            if self._register_runs(cache, changed):
                # Two workers restarted at once and the earlier start won: the strategy of
                # that run counted its slots from the later one. Rare; replay everything.
                self._rebuild(cache)
            else:
                for parsed in changed:
                    if parsed.number in cache.numbering.superseded:
                        continue  # retried: the retry stands for it
                    running = cache.records.get(parsed.number)
                    if running is None and parsed.loss is None:
                        running = self._running_predecessor(cache, parsed.number)
                        if running is not None:
                            # A running retry of a trial told as running: same slot, same
                            # record; the strategy already holds it.
                            cache.records[parsed.number] = running
                            continue
                    if running is not None and running.ours and not running.finished:
                        # Same record, now finished: its arrays are already aligned.
                        self._tell(cache, parsed, running.with_loss(parsed.loss))
                    else:
                        self._tell(cache, parsed)
        return cache

    @staticmethod
    def _pending_to_read(cache: _StudyCache) -> tuple[dict[int, int], dict[int, int]]:
        """Unfinished trials to look at again: ``(bare, running)``, number to storage id.

        Running trials carry a record: only their finishing matters, which storages that
        filter by state report at the cost of an id each (see
        :func:`~optuna_psms._compat.fetch_changed_trials`). A trial left RUNNING for ever by a
        dead worker therefore costs no round trip. Trials without a record ("bare") are
        waiting (``enqueue_trial``) or were just created by another worker and must be read
        in full; there can be many, so a rotating slice of :data:`_BARE_PER_SYNC` of them is
        read per call. This process registers the trials it asks itself, so a sequential
        run never waits on that rotation.
        """
        known = cache.parsed
        running = {num: tid for num, tid in cache.pending.items() if num in known}
        bare = [(num, tid) for num, tid in cache.pending.items() if num not in known]
        if len(bare) > _BARE_PER_SYNC:
            start = cache.bare_cursor % len(bare)
            cache.bare_cursor = start + _BARE_PER_SYNC
            bare = (bare + bare)[start : start + _BARE_PER_SYNC]
        return dict(bare), running

    @staticmethod
    def _running_predecessor(cache: _StudyCache, number: int) -> Record | None:
        """The running record the strategy holds for the trial that retry ``number`` replaces."""
        previous = cache.numbering.predecessor.get(number)
        record = cache.records.get(previous) if previous is not None else None
        return record if record is not None and not record.finished else None

    def _register_runs(self, cache: _StudyCache, parsed: list[_Parsed]) -> bool:
        """Record run starts (the earliest start of a run wins).

        Returns whether an existing strategy now has the wrong start.
        """
        stale = False
        for p in parsed:
            if p.rec is None:
                continue
            run, start = int(p.rec.get("r", 0)), int(p.rec.get("rs", 0))
            if run not in cache.run_starts or start < cache.run_starts[run]:
                stale |= run in cache.strategies and cache.strategies[run].run_start != start
                cache.set_run_start(run, start)
        return stale

    def _rebuild(self, cache: _StudyCache) -> None:
        """Re-align every record with the (grown) space and replay it into fresh strategies."""
        cache.names = sorted(cache.dists)
        cache.dims = tuple(_space.dim_of(n, cache.dists[n]) for n in cache.names)
        cache.index = {n: i for i, n in enumerate(cache.names)}
        cache.records.clear()
        cache.strategies.clear()
        cache.run_counts.clear()
        ordered = [cache.parsed[k] for k in sorted(cache.parsed)]
        self._register_runs(cache, ordered)
        superseded = cache.numbering.superseded
        for parsed in ordered:
            if parsed.number not in superseded:
                self._tell(cache, parsed)

    def _strategy(self, cache: _StudyCache, run: int) -> Strategy:
        strategy = cache.strategies.get(run)
        if strategy is None:
            start = cache.run_starts.get(run, 0)
            numbering = cache.numbering
            inner = self._make_strategy(cache.dims, numbering.slot(start))
            strategy = _runs.Renumbered(inner, numbering, start)
            cache.strategies[run] = strategy
        return strategy

    def _run_of_foreign(self, cache: _StudyCache, number: int) -> int:
        """The latest run that started at or before trial ``number``."""
        latest = cache.latest_run
        if cache.run_starts.get(latest, 0) <= number:
            return latest  # the usual case, O(1) however many runs the study had
        runs = [r for r, s in cache.run_starts.items() if s <= number]
        return max(runs) if runs else 0

    def _record(self, cache: _StudyCache, parsed: _Parsed) -> Record:
        names = cache.names
        rec = parsed.rec
        x = np.empty(len(names))
        if rec is None:
            self._fill(x, list(range(len(names))), names, parsed, _FOREIGN_SEED)
            return Record(parsed.number, -1, -1, x, loss=parsed.loss, ours=False)
        # The record is validated: coordinates in [0, 1], vector components finite.
        stored, seed = rec["x"], rec["s"]
        missing: list[int] = []
        for i, name in enumerate(names):
            coordinate = stored.get(name)
            if coordinate is None:
                missing.append(i)
            else:
                x[i] = coordinate
        self._fill(x, missing, names, parsed, seed)
        vectors = {}
        for key, values in rec["vec"].items():
            vec = np.array([values.get(n, math.nan) for n in names], dtype=float)
            gaps = np.flatnonzero(np.isnan(vec))
            if gaps.size:
                u = hash_uniform(seed, parsed.number, [f"{key}:{names[i]}" for i in gaps])
                vec[gaps] = self._pad_vector(key, u)
            vectors[key] = vec
        return Record(
            number=parsed.number,
            member=rec["m"],
            generation=rec["g"],
            x=x,
            vectors=vectors,
            info=dict(rec["info"]),
            loss=parsed.loss,
            ours=True,
        )

    @staticmethod
    def _fill(
        x: np.ndarray, missing: list[int], names: list[str], parsed: _Parsed, seed: int
    ) -> None:
        """Fill missing coordinates: fixed or (for foreign trials) suggested values, else hash."""
        rest: list[int] = []
        source = parsed.fixed if parsed.rec is not None else parsed.params
        for i in missing:
            name = names[i]
            if name in source and name in parsed.distributions:
                try:
                    u = _space.encode(source[name], parsed.distributions[name])
                except (ValueError, TypeError, ArithmeticError):  # e.g. a 1-ulp log range
                    u = math.nan
                if 0.0 <= u <= 1.0:  # a NaN (from a NaN value) falls back to the hash
                    x[i] = u
                    continue
            rest.append(i)
        if rest:
            x[rest] = hash_uniform(seed, parsed.number, [names[i] for i in rest])

    def _invalid_record(self, cache: _StudyCache, number: int, reason: str) -> None:
        """Report an unusable record, once per study and process (records are re-read)."""
        if cache.record_warned:
            return
        cache.record_warned = True
        _logger.warning(
            "%s ignores the stored record of trial %d (%s) and reads the trial as one of "
            "another sampler; further invalid records of this study are not reported.",
            type(self).__name__,
            number,
            reason,
        )

    def _tell(self, cache: _StudyCache, parsed: _Parsed, record: Record | None = None) -> None:
        if record is None:
            record = self._record(cache, parsed)
        if parsed.rec is not None:
            run = parsed.rec["r"]
        else:
            run = self._run_of_foreign(cache, parsed.number)
        strategy = self._strategy(cache, run)
        if record.ours:
            # What the record says must also make sense to the algorithm (a particle of the
            # swarm, a level of the grid, ...); if it does not, the trial is a foreign one.
            try:
                reason = strategy.check(record)
            except Exception:  # a check must not break a study either
                reason = f"{type(strategy).__name__}.check failed on it"
            if reason is not None:
                self._invalid_record(cache, parsed.number, reason)
                record = Record(parsed.number, -1, -1, record.x, loss=record.loss, ours=False)
        cache.records[parsed.number] = record
        if record.ours and record.finished:
            cache.run_counts[run] = cache.run_counts.get(run, 0) + 1
        try:
            strategy.tell(record)
        except Exception:  # a strategy bug must not lose the study: log and carry on
            _logger.exception("Strategy failed to take trial %d into account.", parsed.number)

    def _ensure_asked(self, study: Study, trial: FrozenTrial) -> _Asked:
        cache = self._cache(study)
        tid = _compat.trial_id(trial)
        asked = cache.asked.get(tid)
        if asked is not None:
            return asked
        cache = self._sync(study, trial)
        parsed = cache.parsed.get(trial.number)
        if parsed is not None and parsed.rec is not None:
            # Already asked (by another process or before a restart of this one).
            rec = parsed.rec
            asked = _Asked(int(rec.get("s", 0)), trial.number, dict(rec.get("x", {})))
        else:
            asked = self._ask(study, cache, trial)
        cache.asked[tid] = asked
        while len(cache.asked) > 4096:
            cache.asked.popitem(last=False)
        return asked

    def _await_records(self, study: Study, number: int) -> bool:
        """Before a restart at trial ``number``: wait for the records of the earlier trials.

        The run start rule: run ``r + 1`` starts at the first trial whose sampler found run
        ``r`` converged. A trial created by another worker is record-less for the moment
        between its creation and its sampler's write; an earlier trial may be starting the
        run right then. Waiting for those records (at most :data:`RESTART_WAIT` seconds,
        for a worker that died in that moment) makes every later trial see that start, so
        concurrent workers start one run, not one each. Only asks that would restart wait.

        Returns:
            Whether anything was read (the run must then be looked up again).
        """
        cache = self._cache(study)
        deadline = time.monotonic() + RESTART_WAIT
        read = False
        while True:
            known = cache.parsed
            bare = {n: tid for n, tid in cache.pending.items() if n < number and n not in known}
            gap = cache.cursor.next_number < number
            if not bare and not gap:
                return read
            self._sync(study, bare=bare)
            read = True
            still = [n for n in cache.pending if n < number and n not in cache.parsed]
            if (not still and cache.cursor.next_number >= number) or time.monotonic() > deadline:
                return read
            # Another thread of this process may be the one about to write the record.
            self._lock.release()
            try:
                time.sleep(0.02)
            finally:
                self._lock.acquire()

    def _ask(self, study: Study, cache: _StudyCache, trial: FrozenTrial) -> _Asked:
        seed = self._seed_for(cache)
        _study_info.write_once(study, self, seed)  # sampler name, settings, seed, note
        number = trial.number
        # The latest run that started at or before this trial (another worker may have
        # started a run at a later trial number already).
        run = self._run_of_foreign(cache, number)
        strategy = self._strategy(cache, run)
        user_attrs: dict[str, Any] = {}
        converged = strategy.converged()
        if converged and self._on_converged == "restart" and self._await_records(study, number):
            run = self._run_of_foreign(cache, number)  # perhaps restarted by an earlier trial
            strategy = self._strategy(cache, run)
            converged = strategy.converged()
        if converged and self._on_converged == "stop" and cache.stop_logged:
            _compat.stop_optimize(study)
        elif converged:
            n_run = cache.run_counts.get(run, 0)
            budget = strategy.budget()
            user_attrs["psms:converged_run"] = run
            user_attrs["psms:run_trials"] = n_run
            if budget:
                user_attrs["psms:pfc"] = round(n_run / budget, 6)
            if self._on_converged == "restart":
                run += 1
                later = cache.run_starts.get(run)
                cache.set_run_start(run, number if later is None else min(later, number))
                if run in cache.strategies and cache.strategies[run].run_start != number:
                    self._rebuild(cache)  # another worker restarted later: ours is earlier
                strategy = self._strategy(cache, run)
                _logger.info(
                    "%s: run %d converged after %d trials; restarting at trial %d.",
                    type(self).__name__,
                    run - 1,
                    n_run,
                    number,
                )
            else:
                stopped = _compat.stop_optimize(study)
                if not cache.stop_logged:
                    _logger.info(
                        "%s: run %d converged after %d trials; %s",
                        type(self).__name__,
                        run,
                        n_run,
                        "stopping the study." if stopped else "ask/tell study continues.",
                    )
                    cache.stop_logged = True
        rng = self._rngs.at(seed, number)
        try:
            proposal = strategy.ask(number, rng)
            x = np.asarray(proposal.x, dtype=float)
            if x.shape != (len(cache.names),) or not np.isfinite(x).all():
                raise ValueError(f"bad proposal shape/values {x.shape}")
        except Exception:  # never break a study: fall back to a uniform point
            _logger.exception("Strategy failed to propose trial %d; sampling uniformly.", number)
            proposal = Proposal(rng.uniform(size=len(cache.names)), -1, -1)
            x = proposal.x
        x = np.minimum(np.maximum(x, 0.0), 1.0).round(_DECIMALS)  # x is finite here
        fixed = _compat.fixed_params(trial)
        for name, value in fixed.items():
            i = cache.index.get(name)
            if i is not None:
                try:
                    x[i] = _space.encode(value, cache.dists[name])
                except (ValueError, TypeError):
                    pass
        names = cache.names
        vectors = {k: _stored(v) for k, v in proposal.vectors.items()}
        info = dict(proposal.info)
        if run:
            info["run"] = run
        coords = dict(zip(names, x.tolist()))
        rec = _records.make(
            self.algorithm,
            seed=seed,
            run=run,
            run_start=cache.run_starts.get(run, 0),
            member=int(proposal.member),
            generation=int(proposal.generation),
            x=coords,
            vectors={k: dict(zip(names, v.tolist())) for k, v in vectors.items()},
            info=info,
        )
        try:
            _compat.set_system_attrs(study, trial, _records.dump(rec))
            if self._record_user_attrs:
                user_attrs.update({f"psms:{k}": v for k, v in proposal.display.items()})
                if run:
                    user_attrs["psms:run"] = run
            if user_attrs:
                _compat.set_user_attrs(study, trial, user_attrs)
        except Exception:
            _logger.exception("Could not store the sampler record of trial %d.", number)
        parsed = _Parsed(number, None, {}, {}, fixed, rec)
        cache.parsed[number] = parsed
        cache.pending[number] = _compat.trial_id(trial)
        self._register_runs(cache, [parsed])
        member, generation = int(proposal.member), int(proposal.generation)
        self._tell(cache, parsed, Record(number, member, generation, x, vectors, dict(info)))
        return _Asked(seed, number, coords)
