"""``select --n-jobs 2``: the first Ctrl-C says at once that the trials in progress finish.

The Ctrl-C lands in the main thread, in Optuna's wait for the threads; leaving Optuna's thread
pool then waits for the trials in progress, a whole CV each, and nothing was printed: it looked
hung. The tests block both threads' CV until the test releases it (a Barrier, no timer;
``tests/_blocked_threads.py``) and deliver SIGINT with ``signal.raise_signal``, which runs the
handler before it returns, at a point fixed in advance: in that wait (the first Ctrl-C), and in
the join of the threads (the second). ``tests/fms/test_ctrl_c_threads.py`` covers the rest of
the two paths (resuming).
"""

from __future__ import annotations

import signal
from typing import Any

import optuna
import pytest

from optuna_psms.cli._interrupt import finishing_line
from tests._blocked_threads import sigint_with_two_trials_running
from tests.cli.test_commands import _run
from tests.cli.test_commands import _select_argv
from tests.cli.test_commands import _write_csv


# select's handler says the line, then calls the handler in place: Python's own, here.
pytestmark = pytest.mark.usefixtures("default_ctrl_c")

LINE = (
    "optuna-psms: Ctrl-C: the search stops once the 2 trials in progress finish "
    "(Ctrl-C again fails them instead)"
)


def _states(db: str) -> list[str]:
    return [t.state.name for t in optuna.load_study(study_name="cut", storage=db).trials]


def _argv(tmp_path: Any, db: str, n_jobs: int) -> list[str]:
    return [
        *_select_argv(tmp_path, "--storage", db, "--study-name", "cut"),
        *("--n-jobs", str(n_jobs), "--n-trials", "50", "--initial-pipelines", "none"),
        *("--test-size", "0", "--ensemble-top", "1"),
    ]


def test_the_line_names_the_trials() -> None:
    assert finishing_line(2) == LINE
    assert finishing_line(1) == (
        "optuna-psms: Ctrl-C: the search stops once the trial in progress finishes "
        "(Ctrl-C again fails it instead)"
    )


@pytest.mark.parametrize("second", [False, True], ids=["one-ctrl-c", "two-ctrl-c"])
def test_select_two_jobs_first_ctrl_c_says_the_trials_in_progress_finish(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch, second: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"

    def look() -> tuple[str, list[str]]:  # stderr and the trials' states at the first Ctrl-C
        return capsys.readouterr().err, _states(db)

    with (
        monkeypatch.context() as patch,
        sigint_with_two_trials_running(patch, second=second, look=look) as seen,
    ):
        code, out, err = _run(_argv(tmp_path, db, 2), capsys)
    assert code == 130, err
    [(said, states)] = seen
    # Said at once, on stderr, while both trials were still running; and said once.
    assert said.splitlines() == [LINE]
    assert states == ["RUNNING", "RUNNING"]
    assert LINE not in err
    assert "optuna-psms: interrupted; study 'cut' is kept" in err
    if second:  # the second Ctrl-C failed them, as before
        assert sorted(_states(db)) == ["FAIL", "FAIL"]
    else:  # they finished, as before
        assert _states(db) == ["COMPLETE", "COMPLETE"]
        assert "saved to psms_model.joblib" in out


def test_select_one_job_ctrl_c_says_nothing_more(
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
        if len(folds) == 2:  # n_jobs=1: the trial runs in the main thread, where SIGINT lands
            signal.raise_signal(signal.SIGINT)
        return real_folds(*args, **kwargs)

    monkeypatch.setattr(objective_module, "run_folds", run_folds)
    code, out, err = _run(_argv(tmp_path, db, 1), capsys)
    assert code == 130, err
    assert "Ctrl-C:" not in err
    assert "optuna-psms: interrupted; study 'cut' is kept" in err
    assert _states(db) == ["COMPLETE", "FAIL"]
