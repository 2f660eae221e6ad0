"""PatternSearchSampler (PATSMS): the pure core against Algorithm 2, and the sampler."""

from __future__ import annotations

from collections.abc import Callable
import math
import subprocess
import sys
import textwrap
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import optuna
from optuna.storages.journal import JournalFileBackend
import pytest

from optuna_psms import PatternSearchSampler
from optuna_psms.samplers import _records
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy
from optuna_psms.samplers.core.pattern import convergence_threshold
from optuna_psms.samplers.core.pattern import pattern_point
from optuna_psms.samplers.core.pattern import PatternSettings
from optuna_psms.samplers.core.pattern import PatternStrategy
from optuna_psms.samplers.core.rng import trial_rng
import tests


REPO = str(tests.REPO)


def drive(
    strategy: Strategy, f: Callable[[np.ndarray], float], n: int, start: int = 0
) -> list[tuple[Proposal, Record]]:
    """A sequential study on a bare strategy: ask, tell running, evaluate, tell finished."""
    out = []
    for number in range(start, start + n):
        prop = strategy.ask(number, trial_rng(0, number))
        x = np.clip(prop.x, 0.0, 1.0)
        args = (number, prop.member, prop.generation, x, prop.vectors, prop.info)
        strategy.tell(Record(*args, loss=None))
        rec = Record(*args, loss=f(x))
        strategy.tell(rec)
        out.append((prop, rec))
    return out


def quad(x: np.ndarray) -> float:
    return float(np.sum((x - 0.3) ** 2))


# --------------------------------------------------------------------------- maths
def test_pattern_columns_are_plus_then_minus_identity() -> None:
    c = np.array([0.5, 0.5, 0.5])
    got = [pattern_point(c, j, 0.25) - c for j in range(6)]
    expected = np.concatenate([np.eye(3), -np.eye(3)]) * 0.25
    np.testing.assert_allclose(np.array(got), expected)


def test_pattern_point_walls_and_discrete_cells() -> None:
    c = np.array([0.9, 0.45])
    cells = np.array([0, 5])  # a 5-choice coordinate: cells of width 0.2
    # Continuous coordinate on the wall.
    assert pattern_point(c, 0, 0.5, cells)[0] == 1.0
    # Discrete: 0.45 is cell 2; a step of 0.5 is round(2.5) = 2 cells (half up) -> cell 4.
    assert pattern_point(c, 1, 0.5, cells)[1] == pytest.approx(0.9)
    # A step below one cell still moves one cell.
    assert pattern_point(c, 3, 0.01, cells)[1] == pytest.approx(0.3)
    # Other discrete coordinates sit on their cell centre.
    assert pattern_point(c, 0, 0.1, cells)[1] == pytest.approx(0.5)


def test_convergence_threshold_continuous_and_discrete() -> None:
    assert convergence_threshold(1e-3, np.array([0, 0])) == 1e-3
    assert convergence_threshold(1e-3, np.array([4])) == pytest.approx(0.125)
    assert convergence_threshold(1e-3, np.array([0, 4])) == pytest.approx(1e-3)
    assert convergence_threshold(1e-3, np.array([10_000])) == pytest.approx(1e-3)


