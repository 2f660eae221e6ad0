"""The HTML report of a comparison: the table and the two comparison figures, with plotly.js
embedded once so that the file opens offline in any browser."""

from __future__ import annotations

import datetime
import html
import math
from typing import TYPE_CHECKING

from optuna_psms.compare._stats import SEED_NOTE
from optuna_psms.compare._stats import table_cells


if TYPE_CHECKING:
    from optuna_psms.compare import Comparison

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 12px; text-align: left; }
th { background: #f4f4f4; }
td.num { font-family: ui-monospace, monospace; white-space: nowrap; }
p.meta, p.note { color: #555; }
code { background: #f4f4f4; padding: 1px 4px; }
"""


def _log_scale(comparison: Comparison) -> bool:
    """Log axis when every final value is positive and they span over two decades."""
    values = [v for per_seed in comparison.finals().values() for v in per_seed.values()]
    if not values or min(values) <= 0 or not all(math.isfinite(v) for v in values):
        return False
    return max(values) / min(values) > 100.0


def render(comparison: Comparison, *, command: str | None = None) -> str:
    """The report as one HTML string (plotly.js included)."""
    from optuna_psms.visualization._comparison import plot_best_so_far
    from optuna_psms.visualization._comparison import plot_final_values

    log_y = _log_scale(comparison)
    # The values as the table shows them (an accuracy, not the -accuracy the studies hold).
    name, sign = comparison.metric_name, comparison.value_sign
    figures = [
        plot_best_so_far(comparison.studies, target_name=name, log_y=log_y, value_sign=sign),
        plot_final_values(comparison.studies, target_name=name, log_y=log_y, value_sign=sign),
    ]
    parts = [
        fig.to_html(full_html=False, include_plotlyjs=(i == 0), default_height="520px")
        for i, fig in enumerate(figures)
    ]
    header, cells = table_cells(comparison.rows(), comparison.baseline)
    rows_html = "\n".join(
        "<tr>" + "".join(f'<td class="num">{html.escape(c)}</td>' for c in row) + "</tr>"
        for row in cells
    )
    n_seeds = max((len(m) for m in comparison.studies.values()), default=0)
    trials = sorted({len(s.trials) for members in comparison.studies.values() for s in members})
    better = "higher" if comparison.higher_is_better else "smaller"
    baseline_note = (
        f"W/T/L: seeds on which the sampler's final best is better than / equal to / worse "
        f"than {html.escape(comparison.baseline)}'s on the same seed. Wilcoxon p: two-sided "
        "paired signed-rank test over the seeds (* below 0.05); with fewer than 6 seeds that "
        "differ it cannot reach 0.05 and is not computed."
        if comparison.baseline
        else "No baseline: no paired test."
    )
    value_note = (
        f"<p class='note'><b>{html.escape(comparison.value_note)}</b></p>"
        if comparison.value_note
        else ""
    )
    command_html = (
        f"<p class='meta'>Command: <code>{html.escape(command)}</code></p>" if command else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Sampler comparison: {html.escape(comparison.name)}</title>
<style>{_STYLE}</style></head>
<body>
<h1>Sampler comparison: {html.escape(comparison.name)}</h1>
<p class="meta">Objective: {html.escape(comparison.description)}. Values shown:
{html.escape(comparison.metric_name)}, {better} is better.
{len(comparison.studies)} samplers &times; {n_seeds} seeds; trials per study (all states):
{", ".join(map(str, trials))}. Written {datetime.datetime.now():%Y-%m-%d %H:%M}.</p>
{value_note}
{command_html}
<p class="meta">Studies: <code>{html.escape(comparison.name)}/&lt;sampler&gt;/seed&lt;k&gt;</code>
(open the storage with <code>optuna-dashboard</code> to see each run).</p>
<h2>Final best value over seeds</h2>
<table><thead><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in header)}</tr></thead>
<tbody>
{rows_html}
</tbody></table>
<p class="note">{baseline_note} {html.escape(SEED_NOTE)}</p>
<h2>Best value so far</h2>
{parts[0]}
<h2>Final values</h2>
{parts[1]}
</body></html>
"""


def write_report(comparison: Comparison, path: str, *, command: str | None = None) -> None:
    """Write :func:`render`'s HTML to ``path``.

    Raises:
        OSError: The file cannot be written.
    """
    text = render(comparison, command=command)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
