"""Writing a trial's attributes in one storage write: the write half of :mod:`optuna_psms._compat`.

Part of :mod:`optuna_psms._compat` (which re-exports :func:`set_attrs`): it uses Optuna
internals (a journal's log format, an RDB's sessions and models), each behind a check that
falls back to Optuna's public per-attribute calls; ``tests/compat/test_attr_writes.py`` covers it.

What it pays for, on SQLite, PSO paired with RandomSampler in each run (``python -m
optuna_psms.benchmarks.overhead --samplers pso --memory-trials --sqlite-trials 1000
--repeat 2``, then the same with ``--per-attribute-writes``; 28 Nov 2026, load average about
8 on the 2-core VM): PSO's trials cost 1.02x RandomSampler's with the one write and 1.27x
with one write per attribute. Without it, the sampler's bookkeeping is a quarter of each
trial's cost on the embedded default storage.

In memory, Optuna's ``InMemoryStorage`` copies the trial (``copy.copy`` of a
:class:`~optuna.trial.FrozenTrial` and of its attr dict) for every attribute; here the
trial is copied once for all of them (:func:`_memory_write`). A PSO trial writes three
attributes (its record and two display attrs): in a cProfile of 3,000 PSO trials after
7,000 (garbage collector off) ``set_attrs`` took 0.168 s with one call per attribute, most
of it in those copies, and 0.080 s with one copy (docs/reproduce/reproductions.md, "Per-trial
overhead at 10,000 trials").
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
import contextlib
import copy
import functools
import json
import sqlite3
from typing import Any
from typing import TYPE_CHECKING

from optuna.storages import InMemoryStorage
from optuna.storages import JournalStorage
from optuna.storages import RDBStorage
from optuna.storages._cached_storage import _CachedStorage
from optuna.trial import FrozenTrial
from optuna.trial import TrialState


if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study

#: ``False``: write one attribute per call, as Optuna's public API does (the overhead
#: benchmark's ``--per-attribute-writes`` measures what the one write saves).
BATCHED = True


def set_attrs(
    study: Study,
    trial: FrozenTrial,
    system: Mapping[str, Any] | None = None,
    user: Mapping[str, Any] | None = None,
) -> None:
    """Write a trial's system attributes, then its user attributes, in one storage write.

    Optuna's storages write one attribute per call: a commit (an fsync on SQLite) per
    attribute on an RDB, a locked, fsynced append per attribute on a journal file. Here a
    journal storage gets one append of all the attributes' log entries, an RDB one
    transaction and the in-memory storage one copy of the trial; any other storage (the
    gRPC proxy) gets one call per attribute, in the same order. Either way the outcome is
    that of the separate calls (a finished trial raises as Optuna's own calls do).
    """
    items = [(True, k, v) for k, v in (system or {}).items()]
    items += [(False, k, v) for k, v in (user or {}).items()]
    storage, tid = study._storage, trial._trial_id
    if (
        BATCHED
        and len(items) > 1
        and (
            _memory_write(storage, tid, items)
            or _journal_write(storage, tid, items)
            or _rdb_write(storage, tid, items)
        )
    ):
        return
    for is_system, key, value in items:
        if is_system:
            storage.set_trial_system_attr(tid, key, value)
        else:
            storage.set_trial_user_attr(tid, key, value)


def _memory_write(storage: BaseStorage, tid: int, items: list[tuple[bool, str, Any]]) -> bool:
    """One copy of the trial for all the attributes, as ``InMemoryStorage`` writes one."""
    lock = getattr(storage, "_lock", None)
    if type(storage) is not InMemoryStorage or not _MEMORY_PARTS or lock is None:
        return False
    with lock:
        trial = storage._get_trial(tid)  # raises KeyError for an unknown id, as Optuna's
        storage.check_trial_is_updatable(tid, trial.state)
        trial = copy.copy(trial)
        system: dict[str, Any] = dict(trial.system_attrs)
        user: dict[str, Any] = dict(trial.user_attrs)
        trial.system_attrs, trial.user_attrs = system, user
        for is_system, key, value in items:
            (system if is_system else user)[key] = value
        storage._set_trial(tid, trial)
    return True


def _journal_write(storage: BaseStorage, tid: int, items: list[tuple[bool, str, Any]]) -> bool:
    """One append of the attributes' journal entries, as ``JournalStorage`` writes them."""
    if not isinstance(storage, JournalStorage) or _JOURNAL_OPS is None:
        return False
    backend = getattr(storage, "_backend", None)
    replay = getattr(storage, "_replay_result", None)
    worker_id = getattr(replay, "worker_id", None)
    if backend is None or worker_id is None or not hasattr(storage, "_sync_with_backend"):
        return False
    system_op, user_op = _JOURNAL_OPS
    logs = [
        {
            "op_code": system_op if is_system else user_op,
            "worker_id": worker_id,
            "trial_id": tid,
            ("system_attr" if is_system else "user_attr"): {key: value},
        }
        for is_system, key, value in items
    ]
    with storage._thread_lock:
        backend.append_logs(logs)
        # Replaying an entry of ours that cannot apply (the trial has finished) raises and
        # leaves the later entries unread, to raise again on the next read: replay them all
        # now, so that the error is raised once, here, as Optuna's own calls raise it.
        error: Exception | None = None
        for _ in range(len(logs)):
            try:
                storage._sync_with_backend()
                break
            except Exception as exc:
                error = error or exc
        if error is not None:
            raise error
    return True


def _rdb_write(storage: BaseStorage, tid: int, items: list[tuple[bool, str, Any]]) -> bool:
    """One transaction: one check that the trial is running, one upsert per attr table.

    Optuna's own ``_set_trial_attr_without_commit`` looks the trial up and builds an upsert
    per attribute (two statements each); on SQLite, PostgreSQL and MySQL the same rows are
    written here by one multi-row upsert per table (the record and the display attrs: three
    statements instead of six). Other dialects get Optuna's per-attribute write.
    """
    if isinstance(storage, _CachedStorage):
        storage = storage._backend
    if not isinstance(storage, RDBStorage) or _RDB_WRITE is None:
        return False
    scoped, trial_model, system_model, user_model = _RDB_WRITE
    upsert = _UPSERTS.get(storage.engine.name)
    if upsert is None:
        write = getattr(storage, "_set_trial_attr_without_commit", None)
        if write is None:
            return False
        with scoped(storage.scoped_session, True) as session:
            for is_system, key, value in items:
                write(session, system_model if is_system else user_model, tid, key, value)
        return True
    if _pg_write(storage, tid, items):
        return True
    tables = ((system_model, True), (user_model, False))
    with scoped(storage.scoped_session, True) as session:
        trial = trial_model.find_or_raise_by_id(tid, session)
        storage.check_trial_is_updatable(tid, trial.state)
        for model, system in tables:
            rows = [
                {"trial_id": tid, "key": key, "value_json": json.dumps(value)}
                for is_system, key, value in items
                if is_system == system
            ]
            if rows:
                session.execute(upsert(model.__table__), rows)
    return True


@contextlib.contextmanager
def autocommit(storage: RDBStorage) -> Iterator[Any | None]:
    """A pooled connection of ``storage`` in autocommit mode, or ``None`` where not supported.

    Only with psycopg2 (PostgreSQL), whose ``autocommit`` switch is client-side: a statement
    run on it is its own transaction, one round trip, where a session costs three more
    (psycopg2's ``BEGIN``, the ``COMMIT`` or ``ROLLBACK``; SQLAlchemy's ``AUTOCOMMIT``
    isolation level would add a ``SET`` when the connection goes back to the pool). Under
    load every round trip is a wait for the scheduler: with 8 PSO and 8 RandomSampler
    workers on 2 cores, a one-row ``SELECT`` in a session took 11 ms (cProfile of
    ``docs/reproduce/ask_time.py --workers 8 --trials 25 --heartbeat``). The switch is
    turned off again before the connection goes back to the pool.
    """
    if storage.engine.dialect.driver != "psycopg2":
        yield None
        return
    with storage.engine.connect() as connection:
        driver = connection.connection.driver_connection
        if driver is None or getattr(driver, "autocommit", True):
            yield None
            return
        driver.autocommit = True
        try:
            yield connection
        finally:
            # SQLAlchemy invalidates a connection that lost the server; any other may go
            # back to the pool once the switch is off.
            if not connection.invalidated:
                try:
                    driver.autocommit = False
                except Exception:
                    connection.invalidate()


def _pg_write(storage: RDBStorage, tid: int, items: list[tuple[bool, str, Any]]) -> bool:
    """PostgreSQL: the check and both upserts in one autocommitted statement.

    Returns ``False`` (nothing written) where that is not possible, and when the trial does
    not exist or has finished: the caller's transaction then raises as Optuna does.

    With 8 PSO and 8 RandomSampler workers on 2 cores (``docs/reproduce/ask_time.py
    --workers 8 --trials 25 --heartbeat``) the transaction (``BEGIN``, the trial's
    ``SELECT``, two upserts, ``COMMIT``: five round trips) took 19.5 ms of PSO's ask.
    """
    statement = _pg_statement()
    if statement is None:
        return False
    system = [(key, json.dumps(value)) for is_system, key, value in items if is_system]
    user = [(key, json.dumps(value)) for is_system, key, value in items if not is_system]
    params = {
        "tid": tid,
        "sk": [k for k, _ in system],
        "sv": [v for _, v in system],
        "uk": [k for k, _ in user],
        "uv": [v for _, v in user],
    }
    return _pg_execute(storage, statement, params)


def _pg_execute(storage: RDBStorage, statement: Any, params: dict[str, Any]) -> bool:
    """Run ``statement`` autocommitted; whether it ran and its first column was not 0."""
    try:
        with autocommit(storage) as connection:
            if connection is None:
                return False
            found = connection.execute(statement, params).scalar()
    except Exception:  # any failure: the caller's transaction writes (upserts: idempotent)
        return False
    return bool(found)


def set_study_user_attrs(study: Study, attrs: Mapping[str, Any]) -> None:
    """Write a study's user attributes in one storage write where possible.

    On PostgreSQL (psycopg2) one autocommitted statement; elsewhere Optuna's
    :meth:`~optuna.study.Study.set_user_attr` per attribute, in order. A sampler's first
    ask in each process writes three (``optuna_psms.samplers._study_info``), and the workers
    of a study start together: each ``set_user_attr`` is a transaction of five round trips
    (``BEGIN``, the study's ``SELECT``, the attribute's, its write, ``COMMIT``). With 16 PSO
    and 16 RandomSampler workers (``docs/reproduce/ask_time.py --workers 16 --trials 15
    --heartbeat``, load 27-31) those first asks cost PSO 20-122 ms per ask on average.
    """
    storage: Any = study._storage
    if isinstance(storage, _CachedStorage):
        storage = storage._backend
    if BATCHED and len(attrs) > 1 and isinstance(storage, RDBStorage):
        statement = _pg_study_statement()
        params = {
            "sid": study._study_id,
            "k": list(attrs),
            "v": [json.dumps(value) for value in attrs.values()],
        }
        if statement is not None and _pg_execute(storage, statement, params):
            return
    for key, value in attrs.items():
        study.set_user_attr(key, value)


@functools.cache
def _pg_study_statement() -> Any:
    """The statement of :func:`set_study_user_attrs` (``None`` without Optuna's models)."""
    try:
        from optuna.storages._rdb import models
        from sqlalchemy import text
    except ImportError:  # pragma: no cover - another Optuna layout
        return None
    studies = models.StudyModel.__tablename__
    table = models.StudyUserAttributeModel.__tablename__
    return text(
        f"WITH s AS (SELECT study_id FROM {studies} WHERE study_id = :sid), "
        f"u AS (INSERT INTO {table} (study_id, key, value_json) SELECT s.study_id, a.k, a.v "
        "FROM s, unnest(CAST(:k AS text[]), CAST(:v AS text[])) AS a(k, v) "
        "ON CONFLICT (study_id, key) DO UPDATE SET value_json = EXCLUDED.value_json "
        "RETURNING 1) SELECT count(*) FROM s"
    )


@functools.cache
def _pg_statement() -> Any:
    """The statement of :func:`_pg_write` (``None`` without Optuna's models)."""
    try:
        from optuna.storages._rdb import models
        from sqlalchemy import text
    except ImportError:  # pragma: no cover - another Optuna layout
        return None
    finished = ", ".join(f"'{s.name}'" for s in TrialState if s.is_finished())
    trials = models.TrialModel.__tablename__
    upsert = """{name} AS (
        INSERT INTO {table} (trial_id, key, value_json)
        SELECT t.trial_id, a.k, a.v
        FROM t, unnest(CAST(:{k} AS text[]), CAST(:{v} AS text[])) AS a(k, v)
        ON CONFLICT (trial_id, key) DO UPDATE SET value_json = EXCLUDED.value_json
        RETURNING 1)"""
    system = upsert.format(
        name="s", table=models.TrialSystemAttributeModel.__tablename__, k="sk", v="sv"
    )
    user = upsert.format(
        name="u", table=models.TrialUserAttributeModel.__tablename__, k="uk", v="uv"
    )
    return text(
        f"WITH t AS (SELECT trial_id FROM {trials} WHERE trial_id = :tid "
        f"AND state NOT IN ({finished})), {system}, {user} SELECT count(*) FROM t"
    )


def _upserts() -> dict[str, Callable[[Any], Any]]:
    """Per dialect: a table's insert-or-update of ``value_json`` on ``(trial_id, key)``."""
    try:
        from sqlalchemy.dialects import mysql
        from sqlalchemy.dialects import postgresql
        from sqlalchemy.dialects import sqlite
    except ImportError:  # pragma: no cover - SQLAlchemy is Optuna's RDB dependency
        return {}

    @functools.cache
    def on_conflict(insert: Any, table: Any) -> Any:
        stmt = insert(table)
        excluded = stmt.excluded.value_json
        return stmt.on_conflict_do_update(
            index_elements=[table.c.trial_id, table.c.key], set_={"value_json": excluded}
        )

    @functools.cache
    def on_duplicate(table: Any) -> Any:
        stmt = mysql.insert(table)
        return stmt.on_duplicate_key_update(value_json=stmt.inserted.value_json)

    out: dict[str, Callable[[Any], Any]] = {
        "postgresql": functools.partial(on_conflict, postgresql.insert),
        "mysql": on_duplicate,
    }
    if sqlite3.sqlite_version_info >= (3, 24, 0):  # ON CONFLICT ... DO UPDATE
        out["sqlite"] = functools.partial(on_conflict, sqlite.insert)
    return out


_UPSERTS = _upserts()


def _journal_ops() -> tuple[int, int] | None:
    try:
        from optuna.storages.journal._storage import JournalOperation

        return JournalOperation.SET_TRIAL_SYSTEM_ATTR, JournalOperation.SET_TRIAL_USER_ATTR
    except (ImportError, AttributeError):  # pragma: no cover - another Optuna layout
        return None


def _rdb_write_parts() -> tuple[Any, Any, Any, Any] | None:
    try:
        from optuna.storages._rdb import models
        from optuna.storages._rdb.storage import _create_scoped_session

        return (
            _create_scoped_session,
            models.TrialModel,
            models.TrialSystemAttributeModel,
            models.TrialUserAttributeModel,
        )
    except (ImportError, AttributeError):  # pragma: no cover - another Optuna layout
        return None


#: ``InMemoryStorage`` has the private methods :func:`_memory_write` uses (Optuna 3.x-5.x).
_MEMORY_PARTS = all(hasattr(InMemoryStorage, name) for name in ("_get_trial", "_set_trial"))
_JOURNAL_OPS = _journal_ops()
_RDB_WRITE = _rdb_write_parts()
