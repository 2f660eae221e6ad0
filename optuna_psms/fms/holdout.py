"""The hold-out of ``select``: the split of the rows and the chosen model's held-out loss
(computed, printed and kept in the study)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
import warnings

from optuna_psms._messages import InputError
from optuna_psms._messages import say
from optuna_psms.fms._join import StudySettings


#: Fewer held-out rows than this get a ``warning:`` line: the held-out score is then rough.
#: With 30 rows, a 10 % error rate has a standard error of about 5 points.
MIN_HELD_OUT_ROWS = 30
#: A class with fewer search rows than this per CV fold (or a regression with fewer than
#: :data:`MIN_HELD_OUT_ROWS` search rows) gets a ``warning:`` line: the CV value, the mean of
#: per-fold scores each made of a handful of rows, moves in coarse steps and is easily 0.
MIN_CLASS_ROWS_PER_FOLD = 5


def split(
    X: Any, y: Any, test_size: float, seed: int, task: str = "classification"
) -> tuple[Any, Any, Any, Any]:
    """Split into ``(search X, search y, held-out X, held-out y)``.

    Classification: stratified on the labels. Regression: a shuffled split seeded by
    ``seed`` (a continuous target has no classes to stratify on).
    """
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    stratify = None
    if task == "classification":
        # Stratify on codes: labels of mixed types cannot be sorted by numpy.
        stratify, labels = pd.factorize(pd.Series(np.asarray(y, dtype=object)))
        counts = np.bincount(stratify)
        if len(counts) == 1:
            # Said of the whole target: after the split it read as the hold-out's doing.
            label = labels[0].item() if isinstance(labels[0], np.generic) else labels[0]
            raise InputError(
                f"the target has a single class ({label!r}) in all {len(y)} rows; "
                "classification needs at least two"
            )
        if 0 < test_size and len(counts) and counts.min() < 2:
            # scikit-learn's own message names the class by its code ("[4]"), not its label.
            label = labels[int(np.argmin(counts))]
            label = label.item() if isinstance(label, np.generic) else label
            raise InputError(
                f"--test-size {test_size}: class {label!r} has only 1 row; a stratified "
                f"hold-out needs at least 2 rows of each class (drop that row, or use "
                f"--test-size 0 for no hold-out)"
            )
    elif task == "regression" and len(y):
        # As a single class above: "y is constant" named only the search rows left.
        numbers = pd.to_numeric(pd.Series(np.asarray(y, dtype=object)), errors="coerce")
        values = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isfinite(values).all() and float(np.ptp(values)) == 0.0:
            raise InputError(
                f"the target is constant ({float(values[0])!r}) in all {len(y)} rows; "
                "there is nothing to regress"
            )
    try:
        search, held = train_test_split(
            rows, test_size=test_size, stratify=stratify, shuffle=True, random_state=seed
        )
    except ValueError as exc:
        raise InputError(
            f"--test-size {test_size}: cannot split the rows ({exc})", original=exc
        ) from None

    def take(data: Any, idx: Any) -> Any:
        return data.iloc[idx] if isinstance(data, pd.DataFrame) else np.asarray(data)[idx]

    search, held = np.sort(search), np.sort(held)
    return take(X, search), np.asarray(y)[search], take(X, held), np.asarray(y)[held]


def loss_label(metric: str) -> str:
    """How the loss of ``metric`` is named in the output: ``r2`` minimises ``1-R^2``, ``auc``
    ``1-AUC``, ``pi_svm`` ``1-PI_SVM`` (:data:`~optuna_psms.fms.metrics.LOSS_NAMES`) and a
    scikit-learn scorer ``s`` minimises ``-s`` (so that "CV auc 0.03" is not read as an AUC
    of 0.03)."""
    from optuna_psms.fms.metrics import LOSS_NAMES

    if metric in LOSS_NAMES:
        return LOSS_NAMES[metric]
    return metric if metric in ("ber", "error", "rmse", "mae", "mse") else f"-{metric}"


def shown(metric: str) -> tuple[str, float]:
    """``(name, sign)``: how the output names a loss of ``metric`` and the factor that turns
    the loss into the number printed: :func:`optuna_psms.fms.metrics.shown_loss` (a
    scikit-learn scorer as itself, "higher is better"; a ``neg_*`` scorer as the loss it
    negates; ``auc`` as ``1-AUC``; the other losses as they are).
    """
    from optuna_psms.fms.metrics import shown_loss

    return shown_loss(metric)


def holdout_loss(metric: str, model: Any, X: Any, y: Any) -> tuple[str, float]:
    """``(name, loss)`` of a fitted model on held-out rows, with the study's metric.

    The losses are those of the search (:func:`optuna_psms.fms.metrics.fold_loss`):
    ``r2`` is reported as ``1-R^2``, a scikit-learn scorer negated. ``pi_svm`` needs
    support-vector counts of a CV fit; on held-out rows its error part, the balanced error
    rate, is reported instead (and named so).
    """
    import numpy as np

    from optuna_psms.fms.metrics import balanced_error_rate
    from optuna_psms.fms.metrics import fold_loss
    from optuna_psms.fms.metrics import REGRESSION_METRICS

    if metric in REGRESSION_METRICS:
        target = np.asarray(y, dtype=np.float64)
        return loss_label(metric), fold_loss(metric, model, X, target, 0)
    if metric in ("ber", "pi_svm"):
        return "ber", balanced_error_rate(y, model.predict(X))
    if metric == "error":
        return "error", float(np.mean(np.asarray(model.predict(X)) != np.asarray(y)))
    if metric == "auc":
        from sklearn.metrics import roc_auc_score

        proba = np.asarray(model.predict_proba(X))
        classes = list(model.classes_)
        codes = np.array([classes.index(v) for v in y])
        if len(classes) == 2:
            return loss_label(metric), float(1.0 - roc_auc_score(codes, proba[:, 1]))
        labels = np.arange(len(classes))
        auc = roc_auc_score(codes, proba, multi_class="ovr", labels=labels)
        return loss_label(metric), float(1.0 - auc)
    from sklearn.metrics import get_scorer

    return loss_label(metric), -float(get_scorer(metric)(model, X, y))


@dataclass(frozen=True)
class HeldOut:
    """The held-out score of the chosen model (:func:`held_out_score`).

    Attributes:
        name: The loss's name (``pi_svm``: ``ber``, its error part).
        loss: The loss on the held-out rows.
        rows: How many held-out rows.
        line: The line that says it (the loss as shown: an accuracy higher is better).
        warnings: One ``warning:`` line per value of the held-out rows the model read
            other than as written.
    """

    name: str
    loss: float
    rows: int
    line: str
    warnings: tuple[str, ...] = ()


def report_held_out(
    settings: StudySettings, model: Any, study: Any, best: Any, parts: tuple[Any, ...]
) -> None:
    """Print the held-out loss of ``model`` (:func:`held_out_score`), after one ``warning:``
    line per value of the held-out rows it reads other than as written, and keep it in
    ``study``."""
    held = held_out_score(settings, model, study, best, parts)
    for line in held.warnings:
        say(line)
    print(held.line)


def held_out_score(
    settings: StudySettings, model: Any, study: Any, best: Any, parts: tuple[Any, ...]
) -> HeldOut:
    """The held-out loss of ``model`` (the chosen pipeline, or the vote, fitted on the
    search rows), its line and the ``warning:`` lines of values of the held-out rows it
    reads other than as written; kept in ``study`` (user attr ``fms:held_out`` and the note).

    Args:
        settings: The search's settings (task, metric, cv).
        model: The chosen model fitted on the search rows.
        study: The study.
        best: The chosen trial.
        parts: ``(X_search, y_search, X_held, y_held)``.
    """
    X_search, y_search, X_held, y_held = parts
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # numpy's floating-point warnings of a model's arithmetic (GaussianNB's "divide by
        # zero encountered in log" for a constant column) are no news about the held-out
        # values: silenced, as the fits silence theirs.
        warnings.simplefilter("ignore", RuntimeWarning)
        name, loss = holdout_loss(settings.metric, model, X_held, y_held)
    # As printed: "accuracy ...: 0.97", not "-accuracy ...: -0.97" (the attr below keeps the
    # loss, the study's sign).
    label, sign = shown(settings.metric)
    label = label if name == loss_label(settings.metric) else name  # pi_svm: the ber
    # The model's warnings about held-out values it reads other than as written (e.g. a
    # category the search rows never had), one line each; not of a column already warned
    # about as a row identifier or as numbers or dates written as text (select's first
    # lines): its held-out values are all (or often) unseen, which repeated that warning.
    said = tuple(f"column {name!r}: " for name in _identifier_names(X_search, X_held))
    lines = []
    for message in dict.fromkeys(str(w.message).strip() for w in caught):
        first = (message.splitlines() or [""])[0]
        if not (said and first.startswith(said)):
            lines.append(f"warning: in the held-out rows, {first}")
    baseline = ""
    if settings.task == "regression":
        from sklearn.dummy import DummyRegressor

        mean = DummyRegressor().fit(X_search, y_search)
        _, base = holdout_loss(settings.metric, mean, X_held, y_held)
        # Said when the model is no better: "110.0473 (predicting the search rows' mean:
        # 108.9538)" left the comparison to the reader (usertrial7, 26 Nov 2026).
        worse = ", as good or better: the model does no better than that" if base <= loss else ""
        baseline = f"  (predicting the search rows' mean: {sign * base:.4f}{worse})"
    members = [t.number for t in getattr(model, "ensemble_trials_", None) or []]
    voted = f"; the vote of {len(members)} pipelines" if len(members) > 1 else ""
    svc = getattr(model, "final_choice_", "vote") == "svc"
    if svc:
        voted = "; the grid-tuned SVC the final check chose"
    line = (
        f"held-out {label} ({len(y_held)} rows the search never saw{voted}"
        f"{'; higher is better' if sign < 0 else ''}): "
        f"{sign * loss:.4f}{baseline}"
    )
    # Into the study too: the dashboard's "Best Trial" is the optimistic CV value on the
    # search rows, and without this the honest estimate lives only in a terminal.
    study.set_user_attr(
        "fms:held_out",
        {
            "trial": best.number,
            "metric": name,
            "loss": float(loss),
            "rows": len(y_held),
            "cv_on_search_rows": float(best.value),
            "vote_of_trials": members,
            "final_choice": getattr(model, "final_choice_", "vote"),
        },
    )
    from optuna_psms.samplers._study_info import note_held_out

    what = f"trial {best.number}"
    if svc:
        # With its C and gamma, and not the Best Trial's pipeline: the dashboard's Best Trial
        # card showed trial 22's XGBoost while the model was this SVC (usertrial7).
        tuned = (getattr(model, "final_check_", None) or {}).get("svc") or {}
        params = f" (C={tuned['C']:g}, gamma={tuned['gamma']})" if "C" in tuned else ""
        what = (
            f"the grid-tuned RBF SVC{params} the final check chose over the search's "
            "pipelines, not the *Best Trial*'s pipeline"
        )
    elif voted:
        what = "the vote of trials " + ", ".join(map(str, members))
    note_held_out(
        study,
        f"{label} **{sign * loss:.4f}** on {len(y_held)} rows the search never saw ({what}). "
        f"The *Best Trial* value is the {settings.cv}-fold CV "
        f"{loss_label(settings.metric)} on the search "
        f"rows ({best.value:.4f}), the best of the trials: optimistic.",
    )
    return HeldOut(name, float(loss), len(y_held), line, tuple(lines))


def _identifier_names(X_search: Any, X_held: Any) -> list[Any]:
    """The columns that ``select`` warned about as row identifiers or text numbers (found on
    all its rows, as :func:`~optuna_psms.fms.datasets.identifier_warnings` and
    :func:`~optuna_psms.fms.datasets.text_number_warnings` do; the rules ignore row order)."""
    import pandas as pd

    from optuna_psms.fms.data import identifier_columns
    from optuna_psms.fms.data import text_number_columns

    if not isinstance(X_search, pd.DataFrame) or not isinstance(X_held, pd.DataFrame):
        return []
    X = pd.concat([X_search, X_held])
    return [found[0] for found in [*identifier_columns(X), *text_number_columns(X)]]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (``'pos'``, ``1``), for a message."""
    import numpy as np

    return value.item() if isinstance(value, np.generic) else value


