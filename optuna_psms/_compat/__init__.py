"""The only package that touches Optuna internals (reads here, writes in :mod:`._write`).

A sampler receives a :class:`~optuna.study.Study` and a :class:`~optuna.trial.FrozenTrial`;
writing a trial's system attributes and reading trials incrementally needs the study's
storage, its id and the trial's id, which Optuna exposes only as private attributes
(Optuna's own samplers use them the same way). Everything that depends on them lives here
and is covered by ``tests/compat/test_attr_writes.py``, so an Optuna upgrade that moves them
breaks one
module and one test file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import inspect
import json
from typing import Any
from typing import TYPE_CHECKING

from optuna.storages import JournalStorage
from optuna.storages import RDBStorage
from optuna.storages._cached_storage import _CachedStorage
from optuna.storages._heartbeat import BaseHeartbeat
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms._compat._constraints import store_constraints as store_constraints
from optuna_psms._compat._constraints import violation as violation
from optuna_psms._compat._heartbeat import first_heartbeat as first_heartbeat
from optuna_psms._compat._write import _RDB_WRITE
from optuna_psms._compat._write import autocommit
from optuna_psms._compat._write import set_attrs as set_attrs  # the write half
from optuna_psms._compat._write import set_study_user_attrs as set_study_user_attrs


if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study

_FINISHED = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
#: A trial id no trial has (``RDBStorage``'s ids are 32-bit): "no trial above this one".
_NO_ID = 2**31 - 1


def storage_of(study: Study) -> tuple[BaseStorage, int]:
    """The storage and study id behind ``study``."""
    return study._storage, study._study_id


def trial_id(trial: FrozenTrial) -> int:
    """The storage id of ``trial`` (distinct from ``trial.number``)."""
    return trial._trial_id


def fixed_params(trial: FrozenTrial) -> dict[str, Any]:
    """Parameters fixed by :meth:`~optuna.study.Study.enqueue_trial` for this trial."""
    value = trial.system_attrs.get("fixed_params", {})
    return dict(value) if isinstance(value, dict) else {}


def set_system_attrs(study: Study, trial: FrozenTrial, attrs: dict[str, Any]) -> None:
    """Write trial system attributes, in the order given (one batch, see :func:`set_attrs`)."""
    set_attrs(study, trial, system=attrs)


def set_user_attrs(study: Study, trial: FrozenTrial, attrs: dict[str, Any]) -> None:
    """Write trial user attributes (shown by optuna-dashboard), in one batch."""
    set_attrs(study, trial, user=attrs)


@dataclass
class ReadCursor:
    """Where the incremental read of a study stands.

    Attributes:
        next_number: The first trial number not read yet (trials ``< next_number`` were read).
        last_id: The storage id of trial ``next_number - 1`` (``-1``: nothing read).
    """

    next_number: int = 0
    last_id: int = -1


def fetch_changed_trials(
    study: Study,
    cursor: ReadCursor,
    bare: Mapping[int, int] | None = None,
    running: Mapping[int, int] | None = None,
    current: FrozenTrial | None = None,
    retries: dict[int, Any] | None = None,
) -> list[FrozenTrial]:
    """Trials that may have changed since the last call, in as few round trips as possible.

    Args:
        study: The study.
        cursor: Advanced in place past the trials read.
        bare: Unfinished trials (number to storage id) to read again in full (their sampler
            record may have been written since).
        running: Unfinished trials (number to storage id) read earlier whose record is
            known: only their finishing matters. A storage that can filter by state returns
            just those that finished; others may return them all.
        current: The trial being asked, as :meth:`~optuna.study.Study.ask` gave it to the
            sampler. Only pass it from ``before_trial``: ``ask`` has just refreshed the
            storage's own trial cache (RDB, gRPC proxy), which is then read instead of the
            storage.
        retries: Filled with ``{number: failed_trial attr}`` of the heartbeat retries among
            the trials created between that snapshot and ``current`` (with Optuna's
            heartbeat on an RDB), which the caller registers; those trials themselves are
            read with the next call. Without it (or where that query is not available) the
            trials are read in full instead.

    Returns:
        The new trials (numbers ``>= cursor.next_number``, possibly beyond ``current``), the
        ``bare`` trials and the ``running`` trials that finished (possibly more of them), in
        no particular order.

    Cost per call, whatever the number of trials or of trials left RUNNING:

    * RDB (SQLite, PostgreSQL, MySQL) and Optuna's gRPC storage proxy, asking a trial: no
      round trip. ``Study.ask`` reads the new and unfinished trials into Optuna's trial cache
      just before (to find a waiting trial), and that snapshot is used. With Optuna's
      heartbeat on, trials created between that snapshot and ``current`` by other workers
      cost one more read (one of them may be a heartbeat retry, which shifts the slot of
      ``current``); without it (and through the gRPC proxy, which has none) they are left
      to the next call. The workers of a study therefore share one heartbeat setting.
    * RDB otherwise: at most two queries: one for the running trials that finished
      (filtered by state in SQL, so an abandoned RUNNING trial costs an id in an ``IN``
      list), one for the new and bare trials.
    * gRPC proxy otherwise: one ``GetTrials`` call (the proxy cannot filter by state, so
      running trials come back in full).
    * Journal storage: one read of the log's new lines (running trials that have not
      finished are filtered out in memory).
    * Any other storage: one ``get_trial`` per trial asked for and per new trial.
    """
    bare = bare or {}
    running = running or {}
    storage, study_id = storage_of(study)
    cached = _optuna_cache(storage, study_id) if current is not None else None
    rdb = _rdb_backend(storage)
    out: list[FrozenTrial]
    if cached is not None:
        assert current is not None
        out = [current]
        for number in (*bare, *running):
            trial = cached.get(number)
            if trial is not None and (number in bare or trial.state.is_finished()):
                out.append(trial)
        number = cursor.next_number
        while number < current.number:
            trial = cached.get(number)
            if trial is None:
                break
            out.append(trial)
            number += 1
        if number < current.number and _heartbeat_on(storage):
            # A trial was created between the snapshot and ``current`` (a heartbeat retry,
            # another worker's trial): the slot of ``current`` depends on a retry, read it.
            # Without Optuna's heartbeat (the gRPC proxy has none) no retry is created, so
            # the gap is other workers' new trials, read at the next call: with tens of
            # workers there is a gap on most asks, and through the proxy this read doubled
            # its work (each ``GetTrials`` re-reads every unfinished trial from the RDB).
            # Only a retry among them matters now: one SELECT of their ``failed_trial``
            # attrs, where reading them in full took two ``_get_trials`` (a dozen SELECTs):
            # with 8 PostgreSQL workers and the heartbeat, 510 ms of PSO's 1454 ms ask
            # against Random's 825 ms (docs/deployment.md, "Where ask's time goes").
            gap = None if retries is None else _gap_retries(storage, study_id, number, current)
            if retries is not None and gap is not None:
                retries.update(gap)
            else:
                cached = None
    if cached is not None:
        pass  # read from the snapshot above
    elif rdb is not None:
        out = []
        if running:
            out += rdb._get_trials(
                study_id,
                states=_FINISHED,
                included_trial_ids=set(running.values()),
                trial_id_greater_than=_NO_ID,
            )
        out += rdb._get_trials(
            study_id,
            states=None,
            included_trial_ids=set(bare.values()),
            trial_id_greater_than=cursor.last_id,
        )
    elif _is_grpc_proxy(storage):
        ids = [*bare.values(), *running.values()]
        out = _grpc_get_trials(storage, study_id, ids, cursor.last_id)
    elif isinstance(storage, JournalStorage):
        with storage._thread_lock:
            storage._sync_with_backend()
            replay = storage._replay_result
            out = [replay.get_trial(tid) for tid in bare.values()]
            # The log is replayed in memory: keep only the running trials that finished, so
            # that trials abandoned RUNNING cost the caller nothing per ask.
            finished = (replay.get_trial(tid) for tid in running.values())
            out += [t for t in finished if t.state.is_finished()]
            ids = replay._study_id_to_trial_ids[study_id]
            out += [replay.get_trial(tid) for tid in ids[cursor.next_number :]]
    else:
        out = [storage.get_trial(tid) for tid in (*bare.values(), *running.values())]
        out += _new_one_by_one(storage, study_id, cursor.next_number, current)
    _advance(cursor, out)
    return out


def attrs_cost_a_call_each(study: Study) -> bool:
    """Whether each trial attribute written is its own remote call (Optuna's gRPC storage
    proxy, which has no batch write; :func:`set_attrs` batches on the other storages)."""
    return _is_grpc_proxy(storage_of(study)[0])


def _heartbeat_on(storage: BaseStorage) -> bool:
    """Whether Optuna's heartbeat (and with it, heartbeat retries) runs on ``storage``."""
    return isinstance(storage, BaseHeartbeat) and storage.get_heartbeat_interval() is not None


