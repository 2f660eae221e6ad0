"""A final check between a full-model search's vote and a grid-tuned RBF SVC, by a second CV.

For each KEEL set and seed (binary sets only): the split of ``docs/reproduce/psms_table4.py``, the
search
of ``docs/reproduce/psms_ensemble.py`` (``FullModelSelector(sampler="pso", n_trials, cv=2,
random_state=seed, ensemble_top=1, initial_pipelines="defaults")``: the same study as that
script's ``pso+defaults`` rows) and two candidates fixed on the whole training part:

* ``vote``: the centred vote of the ``--k`` best distinct trials (``psms_ensemble.members``,
  ``centred10`` of that script's rows);
* ``svc``: the grid-tuned RBF SVC of ``psms_table4.baseline_models`` (its ``svc-grid``: the
  same grid, 3-fold CV and one-hot features), fitted on the training part.

Each candidate is then scored on the training part by a ``--folds``-fold stratified CV whose
folds are not the search's (shuffled, ``random_state=seed + 1000``): on every fold the vote's
members (their trials' parameters, fixed) are refitted with the package's own refit
(``fit_trial``) and vote on the fold's held-out rows; the SVC is refitted with its chosen
``C`` and ``gamma``. Its CV BER is the mean of the folds' BERs (%). The lower CV BER is the
``choice``; a tie goes to the vote. The row holds the test BER of vote, SVC, choice and the
logistic regression, both CV BERs, the choice and the seconds.

Run (docs/reproduce/reproductions.md, PSMS, "A final check between the vote and a grid-tuned
SVC")::

    python docs/reproduce/psms_final_check.py --sets bupa sonar --seeds 1 --first-seed 0 --out
    fc.jsonl
    python docs/reproduce/psms_final_check.py --summary fc.jsonl --rows
    docs/reproduce/data/psms_confirm.jsonl
    python docs/reproduce/psms_final_check.py --summary fc2000.jsonl --smaller fc.jsonl
    python docs/reproduce/psms_final_check.py --summary fc3.jsonl --rows
    docs/reproduce/data/psms_confirm_s2_5.jsonl \
        --earlier fc.jsonl fc2000.jsonl
"""

from __future__ import annotations

import argparse
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
from scipy.stats import wilcoxon
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from optuna_psms import FullModelSelector


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_ensemble import ber_of
from psms_ensemble import centred
from psms_ensemble import members
from psms_ensemble import pair_line
from psms_ensemble import vote
from psms_table4 import baseline_models
from psms_table4 import encode
from psms_table4 import select
from psms_table4 import split


THIRTEEN = ("australian bands bupa crx housevotes ionosphere mammographic monk-2 saheart sonar "
            "tic-tac-toe wdbc wisconsin").split()  # fmt: skip
PAIRS = (("choice", "vote"), ("choice", "svc"), ("vote", "svc"), ("choice", "logreg"))
SIZED_PAIRS = (("vote", "svc"), ("choice", "svc"), ("choice", "vote"), ("vote", "logreg"))


def vote_predict(fitted: list[FullModelSelector], x: Any, prior: NDArray[Any]) -> NDArray[Any]:
    """The centred vote of fitted binary members (``psms_ensemble.vote``'s ``centred``)."""
    classes = np.asarray(fitted[0].classes_)
    preds = [np.asarray(m.predict(x)) for m in fitted]
    probas = [m.predict_proba(x) for m in fitted]
    return vote(preds, probas, classes, prior, [centred(m, x) for m in fitted])["centred"]


def choose(cv_vote: float, cv_svc: float) -> str:
    """The final check's rule: the lower CV BER; a tie goes to the vote."""
    return "svc" if cv_svc < cv_vote else "vote"


