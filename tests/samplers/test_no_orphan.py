"""No orphaned trial: a worker killed anywhere in a trial leaves a trial Optuna's heartbeat fails.

Optuna fails a RUNNING trial only once its row in ``trial_heartbeats`` went stale, and
``Study.optimize`` inserts that row only after ``Study.ask`` returned. A worker killed in
``ask`` (in the sampler's ``before_trial``, where a population sampler reads the study and
writes its record) used to leave a trial RUNNING for good, its slot never evaluated. The
trial's heartbeat row is now committed with the trial (``optuna_psms._compat._heartbeat``;
``before_trial`` records the first beat only when the row did not come with the trial).

* :func:`test_a_kill_at_each_point_is_failed_and_retried_once`: one worker, ``SIGKILL`` of
  itself at a fixed point of trial ``KILLED`` (in ``before_trial`` just before the record
  is written; in ``sample_relative``, record written; in the objective; in the sampler's
  ``after_trial``, inside ``tell``), on PostgreSQL and MariaDB. A fresh process (started
  ``GRACE + 2 * HEARTBEAT`` seconds after the death, so the dead trial is stale whatever the
  load) finishes the study: the dead trial is FAIL, retried exactly once, the retry takes
  its slot, nothing is left RUNNING or WAITING, no slot repeated or skipped.
* :func:`test_random_kill_9_of_half_the_workers_leaves_no_orphan` (slow): 6 PostgreSQL
  workers with a 0.01 s objective, 3 killed with ``kill -9`` at random moments (their time
  goes mostly to ``ask``), then a fresh process: the same invariants.

The cost of the extra beat (one transaction per trial), measured on the local PostgreSQL:
``python -m tests.samplers.test_no_orphan`` (prints the mean ``record_heartbeat`` time).
"""

from __future__ import annotations

from collections import Counter
import os
from pathlib import Path
import random
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any
import uuid

import optuna
from optuna.trial import FrozenTrial
from optuna.trial import TrialState
import pytest

from optuna_psms import PSOSampler
from optuna_psms.samplers import _records
from tests.conftest import require_service


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWARM = 3
KILLED = 4  # the trial number the victim dies in (iteration 1 of particle 1)
HEARTBEAT = 1
GRACE = 2
#: The grace period of workers running side by side: longer than the test (TIMEOUT bounds
#: it), so a live worker descheduled on a loaded machine is never failed by another.
NEVER_STALE = 100 * 600
TIMEOUT = 600  # generous: nothing asserted depends on it
RDBS = {
    "postgresql": ("PostgreSQL", 5432, "postgresql+psycopg2://postgres@127.0.0.1:5432/test"),
    "mysql": ("MariaDB", 3306, "mysql+pymysql://root@127.0.0.1:3306/test"),
}
POINTS = ("before_record", "sample_relative", "objective", "tell")

_WORKER = textwrap.dedent(
    """
    import os, signal, sys, time, warnings
    sys.path.insert(0, {repo!r})
    import optuna
    from optuna_psms import PSOSampler
    from optuna_psms import _compat
    from optuna_psms._compat import heartbeat_retry
    warnings.simplefilter("ignore")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    point, killed, sleep = {point!r}, {killed}, {sleep}

    def die(number):
        if number == killed:
            os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)

    if point == "before_record":  # inside ask: study read, point proposed, no record yet
        write = _compat.set_attrs
        def set_attrs(study, trial, **attrs):
            die(trial.number)
            return write(study, trial, **attrs)
        _compat.set_attrs = set_attrs
    elif point == "sample_relative":  # inside ask: record written, no parameter yet
        relative = PSOSampler.sample_relative
        def sample_relative(self, study, trial, space):
            out = relative(self, study, trial, space)
            die(trial.number)
            return out
        PSOSampler.sample_relative = sample_relative
    elif point == "tell":  # inside tell: the sampler's after_trial, before the state write
        after = PSOSampler.after_trial
        def after_trial(self, study, trial, state, values):
            die(trial.number)
            return after(self, study, trial, state, values)
        PSOSampler.after_trial = after_trial

    storage = optuna.storages.RDBStorage(
        {url!r}, heartbeat_interval={heartbeat}, grace_period={grace},
        **heartbeat_retry(max_retry=3))
    study = optuna.load_study(study_name={name!r}, storage=storage,
                              sampler=PSOSampler(swarm_size={swarm}, seed=0))

    def objective(trial):
        value = sum((trial.suggest_float(f"x{{i}}", -5, 5) - 1.0) ** 2 for i in range(2))
        if point == "objective":
            die(trial.number)
        time.sleep(sleep)
        return value

    study.optimize(objective, n_trials={n})
    """
)


