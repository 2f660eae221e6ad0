"""
Comparing samplers on a dataset with optuna-psms compare
========================================================

``optuna-psms compare`` runs several samplers on several seeds, one study per sampler and
seed (named ``<name>/<sampler>/seed<k>``, side by side in the dashboard), prints per sampler
the median final value, its inter-quartile range, wins/ties/losses against a baseline (TPE
by default) on the same seeds and a paired Wilcoxon test, and writes an HTML report. With
``--dataset`` (or ``--csv FILE --target COLUMN``) the objective is full model selection:
the cross-validated balanced error rate (BER) of a whole pipeline, and every study starts,
as ``optuna-psms select`` does, from the same four textbook pipelines (``--initial-pipelines
none``: the sampler proposes every trial). Other objectives:
``--function rastrigin --dim 10``, a COCO function ``--function bbob:f7 --dim 5 --instance
1``, or your own ``--objective module:function``. The storage is any URL (SQLite,
PostgreSQL, MySQL, a journal file, Redis, gRPC); ``--resume`` runs only what is missing.

The run below is small so that the page builds fast (iris, 2 seeds x 6 trials, 2-fold CV):
too few seeds for the test, as the table says. The same from the shell::

    optuna-psms compare --dataset sklearn:iris --samplers pso --seeds 2 --n-trials 6 \\
        --storage journal:///tmp/compare.log --report compare.html

See :doc:`/compare` for a larger run.
"""

from __future__ import annotations

import os
import tempfile

import optuna

from optuna_psms.cli import main
from optuna_psms.visualization import plot_best_so_far
from optuna_psms.visualization import plot_final_values


folder = tempfile.mkdtemp()
storage = "journal://" + os.path.join(folder, "compare.log")  # journal:///tmp/.../compare.log
report = os.path.join(folder, "compare.html")
code = main(
    [
        "compare", "--dataset", "sklearn:iris", "--samplers", "pso", "--seeds", "2",
        "--n-trials", "6", "--storage", storage, "--report", report,
        "--n-workers", "1", "--no-progress-bar",
    ]
)  # fmt: skip
assert code == 0

# %%
# Every study is an ordinary Optuna study in the storage; the report's figures are these
# two, drawn from the studies (grouped by their ``compare:sampler`` attr).
from optuna_psms.storages import open_storage  # noqa: E402


journal = open_storage(storage)
studies = [
    optuna.load_study(study_name=n, storage=journal) for n in optuna.get_all_study_names(journal)
]
print([s.study_name for s in studies])
plot_best_so_far(studies, target_name="CV BER")

# %%
# The final best BER of each seed, per sampler.
plot_final_values(studies, target_name="CV BER")
