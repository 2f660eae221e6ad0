"""This package's PSOSampler against OptunaHub's ``samplers/pso`` on a mixed search space, in
one session and in four sessions (the study continued by a fresh sampler each time, as after
a restart or with workers that come and go).

Run from this folder (``pip install optuna-psms optunahub``)::

    python compare_with_registry_pso.py

``optunahub.load_module("samplers/pso")`` downloads the registry's PSO from GitHub; offline,
pass a checkout of https://github.com/optuna/optunahub-registry with
``--registry-root CHECKOUT/package``. Each sampler runs with its own defaults (and ours
also with ``budget=``, its setting for a known number of trials). Prints, per
sampler and layout, the median and quartiles over the seeds of the best value after all
trials, the share of trials that chose the best category, and on how many seeds the
sessions proposed exactly the trials of one session.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import optuna
import optunahub

import optuna_psms


COST = {"a": 0.0, "b": 2.0, "c": 4.0}  # the categorical part: "a" is best


def objective(trial: optuna.Trial) -> float:
    xs = [trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(3)]
    kind = trial.suggest_categorical("kind", list(COST))
    return sum((x - 1.0) ** 2 for x in xs) + COST[kind]


def run(make: Any, seed: int, n_trials: int, sessions: int) -> optuna.Study:
    storage = optuna.storages.InMemoryStorage()
    optuna.create_study(study_name="s", storage=storage)
    for _ in range(sessions):  # a fresh sampler object per session: what a new process has
        study = optuna.load_study(study_name="s", storage=storage, sampler=make(seed))
        study.optimize(objective, n_trials=n_trials // sessions)
    return study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--registry-root", default=None, help="a local registry's package/")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if args.registry_root is None:
        registry = optunahub.load_module(package="samplers/pso")
    else:
        registry = optunahub.load_local_module(
            package="samplers/pso", registry_root=args.registry_root
        )
    samplers = {
        "optuna-psms PSOSampler": lambda seed: optuna_psms.PSOSampler(seed=seed),
        "  ... with budget=trials": lambda seed: optuna_psms.PSOSampler(
            seed=seed, budget=args.trials
        ),
        "OptunaHub samplers/pso": lambda seed: registry.PSOSampler(seed=seed),
    }
    print(
        f"3 floats + 1 categorical of 3 choices, {args.trials} trials, seeds 0..{args.seeds - 1}"
    )
    print(
        f"{'sampler':24} {'sessions':>8} {'median best':>12} {'[q25, q75]':>18} "
        f"{'best category':>14} {'same trials':>12}"
    )
    for name, make in samplers.items():
        whole = {s: run(make, s, args.trials, 1) for s in range(args.seeds)}
        for sessions in (1, args.sessions):
            studies = (
                whole
                if sessions == 1
                else {s: run(make, s, args.trials, sessions) for s in range(args.seeds)}
            )
            best = np.array([st.best_value for st in studies.values()])
            share = np.mean(
                [t.params["kind"] == "a" for st in studies.values() for t in st.trials]
            )
            same = sum(
                [t.params for t in studies[s].trials] == [t.params for t in whole[s].trials]
                for s in studies
            )
            q25, med, q75 = np.quantile(best, [0.25, 0.5, 0.75])
            print(
                f"{name:24} {sessions:>8} {med:>12.3f} {f'[{q25:.3f}, {q75:.3f}]':>18} "
                f"{share:>14.0%} {f'{same}/{len(studies)}':>12}"
            )


if __name__ == "__main__":
    main()
