"""The inner score of :mod:`optuna_psms.meta`: a sampler's normalized regret on a suite.

:func:`evaluate` (re-exported as ``optuna_psms.meta.evaluate``) builds the sampler with
given settings, runs it on each function of a suite (``"nine"`` or ``"bbob"``) for a few
seeds, and divides its median final regret by ``RandomSampler``'s with the same seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import functools
import math
import statistics
from typing import Any

import numpy as np
import optuna

from optuna_psms.samplers._registry import OURS
from optuna_psms.samplers.dynamic_random import DynamicRandomSampler
from optuna_psms.samplers.eda import BUMDASampler
from optuna_psms.samplers.eda import UMDASampler
from optuna_psms.samplers.pso import PSOSampler


#: A function's regret at a point (its value minus its optimum).
Regret = Callable[[np.ndarray], float]

#: The samplers meta-optimisation tunes, by their registry names: this package's classes
#: that the registry lists without fixed arguments (:data:`optuna_psms.meta.SPACES` has
#: their search spaces).
_CLASSES: dict[str, Callable[..., optuna.samplers.BaseSampler]] = {
    name: entry.load()
    for name, entry in OURS.items()
    if not entry.kwargs
    and entry.load() in (PSOSampler, UMDASampler, BUMDASampler, DynamicRandomSampler)
}


def suite_problems(
    suite: str, dim: int, functions: Sequence[str] | None = None
) -> list[tuple[str, Regret, tuple[float, float]]]:
    """``(name, regret function, (low, high))`` of each function of a suite."""
    if suite == "nine":
        from optuna_psms.benchmarks.functions import FUNCTIONS
        from optuna_psms.benchmarks.functions import shift_of

        names = list(FUNCTIONS) if functions is None else list(functions)
        out: list[tuple[str, Regret, tuple[float, float]]] = []
        for name in names:
            if name not in FUNCTIONS:
                raise ValueError(f"unknown function {name!r} of the nine: {list(FUNCTIONS)}.")
            f = FUNCTIONS[name]
            shift, low, high, opt = shift_of(f, dim), *f.domain, f.optimum(dim)

            def regret(x: np.ndarray, f: Any = f, s: Any = shift, lo: float = low,
                       hi: float = high, o: float = opt) -> float:  # fmt: skip
                return float(f(np.clip(x - s, lo, hi)) - o)

            out.append((name, regret, f.domain))
        return out
    if suite == "bbob":
        from optuna_psms.benchmarks.bbob import FUNCTION_NAMES
        from optuna_psms.benchmarks.bbob import Problem

        ids = list(FUNCTION_NAMES) if functions is None else [int(f) for f in functions]
        return [(f"f{i}", Problem(i, dim, 1), (-5.0, 5.0)) for i in ids]
    raise ValueError(f"suite must be 'nine' or 'bbob', got {suite!r}.")


def _final_regret(
    make: Callable[[int], optuna.samplers.BaseSampler],
    regret: Regret,
    domain: tuple[float, float],
    dim: int,
    budget: int,
    seed: int,
) -> float:
    names = [f"x{i}" for i in range(dim)]

    def objective(trial: optuna.Trial) -> float:
        return regret(np.array([trial.suggest_float(n, *domain) for n in names]))

    study = optuna.create_study(sampler=make(seed))
    study.optimize(objective, n_trials=budget)
    return float(study.best_value)


@functools.lru_cache(maxsize=32)
def _random_medians(
    suite: str, dim: int, budget: int, seeds: int, functions: tuple[str, ...] | None
) -> tuple[float, ...]:
    out = []
    for _, regret, domain in suite_problems(suite, dim, functions):
        runs = [
            _final_regret(
                lambda s: optuna.samplers.RandomSampler(seed=s), regret, domain, dim, budget, s
            )
            for s in range(seeds)
        ]
        out.append(statistics.median(runs))
    return tuple(out)


def evaluate(
    sampler: str,
    settings: dict[str, Any],
    *,
    suite: str = "nine",
    dim: int = 5,
    budget: int = 200,
    seeds: int = 3,
    functions: Sequence[str] | None = None,
) -> float:
    """Normalized regret of ``sampler`` built with ``settings`` and ``budget=budget``.

    The mean over the suite's functions of the median (seeds ``0 .. seeds - 1``) final
    regret after ``budget`` trials divided by ``RandomSampler``'s median with the same seeds.
    ``settings={"budget": None}`` builds the sampler without its budget rule.
    """
    if sampler not in _CLASSES:
        raise ValueError(f"sampler must be one of {list(_CLASSES)}, got {sampler!r}.")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    fkey = None if functions is None else tuple(functions)
    reference = _random_medians(suite, dim, budget, seeds, fkey)
    cls = _CLASSES[sampler]
    kwargs = dict(settings)
    if cls is not PSOSampler or "n_iterations" not in kwargs:
        kwargs.setdefault("budget", budget)

    def make(seed: int) -> optuna.samplers.BaseSampler:
        return cls(seed=seed, **kwargs)

    ratios = []
    for (_, regret, domain), ref in zip(suite_problems(suite, dim, functions), reference):
        med = statistics.median(
            _final_regret(make, regret, domain, dim, budget, s) for s in range(seeds)
        )
        ratios.append(med / ref if ref > 0 else (1.0 if med <= 0 else math.inf))
    return statistics.fmean(ratios)
