"""Why full model selection overfits at 2-fold CV: which trial to refit, measured.

Same protocol as ``docs/reproduce/psms_table4.py`` (KEEL set, seeded stratified 70/30 split,
``FullModelSelector(sampler=s, n_trials=N, cv=2, random_state=seed)`` on the training part).
After the search, for the ``--refit`` best trials by 2-fold CV BER (distinct pipelines) the
pipeline is refitted on the training part and scored on the test part, and the ``--top``
best are re-evaluated by 5-fold stratified CV on the training part
(``make_objective(cv=5, random_state=seed)``). Printed per run and as means: the test BER of
the trial each rule picks (``best2``: lowest 2-fold CV, today's default; ``top{k}-cv5``:
lowest 5-fold CV among the k best by 2-fold CV; ``oracle``: lowest test BER among the
refitted trials; ``median``: their median), the optimism ``test - CV`` of the ``best2``
pick and the Spearman correlation between 2-fold CV BER and test BER over the refitted
trials. One JSON line per run goes to ``--out``.

Run::

    python docs/reproduce/psms_selection.py --sets heart breast pima titanic german \\
        --trials 100 --seeds 3 --jobs 2 --out psms_selection.jsonl
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import statistics
import time
from typing import Any
import warnings

import numpy as np
import optuna
import pandas as pd
from scipy.stats import spearmanr
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from optuna_psms import FullModelSelector
from optuna_psms.fms import make_objective
from optuna_psms.fms.datasets import load_dataset


def _ber(model: object, x: object, y: np.ndarray) -> float:
    pred = model.predict(x)  # type: ignore[attr-defined]
    return 100.0 * (1.0 - float(balanced_accuracy_score(y, pred)))


def _run(task: tuple[str, int, str, int, int, tuple[int, ...]]) -> dict[str, Any]:
    name, seed, sampler, trials, n_refit, tops = task
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    x_raw, y = load_dataset(f"keel:{name}")
    x_tr, x_te, y_tr, y_te = train_test_split(
        pd.DataFrame(x_raw), y, test_size=0.3, stratify=y, random_state=seed
    )
    selector = FullModelSelector(
        sampler=sampler, n_trials=trials, cv=2, random_state=seed, final_check=None
    )
    selector.fit(x_tr, y_tr)
    chosen = _ber(selector, x_te, y_te)
    done = selector.study_.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    done.sort(key=lambda t: (t.value, t.number))
    ranked, seen = [], set()
    for t in done:
        key = json.dumps(t.params, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            ranked.append(t)
    ranked = ranked[:n_refit]
    cv2 = []
    for t in ranked:
        assert t.value is not None  # a COMPLETE trial
        cv2.append(100.0 * float(t.value))
    test = []
    for t in ranked:
        refit = FullModelSelector(cv=2, random_state=seed, final_check=None)
        refit.fit_trial(x_tr, y_tr, selector.study_, t)
        test.append(_ber(refit, x_te, y_te))
    five = make_objective(x_tr, y_tr, cv=5, random_state=seed)
    cv5 = [
        100.0 * float(five(optuna.trial.FixedTrial(dict(t.params))))  # type: ignore[arg-type]
        for t in ranked[: max(tops)]
    ]
    picks = {"best2": test[0]}
    for k in tops:
        sub = np.asarray(cv5[:k], dtype=float)
        i = int(np.nanargmin(sub))
        picks[f"top{k}-cv5"] = test[i]
    picks["oracle"] = min(test)
    picks["median"] = float(np.median(test))
    rho = float(spearmanr(cv2, test).statistic)
    out = {
        "set": name, "seed": seed, "sampler": sampler, "trials": trials,
        "selector_test": chosen, "cv2": cv2, "test": test, "cv5": cv5,
        "picks": picks, "spearman": rho,
        "pipelines": [t.user_attrs.get("fms:pipeline", "") for t in ranked[: max(tops)]],
        "seconds": round(time.perf_counter() - start, 1),
    }  # fmt: skip
    cells = " ".join(f"{k} {v:.2f}" for k, v in picks.items())
    print(f"{name} seed={seed} {sampler}: cv2 {cv2[0]:.2f} cv5 {cv5[0]:.2f} {cells} "
          f"rho {rho:.2f} ({out['seconds']:.0f} s)", flush=True)  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["heart", "breast", "pima", "titanic"])
    parser.add_argument("--samplers", nargs="+", default=["pso"])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--refit", type=int, default=30, help="best trials refitted and tested")
    parser.add_argument("--top", type=int, nargs="+", default=[3, 5, 10])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None, help="JSON lines file of the runs")
    args = parser.parse_args()
    tasks = [
        (n, k, s, args.trials, args.refit, tuple(args.top))
        for n in args.sets
        for k in range(args.seeds)
        for s in args.samplers
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(_run, tasks))
    if args.out:
        with open(args.out, "w") as f:
            for r in runs:
                f.write(json.dumps(r) + "\n")
    rules = list(runs[0]["picks"])
    for s in args.samplers:
        print(f"\n{s}: mean test BER (%) of the trial each rule picks, {args.trials} trials")
        print("| set | " + " | ".join(rules) + " | best2 CV | rho |")
        print("|---" * (len(rules) + 3) + "|")
        for name in [*args.sets, "mean"]:
            rs = [r for r in runs if r["sampler"] == s and name in (r["set"], "mean")]
            cells = [f"{statistics.fmean(r['picks'][k] for r in rs):.2f}" for k in rules]
            cv = statistics.fmean(r["cv2"][0] for r in rs)
            rho = statistics.fmean(r["spearman"] for r in rs)
            print(f"| {name} | " + " | ".join(cells) + f" | {cv:.2f} | {rho:.2f} |")


if __name__ == "__main__":
    main()