def _worker(
    url: str, name: str, n: int, *, point: str = "", grace: int = GRACE, sleep: float = 0.0
) -> Any:
    code = _WORKER.format(
        repo=REPO,
        url=url,
        name=name,
        point=point,
        killed=KILLED if point else -1,
        sleep=sleep,
        heartbeat=HEARTBEAT,
        grace=grace,
        swarm=SWARM,
        n=n,
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO)


def _slot(t: FrozenTrial) -> tuple[int, int, int]:
    rec = _records.load(t.system_attrs)
    assert rec is not None, f"trial {t.number} has no record"
    return int(rec["r"]), int(rec["m"]), int(rec["g"])


def _check_finished_study(trials: list[FrozenTrial]) -> Counter[tuple[int, int, int]]:
    """Nothing unfinished, every dead trial retried once, one population without gaps."""
    states = Counter(t.state.name for t in trials)
    assert states["RUNNING"] == 0 and states["WAITING"] == 0, states
    failed = [t for t in trials if t.state == TrialState.FAIL]
    for dead in failed:
        retries = [t for t in trials if t.system_attrs.get("failed_trial") == dead.number]
        assert len(retries) == 1 and retries[0].state == TrialState.COMPLETE, dead.number
    slots = Counter(_slot(t) for t in trials if t.state == TrialState.COMPLETE)
    repeated = sorted(s for s, k in slots.items() if k > 1)
    assert not repeated, f"(run, particle, iteration) evaluated twice: {repeated}"
    assert {r for r, _, _ in slots} == {0}
    by_member: dict[int, set[int]] = {}
    for _, m, g in slots:
        by_member.setdefault(m, set()).add(g)
    assert set(by_member) == set(range(SWARM))
    for m, its in by_member.items():
        assert its == set(range(max(its) + 1)), f"particle {m} skipped iterations: {sorted(its)}"
    return slots


