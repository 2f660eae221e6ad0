"""The default full-model search against Optuna's TPE as it is usually run, on held-out data.

For each KEEL set and seed: the stratified 70/30 split of ``docs/psms_table4.py``; on the
training part two searches of the same pipeline space, each scored on the test part by the
balanced error rate (BER, %):

* ``default``: ``FullModelSelector(random_state=seed)`` with every default as shipped (PSO,
  100 trials, 2-fold CV, the four initial pipelines, the vote of the 10 best distinct
  pipelines, the final check against a grid-tuned RBF SVC);
* ``tpe``: ``FullModelSelector(sampler=optuna.samplers.TPESampler(seed=seed),
  initial_pipelines=None, ensemble_top=1, final_check=None, random_state=seed)``: Optuna's
  TPE with its defaults over the same space and budget, its best trial refitted: what a
  study of ``optuna.create_study()`` gives a user who refits ``study.best_params``.

Also on the same split (context, not part of the rule): the class-balanced logistic
regression and the grid-tuned RBF SVC of ``psms_table4.baseline_models``.

Run (docs/reproductions.md, PSMS, "The default search against TPE as users run it")::

    python docs/psms_vs_tpe.py --sets australian bands --seeds 4 --first-seed 6 --out vs.jsonl
    python docs/psms_vs_tpe.py --summary vs.jsonl

``--out`` appends one JSON line per finished split, so an interrupted command keeps what
finished; a split already in the file is not run again.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
import statistics
import sys
import time
from typing import Any
import warnings

import optuna
from scipy.stats import wilcoxon

from optuna_psms import FullModelSelector


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_table4 import _baselines
from psms_table4 import _ber
from psms_table4 import split


#: The pairs the summary prints: the first is the rule's, the others are context.
PAIRS = (("default", "tpe"), ("default", "svc-grid"), ("tpe", "svc-grid"), ("default", "logreg"))


def searches(seed: int, trials: int) -> dict[str, FullModelSelector]:
    """The two searches of a split, unfitted."""
    return {
        "default": FullModelSelector(n_trials=trials, random_state=seed),
        "tpe": FullModelSelector(
            sampler=optuna.samplers.TPESampler(seed=seed),
            n_trials=trials,
            initial_pipelines=None,
            ensemble_top=1,
            final_check=None,
            random_state=seed,
        ),
    }


def run(name: str, seed: int, trials: int = 100) -> dict[str, Any]:
    """One split: both searches' test BER, their seconds, the default's check, the baselines."""
    x_tr, x_te, y_tr, y_te = split(name, seed)
    row: dict[str, Any] = {"set": name, "seed": seed, "trials": trials, "test_ber": {}}
    row["seconds"] = {}
    for key, selector in searches(seed, trials).items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            selector.fit(x_tr, y_tr)
        row["seconds"][key] = time.perf_counter() - start
        row["test_ber"][key] = _ber(selector, x_te, y_te)
        if key == "default":
            check = selector.final_check_ or {}
            row["check"] = {"choice": check.get("choice"), "skipped": check.get("skipped")}
    row["test_ber"].update(_baselines(x_tr, x_te, y_tr, y_te, seed))
    return row


def _pair(d: list[float]) -> tuple[int, int, int, float, float]:
    wins, losses = sum(x < 0 for x in d), sum(x > 0 for x in d)
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return wins, len(d) - wins - losses, losses, statistics.fmean(d), se


def verdict(d: list[float]) -> str:
    """The pre-registered reading of ``default - tpe`` differences (docs/reproductions.md)."""
    wins, _, losses, mean, se = _pair(d)
    if mean < -2 * se and wins >= losses:
        return "the default search beats TPE beyond noise"
    if mean > 2 * se and losses >= wins:
        return "TPE beats the default search beyond noise"
    return "level"


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Lines: per pair, W/T/L and mean ± s.e. of paired test-BER differences; the verdict."""
    lines = [f"{len(rows)} splits, {len({r['set'] for r in rows})} sets"]
    for name in ("default", "tpe", "logreg", "svc-grid"):
        mean_ber = statistics.fmean(r["test_ber"][name] for r in rows)
        lines.append(f"mean test BER {name}: {mean_ber:.2f}")
    for a, b in PAIRS:
        d = [r["test_ber"][a] - r["test_ber"][b] for r in rows]
        wins, ties, losses, mean, se = _pair(d)
        nonzero = [x for x in d if x != 0]
        p = wilcoxon(nonzero).pvalue if len(nonzero) >= 2 else math.nan
        lines.append(
            f"{a} - {b}: {wins}/{ties}/{losses}, {mean:+.2f} ± {se:.2f} (Wilcoxon p = {p:.3g})"
        )
    primary = [r["test_ber"]["default"] - r["test_ber"]["tpe"] for r in rows]
    lines.append("rule: " + verdict(primary))
    choices = [r["check"]["choice"] for r in rows]
    lines.append(f"final check chose: svc {choices.count('svc')}, vote {choices.count('vote')}")
    return lines


def _read(path: str) -> list[dict[str, Any]]:
    p = Path(path)
    return [json.loads(line) for line in p.read_text().splitlines() if line] if p.exists() else []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=[])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--out", default=None, metavar="FILE.jsonl")
    parser.add_argument("--summary", nargs="+", default=None, metavar="FILE.jsonl")
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if args.summary:
        print("\n".join(summary([r for f in args.summary for r in _read(f)])))
        return
    done = {(r["set"], r["seed"]) for r in _read(args.out)} if args.out else set()
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for name in args.sets:
            if (name, seed) in done:
                continue
            row = run(name, seed, args.trials)
            shown = {k: row[k] for k in ("set", "seed", "test_ber", "seconds")}
            print(json.dumps(shown), flush=True)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
