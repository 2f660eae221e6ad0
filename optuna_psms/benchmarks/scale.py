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
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
import gc
import importlib
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
from optuna_psms.benchmarks.bbob import build_sampler


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


class Meter:
    """Time spent inside a sampler's hooks and calls made to a storage, counted from outside.

    The hooks are Optuna's calls into the sampler (``before_trial``,
    ``infer_relative_search_space``, ``sample_relative``, ``sample_independent``,
    ``after_trial``); the storage calls are, on an :class:`~optuna.storages.RDBStorage`
    (behind Optuna's trial cache), its transactions (a commit or a read, one or a few
    statements), and on any other storage the calls of its methods (a journal: a log append
    or a log read each). A call made from inside another one (a storage method calling
    another, a hook calling a hook) is not counted again.
    """

    HOOKS = (
        "before_trial",
        "infer_relative_search_space",
        "sample_relative",
        "sample_independent",
        "after_trial",
    )
    #: Private reads ``optuna_psms._compat`` may call directly, besides the public API.
    PRIVATE_READS = ("_get_trials", "_sync_with_backend")
    #: Public storage methods that make no call to the storage's backend.
    LOCAL = ("check_trial_is_updatable",)

    def __init__(self) -> None:
        self.sampler_s = 0.0
        self.sampler_cpu_s = 0.0  # CPU time of the thread in the hooks
        self.ask_s = 0.0  # time in Study.ask outside the sampler's hooks (Optuna's own)
        self.calls = 0
        self.sampler_calls = 0
        self._in_sampler = 0
        self._in_storage = 0

    def reset(self) -> None:
        self.sampler_s, self.sampler_cpu_s, self.calls, self.sampler_calls = 0.0, 0.0, 0, 0
        self.ask_s = 0.0

    def wrap_ask(self, study: optuna.Study) -> None:
        """Time ``study.ask`` (as ``optimize`` calls it) less the sampler's hooks inside it."""
        ask = study.ask

        def timed(*args: Any, **kwargs: Any) -> Any:
            start, hooks = time.perf_counter(), self.sampler_s
            try:
                return ask(*args, **kwargs)
            finally:
                self.ask_s += time.perf_counter() - start - (self.sampler_s - hooks)

        study.ask = timed  # type: ignore[method-assign]

    def wrap_sampler(self, sampler: optuna.samplers.BaseSampler) -> None:
        for name in self.HOOKS:
            setattr(sampler, name, self._timed(getattr(sampler, name)))

    def wrap_storage(self, storage: optuna.storages.BaseStorage) -> None:
        """Count calls: transactions on an RDB, else outermost storage method calls."""
        if isinstance(storage, optuna.storages.RDBStorage):
            storage.scoped_session = _Sessions(storage.scoped_session, self._counted)  # type: ignore[assignment]
            return
        names = [n for n in dir(optuna.storages.BaseStorage) if not n.startswith("_")]
        for name in [*names, *self.PRIVATE_READS]:
            method = getattr(storage, name, None)
            if callable(method) and name not in self.LOCAL:
                setattr(storage, name, self._counted(method))

    def _timed(self, method: Any) -> Any:
        def hook(*args: Any, **kwargs: Any) -> Any:
            self._in_sampler += 1
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                self._in_sampler -= 1
                if not self._in_sampler:
                    self.sampler_s += time.perf_counter() - start
                    self.sampler_cpu_s += time.thread_time() - cpu

        return hook

    def _counted(self, method: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if not self._in_storage:
                self.calls += 1
                self.sampler_calls += self._in_sampler > 0
            self._in_storage += 1
            try:
                return method(*args, **kwargs)
            finally:
                self._in_storage -= 1

        return call


class _Sessions:
    """An RDB's ``scoped_session`` whose calls (one per transaction) are counted."""

    def __init__(self, sessions: Any, counted: Any) -> None:
        self._sessions = sessions
        self._call = counted(sessions)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sessions, name)