def test_the_heartbeat_row_comes_with_the_trial_inside_optimize_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    warnings.simplefilter("ignore")  # heartbeat outside optimize
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/hb.db", heartbeat_interval=60)
    beats: list[tuple[int, bool]] = []  # (trial id, whether the sampler's hook was running)
    in_hook = [False]
    record = storage.record_heartbeat

    def record_heartbeat(tid: int) -> None:
        beats.append((tid, in_hook[0]))
        record(tid)

    monkeypatch.setattr(storage, "record_heartbeat", record_heartbeat)
    sampler = PSOSampler(swarm_size=2, seed=0)
    before = sampler.before_trial

    def before_trial(study: optuna.Study, trial: FrozenTrial) -> None:
        in_hook[0] = True
        try:
            before(study, trial)
        finally:
            in_hook[0] = False

    monkeypatch.setattr(sampler, "before_trial", before_trial)
    study = optuna.create_study(storage=storage, sampler=sampler)
    trial = study.ask()  # ask-and-tell: no heartbeat from Optuna, none from the sampler
    study.tell(trial, trial.suggest_float("x", 0, 1))
    assert beats == []
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    ids = [t._trial_id for t in study.trials[1:]]
    # Each trial's row was committed with the trial: its beats come from Optuna's thread
    # only; the sampler's before_trial beats only when the row did not come with the trial
    # (test_heartbeat_row_with_the_trial.py has that case).
    firsts = {tid: hook for tid, hook in reversed(beats)}
    assert set(firsts) <= set(ids) and not any(firsts.values())


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("backend", sorted(RDBS))
def test_a_kill_at_each_point_is_failed_and_retried_once(backend: str, point: str) -> None:
    label, port, url = RDBS[backend]
    require_service(label, "127.0.0.1", port)
    name = f"i31_orphan_{backend}_{point}_{uuid.uuid4().hex[:8]}"
    storage = optuna.storages.RDBStorage(url)
    optuna.create_study(study_name=name, storage=storage)
    try:
        victim = _worker(url, name, 100, point=point)
        assert victim.wait(timeout=TIMEOUT) == -signal.SIGKILL
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        assert [t.number for t in trials if t.state == TrialState.RUNNING] == [KILLED]
        assert len(trials) == KILLED + 1
        # The dead trial's last beat is before the death: stale after this sleep.
        time.sleep(GRACE + 2 * HEARTBEAT)
        fresh = _worker(url, name, 2 * SWARM)
        assert fresh.wait(timeout=TIMEOUT) == 0
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        dead = trials[KILLED]
        assert dead.state == TrialState.FAIL
        (retry,) = [t for t in trials if t.system_attrs.get("failed_trial") == KILLED]
        # The retry evaluates the dead trial's slot: particle KILLED % SWARM, its iteration.
        assert _slot(retry)[1:] == (KILLED % SWARM, KILLED // SWARM)
        if point != "before_record":  # the dead trial had its record: the same point again
            assert _slot(dead) == _slot(retry)
            assert _records.load(dead.system_attrs) == _records.load(retry.system_attrs)
        slots = _check_finished_study(trials)
        assert sum(slots.values()) == len(trials) - 1
    finally:
        optuna.delete_study(study_name=name, storage=storage)


@pytest.mark.services
@pytest.mark.slow
def test_random_kill_9_of_half_the_workers_leaves_no_orphan() -> None:
    label, port, url = RDBS["postgresql"]
    require_service(label, "127.0.0.1", port)
    name = f"i31_random_kill_{uuid.uuid4().hex[:8]}"
    storage = optuna.storages.RDBStorage(url)
    study = optuna.create_study(study_name=name, storage=storage)
    n_workers, n_each = 6, 12
    procs = []
    try:
        procs = [
            _worker(url, name, n_each, grace=NEVER_STALE, sleep=0.01) for _ in range(n_workers)
        ]
        # Wait until the study runs (imports take seconds on a loaded machine), then kill
        # half of the workers at random moments of the next second and a half.
        deadline = time.monotonic() + TIMEOUT
        while len(study.get_trials(deepcopy=False)) < n_workers:
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.05)
        rng = random.Random()
        victims = rng.sample(procs, n_workers // 2)
        for p in victims:
            time.sleep(rng.uniform(0.0, 0.5))
            os.kill(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait(timeout=TIMEOUT)
        time.sleep(GRACE + 2 * HEARTBEAT)
        running = [
            t.number for t in study.get_trials(deepcopy=False) if t.state == TrialState.RUNNING
        ]
        fresh = _worker(url, name, len(running) + SWARM)
        assert fresh.wait(timeout=TIMEOUT) == 0
        trials = study.get_trials(deepcopy=False)
        for n in running:
            assert trials[n].state == TrialState.FAIL, n
        _check_finished_study(trials)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        optuna.delete_study(study_name=name, storage=storage)


def _measure(url: str = RDBS["postgresql"][2], n: int = 200) -> float:
    """Mean seconds of one ``record_heartbeat`` of a new trial (the sampler's extra beat)."""
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=60)
    name = f"i31_beat_{uuid.uuid4().hex[:8]}"
    study = optuna.create_study(study_name=name, storage=storage)
    try:
        ids = [study.ask()._trial_id for _ in range(n)]
        start = time.perf_counter()
        for tid in ids:
            storage.record_heartbeat(tid)
        return (time.perf_counter() - start) / n
    finally:
        optuna.delete_study(study_name=name, storage=storage)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    print(f"record_heartbeat: {_measure() * 1000:.2f} ms per trial (PostgreSQL, {os.uname()[1]})")
