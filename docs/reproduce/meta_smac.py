"""PSO meta-optimisation (paper 003) with SMAC as the parent: the page's fourth parent.

``optuna_psms.meta`` tunes a sampler's settings with an Optuna sampler as the parent
(``--outer pso random tpe``). The paper's fourth parent is SMAC, which is not a dependency of
this package; this script runs the same outer study with SMAC3's hyperparameter-optimisation
facade (a random forest surrogate, its default Sobol initial design and expected
improvement) as the parent, through :class:`SmacParent`, an in-process Optuna sampler that
asks SMAC for each outer trial's settings and tells it the inner score. The inner objective,
the outer budget and the reports are those of ``python -m optuna_psms.meta``: the same 30
outer trials, the same normalized regret on the same suites and seeds.

Needs SMAC3 (``pip install smac``; 2.4.1 was used). Run::

    python docs/reproduce/meta_smac.py --sampler pso --tune-suite nine --report-suite bbob \\
        --dim 5 --budget 200 --seeds 2 --report-seeds 3 --trials 30 --seed 0 1 2 3 4

``SmacParent`` keeps SMAC's state in the process (it is a benchmark parent for one
sequential outer study, not one of this package's storage-derived samplers).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import statistics
import tempfile
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_psms import meta


class SmacParent(optuna.samplers.BaseSampler):
    """Optuna sampler asking SMAC3 for each trial's values over a fixed search space.

    Args:
        space: ``meta.SPACES[name]``: ``(name, low, high, is_int)`` or ``(name, choices)``.
        n_trials: The outer study's trials (SMAC's scenario budget).
        seed: SMAC's seed.
    """

    def __init__(self, space: list[Any], n_trials: int, seed: int) -> None:
        from ConfigSpace import Categorical
        from ConfigSpace import ConfigurationSpace
        from ConfigSpace import Float
        from ConfigSpace import Integer
        from smac import HyperparameterOptimizationFacade
        from smac import Scenario

        self._dists: dict[str, BaseDistribution] = {}
        cs = ConfigurationSpace(seed=seed)
        for spec in space:
            if len(spec) == 2:
                name, choices = spec
                cs.add(Categorical(name, list(choices)))
                self._dists[name] = CategoricalDistribution(list(choices))
            elif spec[3]:
                name, low, high = spec[0], int(spec[1]), int(spec[2])
                cs.add(Integer(name, (low, high)))
                self._dists[name] = IntDistribution(low, high)
            else:
                name, flow, fhigh = spec[0], float(spec[1]), float(spec[2])
                cs.add(Float(name, (flow, fhigh)))
                self._dists[name] = FloatDistribution(flow, fhigh)
        scenario = Scenario(
            cs,
            deterministic=True,  # the inner score is a function of the settings (fixed seeds)
            n_trials=n_trials,
            seed=seed,
            output_directory=tempfile.mkdtemp(prefix="smac-parent-"),
        )
        self._smac = HyperparameterOptimizationFacade(
            scenario, target_function=_never_called, overwrite=True, logging_level=40
        )
        self._asked: dict[int, Any] = {}  # trial number -> SMAC TrialInfo

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        return dict(self._dists)

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        info = self._smac.ask()
        self._asked[trial.number] = info
        config = info.config
        return {name: _plain(config[name]) for name in search_space}

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        raise ValueError(f"SmacParent does not know parameter {param_name!r}.")

    def after_trial(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        from smac.runhistory.dataclasses import TrialValue

        info = self._asked.pop(trial.number, None)
        if info is None:
            return
        cost = float(values[0]) if state == TrialState.COMPLETE and values else float("inf")
        self._smac.tell(info, TrialValue(cost=cost))


def _never_called(config: Any, seed: int = 0) -> float:
    raise RuntimeError("SmacParent drives SMAC by ask/tell; its target is never called.")


def _plain(value: Any) -> Any:
    """A ConfigSpace value as a plain Python value (numpy scalars to int/float)."""
    return value.item() if hasattr(value, "item") else value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sampler", default="pso", choices=list(meta.SPACES))
    parser.add_argument("--tune-suite", default="nine", choices=["nine", "bbob"])
    parser.add_argument("--report-suite", default="bbob", choices=["nine", "bbob"])
    parser.add_argument("--dim", type=int, default=5)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--report-seeds", type=int, default=3)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument(
        "--functions", nargs="+", default=None, help="a subset of the tuning suite (tests)"
    )
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    suites = [args.tune_suite] + [s for s in [args.report_suite] if s != args.tune_suite]
    rows: dict[str, list[float]] = {}
    runs = []
    for seed in args.seed:
        parent = SmacParent(meta.SPACES[args.sampler], args.trials, seed)
        study = meta.tune(
            args.sampler,
            suite=args.tune_suite,
            dim=args.dim,
            budget=args.budget,
            seeds=args.seeds,
            n_trials=args.trials,
            functions=args.functions,
            outer_sampler=parent,
        )
        tuned = meta.settings_from_params(args.sampler, study.best_params)
        print(
            f"tuned on {args.tune_suite} by smac (seed {seed}, {args.trials} outer trials): "
            f"{tuned} [best outer trial: #{study.best_trial.number}]",
            flush=True,
        )
        scores = [
            meta.evaluate(
                args.sampler,
                tuned,
                suite=s,
                dim=args.dim,
                budget=args.budget,
                seeds=args.seeds if s == args.tune_suite else args.report_seeds,
                functions=args.functions if s == args.tune_suite else None,
            )
            for s in suites
        ]
        runs.append(scores)
        rows[f"tuned by smac (seed {seed})"] = scores
    if len(runs) > 1:
        rows[f"tuned by smac, mean of {len(runs)}"] = [statistics.fmean(c) for c in zip(*runs)]
    print(meta.table(rows, suites, args.dim, args.budget, args.seeds, args.report_seeds))


if __name__ == "__main__":
    main()
