"""Heartbeat retries are exactly-once, deterministically (no process is killed).

``RetryHeartbeatStaleTrialCallback`` (``RetryFailedTrialCallback`` before Optuna 4.9; the
shim ``optuna_psms._compat.retry_callback_class``) copies a failed trial's system attrs (so
the sampler's record) into a WAITING retry. The retry must evaluate the dead trial's slot
(same member, same iteration, same point), the dead trial must not count, and the retry's
own trial number must not eat a slot: no slot twice, no member skipping one. The end-to-end
version, with ``kill -9`` on PostgreSQL and MariaDB, is ``tests/samplers/test_killed_workers.py``
(slow).
"""

from __future__ import annotations

from collections import Counter

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms import _compat
from optuna_psms import DynamicRandomSampler
from optuna_psms import PopulationSampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.samplers import _records


# Renamed in Optuna 4.9 (the old name warns); same behaviour.
Retry = _compat.retry_callback_class()


#: Small populations, so that 20 trials span several iterations or generations.
SIZES = {"pso": 4, "umda": 6, "drs": 6}


def make_sampler(name: str, seed: int) -> optuna.samplers.BaseSampler:
    if name == "pso":
        return PSOSampler(swarm_size=SIZES[name], seed=seed)
    if name == "umda":
        return UMDASampler(population_size=SIZES[name], seed=seed)
    return DynamicRandomSampler(batch_size=SIZES[name], seed=seed)


def objective(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(3))


def _kill_and_retry(study: optuna.Study, before_retry: optuna.Study | None = None) -> int:
    """Ask a trial, suggest its parameters, fail it as the heartbeat would, retry it."""
    trial = study.ask()
    objective(trial)  # parameters suggested, record written: the worker dies here
    storage = study._storage
    storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
    if before_retry is not None:  # another worker syncs between the FAIL and the retry
        sampler = before_retry.sampler
        assert isinstance(sampler, PopulationSampler)
        sampler._sync(before_retry)
    Retry(max_retry=3)(study, storage.get_trial(trial._trial_id))
    return trial.number


def _slots(study: optuna.Study) -> Counter[tuple[int, int, int]]:
    slots: Counter[tuple[int, int, int]] = Counter()
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        rec = _records.load(t.system_attrs)
        assert rec is not None
        slots[(int(rec["r"]), int(rec["m"]), int(rec["g"]))] += 1
    return slots


def _scenario(sampler: str, twice: bool, observer: bool) -> optuna.Study:
    study = optuna.create_study(sampler=make_sampler(sampler, seed=3))
    other = optuna.load_study(
        study_name=study.study_name, storage=study._storage, sampler=make_sampler(sampler, seed=3)
    )
    study.optimize(objective, n_trials=7)
    dead = _kill_and_retry(study, other if observer else None)
    if twice:  # the retry dies too: a chain of retries
        retry = study.ask()  # pops the waiting retry
        frozen = study._storage.get_trial(retry._trial_id)
        assert frozen.system_attrs["failed_trial"] == dead
        objective(retry)
        study._storage.set_trial_state_values(retry._trial_id, TrialState.FAIL)
        Retry(max_retry=3)(study, study._storage.get_trial(retry._trial_id))
    if observer:
        other.optimize(objective, n_trials=13)
    else:
        study.optimize(objective, n_trials=13)
    return study


@pytest.mark.parametrize("sampler", ["pso", "umda", "drs"])
@pytest.mark.parametrize("twice", [False, True])
def test_a_retry_takes_the_dead_trials_slot_and_no_other(sampler: str, twice: bool) -> None:
    study = _scenario(sampler, twice, observer=False)
    trials = study.get_trials(deepcopy=False)
    failed = [t for t in trials if t.state == TrialState.FAIL]
    assert len(failed) == (2 if twice else 1)
    dead = failed[0]
    (retry,) = [
        t
        for t in trials
        if t.system_attrs.get("failed_trial") == dead.number and t.state == TrialState.COMPLETE
    ]
    assert retry.params == dead.params  # the member continues from its previous state
    dead_rec = _records.load(dead.system_attrs)
    assert dead_rec is not None
    dead_slot = (int(dead_rec["r"]), int(dead_rec["m"]), int(dead_rec["g"]))
    slots = _slots(study)
    assert slots[dead_slot] == 1, "the dead trial's slot is evaluated once, by its retry"
    assert not [s for s, n in slots.items() if n > 1], "a slot was evaluated twice"
    # The 20 completed trials fill the first 20 slots: no member skipped one.
    size = SIZES[sampler]
    assert sorted(g * size + m for _, m, g in slots) == list(range(20))


@pytest.mark.parametrize("sampler", ["pso", "umda"])
def test_a_worker_that_saw_the_failure_first_agrees(sampler: str) -> None:
    """The FAIL told before the retry exists is un-told: same study as without the detour."""
    straight = _scenario(sampler, twice=False, observer=False)
    detour = _scenario(sampler, twice=False, observer=True)
    assert [t.params for t in straight.trials] == [t.params for t in detour.trials]
