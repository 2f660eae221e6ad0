"""A budget spent on the initial pipelines alone is said, once, before the search."""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms.cli import main
from optuna_psms.cli._compare import _short_budget
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._initial import API_ADVICE
from optuna_psms.fms._initial import CLI_ADVICE
from optuna_psms.fms._initial import default_pipelines
from optuna_psms.fms._initial import portfolio_size
from optuna_psms.fms._initial import PORTFOLIOS
from optuna_psms.fms._initial import SHORT_BUDGET_MARK
from optuna_psms.fms._initial import short_budget_message


optuna.logging.set_verbosity(optuna.logging.ERROR)


@pytest.fixture(scope="module")
def binary() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:40, 300:360]
    return X[rows, :6], y[rows]


def _short(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if SHORT_BUDGET_MARK in str(w.message)]


def test_the_message_counts_and_is_none_when_the_sampler_proposes_trials() -> None:
    assert short_budget_message(4, 4, API_ADVICE) == (
        "4 trials leave the sampler none: the first 4 are the initial pipelines, the same "
        f"whatever the sampler; {API_ADVICE}"
    )
    assert str(short_budget_message(1, 4, "x")).startswith("1 trial leaves the sampler none")
    assert short_budget_message(5, 4, "x") is None
    assert short_budget_message(1, 0, "x") is None  # no initial pipelines (a resumed study)
    # The count compare uses is what default_pipelines enqueues in the default pool.
    space = FullModelSpace()
    for classes in (2, 3):
        ctx = space.context(n_features=4, n_classes=classes, n_samples=100)
        for name in PORTFOLIOS:
            assert portfolio_size(name) == len(default_pipelines(space, ctx, "ber", name))


def _fit(binary: Any, **kwargs: Any) -> list[warnings.WarningMessage]:
    args: dict[str, Any] = {"final_check": None, "ensemble_top": 1, "random_state": 0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FullModelSelector(**{**args, **kwargs}).fit(*binary)
    return _short(caught)


def test_the_selector_warns_at_the_users_line_when_the_budget_is_all_initial(
    binary: Any,
) -> None:
    (found,) = _fit(binary, n_trials=3)
    assert found.category is UserWarning and found.filename == __file__
    assert str(found.message) == short_budget_message(3, 4, API_ADVICE)


@pytest.mark.parametrize(
    "kwargs",
    [{"n_trials": 5}, {"n_trials": 2, "initial_pipelines": None}],
    ids=["sampler-proposes-one", "no-initial-pipelines"],
)
def test_no_warning_when_the_sampler_proposes_a_trial(binary: Any, kwargs: Any) -> None:
    assert _fit(binary, **kwargs) == []


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min
def test_a_resumed_study_gets_no_initial_pipelines_and_no_warning(
    binary: Any, tmp_path: Any
) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    same = {"storage": url, "study_name": "s", "load_if_exists": True}
    _fit(binary, n_trials=5, **same)
    assert _fit(binary, n_trials=2, **same) == []


def test_select_says_it_in_one_line_in_the_commands_words(
    binary: Any, tmp_path: Any, capsys: Any
) -> None:
    argv = ["select", "--dataset", "keel:bupa", "--n-trials", "2", "--final-check", "none"]
    argv += ["--storage", f"sqlite:///{tmp_path / 'p.db'}", "--out", str(tmp_path / "m.joblib")]
    argv += ["--test-size", "0", "--seed", "0", "--ensemble-top", "1"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if SHORT_BUDGET_MARK in line]
    assert lines == [f"warning: {short_budget_message(2, 4, CLI_ADVICE)}"]
    assert "UserWarning" not in err


def test_compare_says_the_studies_will_be_identical() -> None:
    (line,) = _short_budget("defaults", 4)
    assert line.startswith("warning: 4 trials leave the sampler none")
    assert "every sampler's studies will be identical" in line and CLI_ADVICE in line
    assert _short_budget("defaults", 5) == [] and _short_budget(None, 1) == []
