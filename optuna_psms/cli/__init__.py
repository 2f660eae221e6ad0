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
import os
import re
import sys
from typing import Any
from typing import NoReturn

from optuna_psms.cli._common import TRACEBACK_ENV
from optuna_psms.cli._common import TRACEBACK_HINT
from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn


__all__ = ["COMMANDS", "UserError", "build_parser", "main"]


def __getattr__(name: str) -> Any:
    # Dataset loading moved to the library (optuna_psms.fms.datasets); the old names stay.
    if name in ("load_csv", "load_dataset"):
        from optuna_psms.fms import datasets

        return getattr(datasets, name)
    raise AttributeError(f"module 'optuna_psms.cli' has no attribute {name!r}")


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
        self.exit(2, f"{self.prog}: error: {_choice_hint(message)} (see '{self.prog} --help')\n")


#: argparse's message for a value not among an option's ``choices`` (its values quoted up to
#: Python 3.11, not from 3.12.8).
_INVALID_CHOICE = re.compile(
    r"argument .+: invalid choice: '(?P<value>[^']*)' \(choose from (?P<choices>.*)\)"
)


def _choice_hint(message: str) -> str:
    """argparse's "invalid choice: 'svcc' (choose from 'none', 'svc')" with "; did you mean
    'svc'?" after it when a choice is close (``--task``, ``--final-check``, the command)."""
    from optuna_psms._names import did_you_mean

    match = _INVALID_CHOICE.fullmatch(message)
    if match is None:
        return message
    choices = [c.strip().strip("'") for c in match["choices"].split(",")]
    hint = did_you_mean(match["value"], choices).strip()
    return f"{message}; {hint}" if hint else message


TRACEBACK_HELP = (
    "on an error, print the Python traceback of its cause above the one-line message (to see "
    f"where it came from, or for a bug report); {TRACEBACK_ENV}=1 in the environment does the same"
)


def build_parser() -> argparse.ArgumentParser:
    """The ``optuna-psms`` argument parser with every subcommand of :data:`COMMANDS`.

    ``--traceback`` is accepted before the subcommand and by each subcommand (``optuna-psms
    select ... --traceback``); ``args.traceback`` is absent when it was not given.
    """
    from optuna_psms import __version__

    parser = _Parser(
        prog="optuna-psms",
        description="Full model selection (PSMS) with Optuna samplers.",
    )
    parser.add_argument("--version", action="version", version=f"optuna-psms {__version__}")
    parser.add_argument("--traceback", action="store_true", help=TRACEBACK_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    for command in dict.fromkeys(sub.choices.values()):
        # SUPPRESS: not given after the subcommand, it must not reset one given before it.
        command.add_argument(
            "--traceback", action="store_true", default=argparse.SUPPRESS, help=TRACEBACK_HELP
        )
    return parser


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def wants_traceback(args: argparse.Namespace) -> bool:
    """Whether ``--traceback`` was given or :data:`~optuna_psms.cli._common.TRACEBACK_ENV` is
    set to ``1``, ``true``, ``yes`` or ``on``."""
    if getattr(args, "traceback", False):
        return True
    return os.environ.get(TRACEBACK_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def print_traceback(exc: BaseException) -> None:
    """Print on stderr the traceback of what ``exc`` was converted from (its ``original``, or
    the exception being handled when it was raised ``from None``), else of ``exc`` itself."""
    import traceback

    cause = getattr(exc, "original", None)
    if cause is None and exc.__suppress_context__:
        cause = exc.__context__
    sys.stdout.flush()
    traceback.print_exception(cause if cause is not None else exc, file=sys.stderr)
    sys.stderr.flush()


def error_line(exc: BaseException, *, hint: bool = True) -> str:
    """The one line of an error; one converted from an exception of the work itself (a
    :class:`UserError` with an ``original``) ends with the ``--traceback`` hint, unless
    ``hint`` is false (the traceback is printed above it)."""
    line = f"optuna-psms: error: {_one_line(exc)}"
    if hint and getattr(exc, "original", None) is not None:
        line += f" {TRACEBACK_HINT}"
    return line


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
        stderr; with ``--traceback`` or ``OPTUNA_PSMS_TRACEBACK=1`` the traceback of its cause
        above it), 130 when interrupted.
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
        traceback = wants_traceback(args)
        if traceback:
            print_traceback(exc)
        warn(error_line(exc, hint=not traceback))
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
