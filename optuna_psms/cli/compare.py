"""``optuna-psms compare``: several samplers x seeds on one objective.

The command itself lives in :mod:`optuna_psms.compare`.
"""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand to the subparsers ``sub``."""
    from optuna_psms.compare import _cli

    _cli.add_parser(sub).set_defaults(run=_cli.run)
