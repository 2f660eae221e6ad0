"""``compare --workers-sim W``: each study run as W asynchronous workers sharing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms.cli import main
from optuna_psms.compare import compare_samplers
from optuna_psms.compare import ComparisonError


def _watching(seen: list[int]) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        study = trial.study
        seen.append(len(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))))
        return trial.suggest_float("x", -3, 3) ** 2

    return objective


def test_each_study_keeps_w_trials_running() -> None:
    seen: list[int] = []
    result = compare_samplers(
        _watching(seen), "pso", n_seeds=1, n_trials=10, baseline=None, workers_sim=4
    )
    (study,) = result.studies["pso"]
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] * 10
    assert seen == [1, 2, 3] + [4] * 7  # the sampler saw 3 other trials running at each ask
    assert study.user_attrs["compare:workers_sim"] == 4


def test_one_simulated_worker_is_the_sequential_comparison() -> None:
    kwargs: dict[str, Any] = {"dim": 2, "n_seeds": 1, "n_trials": 8, "baseline": None}
    plain = compare_samplers("sphere", "afgs", **kwargs)
    one = compare_samplers("sphere", "afgs", workers_sim=1, **kwargs)
    assert [t.value for t in plain.studies["afgs"][0].trials] == [
        t.value for t in one.studies["afgs"][0].trials
    ]


@pytest.mark.slow  # > 2 s under load on 28 Nov 2026 (SQLite)
def test_resume_needs_the_same_workers_sim(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    kwargs: dict[str, Any] = {"dim": 2, "n_seeds": 1, "baseline": None, "storage": url}
    compare_samplers("sphere", "random", n_trials=3, workers_sim=2, **kwargs)
    with pytest.raises(ComparisonError, match="--workers-sim 2, not 1"):
        compare_samplers("sphere", "random", n_trials=5, resume=True, **kwargs)
    more = compare_samplers("sphere", "random", n_trials=5, resume=True, workers_sim=2, **kwargs)
    assert len(more.studies["random"][0].trials) == 5
    with pytest.raises(ComparisonError, match="workers_sim must be"):
        compare_samplers("sphere", "random", n_trials=3, workers_sim=0, **kwargs)


def test_an_objective_error_leaves_nothing_running() -> None:
    def objective(trial: optuna.Trial) -> float:
        if trial.number == 5:
            raise RuntimeError("boom")
        return trial.suggest_float("x", 0, 1)

    with pytest.raises(ComparisonError, match="boom"):
        compare_samplers(objective, "random", n_seeds=1, n_trials=9, baseline=None, workers_sim=3)


def test_cli_rejects_zero_workers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", "--function", "sphere", "--samplers", "random", "--workers-sim", "0"]
    code = main([*argv, "--no-progress-bar"])
    assert code == 2
    assert "--workers-sim must be at least 1" in capsys.readouterr().err