def run(name: str, seed: int, trials: int, k: int = 10, folds: int = 5) -> dict[str, Any]:
    """One (set, seed): the search, both candidates, their second CV and their test BERs."""
    x_tr, x_te, y_tr, y_te = split(name, seed)
    y_tr, y_te = np.asarray(y_tr), np.asarray(y_te)
    start = time.perf_counter()
    selector = select("pso", x_tr, y_tr, trials, seed, {"initial_pipelines": "defaults"})
    if len(selector.classes_) != 2:
        raise ValueError(f"{name}: the final check here is for binary sets only")
    fitted = members(selector, x_tr, y_tr, k, seed)
    prior = np.array([np.mean(y_tr == c) for c in selector.classes_])
    a, b = encode(x_tr, x_te)
    models = {key: m.fit(a, y_tr) for key, m in baseline_models(seed).items()}
    svc = models["svc-grid"].best_estimator_
    test = {
        "vote": ber_of(y_te, vote_predict(fitted, x_te, prior)),
        "svc": ber_of(y_te, models["svc-grid"].predict(b)),
        "logreg": ber_of(y_te, models["logreg"].predict(b)),
    }
    bers: dict[str, list[float]] = {"vote": [], "svc": []}
    kfold = StratifiedKFold(folds, shuffle=True, random_state=seed + 1000)
    for train, held in kfold.split(a, y_tr):
        refitted = [
            FullModelSelector(
                space=selector.space,
                cv=2,
                random_state=seed,
                ensemble_top=1,
                final_check=None,
            ).fit_trial(x_tr.iloc[train], y_tr[train], selector.study_, m.best_trial_)
            for m in fitted
        ]
        bers["vote"].append(ber_of(y_tr[held], vote_predict(refitted, x_tr.iloc[held], prior)))
        one = clone(svc).fit(a.iloc[train], y_tr[train])
        bers["svc"].append(ber_of(y_tr[held], one.predict(a.iloc[held])))
    cv = {key: statistics.fmean(v) for key, v in bers.items()}
    chosen = choose(cv["vote"], cv["svc"])
    test["choice"] = test[chosen]
    row = {
        "set": name,
        "seed": seed,
        "sampler": "pso+defaults",
        "trials": trials,
        "members": [m.best_trial_.number for m in fitted],
        "svc_params": {key: svc.get_params()[f"svc__{key}"] for key in ("C", "gamma")},
        "choice": chosen,
        "cv_ber": cv,
        "test_ber": test,
        "seconds": time.perf_counter() - start,
    }
    print(
        f"{name} seed={seed}: vote {test['vote']:.2f} svc {test['svc']:.2f} -> {chosen} "
        f"{test['choice']:.2f} (cv vote {cv['vote']:.2f} svc {cv['svc']:.2f}; "
        f"{row['seconds']:.0f} s)",
        flush=True,
    )
    return row


