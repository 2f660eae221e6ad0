"""A trial's first heartbeat, committed with the trial itself.

Optuna fails a dead worker's trial only once it has a heartbeat row that went stale:
``RDBStorage._get_stale_trial_ids`` skips every RUNNING trial without a row in
``trial_heartbeats``. ``Study.optimize`` starts the heartbeat thread (whose first beat
inserts the row) only after ``Study.ask`` has returned, and ``ask`` is where a population
sampler does its work (``before_trial``: reading the study, proposing, writing the record).
A worker killed there left a RUNNING trial that nobody ever failed, and its slot was never
evaluated (issue 31).

Two mechanisms close that window:

* A SQLAlchemy ``after_insert`` listener on Optuna's ``TrialModel`` (registered once, at
  import) inserts the new trial's ``trial_heartbeats`` row on the inserting connection,
  inside the transaction that inserts the trial (``RDBStorage._create_new_trial`` flushes
  the trial in a session and commits once): the trial and its heartbeat row are committed
  together, so no moment exists where the trial is RUNNING without a row. The row's time
  is the database's ``CURRENT_TIMESTAMP`` (the column default, as in Optuna's own
  ``record_heartbeat``). With psycopg2 the INSERT costs no round trip of its own: it is
  sent in front of Optuna's next statement of that transaction (:func:`_ride_along`). The
  study is found in a registry filled by :func:`first_heartbeat` (held weakly) or, for
  its first trial in a process, in the frame of ``Study.ask`` up the stack (its sampler
  must set ``commits_heartbeat_with_trial``).
* :func:`first_heartbeat`, called first thing in ``before_trial``, registers the study and
  records the beat if the row did not come with the trial; it has nothing to write (no
  extra transaction) when it did.

A trial taken from the queue of WAITING trials (``enqueue_trial``, a heartbeat retry) is
switched to RUNNING by an UPDATE, not inserted: an ``after_update`` listener gives it its
row (inserted, or its time refreshed) in that same transaction, on the same conditions.

What remains: should ``Study.ask`` not be found up the stack (another Optuna layout), the
first trial of a ``Study`` object in a process relies on :func:`first_heartbeat` (a window
between the trial's commit and ``before_trial``); the later ones are covered by the registry.

The listeners act only when all hold: the connection's engine is the engine of the
:class:`~optuna.storages.RDBStorage` (``heartbeat_interval`` set) of a registered study,
or of the study asking up the stack; the trial belongs to that study; that study is
inside ``Study.optimize`` on this thread (Optuna's thread-local ``in_optimize_loop``: a
trial asked with ``study.ask()`` gets no heartbeat from Optuna, and must get none from us
either, or it would be failed after ``grace_period`` while its caller evaluates it); and
the row is a new RUNNING trial (``datetime_start`` set, ``datetime_complete`` not) or a
WAITING trial switched to RUNNING, not a WAITING or finished trial written by
``add_trial`` (``RetryFailedTrialCallback``'s retries are WAITING: a heartbeat row left
from their insertion would make them stale the moment they are taken).

Private API used: ``sys._getframe`` over Optuna's ``Study.ask`` frame (its ``self``),
``Study._storage``, ``Study._study_id``, ``FrozenTrial._trial_id``,
``Study._thread_local.in_optimize_loop``, ``_CachedStorage._backend`` and the models
``TrialModel`` / ``TrialHeartbeatModel`` of ``optuna.storages._rdb.models`` (same columns
in Optuna 4.0 and 5.0); ``record_heartbeat``, ``get_heartbeat_interval`` and ``engine``
are public attributes of :class:`~optuna.storages.RDBStorage`. :func:`_ride_along` relies
on SQLAlchemy's public ``before_cursor_execute`` (``retval=True``), ``commit`` and
``rollback`` events and on psycopg2 running a string of statements in one round trip.
"""

from __future__ import annotations

import inspect
import sys
import threading
from types import FrameType
from typing import Any
from typing import TYPE_CHECKING
import weakref

import optuna
from optuna.storages import RDBStorage
from optuna.storages._cached_storage import _CachedStorage
from optuna.storages._heartbeat import BaseHeartbeat
from optuna.trial import TrialState


if TYPE_CHECKING:
    from optuna.study import Study
    from optuna.trial import FrozenTrial


