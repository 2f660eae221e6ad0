"""``optuna-psms predict``: apply a model saved by ``select`` to new rows."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any
import warnings

from optuna_psms.cli._common import add_columns_option
from optuna_psms.cli._common import require_fms
from optuna_psms.cli._common import UserError
from optuna_psms.cli._common import warn


def register(sub: Any) -> None:
    """Add the ``predict`` subcommand to the subparsers ``sub``."""
    parser = sub.add_parser(
        "predict",
        help="apply a saved model to a CSV file or dataset, write predictions as CSV",
        description=(
            "Apply a model saved by 'optuna-psms select' and write one CSV row per input "
            "row, in input order: the predicted label (as in the training data) or, for a "
            "regression, the predicted value; with --proba (classifiers), one probability "
            "column per class; with --keep, input columns (e.g. an id) before them. The "
            "model file is loaded with joblib (pickle): only load files you trust."
        ),
    )
    parser.add_argument("--model", required=True, metavar="FILE", help="saved model (joblib)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", metavar="PATH", help="CSV file with a header row")
    source.add_argument("--dataset", metavar="NAME", help="bundled dataset (its features)")
    add_columns_option(
        parser,
        "--drop",
        "columns of the data to ignore, e.g. the label column (--drop label id, or "
        "label,id); columns the model was not fitted with are ignored anyway, after a "
        "warning line",
    )
    add_columns_option(
        parser,
        "--keep",
        "columns of the data to copy, as written, into the output before the "
        "predictions, e.g. an identifier (--keep id name, or id,name); a kept column the "
        "model was fitted with is still passed to it",
    )
    parser.add_argument(
        "--output", metavar="FILE", default=None, help="CSV file to write (default: stdout)"
    )
    parser.add_argument(
        "--proba",
        action="store_true",
        help=(
            "add a column proba_<class> per class (classification models only; for a vote, "
            "the members' mean probability: the prediction, which uses each member's tuned "
            "threshold, may be another class, and a note line says on how many rows)"
        ),
    )
    parser.set_defaults(run=run)


#: Why a text file (a CSV passed to ``--model``, say) is not a model.
_TEXT = "it is a text file, such as a CSV; --model takes the .joblib file select saved"


def _not_a_model(path: str, why: str) -> UserError:
    return UserError(f"{path} is not a model saved by optuna-psms select ({why})")


def _is_text(path: str) -> bool:
    """Whether the file starts like text (a CSV, say, in any ASCII-based encoding): no NUL
    byte and at least 90 % printable ASCII. Only asked of a file joblib could not read; a
    model that ``select`` saved is a binary pickle."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if not head or b"\0" in head:
        return False
    printable = sum(32 <= b < 127 or b in b"\t\n\r" for b in head)
    return printable >= 0.9 * len(head)


