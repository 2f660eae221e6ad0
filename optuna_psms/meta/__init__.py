"""Meta-optimisation: tune a sampler's own hyperparameters with a sampler of this package.

The PSO meta-optimisation paper (003 in ``docs/reproduce/reproductions.md``) tunes a base PSO's
continuous hyperparameters with a parent PSO. Here the *outer* study searches a sampler's
settings (:data:`SPACES`: ``c1, c2, w_start, w_end, swarm_size, topology`` for PSO;
population and truncation for UMDA, population for BUMDA, whose truncation is adaptive;
batch size and elite for DRS), and each outer trial's value is the
*inner* score of those settings: the **normalized regret** on a benchmark suite at a given
budget, i.e. the mean over the suite's functions of the sampler's median (over seeds) final
regret divided by ``RandomSampler``'s with the same seeds (random = 1, lower is better;
the BBOB report's score).

Suites: ``"nine"`` (the paper's nine functions with shifted minimisers,
:mod:`optuna_psms.benchmarks.functions`) and ``"bbob"`` (COCO's 24 functions, instance 1;
needs the ``bench`` extra). Tune on one suite and report on the other, so the tuned
settings are not judged on what they were fitted to.

Run ``python -m optuna_psms.meta --help`` for the command line; it prints the tuned settings
and a table of normalized regret for the paper's, the textbook and the tuned settings on
both suites.

Example:

    .. testcode::

        from optuna_psms import meta

        study = meta.tune("pso", suite="nine", dim=2, budget=20, seeds=1, n_trials=3,
                          functions=["sphere", "ackley"], seed=0)
        settings = meta.settings_from_params("pso", study.best_params)
        assert set(settings) == {"c1", "c2", "inertia", "swarm_size", "topology"}
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import statistics
from typing import Any
from typing import TypeAlias

import optuna

from optuna_psms.benchmarks._args import positive_int
from optuna_psms.benchmarks.bbob import build_sampler
from optuna_psms.meta._score import _CLASSES as _CLASSES
from optuna_psms.meta._score import evaluate as evaluate
from optuna_psms.meta._score import Regret as Regret
from optuna_psms.meta._score import suite_problems as suite_problems
from optuna_psms.samplers.core.pso import TOPOLOGIES
from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
from optuna_psms.samplers.eda import BUMDASampler
from optuna_psms.samplers.eda import UMDASampler
from optuna_psms.samplers.pso import PSOSampler


#: One tuned setting: ``(name, low, high, is_int)`` (a number) or ``(name, choices)``.
Spec: TypeAlias = tuple[str, float, float, bool] | tuple[str, tuple[str, ...]]

#: The search space of each tunable sampler: ``(name, low, high, is_int)`` for a number,
#: ``(name, choices)`` for a categorical.
_SPACES: dict[Any, list[Spec]] = {
    PSOSampler: [
        ("c1", 0.0, 3.0, False),
        ("c2", 0.0, 3.0, False),
        ("w_start", 0.2, 1.4, False),
        ("w_end", 0.0, 1.0, False),
        ("swarm_size", 3, 40, True),
        ("topology", TOPOLOGIES),
    ],
    UMDASampler: [("population_size", 6, 100, True), ("top_fraction", 0.1, 0.6, False)],
    BUMDASampler: [("population_size", 6, 100, True)],
    DynamicRandomSampler: [("batch_size", 5, 100, True), ("top_fraction", 0.2, 0.8, False)],
}
#: The same by sampler name (the registry's name of each class, without fixed arguments).
SPACES: dict[str, list[Spec]] = {name: _SPACES[cls] for name, cls in _CLASSES.items()}
#: PSOSampler's registry name: the default tuned sampler and the paper's parent algorithm.
_PSO = next(name for name, cls in _CLASSES.items() if cls is PSOSampler)

#: Named settings to compare with: the papers' defaults (``budget=None``), the same with the
#: budget rule, and the textbook constriction PSO (Clerc & Kennedy 2002: constant
#: ``w = 0.7298``, ``c1 = c2 = 1.49618``).
_PAPER: dict[str, dict[str, Any]] = {"paper": {"budget": None}, "paper + budget rule": {}}
_TEXTBOOK = {"textbook": {"c1": 1.49618, "c2": 1.49618, "inertia": (0.7298, 0.0, 0.7298)}}
REFERENCE_SETTINGS: dict[str, dict[str, dict[str, Any]]] = {
    name: {**_PAPER, **(_TEXTBOOK if cls is PSOSampler else {})} for name, cls in _CLASSES.items()
}


def settings_from_params(sampler: str, params: dict[str, Any]) -> dict[str, Any]:
    """Constructor keyword arguments from an outer trial's parameters."""
    if sampler not in SPACES:
        raise ValueError(f"sampler must be one of {list(SPACES)}, got {sampler!r}.")
    settings = dict(params)
    if sampler == _PSO:
        settings["inertia"] = (settings.pop("w_start"), 0.5, settings.pop("w_end"))
    return settings


