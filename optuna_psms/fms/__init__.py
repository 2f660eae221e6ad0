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
  (:class:`SelectSettings`, :class:`Selection`); :mod:`optuna_psms.fms.datasets` loads the
  bundled datasets and CSV files.
* :func:`export_python` and :func:`trials_table` - a fitted search as a standalone script
  and as a table of trials.
"""

from optuna_psms._extras import require


require("fms", "optuna_psms.fms (full model selection)")

from optuna_psms.fms._reselect import candidates as best_distinct_trials  # noqa: E402
from optuna_psms.fms.data import encode_labels  # noqa: E402
from optuna_psms.fms.data import TabularEncoder  # noqa: E402
from optuna_psms.fms.estimators import BiasClassifier  # noqa: E402
from optuna_psms.fms.estimators import FeatureMask  # noqa: E402
from optuna_psms.fms.estimators import KernelRidgeClassifier  # noqa: E402
from optuna_psms.fms.estimators import MeanVarianceClassifier  # noqa: E402
from optuna_psms.fms.estimators import Normalize  # noqa: E402
from optuna_psms.fms.estimators import PCAExtractor  # noqa: E402
from optuna_psms.fms.estimators import RankSelector  # noqa: E402
from optuna_psms.fms.estimators import ShiftScale  # noqa: E402
from optuna_psms.fms.export import export_python  # noqa: E402
from optuna_psms.fms.export import trials_table  # noqa: E402
from optuna_psms.fms.metrics import balanced_error_rate  # noqa: E402
from optuna_psms.fms.metrics import pi_svm  # noqa: E402
from optuna_psms.fms.objective import FullModelObjective  # noqa: E402
from optuna_psms.fms.objective import make_objective  # noqa: E402
from optuna_psms.fms.pareto import pick_simplest  # noqa: E402
from optuna_psms.fms.regression import RegressionFeatureMask  # noqa: E402
from optuna_psms.fms.regression import RegressionRankSelector  # noqa: E402
from optuna_psms.fms.regression import RegressionSpace  # noqa: E402
from optuna_psms.fms.regressor import FullModelRegressor  # noqa: E402
from optuna_psms.fms.select import select_model  # noqa: E402
from optuna_psms.fms.select import Selection  # noqa: E402
from optuna_psms.fms.select import SelectSettings  # noqa: E402
from optuna_psms.fms.selector import FullModelSelector  # noqa: E402
from optuna_psms.fms.selector import make_sampler  # noqa: E402
from optuna_psms.fms.selector import SAMPLER_NAMES  # noqa: E402
from optuna_psms.fms.space import Component  # noqa: E402
from optuna_psms.fms.space import ComponentTrial  # noqa: E402
from optuna_psms.fms.space import FullModelSpace  # noqa: E402
from optuna_psms.fms.space import PipelineSpec  # noqa: E402
from optuna_psms.fms.space import SpaceContext  # noqa: E402
from optuna_psms.fms.target import target_task  # noqa: E402


__all__ = [
    "best_distinct_trials",
    "SelectSettings",
    "Selection",
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
