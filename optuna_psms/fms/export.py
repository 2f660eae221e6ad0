"""Artefacts of a fitted full-model search: a standalone Python script and a trials table.

:func:`export_python` writes the selected pipeline as a short script that rebuilds and fits
the same scikit-learn pipeline without any of optuna-psms' search code (the script imports
only scikit-learn, numpy/pandas and, when the pipeline uses them, the transformers of
:mod:`optuna_psms.fms` such as ``TabularEncoder`` or ``RankSelector``, or XGBoost).

:func:`trials_table` lists every trial of the study, like scikit-learn's ``cv_results_``.
"""

from __future__ import annotations

import datetime
import importlib
import inspect
from typing import Any
import warnings

import numpy as np
import optuna
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline

from optuna_psms.fms._outcome import failure_reason


def _public_module(cls: type) -> str:
    """The shortest public module path that exports ``cls`` (e.g. ``sklearn.svm``)."""
    parts = cls.__module__.split(".")
    for end in range(1, len(parts) + 1):
        if any(p.startswith("_") for p in parts[:end]):
            break
        name = ".".join(parts[:end])
        try:
            module = importlib.import_module(name)
            if getattr(module, cls.__name__, None) is cls:
                return name
        except (ImportError, AttributeError):
            continue
    return cls.__module__


def _same(value: Any, default: Any) -> bool:
    if default is inspect.Parameter.empty:
        return False
    if type(value) is not type(default):
        return False
    try:
        return bool(value == default)
    except (ValueError, TypeError):
        return False


class _Writer:
    def __init__(self) -> None:
        self.imports: set[tuple[str, str]] = set()

    def code(self, value: Any, indent: int = 0) -> str:
        if isinstance(value, Pipeline):
            return self._pipeline(value, indent)
        if isinstance(value, BaseEstimator):
            return self._estimator(value, indent)
        if isinstance(value, np.generic):
            return self.code(value.item(), indent)
        if value is None or isinstance(value, bool | int | str):
            return repr(value)
        if isinstance(value, float):
            return repr(value) if np.isfinite(value) else f'float("{value}")'
        if isinstance(value, tuple):
            items = [self.code(v, indent) for v in value]
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        if isinstance(value, list):
            return f"[{', '.join(self.code(v, indent) for v in value)}]"
        if isinstance(value, dict):
            body = ", ".join(f"{self.code(k)}: {self.code(v, indent)}" for k, v in value.items())
            return "{" + body + "}"
        if isinstance(value, type) and value.__module__ == "numpy":
            self.imports.add(("numpy", "np"))
            return f"np.{value.__name__}"
        raise ValueError(f"cannot write {value!r} as Python code")

    def _estimator(self, est: BaseEstimator, indent: int) -> str:
        cls = type(est)
        self.imports.add((_public_module(cls), cls.__name__))
        signature = inspect.signature(cls.__init__)
        args = []
        for key, value in est.get_params(deep=False).items():
            param = signature.parameters.get(key)
            default = param.default if param is not None else inspect.Parameter.empty
            if not _same(value, default):
                args.append(f"{key}={self.code(value, indent)}")
        return f"{cls.__name__}({', '.join(args)})"

    def _pipeline(self, pipe: Pipeline, indent: int) -> str:
        self.imports.add(("sklearn.pipeline", "Pipeline"))
        pad = " " * (indent + 4)
        lines = [f"{pad}({name!r}, {self.code(step, indent + 4)})," for name, step in pipe.steps]
        return (
            "Pipeline(\n"
            + f"{' ' * indent}    [\n"
            + "\n".join("    " + line for line in lines)
            + f"\n{' ' * indent}    ]\n{' ' * indent})"
        )

    def import_lines(self) -> list[str]:
        lines = []
        for module, name in sorted(self.imports):
            if module == "numpy":
                lines.append("import numpy as np")
            else:
                lines.append(f"from {module} import {name}")
        return lines


