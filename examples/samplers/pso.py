"""
Particle swarm (PSOSampler)
===========================

:class:`~optuna_psms.PSOSampler` is the particle swarm of PSMS (Escalante, Montes & Sucar,
JMLR 2009). A swarm of ``swarm_size`` particles (default 5) flies through the unit box of
all the parameters; at each iteration every particle moves by its velocity, which is pulled
towards its own best position and the swarm's best, with an inertia that decreases over the
run. Trial ``n`` is particle ``n % swarm_size`` at iteration ``n // swarm_size`` (user attrs
``psms:particle`` and ``psms:iteration``). ``budget=`` spreads the inertia schedule over the
trials you plan to run. The guide: :doc:`/pso`.
"""

from __future__ import annotations

import optuna

from optuna_psms import PSOSampler
from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.benchmarks.functions import shift_of
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_population


optuna.logging.set_verbosity(optuna.logging.WARNING)
rastrigin = FUNCTIONS["rastrigin"]
objective = make_objective(rastrigin, 2, shifted=True)
optimum = rastrigin.argmin(2) + shift_of(rastrigin, 2)

study = optuna.create_study(sampler=PSOSampler(seed=0, budget=150))
study.optimize(objective, n_trials=150)
print(f"best {study.best_value:.3f} at {study.best_params}; optimum at {optimum.round(2)}")
last = study.trials[-1]
print(
    f"trial {last.number}: particle {last.user_attrs['psms:particle']}, "
    f"iteration {last.user_attrs['psms:iteration']}"
)

# %%
# Every trial at its position, coloured by iteration; a line per particle's path, the stars
# are the best so far. The particles start spread over the box and gather around the best
# basin as the inertia decreases.
fig = plot_population(study, params=("x0", "x1"))
fig.add_annotation(x=optimum[0], y=optimum[1], text="global minimum", arrowcolor="red")

# %%
# Iteration by iteration: the swarm's best and median value and the spread of the
# particles (mean per-parameter standard deviation in the unit box).
plot_generations(study)
