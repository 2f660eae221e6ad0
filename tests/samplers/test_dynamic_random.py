"""Random search with dynamic updating: the paper's update rules, the strategy, the sampler."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState
import pytest

from optuna_psms import DynamicRandomSampler
from optuna_psms.samplers import _records
from optuna_psms.samplers import _space
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.dynamic_random import DynamicRandomSettings
from optuna_psms.samplers.core.dynamic_random import DynamicRandomStrategy
from optuna_psms.samplers.core.dynamic_random import initial_distribution
from optuna_psms.samplers.core.dynamic_random import sample_distribution
from optuna_psms.samplers.core.dynamic_random import select_elite
from optuna_psms.samplers.core.dynamic_random import update_distribution
from optuna_psms.samplers.core.rng import hash_uniform
from optuna_psms.samplers.core.rng import trial_rng
from tests.samplers.test_eda import check_resume_across_restarts
from tests.samplers.test_eda import run_in_processes


FLAG = Dim("f", "categorical", 2)
REAL = Dim("r", "float", 0)


def rec(number: int, x: list[float], loss: float | None) -> Record:
    return Record(number, number, -1, np.array(x), loss=loss)


# --------------------------------------------------------------------------- update rules
def test_initial_distribution_includes_with_probability_one_half() -> None:
    dist = initial_distribution(3, [REAL, FLAG, Dim("c", "categorical", 4)])
    np.testing.assert_array_equal(dist.low, [0, 0, 0])
    np.testing.assert_array_equal(dist.high, [1, 1, 1])
    assert dist.probs[0] is None
    assert dist.include_probability(1) == 0.5
    np.testing.assert_allclose(dist.probs[2], [0.25] * 4)  # type: ignore[arg-type]
    assert not dist.muted


def test_elite_is_the_top_half_of_finished_trials() -> None:
    losses = np.array([4.0, math.inf, 1.0, 3.0, 2.0, 2.0])
    np.testing.assert_array_equal(select_elite(losses), [2, 4, 5])  # ties: lower index first
    np.testing.assert_array_equal(select_elite(losses[:5]), [2, 4, 3])  # ceil(5 / 2) = 3
    np.testing.assert_array_equal(select_elite(np.array([math.inf, 1.0])), [1])


def test_bounds_become_the_elite_min_and_max() -> None:
    # 8 trials, elite = 4 best (losses 1..4): rows 1, 3, 5, 6.
    x = np.array(
        [
            [0.05, 0.9],
            [0.30, 0.6],
            [0.95, 0.1],
            [0.42, 0.2],
            [0.00, 1.0],
            [0.35, 0.55],
            [0.61, 0.4],
            [0.99, 0.0],
        ]
    )
    losses = np.array([7.0, 1.0, 6.0, 2.0, 8.0, 3.0, 4.0, 5.0])
    new = update_distribution(initial_distribution(2), x, losses)
    elite = x[[1, 3, 5, 6]]
    np.testing.assert_array_equal(new.low, elite.min(axis=0))
    np.testing.assert_array_equal(new.high, elite.max(axis=0))
    np.testing.assert_array_equal(new.low, [0.30, 0.2])
    np.testing.assert_array_equal(new.high, [0.61, 0.6])
    assert new.n_elite == 4
    rng = np.random.default_rng(0)
    draws = np.array([sample_distribution(new, (), rng) for _ in range(500)])
    assert np.all(draws >= new.low) and np.all(draws <= new.high)


def test_discrete_bounds_cover_the_elite_cells() -> None:
    k = Dim("k", "int", 10)  # cell c covers [c / 10, (c + 1) / 10)
    x = np.array([[0.35], [0.71], [0.05], [0.99]])
    new = update_distribution(initial_distribution(1, [k]), x, np.array([1.0, 2.0, 3.0, 4.0]), [k])
    assert new.low[0] == pytest.approx(0.3) and new.high[0] == pytest.approx(0.8)
    rng = np.random.default_rng(0)
    cells = {int(sample_distribution(new, [k], rng)[0] * 10) for _ in range(300)}
    assert cells == {3, 4, 5, 6, 7}  # every value between the elite's min and max


def test_categorical_probabilities_are_elite_frequencies() -> None:
    c = Dim("c", "categorical", 3)
    centres = [(i + 0.5) / 3 for i in range(3)]
    x = np.array([[centres[i]] for i in (0, 0, 2, 0, 1, 1, 1, 1)])
    losses = np.arange(8, dtype=float)  # elite: rows 0..3 -> choices 0, 0, 2, 0
    new = update_distribution(initial_distribution(1, [c]), x, losses, [c])
    np.testing.assert_allclose(new.probs[0], [0.75, 0.0, 0.25])  # type: ignore[arg-type]
    rng = np.random.default_rng(1)
    draws = [int(sample_distribution(new, [c], rng)[0] * 3) for _ in range(2000)]
    assert 1 not in draws  # a choice absent from the elite is never drawn again
    assert draws.count(2) / len(draws) == pytest.approx(0.25, abs=0.03)


def test_flags_under_the_muting_threshold_are_muted_for_good() -> None:
    dims = [FLAG, FLAG, REAL]
    off, on = 0.25, 0.75  # centres of choice 0 ("exclude") and 1 ("include")
    # Elite (4 best of 8): flag 0 included in 0/4 (muted), flag 1 in 1/4 = 0.25 (kept).
    x = np.array(
        [[off, on, 0.1], [off, off, 0.2], [off, off, 0.3], [off, off, 0.4]] + [[on, on, 0.9]] * 4
    )
    losses = np.arange(8, dtype=float)
    d1 = update_distribution(initial_distribution(3, dims), x, losses, dims)
    assert d1.muted == frozenset({0})
    assert d1.include_probability(0) == 0.0
    assert d1.include_probability(1) == 0.25  # not under 0.25: not muted
    # The next elite includes flag 0 everywhere: it stays muted; flag 1 at 0 gets muted.
    x2 = np.array([[on, off, 0.25]] * 4 + [[off, on, 0.3]] * 4)
    d2 = update_distribution(d1, x2, losses, dims)
    assert d2.muted == frozenset({0, 1})
    assert d2.include_probability(0) == 0.0 and d2.include_probability(1) == 0.0
    rng = np.random.default_rng(2)
    for _ in range(200):
        u = sample_distribution(d2, dims, rng)
        assert u[0] == off and u[1] == off
    # muting_threshold=0 disables muting (frequency 0 still never draws "include").
    d3 = update_distribution(initial_distribution(3, dims), x, losses, dims, muting_threshold=0)
    assert not d3.muted


def test_collapse_detection() -> None:
    dims = [REAL, FLAG, Dim("k", "int", 5)]
    x = np.array([[0.5, 0.75, 0.5]] * 4)
    d = update_distribution(initial_distribution(3, dims), x, np.arange(4.0), dims)
    assert d.collapsed(dims, 0.01)
    x[0, 0] = 0.52
    d = update_distribution(initial_distribution(3, dims), x, np.arange(4.0), dims)
    assert not d.collapsed(dims, 0.01) and d.collapsed(dims, 0.05)
    assert not initial_distribution(3, dims).collapsed(dims, 0.01)


# --------------------------------------------------------------------------- strategy
def _batch(s: DynamicRandomStrategy, start: int, f: Any, seed: int = 0) -> None:
    for number in range(start, start + s.batch_size):
        p = s.ask(number, trial_rng(seed, number))
        s.tell(Record(number, p.member, p.generation, p.x, loss=f(p.x)))


def test_strategy_batches_update_from_the_previous_batch() -> None:
    s = DynamicRandomStrategy(2, 0, settings=DynamicRandomSettings(batch_size=10))
    _batch(s, 0, lambda x: float(np.sum((x - 0.3) ** 2)))
    d1 = s.distribution(1)
    records = s.finished_records(0)
    xs = np.array([r.x for r in records])
    losses = np.array([r.loss for r in records], dtype=float)
    elite = xs[np.argsort(losses, kind="stable")[:5]]
    np.testing.assert_array_equal(d1.low, elite.min(axis=0))
    np.testing.assert_array_equal(d1.high, elite.max(axis=0))
    p = s.ask(13, trial_rng(0, 13))
    assert (p.member, p.generation) == (3, 1)
    assert p.display == {"batch": 1, "sample": 3}
    assert p.info == {"fit_batch": 0, "fit_n": 10, "n_elite": 5, "muted": 0}
    assert np.all(p.x >= d1.low) and np.all(p.x <= d1.high)


def test_strategy_is_order_insensitive() -> None:
    dims = [REAL, FLAG]
    rng = np.random.default_rng(4)
    recs = [
        rec(i, [float(rng.uniform()), float(rng.choice([0.25, 0.75]))], float(rng.uniform()))
        for i in range(30)
    ]
    a = DynamicRandomStrategy(2, 0, settings=DynamicRandomSettings(batch_size=10), dims=dims)
    b = DynamicRandomStrategy(2, 0, settings=DynamicRandomSettings(batch_size=10), dims=dims)
    for r in recs:
        a.tell(Record(r.number, r.member, -1, r.x, loss=None))
        a.tell(r)
    shuffled = list(recs)
    random.Random(1).shuffle(shuffled)
    for r in shuffled:
        b.tell(r)
    for number in (30, 31, 39):
        np.testing.assert_array_equal(
            a.ask(number, trial_rng(0, number)).x, b.ask(number, trial_rng(0, number)).x
        )


def test_too_few_finished_keeps_the_distribution() -> None:
    s = DynamicRandomStrategy(1, 0, settings=DynamicRandomSettings(batch_size=10))
    for i in range(4):
        s.tell(rec(i, [0.1 * i], float(i)))
    assert s.distribution(1).source == -1  # 4 of 10 finished: batch 1 reuses batch 0's
    s.tell(rec(4, [0.4], 4.0))
    assert s.distribution(1).source == 0  # 5 of 10: updated from them
    np.testing.assert_allclose([s.distribution(1).low[0], s.distribution(1).high[0]], [0, 0.2])


def test_run_ends_after_its_batches_or_when_collapsed() -> None:
    s = DynamicRandomStrategy(1, 50, settings=DynamicRandomSettings(batch_size=4, n_batches=2))
    assert s.budget() == 8
    _batch(s, 50, lambda x: float(x[0]))
    assert not s.converged()
    _batch(s, 54, lambda x: float(x[0]))
    assert s.converged()
    c = DynamicRandomStrategy(
        1, 0, settings=DynamicRandomSettings(batch_size=4, n_batches=None), dims=[FLAG]
    )
    assert c.budget() is None
    for i, u in enumerate((0.75, 0.25, 0.75, 0.25)):  # the elite excludes: flag muted
        c.tell(rec(i, [u], float(u > 0.5)))
    assert c.distribution(1).muted == frozenset({0}) and c.converged()


# --------------------------------------------------------------------------- sampler
def feature_objective(trial: optuna.Trial) -> float:
    """Five useful features, five harmful ones and one hyperparameter."""
    loss = (trial.suggest_float("lr", 1e-4, 1.0, log=True) - 0.01) ** 2
    for i in range(10):
        include = trial.suggest_categorical(f"f{i}", [False, True])
        loss += (-1.0 if include else 0.0) if i < 5 else (1.0 if include else 0.0)
    return loss


def replay(study: optuna.Study, batch_size: int) -> DynamicRandomStrategy:
    """A strategy fed with run 0 of a study, as the sampler saw it."""
    trials = study.trials
    names = sorted(trials[-1].distributions)
    dims = [_space.dim_of(n, trials[-1].distributions[n]) for n in names]
    s = DynamicRandomStrategy(
        len(names), 0, settings=DynamicRandomSettings(batch_size=batch_size), dims=dims
    )
    for t in trials:
        r = _records.load(t.system_attrs)
        assert r is not None
        if r["r"] != 0:
            continue
        seed = r["s"]
        x = [r["x"][n] if n in r["x"] else hash_uniform(seed, t.number, [n])[0] for n in names]
        s.tell(rec(t.number, x, t.value))
    return s


def test_sampler_mutes_harmful_features_and_they_never_return() -> None:
    study = optuna.create_study(sampler=DynamicRandomSampler(seed=3))
    study.optimize(feature_objective, n_trials=200)
    trials = study.trials
    assert study.best_value < -4.9
    names = sorted(trials[-1].distributions)
    strategy = replay(study, 40)
    previous: frozenset[int] = frozenset()
    for b in range(1, 5):
        muted = strategy.distribution(b).muted
        assert previous <= muted  # muting only accumulates
        previous = muted
        for t in trials[40 * b :]:
            rec_info = _records.load(t.system_attrs)["info"]  # type: ignore[index]
            assert rec_info["muted"] >= len(muted)
            for k in muted:
                assert t.params[names[k]] is False, (names[k], t.number)  # never returns
    harmful = {names.index(f"f{i}") for i in range(5, 10)}
    useful = {names.index(f"f{i}") for i in range(5)}
    assert len(previous & harmful) >= 4 and not previous & useful


def test_sampler_bounds_shrink_to_the_elite_of_the_previous_batch() -> None:
    study = optuna.create_study(sampler=DynamicRandomSampler(batch_size=20, seed=0))
    study.optimize(lambda t: (t.suggest_float("x", -10, 10) - 3) ** 2, n_trials=60)
    dist = FloatDistribution(-10, 10)
    for b in (1, 2):
        prev = study.trials[20 * (b - 1) : 20 * b]
        elite = sorted(prev, key=lambda t: (t.value, t.number))[:10]
        lo = min(_space.encode(t.params["x"], dist) for t in elite)
        hi = max(_space.encode(t.params["x"], dist) for t in elite)
        for t in study.trials[20 * b : 20 * (b + 1)]:
            assert lo - 1e-9 <= _space.encode(t.params["x"], dist) <= hi + 1e-9


def test_restart_after_the_papers_200_trials_with_pfc() -> None:
    study = optuna.create_study(sampler=DynamicRandomSampler(seed=0))
    study.optimize(feature_objective, n_trials=230)
    t200 = study.trials[200]
    assert t200.user_attrs["psms:converged_run"] == 0
    assert t200.user_attrs["psms:run_trials"] == 200
    assert t200.user_attrs["psms:pfc"] == 1.0
    assert t200.user_attrs["psms:run"] == 1 and t200.user_attrs["psms:batch"] == 0
    rec200 = _records.load(t200.system_attrs)
    assert rec200 is not None
    assert rec200["info"] == {"fit_batch": -1, "fit_n": 0, "n_elite": 0, "muted": 0, "run": 1}
    assert all("psms:pfc" not in t.user_attrs for t in study.trials[:200])


def test_early_collapse_restarts_with_pfc_under_one() -> None:
    def objective(trial: optuna.Trial) -> float:
        a = trial.suggest_categorical("a", ["x", "y", "z"])
        b = trial.suggest_categorical("b", [False, True])
        return {"x": 1.0, "y": 0.0, "z": 2.0}[a] + b

    study = optuna.create_study(sampler=DynamicRandomSampler(batch_size=10, seed=0))
    study.optimize(objective, n_trials=60)
    marks = [t for t in study.trials if "psms:pfc" in t.user_attrs]
    assert marks and marks[0].user_attrs["psms:pfc"] < 1.0
    assert marks[0].number % 10 == 0


def test_stop_ends_optimize_after_the_run_but_not_ask_and_tell() -> None:
    sampler = DynamicRandomSampler(seed=1, on_converged="stop")
    study = optuna.create_study(sampler=sampler)
    study.optimize(feature_objective, n_trials=1000)
    assert len(study.trials) == 201  # the trial that detects the end still runs
    for _ in range(50):
        trial = study.ask()
        study.tell(trial, feature_objective(trial))
    assert len(study.trials) == 251
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert all(t.user_attrs.get("psms:run", 0) == 0 for t in study.trials)


def test_trials_added_by_hand_join_their_batch() -> None:
    study = optuna.create_study(sampler=DynamicRandomSampler(batch_size=4, seed=0))
    dist = FloatDistribution(0, 1)
    for x in (0.8, 0.9):
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": x}, distributions={"x": dist}, value=(x - 0.85) ** 2
            )
        )
    study.optimize(lambda t: (t.suggest_float("x", 0, 1) - 0.85) ** 2, n_trials=6)
    elite = sorted(study.trials[:4], key=lambda t: (t.value, t.number))[:2]
    assert {0, 1} & {t.number for t in elite}  # a hand-added trial is in batch 0's elite
    lo, hi = min(t.params["x"] for t in elite), max(t.params["x"] for t in elite)
    for t in study.trials[4:8]:  # batch 1 samples between the elite's min and max
        assert lo - 1e-9 <= t.params["x"] <= hi + 1e-9


def test_invalid_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        DynamicRandomSampler(batch_size=1)
    with pytest.raises(ValueError, match="n_batches"):
        DynamicRandomSampler(n_batches=0)
    with pytest.raises(ValueError, match="top_fraction"):
        DynamicRandomSampler(top_fraction=1.5)
    with pytest.raises(ValueError, match="muting_threshold"):
        DynamicRandomSampler(muting_threshold=-0.1)
    with pytest.raises(ValueError, match="convergence_threshold"):
        DynamicRandomSampler(convergence_threshold=-1)
    with pytest.raises(ValueError, match="on_converged"):
        DynamicRandomSampler(on_converged="later")


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_four_processes_share_one_batch_sequence(tmp_path: Any) -> None:
    size = 10
    factory = (
        f"optuna_psms.DynamicRandomSampler(batch_size={size}, n_batches=None, "
        "convergence_threshold=0.0, seed=5)"
    )
    study = run_in_processes(tmp_path, factory)
    trials = study.trials
    assert len(trials) == 60 and all(t.state == TrialState.COMPLETE for t in trials)
    recs = [_records.load(t.system_attrs) for t in trials]
    slots = sorted((r["g"], r["m"]) for r in recs if r is not None)
    assert slots == sorted(divmod(n, size) for n in range(60))
    dist = FloatDistribution(-5, 5)
    for r in recs:
        assert r is not None
        b, info = r["g"], r["info"]
        assert info["fit_batch"] < b
        if info["fit_batch"] == b - 1 and b >= 1 and info["fit_n"] == size:
            # Updated from the whole previous batch: inside its elite's bounds.
            prev = [u for u in trials if u.number // size == b - 1]
            elite = sorted(prev, key=lambda u: (u.value, u.number))[: size // 2]
            for name in ("x0", "x1", "x2"):
                if name in r["x"]:
                    lo = min(_space.encode(u.params[name], dist) for u in elite)
                    hi = max(_space.encode(u.params[name], dist) for u in elite)
                    assert lo - 1e-9 <= r["x"][name] <= hi + 1e-9
        elif b >= 1 and info["fit_batch"] >= 0:
            assert info["fit_n"] >= size // 2  # updated from at least half of the batch
    # Whether a worker saw a whole batch finished depends on scheduling; a fresh process
    # asking trial 60 after all 60 finished always does, so the elite bound is checked there.
    fresh = optuna.load_study(
        study_name="s",
        storage=study._storage,
        sampler=DynamicRandomSampler(
            batch_size=size, n_batches=None, convergence_threshold=0.0, seed=5
        ),
    )
    fresh.optimize(
        lambda t: sum((t.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(3)),
        n_trials=1,
    )
    last = _records.load(fresh.trials[-1].system_attrs)
    assert last is not None and last["g"] == 6
    assert last["info"]["fit_batch"] == 5 and last["info"]["fit_n"] == size
    elite = sorted(trials[50:60], key=lambda u: (u.value, u.number))[: size // 2]
    assert last["x"], "no coordinate was sampled from the updated bounds"
    for name in last["x"]:  # a muted coordinate is not stored
        lo = min(_space.encode(u.params[name], dist) for u in elite)
        hi = max(_space.encode(u.params[name], dist) for u in elite)
        assert lo - 1e-9 <= last["x"][name] <= hi + 1e-9


def test_resume_in_fresh_process_across_restarts(tmp_path: Any) -> None:
    factory = "optuna_psms.DynamicRandomSampler(batch_size=6, n_batches=3, seed=2)"
    check_resume_across_restarts(tmp_path, factory, 41, 40)
