"""Columns that look like row identifiers (IDs, names, ``1..n``): finding them and warning.

As a feature such a column can only memorise rows (or their order in the file). The rule
(:func:`identifier_columns`) is conservative; :func:`warn_identifier_columns` warns about
each flagged column in ``fit``, :func:`identifier_message` words the warning (the command
line names its ``--drop``). :func:`identifier_columns` and :data:`MIN_IDENTIFIER_ROWS`
stay importable from :mod:`optuna_psms.fms.data`, where they were.
"""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
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
    if start not in (0.0, 1.0) or float(values.max()) != start + n - 1:
        return None
    if len(np.unique(values)) != n:
        return None
    return f"the integers {start:.0f}..{start + n - 1:.0f}, one per row"


def identifier_columns(X: Any) -> list[tuple[Any, str]]:
    """The columns of the DataFrame ``X`` that look like row identifiers, with the reason.

    The rule is conservative: with at least :data:`MIN_IDENTIFIER_ROWS` rows and no missing
    value, a column is flagged when it is text (a column :class:`TabularEncoder` one-hot
    encodes) with a different value in every row, or when its values are exactly the
    integers ``0..n-1`` or ``1..n`` (``n`` rows, each once, in any order). Ordinary numeric
    columns, even with every value distinct, are never flagged, nor are text columns of
    numbers or dates (``45%``, ``2024-01-03``): those have their own warning, which says to
    convert them (:func:`~optuna_psms.fms._text_columns.text_number_columns`). Arrays (no
    column names) give an empty list.

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
