"""``FullModelSelector.fit`` warns when its vote holds every distinct pipeline of its study
(``select`` says so in its own words, once)."""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np
import pandas as pd
import pytest

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace


def _data(n: int = 60) -> tuple[pd.DataFrame, Any]:
    rng = np.random.default_rng(0)
    y = rng.choice(["yes", "no"], n)
    return pd.DataFrame({"size": rng.normal(size=n) + 1.0 * (y == "yes")}), y


def _selector(**kwargs: Any) -> FullModelSelector:
    # logistic only: its C is continuous, so every trial is a distinct pipeline.
    return FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["logistic"], selectors=["none"]),
        sampler="random",
        initial_pipelines=None,
        n_trials=3,
        random_state=0,
        **kwargs,
    )


def test_fit_warns_when_the_vote_holds_every_trial() -> None:
    # The docstring example voted with all 5 trials, one at chance level, and said nothing;
    # select warned (usertrial6, item 4).
    X, y = _data()
    with pytest.warns(UserWarning, match="the vote holds all 3 distinct complete") as record:
        model = _selector().fit(X, y)
    assert len(model.ensemble_trials_) == 3
    (warning,) = [w for w in record if "the vote holds all" in str(w.message)]
    assert warning.filename == __file__  # the user's line
    assert "ensemble_top=10" in str(warning.message)


@pytest.mark.parametrize("top", [1, 2])
def test_no_warning_when_the_vote_leaves_trials_out(top: int) -> None:
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _selector(ensemble_top=top).fit(X, y)
    assert len(model.ensemble_trials_) == top
    assert [str(w.message) for w in caught if "the vote holds" in str(w.message)] == []


def test_select_says_it_once(tmp_path: Any, capsys: Any) -> None:
    from optuna_psms.cli import main

    X, y = _data()
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    argv = ["select", "--csv", str(tmp_path / "data.csv"), "--target", "label"]
    argv += ["--classifiers", "logistic", "--selectors", "none", "--sampler", "random"]
    argv += ["--initial-pipelines", "none", "--final-check", "none", "--n-trials", "3"]
    argv += ["--seed", "0", "--no-progress-bar", "--output", str(tmp_path / "m.joblib")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(argv) == 0
    _, err = capsys.readouterr()
    assert [str(w.message) for w in caught if "the vote holds" in str(w.message)] == []
    assert err.count("the vote holds all") == 1
    assert "warning: the vote holds all 3 distinct complete pipelines" in err
