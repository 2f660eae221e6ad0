"""The Optuna internals isolated in optuna_psms._compat, on every kind of local storage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import optuna
from optuna.trial import TrialState
import pytest

from optuna_psms import _compat
from tests.conftest import require_service


def _storages(tmp_path: Any) -> dict[str, Callable[[], Any]]:
    return {
        "memory": lambda: optuna.storages.InMemoryStorage(),
        "sqlite": lambda: optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/c.db"),
        "journal": lambda: optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(tmp_path / "c.log"))
        ),
    }


@pytest.fixture(params=["memory", "sqlite", "journal"])
def study(request: pytest.FixtureRequest, tmp_path: Any) -> optuna.Study:
    storage = _storages(tmp_path)[request.param]()
    return optuna.create_study(storage=storage)


def test_storage_and_ids(study: optuna.Study) -> None:
    storage, study_id = _compat.storage_of(study)
    assert storage.get_study_name_from_id(study_id) == study.study_name
    trial = study.ask()
    frozen = storage.get_trial(trial._trial_id)
    assert _compat.trial_id(frozen) == trial._trial_id
    assert storage.get_trial(_compat.trial_id(frozen)).number == trial.number


def test_fixed_params_of_an_enqueued_trial(study: optuna.Study) -> None:
    study.enqueue_trial({"x": 0.25})
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    assert _compat.fixed_params(frozen) == {"x": 0.25}
    other = study.ask()
    assert _compat.fixed_params(study._storage.get_trial(other._trial_id)) == {}


def test_attrs_are_written(study: optuna.Study) -> None:
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    _compat.set_system_attrs(study, frozen, {"psms:a": "x", "psms:b": 1})
    _compat.set_user_attrs(study, frozen, {"psms:c": 2})
    again = study._storage.get_trial(trial._trial_id)
    assert again.system_attrs["psms:a"] == "x" and again.system_attrs["psms:b"] == 1
    assert again.user_attrs == {"psms:c": 2}


def test_fetch_changed_trials_is_incremental(study: optuna.Study) -> None:
    t0 = study.ask()
    study.tell(t0, 1.0)
    running = study.ask()
    cursor = _compat.ReadCursor()
    trials = _compat.fetch_changed_trials(study, cursor)
    assert [t.number for t in trials] == [0, 1] and cursor.next_number == 2
    assert cursor.last_id == running._trial_id
    pending = {running.number: running._trial_id}
    trials = _compat.fetch_changed_trials(study, cursor, running=pending)
    # A running trial that has not finished: nothing to report (some storages return it).
    assert all(t.number == 1 and t.state == TrialState.RUNNING for t in trials)
    study.tell(running, 2.0)
    study.tell(study.ask(), 3.0)
    trials = _compat.fetch_changed_trials(study, cursor, running=pending)
    assert sorted(t.number for t in trials) == [1, 2] and cursor.next_number == 3
    assert all(t.state == TrialState.COMPLETE for t in trials)


def test_fetch_changed_trials_reads_bare_trials_in_full(study: optuna.Study) -> None:
    cursor = _compat.ReadCursor()
    bare = study.ask()
    _compat.fetch_changed_trials(study, cursor)
    study._storage.set_trial_system_attr(bare._trial_id, "psms:rec", "{}")
    (again,) = _compat.fetch_changed_trials(study, cursor, bare={0: bare._trial_id})
    assert again.number == 0 and again.system_attrs["psms:rec"] == "{}"


def test_fetch_changed_trials_uses_the_trial_being_asked(study: optuna.Study) -> None:
    study.tell(study.ask(), 1.0)
    cursor = _compat.ReadCursor()
    _compat.fetch_changed_trials(study, cursor)
    skipped = study.ask()  # created by "another worker" before ours
    ours = study.ask()
    current = study._storage.get_trial(ours._trial_id)
    trials = _compat.fetch_changed_trials(study, cursor, current=current)
    assert sorted(t.number for t in trials) == [skipped.number, ours.number]
    assert cursor.next_number == ours.number + 1
    later = study.ask()  # created after ours
    nxt = study._storage.get_trial(later._trial_id)
    trials = _compat.fetch_changed_trials(study, cursor, current=nxt)  # only the current one
    assert trials == [nxt] and cursor.next_number == later.number + 1


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_fetch_changed_trials_reads_many_new_trials(study: optuna.Study) -> None:
    study.tell(study.ask(), 0.0)
    cursor = _compat.ReadCursor()
    _compat.fetch_changed_trials(study, cursor)
    for i in range(150):
        study.tell(study.ask(), float(i))
    trials = _compat.fetch_changed_trials(study, cursor)
    assert sorted(t.number for t in trials) == list(range(1, 151))
    assert cursor.next_number == 151


@pytest.mark.skipif(
    not _compat.RDB_FILTERS_BY_ID, reason="this Optuna's RDBStorage cannot filter trials by id"
)
def test_abandoned_running_trials_cost_no_query_on_an_rdb(tmp_path: Any) -> None:
    """The RDB path asks SQL for the running trials that finished: none comes back."""
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/a.db")
    study = optuna.create_study(storage=storage)
    abandoned = {t.number: t._trial_id for t in (study.ask() for _ in range(30))}
    cursor = _compat.ReadCursor()
    assert len(_compat.fetch_changed_trials(study, cursor)) == 30
    finished = study.ask()
    study.tell(finished, 1.0)
    trials = _compat.fetch_changed_trials(study, cursor, running=abandoned)
    assert [t.number for t in trials] == [finished.number]


def test_stop_optimize_only_inside_optimize(study: optuna.Study) -> None:
    assert _compat.stop_optimize(study) is False  # ask/tell: no optimize loop to stop

    def objective(trial: optuna.Trial) -> float:
        if trial.number == 2:
            assert _compat.stop_optimize(study) is True
        return 0.0

    study.optimize(objective, n_trials=10)
    assert len(study.trials) == 3


@pytest.mark.parametrize("heartbeat", [True, False])
def test_a_trial_created_after_optunas_snapshot(tmp_path: Any, heartbeat: bool) -> None:
    """Study.ask's trial-cache snapshot misses a trial created just before ours. With the
    heartbeat on it may be a retry, which shifts our slot: it is read now. Without, it is
    another worker's new trial: it comes with the next read, at no extra query now."""
    kwargs: dict[str, Any] = {"heartbeat_interval": 60} if heartbeat else {}
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/s.db", **kwargs)
    study = optuna.create_study(storage=storage)
    other = optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/s.db")  # another worker
    cursor = _compat.ReadCursor()
    first = study.ask()  # refreshes Optuna's snapshot
    _compat.fetch_changed_trials(study, cursor, current=study._storage.get_trial(first._trial_id))
    study.ask()  # its snapshot holds trial 0; it creates trial 1
    sneaked = other.create_new_trial(study._study_id)  # e.g. a heartbeat retry
    ours = other.create_new_trial(study._study_id)
    current = other.get_trial(ours)
    trials = _compat.fetch_changed_trials(study, cursor, current=current)
    sneaked_number = other.get_trial(sneaked).number
    if heartbeat:
        assert sneaked_number in {t.number for t in trials}
        assert cursor.next_number == current.number + 1
    else:
        assert sorted(t.number for t in trials) == [1, current.number]
        assert cursor.next_number == sneaked_number  # stops before the gap
        later = _compat.fetch_changed_trials(study, cursor)
        assert sneaked_number in {t.number for t in later}
        assert cursor.next_number == current.number + 1


