"""Held-out BER of voting over the top-K distinct pipelines of one full-model search.

For each KEEL set, seed and sampler: the split of ``docs/reproduce/psms_table4.py`` (stratified
70/30,
seeded), ONE search ``FullModelSelector(sampler=s, n_trials=N, cv=2, random_state=seed,
ensemble_top=1)`` on the training part (``ensemble_top=1``: the single refitted pipeline, the
selector's behaviour before ``ensemble_top`` existed and defaulted to 10), then the ``K``
best distinct complete trials of that study (the selector's refitted trial first, then
:func:`optuna_psms.fms.best_distinct_trials` order) are each refitted on the whole training
part with the package's own refit (``fit_trial``) and combined
on the test part. The rules, all scored by test BER (%), for every ``K`` of ``--ks``:

* ``hard``: majority vote of the members' ``predict`` (each member's own decision rule,
  including a tuned ``bias`` threshold); ties go to the best-ranked member's class among the
  tied ones. ``hard`` at ``K=1`` is the selector's ``predict``.
* ``soft``: argmax of the mean of the members' ``predict_proba`` (as the selector computes
  it: the classifier's probabilities, or a logistic/softmax squashing of its decision values).
* ``prior``: argmax of that mean divided by the training class frequencies (the balanced-error
  Bayes rule, if the probabilities were calibrated).
* ``centred`` (binary sets; else ``soft``): the mean of the members' positive-class scores
  *centred on each member's own decision threshold*, positive when it is >= 0.5: a member
  with a ``decision_function`` gives ``sigmoid(decision_function)`` (a ``bias`` step's
  decision values are already shifted by its tuned threshold), one without gives
  ``predict_proba[:, 1] - threshold + 0.5`` (``threshold``: its ``bias`` step's, else 0.5).
  So ``centred`` at ``K=1`` follows the member's own ``predict``.

``sel`` is the selector's own test BER (must equal ``hard`` at ``K=1``); ``logreg`` and
``svc-grid`` are the two fixed baselines of ``psms_table4.py`` on the same split.

Run::

    python docs/reproduce/psms_ensemble.py --sets heart breast pima titanic german --trials 100 \\
        --seeds 3 --samplers pso tpe random --out psms_ensemble.jsonl

``--samplers`` takes the registry's names (``pso``, ``tpe``, ...) and, as the bbob runner,
``NAME@budget`` (the sampler built with ``budget=--trials``) and ``NAME{json}``.

Seeds are the outer loop (all sets at seed 0, then seed 1, ...), so a cut run keeps whole
seeds. ``--out`` appends one JSON line per (set, seed, sampler); ``--summary FILE.jsonl ...``
prints the tables of such files without running anything. ``--paper-table A B`` prints
instead the paper's Table 4 comparison of sampler ``A`` against ``B`` (e.g. ``pso pattern``:
PSMS against PATSMS) on the splits both have, at K = 1 (``hard1``, the single refitted
pipeline) and with the vote (``centred10``); ``B`` may also be one of the baselines
(``logreg``, ``svc-grid``: per set, the sampler's W/T/L and Wilcoxon p against it)::

    python docs/reproduce/psms_ensemble.py --summary docs/reproduce/data/psms_ensemble.jsonl \
        docs/reproduce/data/psms_pattern.jsonl --paper-table pso pattern
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

import numpy as np
from numpy.typing import NDArray
import optuna
from scipy.stats import wilcoxon
from sklearn.metrics import balanced_accuracy_score

from optuna_psms import FullModelSelector
from optuna_psms.fms import best_distinct_trials as candidates


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_table4 import _baselines
from psms_table4 import split


RULES = ("hard", "soft", "prior", "centred")


def ber_of(y: NDArray[Any], pred: NDArray[Any]) -> float:
    return 100.0 * (1.0 - float(balanced_accuracy_score(y, pred)))


def members(
    selector: FullModelSelector, x: Any, y: Any, k: int, seed: int
) -> list[FullModelSelector]:
    """The selector itself, then its study's next best distinct trials refitted on ``(x, y)``."""
    study = selector.study_
    best = json.dumps(selector.best_trial_.params, sort_keys=True, default=str)
    out = [selector]
    for trial in candidates(study, k + 1):
        if len(out) == k:
            break
        if json.dumps(trial.params, sort_keys=True, default=str) == best:
            continue
        model = FullModelSelector(
            space=selector.space, cv=2, random_state=seed, ensemble_top=1, final_check=None
        )
        out.append(model.fit_trial(x, y, study, trial))
    return out


