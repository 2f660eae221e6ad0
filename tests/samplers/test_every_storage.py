"""Several processes sharing one real storage drive one population.

Backends: journal file, SQLite file, PostgreSQL, MariaDB/MySQL and Redis (journal backend).
A service that is unreachable skips its tests locally and fails them in CI (CI=true).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any
import uuid

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms.samplers import _records
import tests
from tests.conftest import require_service
from tests.samplers import SAMPLERS


REPO = str(tests.REPO)
N_WORKERS = 4
N_EACH = 8

_OPEN = textwrap.dedent(
    """
    import optuna

    def open_storage(spec):
        kind, _, where = spec.partition(":")
        if kind == "journal":
            return optuna.storages.JournalStorage(
                optuna.storages.journal.JournalFileBackend(where))
        if kind == "redis":
            return optuna.storages.JournalStorage(
                optuna.storages.journal.JournalRedisBackend(where))
        if kind == "sqlite":
            # A worker paused while it holds the write lock (a loaded machine) must not
            # fail the others: they wait for it, not SQLite's default 5 s. (dict(), no
            # braces: this text is also part of the str.format template _WORKER.)
            return optuna.storages.RDBStorage(
                spec, engine_kwargs=dict(connect_args=dict(timeout=600.0)))
        return optuna.storages.RDBStorage(spec)
    """
)

_WORKER = _OPEN + textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {repo!r})
    from tests.samplers import make
    from tests.samplers.test_adapter import psms_like
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name={name!r}, storage=open_storage({spec!r}),
                              sampler=make({sampler!r}, seed=0))
    study.optimize(psms_like, n_trials={n})
    """
)


def _spec(backend: str, tmp_path: Any) -> str:
    if backend == "journal":
        return f"journal:{tmp_path}/journal.log"
    if backend == "sqlite":
        return f"sqlite:///{tmp_path}/study.db"
    if backend == "postgresql":
        require_service("PostgreSQL", "127.0.0.1", 5432)
        return "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
    if backend == "mysql":
        require_service("MariaDB", "127.0.0.1", 3306)
        return "mysql+pymysql://root@127.0.0.1:3306/test"
    require_service("Redis", "127.0.0.1", 6379)
    return "redis:redis://127.0.0.1:6379/0"


def _open(spec: str) -> Any:
    scope: dict[str, Any] = {}
    exec(_OPEN, scope)
    return scope["open_storage"](spec)


def _run_workers(spec: str, name: str, sampler: str) -> None:
    script = _WORKER.format(repo=REPO, spec=spec, name=name, sampler=sampler, n=N_EACH)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=REPO) for _ in range(N_WORKERS)]
    codes = [p.wait(timeout=300) for p in procs]
    assert codes == [0] * N_WORKERS


BACKENDS = ["journal", "sqlite", "postgresql", "mysql", "redis"]
# PSO runs on every backend; the other samplers share the same adapter and run on the journal
# file (the case) and MariaDB (the 64 KB TEXT limit).
# PSO runs on every backend in the default run; the other samplers' runs (5-9 s each) are
# marked slow (CI runs them). test_eda, test_grid and test_pattern keep a four-process journal
# run of each of those samplers in the default run.
# PSO's four processes on SQLite, MariaDB and Redis run with the slow tests too; the default
# run keeps the journal file and PostgreSQL (and test_storage_urls opens every URL form).
SLOW_PSO_BACKENDS = ("sqlite", "mysql", "redis")
CASES = [
    pytest.param(
        backend,
        sampler,
        marks=[pytest.mark.slow] if sampler != "pso" or backend in SLOW_PSO_BACKENDS else [],
    )
    for sampler in sorted(SAMPLERS)
    for backend in BACKENDS
    if sampler == "pso" or backend in ("journal", "mysql")
]


@pytest.mark.services
@pytest.mark.parametrize(("backend", "sampler"), CASES)
@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_four_processes_form_one_population(backend: str, sampler: str, tmp_path: Any) -> None:
    spec = _spec(backend, tmp_path)
    name = f"psms-{sampler}-{uuid.uuid4().hex[:10]}"
    storage = _open(spec)
    optuna.create_study(study_name=name, storage=storage)
    try:
        _run_workers(spec, name, sampler)
        study = optuna.load_study(study_name=name, storage=storage)
        trials = study.trials
        assert len(trials) == N_WORKERS * N_EACH  # no trial lost
        assert all(t.state == TrialState.COMPLETE for t in trials)
        recs = [_records.load(t.system_attrs) for t in trials]
        assert all(r is not None and r["a"] for r in recs)
        if sampler.startswith("pso"):
            # The documented rule: trial n is particle n % 5 at iteration n // 5, exactly once.
            pairs = sorted((r["m"], r["g"]) for r in recs if r is not None)
            assert pairs == sorted((n % 5, n // 5) for n in range(len(trials)))
    finally:
        optuna.delete_study(study_name=name, storage=storage)


@pytest.mark.services
# MariaDB's case runs with the slow tests (``-m slow``), for the default run's 5 minutes.
@pytest.mark.slow  # 14 s on PostgreSQL, more on MariaDB: with the slow tests (CI runs them)
@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_records_of_a_1500_dimensional_space_survive_the_database(
    backend: str, tmp_path: Any
) -> None:
    from optuna_psms import PSOSampler

    spec = _spec(backend, tmp_path)
    name = f"psms-wide-{uuid.uuid4().hex[:10]}"
    storage = _open(spec)
    study = optuna.create_study(study_name=name, storage=storage, sampler=PSOSampler(seed=0))
    try:
        study.optimize(
            lambda t: sum(t.suggest_float(f"w{i:04d}", -1, 1) for i in range(1500)), n_trials=2
        )
        fresh = optuna.load_study(study_name=name, storage=_open(spec))
        rec = _records.load(fresh.trials[1].system_attrs)
        assert rec is not None and len(rec["x"]) == 1500 and len(rec["vec"]["v"]) == 1500
        assert f"{_records.KEY}:n" in fresh.trials[1].system_attrs  # it was chunked
    finally:
        optuna.delete_study(study_name=name, storage=storage)