def test_through_the_grpc_proxy_the_gap_is_left_to_the_next_read(tmp_path: Any) -> None:
    """Through the proxy (no heartbeat, so no retry) the trials created between Study.ask's
    snapshot and ours cost no GetTrials call: they come with the next read."""
    if not hasattr(optuna.storages, "GrpcStorageProxy"):
        pytest.skip("Optuna < 4.2 has no gRPC storage proxy")
    pytest.importorskip("grpc")
    from optuna_psms.benchmarks import scale

    with scale.grpc_proxy(f"sqlite:///{tmp_path}/proxy.db") as spec:
        storage: Any = scale.open_storage(spec)
        study = optuna.create_study(storage=storage)
        cursor = _compat.ReadCursor()
        first = study.ask()
        _compat.fetch_changed_trials(study, cursor, current=storage.get_trial(first._trial_id))
        study.ask()  # its snapshot holds trial 0; it creates trial 1
        sneaked = storage.get_trial(storage.create_new_trial(study._study_id))  # trial 2
        current = storage.get_trial(storage.create_new_trial(study._study_id))
        calls: list[int] = []
        real = storage._stub.GetTrials

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return real(*args, **kwargs)

        storage._stub.GetTrials = counted
        trials = _compat.fetch_changed_trials(study, cursor, current=current)
        assert calls == []
        assert [t.number for t in trials] == [current.number]
        assert cursor.next_number == 1  # stops before the gap
        later = _compat.fetch_changed_trials(study, cursor)
        assert calls == [1]
        assert {1, sneaked.number} <= {t.number for t in later}
        assert cursor.next_number == current.number + 1


