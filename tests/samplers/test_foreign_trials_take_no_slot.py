"""Foreign trials (``add_trial``, another sampler's trials) take no particle's iteration and no
sweep's column (PSO, pattern search; the focused grids, which pick points by draw, too);
in UMDA, BUMDA and dynamic random search they join the generation of their slot as one of
its samples, as documented. Enqueued trials this sampler asks keep their slot (issue 31,
item 5). Slots stay exactly-once and a fresh sampler continues exactly."""

from __future__ import annotations

from collections import Counter
from typing import Any

import optuna
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
import pytest

from optuna_psms import BUMDASampler
from optuna_psms import DynamicRandomSampler
from optuna_psms import FocusedGridSampler
from optuna_psms import PatternSearchSampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.samplers import _records


optuna.logging.set_verbosity(optuna.logging.WARNING)

#: Small populations, so that 24 trials span several iterations or generations; no
#: convergence (a restart's timing depends on the values, which the foreign trials change).
MAKERS: dict[str, Any] = {
    "pso": lambda seed: PSOSampler(swarm_size=4, seed=seed),
    "pattern": lambda seed: PatternSearchSampler(seed=seed, resolution=1e-9),
    "dfgs": lambda seed: FocusedGridSampler(mode="deterministic", seed=seed),
    "afgs": lambda seed: FocusedGridSampler(mode="annealed", seed=seed),
    "umda": lambda seed: UMDASampler(population_size=6, convergence_threshold=0.0, seed=seed),
    "bumda": lambda seed: BUMDASampler(population_size=6, convergence_threshold=0.0, seed=seed),
    "drs": lambda seed: DynamicRandomSampler(batch_size=6, convergence_threshold=0.0, seed=seed),
}
#: Members with an identity across iterations: a foreign trial must not take their turn. (The
#: focused grids pick a level's next point with a draw keyed by the trial number, not by a
#: slot: there only exactly-once is checked.)
NO_SLOT = ["pso", "pattern"]
#: Samples of a generation: a foreign trial is one of them (it joins its batch).
JOINS = ["umda", "bumda", "drs"]
N = 24


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -3.0, 3.0)
    n = trial.suggest_int("n", 0, 8)
    return (x - 1.0) ** 2 + (n - 3) ** 2


def _foreign(study: optuna.Study) -> None:
    """A poor point (it must not steer the search, only take or not take a slot)."""
    study.add_trial(
        optuna.trial.create_trial(
            params={"x": -3.0, "n": 8},
            distributions={"x": FloatDistribution(-3.0, 3.0), "n": IntDistribution(0, 8)},
            value=1e6,
        )
    )


def _slots(study: optuna.Study) -> list[tuple[int, int]]:
    """(member, generation) of every trial with a record, in trial order."""
    out = []
    for t in study.get_trials(deepcopy=False):
        rec = _records.load(t.system_attrs)
        if rec is not None:
            out.append((rec["m"], rec["g"]))
    return out


def _run(name: str, events: list[tuple[str, int]]) -> optuna.Study:
    study = optuna.create_study(sampler=MAKERS[name](0))
    for kind, count in events:
        if kind == "ours":
            study.optimize(objective, n_trials=count)
        elif kind == "add":
            for _ in range(count):
                _foreign(study)
        elif kind == "random":
            study.sampler = optuna.samplers.RandomSampler(seed=1)
            study.optimize(objective, n_trials=count)
            study.sampler = MAKERS[name](0)
    return study


@pytest.mark.parametrize("name", list(MAKERS))
def test_added_and_other_samplers_trials_take_no_slot(name: str) -> None:
    plain = _slots(_run(name, [("ours", N)]))
    mixed = _run(name, [("ours", 1), ("add", 1), ("ours", 8), ("random", 2), ("ours", N - 9)])
    assert len(mixed.trials) == N + 3
    if name in NO_SLOT:
        assert _slots(mixed) == plain  # every member keeps its turns, in the same order
    elif name in JOINS:  # the 3 foreign trials are samples 1 of gen. 0 and 4, 5 of gen. 1
        longer = _slots(_run(name, [("ours", N + 3)]))
        assert _slots(mixed) == [s for s in longer if s not in {(1, 0), (4, 1), (5, 1)}]
    if name != "afgs":  # AFGS's (step, level) is a walk's position, revisited by design
        slots = [s for s in _slots(mixed) if s != (-1, -1)]
        assert max(Counter(slots).values()) == 1  # exactly once


def test_pso_particle_1_gets_its_iteration_0_after_add_trial_at_trial_1() -> None:
    study = _run("pso", [("ours", 1), ("add", 1), ("ours", 7)])
    assert _slots(study) == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1)]


@pytest.mark.parametrize("name", list(MAKERS))
def test_a_fresh_sampler_continues_a_study_with_foreign_trials_exactly(name: str) -> None:
    whole = _run(name, [("add", 1), ("ours", 5), ("add", 2), ("ours", 12)])
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=MAKERS[name](0))
    _foreign(study)
    study.optimize(objective, n_trials=5)
    _foreign(study)
    _foreign(study)
    study.optimize(objective, n_trials=4)
    again = optuna.load_study(
        study_name=study.study_name, storage=storage, sampler=MAKERS[name](0)
    )
    again.optimize(objective, n_trials=8)
    assert [t.params for t in again.trials] == [t.params for t in whole.trials]


@pytest.mark.parametrize("name", ["pso", "umda", "pattern", "drs"])
def test_an_enqueued_trial_this_sampler_asks_keeps_its_slot_and_point(name: str) -> None:
    study = optuna.create_study(sampler=MAKERS[name](0))
    study.optimize(objective, n_trials=1)
    study.enqueue_trial({"x": 0.5, "n": 2})
    study.optimize(objective, n_trials=N - 1)
    assert study.trials[1].params == {"x": 0.5, "n": 2}
    plain = _slots(_run(name, [("ours", N)]))
    assert _slots(study) == plain  # the enqueued trial is the member's trial of slot 1


def test_records_of_an_older_study_without_slots_keep_the_older_rule() -> None:
    """A study whose records carry no ``sl`` (written before this rule) numbers as then:
    a foreign trial takes a slot, so such a study continues exactly."""
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=MAKERS["pso"](0))
    trial = study.ask()
    rec = _records.load(storage.get_trial_system_attrs(trial._trial_id))
    assert rec is not None and rec["sl"] == 0
    del rec["sl"]  # trial 0's record as an older version wrote it
    storage.set_trial_system_attr(trial._trial_id, _records.KEY, _records.dump(rec)[_records.KEY])
    study.tell(trial, objective(trial))
    _foreign(study)
    study.sampler = MAKERS["pso"](0)
    study.optimize(objective, n_trials=4)
    assert _slots(study) == [(0, 0), (2, 0), (3, 0), (0, 1), (1, 1)]
