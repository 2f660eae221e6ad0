"""Scale and fault-load benchmark: a population sampler against ``RandomSampler``, side by side.

Run ``python -m optuna_psms.benchmarks.scale`` (all four scenarios at small sizes; the
issue-size figures need ``--trials 200 --abandoned 0 100 400 --workers 1 2 4 8 16
--grpc-workers 32``, which take minutes). Every figure of a sampler is printed next to
RandomSampler's in the same setting, measured in the same run, and as a ratio:

* ``abandoned``: per-trial cost (instant objective) with 0 / 100 / 400 trials left RUNNING,
  as a dead worker leaves them (asked, parameters suggested, never told), on SQLite and a
  journal file (``--abandoned-storages``; PostgreSQL too). Three costs per trial: the wall
  time, the time spent inside the sampler's own hooks (``own``: ``before_trial`` to
  ``after_trial``, so what the sampler adds to Optuna's ``ask``/``tell``), and the storage
  calls (all, and those made by the sampler). The ratio ``x0`` is a cost over the same
  sampler's cost with none abandoned (the issue's target: ``<= 1.5`` at 400).
* ``journal``: throughput (trials/s) of 4 processes on one journal file, sleep objective.
* ``postgres``: throughput with 1 / 2 / 4 / 8 / 16 worker processes on PostgreSQL.
* ``grpc``: throughput of ``--grpc-workers`` processes through Optuna's gRPC storage proxy
  (``run_grpc_proxy_server`` in front of PostgreSQL; needs ``pip install optuna-psms[grpc]``),
  with the population check: every (run, member, iteration) slot of the records once.

Throughput is completed trials over the span from the first trial's start to the last
trial's completion (worker start-up is not counted), so both samplers are timed alike.
Each throughput row also gives the storage calls and the workers' CPU milliseconds per
completed trial (``worker-ms``: everything the worker processes spend once their study is
loaded: Optuna, the sampler, the storage client), and for ``grpc`` the proxy's CPU
(``server-ms``); on a machine whose cores the workers share with the storage, these
decide the throughput more than any wait.
A service that is unreachable skips its scenario with a one-line reason.

This module holds the scenarios, their tables and the command line; the runs and the worker
process are in ``_scale_runs``, what they measure in ``_scale_meter`` and the storages in
``_scale_storage`` (this module re-exports the names used from outside).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import importlib.util
import os
import sys
import tempfile

import optuna

from optuna_psms.benchmarks._scale_meter import process_cpu_seconds as process_cpu_seconds
from optuna_psms.benchmarks._scale_runs import _label as _label
from optuna_psms.benchmarks._scale_runs import abandoned_cost
from optuna_psms.benchmarks._scale_runs import run_workers
from optuna_psms.benchmarks._scale_runs import worker as worker
from optuna_psms.benchmarks._scale_storage import grpc_proxy as grpc_proxy
from optuna_psms.benchmarks._scale_storage import open_storage as open_storage
from optuna_psms.benchmarks._scale_storage import reachable as reachable
from optuna_psms.benchmarks.bbob import build_sampler
from optuna_psms.samplers._registry import DEFAULT


POSTGRES = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"


def sampler_spec(text: str) -> str:
    """An argparse type: a registry name or ``NAME{json}`` (see the bbob runner)."""
    if "@" in text:
        raise argparse.ArgumentTypeError(
            f"{text!r}: NAME@budget is not offered here (workers share one study); "
            'give the budget as NAME{"budget": N}'
        )
    try:
        build_sampler(text, 0, 1)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _row(*cols: object) -> None:
    print("  ".join(f"{c:>10}" if not isinstance(c, float) else f"{c:>10.2f}" for c in cols))


def scenario_abandoned(args: argparse.Namespace) -> None:
    for kind in args.abandoned_storages:
        with tempfile.TemporaryDirectory() as tmp:
            if kind == "postgres" and not reachable("127.0.0.1", 5432):
                print("== abandoned on postgres: skipped, PostgreSQL is not reachable")
                continue
            spec = {
                "sqlite": f"sqlite:///{tmp}/abandoned.db",
                "journal": f"journal:{tmp}/abandoned.log",
                "postgres": args.postgres,
            }[kind]
            _abandoned_rows(kind, spec, args)


def _abandoned_rows(kind: str, spec: str, args: argparse.Namespace) -> None:
    ours, rand = args.sampler, "random"
    print(f"== abandoned RUNNING trials on {kind} ({args.trials} instant trials, per trial)")
    print(
        "   wall: ms per trial; own: ms inside the sampler's hooks; cpu: CPU ms of the thread"
        " in them (no waiting for disk, locks or other processes); x0: over the same sampler's"
        " figure with none abandoned; calls: storage calls (in: by the sampler); ask: ms in"
        " Optuna's Study.ask outside the sampler's hooks"
    )
    _row(
        "abandoned", f"wall-{ours}", "wall-rand", "wall-x0", "rand-x0",
        f"own-{ours}", "own-rand", "own-x0", "rand-x0", "cpu", "cpu-x0",
        f"calls-{ours}", "calls-rand", f"in-{ours}", f"ask-{ours}", "ask-rand",
    )  # fmt: skip
    for name in (ours, rand):  # warm up (imports, first-study set-up), not counted
        abandoned_cost(name, 0, 2, args.seed, spec)
    base: dict[str, tuple[float, ...]] = {}
    for n in args.abandoned:
        a = abandoned_cost(ours, n, args.trials, args.seed, spec)
        b = abandoned_cost(rand, n, args.trials, args.seed, spec)
        a0, b0 = base.setdefault("ours", a), base.setdefault("rand", b)
        _row(
            n, a[0], b[0], a[0] / a0[0], b[0] / b0[0],
            a[1], b[1], a[1] / a0[1], b[1] / b0[1], a[2], a[2] / a0[2],
            a[3], b[3], a[4], a[5], b[5],
        )  # fmt: skip


def _throughput_rows(
    label: str,
    spec: str,
    workers: Sequence[int],
    args: argparse.Namespace,
    sleep: float,
    server_pid: int | None = None,
) -> None:
    print(f"== {label} ({args.trials} trials, {sleep} s objective, trials/s)")
    note = "   calls: storage calls per completed trial, all workers (see Meter)"
    head = ["workers", args.sampler, "random", "ratio", "done", "dup-slots", "calls", "calls-rand"]
    if server_pid is not None:
        note += "; server-ms: the storage server's CPU milliseconds per completed trial"
        head += ["server-ms", "server-rand"]
    note += "; worker-ms: the workers' CPU milliseconds per completed trial (all of it)"
    head += ["worker-ms", "worker-rand"]
    print(note)
    _row(*head)
    for n in workers:
        for rep in range(args.repeat):
            order = [args.sampler, "random"][:: 1 if rep % 2 == 0 else -1]  # alternate
            got, server_ms = {}, {}
            for name in order:
                before = process_cpu_seconds(server_pid) if server_pid is not None else 0.0
                got[name] = run_workers(
                    spec,
                    name,
                    n,
                    args.trials,
                    sleep,
                    args.seed,
                    args.worker_import,
                    args.gc_freeze,
                )
                if server_pid is not None:
                    spent = process_cpu_seconds(server_pid) - before
                    server_ms[name] = 1000 * spent / max(got[name][1], 1)
            (ours, done, dup, calls, cpu), (rand, _, _, calls_rand, cpu_rand) = (
                got[args.sampler],
                got["random"],
            )
            cols: list[object] = [n, ours, rand, ours / rand, done, dup, calls, calls_rand]
            if server_pid is not None:
                cols += [server_ms[args.sampler], server_ms["random"]]
            _row(*cols, cpu, cpu_rand)


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
    proxy = grpc_proxy(args.postgres)
    with proxy as spec:
        label = f"gRPC proxy in front of PostgreSQL, {args.grpc_workers} processes"
        pid = proxy.proc.pid if proxy.proc is not None else None
        _throughput_rows(label, spec, [args.grpc_workers], args, args.sleep, pid)


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
    parser.add_argument(
        "--sampler",
        default=DEFAULT,
        type=sampler_spec,
        help='a sampler name or NAME{json} of keyword arguments, e.g. pso{"record_user_attrs": '
        "false} (default: pso)",
    )
    parser.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS))
    parser.add_argument("--trials", type=int, default=64, help="trials per measurement")
    parser.add_argument("--abandoned", type=int, nargs="+", default=[0, 100])
    parser.add_argument(
        "--abandoned-storages",
        nargs="+",
        choices=["sqlite", "journal", "postgres"],
        default=["sqlite", "journal"],
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--grpc-workers", type=int, default=8)
    parser.add_argument("--sleep", type=float, default=0.05, help="objective sleep (s)")
    parser.add_argument("--journal-sleep", type=float, default=0.2)
    parser.add_argument("--postgres", default=os.environ.get("OPTUNA_PSMS_POSTGRES", POSTGRES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="throughput rows per setting")
    parser.add_argument(
        "--worker-import",
        nargs="+",
        default=[],
        metavar="MODULE",
        help="modules each throughput worker imports before its study, as an objective's "
        "libraries would (e.g. sklearn: a heap of ~190,000 objects); default: none",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="each throughput worker calls gc.freeze() after its imports",
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"sampler {args.sampler} against random; optuna {optuna.__version__}")
    for name in args.scenarios:
        SCENARIOS[name](args)


if __name__ == "__main__":
    main()