def test_heartbeat_retry_is_the_current_callback_and_retries(tmp_path: Any) -> None:
    """No deprecation warning on this Optuna, and a stale trial is failed and retried."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # Optuna's deprecation warnings
        warnings.simplefilter("error", DeprecationWarning)
        kwargs = _compat.heartbeat_retry(max_retry=2)
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{tmp_path}/hb.db", heartbeat_interval=1, grace_period=1, **kwargs
        )
    (callback,) = kwargs.values()
    assert isinstance(callback, _compat.retry_callback_class())
    study = optuna.create_study(storage=storage)
    trial = study.ask()
    frozen = storage.get_trial(trial._trial_id)
    storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)  # as the heartbeat does
    callback(study, storage.get_trial(trial._trial_id))
    (retry,) = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert retry.system_attrs["failed_trial"] == frozen.number


def test_set_attrs_writes_all_in_one_batch(study: optuna.Study) -> None:
    """System then user attrs, as separate calls would write them; one journal append."""
    appends = []
    backend = getattr(study._storage, "_backend", None)
    if isinstance(study._storage, optuna.storages.JournalStorage):
        assert backend is not None
        original = backend.append_logs

        def counted(logs: Any) -> None:
            appends.append(len(logs))
            original(logs)

        backend.append_logs = counted
    trial = study.ask()
    frozen = study._storage.get_trial(trial._trial_id)
    appends.clear()
    _compat.set_attrs(study, frozen, system={"psms:a": [1.5, "x"], "psms:b": 2}, user={"u": 3})
    again = study._storage.get_trial(trial._trial_id)
    assert again.system_attrs == {"psms:a": [1.5, "x"], "psms:b": 2}
    assert again.user_attrs == {"u": 3}
    if appends:
        assert appends == [3]
    study.tell(trial, 1.0)
    with pytest.raises(RuntimeError):  # as Optuna's own calls (UpdateFinishedTrialError)
        _compat.set_attrs(study, frozen, system={"psms:c": 1}, user={"v": 1})
    assert "psms:c" not in study._storage.get_trial(trial._trial_id).system_attrs


def test_abandoned_running_trials_are_not_returned_on_a_journal(tmp_path: Any) -> None:
    """The journal's log is replayed in memory: unfinished running trials are filtered out."""
    study = optuna.create_study(storage=_storages(tmp_path)["journal"]())
    abandoned = {t.number: t._trial_id for t in (study.ask() for _ in range(30))}
    cursor = _compat.ReadCursor()
    assert len(_compat.fetch_changed_trials(study, cursor)) == 30
    finished = study.ask()
    study.tell(finished, 1.0)
    study.tell(3, 2.0)  # one of them finishes after all
    trials = _compat.fetch_changed_trials(study, cursor, running=abandoned)
    assert sorted(t.number for t in trials) == [3, finished.number]


