"""Post-mortem of one PSMS pick: how stable is the chosen pipeline's held-out BER?

Reruns the PSO search of ``docs/reproduce/psms_table4.py`` on one (KEEL set, seed), then prints the
chosen pipeline, its 2-fold CV BER, its test BER refitted on the whole training part, its
training (resubstitution) BER, and the test BER of the same pipeline fitted on each half of
three other random 2-fold splits of the training part (with and without the threshold
step). For a ``svcrfe`` feature selection it also prints which columns the selection drops
in each fit.

Run::

    python docs/reproduce/psms_postmortem.py --set german --seed 0

``--params JSON`` skips the search and takes apart the pipeline with these parameters (the
``params:`` line an earlier run printed), e.g. to see one pipeline under a changed component.
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import optuna
import pandas as pd
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection import train_test_split

from optuna_psms import FullModelSelector
from optuna_psms.fms.datasets import load_dataset
from optuna_psms.fms.estimators import RankSelector


def _ber(model: object, x: object, y: np.ndarray) -> float:
    pred = model.predict(x)  # type: ignore[attr-defined]
    return round(100.0 * (1.0 - float(balanced_accuracy_score(y, pred))), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="german")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--params", help="JSON parameters of a pipeline: no search")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    x_raw, y = load_dataset(f"keel:{args.set}")
    x_tr, x_te, y_tr, y_te = train_test_split(
        pd.DataFrame(x_raw), y, test_size=0.3, stratify=y, random_state=args.seed
    )
    sel = FullModelSelector(
        sampler="pso", n_trials=args.trials, cv=2, random_state=args.seed, final_check=None
    )
    objective = sel._objective(x_tr, y_tr)
    X, codes = objective.X, objective.y
    X_te = objective.encoder.transform(x_te)
    codes_te = np.array([list(objective.classes).index(v) for v in y_te])
    if args.params is None:
        sel.fit(x_tr, y_tr)
        best = sel.best_trial_
        params = dict(best.params)
        print(f"pipeline: {best.user_attrs['fms:pipeline']}")
        print(f"params: {json.dumps(params)}")
        cv_ber, folds = 100 * best.values[0], best.user_attrs["fms:fold_scores"]
        print(f"2-fold CV BER {cv_ber:.2f}, folds {folds}")
        print(f"test BER {_ber(sel, x_te, y_te)}, training BER {_ber(sel, x_tr, y_tr)}")
    else:
        params = json.loads(args.params)
        model = objective.build_pipeline(params).fit(X, codes)
        print(f"given params; test BER {_ber(model, X_te, codes_te)}, "
              f"training BER {_ber(model, X, codes)}")  # fmt: skip
    halves = [
        train
        for k in range(3)
        for train, _ in StratifiedKFold(2, shuffle=True, random_state=100 + k).split(X, codes)
    ]
    for bias in (False, True):
        params = {**params, "post:bias": bias}
        tests = [
            _ber(objective.build_pipeline(params).fit(X[h], codes[h]), X_te, codes_te)
            for h in halves
        ]
        print(f"bias={bias}: test BER of the six half fits {tests}")
    if params.get("fs:method") == "svcrfe":
        frac = params["fs:svcrfe:fmax_frac"]

        def dropped(rows: np.ndarray) -> list[int]:
            support = RankSelector("svcrfe", frac, args.seed).fit(X[rows], codes[rows]).support_
            return [int(i) for i in np.flatnonzero(~support)]

        print(f"svcrfe drops columns {dropped(np.arange(len(codes)))} on the whole part")
        print(f"and {[dropped(h) for h in halves]} on the six halves")
        print(f"column scales (std) {np.round(X.std(axis=0)[:6], 1).tolist()} ...")


if __name__ == "__main__":
    main()
