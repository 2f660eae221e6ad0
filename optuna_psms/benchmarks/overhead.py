"""Sampler overhead: milliseconds per trial with an instant objective.

Run ``python -m optuna_psms.benchmarks.overhead`` (defaults: 1,000 and 10,000 trials, in
memory and on SQLite; the 10,000-trial SQLite runs take long: narrow them with
``--sqlite-trials 1000`` or ``--samplers``). ``pso_noattr`` is PSOSampler with
``record_user_attrs=False`` (on SQLite each attr is one commit).

Each sampler runs **paired** with Optuna's ``RandomSampler``: two studies advance in turns
of 100 trials, so a slow spell of the machine (this 2-core VM's speed drifts by 10-20%
over minutes) weighs on both alike. For each sampler and size it prints the mean ms/trial
of the whole run, of trials 1,000-4,000 (``early``) and of the last 3,000 trials (``late``,
which must not grow with the number of trials; see :func:`_stats`), and the whole run's and
the late cost divided by the paired RandomSampler's. Each figure is the median of
``--repeat`` pairs (default 3); the ``random`` row is the median over all its pairings.
``--no-gc`` turns the interpreter's garbage collector off while measuring: its full
collections cost in proportion to everything alive, so they land as lumps of tens of ms.
The default objective suggests three floats (one log-scale), an int and a categorical and
returns at once, so the figures are the cost of Optuna plus the sampler.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time

import optuna

from optuna_psms.samplers._registry import DEFAULT
from optuna_psms.samplers._registry import Entry
from optuna_psms.samplers._registry import SAMPLERS as ALL


# The default sampler (PSOSampler) without its two dashboard user attrs: on SQLite every
# attr is one commit.
VARIANTS = {
    **ALL,
    f"{DEFAULT}_noattr": Entry(ALL[DEFAULT].target, {"record_user_attrs": False}),
}


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


Stats = tuple[float, float, float]


def _stats(ends: list[float], n_trials: int) -> Stats:
    """Whole-run ms/trial, and ms/trial over trials 1,000-4,000 and over the last 3,000.

    ``ends`` holds the cumulative time at the end of each block of :data:`_BLOCK` trials.
    The early span is NaN below 7,000 trials; below 3,000 the late span is the whole run.
    Spans of 3,000 trials average out the interpreter's full garbage collections (one per
    ~25% growth of live objects, tens of ms each at 10,000 trials), which make a single
    1,000-trial window 10-30% dearer than its neighbours.
    """
    total = ends[-1] / n_trials * 1e3
    per_k = 1000 // _BLOCK
    at = [0.0] + ends[per_k - 1 :: per_k]  # cumulative time after each 1,000 trials
    k = len(at) - 1
    early = (at[4] - at[1]) / 3000 * 1e3 if k >= 7 else float("nan")
    late = (at[k] - at[k - 3]) / 3000 * 1e3 if k >= 3 else total
    return total, early, late


#: Trials per turn of a paired run (divides 1,000).
_BLOCK = 100


def measure_pair(
    name: str, n_trials: int, storages: tuple[str | None, str | None], kind: str = "mixed5"
) -> tuple[Stats, Stats]:
    """Run ``name`` and ``RandomSampler`` in turns of 100 trials; the stats of each.

    Each stats triple is the mean ms/trial of the run, of its trials 1,000-4,000 and of its
    last 3,000 trials (:func:`_stats`). Only the time spent inside ``study.optimize`` counts.
    """
    studies = [
        optuna.create_study(sampler=VARIANTS[name](0), storage=storages[0]),
        optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0), storage=storages[1]),
    ]
    elapsed = [0.0, 0.0]
    ends: list[list[float]] = [[], []]
    for block in range(-(-n_trials // _BLOCK)):
        size = min(_BLOCK, n_trials - block * _BLOCK)
        order = (0, 1) if block % 2 == 0 else (1, 0)
        for i in order:
            start = time.perf_counter()
            studies[i].optimize(OBJECTIVES[kind], n_trials=size)
            elapsed[i] += time.perf_counter() - start
            ends[i].append(elapsed[i])
    return _stats(ends[0], n_trials), _stats(ends[1], n_trials)


def _line(kind: str, n: int, label: str, stats: list[Stats], ratio: tuple[float, float]) -> str:
    total, early, late = (statistics.median(c) for c in zip(*stats))
    return (
        f"{kind:8} {n:>7} {label:11} {total:9.3f} {early:9.3f} "
        f"{late:9.3f} {ratio[0]:9.2f} {ratio[1]:9.2f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--samplers", nargs="*", default=[n for n in ALL if n not in ("random", "tpe", "cmaes")]
    )
    parser.add_argument("--memory-trials", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--sqlite-trials", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument(
        "--objective",
        choices=sorted(OBJECTIVES),
        default="mixed5",
        help="mixed5: 3 floats (1 log), an int and a categorical; float2: 2 floats",
    )
    parser.add_argument("--repeat", type=int, default=3, help="pairs per figure (median)")
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="disable the garbage collector while measuring (isolates the samplers' own cost)",
    )
    parser.add_argument(
        "--per-attribute-writes",
        action="store_true",
        help="write a trial's attributes one call each, as Optuna's public API does (measures "
        "what optuna_psms._compat's one write per trial saves on SQLite)",
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if args.per_attribute_writes:
        from optuna_psms._compat import _write

        _write.BATCHED = False
    print(
        f"optuna {optuna.__version__}; instant objective {args.objective}"
        + ("; garbage collector off" if args.no_gc else "")
        + ("; one write per attribute" if args.per_attribute_writes else "")
    )
    print(
        f"{'storage':8} {'trials':>7} {'sampler':11} {'ms/trial':>9} {'early':>9} "
        f"{'late':>9} {'x random':>9} {'(late)':>9}"
    )
    names = [s for s in args.samplers if s != "random"]
    for storage_kind, sizes in (("memory", args.memory_trials), ("sqlite", args.sqlite_trials)):
        for n in sizes:
            rows: dict[str, list[Stats]] = {name: [] for name in names}
            ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
            randoms: list[Stats] = []
            for _ in range(max(1, args.repeat)):
                for name in names:
                    with tempfile.TemporaryDirectory() as tmp:
                        urls: tuple[str | None, str | None] = (None, None)
                        if storage_kind == "sqlite":
                            urls = (
                                f"sqlite:///{os.path.join(tmp, 's.db')}",
                                f"sqlite:///{os.path.join(tmp, 'r.db')}",
                            )
                        gc.collect()
                        if args.no_gc:
                            gc.disable()
                        try:
                            ours, base = measure_pair(name, n, urls, args.objective)
                        finally:
                            gc.enable()
                    rows[name].append(ours)
                    randoms.append(base)
                    ratios[name].append((ours[0] / base[0], ours[2] / base[2]))

            print(_line(storage_kind, n, "random", randoms, (1.0, 1.0)), flush=True)
            for name in names:
                ratio = (
                    statistics.median(r[0] for r in ratios[name]),
                    statistics.median(r[1] for r in ratios[name]),
                )
                print(_line(storage_kind, n, name, rows[name], ratio), flush=True)


if __name__ == "__main__":
    main()
