"""Constrained optimisation: optuna-psms's samplers against TPE and GPSampler with constraints.

COCO's ``bbob-constrained`` suite (``pip install coco-experiment``; offline, in the
``cocoex`` wheel): each problem is a BBOB function with linear constraints (the
unconstrained optimum is infeasible). Every sampler gets the same objective and the same
``constraints_func`` (the constraint values, kept in a user attr by the objective), public
API only. For each problem and seed the figure is the best *feasible* objective value found
within the budget; samplers are ranked per (problem, seed) (1 = best, ties averaged, no
feasible trial = worst), and the table gives the mean rank, the problems where the sampler's
median over seeds is the best, the share of runs that found a feasible point and the
seconds per run (no feasible point for every sampler: the problem counts for none).

Usage (the figures in docs/core.md):

    python docs/reproduce/constrained.py --dimension 5 --trials 100 --seeds 3
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any
import warnings

import numpy as np
import optuna

import optuna_psms


def _samplers(seed: int) -> dict[str, Any]:
    def c(t: optuna.trial.FrozenTrial) -> list[float]:
        return list(t.user_attrs["c"])

    return {
        "PSO": optuna_psms.PSOSampler(seed=seed, constraints_func=c),
        "PatternSearch": optuna_psms.PatternSearchSampler(seed=seed, constraints_func=c),
        "UMDA": optuna_psms.UMDASampler(seed=seed, constraints_func=c),
        "BUMDA": optuna_psms.BUMDASampler(seed=seed, constraints_func=c),
        "DynamicRandom": optuna_psms.DynamicRandomSampler(seed=seed, constraints_func=c),
        "TPE": optuna.samplers.TPESampler(seed=seed, constraints_func=c),
        "GP": optuna.samplers.GPSampler(seed=seed, constraints_func=c),
        "Random": optuna.samplers.RandomSampler(seed=seed),
    }


def _run(problem: Any, sampler: Any, trials: int) -> tuple[float, float]:
    """(best feasible value, seconds) of one study."""
    lo, hi = problem.lower_bounds, problem.upper_bounds

    def objective(trial: optuna.Trial) -> float:
        x = np.array([trial.suggest_float(f"x{i}", lo[i], hi[i]) for i in range(len(lo))])
        trial.set_user_attr("c", [float(v) for v in problem.constraint(x)])
        return float(problem(x))

    study = optuna.create_study(sampler=sampler)
    start = time.perf_counter()
    study.optimize(objective, n_trials=trials)
    seconds = time.perf_counter() - start
    feasible = [
        t.value
        for t in study.trials
        if t.value is not None and all(v <= 0 for v in t.user_attrs["c"])
    ]
    return min(feasible, default=math.inf), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dimension", type=int, default=5)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--functions", default="1-9", help="bbob-constrained function ids")
    parser.add_argument(
        "--constraint-sets", default="1,4", help="which of the 6 constraint counts per function"
    )
    parser.add_argument("--samplers", default="", help="comma-separated subset")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    import cocoex  # coco-experiment

    lo_f, _, hi_f = args.functions.partition("-")
    functions = range(int(lo_f), int(hi_f or lo_f) + 1)
    sets = [int(s) for s in args.constraint_sets.split(",")]
    suite = cocoex.Suite("bbob-constrained", "", f"dimensions:{args.dimension} instance_indices:1")
    ids = [
        p.id
        for p in suite
        if (p.id_function - 1) // 6 + 1 in functions and (p.id_function - 1) % 6 + 1 in sets
    ]
    problems = [suite.get_problem(i) for i in ids]  # iterating frees each problem
    names = list(_samplers(0))
    try:
        import torch  # noqa: F401  # GPSampler needs it
    except ImportError:
        print("GPSampler skipped: it needs PyTorch (pip install torch)")
        names.remove("GP")
    if args.samplers:
        names = [n for n in names if n in args.samplers.split(",")]
    best: dict[tuple[str, str, int], float] = {}
    secs: dict[str, list[float]] = {n: [] for n in names}
    for problem in problems:
        for seed in range(args.seeds):
            samplers = _samplers(seed)
            for name in names:
                value, seconds = _run(problem, samplers[name], args.trials)
                best[(problem.id, name, seed)] = value
                secs[name].append(seconds)
        line = "  ".join(
            f"{n}={statistics.median(best[(problem.id, n, s)] for s in range(args.seeds)):.4g}"
            for n in names
        )
        print(f"{problem.id}: {line}", flush=True)
    ranks: dict[str, list[float]] = {n: [] for n in names}
    wins = dict.fromkeys(names, 0)
    for problem in problems:
        for seed in range(args.seeds):
            values = sorted((best[(problem.id, n, seed)], n) for n in names)
            for n in names:
                v = best[(problem.id, n, seed)]
                below = sum(1 for w, _ in values if w < v)
                equal = sum(1 for w, _ in values if w == v)
                ranks[n].append(below + (equal + 1) / 2)
        medians = {
            n: statistics.median(best[(problem.id, n, s)] for s in range(args.seeds))
            for n in names
        }
        top = min(medians.values())
        for n in names:
            wins[n] += math.isfinite(top) and medians[n] == top
    runs = len(problems) * args.seeds
    print()
    print(
        f"bbob-constrained, dimension {args.dimension}, {len(problems)} problems, "
        f"{args.trials} trials, {args.seeds} seeds"
    )
    print("| sampler | mean rank | best median (problems) | runs feasible | s/run |")
    print("|---|---|---|---|---|")
    for n in sorted(names, key=lambda n: statistics.mean(ranks[n])):
        feasible = sum(
            1 for p in problems for s in range(args.seeds) if math.isfinite(best[(p.id, n, s)])
        )
        print(
            f"| {n} | {statistics.mean(ranks[n]):.2f} | {wins[n]} | {feasible}/{runs} "
            f"| {statistics.mean(secs[n]):.2f} |"
        )


if __name__ == "__main__":
    main()