#: ``Study.ask``'s code: the listener finds the asking study in its frame.
_ASK_CODE = inspect.unwrap(optuna.Study.ask).__code__
#: How far up the stack the ask is looked for (SQLAlchemy's flush and Optuna's storage
#: calls are about 25 frames; a miss only leaves the trial to ``first_heartbeat``).
_MAX_DEPTH = 60
_lock = threading.Lock()
_listening = False
#: The studies whose new trials get their heartbeat row with their insertion.
_studies: weakref.WeakSet[Study] = weakref.WeakSet()
#: Per thread: the id of the last trial the listener gave a heartbeat row.
_local = threading.local()


def _heartbeat_rdb(study: Study) -> RDBStorage | None:
    """The study's RDB storage if its heartbeat is enabled, else ``None``."""
    storage: Any = study._storage
    if isinstance(storage, _CachedStorage):
        storage = storage._backend
    if not isinstance(storage, RDBStorage) or storage.get_heartbeat_interval() is None:
        return None
    return storage


def _in_optimize(study: Study) -> bool:
    return bool(getattr(study._thread_local, "in_optimize_loop", False))


def _asking_study() -> Study | None:
    """The study whose ``Study.ask`` is running on this thread (up the stack), if any."""
    try:
        frame: FrameType | None = sys._getframe(2)
        for _ in range(_MAX_DEPTH):
            if frame is None:
                return None
            if frame.f_code is _ASK_CODE:
                study = frame.f_locals.get("self")
                return study if isinstance(study, optuna.Study) else None
            frame = frame.f_back
    except Exception:  # no frame support: the registry and first_heartbeat remain
        return None
    return None


def _ours(study: Study) -> bool:
    return bool(getattr(study.sampler, "commits_heartbeat_with_trial", False))


def _beats_here(connection: Any, target: Any) -> bool:
    """Whether the trial ``target`` written on ``connection`` gets its heartbeat row now."""
    engine = connection.engine
    candidates = [s for s in list(_studies) if s._study_id == target.study_id]
    if not candidates:  # the first trial of this Study object: look for its ask
        asking = _asking_study()
        if asking is None or asking._study_id != target.study_id or not _ours(asking):
            return False
        candidates = [asking]
    for study in candidates:
        if not _in_optimize(study):
            continue
        storage = _heartbeat_rdb(study)
        if storage is not None and storage.engine is engine:
            return True
    return False


def _on_trial_insert(mapper: Any, connection: Any, target: Any) -> None:
    """``after_insert`` listener: the new trial's heartbeat row, in the same transaction."""
    if (
        target.state != TrialState.RUNNING
        or target.datetime_start is None
        or target.datetime_complete is not None
        or not _beats_here(connection, target)
    ):
        return
    _local.trial_id = target.trial_id
    if connection.dialect.driver == "psycopg2":
        # Sent with Optuna's next statement (its count of the study's trials), not alone.
        _ride_along(connection, int(target.trial_id))
        return
    from optuna.storages._rdb import models

    table = models.TrialHeartbeatModel.__table__
    connection.execute(table.insert().values(trial_id=target.trial_id))


#: ``Connection.info`` key of a heartbeat row waiting for the connection's next statement.
_PENDING = "optuna_psms:heartbeat_row"
_engines: weakref.WeakSet[Any] = weakref.WeakSet()


def _heartbeat_sql(trial_id: int) -> str:
    from optuna.storages._rdb import models

    table = models.TrialHeartbeatModel.__tablename__
    return f"INSERT INTO {table} (trial_id, heartbeat) VALUES ({int(trial_id)}, CURRENT_TIMESTAMP)"


def _ride_along(connection: Any, trial_id: int) -> None:
    """Insert the heartbeat row of ``trial_id`` with ``connection``'s next statement.

    Trials are created one at a time per study (Optuna locks the study's row until the
    commit), so any round trip inside that transaction delays every worker's next trial:
    with 16 PSO and 16 RandomSampler workers (``docs/reproduce/ask_time.py --workers 16
    --trials 15 --heartbeat``, load 27-31) PSO's trial creation took 651-1047 ms per ask
    against RandomSampler's 490-778. psycopg2 sends a string of statements in one round
    trip, so the row's INSERT goes in front of Optuna's next statement in the transaction
    (its count of the study's trials); if the transaction commits first, the INSERT is sent
    alone before the commit, and a rollback drops it. The row is in the trial's
    transaction either way.
    """
    from sqlalchemy import event

    engine = connection.engine
    with _lock:
        if engine not in _engines:
            event.listen(engine, "before_cursor_execute", _prepend, retval=True)
            event.listen(engine, "commit", _before_commit)
            event.listen(engine, "rollback", _drop)
            _engines.add(engine)
    transaction = connection.get_transaction()
    connection.info[_PENDING] = (trial_id, None if transaction is None else id(transaction))


