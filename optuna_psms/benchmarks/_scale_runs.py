"""The scale benchmark's runs: the abandoned-trials cost in this process, and the throughput
of worker processes on one study (each worker is ``python -m optuna_psms.benchmarks.scale
worker ...``, which calls :func:`worker`).

Split from :mod:`optuna_psms.benchmarks.scale`, which re-exports :func:`worker` and
:func:`_label`.
"""

from __future__ import annotations

from collections.abc import Sequence
import gc
import importlib
import os
import subprocess
import sys
import tempfile
import time
import uuid

import optuna
from optuna.trial import TrialState

from optuna_psms.benchmarks._scale_meter import Meter
from optuna_psms.benchmarks._scale_meter import slot_duplicates
from optuna_psms.benchmarks._scale_meter import throughput
from optuna_psms.benchmarks._scale_storage import open_storage
from optuna_psms.benchmarks.bbob import build_sampler


N_PARAMS = 4


def suggest(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(N_PARAMS))


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
