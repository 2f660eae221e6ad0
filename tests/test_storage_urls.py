"""Storages by URL (optuna_psms.storages): every documented form, on the real services.

PostgreSQL, MariaDB and Redis tests skip when the service is unreachable, except in CI.
"""

from __future__ import annotations

import importlib.util
from typing import Any
import uuid

import optuna
from optuna.storages.journal import JournalFileBackend
from optuna.storages.journal import JournalRedisBackend
import pytest

from optuna_psms import storages
from optuna_psms._compat import _sqlite
from optuna_psms.storages import MissingDriverError
from optuna_psms.storages import open_storage
from optuna_psms.storages import StorageURLError
from tests import REPO
from tests.conftest import require_service


PG = "postgresql://postgres@127.0.0.1:5432/test"
MYSQL = "mysql://root@127.0.0.1:3306/test"
REDIS = "redis://127.0.0.1:6379/0"


def _opened(url: str) -> optuna.storages.BaseStorage:
    """``open_storage(url)``: a URL never opens to ``None`` (only ``None`` passes as ``None``)."""
    return open_storage(url)


def _journal_backend(storage: Any) -> Any:
    assert isinstance(storage, optuna.storages.JournalStorage)
    return storage._backend  # the only way to see which backend a JournalStorage has


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("journal:///{tmp}/a.log", "{tmp}/a.log"),
        ("journal:{tmp}/b.log", "{tmp}/b.log"),
        ("{tmp}/c.log", "{tmp}/c.log"),
        ("{tmp}/d.jsonl", "{tmp}/d.jsonl"),
    ],
)
def test_journal_file_forms(tmp_path: Any, form: str, expected: str) -> None:
    url = form.format(tmp=tmp_path)
    storage = open_storage(url)
    backend = _journal_backend(storage)
    assert isinstance(backend, JournalFileBackend)
    study = optuna.create_study(storage=storage, study_name="j")
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    path = expected.format(tmp=tmp_path).replace("//", "/")
    reopened = optuna.load_study(study_name="j", storage=_opened(path))
    assert len(reopened.trials) == 2


def test_sqlite_url_and_objects_pass_through(tmp_path: Any) -> None:
    storage = open_storage(f"sqlite:///{tmp_path}/s.db")
    assert isinstance(storage, optuna.storages.RDBStorage)
    memory = optuna.storages.InMemoryStorage()
    assert open_storage(memory) is memory
    assert open_storage(None) is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("foo://x", "unknown storage scheme 'foo://'"),
        ("http://user:secret@host/db", "unknown storage scheme 'http://'"),
        ("study.db", "not a storage URL: 'study.db'"),
        ("", "empty storage URL"),
        ("journal:", "journal storage URL without a path"),
        ("grpc://host", "malformed gRPC storage URL"),
        # What a new user typed (26 Nov 2026): the CLI passed on SQLAlchemy's "Invalid
        # SQLite URL" and SQLite's "unable to open database file".
        ("study.db", "not a storage URL: 'study.db'; for a SQLite file use sqlite:///study.db"),
        (
            "sqlite://study.db",
            "SQLite URL 'sqlite://study.db' needs three slashes before a relative path: "
            "sqlite:///study.db (an absolute one has four: sqlite:////abs/path.db)",
        ),
        (
            "sqlite:///no/such/folder/study.db",
            "SQLite file 'no/such/folder/study.db': its folder 'no/such/folder' does not "
            "exist (SQLite creates the file, not the folder)",
        ),
        ("sqlite:////no/such/folder/study.db", "its folder '/no/such/folder' does not exist"),
        # One slash or none after "sqlite:" (usertrial7, 26 Nov 2026): the hint above gave
        # sqlite:///sqlite:/study.db.
        (
            "sqlite:/study.db",
            "not a storage URL: 'sqlite:/study.db'; a SQLite URL has three slashes after "
            "'sqlite:': sqlite:///study.db (relative to the current folder) or "
            "sqlite:////study.db (absolute)",
        ),
        (
            "sqlite:study.db",
            "not a storage URL: 'sqlite:study.db'; a SQLite URL has three slashes after "
            "'sqlite:': sqlite:///study.db",
        ),
        ("SQLite:/tmp/x/study.sqlite", "sqlite:///tmp/x/study.sqlite (relative to the"),
    ],
)
def test_bad_urls_are_one_line(url: str, message: str) -> None:
    with pytest.raises(StorageURLError) as info:
        open_storage(url)
    text = str(info.value)
    assert message in text and "\n" not in text
    assert "secret" not in text


