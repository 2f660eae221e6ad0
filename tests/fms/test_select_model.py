"""select_model: the workflow of ``optuna-psms select`` from Python, with its typed settings."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_diabetes

from optuna_psms.fms import select_model
from optuna_psms.fms import SelectSettings


optuna.logging.set_verbosity(optuna.logging.WARNING)
QUICK: dict[str, Any] = {"n_trials": 4, "ensemble_top": 1, "final_check": None, "seed": 0}


def _cancer(rows: int = 200) -> tuple[Any, Any]:
    X, y = load_breast_cancer(return_X_y=True)
    return X[:rows], y[:rows]


def test_held_out_rows_are_scored_and_the_model_is_refitted_on_all_rows() -> None:
    X, y = _cancer()
    selection = select_model(X, y, SelectSettings(**QUICK))
    assert selection.task == "classification" and selection.metric == "ber"
    assert selection.held_out is not None and selection.held_out[0] == "ber"
    assert 0 <= selection.held_out[1] <= 1 and 0 <= selection.cv_loss <= 1
    # The search saw the search rows only; the saved model all of them.
    assert selection.study.user_attrs.get("fms:n_samples", 150) == 150
    assert selection.model.n_features_in_ == X.shape[1]
    assert len(selection.model.predict(X)) == len(y)


def test_no_hold_out_gives_no_held_out_estimate() -> None:
    X, y = _cancer(120)
    selection = select_model(X, y, SelectSettings(**{**QUICK, "test_size": 0}))
    assert selection.held_out is None


def test_a_continuous_target_is_a_regression() -> None:
    X, y = load_diabetes(return_X_y=True)
    selection = select_model(X[:150], y[:150], SelectSettings(n_trials=3, seed=1))
    assert selection.task == "regression" and selection.held_out is not None
    assert selection.held_out[0] == "rmse" and np.isfinite(selection.held_out[1])


@pytest.mark.slow  # two searches on SQLite (about 6 s)
def test_a_named_study_in_a_storage_is_continued(tmp_path: pathlib.Path) -> None:
    X, y = _cancer(120)
    url = f"sqlite:///{tmp_path / 'fms.db'}"
    settings = SelectSettings(**{**QUICK, "storage": url, "study_name": "s", "n_trials": 3})
    select_model(X, y, settings)
    again = select_model(X, y, settings)
    assert len(again.study.trials) == 6


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"n_trials": 0}, "n_trials must be at least 1"),
        ({"n_trials": None}, "give n_trials or timeout"),
        ({"cv": 1}, "cv must be an integer of at least 2"),
        ({"test_size": 1.0}, r"test_size must be in \[0, 1\)"),
        ({"subsample": 0}, r"subsample must be in \(0, 1\]"),
        ({"final_check": "grid"}, "final_check must be 'svc' or None"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"timeout": -5}, "timeout must be a positive number"),
        ({"n_jobs": 0}, "n_jobs must be a positive integer or -1"),
    ],
)
def test_bad_settings_are_one_line_errors_naming_the_setting(
    bad: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match) as info:
        SelectSettings(**bad)
    assert "\n" not in str(info.value)


@pytest.mark.slow  # a CLI run and a library run of the same search (about 15 s)
def test_the_library_gives_the_held_out_figure_the_command_prints(
    tmp_path: pathlib.Path,
) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    selection = select_model(X, y, SelectSettings(n_trials=5, seed=0, final_check=None))
    out = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--dataset",
         "sklearn:breast_cancer", "--n-trials", "5", "--seed", "0", "--final-check", "none",
         "--storage", f"sqlite:///{tmp_path / 'cli.db'}", "--output",
         str(tmp_path / "model.joblib"), "--no-progress-bar"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    printed = re.search(r"^held-out ber .*: ([0-9.]+)$", out, re.M)
    assert printed is not None, out
    assert selection.held_out is not None
    assert printed.group(1) == f"{selection.held_out[1]:.4f}"
