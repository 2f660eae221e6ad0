"""``budget``: every sampler accepts it; ``None`` keeps the paper's settings; a budget
changes only the documented schedule settings, validated once."""

from __future__ import annotations

from typing import Any

import optuna
import pytest

from optuna_psms import BUMDASampler
from optuna_psms import DynamicRandomSampler
from optuna_psms import FocusedGridSampler
from optuna_psms import PatternSearchSampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms._grid import budget_layout
from optuna_psms.core.base import Dim


def _dims(m: int) -> tuple[Dim, ...]:
    return tuple(Dim(f"x{i}", "float", 0) for i in range(m))


def _other_settings(sampler: Any, changed: set[str]) -> dict[str, Any]:
    return {k: v for k, v in sampler._params.items() if k not in changed}


@pytest.mark.parametrize("cls", [UMDASampler, BUMDASampler])
def test_eda_budget_sets_population_and_generations_only(cls: Any) -> None:
    paper = cls()
    assert paper._params["population_size"] == 50 and paper._params["n_generations"] == 20
    assert cls(budget=None)._params == paper._params
    for budget, pop, gens in [(200, 20, 10), (1000, 50, 20), (60, 10, 6), (5000, 50, 100)]:
        s = cls(budget=budget)
        assert (s._params["population_size"], s._params["n_generations"]) == (pop, gens)
        assert _other_settings(s, {"population_size", "n_generations"}) == _other_settings(
            paper, {"population_size", "n_generations"}
        )
    # A given population keeps its size; the generations fill the budget.
    s = cls(budget=200, population_size=30)
    assert (s._params["population_size"], s._params["n_generations"]) == (30, 7)


def test_pso_budget_sets_swarm_topology_and_schedule_only() -> None:
    paper = PSOSampler()
    assert (paper._params["swarm_size"], paper._params["topology"]) == (5, "global")
    assert paper._params["n_iterations"] == 50
    assert PSOSampler(budget=None)._params == paper._params
    assert PSOSampler(swarm_size=None, topology=None)._params == paper._params
    changed = {"swarm_size", "topology", "n_iterations"}
    # Up to 500 trials: 4 particles on a ring; above: the paper's swarm.
    for budget, swarm, topology, iterations in [
        (1, 4, "ring", 1), (200, 4, "ring", 50), (500, 4, "ring", 125),
        (501, 5, "global", 101), (1000, 5, "global", 200), (10**6, 5, "global", 200000),
    ]:  # fmt: skip
        s = PSOSampler(budget=budget)
        assert (s._params["swarm_size"], s._params["topology"]) == (swarm, topology)
        assert s._params["n_iterations"] == iterations
        assert _other_settings(s, changed) == _other_settings(paper, changed)
    # Given settings win over the budget's; the schedule still follows the budget.
    s = PSOSampler(budget=1000, swarm_size=5, topology="global")
    assert (s._params["swarm_size"], s._params["topology"]) == (5, "global")
    assert s._params["n_iterations"] == 200
    assert _other_settings(s, {"n_iterations"}) == _other_settings(paper, {"n_iterations"})
    assert PSOSampler(budget=200, swarm_size=8)._params["topology"] == "ring"
    assert PSOSampler(budget=200, topology="global")._params["swarm_size"] == 4


