"""Trials abandoned RUNNING by dead workers must not add storage round trips to every ask.

Deterministic: the test counts storage calls (round trips on an RDB or the gRPC proxy), not
time. The timing side is the benchmark's job:
``python -m optuna_psms.benchmarks.scale --scenarios abandoned --abandoned 0 100 400``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest

from optuna_psms.samplers._registry import make_sampler


N_ABANDONED = 40
N_MEASURED = 10


def objective(trial: optuna.Trial) -> float:
    return sum(trial.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(3))


def _calls_per_trial(sampler: str, n_abandoned: int, tmp: Path) -> float:
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp}/{sampler}-{n_abandoned}.db")
    study = optuna.create_study(storage=storage, sampler=make_sampler(sampler, seed=0))
    study.optimize(objective, n_trials=10)
    for _ in range(n_abandoned):  # a dead worker's trials: asked, suggested, never told
        objective(study.ask())
    calls: Counter[str] = Counter()

    def counted(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return method(*args, **kwargs)

        return call

    for name in ("get_trial", "get_all_trials", "_get_trials", "get_trial_system_attrs"):
        if hasattr(storage, name):
            setattr(storage, name, counted(name, getattr(storage, name)))
    study.optimize(objective, n_trials=N_MEASURED)
    return sum(calls.values()) / N_MEASURED


# AFGS and UMDA run with the slow tests (``-m slow``), for the default run's 5 minutes.
@pytest.mark.parametrize(
    "sampler",
    [
        "pso",
        pytest.param("afgs", marks=pytest.mark.slow),
        pytest.param("umda", marks=pytest.mark.slow),
    ],
)
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_abandoned_trials_add_no_round_trips(sampler: str, tmp_path: Path) -> None:
    random_calls = _calls_per_trial("random", N_ABANDONED, tmp_path)  # Optuna's own
    none = _calls_per_trial(sampler, 0, tmp_path)
    many = _calls_per_trial(sampler, N_ABANDONED, tmp_path)
    assert many <= none + 1, (none, many, random_calls)


def test_a_member_moves_on_from_its_abandoned_trial() -> None:
    """A trial left RUNNING keeps its slot; its particle steps on from the trial's position.

    The sampler never declares a trial failed itself (a dead worker and a slow one look
    alike); the running trial's record holds its position and velocity, which is all the
    particle's next step needs, so nothing waits for a loss that will never come.
    """
    from optuna_psms import PSOSampler
    from optuna_psms.samplers import _records

    swarm = 3
    study = optuna.create_study(sampler=PSOSampler(swarm_size=swarm, seed=1))
    study.optimize(objective, n_trials=swarm + 1)  # trials 0-3: next is particle 1, iteration 1
    abandoned = study.ask()  # particle 1, iteration 1: its worker dies mid-trial
    objective(abandoned)
    study.optimize(objective, n_trials=2 * swarm)
    trials = study.get_trials(deepcopy=False)
    recs = {t.number: _records.load(t.system_attrs) for t in trials}
    dead = recs[abandoned.number]
    assert dead is not None and (dead["m"], dead["g"]) == (1, 1)
    (after,) = [
        r for r in recs.values() if r is not None and (r["m"], r["g"]) == (1, 2)
    ]  # the particle's next iteration was asked, from the abandoned trial's state
    names = sorted(dead["x"])
    x1 = np.array([dead["x"][n] for n in names])
    x2 = np.array([after["x"][n] for n in names])
    v2 = np.array([after["vec"]["v"][n] for n in names])
    moved = v2 != 0.0
    assert moved.any()
    np.testing.assert_allclose(x2[moved], (x1 + v2)[moved], atol=1e-9)
    running = [t.number for t in trials if t.state != optuna.trial.TrialState.COMPLETE]
    assert running == [abandoned.number]
