"""The hold-out of ``select``: the split of the rows and the chosen model's held-out loss."""

from __future__ import annotations

from typing import Any

from optuna_psms.cli._common import UserError


def split(
    X: Any, y: Any, test_size: float, seed: int, task: str = "classification"
) -> tuple[Any, Any, Any, Any]:
    """Split into ``(search X, search y, held-out X, held-out y)``.

    Classification: stratified on the labels. Regression: a shuffled split seeded by
    ``seed`` (a continuous target has no classes to stratify on).
    """
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    stratify = None
    if task == "classification":
        # Stratify on codes: labels of mixed types cannot be sorted by numpy.
        stratify, labels = pd.factorize(pd.Series(np.asarray(y, dtype=object)))
        counts = np.bincount(stratify)
        if 0 < test_size and len(counts) and counts.min() < 2:
            # scikit-learn's own message names the class by its code ("[4]"), not its label.
            label = labels[int(np.argmin(counts))]
            label = label.item() if isinstance(label, np.generic) else label
            raise UserError(
                f"--test-size {test_size}: class {label!r} has only 1 row; a stratified "
                f"hold-out needs at least 2 rows of each class (drop that row, or use "
                f"--test-size 0 for no hold-out)"
            )
    try:
        search, held = train_test_split(
            rows, test_size=test_size, stratify=stratify, shuffle=True, random_state=seed
        )
    except ValueError as exc:
        raise UserError(f"--test-size {test_size}: cannot split the rows ({exc})") from None

    def take(data: Any, idx: Any) -> Any:
        return data.iloc[idx] if isinstance(data, pd.DataFrame) else np.asarray(data)[idx]

    search, held = np.sort(search), np.sort(held)
    return take(X, search), np.asarray(y)[search], take(X, held), np.asarray(y)[held]


def loss_label(metric: str) -> str:
    """How the loss of ``metric`` is named in the output (``r2`` minimises ``1-R^2``)."""
    return "1-R^2" if metric == "r2" else metric


def holdout_loss(metric: str, model: Any, X: Any, y: Any) -> tuple[str, float]:
    """``(name, loss)`` of a fitted model on held-out rows, with the study's metric.

    The losses are those of the search (:func:`optuna_psms.fms.metrics.fold_loss`):
    ``r2`` is reported as ``1-R^2``, a scikit-learn scorer negated. ``pi_svm`` needs
    support-vector counts of a CV fit; on held-out rows its error part, the balanced error
    rate, is reported instead (and named so).
    """
    import numpy as np

    from optuna_psms.fms.metrics import balanced_error_rate
    from optuna_psms.fms.metrics import fold_loss
    from optuna_psms.fms.metrics import REGRESSION_METRICS

    if metric in REGRESSION_METRICS:
        target = np.asarray(y, dtype=np.float64)
        return loss_label(metric), fold_loss(metric, model, X, target, 0)
    if metric in ("ber", "pi_svm"):
        return "ber", balanced_error_rate(y, model.predict(X))
    if metric == "error":
        return "error", float(np.mean(np.asarray(model.predict(X)) != np.asarray(y)))
    if metric == "auc":
        from sklearn.metrics import roc_auc_score

        proba = np.asarray(model.predict_proba(X))
        classes = list(model.classes_)
        codes = np.array([classes.index(v) for v in y])
        if len(classes) == 2:
            return "auc", float(1.0 - roc_auc_score(codes, proba[:, 1]))
        labels = np.arange(len(classes))
        return "auc", float(1.0 - roc_auc_score(codes, proba, multi_class="ovr", labels=labels))
    from sklearn.metrics import get_scorer

    return metric, -float(get_scorer(metric)(model, X, y))
