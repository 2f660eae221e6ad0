"""The fixed high-dimensional benchmark and the RSDU Tables 4-5 script
(docs/reproduce/rsdu_table4.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import fms_highdim
import optuna
import pytest

from optuna_psms.fms import make_objective


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


pytest.importorskip("xgboost")


def _table4() -> Any:
    path = Path(__file__).parent / "rsdu_table4.py"
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
    samplers = ["random", "drs", "pso", "ga"]
    assert module.main([*argv, "--samplers", *samplers, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["sampler"] for r in rows] == samplers
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


def _row(name: str, seed: int, sampler: str, acc: float, ms: float) -> dict[str, Any]:
    return {
        "set": name,
        "seed": seed,
        "sampler": sampler,
        "test_acc": acc,
        "cv_acc": acc,
        "test_ber": 1.0 - acc,
        "sampler_cpu_ms": ms,
        "sampler_ms": ms,
        "fit_s": 0.1,
        "trial_cpu_s": 0.2,
        "trial_s": 0.2,
        "wall_s": 2.0,
    }


def test_paired_counts_wins_ties_losses_over_shared_runs() -> None:
    module = _table4()
    rows = [
        _row("a", 0, "drs", 0.9, 2.0),
        _row("a", 0, "random", 0.8, 4.0),
        _row("a", 1, "drs", 0.7, 2.0),
        _row("a", 1, "random", 0.8, 4.0),
        _row("b", 0, "drs", 0.5, 2.0),
        _row("b", 0, "random", 0.5, 4.0),
        _row("b", 1, "drs", 0.6, 2.0),  # no random row: not paired
    ]
    acc = module.paired(rows, "drs", "random", "test_acc", True)
    assert (acc["n"], acc["wins"], acc["ties"], acc["losses"]) == (3, 1, 1, 1)
    assert acc["mean_diff"] == pytest.approx(0.0)
    ber = module.paired(rows, "drs", "random", "test_ber", False)
    assert (ber["wins"], ber["ties"], ber["losses"]) == (1, 1, 1)
    ms = module.paired(rows, "drs", "random", "sampler_cpu_ms", False)
    assert (ms["wins"], ms["losses"]) == (3, 0) and 0.0 < ms["p"] <= 1.0
    same = module.paired(rows[4:6], "drs", "random", "test_acc", True)
    assert same["ties"] == 1 and same["p"] != same["p"]  # nan: no nonzero difference


def test_friedman_uses_runs_all_samplers_have() -> None:
    module = _table4()
    rows = [
        _row(s, d, m, acc, 1.0)
        for s, d in [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
        for m, acc in [("random", 0.8), ("drs", 0.85), ("tpe", 0.9)]
    ]
    rows.append(_row("c", 0, "drs", 0.5, 1.0))
    res = module.friedman(rows, ["random", "drs", "tpe"], "test_acc")
    assert res["n"] == 4 and 0.0 < res["p"] < 0.05
    two = module.friedman(rows, ["random", "drs"], "test_acc")["p"]
    assert two != two  # nan: Friedman needs three samplers


def test_from_log_reads_several_files_first_row_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = _table4()
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    rows = [_row("a", 0, m, 0.8, 1.0) for m in ("random", "drs", "tpe")]
    first.write_text("noise\n" + "".join("row " + json.dumps(r) + "\n" for r in rows))
    later = [_row("a", 0, "drs", 0.1, 1.0), _row("a", 1, "drs", 0.9, 1.0)]
    second.write_text("".join("row " + json.dumps(r) + "\n" for r in later))
    assert module.main(["--from-log", str(first), str(second)]) == 0
    text = capsys.readouterr().out
    assert "2 studies of drs" in text and "1 studies of tpe" in text
    assert "drs vs random" in text
    assert "| a | 0.8000 | 0.8500 | 0.8000 |" in text  # drs: mean of 0.8 (seed 0) and 0.9


def test_from_log_defaults_to_every_sampler_in_the_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows of five samplers in two files (as docs/data's protocol rows): the table has a
    column per sampler in SAMPLERS order, RSDU is paired against each of the other four,
    and the Friedman test counts only the (set, seed) runs all five have."""
    module = _table4()
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    accs = {"random": 0.80, "drs": 0.82, "tpe": 0.84, "pso": 0.78, "ga": 0.86}
    rows = [_row("a", d, m, accs[m] + 0.01 * d, 1.0) for d in range(3) for m in accs]
    old = [r for r in rows if r["sampler"] in ("random", "drs", "tpe")]
    pso = {("pso", 0), ("pso", 1)}  # pso seed 2 missing
    new = [r for r in rows if r["sampler"] == "ga" or (r["sampler"], r["seed"]) in pso]
    first.write_text("".join("row " + json.dumps(r) + "\n" for r in old))
    second.write_text("".join("row " + json.dumps(r) + "\n" for r in new))
    assert module.main(["--from-log", str(second), str(first)]) == 0
    text = capsys.readouterr().out
    assert "| set | random | drs | tpe | pso | ga |" in text
    for other in ("random", "tpe", "pso", "ga"):
        assert f"drs vs {other}" in text
    # held-out accuracy: drs beats random and pso, loses to tpe and ga on every run
    line = next(x for x in text.splitlines() if x.startswith("| held-out accuracy"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1].startswith("3/0/0 of 3") and cells[2].startswith("0/0/3 of 3")
    assert cells[3].startswith("2/0/0 of 2") and cells[4].startswith("0/0/3 of 3")
    assert cells[5].startswith("n = 2")
    assert module.main(["--from-log", str(first), str(second), "--samplers", "drs", "ga"]) == 0
    text = capsys.readouterr().out
    assert "| set | drs | ga |" in text and "drs vs tpe" not in text


def test_ga_is_nsga2_with_the_papers_population() -> None:
    module = _table4()
    sampler = module.make_rsdu_sampler("ga", 0, 200)
    assert isinstance(sampler, optuna.samplers.NSGAIISampler)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2, n_trials=module.GA_POPULATION + 1)
    generations = [t.system_attrs.get("NSGAIISampler:generation") for t in study.trials]
    assert generations == [0] * module.GA_POPULATION + [1]
    with pytest.raises(ValueError, match="choose one of"):
        module.make_rsdu_sampler("fsgs", 0, 200)