_RDB_URLS = {
    "sqlite": None,
    "postgresql": ("PostgreSQL", 5432, "postgresql+psycopg2://postgres@127.0.0.1:5432/test"),
    "mysql": ("MariaDB", 3306, "mysql+pymysql://root@127.0.0.1:3306/test"),
}


def _rdb_storage(dialect: str, tmp_path: Any) -> optuna.storages.RDBStorage:
    """An RDB storage of ``dialect`` (SQLite in ``tmp_path``; a service skips if unreachable)."""
    service = _RDB_URLS[dialect]
    if service is None:
        return optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/u.db")
    require_service(service[0], "127.0.0.1", service[1])
    return optuna.storages.RDBStorage(service[2])


@pytest.mark.parametrize("dialect", list(_RDB_URLS))
def test_set_attrs_on_an_rdb_is_one_upsert_per_table(dialect: str, tmp_path: Any) -> None:
    """One trial look-up and one multi-row upsert per attr table; existing keys overwritten.

    On PostgreSQL (psycopg2) all three are one autocommitted statement.
    """
    import sqlalchemy

    storage = _rdb_storage(dialect, tmp_path)
    study = optuna.create_study(storage=storage)
    try:
        trial = study.ask()
        frozen = study._storage.get_trial(trial._trial_id)
        _compat.set_attrs(study, frozen, system={"psms:a": 1}, user={"u": "old"})
        statements: list[str] = []

        def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            statements.append(statement.split()[0].upper())

        sqlalchemy.event.listen(storage.engine, "before_cursor_execute", seen)
        system = {"psms:a": [1.5, "x"], "psms:b": {"k": None}}
        user = {"u": 3, "w": "é"}
        _compat.set_attrs(study, frozen, system=system, user=user)
        sqlalchemy.event.remove(storage.engine, "before_cursor_execute", seen)
        if dialect == "postgresql":
            assert statements == ["WITH"]
        else:
            assert statements.count("INSERT") == 2 and statements.count("SELECT") == 1
        again = storage.get_trial(trial._trial_id)
        assert again.system_attrs == system and again.user_attrs == user
        study.tell(trial, 1.0)
        with pytest.raises(RuntimeError):  # UpdateFinishedTrialError, as Optuna's own calls
            _compat.set_attrs(study, frozen, system={"psms:c": 1}, user={"v": 1})
        assert "psms:c" not in storage.get_trial(trial._trial_id).system_attrs
    finally:
        optuna.delete_study(study_name=study.study_name, storage=storage)


@pytest.mark.parametrize("dialect", list(_RDB_URLS))
def test_study_user_attrs_are_written_in_one_statement_on_postgresql(
    dialect: str, tmp_path: Any
) -> None:
    """All of them, existing keys overwritten; one statement on PostgreSQL (psycopg2)."""
    import sqlalchemy

    storage = _rdb_storage(dialect, tmp_path)
    study = optuna.create_study(storage=storage)
    try:
        study.set_user_attr("a", "old")
        statements: list[str] = []

        def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            statements.append(statement.split()[0].upper())

        sqlalchemy.event.listen(storage.engine, "before_cursor_execute", seen)
        _compat.set_study_user_attrs(study, {"a": {"k": [1, None]}, "b": 2, "c": "é"})
        sqlalchemy.event.remove(storage.engine, "before_cursor_execute", seen)
        if dialect == "postgresql":
            assert statements == ["WITH"]
        assert study.user_attrs == {"a": {"k": [1, None]}, "b": 2, "c": "é"}
    finally:
        optuna.delete_study(study_name=study.study_name, storage=storage)


def test_study_user_attrs_on_other_storages(study: optuna.Study) -> None:
    _compat.set_study_user_attrs(study, {"a": 1, "b": [2.5]})
    _compat.set_study_user_attrs(study, {"a": 3})
    assert study.user_attrs == {"a": 3, "b": [2.5]}
