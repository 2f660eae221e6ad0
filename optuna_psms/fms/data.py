"""Input validation and encoding for full model selection.

Full model selection accepts numpy arrays and pandas DataFrames with numeric, boolean,
categorical or string columns, missing values and labels of any type. Everything is turned
into a dense ``float64`` design matrix by :class:`TabularEncoder` (median imputation for
numeric columns, one-hot encoding for the others) and into integer labels ``0..K-1`` by
:func:`encode_labels`. The encoder is unsupervised (it never sees the labels); it is fitted
once on the whole training input so that every trial and every fold sees the same columns.

The kinds of column the data can hold are read here too: row identifiers (warned about and
best dropped) and numbers or dates written as text (parsed when the column is nearly all
of them).
"""

from __future__ import annotations

import re
from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.base import TransformerMixin
from sklearn.preprocessing import OneHotEncoder

from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import encode_labels as _encode_labels
from optuna_psms.fms._validation import label_array
from optuna_psms.fms._validation import record_features
from optuna_psms.fms._validation import user_stacklevel


# ---- Columns that look like row identifiers (IDs, names, ``1..n``): finding them and warning.

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
    (:func:`~optuna_psms.fms.data.text_number_columns`). Arrays (no column names)
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


# ---- Text columns that hold numbers or dates (``"45%"``, ``"$1,200"``, ``"2024-01-03"``).

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


#: Categorical columns keep at most this many one-hot columns (rarer values are grouped).
MAX_CATEGORIES = 32


def _as_frame(X: Any) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame()
    arr = np.asarray(X)
    if arr.ndim == 1:
        raise ValueError(
            f"X must be 2-dimensional (n_samples, n_features); got a 1-d array of shape "
            f"{arr.shape}. Reshape it with X.reshape(-1, 1) for a single feature."
        )
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional; got an array of shape {arr.shape}.")
    return pd.DataFrame(arr)


def _numeric_column(col: pd.Series) -> pd.Series | None:
    """Return ``col`` as floats when it is numeric (or numeric text), else ``None``."""
    if pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
        return col.astype("float64")
    if isinstance(col.dtype, pd.CategoricalDtype):
        return None
    converted = pd.to_numeric(col, errors="coerce")
    # Object column of numbers (e.g. a numpy object array): numeric if nothing but the
    # originally-missing cells failed to convert.
    if bool((converted.isna() == col.isna()).all()) and bool(col.notna().any()):
        return converted.astype("float64")
    return None