def centred(member: FullModelSelector, x: Any) -> NDArray[np.float64] | None:
    """Positive-class score of a binary member, 0.5 at its own decision threshold."""
    if len(member.classes_) != 2:
        return None
    return pipeline_centred(member.best_pipeline_, x)


def pipeline_centred(pipe: Any, x: Any) -> NDArray[np.float64]:
    """:func:`centred` of a fitted binary pipeline."""
    if hasattr(pipe, "decision_function"):
        try:
            dec = np.asarray(pipe.decision_function(x), dtype=np.float64).ravel()
            return np.asarray(1.0 / (1.0 + np.exp(-dec)), dtype=np.float64)
        except AttributeError:
            pass
    threshold = getattr(pipe.steps[-1][1], "threshold_", None)
    p1 = np.asarray(pipe.predict_proba(x), dtype=np.float64)[:, 1]
    return np.asarray(p1 - (0.5 if threshold is None else threshold) + 0.5, dtype=np.float64)


def vote(
    preds: list[NDArray[Any]],
    probas: list[NDArray[np.float64]],
    classes: NDArray[Any],
    prior: NDArray[np.float64],
    scores: list[NDArray[np.float64] | None],
) -> dict[str, NDArray[Any]]:
    """The three rules' predictions for the given members (best-ranked first)."""
    k = len(preds)
    counts = np.zeros((preds[0].shape[0], len(classes)))
    for rank, p in enumerate(preds):
        idx = np.searchsorted(classes, p)
        counts[np.arange(len(p)), idx] += 1.0 + 1e-6 * (k - rank)  # ties: better member
    mean = np.mean(probas, axis=0)
    soft = classes[np.argmax(mean, axis=1)]
    known = [s for s in scores if s is not None]
    if len(known) < len(scores):
        centre = soft
    else:
        centre = classes[(np.mean(known, axis=0) >= 0.5).astype(int)]
    return {
        "hard": classes[np.argmax(counts, axis=1)],
        "soft": soft,
        "prior": classes[np.argmax(mean / prior, axis=1)],
        "centred": centre,
    }


def row_name(sampler: str, initial: str | None, cv: int, trials: int) -> str:
    """The rows' sampler name: ``sampler``, then ``+INITIAL``, ``+cvK`` (``cv != 2``) and
    ``+tN`` (``trials != 100``, the trials of every row committed before the suffix)."""
    if initial is not None:
        sampler = f"{sampler}+{initial}"
    if cv != 2:
        sampler = f"{sampler}+cv{cv}"
    if trials != 100:
        sampler = f"{sampler}+t{trials}"
    return sampler


def _sampler(name: str, seed: int, trials: int) -> Any:
    """A registry name as is (the selector builds it); ``NAME@budget`` or ``NAME{json}`` built
    as the bbob runner does (``budget=trials``), seeded with ``seed``."""
    if "@" not in name and "{" not in name:
        return name
    from optuna_psms.benchmarks.bbob import build_sampler

    return build_sampler(name, seed, trials)


