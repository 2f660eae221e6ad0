"""Ctrl-C with parallel trials (``select --n-jobs 2``, ``FullModelSelector(n_jobs=2)``).

Optuna runs each trial of ``n_jobs > 1`` in a thread of a ``ThreadPoolExecutor``; the main
thread only submits trials and waits for them (``concurrent.futures.wait`` in
``optuna/study/_optimize.py``). A real Ctrl-C (SIGINT) is raised in the main thread, so the
tests raise it there, in that loop: leaving the executor's ``with`` block joins the threads,
and the trials they had begun complete. A second Ctrl-C during that join leaves the threads
running: ``select`` fails the trials they run (``fms:interrupted``), and a thread that ends
its trial later cannot change it. A KeyboardInterrupt inside an objective (a thread, not
where SIGINT lands; the conftest fixture ``raise_in_trials``) fails that trial, and the main
thread raises it when it collects the trial.

Every trigger is a call counted or an event set by the code under test, never a timer
(``tests/_blocked_threads.py``):
after each, no trial is ``RUNNING``, the complete trials are kept, and the same command (or
estimator) resumes the study, continues its numbering and saves a model.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
from typing import Any

import optuna
import pytest

from tests._blocked_threads import blocked_threads
from tests._blocked_threads import ctrl_c_at_submit
from tests.cli.test_commands import _run
from tests.cli.test_commands import _select_argv
from tests.cli.test_commands import _write_csv


def _states(db: str) -> list[str]:
    return [t.state.name for t in optuna.load_study(study_name="cut", storage=db).trials]


def _argv(tmp_path: Any, db: str, n_trials: int) -> list[str]:
    return [
        *_select_argv(tmp_path, "--storage", db, "--study-name", "cut"),
        *("--sampler", "pso", "--n-jobs", "2", "--n-trials", str(n_trials)),
        *("--test-size", "0", "--ensemble-top", "1"),
    ]


def _rerun_resumes(tmp_path: Any, capsys: Any, db: str, before: list[str]) -> None:
    """The same command continues the study: its trials keep their states, the numbering
    goes on, nothing is left running, and it saves the model."""
    code, out, err = _run(_argv(tmp_path, db, 2), capsys)
    assert code == 0, err
    assert f"continued ({len(before)} trials so far" in out
    assert "saved to psms_model.joblib" in out and (tmp_path / "psms_model.joblib").exists()
    after = _states(db)
    assert after == [*before, "COMPLETE", "COMPLETE"]


@pytest.mark.slow
def test_select_two_jobs_ctrl_c_lets_the_begun_trials_complete(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"
    with monkeypatch.context() as patch:
        ctrl_c_at_submit(patch, 3)  # in the main thread's loop, once 3 trials are submitted
        code, out, err = _run(_argv(tmp_path, db, 50), capsys)
    assert code == 130, err
    assert "optuna-psms: interrupted; study 'cut' is kept" in err
    assert _states(db) == ["COMPLETE"] * 3  # the threads finished what they had begun
    _rerun_resumes(tmp_path, capsys, db, ["COMPLETE"] * 3)


@pytest.mark.slow
def test_select_two_jobs_second_ctrl_c_fails_the_trials_still_running(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "data.csv")
    db = f"sqlite:///{tmp_path}/s.db"

    def ctrl_c(*_: threading.Event) -> None:  # as the SIGINT handler does; the release unused
        raise KeyboardInterrupt

    with (
        monkeypatch.context() as patch,
        blocked_threads(
            patch,
            blocks=lambda k: k >= 2,  # from the 3rd trial on, the CV runs until released
            first_ctrl_c=ctrl_c,  # once both threads run a blocked trial
            second_ctrl_c=ctrl_c,  # in the join of the threads
        ),
    ):
        code, out, err = _run(_argv(tmp_path, db, 50), capsys)
    # The blocked threads ended their trials as the block closed: too late to change them.
    assert code == 130, err
    assert "[2 complete, 2 failed (2 interrupted by Ctrl-C) in the study]" in out
    trials = optuna.load_study(study_name="cut", storage=db).trials
    assert sorted(t.state.name for t in trials) == ["COMPLETE"] * 2 + ["FAIL"] * 2
    assert all(t.user_attrs.get("fms:interrupted") for t in trials if t.state.name == "FAIL")
    _rerun_resumes(tmp_path, capsys, db, [t.state.name for t in trials])


def test_selector_two_jobs_ctrl_c_in_trials_then_it_resumes(
    tmp_path: Any, raise_in_trials: Callable[[dict[int, BaseException]], None]
) -> None:
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace
    from tests.cli.test_commands import _write_csv as write

    write(tmp_path / "data.csv")
    import pandas as pd

    data = pd.read_csv(tmp_path / "data.csv")
    X, y = data.drop(columns="label"), data["label"]
    db = f"sqlite:///{tmp_path}/s.db"

    def selector(n_trials: int) -> FullModelSelector:
        return FullModelSelector(
            final_check=None,
            space=FullModelSpace(classifiers=["naive_bayes"], selectors=["none"]),
            sampler="pso",
            initial_pipelines=None,  # a shorter test; the select tests above run them
            n_trials=n_trials,
            n_jobs=2,
            storage=db,
            study_name="cut",
            load_if_exists=True,
            random_state=0,
        )

    # The CV of every trial from the 3rd on is cut: a thread that collects one raises it
    # in the main thread before all 20 trials are submitted (at most 2 run at once).
    raise_in_trials({k: KeyboardInterrupt() for k in range(2, 20)})
    with pytest.raises(KeyboardInterrupt):
        selector(20).fit(X, y)
    trials = optuna.load_study(study_name="cut", storage=db).trials
    states = [t.state.name for t in trials]
    assert "RUNNING" not in states and states.count("COMPLETE") == 2
    assert all(t.user_attrs.get("fms:interrupted") for t in trials if t.state.name == "FAIL")
    raise_in_trials({})
    model = selector(2).fit(X, y)
    resumed = model.study_.trials
    assert [t.state.name for t in resumed] == [*states, "COMPLETE", "COMPLETE"]
    assert model.best_trial_.state.name == "COMPLETE"