# --------------------------------------------------------------------------- Algorithm 2
def test_sequential_run_is_algorithm_2_with_halving_exactly_on_failed_sweeps() -> None:
    d = 3
    s = PatternStrategy(d, 0, settings=PatternSettings(resolution=1e-3))
    trace = drive(s, quad, 1 + 2 * d * 12)
    best: Record | None = None
    step_of: dict[int, float] = {}
    improved: dict[int, bool] = {}
    best_before_sweep: dict[int, float] = {}
    for prop, rec in trace:
        sweep, j = prop.generation, prop.member
        if rec.number == 0:
            assert sweep == 0
        else:
            assert (sweep, j) == ((rec.number - 1) // (2 * d) + 1, (rec.number - 1) % (2 * d))
            before = best.loss if best is not None and best.loss is not None else math.inf
            best_before_sweep.setdefault(sweep, before)
            step_of.setdefault(sweep, prop.info["step"])
            assert prop.info["step"] == step_of[sweep]
            assert best is not None
            # The point is the current best moved along column j (or an exploration point
            # replacing a repeat).
            if "explore" not in prop.info:
                assert prop.info["centre"] == best.number
                expected = pattern_point(best.x, j, step_of[sweep])
                np.testing.assert_allclose(rec.x, expected)
            assert rec.loss is not None
            improved[sweep] = improved.get(sweep, False) or rec.loss < best_before_sweep[sweep]
        assert rec.loss is not None
        if best is None or best.loss is None or rec.loss < best.loss:
            best = rec
    assert step_of[1] == 0.5
    halvings = 0
    for sweep in sorted(step_of)[:-1]:
        if improved[sweep]:
            assert step_of[sweep + 1] == step_of[sweep]
        else:
            assert step_of[sweep + 1] == step_of[sweep] / 2
            halvings += 1
    assert halvings >= 3 and any(improved.values())


def test_step_rule_always_halves_after_every_sweep() -> None:
    s = PatternStrategy(2, 0, settings=PatternSettings(step_rule="always"))
    trace = drive(s, quad, 1 + 4 * 5)
    steps = sorted({(p.generation, p.info["step"]) for p, _ in trace[1:]})
    assert steps == [(1, 0.5), (2, 0.25), (3, 0.125), (4, 0.0625), (5, 0.03125)]


def test_failed_trials_never_become_the_centre_nor_an_improvement() -> None:
    s = PatternStrategy(2, 0, settings=PatternSettings())
    drive(s, lambda x: math.inf if x[0] > 0.0 else quad(x), 1 + 4)
    # Only the x = 0 wall point (column 2, if it was reached) can be finite.
    centre = s.centre()
    assert centre is not None
    assert centre.loss is not None
    assert math.isfinite(centre.loss) or centre.number == 0


def test_state_is_a_function_of_the_set_of_records() -> None:
    a = PatternStrategy(3, 0, settings=PatternSettings())
    trace = drive(a, quad, 40)
    b = PatternStrategy(3, 0, settings=PatternSettings())
    for _, rec in reversed(trace):
        b.tell(rec)
    for n in range(40, 50):
        pa, pb = a.ask(n, trial_rng(1, n)), b.ask(n, trial_rng(1, n))
        np.testing.assert_array_equal(pa.x, pb.x)
        assert pa.info == pb.info
    assert a.current_step() == b.current_step()


def _ask_first_sweep(s: PatternStrategy, d: int) -> list[Record]:
    """Ask the 2d points of the first sweep (trials 1..2d), all left running."""
    running = []
    for n in range(1, 1 + 2 * d):
        prop = s.ask(n, trial_rng(0, n))
        rec = Record(n, prop.member, prop.generation, prop.x, info=prop.info, loss=None)
        s.tell(rec)
        running.append(rec)
    return running


def test_sweep_running_concurrently_keeps_the_step_for_the_next_sweep() -> None:
    """All 2d points of sweep 1 are running: the next worker gets sweep 2, same step."""
    d = 2
    s = PatternStrategy(d, 0, settings=PatternSettings())
    drive(s, quad, 1)  # the initial centre (trial 0) is finished
    running = _ask_first_sweep(s, d)
    prop = s.ask(1 + 2 * d, trial_rng(0, 1 + 2 * d))
    assert (prop.generation, prop.member) == (2, 0)
    assert prop.info["step"] == 0.5 and prop.info["centre"] == 0  # around the known best
    # Once every point of sweep 1 has failed, sweep 2's step is halved.
    for rec in running:
        s.tell(Record(rec.number, rec.member, rec.generation, rec.x, info=rec.info, loss=99.0))
    assert s.ask(1 + 2 * d, trial_rng(0, 5)).info["step"] == 0.25


def test_half_a_sweep_without_improvement_halves_the_step() -> None:
    """Partial stencils: d of the 2d points of a sweep finished, none improved, the rest still
    running: the next sweep's step is halved at once; a late improvement undoes it."""
    d = 2
    s = PatternStrategy(d, 0, settings=PatternSettings())
    ((_, first),) = drive(s, quad, 1)  # the initial centre (trial 0) is finished
    assert first.loss is not None
    running = _ask_first_sweep(s, d)
    nxt = 1 + 2 * d

    def finish(rec: Record, loss: float) -> None:
        s.tell(Record(rec.number, rec.member, rec.generation, rec.x, info=rec.info, loss=loss))

    finish(running[0], first.loss + 1.0)  # 1 of 4 finished, no improvement: outcome unknown
    assert s.ask(nxt, trial_rng(0, nxt)).info["step"] == 0.5
    finish(running[1], first.loss + 1.0)  # 2 of 4 (d of 2d), no improvement: a failure
    assert s.ask(nxt, trial_rng(0, nxt)).info["step"] == 0.25
    # What a fresh process reads from the same records (in any order) proposes the same.
    fresh = PatternStrategy(d, 0, settings=PatternSettings())
    failed = [
        Record(r.number, r.member, r.generation, r.x, info=r.info, loss=first.loss + 1.0)
        for r in running[:2]
    ]
    for rec in reversed([first, *failed, *running[2:]]):
        fresh.tell(rec)
    a, b = s.ask(nxt, trial_rng(0, nxt)), fresh.ask(nxt, trial_rng(0, nxt))
    np.testing.assert_array_equal(a.x, b.x)
    assert a.info == b.info
    finish(running[2], first.loss - 1.0)  # a straggler improves: a success, the step is kept
    prop = s.ask(nxt, trial_rng(0, nxt))
    assert prop.info["step"] == 0.5 and prop.info["centre"] == running[2].number


def test_sweeps_asked_at_one_step_halve_it_once() -> None:
    """Sweeps 1 and 2 both asked at step 0.5 before any finished, then both fail: sweep 3
    gets 0.25 (half the step they were evaluated at), not 0.125."""
    d = 2
    s = PatternStrategy(d, 0, settings=PatternSettings())
    ((_, first),) = drive(s, quad, 1)
    assert first.loss is not None
    running = []
    for n in range(1, 1 + 4 * d):  # sweeps 1 and 2, all running
        prop = s.ask(n, trial_rng(0, n))
        assert prop.info["step"] == 0.5
        rec = Record(n, prop.member, prop.generation, prop.x, info=prop.info, loss=None)
        s.tell(rec)
        running.append(rec)
    for rec in running:
        s.tell(Record(rec.number, rec.member, rec.generation, rec.x, info=rec.info, loss=99.0))
    nxt = 1 + 4 * d
    prop = s.ask(nxt, trial_rng(0, nxt))
    assert (prop.generation, prop.info["step"]) == (3, 0.25)


def test_convergence_and_budget() -> None:
    s = PatternStrategy(2, 0, settings=PatternSettings(resolution=0.01))
    assert s.levels() == 6  # 0.5, 0.25, ..., 0.015625 >= 0.01
    assert s.budget() == 1 + 4 * 6
    drive(s, lambda x: float(np.sum(x)), 1)  # centre at a random point; its corner is 0
    n = 1
    while not s.converged():
        drive(s, lambda x: float(np.sum(np.abs(x - 0.5))), 1, start=n)
        n += 1
        assert n < 500
    assert s.current_step() < 0.01


def test_discrete_space_converges_on_its_grid() -> None:
    dims = (Dim("a", "int", 7), Dim("b", "categorical", 3))
    s = PatternStrategy(2, 0, settings=PatternSettings(), dims=dims)
    trace = drive(s, lambda x: float(abs(x[0] - 3.5 / 7) + abs(x[1] - 0.5 / 3)), 1)
    n = 1
    while not s.converged() and n < 200:
        trace += drive(s, lambda x: float(abs(x[0] - 3.5 / 7) + abs(x[1] - 0.5 / 3)), 1, n)
        n += 1
    assert s.converged() and n < 60
    assert min(r.loss for _, r in trace if r.loss is not None) == pytest.approx(0.0)


# --------------------------------------------------------------------------- sampler
def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_int("y", -5, 5)
    return (x - 1) ** 2 + y**2


def test_invalid_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="initial_step"):
        PatternSearchSampler(initial_step=0.0)
    with pytest.raises(ValueError, match="resolution"):
        PatternSearchSampler(resolution=0.9)
    with pytest.raises(ValueError, match="step_rule"):
        PatternSearchSampler(step_rule="never")
    with pytest.raises(ValueError, match="on_converged"):
        PatternSearchSampler(on_converged="wait")
    with pytest.raises(ValueError, match="seed"):
        PatternSearchSampler(seed=-3)


