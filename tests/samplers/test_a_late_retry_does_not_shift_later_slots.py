"""A retry asked long after its dead trial does not shift the slots of the trials after it.

The retry of a trial that died before writing its record (inside ``ask``) gets its record
when it is asked, storing its dead trial's slot. That stored slot is not the count of the
retry's own number, so later slots must not be counted from it (an *anchor*): counted from
it, the trials after a retry created ``k`` trials after its dead trial got slots ``k - 1``
too low, and evaluated a whole iteration a second time (seen once in the random ``kill -9``
test of ``test_no_orphan.py``: a swarm's iteration evaluated twice after the fresh process
took the retry).
"""

from __future__ import annotations

from collections import Counter

import optuna
from optuna.trial import TrialState

from optuna_psms import _compat
from optuna_psms import PSOSampler
from optuna_psms.samplers import _records


optuna.logging.set_verbosity(optuna.logging.WARNING)
SWARM = 3


def objective(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(2))


def _slots(study: optuna.Study) -> Counter[tuple[int, int]]:
    slots: Counter[tuple[int, int]] = Counter()
    for t in study.trials:
        if t.state == TrialState.COMPLETE:
            rec = _records.load(t.system_attrs)
            assert rec is not None, t.number
            slots[(int(rec["m"]), int(rec["g"]))] += 1
    return slots


def test_slots_after_a_late_retry_of_a_trial_without_record_do_not_repeat() -> None:
    study = optuna.create_study(sampler=PSOSampler(swarm_size=SWARM, seed=0))
    storage, sid = study._storage, study._study_id
    study.optimize(objective, n_trials=4)
    dead = storage.get_trial(storage.create_new_trial(sid))  # died inside ask: no record
    study.optimize(objective, n_trials=5)  # the others go on meanwhile
    storage.set_trial_state_values(dead._trial_id, TrialState.FAIL)  # as the heartbeat does
    _compat.retry_callback_class()(max_retry=3)(study, storage.get_trial(dead._trial_id))
    # A fresh process takes the retry, then asks the next trials.
    fresh = optuna.load_study(
        study_name=study.study_name, storage=storage, sampler=PSOSampler(swarm_size=SWARM, seed=0)
    )
    fresh.optimize(objective, n_trials=1 + 2 * SWARM)
    retry = study.trials[-1 - 2 * SWARM]
    assert retry.system_attrs["failed_trial"] == dead.number and retry.state.is_finished()
    rec = _records.load(retry.system_attrs)
    assert rec is not None and rec["sl"] == dead.number  # the dead trial's slot
    slots = _slots(study)
    assert max(slots.values()) == 1, sorted(s for s, k in slots.items() if k > 1)
    # One population without gaps: every ordinary trial and the retry took one slot each.
    n = 4 + 5 + 1 + 2 * SWARM
    assert set(slots) == {(k % SWARM, k // SWARM) for k in range(n)}
    # The process that ran the trials around it (not the one that asked the retry) agrees.
    study.optimize(objective, n_trials=SWARM)
    assert max(_slots(study).values()) == 1