def abandoned_cost(
    sampler: str, n_abandoned: int, n_trials: int, seed: int, spec: str
) -> tuple[float, float, float, float, float, float]:
    """Per trial of ``n_trials`` instant trials with ``n_abandoned`` RUNNING ones.

    Returns:
        ``(wall ms, ms inside the sampler's hooks, CPU ms of the thread inside them,
        storage calls, storage calls made by the sampler, ms in Optuna's Study.ask outside
        the hooks)``, each per trial.
    """
    meter = Meter()
    storage = open_storage(spec)
    meter.wrap_storage(storage)
    name = f"i8h_abandoned_{_label(sampler)}_{uuid.uuid4().hex[:10]}"
    chosen = build_sampler(sampler, seed, n_trials)
    meter.wrap_sampler(chosen)
    study = optuna.create_study(study_name=name, storage=storage, sampler=chosen)
    try:
        study.optimize(suggest, n_trials=10)  # a population that has started
        for _ in range(n_abandoned):  # a dead worker's trials: asked, suggested, never told
            suggest(study.ask())
        meter.reset()
        meter.wrap_ask(study)
        start = time.perf_counter()
        study.optimize(suggest, n_trials=n_trials)
        wall = time.perf_counter() - start
    finally:
        if spec.startswith("postgresql"):
            optuna.delete_study(study_name=name, storage=storage)
    per = 1.0 / n_trials
    own, cpu = meter.sampler_s, meter.sampler_cpu_s
    ms = 1000 * per
    calls, in_sampler = meter.calls * per, meter.sampler_calls * per
    return wall * ms, own * ms, cpu * ms, calls, in_sampler, meter.ask_s * ms


def run_workers(
    spec: str,
    sampler: str,
    n_workers: int,
    n_trials: int,
    sleep: float,
    seed: int,
    imports: Sequence[str] = (),
    gc_freeze: bool = False,
) -> tuple[float, int, int, float, float]:
    """``(trials/s, completed, duplicated slots, storage calls per trial, worker CPU ms per
    trial)`` of ``n_workers``.

    The storage calls and the CPU time are those of the workers once their study is loaded
    (see :class:`Meter`), summed over the workers, per completed trial. Each worker first
    imports ``imports`` (as an objective's libraries would be) and, with ``gc_freeze``, then
    calls :func:`gc.freeze`.
    """
    extras = [f"--import={m}" for m in imports] + (["--gc-freeze"] if gc_freeze else [])
    name = f"i8h_scale_{_label(sampler)}_{uuid.uuid4().hex[:10]}"
    meter_dir = tempfile.gettempdir()
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
                f"{meter_dir}/{name}-{i}.calls",
                *extras,
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
    calls, cpu_s = 0, 0.0
    for i in range(n_workers):
        path = f"{meter_dir}/{name}-{i}.calls"
        with open(path) as f:
            n_calls, spent = f.read().split()
        calls += int(n_calls)
        cpu_s += float(spent)
        os.remove(path)
    per = 1 / max(done, 1)
    return throughput(trials), done, dup, calls * per, 1000 * cpu_s * per


def _label(sampler: str) -> str:
    """A study-name-safe short form of a sampler spec such as ``pso{"boundary": "absorb"}``."""
    return "".join(c if c.isalnum() or c == "_" else "-" for c in sampler)[:40]


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


def worker(argv: Sequence[str]) -> None:
    spec, name, sampler, n, sleep, seed = argv[:6]
    calls_file = argv[6] if len(argv) > 6 else None  # where to write the storage call count
    extras = argv[7:]  # --import=MODULE (an objective's libraries), --gc-freeze
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # Start-up, not counted: what a real objective would import. The sampler itself no longer
    # imports optuna-dashboard (only its note module), so a worker that imports nothing holds
    # a small heap; one that imports scikit-learn and SciPy holds ~190,000 objects, which
    # every full garbage collection scans (docs/deployment.md).
    for extra in extras:
        if extra.startswith("--import="):
            importlib.import_module(extra.partition("=")[2])
    if "--gc-freeze" in extras:
        gc.freeze()  # what docs/deployment.md recommends after a worker's imports
    storage = open_storage(spec)
    meter = Meter()
    meter.wrap_storage(storage)
    study = optuna.load_study(
        study_name=name, storage=storage, sampler=build_sampler(sampler, int(seed), int(n))
    )
    meter.reset()
    cpu_start = time.process_time()

    def objective(trial: optuna.Trial) -> float:
        value = suggest(trial)
        time.sleep(float(sleep))
        return value

    study.optimize(objective, n_trials=int(n))
    if calls_file is not None:
        with open(calls_file, "w") as f:
            f.write(f"{meter.calls} {time.process_time() - cpu_start}")


# --------------------------------------------------------------------------- scenarios
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


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    parser.add_argument(
        "--sampler",
        default="pso",
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
