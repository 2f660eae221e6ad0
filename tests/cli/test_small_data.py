"""Tests of ``select``'s warning about scores computed on too few rows."""

from __future__ import annotations

import dataclasses
import io
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest

from optuna_psms.cli import main
from optuna_psms.fms._join import StudySettings
from optuna_psms.fms.holdout import small_data_warning


def _labels(**counts: int) -> np.ndarray[Any, Any]:
    return np.array([name for name, n in counts.items() for _ in range(n)], dtype=object)


def _settings(task: str = "classification", metric: str = "ber", cv: int = 2) -> StudySettings:
    return StudySettings(task=task, metric=metric, cv=cv)


def test_enough_rows_give_no_warning() -> None:
    # 30 held-out rows and 5 rows of each class per fold: the thresholds themselves pass.
    assert small_data_warning(_settings(), _labels(a=10, b=40), _labels(a=10, b=20)) is None
    regression = _settings("regression", "rmse", 5)
    assert small_data_warning(regression, np.arange(30.0), np.arange(30.0)) is None


def test_few_held_out_rows_are_named_with_the_step_of_one_row() -> None:
    line = small_data_warning(_settings(), _labels(a=40, b=40), _labels(a=4, b=25))
    # BER averages the per-class error rates: one of the 4 rows of 'a' moves it by 1/8.
    assert line == (
        "warning: too few rows for these scores to mean much: the held-out ber is on 29 rows "
        "(fewer than 30; one row predicted otherwise moves it by 0.12)"
    )
    line = small_data_warning(_settings(metric="error"), _labels(a=40, b=40), _labels(a=5, b=5))
    assert line is not None and "held-out error is on 10 rows" in line and "by 0.10)" in line
    line = small_data_warning(_settings(metric="auc"), _labels(a=40, b=40), _labels(a=5, b=5))
    assert line is not None and "held-out 1-AUC is on 10 rows (fewer than 30)" in line


def test_a_rare_class_in_the_cv_folds_is_named() -> None:
    line = small_data_warning(_settings(cv=2), _labels(a=40, rare=9), None)
    assert line == (
        "warning: too few rows for these scores to mean much: class 'rare' has 9 search rows, "
        "4-5 per fold of the 2-fold CV (fewer than 5)"
    )
    line = small_data_warning(_settings(cv=5), _labels(a=40, b=20), _labels(a=40, b=20))
    assert line is not None and "class 'b' has 20 search rows, 4 per fold of the 5-fold" in line


def test_the_cv_part_counts_the_rows_each_trial_draws_with_subsample() -> None:
    # With --subsample 0.2 each trial cross-validates on a fifth of each class: 40 rows of
    # 'b' are 8 per trial, 4 per fold, and no caution was printed (26 Nov 2026).
    settings = dataclasses.replace(_settings(cv=2), subsample=0.2)
    line = small_data_warning(settings, _labels(a=100, b=40), None)
    assert line == (
        "warning: too few rows for these scores to mean much: class 'b' has 8 search rows in "
        "each trial (of its 40; --subsample 0.2), 4 per fold of the 2-fold CV (fewer than 5)"
    )
    # The objective's own draw (FullModelObjective.splits): at least cv rows of a class.
    line = small_data_warning(
        dataclasses.replace(settings, subsample=0.01), _labels(a=300, b=40), None
    )
    assert line is not None and "class 'b' has 2 search rows in each trial (of its 40;" in line
    assert (
        small_data_warning(dataclasses.replace(settings, subsample=0.5), _labels(a=20, b=20), None)
        is None
    )
    regression = dataclasses.replace(_settings("regression", "rmse", 3), subsample=0.5)
    line = small_data_warning(regression, np.arange(50.0), None)
    assert line is not None and line.endswith(
        "the 3-fold CV is on 25 search rows in each trial (of 50; --subsample 0.5) (fewer than 30)"
    )
    # The held-out part is scored by the refit on all search rows: the subsample leaves it.
    assert small_data_warning(settings, _labels(a=100, b=100), _labels(a=20, b=20)) is None


def test_a_small_regression_cv_is_named() -> None:
    line = small_data_warning(_settings("regression", "rmse", 3), np.arange(29.0), None)
    assert line is not None and line.endswith("the 3-fold CV is on 29 search rows (fewer than 30)")


