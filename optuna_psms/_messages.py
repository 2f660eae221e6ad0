"""The error a mistake in the inputs raises, and the lines said to the person running it.

Shared by full model selection and the command line, and light (no scikit-learn), so that
``optuna-psms --help`` stays fast. :class:`InputError` is what the workflow behind ``optuna-psms
select`` (datasets, the
hold-out split, the study join) raises for a mistake in its inputs: the command line reports
it in one line with exit code 2 (``optuna_psms.cli`` knows it as ``UserError``); Python code
catches it by name. :func:`say` writes one line to stderr.
"""

from __future__ import annotations

import sys


class InputError(Exception):
    """A mistake in the inputs (a file, a column, a setting): said in one line.

    Args:
        message: The line (its first line is printed).
        original: The exception it was converted from, when it came out of the work itself
            (the search, a refit, a prediction) and not out of one of the inputs' own
            checks: the command line then ends the line with a hint to rerun with
            ``--traceback``, which prints this exception's traceback.
    """

    def __init__(self, message: str, *, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.original = original


def say(line: str) -> None:
    """Print ``line`` (a warning, a note, an error or the interrupted line) to stderr, after
    flushing stdout.

    Read through a pipe (``optuna-psms select ... 2>&1 | tee log``), stdout is block-buffered
    and stderr is not: unflushed, a warning came before the stdout lines printed above it
    (the small-data caution above the scores it qualifies). Every line the commands write
    to stderr goes through here, so both streams keep the order of the prints.
    """
    sys.stdout.flush()
    print(line, file=sys.stderr, flush=True)
