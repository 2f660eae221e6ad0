"""The fixed high-dimensional benchmark and the RSDU Tables 4-5 script (docs/rsdu_table4.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import optuna
import pytest

from optuna_psms.benchmarks import fms_highdim
from optuna_psms.fms import make_objective


pytest.importorskip("xgboost")


def _table4() -> Any:
    path = Path(__file__).resolve().parent.parent / "docs" / "rsdu_table4.py"
    spec = importlib.util.spec_from_file_location("rsdu_table4", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_min_child_weight_range_scales_below_table2_rows() -> None:
    assert fms_highdim.min_child_weight_range(50) == (0, 3)
    assert fms_highdim.min_child_weight_range(10) == (0, 1)
    assert fms_highdim.min_child_weight_range(319) == (0, 19)
    assert fms_highdim.min_child_weight_range(320) == (1, 20)
    assert fms_highdim.min_child_weight_range(5000) == (1, 20)


def _params(min_child_weight: int) -> dict[str, Any]:
    xgb = {
        "n_estimators": 50,
        "max_depth": 3,
        "min_child_weight": min_child_weight,
        "max_delta_step": 0,
        "learning_rate": 0.3,
        "subsample": 1.0,
        "colsample_bytree": 1.0,
        "colsample_bylevel": 1.0,
        "colsample_bynode": 1.0,
        "gamma": 1e-4,
        "reg_alpha": 1e-4,
        "reg_lambda": 1.0,
        "base_score": 0.01,
        "scale_pos_weight": 1.0,
    }
    params: dict[str, Any] = {f"clf:xgboost:{k}": v for k, v in xgb.items()}
    params.update({f"fs:mask:b{j}": True for j in range(10)})
    return params


def test_fitting_space_learns_where_table2_range_cannot() -> None:
    """At 50 rows per fold and base_score 0.01 the root's hessian sum is ~0.5: XGBoost
    never leaves its prior with min_child_weight >= 1 (Table 2), and learns with 0."""
    X, y = fms_highdim.make_data(100, 200, informative=5, class_sep=2.0, seed=0)

    def ber(table2: bool, mcw: int) -> float:
        space = fms_highdim.mask_space(10, table2=table2, bias=False)
        objective = make_objective(X, y, space=space, cv=2, random_state=0)
        value = objective(optuna.trial.FixedTrial(_params(mcw)))
        assert isinstance(value, float)
        return value

    assert ber(table2=True, mcw=1) == 0.5
    assert ber(table2=False, mcw=0) < 0.3


def test_fitting_space_distribution_follows_fold_size() -> None:
    X, y = fms_highdim.make_data(100, 30, informative=5, class_sep=2.0, seed=0)
    objective = make_objective(X, y, space=fms_highdim.mask_space(None), cv=2, random_state=0)
    study = optuna.create_study()
    trial = study.ask()
    objective.space.suggest(trial, objective.context)
    dist = trial.distributions["clf:xgboost:min_child_weight"]
    assert (dist.low, dist.high) == (0, 3)  # type: ignore[attr-defined]
    assert len([p for p in trial.distributions if p.startswith("fs:mask:")]) == 30


def test_value_spread_counts_constant_predictions() -> None:
    spread = fms_highdim.value_spread([0.5, 0.5, 0.1, 0.3, float("nan")])
    assert spread["at_half"] == 0.5
    assert spread["q50"] == pytest.approx(0.4)


def test_timed_sampler_delegates_and_counts() -> None:
    module = _table4()

    def objective(trial: optuna.trial.Trial) -> float:
        flag = trial.suggest_categorical("f", [False, True])
        return trial.suggest_float("x", -1, 1) ** 2 + flag

    def params(sampler: optuna.samplers.BaseSampler) -> list[dict[str, Any]]:
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=20)
        return [t.params for t in study.trials]

    timed = module.TimedSampler(module.make_rsdu_sampler("drs", 0, 20))
    assert params(timed) == params(module.make_rsdu_sampler("drs", 0, 20))
    assert timed.seconds > 0 and timed.cpu_seconds >= 0


def test_rsdu_table4_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = _table4()
    out = tmp_path / "rows.json"
    argv = ["--sets", "sim200-2", "--trials", "4", "--seeds", "1", "--cv", "2"]
    assert module.main([*argv, "--samplers", "random", "drs", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["sampler"] for r in rows] == ["random", "drs"]
    for r in rows:
        assert 0.0 <= r["test_acc"] <= 1.0 and 0.0 <= r["test_ber"] <= 1.0
        assert r["sampler_ms"] > 0 and r["fit_s"] > 0 and r["trial_s"] >= r["fit_s"]
    text = capsys.readouterr().out
    assert "| sim200-2 |" in text and "held-out accuracy" in text


def test_summarize_storage_reads_a_cut_run(tmp_path: Path) -> None:
    path = str(tmp_path / "cut.db")
    study = optuna.create_study(storage=f"sqlite:///{path}")
    for value in (0.5, 0.2, 0.5, 0.1):
        study.add_trial(optuna.trial.create_trial(value=value))
    study.add_trial(optuna.trial.create_trial(state=optuna.trial.TrialState.FAIL))
    res = fms_highdim.summarize_storage(path)
    assert res["n_complete"] == 4 and res["best_value"] == 0.1 and res["at_half"] == 0.5