class TabularEncoder(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Turn a table of mixed columns into a dense float matrix.

    Numeric and boolean columns are kept (missing values replaced by the column median seen
    in :meth:`fit`, or 0 when the column was entirely missing). Any other column (strings,
    categories, mixed objects) is one-hot encoded; a missing value is its own category and
    values unseen in :meth:`fit` encode to all zeros. Infinite values raise ``ValueError``.

    Fitted on a DataFrame with string column names, it records ``feature_names_in_`` and
    :meth:`transform` takes the columns by name (any order; a missing one raises
    ``ValueError``, extra ones warn); otherwise the columns are taken by position and their
    number must match ``n_features_in_``. Duplicate column names are refused.

    Example:

        .. testcode::

            import pandas as pd
            from optuna_psms.fms import TabularEncoder

            X = pd.DataFrame({"age": [30, None, 50], "city": ["a", "b", "a"]})
            Xt = TabularEncoder().fit_transform(X)
            assert Xt.shape == (3, 3)
    """

    def fit(self, X: Any, y: Any = None) -> TabularEncoder:
        frame = _as_frame(X)
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise ValueError(f"X is empty (shape {frame.shape}); need samples and features.")
        record_features(self, X)
        self.columns_: list[Any] = list(frame.columns)
        numeric: list[int] = []
        categorical: list[int] = []
        medians: list[float] = []
        empty: list[int] = []
        for i, name in enumerate(self.columns_):
            col = _numeric_column(frame.iloc[:, i])
            if col is None:
                categorical.append(i)
                continue
            values = col.to_numpy(dtype=np.float64)
            if np.isinf(values).any():
                raise ValueError(f"X contains infinite values in column {name!r}.")
            numeric.append(i)
            finite = values[~np.isnan(values)]
            medians.append(float(np.median(finite)) if finite.size else 0.0)
            if not finite.size:
                empty.append(i)
        self.numeric_columns_ = numeric
        self.empty_columns_ = empty
        self.categorical_columns_ = categorical
        self.medians_ = np.asarray(medians, dtype=np.float64)
        self.onehot_: OneHotEncoder | None = None
        names = [str(self.columns_[i]) for i in numeric]
        if categorical:
            cats = self._categorical_block(frame)
            self.onehot_ = OneHotEncoder(
                handle_unknown="infrequent_if_exist",
                max_categories=MAX_CATEGORIES,
                sparse_output=False,
                dtype=np.float64,
            ).fit(cats)
            names += [str(n) for n in self.onehot_.get_feature_names_out()]
        self.feature_names_out_ = np.asarray(names, dtype=object)
        return self

    def _categorical_block(self, frame: pd.DataFrame) -> NDArray[Any]:
        block = frame.iloc[:, self.categorical_columns_].astype(object)
        block = block.where(block.notna(), "<missing>")
        values = np.asarray(block.astype(str).to_numpy(), dtype=object)
        onehot = getattr(self, "onehot_", None)
        if onehot is None:  # in fit: the categories are what the values are
            return values
        # A category written as a whole number ("2" of the values 2, 4, 5more) arrives as a
        # float (2.0) from a CSV file whose column has an empty cell and no text: pandas then
        # reads the column as floats. Read as the category it names, not as an unseen "2.0"
        # (a new user's trial, 26 Nov 2026: KEEL's car data, one empty cell in new rows).
        raw = block.to_numpy(dtype=object)
        for j, categories in enumerate(onehot.categories_):
            known = set(categories.tolist())
            for r in np.flatnonzero([v not in known for v in values[:, j]]):
                v = raw[r, j]
                if isinstance(v, float | np.floating) and float(v).is_integer():
                    whole = str(int(v))
                    if whole in known:
                        values[r, j] = whole
        return values

    def transform(self, X: Any) -> NDArray[np.float64]:
        frame = _as_frame(check_features(self, X))
        parts: list[NDArray[np.float64]] = []
        if self.numeric_columns_:
            num = np.empty((frame.shape[0], len(self.numeric_columns_)), dtype=np.float64)
            for j, i in enumerate(self.numeric_columns_):
                col = pd.to_numeric(frame.iloc[:, i], errors="coerce")
                num[:, j] = col.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isinf(num).any():
                raise ValueError("X contains infinite values.")
            nan_rows, nan_cols = np.nonzero(np.isnan(num))
            num[nan_rows, nan_cols] = self.medians_[nan_cols]
            parts.append(num)
        if self.onehot_ is not None:
            parts.append(np.asarray(self.onehot_.transform(self._categorical_block(frame))))
        return np.hstack(parts) if len(parts) > 1 else parts[0]

    def get_feature_names_out(self, input_features: Any = None) -> NDArray[Any]:
        return np.asarray(self.feature_names_out_)

    def unexpected_values(self, X: Any) -> list[str]:
        """Describe the values of ``X`` that :meth:`transform` reads other than as written.

        :meth:`transform` never fails on them, which is right inside a cross-validation
        but silent when a model is applied to new rows; ``optuna-psms predict`` prints these
        lines as warnings.

        Args:
            X: Rows to transform (columns checked as in :meth:`transform`).

        Returns:
            One line per column with such values: text in a numeric column (taken as missing,
            so replaced by the column's median from :meth:`fit`), a numeric column empty in
            every row (of at least two, when it had values in :meth:`fit`: a column lost on
            the way, more likely than a row's missing value), or a category not seen in
            :meth:`fit` (encoded as none of the known categories, or as the infrequent ones
            when the column has them). Empty when there is none.

        Raises:
            ValueError: ``X`` lacks a column of the fit (as :meth:`transform`).
        """
        frame = _as_frame(check_features(self, X))
        lines: list[str] = []
        # Models pickled before empty_columns_ existed: every column had a value in fit.
        empty_in_fit = set(getattr(self, "empty_columns_", []))
        for j, i in enumerate(self.numeric_columns_):
            raw = frame.iloc[:, i]
            bad = raw[pd.to_numeric(raw, errors="coerce").isna() & raw.notna()]
            if len(raw) >= 2 and raw.isna().all() and i not in empty_in_fit:
                lines.append(
                    f"column {self.columns_[i]!r}: empty in all {len(raw)} rows, taken as "
                    f"missing (replaced by the training median {self.medians_[j]:.6g})"
                )
            elif len(bad):
                lines.append(
                    f"column {self.columns_[i]!r}: {len(bad)} value(s) that are not numbers "
                    f"(e.g. {bad.iloc[0]!r}), taken as missing (replaced by the training "
                    f"median {self.medians_[j]:.6g})"
                )
        if self.onehot_ is not None:
            block = self._categorical_block(frame)
            for j, i in enumerate(self.categorical_columns_):
                known = set(self.onehot_.categories_[j].tolist())
                unseen = [v for v in block[:, j] if v not in known]
                if not unseen:
                    continue
                # "<missing>": an empty cell, or a mark pandas reads as missing ('n/a', 'NA').
                missing = "a missing value: an empty cell or a mark such as 'n/a'"
                example = missing if unseen[0] == "<missing>" else repr(unseen[0])
                infrequent = self.onehot_.infrequent_categories_[j] is not None
                how = "the infrequent categories" if infrequent else "none of the known ones"
                lines.append(
                    f"column {self.columns_[i]!r}: {len(unseen)} value(s) not seen in "
                    f"training (e.g. {example}), encoded as {how}"
                )
        return lines


def warn_unexpected_values(model: Any, X: Any, *, stacklevel: int = 2) -> None:
    """Warn once per column of ``X`` that ``model``'s encoder reads other than as written.

    The lines are those of :meth:`TabularEncoder.unexpected_values` (text in a numeric
    column, a category not seen in training), each a ``UserWarning``. Nothing happens for a
    model without an ``encoder`` step in ``best_pipeline_``, or for data the encoder cannot
    take (the prediction's own error then says why).

    Args:
        model: A fitted :class:`~optuna_psms.fms.FullModelSelector` or
            :class:`~optuna_psms.fms.FullModelRegressor`.
        X: The rows about to be predicted, with the training columns.
        stacklevel: Of the warnings, counted from the caller of this function, when no
            method such as ``predict`` is on the stack (else the line calling it).
    """
    steps = getattr(getattr(model, "best_pipeline_", None), "named_steps", {})
    encoder: Any = steps.get("encoder") if hasattr(steps, "get") else None
    if encoder is None or not hasattr(encoder, "unexpected_values"):
        return
    try:
        lines = encoder.unexpected_values(X)
    except ValueError:
        return
    for line in lines:
        warnings.warn(line, UserWarning, stacklevel=user_stacklevel(stacklevel + 1))


def encode_labels(y: Any) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Encode labels of any type as ``0..K-1``.

    Args:
        y: Array-like of labels (numbers, strings, booleans, mixed types, ...).

    The search and the scripts of :func:`~optuna_psms.fms.export_python` number classes
    with it: one numpy dtype keeps ``np.unique``'s order; labels of mixed types stay
    objects, numbers first, and ``True`` is not merged with ``1``.

    Returns:
        The encoded labels and the array of classes (``classes[codes] == y``); the classes
        are the original label objects, never their string forms.

    Example:

        .. testcode::

            from optuna_psms.fms import encode_labels

            codes, classes = encode_labels(["a", 1, True, 1])
            print(codes.tolist(), classes.tolist())

        .. testoutput::

            [2, 0, 1, 0] [1, True, 'a']
    """
    return _encode_labels(y)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (so messages read ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def check_classification_data(
    X: Any, y: Any, *, cv: int
) -> tuple[TabularEncoder, NDArray[np.float64], NDArray[np.int64], NDArray[Any]]:
    """Validate ``X``/``y`` for k-fold full model selection and encode them.

    Args:
        X: Feature table (numpy array or pandas DataFrame).
        y: Labels of any type.
        cv: Number of stratified folds that will be used.

    Returns:
        ``(encoder, X_encoded, y_codes, classes)``.

    Raises:
        ValueError: On empty input, a length mismatch, infinite values, a single class, or
            a class with fewer samples than ``cv``.
    """
    if not isinstance(cv, int | np.integer) or isinstance(cv, bool) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2; got {cv!r}.")
    n_x = len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]
    y_arr = label_array(y)
    n_y = y_arr.shape[0] if y_arr.ndim else 0
    if n_x == 0 or n_y == 0:
        raise ValueError("X and y must not be empty.")
    if n_x != n_y:
        raise ValueError(f"X and y have different lengths: {n_x} samples in X, {n_y} in y.")
    encoder = TabularEncoder().fit(X)
    Xt = encoder.transform(X)
    codes, classes = encode_labels(y_arr)
    if classes.size < 2:
        raise ValueError(
            f"y has a single class ({_plain(classes[0])!r}); classification needs at least two."
        )
    counts = np.bincount(codes)
    smallest = int(counts.min())
    if smallest < cv:
        label = _plain(classes[int(counts.argmin())])
        raise ValueError(
            f"class {label!r} has only {smallest} sample(s), fewer than the {cv} "
            f"cross-validation folds; use a smaller cv or more data."
        )
    return encoder, Xt, codes, classes