def test_hide_password() -> None:
    assert storages.hide_password("postgresql://u:pw@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert storages.hide_password("sqlite:///a.db") == "sqlite:///a.db"


@pytest.mark.parametrize(
    ("url", "gone", "extra"),
    [
        (PG, ("psycopg", "psycopg2"), "postgresql"),
        ("postgresql+psycopg2://u@h/d", ("psycopg2",), "postgresql"),
        (MYSQL, ("pymysql", "MySQLdb"), "mysql"),
        (REDIS, ("redis",), "redis"),
        ("grpc://127.0.0.1:13000", ("grpc",), "grpc"),
    ],
)
def test_missing_driver_names_the_extra(
    monkeypatch: Any, url: str, gone: tuple[str, ...], extra: str
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,  # the module open_storage's driver checks call
        "find_spec",
        lambda name, *a: None if name in gone else real(name, *a),
    )
    with pytest.raises(MissingDriverError) as info:
        open_storage(url)
    assert f"pip install 'optuna-psms[{extra}]'" in str(info.value)
    assert "\n" not in str(info.value)


def test_driver_choice(monkeypatch: Any) -> None:
    """postgresql:// and mysql:// get an installed driver whatever SQLAlchemy's default."""
    installed = {"psycopg2", "pymysql"}
    monkeypatch.setattr(storages, "_has", lambda name: name in installed)
    assert storages.rdb_url(PG) == "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
    assert storages.rdb_url(MYSQL) == "mysql+pymysql://root@127.0.0.1:3306/test"
    installed.add("psycopg")
    assert storages.rdb_url(PG) == "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    assert storages.rdb_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert storages.rdb_url("mariadb+pymysql://u@h/d") == "mysql+pymysql://u@h/d"
    assert storages.rdb_url(REDIS) is None


def _roundtrip(url: str) -> None:
    """A study written through the URL is read back through a second open of it."""
    name = f"url-{uuid.uuid4().hex[:10]}"
    storage = _opened(url)
    study = optuna.create_study(storage=storage, study_name=name)
    try:
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
        again = optuna.load_study(study_name=name, storage=_opened(url))
        assert [t.state for t in again.trials] == [optuna.trial.TrialState.COMPLETE] * 3
    finally:
        optuna.delete_study(study_name=name, storage=storage)


@pytest.mark.services
def test_postgresql_default_url_uses_psycopg3() -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg 3 (the 'postgresql' extra) is not installed")
    storage = open_storage(PG)
    assert isinstance(storage, optuna.storages.RDBStorage)
    assert storage.engine.url.drivername == "postgresql+psycopg"
    _roundtrip(PG)


@pytest.mark.services
def test_mysql_default_url_uses_pymysql() -> None:
    require_service("MariaDB", "127.0.0.1", 3306)
    storage = open_storage(MYSQL)
    assert isinstance(storage, optuna.storages.RDBStorage)
    assert storage.engine.url.drivername == "mysql+pymysql"
    _roundtrip(MYSQL)


@pytest.mark.services
def test_redis_url_is_a_journal_in_redis() -> None:
    require_service("Redis", "127.0.0.1", 6379)
    assert isinstance(_journal_backend(open_storage(REDIS)), JournalRedisBackend)
    _roundtrip(REDIS)


def _service_url(kind: str, tmp_path: Any) -> str:
    """The URL of ``kind`` (skipping, outside CI, when its service is not running)."""
    ports = {
        "postgresql": ("PostgreSQL", 5432),
        "mysql": ("MariaDB", 3306),
        "redis": ("Redis", 6379),
    }
    if kind in ports:
        require_service(ports[kind][0], "127.0.0.1", ports[kind][1])
    urls = {"postgresql": PG, "mysql": MYSQL, "redis": REDIS}
    urls["sqlite"] = f"sqlite:///{tmp_path}/fms.db"
    urls["journal"] = f"journal:///{tmp_path}/fms.log"
    return urls[kind]


@pytest.mark.services
@pytest.mark.parametrize(
    ("task", "kind"),
    [("classification", k) for k in ("sqlite", "journal", "postgresql", "mysql", "redis")]
    + [("regression", k) for k in ("journal", "postgresql", "mysql", "redis")],
)
def test_full_model_estimators_take_every_url(task: str, kind: str, tmp_path: Any) -> None:
    """Both estimators store their study through every URL form (issue 12: the regressor
    keeps the classifier's storage guarantees)."""
    from sklearn.datasets import load_diabetes
    from sklearn.datasets import load_iris

    from optuna_psms.fms import FullModelRegressor
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import RegressionSpace

    url = _service_url(kind, tmp_path)
    name = f"fms-url-{uuid.uuid4().hex[:10]}"
    model: Any
    if task == "classification":
        X, y = load_iris(return_X_y=True)
        space: Any = FullModelSpace(classifiers=["naive_bayes"], selectors=[])
        model = FullModelSelector(
            final_check=None,
            space=space,
            sampler="random",
            n_trials=2,
            storage=url,
            study_name=name,
            random_state=0,
        )
    else:
        X, y = load_diabetes(return_X_y=True)
        space = RegressionSpace(regressors=["linear"], selectors=[])
        model = FullModelRegressor(
            space=space,
            sampler="random",
            n_trials=2,
            cv=2,
            storage=url,
            study_name=name,
            random_state=0,
        )
    try:
        model.fit(X, y)
        stored = optuna.load_study(study_name=name, storage=_opened(url))
        assert len(stored.trials) == 2
        assert model.best_loss_ == pytest.approx(stored.best_value)
        assert model.predict(X[:4]).shape == (4,)
    finally:
        optuna.delete_study(study_name=name, storage=_opened(url))


def test_open_storage_docstring_example() -> None:
    import inspect
    import textwrap

    doc = inspect.getdoc(open_storage) or ""
    code = doc.split(".. testcode::", 1)[1]
    exec(textwrap.dedent(code), {})


def test_dashboard_argument() -> None:
    assert storages.dashboard_argument("journal:///tmp/a.log") == "/tmp/a.log"
    assert storages.dashboard_argument("redis://h:1/0") == "redis://h:1/0"
    assert storages.dashboard_argument("mysql://u:pw@h/d").startswith("mysql+")
    assert "pw" not in storages.dashboard_argument("mysql://u:pw@h/d")


_OPEN_AT_ONCE = """
import os, sys, time
import optuna
from optuna_psms.storages import open_storage
optuna.logging.set_verbosity(optuna.logging.ERROR)
open(sys.argv[2] + "." + str(os.getpid()), "w").close()  # imported, ready
while not os.path.exists(sys.argv[2]):  # every process starts its set-up at the same moment
    time.sleep(0.001)
optuna.create_study(storage=open_storage(sys.argv[1]), study_name="s", load_if_exists=True)
"""


def _fresh_database(kind: str, tmp_path: Any) -> tuple[str, Any]:
    """A URL of an empty database, and a function that drops it."""
    name = f"psms_race_{uuid.uuid4().hex[:10]}"
    if kind == "sqlite":
        return f"sqlite:///{tmp_path}/fresh.db", lambda: None
    from sqlalchemy import create_engine
    from sqlalchemy import text

    admin_url = {"postgresql": PG, "mysql": MYSQL}[kind]
    require_service(kind, "127.0.0.1", 5432 if kind == "postgresql" else 3306)
    admin_sql = storages.rdb_url(admin_url)
    assert admin_sql is not None
    engine = create_engine(admin_sql, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))

    force = " WITH (FORCE)" if kind == "postgresql" else ""  # the test's own pool is open

    def drop() -> None:
        with engine.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}{force}"))
        engine.dispose()

    return admin_url.rsplit("/", 1)[0] + "/" + name, drop