def test_pso_budget_runs_four_particles() -> None:
    study = optuna.create_study(sampler=PSOSampler(budget=40, seed=0))
    study.optimize(lambda t: t.suggest_float("x", -3, 3) ** 2, n_trials=9)
    assert [t.user_attrs["psms:particle"] for t in study.trials] == [n % 4 for n in range(9)]
    assert [t.user_attrs["psms:iteration"] for t in study.trials] == [n // 4 for n in range(9)]


def test_drs_budget_sets_batches_only() -> None:
    paper = DynamicRandomSampler()
    assert (paper._params["batch_size"], paper._params["n_batches"]) == (40, 5)
    s = DynamicRandomSampler(budget=1000)
    assert (s._params["batch_size"], s._params["n_batches"]) == (200, 5)
    assert _other_settings(s, {"batch_size", "n_batches"}) == _other_settings(
        paper, {"batch_size", "n_batches"}
    )
    s = DynamicRandomSampler(budget=1000, batch_size=50)
    assert (s._params["batch_size"], s._params["n_batches"]) == (50, 20)


def test_grid_budget_layout() -> None:
    # DFGS: full worst-case levels (3^M + 2^M) that fit, as depth.
    assert budget_layout("deterministic", 2, 200, 10, None) == (16, None)
    assert budget_layout("deterministic", 5, 200, 10, None) == (2, None)
    assert budget_layout("deterministic", 1, 10**6, 10, None) == (40, None)
    # AFGS: Lambda = budget // depth, capped at the grid size.
    assert budget_layout("annealed", 5, 200, 10, None) == (10, 20)
    assert budget_layout("annealed", 2, 1000, 10, None) == (10, 9)
    s = FocusedGridSampler(mode="annealed", budget=200)
    strategy = s._make_strategy(_dims(5), 0)
    assert strategy.budget() == 10 * 20  # type: ignore[operator]
    paper = FocusedGridSampler(mode="annealed")._make_strategy(_dims(5), 0)
    assert paper.budget() == 10 * 25  # type: ignore[operator]
    dfgs = FocusedGridSampler(budget=200)._make_strategy(_dims(2), 0)
    assert dfgs.budget() == 15 * 13  # type: ignore[operator]


def test_pattern_accepts_budget_and_changes_nothing() -> None:
    def trials(sampler: optuna.samplers.BaseSampler) -> list[dict[str, Any]]:
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: t.suggest_float("x", -3, 3) ** 2, n_trials=15)
        return [t.params for t in study.trials]

    assert trials(PatternSearchSampler(seed=1, budget=15)) == trials(PatternSearchSampler(seed=1))


@pytest.mark.parametrize(
    "make",
    [
        lambda b: PSOSampler(budget=b),
        lambda b: UMDASampler(budget=b),
        lambda b: BUMDASampler(budget=b),
        lambda b: DynamicRandomSampler(budget=b),
        lambda b: FocusedGridSampler(budget=b),
        lambda b: FocusedGridSampler(mode="annealed", budget=b),
        lambda b: PatternSearchSampler(budget=b),
    ],
)
@pytest.mark.parametrize("bad", [0, -5, True, 10.5, "200"])
def test_bad_budget_is_a_one_line_error(make: Any, bad: Any) -> None:
    with pytest.raises(ValueError, match="budget must be"):
        make(bad)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PSOSampler(budget=100, n_iterations=10),
        lambda: UMDASampler(budget=100, n_generations=5),
        lambda: BUMDASampler(budget=100, n_generations=None),
        lambda: DynamicRandomSampler(budget=100, n_batches=2),
        lambda: FocusedGridSampler(budget=100, depth=5),
        lambda: FocusedGridSampler(mode="annealed", budget=100, points_per_level=7),
    ],
)
def test_budget_and_the_setting_it_derives_conflict(make: Any) -> None:
    with pytest.raises(ValueError, match="not both"):
        make()


def test_budgeted_samplers_run_a_study() -> None:
    for sampler in (
        PSOSampler(budget=30, seed=0),
        UMDASampler(budget=30, seed=0),
        BUMDASampler(budget=30, seed=0),
        DynamicRandomSampler(budget=30, seed=0),
        FocusedGridSampler(mode="annealed", budget=30, seed=0),
        FocusedGridSampler(budget=30, seed=0),
        PatternSearchSampler(budget=30, seed=0),
    ):
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: t.suggest_float("x", -3, 3) ** 2, n_trials=30)
        assert study.best_value < 9.0
