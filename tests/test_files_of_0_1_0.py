"""What optuna-psms 0.1.0 wrote keeps working: its saved models predict identically and its
studies continue exactly (the files in tests/data/v0_1_0, made by its make.py with 0.1.0)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import joblib
import numpy as np
import optuna
import pytest

from optuna_psms import PSOSampler
from optuna_psms import UMDASampler


DATA = pathlib.Path(__file__).parent / "data" / "v0_1_0"


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_int("y", -5, 5)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return float((x - 1) ** 2 + (y + 2) ** 2 + (c != "b"))


@pytest.mark.parametrize("name,make", [("pso", PSOSampler), ("umda", UMDASampler)])
def test_a_0_1_0_study_continues_as_if_never_stopped(
    tmp_path: pathlib.Path, name: str, make: Any
) -> None:
    db = tmp_path / "study.db"
    shutil.copy(DATA / f"{name}_study.db", db)
    study = optuna.load_study(study_name=name, storage=f"sqlite:///{db}", sampler=make(seed=3))
    assert len(study.trials) == 15
    study.optimize(objective, n_trials=15)
    expected = json.loads((DATA / "studies_expected.json").read_text())[name]
    assert [t.params for t in study.trials] == expected


def test_models_saved_by_0_1_0_predict_identically() -> None:
    expected = json.loads((DATA / "models_expected.json").read_text())
    X_new = np.loadtxt(DATA / "new_rows.csv", delimiter=",")
    selector = joblib.load(DATA / "selector.joblib")
    assert selector.predict(X_new).tolist() == expected["selector_predict"]
    np.testing.assert_allclose(selector.predict_proba(X_new), expected["selector_proba"])
    regressor = joblib.load(DATA / "regressor.joblib")
    np.testing.assert_allclose(regressor.predict(X_new[:, 1:]), expected["regressor_predict"])


def test_the_cli_predicts_with_a_model_0_1_0_saved(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "predictions.csv"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "optuna_psms.cli",
            "predict",
            "--model",
            str(DATA / "cli_model.joblib"),
            "--csv",
            str(DATA / "cli_new.csv"),
            "--output",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    assert out.read_text() == (DATA / "cli_predictions.csv").read_text()
