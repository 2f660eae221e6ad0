"""How often a k-seed BBOB table shows a loss against random: every k-subset of saved seeds.

The BBOB table marks a function ``L`` when a sampler's median final regret over the seeds
exceeds ``RandomSampler``'s median over the same seeds. With few seeds that verdict is noisy
where a sampler is about as good as random. Given saved runs with ``N`` seeds (``--json`` or a
file cut by ``docs/reproduce/bbob_finals.py``), this script takes every subset of ``k`` of those
seeds
(the same subset for the sampler and for random, as one invocation of the runner with those
seeds would; above 20,000 subsets, a fixed sample of 20,000), and prints per sampler:

* the ratio over all ``N`` seeds (the table's figure with every seed),
* per function, the share of subsets on which the function is a loss (listed when above 5%),
* the expected number of losses of a ``k``-seed table and the share of subsets without any.

Run::

    python docs/reproduce/bbob_seed_lottery.py docs/reproduce/data/bbob5_seeds30_finals.json --k 3
"""

from __future__ import annotations

import argparse
from itertools import combinations
import math

import numpy as np

from optuna_psms.benchmarks.bbob import merge_saved


#: Above this many k-subsets, a fixed random sample of this many is used.
MAX_SUBSETS = 20_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--k", type=int, default=3, help="seeds per table (default 3)")
    args = parser.parse_args()
    meta, runs = merge_saved(args.paths, parser)
    seeds = sorted(meta["seed_list"])
    final: dict[tuple[str, int], dict[int, float]] = {}
    for run in runs:
        final.setdefault((run["sampler"], run["function"]), {})[run["seed"]] = run["trace"][-1]
    functions = sorted(meta["functions"])
    if math.comb(len(seeds), args.k) <= MAX_SUBSETS:
        subsets = np.array(list(combinations(range(len(seeds)), args.k)))
    else:  # too many to list: a fixed sample of them (seed 0)
        rng = np.random.default_rng(0)
        subsets = np.array(
            [np.sort(rng.choice(len(seeds), args.k, replace=False)) for _ in range(MAX_SUBSETS)]
        )
    print(
        f"{meta['dim']}-D, {meta['trials']} trials, seeds {seeds[0]}-{seeds[-1]} "
        f"({len(seeds)}), {len(subsets)} subsets of {args.k} seeds"
    )
    for sampler in meta["samplers"]:
        if sampler == "random":
            continue
        table = np.array([[final[(sampler, f)][s] for s in seeds] for f in functions])
        base = np.array([[final[("random", f)][s] for s in seeds] for f in functions])
        ratio = np.median(table, axis=1) / np.median(base, axis=1)
        ours = np.median(table[:, subsets], axis=2)  # (functions, subsets)
        theirs = np.median(base[:, subsets], axis=2)
        lost = ours > theirs
        share = lost.mean(axis=1)
        listed = ", ".join(
            f"f{f} {p:.2f} ({r:.2f})" for f, p, r in zip(functions, share, ratio) if p > 0.05
        )
        worse = ", ".join(f"f{f} {r:.2f}" for f, r in zip(functions, ratio) if r > 1)
        print(f"{sampler}: all {len(seeds)} seeds {ratio.mean():.3f}, worse: {worse or 'none'}")
        print(
            f"  {args.k}-seed tables: expected losses {share.sum():.1f}, "
            f"no loss in {np.mean(~lost.any(axis=0)):.0%} of them; "
            f"loss share per function (ratio at {len(seeds)} seeds): {listed}"
        )


if __name__ == "__main__":
    main()
