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
* :func:`export_python` and :func:`trials_table` - a fitted search as a standalone script
  and as a table of trials.
"""

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
from optuna_psms.fms.selector import FullModelSelector
from optuna_psms.fms.selector import make_sampler
from optuna_psms.fms.selector import SAMPLER_NAMES
from optuna_psms.fms.space import Component
from optuna_psms.fms.space import ComponentTrial
from optuna_psms.fms.space import FullModelSpace
from optuna_psms.fms.space import PipelineSpec
from optuna_psms.fms.space import SpaceContext
from optuna_psms.fms.target import target_task


__all__ = [
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
    "export_python",
    "make_objective",
    "make_sampler",
    "pi_svm",
    "pick_simplest",
    "target_task",
    "trials_table",
]
