"""The plot of a full model selection's objective values by classifier, selector, preprocessor."""

from __future__ import annotations

from optuna.study import Study
from optuna.trial import FrozenTrial
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from optuna_psms.visualization._data import completed
from optuna_psms.visualization._data import HEIGHT
from optuna_psms.visualization._data import MARGIN
from optuna_psms.visualization._data import objective_name
from optuna_psms.visualization._data import sampler_name
from optuna_psms.visualization._data import short
from optuna_psms.visualization._fms import _fms_trials
from optuna_psms.visualization._fms import _preprocessors
from optuna_psms.visualization._fms import CLASSIFIER
from optuna_psms.visualization._fms import SELECTOR


def plot_loss_by_method(study: Study) -> go.Figure:
    """Plot the objective value of completed trials by classifier, selector and preprocessor.

    One box per method (``clf:method``, ``fs:method``; for preprocessing, the trials that
    had ``pre:<name>`` on), with every trial shown as a point; the axis labels give the
    number of completed trials. Failed pipelines have no value and are not shown.

    Example:

        .. testcode::

            from sklearn.datasets import load_iris
            from optuna_psms import FullModelSelector, FullModelSpace
            from optuna_psms.visualization import plot_loss_by_method

            X, y = load_iris(return_X_y=True)
            model = FullModelSelector(
                space=FullModelSpace(classifiers=["naive_bayes", "logistic"]),
                sampler="random", n_trials=12, random_state=0,
            ).fit(X, y)
            fig = plot_loss_by_method(model.study_)  # the estimator keeps its study
            assert fig.layout.title.text.startswith("CV BER by method")

    Args:
        study: A study of :func:`optuna_psms.make_objective` (any sampler).

    Returns:
        A :class:`plotly.graph_objects.Figure`.

    Raises:
        ValueError: The study has no full-model-selection trial.
    """
    plot = "plot_loss_by_method"
    _fms_trials(study, plot)
    done = [t for t in completed(study) if CLASSIFIER in t.params]
    if not done:
        raise ValueError(f"{plot}: study {study.study_name!r} has no completed pipeline yet.")
    figure = make_subplots(
        rows=1,
        cols=3,
        shared_yaxes=True,
        subplot_titles=["classifier", "feature selection", "preprocessing (on)"],
        horizontal_spacing=0.04,
    )
    panels: list[dict[str, list[FrozenTrial]]] = [{}, {}, {}]
    for t in done:
        panels[0].setdefault(str(t.params[CLASSIFIER]), []).append(t)
        panels[1].setdefault(str(t.params.get(SELECTOR, "none")), []).append(t)
    for name in _preprocessors(done):
        on = [t for t in done if t.params.get(name) is True]
        if on:
            panels[2][name.split(":", 1)[1]] = on
    for col, panel in enumerate(panels, start=1):
        for method in sorted(panel):
            ts = panel[method]
            figure.add_trace(
                go.Box(
                    y=[short(float(t.values[0])) for t in ts],
                    name=f"{method} ({len(ts)})",
                    boxpoints="all",
                    jitter=0.4,
                    pointpos=0,
                    text=[f"trial {t.number}" for t in ts],
                    marker={"size": 4},
                    showlegend=False,
                ),
                row=1,
                col=col,
            )
    figure.update_yaxes(title_text=objective_name(study), row=1, col=1)
    figure.update_layout(
        title={"text": f"{objective_name(study)} by method ({sampler_name(study)})"},
        template="plotly_white",
        height=HEIGHT,
        margin={**MARGIN, "t": 70},
    )
    return figure
