"""``plot_population``: where the population was, generation by generation."""

from __future__ import annotations

from collections.abc import Sequence
import math
from typing import Any

import numpy as np
from optuna.study import Study
import plotly.graph_objects as go

from optuna_psms.visualization._data import generation_index
from optuna_psms.visualization._data import HEIGHT
from optuna_psms.visualization._data import MARGIN
from optuna_psms.visualization._data import Population
from optuna_psms.visualization._data import population
from optuna_psms.visualization._data import Row
from optuna_psms.visualization._data import sampler_name
from optuna_psms.visualization._data import short


_PLOT = "plot_population"
#: The legend, one entry a line, right of the plot, from its top: a full model selection has
#: an entry per model (up to 9 of the default pool, plus trajectories, failed trials and the
#: best so far), which as a horizontal legend above the plot wrapped to 5 rows over the
#: title and the dashboard's toolbar (usertrial3, 26 Nov 2026). One line is about 19 px,
#: so 13 entries and the colour bar below them fit the plot's 340 px.
RIGHT_LEGEND = {
    "orientation": "v",
    "yanchor": "top",
    "y": 1,
    "xanchor": "left",
    "x": 1.02,
    "font": {"size": 11},
    "tracegroupgap": 4,
}
#: The generation colour bar, horizontal, under the legend in the same right margin (a
#: vertical bar there would sit under the legend).
COLOUR_BAR = {
    "orientation": "h",
    "thickness": 10,
    "len": 110,
    "lenmode": "pixels",
    "x": 1.02,
    "xanchor": "left",
    "y": 0,
    "yanchor": "bottom",
}


def _axis_value(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return short(float(value))


def _by_params(pop: Population, params: Sequence[str]) -> tuple[list[Row], list[Any], list[Any]]:
    a, b = params
    rows = [r for r in pop.rows if a in r.params and b in r.params]
    return rows, [_axis_value(r.params[a]) for r in rows], [_axis_value(r.params[b]) for r in rows]


def _projection(pop: Population) -> tuple[list[Any], list[Any], str, str]:
    """The rows' unit-box positions projected on their first two principal components."""
    names = sorted({n for r in pop.rows for n in r.x})
    index = {n: i for i, n in enumerate(names)}
    x = np.full((len(pop.rows), len(names)), np.nan)
    for i, row in enumerate(pop.rows):
        for name, u in row.x.items():
            x[i, index[name]] = u
    means = np.nanmean(np.where(np.isnan(x).all(axis=0), 0.5, x), axis=0)
    x = np.where(np.isnan(x), means, x) - means
    if x.shape[0] < 2 or not np.any(x):
        z = np.zeros((x.shape[0], 2))
        shares = [0.0, 0.0]
    else:
        _, s, vt = np.linalg.svd(x, full_matrices=False)
        comps = vt[:2]
        # Fix each component's sign (largest loading positive) so reruns look the same.
        signs = np.sign(comps[np.arange(comps.shape[0]), np.abs(comps).argmax(axis=1)])
        z = x @ (comps * signs[:, None]).T
        if z.shape[1] == 1:
            z = np.column_stack([z, np.zeros(len(z))])
        total = float((s**2).sum())
        shares = [float(v) / total if total else 0.0 for v in (s[:2] ** 2)] + [0.0]
    return (
        [short(float(v)) for v in z[:, 0]],
        [short(float(v)) for v in z[:, 1]],
        f"PC1 of {len(names)} parameters ({shares[0]:.0%} of variance)",
        f"PC2 ({shares[1]:.0%} of variance)",
    )


#: Marker symbols of the models of a full-model-selection study, in the models' name order.
SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "cross",
    "triangle-down",
    "pentagon",
    "hexagon",
    "star-square",
    "hourglass",
    "bowtie",
    "x",
)
#: The parameters that name a full-model-selection study's model (classifier, regressor).
MODEL_PARAMS = ("clf:method", "reg:method")


def _by_model(rows: Sequence[Row], done: Sequence[int]) -> dict[str | None, list[int]]:
    """``done``'s indices by the model their trial chose (``{None: done}`` unless the study
    is a full model selection, whose trials name it in a :data:`MODEL_PARAMS` parameter)."""
    groups: dict[str | None, list[int]] = {}
    for i in done:
        model = next((str(rows[i].params[p]) for p in MODEL_PARAMS if p in rows[i].params), None)
        groups.setdefault(model, []).append(i)
    if list(groups) == [None]:
        return groups
    return {m: groups[m] for m in sorted(groups, key=lambda m: (m is None, str(m)))}


def _pipelines(study: Study) -> dict[int, str]:
    """The one-line pipeline of each trial of a full-model selection (``fms:pipeline``)."""
    out = {}
    for t in study.get_trials(deepcopy=False):
        text = t.user_attrs.get("fms:pipeline")
        if isinstance(text, str):
            out[t.number] = text[:200]
    return out


