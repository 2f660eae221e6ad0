"""optuna-psms: an error converted from the work itself says how to see its traceback, and
``--traceback`` / ``OPTUNA_PSMS_TRACEBACK=1`` print it.

Every ValueError/RuntimeError out of the search or the refit became a one-line error, exit 2,
like a mistake in the command: a bug of optuna-psms (or of scikit-learn under it) looked
like the user's, with no traceback to report (user trial, 26 Nov 2026).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main


HINT = "(rerun with --traceback to see where it came from)"
BOOM = "internal boom: a bug inside the fit"


def _run(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _argv(tmp_path: Any, *extra: str) -> list[str]:
    rng = np.random.default_rng(0)
    label = rng.choice(["yes", "no"], 60)
    frame = pd.DataFrame({"size": rng.normal(size=60) + 2.0 * (label == "yes"), "label": label})
    frame.to_csv(tmp_path / "data.csv", index=False)
    return [
        "select",
        "--csv",
        str(tmp_path / "data.csv"),
        "--target",
        "label",
        "--final-check",
        "none",
        "--initial-pipelines",
        "none",
        "--sampler",
        "random",
        "--classifiers",
        "naive_bayes",
        "--selectors",
        "none",
        "--n-trials",
        "1",
        "--seed",
        "0",
        "--storage",
        f"sqlite:///{tmp_path}/s.db",
        "--output",
        str(tmp_path / "m.joblib"),
        "--no-progress-bar",
        *extra,
    ]


def _broken_refit(objective: Any, params: Any) -> Any:
    raise ValueError(BOOM)


@pytest.fixture
def broken_fit(monkeypatch: Any) -> None:
    """The refit of the chosen pipeline inside ``FullModelSelector.fit`` raises a ValueError
    (the search's trials run as usual), and the environment variable is not set."""
    monkeypatch.setattr("optuna_psms.fms._search.fit_pipeline", _broken_refit)
    monkeypatch.delenv("OPTUNA_PSMS_TRACEBACK", raising=False)


@pytest.mark.usefixtures("broken_fit")
@pytest.mark.parametrize("env", [None, "0"])
def test_an_error_inside_the_fit_is_one_line_with_the_hint(
    tmp_path: Any, capsys: Any, monkeypatch: Any, env: str | None
) -> None:
    if env is not None:
        monkeypatch.setenv("OPTUNA_PSMS_TRACEBACK", env)
    code, out, err = _run(_argv(tmp_path), capsys)
    assert code == 2
    assert out.startswith("Full model selection (classification)"), out
    assert err == f"optuna-psms: error: {BOOM} {HINT}\n"


@pytest.mark.usefixtures("broken_fit")
@pytest.mark.parametrize("how", ["after", "before", "env"])
def test_traceback_prints_where_the_error_came_from(
    tmp_path: Any, capsys: Any, monkeypatch: Any, how: str
) -> None:
    argv = _argv(tmp_path)
    if how == "after":  # optuna-psms select ... --traceback
        argv.append("--traceback")
    elif how == "before":  # optuna-psms --traceback select ...: the subcommand keeps it
        argv.insert(0, "--traceback")
    else:
        monkeypatch.setenv("OPTUNA_PSMS_TRACEBACK", "1")
    code, _, err = _run(argv, capsys)
    assert code == 2
    lines = err.splitlines()
    assert lines[0] == "Traceback (most recent call last):", err
    # The original raise site, reached through the package's own refit.
    assert "optuna_psms/fms/_search.py" in err and "in _refit" in err, err
    assert "in _broken_refit" in err and "raise ValueError(BOOM)" in err, err
    assert lines[-2] == f"ValueError: {BOOM}"
    # The one line still ends the output, without the hint (the traceback is above it).
    assert lines[-1] == f"optuna-psms: error: {BOOM}"


def test_an_argument_error_is_unchanged(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    # The command's own checks are certain user errors: no hint, the same line as before.
    monkeypatch.delenv("OPTUNA_PSMS_TRACEBACK", raising=False)
    argv = _argv(tmp_path, "--cv", "1")
    line = "optuna-psms: error: --cv must be at least 2 (the number of CV folds); got 1"
    code, out, err = _run(argv, capsys)
    assert (code, out, err) == (2, "", line + "\n")
    # With --traceback: where the check refused it, then the same line.
    code, out, err = _run([*argv, "--traceback"], capsys)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[0] == "Traceback (most recent call last):", err
    assert "in check_args" in err, err
    assert lines[-1] == line


def test_traceback_of_a_checked_value_error_shows_the_check(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    # A check the command makes through the library (the metric against the task) keeps its
    # one line without the hint; --traceback shows the ValueError the line was made from.
    monkeypatch.delenv("OPTUNA_PSMS_TRACEBACK", raising=False)
    argv = _argv(tmp_path, "--metric", "rmse")
    line = (
        "optuna-psms: error: metric 'rmse' is not a classification metric; use one of ber, "
        "error, auc, pi_svm (--task auto chose classification for this target)"
    )
    code, _, err = _run(argv, capsys)
    assert (code, err) == (2, line + "\n")
    code, _, err = _run([*argv, "--traceback"], capsys)
    assert code == 2
    assert "in check_metric" in err and err.splitlines()[-2].startswith("ValueError: metric"), err
    assert err.splitlines()[-1] == line


@pytest.mark.parametrize("command", ["predict", "datasets", "compare"])
def test_every_subcommand_takes_the_flag(command: str, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert "--traceback" in capsys.readouterr().out


def _raise_runtime_error(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(BOOM)


@pytest.mark.parametrize(
    ("method", "line"),
    [
        ("choose_trial", f"cannot choose the pipeline: {BOOM}"),
        ("fit_trial", f"cannot refit the chosen pipeline: {BOOM}"),
    ],
)
def test_an_error_after_the_search_has_the_hint(
    tmp_path: Any, capsys: Any, monkeypatch: Any, method: str, line: str
) -> None:
    from optuna_psms.fms import FullModelSelector

    monkeypatch.delenv("OPTUNA_PSMS_TRACEBACK", raising=False)
    monkeypatch.setattr(FullModelSelector, method, _raise_runtime_error)
    code, _, err = _run(_argv(tmp_path), capsys)
    # (The refit on all rows comes after the held-out lines and their small-data warning.)
    assert code == 2 and "Traceback" not in err, err
    assert err.splitlines()[-1] == f"optuna-psms: error: {line} {HINT}"
    code, _, err = _run([*_argv(tmp_path), "--traceback"], capsys)
    assert code == 2
    assert "in _raise_runtime_error" in err and err.splitlines()[-2] == f"RuntimeError: {BOOM}"
    assert err.splitlines()[-1] == f"optuna-psms: error: {line}"


def test_an_error_inside_predict_has_the_hint(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    from optuna_psms.fms import FullModelSelector

    monkeypatch.delenv("OPTUNA_PSMS_TRACEBACK", raising=False)
    code, _, err = _run(_argv(tmp_path), capsys)
    assert code == 0, err

    def broken_predict(self: Any, X: Any) -> Any:
        raise ValueError(BOOM)

    monkeypatch.setattr(FullModelSelector, "predict", broken_predict)
    predict = ["predict", "--model", str(tmp_path / "m.joblib"), "--csv"]
    predict += [str(tmp_path / "data.csv"), "--drop", "label"]
    code, out, err = _run(predict, capsys)
    assert (code, out) == (2, "")
    assert err == f"optuna-psms: error: cannot apply the model to this data: {BOOM} {HINT}\n"
    code, _, err = _run([*predict, "--traceback"], capsys)
    assert code == 2 and "in broken_predict" in err, err
    assert (
        err.splitlines()[-1] == f"optuna-psms: error: cannot apply the model to this data: {BOOM}"
    )
