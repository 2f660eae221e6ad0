"""Full model selection (PSMS, Escalante et al., 2009) for any Optuna sampler.

* :class:`FullModelSpace` - the pool of preprocessing, feature-selection and classification
  methods, with their hyperparameters as Optuna suggestions (extensible with
  :class:`Component`).
* :func:`make_objective` - ``objective(trial) -> float``: cross-validated balanced error
  rate (or another metric) of the pipeline a trial samples.
* :class:`FullModelSelector` - a scikit-learn classifier that runs the study and refits the
  best pipeline.
* :class:`RegressionSpace` and :class:`FullModelRegressor` - the same for regression;
  :func:`target_task` guesses the task from the target.
* :func:`select_model` - the whole workflow of ``optuna-psms select`` in one call: a
  held-out split, the search, an honest held-out score, the refit on all rows
  (:class:`SelectSettings`, :class:`Selection`, :class:`SelectReport` hears its steps);
  :mod:`optuna_psms.fms.datasets` loads the bundled datasets and CSV files.
* :func:`export_python` and :func:`trials_table` - a fitted search as a standalone script
  and as a table of trials.
"""

from typing import Any
from typing import TYPE_CHECKING

from optuna_psms import _lazy
from optuna_psms._extras import require


require("fms", "optuna_psms.fms (full model selection)")

if TYPE_CHECKING:
    from optuna_psms.fms._reselect import candidates as best_distinct_trials
    from optuna_psms.fms.data import encode_labels
    from optuna_psms.fms.data import TabularEncoder
    from optuna_psms.fms.estimators import BiasClassifier
    from optuna_psms.fms.estimators import FeatureMask
    from optuna_psms.fms.estimators import KernelRidgeClassifier
    from optuna_psms.fms.estimators import MeanVarianceClassifier
    from optuna_psms.fms.estimators import Normalize
    from optuna_psms.fms.estimators import PCAExtractor
    from optuna_psms.fms.estimators import RankSelector
    from optuna_psms.fms.estimators import ShiftScale
    from optuna_psms.fms.export import export_python
    from optuna_psms.fms.export import trials_table
    from optuna_psms.fms.metrics import balanced_error_rate
    from optuna_psms.fms.metrics import pi_svm
    from optuna_psms.fms.objective import FullModelObjective
    from optuna_psms.fms.objective import make_objective
    from optuna_psms.fms.pareto import pick_simplest
    from optuna_psms.fms.regression import RegressionFeatureMask
    from optuna_psms.fms.regression import RegressionRankSelector
    from optuna_psms.fms.regression import RegressionSpace
    from optuna_psms.fms.regressor import FullModelRegressor
    from optuna_psms.fms.select import select_model
    from optuna_psms.fms.select import Selection
    from optuna_psms.fms.select import SelectReport
    from optuna_psms.fms.select import SelectSettings
    from optuna_psms.fms.selector import FullModelSelector
    from optuna_psms.fms.selector import make_sampler
    from optuna_psms.fms.selector import SAMPLER_NAMES
    from optuna_psms.fms.space import Component
    from optuna_psms.fms.space import ComponentTrial
    from optuna_psms.fms.space import FullModelSpace
    from optuna_psms.fms.space import PipelineSpec
    from optuna_psms.fms.space import SpaceContext
    from optuna_psms.fms.target import target_task

# Imported on first use: ``import optuna_psms.fms.datasets`` (``optuna-psms datasets``) stays
# light, and so does ``import optuna_psms.fms``.
_LAZY = {
    "encode_labels": "optuna_psms.fms.data",
    "TabularEncoder": "optuna_psms.fms.data",
    "BiasClassifier": "optuna_psms.fms.estimators",
    "FeatureMask": "optuna_psms.fms.estimators",
    "KernelRidgeClassifier": "optuna_psms.fms.estimators",
    "MeanVarianceClassifier": "optuna_psms.fms.estimators",
    "Normalize": "optuna_psms.fms.estimators",
    "PCAExtractor": "optuna_psms.fms.estimators",
    "RankSelector": "optuna_psms.fms.estimators",
    "ShiftScale": "optuna_psms.fms.estimators",
    "export_python": "optuna_psms.fms.export",
    "trials_table": "optuna_psms.fms.export",
    "balanced_error_rate": "optuna_psms.fms.metrics",
    "pi_svm": "optuna_psms.fms.metrics",
    "FullModelObjective": "optuna_psms.fms.objective",
    "make_objective": "optuna_psms.fms.objective",
    "pick_simplest": "optuna_psms.fms.pareto",
    "RegressionFeatureMask": "optuna_psms.fms.regression",
    "RegressionRankSelector": "optuna_psms.fms.regression",
    "RegressionSpace": "optuna_psms.fms.regression",
    "FullModelRegressor": "optuna_psms.fms.regressor",
    "select_model": "optuna_psms.fms.select",
    "Selection": "optuna_psms.fms.select",
    "SelectReport": "optuna_psms.fms.select",
    "SelectSettings": "optuna_psms.fms.select",
    "FullModelSelector": "optuna_psms.fms.selector",
    "make_sampler": "optuna_psms.fms.selector",
    "SAMPLER_NAMES": "optuna_psms.fms.selector",
    "Component": "optuna_psms.fms.space",
    "ComponentTrial": "optuna_psms.fms.space",
    "FullModelSpace": "optuna_psms.fms.space",
    "PipelineSpec": "optuna_psms.fms.space",
    "SpaceContext": "optuna_psms.fms.space",
    "target_task": "optuna_psms.fms.target",
}

__all__ = [
    "best_distinct_trials",
    "SelectSettings",
    "Selection",
    "SelectReport",
    "select_model",
    "BiasClassifier",
    "Component",
    "ComponentTrial",
    "FeatureMask",
    "FullModelObjective",
    "FullModelRegressor",
    "FullModelSelector",
    "FullModelSpace",
    "KernelRidgeClassifier",
    "MeanVarianceClassifier",
    "Normalize",
    "PCAExtractor",
    "PipelineSpec",
    "RankSelector",
    "RegressionFeatureMask",
    "RegressionRankSelector",
    "RegressionSpace",
    "SAMPLER_NAMES",
    "ShiftScale",
    "SpaceContext",
    "TabularEncoder",
    "balanced_error_rate",
    "encode_labels",
    "export_python",
    "make_objective",
    "make_sampler",
    "pi_svm",
    "pick_simplest",
    "target_task",
    "trials_table",
]

_get, __dir__ = _lazy.attach("optuna_psms.fms", globals(), _LAZY, __all__)


def __getattr__(name: str) -> Any:
    if name == "best_distinct_trials":  # the best distinct complete trials of a study
        from optuna_psms.fms._reselect import candidates

        globals()[name] = candidates
        return candidates
    return _get(name)
