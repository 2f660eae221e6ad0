"""Scale and fault-load benchmark: a population sampler against ``RandomSampler``, side by side.

Run ``python -m optuna_psms.benchmarks.scale`` (all four scenarios at small sizes; the
issue-size figures need ``--trials 200 --abandoned 0 100 400 --workers 1 2 4 8 16
--grpc-workers 32``, which take minutes). Every figure of a sampler is printed next to
RandomSampler's in the same setting, measured in the same run, and as a ratio:

* ``abandoned``: per-trial cost (ms, instant objective) on SQLite with 0 / 100 / 400 trials
  left RUNNING, as a dead worker leaves them (asked, parameters suggested, never told). The
  ratio ``x0`` is the cost over the same sampler's cost with none abandoned (the issue's
  target: ``<= 1.5`` at 400).
* ``journal``: throughput (trials/s) of 4 processes on one journal file, sleep objective.
* ``postgres``: throughput with 1 / 2 / 4 / 8 / 16 worker processes on PostgreSQL.
* ``grpc``: throughput of ``--grpc-workers`` processes through Optuna's gRPC storage proxy
  (``run_grpc_proxy_server`` in front of PostgreSQL; needs ``pip install optuna-psms[grpc]``),
  with the population check: every (run, member, iteration) slot of the records once.

Throughput is completed trials over the span from the first trial's start to the last
trial's completion (worker start-up is not counted), so both samplers are timed alike.
A service that is unreachable skips its scenario with a one-line reason.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any
import uuid
import warnings

import optuna
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from optuna_psms import _records
from optuna_psms._registry import make_sampler
from optuna_psms._registry import SAMPLERS


POSTGRES = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
N_PARAMS = 4


def suggest(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(N_PARAMS))


def open_storage(spec: str) -> optuna.storages.BaseStorage:
    """``journal:PATH``, ``grpc:HOST:PORT`` or an RDB URL."""
    kind, _, where = spec.partition(":")
    if kind == "journal":
        return optuna.storages.JournalStorage(JournalFileBackend(where))
    if kind == "grpc":
        host, _, port = where.rpartition(":")
        with warnings.catch_warnings():  # "experimental (supported from v4.2.0)"
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.storages.GrpcStorageProxy(host=host, port=int(port))
    return optuna.storages.RDBStorage(spec)


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------- measurements
def slot_duplicates(trials: Sequence[optuna.trial.FrozenTrial]) -> tuple[int, int]:
    """``(slots seen more than once, trials with a record)`` over (run, member, iteration)."""
    slots: Counter[tuple[Any, Any, Any]] = Counter()
    for t in trials:
        rec = _records.load(t.system_attrs)
        if isinstance(rec, dict) and rec.get("m", -1) != -1:
            slots[(rec.get("r"), rec.get("m"), rec.get("g"))] += 1
    return sum(1 for n in slots.values() if n > 1), sum(slots.values())


def throughput(trials: Sequence[optuna.trial.FrozenTrial]) -> float:
    done = [t for t in trials if t.state == TrialState.COMPLETE]
    starts = [t.datetime_start for t in done if t.datetime_start is not None]
    ends = [t.datetime_complete for t in done if t.datetime_complete is not None]
    if not starts or not ends:
        return float("nan")
    span = (max(ends) - min(starts)).total_seconds()
    return len(done) / span if span > 0 else float("nan")


def abandoned_cost(sampler: str, n_abandoned: int, n_trials: int, seed: int) -> float:
    """ms per trial of ``n_trials`` instant trials with ``n_abandoned`` RUNNING ones."""
    with tempfile.TemporaryDirectory() as tmp:
        storage = optuna.storages.RDBStorage(f"sqlite:///{tmp}/abandoned.db")
        study = optuna.create_study(storage=storage, sampler=make_sampler(sampler, seed))
        study.optimize(suggest, n_trials=10)  # a population that has started
        for _ in range(n_abandoned):  # a dead worker's trials: asked, suggested, never told
            suggest(study.ask())
        start = time.perf_counter()
        study.optimize(suggest, n_trials=n_trials)
        return 1000.0 * (time.perf_counter() - start) / n_trials


def run_workers(
    spec: str, sampler: str, n_workers: int, n_trials: int, sleep: float, seed: int
) -> tuple[float, int, int, int]:
    """``(trials/s, completed, duplicated slots, records)`` of ``n_workers`` processes."""
    name = f"i8h_scale_{sampler}_{uuid.uuid4().hex[:10]}"
    storage = open_storage(spec)
    optuna.create_study(study_name=name, storage=storage)
    each, extra = divmod(n_trials, n_workers)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "optuna_psms.benchmarks.scale",
                "worker",
                spec,
                name,
                sampler,
                str(each + (i < extra)),
                str(sleep),
                str(seed),
            ]
        )
        for i in range(n_workers)
    ]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise RuntimeError(f"a worker failed: exit codes {codes}")
    trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
    dup, n_rec = slot_duplicates(trials)
    done = sum(t.state == TrialState.COMPLETE for t in trials)
    if not spec.startswith("journal:"):
        optuna.delete_study(study_name=name, storage=storage)
    return throughput(trials), done, dup, n_rec


def worker(argv: Sequence[str]) -> None:
    spec, name, sampler, n, sleep, seed = argv
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(
        study_name=name, storage=open_storage(spec), sampler=make_sampler(sampler, int(seed))
    )

    def objective(trial: optuna.Trial) -> float:
        value = suggest(trial)
        time.sleep(float(sleep))
        return value

    study.optimize(objective, n_trials=int(n))


# --------------------------------------------------------------------------- scenarios
def _row(*cols: object) -> None:
    print("  ".join(f"{c:>10}" if not isinstance(c, float) else f"{c:>10.2f}" for c in cols))


def scenario_abandoned(args: argparse.Namespace) -> None:
    print(f"== abandoned RUNNING trials on SQLite ({args.trials} instant trials, ms/trial)")
    _row("abandoned", args.sampler, "random", "x random", "x0 " + args.sampler, "x0 random")
    base: dict[str, float] = {}
    for n in args.abandoned:
        ours = abandoned_cost(args.sampler, n, args.trials, args.seed)
        rand = abandoned_cost("random", n, args.trials, args.seed)
        base.setdefault("ours", ours)
        base.setdefault("rand", rand)
        _row(n, ours, rand, ours / rand, ours / base["ours"], rand / base["rand"])


def _throughput_rows(
    label: str, spec: str, workers: Sequence[int], args: argparse.Namespace, sleep: float
) -> None:
    print(f"== {label} ({args.trials} trials, {sleep} s objective, trials/s)")
    _row("workers", args.sampler, "random", "ratio", "done", "dup slots")
    for n in workers:
        ours, done, dup, _ = run_workers(spec, args.sampler, n, args.trials, sleep, args.seed)
        rand, _, _, _ = run_workers(spec, "random", n, args.trials, sleep, args.seed)
        _row(n, ours, rand, ours / rand, done, dup)


def scenario_journal(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"journal:{tmp}/scale.log"
        _throughput_rows("journal file, 4 processes", spec, [4], args, args.journal_sleep)


def scenario_postgres(args: argparse.Namespace) -> None:
    if not reachable("127.0.0.1", 5432):
        print("== postgres: skipped, PostgreSQL is not reachable at 127.0.0.1:5432")
        return
    _throughput_rows("PostgreSQL", args.postgres, args.workers, args, args.sleep)


def scenario_grpc(args: argparse.Namespace) -> None:
    if not reachable("127.0.0.1", 5432):
        print("== grpc: skipped, PostgreSQL is not reachable at 127.0.0.1:5432")
        return
    if importlib.util.find_spec("grpc") is None:
        print("== grpc: skipped, grpcio is not installed (pip install optuna-psms[grpc])")
        return
    with grpc_proxy(args.postgres) as spec:
        label = f"gRPC proxy in front of PostgreSQL, {args.grpc_workers} processes"
        _throughput_rows(label, spec, [args.grpc_workers], args, args.sleep)


class grpc_proxy:
    """A gRPC storage proxy server in a child process; ``with`` gives its ``grpc:`` spec.

    The server holds ``optuna.storages.get_storage(url)``: the RDB behind Optuna's trial
    cache, as Optuna's documentation deploys it, so a ``GetTrials`` call reads only the new
    and unfinished trials from the database (docs/deployment.md).
    """

    def __init__(self, url: str) -> None:
        self.url = url
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        code = (
            "import warnings, optuna; warnings.simplefilter('ignore'); "
            "optuna.logging.set_verbosity(optuna.logging.WARNING); "
            "optuna.storages.run_grpc_proxy_server("
            f"optuna.storages.get_storage({self.url!r}), host='127.0.0.1', port={self.port})"
        )
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        deadline = time.monotonic() + 60
        while not reachable("127.0.0.1", self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the gRPC proxy server did not start")
            time.sleep(0.1)
        return f"grpc:127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


SCENARIOS = {
    "abandoned": scenario_abandoned,
    "journal": scenario_journal,
    "postgres": scenario_postgres,
    "grpc": scenario_grpc,
}


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["worker"]:
        worker(argv[1:])
        return
    parser = argparse.ArgumentParser(prog="python -m optuna_psms.benchmarks.scale")
    parser.add_argument("--sampler", default="pso", choices=list(SAMPLERS), help="default: pso")
    parser.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS))
    parser.add_argument("--trials", type=int, default=64, help="trials per measurement")
    parser.add_argument("--abandoned", type=int, nargs="+", default=[0, 100])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--grpc-workers", type=int, default=8)
    parser.add_argument("--sleep", type=float, default=0.05, help="objective sleep (s)")
    parser.add_argument("--journal-sleep", type=float, default=0.2)
    parser.add_argument("--postgres", default=os.environ.get("OPTUNA_PSMS_POSTGRES", POSTGRES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"sampler {args.sampler} against random; optuna {optuna.__version__}")
    for name in args.scenarios:
        SCENARIOS[name](args)


if __name__ == "__main__":
    main()
