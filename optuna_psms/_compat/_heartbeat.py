"""A trial's first heartbeat, committed with the trial itself.

Optuna fails a dead worker's trial only once it has a heartbeat row that went stale:
``RDBStorage._get_stale_trial_ids`` skips every RUNNING trial without a row in
``trial_heartbeats``. ``Study.optimize`` starts the heartbeat thread (whose first beat
inserts the row) only after ``Study.ask`` has returned, and ``ask`` is where a population
sampler does its work (``before_trial``: reading the study, proposing, writing the record).
A worker killed there left a RUNNING trial that nobody ever failed, and its slot was never
evaluated (issue 31).

Two mechanisms close that window:

* :func:`first_heartbeat`, called first thing in ``before_trial``, records the beat then
  and registers the study (:func:`register`).
* For a registered study, a SQLAlchemy ``after_insert`` listener on Optuna's ``TrialModel``
  inserts the new trial's ``trial_heartbeats`` row on the inserting connection, inside
  the transaction that inserts the trial (``RDBStorage._create_new_trial`` flushes the
  trial in a session and commits once): the trial and its heartbeat row are committed
  together, so no moment exists where a worker's trial is RUNNING without a row. The row's
  time is the database's ``CURRENT_TIMESTAMP`` (the column default, as in Optuna's own
  ``record_heartbeat``); ``first_heartbeat`` then has nothing to do (no extra transaction).

What remains: the first trial a :class:`~optuna.study.Study` object asks in a process is
created before the sampler sees the study, so it relies on :func:`first_heartbeat` (a
window of pure Python between the trial's commit and ``before_trial``, microseconds); so
does a trial taken from the queue of WAITING trials (``enqueue_trial``, a heartbeat retry),
which is updated to RUNNING rather than inserted.

The listener acts only when all hold: the connection's engine is the engine of a
registered study's :class:`~optuna.storages.RDBStorage` with ``heartbeat_interval`` set;
the inserted trial belongs to that study; that study is inside ``Study.optimize`` on this
thread (Optuna's thread-local ``in_optimize_loop``: a trial asked with ``study.ask()`` gets
no heartbeat from Optuna, and must get none from us either, or it would be failed after
``grace_period`` while its caller evaluates it); and the inserted row is a new RUNNING
trial (``datetime_start`` set, ``datetime_complete`` not), not a WAITING or finished trial
written by ``add_trial`` (``RetryFailedTrialCallback``'s retries are WAITING: a heartbeat
row left from their insertion would make them stale the moment they are taken).

Private API used: ``Study._storage``, ``Study._study_id``, ``FrozenTrial._trial_id``,
``Study._thread_local.in_optimize_loop``, ``_CachedStorage._backend`` and the models
``TrialModel`` / ``TrialHeartbeatModel`` of ``optuna.storages._rdb.models`` (same columns
in Optuna 4.0 and 5.0); ``record_heartbeat``, ``get_heartbeat_interval`` and ``engine``
are public attributes of :class:`~optuna.storages.RDBStorage`.
"""

from __future__ import annotations

import threading
from typing import Any
from typing import TYPE_CHECKING
import weakref

from optuna.storages import RDBStorage
from optuna.storages._cached_storage import _CachedStorage
from optuna.storages._heartbeat import BaseHeartbeat
from optuna.trial import TrialState


if TYPE_CHECKING:
    from optuna.study import Study
    from optuna.trial import FrozenTrial


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


def _on_trial_insert(mapper: Any, connection: Any, target: Any) -> None:
    """``after_insert`` listener: the new trial's heartbeat row, in the same transaction."""
    if (
        target.state != TrialState.RUNNING
        or target.datetime_start is None
        or target.datetime_complete is not None
    ):
        return
    engine = connection.engine
    for study in list(_studies):
        if study._study_id != target.study_id or not _in_optimize(study):
            continue
        storage = _heartbeat_rdb(study)
        if storage is None or storage.engine is not engine:
            continue
        from optuna.storages._rdb import models

        table = models.TrialHeartbeatModel.__table__
        connection.execute(table.insert().values(trial_id=target.trial_id))
        _local.trial_id = target.trial_id
        return


def register(study: Study) -> bool:
    """Give the new trials of ``study`` their heartbeat row with their insertion.

    Only for an :class:`~optuna.storages.RDBStorage` with ``heartbeat_interval`` set
    (returns whether the study is registered). The registry holds studies weakly.
    """
    if _heartbeat_rdb(study) is None:
        return False
    global _listening
    with _lock:
        if not _listening:
            from optuna.storages._rdb import models
            from sqlalchemy import event

            event.listen(models.TrialModel, "after_insert", _on_trial_insert)
            _listening = True
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
