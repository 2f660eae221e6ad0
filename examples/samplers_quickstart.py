"""
Every sampler beside TPE
========================

Every optuna-psms sampler beside Optuna's TPE and random search, where they differ.

The shifted 4-D Rastrigin function (many local minima, global minimum 0 moved off the box
centre) with 150 trials per run and 6 seeds per sampler, through the Python API behind
``optuna-psms compare``. The table gives the median best value over the seeds, its
inter-quartile range, on how many seeds the sampler beat / tied / lost to TPE, and the
p-value of a paired Wilcoxon signed-rank test against TPE over the 6 seeds.

Run: ``python examples/samplers_quickstart.py``. The same from the shell, with an HTML
report and the studies in SQLite::

    optuna-psms compare --function rastrigin --dim 4 --seeds 6 --n-trials 150 \\
        --samplers pso,pattern,dfgs,afgs,umda,bumda,drs,random
"""

from __future__ import annotations

import optuna

from optuna_psms.compare import compare_samplers


SAMPLERS = ["pso", "pattern", "dfgs", "afgs", "umda", "bumda", "drs", "random", "tpe"]

if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    result = compare_samplers("rastrigin", SAMPLERS, dim=4, n_seeds=6, n_trials=150)
    print(f"{result.description}; 6 seeds x 150 trials per sampler (in memory)")
    print(result.format_table())
    # Each run is an ordinary Optuna study:
    best = min((s for runs in result.studies.values() for s in runs), key=lambda s: s.best_value)
    print(
        f"best run: {best.user_attrs['compare:sampler']} seed {best.user_attrs['compare:seed']}"
        f" -> {best.best_value:.4f} at {best.best_params}"
    )
