"""Tests of the final check between the vote and a grid-tuned SVC (``final_check="svc"``)."""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import json
import logging
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
import joblib
import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from optuna_psms.cli import main
from optuna_psms.fms import _final_check
from optuna_psms.fms import FullModelRegressor
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._final_check import choose
from optuna_psms.fms._final_check import FINAL_CHECK_KEY


optuna.logging.set_verbosity(optuna.logging.ERROR)

# Linear and naive pipelines cannot separate an XOR; an RBF SVC can: the check picks it.
LINEAR = FullModelSpace(
    classifiers=["naive_bayes", "logistic"], selectors=["none"], preprocessors=["standardize"]
)


def _xor(n: int = 120, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    # A categorical column, with missing cells.
    colour = np.array(["red", "blue", None], dtype=object)[rng.integers(0, 3, n)]
    y = np.where(a * b > 0, "same", "other")
    return pd.DataFrame({"a": a, "b": b, "colour": colour}), y


def _fit(X: Any, y: Any, **kwargs: Any) -> FullModelSelector:
    settings: dict[str, Any] = {
        "space": LINEAR,
        "sampler": "random",
        "n_trials": 4,
        "ensemble_top": 3,
        "random_state": 0,
        "final_check": "svc",
    }
    return FullModelSelector(**{**settings, **kwargs}).fit(X, y)


@pytest.fixture(scope="module")
def xor_model() -> FullModelSelector:
    return _fit(*_xor())


@contextlib.contextmanager
def _warnings(caplog: Any) -> Iterator[None]:
    """Capture the warnings the check logs."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    optuna.logging.enable_propagation()
    try:
        with caplog.at_level(logging.WARNING):
            yield
    finally:
        optuna.logging.disable_propagation()
        optuna.logging.set_verbosity(optuna.logging.ERROR)


def _check_lines(caplog: Any) -> list[str]:
    return [r.getMessage() for r in caplog.records if "final_check" in r.getMessage()]


@given(st.floats(0, 1), st.floats(0, 1))
def test_the_lower_loss_wins_and_a_tie_goes_to_the_vote(vote: float, svc: float) -> None:
    assert choose(vote, svc) == ("svc" if svc < vote else "vote")
    assert choose(vote, vote) == "vote"
    assert choose(math.nan, svc) == "vote" and choose(vote, math.nan) == "vote"


def test_the_svc_wins_an_xor_and_predicts(xor_model: FullModelSelector) -> None:
    model = xor_model
    assert model.final_choice_ == "svc"
    assert model.final_check_losses_["svc"] < model.final_check_losses_["vote"]
    assert model.ensemble_trials_ == [] and len(model.ensemble_) == 1
    assert model.ensemble_[0].steps[-1][1].class_weight == "balanced"
    record = model.study_.user_attrs[FINAL_CHECK_KEY]
    assert record == model.final_check_ and len(json.dumps(record)) < 64_000
    assert record["folds"] == 5 and record["metric"] == "ber" and len(record["trials"]) == 3
    X_new, y_new = _xor(200, seed=1)
    pred = model.predict(X_new)
    assert set(pred) <= {"same", "other"} and np.mean(pred == y_new) > 0.8
    assert model.predict_proba(X_new).shape == (200, 2) and model.score(X_new, y_new) > 0.8
    assert "grid-tuned RBF SVC" in model.describe()


def test_save_load_and_export_with_the_svc(xor_model: FullModelSelector, tmp_path: Any) -> None:
    path = tmp_path / "m.joblib"
    joblib.dump(xor_model, path)
    loaded = joblib.load(path)
    X_new, _ = _xor(50, seed=2)
    assert (loaded.predict(X_new) == xor_model.predict(X_new)).all()
    assert loaded.final_choice_ == "svc"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "the estimator votes" warning: it does not
        text = loaded.export_python()
    namespace: dict[str, Any] = {}
    exec(compile(text, "exported.py", "exec"), namespace)
    X, y = _xor()
    script = namespace["fit"](X, y)
    assert "SVC" in text and "grid-tuned" in text
    assert (namespace["predict"](script, X_new) == loaded.predict(X_new)).all()


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_deterministic_from_random_state() -> None:
    X, y = _xor(80)
    first, second = _fit(X, y), _fit(X, y)
    assert first.final_check_ == second.final_check_
    assert first.final_check_ != _fit(X, y, random_state=5).final_check_


@pytest.mark.parametrize("metric", ["error", "auc", "f1_macro"])
def test_multiclass_and_other_metrics(metric: str) -> None:
    X, y = load_iris(return_X_y=True)
    rows = np.r_[0:20, 50:70, 100:120]
    model = _fit(X[rows], y[rows], metric=metric)
    assert model.final_check_["metric"] == metric
    assert set(model.final_check_losses_) == {"vote", "svc"}
    assert all(np.isfinite(v) for v in model.final_check_losses_.values())
    assert model.predict_proba(X[:5]).shape == (5, 3)
    assert model.final_choice_ == choose(
        model.final_check_losses_["vote"], model.final_check_losses_["svc"]
    )


def test_a_metric_the_svc_cannot_give_skips_the_check() -> None:
    # neg_log_loss needs predict_proba, which the SVC (probability=False) has not: the fit
    # raised AttributeError once the check was the default (select --metric neg_log_loss).
    X, y = load_iris(return_X_y=True)
    rows = np.r_[0:20, 50:70, 100:120]
    model = _fit(X[rows], y[rows], metric="neg_log_loss")
    assert model.final_choice_ == "vote" and model.final_check_losses_ == {}
    assert model.predict(X[:5]).shape == (5,)


def test_a_skip_for_the_metric_says_why_with_the_metric_as_given(
    monkeypatch: Any, caplog: Any
) -> None:
    # The line named the metric without saying why the SVC could not give it, after 60
    # grid fits that all failed alike.
    def grid(*args: Any) -> None:
        raise AssertionError("the grid ran")

    monkeypatch.setattr(_final_check, "tune_svc", grid)
    X, y = load_iris(return_X_y=True)
    rows = np.r_[0:20, 50:70, 100:120]
    with _warnings(caplog):
        model = _fit(X[rows], y[rows], metric="neg_log_loss")
        one = _fit(X[rows], y[rows], metric="neg_log_loss", ensemble_top=1)
    why = "metric 'neg_log_loss' needs class probabilities (predict_proba), which the SVC does "
    why += "not give"
    assert model.final_check_["skipped"] == why and one.final_check_["skipped"] == why
    assert _check_lines(caplog) == [
        f"final_check skipped: {why}; the vote is kept.",
        f"final_check skipped: {why}; the chosen pipeline is kept.",
    ]
    assert _final_check.describe(model.final_check_) == (
        f"final check skipped: {why}; the vote is kept"
    )


def test_one_member_compares_the_single_pipeline() -> None:
    model = _fit(*_xor(80), ensemble_top=1)
    assert model.final_check_["trials"] == [model.best_trial_.number]


def test_on_by_default_off_with_none_and_skipped_above_the_limit(
    monkeypatch: Any, caplog: Any
) -> None:
    assert FullModelSelector().final_check == "svc"  # the default since 26 Nov 2026
    X, y = _xor(80)
    off = _fit(X, y, final_check=None)
    assert off.final_choice_ == "vote" and off.final_check_ is None
    assert FINAL_CHECK_KEY not in off.study_.user_attrs
    monkeypatch.setattr(_final_check, "MAX_ROWS", 50)
    with _warnings(caplog):
        skipped = _fit(X, y)
    why = "80 search rows, above its limit of 50: the SVC's fit time grows as the square of "
    why += "the rows"
    assert _check_lines(caplog) == [f"final_check skipped: {why}; the vote is kept."]
    assert skipped.final_choice_ == "vote" and skipped.final_check_losses_ == {}
    assert skipped.final_check_["skipped"] == why
    assert len(skipped.ensemble_trials_) == 3


def test_fit_trial_refits_the_stored_choice(
    xor_model: FullModelSelector, monkeypatch: Any
) -> None:
    def fail(*args: Any) -> None:
        raise AssertionError("the check ran again")

    monkeypatch.setattr(_final_check, "run_check", fail)
    X, y = _xor(160, seed=3)  # other rows (e.g. all of them after a hold-out)
    refit = FullModelSelector(space=LINEAR, ensemble_top=3, random_state=0, final_check="svc")
    refit.fit_trial(X, y, xor_model.study_, xor_model.best_trial_)
    assert refit.final_choice_ == "svc" and refit.final_check_ == xor_model.final_check_
    assert refit.ensemble_[0].steps[0][1].n_features_in_ == 3


@pytest.mark.parametrize("bad", ["SVC", "none", True, 1])
def test_bad_values_raise_before_the_search(bad: Any) -> None:
    X, y = _xor(40)
    with pytest.raises(ValueError, match="final_check must be None or 'svc'"):
        FullModelSelector(space=LINEAR, n_trials=1, final_check=bad).fit(X, y)
    with pytest.raises(TypeError):
        FullModelRegressor(final_check="svc")  # type: ignore[call-arg]


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_cli_flag(tmp_path: Any, capsys: Any) -> None:
    X, y = _xor(160)
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    out_file = tmp_path / "m.joblib"
    argv = ["select", "--csv", str(tmp_path / "data.csv"), "--target", "label"]
    argv += ["--sampler", "random", "--classifiers", "naive_bayes,logistic", "--selectors"]
    argv += ["none", "--seed", "0", "--no-progress-bar", "--n-trials", "4"]
    argv += ["--ensemble-top", "3", "--output", str(out_file)]
    assert main([*argv, "--final-check", "svc"]) == 0
    out = capsys.readouterr().out
    assert "final check (5-fold CV ber on the search rows): vote " in out
    assert "-> the grid-tuned SVC" in out
    assert "the grid-tuned SVC the final check chose): " in out  # the held-out line
    assert "it predicts with the grid-tuned RBF SVC of the final check" in out
    assert joblib.load(out_file).final_choice_ == "svc"
    assert main([*argv, "--final-check", "none"]) == 0
    assert "final check" not in capsys.readouterr().out
    assert main(argv) == 0  # the default: the check
    assert "-> the grid-tuned SVC" in capsys.readouterr().out
    regression = ["select", "--dataset", "sklearn:diabetes", "--final-check", "svc"]
    assert main([*regression, "--n-trials", "1", "--no-progress-bar"]) != 0
    assert "--final-check svc is for classification" in capsys.readouterr().err


@pytest.mark.parametrize(
    "tampered",
    [
        {"svc": {"C": 1.0, "gamma": "scale", "kernel": "poly"}},
        {"svc": {"C": "1", "gamma": "scale"}},
        {"svc": None},
        {"losses": {"vote": "low", "svc": 0.1}},
        {"losses": []},
    ],
)
def test_a_tampered_record_is_checked_again_not_trusted(
    xor_model: FullModelSelector, monkeypatch: Any, tampered: dict[str, Any]
) -> None:
    # The record is read from storage (untrusted): fit_trial reused any record whose trials
    # and metric matched, and a bad "svc" entry reached SVC(**...) or the losses' dict.
    study = xor_model.study_
    stored = dict(study.user_attrs[FINAL_CHECK_KEY])
    assert stored["choice"] == "svc"
    study.set_user_attr(FINAL_CHECK_KEY, {**stored, **tampered})
    calls: list[int] = []
    real = _final_check.run_check

    def run_check(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_final_check, "run_check", run_check)
    X, y = _xor(160, seed=3)
    refit = FullModelSelector(space=LINEAR, ensemble_top=3, random_state=0, final_check="svc")
    try:
        refit.fit_trial(X, y, study, xor_model.best_trial_)
    finally:
        study.set_user_attr(FINAL_CHECK_KEY, stored)  # the module's model is shared
    assert calls == [1] and refit.final_check_["svc"] is not None
    assert refit.predict(X).shape == (160,)


def test_the_line_after_the_search_announces_the_check_and_only_the_winner_is_refitted(
    monkeypatch: Any, capsys: Any
) -> None:
    # The line said "refitting up to 3 best distinct pipelines" when the check came next and
    # chose the SVC; the members were refitted on all the rows, then dropped for it.
    from optuna_psms.fms import _ensemble
    from optuna_psms.fms import selector

    refitted: list[int] = []
    real = _ensemble.fit_members

    def fit_members(objective: Any, trials: list[Any]) -> Any:
        refitted.extend(t.number for t in trials)
        return real(objective, trials)

    monkeypatch.setattr(selector, "fit_members", fit_members)
    X, y = _xor()
    model = _fit(X, y, show_progress_bar=True)
    err = capsys.readouterr().err
    assert model.final_choice_ == "svc" and refitted == []
    assert (
        "search done; final check (the vote of up to 3 best pipelines against a grid-tuned RBF "
        "SVC, 5-fold CV on 120 rows), then refitting the winner ...\n"
    ) in err
    assert "refitting up to" not in err
    # The check skipped (a metric the SVC cannot give): the line says what happens instead.
    iris, labels = load_iris(return_X_y=True)
    rows = np.r_[0:20, 50:70, 100:120]
    _fit(iris[rows], labels[rows], metric="neg_log_loss", show_progress_bar=True)
    err = capsys.readouterr().err
    assert "search done; refitting up to 3 best distinct pipelines on 60 rows ...\n" in err
    assert "final check" not in err and len(refitted) == 2  # the vote kept: its members


def test_the_check_line_shows_a_scorer_as_itself() -> None:
    # "accuracy" is minimised as -accuracy: the line printed "vote -0.9500".
    record = {
        "choice": "vote",
        "losses": {"vote": -0.95, "svc": -0.9},
        "metric": "accuracy",
        "folds": 5,
        "svc": {"C": 1.0, "gamma": "scale"},
        "trials": [4, 2],
        "rows": 100,
        "skipped": None,
    }
    assert _final_check.describe(record) == (
        "final check (5-fold CV accuracy on the search rows, higher is better): vote of 2 = "
        "0.9500, grid-tuned SVC (C=1, gamma=scale) = 0.9000 -> the vote"
    )
    record.update(metric="auc", losses={"vote": 0.05, "svc": 0.04}, choice="svc", trials=[4])
    assert _final_check.describe(record) == (
        "final check (5-fold CV 1-AUC on the search rows): trial 4 = 0.0500, grid-tuned SVC "
        "(C=1, gamma=scale) = 0.0400 -> the grid-tuned SVC"
    )


def test_select_says_a_skip_once_with_the_metric_as_given(
    tmp_path: Any, capsys: Any, caplog: Any
) -> None:
    # The skip was logged to stderr and printed in the report: twice, in two wordings.
    X, y = _xor(160)
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    argv = ["select", "--csv", str(tmp_path / "data.csv"), "--target", "label"]
    argv += ["--sampler", "random", "--classifiers", "naive_bayes,logistic", "--selectors"]
    argv += ["none", "--seed", "0", "--no-progress-bar", "--n-trials", "3", "--ensemble-top"]
    argv += ["2", "--metric", "neg_log_loss", "--output", str(tmp_path / "m.joblib")]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}"]
    with _warnings(caplog):
        assert main(argv) == 0
    out, err = capsys.readouterr()
    why = "metric 'neg_log_loss' needs class probabilities (predict_proba), which the SVC does "
    why += "not give"
    assert f"final check skipped: {why}; the vote is kept\n" in out
    assert _check_lines(caplog) == [] and "final check" not in err
    assert out.count("final check") == 1


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_the_study_says_what_the_saved_model_is_and_why(tmp_path: Any, capsys: Any) -> None:
    # The dashboard's Best Trial card shows one pipeline of the search; the saved model may be
    # the final check's SVC or a vote. With --test-size 0 (no held-out section) the study
    # said nothing of it (usertrial8): the note and a user attr say it now.
    from optuna_dashboard import get_note

    from optuna_psms.samplers._study_info import HELD_OUT_HEADING
    from optuna_psms.samplers._study_info import SAVED_MODEL_HEADING

    X, y = _xor(160)
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    db = f"sqlite:///{tmp_path}/s.db"
    out_file = str(tmp_path / "m.joblib")
    argv = ["select", "--csv", str(tmp_path / "data.csv"), "--target", "label"]
    argv += ["--sampler", "random", "--classifiers", "naive_bayes,logistic", "--selectors"]
    argv += ["none", "--seed", "0", "--no-progress-bar", "--n-trials", "4", "--storage", db]
    argv += ["--ensemble-top", "3", "--output", out_file]

    def note_and_attr(name: str) -> tuple[str, dict[str, Any]]:
        study = optuna.load_study(study_name=name, storage=db)
        return get_note(study), study.user_attrs["fms:saved_model"]

    assert main([*argv, "--test-size", "0", "--study-name", "all"]) == 0
    assert "-> the grid-tuned SVC" in capsys.readouterr().out
    note, attr = note_and_attr("all")
    assert HELD_OUT_HEADING not in note and note.count(SAVED_MODEL_HEADING) == 1
    saved = note.split(SAVED_MODEL_HEADING, 1)[1]
    described = joblib.load(out_file).describe()
    assert attr == {"file": out_file, "model": described}
    assert f"`{out_file}`, refitted on all 160 rows: {described}." in saved
    assert "grid-tuned RBF SVC" in saved and "It is not the *Best Trial*'s pipeline." in saved
    # Run again on the same study with the vote kept: the section is replaced, not added.
    assert main([*argv, "--test-size", "0", "--study-name", "all", "--final-check", "none"]) == 0
    capsys.readouterr()
    note, attr = note_and_attr("all")
    assert note.count(SAVED_MODEL_HEADING) == 1 and "grid-tuned RBF SVC" not in note
    assert "the model votes with 3" in note and "predicts by a vote of 3" in attr["model"]
    # With a hold-out, both sections: the held-out estimate, then the saved model.
    assert main([*argv, "--study-name", "held"]) == 0
    capsys.readouterr()
    note, _ = note_and_attr("held")
    assert 0 < note.index(HELD_OUT_HEADING) < note.index(SAVED_MODEL_HEADING)
