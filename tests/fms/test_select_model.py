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

from optuna_psms._messages import InputError
from optuna_psms.fms import select_model
from optuna_psms.fms import SelectSettings
from optuna_psms.fms.select import SelectReport
from optuna_psms.fms.select import SelectStart


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
    # The search's own model, fitted on the search rows (all of them here).
    assert selection.search_model is not None and selection.search_model.study_ is not None


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


class _Recorder(SelectReport):
    """Records the events of the workflow, by name."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.start: SelectStart | None = None

    def started(self, start: SelectStart) -> None:
        self.events.append("started")
        self.start = start

    def chosen(self, choice: Any) -> None:
        self.events.append("chosen")

    def deferred(self, running: int) -> None:
        self.events.append(f"deferred {running}")

    def refitting(self, trial: Any, rows: str) -> None:
        self.events.append(f"refitting on {rows}")

    def final_check(self, model: Any) -> None:
        self.events.append("final_check")

    def held_out(self, score: Any) -> None:
        self.events.append("held_out" if score is not None else "no held_out")

    def refitted(self, model: Any, rows: int, trial: Any) -> str:
        self.events.append(f"refitted on {rows}")
        return "saved.joblib"


def test_the_report_hears_the_steps_in_order() -> None:
    X, y = _cancer()
    report = _Recorder()
    selection = select_model(X, y, SelectSettings(**QUICK), report=report)
    assert report.events == [
        "started",
        "chosen",
        "final_check",
        "held_out",
        "refitting on all 200 rows",
        "refitted on 200",
    ]
    assert report.start is not None
    assert report.start.line("cancer") == (
        f"Full model selection (classification) on cancer: 150 search rows, 50 held out; "
        f"sampler pso, 2-fold CV ber, seed 0; study '{selection.study_name}' in memory"
    )
    # The file the report saved to is noted in the study, as the command's saved model is.
    assert selection.study.user_attrs["fms:saved_model"]["file"] == "saved.joblib"
    assert selection.chosen is not None and selection.cv_loss == selection.chosen.value


@pytest.mark.slow  # three searches on SQLite (about 10 s)
def test_a_second_call_joins_the_study_as_a_second_worker(tmp_path: pathlib.Path) -> None:
    # The protocol of `optuna-psms select`'s workers: the same storage and study name join
    # one study, whose stored settings (the seed among them) every worker shares.
    X, y = _cancer(120)
    url = f"sqlite:///{tmp_path / 'fms.db'}"
    quick = {**QUICK, "seed": None, "storage": url, "study_name": "s", "n_trials": 2}
    first = select_model(X, y, SelectSettings(**quick))
    second = select_model(X, y, SelectSettings(**quick))
    assert second.seed == first.seed  # the study's seed, not a fresh one
    assert second.study_name == first.study_name == "s"
    assert len(second.study.trials) == 4 and second.held_out is not None
    # A worker of other settings is refused, naming the difference, before any trial runs.
    with pytest.raises(ValueError, match="cannot join study 's': it uses --cv 2") as info:
        select_model(X, y, SelectSettings(**{**quick, "cv": 3}))
    assert isinstance(info.value, InputError)
    # Another worker's trial still running: with leave_to_last_worker this one returns
    # without a model, as a command without --output leaves the save to the last worker.
    optuna.load_study(study_name="s", storage=url).ask()
    report = _Recorder()
    deferred = select_model(
        X, y, SelectSettings(**{**quick, "leave_to_last_worker": True}), report=report
    )
    assert deferred.model is None and deferred.running == 1
    assert report.events == ["started", "chosen", "deferred 1"]
    assert len(optuna.load_study(study_name="s", storage=url).trials) == 7


@pytest.mark.slow  # a CLI run and library runs of the same search (about 20 s)
def test_the_library_and_the_command_choose_alike_and_share_a_study(
    tmp_path: pathlib.Path,
) -> None:
    # One workflow: the command and select_model on the same data and seed choose the same
    # trial and print/return the same held-out figure, and select_model joins the command's
    # study as one more worker (the same stored settings, data digest included).
    from optuna_psms.fms.datasets import load_dataset

    db = f"sqlite:///{tmp_path / 'cli.db'}"
    out = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--dataset",
         "sklearn:breast_cancer", "--n-trials", "5", "--seed", "0", "--final-check", "none",
         "--storage", db, "--study-name", "cli", "--output", str(tmp_path / "model.joblib"),
         "--no-progress-bar"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    printed = re.search(r"^held-out ber .*: ([0-9.]+)$", out, re.M)
    assert printed is not None, out
    X, y = load_breast_cancer(return_X_y=True)
    selection = select_model(X, y, SelectSettings(n_trials=5, seed=0, final_check=None))
    assert selection.held_out is not None
    assert printed.group(1) == f"{selection.held_out[1]:.4f}"
    cli = optuna.load_study(study_name="cli", storage=db)
    assert selection.chosen is not None
    assert cli.user_attrs["fms:held_out"]["trial"] == selection.chosen.number
    assert cli.trials[selection.chosen.number].params == selection.chosen.params
    assert cli.user_attrs["fms:held_out"]["loss"] == pytest.approx(selection.held_out[1])
    # A second worker from Python, on the command's data as the command loads it.
    X_cli, y_cli = load_dataset("sklearn:breast_cancer")
    joined = select_model(
        X_cli,
        y_cli,
        SelectSettings(n_trials=1, final_check=None, storage=db, study_name="cli"),
    )
    assert joined.seed == 0 and len(joined.study.trials) == 6
