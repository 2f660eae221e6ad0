"""``optuna-psms datasets [WORD]``: the bundled datasets as a table."""

from __future__ import annotations

import argparse
from typing import Any

from optuna_psms.cli._data import dataset_table


def register(sub: Any) -> None:
    """Add the ``datasets`` subcommand to the subparsers ``sub``."""
    parser = sub.add_parser(
        "datasets",
        help="list the bundled datasets (name, samples, features, classes)",
        description="List the bundled datasets: name, samples, features, classes "
        "('regression' for a continuous target).",
    )
    parser.add_argument(
        "word", nargs="?", default=None, help="show only names containing WORD (any case)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the table, filtered by ``args.word``."""
    rows = dataset_table()
    if args.word:
        rows = [r for r in rows if args.word.lower() in r[0].lower()]
    if not rows:
        print(f"no dataset name contains {args.word!r}")
        return 1
    width = max(len(r[0]) for r in rows)
    print(f"{'name':<{width}}  {'samples':>7}  {'features':>8}  {'classes':>10}")
    for name, n, d, k in rows:
        print(f"{name:<{width}}  {n:>7}  {d:>8}  {k:>10}")
    if len(rows) == 1:
        print(f"1 dataset; use it as --dataset {rows[0][0]}")
    else:
        print(f"{len(rows)} datasets; use them as --dataset NAME")
    return 0
