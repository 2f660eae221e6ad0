"""FocusedGridSampler (DFGS, AFGS): the pure cores against the paper, and the sampler."""

from __future__ import annotations

import json
import math
from typing import Any
import warnings

import numpy as np
import optuna
import pytest

from optuna_psms import FocusedGridSampler
from optuna_psms.samplers import _records
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.grid import acceptance_probability
from optuna_psms.samplers.core.grid import AFGSStrategy
from optuna_psms.samplers.core.grid import dfgs_grid
from optuna_psms.samplers.core.grid import dfgs_offset
from optuna_psms.samplers.core.grid import dfgs_offsets
from optuna_psms.samplers.core.grid import DFGSStrategy
from optuna_psms.samplers.core.grid import eq6_recentre
from optuna_psms.samplers.core.grid import golden_stride
from optuna_psms.samplers.core.grid import GridSettings
from optuna_psms.samplers.core.grid import neighbour
from optuna_psms.samplers.core.grid import temperature
from optuna_psms.samplers.core.pattern import point_key
from optuna_psms.samplers.core.rng import trial_rng
from tests.samplers.test_pattern import drive
from tests.samplers.test_pattern import run_four_processes


def quad2(x: np.ndarray) -> float:
    """2-D quadratic with its optimum on the dyadic point (0.3125, 0.6875) = (5/16, 11/16)."""
    return float((x[0] - 0.3125) ** 2 + (x[1] - 0.6875) ** 2)


# --------------------------------------------------------------------------- DFGS maths
def test_dfgs_grid_has_3m_outer_and_2m_inner_points() -> None:
    for m in (1, 2, 3, 4):
        offsets = dfgs_offsets(m)
        assert offsets.shape == (3**m + 2**m, m)
        assert {tuple(r) for r in offsets[: 3**m]} == {
            tuple(r) for r in np.indices((3,) * m).reshape(m, -1).T - 1.0
        }
        assert np.all(np.abs(offsets[3**m :]) == 0.5)
        for j in range(3**m + 2**m):
            np.testing.assert_array_equal(dfgs_offset(j, m), offsets[j])
    pts = dfgs_grid(np.array([0.5, 0.5]), 0.5)
    assert {tuple(p) for p in pts} == {
        (a, b) for a in (0.0, 0.5, 1.0) for b in (0.0, 0.5, 1.0)
    } | {(a, b) for a in (0.25, 0.75) for b in (0.25, 0.75)}


def test_eq6_recentring_moves_border_points_inward_by_a_quarter() -> None:
    c, h = np.array([0.5, 0.5, 0.5]), 0.5  # level 1: Delta = 1, outer border at 0 and 1
    tau_gamma = np.array([-1.0, 1.0, 0.0])  # tau = (0, 1, 0.5)
    np.testing.assert_allclose(eq6_recentre(c, h, tau_gamma), [0.25, 0.75, 0.5])
    # An inner-grid point stays where it is.
    np.testing.assert_allclose(eq6_recentre(c, h, np.array([0.5, -0.5, 0.5])), [0.75, 0.25, 0.75])


def test_golden_stride_is_a_permutation() -> None:
    for size in (1, 2, 3, 13, 35, 97, 275):
        s = golden_stride(size)
        assert sorted((p * s) % size for p in range(size)) == list(range(size))


# --------------------------------------------------------------------------- DFGS runs
def test_dfgs_point_counts_cache_and_convergence_on_a_2d_quadratic() -> None:
    depth = 6
    s = DFGSStrategy(2, 0, settings=GridSettings(depth=depth))
    trace = []
    n = 0
    while not s.converged():
        trace += drive(s, quad2, 1, start=n)
        n += 1
        assert n < 200
    levels = [p.generation for p, _ in trace]
    # Level 1: 3^M + 2^M = 13 points, all new.
    assert levels[:13] == [1] * 13
    first = {tuple(r.x) for _, r in trace[:13]}
    assert first == {tuple(p) for p in dfgs_grid(np.full(2, 0.5), 0.5)}
    # Later levels reuse cached points: fewer than 13 new evaluations each.
    per_level = {k: levels.count(k) for k in set(levels)}
    assert sorted(per_level) == list(range(1, depth))
    assert all(per_level[k] < 13 for k in range(2, depth))
    # No point is ever evaluated twice.
    keys = [point_key(r.x, np.zeros(2, dtype=np.int64)) for _, r in trace]
    assert len(keys) == len(set(keys))
    # Within the paper's cost bounds and at the resolution limit 2^-K of the optimum.
    assert len(trace) <= (depth - 1) * 13
    best = min(trace, key=lambda t: t[1].loss or 0.0)[1]
    assert best.loss == pytest.approx(0.0)
    np.testing.assert_allclose(best.x, [0.3125, 0.6875])
    assert s.budget() == (depth - 1) * 13