def _optuna_cache(storage: BaseStorage, study_id: int) -> Mapping[int, FrozenTrial] | None:
    """Optuna's own snapshot of the study's trials (number to trial), if the storage has one.

    ``_CachedStorage`` (every RDB a study opens) and the gRPC proxy's client cache re-read
    the new and the unfinished trials on each ``get_all_trials`` call, which
    :meth:`~optuna.study.Study.ask` makes before it creates a trial.
    """
    if isinstance(storage, _CachedStorage):
        info = storage._studies.get(study_id)
        return None if info is None else info.trials
    if _is_grpc_proxy(storage):
        cache = getattr(storage, "_cache", None)
        entry = None if cache is None else cache.studies.get(study_id)
        return None if entry is None else entry.trials
    return None


def _advance(cursor: ReadCursor, trials: list[FrozenTrial]) -> None:
    """Move ``cursor`` past the contiguous run of trial numbers read."""
    by_number = {t.number: t for t in trials if t.number >= cursor.next_number}
    while cursor.next_number in by_number:
        cursor.last_id = trial_id(by_number[cursor.next_number])
        cursor.next_number += 1


def _new_one_by_one(
    storage: BaseStorage, study_id: int, number: int, current: FrozenTrial | None
) -> list[FrozenTrial]:
    if number == 0:
        return list(storage.get_all_trials(study_id, deepcopy=False))
    out = []
    while True:
        if current is not None and number == current.number:
            out.append(current)
            return out
        try:
            tid = storage.get_trial_id_from_study_id_trial_number(study_id, number)
        except KeyError:
            return out
        out.append(storage.get_trial(tid))
        number += 1