def test_user_attrs_and_records() -> None:
    study = optuna.create_study(sampler=PatternSearchSampler(seed=0))
    study.optimize(objective, n_trials=12)
    attrs = [t.user_attrs for t in study.trials]
    assert [(a["psms:sweep"], a["psms:point"]) for a in attrs[1:6]] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
    ]
    assert attrs[1]["psms:step"] == 0.5
    rec = _records.load(study.trials[3].system_attrs)
    assert rec is not None and rec["a"] == "pattern" and rec["g"] == 1 and rec["m"] == 2


def test_restart_records_pfc_and_starts_a_new_random_run() -> None:
    study = optuna.create_study(sampler=PatternSearchSampler(seed=1, resolution=0.01))
    study.optimize(objective, n_trials=200)
    marks = [t for t in study.trials if "psms:converged_run" in t.user_attrs]
    assert len(marks) >= 2
    first = marks[0]
    assert first.user_attrs["psms:converged_run"] == 0
    assert first.user_attrs["psms:pfc"] == pytest.approx(
        first.user_attrs["psms:run_trials"] / (1 + 4 * 6), abs=1e-6
    )
    assert first.user_attrs["psms:run"] == 1 and first.user_attrs["psms:sweep"] == 0
    rec = _records.load(first.system_attrs)
    assert rec is not None and rec["r"] == 1 and rec["rs"] == first.number
    assert study.best_value < 1e-3