#: Outer samplers (the paper's "parent algorithms") the command line can choose by name;
#: SMAC, the paper's fourth parent, is not a dependency of this package (see
#: docs/reproduce/meta_smac.py).
OUTER_SAMPLERS = (_PSO, "random", "tpe")


def make_outer(name: str, n_trials: int, seed: int | None) -> optuna.samplers.BaseSampler:
    """The outer sampler called ``name`` (one of :data:`OUTER_SAMPLERS`) for ``n_trials``.

    ``"pso"`` is ``PSOSampler(budget=n_trials, seed=seed)``, ``"random"`` Optuna's
    ``RandomSampler(seed=seed)``, ``"tpe"`` Optuna's ``TPESampler(seed=seed)`` (its
    defaults: 10 random start-up trials).
    """
    if name not in OUTER_SAMPLERS:
        raise ValueError(f"outer sampler must be one of {list(OUTER_SAMPLERS)}, got {name!r}.")
    return build_sampler(f"{name}@budget" if name == _PSO else name, seed, n_trials)


def _suggest(trial: optuna.Trial, spec: Spec) -> Any:
    if len(spec) == 2:
        name, choices = spec
        return trial.suggest_categorical(name, choices)
    name, low, high, is_int = spec
    if is_int:
        return trial.suggest_int(name, int(low), int(high))
    return trial.suggest_float(name, low, high)


def tune(
    sampler: str = _PSO,
    *,
    suite: str = "nine",
    dim: int = 5,
    budget: int = 200,
    seeds: int = 3,
    n_trials: int = 40,
    functions: Sequence[str] | None = None,
    outer_sampler: optuna.samplers.BaseSampler | None = None,
    seed: int | None = 0,
    storage: str | None = None,
    study_name: str | None = None,
) -> optuna.Study:
    """Tune ``sampler``'s settings (:data:`SPACES`) to minimise :func:`evaluate`.

    Args:
        sampler: A name of :data:`SPACES` (the tunable samplers).
        suite: ``"nine"`` or ``"bbob"``: the inner objective.
        dim: Dimension of the inner functions.
        budget: Trials of each inner run (the sampler is built with ``budget=budget``).
        seeds: Inner runs per function (seeds ``0 .. seeds - 1``).
        n_trials: Outer trials.
        functions: A subset of the suite (names for ``"nine"``, ids for ``"bbob"``).
        outer_sampler: The tuner; default ``PSOSampler(budget=n_trials, seed=seed)`` (a
            sampler of this package, as in the paper; see :func:`make_outer`).
        seed: Seed of the default outer sampler.
        storage: Optuna storage URL of the outer study (resumable), or ``None``.
        study_name: Name of the outer study.

    Returns:
        The outer study: ``best_params`` (see :func:`settings_from_params`), ``best_value``
        (the tuned settings' normalized regret on the tuning suite).
    """
    if sampler not in SPACES:
        raise ValueError(f"sampler must be one of {list(SPACES)}, got {sampler!r}.")
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1:
        raise ValueError(f"n_trials must be a positive integer, got {n_trials!r}.")
    space = SPACES[sampler]

    def objective(trial: optuna.Trial) -> float:
        params = {spec[0]: _suggest(trial, spec) for spec in space}
        settings = settings_from_params(sampler, params)
        return evaluate(
            sampler,
            settings,
            suite=suite,
            dim=dim,
            budget=budget,
            seeds=seeds,
            functions=functions,
        )

    outer = outer_sampler if outer_sampler is not None else make_outer(_PSO, n_trials, seed)
    study = optuna.create_study(
        sampler=outer, storage=storage, study_name=study_name, load_if_exists=True
    )
    study.optimize(objective, n_trials=n_trials)
    return study


