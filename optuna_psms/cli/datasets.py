"""``optuna-psms datasets [WORD]``: the bundled datasets as a table."""

from __future__ import annotations

import argparse
from typing import Any

from optuna_psms.cli._common import require_fms


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
    require_fms()
    from optuna_psms.fms.datasets import dataset_table

    every = dataset_table()
    rows = every
    if args.word:
        rows = [r for r in every if args.word.lower() in r[0].lower()]
    if not rows:
        # An empty listing, not a mistake: exit 0 as listers with a filter do (apt-cache
        # search, git branch --list); the exit status 1 it had is none this CLI documents.
        print(_nothing_matched(args.word, [r[0] for r in every]))
        return 0
    width = max(len(r[0]) for r in rows)
    print(f"{'name':<{width}}  {'samples':>7}  {'features':>8}  {'classes':>10}")
    for name, n, d, k in rows:
        print(f"{name:<{width}}  {n:>7}  {d:>8}  {k:>10}")
    if len(rows) == 1:
        print(f"1 dataset; use it as --dataset {rows[0][0]}")
    else:
        print(f"{len(rows)} datasets; use them as --dataset NAME")
    return 0


def _nothing_matched(word: str, names: list[str]) -> str:
    """``no dataset name contains 'hart' (did you mean keel:heart?); ...``: the line for a
    WORD that no name contains, with the closest name when one is close (a typo)."""
    from optuna_psms._names import close_name

    short = {name.split(":", 1)[-1]: name for name in names}
    close = close_name(word, list(short))
    hint = f" (did you mean {short[close]}?)" if close is not None else ""
    return (
        f"no dataset name contains {word!r}{hint}; 'optuna-psms datasets' lists all {len(names)}"
    )