def test_stop_ends_optimize_and_leaves_ask_tell_working(caplog: Any) -> None:
    study = optuna.create_study(
        sampler=PatternSearchSampler(seed=1, resolution=0.01, on_converged="stop")
    )
    study.optimize(objective, n_trials=500)
    n = len(study.trials)
    assert n < 200
    assert "psms:pfc" in study.trials[-1].user_attrs or any(
        "psms:pfc" in t.user_attrs for t in study.trials[-3:]
    )
    # Ask-and-tell users go on without error (the study cannot be stopped there).
    for _ in range(5):
        trial = study.ask()
        study.tell(trial, objective(trial))
    assert len(study.trials) == n + 5
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    # A later optimize call stops at once again (after one trial).
    study.optimize(objective, n_trials=50)
    assert len(study.trials) <= n + 5 + 2


_WORKER = textwrap.dedent(
    """
    import sys, time, optuna
    sys.path.insert(0, {repo!r})
    from tests.samplers import make
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend({path!r}))
    study = optuna.load_study(study_name="s", storage=storage, sampler=make({name!r}, seed=0))

    def objective(trial):
        x = trial.suggest_float("x", -5, 5)
        y = trial.suggest_float("y", -5, 5)
        time.sleep(0.02)
        return (x - 1.0) ** 2 + (y + 2.0) ** 2

    study.optimize(objective, n_trials={n})
    """
)


