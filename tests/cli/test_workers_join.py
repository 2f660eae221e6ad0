"""``optuna-psms select`` as separate processes: workers of one PostgreSQL study, one of them
interrupted, and Ctrl-C.

Both tests check states read from the storage, never timings: the workers' test holds for any
interleaving of the two processes (the interrupted worker's Ctrl-C is raised in a trial
chosen in advance), and SIGINT is sent only once the storage shows a completed trial. Marked
slow (about 30 s each): CI runs them with ``-m slow``.
"""

from __future__ import annotations

from collections import Counter
import os
from pathlib import Path
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any
import uuid

import joblib
import numpy as np
import optuna
import pandas as pd
import pytest

from optuna_psms.samplers import _records
from optuna_psms.storages import open_storage
import tests
from tests._sqlite_watch import trial_states
from tests.conftest import require_service


REPO = str(tests.REPO)
PG = "postgresql://postgres@127.0.0.1:5432/test"


def _csv(path: Any, n: int = 90) -> None:
    rng = np.random.default_rng(5)
    label = rng.choice(["a", "b", "c"], n)
    pd.DataFrame(
        {
            "u": rng.normal(size=n) + (label == "a"),
            "v": rng.normal(size=n) - (label == "c"),
            "label": label,
        }
    ).to_csv(path, index=False)


def _command(csv: Any, storage: str, name: str, n_trials: int, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "optuna_psms.cli",
        "select",
        "--csv",
        str(csv),
        "--target",
        "label",
        "--classifiers",
        "naive_bayes,logistic",
        "--selectors",
        "none,ftest",
        "--storage",
        storage,
        "--study-name",
        name,
        "--n-trials",
        str(n_trials),
        "--seed",
        "11",
        "--no-progress-bar",
        *extra,
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": REPO, "PYTHONWARNINGS": "ignore"}


#: ``python -c`` this, then ``select``'s arguments: ``select`` whose ``k``-th trial's CV (0-based,
#: ``sys.argv[1]``; -1: none) raises KeyboardInterrupt, a Ctrl-C at a point fixed in advance.
_CUT_AT = textwrap.dedent(
    """
    import sys
    from optuna_psms.fms import objective
    real, calls, k = objective.run_folds, [], int(sys.argv[1])

    def run_folds(*args, **kwargs):
        calls.append(1)
        if len(calls) - 1 == k:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    objective.run_folds = run_folds
    from optuna_psms.cli import main
    raise SystemExit(main(sys.argv[2:]))
    """
)


def _cut_at(k: int, command: list[str]) -> list[str]:
    """``command`` (``_command``'s), its ``k``-th trial cut by a Ctrl-C (``k = -1``: none)."""
    return [sys.executable, "-c", _CUT_AT, str(k), *command[3:]]


def _one_swarm(trials: list[optuna.trial.FrozenTrial]) -> None:
    """One swarm: every trial (the failed too) holds a (particle, iteration) slot, none twice,
    and the slots are the first ``len(trials)`` of the population's order (particle
    ``n % P`` at iteration ``n // P``)."""
    recs = [_records.load(t.system_attrs) for t in trials]
    assert all(r is not None for r in recs)
    pairs = [(r["m"], r["g"]) for r in recs if r is not None]
    assert len(set(pairs)) == len(pairs)
    size = 1 + max(m for m, _ in pairs)
    assert sorted(pairs, key=lambda p: (p[1], p[0])) == [
        (n % size, n // size) for n in range(len(pairs))
    ]


@pytest.mark.slow
@pytest.mark.services
def test_two_select_processes_are_one_pso_population(tmp_path: Any) -> None:
    # The second process is interrupted (Ctrl-C) in its trial CUT, a point fixed in advance:
    # the first one's study stays healthy, and the second's rerun joins the same population.
    require_service("PostgreSQL", "127.0.0.1", 5432)
    _csv(tmp_path / "data.csv")
    name = f"cli-join-{uuid.uuid4().hex[:10]}"
    n_each = 6
    cut = 3
    command = _command(tmp_path / "data.csv", PG, name, n_each)
    procs = [
        subprocess.Popen(
            _cut_at(k, command),
            cwd=tmp_path,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in (-1, cut)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    storage = open_storage(PG)
    assert storage is not None
    try:
        assert [p.returncode for p in procs] == [0, 130], outs
        assert "optuna-psms: interrupted; study" in outs[1][1]
        trials = optuna.load_study(study_name=name, storage=storage).trials
        # The first ran its --n-trials, the second CUT trials and the one it was cut in,
        # failed and marked; none is left RUNNING (a broken pipeline would fail its own).
        assert len(trials) == n_each + cut + 1
        assert {t.state.name for t in trials} <= {"COMPLETE", "FAIL"}
        assert [t.user_attrs.get("fms:interrupted") for t in trials].count(True) == 1
        _one_swarm(trials)
        # The worker that ended with nothing running saved the model (both may have).
        assert any("saved to psms_model.joblib" in out for out, _ in outs), outs
        model = joblib.load(tmp_path / "psms_model.joblib")
        assert set(model.predict(pd.read_csv(tmp_path / "data.csv").drop(columns="label"))) <= {
            "a",
            "b",
            "c",
        }
        # The interrupted worker's command, rerun, continues the one population.
        again = subprocess.run(
            _command(tmp_path / "data.csv", PG, name, 2, "--output", "again.joblib"),
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert again.returncode == 0, again.stderr
        assert f"continued ({len(trials)} trials so far" in again.stdout
        assert "saved to again.joblib" in again.stdout
        resumed = optuna.load_study(study_name=name, storage=storage).trials
        assert [t.number for t in resumed] == list(range(len(trials) + 2))
        assert [t.state.name for t in resumed[len(trials) :]] == ["COMPLETE"] * 2
        _one_swarm(resumed)
    finally:
        optuna.delete_study(study_name=name, storage=storage)


def _wait_for_a_completed_trial(db: Path, name: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        # Read-only: load_study on a file another process is creating races with it.
        if trial_states(db).get(name, Counter())["COMPLETE"] > 0:
            return
        time.sleep(0.2)
    pytest.fail("no trial completed within 300 s")


@pytest.mark.slow
def test_ctrl_c_saves_the_best_so_far_and_the_study_resumes(tmp_path: Any) -> None:
    _csv(tmp_path / "data.csv")
    storage = f"sqlite:///{tmp_path}/int.db"
    name = "interrupted"
    proc = subprocess.Popen(
        _command(tmp_path / "data.csv", storage, name, 100000, "--output", "best.joblib"),
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_a_completed_trial(tmp_path / "int.db", name, proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    ours = [line for line in err.splitlines() if line.startswith("optuna-psms")]
    assert len(ours) == 1 and ours[0].startswith("optuna-psms: interrupted; study 'interrupted'")
    study = optuna.load_study(study_name=name, storage=storage)
    assert f"CV ber on search data (2-fold): {study.best_value:.4f}" in out
    assert "held-out ber" in out and "saved to best.joblib" in out
    model = joblib.load(tmp_path / "best.joblib")
    assert model.best_params_ == study.best_trial.params
    n_before = len(study.trials)
    # Resumable: the same command continues the study.
    again = subprocess.run(
        _command(tmp_path / "data.csv", storage, name, 1, "--output", "again.joblib"),
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert len(optuna.load_study(study_name=name, storage=storage).trials) == n_before + 1
