"""Figures comparing several studies: best-so-far curves and final-value distributions.

Both functions take the studies of a comparison either as a mapping ``label -> studies``
(one label per sampler, one study per seed) or as a flat sequence of studies, grouped by
the study user attr ``compare:sampler`` that ``optuna-psms compare`` writes (else by
study name). They return a :class:`plotly.graph_objects.Figure`, like
``optuna.visualization``.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
import math
from typing import Any
from typing import TYPE_CHECKING

import numpy as np
import optuna


if TYPE_CHECKING:
    import plotly.graph_objects as go


StudiesArg = optuna.Study | Sequence[optuna.Study] | Mapping[str, Sequence[optuna.Study]]

#: Attribute naming a study's sampler in a comparison (written by ``optuna-psms compare``).
SAMPLER_ATTR = "compare:sampler"

_COLORS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
)


def _go() -> Any:
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise ImportError(
            "optuna_psms.visualization needs plotly: pip install plotly "
            "(or pip install 'optuna-psms[plot]')"
        ) from None
    return go


def group_studies(studies: StudiesArg) -> dict[str, list[optuna.Study]]:
    """Studies grouped by label, in first-seen order.

    Args:
        studies: A study, a sequence of studies (grouped by their ``compare:sampler`` user
            attr, else each under its own name) or a mapping ``label -> studies``.

    Raises:
        ValueError: No study, a multi-objective study, or studies of different directions.
    """
    groups: dict[str, list[optuna.Study]] = {}
    if isinstance(studies, optuna.Study):
        studies = [studies]
    if isinstance(studies, Mapping):
        for label, members in studies.items():
            if isinstance(members, optuna.Study):
                members = [members]
            groups[str(label)] = list(members)
    else:
        for study in studies:
            label = study.user_attrs.get(SAMPLER_ATTR, study.study_name)
            groups.setdefault(str(label), []).append(study)
    flat = [s for members in groups.values() for s in members]
    if not flat:
        raise ValueError("no study to plot: pass at least one study")
    for study in flat:
        if len(study.directions) != 1:
            raise ValueError(
                f"study {study.study_name!r} is multi-objective; comparison figures need "
                "single-objective studies"
            )
    directions = {s.direction for s in flat}
    if len(directions) > 1:
        raise ValueError("the studies mix minimize and maximize; compare like with like")
    return groups


def best_so_far(study: optuna.Study) -> np.ndarray:
    """Best value after each COMPLETE trial (in trial-number order); empty when none."""
    values = [
        float(t.value)
        for t in sorted(
            study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)),
            key=lambda t: t.number,
        )
        if t.value is not None and math.isfinite(t.value)
    ]
    if not values:
        return np.empty(0)
    arr = np.asarray(values)
    if study.direction == optuna.study.StudyDirection.MAXIMIZE:
        return np.maximum.accumulate(arr)
    return np.minimum.accumulate(arr)


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _quantile_curves(curves: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """x (1-based), q25, median, q75 over the curves that reach each x."""
    length = max(len(c) for c in curves)
    q25, med, q75 = (np.empty(length) for _ in range(3))
    for i in range(length):
        column = np.array([c[i] for c in curves if len(c) > i])
        q25[i], med[i], q75[i] = np.quantile(column, [0.25, 0.5, 0.75])
    return np.arange(1, length + 1), q25, med, q75


def _colored_groups(studies: StudiesArg) -> list[tuple[str, list[optuna.Study], str]]:
    """``(label, studies, colour)`` per group of :func:`group_studies`, colours in turn."""
    groups = group_studies(studies).items()
    return [(label, list(m), _COLORS[k % len(_COLORS)]) for k, (label, m) in enumerate(groups)]


def _quiet_line(x: Any, y: Any, group: str, line: dict[str, Any], **extra: Any) -> go.Scatter:
    """A line of legend group ``group`` without a legend entry or hover text (a seed's own
    curve, an edge of the inter-quartile band)."""
    return _go().Scatter(
        x=x,
        y=y,
        mode="lines",
        line=line,
        legendgroup=group,
        showlegend=False,
        hoverinfo="skip",
        **extra,
    )


def plot_best_so_far(
    studies: StudiesArg,
    *,
    target_name: str = "Objective Value",
    log_y: bool = False,
    show_runs: bool = False,
    value_sign: float = 1.0,
) -> go.Figure:
    """Best value so far against the number of completed trials, median and IQR per label.

    Each label (sampler) gets its median best-so-far curve over its studies (seeds) and a
    shaded band between the 25th and 75th percentiles. At trial count ``n`` only studies
    with at least ``n`` completed trials count.

    Example:

        .. testcode::

            import optuna
            from optuna_psms.visualization import plot_best_so_far

            def objective(trial):
                return trial.suggest_float("x", -5, 5) ** 2

            optuna.logging.set_verbosity(optuna.logging.WARNING)
            runs = {}
            for name, make in [("random", optuna.samplers.RandomSampler),
                               ("tpe", optuna.samplers.TPESampler)]:
                runs[name] = []
                for seed in range(3):
                    study = optuna.create_study(sampler=make(seed=seed))
                    study.optimize(objective, n_trials=15)
                    runs[name].append(study)
            fig = plot_best_so_far(runs)
            assert len(fig.data) == 2 * 3  # band (2 traces) + median per sampler

    Args:
        studies: Studies by label (see :func:`group_studies`).
        target_name: The y-axis title.
        log_y: Logarithmic y axis (values must be positive).
        show_runs: Also draw each study's own curve, thin.
        value_sign: Factor applied to every value drawn: ``-1.0`` draws the studies of a
            negated score (a full model selection minimising ``-accuracy``) as the score.

    Returns:
        A :class:`plotly.graph_objects.Figure`.
    """
    go = _go()
    fig = go.Figure()
    for label, members, color in _colored_groups(studies):
        curves = [value_sign * c for c in (best_so_far(s) for s in members) if len(c)]
        if not curves:
            continue
        x, q25, med, q75 = _quantile_curves(curves)
        if show_runs:
            for study, curve in zip(members, curves):
                line = {"color": _rgba(color, 0.35), "width": 1}
                x_run = np.arange(1, len(curve) + 1)
                fig.add_trace(_quiet_line(x_run, curve, label, line, name=study.study_name))
        edge = {"width": 0, "color": color}
        fig.add_trace(_quiet_line(x, q75, label, edge))
        fig.add_trace(
            _quiet_line(x, q25, label, edge, fill="tonexty", fillcolor=_rgba(color, 0.2))
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=med,
                mode="lines",
                line={"color": color, "width": 2},
                name=f"{label} (n={len(curves)})",
                legendgroup=label,
                customdata=np.stack([q25, q75], axis=-1),
                hovertemplate=(
                    f"{label}<br>trial %{{x}}<br>median %{{y:.4g}}"
                    "<br>IQR %{customdata[0]:.4g} – %{customdata[1]:.4g}<extra></extra>"
                ),
            )
        )
    fig.update_layout(
        title="Best value so far (median and inter-quartile band over seeds)",
        xaxis_title="Completed trials",
        yaxis_title=target_name,
        template="plotly_white",
        hovermode="x unified",
    )
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def plot_final_values(
    studies: StudiesArg,
    *,
    target_name: str = "Objective Value",
    log_y: bool = False,
    value_sign: float = 1.0,
) -> go.Figure:
    """Distribution of each study's best value, one box (with every seed's point) per label.

    The box is the 25th-75th percentile range with the median, computed as the comparison
    table's IQR and :func:`plot_best_so_far`'s band are (``numpy.quantile``, linear), so the
    three agree; whiskers run to the lowest and highest value. (plotly's own box statistics use
    another percentile rule, which with a few seeds gives visibly different boxes.)

    Example:

        .. testcode::

            import optuna
            from optuna_psms.visualization import plot_final_values

            optuna.logging.set_verbosity(optuna.logging.WARNING)
            studies = []
            for seed in range(3):
                study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
                study.set_user_attr("compare:sampler", "random")
                study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2, n_trials=5)
                studies.append(study)
            fig = plot_final_values(studies)
            box, points = fig.data  # the box, then every seed's point
            assert len(points.y) == 3 and box.q1[0] <= box.median[0] <= box.q3[0]

    Args:
        studies: Studies by label (see :func:`group_studies`).
        target_name: The value-axis title.
        log_y: Logarithmic value axis.
        value_sign: Factor applied to every value drawn (see :func:`plot_best_so_far`).

    Returns:
        A :class:`plotly.graph_objects.Figure`.
    """
    go = _go()
    fig = go.Figure()
    for label, members, color in _colored_groups(studies):
        finals = [(s.study_name, value_sign * c[-1]) for s in members if len(c := best_so_far(s))]
        values = np.array([v for _, v in finals], dtype=float)
        if values.size:
            q1, med, q3 = (float(v) for v in np.quantile(values, [0.25, 0.5, 0.75]))
            low, high = float(values.min()), float(values.max())
        else:
            q1 = med = q3 = low = high = math.nan
        fig.add_trace(  # the box, from the table's percentiles
            go.Box(
                x=[label],
                q1=[q1],
                median=[med],
                q3=[q3],
                lowerfence=[low],
                upperfence=[high],
                name=label,
                line={"color": color},
                fillcolor=_rgba(color, 0.15),
                hoverinfo="y",
                legendgroup=label,
            )
        )
        fig.add_trace(  # every seed's point, spread sideways (this trace's own box is hidden)
            go.Box(
                x=[label] * len(finals),
                y=values,
                name=label,
                boxpoints="all",
                jitter=0.4,
                pointpos=0.0,
                marker={"color": color, "size": 7},
                line={"color": "rgba(0,0,0,0)"},
                fillcolor="rgba(0,0,0,0)",
                text=[name for name, _ in finals],
                hovertemplate="%{text}<br>best %{y:.4g}<extra></extra>",
                legendgroup=label,
            )
        )
    fig.update_layout(
        boxmode="overlay",
        title="Final best value per seed",
        yaxis_title=target_name,
        xaxis_title="Sampler",
        template="plotly_white",
        showlegend=False,
    )
    if log_y:
        fig.update_yaxes(type="log")
    return fig
