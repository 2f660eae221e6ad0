"""Ensemble selection (Caruana et al., ICML 2004) over a full-model search's best trials.

For each KEEL set and seed: the split of ``docs/reproduce/psms_table4.py``, the search of
``docs/reproduce/psms_ensemble.py`` (``FullModelSelector(sampler, n_trials, cv=2,
random_state=seed,
initial_pipelines="defaults", ensemble_top=1)``: the same study as that script's rows), then:

1. the ``--pool`` best distinct complete trials (:func:`optuna_psms.fms.best_distinct_trials`
   order) are scored out of fold on the search's own folds: each pipeline is fitted on one
   fold's training rows and gives its centred positive-class score (0.5 at its own decision
   threshold, as ``psms_ensemble.pipeline_centred``) on the other rows;
2. greedy forward selection with replacement: ``--steps`` times, add the pool member whose
   addition gives the lowest balanced error rate of the mean centred score (>= 0.5:
   positive) on those out-of-fold rows; ties go to the better-ranked member;
3. the chosen trials are refitted on the whole training part and the test part is
   predicted by the mean of their centred scores, each weighted by how often it was
   chosen. Binary sets only.

A row per (set, seed): ``test_ber`` (%) of the ensemble, ``oof_ber`` (its out-of-fold
BER), the chosen trials with their counts. ``--summary`` pairs the rows with the
``centred10`` of ``psms_ensemble.py`` rows of the same searches and with the two fixed
baselines of ``psms_table4.py``.

Run (docs/reproduce/reproductions.md, PSMS, "Ensemble selection")::

    python docs/reproduce/psms_caruana.py --sets australian bands bupa --seeds 2 --out es.jsonl
    python docs/reproduce/psms_caruana.py --summary es.jsonl --rows
    docs/reproduce/data/psms_confirm.jsonl
"""

from __future__ import annotations

import argparse
from collections import Counter
import json
from pathlib import Path
import statistics
import sys
import time
from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import optuna
from sklearn.base import clone

from optuna_psms import FullModelSelector
from optuna_psms.fms import best_distinct_trials as candidates


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_ensemble import ber_of
from psms_ensemble import centred
from psms_ensemble import pair_line
from psms_ensemble import pipeline_centred
from psms_table4 import _baselines
from psms_table4 import split


def ber01(y: NDArray[Any], score: NDArray[np.float64]) -> float:
    """Balanced error rate (%) of ``score >= 0.5`` against 0/1 labels ``y``."""
    pred = score >= 0.5
    return float(100.0 * (1.0 - 0.5 * (np.mean(pred[y == 1]) + np.mean(~pred[y == 0]))))


def greedy(oof: NDArray[np.float64], y: NDArray[Any], steps: int) -> Counter[int]:
    """Caruana's forward selection with replacement on out-of-fold scores (rows: members)."""
    chosen: Counter[int] = Counter()
    total = np.zeros(oof.shape[1])
    for step in range(steps):
        losses = [ber01(y, (total + row) / (step + 1)) for row in oof]
        best = int(np.argmin(losses))  # the first minimum: the better-ranked member
        chosen[best] += 1
        total += oof[best]
    return chosen


