"""The BBOB table: saved runs merged, per-function ratios to random, significant losses.

Split from :mod:`optuna_psms.benchmarks.bbob` (which re-exports :func:`summarize`,
:func:`markdown`, :func:`loss_p_value`, :data:`LOSS_LEVEL`, :func:`merge_saved` and
:func:`seed_list`); the score is described there.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import json
import math
import statistics
from typing import Any


#: Level of the one-sided Mann-Whitney U test that marks a loss to random significant.
LOSS_LEVEL = 0.05


def _ratio(value: float, reference: float) -> float:
    if reference > 0:
        return value / reference
    return 1.0 if value <= reference else math.inf


def loss_p_value(sampler: Sequence[float], random: Sequence[float]) -> float:
    """One-sided p of "the sampler's final regrets tend to be larger than random's".

    Mann-Whitney U (rank-sum) over the runs (seeds x instances), exact for small samples
    without ties; 1.0 when either side has fewer than two runs.
    """
    if len(sampler) < 2 or len(random) < 2:
        return 1.0
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(sampler, random, alternative="greater").pvalue)


def summarize(
    runs: list[dict[str, Any]], samplers: Sequence[str], functions: Sequence[int]
) -> dict[str, Any]:
    """Per-function ratios to random and the normalized regret of every sampler.

    A sampler need not have run on every function (runs merged from invocations over
    different function sets): its missing ratios are absent from ``"ratio"``, its
    ``"normalized"`` is the mean over ``functions`` only if it ran on all of them (absent
    otherwise), and ``"common"`` holds every sampler's mean over the functions all of them
    ran (``"common_functions"``). ``random`` must have run on every function.
    """
    finals: dict[tuple[str, int], list[float]] = {}
    for run in runs:
        finals.setdefault((run["sampler"], run["function"]), []).append(run["trace"][-1])
    median = {k: statistics.median(v) for k, v in finals.items()}
    missing = [f for f in functions if ("random", f) not in median]
    if missing:
        raise ValueError(f"random did not run on functions {missing}: nothing to normalize by.")
    ratio = {
        (s, f): _ratio(median[(s, f)], median[("random", f)])
        for s in samplers
        for f in functions
        if (s, f) in median
    }
    ran = {s: [f for f in functions if (s, f) in ratio] for s in samplers}
    common = [f for f in functions if all((s, f) in ratio for s in samplers)]
    normalized = {
        s: statistics.fmean(ratio[(s, f)] for f in functions)
        for s in samplers
        if len(ran[s]) == len(functions)
    }
    losses = {s: [f for f in ran[s] if ratio[(s, f)] > 1.0] for s in samplers}
    loss_p = {
        (s, f): loss_p_value(finals[(s, f)], finals[("random", f)])
        for s in samplers
        for f in losses[s]
    }
    out: dict[str, Any] = {
        "median": median,
        "ratio": ratio,
        "normalized": normalized,
        "losses": losses,
        "loss_p": loss_p,
        "significant_losses": {
            s: [f for f in losses[s] if loss_p[(s, f)] < LOSS_LEVEL] for s in samplers
        },
        "ran": ran,
        "common_functions": common,
        "common": {s: statistics.fmean(ratio[(s, f)] for f in common) for s in samplers if common},
    }
    for key in ("wall", "centre"):
        values: dict[str, list[float]] = {}
        for run in runs:
            if key in run and run["function"] in functions:
                values.setdefault(run["sampler"], []).append(run[key])
        out[key] = {s: statistics.fmean(v) for s, v in values.items()}
    return out


def markdown(summary: dict[str, Any], samplers: Sequence[str], functions: Sequence[int]) -> str:
    """The table: ratio to random's median final regret per function, ``L`` above 1.

    ``L*`` marks a loss that is significant (see :func:`loss_p_value`); a summary without
    ``"significant_losses"`` (older callers) marks none.

    A function a sampler did not run on is ``-``; so is its normalized regret over all the
    functions, and a row gives every sampler's mean over the functions all of them ran.
    """
    from optuna_psms.benchmarks._bbob_problem import FUNCTION_NAMES

    ratio = summary["ratio"]
    ran = summary.get("ran", {s: list(functions) for s in samplers})
    significant = summary.get("significant_losses", {})
    lines = ["| function | " + " | ".join(samplers) + " |", "|---" * (len(samplers) + 1) + "|"]
    for f in functions:
        cells = []
        for s in samplers:
            r = ratio.get((s, f))
            mark = " L*" if f in significant.get(s, ()) else " L" if r and r > 1.0 else ""
            cells.append("-" if r is None else f"{r:.3g}{mark}")
        lines.append(f"| f{f} {FUNCTION_NAMES[f]} | " + " | ".join(cells) + " |")
    normalized = summary["normalized"]
    common = summary.get("common_functions", functions)
    label = "" if len(common) == len(functions) else f" (all {len(functions)} functions)"
    lines.append(
        f"| **normalized regret**{label} | "
        + " | ".join(f"**{normalized[s]:.3f}**" if s in normalized else "-" for s in samplers)
        + " |"
    )
    if 0 < len(common) < len(functions):
        lines.append(
            f"| normalized regret over the {len(common)} "
            f"function{'s' if len(common) > 1 else ''} every sampler ran | "
            + " | ".join(f"{summary['common'][s]:.3f}" for s in samplers)
            + " |"
        )
    lines.append(
        "| functions worse than random | "
        + " | ".join(
            str(len(summary["losses"][s]))
            + ("" if len(ran[s]) == len(functions) else f" of {len(ran[s])}")
            for s in samplers
        )
        + " |"
    )
    if significant:
        lines.append(
            f"| of which significant (one-sided Mann-Whitney, p < {LOSS_LEVEL:g}) | "
            + " | ".join(str(len(significant[s])) for s in samplers)
            + " |"
        )
    for key, label in (("wall", "on a wall"), ("centre", "on the centre")):
        shares = summary.get(key, {})
        if shares:
            lines.append(
                f"| % coordinates exactly {label} | "
                + " | ".join(f"{100 * shares[s]:.1f}" if s in shares else "-" for s in samplers)
                + " |"
            )
    return "\n".join(lines)


def seed_list(meta: dict[str, Any]) -> list[int]:
    """The seeds of a saved run's ``meta`` (files before ``--first-seed``: ``0 .. seeds-1``)."""
    if "seed_list" in meta:
        return [int(s) for s in meta["seed_list"]]
    return list(range(int(meta["seeds"])))


