"""The Optuna internals isolated in optuna_psms._compat, on every kind of local storage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms import _compat


def _storages(tmp_path: Any) -> dict[str, Callable[[], Any]]:
    return {
        "memory": lambda: optuna.storages.InMemoryStorage(),
        "sqlite": lambda: optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/c.db"),
        "journal": lambda: optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(tmp_path / "c.log"))
        ),
    }


@pytest.fixture(params=["memory", "sqlite", "journal"])
def study(request: pytest.FixtureRequest, tmp_path: Any) -> optuna.Study:
    storage = _storages(tmp_path)[request.param]()
    return optuna.create_study(storage=storage)


def test_storage_and_ids(study: optuna.Study) -> None:
    storage, study_id = _compat.storage_of(study)
    assert storage.get_study_name_from_id(study_id) == study.study_name
    trial = study.ask()
    frozen = storage.get_trial(trial._trial_id)
    assert _compat.trial_id(frozen) == trial._trial_id
    assert storage.get_trial(_compat.trial_id(frozen)).number == trial.number


def test_fixed_params_of_an_enqueued_trial(study: optuna.Study) -> None:
    study.enqueue_trial({"x": 0.25})
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    assert _compat.fixed_params(frozen) == {"x": 0.25}
    other = study.ask()
    assert _compat.fixed_params(study._storage.get_trial(other._trial_id)) == {}


def test_attrs_are_written(study: optuna.Study) -> None:
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    _compat.set_system_attrs(study, frozen, {"psms:a": "x", "psms:b": 1})
    _compat.set_user_attrs(study, frozen, {"psms:c": 2})
    again = study._storage.get_trial(trial._trial_id)
    assert again.system_attrs["psms:a"] == "x" and again.system_attrs["psms:b"] == 1
    assert again.user_attrs == {"psms:c": 2}


def test_fetch_changed_trials_is_incremental(study: optuna.Study) -> None:
    t0 = study.ask()
    study.tell(t0, 1.0)
    running = study.ask()
    trials, nxt = _compat.fetch_changed_trials(study, 0, [])
    assert [t.number for t in trials] == [0, 1] and nxt == 2
    pending = [running._trial_id]
    trials, nxt = _compat.fetch_changed_trials(study, nxt, pending)
    assert [t.number for t in trials] == [1] and trials[0].state == TrialState.RUNNING
    study.tell(running, 2.0)
    study.tell(study.ask(), 3.0)
    trials, nxt = _compat.fetch_changed_trials(study, nxt, pending)
    assert sorted(t.number for t in trials) == [1, 2] and nxt == 3
    assert all(t.state == TrialState.COMPLETE for t in trials)


def test_fetch_changed_trials_uses_the_trial_being_asked(study: optuna.Study) -> None:
    study.tell(study.ask(), 1.0)
    _, nxt = _compat.fetch_changed_trials(study, 0, [])
    skipped = study.ask()  # created by "another worker" before ours
    ours = study.ask()
    later = study.ask()  # created after ours: left for the next call
    current = study._storage.get_trial(ours._trial_id)
    trials, nxt2 = _compat.fetch_changed_trials(study, nxt, [], current)
    assert [t.number for t in trials] == [skipped.number, ours.number]
    assert trials[-1] is current and nxt2 == ours.number + 1
    trials, nxt3 = _compat.fetch_changed_trials(study, nxt2, [], current)  # already read
    assert [t.number for t in trials] == [later.number] and nxt3 == later.number + 1


def test_fetch_changed_trials_switches_to_one_bulk_read(study: optuna.Study) -> None:
    study.tell(study.ask(), 0.0)
    _, nxt = _compat.fetch_changed_trials(study, 0, [])
    for i in range(150):
        study.tell(study.ask(), float(i))
    trials, nxt = _compat.fetch_changed_trials(study, nxt, [])
    assert sorted(t.number for t in trials) == list(range(1, 151)) and nxt == 151


def test_stop_optimize_only_inside_optimize(study: optuna.Study) -> None:
    assert _compat.stop_optimize(study) is False  # ask/tell: no optimize loop to stop

    def objective(trial: optuna.Trial) -> float:
        if trial.number == 2:
            assert _compat.stop_optimize(study) is True
        return 0.0

    study.optimize(objective, n_trials=10)
    assert len(study.trials) == 3
