"""A heartbeat retry of a trial whose worker died before writing its record (inside ``ask``)
is asked afresh: its record and slot are its own, every process numbers it the same way,
and no slot is evaluated twice (the slot numbering of issue 31, item 5, with item 1's case)."""

from __future__ import annotations

from collections import Counter

import optuna
from optuna.trial import TrialState

from optuna_psms import _compat
from optuna_psms import PSOSampler
from optuna_psms.samplers import _records


optuna.logging.set_verbosity(optuna.logging.WARNING)


def objective(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(2))


def test_every_process_agrees_and_no_slot_repeats() -> None:
    study = optuna.create_study(sampler=PSOSampler(swarm_size=4, seed=3))
    storage, sid = study._storage, study._study_id
    other = optuna.load_study(
        study_name=study.study_name, storage=storage, sampler=PSOSampler(swarm_size=4, seed=3)
    )
    study.optimize(objective, n_trials=5)
    dead = storage.get_trial(storage.create_new_trial(sid))  # died inside ask: no record
    storage.set_trial_state_values(dead._trial_id, TrialState.FAIL)  # as the heartbeat does
    _compat.retry_callback_class()(max_retry=3)(study, storage.get_trial(dead._trial_id))
    study.optimize(objective, n_trials=1)  # takes the waiting retry
    other.optimize(objective, n_trials=5)  # another process asks the trials after it
    study.optimize(objective, n_trials=4)
    retry = study.trials[dead.number + 1]
    assert retry.system_attrs["failed_trial"] == dead.number and retry.state.is_finished()
    done = [t for t in study.trials if t.state == TrialState.COMPLETE]
    slots: Counter[tuple[int, int]] = Counter()
    for t in done:
        rec = _records.load(t.system_attrs)
        assert rec is not None
        slots[(rec["m"], rec["g"])] += 1
    assert max(slots.values()) == 1 and len(done) == 15
    # A fresh process reads every completed trial as one of its own (no record found
    # inconsistent with the slot it replays).
    fresh = PSOSampler(swarm_size=4, seed=3)
    view = fresh._sync(study)
    assert all(view.records[t.number].ours for t in done)
