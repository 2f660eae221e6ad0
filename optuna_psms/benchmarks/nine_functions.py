"""Median best value on the nine benchmark functions, for every sampler.

Run ``python -m optuna_psms.benchmarks.nine_functions`` (defaults: 10 dimensions, 1,000
trials, seeds 0-4, every sampler of the package plus Optuna's random, TPE and CMA-ES;
``NAME@budget`` and ``NAME{json}`` as in :mod:`optuna_psms.benchmarks.bbob`). It
prints one Markdown table of the median best value over seeds per function and sampler, a
``W``/``L`` mark for each of ours against ``RandomSampler`` (lower median wins), and the
win count per sampler; ``--json FILE`` also saves every run's best value.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import statistics
import time

import optuna

from optuna_psms.benchmarks._args import positive_int
from optuna_psms.benchmarks.bbob import build_sampler
from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.samplers._registry import BASELINES
from optuna_psms.samplers._registry import SAMPLERS as ALL


def run_one(
    sampler: str, function: str, dim: int, trials: int, seed: int, shifted: bool = False
) -> tuple[float, float]:
    """Best value of one run and its wall time in seconds."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    # Any registry name, NAME@budget (budget = trials) and NAME{json}, as in the bbob runner.
    study = optuna.create_study(sampler=build_sampler(sampler, seed, trials))
    start = time.perf_counter()
    study.optimize(make_objective(FUNCTIONS[function], dim, shifted), n_trials=trials)
    return study.best_value, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m optuna_psms.benchmarks.nine_functions",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--samplers", nargs="*", default=list(ALL))
    parser.add_argument("--functions", nargs="*", default=list(FUNCTIONS))
    parser.add_argument("--dim", type=positive_int, default=10)
    parser.add_argument("--trials", type=positive_int, default=1000)
    parser.add_argument("--seeds", type=positive_int, default=5)
    parser.add_argument("--workers", type=positive_int, default=2)
    parser.add_argument(
        "--shifted", action="store_true", help="move each minimiser off the box centre"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    samplers = ["random"] + [s for s in args.samplers if s != "random"]
    jobs = [
        (s, f, args.dim, args.trials, seed, args.shifted)
        for f in args.functions
        for s in samplers
        for seed in range(args.seeds)
    ]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_one, *zip(*jobs), chunksize=1))
    best: dict[tuple[str, str], list[float]] = {}
    seconds: dict[str, float] = {}
    for (s, f, *_), (value, secs) in zip(jobs, results):
        best.setdefault((s, f), []).append(value)
        seconds[s] = seconds.get(s, 0.0) + secs
    median = {k: statistics.median(v) for k, v in best.items()}
    print(
        f"Median best of {args.seeds} seeds, {args.dim} dimensions, {args.trials} trials"
        f"{', shifted optima' if args.shifted else ''} "
        f"(optuna {optuna.__version__}); W/L: ours vs RandomSampler.\n"
    )
    print("| function | " + " | ".join(samplers) + " |")
    print("|---" * (len(samplers) + 1) + "|")
    wins = {s: 0 for s in samplers}
    for f in args.functions:
        cells = []
        for s in samplers:
            m = median[(s, f)]
            mark = ""
            if s not in BASELINES:
                won = m < median[("random", f)]
                wins[s] += won
                mark = " W" if won else " L"
            elif s != "random" and m < median[("random", f)]:
                wins[s] += 1
            cells.append(f"{m:.4g}{mark}")
        print(f"| {f} | " + " | ".join(cells) + " |")
    n = len(args.functions)
    print(
        "| wins vs random | "
        + " | ".join("-" if s == "random" else f"{wins[s]}/{n}" for s in samplers)
        + " |"
    )
    print("| seconds (all runs) | " + " | ".join(f"{seconds[s]:.0f}" for s in samplers) + " |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "args": vars(args),
                    "best": {f"{s}/{f}": v for (s, f), v in best.items()},
                    "median": {f"{s}/{f}": v for (s, f), v in median.items()},
                },
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
