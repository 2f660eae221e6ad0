"""
Pattern search (PatternSearchSampler)
=====================================

:class:`~optuna_psms.PatternSearchSampler` is PATSMS, the pattern-search baseline of the
PSMS paper (Escalante, Montes & Sucar, JMLR 2009, Algorithm 2). Around the best point so
far, a *sweep* evaluates the points one step away along each coordinate, in both
directions; when no point of a sweep improves, the step is halved. When the step falls
below ``resolution`` the run has converged and, by default, restarts from a random point.
User attrs ``psms:sweep``, ``psms:point`` and ``psms:step``. The guide:
:doc:`/pattern_search`.
"""

from __future__ import annotations

import optuna

from optuna_psms import PatternSearchSampler
from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.benchmarks.functions import shift_of
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_population


optuna.logging.set_verbosity(optuna.logging.WARNING)
rastrigin = FUNCTIONS["rastrigin"]
objective = make_objective(rastrigin, 2, shifted=True)
optimum = rastrigin.argmin(2) + shift_of(rastrigin, 2)

study = optuna.create_study(sampler=PatternSearchSampler(seed=0, budget=150))
study.optimize(objective, n_trials=150)
print(f"best {study.best_value:.3f} at {study.best_params}; optimum at {optimum.round(2)}")
steps = [t.user_attrs["psms:step"] for t in study.trials if "psms:step" in t.user_attrs]
print(f"step of the first and the last sweep: {steps[0]} -> {steps[-1]}")

# %%
# Every trial at its position, coloured by sweep: a cross of four points around each
# centre, shrinking when a sweep fails. A local method: it finds the bottom of the basin
# it starts in (here the box centre's), then restarts elsewhere.
fig = plot_population(study, params=("x0", "x1"))
fig.add_annotation(x=optimum[0], y=optimum[1], text="global minimum", arrowcolor="red")

# %%
# Sweep by sweep: the best value, and the spread of each sweep's points, which follows
# the step. Dashed lines mark restarts.
plot_generations(study)
