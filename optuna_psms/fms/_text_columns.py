"""Text columns that hold numbers or dates (``"45%"``, ``"$1,200"``, ``"2024-01-03"``).

:class:`~optuna_psms.fms.TabularEncoder` reads a column of plain numbers written as text
(``"3.5"``) as numbers, but one-hot encodes any other text column: numbers written with a
unit or a symbol, or dates, become categories, and a value the training rows never had
(a later date) encodes to the infrequent or to no category. Nothing about the encoding
changes here: :func:`text_number_columns` finds such columns (conservatively) and
:func:`warn_text_number_columns` says so before the search, one ``UserWarning`` per column,
as :mod:`optuna_psms.fms._identifiers` does for row identifiers; the command line prints
:func:`text_number_message` as a ``warning:`` line.
"""

from __future__ import annotations

import re
from typing import Any
import warnings

import pandas as pd


#: A text column with fewer distinct values (missing cells aside) is never flagged: ``{'1',
#: '2'}`` or ``{'1%', '5%'}`` may be codes kept as text on purpose.
MIN_DISTINCT_TEXT_VALUES = 5

#: The share of a column's distinct values that must read as numbers (or dates) for it to
#: be flagged: a stray ``'?'`` or ``'unknown'`` among them does not hide it.
TEXT_NUMBER_SHARE = 0.9

#: At most this many distinct values of a column are read (the first ones, in row order).
_MAX_DISTINCT_READ = 1000

# A number as a person writes it: an optional sign and currency symbol, digits with or
# without thousands separators (groups of three after commas), a decimal part, an exponent,
# then an optional '%' or unit word ("kg", "km/h", "°C", "m2"). Groups: the currency, the
# number, the suffix.
_NUMBER = re.compile(
    r"""^[-+]?\s*([$€£¥₹]?)\s*[-+]?
    ((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)
    \s*(%|[°µ]?[^\W\d_]+(?:/[^\W\d_]+)?[23²³]?)?$""",
    re.VERBOSE,
)

# An ISO-like date, optionally with a time ("2024-01-03", "2024-01-03 10:30:00",
# "2024-01-03T10:30Z", "2024/01/03"); the day and month are checked by pandas.
_DATE = re.compile(
    r"^\d{4}([-/])\d{1,2}\1\d{1,2}"
    r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?)?$"
)


def _as_number(value: str) -> tuple[str, str] | None:
    """``(currency, suffix)`` of ``value`` when it reads as a number, else ``None``."""
    match = _NUMBER.match(value)
    if match is None:
        return None
    return match.group(1), (match.group(3) or "").lower()


def _dates(texts: list[str]) -> list[str]:
    """The ``texts`` that read as dates (the regex, then pandas for the day and month)."""
    shaped = [text for text in texts if _DATE.match(text) is not None]
    if not shaped:
        return []
    days = pd.to_datetime(
        pd.Series([text.replace("/", "-") for text in shaped], dtype=object),
        format="ISO8601",
        errors="coerce",
    )
    return [text for text, day in zip(shaped, days.isna(), strict=True) if not day]


def _text_kind(col: pd.Series) -> tuple[str, str, str | None] | None:
    """``(kind, example, odd)`` when the text column ``col`` holds numbers or dates (kind
    ``"numbers"`` or ``"dates"``; ``odd`` a value that is not a number when the numbers are
    plain ones), else ``None``."""
    try:
        distinct = list(dict.fromkeys(col.dropna().tolist()))[:_MAX_DISTINCT_READ]
    except TypeError:  # unhashable cells (lists, dicts): not text
        return None
    texts = [value.strip() for value in distinct if isinstance(value, str)]
    texts = [text for text in texts if text]
    if len(texts) < MIN_DISTINCT_TEXT_VALUES or len(texts) < TEXT_NUMBER_SHARE * len(distinct):
        return None
    needed = TEXT_NUMBER_SHARE * len(texts)
    dates = _dates(texts)
    if len(dates) >= needed:
        return "dates", dates[0], None
    numbers = [(text, parsed) for text in texts if (parsed := _as_number(text)) is not None]
    # One way of writing them: "1A", "2B", "3C" are codes, not numbers in a unit, so the
    # values with a currency or suffix must all have the same one (plain ones go with any).
    written = {parsed for _, parsed in numbers if parsed != ("", "")}
    if len(numbers) < needed or len(written) > 1:
        return None
    decorated = [text for text, parsed in numbers if parsed != ("", "")]
    if decorated:
        return "numbers", decorated[0], None
    # Plain numbers and a few other values (e.g. '?' for a missing one): those are why the
    # column is text, and the message names one.
    read = {text for text, _ in numbers}
    odd = [text for text in texts if text not in read] + [
        value for value in distinct if not isinstance(value, str) or not value.strip()
    ]
    return "numbers", numbers[0][0], str(odd[0]) if odd else None


