"""Benchmarks: the nine test functions of the meta-optimisation paper and runnable scripts.

Scripts (run with ``python -m``):

* ``optuna_psms.benchmarks.overhead``: sampler milliseconds per trial with an instant
  objective, in memory and on SQLite, beside Optuna's ``RandomSampler``;
* ``optuna_psms.benchmarks.nine_functions``: median best value over seeds on the nine
  functions for every sampler of the package and Optuna's random, TPE and CMA-ES samplers;
* ``optuna_psms.benchmarks.bbob``: COCO's BBOB suite, every sampler against Optuna's
  (``--workers-sim 1 4 16``: as that many asynchronous workers, simulated by
  ``optuna_psms.benchmarks.parallel``);
* ``optuna_psms.benchmarks.scale``: many workers on one storage.

The scripts that reproduce the papers' experiments live in ``docs/reproduce/``, outside the
package.
"""

from optuna_psms.benchmarks.functions import FUNCTIONS
from optuna_psms.benchmarks.functions import make_objective
from optuna_psms.benchmarks.functions import TestFunction


__all__ = ["FUNCTIONS", "TestFunction", "make_objective"]