def seeds_label(seeds: Sequence[int]) -> str:
    """``0-2`` for consecutive seeds, else ``0, 2, 5``."""
    seeds = sorted(seeds)
    if seeds and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
    return ", ".join(map(str, seeds))


def merge_saved(
    paths: Sequence[str], parser: argparse.ArgumentParser
) -> tuple[dict[str, Any], list[Any]]:
    """One run from several saved ones (seeded runs are identical across invocations).

    The files must share dimension, trials, instances and the durations of simulated
    workers; their seeds, functions, samplers and simulated worker counts are united (a file
    of seed 2 adds a third seed to a file of seeds 0-1; a sampler may lack some functions:
    see :func:`summarize`); a run saved in several files is taken from the last one.
    ``meta["seed_list"]`` lists the seeds, ``meta["files"]`` names the files and
    ``meta["seconds"]`` sums their run times. A mismatch is a ``parser.error``.
    """
    meta: dict[str, Any] = {}
    runs: dict[tuple[str, int, int, int, int | None], Any] = {}
    for path in paths:
        with open(path) as fh:
            saved = json.load(fh)
        m = saved["meta"]
        seeds = seed_list(m)
        if meta:
            for key in ("dim", "trials", "instances", "durations"):
                if m.get(key) != meta.get(key):
                    parser.error(f"--from-json: {path} differs in {key}")
            meta["seed_list"] = sorted(set(meta["seed_list"]) | set(seeds))
            meta["seeds"] = len(meta["seed_list"])
            meta["samplers"] += [s for s in m["samplers"] if s not in meta["samplers"]]
            meta["functions"] = sorted(set(meta["functions"]) | set(m["functions"]))
            if "workers_sim" in meta:
                meta["workers_sim"] = sorted(set(meta["workers_sim"]) | set(m["workers_sim"]))
            meta["command"] += " + " + m["command"]
            meta["seconds"] = round(meta.get("seconds", 0) + m.get("seconds", 0), 1)
        else:
            meta = dict(m, files=[], seed_list=seeds)
        meta["files"].append(str(path).rsplit("/", 1)[-1])
        for run in saved["runs"]:
            where = (run["sampler"], run["function"], run["instance"], run["seed"])
            runs[(*where, run.get("workers"))] = run
    return meta, list(runs.values())