@pytest.mark.services
@pytest.mark.parametrize(
    "kind",
    # With the slow tests (CI runs them): four fresh interpreters each, for the 5 minutes.
    [pytest.param(kind, marks=pytest.mark.slow) for kind in ("sqlite", "postgresql", "mysql")],
)
def test_workers_started_together_on_an_empty_database(kind: str, tmp_path: Any) -> None:
    # Optuna's RDBStorage alone: measured 3 of 12 processes failing on SQLite, 9 of 12 on
    # MariaDB, 6 of 12 on PostgreSQL (4 at a time on a new database; unique-key violations
    # and "table already exists"). open_storage retries that collision.
    import os
    import subprocess
    import sys
    import time

    url, drop = _fresh_database(kind, tmp_path)
    try:
        go = tmp_path / "go"
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _OPEN_AT_ONCE, url, str(go)],
                env=env,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("go.*"))) < 4 and time.monotonic() < deadline:
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.01)
        go.touch()  # all four are imported and waiting: release them together
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
        assert optuna.get_all_study_names(_opened(url)) == ["s"]
    finally:
        drop()


def test_only_a_schema_collision_is_retried(monkeypatch: Any) -> None:
    from sqlalchemy import exc as sa_exc

    calls: list[str] = []
    collision = sa_exc.IntegrityError("INSERT INTO alembic_version", {}, Exception("UNIQUE"))

    def flaky(url: str, engine_kwargs: Any = None) -> Any:
        calls.append(url)
        if len(calls) < 3:
            raise collision
        return "opened"

    monkeypatch.setattr(storages, "_sleep", lambda seconds: None)
    monkeypatch.setattr(optuna.storages, "RDBStorage", flaky)
    monkeypatch.setattr(_sqlite, "SQLiteStorage", flaky)  # what a sqlite:// URL opens
    # The patched RDBStorage returns a string, not a storage.
    assert open_storage("sqlite:///x.db") == "opened"  # type: ignore[comparison-overlap]
    assert len(calls) == 3
    calls.clear()
    refused = sa_exc.OperationalError("connect", {}, Exception("Connection refused"))

    def unreachable(url: str, engine_kwargs: Any = None) -> Any:
        calls.append(url)
        raise refused

    monkeypatch.setattr(optuna.storages, "RDBStorage", unreachable)
    monkeypatch.setattr(_sqlite, "SQLiteStorage", unreachable)
    with pytest.raises(sa_exc.OperationalError):
        open_storage("sqlite:///x.db")
    assert len(calls) == 1  # an unreachable server fails at once, not after retries


