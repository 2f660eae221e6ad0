"""``select --time-budget`` and ``--trial-memory``: the options reach the search, which says
when the budget ended it; bad values are one-line refusals."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

import pytest

from tests.cli.test_commands import _run


@pytest.mark.parametrize(
    "flag,value,said",
    [
        ("--time-budget", "0", "--time-budget must be a positive number of seconds; got 0.0"),
        ("--time-budget", "nan", "--time-budget must be a positive number of seconds; got nan"),
        ("--trial-memory", "0", "--trial-memory must be a positive number of MiB; got 0"),
    ],
)
def test_a_bad_budget_is_refused_in_one_line(
    flag: str, value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["select", "--dataset", "sklearn:iris", flag, value], capsys)
    assert code == 2
    assert err.strip().splitlines() == [f"optuna-psms: error: {said}"]


@pytest.mark.slow  # a 20 s budget, run as a user runs it (a process, output to a pipe)
def test_the_time_budget_ends_the_search_and_the_command_says_so(
    tmp_path: pathlib.Path,
) -> None:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "optuna_psms.cli", "select", "--dataset",
         "sklearn:breast_cancer", "--time-budget", "20", "--seed", "0", "--storage",
         f"sqlite:///{tmp_path / 'b.db'}", "--output", str(tmp_path / "m.joblib")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    wall = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert "stopped by the time budget after " in done.stderr
    assert "held-out ber" in done.stdout and (tmp_path / "m.joblib").exists()
    # Optuna's per-trial lines stay out of the command's output.
    assert "Trial 0 finished" not in done.stderr
    # Generous: the machine may be loaded; the budget bounds the search and the refit plan.
    assert wall < 20 * 1.25 + 60 + 30
