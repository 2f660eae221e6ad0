"""
Focused grid search (FocusedGridSampler: DFGS and AFGS)
========================================================

:class:`~optuna_psms.FocusedGridSampler` implements the focused grid searches of Barbero,
López & Dorronsoro (Neurocomputing 2009). Each *level* is a grid around the best point so
far; the next level is centred nearer the best point with half the width.

* ``mode="deterministic"`` (DFGS) evaluates the whole grid of a level: ``3^M + 2^M``
  points in ``M`` parameters, so for a few parameters.
* ``mode="annealed"`` (AFGS) walks at random over the level's grid, accepting worse points
  with a decreasing temperature, a fixed number of points per level: for many parameters.

User attrs ``psms:level`` and ``psms:point`` (DFGS) or ``psms:step`` (AFGS). The guide:
:doc:`/focused_grid`.
"""

from __future__ import annotations

import optuna

from optuna_psms import FocusedGridSampler
from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.benchmarks.functions import shift_of
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_population


optuna.logging.set_verbosity(optuna.logging.WARNING)
rastrigin = FUNCTIONS["rastrigin"]
objective = make_objective(rastrigin, 2, shifted=True)
optimum = rastrigin.argmin(2) + shift_of(rastrigin, 2)

studies = {}
for mode in ("deterministic", "annealed"):
    studies[mode] = optuna.create_study(sampler=FocusedGridSampler(mode=mode, seed=0, budget=150))
    studies[mode].optimize(objective, n_trials=150)
    study = studies[mode]
    levels = max(t.user_attrs.get("psms:level", 0) for t in study.trials)
    print(f"{mode:13s}: best {study.best_value:.3f} at {study.best_params}, {levels} levels")
print(f"optimum at {optimum.round(2)}")

# %%
# DFGS, coloured by level: the 13-point grids (9 outer, 4 inner points in 2-D) nest
# towards the best point; when the grid is fine enough the run restarts.
fig = plot_population(studies["deterministic"], params=("x0", "x1"))
fig.add_annotation(x=optimum[0], y=optimum[1], text="global minimum", arrowcolor="red")

# %%
# AFGS on the same budget: fewer points per level, the levels zoom in faster.
plot_population(studies["annealed"], params=("x0", "x1"))

# %%
# Level by level for DFGS: the best value and the shrinking spread of each grid.
plot_generations(studies["deterministic"])
