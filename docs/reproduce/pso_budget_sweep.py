"""Swarm size and topology of ``PSOSampler(budget=...)``: the sweep behind the budget rule.

Tunes on the nine functions (shifted minimisers; :func:`optuna_psms.meta.evaluate`), never
on BBOB, which is kept for reporting. For each (dimension, budget) and each swarm size and
topology, prints the normalized regret (mean over the nine of median final regret over
seeds / ``RandomSampler``'s; lower is better) of ``PSOSampler(budget=B, swarm_size=m,
topology=t, boundary="damping")``; every other setting is the paper's.

Run (about 15 core-minutes)::

    python docs/reproduce/pso_budget_sweep.py --dims 5 --budgets 100 200 500 1000 --seeds 5
    python docs/reproduce/pso_budget_sweep.py --dims 10 --budgets 1000 --seeds 3
"""

from __future__ import annotations

import argparse
import json

from optuna_psms import meta


SWARMS = (5, 8, 10, 14, 20, 28, 40)
TOPOLOGIES = ("global", "ring")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[5])
    parser.add_argument("--budgets", type=int, nargs="+", default=[100, 200, 500, 1000])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--swarms", type=int, nargs="+", default=list(SWARMS))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = []
    for dim in args.dims:
        for budget in args.budgets:
            row = {}
            for topology in TOPOLOGIES:
                for m in args.swarms:
                    if m > budget:
                        continue
                    score = meta.evaluate(
                        "pso",
                        {"swarm_size": m, "topology": topology},
                        suite="nine",
                        dim=dim,
                        budget=budget,
                        seeds=args.seeds,
                    )
                    row[f"{topology}/{m}"] = score
                    results.append(
                        {"dim": dim, "budget": budget, "topology": topology, "swarm": m}
                        | {"score": score}
                    )
                    label = f"dim={dim} budget={budget} {topology:6s} m={m:2d}"
                    print(f"{label} {score:.3f}", flush=True)
            best = min(row, key=row.__getitem__)
            print(f"dim={dim} budget={budget} best {best} {row[best]:.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
