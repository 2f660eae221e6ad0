"""The nine benchmark functions of the PSO meta-optimisation paper, standard definitions.

The paper's printed formulas carry typos; these are the textbook definitions. Each
function is to be minimised over the hypercube ``[low, high]^d`` given by its ``domain``;
``optimum(d)`` is the global minimum value in ``d`` dimensions and ``argmin(d)`` a point
where it is reached (inside the domain).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import math

import numpy as np
import optuna


def sphere(x: np.ndarray) -> float:
    return float(np.sum(x**2))


def ackley(x: np.ndarray) -> float:
    d = x.size
    a = -20.0 * math.exp(-0.2 * math.sqrt(float(np.sum(x**2)) / d))
    b = -math.exp(float(np.sum(np.cos(2.0 * math.pi * x))) / d)
    return a + b + 20.0 + math.e


def griewank(x: np.ndarray) -> float:
    i = np.arange(1, x.size + 1)
    return float(1.0 + np.sum(x**2) / 4000.0 - np.prod(np.cos(x / np.sqrt(i))))


def rastrigin(x: np.ndarray) -> float:
    return float(10.0 * x.size + np.sum(x**2 - 10.0 * np.cos(2.0 * math.pi * x)))


def rosenbrock(x: np.ndarray) -> float:
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def schwefel(x: np.ndarray) -> float:
    return float(418.9828872724338 * x.size - np.sum(x * np.sin(np.sqrt(np.abs(x)))))


def styblinski_tang(x: np.ndarray) -> float:
    return float(0.5 * np.sum(x**4 - 16.0 * x**2 + 5.0 * x))


def step(x: np.ndarray) -> float:
    return float(np.sum(np.floor(x + 0.5) ** 2))


def alpine(x: np.ndarray) -> float:
    return float(np.sum(np.abs(x * np.sin(x) + 0.1 * x)))


@dataclass(frozen=True)
class TestFunction:
    """A benchmark function with its domain and optimum.

    Attributes:
        name: Short name.
        fn: ``f(x) -> float`` for a 1-D array ``x``.
        domain: ``(low, high)`` of every coordinate.
        optimum_per_dim: ``f*`` is ``optimum_per_dim * d`` (0 except Styblinski-Tang).
        argmin_coord: Every coordinate of a minimiser.
    """

    __test__ = False  # not a pytest class

    name: str
    fn: Callable[[np.ndarray], float]
    domain: tuple[float, float]
    optimum_per_dim: float
    argmin_coord: float

    def optimum(self, d: int) -> float:
        return self.optimum_per_dim * d

    def argmin(self, d: int) -> np.ndarray:
        return np.full(d, self.argmin_coord)

    def __call__(self, x: np.ndarray) -> float:
        return self.fn(np.asarray(x, dtype=float))


FUNCTIONS: dict[str, TestFunction] = {
    f.name: f
    for f in (
        TestFunction("sphere", sphere, (0.0, 10.0), 0.0, 0.0),
        TestFunction("ackley", ackley, (-35.0, 35.0), 0.0, 0.0),
        TestFunction("griewank", griewank, (-100.0, 100.0), 0.0, 0.0),
        TestFunction("rastrigin", rastrigin, (-5.12, 5.12), 0.0, 0.0),
        TestFunction("rosenbrock", rosenbrock, (-30.0, 30.0), 0.0, 1.0),
        TestFunction("schwefel", schwefel, (-500.0, 500.0), 0.0, 420.9687462275036),
        TestFunction(
            "styblinski_tang", styblinski_tang, (-5.0, 5.0), -39.16616570377142, -2.903534018185960
        ),
        TestFunction("step", step, (-100.0, 100.0), 0.0, 0.0),
        TestFunction("alpine", alpine, (-10.0, 10.0), 0.0, 0.0),
    )
}


def shift_of(function: TestFunction, dim: int, seed: int = 2024) -> np.ndarray:
    """A fixed offset moving the minimiser off the box centre, keeping it inside the box.

    Each coordinate is uniform in ``[-0.3, 0.3]`` times the domain width, cut so that the
    shifted minimiser stays in the domain. Seven of the nine functions have their minimum
    at the centre of the box, where grid and pattern searches start.
    """
    low, high = function.domain
    width = high - low
    rng = np.random.default_rng([seed, dim, sum(map(ord, function.name))])
    raw = rng.uniform(-0.3, 0.3, dim) * width
    star = function.argmin(dim)
    return np.clip(raw, low - star, high - star)


def make_objective(
    function: TestFunction, dim: int, shifted: bool = False
) -> Callable[[optuna.Trial], float]:
    """An Optuna objective suggesting ``x0 ... x{dim-1}`` in the function's domain.

    With ``shifted=True`` it returns ``f(clip(x - shift_of(function, dim)))``, the argument
    clipped to the domain (Schwefel is unbounded below outside it): same optimum value,
    minimiser moved to ``argmin + shift`` (inside the box).
    """
    low, high = function.domain
    names = [f"x{i}" for i in range(dim)]
    shift = shift_of(function, dim) if shifted else np.zeros(dim)

    def objective(trial: optuna.Trial) -> float:
        x = np.array([trial.suggest_float(n, low, high) for n in names])
        return function(np.clip(x - shift, low, high))

    return objective
