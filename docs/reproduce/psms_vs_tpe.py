"""The default full-model search against Optuna's TPE as it is usually run, on held-out data.

For each KEEL set and seed: the stratified 70/30 split of ``docs/reproduce/psms_table4.py``; on the
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

Run (docs/reproduce/reproductions.md, PSMS, "The default search against TPE as users run it")::

    python docs/reproduce/psms_vs_tpe.py --sets australian bands --seeds 4 --first-seed 6 --out
    vs.jsonl
    python docs/reproduce/psms_vs_tpe.py --summary vs.jsonl

``--out`` appends one JSON line per finished split, so an interrupted command keeps what
finished; a split already in the file is not run again. ``--arms tpe-defaults`` runs a third
arm, ``FullModelSelector(sampler=optuna.samplers.TPESampler(seed=seed), random_state=seed)``
(TPE with every other default: PSO against TPE as the search's sampler), into its own
``--out`` file; ``--summary`` joins the files' rows by split::

    python docs/reproduce/psms_vs_tpe.py --sets australian --seeds 4 --first-seed 6 --arms
    tpe-defaults \
        --out vs_tpe_defaults.jsonl
    python docs/reproduce/psms_vs_tpe.py --summary vs.jsonl vs_tpe_defaults.jsonl
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
from psms_final_check import THIRTEEN
from psms_table4 import _baselines
from psms_table4 import _ber
from psms_table4 import split


#: The pairs the summary prints (those whose arms it has): the first is the rule's, the
#: second the second rule's (docs/reproduce/reproductions.md), the others are context.
PAIRS = (
    ("default", "tpe"),
    ("default", "tpe-defaults"),
    ("default", "svc-grid"),
    ("tpe", "svc-grid"),
    ("tpe-defaults", "svc-grid"),
    ("default", "logreg"),
)


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
        "tpe-defaults": FullModelSelector(
            sampler=optuna.samplers.TPESampler(seed=seed), n_trials=trials, random_state=seed
        ),
    }


#: The arms a command runs unless ``--arms`` says otherwise.
ARMS = ("default", "tpe")


def run(name: str, seed: int, trials: int = 100, arms: tuple[str, ...] = ARMS) -> dict[str, Any]:
    """One split: the arms' test BER, their seconds, the default's check, the baselines."""
    x_tr, x_te, y_tr, y_te = split(name, seed)
    row: dict[str, Any] = {"set": name, "seed": seed, "trials": trials, "test_ber": {}}
    row["seconds"] = {}
    for key, selector in searches(seed, trials).items():
        if key not in arms:
            continue
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            selector.fit(x_tr, y_tr)
        row["seconds"][key] = time.perf_counter() - start
        row["test_ber"][key] = _ber(selector, x_te, y_te)
        if key != "tpe":
            check = selector.final_check_ or {}
            field = "check" if key == "default" else f"check:{key}"
            row[field] = {"choice": check.get("choice"), "skipped": check.get("skipped")}
    row["test_ber"].update(_baselines(x_tr, x_te, y_tr, y_te, seed))
    return row


def _pair(d: list[float]) -> tuple[int, int, int, float, float]:
    wins, losses = sum(x < 0 for x in d), sum(x > 0 for x in d)
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return wins, len(d) - wins - losses, losses, statistics.fmean(d), se


def _reading(d: list[float], ours: str, theirs: str) -> str:
    """The pre-registered reading of paired differences ``ours - theirs``: a win beyond
    noise only with mean < -2 s.e. and wins >= losses, the mirror image a loss, else level."""
    wins, _, losses, mean, se = _pair(d)
    if mean < -2 * se and wins >= losses:
        return f"{ours} beats {theirs} beyond noise"
    if mean > 2 * se and losses >= wins:
        return f"{theirs} beats {ours} beyond noise"
    return "level"


def verdict(d: list[float]) -> str:
    """The first rule: ``default - tpe`` (docs/reproduce/reproductions.md)."""
    return _reading(d, "the default search", "TPE")


def samplers_verdict(d: list[float]) -> str:
    """The second rule: ``default - tpe-defaults``, PSO against TPE, both with every default
    of ``FullModelSelector`` (docs/reproduce/reproductions.md)."""
    return _reading(d, "PSO", "TPE")


def merge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of several commands (``--arms``) joined by (set, seed), in first-seen order."""
    joined: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        key = (row["set"], row["seed"])
        if key not in joined:
            joined[key] = {**row, "test_ber": {}, "seconds": {}}
        for field, value in row.items():
            if field in ("test_ber", "seconds"):
                joined[key][field].update(value)
            elif field.startswith("check"):
                joined[key][field] = value
    return list(joined.values())


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Lines: per pair, W/T/L and mean ± s.e. of paired test-BER differences; the verdict.

    ``rows`` are merged by (set, seed) first; a pair is printed when every split has both.
    """
    rows = merge(rows)
    lines = [f"{len(rows)} splits, {len({r['set'] for r in rows})} sets"]
    names = [n for n in (*ARMS, "tpe-defaults", "logreg", "svc-grid") if _everywhere(rows, n)]
    for name in names:
        mean_ber = statistics.fmean(r["test_ber"][name] for r in rows)
        lines.append(f"mean test BER {name}: {mean_ber:.2f}")
    for a, b in PAIRS:
        if a not in names or b not in names:
            continue
        d = [r["test_ber"][a] - r["test_ber"][b] for r in rows]
        wins, ties, losses, mean, se = _pair(d)
        nonzero = [x for x in d if x != 0]
        p = wilcoxon(nonzero).pvalue if len(nonzero) >= 2 else math.nan
        lines.append(
            f"{a} - {b}: {wins}/{ties}/{losses}, {mean:+.2f} ± {se:.2f} (Wilcoxon p = {p:.3g})"
        )
    for field, arm in (("check", "default"), ("check:tpe-defaults", "tpe-defaults")):
        choices = [r[field]["choice"] for r in rows if field in r]
        if arm in names and len(choices) == len(rows):
            svc, vote = choices.count("svc"), choices.count("vote")
            lines.append(f"final check of {arm} chose: svc {svc}, vote {vote}")
    if "default" in names and "tpe" in names:
        primary = [r["test_ber"]["default"] - r["test_ber"]["tpe"] for r in rows]
        lines.append("rule: " + verdict(primary))
    if "default" in names and "tpe-defaults" in names:
        second = [r["test_ber"]["default"] - r["test_ber"]["tpe-defaults"] for r in rows]
        lines.append("second rule (PSO against TPE, same defaults): " + samplers_verdict(second))
    return lines


def details(rows: list[dict[str, Any]]) -> list[str]:
    """Exploratory lines (``--details``; not part of either rule): the rules' pairs per
    collection (the 13 sets, the rest), TPE with the defaults against plain TPE, where the
    two final checks agree, and each arm's search seconds (total and median per split)."""
    rows = merge(rows)
    lines = []
    third = [r for r in rows if r["set"] not in THIRTEEN]
    groups = (("13 sets", [r for r in rows if r["set"] in THIRTEEN]), ("third", third))
    for a, b in (("default", "tpe"), ("default", "tpe-defaults"), ("tpe-defaults", "tpe")):
        if not (_everywhere(rows, a) and _everywhere(rows, b)):
            continue
        for label, group in groups:
            if len(group) > 1:
                wins, ties, losses, mean, se = _pair(
                    [r["test_ber"][a] - r["test_ber"][b] for r in group]
                )
                lines.append(f"{label}: {a} - {b}: {wins}/{ties}/{losses}, {mean:+.2f} ± {se:.2f}")
    both = [r for r in rows if "check" in r and "check:tpe-defaults" in r]
    if both and len(both) == len(rows):
        same = [r for r in both if r["check"]["choice"] == r["check:tpe-defaults"]["choice"]]
        lines.append(f"the two final checks chose alike on {len(same)} of {len(rows)} splits")
        for choice in ("svc", "vote"):
            kept = [r for r in same if r["check"]["choice"] == choice]
            if len(kept) > 1:
                d = [r["test_ber"]["default"] - r["test_ber"]["tpe-defaults"] for r in kept]
                wins, ties, losses, mean, se = _pair(d)
                lines.append(
                    f"both chose {choice} ({len(kept)}): default - tpe-defaults: "
                    f"{wins}/{ties}/{losses}, {mean:+.2f} ± {se:.2f}"
                )
    for arm in (*ARMS, "tpe-defaults"):
        seconds = [r["seconds"][arm] for r in rows if arm in r["seconds"]]
        if seconds:
            lines.append(
                f"seconds {arm}: {sum(seconds):.0f} in all, median "
                f"{statistics.median(seconds):.1f} per split"
            )
    return lines


def _everywhere(rows: list[dict[str, Any]], name: str) -> bool:
    return bool(rows) and all(name in r["test_ber"] for r in rows)


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
    parser.add_argument("--details", action="store_true", help="with --summary: exploratory lines")
    parser.add_argument(
        "--arms", nargs="+", default=list(ARMS), choices=["default", "tpe", "tpe-defaults"]
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if args.summary:
        rows = [r for f in args.summary for r in _read(f)]
        print("\n".join(summary(rows) + (details(rows) if args.details else [])))
        return
    done = {(r["set"], r["seed"]) for r in _read(args.out)} if args.out else set()
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for name in args.sets:
            if (name, seed) in done:
                continue
            row = run(name, seed, args.trials, tuple(args.arms))
            shown = {k: row[k] for k in ("set", "seed", "test_ber", "seconds")}
            print(json.dumps(shown), flush=True)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
