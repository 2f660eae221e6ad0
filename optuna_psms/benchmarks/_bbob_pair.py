"""Two samplers of a BBOB run head to head: per-function tests and a verdict over the suite.

``python -m optuna_psms.benchmarks.bbob --from-json FILE --pair A B`` prints, per function,
the median final regrets of ``A`` and ``B``, their ratio, the two-sided Mann-Whitney U p of
``A``'s final regrets against ``B``'s and a mark: ``W`` (``A`` significantly better),
``L`` (significantly worse) or ``T`` (no difference shown). Below the table, the totals and
the suite-level test: a two-sided Wilcoxon signed-rank test of the per-function
``log10(median_A / median_B)`` against 0. The verdict "A beats B beyond noise" needs the
Wilcoxon ``p <`` :data:`PAIR_LEVEL`, its signed ranks on ``A``'s side and more significant
wins than losses (the mirror image for "B beats A"); anything else is "no difference shown".

Final regrets below :data:`FLOOR` (COCO's last target: a run below it has solved the
function) are set to it before both tests and the ratios, so two solved runs tie.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import math
import statistics
from typing import Any


#: Significance level of both the per-function and the suite-level test.
PAIR_LEVEL = 0.05

#: Final regrets below this are ties at COCO's last target (``1e-8``).
FLOOR = 1e-8


def _signed_ranks(d: Sequence[float]) -> tuple[float, float, float]:
    """Wilcoxon's rank sums ``(W+, W-)`` of the non-zero ``d``, and the two-sided p."""
    from scipy.stats import rankdata
    from scipy.stats import wilcoxon

    nonzero = [x for x in d if x != 0.0]
    if not nonzero:
        return 0.0, 0.0, 1.0
    ranks = rankdata([abs(x) for x in nonzero])
    plus = float(sum(r for r, x in zip(ranks, nonzero) if x > 0))
    minus = float(sum(r for r, x in zip(ranks, nonzero) if x < 0))
    if len(nonzero) < 2:
        return plus, minus, 1.0
    return plus, minus, float(wilcoxon(nonzero).pvalue)


def compare_pair(
    runs: Sequence[dict[str, Any]], a: str, b: str, functions: Sequence[int]
) -> dict[str, Any]:
    """``A`` against ``B`` over the functions both ran (see the module's docstring).

    Returns ``"rows"`` (one dict per function: ``function``, ``median_a``, ``median_b``,
    ``ratio``, ``p``, ``mark``), the counts ``"wins"``, ``"ties"``, ``"losses"``,
    ``"lower"`` (functions where ``A``'s median is the lower), ``"geomean_ratio"``, the
    Wilcoxon ``"w_plus"``, ``"w_minus"``, ``"p"`` and the ``"verdict"``. A sampler without
    runs on any of ``functions``, or ``A == B``, is a ``ValueError``.
    """
    from scipy.stats import mannwhitneyu

    if a == b:
        raise ValueError(f"--pair needs two different samplers, got {a!r} twice.")
    finals: dict[tuple[str, int], list[float]] = {}
    for run in runs:
        if run["sampler"] in (a, b):
            value = max(float(run["trace"][-1]), FLOOR)
            finals.setdefault((run["sampler"], run["function"]), []).append(value)
    for s in (a, b):
        if not any((s, f) in finals for f in functions):
            raise ValueError(f"--pair: {s!r} has no runs on the functions compared.")
    common = [f for f in functions if (a, f) in finals and (b, f) in finals]
    if not common:
        raise ValueError(f"--pair: {a!r} and {b!r} share no function.")
    rows: list[dict[str, Any]] = []
    for f in common:
        x, y = finals[(a, f)], finals[(b, f)]
        med_a, med_b = statistics.median(x), statistics.median(y)
        if len(x) < 2 or len(y) < 2:
            p, a_lower = 1.0, med_a < med_b
        else:
            test = mannwhitneyu(x, y, alternative="two-sided")
            # U counts the pairs with A's regret the larger (ties half): below n*m/2, A lower.
            p, a_lower = float(test.pvalue), float(test.statistic) < len(x) * len(y) / 2
            p = 1.0 if math.isnan(p) else p
        mark = "T" if p >= PAIR_LEVEL else "W" if a_lower else "L"
        rows.append(
            {"function": f, "median_a": med_a, "median_b": med_b, "ratio": med_a / med_b}
            | {"p": p, "mark": mark}
        )
    d = [math.log10(row["ratio"]) for row in rows]
    w_plus, w_minus, p = _signed_ranks(d)
    wins = sum(row["mark"] == "W" for row in rows)
    losses = sum(row["mark"] == "L" for row in rows)
    if p < PAIR_LEVEL and w_plus < w_minus and wins > losses:
        verdict = f"{a} beats {b} beyond noise"
    elif p < PAIR_LEVEL and w_plus > w_minus and losses > wins:
        verdict = f"{b} beats {a} beyond noise"
    else:
        verdict = "no difference shown"
    return {
        "rows": rows,
        "wins": wins,
        "ties": len(rows) - wins - losses,
        "losses": losses,
        "lower": sum(row["median_a"] < row["median_b"] for row in rows),
        "geomean_ratio": 10.0 ** statistics.fmean(d),
        "w_plus": w_plus,
        "w_minus": w_minus,
        "p": p,
        "verdict": verdict,
    }