def trial_rows(rows: int, subsample: float, cv: int) -> int:
    """How many of ``rows`` rows (of one class, or all of a regression) a trial
    cross-validates on with ``subsample``: the draw of
    :meth:`optuna_psms.fms.objective.FullModelObjective.splits`."""
    if subsample >= 1.0:
        return rows
    return min(rows, max(cv, round(subsample * rows)))


def small_data_warning(settings: StudySettings, y_search: Any, y_held: Any) -> str | None:
    """The one ``warning:`` line for scores computed on too few rows, or ``None``.

    It names the held-out part when it has fewer than :data:`MIN_HELD_OUT_ROWS` rows (not
    when there is none, ``y_held`` ``None``), with how far one row predicted otherwise moves
    a ``ber`` or ``error``; and the CV when a class has fewer than
    :data:`MIN_CLASS_ROWS_PER_FOLD` search rows per fold (a regression: fewer than
    :data:`MIN_HELD_OUT_ROWS` search rows). With a ``subsample`` below 1 the CV counts are
    those of the rows each trial draws (:func:`trial_rows`), not of all the search rows.

    Args:
        settings: The search's settings (task, metric, cv, and subsample if any).
        y_search: The labels of the search rows.
        y_held: The labels of the held-out rows, or ``None`` without a hold-out.
    """
    import numpy as np
    import pandas as pd

    classification = settings.task == "classification"
    cv = int(settings.cv)
    subsample = float(settings.subsample)
    # Each trial cross-validates on its own draw of the search rows: say so in the count.
    drawn = "" if subsample >= 1.0 else f" in each trial (of {{}}; --subsample {subsample:g})"
    parts = []
    if y_held is not None and len(y_held) < MIN_HELD_OUT_ROWS:
        metric = settings.metric
        name = "ber" if metric == "pi_svm" else shown(metric)[0]
        step = ""
        if classification and metric in ("ber", "pi_svm"):
            counts = pd.Series(np.asarray(y_held, dtype=object)).value_counts()
            step = (
                f"; one row predicted otherwise moves it by {1 / (len(counts) * counts.min()):.2f}"
            )
        elif classification and metric == "error":
            step = f"; one row predicted otherwise moves it by {1 / len(y_held):.2f}"
        parts.append(
            f"the held-out {name} is on {len(y_held)} rows (fewer than {MIN_HELD_OUT_ROWS}{step})"
        )
    if classification:
        totals = dict(pd.Series(np.asarray(y_search, dtype=object)).value_counts().items())
        used = {label: trial_rows(int(rows), subsample, cv) for label, rows in totals.items()}
        label, rows = min(used.items(), key=lambda item: (item[1], str(item[0])))
        if rows < MIN_CLASS_ROWS_PER_FOLD * cv:
            per_fold = f"{rows // cv}" if rows % cv == 0 else f"{rows // cv}-{rows // cv + 1}"
            of = drawn.format(f"its {totals[label]}")
            parts.append(
                f"class {_plain(label)!r} has {rows} search rows{of}, {per_fold} per "
                f"fold of the {cv}-fold CV (fewer than {MIN_CLASS_ROWS_PER_FOLD})"
            )
    elif (rows := trial_rows(len(y_search), subsample, cv)) < MIN_HELD_OUT_ROWS:
        of = drawn.format(len(y_search))
        parts.append(
            f"the {cv}-fold CV is on {rows} search rows{of} (fewer than {MIN_HELD_OUT_ROWS})"
        )
    if not parts:
        return None
    return "warning: too few rows for these scores to mean much: " + "; ".join(parts)
