"""
Random search with dynamic updating (DynamicRandomSampler)
==========================================================

:class:`~optuna_psms.DynamicRandomSampler` is the RSDU algorithm of Milletich & Asmar:
random search in *batches* (40 points by default). After each batch, every numeric range
shrinks to the span of the best half of the batch, and each two-choice flag (a feature on
or off) is drawn with its frequency in that half, muted for the rest of the run below the
``muting_threshold``. User attrs ``psms:batch`` and ``psms:sample``. With ``budget=``, the
run has 5 batches. The guide: :doc:`/dynamic_random`.
"""

from __future__ import annotations

import optuna

from optuna_psms import DynamicRandomSampler
from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.benchmarks.functions import shift_of
from optuna_psms.visualization import plot_generations
from optuna_psms.visualization import plot_population


optuna.logging.set_verbosity(optuna.logging.WARNING)
rastrigin = FUNCTIONS["rastrigin"]
objective = make_objective(rastrigin, 2, shifted=True)
optimum = rastrigin.argmin(2) + shift_of(rastrigin, 2)

study = optuna.create_study(sampler=DynamicRandomSampler(seed=0, budget=150))
study.optimize(objective, n_trials=150)
print(f"best {study.best_value:.3f} at {study.best_params}; optimum at {optimum.round(2)}")
batches = 1 + max(t.user_attrs["psms:batch"] for t in study.trials)
print(f"{batches} batches of {150 // batches} points")

# %%
# Every trial at its position, coloured by batch: the first batch covers the box, each
# next one the bounding box of the best half of the previous one.
fig = plot_population(study, params=("x0", "x1"))
fig.add_annotation(x=optimum[0], y=optimum[1], text="global minimum", arrowcolor="red")

# %%
# Batch by batch: best and median value, and the spread of each batch.
plot_generations(study)
