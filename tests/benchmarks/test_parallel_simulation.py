"""The simulation of asynchronous workers: w trials running, told in finishing order, the same
clock for every sampler, and one worker is the sequential benchmark exactly."""

from __future__ import annotations

from collections.abc import Callable
import json
from pathlib import Path

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms.benchmarks import parallel


cocoex = pytest.importorskip("cocoex", reason="coco-experiment (the bench extra) is missing")


def _objective(study: optuna.Study, seen: list[int]) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        # What a worker's objective sees: every running trial, its own included.
        seen.append(len(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))))
        return trial.suggest_float("x", -5, 5) ** 2 + trial.suggest_float("y", -5, 5) ** 2

    return objective


@pytest.mark.parametrize("kind", parallel.DURATIONS)
@pytest.mark.parametrize("workers", [1, 3, 8])
def test_w_trials_run_at_once_and_finish_in_order(kind: str, workers: int) -> None:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    seen: list[int] = []
    trials = 20
    d = parallel.durations(kind, 3, trials)
    sim = parallel.simulate(study, _objective(study, seen), trials, workers, d)
    # Slots fill at time 0, then every tell frees one that is filled at once until the
    # trials run out: w running at every ask after the start.
    assert seen == [min(k + 1, workers) for k in range(trials)]
    assert sim.running_at_ask == [k - 1 for k in seen]
    # Told in finishing order; each trial ends its duration after the tell that freed its slot.
    assert sim.times == sorted(sim.times) and sorted(sim.numbers) == list(range(trials))
    end = dict(zip(sim.numbers, sim.times))
    starts = [0.0] * workers + sim.times[: trials - workers]
    assert [end[n] for n in range(trials)] == pytest.approx([s + x for s, x in zip(starts, d)])
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert [study.trials[n].value for n in sim.numbers] == sim.values


def test_equal_durations_tie_by_trial_number() -> None:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    sim = parallel.simulate(study, lambda t: t.suggest_float("x", 0, 1), 8, 4, [1.0] * 8)
    assert sim.numbers == list(range(8)) and sim.times == [1.0] * 4 + [2.0] * 4


def test_durations_depend_on_the_seed_only() -> None:
    for kind in parallel.DURATIONS:
        long, short = parallel.durations(kind, 7, 50), parallel.durations(kind, 7, 10)
        assert long[:10] == short and min(long) > 0
    assert parallel.durations("lognormal", 1, 5) != parallel.durations("lognormal", 2, 5)
    with pytest.raises(ValueError, match="durations must be one of"):
        parallel.durations("gamma", 0, 3)


def test_the_clock_is_the_same_for_every_sampler() -> None:
    from optuna_psms.benchmarks import bbob

    got = {s: bbob.run_one(s, 1, 2, 1, 24, 5, 4, "heavy") for s in ("random", "pso@budget")}
    assert got["random"][3] == got["pso@budget"][3]  # type: ignore[misc]  # end times
    assert got["random"][0] != got["pso@budget"][0]


@pytest.mark.parametrize("sampler", ["pso@budget", "afgs@budget", "pattern", "bumda", "tpe"])
def test_one_simulated_worker_is_the_sequential_run(sampler: str) -> None:
    from optuna_psms.benchmarks import bbob

    sequential = bbob.run_one(sampler, 3, 2, 1, 30, 1)
    simulated = bbob.run_one(sampler, 3, 2, 1, 30, 1, 1, "lognormal")
    assert simulated[:3] == sequential
    assert len(simulated[3]) == 30  # type: ignore[misc]


def test_an_objective_error_is_a_failed_trial() -> None:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial: optuna.Trial) -> float:
        if trial.number == 2:
            raise RuntimeError("boom")
        return trial.suggest_float("x", 0, 1)

    sim = parallel.simulate(study, objective, 5, 2, [1.0] * 5)
    assert study.trials[2].state == TrialState.FAIL and sim.values[sim.numbers.index(2)] is None


def test_bad_settings_are_one_line_errors() -> None:
    study = optuna.create_study()
    with pytest.raises(ValueError, match="n_workers must be >= 1"):
        parallel.simulate(study, lambda t: 0.0, 3, 0, [1.0] * 3)
    with pytest.raises(ValueError, match="need as many durations"):
        parallel.simulate(study, lambda t: 0.0, 3, 1, [1.0] * 2)


def test_best_at_reads_the_trace_at_a_time() -> None:
    assert parallel.best_at([3.0, 2.0, 1.0], [1.0, 2.0, 4.0], 0.5) == float("inf")
    assert parallel.best_at([3.0, 2.0, 1.0], [1.0, 2.0, 4.0], 2.0) == 2.0
    assert parallel.best_at([3.0, 2.0, 1.0], [1.0, 2.0, 4.0], 9.0) == 1.0


@pytest.mark.slow  # about 3 s under load on 28 Nov 2026
def test_workers_sim_table_and_its_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from optuna_psms.benchmarks import bbob

    out = tmp_path / "runs.json"
    argv = ["--samplers", "random", "pso", "--functions", "1,2", "--dim", "2", "--trials", "16"]
    argv += ["--seeds", "2", "--workers-sim", "1", "4", "--durations", "equal", "--json", str(out)]
    bbob.main(argv)
    printed = capsys.readouterr().out
    assert "| sampler | 1 worker | 4 workers | x(4 vs 1) |" in printed
    assert "| random | 1.000 | 1.000 | 1.00 |" in printed
    saved = json.loads(out.read_text())
    assert saved["meta"]["workers_sim"] == [1, 4] and saved["meta"]["durations"] == "equal"
    assert {r["workers"] for r in saved["runs"]} == {1, 4} and len(saved["runs"]) == 2 * 2 * 2 * 2
    four = [r for r in saved["runs"] if r["workers"] == 4]
    assert all(r["times"] == [1.0] * 4 + [2.0] * 4 + [3.0] * 4 + [4.0] * 4 for r in four)
    bbob.main(["--from-json", str(out)])
    assert capsys.readouterr().out == printed


def test_gp_is_a_benchmark_baseline_only_when_named() -> None:
    from optuna_psms.benchmarks import bbob
    from optuna_psms.samplers._registry import SAMPLERS

    assert isinstance(bbob.build_sampler("gp", 0, 10), optuna.samplers.GPSampler)
    assert "gp" not in SAMPLERS  # not in the default --samplers: it is slow


@pytest.mark.slow  # imports torch and fits a GP under 4 simulated workers
def test_gp_runs_under_simulated_workers() -> None:
    pytest.importorskip("torch")
    from optuna_psms.benchmarks import bbob

    got = bbob.run_one("gp", 1, 2, 1, 12, 0, 4, "equal")
    trace, times = got[0], got[-1]
    assert (
        isinstance(times, list)
        and len(trace) == len(times) == 12
        and trace == sorted(trace, reverse=True)
    )