def _select(tmp_path: Any, capsys: Any, n: int, *extra: str) -> tuple[int, str, str]:
    rng = np.random.default_rng(1)
    label = np.array(["neg", "pos"] * (n // 2))
    pd.DataFrame({"x": rng.normal(size=n) + (label == "pos"), "outcome": label}).to_csv(
        tmp_path / "d.csv", index=False
    )
    argv = ["select", "--csv", str(tmp_path / "d.csv"), "--target", "outcome"]
    argv += ["--sampler", "random", "--classifiers", "naive_bayes", "--selectors", "none"]
    argv += ["--n-trials", "2", "--seed", "0", "--no-progress-bar"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db", "--output", str(tmp_path / "m.joblib")]
    code = main([*argv, *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("test_size", ["0.25", "0"])
def test_select_warns_once_on_tiny_data(tmp_path: Any, capsys: Any, test_size: str) -> None:
    # On 6 rows select printed "held-out ber (2 rows ...): 0.0000" with no caution (a new
    # user's trial, 26 Nov 2026).
    code, out, err = _select(tmp_path, capsys, 6, "--test-size", test_size)
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("warning: too few rows")]
    assert len(lines) == 1
    if test_size == "0":  # no held-out part, so nothing said of one
        assert "held-out" not in lines[0]
        assert "class 'neg' has 3 search rows, 1-2 per fold of the 2-fold CV" in lines[0]
    else:
        assert "the held-out ber is on 2 rows (fewer than 30; one row predicted" in lines[0]
        assert "by 0.50)" in lines[0]


def test_select_is_silent_on_enough_rows(tmp_path: Any, capsys: Any) -> None:
    code, out, err = _select(tmp_path, capsys, 200)
    assert code == 0, err
    assert "held-out ber (50 rows" in out and "too few rows" not in err


def test_select_counts_the_rows_subsample_leaves(tmp_path: Any, capsys: Any) -> None:
    # 200 rows, 50 held out: 75 search rows per class were enough, but --subsample 0.1 has
    # each trial cross-validate on 8 of them, 4 per fold, and select said nothing.
    code, out, err = _select(tmp_path, capsys, 200, "--subsample", "0.1")
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("warning: too few rows")]
    assert lines == [
        "warning: too few rows for these scores to mean much: class 'neg' has 8 search rows in "
        "each trial (of its 75; --subsample 0.1), 4 per fold of the 2-fold CV (fewer than 5)"
    ]


class _Pipe:
    """What the reader of ``optuna-psms ... 2>&1 | cat`` sees: a write to stderr at once, a
    write to stdout when stdout is flushed (block-buffered, as Python makes it in a pipe)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.held: list[str] = []
        pipe = self

        class Stdout(io.TextIOBase):
            def write(self, text: str) -> int:
                pipe.held.append(text)
                return len(text)

            def flush(self) -> None:
                pipe.seen.append("".join(pipe.held))
                pipe.held.clear()

        class Stderr(io.TextIOBase):
            def write(self, text: str) -> int:
                pipe.seen.append(text)
                return len(text)

        self.stdout, self.stderr = Stdout(), Stderr()

    def text(self) -> str:
        self.stdout.flush()  # at exit
        return "".join(self.seen)


def test_the_caution_comes_below_the_scores_in_a_pipe(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through `2>&1 | tee log` the caution came first, above the scores it qualifies: stderr
    # is written at once, stdout when its buffer is flushed (at exit).
    pipe = _Pipe()
    monkeypatch.setattr(sys, "stdout", pipe.stdout)
    monkeypatch.setattr(sys, "stderr", pipe.stderr)
    rng = np.random.default_rng(1)
    label = np.array(["neg", "pos"] * 3)
    pd.DataFrame({"x": rng.normal(size=6) + (label == "pos"), "outcome": label}).to_csv(
        tmp_path / "d.csv", index=False
    )
    argv = ["select", "--csv", str(tmp_path / "d.csv"), "--target", "outcome"]
    argv += ["--sampler", "random", "--classifiers", "naive_bayes", "--selectors", "none"]
    argv += ["--n-trials", "2", "--seed", "0", "--no-progress-bar", "--test-size", "0.25"]
    argv += ["--storage", f"sqlite:///{tmp_path}/s.db", "--output", str(tmp_path / "m.joblib")]
    assert main(argv) == 0
    lines = pipe.text().splitlines()
    starts = [
        next(i for i, line in enumerate(lines) if line.startswith(s))
        for s in (
            "Full model selection",
            "held-out ber",
            "warning: too few rows",
            "Model refitted",
        )
    ]
    assert starts == sorted(starts), lines