def run_four_processes(name: str, path: str, n_each: int) -> optuna.Study:
    """Four worker processes on one journal file, each running ``n_each`` trials."""
    storage = optuna.storages.JournalStorage(JournalFileBackend(path))
    optuna.create_study(study_name="s", storage=storage)
    script = _WORKER.format(repo=REPO, path=path, name=name, n=n_each)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=REPO) for _ in range(4)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    return optuna.load_study(study_name="s", storage=storage)


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_four_processes_on_one_journal_file(tmp_path: Any) -> None:
    study = run_four_processes("pattern", str(tmp_path / "journal.log"), 20)
    recs = [_records.load(t.system_attrs) for t in study.trials]
    assert len(recs) == 80 and all(r is not None for r in recs)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    # Trial n of a run is pattern column (n - rs - 1) % 4 of sweep (n - rs - 1) // 4 + 1,
    # whatever the number of workers: no point of a sweep is skipped or asked twice.
    seen = set()
    for t, rec in zip(study.trials, recs):
        assert rec is not None
        if not rec["x"]:
            continue  # trial 0 was asked before any parameter existed
        i = t.number - rec["rs"]
        expected = (0, 0) if i == 0 else ((i - 1) // 4 + 1, (i - 1) % 4)
        assert (rec["g"], rec["m"]) == expected
        assert (rec["r"], rec["g"], rec["m"]) not in seen
        seen.add((rec["r"], rec["g"], rec["m"]))
        if i > 0 and "explore" not in rec["info"]:
            assert rec["info"]["step"] <= 0.5
    assert study.best_value < 0.5


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.0, 1.0), st.sampled_from([0, 0, 1, 2, 3, 7, 10])),
        min_size=1,
        max_size=32,
    )
)
def test_point_key_fast_path_equals_numpy_path(pairs: list[tuple[float, int]]) -> None:
    from optuna_psms.samplers.core.pattern import _point_key_numpy
    from optuna_psms.samplers.core.pattern import _point_key_small

    x = np.array([p[0] for p in pairs])
    cells = np.array([p[1] for p in pairs], dtype=np.int64)
    assert _point_key_small(x, cells) == _point_key_numpy(x, cells)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-0.5, 1.5), st.sampled_from([0, 0, 1, 2, 3, 7, 10])),
        min_size=1,
        max_size=40,
    )
)
def test_snap_values_equals_snap(pairs: list[tuple[float, int]]) -> None:
    from optuna_psms.samplers.core.pattern import _snap_numpy
    from optuna_psms.samplers.core.pattern import snap
    from optuna_psms.samplers.core.pattern import snap_values

    x = np.array([p[0] for p in pairs])
    cells = np.array([p[1] for p in pairs], dtype=np.int64)
    fast = snap_values(x.tolist(), cells.tolist())
    reference = _snap_numpy(x, cells)
    assert np.array(fast).tobytes() == reference.tobytes()  # same floats, bit for bit
    assert snap(x, cells).tobytes() == reference.tobytes()  # whichever path snap takes


def _half_failed_sweep(fresh: bool) -> dict[str, Any]:
    """2-D: centre told, sweep 1 running, two of its four points told worse; the params of
    the next trial, asked by the same sampler or by one made anew from the storage."""
    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=PatternSearchSampler(seed=5))

    def ask(s: optuna.Study) -> optuna.Trial:
        trial = s.ask()
        trial.suggest_float("x", -1, 1)
        trial.suggest_float("y", -1, 1)
        return trial

    centre = ask(study)
    study.tell(centre, 0.0)
    sweep = [ask(study) for _ in range(4)]
    study.tell(sweep[0], 1.0)
    study.tell(sweep[3], 1.0)
    if fresh:
        study = optuna.load_study(
            study_name=study.study_name, storage=storage, sampler=PatternSearchSampler()
        )
    trial = ask(study)
    return {**trial.params, "step": study.trials[-1].user_attrs["psms:step"]}


def test_a_sampler_made_anew_with_running_trials_proposes_the_same() -> None:
    again = _half_failed_sweep(fresh=True)
    assert again == _half_failed_sweep(fresh=False)
    assert again["step"] == 0.25  # half of sweep 1 failed, two points still running
