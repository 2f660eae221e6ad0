"""Tests of the pipelines a full-model search evaluates first (``initial_pipelines``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_iris

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._initial import default_pipelines
from optuna_psms.fms._initial import INITIAL_ATTR


optuna.logging.set_verbosity(optuna.logging.ERROR)


@pytest.fixture(scope="module")
def binary() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:60, 300:400]
    return X[rows, :8], y[rows]


def _initial(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return [t for t in study.trials if INITIAL_ATTR in t.user_attrs]


@pytest.mark.parametrize("sampler", ["pso", "tpe", "pattern"])
def test_the_defaults_are_the_first_trials_and_complete(
    binary: tuple[Any, Any], sampler: str
) -> None:
    X, y = binary
    model = FullModelSelector(
        final_check=None, sampler=sampler, n_trials=7, random_state=0, initial_pipelines="defaults"
    ).fit(X, y)
    trials = model.study_.trials
    assert len(trials) == 7  # the enqueued trials count towards n_trials
    assert [t.user_attrs.get(INITIAL_ATTR) for t in trials] == [0, 1, 2, 3, None, None, None]
    assert [t.params["clf:method"] for t in trials[:4]] == [
        "svc",
        "logistic",
        "random_forest",
        "gradient_boosting",
    ]
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    svc = trials[0].params
    assert svc["clf:svc:kernel"] == "rbf" and svc["clf:svc:C"] == 1.0
    assert svc["clf:svc:gamma"] == pytest.approx(1 / 8)  # gamma="scale" on standardised columns
    assert svc["pre:standardize"] and not svc["pre:normalize"] and svc["fs:method"] == "none"
    assert all(t.params["post:bias"] for t in trials[:4])  # BER: the threshold step balances
    # the sampler's own trials are not copies of the defaults
    assert all(t.params != trials[0].params for t in trials[4:])


def test_the_defaults_are_the_default_and_none_turns_them_off(binary: tuple[Any, Any]) -> None:
    X, y = binary
    model = FullModelSelector(final_check=None, sampler="random", n_trials=5, random_state=0).fit(
        X, y
    )
    assert [t.number for t in _initial(model.study_)] == [0, 1, 2, 3]
    off = FullModelSelector(
        final_check=None, sampler="random", n_trials=3, random_state=0, initial_pipelines=None
    )
    assert _initial(off.fit(X, y).study_) == []


def test_a_balanced_metric_decides_the_threshold_step() -> None:
    space = FullModelSpace()
    ctx = space.context(n_features=4, n_classes=2, n_samples=100)
    assert all(p["post:bias"] for p in default_pipelines(space, ctx, "ber"))
    assert not any(p["post:bias"] for p in default_pipelines(space, ctx, "error"))
    multi = space.context(n_features=4, n_classes=3, n_samples=100)
    assert all("post:bias" not in p for p in default_pipelines(space, multi, "ber"))


def test_only_what_the_space_holds_is_enqueued() -> None:
    space = FullModelSpace(classifiers=["svc", "naive_bayes"], selectors=[], preprocessors=[])
    pipes = default_pipelines(space, space.context(3, 2, 50), "ber")
    assert pipes == [
        {
            "post:bias": True,
            "clf:method": "svc",
            "clf:svc:C": 1.0,
            "clf:svc:kernel": "rbf",
            "clf:svc:gamma": pytest.approx(1 / 3),
        }
    ]
    one = FullModelSpace(classifiers=["logistic"], bias=False)
    (only,) = default_pipelines(one, one.context(3, 2, 50), "ber")
    assert "clf:method" not in only and only["clf:logistic:C"] == 1.0
    # gamma stays in the space's range however many features there are
    wide = default_pipelines(FullModelSpace(), FullModelSpace().context(50_000, 2, 50), "ber")
    assert wide[0]["clf:svc:gamma"] == 1e-4


def test_without_none_the_defaults_keep_every_feature_by_the_mask() -> None:
    # --selectors mask (usertrial7, 26 Nov 2026): the mask flags were the sampler's, so the
    # "default logistic regression" ran on a random subset of the features.
    only = FullModelSpace(classifiers=["logistic", "svc"], selectors=["mask"])
    for pipe in default_pipelines(only, only.context(12, 2, 50), "ber"):
        assert "fs:method" not in pipe
        flags = {k: v for k, v in pipe.items() if k.startswith("fs:mask:")}
        assert flags == {f"fs:mask:{i:02d}": True for i in range(12)}
    mixed = FullModelSpace(classifiers=["logistic"], selectors=["ftest", "mask"])
    (pipe,) = default_pipelines(mixed, mixed.context(3, 2, 50), "ber")
    assert pipe["fs:method"] == "mask" and all(pipe[f"fs:mask:{i}"] for i in range(3))
    blocks = FullModelSpace(classifiers=["logistic"], selectors=["mask"], max_mask_params=4)
    (pipe,) = default_pipelines(blocks, blocks.context(40, 2, 50), "ber")
    assert {k for k in pipe if k.startswith("fs:")} == {f"fs:mask:b{j}" for j in range(4)}
    # With "none" in the space, "none" it is, as before; with neither, the sampler's choice.
    (pipe,) = default_pipelines(
        FullModelSpace(classifiers=["logistic"], selectors=["none", "mask"]),
        FullModelSpace().context(3, 2, 50),
        "ber",
    )
    assert pipe["fs:method"] == "none" and not any(k.startswith("fs:mask") for k in pipe)
    ftest = FullModelSpace(classifiers=["logistic"], selectors=["ftest", "pca"])
    (pipe,) = default_pipelines(ftest, ftest.context(3, 2, 50), "ber")
    assert not any(k.startswith("fs:") for k in pipe)


def test_a_mask_only_search_starts_from_every_feature(binary: tuple[Any, Any]) -> None:
    X, y = binary
    space = FullModelSpace(classifiers=["logistic", "naive_bayes"], selectors=["mask"])
    model = FullModelSelector(
        space=space, final_check=None, ensemble_top=1, sampler="pso", n_trials=2, random_state=0
    ).fit(X, y)
    (first, second) = model.study_.trials
    assert first.user_attrs[INITIAL_ATTR] == 0
    assert first.user_attrs["fms:pipeline"].startswith("mask(8/8 features) > standardize")
    assert INITIAL_ATTR not in second.user_attrs


def test_a_custom_list_leaves_the_rest_to_the_sampler() -> None:
    X, y = load_iris(return_X_y=True)
    model = FullModelSelector(
        final_check=None,
        sampler="random",
        n_trials=3,
        random_state=0,
        initial_pipelines=[{"clf:method": "naive_bayes"}, {"clf:method": "svc", "clf:svc:C": 5.0}],
    ).fit(X, y)
    first, second, third = model.study_.trials
    assert first.params["clf:method"] == "naive_bayes" and first.user_attrs[INITIAL_ATTR] == 0
    assert second.params["clf:svc:C"] == 5.0 and "clf:svc:kernel" in second.params
    assert INITIAL_ATTR not in third.user_attrs


def test_a_resumed_study_is_not_seeded_again(binary: tuple[Any, Any], tmp_path: Any) -> None:
    X, y = binary
    url = f"sqlite:///{tmp_path / 'fms.db'}"
    kwargs: dict[str, Any] = dict(
        sampler="random",
        random_state=0,
        initial_pipelines="defaults",
        storage=url,
        study_name="s",
        load_if_exists=True,
    )
    FullModelSelector(final_check=None, n_trials=5, **kwargs).fit(X, y)
    model = FullModelSelector(final_check=None, n_trials=3, **kwargs).fit(X, y)
    assert len(model.study_.trials) == 8
    assert [t.number for t in _initial(model.study_)] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "bad", ["default", [["clf:method", "svc"]], {"clf:method": "svc"}, [{1: "x"}], 3]
)
def test_a_bad_value_is_one_clear_line_before_any_trial(binary: tuple[Any, Any], bad: Any) -> None:
    X, y = binary
    model = FullModelSelector(
        final_check=None, sampler="random", n_trials=2, initial_pipelines=bad
    )
    with pytest.raises(ValueError, match=r"initial_pipelines must be None, one of \[.*'defaults'"):
        model.fit(X, y)


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("svc-c", [(10.0, 1.0), (100.0, 1.0)]),
        ("svc-grid", [(10.0, 1.0), (100.0, 1.0), (1.0, 0.1), (10.0, 0.1), (100.0, 0.1)]),
    ],
)
def test_a_portfolio_adds_standardised_rbf_svcs_after_the_defaults(
    binary: tuple[Any, Any], name: str, extra: list[tuple[float, float]]
) -> None:
    X, y = binary
    n = len(extra) + 4
    model = FullModelSelector(
        final_check=None, sampler="pso", n_trials=n + 2, random_state=0, initial_pipelines=name
    ).fit(X, y)
    trials = model.study_.trials
    assert [t.user_attrs.get(INITIAL_ATTR) for t in trials] == [*range(n), None, None]
    defaults = FullModelSelector(
        final_check=None, sampler="pso", n_trials=4, random_state=0, initial_pipelines="defaults"
    ).fit(X, y)
    assert [t.params for t in trials[:4]] == [t.params for t in defaults.study_.trials]
    for t, (c, g) in zip(trials[4:n], extra):
        p = t.params
        assert (p["clf:method"], p["clf:svc:kernel"], p["clf:svc:C"]) == ("svc", "rbf", c)
        assert p["clf:svc:gamma"] == pytest.approx(g / 8)
        assert p["pre:standardize"] and p["fs:method"] == "none" and p["post:bias"]
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