def run(name: str, seed: int, sampler: str, trials: int, pool: int, steps: int) -> dict[str, Any]:
    """One (set, seed): the search, the out-of-fold pool, the selection, the test BER."""
    x_tr, x_te, y_tr, y_te = split(name, seed)
    start = time.perf_counter()
    selector = FullModelSelector(
        sampler=sampler,
        n_trials=trials,
        cv=2,
        random_state=seed,
        ensemble_top=1,
        initial_pipelines="defaults",
        final_check=None,
    ).fit(x_tr, y_tr)
    if len(selector.classes_) != 2:
        raise ValueError(f"{name}: ensemble selection here is for binary sets only")
    objective = selector._objective(x_tr, y_tr)  # the search's data, encoder and folds
    members = [selector.best_trial_]
    seen = {json.dumps(selector.best_trial_.params, sort_keys=True, default=str)}
    for trial in candidates(selector.study_, pool + 1):
        key = json.dumps(trial.params, sort_keys=True, default=str)
        if len(members) < pool and key not in seen:
            seen.add(key)
            members.append(trial)
    y = np.asarray(objective.y)
    oof = np.full((len(members), len(y)), 0.5)
    for i, trial in enumerate(members):
        model = objective.build_pipeline(trial.params)
        for train, valid in objective.splits(trial.number):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = clone(model).fit(objective.X[train], y[train])
                oof[i, valid] = pipeline_centred(fitted, objective.X[valid])
    chosen = greedy(oof, y, steps)
    weights = np.array([chosen[i] for i in sorted(chosen)], dtype=float)
    scores = []
    for i in sorted(chosen):
        member = FullModelSelector(
            space=selector.space, cv=2, random_state=seed, ensemble_top=1, final_check=None
        )
        member.fit_trial(x_tr, y_tr, selector.study_, members[i])
        score = centred(member, x_te)
        assert score is not None
        scores.append(score)
    mean = np.average(np.asarray(scores), axis=0, weights=weights)
    classes = np.asarray(selector.classes_)
    pred = classes[(mean >= 0.5).astype(int)]
    total = np.zeros(len(y))
    for i, c in chosen.items():
        total += c * oof[i]
    row = {
        "set": name,
        "seed": seed,
        "sampler": f"{sampler}+defaults",
        "trials": len(selector.study_.trials),
        "pool": pool,
        "steps": steps,
        "test_ber": ber_of(np.asarray(y_te), pred),
        "oof_ber": ber01(y, total / steps),
        "chosen": {str(members[i].number): c for i, c in sorted(chosen.items())},
        "seconds": time.perf_counter() - start,
    }
    print(
        f"{name} seed={seed}: ensemble selection test BER {row['test_ber']:.2f} "
        f"(out of fold {row['oof_ber']:.2f}; {len(chosen)} trials {row['chosen']}; "
        f"{row['seconds']:.0f} s)",
        flush=True,
    )
    return row


def summary(rows: list[dict[str, Any]], others: list[dict[str, Any]]) -> list[str]:
    """Paired comparisons with the same searches' centred10 and with the baselines."""
    by = {(r["set"], r["seed"], r["sampler"]): r["test_ber"]["centred10"] for r in others}
    splits = [(r["set"], r["seed"]) for r in rows]
    es = [r["test_ber"] for r in rows]
    out = [
        f"{len(rows)} splits; mean test BER (%) of ensemble selection {statistics.fmean(es):.2f}"
    ]
    c10 = [by[(r["set"], r["seed"], r["sampler"])] for r in rows]
    out.append(f"centred10 {statistics.fmean(c10):.2f}; ES - centred10: {pair_line(es, c10)}")
    steps = rows[0]["steps"]
    top = [max(r["chosen"].values()) for r in rows]
    out.append(
        f"one trial takes all {steps} steps in {sum(t == steps for t in top)} splits, "
        f"at least {int(0.8 * steps)} in {sum(t >= 0.8 * steps for t in top)}"
    )
    base = [_baselines(*split(name, seed), seed) for name, seed in splits]
    for key in ("svc-grid", "logreg"):
        b = [x[key] for x in base]
        out.append(f"{key} {statistics.fmean(b):.2f}; ES - {key}: {pair_line(es, b)}")
        out.append(f"  (centred10 - {key}: {pair_line(c10, b)})")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=[])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--sampler", default="pso")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--pool", type=int, default=30)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--out", default=None, metavar="FILE.jsonl")
    parser.add_argument("--summary", nargs="+", default=None, metavar="FILE.jsonl")
    parser.add_argument(
        "--rows", nargs="+", default=[], help="psms_ensemble.py rows of the same searches"
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    if args.summary is not None:
        rows = [json.loads(x) for p in args.summary for x in open(p) if x.strip()]
        others = [json.loads(x) for p in args.rows for x in open(p) if x.strip()]
        print("\n".join(summary(rows, others)))
        return
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for name in args.sets:
            row = run(name, seed, args.sampler, args.trials, args.pool, args.steps)
            if args.out is not None:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