def pair_markdown(result: dict[str, Any], a: str, b: str) -> str:
    """The per-function table of :func:`compare_pair` and its totals, as markdown."""
    from optuna_psms.benchmarks._bbob_problem import FUNCTION_NAMES

    lines = [
        f"| function | median {a} | median {b} | {a} / {b} | Mann-Whitney p | W/T/L |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        f = row["function"]
        lines.append(
            f"| f{f} {FUNCTION_NAMES[f]} | {row['median_a']:.3g} | {row['median_b']:.3g} | "
            f"{row['ratio']:.3g} | {row['p']:.2g} | {row['mark']} |"
        )
    n = len(result["rows"])
    lines += [
        "",
        f"{a} against {b} over {n} function{'s' if n > 1 else ''}: "
        f"{result['wins']} W / {result['ties']} T / {result['losses']} L "
        f"(two-sided Mann-Whitney, p < {PAIR_LEVEL:g}); {a}'s median lower on "
        f"{result['lower']} of {n}; geometric mean of the ratios {result['geomean_ratio']:.3g}.",
        f"Wilcoxon signed-rank of the {n} log10 ratios: W+ = {result['w_plus']:g}, "
        f"W- = {result['w_minus']:g}, p = {result['p']:.3g}.",
        f"Verdict (Wilcoxon p < {PAIR_LEVEL:g} on {a}'s side and W > L, or the mirror "
        f"image): {result['verdict']}.",
    ]
    return "\n".join(lines)


def check_pairs(
    pairs: Sequence[Sequence[str]] | None,
    samplers: Sequence[str],
    parser: argparse.ArgumentParser,
) -> None:
    """``parser.error`` unless every name of ``--pair`` is among ``samplers``."""
    for pair in pairs or []:
        unknown = [s for s in pair if s not in samplers]
        if unknown:
            parser.error(f"--pair: {unknown[0]!r} is not among the samplers {list(samplers)}")


def print_pairs(
    pairs: Sequence[Sequence[str]],
    runs: Sequence[dict[str, Any]],
    functions: Sequence[int],
    heading: str,
    parser: argparse.ArgumentParser,
) -> None:
    """Print :func:`pair_markdown` of every pair under ``heading``; bad pairs: ``parser.error``."""
    for a, b in pairs:
        try:
            result = compare_pair(runs, a, b, functions)
        except ValueError as exc:
            parser.error(str(exc))
        print(f"{heading}: {a} against {b}, final regrets (below {FLOOR:g}: ties at {FLOOR:g}).\n")
        print(pair_markdown(result, a, b) + "\n")