def test_dfgs_recentres_by_eq6_from_each_level_best() -> None:
    s = DFGSStrategy(2, 0, settings=GridSettings(depth=5))
    drive(s, quad2, 13)
    level = s.frontier()
    assert level is not None and level.k == 2
    # Level 1 best: inner point (0.25, 0.75) -> stays the centre (an inner point).
    np.testing.assert_allclose(level.centre, [0.25, 0.75])
    assert level.h == 0.25


def test_dfgs_discrete_coordinates_snap_and_are_not_reevaluated() -> None:
    dims = (Dim("a", "int", 4), Dim("b", "float", 0))
    s = DFGSStrategy(2, 0, settings=GridSettings(depth=6), dims=dims)
    trace = []
    n = 0
    while not s.converged():
        trace += drive(s, lambda x: abs(x[0] - 0.375) + (x[1] - 0.6) ** 2, 1, start=n)
        n += 1
    xs = [r.x for _, r in trace]
    assert all(((x[0] * 4) - 0.5) % 1 == pytest.approx(0.0) for x in xs)  # cell centres
    keys = [point_key(x, np.array([4, 0])) for x in xs]
    assert len(keys) == len(set(keys))
    assert min(r.loss for _, r in trace if r.loss is not None) < 2e-3


def test_dfgs_order_insensitive_and_speculates_when_a_level_is_all_running() -> None:
    a = DFGSStrategy(2, 0, settings=GridSettings(depth=6))
    trace = drive(a, quad2, 20)
    b = DFGSStrategy(2, 0, settings=GridSettings(depth=6))
    for _, rec in reversed(trace):
        b.tell(rec)
    for n in (20, 21):
        np.testing.assert_array_equal(a.ask(n, trial_rng(0, n)).x, b.ask(n, trial_rng(0, n)).x)
    # Level 1 with every point running: the next worker gets a speculative level-2 point.
    s = DFGSStrategy(2, 0, settings=GridSettings(depth=6))
    drive(s, quad2, 3)
    for n in range(3, 13):
        prop = s.ask(n, trial_rng(0, n))
        s.tell(Record(n, prop.member, prop.generation, prop.x, info=prop.info, loss=None))
    prop = s.ask(13, trial_rng(0, 13))
    assert prop.generation == 2 and prop.info.get("speculative") == 1
    # Two workers asking at the same instant (same view, consecutive numbers) differ.
    s2 = DFGSStrategy(3, 0, settings=GridSettings(depth=4))
    assert not np.array_equal(s2.ask(5, trial_rng(0, 5)).x, s2.ask(6, trial_rng(0, 6)).x)


def test_dfgs_restarted_run_starts_from_a_random_centre() -> None:
    s = DFGSStrategy(2, 40, settings=GridSettings(depth=5))
    first = s.ask(40, trial_rng(0, 40))
    assert first.generation == 2 and np.all((first.x >= 0.25) & (first.x <= 0.75))
    trace = drive(s, quad2, 13, start=40)
    assert all(p.generation == 2 for p, _ in trace[:13])
    xs = np.array([r.x for _, r in trace[:13]])
    assert np.all(np.abs(xs - trace[0][1].x) <= 0.25 + 1e-12)


