"""Input validation and encoding for full model selection.

Full model selection accepts numpy arrays and pandas DataFrames with numeric, boolean,
categorical or string columns, missing values and labels of any type. Everything is turned
into a dense ``float64`` design matrix by :class:`TabularEncoder` (median imputation for
numeric columns, one-hot encoding for the others) and into integer labels ``0..K-1`` by
:func:`encode_labels`. The encoder is unsupervised (it never sees the labels); it is fitted
once on the whole training input so that every trial and every fold sees the same columns.
"""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
from numpy.typing import NDArray
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.base import TransformerMixin
from sklearn.preprocessing import OneHotEncoder

# Defined here before the split; tests and docs still import them from here.
from optuna_psms.fms._identifiers import identifier_columns as identifier_columns
from optuna_psms.fms._identifiers import MIN_IDENTIFIER_ROWS as MIN_IDENTIFIER_ROWS
from optuna_psms.fms._validation import check_features
from optuna_psms.fms._validation import encode_labels as _encode_labels
from optuna_psms.fms._validation import label_array
from optuna_psms.fms._validation import record_features
from optuna_psms.fms._validation import user_stacklevel


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
