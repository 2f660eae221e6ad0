"""At one seed the samplers draw common random numbers (documented in each sampler's ``seed``
argument, docs/core.md and compare's report; issue 31, item 4): two algorithms that use their
first draws alike propose the same first trials, so a comparison at one seed is paired."""

from __future__ import annotations

import optuna
import pytest

from optuna_psms import BUMDASampler
from optuna_psms import DynamicRandomSampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler


def _points(sampler: optuna.samplers.BaseSampler, n: int) -> list[tuple[float, ...]]:
    study = optuna.create_study(sampler=sampler)
    study.optimize(
        lambda t: (t.suggest_float("x", -5, 5) - 1) ** 2 + t.suggest_float("y", -5, 5) ** 2,
        n_trials=n,
    )
    return [(t.params["x"], t.params["y"]) for t in study.trials]


@pytest.mark.parametrize("seed", [0, 7])
def test_one_seed_gives_every_algorithm_the_same_first_draws(seed: int) -> None:
    umda = _points(UMDASampler(population_size=8, seed=seed), 12)
    bumda = _points(BUMDASampler(population_size=8, seed=seed), 12)
    drs = _points(DynamicRandomSampler(batch_size=6, seed=seed), 6)
    pso = _points(PSOSampler(swarm_size=4, seed=seed), 4)
    assert umda[:8] == bumda[:8]  # the whole first generation
    assert umda[8:] != bumda[8:]  # then each algorithm's own model
    assert drs == umda[:6] and pso == umda[:4]


def test_another_seed_is_another_stream() -> None:
    assert _points(UMDASampler(population_size=8, seed=0), 8) != _points(
        BUMDASampler(population_size=8, seed=1), 8
    )
