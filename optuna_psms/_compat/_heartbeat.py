"""A trial's first heartbeat, recorded by the sampler as soon as the trial exists.

Optuna fails a dead worker's trial only once it has a heartbeat row that went stale:
``RDBStorage._get_stale_trial_ids`` skips every RUNNING trial without a row in
``trial_heartbeats``. ``Study.optimize`` starts the heartbeat thread (whose first beat
inserts the row) only after ``Study.ask`` has returned, and ``ask`` is where a population
sampler does its work (``before_trial``: reading the study, proposing, writing the record).
A worker killed there left a RUNNING trial that nobody ever failed, and its slot was never
evaluated (issue 31: 1 of 8 PostgreSQL workers' trials in 3 of 3 runs after ``kill -9`` of 3).

:func:`first_heartbeat` closes that window: ``before_trial`` calls it before anything else,
so the trial has its row from then on and goes stale like any trial that died in its
objective. What is left is the pure-Python step between the storage's commit of the new
trial and the first line of ``before_trial`` (``Trial.__init__`` reading the trial from
Optuna's cache): no I/O, microseconds.

Private API used: ``Study._storage`` (through :func:`optuna_psms._compat.storage_of`),
``FrozenTrial._trial_id`` and ``Study._thread_local.in_optimize_loop``; ``record_heartbeat``
and ``get_heartbeat_interval`` are public methods of :class:`~optuna.storages.RDBStorage`.
The beat is recorded only inside ``Study.optimize`` (``in_optimize_loop``), where Optuna's
own thread keeps it up right after; a trial asked with ``study.ask()`` gets no heartbeat
from Optuna, and must get none from us either (it would be failed after ``grace_period``
while its caller evaluates it). Measured cost (``tests/samplers/test_no_orphan.py``'s
module documentation has the command): one more transaction per trial, ~1 ms on local
PostgreSQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optuna.storages._heartbeat import BaseHeartbeat


if TYPE_CHECKING:
    from optuna.study import Study
    from optuna.trial import FrozenTrial


def first_heartbeat(study: Study, trial: FrozenTrial) -> bool:
    """Record ``trial``'s heartbeat now if Optuna will keep it up; returns whether it did.

    Only with a heartbeat storage (``heartbeat_interval`` set) and inside
    ``Study.optimize``. A failure to write is left to Optuna's own heartbeat thread (which
    starts once ``ask`` returns) and reported as ``False``.
    """
    storage = study._storage
    if not isinstance(storage, BaseHeartbeat) or storage.get_heartbeat_interval() is None:
        return False
    if not getattr(study._thread_local, "in_optimize_loop", True):
        return False
    try:
        storage.record_heartbeat(trial._trial_id)
    except Exception:
        return False
    return True
