"""Tests of the ``optuna-psms`` command line."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import joblib
import numpy as np
import optuna
import pandas as pd
import pytest

from optuna_psms.cli import load_dataset
from optuna_psms.cli import main


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_select_bundled_dataset(tmp_path: Any, capsys: Any) -> None:
    db = tmp_path / "psms.db"
    model_path = tmp_path / "model.joblib"
    code, out, err = _run(
        [
            "select",
            "--dataset",
            "sklearn:iris",
            "--sampler",
            "random",
            "--n-trials",
            "4",
            "--seed",
            "0",
            "--storage",
            f"sqlite:///{db}",
            "--study-name",
            "iris-run",
            "--output",
            str(model_path),
            "--classifiers",
            "naive_bayes,logistic",
        ],
        capsys,
    )
    assert code == 0, err
    assert "Best pipeline (trial " in out and "CV ber on search data (2-fold): " in out
    assert "held-out ber (" in out
    assert "saved to" in out and model_path.exists()
    study = optuna.load_study(study_name="iris-run", storage=f"sqlite:///{db}")
    assert len(study.trials) == 4
    model = joblib.load(model_path)
    X, y = load_dataset("sklearn:iris")
    assert np.mean(model.predict(X) == y) > 0.8
    assert f"{study.best_value:.4f}" in out


def test_select_csv_with_default_storage(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    rng = np.random.default_rng(0)
    n = 60
    label = np.where(rng.random(n) < 0.5, "spam", "ham")
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n) + (label == "spam"),
            "kind": rng.choice(["a", "b"], n),
            "label": label,
        }
    )
    frame.to_csv(tmp_path / "data.csv", index=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(
        [
            "select",
            "--csv",
            "data.csv",
            "--target",
            "label",
            "--sampler",
            "tpe",
            "--n-trials",
            "3",
            "--classifiers",
            "naive_bayes",
            "--no-progress-bar",
        ],
        capsys,
    )
    assert code == 0, err
    assert (tmp_path / "psms.db").exists() and (tmp_path / "psms_model.joblib").exists()
    assert "sqlite:///psms.db" in out
    summaries = optuna.get_all_study_summaries("sqlite:///psms.db")
    assert len(summaries) == 1 and summaries[0].study_name.startswith("fms-data-")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--csv", "missing.csv", "--target", "y"], "CSV file not found: missing.csv"),
        (["--csv", "data.csv", "--target", "nope"], "column 'nope' not found in data.csv"),
        (["--csv", "data.csv"], "--csv needs --target"),
        (["--dataset", "sklearn:nope"], "unknown dataset 'sklearn:nope'"),
        (["--dataset", "keel:nope"], "unknown KEEL dataset 'nope'"),
        (["--dataset", "sklearn:iris", "--sampler", "nope"], "unknown sampler 'nope'"),
        (["--dataset", "sklearn:iris", "--metric", "nope"], "unknown metric 'nope'"),
        (["--dataset", "sklearn:iris", "--cv", "60"], "fewer than the 60"),
        (["--dataset", "sklearn:iris", "--classifiers", "svm"], "unknown classifier 'svm'"),
        (["--csv", "one_class.csv", "--target", "y"], "single class"),
    ],
)
def test_user_mistakes_give_one_line(
    tmp_path: Any, capsys: Any, monkeypatch: Any, argv: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"a": [1, 2, 3, 4], "y": [0, 1, 0, 1]}).to_csv("data.csv", index=False)
    pd.DataFrame({"a": [1, 2, 3, 4], "y": [1, 1, 1, 1]}).to_csv("one_class.csv", index=False)
    code, out, err = _run(["select", *argv, "--n-trials", "1", "--no-progress-bar"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("optuna-psms: error: "), err
    assert message in lines[0]
    assert "Traceback" not in err


def test_keel_dataset_loads_raw_table() -> None:
    X, y = load_dataset("keel:heart")
    assert X.shape == (270, 13) and set(np.unique(y)) == {1, 2}
    X2, y2 = load_dataset("keel:crx")
    assert isinstance(X2, pd.DataFrame) and X2["x0"].dtype == object  # string column
    assert set(np.unique(y2)) == {"negative", "positive"}


def test_datasets_command(capsys: Any) -> None:
    code, out, _ = _run(["datasets"], capsys)
    assert code == 0 and "sklearn:breast_cancer" in out and "keel:heart" in out


def test_console_script_entry_point(tmp_path: Any) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--dataset", "keel:nope"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "optuna-psms: error: unknown KEEL dataset 'nope'; run 'optuna-psms datasets' to list them"
    )
