"""Command line interface ``optuna-psms``: full model selection end to end.

Subcommands (one module each; a new one is a module with ``register(subparsers)`` plus
its name in :data:`COMMANDS`):

* ``select`` - search a full model on a CSV file or bundled dataset, print its CV loss on the
  search data and its loss on held-out rows, refit on all rows and save it; several
  processes with the same ``--storage`` and ``--study-name`` are workers of one study.
* ``predict`` - apply a saved model to a CSV file or dataset, write predictions as CSV.
* ``datasets`` - the bundled datasets as a table.
* ``compare`` - several samplers x seeds on one objective, a table against a baseline and an
  HTML report.

Example::

    optuna-psms select --dataset sklearn:breast_cancer --n-trials 60
    optuna-psms select --csv data.csv --target label --output model.joblib
    optuna-psms predict --model model.joblib --csv new.csv --output predictions.csv

Only the standard library is imported until a subcommand runs, so ``--help`` is fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import importlib
import sys
from typing import Any
from typing import NoReturn

from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn
from optuna_psms.cli._data import load_csv
from optuna_psms.cli._data import load_dataset


__all__ = ["COMMANDS", "UserError", "build_parser", "load_csv", "load_dataset", "main"]

#: Subcommand modules, in ``--help`` order; each has ``register(subparsers)``.
COMMANDS: tuple[str, ...] = (
    "optuna_psms.cli.select",
    "optuna_psms.cli.predict",
    "optuna_psms.cli.datasets",
    "optuna_psms.cli.compare",
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (argparse prints the whole usage first);
    the subcommands' parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``optuna-psms`` argument parser with every subcommand of :data:`COMMANDS`."""
    from optuna_psms import __version__

    parser = _Parser(
        prog="optuna-psms",
        description="Full model selection (PSMS) with Optuna samplers.",
    )
    parser.add_argument("--version", action="version", version=f"optuna-psms {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def quiet_sqlalchemy_logs() -> None:
    """Send SQLAlchemy's log records nowhere (the command line's own output is the report).

    When Ctrl-C lands inside a query, SQLAlchemy invalidates the connection and then logs
    "Error closing cursor" with two tracebacks on stderr, before the command prints its
    one-line "interrupted" message. SQLAlchemy's real errors reach the command as
    exceptions, so its log adds nothing a user of the command line needs.
    """
    import logging

    logger = logging.getLogger("sqlalchemy")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    logger.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optuna-psms`` console script.

    Args:
        argv: Arguments without the program name (default: ``sys.argv[1:]``).

    Returns:
        Exit status: 0 on success, 2 on a user mistake or missing extra (one line on
        stderr), 130 when interrupted.
    """
    from optuna_psms._extras import MissingExtraError
    from optuna_psms.storages import MissingDriverError

    parser = build_parser()
    args = parser.parse_args(argv)
    run: Any = args.run
    quiet_sqlalchemy_logs()
    try:
        return int(run(args))
    except (UserError, MissingExtraError, MissingDriverError) as exc:
        warn(f"optuna-psms: error: {_one_line(exc)}")
        return 2
    except KeyboardInterrupt:
        warn("optuna-psms: interrupted")
        return 130
    except BrokenPipeError:  # `optuna-psms predict ... | head`: the reader stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
