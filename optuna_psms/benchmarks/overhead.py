"""Sampler overhead: milliseconds per trial with an instant objective.

Run ``python -m optuna_psms.benchmarks.overhead`` (defaults: 1,000 and 10,000 trials, in
memory and on SQLite; the 10,000-trial SQLite runs take long: narrow them with
``--sqlite-trials 1000`` or ``--samplers``). ``pso_noattr`` is PSOSampler with
``record_user_attrs=False`` (on SQLite each attr is one commit). For each sampler and size
it prints the mean ms/trial of the whole run, of trials 1,000-2,000 and of its last 1,000
trials (the marginal cost, which must not grow with the number of trials), and the last
1,000 trials' cost divided by Optuna's ``RandomSampler``'s in the same setting. The
default objective suggests three floats (one log-scale), an int and a categorical and
returns at once, so the figures are the cost of Optuna plus the sampler.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import optuna

import optuna_psms
from optuna_psms._registry import SAMPLERS as ALL


# PSOSampler without its two dashboard user attrs: on SQLite every attr is one commit.
def _pso_noattr(seed: int) -> optuna.samplers.BaseSampler:
    return optuna_psms.PSOSampler(seed=seed, record_user_attrs=False)


VARIANTS = {**ALL, "pso_noattr": _pso_noattr}


def objective_float2(trial: optuna.Trial) -> float:
    return trial.suggest_float("x", -5, 5) ** 2 + trial.suggest_float("y", -5, 5) ** 2


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_float("y", -5, 5)
    z = trial.suggest_float("z", 1e-3, 1e3, log=True)
    k = trial.suggest_int("k", 0, 10)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return x * x + y * y + z + k + (c == "b")


OBJECTIVES = {"mixed5": objective, "float2": objective_float2}


def measure(
    name: str, n_trials: int, storage: str | None, kind: str = "mixed5"
) -> tuple[float, float, float]:
    """Mean ms/trial over the run, over trials 1,000-2,000 (NaN if fewer) and the last 1,000."""
    study = optuna.create_study(sampler=VARIANTS[name](0), storage=storage)
    stamps: list[float] = []

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        stamps.append(time.perf_counter())

    start = time.perf_counter()
    study.optimize(OBJECTIVES[kind], n_trials=n_trials, callbacks=[callback])
    total = (stamps[-1] - start) / n_trials * 1e3
    window = min(1000, n_trials - 1)
    tail = (stamps[-1] - stamps[-1 - window]) / window * 1e3
    early = (stamps[1999] - stamps[999]) / 1000 * 1e3 if n_trials >= 3000 else float("nan")
    return total, early, tail


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--samplers", nargs="*", default=[n for n in ALL if n not in ("tpe", "cmaes")]
    )
    parser.add_argument("--memory-trials", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--sqlite-trials", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument(
        "--objective",
        choices=sorted(OBJECTIVES),
        default="mixed5",
        help="mixed5: 3 floats (1 log), an int and a categorical; float2: 2 floats",
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"optuna {optuna.__version__}; instant objective {args.objective}")
    print(
        f"{'storage':8} {'trials':>7} {'sampler':11} {'ms/trial':>9} {'1k-2k':>9} "
        f"{'last 1k':>9} {'x random':>9}"
    )
    for storage_kind, sizes in (("memory", args.memory_trials), ("sqlite", args.sqlite_trials)):
        for n in sizes:
            base: float | None = None
            for name in ["random"] + [s for s in args.samplers if s != "random"]:
                with tempfile.TemporaryDirectory() as tmp:
                    url = (
                        None
                        if storage_kind == "memory"
                        else f"sqlite:///{os.path.join(tmp, 'b.db')}"
                    )
                    total, early, tail = measure(name, n, url, args.objective)
                if base is None:
                    base = tail
                ratio = tail / base
                row = (
                    f"{storage_kind:8} {n:>7} {name:11} {total:9.3f} {early:9.3f} "
                    f"{tail:9.3f} {ratio:9.2f}"
                )
                print(row, flush=True)


if __name__ == "__main__":
    main()