def table(
    rows: dict[str, list[float]],
    suites: Sequence[str],
    dim: int,
    budget: int,
    seeds: int,
    report_seeds: int,
) -> str:
    """The command line's report: a heading and a Markdown table of normalized regret, one
    row per settings label, one column per suite (tuning suite first)."""
    lines = [
        f"\nnormalized regret, {dim}-D, {budget} trials "
        f"(tune suite: {seeds} seeds; report: {report_seeds} seeds)\n",
        "| settings | " + " | ".join(suites) + " |",
        "|---" * (len(suites) + 1) + "|",
    ]
    lines += [f"| {k} | " + " | ".join(f"{v:.3f}" for v in vs) + " |" for k, vs in rows.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m optuna_psms.meta", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sampler",
        default=_PSO,
        choices=list(SPACES),
        help="the sampler whose settings are tuned",
    )
    parser.add_argument(
        "--tune-suite",
        default="nine",
        choices=["nine", "bbob"],
        help="functions the inner score is measured on while tuning (default: nine)",
    )
    parser.add_argument(
        "--report-suite",
        default="bbob",
        choices=["nine", "bbob"],
        help="held-out functions the tuned settings are also scored on (default: bbob)",
    )
    parser.add_argument(
        "--dim", type=positive_int, default=5, help="dimension of every function (default: 5)"
    )
    parser.add_argument(
        "--budget",
        type=positive_int,
        default=200,
        help="trials of each inner run; the tuned sampler gets budget=BUDGET (default: 200)",
    )
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=3,
        help="inner seeds per function on the tuning suite (default: 3)",
    )
    parser.add_argument(
        "--report-seeds",
        type=positive_int,
        default=3,
        help="seeds per function when scoring on the report suite (default: 3)",
    )
    parser.add_argument(
        "--trials", type=positive_int, default=40, help="outer trials per parent (default: 40)"
    )
    parser.add_argument(
        "--outer",
        nargs="+",
        default=[_PSO],
        choices=list(OUTER_SAMPLERS),
        help="outer sampler(s), the parent algorithm(s); each tunes separately",
    )
    parser.add_argument(
        "--seed", type=int, nargs="+", default=[0], help="seed(s) of the outer sampler"
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    suites = [args.tune_suite] + [s for s in [args.report_suite] if s != args.tune_suite]

    def score(settings: dict[str, Any]) -> list[float]:
        return [
            evaluate(
                args.sampler,
                settings,
                suite=s,
                dim=args.dim,
                budget=args.budget,
                seeds=args.seeds if s == args.tune_suite else args.report_seeds,
            )
            for s in suites
        ]

    rows = {label: score(settings) for label, settings in REFERENCE_SETTINGS[args.sampler].items()}
    for name in args.outer:
        runs = []
        for seed in args.seed:
            study = tune(
                args.sampler,
                suite=args.tune_suite,
                dim=args.dim,
                budget=args.budget,
                seeds=args.seeds,
                n_trials=args.trials,
                outer_sampler=make_outer(name, args.trials, seed),
            )
            tuned = settings_from_params(args.sampler, study.best_params)
            print(
                f"tuned on {args.tune_suite} by {name} (seed {seed}, {args.trials} outer "
                f"trials): {tuned} [best outer trial: #{study.best_trial.number}]"
            )
            runs.append(score(tuned))
            rows[f"tuned by {name}" + (f" (seed {seed})" if len(args.seed) > 1 else "")] = runs[-1]
        if len(runs) > 1:
            rows[f"tuned by {name}, mean of {len(runs)}"] = [
                statistics.fmean(column) for column in zip(*runs)
            ]
    print(table(rows, suites, args.dim, args.budget, args.seeds, args.report_seeds))
