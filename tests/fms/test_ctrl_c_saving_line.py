"""``select``: after a Ctrl-C that leaves complete trials, a line says the model is still
chosen and saved. The final check and the refits ran for 20 s after "interrupted" with
nothing on the screen (a new user's trial, 26 Nov 2026), inviting a second Ctrl-C that
saves nothing.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest

from tests.cli.test_commands import _run
from tests.cli.test_commands import _select_argv
from tests.cli.test_commands import _write_csv


def test_the_line_follows_the_interrupted_one(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from optuna_psms.fms import objective as objective_module
    from optuna_psms.fms._folds import run_folds as real_folds

    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    folds: list[int] = []

    def run_folds(*args: Any, **kwargs: Any) -> Any:
        folds.append(1)
        if len(folds) == 2:  # the second trial, in the main thread where SIGINT lands
            signal.raise_signal(signal.SIGINT)
        return real_folds(*args, **kwargs)

    monkeypatch.setattr(objective_module, "run_folds", run_folds)
    argv = [
        *_select_argv(tmp_path, "--storage", db, "--study-name", "cut"),
        *("--n-trials", "50", "--initial-pipelines", "none", "--test-size", "0"),
        *("--ensemble-top", "1"),
    ]
    code, out, err = _run(argv, capsys)
    assert code == 130, err
    lines = err.strip().splitlines()
    first = next(i for i, line in enumerate(lines) if "interrupted; study 'cut'" in line)
    assert lines[first + 1] == (
        "  the model of the 1 complete trial is chosen and saved before exiting (Ctrl-C "
        "again: nothing is saved) ..."
    )
    assert "saved to psms_model.joblib" in out
