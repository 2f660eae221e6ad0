"""The plot of which methods a full model selection chose, in consecutive groups of trials.

:func:`plot_model_choices`, with the colours of its methods, the groups of trials and its two
legends.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from optuna.distributions import CategoricalDistribution
from optuna.study import Study
from optuna.trial import FrozenTrial
from plotly.colors import qualitative
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from optuna_psms.visualization._data import HEIGHT
from optuna_psms.visualization._data import MARGIN
from optuna_psms.visualization._data import sampler_name
from optuna_psms.visualization._data import short
from optuna_psms.visualization._fms import _fms_trials
from optuna_psms.visualization._fms import _preprocessors
from optuna_psms.visualization._fms import CLASSIFIER
from optuna_psms.visualization._fms import SELECTOR


#: The 23 colours of :func:`plot_model_choices` for the default space's 23 methods: plotly's
#: D3 (the classifiers get its ten), then thirteen of plotly's other qualitative palettes, each
#: the one farthest (CIEDE2000) from the colours before it among those dark enough for a white
#: background (L* 20 to 75). No two are closer than D3's own closest pair (red and brown,
#: 16.2; tests/visualization/test_figures.py measures them). Bold and Dark24 after D3, as before,
#: gave two oranges, two blues and two pinks (5.9, 7.1, 8.5).
_DISTINCT = (
    *qualitative.D3,
    "#1616A7",  # Dark24
    "#85660D",  # Alphabet
    "#620042",  # Dark24
    "#24796C",  # Vivid
    "#F8A19F",  # Alphabet
    "#8DA0CB",  # Set2
    "#661100",  # Safe
    "#00CC96",  # Plotly
    "#CF1C90",  # Bold
    "#EDAD08",  # Prism
    "#BAB0AC",  # T10
    "#CC6677",  # Safe
    "#6C7C32",  # Dark24: the 23rd, for hist_gradient_boosting (16.2 from the closest)
)
#: The colours of :func:`plot_model_choices`, one per method in the figure: past
#: :data:`_DISTINCT`, for a larger space, Dark24's and Light24's others.
_PALETTE = tuple(
    dict.fromkeys(c.upper() for c in (*_DISTINCT, *qualitative.Dark24, *qualitative.Light24))
)


def _method_colours(trials: list[FrozenTrial], pres: list[str]) -> dict[tuple[str, str], str]:
    """A colour per ``(parameter, method)`` of the figure (``("clf:method", "svc")``,
    ``("pre:standardize", "standardize")``), none used twice.

    The methods are in the space's order (the choices of ``clf:method``, then of
    ``fs:method``; then the preprocessors), so that a method has the same colour in every
    study of a space whichever the sampler tried; a method not among the choices (none, for a
    study of :func:`optuna_psms.make_objective`) follows, by name. Past the palette's
    ``len(_PALETTE)`` colours, they repeat.
    """
    keys: list[tuple[str, str]] = []
    for param in (CLASSIFIER, SELECTOR):
        for t in trials:
            dist = t.distributions.get(param)
            if isinstance(dist, CategoricalDistribution):
                keys += [(param, str(c)) for c in dist.choices]
        keys += sorted((param, str(t.params[param])) for t in trials if param in t.params)
    keys += [(name, name.split(":", 1)[1]) for name in pres]
    ordered = list(dict.fromkeys(keys))
    return {key: _PALETTE[i % len(_PALETTE)] for i, key in enumerate(ordered)}


def _bins(numbers: list[int], n_bins: int) -> list[tuple[int, int]]:
    """Contiguous ranges of trial numbers holding about equally many trials."""
    chunks = np.array_split(np.asarray(sorted(numbers)), min(n_bins, len(numbers)))
    return [(int(c[0]), int(c[-1])) for c in chunks if c.size]


#: The legends of :func:`plot_model_choices`: the classifiers', then the selectors'.
_LEGENDS = ("legend", "legend2")
#: The height of a legend line in pixels (plotly.js: at least 16 px of text plus 3), and of
#: the gap between the two legends.
_LEGEND_LINE = 19
_LEGEND_GAP = 8
#: The width of a legend entry's text in pixels ("gradient_boosting" at 10 px is about 80);
#: plotly.js adds 40 for the symbol, so two columns take 250 px.
_ENTRY_WIDTH = 85


def _choice_legends(counts: list[int], plot_height: int) -> dict[str, Any]:
    """The two legends of :func:`plot_model_choices`, stacked right of the plot.

    Each lists its panel's methods in two columns (half the legend's width each), under
    its title: ``counts`` entries take ``ceil(count / 2)`` lines. The selectors' legend
    starts below the classifiers' (its ``y`` from their line count), so the 19 methods of
    the default space take 12 lines, 228 px, of the plot's ``plot_height`` px, and none
    scrolls out of sight in optuna-dashboard's 450 px box (one legend of one entry a line
    scrolled, hiding the most used selectors; usertrial3, 26 Nov 2026).
    """
    legends: dict[str, Any] = {}
    top = 0  # pixels below the top of the plot
    for legend, title, count in zip(_LEGENDS, ("classifier", "feature selection"), counts):
        legends[legend] = {
            "title": {"text": title, "side": "top"},
            "orientation": "h",
            "entrywidth": _ENTRY_WIDTH,
            "entrywidthmode": "pixels",
            "traceorder": "normal",
            "x": 1.02,
            "xanchor": "left",
            "y": 1 - top / plot_height,
            "yanchor": "top",
            "font": {"size": 10},
            "groupclick": "toggleitem",
        }
        top += (1 + math.ceil(count / 2)) * _LEGEND_LINE + _LEGEND_GAP
    return legends


def plot_model_choices(study: Study, n_bins: int = 10) -> go.Figure:
    """Plot how often each classifier, feature selector and preprocessor was chosen over time.

    The trials (every state: a failed pipeline was chosen too) are split into ``n_bins``
    consecutive groups of about equal size; each panel shows, per group, the share of trials
    that chose each classifier (``clf:method``), each feature-selection method
    (``fs:method``) and each preprocessor (``pre:<name>`` on). A sampler that learns
    concentrates on a few methods as the groups go on. Right of the plot, a legend for the
    classifiers and one for the selectors list the methods chosen, most often first (at the
    bottom of each stack), in two columns; the preprocessors are named in their panel's title.

    Example:

        .. testcode::

            import optuna
            from sklearn.datasets import load_breast_cancer
            from optuna_psms import FullModelSpace, make_objective
            from optuna_psms.visualization import plot_model_choices

            X, y = load_breast_cancer(return_X_y=True)
            space = FullModelSpace(classifiers=["naive_bayes", "mean_variance"])
            objective = make_objective(X[:150], y[:150], space=space, random_state=0)
            study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
            study.optimize(objective, n_trials=6)
            fig = plot_model_choices(study, n_bins=3)

    Args:
        study: A study of :func:`optuna_psms.make_objective` (any sampler).
        n_bins: Number of consecutive groups of trials.

    Returns:
        A :class:`plotly.graph_objects.Figure`.

    Raises:
        ValueError: The study has no full-model-selection trial, or ``n_bins < 1``.
    """
    plot = "plot_model_choices"
    if not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"{plot}: n_bins must be a positive integer, got {n_bins!r}.")
    trials = _fms_trials(study, plot)
    bins = _bins([t.number for t in trials], n_bins)
    labels = [f"{a}-{b}" if a != b else str(a) for a, b in bins]
    groups: list[list[FrozenTrial]] = [[] for _ in bins]
    for t in trials:
        for i, (a, b) in enumerate(bins):
            if a <= t.number <= b:
                groups[i].append(t)
                break
    pres = _preprocessors(trials)
    # One colour per method in the whole figure: by position in each panel, xgboost and the
    # selector rf were both purple (a new user's trial, 26 Nov 2026).
    colours = _method_colours(trials, pres)
    # The lines are named in their panel's title, in their colours: in the dashboard's panel
    # the legend scrolls and its preprocessing entries, last, are out of sight.
    named = ", ".join(
        f"<span style='color:{colours[name, name.split(':', 1)[1]]}'>{name.split(':', 1)[1]}"
        "</span>"
        for name in pres
    )
    panels = [
        "classifier (clf:method)",
        "feature selection (fs:method)",
        f"preprocessing on: {named}" if named else "preprocessing (on)",
    ]
    figure = make_subplots(
        rows=3, cols=1, shared_xaxes=True, subplot_titles=panels, vertical_spacing=0.09
    )
    counts: list[int] = []
    for row, key in ((1, CLASSIFIER), (2, SELECTOR)):
        group = ("classifier", "feature selection")[row - 1]
        chosen: dict[str, int] = {}
        for t in trials:
            if key in t.params:
                chosen[str(t.params[key])] = chosen.get(str(t.params[key]), 0) + 1
        # Most chosen first (in the legend, and at the bottom of each stack); ties in the
        # space's order, the colours' order.
        order = [m for p, m in colours if p == key and m in chosen]
        methods = sorted(order, key=lambda m: (-chosen[m], order.index(m)))
        counts.append(len(methods))
        for method in methods:
            shares = [
                short(sum(str(t.params.get(key)) == method for t in g) / len(g)) for g in groups
            ]
            figure.add_trace(
                go.Bar(
                    x=labels,
                    y=shares,
                    name=method,
                    legend=_LEGENDS[row - 1],
                    legendgroup=group,
                    marker_color=colours[key, method],
                    # Hatched selector bars: never read as the classifier panel's.
                    marker_pattern_shape="/" if key == SELECTOR else "",
                    hovertemplate=f"{method}<br>trials %{{x}}: %{{y:.0%}}<extra></extra>",
                ),
                row=row,
                col=1,
            )
    for name in pres:
        label = name.split(":", 1)[1]
        shares = [short(sum(t.params.get(name) is True for t in g) / len(g)) for g in groups]
        figure.add_trace(
            go.Scatter(
                x=labels,
                y=shares,
                mode="lines+markers",
                name=label,
                legendgroup="preprocessing",
                showlegend=False,  # named in the panel's title, in its colour
                line={"color": colours[name, label]},
                hovertemplate=f"{label} on<br>trials %{{x}}: %{{y:.0%}}<extra></extra>",
            ),
            row=3,
            col=1,
        )
    margin = {**MARGIN, "t": 80}
    figure.update_layout(
        barmode="stack",
        title={"text": f"Model choices over the trials ({sampler_name(study)})"},
        template="plotly_white",
        height=HEIGHT,
        margin=margin,
        **_choice_legends(counts, HEIGHT - margin["t"] - margin["b"]),
    )
    # The panels' titles at 13 px (16 by default): the preprocessing panel's names its lines
    # and must fit the plot's width, narrowed by the legends.
    figure.update_annotations(font_size=13)
    for row in (1, 2, 3):
        figure.update_yaxes(tickformat=".0%", range=[0, 1.02], row=row, col=1)
    # Category axes on every panel: plotly.js would read labels such as '0-1', '2-3' as dates.
    figure.update_xaxes(type="category")
    figure.update_xaxes(title_text="trial numbers", row=3, col=1)
    return figure
