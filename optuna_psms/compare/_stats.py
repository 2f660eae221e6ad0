"""The comparison table: per sampler the median final best value over seeds, its
inter-quartile range, wins/ties/losses against the baseline on the same seeds, and a paired
Wilcoxon signed-rank test against the baseline."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import math
import warnings

import numpy as np


#: What a seed means in a comparison (the CLI's output and the HTML report say it). The
#: optuna-psms samplers key every draw by ``(seed, trial number)`` only, not by algorithm:
#: at one seed they draw common random numbers (UMDA and BUMDA propose the same first
#: generation), so samplers are compared seed by seed with paired statistics (W/T/L and the
#: signed-rank test), never as independent samples.
SEED_NOTE = (
    "Seeds are paired: the optuna-psms samplers at one seed draw common random numbers "
    "(e.g. UMDA and BUMDA propose the same first generation), so samplers are compared seed "
    "by seed, not as independent samples."
)

#: Fewest paired seeds with a non-zero difference for which the exact two-sided Wilcoxon
#: test can reach p < 0.05 (with 5 the smallest possible p is 2/32 = 0.0625).
MIN_WILCOXON_PAIRS = 6


@dataclass(frozen=True)
class Row:
    """One sampler's line of the table.

    Attributes:
        sampler: Sampler name.
        n: Seeds with at least one completed trial.
        median: Median over seeds of the final best value.
        q25: 25th percentile of the final best values.
        q75: 75th percentile.
        wins: Seeds on which this sampler's final best is strictly better than the
            baseline's (``None`` for the baseline itself or without a baseline).
        ties: Seeds with the same final best as the baseline.
        losses: Seeds on which the baseline is strictly better.
        p_value: Two-sided paired Wilcoxon signed-rank p-value over the seeds, ``None``
            when not computed (see ``note``).
        note: Why there is no p-value, or ``""``.
    """

    sampler: str
    n: int
    median: float
    q25: float
    q75: float
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    p_value: float | None = None
    note: str = ""


def _wilcoxon(x: list[float], y: list[float]) -> tuple[float | None, str]:
    diffs = [a - b for a, b in zip(x, y)]
    n_nonzero = sum(1 for d in diffs if d != 0)
    if n_nonzero == 0:
        return None, "identical on every seed"
    if n_nonzero < MIN_WILCOXON_PAIRS:
        return None, f"too few seeds differ ({n_nonzero}; the test needs {MIN_WILCOXON_PAIRS})"
    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = wilcoxon(x, y, zero_method="wilcox", alternative="two-sided")
    return float(result.pvalue), ""


def summarize(
    finals: Mapping[str, Mapping[int, float]],
    *,
    baseline: str | None = "tpe",
    maximize: bool = False,
) -> list[Row]:
    """The table's rows from each sampler's final best value per seed.

    Args:
        finals: ``sampler -> {seed: final best value}`` (seeds without a completed trial
            left out).
        baseline: Sampler to compare the others with, or ``None``.
        maximize: Larger values are better.

    Returns:
        One :class:`Row` per sampler, in the order of ``finals``.
    """
    base = finals.get(baseline, {}) if baseline is not None else {}
    rows = []
    for sampler, per_seed in finals.items():
        values = np.array([per_seed[s] for s in sorted(per_seed)], dtype=float)
        if values.size:
            q25, med, q75 = (float(v) for v in np.quantile(values, [0.25, 0.5, 0.75]))
        else:
            q25 = med = q75 = math.nan
        if baseline is None or sampler == baseline:
            note = "baseline" if sampler == baseline else ""
            rows.append(Row(sampler, int(values.size), med, q25, q75, note=note))
            continue
        seeds = sorted(set(per_seed) & set(base))
        x = [per_seed[s] for s in seeds]
        y = [base[s] for s in seeds]
        sign = -1.0 if maximize else 1.0
        wins = sum(1 for a, b in zip(x, y) if sign * (a - b) < 0)
        ties = sum(1 for a, b in zip(x, y) if a == b)
        p_value, note = _wilcoxon(x, y) if seeds else (None, "no seed in common")
        rows.append(
            Row(
                sampler,
                int(values.size),
                med,
                q25,
                q75,
                wins=wins,
                ties=ties,
                losses=len(seeds) - wins - ties,
                p_value=p_value,
                note=note,
            )
        )
    return rows


def _num(value: float) -> str:
    # "#": trailing zeros kept, so 0.1310 does not print as 0.131 beside 0.1223.
    return "nan" if math.isnan(value) else f"{value:#.4g}"


def table_cells(rows: list[Row], baseline: str | None) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the table as strings (shared by the text and HTML tables)."""
    vs = f"vs {baseline} W/T/L" if baseline else "vs baseline"
    header = ["sampler", "seeds", "median", "IQR [q25, q75]", vs, "Wilcoxon p"]
    cells = []
    for row in rows:
        wtl = "-" if row.wins is None else f"{row.wins}/{row.ties}/{row.losses}"
        if row.p_value is not None:
            p = f"{row.p_value:.3g}" + (" *" if row.p_value < 0.05 else "")
        else:
            p = row.note or "-"
        cells.append(
            [
                row.sampler,
                str(row.n),
                _num(row.median),
                f"[{_num(row.q25)}, {_num(row.q75)}]",
                wtl,
                p,
            ]
        )
    return header, cells


def format_table(rows: list[Row], baseline: str | None) -> str:
    """The table as aligned text."""
    header, cells = table_cells(rows, baseline)
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)
