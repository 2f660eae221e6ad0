"""``plot_generations``: value and spread of each generation, restarts and convergence."""

from __future__ import annotations

import math

import numpy as np
from optuna.study import Study
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from optuna_psms.visualization._data import generation_index
from optuna_psms.visualization._data import HEIGHT
from optuna_psms.visualization._data import MARGIN
from optuna_psms.visualization._data import objective_name
from optuna_psms.visualization._data import population
from optuna_psms.visualization._data import Row
from optuna_psms.visualization._data import sampler_name
from optuna_psms.visualization._data import short
from optuna_psms.visualization._data import TOP_LEGEND


_PLOT = "plot_generations"


def _spread(rows: list[Row]) -> float | None:
    """Mean over parameters of the members' standard deviation in the unit box."""
    if len(rows) < 2:
        return None
    names = sorted({n for r in rows for n in r.x})
    stds = []
    for name in names:
        us = [r.x[name] for r in rows if name in r.x]
        if len(us) >= 2:
            stds.append(float(np.std(us)))
    return short(float(np.mean(stds))) if stds else None


def plot_generations(study: Study) -> go.Figure:
    """Plot each generation's best value, spread and the restarts of an optuna-psms sampler.

    A generation is a PSO iteration, a pattern-search sweep, a grid level, an EDA
    generation or a DRS batch; the count goes on across restarts. The upper panel shows per
    generation the best and median value with the inter-quartile band of its completed
    trials, and the best value so far. The lower panel shows the population's spread: the
    members' standard deviation in the unit box (every parameter scaled to ``[0, 1]``),
    averaged over parameters; it falls as the population converges. Dashed vertical lines
    mark restarts (a new run); a diamond marks the generation where a run was found
    converged, with the share of the run's nominal budget it used (PFC).

    Example:

        .. testcode::

            import optuna
            from optuna_psms import UMDASampler
            from optuna_psms.visualization import plot_generations

            study = optuna.create_study(sampler=UMDASampler(population_size=10, seed=0))
            study.optimize(lambda t: t.suggest_float("x", -5, 5) ** 2, n_trials=40)
            fig = plot_generations(study)

    Args:
        study: A study made by one of this package's population samplers.

    Returns:
        A :class:`plotly.graph_objects.Figure`.

    Raises:
        ValueError: The study was not made by an optuna-psms population sampler.
    """
    pop = population(study, _PLOT)
    index = generation_index(pop.rows)
    groups: dict[int, list[Row]] = {}
    for row in pop.rows:
        groups.setdefault(index[(row.run, row.generation)], []).append(row)
    g_label = pop.generation_label
    gx: list[int] = []
    labels: list[str] = []
    best: list[float | None] = []
    median: list[float | None] = []
    q1: list[float | None] = []
    q3: list[float | None] = []
    so_far: list[float | None] = []
    spread: list[float | None] = []
    incumbent: float | None = None
    for g in sorted(groups):
        rows = groups[g]
        values = [r.value for r in rows if r.value is not None]
        gx.append(g)
        labels.append(f"run {rows[0].run}, {g_label} {rows[0].generation}: {len(rows)} trials")
        if values:
            arr = np.asarray(values)
            top = float(arr.min() if pop.minimize else arr.max())
            best.append(short(top))
            median.append(short(float(np.median(arr))))
            q1.append(short(float(np.quantile(arr, 0.25))))
            q3.append(short(float(np.quantile(arr, 0.75))))
            if incumbent is None or pop.better(top, incumbent):
                incumbent = top
        else:
            best.append(None)
            median.append(None)
            q1.append(None)
            q3.append(None)
        so_far.append(None if incumbent is None else short(incumbent))
        spread.append(_spread(rows))

    figure = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.65, 0.35], vertical_spacing=0.06
    )
    common = {"customdata": labels, "x": gx}
    figure.add_trace(
        go.Scatter(
            y=q3,
            mode="lines",
            line={"width": 0},
            showlegend=False,
            hoverinfo="skip",
            x=gx,
        ),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Scatter(
            y=q1,
            mode="lines",
            line={"width": 0},
            fill="tonexty",
            fillcolor="rgba(31,119,180,0.2)",
            name="inter-quartile range",
            hoverinfo="skip",
            x=gx,
        ),
        row=1,
        col=1,
    )
    for y, name, style in (
        (median, "median", {"color": "#1f77b4", "width": 1.5}),
        (best, f"best of the {g_label}", {"color": "#2ca02c", "width": 1.5}),
        (so_far, "best so far", {"color": "#d62728", "width": 2.5}),
    ):
        figure.add_trace(
            go.Scatter(
                y=y,
                mode="lines+markers" if name != "best so far" else "lines",
                name=name,
                line=style,
                marker={"size": 5},
                hovertemplate="%{customdata}<br>" + name + " %{y}<extra></extra>",
                **common,
            ),
            row=1,
            col=1,
        )
    figure.add_trace(
        go.Scatter(
            y=spread,
            mode="lines+markers",
            name="position spread",
            line={"color": "#9467bd", "width": 1.5},
            marker={"size": 5},
            hovertemplate="%{customdata}<br>spread %{y}<extra></extra>",
            **common,
        ),
        row=2,
        col=1,
    )
    # Restarts: the first generation of every run after the first.
    first: dict[int, int] = {}
    for r in pop.rows:
        g = index[(r.run, r.generation)]
        first[r.run] = min(first.get(r.run, g), g)
    starts = sorted(g for run, g in first.items() if run > 0)
    for g in starts:
        figure.add_vline(x=g - 0.5, line={"dash": "dash", "color": "#7f7f7f", "width": 1})
    conv = [r for r in pop.rows if r.converged_run is not None]
    if conv:
        xs = [index[(r.run, r.generation)] - 0.5 for r in conv]
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=[so_far[gx.index(index[(r.run, r.generation)])] for r in conv],
                mode="markers",
                name="run converged",
                marker={"symbol": "diamond", "size": 11, "color": "#ff7f0e"},
                text=[
                    f"run {r.converged_run} converged (trial {r.number}"
                    + (f", PFC {r.pfc:.2f})" if r.pfc is not None else ")")
                    for r in conv
                ],
                hovertemplate="%{text}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    figure.update_yaxes(title_text=objective_name(study), row=1, col=1)
    figure.update_yaxes(title_text="spread", rangemode="tozero", row=2, col=1)
    title = f"{g_label} (counted across restarts)" if starts else g_label
    figure.update_xaxes(title_text=title, row=2, col=1)
    figure.update_xaxes(dtick=max(1, math.ceil(len(gx) / 10)))  # whole generations
    figure.update_layout(
        title={"text": f"Generations of {sampler_name(study)}"},
        legend=TOP_LEGEND,
        margin=MARGIN,
        height=HEIGHT,
        template="plotly_white",
    )
    return figure
