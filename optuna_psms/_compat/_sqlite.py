"""An RDB storage on SQLite whose threads take an enqueued trial one at a time.

Optuna takes an enqueued (WAITING) trial by reading its row and writing it ``RUNNING``;
``RDBStorage.set_trial_state_values`` locks the row (``SELECT ... FOR UPDATE``) so that two
workers cannot both take it, but SQLite has no row locks: two threads of
``study.optimize(n_jobs=2)`` can both read the trial ``WAITING`` and both run it
(optuna/optuna#4002). The second to finish then fails to write it, and Optuna raises that
error out of ``optimize``: ``optuna-psms select --n-jobs 2`` on its default SQLite storage
stopped with ``Trial#0 has already finished and can not be updated`` after two trials when
both threads took the first initial pipeline.

:class:`SQLiteStorage` takes that step under a lock of the process, so a thread reads the
row only once another has written it. Processes sharing one SQLite file can still both take
a trial (SQLite has nothing to lock a row with); several processes belong on PostgreSQL or
MySQL (``docs/deployment.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
import threading
from typing import Any

import optuna
from optuna.trial import TrialState


class SQLiteStorage(optuna.storages.RDBStorage):
    """:class:`optuna.storages.RDBStorage` whose threads take a WAITING trial one at a time.

    Only the change to ``RUNNING`` is serialised, by one lock of the process (a class
    attribute, so that the storage still pickles as an ``RDBStorage`` does).
    """

    _taking: Any = threading.Lock()

    def set_trial_state_values(
        self, trial_id: int, state: TrialState, values: Sequence[float] | None = None
    ) -> bool:
        if state != TrialState.RUNNING:
            return super().set_trial_state_values(trial_id, state=state, values=values)
        with self._taking:
            return super().set_trial_state_values(trial_id, state=state, values=values)
