"""The plot of the importances of a full model selection's choices, the feature mask summarised."""

from __future__ import annotations

import math

import optuna
from optuna.study import Study
import plotly.graph_objects as go

from optuna_psms.visualization._data import HEIGHT
from optuna_psms.visualization._data import MARGIN
from optuna_psms.visualization._data import objective_name
from optuna_psms.visualization._data import short
from optuna_psms.visualization._fms import _fms_trials
from optuna_psms.visualization._fms import choice_table


def plot_choice_importances(study: Study) -> go.Figure:
    """Plot parameter importances of the pipeline choices, with the feature mask summarised.

    optuna-dashboard's own importance panel counts every parameter, so in a study whose
    joint feature mask has thousands of ``fs:mask:*`` bits those bits fill the chart. This
    figure computes Optuna's importances (:func:`optuna.importance.get_param_importances`,
    fANOVA) over the choices every completed trial made (see :func:`choice_table`) and the
    number of features that reached the classifier, in an in-memory copy of the trials.

    Args:
        study: A study of :func:`optuna_psms.make_objective` (any sampler).

    Returns:
        A :class:`plotly.graph_objects.Figure`.

    Raises:
        ValueError: The study has no full-model-selection trial, fewer than two completed
            trials with differing choices, or values that do not differ (fANOVA finds no
            variance to explain).
    """
    plot = "plot_choice_importances"
    _fms_trials(study, plot)
    dists, rows = choice_table(study)
    rows = [(params, value) for params, value in rows if math.isfinite(value)]
    varying = {n: d for n, d in dists.items() if len({str(p[n]) for p, _ in rows}) > 1}
    if len(rows) < 2 or not varying:
        raise ValueError(
            f"{plot}: study {study.study_name!r} needs two completed trials that differ in "
            "their choices."
        )
    if len({value for _, value in rows}) < 2:
        # fANOVA raises a RuntimeError on a target with no variance (every trial tied, as
        # 2 trials of iris often are): nothing to explain, the figure does not apply.
        raise ValueError(
            f"{plot}: every completed trial of study {study.study_name!r} has the same value; "
            "no choice explains a difference."
        )
    copy = optuna.create_study(direction=study.direction)
    for params, value in rows:
        copy.add_trial(
            optuna.trial.create_trial(
                params={n: params[n] for n in varying},
                distributions=varying,
                value=value,
            )
        )
    try:
        importances = optuna.importance.get_param_importances(
            copy, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0)
        )
    except RuntimeError as exc:
        # fANOVA's "Encountered zero total variance in all trees.": its forest found no
        # split that explains the values (e.g. trials that differ only in hyperparameters).
        raise ValueError(f"{plot}: study {study.study_name!r}: fANOVA failed: {exc}") from exc
    names = list(importances)[::-1]
    figure = go.Figure(
        go.Bar(
            x=[short(importances[n]) for n in names],
            y=names,
            orientation="h",
            marker_color="#1f77b4",
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": "Importance of the pipeline choices"},
        xaxis_title=(
            f"fANOVA importance for {objective_name(study)} (fs:mask bits as features kept)"
        ),
        template="plotly_white",
        height=HEIGHT,
        margin={**MARGIN, "t": 60, "l": 120},
    )
    return figure