# --------------------------------------------------------------------------- AFGS maths
def test_acceptance_rule_matches_the_formula() -> None:
    assert acceptance_probability(0.3, 0.2, 0.8) == 1.0
    assert acceptance_probability(0.2, 0.3, 0.8) == pytest.approx(math.exp(-0.1 / 0.8))
    assert acceptance_probability(0.2, 0.7, 0.4) == pytest.approx(math.exp(-0.5 / 0.4))
    assert acceptance_probability(0.2, 0.3, 0.0) == 0.0
    assert acceptance_probability(0.2, 0.2, 0.0) == 1.0
    assert acceptance_probability(0.2, math.inf, 0.8) == 0.0
    assert acceptance_probability(math.inf, 5.0, 0.8) == 1.0


def test_temperature_is_linear_from_t0_to_zero() -> None:
    lam = 5
    assert [temperature(t, lam, 0.8) for t in range(lam)] == pytest.approx(
        [0.8, 0.6, 0.4, 0.2, 0.0]
    )


def test_neighbour_changes_one_coordinate_centre_to_side_and_back() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        g = rng.choice([-1.0, 0.0, 1.0], size=4)
        nb = neighbour(g, rng)
        diff = np.flatnonzero(nb != g)
        assert diff.size == 1
        i = diff[0]
        assert (g[i] == 0 and abs(nb[i]) == 1) or (abs(g[i]) == 1 and nb[i] == 0)


# --------------------------------------------------------------------------- AFGS runs
def _afgs_run(
    lam: int, depth: int, dim: int = 4, stuck: int | None = None
) -> tuple[AFGSStrategy, list[Any]]:
    s = AFGSStrategy(
        dim,
        0,
        settings=GridSettings(depth=depth, points_per_level=lam, stuck=stuck, mode="annealed"),
    )
    trace = []
    n = 0
    while not s.converged():
        trace += drive(s, lambda x: float(np.sum((x - 0.3) ** 2)), 1, start=n)
        n += 1
        assert n < 2000
    return s, trace


@pytest.mark.parametrize("lam", [2, 5, 12])
def test_afgs_never_evaluates_more_than_lambda_new_points_per_level(lam: int) -> None:
    s, trace = _afgs_run(lam, depth=6)
    walk = [(p.generation, p.info["t"]) for p, _ in trace if "t" in p.info]
    for k in range(6):
        steps = [t for g, t in walk if g == k]
        assert 0 < len(steps) <= lam
        assert max(steps) <= lam - 1
        assert len(set(steps)) == len(steps)  # one new point per temperature step
    keys = [point_key(r.x, np.zeros(4, dtype=np.int64)) for _, r in trace]
    assert len(keys) == len(set(keys))  # cached points are never re-evaluated
    assert s.budget() == 6 * lam


def _value_at(s: AFGSStrategy, centre: list[float], k: int, gamma: np.ndarray) -> float | None:
    """The finished loss of the grid point ``centre + h_k gamma`` (``None``: not evaluated)."""
    return s._finished_key(s._grid_point(centre, k, gamma.tolist())[1])


def test_afgs_walk_replays_the_acceptance_rule() -> None:
    s, trace = _afgs_run(8, depth=4)
    by_number = {r.number: r for _, r in trace}
    for k in range(4):
        level = [(p, r) for p, r in trace if p.generation == k and "t" in p.info]
        centre = s._centre(k, level[0][0].info["c"])
        assert centre is not None
        for (_, prev), (prop, _) in zip(level, level[1:]):
            if prev.info["t"] == 0:
                continue
            # The current point of the next step is prev's point iff prev was accepted.
            f_c = _value_at(s, centre, k, prev.vectors["gc"])
            assert f_c is not None and prev.loss is not None
            temp = temperature(prev.info["t"], 8, 0.8)
            accepted = prev.info["u"] < acceptance_probability(f_c, prev.loss, temp)
            expected = prev.vectors["g"] if accepted else prev.vectors["gc"]
            # Cached neighbours may have moved the walk in between; when the new step came
            # straight after prev, its current point is the one the rule gives.
            if np.count_nonzero(prop.vectors["g"] != expected) == 1:
                moved = prop.vectors["gc"]
                assert (
                    np.array_equal(moved, expected) or _value_at(s, centre, k, moved) is not None
                )
    assert by_number