def _gap_retries(
    storage: BaseStorage, study_id: int, low: int, current: FrozenTrial
) -> dict[int, Any] | None:
    """``{number: failed_trial attr}`` of the retries numbered ``[low, current.number)``.

    One SELECT on the RDB's trial and system-attribute tables (Optuna's private models, as
    :mod:`._write` uses them); ``None`` if that is not possible here. On PostgreSQL it runs
    on an autocommit connection (:func:`._write.autocommit`): one round trip, where a
    session's ``BEGIN`` and ``ROLLBACK`` made it three (12.3 ms of PSO's ask with 8 PSO and
    8 RandomSampler workers, ``docs/reproduce/ask_time.py --workers 8 --heartbeat``).
    """
    rdb = _rdb_backend(storage)
    if rdb is None or _RDB_WRITE is None:
        return None
    scoped_session, trial_model, system_attr_model, _ = _RDB_WRITE
    from sqlalchemy import select

    query = (
        select(trial_model.number, system_attr_model.value_json)
        .join(system_attr_model, system_attr_model.trial_id == trial_model.trial_id)
        .where(
            trial_model.study_id == study_id,
            trial_model.number >= low,
            trial_model.number < current.number,
            system_attr_model.key == "failed_trial",
        )
    )
    try:
        with autocommit(rdb) as connection:
            if connection is not None:
                rows = connection.execute(query).all()
            else:
                with scoped_session(rdb.scoped_session) as session:
                    rows = session.execute(query).all()
    except Exception:
        return None
    out: dict[int, Any] = {}
    for number, text in rows:
        try:
            out[int(number)] = json.loads(text)
        except (TypeError, ValueError):
            continue
    return out


