"""UMDA / BUMDA (paper 004) in reduced form: PFC at equal accuracy, and PI_SVM as the fitness.

The protocol of Rojas-Domínguez et al. (IEEE Access 2018), Sect. IV, at a smaller budget:
an RBF SVM over ``log2 C in [-5, 5]`` and ``log2 gamma in [-5, 2]`` (Table 1, "this
work"); features scaled to ``[-1, 1]`` on the whole set; a trial's accuracy is the
``--folds``-fold (paper: 10) stratified CV accuracy on the whole set (correct predictions
over all folds, as LIBSVM's ``-v``; folds fixed by the seed, the same for every sampler)
and its PSV the mean over the folds of the share of training samples that are support
vectors. There is no held-out
split: like the paper, the reported accuracy is the CV accuracy of the best trial.

Samplers, each laid out for ``--budget`` calls (paper: 1,000 = 50 x 20), of which at most
``--cap`` are run (a run cut there has a PFC that is a lower bound):

* ``umda``, ``bumda``: ``UMDASampler`` / ``BUMDASampler(budget=B, on_converged="stop")``
  (population ``B // 10`` clipped to [10, 50], ``ceil(B / population)`` generations:
  50 x 20 at ``B = 1000``); the run stops when the
  spread of a generation's top 25% falls under 0.01 (unit coordinates), and the trial
  that sees it carries ``psms:pfc``. Fitness: the CV error in percent (LIBSVM reports CV
  accuracy in percent; only BUMDA's weights depend on the scale).
* ``pso``: ``PSOSampler`` with the EDAs' population as its swarm and ``B / swarm``
  iterations (the paper gives every method 50 x 20); the same stopping rule is applied
  after every iteration to that iteration's positions (``core.eda.top_spread``), since
  the paper stops every method by it.
* ``random``: ``RandomSampler``, no stopping rule (PFC 100%).
* a name ending in ``-pi`` (``bumda-pi``): the same sampler with ``1 - PI_SVM(Acc, PSV)``
  (Eq. 6, ``optuna_psms.fms.pi_svm``, from the trial's CV accuracy and PSV) as the fitness
  (Table 10).

Per set, sampler and seed: the best trial's CV accuracy and PSV (%) and the PFC (calls
used / budget, %). Prints one line per run, then tables of the means over seeds per set
(last row: over sets) for two readings of the stopping rule: the samplers' own (above)
and the paper's rule read on the objective values, applied after the fact
(:func:`fitness_stop`); and each EDA's accuracy beside PSO's and random search's at the
same number of calls.

Run::

    python docs/reproduce/eda_svm.py --budget 1000 --cap 500 --folds 5 --seeds 2 --jobs 2 --json
    eda.json
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
import json
import math
from pathlib import Path
import statistics
from typing import Any

from fgs_svm import markdown
from fgs_svm import numeric_set
import numpy as np
import optuna
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from optuna_psms import BUMDASampler
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.fms import pi_svm
from optuna_psms.samplers.core.eda import top_spread


#: Table 1, "this work": log2 ranges of C and gamma.
BOX = {"log2_C": (-5.0, 5.0), "log2_gamma": (-5.0, 2.0)}
#: The paper's six sets that ship offline (its labels): BCWD, BCWO, HBCS, Liver, PID, SHD.
SETS = ["sklearn:breast_cancer", "wisconsin", "haberman", "bupa", "pima", "heart"]
SAMPLERS = ["umda", "bumda", "pso", "random", "bumda-pi"]


def population(budget: int) -> int:
    """The EDAs' population under a budget, also used as PSO's swarm."""
    return min(50, max(10, budget // 10))


def cv_svm(
    x: np.ndarray, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]], c: float, g: float
) -> tuple[float, float]:
    """``(accuracy %, PSV %)`` of ``SVC(C=2**c, gamma=2**g)`` over ``folds``."""
    correct, psv = 0, []
    for tr, te in folds:
        model = SVC(C=2.0**c, gamma=2.0**g).fit(x[tr], y[tr])
        correct += int(np.sum(model.predict(x[te]) == y[te]))
        psv.append(float(np.sum(model.n_support_)) / len(tr))
    return 100.0 * correct / len(y), 100.0 * statistics.fmean(psv)


def _sampler(
    name: str, budget: int, seed: int, threshold: float = 0.01
) -> optuna.samplers.BaseSampler:
    if name in ("umda", "bumda"):
        cls = UMDASampler if name == "umda" else BUMDASampler
        return cls(budget=budget, convergence_threshold=threshold, on_converged="stop", seed=seed)
    if name == "pso":
        size = population(budget)
        return PSOSampler(swarm_size=size, n_iterations=-(-budget // size), seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}")


def unit(params: dict[str, float]) -> list[float]:
    """A trial's parameters as unit-box coordinates (the samplers' own encoding)."""
    return [(params[k] - lo) / (hi - lo) for k, (lo, hi) in BOX.items()]


def spread_stop(size: int, threshold: float) -> Any:
    """Callback: stop the study when an iteration's top 25% spread falls under ``threshold``.

    The EDAs' rule (:func:`optuna_psms.samplers.core.eda.top_spread`), checked after every complete
    iteration of ``size`` trials on that iteration's positions.
    """

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        done = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
        trials = study.get_trials(deepcopy=False, states=done)
        if len(trials) % size:
            return
        last = trials[-size:]
        x = np.array([unit(t.params) for t in last])
        losses = np.array([np.inf if t.value is None else t.value for t in last])
        if top_spread(x, losses) < threshold:
            study.stop()

    return callback


def run(
    x: np.ndarray,
    y: np.ndarray,
    sampler: str,
    budget: int,
    seed: int,
    folds: int,
    threshold: float = 0.01,
    cap: int | None = None,
) -> dict[str, Any]:
    """One study: the best trial's accuracy and PSV (%), its calls and PFC (%).

    The samplers are laid out for ``budget`` calls; at most ``cap`` (default ``budget``)
    are run. A run that neither stopped nor used its budget is ``censored``: its PFC,
    calls / budget, is a lower bound. ``curve[k]`` is the best CV accuracy among the first
    ``k + 1`` trials.
    """
    cap = budget if cap is None else min(cap, budget)
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y))
    base, pi = sampler.removesuffix("-pi"), sampler.endswith("-pi")

    def objective(trial: optuna.Trial) -> float:
        c = trial.suggest_float("log2_C", *BOX["log2_C"])
        g = trial.suggest_float("log2_gamma", *BOX["log2_gamma"])
        acc, psv = cv_svm(x, y, splits, c, g)
        trial.set_user_attr("accuracy", acc)
        trial.set_user_attr("psv", psv)
        return 1.0 - pi_svm(acc, psv) if pi else 100.0 - acc

    study = optuna.create_study(sampler=_sampler(base, budget, seed, threshold))
    callbacks = [spread_stop(population(budget), threshold)] if base == "pso" else []
    study.optimize(objective, n_trials=cap, callbacks=callbacks)
    trials = study.get_trials(deepcopy=False)
    pfc = next((t.user_attrs["psms:pfc"] for t in trials if "psms:pfc" in t.user_attrs), None)
    best = study.best_trial.user_attrs
    return {
        "accuracy": best["accuracy"],
        "psv": best["psv"],
        "calls": len(trials),
        "pfc": 100.0 * (len(trials) / budget if pfc is None else pfc),
        "censored": pfc is None and len(trials) == cap < budget,
        "budget": budget,
        "accs": [t.user_attrs["accuracy"] for t in trials],
        "psvs": [t.user_attrs["psv"] for t in trials],
        "values": [math.inf if t.value is None else t.value for t in trials],
    }


def fitness_stop(values: list[float], size: int, threshold: float) -> int | None:
    """Calls used when the paper's rule is read on the fitness, or ``None`` if it never fires.

    After every complete generation of ``size`` trials: the unbiased standard deviation of
    the best 25% of that generation's objective values (at least two) is compared with
    ``threshold``, in the units of the ``values`` given (the summary passes CV errors and
    ``1 - PI_SVM`` in percent, as the paper's tables give both).
    """
    for end in range(size, len(values) + 1, size):
        block = np.sort(np.asarray(values[end - size : end], dtype=float))
        top = block[: max(2, math.ceil(0.25 * size))]
        if float(np.std(top, ddof=1)) < threshold:
            return end
    return None


def at_stop(r: dict[str, Any], calls: int) -> dict[str, Any]:
    """Run ``r`` as if it had stopped after ``calls`` trials (best by the fitness)."""
    best = int(np.argmin(r["values"][:calls]))
    return {"accuracy": r["accs"][best], "psv": r["psvs"][best],
            "pfc": 100.0 * calls / r["budget"], "calls": calls}  # fmt: skip


def _task(args: tuple[str, list[str], int, int, int, float, int]) -> list[dict[str, Any]]:
    """The runs of every sampler on one set and seed."""
    name, samplers, budget, seed, folds, threshold, cap = args
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    x, y = numeric_set(name)
    x = MinMaxScaler((-1.0, 1.0)).fit_transform(x)
    out = []
    for s in samplers:
        r = run(x, y, s, budget, seed, folds, threshold, cap)
        cut = " (cut at the cap)" if r["censored"] else ""
        print(f"{name} seed={seed} {s}: acc {r['accuracy']:.2f} psv {r['psv']:.2f} "
              f"calls {r['calls']:.0f} pfc {r['pfc']:.1f}{cut}", flush=True)  # fmt: skip
        out.append({"set": name, "seed": seed, "sampler": s, **r})
    return out


def summary(results: list[dict[str, Any]], samplers: list[str], threshold: float = 0.01) -> str:
    """Markdown tables of the means over seeds per set and sampler (last row: over sets).

    Two stopping rules: the samplers' own (spread of the top 25% in the unit box, what
    the runs did) and the paper's rule read on the fitness (:func:`fitness_stop`, applied
    after the fact to the EDAs and PSO; random search has no generations). The last table
    gives each EDA's accuracy beside the accuracy PSO and random search had reached (same
    set and seed) after as many calls as the EDA used under the fitness rule.
    """
    sets = list(dict.fromkeys(r["set"] for r in results))
    seeds = sorted({r["seed"] for r in results})
    runs = {(r["set"], r["seed"], r["sampler"]): r for r in results}
    post: dict[tuple[str, int, str], dict[str, Any]] = {}
    cut: dict[str, int] = dict.fromkeys(samplers, 0)
    for key, r in runs.items():
        size = population(r["budget"])
        percent = 100.0 * np.asarray(r["values"]) if key[2].endswith("-pi") else r["values"]
        stop = fitness_stop(list(percent), size, threshold) if key[2] != "random" else None
        post[key] = at_stop(r, stop or len(r["values"]))
        cut[key[2]] += stop is None and r["censored"]

    done = {n: [k for k in seeds if all((n, k, s) in runs for s in samplers)] for n in sets}

    def mean(table: dict[tuple[str, int, str], dict[str, Any]], n: str, s: str, k: str) -> float:
        return statistics.fmean(table[(n, seed, s)][k] for seed in done[n])

    def at(n: str, b: str, e: str) -> float:
        return statistics.fmean(
            max(runs[(n, k, b)]["accs"][: post[(n, k, e)]["calls"]]) for k in done[n]
        )

    tables: list[tuple[str, list[tuple[str, Any]]]] = []
    for table, rule in ((runs, "samplers' rule"), (post, "fitness rule")):
        for field, title in (
            ("accuracy", "CV accuracy (%)"),
            ("psv", "PSV (%)"),
            ("pfc", "PFC (%)"),
        ):
            cols: list[tuple[str, Any]] = [
                (s, lambda n, s=s, k=field, t=table: mean(t, n, s, k)) for s in samplers
            ]
            tables.append((f"{title}, {rule}", cols))
    columns: list[tuple[str, Any]] = []
    for e in (e for e in ("umda", "bumda") if e in samplers):
        columns.append((f"{e} calls", lambda n, e=e: mean(post, n, e, "calls")))
        columns.append((e, lambda n, e=e: mean(post, n, e, "accuracy")))
        for b in (b for b in ("pso", "random") if b in samplers):
            columns.append((f"{b} @ {e} calls", lambda n, b=b, e=e: at(n, b, e)))
    if columns:
        tables.append(("CV accuracy (%) at the EDA's calls, fitness rule", columns))
    blocks = []
    for title, cols in tables:
        values = [[f(n) for _, f in cols] for n in sets]
        rows = [[f"{n} {done[n]}"] + [f"{v:.2f}" for v in row] for n, row in zip(sets, values)]
        rows.append(["mean"] + [f"{statistics.fmean(col):.2f}" for col in zip(*values)])
        head = ["set"] + [c for c, _ in cols]
        blocks.append(f"{title}, mean over seeds [in brackets]:\n\n" + markdown(head, rows))
    censored = {s: sum(r["censored"] for r in results if r["sampler"] == s) for s in samplers}
    for what, counts in (("samplers' rule", censored), ("fitness rule", cut)):
        if any(counts.values()):
            text = ", ".join(f"{s} {k} of {len(sets) * len(seeds)}" for s, k in counts.items())
            blocks.append(f"Runs cut at the cap, {what} (PFC counted as cap / budget): {text}.")
    return "\n\n".join(blocks)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Run the comparison; returns one dict per (set, seed, sampler)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--samplers", nargs="+", default=SAMPLERS)
    parser.add_argument("--budget", type=int, default=1000, help="the paper's: 1000")
    parser.add_argument("--cap", type=int, help="run at most this many of the budget's calls")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--folds", type=int, default=10, help="the paper's: 10")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=0.01, help="stopping rule (0.01)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="write the results (one dict per run) to this file")
    parser.add_argument("--from-json", nargs="+", help="summarise these files, run nothing")
    args = parser.parse_args(argv)
    if args.from_json:
        results: list[dict[str, Any]] = [
            r for path in args.from_json for r in json.loads(Path(path).read_text())
        ]
        samplers = list(dict.fromkeys(r["sampler"] for r in results))
        print(summary(results, samplers, args.threshold))
        return results
    for s in args.samplers:
        _sampler(s.removesuffix("-pi"), args.budget, 0)  # unknown names fail here
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    cap = args.budget if args.cap is None else args.cap
    tasks = [(n, args.samplers, args.budget, k, args.folds, args.threshold, cap)
             for k in seeds for n in args.sets]  # fmt: skip
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for part in pool.map(_task, tasks) if args.jobs > 1 else map(_task, tasks):
            results += part
            if args.json:  # after every (set, seed): a cut run keeps what it finished
                Path(args.json).write_text(json.dumps(results))
    print("\n" + summary(results, args.samplers, args.threshold))
    return results


if __name__ == "__main__":
    main()
