"""A heartbeat retry created while a trial is being asked shifts that trial's slot.

``Study.ask`` reads the study into Optuna's trial cache, then creates the trial. A retry
another worker adds in between (its heartbeat failed a dead trial) is not in that snapshot,
yet it takes the dead trial's slot, so the asked trial's slot moves down by one. The sampler
finds such retries with one SELECT of the gap trials' ``failed_trial`` attrs
(``optuna_psms._compat._gap_retries``) instead of reading the gap trials in full; both ways
must give the same slot. The gap is made deterministic here: the storage's
``create_new_trial`` first lets a second storage (another worker) fail a trial and add its
retry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
import warnings

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms import _compat
from optuna_psms import PSOSampler
from optuna_psms.samplers import _records


SWARM = 3


def _objective(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(2))


def _slot(trial: optuna.trial.FrozenTrial) -> tuple[int, int]:
    rec = _records.load(trial.system_attrs)
    assert rec is not None
    return int(rec["m"]), int(rec["g"])


@pytest.mark.slow  # two SQLite schemas: 1.3-1.8 s on the loaded 2-core machine
@pytest.mark.parametrize("light", [True, False], ids=["one-select", "full-read"])
def test_a_retry_created_during_ask_shifts_the_asked_trials_slot(
    light: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warnings.simplefilter("ignore")  # heartbeat outside optimize, experimental args
    url = f"sqlite:///{tmp_path}/gap.db"
    retry = _compat.heartbeat_retry(max_retry=3)
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=60, **retry)
    other = optuna.storages.RDBStorage(url, heartbeat_interval=60, **retry)
    study = optuna.create_study(storage=storage, sampler=PSOSampler(swarm_size=SWARM, seed=0))
    for _ in range(5):
        trial = study.ask()
        study.tell(trial, _objective(trial))
    dead = study.ask()  # trial 5: asked (record written), its worker "dies"
    _objective(dead)
    real = _compat._gap_retries
    seen: list[Any] = []

    def gap_retries(*args: Any) -> Any:
        seen.append(real(*args) if light else None)  # None: read the gap in full
        return seen[-1]

    monkeypatch.setattr(_compat, "_gap_retries", gap_retries)
    cached = study._storage
    create = cached.create_new_trial

    def create_after_a_retry(study_id: int, template: Any = None) -> int:
        # Another worker's heartbeat fails trial 5 and adds its retry (trial 6) after this
        # ask's snapshot; then this ask's trial (7) is created.
        other.set_trial_state_values(dead._trial_id, state=TrialState.FAIL)
        other_study = optuna.load_study(study_name=study.study_name, storage=other)
        get = getattr(other, "get_heartbeat_stale_trial_callback", None)  # Optuna >= 4.9
        callback = get() if get is not None else other.get_failed_trial_callback()
        assert callback is not None
        callback(other_study, other.get_trial(dead._trial_id))
        monkeypatch.setattr(cached, "create_new_trial", create)
        return create(study_id, template)

    monkeypatch.setattr(cached, "create_new_trial", create_after_a_retry)
    asked = study.ask()
    assert asked.number == 7
    if _compat.RDB_FILTERS_BY_ID:  # else (Optuna 4.0) the gap is read trial by trial
        assert seen == [{6: 5} if light else None]
    study.tell(asked, _objective(asked))
    trials = study.get_trials(deepcopy=False)
    assert trials[6].system_attrs.get("failed_trial") == 5
    # Trial 7 takes slot 6 (the retry stands for slot 5): particle 0, iteration 2.
    assert _slot(trials[7]) == (6 % SWARM, 6 // SWARM)
    # The retry, asked next, evaluates the dead trial's slot with its record.
    retried = study.ask()
    assert retried.number == 6
    study.tell(retried, _objective(retried))
    assert _slot(study.get_trials(deepcopy=False)[6]) == _slot(trials[5]) == (2, 1)