def test_afgs_best_point_centres_the_next_level() -> None:
    s, trace = _afgs_run(6, depth=5)
    for k in range(1, 5):
        level = [(p, r) for p, r in trace if p.generation == k and "c" in p.info]
        centre_number = level[0][0].info["c"]
        before = [r for p, r in trace if r.number < level[0][1].number and r.loss is not None]
        best = min(before, key=lambda r: (r.loss, r.number))
        assert centre_number == best.number


def test_afgs_stuck_counter_ends_a_level_on_a_tiny_discrete_grid() -> None:
    dims = (Dim("a", "categorical", 2),)
    s = AFGSStrategy(
        1,
        0,
        settings=GridSettings(depth=8, points_per_level=50, stuck=3, mode="annealed"),
        dims=dims,
    )
    trace = []
    n = 0
    while not s.converged() and n < 100:
        trace += drive(s, lambda x: float(x[0]), 1, start=n)
        n += 1
    assert s.converged()
    assert len(trace) <= 3  # only two distinct values exist


# --------------------------------------------------------------------------- sampler
def test_invalid_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="mode"):
        FocusedGridSampler(mode="random")
    with pytest.raises(ValueError, match="depth"):
        FocusedGridSampler(depth=1)
    with pytest.raises(ValueError, match="points_per_level"):
        FocusedGridSampler(mode="annealed", points_per_level=1)
    with pytest.raises(ValueError, match="initial_temperature"):
        FocusedGridSampler(mode="annealed", initial_temperature=0.0)
    with pytest.raises(ValueError, match="stuck"):
        FocusedGridSampler(mode="annealed", stuck=0)
    with pytest.raises(ValueError, match="on_converged"):
        FocusedGridSampler(on_converged="pause")


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_float("y", -5, 5)
    return (x - 1.25) ** 2 + (y + 2.5) ** 2


@pytest.mark.parametrize("mode", ["deterministic", "annealed"])
def test_restart_records_pfc_and_run_attrs(mode: str) -> None:
    study = optuna.create_study(sampler=FocusedGridSampler(mode=mode, depth=5, seed=0))
    study.optimize(objective, n_trials=150)
    marks = [t for t in study.trials if "psms:converged_run" in t.user_attrs]
    assert len(marks) >= 2
    first = marks[0]
    assert first.user_attrs["psms:run"] == 1
    assert 0 < first.user_attrs["psms:pfc"] <= 1.0
    rec = _records.load(first.system_attrs)
    assert rec is not None and rec["r"] == 1 and rec["rs"] == first.number
    assert study.best_value == pytest.approx(0.0)


@pytest.mark.parametrize("mode", ["deterministic", "annealed"])
def test_stop_ends_optimize_and_leaves_ask_tell_working(mode: str) -> None:
    study = optuna.create_study(
        sampler=FocusedGridSampler(mode=mode, depth=4, seed=0, on_converged="stop")
    )
    study.optimize(objective, n_trials=500)
    n = len(study.trials)
    assert n < 60
    for _ in range(5):
        trial = study.ask()
        study.tell(trial, objective(trial))
    assert len(study.trials) == n + 5
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)