_MAIN = """

def main() -> None:
    import argparse

    import pandas as pd

    parser = argparse.ArgumentParser(description="Fit the exported pipeline on a CSV file.")
    parser.add_argument("csv", help="training data with a header row")
    parser.add_argument("target", help="target column")
    parser.add_argument("--predict", metavar="CSV", help="file to predict (default: training)")
    args = parser.parse_args()
    frame = pd.read_csv(args.csv)
    new = pd.read_csv(args.predict) if args.predict else frame

    def features(data):
        if COLUMNS is None:
            return data.drop(columns=[args.target], errors="ignore")
        return data[COLUMNS]

    model = fit(features(frame), frame[args.target].to_numpy())
    for value in predict(model, features(new)):
        print(value)


if __name__ == "__main__":
    main()
"""

_CLASSIFY = '''


def fit(X, y):
    """Fit the pipeline on features ``X`` and labels ``y`` (any labels, mixed types too).

    ``encode_labels`` numbers the classes as the search did (mixed types are kept as
    objects: ``True`` is not ``1``), so the fitted pipeline is the estimator's.
    """
    codes, classes = encode_labels(y)
    return build_pipeline().fit(X, codes), classes


def predict(model, X):
    """Predicted labels."""
    pipeline, classes = model
    return classes[np.asarray(pipeline.predict(X), dtype=int)]
'''

_REGRESS = '''


def fit(X, y):
    """Fit the pipeline on features ``X`` and the numeric target ``y``."""
    return build_pipeline().fit(X, np.asarray(y, dtype=float))


def predict(model, X):
    """Predicted target values."""
    return np.asarray(model.predict(X), dtype=float).ravel()
'''


def _ensemble_note(estimator: Any) -> list[str]:
    """Header lines saying that the estimator votes and the script does not."""
    trials = getattr(estimator, "ensemble_trials_", None) or []
    if len(trials) < 2:
        return []
    numbers = ", ".join(str(t.number) for t in trials)
    return [
        f"Only the best pipeline (trial {trials[0].number}) is written here: the estimator "
        f"predicts by a vote of {len(trials)} pipelines (trials {numbers}; ensemble_top).",
    ]


def _columns_lines(estimator: Any) -> list[str]:
    """``COLUMNS = [...]``: the named columns the estimator was fitted with, which ``main``
    takes from a CSV file (so that a column left out of the search, such as an ID, stays
    out); ``None`` for an estimator fitted on unnamed columns."""
    names = getattr(estimator, "feature_names_in_", None)
    value = None if names is None else [str(n) for n in names]
    return [
        "#: Columns of a CSV file the script fits and predicts on (None: all but the target).",
        f"COLUMNS = {value!r}",
    ]


