"""Plotly figures of optuna-psms studies, in the style of :mod:`optuna.visualization`.

Each function takes a study and returns a :class:`plotly.graph_objects.Figure` (``pip install
"optuna-psms[plot]"`` for plotly). A figure that needs the records of this package's
samplers raises a one-line :class:`ValueError` on a study made by another sampler (TPE, say).

Population samplers (records ``psms:rec`` written by the sampler):

* :func:`plot_population`: members' positions by generation, best so far marked;
* :func:`plot_generations`: per-generation value and spread, restarts, convergence (PFC).

Full model selection (parameter names of :mod:`optuna_psms.fms.space`; any sampler):

* :func:`plot_model_choices`: how often each classifier / selector / preprocessor was chosen
  over the trials;
* :func:`plot_loss_by_method`: the objective by method;
* :func:`plot_choice_importances`: importances of the top-level choices, the feature mask
  summarised by the number of features kept (optuna-dashboard's own importance panel counts
  every ``fs:mask:*`` bit; with a 10,000-feature mask, read this figure instead).

Several studies (e.g. the studies of ``optuna-psms compare``):

* :func:`plot_best_so_far`: best-so-far curves, median and inter-quartile band per sampler;
* :func:`plot_final_values`: the distribution of the final best values per sampler.

:func:`publish` stores the figures that apply to a study in its storage, where optuna-dashboard
shows them on the study's page; :class:`PublishCallback` does it every N trials while the study
runs (``optuna-psms select`` and ``compare`` use it: ``--publish-every``).
"""

from __future__ import annotations

import importlib
from typing import Any

import optuna
from optuna.study import Study


try:
    import plotly.graph_objects as go
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "optuna_psms.visualization needs plotly: pip install 'optuna-psms[plot]'"
    ) from exc

# Comparison of several studies (e.g. the studies of `optuna-psms compare`).
from optuna_psms.visualization._comparison import plot_best_so_far
from optuna_psms.visualization._comparison import plot_final_values
from optuna_psms.visualization._fms_choices import plot_model_choices
from optuna_psms.visualization._fms_importance import plot_choice_importances
from optuna_psms.visualization._fms_loss import plot_loss_by_method
from optuna_psms.visualization._generations import plot_generations
from optuna_psms.visualization._population import plot_population
from optuna_psms.visualization._publish import PublishCallback


__all__ = [
    "plot_best_so_far",
    "plot_choice_importances",
    "plot_final_values",
    "plot_generations",
    "plot_loss_by_method",
    "plot_model_choices",
    "plot_population",
    "publish",
    "PublishCallback",
]

_logger = optuna.logging.get_logger(__name__)

#: graph object id in the study -> the figure it holds (ids stay fixed: republishing
#: overwrites).
FIGURES = {
    "psms-population": plot_population,
    "psms-generations": plot_generations,
    "psms-model-choices": plot_model_choices,
    "psms-loss-by-method": plot_loss_by_method,
    "psms-choice-importances": plot_choice_importances,
}


def publish(study: Study) -> list[str]:
    """Save the figures that apply to ``study`` into it, for optuna-dashboard.

    Each figure of :data:`FIGURES` that can be drawn for the study (population and
    generations for this package's samplers; model choices, loss by method and choice
    importances for full model selection) is stored with optuna-dashboard's
    ``save_plotly_graph_object`` under a fixed id, so publishing again replaces it.
    optuna-dashboard shows them on the study's page. A figure that does not apply is
    skipped; one that fails is logged and skipped, so publishing never breaks a run.

    Example:

        .. testcode::

            import optuna
            from optuna_psms import PSOSampler
            from optuna_psms.visualization import publish

            study = optuna.create_study(sampler=PSOSampler(seed=0))
            study.optimize(lambda t: t.suggest_float("x", -5, 5) ** 2, n_trials=20)
            assert publish(study) == ["psms-population", "psms-generations"]

    Args:
        study: Any study.

    Returns:
        The ids of the figures saved, in :data:`FIGURES` order.

    Raises:
        ImportError: optuna-dashboard is not installed.
    """
    try:
        dashboard: Any = importlib.import_module("optuna_dashboard")
    except ImportError as exc:
        raise ImportError("publish needs optuna-dashboard: pip install optuna-dashboard") from exc
    saved = []
    for graph_id, plot in FIGURES.items():
        try:
            figure: go.Figure = plot(study)
        except ValueError:
            continue  # does not apply to this study
        except Exception:
            _logger.exception("Could not draw %s for study %r.", graph_id, study.study_name)
            continue
        dashboard.save_plotly_graph_object(study, figure, graph_object_id=graph_id)
        saved.append(graph_id)
    return saved
