"""
Watching a run in optuna-dashboard
==================================

`optuna-dashboard <https://github.com/optuna/optuna-dashboard>`_ shows any Optuna storage in
the browser. A study made by an optuna-psms sampler needs no extra step there:

* the sampler writes, once per study, the user attrs ``psms:sampler``, ``psms:settings``
  and ``psms:seed`` (they rebuild the sampler) and a study **note** saying what the sampler
  does and how to read its per-trial ``psms:*`` attrs (a note you wrote is never replaced);
* full model selection names its objective ("CV BER" instead of "Objective 0");
* :func:`optuna_psms.visualization.publish` saves the population, generation and model
  choice figures into the study; the dashboard shows them on the study's page.
  ``optuna-psms select`` and ``optuna-psms compare`` publish every 50 trials while they run
  (``--publish-every``) and at the end; in your own loop,
  :class:`~optuna_psms.visualization.PublishCallback` does the same.

Here a small full model selection with :class:`~optuna_psms.PSOSampler` into a SQLite file,
then what the dashboard reads from it. Open it with::

    pip install optuna-dashboard
    optuna-dashboard sqlite:///psms.db      # then http://127.0.0.1:8080

.. image:: /img/dashboard/dashboard-study.png
   :alt: the study page of optuna-dashboard with the published figures
"""

# sphinx_gallery_thumbnail_path = 'img/dashboard/dashboard-study.png'

from __future__ import annotations

import os
import tempfile

import optuna
from optuna_dashboard import get_note
from sklearn.datasets import load_breast_cancer

from optuna_psms import FullModelSelector
from optuna_psms import FullModelSpace
from optuna_psms import make_objective
from optuna_psms import PSOSampler
from optuna_psms.visualization import publish
from optuna_psms.visualization import PublishCallback


optuna.logging.set_verbosity(optuna.logging.WARNING)
folder = tempfile.mkdtemp()
url = f"sqlite:///{os.path.join(folder, 'psms.db')}"
X, y = load_breast_cancer(return_X_y=True)
# A small space, so that the page builds in seconds.
space = FullModelSpace(classifiers=["naive_bayes", "logistic"], selectors=["ftest", "s2n", "pca"])
model = FullModelSelector(
    space=space,
    sampler=PSOSampler(seed=0),
    n_trials=8,
    storage=url,
    study_name="breast-cancer",
    random_state=0,
).fit(X[:200], y[:200])
study = optuna.load_study(study_name="breast-cancer", storage=url)
print("objective:", study.metric_names)
print("sampler attrs:", {k: v for k, v in study.user_attrs.items() if k.startswith("psms:")})

# %%
# The note, as the dashboard's *Note* tab shows it:
print(get_note(study))

# %%
# .. image:: /img/dashboard/dashboard-note.png
#    :alt: the study note written by PSOSampler
#
# Publishing the figures (what ``optuna-psms select`` does at the end) returns their ids;
# running it again replaces them.
print(publish(study))

# %%
# While a study runs, :class:`~optuna_psms.visualization.PublishCallback` publishes every
# ``every`` trials (at most every ``min_interval`` seconds; with several workers, only the
# one that finishes trial ``k * every - 1`` publishes). A failure to publish is one warning;
# the study goes on.
# Here the same search goes on for 6 more trials, publishing after trials 8 and 11:
objective = make_objective(X[:200], y[:200], space=space, random_state=0)
study = optuna.load_study(study_name="breast-cancer", storage=url, sampler=PSOSampler(seed=0))
callback = PublishCallback(every=3, min_interval=0)
study.optimize(objective, n_trials=6, callbacks=[callback])
print("published after trials", callback.published)

# %%
# Each trial carries the sampler's attrs (here the particle and iteration of PSO), shown in
# the dashboard's *Trials* tab:
#
# .. image:: /img/dashboard/dashboard-trials.png
#    :alt: the trial list with the psms attrs
#
# The screenshots are made by ``python docs/screenshots.py`` with headless Chromium, on a
# 12-trial ``optuna-psms select`` study.
print({k: v for k, v in study.trials[6].user_attrs.items() if k.startswith("psms:")})
