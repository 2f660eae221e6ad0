"""Column safety and label encoding shared by the estimators of :mod:`optuna_psms.fms`.

scikit-learn's convention, with one difference: a DataFrame is matched to the training
columns *by name*, in any order, instead of being refused when the order differs.

* :func:`record_features` (in ``fit``) sets ``n_features_in_`` and, when ``X`` is a
  DataFrame whose column names are all strings, ``feature_names_in_``; duplicate column names
  are refused.
* :func:`check_features` (in ``predict``/``transform``) returns ``X`` with the training
  columns in the training order: a DataFrame is selected by name (a missing column raises
  ``ValueError`` naming it, extra columns warn and are dropped); anything else must have
  ``n_features_in_`` columns.
* :func:`user_entry` marks the public methods (``predict``, ``score``, ...) so that the
  warnings raised under them (:func:`user_stacklevel`) name the line that called them.
* :func:`encode_labels` / :func:`decode_labels` map labels of any type (mixed types too) to
  ``0..K-1`` and back to the original objects.

These helpers work on any object with the attributes above, so every estimator of the
package (classifiers, regressors, transformers) can use them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
import numbers
import sys
from types import CodeType
from typing import Any
from typing import TypeVar
import warnings

import numpy as np
from numpy.typing import NDArray
import pandas as pd


_F = TypeVar("_F", bound=Callable[..., Any])
_ENTRY_CODES: set[CodeType] = set()


def user_entry(func: _F) -> _F:
    """Mark ``func`` as a public entry point (returned unchanged, not wrapped): a warning
    raised while it runs, with :func:`user_stacklevel`, names the line that called it."""
    _ENTRY_CODES.add(func.__code__)
    return func


def user_stacklevel(fallback: int) -> int:
    """The ``stacklevel`` for a :func:`warnings.warn` in the function calling this one.

    It points at the caller of the outermost :func:`user_entry` method on the stack: the
    user's line, also when the warning comes through another entry point (``score`` calls
    ``predict_proba``) or through scikit-learn (``score`` with a scorer name calls
    ``predict``). Counting frames by hand would miss both.

    Args:
        fallback: The ``stacklevel`` when no entry point is on the stack (e.g. a transformer
            called directly).
    """
    frame = sys._getframe(1)  # the function that calls warnings.warn: stacklevel 1
    level, found = 1, fallback
    while frame is not None:
        if frame.f_code in _ENTRY_CODES:
            found = level + 1
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return found


def quoted_names(columns: Any, most: int = 10) -> str:
    """``'a', 'b'`` for a message; past ``most`` names, the first ones and ``... (N more)``."""
    shown = [repr(c.item() if isinstance(c, np.generic) else c) for c in columns]
    if len(shown) > most:
        shown = [*shown[:most], f"... ({len(shown) - most} more)"]
    return ", ".join(shown)


def _n_columns(X: Any) -> int:
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X).shape
    if len(shape) == 1:
        raise ValueError(
            f"X must be 2-dimensional (n_samples, n_features); got a 1-d array of shape "
            f"{tuple(shape)}. Reshape it with X.reshape(-1, 1) for a single feature."
        )
    if len(shape) != 2:
        raise ValueError(f"X must be 2-dimensional; got an array of shape {tuple(shape)}.")
    return int(shape[1])


def _string_names(X: Any) -> NDArray[Any] | None:
    """The column names of a DataFrame if they are all strings (scikit-learn's rule)."""
    if not isinstance(X, pd.DataFrame):
        return None
    columns = list(X.columns)
    if columns and all(isinstance(c, str) for c in columns):
        return np.asarray(columns, dtype=object)
    return None


def check_unique_columns(X: Any) -> None:
    """Raise ``ValueError`` if the DataFrame ``X`` has duplicate column names."""
    if not isinstance(X, pd.DataFrame):
        return
    counts = Counter(X.columns)
    duplicated = [name for name, n in counts.items() if n > 1]
    if duplicated:
        raise ValueError(
            f"X has duplicate column names: {quoted_names(duplicated)}; rename them so that "
            f"every column can be found by name."
        )


def record_features(estimator: Any, X: Any) -> None:
    """Set ``n_features_in_`` (and ``feature_names_in_`` for string-named DataFrames).

    Args:
        estimator: The estimator being fitted.
        X: Its training input.

    Raises:
        ValueError: ``X`` is not 2-dimensional or has duplicate column names.
    """
    check_unique_columns(X)
    estimator.n_features_in_ = _n_columns(X)
    names = _string_names(X)
    if names is not None:
        estimator.feature_names_in_ = names
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def check_features(estimator: Any, X: Any, *, stacklevel: int = 2) -> Any:
    """``X`` with the training columns of ``estimator``, in the training order.

    A DataFrame with string column names, for an estimator fitted on named columns, is
    selected by name: the column order does not matter, extra columns are dropped with a
    ``UserWarning``. Any other input (arrays, DataFrames such as ``pd.DataFrame(array)``)
    must have exactly ``n_features_in_`` columns, in the training order; given to an
    estimator fitted with names, it is taken in that order after a ``UserWarning``.

    Args:
        estimator: A fitted estimator (with ``n_features_in_``).
        X: The input to predict on or transform.
        stacklevel: Of the warnings, counted from the caller of this function (2: the
            caller's caller), when no :func:`user_entry` method is on the stack (otherwise
            the warnings name the line that called it; see :func:`user_stacklevel`).

    Returns:
        ``X`` itself, or a DataFrame of the training columns in the training order (also
        for unnamed input to an estimator fitted with names, after a ``UserWarning``).

    Raises:
        ValueError: A training column is missing (named in the message), a needed name is
            duplicated, or the number of columns is wrong.
    """
    names = getattr(estimator, "feature_names_in_", None)
    expected = getattr(estimator, "n_features_in_", None)
    kind = type(estimator).__name__
    if names is not None and _string_names(X) is not None:
        present = set(X.columns)
        wanted = set(names)
        missing = [n for n in names if n not in present]
        if missing:
            unknown = [c for c in X.columns if c not in wanted]
            hint = f" X has column(s) not seen in fit: {quoted_names(unknown)}." if unknown else ""
            from optuna_psms._names import close_name

            renamed = [(m, close_name(str(m), unknown)) for m in missing]
            guesses = [f"{c!r} for {m!r}" for m, c in renamed if c is not None]
            if guesses:  # a renamed or mistyped column (issue 32)
                hint += f" Did you mean {', '.join(guesses)}?"
            raise ValueError(
                f"X is missing {len(missing)} column(s) that {kind} was fitted with: "
                f"{quoted_names(missing)}.{hint}"
            )
        doubled = [n for n, c in Counter(X.columns).items() if c > 1 and n in wanted]
        if doubled:
            raise ValueError(f"X has duplicate column names: {quoted_names(doubled)}.")
        extra = [c for c in X.columns if c not in wanted]
        if extra:
            warnings.warn(
                f"X has {len(extra)} column(s) that {kind} was not fitted with; they are "
                f"ignored: {quoted_names(extra)}.",
                UserWarning,
                stacklevel=user_stacklevel(stacklevel + 1),
            )
        if extra or list(X.columns) != list(names):
            X = X.loc[:, list(names)]
        return X
    n = _n_columns(X)
    if expected is not None and n != expected:
        raise ValueError(f"X has {n} columns, but {kind} was fitted with {expected}.")
    if names is not None:
        if isinstance(X, pd.DataFrame):
            what = "X's column names are not all strings"
        else:
            what = "X has no column names"
        warnings.warn(
            f"{what}, but {kind} was fitted with named columns; its columns "
            f"are taken as {quoted_names(names)}, in this order.",
            UserWarning,
            stacklevel=user_stacklevel(stacklevel + 1),
        )
        # Named from here on, so that the steps behind this one do not warn again.
        return pd.DataFrame(X.to_numpy() if isinstance(X, pd.DataFrame) else X, columns=names)
    return X


# ------------------------------------------------------------------------------ labels
def _label_key(value: Any) -> tuple[Any, ...]:
    """Total order on labels of mixed types: numbers first (by value), then by type."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        return (0, value)
    return (1, type(value).__name__, str(value))


def label_array(y: Any) -> NDArray[Any]:
    """``y`` as a numpy array that keeps every label's value and type.

    ``np.asarray([3, "a", 2.5])`` gives the strings ``['3', 'a', '2.5']`` and
    ``np.asarray([1, True])`` gives ``[1, 1]``; a list or tuple whose elements are not all of
    one type becomes an object array of the original objects instead. Arrays and pandas
    objects keep their dtype.
    """
    if isinstance(y, pd.Series | pd.DataFrame | pd.Index):
        return np.asarray(y.to_numpy())
    if isinstance(y, np.ndarray):
        return y
    arr = np.asarray(y)
    if arr.ndim >= 1 and arr.size and isinstance(y, list | tuple):
        kinds = {type(v) for v in (y if arr.ndim == 1 else arr.ravel().tolist())}
        if len(kinds) > 1:
            obj = np.empty(len(y), dtype=object)
            obj[:] = list(y)
            if arr.ndim == 1:
                return obj
    return arr


def _key(value: Any) -> tuple[bool, Any]:
    """Dictionary key of a label: equal numbers (``1``, ``1.0``) meet, ``True`` is not ``1``."""
    return (isinstance(value, bool | np.bool_), value)


def encode_labels(y: Any) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Encode labels of any type as ``0..K-1``.

    Labels of one numpy dtype keep numpy's ``np.unique`` order and dtype (so integer
    labels stay integers, strings stay strings). Labels of mixed types (e.g.
    ``[3, "a", 2.5]``, see :func:`label_array`) are kept as the original Python objects in
    an object array, ordered numbers first (by value) then by type name and text; they are
    never turned into strings, and ``True`` is not merged with ``1``.

    Args:
        y: Array-like of labels (numbers, strings, booleans, ...).

    Returns:
        The encoded labels and the array of classes, ``classes[codes] == y``.

    Raises:
        ValueError: ``y`` is not 1-dimensional or has missing values.
    """
    arr = label_array(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-dimensional; got shape {arr.shape}.")
    if arr.size and bool(pd.isna(pd.Series(arr, dtype=object)).any()):
        raise ValueError("y contains missing values; drop those samples or label them.")
    if arr.dtype != object:
        classes, codes = np.unique(arr, return_inverse=True)
        return np.asarray(codes, dtype=np.int64).ravel(), classes
    # Objects, possibly of mixed types: np.unique would fail on unorderable ones and merge
    # False with 0; keep the objects, with a total order of their own.
    found: dict[tuple[bool, Any], int] = {}
    firsts: list[Any] = []
    raw = np.empty(arr.size, dtype=np.int64)
    for i, value in enumerate(arr.tolist()):
        try:
            key = _key(value)
            known = key in found
        except TypeError:
            raise ValueError(f"labels must be hashable; got {value!r}.") from None
        if not known:
            found[key] = len(firsts)
            firsts.append(value)
        raw[i] = found[key]
    order = sorted(range(len(firsts)), key=lambda k: _label_key(firsts[k]))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    classes = np.empty(len(order), dtype=object)
    for position, k in enumerate(order):
        classes[position] = firsts[k]
    return rank[raw], classes


def decode_labels(classes: NDArray[Any], codes: Any) -> NDArray[Any]:
    """The labels ``classes[codes]`` (original objects and dtype)."""
    return np.asarray(classes[np.asarray(codes, dtype=np.int64)])


def labels_to_codes(classes: NDArray[Any], y: Any) -> NDArray[np.int64]:
    """Codes of ``y`` in ``classes``; labels not among ``classes`` get ``-1``."""
    arr = label_array(y)
    lookup = {_key(c): i for i, c in enumerate(classes.tolist())}
    codes = []
    for value in arr.ravel().tolist():
        try:
            codes.append(lookup.get(_key(value), -1))
        except TypeError:  # unhashable: not a class
            codes.append(-1)
    return np.asarray(codes, dtype=np.int64)
