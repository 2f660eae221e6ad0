"""Generation by generation on one BBOB function: does a population sampler make progress?

For each sampler and seed, the trials are cut into blocks of ``--block`` trials (the
generations of ``umda@budget``/``bumda@budget`` at 200 trials are 20 trials; DRS's batches
are 40, so its blocks of 20 are half-batches), and per block the script prints the best
regret of the block and the *spread* of the block's best 25% (the largest, over
coordinates, standard deviation in the box's units, ``[-5, 5]``; random's blocks of 20 at
5-D have about 3.5). It then prints, over the seeds, the median best of the first and of
the last block, the median spread of the last block, how many runs restarted
(``psms:converged_run``; the earliest such trial) and the median final regret. Same
objective and sampler names as ``python -m optuna_psms.benchmarks.bbob``. Run::

    python docs/reproduce/bbob_generations.py --function 16 --seeds 10 \\
        --samplers random umda@budget bumda@budget drs@budget
"""

from __future__ import annotations

import argparse
import math
import statistics

import numpy as np
import optuna

from optuna_psms.benchmarks.bbob import build_sampler
from optuna_psms.benchmarks.bbob import make_objective


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--function", type=int, default=16)
    parser.add_argument("--dim", type=int, default=5)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--block", type=int, default=20)
    parser.add_argument("--samplers", nargs="+", default=["random", "umda@budget"])
    parser.add_argument("--quiet", action="store_true", help="summaries only")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    objective = make_objective(args.function, args.dim)
    names = [f"x{i}" for i in range(args.dim)]
    blocks = args.trials // args.block
    n_top = max(2, math.ceil(0.25 * args.block))
    print(f"f{args.function}, {args.dim}-D, {args.trials} trials, blocks of {args.block}")
    for name in args.samplers:
        first, last, spread, finals, restarts = [], [], [], [], []
        for seed in range(args.seeds):
            study = optuna.create_study(sampler=build_sampler(name, seed, args.trials))
            study.optimize(objective, n_trials=args.trials)
            trials = study.trials
            values = np.array([t.value for t in trials], dtype=float)
            x = np.array([[t.params[n] for n in names] for t in trials], dtype=float)
            claims = [t.number for t in trials if "psms:converged_run" in t.user_attrs]
            restarts.append(claims[0] if claims else -1)
            cells = []
            for b in range(blocks):
                v, xb = values[b * args.block : (b + 1) * args.block], x[b * args.block :]
                top = xb[: args.block][np.argsort(v)[:n_top]]
                s = float(np.max(top.std(axis=0, ddof=1)))
                cells.append(f"{v.min():.3g}/{s:.2f}")
                if b == 0:
                    first.append(float(v.min()))
                if b == blocks - 1:
                    last.append(float(v.min()))
                    spread.append(s)
            finals.append(float(values.min()))
            if not args.quiet:
                print(f"{name} seed {seed}: best/spread per block " + " ".join(cells))
        print(
            f"{name}: median best of block 1 {statistics.median(first):.3g}, of block "
            f"{blocks} {statistics.median(last):.3g}; median spread of block {blocks} "
            f"{statistics.median(spread):.2f}; runs with a restart "
            f"{sum(r >= 0 for r in restarts)}/{args.seeds} (first at trial "
            f"{min((r for r in restarts if r >= 0), default='-')}); "
            f"median final regret {statistics.median(finals):.3g}"
        )


if __name__ == "__main__":
    main()