def _is_text_dtype(dtype: Any) -> bool:
    """Whether a column of ``dtype`` can hold text (object or string dtype)."""
    return bool(pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype))


def text_number_columns(X: Any) -> list[tuple[Any, str, str, str | None]]:
    """The text columns of the DataFrame ``X`` that hold numbers or dates written as text.

    Only the columns :class:`~optuna_psms.fms.TabularEncoder` one-hot encodes are looked
    at (text, not plain numbers written as text, which it reads as numbers). Such a column
    is flagged when it has at least :data:`MIN_DISTINCT_TEXT_VALUES` distinct values and at
    least :data:`TEXT_NUMBER_SHARE` of them read, after stripping surrounding spaces, as

    - dates: ``YYYY-MM-DD`` (or ``YYYY/MM/DD``), optionally with a time; or
    - numbers: an optional sign and currency symbol (``$ € £ ¥ ₹``), digits with optional
      thousands separators (``1,200``), decimals and exponent, then an optional ``%`` or
      unit word (``kg``, ``km/h``); every value with a symbol or unit has the same one, so
      codes such as ``1A, 2B, 3C`` are not flagged. A column of plain numbers is text
      only because of its other values (``'?'``), and the result names one.

    Words (``Paris``, ``yes``), codes (``A1``) and free text are never flagged, nor are
    numeric, boolean or categorical-dtype columns. Arrays (no column names) give an empty
    list.

    Args:
        X: The training input.

    Returns:
        ``(column name, kind, example, odd)`` in column order: ``kind`` is ``"numbers"`` or
        ``"dates"``, ``example`` one of the column's values, and ``odd`` one that is not a
        number when the numbers are plain ones (``None`` otherwise).
    """
    if not isinstance(X, pd.DataFrame):
        return []
    found: list[tuple[Any, str, str, str | None]] = []
    # Only text columns can be flagged: the dtypes first, so a wide numeric table (10,000
    # columns are common here) costs no per-column slicing.
    for i, dtype in enumerate(X.dtypes):
        if not _is_text_dtype(dtype):
            continue
        kind = text_number_kind(X.iloc[:, i])
        if kind is not None:
            found.append((X.columns[i], *kind))
    return found


def text_number_kind(col: pd.Series) -> tuple[str, str, str | None] | None:
    """``(kind, example, odd)`` of :func:`text_number_columns` for the column ``col``, or
    ``None`` when it is not flagged."""
    if not _is_text_dtype(col.dtype):
        return None
    from optuna_psms.fms.data import _numeric_column  # data.py imports the package

    if _numeric_column(col) is not None:  # read as numbers already
        return None
    return _text_kind(col)


def text_number_message(name: Any, kind: str, example: str, odd: str | None = None) -> str:
    """The warning about a column of numbers or dates written as text (see
    :func:`text_number_columns`).

    Args:
        name: The column name.
        kind: ``"numbers"`` or ``"dates"``.
        example: One of its values.
        odd: One of its values that is not a number, if that is why it is text.
    """
    remedy = "convert it to numbers first"
    if kind == "dates":
        remedy += ", e.g. the year and month or the days since a reference date"
    return (
        f"column {name!r} holds {kind} written as text (e.g. {example!r}"
        f"{'' if odd is None else f'; not a number: {odd!r}'}); it is encoded as "
        f"categories: {remedy}"
    )


def warn_text_number_columns(X: Any, *, stacklevel: int = 2) -> None:
    """A ``UserWarning`` per column of ``X`` that :func:`text_number_columns` flags.

    Args:
        X: The training input.
        stacklevel: Of the warnings, counted from the caller of this function.
    """
    for found in text_number_columns(X):
        warnings.warn(text_number_message(*found), UserWarning, stacklevel=stacklevel + 1)
