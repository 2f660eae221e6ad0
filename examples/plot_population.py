"""
The population of each sampler, in plots
=========================================

:mod:`optuna_psms.visualization` draws what a population sampler did: every trial at its
position, coloured by iteration or generation, the particles' trajectories and the best so
far (:func:`~optuna_psms.visualization.plot_population`), and per generation the best and
median value with the spread of the positions
(:func:`~optuna_psms.visualization.plot_generations`).

Run: ``python examples/plot_population.py``; in your own code, ``fig.show()`` opens a figure
in the browser and ``fig.write_html("population.html")`` saves it.
"""

from __future__ import annotations

import optuna

from optuna_psms import PSOSampler
from optuna_psms import UMDASampler
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_population


optuna.logging.set_verbosity(optuna.logging.WARNING)


def objective(trial: optuna.Trial) -> float:
    # A shifted two-dimensional Rastrigin-like bowl: many local minima, the global one at (1, -2).
    import math

    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_float("y", -5, 5)
    return (
        20
        + (x - 1) ** 2
        - 10 * math.cos(2 * math.pi * (x - 1))
        + (y + 2) ** 2
        - 10 * math.cos(2 * math.pi * (y + 2))
    )


# %%
# A particle swarm: 5 particles, 40 iterations. Each particle's path is a line; the stars
# are the best-so-far trials.
pso = optuna.create_study(sampler=PSOSampler(seed=0))
pso.optimize(objective, n_trials=200)
print(f"PSO best {pso.best_value:.3f} at {pso.best_params}")
plot_population(pso, params=("x", "y"))

# %%
# The same study, generation by generation: the swarm's best and median value, and how far
# apart the particles are (the spread shrinks as the swarm converges).
plot_generations(pso)

# %%
# A Gaussian EDA (UMDA): each generation is sampled from a normal distribution fitted to the
# best members of the previous one, so the clouds contract towards the optimum.
umda = optuna.create_study(sampler=UMDASampler(seed=0, budget=200))
umda.optimize(objective, n_trials=200)
print(f"UMDA best {umda.best_value:.3f} at {umda.best_params}")
plot_population(umda, params=("x", "y"))