def compare(rows: list[dict[str, Any]], a: str, b: str) -> tuple[float, int, int, str]:
    """Mean paired ``a - b`` test BER, non-tied wins and losses of ``a``, and a printed line."""
    x = [r["test_ber"][a] for r in rows]
    y = [r["test_ber"][b] for r in rows]
    d = [p - q for p, q in zip(x, y)]
    wins, losses = sum(v < 0 for v in d), sum(v > 0 for v in d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = 1.0 if wins + losses == 0 else float(wilcoxon(x, y).pvalue)
    return statistics.fmean(d), wins, losses, f"{a} - {b}: {pair_line(x, y)}, Wilcoxon p {p:.3g}"


def collections(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The protocol's groups of splits: design, confirmation (its two parts) and pooled."""
    thirteen = [r for r in rows if r["set"] in THIRTEEN]
    return {
        "design: 13 sets, seeds 0-1": [r for r in thirteen if r["seed"] in (0, 1)],
        "13 sets, seeds 2-3": [r for r in thirteen if r["seed"] in (2, 3)],
        "third collection, seeds 0-1": [r for r in rows if r["set"] not in THIRTEEN],
        "confirmation: the two above": [
            r for r in rows if r["set"] not in THIRTEEN or r["seed"] in (2, 3)
        ],
        "pooled": rows,
    }


def group_lines(
    label: str, sub: list[dict[str, Any]]
) -> tuple[list[str], dict[tuple[str, str], tuple[float, int, int, str]]]:
    """One group's lines (the SVC chosen, mean test BERs, the lower of the two chosen, the
    paired comparisons of ``PAIRS``) and those comparisons' results."""
    svc = sum(r["choice"] == "svc" for r in sub)
    means = "; ".join(
        f"{key} {statistics.fmean(r['test_ber'][key] for r in sub):.2f}"
        for key in ("choice", "vote", "svc", "logreg")
    )
    took = sum(r["seconds"] for r in sub)
    out = [f"\n{label}: {len(sub)} splits ({took:.0f} s), the SVC chosen in {svc}; "
           f"mean test BER {means}"]  # fmt: skip
    apart = [r["test_ber"] for r in sub if r["test_ber"]["vote"] != r["test_ber"]["svc"]]
    right = sum(t["choice"] == min(t["vote"], t["svc"]) for t in apart)
    best = statistics.fmean(min(r["test_ber"]["vote"], r["test_ber"]["svc"]) for r in sub)
    out.append(
        f"the lower test BER of the two is chosen on {right} of the {len(apart)} splits "
        f"where they differ; always choosing it would give {best:.2f}"
    )
    result = {pair: compare(sub, *pair) for pair in PAIRS}
    out += [line for *_, line in result.values()]
    return out, result


def reproduced(rows: list[dict[str, Any]], committed: list[dict[str, Any]]) -> list[str]:
    """On how many splits the vote equals the committed rows' ``pso+defaults`` ``centred10``."""
    ref = {(r["set"], r["seed"]): r["test_ber"]["centred10"] for r in committed
           if r["sampler"] == "pso+defaults"}  # fmt: skip
    both = [r for r in rows if (r["set"], r["seed"]) in ref]
    if not both:
        return []
    same = sum(r["test_ber"]["vote"] == ref[r["set"], r["seed"]] for r in both)
    return [f"\nthe vote equals the committed centred10 on {same} of {len(both)} splits"]


def beyond_noise(sub: list[dict[str, Any]], a: str, b: str) -> bool:
    """Whether ``a - b`` is below -2 standard errors with Wilcoxon p < 0.05."""
    d = [r["test_ber"][a] - r["test_ber"][b] for r in sub]
    if len(d) < 2 or not any(d):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(wilcoxon(d).pvalue)
    se = statistics.stdev(d) / len(d) ** 0.5
    return statistics.fmean(d) < -2 * se and p < 0.05


def second(
    rows: list[dict[str, Any]], earlier: list[dict[str, Any]], committed: list[dict[str, Any]]
) -> list[str]:
    """The second confirmation's summary: its two groups, the 54 with the stricter rule (both
    choice - vote and choice - SVC below 0 with non-tied wins >= losses), and all splits the
    check has run on (these and ``earlier``), with whether each is beyond noise."""
    groups = {
        "13 sets, seeds 4-5": [r for r in rows if r["set"] in THIRTEEN and r["seed"] in (4, 5)],
        "third collection, seeds 2-3": [
            r for r in rows if r["set"] not in THIRTEEN and r["seed"] in (2, 3)
        ],
        "second confirmation: all its rows": rows,
        "all splits the check has run on (these and --earlier)": rows + earlier,
    }
    out = []
    for label, sub in groups.items():
        if not sub:
            continue
        lines, result = group_lines(label, sub)
        out += lines
        noise = [f"{a} - {b}" for a, b in (("choice", "vote"), ("choice", "svc"))
                 if beyond_noise(sub, a, b)]  # fmt: skip
        out.append(f"beyond noise (< -2 s.e. and p < 0.05): {', '.join(noise) or 'neither'}")
        if label.startswith("second"):
            passed = all(result[pair][0] < 0 and result[pair][1] >= result[pair][2]
                         for pair in (("choice", "vote"), ("choice", "svc")))  # fmt: skip
            verdict = "is adopted" if passed else "fails"
            if len(sub) != 54:
                verdict = f"is not evaluated ({len(sub)} of the 54 splits: partial)"
            out.append(f"rule on the 54: the final check {verdict}")
    return out + reproduced(rows, committed)


def summary(rows: list[dict[str, Any]], committed: list[dict[str, Any]]) -> list[str]:
    """Paired comparisons per group, the pre-registered rule's outcome and, given the
    committed ``psms_ensemble.py`` rows, whether the vote reproduces their ``centred10``."""
    out = []
    for label, sub in collections(rows).items():
        if not sub:
            continue
        lines, result = group_lines(label, sub)
        out += lines
        to_vote, (to_svc, wins, losses, _) = result["choice", "vote"][0], result["choice", "svc"]
        passed = to_vote <= 0 and to_svc < 0 and wins >= losses
        if label.startswith(("design", "confirmation")):
            verb = "proceeds" if label.startswith("design") else "is confirmed"
            out.append(f"rule: the final check {verb if passed else 'fails'}")
    return out + reproduced(rows, committed)


def sized(rows: list[dict[str, Any]], smaller: list[dict[str, Any]]) -> list[str]:
    """Rows of ``NAME@N`` sets (one size ``N``), per set and pooled: the paired test BER
    differences, the seconds, the rule of the check at ``N`` rows (the default search, i.e.
    the vote, beats the SVC iff mean(vote - SVC) < 0 with non-tied wins >= losses) and, given
    rows of the same sets and seeds at another size, vote - SVC here against there."""
    sizes = {r["set"].partition("@")[2] for r in rows}
    if len(sizes) != 1 or "" in sizes:
        raise ValueError(f"--smaller needs rows of NAME@N sets of one size N, got {sorted(sizes)}")
    (n,) = sizes
    out = []
    names = list(dict.fromkeys(r["set"] for r in rows))
    for label, sub in [*((name, [r for r in rows if r["set"] == name]) for name in names),
                       (f"pooled at {n} rows", rows)]:  # fmt: skip
        took = statistics.fmean(r["seconds"] for r in sub)
        out.append(f"\n{label}: {len(sub)} splits, {took:.0f} s per split, the SVC chosen in "
                   f"{sum(r['choice'] == 'svc' for r in sub)}")  # fmt: skip
        out += [compare(sub, *pair)[-1] for pair in SIZED_PAIRS]
    mean, wins, losses, _ = compare(rows, "vote", "svc")
    verb = "beats" if mean < 0 and wins >= losses else "does not beat"
    out.append(f"rule: the default search {verb} the grid-tuned SVC at {n} rows")
    gap = {(r["set"].partition("@")[0], r["seed"]): r["test_ber"] for r in smaller
           if "@" in r["set"] and r["set"].partition("@")[2] != n}  # fmt: skip
    both = [r for r in rows if (r["set"].partition("@")[0], r["seed"]) in gap]
    if both:
        here = [r["test_ber"]["vote"] - r["test_ber"]["svc"] for r in both]
        there = [gap[r["set"].partition("@")[0], r["seed"]] for r in both]
        other = [t["vote"] - t["svc"] for t in there]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(wilcoxon(here, other).pvalue) if here != other else 1.0
        out += [
            f"\nthe same {len(both)} (set, seed) at the other size: vote - svc there "
            f"{pair_line([t['vote'] for t in there], [t['svc'] for t in there])}",
            f"vote - svc here minus there: {pair_line(here, other)}, Wilcoxon p {p:.3g}",
        ]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["bupa", "sonar"])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=10, help="the vote's members (default: 10)")
    parser.add_argument("--folds", type=int, default=5, help="the check's CV folds (default: 5)")
    parser.add_argument("--out", default=None, metavar="FILE.jsonl")
    parser.add_argument("--summary", nargs="+", default=None, metavar="FILE.jsonl")
    parser.add_argument(
        "--rows",
        nargs="+",
        default=[],
        metavar="FILE.jsonl",
        help="with --summary: psms_ensemble.py rows whose pso+defaults centred10 the vote "
        "must reproduce",
    )
    parser.add_argument(
        "--smaller",
        nargs="+",
        default=None,
        metavar="FILE.jsonl",
        help="with --summary of NAME@N rows: per set and pooled, the check at N rows and "
        "vote - svc against these rows' same sets and seeds at another size",
    )
    parser.add_argument(
        "--earlier",
        nargs="+",
        default=None,
        metavar="FILE.jsonl",
        help="with --summary of the second confirmation's rows: the check's earlier rows, "
        "pooled with them in the all-splits group",
    )
    args = parser.parse_args(argv)
    if args.summary is not None:
        rows = [json.loads(line) for path in args.summary for line in open(path) if line.strip()]
        committed = [json.loads(line) for path in args.rows for line in open(path) if line.strip()]
        if args.smaller is not None:
            smaller = [
                json.loads(line) for path in args.smaller for line in open(path) if line.strip()
            ]
            try:
                print("\n".join(sized(rows, smaller)))
            except ValueError as error:
                parser.error(str(error))
            return
        if args.earlier is not None:
            earlier = [
                json.loads(line) for path in args.earlier for line in open(path) if line.strip()
            ]
            print("\n".join(second(rows, earlier, committed)))
            return
        print("\n".join(summary(rows, committed)))
        return
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for name in args.sets:
            row = run(name, seed, args.trials, args.k, args.folds)
            if args.out is not None:
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
