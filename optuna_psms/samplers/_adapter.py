"""The shared Optuna adapter of every population sampler in this package.

:class:`PopulationSampler` turns a study into what an algorithm core
(:class:`~optuna_psms.samplers.core.base.Strategy`) understands and back:

Search space
    The union of every parameter any trial of the study has suggested (single-value
    distributions excluded), sorted by name, each parameter one coordinate of the unit box
    (:mod:`optuna_psms.samplers._space`). A parameter that is not suggested by a trial (a
    conditional
    branch not taken) keeps its coordinate in that trial's vector: this is the fixed-length
    representation of PSMS. A parameter that first appears mid-study extends every vector;
    the coordinate a vector lacks is filled with a uniform draw fixed by ``(seed, trial number,
    name)``, the same draw the trial used if it sampled that parameter itself. When a
    parameter's range changes, coordinates are kept and decoded into the new range.

State
    Everything is re-derived from the study's trials: parameters, values, states and one
    JSON record per trial (system attrs ``psms:rec*``, :mod:`optuna_psms.samplers._records`)
    holding
    the algorithm tag, seed, run, member, generation, the full encoded vector and any further
    per-dimension vector (the velocity for PSO). The study view (:mod:`optuna_psms.samplers._view`)
    reads only the trials that are new or were unfinished at the last look, so a trial costs
    ``O(population x dimensions)`` and not ``O(number of trials)``. The view is rebuilt from
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
    strategy from trial ``n`` on, its run index recorded in each record; the rule that makes
    concurrent workers start one run without waiting is in :mod:`optuna_psms.samplers._lifecycle`),
    ``"stop"`` calls :meth:`~optuna.study.Study.stop` (ignored under ask-and-tell) and keeps
    proposing from the converged run. The trial that detects convergence gets the user attrs
    ``psms:converged_run``, ``psms:run_trials`` and ``psms:pfc`` (trials the run used divided by
    the budget the algorithm is designed for: the PFC figure of Rojas-Dominguez et al.).

This module is the Optuna interface only: the study view (:mod:`optuna_psms.samplers._view`) reads
storage, :mod:`optuna_psms.samplers._lifecycle` decides a trial's run, the strategy proposes, and
:meth:`PopulationSampler._ask` writes the record (:mod:`optuna_psms.samplers._records`).
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from collections.abc import Sequence
import dataclasses
import secrets
import threading
from typing import Any
from typing import ClassVar

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms import _compat
from optuna_psms.samplers import _lifecycle
from optuna_psms.samplers import _records
from optuna_psms.samplers import _runs
from optuna_psms.samplers import _space
from optuna_psms.samplers import _study_info
from optuna_psms.samplers._identity import Identity
from optuna_psms.samplers._view import Asked
from optuna_psms.samplers._view import Parsed
from optuna_psms.samplers._view import StudyView
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.rng import hash_uniform
from optuna_psms.samplers.core.rng import TrialRng


_logger = optuna.logging.get_logger(__name__)

#: What ``record_user_attrs=None`` means: the display attrs are written except through
#: Optuna's gRPC storage proxy, which has no batch write. There a PSO trial's record and its
#: two display attrs are three calls to the proxy and three database transactions (a
#: RandomSampler trial makes about nine calls in all), the proxy is the bottleneck of a
#: many-worker deployment, and without them PSO's throughput with 32 workers was 0.90 of
#: RandomSampler's against 0.78 (medians, docs/deployment.md). Elsewhere a trial's attrs are
#: written in one transaction or append and cost next to nothing.
USER_ATTRS_AUTO = "on, except through the gRPC storage proxy"
_auto_reported: set[str] = set()

#: Version of the record layout written by this package
#: (:data:`optuna_psms.samplers._records.VERSION`).
RECORD_VERSION = _records.VERSION
#: Decimals kept in stored vectors; values are rounded before use, so a re-read is exact.
_DECIMALS = 12
#: Trials of this process remembered for ``sample_independent`` (per study).
_ASKED_KEPT = 4096


def _stored(values: Any) -> np.ndarray:
    """A vector as stored in a record: non-finite values replaced by 0, rounded."""
    v = np.asarray(values, dtype=float)
    if not np.isfinite(v).all():
        v = np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0)
    out: np.ndarray = v.round(_DECIMALS)
    return out


class PopulationSampler(BaseSampler, abc.ABC):
    """Base class of the population samplers: storage-backed, reproducible, concurrent.

    Subclasses provide :meth:`_make_strategy` (and usually nothing else). See the module
    documentation for the search-space, storage, determinism and failure rules.

    Args:
        seed: Seed of every random draw (with the trial number). ``None`` adopts the seed
            recorded in the study, or draws a fresh one.
        record_user_attrs: Write ``psms:*`` user attrs (member, iteration, ...) that
            optuna-dashboard shows with each trial. ``None`` (the default): write them,
            except through Optuna's gRPC storage proxy, where each attribute is one call to
            the proxy and one database transaction (see :data:`USER_ATTRS_AUTO`).
        on_converged: ``"restart"`` or ``"stop"``; only used by strategies that converge.
        constraints_func: As in :class:`~optuna.samplers.TPESampler`: called with each
            trial that completes or is pruned (in :meth:`after_trial`); it returns the
            trial's constraint values, a value ``<= 0`` meaning satisfied, stored in the
            trial's system attrs where Optuna keeps them. Values set in the objective with
            ``trial.set_constraint(name, value)`` (Optuna 5) count the same way, with or
            without this function. Trials are ranked by Deb's rules: feasible before
            infeasible, feasible ones by objective value, infeasible ones by total violation
            (the sum of their positive constraint values); see
            :func:`~optuna_psms.samplers.core.base.constrained_loss`.
    """

    #: The identities this class can carry (one, or one per mode): its tag, title,
    #: description and labels (:class:`~optuna_psms.samplers._identity.Identity`).
    identities: ClassVar[tuple[Identity, ...]] = ()
    #: Inside ``Study.optimize`` with a heartbeat RDB storage, a new trial's heartbeat row
    #: is committed with the trial (``optuna_psms._compat._heartbeat``).
    commits_heartbeat_with_trial: ClassVar[bool] = True
    #: The algorithm's settings: the frozen, validated dataclass of its core module
    #: (``PSOSettings``, ...), built by the subclass from its constructor arguments.
    _settings: Any = None

    def __init__(
        self,
        *,
        seed: int | None = None,
        record_user_attrs: bool | None = None,
        on_converged: str = "restart",
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if constraints_func is not None and not callable(constraints_func):
            raise ValueError(
                f"constraints_func must be a callable or None, got {constraints_func!r}."
            )
        self._constraints_func = constraints_func
        if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}.")
        if on_converged not in _lifecycle.ON_CONVERGED:
            raise ValueError(
                f"on_converged must be one of {_lifecycle.ON_CONVERGED}, got {on_converged!r}."
            )
        self._seed = None if seed is None else int(seed)
        self._fallback_seed = secrets.randbits(31)
        if record_user_attrs is not None and not isinstance(record_user_attrs, bool):
            raise ValueError(
                f"record_user_attrs must be True, False or None, got {record_user_attrs!r}."
            )
        self._record_user_attrs = record_user_attrs
        self._on_converged = on_converged
        self._lock = threading.RLock()
        self._views: dict[tuple[int, int], StudyView] = {}
        self._rngs = TrialRng()  # re-keyed per trial; used under the lock only

    def __getstate__(self) -> dict[str, Any]:
        # The lock cannot be pickled and the views are only an optimisation: a sampler
        # restored from a pickle re-reads its state from storage on first use.
        state = self.__dict__.copy()
        del state["_lock"]
        del state["_rngs"]
        state["_views"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("_constraints_func", None)  # pickled before constraints existed
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._rngs = TrialRng()

    @property
    def identity(self) -> Identity:
        """This sampler's algorithm: its tag, title, description and labels."""
        return self.identities[0]

    @property
    def algorithm(self) -> str:
        """The algorithm tag written into every record; records with another tag are
        foreign."""
        return self.identity.tag

    @property
    def _params(self) -> dict[str, Any]:
        """The settings as a dict (read by :mod:`optuna_psms.samplers._study_info`)."""
        if self._settings is None:
            return {}
        return {
            f.name: getattr(self._settings, f.name) for f in dataclasses.fields(self._settings)
        }

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

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        # First, before any slow work: a worker killed from here on leaves a trial that
        # Optuna's heartbeat fails and retries (without a heartbeat row it never would).
        _compat.first_heartbeat(study, trial)
        with self._lock:
            self._ensure_asked(study, trial)

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        with self._lock:
            view = self._view(study)
            if _compat.trial_id(trial) not in view.asked:  # before_trial synced already
                view.sync(study)
            return {name: view.dists[name] for name in view.names}

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
        if self._constraints_func is not None:
            _compat.store_constraints(self._constraints_func, study, trial, state)
        with self._lock:
            view = self._views.get(self._key(study))
            if view is not None:
                view.asked.pop(_compat.trial_id(trial), None)

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _key(study: Study) -> tuple[int, int]:
        storage, study_id = _compat.storage_of(study)
        return id(storage), study_id

    def _view(self, study: Study) -> StudyView:
        key = self._key(study)
        view = self._views.get(key)
        if view is None:
            # Made once per study and process: directions never change.
            if len(study.directions) > 1:
                raise ValueError(
                    f"{type(self).__name__} optimises a single objective, but this study has "
                    f"{len(study.directions)} directions: multi-objective optimization is not "
                    "supported."
                )
            view = StudyView(self, -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0)
            self._views[key] = view
        return view

    def _sync(self, study: Study) -> StudyView:
        """The study's view, brought up to date with storage."""
        view = self._view(study)
        view.sync(study)
        return view

    def _seed_for(self, view: StudyView) -> int:
        if self._seed is not None:
            return self._seed
        if view.adopted_seed is not None:
            return view.adopted_seed
        return self._fallback_seed

    def _writes_user_attrs(self, study: Study) -> bool:
        """Whether the ``psms:*`` display attrs are written (see ``record_user_attrs``)."""
        if self._record_user_attrs is not None:
            return self._record_user_attrs
        if not _compat.attrs_cost_a_call_each(study):
            return True
        name = type(self).__name__
        if name not in _auto_reported:
            _auto_reported.add(name)
            _logger.info(
                "%s does not write its psms:* display attrs through the gRPC storage proxy "
                "(two calls to the proxy per trial); pass record_user_attrs=True to write them.",
                name,
            )
        return False

    @staticmethod
    def _coords(asked: Asked, names: list[str]) -> list[float]:
        missing = [n for n in names if n not in asked.coords]
        if missing:
            fill = hash_uniform(asked.seed, asked.number, missing)
            extra = dict(zip(missing, (float(u) for u in fill)))
        else:
            extra = {}
        return [asked.coords[n] if n in asked.coords else extra[n] for n in names]

    def _ensure_asked(self, study: Study, trial: FrozenTrial) -> Asked:
        view = self._view(study)
        tid = _compat.trial_id(trial)
        asked = view.asked.get(tid)
        if asked is not None:
            return asked
        view.sync(study, trial)
        parsed = view.parsed.get(trial.number)
        if parsed is not None and parsed.rec is not None:
            # Already asked (by another process or before a restart of this one).
            rec = parsed.rec
            asked = Asked(int(rec["s"]), trial.number, dict(rec["x"]))
        else:
            asked = self._ask(study, view, trial)
        view.asked[tid] = asked
        while len(view.asked) > _ASKED_KEPT:
            view.asked.popitem(last=False)
        return asked

    def _propose(
        self, view: StudyView, strategy: Strategy, seed: int, number: int
    ) -> tuple[Proposal, np.ndarray]:
        """The strategy's proposal and its position, clipped and rounded as stored."""
        rng = self._rngs.at(seed, number)
        try:
            proposal = strategy.ask(number, rng)
            x = np.asarray(proposal.x, dtype=float)
            if x.shape != (len(view.names),) or not np.isfinite(x).all():
                raise ValueError(f"bad proposal shape/values {x.shape}")
        except Exception:  # never break a study: fall back to a uniform point
            _logger.exception("Strategy failed to propose trial %d; sampling uniformly.", number)
            proposal = Proposal(rng.uniform(size=len(view.names)), -1, -1)
            x = proposal.x
        return proposal, np.minimum(np.maximum(x, 0.0), 1.0).round(_DECIMALS)  # x is finite

    def _ask(self, study: Study, view: StudyView, trial: FrozenTrial) -> Asked:
        seed = self._seed_for(view)
        if not view.info_written:  # a flag: write_once's own check costs a lock and lookups
            _study_info.write_once(study, self, seed)  # sampler name, settings, seed, note
            view.info_written = True
        number = trial.number
        name = type(self).__name__
        decision = _lifecycle.decide(view, study, number, self._on_converged, name)
        run, user_attrs = decision.run, decision.user_attrs
        proposal, x = self._propose(view, decision.strategy, seed, number)
        fixed = _compat.fixed_params(trial)
        for param, value in fixed.items():
            i = view.index.get(param)
            if i is not None:
                try:
                    x[i] = _space.encode(value, view.dists[param])
                except (ValueError, TypeError):
                    pass
        names = view.names
        vectors = {k: _stored(v) for k, v in proposal.vectors.items()}
        info = dict(proposal.info)
        if run:
            info["run"] = run
        coords = dict(zip(names, x.tolist()))
        member, generation = int(proposal.member), int(proposal.generation)
        slot = view.numbering.slot(number)  # what the strategy was asked with (_runs)
        rec = _records.make(
            self.algorithm,
            seed=seed,
            run=run,
            run_start=view.runs.starts.get(run, 0),
            member=member,
            generation=generation,
            x=coords,
            vectors={k: dict(zip(names, v.tolist())) for k, v in vectors.items()},
            info=info,
            slot=slot,
        )
        try:
            if self._writes_user_attrs(study):
                user_attrs.update({f"psms:{k}": v for k, v in proposal.display.items()})
                if run:
                    user_attrs["psms:run"] = run
            # The record and the display attrs in one write (one journal append, one RDB
            # transaction); the record comes first, as the separate calls wrote it.
            _compat.set_attrs(study, trial, system=_records.dump(rec), user=user_attrs)
        except Exception:
            _logger.exception("Could not store the sampler record of trial %d.", number)
        parsed = Parsed(number, None, {}, {}, fixed, rec)
        record = Record(number, member, generation, x, vectors, dict(info))
        retry = _runs.retry_root(number, trial.system_attrs) is not None
        view.add_own(parsed, record, _compat.trial_id(trial), retry=retry)
        return Asked(seed, number, coords)