def plot_population(study: Study, params: Sequence[str] | None = None) -> go.Figure:
    """Plot the population of an optuna-psms sampler over time.

    Every trial of the sampler is a marker at its position, coloured by its generation
    (PSO iteration, pattern-search sweep, grid level, EDA generation, DRS batch; the count
    goes on across restarts). PSO particles are joined by their trajectories. The best
    trial so far is marked with a star each time it improves, joined in order. Failed,
    pruned and running trials are grey crosses. In a full model selection (a study of
    :class:`~optuna_psms.fms.FullModelSelector` or ``optuna-psms select``) each model
    (classifier or regressor) has its own marker symbol and legend entry, and a marker's
    hover text names its pipeline.

    Example:

        .. testcode::

            import optuna
            from optuna_psms import PSOSampler
            from optuna_psms.visualization import plot_population

            study = optuna.create_study(sampler=PSOSampler(seed=0))
            study.optimize(
                lambda t: t.suggest_float("x", -5, 5) ** 2 + t.suggest_float("y", -5, 5) ** 2,
                n_trials=30,
            )
            fig = plot_population(study, params=["x", "y"])

    Args:
        study: A study made by one of this package's population samplers.
        params: Two parameter names, shown with their values. ``None``: the two parameters
            if the study has exactly two, otherwise the first two principal components of
            the members' positions in the unit box (every parameter scaled to ``[0, 1]``,
            categorical choices included), so a whole conditional space fits one plot.

    Returns:
        A :class:`plotly.graph_objects.Figure`.

    Raises:
        ValueError: The study was not made by an optuna-psms population sampler, ``params``
            is not two names, or no trial suggested both.
    """
    pop = population(study, _PLOT)
    names = sorted({n for r in pop.rows for n in r.x})
    if params is None and len(names) == 2:
        params = names
    rows = pop.rows
    if params is not None:
        if isinstance(params, str) or len(params) != 2:
            raise ValueError(f"{_PLOT}: params must be two parameter names, got {params!r}.")
        rows, xs, ys = _by_params(pop, params)
        if not rows:
            raise ValueError(f"{_PLOT}: no trial of {study.study_name!r} suggested both {params}.")
        x_title, y_title = str(params[0]), str(params[1])
    else:
        xs, ys, x_title, y_title = _projection(pop)

    gen = generation_index(pop.rows)
    g_label, m_label = pop.generation_label, pop.member_label
    steps = [gen[(r.run, r.generation)] for r in rows]
    hover = [
        f"trial {r.number}<br>run {r.run}, {g_label} {r.generation}, {m_label} {r.member}"
        f"<br>value {r.value if r.value is None else short(r.value)}"
        + ("<br>exploration point" if r.explore else "")
        for r in rows
    ]
    done = [i for i, r in enumerate(rows) if r.value is not None]
    other = [i for i, r in enumerate(rows) if r.value is None]
    traces: list[go.Scatter] = []

    if pop.persistent_members:  # particles persist: draw their trajectories
        tx: list[Any] = []
        ty: list[Any] = []
        paths: dict[tuple[int, int], list[int]] = {}
        for i, r in enumerate(rows):
            paths.setdefault((r.run, r.member), []).append(i)
        for path in paths.values():
            tx += [xs[i] for i in path] + [None]
            ty += [ys[i] for i in path] + [None]
        traces.append(
            go.Scatter(
                x=tx,
                y=ty,
                mode="lines",
                line={"color": "rgba(120,120,120,0.35)", "width": 1},
                name=f"{m_label} trajectories",
                hoverinfo="skip",
            )
        )
    pipelines = _pipelines(study)
    for i, r in enumerate(rows):
        if r.number in pipelines:
            hover[i] += f"<br>{pipelines[r.number]}"
    groups = _by_model(rows, done)
    for k, (model, members) in enumerate(groups.items()):
        traces.append(
            go.Scatter(
                x=[xs[i] for i in members],
                y=[ys[i] for i in members],
                mode="markers",
                name=f"trials (colour: {g_label})" if model is None else model,
                legendgroup="trials" if model is None else "models",
                legendgrouptitle_text=None if model is None else "trials by model",
                text=[hover[i] for i in members],
                hovertemplate="%{text}<extra></extra>",
                marker={
                    "color": [steps[i] for i in members],
                    "colorscale": "Viridis",
                    "cmin": 0,
                    "cmax": max(len(gen) - 1, 1),
                    "size": 8 if model is None else 9,
                    "symbol": "circle" if model is None else SYMBOLS[k % len(SYMBOLS)],
                    "line": {"width": 0.5, "color": "white"},
                    "colorbar": {
                        **COLOUR_BAR,
                        "title": {"text": g_label, "side": "top"},
                        "dtick": max(1, math.ceil(len(gen) / 6)),  # whole generations
                    },
                    "showscale": k == 0,
                },
            )
        )
    if other:
        traces.append(
            go.Scatter(
                x=[xs[i] for i in other],
                y=[ys[i] for i in other],
                mode="markers",
                name="failed / pruned / running",
                text=[hover[i] for i in other],
                hovertemplate="%{text}<extra></extra>",
                marker={"symbol": "x", "color": "#999999", "size": 7},
            )
        )
    best: list[int] = []
    for i in done:
        value = rows[i].value
        assert value is not None
        top = rows[best[-1]].value if best else None
        if top is None or pop.better(value, top):
            best.append(i)
    traces.append(
        go.Scatter(
            x=[xs[i] for i in best],
            y=[ys[i] for i in best],
            mode="lines+markers",
            name="best so far",
            text=[hover[i] for i in best],
            hovertemplate="best so far<br>%{text}<extra></extra>",
            line={"color": "#d62728", "width": 1.5, "dash": "dot"},
            marker={"symbol": "star", "size": 14, "color": "#d62728"},
        )
    )
    figure = go.Figure(traces)
    figure.update_layout(
        title={"text": f"Population of {sampler_name(study)} by {g_label}"},
        xaxis_title=x_title,
        yaxis_title=y_title,
        legend=RIGHT_LEGEND,
        margin={**MARGIN, "t": 60},
        height=HEIGHT,
        template="plotly_white",
    )
    return figure
