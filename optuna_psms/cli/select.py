"""``optuna-psms select``: search a full model, report honest scores, save it.

The task is ``--task`` (``auto``: regression for a continuous numeric target, see
:func:`optuna_psms.fms.target_task`). The rows are split once into search rows and held-out
rows (``--test-size``; stratified for classification, shuffled for regression);
the study sees only the search rows. The chosen pipeline's CV loss (on the search rows) and
its loss on the held-out rows are printed, then it is refitted on all rows and saved.

A ``--study-name`` that exists in ``--storage`` is joined: N processes started with the same
storage and study name are N workers of one study (one population for the population
samplers). Each runs its ``--n-trials``; the one that finishes while no other trial is
running (the last one) saves the model, and so does any worker given ``--output``. The
settings that define the search (data, task, split, space, CV, metric, sampler, seed) are stored
in the study, and a worker whose settings differ is refused with the reason. ``--n-trials``,
``--timeout``, ``--trial-timeout`` and ``--n-jobs`` are limits of each worker, not stored:
whether a trial outlives ``--trial-timeout`` depends on the machine and its load as much as
on the limit, so one shared limit would not make workers agree, and a slower machine may
need a longer one. A timed-out trial is a failed trial of the study, its reason recorded.
"""

from __future__ import annotations

import argparse
from typing import Any

from optuna_psms.cli._select_args import add_parser


def register(sub: Any) -> None:
    """Add the ``select`` subcommand to the subparsers ``sub``."""
    add_parser(sub).set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run (or join) the search, report, refit and save (imports the library on first use,
    so that ``--help`` stays fast and works without the ``fms`` extra)."""
    from optuna_psms.cli import _select_run

    return _select_run.run(args)