def _rdb_backend(storage: BaseStorage) -> RDBStorage | None:
    """The :class:`~optuna.storages.RDBStorage` behind ``storage`` (Optuna wraps it in a cache).

    ``None`` where the RDB's private ``_get_trials`` cannot filter by trial id (Optuna 4.0
    has no ``included_trial_ids`` argument): the caller then reads trial by trial, as for
    any other storage.
    """
    if isinstance(storage, _CachedStorage):
        storage = storage._backend
    if not isinstance(storage, RDBStorage) or not RDB_FILTERS_BY_ID:
        return None
    return storage


def _rdb_filters_by_id() -> bool:
    try:
        params = inspect.signature(RDBStorage._get_trials).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return "included_trial_ids" in params and "trial_id_greater_than" in params


#: Whether this Optuna's ``RDBStorage._get_trials`` takes ``included_trial_ids`` (one query
#: for the running trials that finished).
RDB_FILTERS_BY_ID = _rdb_filters_by_id()


def _is_grpc_proxy(storage: BaseStorage) -> bool:
    # Not imported up front: the proxy needs grpcio, an optional dependency.
    return type(storage).__name__ == "GrpcStorageProxy" and hasattr(storage, "_stub")


def _grpc_get_trials(
    storage: Any, study_id: int, included: list[int], greater_than: int
) -> list[FrozenTrial]:
    """One ``GetTrials`` call: trials with an id in ``included`` or above ``greater_than``."""
    from optuna.storages._grpc import servicer
    from optuna.storages._grpc.auto_generated import api_pb2

    request = api_pb2.GetTrialsRequest(
        study_id=study_id, included_trial_ids=included, trial_id_greater_than=greater_than
    )
    reply = storage._stub.GetTrials(request)
    return [servicer._from_proto_trial(t) for t in reply.trials]


def retry_callback_class() -> Any:
    """Optuna's callback that retries a heartbeat-stale trial, under its current name.

    ``optuna.storages.RetryHeartbeatStaleTrialCallback`` from Optuna 4.9 (where
    ``RetryFailedTrialCallback`` became its deprecated alias, to be removed in 6.0),
    ``RetryFailedTrialCallback`` before (Optuna 4.0 to 4.8). Same behaviour; the old name is
    only looked up where the new one does not exist, so no deprecation warning either way.
    """
    import optuna.storages as storages

    new = getattr(storages, "RetryHeartbeatStaleTrialCallback", None)
    if new is not None:
        return new
    return storages.RetryFailedTrialCallback  # pragma: no cover - Optuna < 4.9


def heartbeat_retry(max_retry: int | None = 3) -> dict[str, Any]:
    """Keyword arguments of :class:`~optuna.storages.RDBStorage` that retry stale trials.

    Optuna 4.9 renamed ``failed_trial_callback=RetryFailedTrialCallback(...)`` to
    ``heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(...)`` (same
    behaviour; the old names warn from 4.9 and go in 6.0). This gives the new names where
    they exist, the old ones before, so no deprecation warning either way.

    Args:
        max_retry: Retries per trial, as the callback's ``max_retry``.
    """
    import optuna.storages as storages

    new = getattr(storages, "RetryHeartbeatStaleTrialCallback", None)
    if new is not None:
        return {"heartbeat_stale_trial_callback": new(max_retry=max_retry)}
    return {  # pragma: no cover - Optuna < 4.9
        "failed_trial_callback": storages.RetryFailedTrialCallback(max_retry=max_retry)
    }


def stop_optimize(study: Study) -> bool:
    """Ask ``study.optimize`` to stop after the running trials; ``False`` under ask/tell."""
    try:
        study.stop()
    except RuntimeError:
        return False
    return True