def export_python(estimator: Any, path: str | None = None) -> str:
    """Write a fitted estimator's selected pipeline as a standalone Python script.

    The script defines ``build_pipeline()`` (the unfitted scikit-learn pipeline, every
    hyperparameter and ``random_state`` written out, encoder first), ``fit(X, y)`` and
    ``predict(model, X)``; run as ``python script.py data.csv TARGET [--predict new.csv]``
    it fits on the CSV file and prints the predictions, taking from the files only the
    columns the estimator was fitted with (``COLUMNS``; an ID left out of the search stays
    out). Fitted on the same data it predicts
    exactly what the estimator predicts, unless the estimator votes over several pipelines
    (``ensemble_top`` >= 2, :class:`~optuna_psms.fms.FullModelSelector`'s default 10): the
    script holds only the best one, its header says so and a ``UserWarning`` too. When the
    selector's ``final_check`` chose the grid-tuned SVC, the script is that SVC pipeline.

    Args:
        estimator: A fitted :class:`~optuna_psms.fms.FullModelSelector` or
            :class:`~optuna_psms.fms.FullModelRegressor`.
        path: Where to write the script (``None``: only return it).

    Returns:
        The script's text.

    Raises:
        ValueError: A pipeline parameter that cannot be written as Python code.
    """
    voters = getattr(estimator, "ensemble_trials_", None) or []
    svc = getattr(estimator, "final_choice_", "vote") == "svc"
    if len(voters) >= 2:
        # The script is what a new user expects to reproduce the saved model (usertrial3).
        from optuna_psms.fms._validation import user_stacklevel

        warnings.warn(
            f"export_python writes the best pipeline alone (trial {voters[0].number}); the "
            f"estimator predicts by a vote of {len(voters)} pipelines, so the script's "
            f"predictions differ from its: fit with ensemble_top=1 for an estimator that the "
            f"script reproduces",
            UserWarning,
            stacklevel=user_stacklevel(2),
        )
    writer = _Writer()
    writer.imports.add(("numpy", "np"))
    # The final check's SVC, when it won, is what the estimator predicts with.
    body = writer.code(estimator.ensemble_[0] if svc else estimator.best_pipeline_, indent=4)
    regression = not hasattr(estimator, "classes_")
    if not regression:
        writer.imports.add(("optuna_psms.fms", "encode_labels"))
    kind = type(estimator).__name__
    loss = getattr(estimator, "best_loss_", getattr(estimator, "best_score_", float("nan")))
    header = [
        f'"""Full model selected by optuna-psms ({kind}), exported '
        f"{datetime.date.today().isoformat()}.",
        "",
        *(
            [f"Pipeline: {estimator.describe()}"]
            if svc
            else [
                f"Pipeline: {estimator.best_description_}",
                f"CV {estimator.metric} ({estimator.cv}-fold, on the search data; "
                f"optimistic): {float(loss):.6g}",
            ]
        ),
        *_ensemble_note(estimator),
        "",
        "Run: python this_file.py data.csv TARGET [--predict new.csv]",
        '"""',
        "",
    ]
    text = "\n".join(
        [
            *header,
            *writer.import_lines(),
            "",
            "",
            "def build_pipeline():",
            '    """The selected pipeline, unfitted."""',
            f"    return {body}",
            "",
            "",
            *_columns_lines(estimator),
        ]
    )
    text += (_REGRESS if regression else _CLASSIFY) + _MAIN
    if path is not None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return text


def trials_table(study: optuna.Study) -> dict[str, list[Any]]:
    """Every trial of a full-model study as columns, like scikit-learn's ``cv_results_``.

    Columns: ``number``, ``state`` (``COMPLETE``, ``PRUNED``, ``FAIL``, ...), ``loss`` (the
    mean CV loss; ``nan`` unless complete), ``rank`` (1 = best complete trial), ``pipeline``,
    ``fold_scores``, ``n_features`` (features reaching the model), ``complexity``,
    ``fit_time`` (seconds), ``error`` (the reason of a failure or time-out,
    ``"interrupted (Ctrl-C)"`` for a trial Ctrl-C cut, else ``""``) and ``params``.
    ``pandas.DataFrame(table)`` turns it into a data frame.

    Args:
        study: The study (``estimator.study_``).

    Returns:
        A dict of equally long lists, one entry per trial in trial-number order.
    """
    trials = study.get_trials(deepcopy=False)
    table: dict[str, list[Any]] = {
        key: []
        for key in (
            "number",
            "state",
            "loss",
            "rank",
            "pipeline",
            "fold_scores",
            "n_features",
            "complexity",
            "fit_time",
            "error",
            "params",
        )
    }
    losses = []
    for t in trials:
        value = t.values[0] if t.values else None
        done = t.state == optuna.trial.TrialState.COMPLETE
        losses.append(float(value) if done and value is not None else float("nan"))
    finite = np.asarray(losses)
    order = np.argsort(np.where(np.isnan(finite), np.inf, finite), kind="stable")
    ranks = np.empty(len(trials), dtype=np.int64)
    ranks[order] = np.arange(1, len(trials) + 1)
    for t, loss, rank in zip(trials, losses, ranks):
        attrs = t.user_attrs
        table["number"].append(t.number)
        table["state"].append(t.state.name)
        table["loss"].append(loss)
        table["rank"].append(int(rank) if np.isfinite(loss) else None)
        table["pipeline"].append(attrs.get("fms:pipeline", ""))
        table["fold_scores"].append(list(attrs.get("fms:fold_scores", [])))
        table["n_features"].append(attrs.get("fms:n_features"))
        table["complexity"].append(attrs.get("fms:complexity"))
        table["fit_time"].append(attrs.get("fms:fit_time"))
        table["error"].append(failure_reason(attrs))
        table["params"].append(dict(t.params))
    return table