def test_dfgs_warns_once_when_a_level_is_too_large() -> None:
    def many(trial: optuna.Trial) -> float:
        return sum(trial.suggest_float(f"x{i}", 0, 1) for i in range(6))

    sampler = FocusedGridSampler(mode="deterministic", seed=0)
    study = optuna.create_study(sampler=sampler)
    with pytest.warns(UserWarning, match="annealed") as caught:
        study.optimize(many, n_trials=10)
    assert len([w for w in caught if "annealed" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FocusedGridSampler(mode="annealed", seed=0)
        optuna.create_study(sampler=FocusedGridSampler(mode="annealed", seed=0)).optimize(
            many, n_trials=10
        )


def test_dfgs_with_more_than_ten_parameters_still_proposes_grid_points() -> None:
    def many(trial: optuna.Trial) -> float:
        return sum(trial.suggest_float(f"x{i:02d}", 0, 1) for i in range(12))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(sampler=FocusedGridSampler(seed=0))
        study.optimize(many, n_trials=30)
    values = {v for t in study.trials[1:] for v in t.params.values()}
    assert values <= {0.0, 0.25, 0.5, 0.75, 1.0}


def _journal_positions(path: str) -> tuple[dict[int, int], dict[int, int]]:
    """Log positions of each trial's creation and of its first record write (one study)."""
    created: dict[int, int] = {}
    recorded: dict[int, int] = {}
    with open(path) as f:
        for pos, line in enumerate(f):
            op = json.loads(line)
            if op["op_code"] == 4:  # CREATE_TRIAL: ids are assigned in log order
                created[len(created)] = pos
            elif op["op_code"] == 9 and any(k.startswith(_records.KEY) for k in op["system_attr"]):
                recorded.setdefault(op["trial_id"], pos)
    return created, recorded


@pytest.mark.parametrize("name", ["dfgs", "afgs"])
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_four_processes_on_one_journal_file(name: str, tmp_path: Any) -> None:
    path = str(tmp_path / "journal.log")
    study = run_four_processes(name, path, 20)
    recs = [_records.load(t.system_attrs) for t in study.trials]
    assert len(recs) == 80 and all(r is not None for r in recs)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    points: dict[tuple[int, float, float], list[int]] = {}
    for t, rec in zip(study.trials, recs):
        assert rec is not None
        if not rec["x"] or "explore" in rec["info"]:
            continue
        points.setdefault((rec["r"], t.params["x"], t.params["y"]), []).append(t.number)
    # Concurrent workers take different grid points. A point is evaluated twice only when
    # the second trial was created before the first one's record was in the journal (its
    # worker could not see it); the journal's order says so, whatever the scheduling was.
    created, recorded = _journal_positions(path)
    for numbers in points.values():
        first = min(numbers, key=lambda n: recorded[n])
        for n in numbers:
            if n != first:
                assert created[n] < recorded[first], (n, first, "repeated a visible point")
    assert study.best_value < 0.5


# --------------------------------------------------------------------------- 1,000 parameters
def test_golden_stride_is_exact_beyond_float_range() -> None:
    size = 3**1000 + 2**1000  # a DFGS level over 1,000 parameters: ~1.3e477 points
    stride = golden_stride(size)
    assert math.gcd(stride, size) == 1
    # size / phi to ~29 significant digits, computed in integers (a float overflows).
    assert abs(stride * 10**30 - size * 618033988749894848204586834366) < 10 * size
    for small in (3, 13, 35, 3**10 + 2**10, (1 << 53) - 1):  # the float rule is unchanged
        assert golden_stride(small) == _float_stride(small)


def _float_stride(size: int) -> int:
    s = max(1, round(size * 0.6180339887498949))
    for delta in range(size):
        for cand in (s - delta, s + delta):
            if 0 < cand < size and math.gcd(cand, size) == 1:
                return cand
    return 1


@pytest.mark.parametrize("mode", ["deterministic", "annealed"])
def test_grid_search_works_at_1000_parameters(mode: str) -> None:
    """Regression: 3^M overflowed a float at M >= 647 and every trial fell back to uniform."""
    n = 1000
    sampler = FocusedGridSampler(mode=mode, seed=0)
    study = optuna.create_study(sampler=sampler)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study.optimize(
            lambda t: sum((t.suggest_float(f"x{i}", 0, 1) - 0.3) ** 2 for i in range(n)),
            n_trials=5,
        )
    grid_values = {0.0, 0.25, 0.5, 0.75, 1.0}  # level 1 of DFGS, level 0 of AFGS
    points = set()
    for trial in study.trials[1:]:  # trial 0 only discovers the space
        assert trial.user_attrs["psms:level"] in (0, 1)
        assert set(trial.params.values()) <= grid_values, "fell back to uniform sampling"
        assert "psms:explore" not in trial.user_attrs
        points.add(tuple(trial.params.values()))
        assert 0 <= trial.user_attrs.get("psms:point", 0) < 2**53
    assert len(points) == 4  # four distinct grid points
    messages = [str(w.message) for w in caught]
    assert all(len(m) < 1000 for m in messages), "a warning printed a huge number"
    if mode == "deterministic":
        assert sum("evaluations per level" in m for m in messages) == 1  # said once