def _reason(exc: Exception) -> str:
    """``joblib cannot read it: <type>: <message>``, the message only if it reads as text:
    a CSV gave ``invalid literal for int() with base 10: b'atient_id,mean radius,mea``, a
    bytes repr cut off with its quote open (usertrial3, 26 Nov 2026)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    if not first or "b'" in first or 'b"' in first or "\\x" in first or len(first) > 80:
        return f"joblib cannot read it: {type(exc).__name__}"
    return f"joblib cannot read it: {type(exc).__name__}: {first}"


def _load_model(path: str) -> Any:
    import joblib

    if not os.path.isfile(path):
        raise UserError(f"model file not found: {path}")
    if os.path.getsize(path) == 0:
        raise _not_a_model(path, "the file is empty")
    try:
        model = joblib.load(path)
    except ModuleNotFoundError as exc:
        # A model of a package that is not installed here (e.g. xgboost), or not a pickle at
        # all: pickle then reads a line of text as a module name.
        if exc.name is not None and exc.name.replace(".", "_").isidentifier():
            raise UserError(
                f"cannot load model {path}: it needs the Python module {exc.name!r}, "
                f"which is not installed"
            ) from None
        raise _not_a_model(path, _TEXT if _is_text(path) else "not a joblib file") from None
    except Exception as exc:  # not a joblib file, truncated, incompatible versions
        raise _not_a_model(path, _TEXT if _is_text(path) else _reason(exc)) from None
    if not hasattr(model, "predict"):
        raise _not_a_model(path, f"it holds a {type(model).__name__}, with no predict method")
    return model


def _check_model_columns(model: Any, X: Any, where: str, dropped: list[str]) -> None:
    """Raise a one-line error naming the columns a model fitted on named columns needs and
    ``X`` lacks: those ``--drop`` removed are said to be, and a column of ``X`` the model does
    not know whose name is close to a missing one (``Outcome`` for ``outcome``) is suggested.
    When ``X`` has some of the model's columns, the others are said to be given as empty
    columns to predict without them (their values are then taken as missing).

    The model's own message listed every column it does not know, an identifier and the
    target included, as if they were the missing ones renamed.

    Raises:
        UserError: A column of the model is missing.
    """
    from optuna_psms._names import close_name
    from optuna_psms.fms._validation import quoted_names

    names = getattr(model, "feature_names_in_", None)
    if (
        names is None
        or not hasattr(X, "columns")
        or not all(isinstance(c, str) for c in X.columns)
    ):
        return
    present = set(X.columns)
    missing = [str(n) for n in names if n not in present]
    if not missing:
        return
    wanted = {str(n) for n in names}
    unknown = [c for c in X.columns if c not in wanted]
    notes = []
    removed = [n for n in missing if n in dropped]
    if removed:
        notes.append(f"--drop removed {quoted_names(removed)}")
    unexplained = []
    for name in missing:
        close = close_name(name, unknown)
        if name not in removed and close is not None:
            notes.append(f"{name!r} renamed {close!r}?")
        elif name not in removed:
            unexplained.append(name)
    if unexplained and len(missing) < len(wanted):
        # Not another file altogether: a column the new rows do not have can be given empty.
        them = "it" if len(unexplained) == 1 else "them"
        notes.append(
            f"to predict without {them}, add {them} to the file as "
            f"{'empty columns' if len(unexplained) > 1 else 'an empty column'}: taken as missing"
        )
    count = f"{len(missing)} column{'s' if len(missing) > 1 else ''}"
    raise UserError(
        f"{where} lacks {count} the model was fitted with: {quoted_names(missing)}"
        + (f" ({'; '.join(notes)})" if notes else "")
    )


def _drop_extra_columns(model: Any, X: Any, keep: list[str]) -> Any:
    """``X`` without the columns a model fitted on named columns does not use, after one
    warning line naming those not in ``keep`` (the model would ignore them with a Python
    warning; a kept column is copied to the output, not ignored)."""
    names = getattr(model, "feature_names_in_", None)
    if (
        names is None
        or not hasattr(X, "columns")
        or not all(isinstance(c, str) for c in X.columns)
    ):
        return X
    if any(n not in X.columns for n in names):
        return X  # refused by _check_model_columns before
    wanted = set(names)
    extra = [c for c in X.columns if c not in wanted]
    ignored = [c for c in extra if c not in keep]
    if ignored:
        shown = ", ".join(repr(c) for c in ignored)
        warn(f"warning: ignoring column(s) {shown} the model was not fitted with")
    return X.drop(columns=extra)


def _read_data(args: argparse.Namespace, model: Any, keep: list[str]) -> tuple[Any, Any]:
    """The rows to predict (without the ``--drop`` columns) and the ``--keep`` columns
    (``None`` without ``--keep``)."""
    from optuna_psms.fms.datasets import check_columns
    from optuna_psms.fms.datasets import drop_columns
    from optuna_psms.fms.datasets import drop_names
    from optuna_psms.fms.datasets import load_dataset
    from optuna_psms.fms.datasets import read_csv
    from optuna_psms.fms.datasets import text_columns

    def check_keep(X: Any, where: str) -> None:
        # Whether each exists first: "has the name of an output column" for a column the
        # file does not have read as if it had one (a new user's trial, 26 Nov 2026).
        check_columns(X, keep, where, "--keep")
        outputs = ["prediction"]
        if args.proba:
            outputs += [f"proba_{label}" for label in model.classes_]
        clash = [c for c in keep if c in outputs]
        if clash:
            raise UserError(
                f"--keep: column {clash[0]!r} of {where} has the name of an output column; "
                "rename it in the input"
            )

    if args.csv is None:  # as select --dataset ... --drop, so the same --drop applies the model
        X = load_dataset(args.dataset)[0]
        check_keep(X, args.dataset)
        kept = X[keep].reset_index(drop=True) if keep else None
        return drop_columns(X, drop_names(args.drop), args.dataset), kept
    X = read_csv(args.csv)
    check_keep(X, args.csv)
    # Read again as text, so that the output has the values as written (007, 1.50).
    kept = text_columns(args.csv, keep) if keep else None
    X = drop_columns(X, drop_names(args.drop), args.csv)
    if getattr(model, "feature_names_in_", None) is None:
        warn(
            f"warning: {args.model} was fitted without column names, so the "
            f"{X.shape[1]} columns of {args.csv} are taken by position, in file order"
        )
    return X, kept


def _proba_disagreement(model: Any, labels: Any, proba: Any) -> str | None:
    """A ``note:`` line when on some rows the prediction is not the class of the largest
    ``proba_`` column (``None`` when it always is).

    A vote of two-class pipelines predicts with each member's own decision threshold (its
    tuned ``bias`` step) while ``predict_proba`` is the members' plain mean probability, so
    the two can disagree: on 13 of 50 new rows of a user's churn data (26 Nov 2026), with
    nothing in the output to say why.
    """
    import numpy as np

    values = np.asarray(proba, dtype=np.float64)
    known = np.asarray(~np.isnan(values).any(axis=1), dtype=bool)
    if not known.any():
        return None
    top = np.asarray(model.classes_)[
        np.argmax(np.where(known.reshape(-1, 1), values, 0.0), axis=1)
    ]
    differ = int((np.asarray(labels)[known] != top[known]).sum())
    if differ == 0:
        return None
    n_members = len(getattr(model, "ensemble_", None) or [])
    why = (
        f"the vote of {n_members} pipelines predicts with each pipeline's own decision "
        "threshold (its tuned bias step), while the proba_ columns are their plain mean "
        "probability"
        if n_members > 1
        else "the model predicts by its decision rule (a tuned threshold, or an SVC's "
        "decision function) and estimates the probabilities separately"
    )
    return (
        f"note: on {differ} of {len(values)} rows the prediction is not the class with the "
        f"largest proba_ column: {why}; the prediction column is the model's answer"
    )


def run(args: argparse.Namespace) -> int:
    """Write the predictions."""
    require_fms()
    import pandas as pd

    from optuna_psms.fms.datasets import drop_names

    model = _load_model(args.model)
    if args.proba and not hasattr(model, "predict_proba"):
        raise UserError(
            f"--proba: {args.model} holds a regression model (it predicts numbers, "
            f"not class probabilities); leave --proba out"
        )
    keep = drop_names(args.keep)
    X, kept = _read_data(args, model, keep)
    _check_model_columns(model, X, args.csv or args.dataset, drop_names(args.drop))
    X = _drop_extra_columns(model, X, keep)
    if args.csv is not None and hasattr(X, "dtypes"):
        from optuna_psms.fms.datasets import refuse_infinite

        refuse_infinite(X, args.csv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's, as in select's hold-out
            labels = model.predict(X)
            proba = model.predict_proba(X) if args.proba else None
    except ValueError as exc:  # wrong columns, wrong width
        # Extra columns are dropped above when the model knows its columns' names; taken by
        # position, a wrong width may be a label column left in.
        positional = getattr(model, "feature_names_in_", None) is None
        expected = getattr(model, "n_features_in_", None)
        # Only when the data has more columns than the model: with fewer, "a label column?"
        # pointed the wrong way (usertrial7, 26 Nov 2026).
        wider = isinstance(expected, int) and getattr(X, "shape", (0, 0))[1] > expected
        hint = ""
        if positional and wider and not args.drop:
            hint = " (a label column? leave it out with --drop COLUMN)"
            if keep:
                hint = " (--keep still passes its columns to the model: --drop them too?)"
        raise UserError(
            f"cannot apply the model to this data: {exc}{hint}", original=exc
        ) from None
    # The model's own warnings, one line each: values it reads other than as written (text in
    # a numeric column, an unseen category; predict and predict_proba both warn, hence the
    # dict), or columns taken by position.
    for message in dict.fromkeys(str(w.message).strip() for w in caught):
        warn(f"warning: {(message.splitlines() or [''])[0]}")
    out = pd.DataFrame({"prediction": labels})
    if proba is not None:
        for j, label in enumerate(model.classes_):
            out[f"proba_{label}"] = proba[:, j]
        note = _proba_disagreement(model, labels, proba)
        if note is not None:
            warn(note)
    if keep:
        out = pd.concat([kept, out], axis=1)
    if args.output is None:
        out.to_csv(sys.stdout, index=False)
        return 0
    try:
        out.to_csv(args.output, index=False)
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc}") from None
    warn(f"{len(out)} predictions written to {args.output}")
    return 0
