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
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.grid import AFGSStrategy
from optuna_psms.samplers.core.grid import DFGSStrategy
from optuna_psms.samplers.grid import budget_layout
from optuna_psms.samplers.grid import budget_mode


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
    assert strategy.budget() == 10 * 20
    paper = FocusedGridSampler(mode="annealed")._make_strategy(_dims(5), 0)
    assert paper.budget() == 10 * 25
    dfgs = FocusedGridSampler(budget=200)._make_strategy(_dims(2), 0)
    assert dfgs.budget() == 15 * 13


def test_dfgs_with_a_budget_below_one_level_runs_afgs() -> None:
    # One DFGS level over M parameters is 3^M + 2^M evaluations (M = 5: 275).
    assert budget_mode("deterministic", 5, 274) == "annealed"
    assert budget_mode("deterministic", 5, 275) == "deterministic"
    assert budget_mode("deterministic", 2, 13) == "deterministic"
    assert budget_mode("deterministic", 2, 12) == "annealed"
    assert budget_mode("deterministic", 40, 10**9) == "annealed"
    assert budget_mode("annealed", 1, 1) == "annealed"
    with pytest.warns(UserWarning, match="runs AFGS"):
        strategy = FocusedGridSampler(budget=200)._make_strategy(_dims(5), 0)
    assert isinstance(strategy, AFGSStrategy)
    assert strategy.budget() == 10 * 20  # AFGS's budget rule: depth 10, Lambda 200 // 10
    # The budget pays for one level: DFGS, as before (depth 2: one level).
    with pytest.warns(UserWarning, match="3\\^M"):  # the DFGS warning, not the fallback
        fits = FocusedGridSampler(budget=275)._make_strategy(_dims(5), 0)
    assert isinstance(fits, DFGSStrategy) and fits.budget() == 275
    # Without a budget nothing changes: DFGS whatever the level size (it warns).
    with pytest.warns(UserWarning, match="3\\^M"):
        paper = FocusedGridSampler()._make_strategy(_dims(5), 0)
    assert isinstance(paper, DFGSStrategy)
    with pytest.warns(UserWarning, match="needs 3\\^40 \\+ 2\\^40 evaluations"):
        many = FocusedGridSampler(budget=1000)._make_strategy(_dims(40), 0)
    assert isinstance(many, AFGSStrategy)


def test_dfgs_fallback_warning_names_the_studys_parameters() -> None:
    # The first strategy is built before the search space is known (no parameters): the
    # warning waits for the real one, and counts its parameters.
    study = optuna.create_study(sampler=FocusedGridSampler(budget=4, seed=0))
    with pytest.warns(UserWarning) as caught:
        study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2, n_trials=6)
    fallback = [str(w.message) for w in caught if "runs AFGS" in str(w.message)]
    assert len(fallback) == 1 and "over 1 parameter: one DFGS level needs 5 " in fallback[0]
    assert len(study.trials) == 6


def test_dfgs_fallback_proposes_exactly_what_afgs_with_the_budget_does() -> None:
    def objective(trial: optuna.Trial) -> float:
        return sum((trial.suggest_float(f"x{i}", -2, 2) - 0.3) ** 2 for i in range(3))

    def trials(sampler: optuna.samplers.BaseSampler) -> list[dict[str, Any]]:
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=30)
        return [t.params for t in study.trials]

    # Three parameters: a DFGS level is 27 + 8 = 35 points, more than 30 trials.
    with pytest.warns(UserWarning, match="runs AFGS"):
        got = trials(FocusedGridSampler(budget=30, seed=3))
    assert got == trials(FocusedGridSampler(mode="annealed", budget=30, seed=3))
    # A budget that pays for a level keeps DFGS (depth 2: one level), on the level's grid.
    dfgs = trials(FocusedGridSampler(budget=35, seed=3))
    assert dfgs == trials(FocusedGridSampler(depth=2, seed=3))
    assert dfgs != got
    # (Trial 0 meets an empty search space, so it is not a grid point.)
    assert all(v in (-2.0, -1.0, 0.0, 1.0, 2.0) for p in dfgs[1:] for v in p.values())


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


def test_dfgs_fallback_when_the_space_grows_past_one_level() -> None:
    """Two parameters (13 points a level) fit 30 trials, three (35) do not: the study goes on
    with AFGS, reading the earlier DFGS trials as foreign ones (cached, candidates for best)."""

    def objective(trial: optuna.Trial) -> float:
        value = trial.suggest_float("a", -1, 1) ** 2 + trial.suggest_float("b", -1, 1) ** 2
        if trial.number >= 15:
            value += (trial.suggest_float("c", -1, 1) - 0.5) ** 2
        return value

    study = optuna.create_study(sampler=FocusedGridSampler(budget=30, seed=0))
    with pytest.warns(UserWarning, match="runs AFGS"):
        study.optimize(objective, n_trials=30)
    assert len(study.trials) == 30
    assert "psms:point" in study.trials[1].user_attrs  # a DFGS grid index
    assert "psms:step" in study.trials[-1].user_attrs  # AFGS's walk