def _busy_timeout_ms(storage: Any) -> int:
    """SQLite's busy timeout of a connection of ``storage`` (milliseconds), read back from the
    connection itself."""
    rdb = getattr(storage, "_backend", storage)  # Optuna's cache wraps the RDBStorage
    assert isinstance(rdb, optuna.storages.RDBStorage)
    with rdb.engine.connect() as connection:
        return int(connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one())


def test_the_package_s_entry_points_wait_for_a_sqlite_lock(
    tmp_path: Any, monkeypatch: Any
) -> None:
    """The CLI, ``compare`` and ``FullModelSelector`` given a URL open SQLite with a 120 s lock
    wait: several workers write one file, and SQLite's own 5 s failed a worker with
    "database is locked" whenever another held the file longer (the CLI and the selector
    used the 5 s before; ``compare`` did not)."""
    from sklearn.datasets import load_iris

    from optuna_psms.cli import _study
    from optuna_psms.compare._studies import open_comparison_storage
    from optuna_psms.fms import _search
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace

    url = f"sqlite:///{tmp_path}/w.db"
    expected = int(storages.WORKER_SQLITE_TIMEOUT * 1000)
    assert expected >= 60_000
    assert _busy_timeout_ms(open_storage(url)) == 5_000  # SQLite's default: the plain call
    assert _busy_timeout_ms(_study.open_storage(url)) == expected
    assert _busy_timeout_ms(open_comparison_storage(url)) == expected

    opened: list[Any] = []

    def spy(storage: Any, **kwargs: Any) -> Any:
        opened.append(open_storage(storage, **kwargs))
        return opened[-1]

    monkeypatch.setattr(_search, "open_storage", spy)
    X, y = load_iris(return_X_y=True)
    FullModelSelector(
        space=FullModelSpace(classifiers=["naive_bayes"], selectors=[]),
        sampler="random",
        n_trials=1,
        storage=url,
        final_check=None,
        random_state=0,
    ).fit(X, y)
    assert len(opened) == 1
    assert _busy_timeout_ms(opened[0]) == expected
