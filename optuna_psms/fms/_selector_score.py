"""The score of a fitted :class:`~optuna_psms.fms.FullModelSelector` on labelled rows.

:meth:`FullModelSelector.score <optuna_psms.fms.FullModelSelector.score>` is the search's
``metric`` as a higher-is-better score (balanced accuracy for ``"ber"``, ROC AUC for
``"auc"``, a scikit-learn scorer's own value), not scikit-learn's default accuracy.
"""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics import roc_auc_score

from optuna_psms.fms._validation import label_array
from optuna_psms.fms._validation import labels_to_codes
from optuna_psms.fms.metrics import BUILTIN_METRICS
from optuna_psms.fms.metrics import scorer_score


def selector_score(model: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """The body of :meth:`~optuna_psms.fms.FullModelSelector.score` (see there)."""
    metric = getattr(model, "metric", "ber")
    truth = labels_to_codes(model.classes_, y)
    if metric == "auc":
        given = label_array(y).ravel().tolist()
        unknown = sorted({str(v) for v, c in zip(given, truth, strict=True) if c < 0})
        if unknown:
            raise ValueError(
                f"y has labels the model was not fitted with, which have no probability "
                f"column for the ROC AUC: {', '.join(unknown[:5])}."
            )
        proba = model.predict_proba(X)
        if len(model.classes_) == 2:
            return float(roc_auc_score(truth, proba[:, 1], sample_weight=sample_weight))
        return float(
            roc_auc_score(
                truth,
                proba,
                multi_class="ovr",
                labels=np.arange(len(model.classes_)),
                sample_weight=sample_weight,
            )
        )
    if metric not in BUILTIN_METRICS:
        return scorer_score(model, metric, X, y, sample_weight)
    codes = model._codes(X)
    if metric == "error":
        return float(accuracy_score(truth, codes, sample_weight=sample_weight))
    with warnings.catch_warnings():  # "y_pred contains classes not in y_true"
        warnings.simplefilter("ignore", UserWarning)
        balanced = balanced_accuracy_score(truth, codes, sample_weight=sample_weight)
    return float(balanced)
