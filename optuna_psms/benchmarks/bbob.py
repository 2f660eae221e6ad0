"""COCO's ``bbob`` suite: normalized regret of every sampler against random, in one run.

Run ``python -m optuna_psms.benchmarks.bbob`` (needs the ``bench`` extra:
``pip install "optuna-psms[bench]"``, which brings ``coco-experiment`` and matplotlib; the
suite is compiled into the wheel and runs offline). Defaults: the 24 functions at 5
dimensions, instance 1, 200 trials, seeds 0-2, every sampler of the package plus Optuna's
random, TPE and CMA-ES samplers.

**Score.** Each run minimises ``f(x) - f_opt`` (the *regret*, ``>= 0``) over the box
``[-5, 5]^d``. Per function the score of a sampler is the median, over seeds and instances,
of its final regret divided by the same median of ``RandomSampler`` *in the same run*;
the *normalized regret* of a sampler is the mean of that ratio over the functions (random
scores 1.000, lower is better). A sampler whose ratio exceeds 1 on a function did worse
than random there; the table marks it ``L``, and ``L*`` where that loss is also
significant: a one-sided Mann-Whitney U test of the sampler's final regrets against
random's over the seeds and instances gives ``p < 0.05`` (:data:`LOSS_LEVEL`). With three
seeds no loss can be significant (the smallest one-sided p of 3 against 3 is 0.05): a
3-seed ``L`` is a median, not evidence. Judge "worse than random" with 10-30 seeds.

**Names.** Any name of :data:`optuna_psms.samplers._registry.SAMPLERS`, and for this package's
samplers ``NAME@budget``: the same sampler built with ``budget=trials`` (its budget-aware
settings; see each sampler's ``budget`` argument).

``--json FILE`` saves every run's best-so-far trace; ``--from-json FILE ...`` rebuilds the
table (and plots) from such files without running anything, merging invocations over other
samplers or other functions (a sampler not run on a function gets ``-``, and the table adds
the normalized regret over the functions every sampler ran); ``--plots DIR`` writes an
ECDF of targets reached (COCO-style, targets ``10^2 ... 10^-8``) and per-function
convergence curves as PNG files (needs matplotlib). ``--pair A B`` prints, instead of the
table, ``A`` against ``B`` per function and over the suite (tests and verdict in
:mod:`optuna_psms.benchmarks._bbob_pair`).

``--workers-sim 1 4 16`` runs every sampler as that many asynchronous workers sharing its
study (:mod:`optuna_psms.benchmarks.parallel`; ``--durations`` picks the trial durations)
and prints the normalized regret per worker count, after all the trials and at the
simulated time the most workers take (``--workers`` stays the number of processes).

:func:`make_objective` gives one problem as an Optuna objective, for scripts and for
``optuna-psms compare``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
import json
import math
import sys
import time
from typing import Any

import numpy as np
import optuna

from optuna_psms.benchmarks._args import positive_int
from optuna_psms.benchmarks._bbob_plots import ecdf as ecdf
from optuna_psms.benchmarks._bbob_problem import _problem
from optuna_psms.benchmarks._bbob_problem import FUNCTION_NAMES as FUNCTION_NAMES
from optuna_psms.benchmarks._bbob_problem import LOWER as LOWER
from optuna_psms.benchmarks._bbob_problem import optimal_value as optimal_value
from optuna_psms.benchmarks._bbob_problem import Problem as Problem
from optuna_psms.benchmarks._bbob_problem import UPPER as UPPER
from optuna_psms.benchmarks._bbob_table import LOSS_LEVEL as LOSS_LEVEL
from optuna_psms.benchmarks._bbob_table import loss_p_value as loss_p_value
from optuna_psms.benchmarks._bbob_table import markdown as markdown
from optuna_psms.benchmarks._bbob_table import merge_saved as merge_saved
from optuna_psms.benchmarks._bbob_table import seed_list as seed_list
from optuna_psms.benchmarks._bbob_table import seeds_label
from optuna_psms.benchmarks._bbob_table import summarize as summarize
from optuna_psms.benchmarks.parallel import DURATIONS
from optuna_psms.samplers._registry import OURS


def make_objective(
    function_id: int, dim: int, instance: int = 1
) -> Callable[[optuna.Trial], float]:
    """Optuna objective of one ``bbob`` problem: ``x0`` to ``x{dim-1}`` in ``[-5, 5]``.

    It returns the regret ``f(x) - f_opt`` (0 at the optimum, lower is better).

    Example:

        .. testcode::

            import optuna
            from optuna_psms.benchmarks.bbob import make_objective

            study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
            study.optimize(make_objective(1, 2), n_trials=20)
            assert study.best_value >= 0.0
    """
    problem = _problem(function_id, dim, instance)
    names = [f"x{i}" for i in range(dim)]

    def objective(trial: optuna.Trial) -> float:
        return problem([trial.suggest_float(n, LOWER, UPPER) for n in names])

    return objective


def build_sampler(name: str, seed: int | None, trials: int) -> optuna.samplers.BaseSampler:
    """The sampler ``name`` seeded with ``seed``.

    ``NAME@budget`` gets ``budget=trials``; ``NAME{json}`` or ``NAME@budget{json}`` passes
    the JSON object's keys as keyword arguments (this package's samplers), e.g.
    ``pso@budget{"boundary": "absorb"}``.
    """
    from optuna_psms.samplers._registry import SAMPLERS

    base, brace, text = name.partition("{")
    extra: dict[str, Any] = {}
    if brace:
        try:
            extra = json.loads(brace + text)
        except ValueError as exc:
            raise ValueError(f"unknown sampler {name!r}: bad JSON arguments ({exc}).") from exc
        if not isinstance(extra, dict):
            raise ValueError(f"unknown sampler {name!r}: the arguments must be a JSON object.")
    base, _, suffix = base.partition("@")
    if suffix or brace:
        if suffix not in ("", "budget") or base not in _BUDGETED:
            raise ValueError(
                f"unknown sampler {name!r}: NAME@budget and NAME{{json}} exist for {_BUDGETED}."
            )
        if suffix:
            extra.setdefault("budget", trials)
        try:
            return _ours(base, seed, extra)
        except TypeError as exc:
            raise ValueError(f"unknown sampler {name!r}: {exc}.") from exc
    if name in EXTRA_BASELINES:
        return EXTRA_BASELINES[name](seed)
    if name not in SAMPLERS:
        names = ", ".join([*SAMPLERS, *EXTRA_BASELINES])
        raise ValueError(f"unknown sampler {name!r}; choose one of {names}.")
    return SAMPLERS[name](seed)


def _gp(seed: int | None) -> optuna.samplers.BaseSampler:
    return optuna.samplers.GPSampler(seed=seed, warn_independent_sampling=False)


#: Baselines of the benchmark only, never run unless named: ``gp`` (Optuna's ``GPSampler``,
#: its defaults; needs torch, and takes about a minute per 5-D/200 run).
EXTRA_BASELINES: dict[str, Callable[[int | None], optuna.samplers.BaseSampler]] = {"gp": _gp}


#: The names that take ``@budget`` and ``{json}``: this package's samplers.
_BUDGETED = tuple(OURS)


def _ours(base: str, seed: int | None, extra: dict[str, Any]) -> optuna.samplers.BaseSampler:
    return OURS[base](seed, **extra)


def run_one(
    sampler: str,
    function_id: int,
    dim: int,
    instance: int,
    trials: int,
    seed: int,
    workers_sim: int | None = None,
    durations: str = "lognormal",
) -> tuple[list[float], float, float] | tuple[list[float], float, float, list[float]]:
    """Best-so-far regret after each trial of one run, and the shares of coordinates
    exactly on a wall (``-5`` or ``5``) and exactly on the centre (``0``).

    With ``workers_sim=w`` the run is :func:`optuna_psms.benchmarks.parallel.simulate` of
    ``w`` workers (durations ``durations`` seeded by ``seed``): the trace is in the order the
    trials finished, and the simulated end times come fourth.
    """
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=build_sampler(sampler, seed, trials))
    objective = make_objective(function_id, dim, instance)
    trace: list[float] = []
    best = math.inf

    def record(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        nonlocal best
        if trial.value is not None:
            best = min(best, trial.value)
        trace.append(best)

    times: list[float] = []
    if workers_sim is None:
        study.optimize(objective, n_trials=trials, callbacks=[record])
    else:
        from optuna_psms.benchmarks import parallel

        sim = parallel.simulate(
            study,
            objective,
            trials,
            workers_sim,
            parallel.durations(durations, seed, trials),
            lambda now, trial: record(study, trial),
        )
        times = sim.times
    x = np.array([[t.params[f"x{i}"] for i in range(dim)] for t in study.trials])
    shares = float(np.mean(np.abs(x) == UPPER)), float(np.mean(x == 0.0))
    if workers_sim is None:
        return trace, *shares
    return trace, *shares, times


def _parse_ids(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv: list[str] | None = None) -> None:
    from optuna_psms.benchmarks._bbob_pair import check_pairs
    from optuna_psms.benchmarks._bbob_pair import print_pairs
    from optuna_psms.samplers._registry import SAMPLERS

    parser = argparse.ArgumentParser(
        prog="python -m optuna_psms.benchmarks.bbob",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument(
        "--samplers", nargs="*", default=list(SAMPLERS), help="names; NAME@budget too"
    )
    parser.add_argument(
        "--functions",
        default=None,
        help="ids, e.g. 1-24 or 1,3,15 (default 1-24; with --from-json: a subset of the saved)",
    )
    parser.add_argument("--dim", type=positive_int, default=5)
    parser.add_argument("--trials", type=positive_int, default=200)
    parser.add_argument("--seeds", type=positive_int, default=3, help="N seeds (default 3)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the seeds are K .. K+N-1 (default 0); e.g. --first-seed 2 --seeds 1 adds a third "
        "seed to a run of seeds 0-1, merged with --from-json",
    )
    parser.add_argument("--instances", default="1", help="instance indices, e.g. 1-5")
    parser.add_argument(
        "--workers", type=positive_int, default=1, help="processes running the runs (default 1)"
    )
    parser.add_argument(
        "--workers-sim",
        type=positive_int,
        nargs="+",
        default=None,
        metavar="W",
        help="simulate W asynchronous workers per run, e.g. 1 4 16 (optuna_psms.benchmarks."
        "parallel): W trials kept running in one study; prints normalized regret per W",
    )
    parser.add_argument(
        "--durations",
        choices=DURATIONS,
        default="lognormal",
        help="trial durations of --workers-sim (seeded, the same for every sampler)",
    )
    parser.add_argument("--json", default=None, help="save every run's trace here")
    parser.add_argument(
        "--from-json",
        nargs="*",
        default=None,
        help="summarize saved runs instead (several files: merged; same dimension, trials "
        "and instances required, seeds are united)",
    )
    parser.add_argument("--plots", default=None, help="directory for ECDF/convergence PNGs")
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("A", "B"),
        help="instead of the table: A against B per function (Mann-Whitney W/T/L) and over "
        "the functions (Wilcoxon signed-rank); repeatable",
    )
    args = parser.parse_args(argv)
    if args.first_seed < 0:
        parser.error(f"--first-seed must be >= 0, got {args.first_seed}")
    if args.from_json:
        meta, runs = merge_saved(args.from_json, parser)
        samplers, functions = meta["samplers"], meta["functions"]
        if args.functions is not None:
            wanted = _parse_ids(args.functions)
            absent = [f for f in wanted if f not in functions]
            if absent:
                parser.error(f"--functions: {absent} not in the saved runs")
            functions = wanted
            runs = [run for run in runs if run["function"] in functions]
    else:
        functions = _parse_ids(args.functions or "1-24")
        bad = [f for f in functions if f not in FUNCTION_NAMES]
        if bad:
            parser.error(f"--functions: unknown ids {bad} (1-24)")
        samplers = ["random"] + [s for s in args.samplers if s != "random"]
        check_pairs(args.pair, samplers, parser)
        for s in samplers:
            try:
                build_sampler(s, 0, args.trials)
            except ValueError as exc:
                parser.error(str(exc))
        instances = _parse_ids(args.instances)
        sims: list[int | None] = list(dict.fromkeys(args.workers_sim or [None]))
        jobs = [
            (s, f, args.dim, i, args.trials, seed, w, args.durations)
            for f in functions
            for i in instances
            for s in samplers
            for seed in range(args.first_seed, args.first_seed + args.seeds)
            for w in sims
        ]
        start = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(run_one, *zip(*jobs), chunksize=1))
        runs = []
        for (s, f, _, i, _, seed, w, _), (t, wall, centre, *times) in zip(jobs, results):
            run = {"sampler": s, "function": f, "instance": i, "seed": seed, "trace": t}
            run |= {"wall": wall, "centre": centre}
            if w is not None:
                run |= {"workers": w, "times": times[0]}
            runs.append(run)
        meta = {
            "samplers": samplers,
            "functions": functions,
            "dim": args.dim,
            "trials": args.trials,
            "seeds": args.seeds,
            "seed_list": list(range(args.first_seed, args.first_seed + args.seeds)),
            "instances": instances,
            "optuna": optuna.__version__,
            **(
                {"workers_sim": sorted(args.workers_sim), "durations": args.durations}
                if args.workers_sim
                else {}
            ),
            "seconds": round(time.perf_counter() - start, 1),
            "command": "python -m optuna_psms.benchmarks.bbob " + " ".join(sys.argv[1:]),
        }
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"meta": meta, "runs": runs}, fh)
    heading = (
        f"bbob, {meta['dim']} dimensions, {meta['trials']} trials, "
        f"seeds {seeds_label(seed_list(meta))}, instances {meta['instances']}"
    )
    if "workers_sim" in meta:
        from optuna_psms.benchmarks import parallel

        try:
            workers_summary = parallel.worker_summary(
                runs, samplers, functions, meta["workers_sim"]
            )
        except ValueError as exc:
            parser.error(str(exc))
        print(
            f"{heading}, {meta['durations']} durations (optuna {meta['optuna']}): "
            "normalized regret (median final regret / RandomSampler's at the same worker "
            "count, mean over the functions) per number of simulated workers.\n"
        )
        print(parallel.worker_markdown(workers_summary, samplers, meta["workers_sim"]))
        if args.plots:
            for path in parallel.write_time_plot(runs, samplers, functions, meta, args.plots):
                print(f"wrote {path}")
        return
    if args.pair:
        check_pairs(args.pair, samplers, parser)
        print_pairs(args.pair, runs, functions, heading, parser)
    else:
        try:
            summary = summarize(runs, samplers, functions)
        except ValueError as exc:
            parser.error(str(exc))
        print(
            f"{heading} (optuna {meta['optuna']}): median final regret / "
            "RandomSampler's, per function; L: worse than random; L*: significantly worse "
            f"(one-sided Mann-Whitney over the runs, p < {LOSS_LEVEL:g}).\n"
        )
        print(markdown(summary, samplers, functions))
    if args.plots:
        from optuna_psms.benchmarks._bbob_plots import write_plots

        for path in write_plots(runs, samplers, functions, meta, args.plots):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
