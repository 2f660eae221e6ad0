"""StartedTrials: the trials a Ctrl-C leaves RUNNING are failed, only this process's."""

from __future__ import annotations

from typing import Any

import optuna
import pytest

from optuna_psms._compat._interrupted import StartedTrials
from optuna_psms.storages import open_storage


@pytest.mark.parametrize("kind", ["memory", "sqlite", "journal"])
def test_only_the_trials_started_inside_are_failed(tmp_path: Any, kind: str) -> None:
    storage: Any = optuna.storages.InMemoryStorage()
    if kind != "memory":
        storage = open_storage(
            f"sqlite:///{tmp_path}/s.db" if kind == "sqlite" else f"journal:///{tmp_path}/s.log"
        )
    study = optuna.create_study(storage=storage, sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial({"x": 0.5})
    study.enqueue_trial({"x": 0.25})
    other = study.ask()  # another worker's (started outside): left RUNNING
    with StartedTrials(storage) as started:
        taken = study.ask()  # an enqueued trial this process took
        created = study.ask()  # a trial the storage created
        done = study.ask()
        study.tell(done, 1.0)
    assert "create_new_trial" not in vars(storage)  # the storage's own methods are back
    after = study.ask()  # started after the block: not recorded
    assert [other.number, taken.number, created.number, after.number] == [0, 1, 2, 4]
    assert started.fail_running() == [1, 2]
    states = [t.state.name for t in study.get_trials()]
    assert states == ["RUNNING", "FAIL", "FAIL", "COMPLETE", "RUNNING"]
    assert [t.user_attrs.get("fms:interrupted") for t in study.get_trials()] == [
        None,
        True,
        True,
        None,
        None,
    ]
    assert started.fail_running() == []  # nothing left to fail


def test_a_storage_url_records_nothing() -> None:
    with StartedTrials("sqlite:///unused.db") as started:
        pass
    assert started.fail_running() == []
