"""
Estimation of distribution (UMDASampler, BUMDASampler)
======================================================

The two univariate EDAs of Rojas-Domínguez et al. (IEEE Access 2018) sample each generation
from independent Gaussians, one per parameter (in the unit box), fitted to the previous
generation:

* :class:`~optuna_psms.UMDASampler` fits the Gaussians to the best ``top_fraction`` of the
  generation;
* :class:`~optuna_psms.BUMDASampler` weights the selected members by their value
  (Boltzmann weights), so better points pull the mean more.

When the Gaussians have shrunk below ``convergence_threshold`` the run restarts. With
``budget=``, the population is ``clip(budget // 10, 10, 50)``. User attrs
``psms:generation`` and ``psms:sample``. The guide: :doc:`/eda`.
"""

from __future__ import annotations

import optuna

from optuna_psms import BUMDASampler
from optuna_psms import UMDASampler
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
for name, sampler in (("UMDA", UMDASampler), ("BUMDA", BUMDASampler)):
    studies[name] = optuna.create_study(sampler=sampler(seed=0, budget=150))
    studies[name].optimize(objective, n_trials=150)
    study = studies[name]
    generations = 1 + max(t.user_attrs["psms:generation"] for t in study.trials)
    print(
        f"{name:5s}: best {study.best_value:.3f} at {study.best_params}, {generations} generations"
    )
print(f"optimum at {optimum.round(2)}")

# %%
# UMDA, coloured by generation: each cloud is drawn from Gaussians fitted to the best
# quarter of the previous one, and contracts on a basin.
fig = plot_population(studies["UMDA"], params=("x0", "x1"))
fig.add_annotation(x=optimum[0], y=optimum[1], text="global minimum", arrowcolor="red")

# %%
# BUMDA on the same budget.
plot_population(studies["BUMDA"], params=("x0", "x1"))

# %%
# Generation by generation for BUMDA: best and median value, and the spread of the
# population, which falls as the Gaussians narrow.
plot_generations(studies["BUMDA"])
