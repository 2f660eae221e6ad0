"""
Several workers, one swarm
==========================

Several worker processes share one storage and drive one particle swarm.

Run: python examples/distributed_workers.py [--storage URL] [--workers 4] [--n-trials 25]

Each worker is a separate process that loads the study and calls ``optimize``: nothing but
the storage connects them (on several machines, point them at one PostgreSQL or MySQL URL).
Afterwards a fresh process with a fresh sampler resumes the study where it stopped.
"""

from __future__ import annotations

import argparse
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
import os
import tempfile

import optuna

from optuna_psms import PSOSampler


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -10, 10)
    y = trial.suggest_float("y", -10, 10)
    return (x - 3) ** 2 + (y + 1) ** 2


def worker(storage: str, n_trials: int) -> int:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name="swarm", storage=storage, sampler=PSOSampler(seed=0))
    study.optimize(objective, n_trials=n_trials)
    return os.getpid()


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Several workers share one storage and drive one particle swarm."
    )
    default = f"sqlite:///{os.path.join(tempfile.mkdtemp(), 'swarm.db')}"
    parser.add_argument("--storage", default=default)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--n-trials", type=int, default=25, help="trials per worker")
    args = parser.parse_args()

    optuna.create_study(study_name="swarm", storage=args.storage, load_if_exists=True)
    with ProcessPoolExecutor(args.workers) as pool:
        list(pool.map(worker, [args.storage] * args.workers, [args.n_trials] * args.workers))

    study = optuna.load_study(study_name="swarm", storage=args.storage)
    pairs = Counter(
        (t.user_attrs["psms:particle"], t.user_attrs["psms:iteration"]) for t in study.trials
    )
    print(f"{len(study.trials)} trials by {args.workers} workers; best {study.best_value:.5f}")
    print(f"every (particle, iteration) evaluated once: {max(pairs.values()) == 1}")

    worker(args.storage, 10)  # a fresh sampler in this process resumes the same swarm
    print(f"after resuming: {len(study.trials)} trials, best {study.best_value:.5f}")


if __name__ == "__main__":
    main()
