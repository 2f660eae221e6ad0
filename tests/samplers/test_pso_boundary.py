"""PSO boundary rules and the budget-aware schedule."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import optuna
import pytest

from optuna_psms import PSOSampler
from optuna_psms.samplers.core.pso import BOUNDARIES
from optuna_psms.samplers.core.pso import move


unit = st.floats(0.0, 1.0)
step = st.floats(-1.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(unit, step), min_size=1, max_size=6),
    st.sampled_from(BOUNDARIES),
    st.integers(0, 2**32 - 1),
)
def test_every_rule_keeps_positions_in_the_box(
    pairs: list[tuple[float, float]], boundary: str, seed: int
) -> None:
    x = np.array([p[0] for p in pairs])
    v = np.array([p[1] for p in pairs])
    pos, vel = move(x, v, boundary, np.random.default_rng(seed))
    assert np.all((pos >= 0.0) & (pos <= 1.0))
    inside = (x + v >= 0.0) & (x + v <= 1.0)
    # Coordinates that stay inside move exactly as Eq. 2 says, whatever the rule.
    np.testing.assert_array_equal(pos[inside], (x + v)[inside])
    np.testing.assert_array_equal(vel[inside], v[inside])


def test_rules_on_one_example() -> None:
    x, v = np.array([0.9, 0.1, 0.5]), np.array([0.3, -0.3, 0.2])
    pos, vel = move(x, v, "absorb")
    np.testing.assert_allclose(pos, [1.0, 0.0, 0.7])
    np.testing.assert_allclose(vel, [0.0, 0.0, 0.2])
    pos, vel = move(x, v, "reflect")
    np.testing.assert_allclose(pos, [0.8, 0.2, 0.7])
    np.testing.assert_allclose(vel, [-0.3, 0.3, 0.2])
    r = np.random.default_rng(1).random(3)
    pos, vel = move(x, v, "random", np.random.default_rng(1))
    np.testing.assert_allclose(pos, [0.9 + r[0] * 0.1, 0.1 - r[1] * 0.1, 0.7])
    np.testing.assert_allclose(vel, [r[0] * 0.1, -r[1] * 0.1, 0.2])
    pos, vel = move(x, v, "damping", np.random.default_rng(1))
    np.testing.assert_allclose(pos, [1.0 - r[0] * 0.2, r[1] * 0.2, 0.7])
    np.testing.assert_allclose(vel, [-r[0] * 0.3, r[1] * 0.3, 0.2])
    with pytest.raises(ValueError, match="needs a random generator"):
        move(x, v, "random")


def _shares(boundary: str) -> tuple[float, float]:
    def objective(trial: optuna.Trial) -> float:
        # Optimum off-centre and inside: (1.7, -3.1, 2.2, 0.9, -0.4).
        xs = [trial.suggest_float(f"x{i}", -5, 5) for i in range(5)]
        target = [1.7, -3.1, 2.2, 0.9, -0.4]
        return sum((a - b) ** 2 for a, b in zip(xs, target)) + 10 * abs(xs[0] - 1.7)

    study = optuna.create_study(sampler=PSOSampler(boundary=boundary, seed=3))
    study.optimize(objective, n_trials=300)
    x = np.array([[t.params[f"x{i}"] for i in range(5)] for t in study.trials])
    return float(np.mean(np.abs(x) == 5.0)), float(np.mean(x == 0.0))


def test_absorbing_walls_pile_up_on_walls_and_centre_but_damping_and_reflection_do_not() -> None:
    wall, centre = _shares("absorb")
    assert wall > 0.01 and centre > 0.001  # the paper's rule: the artefact exists
    assert _shares("reflect") == (0.0, 0.0)
    assert _shares("damping") == (0.0, 0.0)
    assert PSOSampler()._params["boundary"] == "damping"


def test_budget_lays_the_inertia_schedule_over_the_study() -> None:
    paper = PSOSampler(seed=0)
    budgeted = PSOSampler(seed=0, budget=40, swarm_size=5, topology="global")
    assert paper._params["n_iterations"] == 50
    assert budgeted._params["n_iterations"] == 8
    assert {k: v for k, v in paper._params.items() if k != "n_iterations"} == {
        k: v for k, v in budgeted._params.items() if k != "n_iterations"
    }
    assert PSOSampler(swarm_size=7, budget=40)._params["n_iterations"] == 6


@pytest.mark.parametrize(
    "kwargs",
    [
        {"budget": 0},
        {"budget": True},
        {"budget": 10.0},
        {"budget": 10, "n_iterations": 5},
        {"boundary": "wrap"},
        {"swarm_size": True},
        {"n_iterations": True},
    ],
    ids=str,
)
def test_bad_settings_are_one_line_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="budget|boundary|swarm_size|n_iterations"):
        PSOSampler(**kwargs)  # type: ignore[arg-type]
