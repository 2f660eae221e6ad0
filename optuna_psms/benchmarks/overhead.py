"""Sampler overhead: milliseconds per trial with an instant objective.

Run ``python -m optuna_psms.benchmarks.overhead`` (defaults: 1,000 and 10,000 trials, in
memory and on SQLite; the 10,000-trial SQLite runs take long: narrow them with
``--sqlite-trials 1000`` or ``--samplers``). ``pso_noattr`` is PSOSampler with
``record_user_attrs=False`` (on SQLite each attr is one commit). For each sampler and size
it prints the mean ms/trial of the whole run, the cost of its early and of its late
1,000-trial windows (``early``: trials 1,000-4,000, ``late``: the last 3,000; each the median
of three windows, see :func:`measure`; the late cost must not grow with the number of
trials), and the whole run's and the late cost divided by Optuna's ``RandomSampler``'s in
the same setting. Each figure is the median of ``--repeat`` runs (default 3). The default
objective suggests three floats (one log-scale), an int and a categorical and returns at
once, so the figures are the cost of Optuna plus the sampler.
"""

from __future__ import annotations

import argparse
import os
import statistics
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
    """Mean ms/trial of the run, and the median of its early and of its late 1,000-trial windows.

    Early: the windows of trials 1,000-4,000 (NaN below 7,000 trials); late: the last three
    windows (all windows below 3,000 trials). A window that holds one of the interpreter's
    full garbage collections (one per ~25% growth of live objects, tens of ms at 10,000
    trials) costs 10-20% more; the median of three windows leaves such a lump out.
    """
    study = optuna.create_study(sampler=VARIANTS[name](0), storage=storage)
    stamps: list[float] = []

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        stamps.append(time.perf_counter())

    start = time.perf_counter()
    study.optimize(OBJECTIVES[kind], n_trials=n_trials, callbacks=[callback])
    total = (stamps[-1] - start) / n_trials * 1e3
    edges = [start] + stamps[999::1000]
    windows = [(b - a) / 1000 * 1e3 for a, b in zip(edges, edges[1:])] or [total]
    early = statistics.median(windows[1:4]) if len(windows) >= 7 else float("nan")
    late = statistics.median(windows[-3:])
    return total, early, late


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
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"optuna {optuna.__version__}; instant objective {args.objective}")
    print(
        f"{'storage':8} {'trials':>7} {'sampler':11} {'ms/trial':>9} {'early':>9} "
        f"{'late':>9} {'x random':>9} {'(late)':>9}"
    )
    for storage_kind, sizes in (("memory", args.memory_trials), ("sqlite", args.sqlite_trials)):
        for n in sizes:
            base: tuple[float, float] | None = None
            for name in ["random"] + [s for s in args.samplers if s != "random"]:
                runs = []
                for _ in range(max(1, args.repeat)):
                    with tempfile.TemporaryDirectory() as tmp:
                        url = (
                            None
                            if storage_kind == "memory"
                            else f"sqlite:///{os.path.join(tmp, 'b.db')}"
                        )
                        runs.append(measure(name, n, url, args.objective))
                total, early, late = (statistics.median(column) for column in zip(*runs))
                if base is None:
                    base = (total, late)
                row = (
                    f"{storage_kind:8} {n:>7} {name:11} {total:9.3f} {early:9.3f} "
                    f"{late:9.3f} {total / base[0]:9.2f} {late / base[1]:9.2f}"
                )
                print(row, flush=True)


if __name__ == "__main__":
    main()