def _run(
    name: str,
    seed: int,
    sampler: str,
    trials: int,
    ks: list[int],
    out: str | None,
    scores_out: str | None = None,
    initial: str | None = None,
    cv: int = 2,
) -> dict[str, Any]:
    x_tr, x_te, y_tr, y_te = split(name, seed)
    start = time.perf_counter()
    selector = FullModelSelector(
        sampler=_sampler(sampler, seed, trials),
        n_trials=trials,
        cv=cv,
        random_state=seed,
        ensemble_top=1,
        initial_pipelines=initial,
        final_check=None,
    )
    sampler = row_name(sampler, initial, cv, trials)
    selector.fit(x_tr, y_tr)
    searched = time.perf_counter() - start
    fitted = members(selector, x_tr, y_tr, max(ks), seed)
    classes = np.asarray(selector.classes_)
    prior = np.array([np.mean(np.asarray(y_tr) == c) for c in classes])
    preds = [np.asarray(m.predict(x_te)) for m in fitted]
    probas = [m.predict_proba(x_te) for m in fitted]
    scores = [centred(m, x_te) for m in fitted]
    test: dict[str, float] = {"sel": ber_of(y_te, np.asarray(selector.predict(x_te)))}
    for k in ks:
        for rule, pred in vote(preds[:k], probas[:k], classes, prior, scores[:k]).items():
            test[f"{rule}{k}"] = ber_of(y_te, pred)
    row: dict[str, Any] = {
        "set": name,
        "seed": seed,
        "sampler": sampler,
        "trials": trials,
        "n_members": len(fitted),
        "members": [m.best_trial_.number for m in fitted],
        "member_cv_ber": [100.0 * m.best_loss_ for m in fitted],
        "member_test_ber": [ber_of(y_te, p) for p in preds],
        "test_ber": test,
        "seconds": {"search": searched, "total": time.perf_counter() - start},
    }
    print(
        f"{name} seed={seed} {sampler}: sel {test['sel']:.2f} "
        + " ".join(f"{r}{k} {test[f'{r}{k}']:.2f}" for k in ks for r in RULES)
        + f" ({row['seconds']['total']:.0f} s)",
        flush=True,
    )
    if out is not None:
        with open(out, "a") as f:
            f.write(json.dumps(row) + "\n")
    if scores_out is not None and all(sc is not None for sc in scores):
        side = {
            "set": name,
            "seed": seed,
            "sampler": sampler,
            "y_test": [int(v) for v in np.searchsorted(classes, np.asarray(y_te))],
            "member_params": [m.best_trial_.params for m in fitted],
            "member_scores": [np.round(sc, 5).tolist() for sc in scores if sc is not None],
        }
        with open(scores_out, "a") as f:
            f.write(json.dumps(side, default=str) + "\n")
    return row


def pair_line(a: list[float], b: list[float]) -> str:
    d = [x - y for x, y in zip(a, b)]
    w, lo = sum(x < 0 for x in d), sum(x > 0 for x in d)
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return f"{w}/{len(d) - w - lo}/{lo}, {statistics.fmean(d):+.2f} ± {se:.2f}"


#: Trials 0-3 of a ``--initial defaults`` search are the four initial pipelines.
N_INITIAL = 4


def initial_lines(rows: list[dict[str, Any]]) -> list[str]:
    """For each ``--initial`` sampler (a name with ``+``): in how many searches an initial
    pipeline is the best trial, how many the vote of ``members`` holds on average (overall
    and per set), and the searches' total time."""
    out = []
    for s in dict.fromkeys(r["sampler"] for r in rows if "+" in r["sampler"]):
        mine = [r for r in rows if r["sampler"] == s]
        names = list(dict.fromkeys(r["set"] for r in mine))

        def held(sub: list[dict[str, Any]]) -> float:
            return statistics.fmean(sum(m < N_INITIAL for m in r["members"]) for r in sub)

        best = {n: sum(r["members"][0] < N_INITIAL for r in mine if r["set"] == n) for n in names}
        per_set = ", ".join(f"{n} {held([r for r in mine if r['set'] == n]):.2f}" for n in names)
        out.append(
            f"{s}: an initial pipeline is the best trial in {sum(best.values())} of "
            f"{len(mine)} searches ({', '.join(f'{n} {k}' for n, k in best.items())}); "
            f"the vote holds {held(mine):.2f} of them on average ({per_set}); "
            f"{sum(r['seconds']['search'] for r in mine):.0f} s of search"
        )
    return out


