"""Workers killed with ``kill -9`` mid-trial, on real storages.

The kill points are deterministic: a victim worker's objective, on its second trial, writes a
file and blocks; the test waits for every victim's file, starts the survivors, then kills the
victims. No
assertion depends on timing, only on invariants of the stored trials once everything ended:

* With Optuna's heartbeat (PostgreSQL, MariaDB; ``heartbeat_interval``, ``grace_period``,
  ``RetryHeartbeatStaleTrialCallback``, or ``RetryFailedTrialCallback`` before Optuna 4.9,
  through ``_compat.heartbeat_retry``): no completed trial is lost, no trial is left
  RUNNING, every killed trial is FAIL and retried, the killed members' slots are evaluated
  (a member continues from its previous state), no (member, iteration) slot is evaluated
  twice and no member skips an iteration, the survivors keep one population, and a fresh
  process finishes the study: it fails the dead trials as stale and takes their retries.

  Which trials are stale is not left to the scheduler. A live worker descheduled for more
  than ``grace_period`` (a loaded machine) looks dead to the others: they failed its trial,
  and its own tell then raised, so the test failed. So the victims and survivors run with a
  grace period no pause can reach (``NEVER_STALE``): nobody fails anybody while they run,
  and the dead trials stay RUNNING, as without heartbeat. Only the fresh process, started
  once every other worker has exited and ``GRACE + 2 * HEARTBEAT`` seconds after the kills,
  has ``grace_period=GRACE``: the only RUNNING trials are then the dead ones, stale by at
  least that sleep, and its own trial is never RUNNING when it checks (``n_jobs=1``: Optuna
  fails stale trials before it asks for the next trial).
* Without heartbeat (journal file, Redis journal): the trials of dead workers stay RUNNING
  for ever, and the population must not stall on them: the survivors complete all their
  trials and the swarm moves on past the dead trials' iteration.
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

import optuna
from optuna.trial import FrozenTrial
from optuna.trial import TrialState
import pytest

from optuna_psms.samplers import _records
import tests
from tests.conftest import require_service


REPO = str(tests.REPO)
SWARM = 5
N_WORKERS = 8
N_VICTIMS = 3
N_EACH = 6  # trials each survivor runs
HEARTBEAT = 1
GRACE = 3  # the fresh process's grace period (see the module docstring)
#: The victims' and survivors' grace period: longer than the whole test (TIMEOUT bounds it).
NEVER_STALE = 100 * 600
#: Generous: the machine may be loaded; nothing asserted depends on it.
TIMEOUT = 600

_WORKER = textwrap.dedent(
    """
    import sys, time, warnings
    sys.path.insert(0, {repo!r})
    import optuna
    from optuna_psms import PSOSampler
    from optuna_psms._compat import heartbeat_retry
    warnings.simplefilter("ignore")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec, index, victim = {spec!r}, {index}, {victim}
    if spec.startswith("journal:"):
        from optuna.storages.journal import JournalFileBackend
        storage = optuna.storages.JournalStorage(JournalFileBackend(spec[8:]))
    elif spec.startswith("redis:"):
        from optuna.storages.journal import JournalRedisBackend
        storage = optuna.storages.JournalStorage(JournalRedisBackend(spec[6:]))
    else:
        storage = optuna.storages.RDBStorage(
            spec, heartbeat_interval={heartbeat}, grace_period={grace},
            **heartbeat_retry(max_retry=3))
    study = optuna.load_study(study_name={name!r}, storage=storage,
                              sampler=PSOSampler(swarm_size={swarm}, seed=0))
    count = [0]

    def objective(trial):
        value = sum((trial.suggest_float(f"x{{i}}", -5, 5) - 1.0) ** 2 for i in range(3))
        if victim and count[0] == 1:  # the kill point: mid-trial, parameters suggested
            with open({dir!r} + f"/blocked-{{index}}", "w") as f:
                f.write(str(trial.number))
            while True:
                time.sleep(0.1)
        count[0] += 1
        time.sleep(0.02)
        return value

    def done(study, trial):
        with open({dir!r} + f"/done-{{index}}", "a") as f:
            f.write(f"{{trial.number}}\\n")

    study.optimize(objective, n_trials={n}, callbacks=[done])
    """
)


def _script(
    spec: str, name: str, tmp: Path, index: int, victim: bool, n: int, grace: int = NEVER_STALE
) -> str:
    return _WORKER.format(
        repo=REPO,
        spec=spec,
        name=name,
        dir=str(tmp),
        index=index,
        victim=victim,
        n=n,
        swarm=SWARM,
        heartbeat=HEARTBEAT,
        grace=grace,
    )


def _start(spec: str, name: str, tmp: Path, index: int, victim: bool, n: int) -> Any:
    code = _script(spec, name, tmp, index, victim, n)
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO)


def _kill_victims_mid_trial(spec: str, name: str, tmp: Path) -> tuple[list[int], list[int]]:
    """Start the workers, kill -9 the victims at their kill point, wait for the survivors.

    Returns:
        ``(trial numbers the victims were running, trial numbers reported complete)``.
    """
    # Victims first: their dead trials are then among the first trials whatever the load,
    # and the survivors start while the victims' trials are RUNNING.
    procs = [_start(spec, name, tmp, i, True, 1000) for i in range(N_VICTIMS)]
    try:
        deadline = time.monotonic() + TIMEOUT
        blocked = [tmp / f"blocked-{i}" for i in range(N_VICTIMS)]
        while not all(p.exists() and p.read_text() for p in blocked):
            assert time.monotonic() < deadline, "a victim never reached its kill point"
            assert all(p.poll() is None for p in procs), "a victim exited"
            time.sleep(0.1)
        procs += [_start(spec, name, tmp, i, False, N_EACH) for i in range(N_VICTIMS, N_WORKERS)]
        for p in procs[:N_VICTIMS]:
            os.kill(p.pid, signal.SIGKILL)
        codes = [p.wait(timeout=TIMEOUT) for p in procs[N_VICTIMS:]]
        assert codes == [0] * (N_WORKERS - N_VICTIMS)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    killed = [int(p.read_text()) for p in blocked]
    completed = [
        int(line) for f in tmp.glob("done-*") for line in f.read_text().split() if line.strip()
    ]
    return killed, completed


def _slots(trials: list[FrozenTrial]) -> list[tuple[int, int, int]]:
    """(run, particle, iteration) of every COMPLETE trial with a record."""
    out = []
    for t in trials:
        if t.state != TrialState.COMPLETE:
            continue
        rec = _records.load(t.system_attrs)
        assert rec is not None, f"trial {t.number} has no record"
        out.append((int(rec["r"]), int(rec["m"]), int(rec["g"])))
    return out


def _check_one_population(trials: list[FrozenTrial]) -> Counter[tuple[int, int, int]]:
    slots = Counter(_slots(trials))
    repeated = sorted(s for s, n in slots.items() if n > 1)
    assert not repeated, f"(run, particle, iteration) evaluated twice: {repeated}"
    assert {r for r, _, _ in slots} == {0}, "the survivors split into several runs"
    by_member: dict[int, set[int]] = {}
    for _, m, g in slots:
        by_member.setdefault(m, set()).add(g)
    assert set(by_member) == set(range(SWARM))
    for m, its in by_member.items():
        assert its == set(range(max(its) + 1)), f"particle {m} skipped iterations: {sorted(its)}"
    return slots


# --------------------------------------------------------------------------- heartbeat on RDB
RDBS = {
    "postgresql": ("PostgreSQL", 5432, "postgresql+psycopg2://postgres@127.0.0.1:5432/test"),
    "mysql": ("MariaDB", 3306, "mysql+pymysql://root@127.0.0.1:3306/test"),
}


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(RDBS))
def test_kill_9_with_heartbeat_loses_nothing_and_retries_exactly_once(
    backend: str, tmp_path: Path
) -> None:
    label, port, url = RDBS[backend]
    require_service(label, "127.0.0.1", port)
    name = f"i8h_kill_{backend}_{uuid.uuid4().hex[:10]}"
    storage = optuna.storages.RDBStorage(url)
    optuna.create_study(study_name=name, storage=storage)
    try:
        killed, completed = _kill_victims_mid_trial(url, name, tmp_path)
        # Nobody failed the dead trials (NEVER_STALE): the survivors went on without them.
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        running = sorted(t.number for t in trials if t.state == TrialState.RUNNING)
        assert running == sorted(killed)
        # The victims' last heartbeats are before the kills: stale for GRACE after this sleep
        # (a sleep is never shorter; the database clock is this machine's).
        time.sleep(GRACE + 2 * HEARTBEAT)
        # A fresh process finishes the study: it fails the stale trials, retries them.
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        code = _script(url, name, fresh, 99, False, 2 * N_VICTIMS, grace=GRACE)
        p = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
        assert p.wait(timeout=TIMEOUT) == 0
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        by_number = {t.number: t for t in trials}
        states = Counter(t.state.name for t in trials)
        assert states["RUNNING"] == 0 and states["WAITING"] == 0, states
        for n in completed:  # no completed trial lost
            assert by_number[n].state == TrialState.COMPLETE
        killed_slots = set()
        for n in killed:
            dead = by_number[n]
            assert dead.state == TrialState.FAIL, (n, dead.state)
            rec = _records.load(dead.system_attrs)
            assert rec is not None
            killed_slots.add((int(rec["r"]), int(rec["m"]), int(rec["g"])))
            retries = [t for t in trials if t.system_attrs.get("failed_trial") == n]
            assert len(retries) == 1 and retries[0].state == TrialState.COMPLETE, n
            # The retry evaluates the same point: the member continues from its state.
            assert retries[0].params == dead.params
        slots = _check_one_population(trials)
        assert killed_slots <= set(slots), "a killed member's slot was never evaluated"
        assert len(slots) == states["COMPLETE"]
    finally:
        optuna.delete_study(study_name=name, storage=storage)


# --------------------------------------------------------------------------- no heartbeat
@pytest.mark.services
@pytest.mark.slow
@pytest.mark.parametrize("backend", ["journal", "redis"])
def test_without_heartbeat_the_population_does_not_stall(backend: str, tmp_path: Path) -> None:
    if backend == "journal":
        spec = f"journal:{tmp_path}/journal.log"
        storage: Any = optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(spec[8:])
        )
    else:
        require_service("Redis", "127.0.0.1", 6379)
        spec = "redis:redis://127.0.0.1:6379/0"
        storage = optuna.storages.JournalStorage(
            optuna.storages.journal.JournalRedisBackend(spec[6:])
        )
    name = f"i8h_stall_{uuid.uuid4().hex[:10]}"
    optuna.create_study(study_name=name, storage=storage)
    try:
        killed, completed = _kill_victims_mid_trial(spec, name, tmp_path)
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
        by_number = {t.number: t for t in trials}
        assert sorted(t.number for t in trials if t.state == TrialState.RUNNING) == sorted(
            killed
        )  # nothing fails them without a heartbeat
        n_done = N_VICTIMS + (N_WORKERS - N_VICTIMS) * N_EACH
        assert len(completed) == n_done
        assert all(by_number[n].state == TrialState.COMPLETE for n in completed)
        slots = Counter(_slots(trials))
        assert not [s for s, n in slots.items() if n > 1]
        dead_its = []
        for n in killed:
            rec = _records.load(by_number[n].system_attrs)
            assert rec is not None
            dead_its.append(int(rec["g"]))
        # The swarm went on past the dead trials' iteration (it did not wait for them).
        assert max(g for _, _, g in slots) >= max(dead_its) + 2, (dead_its, sorted(slots))
    finally:
        if backend == "redis":
            optuna.delete_study(study_name=name, storage=storage)
