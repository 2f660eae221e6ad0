"""Where ``study.ask`` spends its time: PSOSampler's workers against RandomSampler's, at once.

``--workers N`` PSOSampler processes and ``N`` RandomSampler processes run at the same time
on two PostgreSQL studies (same machine load for both), each trial a 0.1 s sleep after five
``suggest_float``. Every worker times each ``study.ask`` and profiles it (``cProfile``, ask
only); the figures are the mean ask time and its parts per ask, summed over the workers:
Optuna's own round trips (the read for waiting trials, the creation of the trial, the read of
the new trial) and the sampler's ``before_trial`` (its first heartbeat, its record, the view's
sync). With ``--heartbeat`` the storages have ``heartbeat_interval=1`` (the stale rule never
fires during the run).

    python docs/reproduce/ask_time.py --workers 8 --trials 25 --heartbeat
"""

from __future__ import annotations

import argparse
import glob
import os
import pstats
import subprocess
import sys
import tempfile
import uuid

import optuna


URL = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
WORKER = r"""
import cProfile, sys, time, warnings
warnings.simplefilter("ignore")
import optuna
from optuna_psms import PSOSampler
optuna.logging.set_verbosity(optuna.logging.WARNING)
kind, name, n, out, hb, url = sys.argv[1:7]
kw = dict(heartbeat_interval=1, grace_period=100000) if hb == "1" else {}
storage = optuna.storages.RDBStorage(url, **kw)
sampler = PSOSampler(seed=0) if kind == "pso" else optuna.samplers.RandomSampler(seed=0)
study = optuna.load_study(study_name=name, storage=storage, sampler=sampler)
prof = cProfile.Profile()
ask, asks = study.ask, []
def timed_ask(*a, **k):
    t = time.perf_counter(); prof.enable()
    try:
        return ask(*a, **k)
    finally:
        prof.disable(); asks.append(time.perf_counter() - t)
study.ask = timed_ask
def objective(trial):
    v = sum((trial.suggest_float(f"x{i}", -5, 5) - 1) ** 2 for i in range(5))
    time.sleep(0.1)
    return v
t0 = time.perf_counter()
study.optimize(objective, n_trials=int(n))
prof.dump_stats(out + ".prof")
with open(out + ".txt", "w") as f:
    f.write(f"{sum(asks)} {len(asks)} {max(asks)} {time.perf_counter() - t0}")
"""
PARTS = {
    "read waiting trials (Optuna)": ("study.py", "_pop_waiting_trial_id"),
    "create the trial (Optuna)": ("_cached_storage.py", "create_new_trial"),
    "read the new trial (Optuna)": ("_cached_storage.py", "get_trial"),
    "sampler's before_trial": ("", "before_trial"),
    "  first heartbeat": ("_heartbeat.py", "first_heartbeat"),
    "  record write": ("_write.py", "set_attrs"),
    "  study attrs (first ask)": ("_study_info.py", "write_once"),
    "  view sync": ("_view.py", "sync"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--trials", type=int, default=25, help="per worker")
    parser.add_argument("--heartbeat", action="store_true")
    parser.add_argument("--url", default=URL)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.RDBStorage(args.url)
    kinds = ("random", "pso")
    names = {k: f"ask_time_{k}_{uuid.uuid4().hex[:8]}" for k in kinds}
    for name in names.values():
        optuna.create_study(study_name=name, storage=storage)
    tmp = tempfile.mkdtemp()
    try:
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER,
                    kind,
                    names[kind],
                    str(args.trials),
                    f"{tmp}/{kind}_{i}",
                    "1" if args.heartbeat else "0",
                    args.url,
                ]
            )
            for i in range(args.workers)
            for kind in kinds
        ]
        for p in procs:
            p.wait()
    finally:
        for name in names.values():
            optuna.delete_study(study_name=name, storage=storage)
    mean = {}
    print(
        f"{args.workers} + {args.workers} workers, PostgreSQL, heartbeat "
        f"{'on' if args.heartbeat else 'off'}, load {os.getloadavg()[0]:.1f}"
    )
    for kind in kinds:
        files = sorted(glob.glob(f"{tmp}/{kind}_*.txt"))
        rows = [[float(v) for v in open(f).read().split()] for f in files]
        total, count = sum(r[0] for r in rows), sum(r[1] for r in rows)
        wall = sum(r[3] for r in rows)
        mean[kind] = total / count
        stats = pstats.Stats(*[f[:-4] + ".prof" for f in files])
        parts = dict.fromkeys(PARTS, 0.0)
        for (path, _, func), row in stats.stats.items():  # type: ignore[attr-defined]
            for label, (file, name) in PARTS.items():
                if func == name and os.path.basename(path).endswith(file):
                    parts[label] += row[3]
        print(
            f"{kind}: ask {mean[kind] * 1000:.0f} ms on average ({total / wall:.0%} of the "
            f"workers' time), max {max(r[2] for r in rows) * 1000:.0f} ms"
        )
        for label, seconds in parts.items():
            if seconds:
                print(f"    {label:30s} {seconds / count * 1000:7.1f} ms per ask")
    print(f"PSO/Random ask time: {mean['pso'] / mean['random']:.2f}")


if __name__ == "__main__":
    main()
