"""``time_budget``: the search stops inside it, says so, and the refit fits in what is left;
``verbose=1`` shows progress (issue 32, item 3)."""

from __future__ import annotations

import io
import logging
from typing import Any

import numpy as np
import optuna
import pytest

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._budget import check_time_budget
from optuna_psms.fms._budget import Progress
from optuna_psms.fms._budget import STOPPED_MARK
from optuna_psms.fms._budget import svc_check_seconds
from optuna_psms.fms._budget import TimeBudget


@pytest.mark.slow
def test_the_budget_ends_the_search_says_so_and_records_it(caplog: Any) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    model = FullModelSelector(
        space=FullModelSpace(classifiers=["naive_bayes", "logistic"]),
        n_trials=100_000,
        time_budget=10,
        random_state=0,
        final_check=None,
    )
    with caplog.at_level(logging.WARNING):
        model.fit(X, y)
    record = model.time_budget_
    assert record is not None
    assert record["stopped_by"] == "time_budget" and record["time_budget"] == 10.0
    assert 0 < record["trials"] < 100_000
    assert record["search_seconds"] <= record["total_seconds"]
    assert model.study_.user_attrs["fms:time_budget"] == record
    said = [r.getMessage() for r in caplog.records if STOPPED_MARK in r.getMessage()]
    assert len(said) == 1 and said[0].startswith(f"{STOPPED_MARK} {record['trials']} trial")
    assert model.predict(X[:5]).shape == (5,)


def test_n_trials_may_be_none_with_a_budget_and_a_bad_budget_is_one_clear_error() -> None:
    assert check_time_budget(None) is None and check_time_budget(30) == 30.0
    for bad in (0, -5, float("inf"), float("nan"), "60", True):
        with pytest.raises(ValueError, match="time_budget must be"):
            check_time_budget(bad)
    with pytest.raises(ValueError, match="set n_trials or timeout \\(or time_budget\\)"):
        FullModelSelector(n_trials=None).fit(np.zeros((10, 2)), np.arange(10) % 2)


def test_the_vote_keeps_the_members_whose_refits_fit() -> None:
    class _Objective:
        class space:
            model_prefix, model_kind, classifier_names = "clf", "classifier", ["xgboost"]

        class context:
            n_samples = 500

        y = np.zeros(1000)

    def trial(seconds: float) -> optuna.trial.FrozenTrial:
        return optuna.trial.create_trial(
            params={},
            distributions={},
            value=0.1,
            user_attrs={"fms:fit_time": seconds, "fms:fold_scores": [0.1, 0.1]},
        )

    budget = TimeBudget(1_000.0)  # each refit: half the two-fold fit time, twice the rows
    kept, refits = budget.members(_Objective(), [trial(400.0), trial(200.0), trial(2_000.0)])
    assert len(kept) == 2 and refits == pytest.approx(600.0)
    assert budget.check_skip(refits, 5) is not None  # 5 x 600 s of CV do not fit
    assert budget.check_skip(1.0, 5) is None


def test_progress_lines_say_trials_best_and_time_left() -> None:
    stream = io.StringIO()  # not a terminal: one line at most every `every` seconds
    progress = Progress("ber", TimeBudget(300.0), stream=stream, every=0.0)
    study = optuna.create_study()
    for value in (0.3, 0.2, 0.25):
        study.add_trial(optuna.trial.create_trial(params={}, distributions={}, value=value))
        progress.callback(study, study.trials[-1])
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[-1].startswith("[fms] 3 trials done, best CV ber 0.2000 (trial 1), ")
    assert "s left of the 300 s budget" in lines[-1]
    quiet = io.StringIO()
    slow = Progress("ber", None, stream=quiet, every=3600.0)
    slow.callback(study, study.trials[0])
    assert quiet.getvalue() == ""  # within 30 s (here an hour) of the last line: nothing


def test_the_final_check_counts_its_svc_grid() -> None:
    class _Objective:
        X = np.random.default_rng(0).normal(size=(2_000, 3))
        y = (X[:, 0] > 0).astype(np.int64)

    seconds = svc_check_seconds(_Objective())
    assert seconds > 0.0
    budget = TimeBudget(1_000.0)
    assert budget.check_skip(1.0, 5, svc=10.0) is None
    said = budget.check_skip(1.0, 5, svc=10_000.0)
    assert said is not None and said.startswith("the time budget: it would take about")
