"""Every Optuna storage by one URL string: the rule behind ``--storage`` and
``FullModelSelector(storage=...)``.

=====================================  ==========================================  ==========
URL                                    storage                                     extra
=====================================  ==========================================  ==========
``sqlite:///relative.db``,             :class:`optuna.storages.RDBStorage`         (none)
``sqlite:////abs/path.db``
``postgresql://user:pw@host:5432/db``  RDBStorage, driver psycopg 3 (or psycopg2)  postgresql
``mysql://user:pw@host:3306/db``       RDBStorage, driver PyMySQL (or mysqlclient)  mysql
``journal:///abs/path.log``,           JournalStorage(JournalFileBackend)          (none)
``journal:relative.log``, ``x.log``
``redis://host:6379/0``, ``rediss://``  JournalStorage(JournalRedisBackend)         redis
``grpc://host:13000``                  :class:`optuna.storages.GrpcStorageProxy`   grpc
=====================================  ==========================================  ==========

A URL that names its SQLAlchemy driver (``postgresql+psycopg2://``, ``mysql+pymysql://``) is
used as given. ``postgres://`` and ``mariadb://`` are accepted as aliases. A missing driver
raises :class:`MissingDriverError` (an :class:`ImportError`) whose one-line message names the
extra to install; an unknown form raises :class:`StorageURLError` (a :class:`ValueError`).
"""

from __future__ import annotations

import importlib.util
import os
import re
from typing import Any
from typing import overload
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    import optuna


__all__ = [
    "MissingDriverError",
    "StorageURLError",
    "dashboard_argument",
    "hide_password",
    "open_storage",
    "rdb_url",
]

#: File suffixes read as journal files when a bare path is given.
JOURNAL_SUFFIXES = (".log", ".jsonl", ".journal")

#: Seconds :func:`open_storage` waits for a ``grpc://`` proxy to answer (a worker started
#: with its proxy waits for it; a wrong address fails after this, with one line).
GRPC_READY_TIMEOUT = 10.0

#: Seconds a SQLite connection opened by the package's own entry points (the CLI,
#: :class:`~optuna_psms.fms.FullModelSelector` given a URL, ``optuna-psms compare``) waits
#: for another writer's lock. SQLite's default, 5 s, fails a worker with "database is
#: locked" as soon as another process or thread holds the file that long.
WORKER_SQLITE_TIMEOUT = 120.0

#: One line for ``--help``: the accepted URL forms.
URL_FORMS = (
    "sqlite:///FILE.db, postgresql://USER:PW@HOST/DB, mysql://USER:PW@HOST/DB, "
    "journal:///PATH.log (or a PATH.log), redis://HOST:PORT/DB, grpc://HOST:PORT"
)


class StorageURLError(ValueError):
    """A storage URL of an unknown or malformed form."""


class MissingDriverError(ImportError):
    """The storage needs a database driver that is not installed."""


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _missing(what: str, extra: str, modules: str) -> MissingDriverError:
    return MissingDriverError(
        f"{what} needs {modules}, which is not installed; pip install 'optuna-psms[{extra}]'"
    )