def _take(connection: Any) -> int | None:
    pending = connection.info.pop(_PENDING, None)
    if pending is None:
        return None
    transaction = connection.get_transaction()
    if pending[1] != (None if transaction is None else id(transaction)):
        return None  # another transaction's (cannot happen: commit and rollback drop it)
    return int(pending[0])


def _prepend(
    connection: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool
) -> tuple[str, Any]:
    if many or _PENDING not in connection.info:
        return statement, parameters
    trial_id = _take(connection)
    if trial_id is None:
        return statement, parameters
    return f"{_heartbeat_sql(trial_id)}; {statement}", parameters


def _before_commit(connection: Any) -> None:
    if _PENDING not in connection.info:
        return
    trial_id = _take(connection)
    if trial_id is not None:
        cursor = connection.connection.driver_connection.cursor()
        try:
            cursor.execute(_heartbeat_sql(trial_id))
        finally:
            cursor.close()


def _drop(connection: Any) -> None:
    connection.info.pop(_PENDING, None)


def _on_trial_update(mapper: Any, connection: Any, target: Any) -> None:
    """``after_update`` listener: a WAITING trial taken by ``ask`` (``RUNNING`` now) gets
    its heartbeat row in the transaction that takes it."""
    if target.state != TrialState.RUNNING:
        return
    from sqlalchemy import inspect as sa_inspect

    if TrialState.WAITING not in sa_inspect(target).attrs.state.history.deleted:
        return
    if not _beats_here(connection, target):
        return
    from optuna.storages._rdb import models
    from sqlalchemy import func
    from sqlalchemy import select

    table = models.TrialHeartbeatModel.__table__
    # The trial's row is locked (``FOR UPDATE``) by the transaction that takes it: no one
    # else writes its heartbeat row meanwhile.
    found = connection.execute(
        select(table.c.trial_id).where(table.c.trial_id == target.trial_id)
    ).first()
    if found is None:
        connection.execute(table.insert().values(trial_id=target.trial_id))
    else:
        connection.execute(
            table.update()
            .where(table.c.trial_id == target.trial_id)
            .values(heartbeat=func.current_timestamp())
        )
    _local.trial_id = target.trial_id


def _listen() -> None:
    """Register :func:`_on_trial_insert` once per process."""
    global _listening
    with _lock:
        if not _listening:
            from optuna.storages._rdb import models
            from sqlalchemy import event

            event.listen(models.TrialModel, "after_insert", _on_trial_insert)
            event.listen(models.TrialModel, "after_update", _on_trial_update)
            _listening = True


def register(study: Study) -> bool:
    """Give the new trials of ``study`` their heartbeat row with their insertion.

    Only for an :class:`~optuna.storages.RDBStorage` with ``heartbeat_interval`` set
    (returns whether the study is registered). The registry holds studies weakly.
    """
    if _heartbeat_rdb(study) is None:
        return False
    _listen()
    with _lock:
        _studies.add(study)
    return True


def first_heartbeat(study: Study, trial: FrozenTrial) -> bool:
    """Make sure ``trial`` has its heartbeat row if Optuna will keep it up; returns whether.

    Only with a heartbeat storage (``heartbeat_interval`` set) and inside
    ``Study.optimize``. If the listener inserted the row with the trial, nothing is
    written; otherwise the beat is recorded now. Registers ``study`` (:func:`register`) so
    that its next trials get the row with their insertion. A failure to write is left to
    Optuna's own heartbeat thread (which starts once ``ask`` returns) and reported as
    ``False``.
    """
    storage = study._storage
    if not isinstance(storage, BaseHeartbeat) or storage.get_heartbeat_interval() is None:
        return False
    if not getattr(study._thread_local, "in_optimize_loop", True):
        return False
    if study not in _studies:
        register(study)
    if getattr(_local, "trial_id", None) == trial._trial_id:
        _local.trial_id = None
        return True
    try:
        storage.record_heartbeat(trial._trial_id)
    except Exception:
        return False
    return True


# From import on, so that a process's first trial is covered too (its study is not
# registered yet; the listener finds it up the stack). Cheap for every other insert: a
# finished or WAITING trial returns at once, a new RUNNING one costs a walk of ~25 frames.
_listen()
