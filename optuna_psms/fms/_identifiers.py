"""Columns that look like row identifiers (IDs, names, ``1..n``): finding them and warning.

As a feature such a column can only memorise rows (or their order in the file). The rule
(:func:`identifier_columns`) is conservative; :func:`warn_identifier_columns` warns about
each flagged column in ``fit``, :func:`identifier_message` words the warning (the command
line names its ``--drop``). :func:`identifier_columns` and :data:`MIN_IDENTIFIER_ROWS`
stay importable from :mod:`optuna_psms.fms.data`, where they were.
"""

from __future__ import annotations

import re
from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import pandas as pd


#: A table with fewer rows never has a column that looks like a row identifier
#: (:func:`identifier_columns`): a few distinct names in a small table are no evidence.
MIN_IDENTIFIER_ROWS = 20


def _identifier_reason(col: pd.Series) -> str | None:
    """Why the column ``col`` looks like a row identifier, or ``None``."""
    n = len(col)
    if n < MIN_IDENTIFIER_ROWS or bool(col.isna().any()):
        return None
    if pd.api.types.is_bool_dtype(col):
        return None
    from optuna_psms.fms.data import _numeric_column  # data.py imports this module

    numeric = _numeric_column(col)
    if numeric is None:
        try:
            distinct = int(col.nunique())
        except TypeError:  # unhashable cells (lists, dicts): not an identifier
            return None
        return f"a different value in each of the {n} rows" if distinct == n else None
    values = numeric.to_numpy(dtype=np.float64)
    if not np.isfinite(values).all() or not bool((values == np.round(values)).all()):
        return None
    start = float(values.min())
    distinct = len(np.unique(values))
    if start in (0.0, 1.0) and float(values.max()) == start + n - 1 and distinct == n:
        return f"the integers {start:.0f}..{start + n - 1:.0f}, one per row"
    return _nearly_unique_integers(col, values, distinct)


#: Share of distinct values from which an integer column may be a row identifier, and the
#: rows from which that rule applies (40 distinct counts in 40 rows are weak evidence).
NEARLY_UNIQUE = 0.9
NEARLY_UNIQUE_MIN_ROWS = 100
_ID_NAME = re.compile(r"(^|[^a-z])(id|key|no|nr|num|number|code|index|idx)$|^id", re.IGNORECASE)


def _nearly_unique_integers(
    col: pd.Series, values: NDArray[np.float64], distinct: int
) -> str | None:
    """An integer column with a value nearly unique per row (at least :data:`NEARLY_UNIQUE`
    of the rows; e.g. 488 distinct in 524 rows, a patient seen twice) that is named like an
    identifier (``id``, ``patient_id``, ``key``, ``code``, ``no`` ...) or fills its range as a
    counter does (the range at most 1.25 times the distinct values)."""
    n = len(values)
    if n < NEARLY_UNIQUE_MIN_ROWS or distinct < NEARLY_UNIQUE * n:
        return None
    span = float(values.max()) - float(values.min()) + 1
    named = bool(_ID_NAME.search(str(col.name))) if col.name is not None else False
    if not named and span > 1.25 * distinct:
        return None
    how = (
        "named like an identifier" if named else f"filling {values.min():.0f}..{values.max():.0f}"
    )
    return f"integers with {distinct} distinct values in {n} rows, {how}"


def identifier_columns(X: Any) -> list[tuple[Any, str]]:
    """The columns of the DataFrame ``X`` that look like row identifiers, with the reason.

    The rule is conservative: with at least :data:`MIN_IDENTIFIER_ROWS` rows and no missing
    value, a column is flagged when it is text (a column :class:`TabularEncoder` one-hot
    encodes) with a different value in every row, or when its values are exactly the
    integers ``0..n-1`` or ``1..n`` (``n`` rows, each once, in any order), or when it holds
    integers with at least 90 % distinct values in 100 rows or more and is named like an
    identifier (``id``, ``patient_id``, ``code``, ``no`` ...) or fills its range as a counter
    does (e.g. 488 distinct values in 524 rows). Other numeric columns, even with every
    value distinct (measurements with decimals, amounts spread over a wide range), are not
    flagged, nor
    are text columns of numbers or dates (``45%``, ``2024-01-03``): those have their own
    warning, which says to convert them
    (:func:`~optuna_psms.fms._text_columns.text_number_columns`). Arrays (no column names)
    give an empty list.

    Args:
        X: The training input.

    Returns:
        ``(column name, reason)`` pairs, in column order.
    """
    if not isinstance(X, pd.DataFrame) or len(X) < MIN_IDENTIFIER_ROWS:
        return []
    n = len(X)
    dtypes = list(X.dtypes)
    numeric = [
        i
        for i, dtype in enumerate(dtypes)
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    ]
    # Numeric columns, all at once (10,000 of them are common here): only those whose
    # minimum is 0 or 1 and maximum n - 1 more (NaN fails both) can be 0..n-1 or 1..n.
    others = sorted(set(range(len(dtypes))) - set(numeric))
    if numeric:
        block = X.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        low, high = block.min(axis=0), block.max(axis=0)
        possible = ((low == 0.0) | (low == 1.0)) & (high == low + n - 1)
        with np.errstate(invalid="ignore"):  # whole numbers spanning 90 % of the rows or more
            whole = np.isfinite(block).all(axis=0) & (block == np.round(block)).all(axis=0)
        possible |= whole & (high - low + 1 >= NEARLY_UNIQUE * n)
        others += [i for i, keep in zip(numeric, possible, strict=True) if keep]
    from optuna_psms.fms._text_columns import text_number_kind

    found: list[tuple[Any, str]] = []
    for i in sorted(others):
        col = X.iloc[:, i]
        reason = _identifier_reason(col)
        # Dates, one per row, are no identifier to drop but a feature to convert.
        if reason is not None and text_number_kind(col) is None:
            found.append((X.columns[i], reason))
    return found


def identifier_message(name: Any, reason: str, remedy: str) -> str:
    """The warning about an identifier-like column (see :func:`identifier_columns`).

    Args:
        name: The column name.
        reason: Why it looks like an identifier.
        remedy: How to drop it, e.g. ``"--drop id"`` or ``"X.drop(columns=['id'])"``.
    """
    return (
        f"column {name!r} looks like a row identifier ({reason}); as a feature it can only "
        f"memorise rows (or their order in the file): drop it with {remedy}"
    )


def warn_identifier_columns(X: Any, *, stacklevel: int = 2) -> None:
    """A ``UserWarning`` per column of ``X`` that :func:`identifier_columns` flags, naming
    the column and the way to drop it (``X.drop(columns=[...])``).

    Args:
        X: The training input.
        stacklevel: Of the warnings, counted from the caller of this function.
    """
    for name, reason in identifier_columns(X):
        warnings.warn(
            identifier_message(name, reason, f"X.drop(columns=[{name!r}])"),
            UserWarning,
            stacklevel=stacklevel + 1,
        )
