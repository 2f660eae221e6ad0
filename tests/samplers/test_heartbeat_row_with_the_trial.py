"""Inside ``Study.optimize``, a new trial's heartbeat row is committed with the trial itself.

Optuna fails a dead worker's RUNNING trial only once it has a stale row in
``trial_heartbeats``; a worker killed between the commit of its new trial and the first
beat left a trial nobody ever failed. The row is now inserted in the trial's own
transaction (``optuna_psms._compat._heartbeat``), so the sampler's ``before_trial`` already
finds it. Checked on SQLite, PostgreSQL and MariaDB:

* every trial of ``optimize``, new or taken from the queue of WAITING trials (as a
  heartbeat retry is), has its row on entry to ``before_trial``; should the
  listener not find the asking study up the stack (``found=False``), the first trial of
  the study object relies on ``first_heartbeat`` (no row on entry, one after), the next
  ones have theirs (the study is registered by then);
* a trial asked with ``study.ask()`` (before or after ``optimize``) and a trial written by
  ``study.add_trial`` inside ``optimize`` get no row.
"""

from __future__ import annotations

from pathlib import Path
import uuid
import warnings

import optuna
from optuna.trial import FrozenTrial
from optuna.trial import TrialState
import pytest
import sqlalchemy

from optuna_psms import PSOSampler
from optuna_psms._compat import _heartbeat
from tests.conftest import require_service


URLS = {
    "postgresql": ("PostgreSQL", 5432, "postgresql+psycopg2://postgres@127.0.0.1:5432/test"),
    "mysql": ("MariaDB", 3306, "mysql+pymysql://root@127.0.0.1:3306/test"),
}


def _rows(storage: optuna.storages.RDBStorage) -> set[int]:
    with storage.engine.connect() as conn:
        return {
            r[0] for r in conn.execute(sqlalchemy.text("SELECT trial_id FROM trial_heartbeats"))
        }


@pytest.mark.parametrize("found", [True, False])
@pytest.mark.parametrize("backend", ["sqlite", "postgresql", "mysql"])
def test_the_heartbeat_row_is_committed_with_the_trial_inside_optimize_only(
    backend: str, found: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warnings.simplefilter("ignore")  # heartbeat outside optimize, add_trial
    if not found:
        monkeypatch.setattr(_heartbeat, "_asking_study", lambda: None)
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path}/hb.db"
    else:
        label, port, url = URLS[backend]
        require_service(label, "127.0.0.1", port)
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=600)
    name = f"hb_row_{uuid.uuid4().hex[:8]}"
    sampler = PSOSampler(swarm_size=2, seed=0)
    before = sampler.before_trial
    on_entry: dict[int, bool] = {}  # trial number: whether its row existed on entry

    def before_trial(study: optuna.Study, trial: FrozenTrial) -> None:
        on_entry[trial.number] = trial._trial_id in _rows(storage)
        before(study, trial)

    monkeypatch.setattr(sampler, "before_trial", before_trial)
    study = optuna.create_study(study_name=name, storage=storage, sampler=sampler)
    try:
        asked = study.ask()  # ask-and-tell: no heartbeat
        study.tell(asked, asked.suggest_float("x", 0, 1))
        added: list[int] = []

        def add_one(study: optuna.Study, trial: FrozenTrial) -> None:
            if not added:
                study.add_trial(
                    optuna.create_trial(
                        params={"x": 0.5},
                        distributions={"x": optuna.distributions.FloatDistribution(0, 1)},
                        value=0.25,
                    )
                )
                added.append(study.trials[-1]._trial_id)

        # Taken from the queue (switched WAITING -> RUNNING, as a heartbeat retry is).
        study.enqueue_trial({"x": 0.3})
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3, callbacks=[add_one])
        late = study.ask()
        trials = study.get_trials(deepcopy=False)
        optimized = [
            t for t in trials if t.number in on_entry and t.number not in (0, late.number)
        ]
        assert [on_entry[t.number] for t in optimized] == [found, True, True]
        assert optimized[0].params == {"x": 0.3}  # the enqueued one
        rows = _rows(storage)
        assert {t._trial_id for t in optimized} <= rows
        assert asked._trial_id not in rows and late._trial_id not in rows
        assert added and added[0] not in rows
        assert all(t.state == TrialState.COMPLETE for t in trials if t.number != late.number)
    finally:
        optuna.delete_study(study_name=name, storage=storage)