def summary(
    rows: list[dict[str, Any]], baselines: dict[tuple[str, int], dict[str, float]]
) -> None:
    """Print mean test BER per sampler and rule, and paired comparisons."""
    samplers = list(dict.fromkeys(r["sampler"] for r in rows))
    common = set.intersection(*(set(r["test_ber"]) for r in rows))  # files with other --ks
    keys = [k for k in rows[0]["test_ber"] if k != "sel" and k in common]
    by = {(r["set"], r["seed"], r["sampler"]): r["test_ber"] for r in rows}
    splits = sorted({(r["set"], r["seed"]) for r in rows})
    splits = [s for s in splits if all((*s, p) in by for p in samplers)]
    print(f"\n{len(splits)} splits with every sampler; mean test BER (%)")
    print("| sampler | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for s in samplers:
        cells = [f"{statistics.fmean(by[(*sp, s)][k] for sp in splits):.2f}" for k in keys]
        print(f"| {s} | " + " | ".join(cells) + " |")
    for b in ("logreg", "svc-grid"):
        print(f"{b}: {statistics.fmean(baselines[sp][b] for sp in splits):.2f}")
    for line in initial_lines([r for r in rows if (r["set"], r["seed"]) in splits]):
        print(line)
    names = list(dict.fromkeys(sp[0] for sp in splits))
    print("\nper set (mean test BER %): sampler rule | " + " | ".join(names))
    for s in samplers:
        for k in keys:
            means = [
                statistics.fmean(by[(*sp, s)][k] for sp in splits if sp[0] == n) for n in names
            ]
            print(f"| {s} {k} | " + " | ".join(f"{c:.2f}" for c in means) + " |")
    for b in ("logreg", "svc-grid"):
        means = [statistics.fmean(baselines[sp][b] for sp in splits if sp[0] == n) for n in names]
        print(f"| {b} | " + " | ".join(f"{c:.2f}" for c in means) + " |")
    print("\npaired over splits (W/T/L = lower/equal/higher test BER; mean diff ± s.e.)")
    for s in samplers:
        one = [by[(*sp, s)]["hard1"] for sp in splits]
        for k in keys:
            if k == "hard1":
                continue
            v = [by[(*sp, s)][k] for sp in splits]
            print(f"{s} {k} vs {s} hard1: {pair_line(v, one)}")
    for s in samplers:
        for k in keys:
            v = [by[(*sp, s)][k] for sp in splits]
            rest = [f"{o} K=1 {pair_line(v, [by[(*sp, o)]['hard1'] for sp in splits])}"
                    for o in samplers if o != s]  # fmt: skip
            rest += [f"{b} {pair_line(v, [baselines[sp][b] for sp in splits])}"
                     for b in ("logreg", "svc-grid")]  # fmt: skip
            print(f"{s} {k}: " + "; ".join(rest))


BASELINES = ("logreg", "svc-grid")


def baseline_rows(
    rows: list[dict[str, Any]], baselines: dict[tuple[str, int], dict[str, float]]
) -> list[dict[str, Any]]:
    """The fixed baselines as rows of their own, one per split and baseline, with the same
    test BER under every key of ``rows`` (so ``paper_table`` can pair a sampler with one)."""
    keys = list(dict.fromkeys(k for r in rows for k in r["test_ber"]))
    return [{"set": n, "seed": seed, "sampler": b, "test_ber": dict.fromkeys(keys, v[b])}
            for (n, seed), v in baselines.items() for b in BASELINES]  # fmt: skip


def paper_table(
    rows: list[dict[str, Any]], a: str, b: str, keys: tuple[str, ...] = ("hard1", "centred10")
) -> list[str]:
    """The paper's Table 4 comparison of sampler ``a`` against ``b``, one table per key.

    Per set and over all sets: mean test BER of each, wins / ties / losses of ``a`` (lower /
    equal / higher test BER on the same split), the share of runs favouring each (the paper's
    68.9% / 22.2%) and the two-sided p-value of a paired Wilcoxon signed-rank test (scipy's
    default: zero differences dropped; 1.0 when every difference is zero); then the paired
    difference over all splits (W/T/L, mean ± standard error). Only splits with both samplers
    count.
    """
    by = {(r["set"], r["seed"], r["sampler"]): r["test_ber"] for r in rows}
    splits = sorted({(r["set"], r["seed"]) for r in rows})
    splits = [sp for sp in splits if (*sp, a) in by and (*sp, b) in by]
    names = list(dict.fromkeys(r["set"] for r in rows if (r["set"], r["seed"]) in splits))
    out = []
    for key in keys:
        out += [
            f"\n{a} against {b}, test BER (%) of {key}, {len(splits)} paired splits",
            f"| set | runs | {a} | {b} | W/T/L | favour {a} | favour {b} | Wilcoxon p |",
            "|---" * 8 + "|",
        ]
        for name in [*names, "all"]:
            sps = [sp for sp in splits if name in ("all", sp[0])]
            x = [by[(*sp, a)][key] for sp in sps]
            y = [by[(*sp, b)][key] for sp in sps]
            w = sum(p < q for p, q in zip(x, y))
            lo = sum(p > q for p, q in zip(x, y))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pv = 1.0 if w + lo == 0 else float(wilcoxon(x, y).pvalue)
            out.append(
                f"| {name} | {len(sps)} | {statistics.fmean(x):.2f} | {statistics.fmean(y):.2f}"
                f" | {w}/{len(sps) - w - lo}/{lo} | {100 * w / len(sps):.1f}%"
                f" | {100 * lo / len(sps):.1f}% | {pv:.3g} |"
            )
        x = [by[(*sp, a)][key] for sp in splits]
        out.append(f"paired {a} - {b}: {pair_line(x, [by[(*sp, b)][key] for sp in splits])}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["heart", "breast", "pima", "titanic"])
    parser.add_argument(
        "--samplers",
        nargs="+",
        default=None,
        help="samplers to run (default: pso tpe random); with --summary, the rows to keep "
        "(default: all)",
    )
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 3, 5, 10])
    parser.add_argument("--out", default=None, metavar="FILE.jsonl")
    parser.add_argument("--summary", nargs="+", default=None, metavar="FILE.jsonl")
    parser.add_argument(
        "--scores",
        default=None,
        metavar="FILE.jsonl",
        help="also append, per binary search, the test labels and every member's centred "
        "test scores and parameters (to study other combination rules without rerunning)",
    )
    parser.add_argument(
        "--initial",
        default=None,
        choices=["defaults", "svc-c", "svc-grid"],
        help="start every search from FullModelSelector(initial_pipelines=...); its rows' "
        "sampler is named e.g. 'pso+defaults'",
    )
    parser.add_argument(
        "--cv",
        type=int,
        default=2,
        help="the search's CV folds (default: 2); rows of another value are named e.g. "
        "'pso+defaults+cv5'",
    )
    parser.add_argument(
        "--paper-table",
        nargs=2,
        default=None,
        metavar=("A", "B"),
        help="print the paper's Table 4 comparison of sampler A against B (e.g. pso pattern; "
        "B may be a baseline, logreg or svc-grid) instead of the summary",
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    if args.summary is not None:
        rows = [json.loads(line) for path in args.summary for line in open(path) if line.strip()]
        if args.samplers is not None:  # e.g. files where only some seeds ran every sampler
            rows = [r for r in rows if r["sampler"] in args.samplers]
    else:
        rows = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for name in args.sets:
                for s in args.samplers or ["pso", "tpe", "random"]:
                    rows.append(
                        _run(
                            name,
                            seed,
                            s,
                            args.trials,
                            args.ks,
                            args.out,
                            args.scores,
                            args.initial,
                            args.cv,
                        )
                    )
    baselines = {}
    if args.paper_table is None or set(args.paper_table) & set(BASELINES):
        for name, seed in sorted({(r["set"], r["seed"]) for r in rows}):
            baselines[(name, seed)] = _baselines(*split(name, seed), seed)
    if args.paper_table is not None:
        print("\n".join(paper_table(rows + baseline_rows(rows, baselines), *args.paper_table)))
        return
    summary(rows, baselines)


if __name__ == "__main__":
    main()