def hide_password(url: str) -> str:
    """``url`` with its password (``scheme://user:PASSWORD@host``) replaced by ``***``."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def _postgresql(url: str) -> str:
    rest = url.split("://", 1)[1]
    if _has("psycopg"):
        return f"postgresql+psycopg://{rest}"
    if _has("psycopg2"):
        return f"postgresql+psycopg2://{rest}"
    raise _missing("a PostgreSQL storage", "postgresql", "the driver psycopg (or psycopg2)")


def _mysql(url: str) -> str:
    rest = url.split("://", 1)[1]
    if _has("pymysql"):
        return f"mysql+pymysql://{rest}"
    if _has("MySQLdb"):
        return f"mysql+mysqldb://{rest}"
    raise _missing("a MySQL/MariaDB storage", "mysql", "the driver PyMySQL (or mysqlclient)")


_DRIVER_MODULES = {
    "psycopg": ("postgresql", "psycopg"),
    "psycopg2": ("postgresql", "psycopg2"),
    "pg8000": ("postgresql", "pg8000"),
    "asyncpg": ("postgresql", "asyncpg"),
    "pymysql": ("mysql", "pymysql"),
    "mysqldb": ("mysql", "MySQLdb"),
    "mysqlconnector": ("mysql", "mysql.connector"),
}


def rdb_url(url: str) -> str | None:
    """The SQLAlchemy URL of an RDB storage URL, with an installed driver; ``None`` if ``url``
    is not an RDB URL.

    Raises:
        MissingDriverError: The database's driver is not installed.
    """
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    base, _, driver = scheme.partition("+")
    if base == "sqlite":
        return url
    if base not in ("postgresql", "postgres", "mysql", "mariadb"):
        return None
    if driver:
        extra, module = _DRIVER_MODULES.get(driver, ("", ""))
        if module and not _has(module):
            name = "PostgreSQL" if extra == "postgresql" else "MySQL/MariaDB"
            raise _missing(f"a {name} storage", extra, f"the driver {module}")
        if base in ("postgres", "mariadb"):
            return ("postgresql" if base == "postgres" else "mysql") + url[len(base) :]
        return url
    return _postgresql(url) if base in ("postgresql", "postgres") else _mysql(url)


def _journal_path(url: str) -> str | None:
    if url.lower().startswith("journal:"):
        path = url[len("journal:") :]
        if path.startswith("//"):
            path = path[2:]  # journal:///abs -> /abs, journal://rel -> rel (as sqlite)
        if not path:
            raise StorageURLError("journal storage URL without a path; use journal:///PATH.log")
        return path
    if "://" not in url and url.lower().endswith(JOURNAL_SUFFIXES):
        return url
    return None


def dashboard_argument(url: str) -> str:
    """What to give ``optuna-dashboard`` for a storage URL: a journal file by its path, a
    database with the driver this module picks, the password hidden."""
    path = _journal_path(url)
    if path is not None:
        return path
    try:
        sql = rdb_url(url)
    except MissingDriverError:
        sql = None
    return hide_password(sql if sql is not None else url)


#: Attempts at opening an RDB storage whose schema another process may be creating.
SCHEMA_ATTEMPTS = 8


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


def _schema_race(exc: BaseException) -> bool:
    """Whether ``exc`` is another process creating Optuna's tables at the same moment.

    Workers started together on an empty database all run Optuna's schema set-up; all but
    one fail with a unique-key violation (PostgreSQL's ``pg_type`` entry of a new table,
    ``alembic_version``) or a "table already exists" error (MySQL, SQLite). Measured here:
    4 processes on a new PostgreSQL database, 1 failed.
    """
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, (sa_exc.IntegrityError, sa_exc.ProgrammingError)):
        return True
    return isinstance(exc, sa_exc.OperationalError) and "already exists" in str(exc).lower()


def _open_rdb(sql: str, engine: dict[str, Any]) -> optuna.storages.RDBStorage:
    """``RDBStorage(sql)``, retried while a concurrent schema set-up collides with ours; on
    SQLite, one whose threads take an enqueued trial one at a time (``_compat._sqlite``)."""
    import optuna

    from optuna_psms._compat._sqlite import SQLiteStorage

    kind = SQLiteStorage if sql.lower().startswith("sqlite") else optuna.storages.RDBStorage
    for attempt in range(SCHEMA_ATTEMPTS):
        try:
            return kind(sql, engine_kwargs=engine)
        except Exception as exc:
            if attempt == SCHEMA_ATTEMPTS - 1 or not _schema_race(exc):
                raise
            _sleep(0.1 * 2**attempt)  # the other process commits its schema meanwhile
    raise AssertionError("unreachable")


@overload
def open_storage(
    storage: str | optuna.storages.BaseStorage, *, sqlite_timeout: float | None = None
) -> optuna.storages.BaseStorage: ...


@overload
def open_storage(storage: None, *, sqlite_timeout: float | None = None) -> None: ...


def open_storage(
    storage: str | optuna.storages.BaseStorage | None,
    *,
    sqlite_timeout: float | None = None,
) -> optuna.storages.BaseStorage | None:
    """Open a storage given by URL (see the module docstring); objects and ``None`` pass
    through.

    Args:
        storage: A URL, an Optuna storage object, or ``None`` (in memory).
        sqlite_timeout: Seconds a SQLite connection waits for another process's write lock
            (SQLite's own default is 5 s); several worker processes writing one SQLite file
            need more. Ignored for other storages.

    Returns:
        The storage object, or ``None``.

    Raises:
        StorageURLError: Unknown or malformed URL.
        MissingDriverError: The storage's driver is not installed (the message names the
            extra).
        ConnectionError: No gRPC storage proxy answered a ``grpc://`` URL within
            :data:`GRPC_READY_TIMEOUT` seconds.

    Example:

        .. testcode::

            import tempfile

            import optuna
            from optuna_psms.storages import open_storage

            with tempfile.TemporaryDirectory() as tmp:
                storage = open_storage(f"journal:///{tmp}/study.log")
                study = optuna.create_study(storage=storage)
                study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
                assert len(study.trials) == 2
    """
    import optuna

    if storage is None or isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if not isinstance(storage, str):
        raise StorageURLError(
            f"storage must be a URL string or an Optuna storage; got {storage!r}"
        )
    url = storage.strip()
    if not url:
        raise StorageURLError(f"empty storage URL; use one of: {URL_FORMS}")
    _check_sqlite_url(url)
    sql = rdb_url(url)
    if sql is not None:
        engine: dict[str, Any] = {}
        if sqlite_timeout is not None and sql.lower().startswith("sqlite"):
            engine = {"connect_args": {"timeout": float(sqlite_timeout)}}
        return _open_rdb(sql, engine)
    journal = _journal_path(url)
    if journal is not None:
        from optuna.storages.journal import JournalFileBackend

        return optuna.storages.JournalStorage(JournalFileBackend(journal))
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss"):
        if not _has("redis"):
            raise _missing("a Redis storage", "redis", "the package redis")
        from optuna.storages.journal import JournalRedisBackend

        return optuna.storages.JournalStorage(JournalRedisBackend(url))
    if scheme == "grpc":
        match = re.fullmatch(r"grpc://([^:/]+):(\d+)/?", url)
        if match is None:
            raise StorageURLError(f"malformed gRPC storage URL {url!r}; use grpc://HOST:PORT")
        if not (_has("grpc") and _has("google.protobuf")):
            raise _missing("a gRPC storage proxy", "grpc", "grpcio and protobuf")
        host, port = match.group(1), int(match.group(2))
        proxy = optuna.storages.GrpcStorageProxy(host=host, port=port)
        try:  # fail here, in one line, rather than with a gRPC traceback at the first call
            if hasattr(proxy, "wait_server_ready"):  # every Optuna with the proxy, to be safe
                proxy.wait_server_ready(timeout=GRPC_READY_TIMEOUT)
        except ConnectionError:
            raise ConnectionError(
                f"no gRPC storage proxy answered at {host}:{port} within "
                f"{GRPC_READY_TIMEOUT:g} s (is run_grpc_proxy_server running there?)"
            ) from None
        return proxy
    shown = hide_password(url)
    if scheme:
        raise StorageURLError(
            f"unknown storage scheme {scheme + '://'!r} in {shown!r}; use {URL_FORMS}"
        )
    if url.lower().startswith("sqlite:"):
        # sqlite:/psms.db or sqlite:psms.db: the hint below said sqlite:///sqlite:/psms.db
        # (a new user's trial, 26 Nov 2026).
        path = url[len("sqlite:") :]
        forms = f"sqlite:///{path.lstrip('/')}"
        if path.startswith("/"):
            forms += f" (relative to the current folder) or sqlite:///{path} (absolute)"
        raise StorageURLError(
            f"not a storage URL: {shown!r}; a SQLite URL has three slashes after "
            f"'sqlite:': {forms}"
        )
    if url.lower().endswith((".db", ".sqlite", ".sqlite3")):
        raise StorageURLError(
            f"not a storage URL: {shown!r}; for a SQLite file use sqlite:///{url}"
        )
    raise StorageURLError(f"not a storage URL: {shown!r}; use {URL_FORMS}")


def _check_sqlite_url(url: str) -> None:
    """Say what is wrong with a plain ``sqlite://`` URL that SQLite cannot open: two slashes
    before a relative path (SQLAlchemy's "Invalid SQLite URL"), or a file in a folder that
    does not exist (SQLite's "unable to open database file")."""
    if not url.lower().startswith("sqlite://"):
        return
    rest = url[len("sqlite://") :]
    if not rest:  # sqlite:// is SQLAlchemy's in-memory database
        return
    if not rest.startswith("/"):
        raise StorageURLError(
            f"SQLite URL {url!r} needs three slashes before a relative path: "
            f"sqlite:///{rest} (an absolute one has four: sqlite:////abs/path.db)"
        )
    path = rest[1:].split("?", 1)[0]
    if path in ("", ":memory:") or path.startswith("file:"):
        return
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise StorageURLError(
            f"SQLite file {path!r}: its folder {folder!r} does not exist (SQLite creates the "
            f"file, not the folder)"
        )
