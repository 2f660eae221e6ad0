"""Is the ``bias`` step what separates the full-model search from a grid-tuned SVC?

For each KEEL set and seed, the split of ``docs/reproduce/psms_table4.py`` (stratified 70/30,
seeded),
five fixed pipelines (one-hot columns, as the baselines of ``psms_table4.py``) are fitted on
the training part three ways and scored by test BER (%):

* ``none``: the pipeline's own ``predict``;
* ``train``: the package's ``bias`` step (:class:`optuna_psms.fms.estimators.BiasClassifier`),
  the threshold that minimises the balanced error *on the training data* (the PSMS paper's
  post-processing, switched on in the initial pipelines when the metric is BER);
* ``oof``: scikit-learn's ``TunedThresholdClassifierCV`` (balanced accuracy, 3-fold), a
  threshold tuned on out-of-fold scores.

The pipelines: ``svc1`` / ``svc10`` (standardised RBF SVC, gamma = 1/n, C = 1 / 10),
``rf`` (100 trees, ``max_features`` sqrt(n)/n, class-balanced), ``gb`` (scikit-learn's
defaults) and ``lr`` (standardised logistic regression, C = 1): the initial pipelines of
``FullModelSelector`` plus one SVC of the ``svc-grid`` portfolio. Binary sets only.

Run (the figures of docs/reproduce/reproductions.md, PSMS, "Design phase result")::

    python docs/reproduce/psms_threshold.py --sets australian bands bupa crx housevotes ionosphere
    \\
        mammographic monk-2 saheart sonar tic-tac-toe wdbc wisconsin --seeds 2
"""

from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import sys
from typing import Any
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import TunedThresholdClassifierCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from optuna_psms.fms.estimators import BiasClassifier


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_ensemble import pair_line
from psms_table4 import split


MODES = ("none", "train", "oof")


def pipelines(n: int) -> dict[str, Any]:
    """The five fixed pipelines for ``n`` one-hot columns."""
    return {
        "svc1": make_pipeline(StandardScaler(), SVC(C=1.0, gamma=1.0 / n)),
        "svc10": make_pipeline(StandardScaler(), SVC(C=10.0, gamma=1.0 / n)),
        "rf": RandomForestClassifier(
            100, max_features=np.sqrt(n) / n, class_weight="balanced", random_state=0
        ),
        "gb": GradientBoostingClassifier(random_state=0),
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    }


def run(name: str, seed: int) -> dict[tuple[str, str], float]:
    """Test BER (%) of every (pipeline, mode) on one split."""
    x_tr, x_te, y_tr, y_te = split(name, seed)
    both = pd.get_dummies(pd.concat([x_tr, x_te]), dtype=float).fillna(0.0)
    a, b = both.iloc[: len(x_tr)].to_numpy(), both.iloc[len(x_tr) :].to_numpy()
    out = {}
    for label, model in pipelines(a.shape[1]).items():
        for mode in MODES:
            if mode == "none":
                est = clone(model)
            elif mode == "train":
                est = BiasClassifier(clone(model))
            else:
                est = TunedThresholdClassifierCV(
                    clone(model), scoring="balanced_accuracy", cv=3, random_state=0
                )
            est.fit(a, y_tr)
            out[(label, mode)] = 100.0 * (1.0 - balanced_accuracy_score(y_te, est.predict(b)))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    runs = [run(name, seed) for seed in range(args.seeds) for name in args.sets]
    print(f"{len(runs)} splits; mean test BER (%); paired against 'train' (W/T/L, mean ± s.e.)")
    print("| pipeline | none | train (bias step) | oof | none - train | oof - train |")
    print("|---|---|---|---|---|---|")
    for label in pipelines(1):
        col = {m: [r[(label, m)] for r in runs] for m in MODES}
        means = " | ".join(f"{statistics.fmean(col[m]):.2f}" for m in MODES)
        print(
            f"| {label} | {means} | {pair_line(col['none'], col['train'])} "
            f"| {pair_line(col['oof'], col['train'])} |"
        )


if __name__ == "__main__":
    main()
