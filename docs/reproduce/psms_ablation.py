"""PSMS (paper 000) Tables 6-7 in reduced form: PSOSampler's W, (c1, c2) and m ablations.

The protocol of ``docs/reproduce/psms_table4.py`` (its ``split`` and ``select``): per KEEL set and
seed a stratified, seeded 70/30 split; on the training part
``FullModelSelector(sampler=PSOSampler(seed=seed, **variant), n_trials=N, cv=2,
random_state=seed)``; the refitted best pipeline is scored on the test part by the balanced
error rate (BER, %). For each run it prints the test BER, the CV BER of the selected trial,
the mean CV BER over all finished trials (the paper's "CV-BER" column) and the PSO iteration
of the selected trial (0: the random initial swarm), then the mean of each per variant and set.

Variants (``--variants``; the paper's Table 6 rows 6-13 and Table 7): ``paper`` (the package
defaults = the paper's: ``W = (1.2, 0.5, 0.4)``, ``c1 = c2 = 2``, ``m = 5``), the constant
inertias ``W=(0,0,0)`` and ``W=(1,0,1)``, ``c1=0,c2=2``, ``c1=2,c2=0``, and swarm sizes
``m=10``, ``m=20``, ``m=40``, ``m=50``. ``--variant NAME=JSON`` adds another, e.g.
``--variant 'ring={"topology": "ring"}'``.

Run::

    python docs/reproduce/psms_ablation.py --sets heart pima breast --seeds 2 --trials 100 \\
        --variants paper "W=(0,0,0)" "W=(1,0,1)" c1=0,c2=2 c1=2,c2=0 m=10 m=20 m=50
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any
import warnings

import optuna
from psms_table4 import _ber
from psms_table4 import select
from psms_table4 import split

from optuna_psms import PSOSampler


#: The paper's settings and the alternatives of its Tables 6 and 7 (PSOSampler arguments).
VARIANTS: dict[str, dict[str, Any]] = {
    "paper": {},
    "W=(0,0,0)": {"inertia": (0.0, 0.0, 0.0)},
    "W=(1,0,1)": {"inertia": (1.0, 0.0, 1.0)},
    "c1=0,c2=2": {"c1": 0.0, "c2": 2.0},
    "c1=2,c2=0": {"c1": 2.0, "c2": 0.0},
    "m=10": {"swarm_size": 10},
    "m=20": {"swarm_size": 20},
    "m=40": {"swarm_size": 40},
    "m=50": {"swarm_size": 50},
}

DEFAULT_VARIANTS = ["paper", "W=(0,0,0)", "W=(1,0,1)", "c1=0,c2=2", "c1=2,c2=0", "m=10", "m=20"]


def run(
    name: str,
    seed: int,
    variant: str,
    kwargs: dict[str, Any],
    trials: int,
    options: dict[str, object],
) -> dict[str, Any]:
    """One search; returns its row (BERs in %) and prints it."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    x_tr, x_te, y_tr, y_te = split(name, seed)
    start = time.perf_counter()
    selector = select(PSOSampler(seed=seed, **kwargs), x_tr, y_tr, trials, seed, options)
    losses = [
        t.value
        for t in selector.study_.get_trials(
            deepcopy=False, states=[optuna.trial.TrialState.COMPLETE]
        )
        if t.value is not None
    ]
    row = {
        "set": name,
        "seed": seed,
        "variant": variant,
        "test": _ber(selector, x_te, y_te),
        "cv": 100.0 * (1.0 - float(selector.best_score_)),
        "mean_cv": 100.0 * statistics.fmean(losses),
        "trials": len(selector.study_.trials),
        "pick_iteration": selector.best_trial_.user_attrs.get("psms:iteration"),
        "pick": selector.best_description_,
        "study": selector.study_,
    }
    print(f"{name} seed={seed} {variant}: test BER {row['test']:.2f} cv BER {row['cv']:.2f} "
          f"mean cv BER {row['mean_cv']:.2f} pick: iteration {row['pick_iteration']} "
          f"({time.perf_counter() - start:.0f} s)",
          flush=True)  # fmt: skip
    return row


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Run the ablation; returns one row per (set, seed, variant)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["heart", "pima", "breast"])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="another variant: a name and PSOSampler keyword arguments as a JSON object",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="a FullModelSelector argument for every search (default: cv=2)",
    )
    args = parser.parse_args(argv)
    variants = {v: VARIANTS[v] for v in args.variants}
    for item in args.variant:
        key, brace, value = item.partition("={")
        if not brace:
            parser.error(f"--variant wants NAME={{...}}, got {item!r}")
        variants[key] = json.loads(brace[1:] + value)
    options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
    rows = [
        run(name, seed, v, kwargs, args.trials, options)
        for name in args.sets
        for seed in range(args.seeds)
        for v, kwargs in variants.items()
    ]

    def mean(key: str, variant: str, sets: list[str]) -> str:
        vals = [r[key] for r in rows if r["variant"] == variant and r["set"] in sets]
        return f"{statistics.fmean(vals):.2f}"

    shown = ", ".join(args.option) or "cv=2"
    print(f"\nmean BER (%), {args.trials} trials, seeds 0..{args.seeds - 1}, {shown}; "
          "test BER / CV BER of the pick / mean CV BER of all trials")  # fmt: skip
    print(
        "| variant | " + " | ".join(args.sets) + " | mean test | mean CV (pick) | mean CV (all) |"
    )
    print("|---" * (len(args.sets) + 4) + "|")
    for v in variants:
        cells = [mean("test", v, [n]) for n in args.sets]
        cells += [mean(k, v, args.sets) for k in ("test", "cv", "mean_cv")]
        print(f"| {v} | " + " | ".join(cells) + " |")
    base = [r for r in rows if r["variant"] == next(iter(variants))]
    for v in list(variants)[1:]:
        other = [r for r in rows if r["variant"] == v]
        w = sum(a["test"] < b["test"] for a, b in zip(base, other))
        lo = sum(a["test"] > b["test"] for a, b in zip(base, other))
        print(f"{next(iter(variants))} vs {v}: W/T/L {w}/{len(base) - w - lo}/{lo} "
              "(test BER, per set x seed)")  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
