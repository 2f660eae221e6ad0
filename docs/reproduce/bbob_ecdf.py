"""Each sampler's runtime ECDF at given trials, from saved BBOB runs: the numbers the plot draws.

The ECDF of ``--plots`` (``ecdf.png``) is the fraction of (run, target) pairs reached after
each trial, over every function and seed of a sampler and COCO's 51 targets 1e2..1e-8. This
prints its value at the trials asked for, one line per sampler, from the full-trace files of
``python -m optuna_psms.benchmarks.bbob --json`` (several are merged as ``--from-json``
does). Run::

    python docs/reproduce/bbob_ecdf.py bbob10_seeds0_9.json --at 100 1000
"""

from __future__ import annotations

import argparse

from optuna_psms.benchmarks.bbob import ecdf
from optuna_psms.benchmarks.bbob import merge_saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--at", nargs="+", type=int, default=[100, 1000], metavar="TRIAL")
    args = parser.parse_args()
    meta, runs = merge_saved(args.paths, parser)
    if any(len(run["trace"]) < 2 for run in runs):
        parser.error(
            "these runs hold final values only (docs/reproduce/bbob_finals.py); pass full traces"
        )
    traces: dict[str, list[list[float]]] = {}
    for run in runs:
        traces.setdefault(run["sampler"], []).append(run["trace"])
    print("sampler " + " ".join(f"trial {t}" for t in args.at))
    for sampler, sampled in traces.items():
        curve = ecdf(sampled)
        print(sampler, " ".join(f"{curve[min(t, len(curve)) - 1]:.3f}" for t in args.at))


if __name__ == "__main__":
    main()
