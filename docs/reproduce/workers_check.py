"""Issue 33's many-workers targets, checked on seeds the samplers were never tuned on.

Runs (or reads) BBOB 5-D, 200 trials, the 24 functions, seeds 20-29, with 1 and 16 simulated
asynchronous workers (``optuna_psms/benchmarks/parallel.py``, log-normal durations), and
prints for every sampler the normalized regret at 1 and at 16 workers (median final regret
over the seeds / RandomSampler's at the same worker count, mean over the functions: the
table of ``--workers-sim``), the degradation ``regret(16) / regret(1)``, and PASS/FAIL for
the targets:

* ``PSOSampler(budget=200)``: degradation at most 1.10;
* ``FocusedGridSampler(mode="annealed", budget=200)``: degradation at most 1.50;
* both below TPE at 16 workers.

Run everything (TPE is most of the time: about an hour on a loaded 2-core machine)::

    python docs/reproduce/workers_check.py --json /tmp/workers_check.json

or check saved runs of the same protocol (several files are merged, as ``--from-json`` of
``python -m optuna_psms.benchmarks.bbob`` does)::

    python docs/reproduce/workers_check.py --from-json /tmp/fast.json /tmp/tpe.json
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from typing import Any

from optuna_psms.benchmarks import parallel
from optuna_psms.benchmarks._bbob_table import merge_saved


SAMPLERS: tuple[str, ...] = ("random", "tpe", "cmaes", "pso@budget", "pattern@budget")
SAMPLERS += ("afgs@budget", "bumda@budget")
SEEDS = (20, 10)  # first seed, number of seeds
WORKERS = (1, 16)
#: sampler -> the largest degradation allowed (16-worker regret / 1-worker regret).
TARGETS = {"pso@budget": 1.10, "afgs@budget": 1.50}
#: Each of these must be below this sampler at 16 workers.
BELOW = "tpe"


def command(json_path: str, samplers: tuple[str, ...] = SAMPLERS) -> list[str]:
    """The benchmark command of the check."""
    first, n = SEEDS
    return [
        sys.executable,
        "-m",
        "optuna_psms.benchmarks.bbob",
        "--samplers",
        *samplers,
        "--functions",
        "1-24",
        "--dim",
        "5",
        "--trials",
        "200",
        "--first-seed",
        str(first),
        "--seeds",
        str(n),
        "--workers",
        "1",
        "--workers-sim",
        *map(str, WORKERS),
        "--json",
        json_path,
    ]


def verdicts(final: dict[int, dict[str, float]]) -> list[tuple[str, float, float, bool]]:
    """``(target, measured, limit, passed)`` for every target whose samplers were run."""
    one, many = min(WORKERS), max(WORKERS)
    out = []
    for sampler, limit in TARGETS.items():
        if sampler not in final[one] or sampler not in final[many]:
            continue
        ratio = final[many][sampler] / final[one][sampler]
        out.append((f"{sampler}: x({many} vs {one}) <= {limit}", ratio, limit, ratio <= limit))
        if BELOW in final[many]:
            mine, theirs = final[many][sampler], final[many][BELOW]
            out.append((f"{sampler} below {BELOW} at {many} workers", mine, theirs, mine < theirs))
    return out


def report(meta: dict[str, Any], runs: list[dict[str, Any]]) -> bool:
    """Print the table and the verdicts; whether every target passed."""
    samplers = list(meta["samplers"])
    summary = parallel.worker_summary(runs, samplers, meta["functions"], list(WORKERS))
    final = summary["final"]
    one, many = min(WORKERS), max(WORKERS)
    seeds = meta["seed_list"]
    print(
        f"seeds {seeds[0]}-{seeds[-1]}, {meta['dim']}-D, {meta['trials']} trials, "
        f"{len(meta['functions'])} functions, {meta['durations']} durations"
    )
    print(f"| sampler | {one} worker | {many} workers | x({many} vs {one}) |")
    print("|---|---|---|---|")
    for s in samplers:
        a, b = final[one].get(s), final[many].get(s)
        if a is None or b is None:
            continue
        print(f"| {s} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
    passed = True
    for what, measured, limit, ok in verdicts(final):
        passed &= ok
        print(f"{'PASS' if ok else 'FAIL'}  {what}: {measured:.3f} (against {limit:.3f})")
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-json", nargs="+", default=None, help="saved runs to check")
    parser.add_argument("--json", default=None, help="where to save the runs")
    args = parser.parse_args()
    paths = args.from_json
    if paths is None:
        path = args.json or tempfile.mkstemp(suffix=".json")[1]
        subprocess.run(command(path), check=True, stdout=subprocess.DEVNULL)
        paths = [path]
    meta, runs = merge_saved(paths, parser)
    missing = [s for s in SAMPLERS if s not in meta["samplers"]]
    if missing or meta["seed_list"] != list(range(SEEDS[0], SEEDS[0] + SEEDS[1])):
        print(f"note: not the full check (missing {missing}, seeds {meta['seed_list']})")
    sys.exit(0 if report(meta, runs) else 1)


if __name__ == "__main__":
    main()
