"""The joint feature mask's rule for an empty selection: all ``False`` keeps every feature.

A sampler may propose the all-``False`` corner of the mask (PSOSampler did in
FullModelSelector's docstring example); that trial failed ("the feature mask keeps no
feature") until 26 Nov 2026. Now it is the pipeline without selection, and the description,
the exported script and the refit all say and do the same; a mask that keeps at least one
feature is unchanged.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms import FullModelSelector
from optuna_psms.fms import export_python
from optuna_psms.fms import FeatureMask
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import RegressionFeatureMask
from optuna_psms.fms import RegressionSpace
from optuna_psms.fms.estimators import score_ftest


optuna.logging.set_verbosity(optuna.logging.WARNING)

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(40, 7))
_Y = np.repeat([0, 1], 20)
_X[:, 2] += 3.0 * _Y


def _fixed_spec(space: Any, params: dict[str, Any], n_features: int, n_classes: int) -> Any:
    ctx = space.context(n_features, n_classes, 40)
    return space.suggest(optuna.trial.FixedTrial(params), ctx)


@pytest.mark.parametrize("grouping", ["score", "index"])
def test_all_false_keeps_every_feature(grouping: str) -> None:
    for mask in (
        FeatureMask(mask=(False,) * 7),
        FeatureMask(blocks=(False,) * 3, grouping=grouping),
    ):
        mask.fit(_X, _Y)
        assert mask.support_.all() and np.array_equal(mask.transform(_X), _X)
    y_reg = _X[:, 2] + 0.1 * _RNG.normal(size=40)
    for reg in (
        RegressionFeatureMask(mask=(False,) * 7),
        RegressionFeatureMask(blocks=(False,) * 3, grouping=grouping),
    ):
        reg.fit(_X, y_reg)
        assert reg.support_.all() and np.array_equal(reg.transform(_X), _X)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=7, max_size=7).filter(any))
def test_a_mask_keeping_a_feature_is_unchanged(flags: list[bool]) -> None:
    mask = FeatureMask(mask=tuple(flags)).fit(_X, _Y)
    assert list(mask.support_) == flags
    reg = RegressionFeatureMask(mask=tuple(flags)).fit(_X, _X[:, 2])
    assert list(reg.support_) == flags
    space = FullModelSpace(
        classifiers=["naive_bayes"], selectors=["mask"], preprocessors=[], bias=False
    )
    params: dict[str, Any] = {f"fs:mask:{i}": b for i, b in enumerate(flags)}
    params["clf:naive_bayes:var_smoothing"] = 1e-9
    spec = _fixed_spec(space, params, 7, 2)
    assert spec.describe().startswith(f"mask({sum(flags)}/7 features) > ")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.booleans(), min_size=3, max_size=3).filter(any),
    st.sampled_from(["score", "index"]),
)
def test_a_block_mask_keeping_a_block_is_unchanged(flags: list[bool], grouping: str) -> None:
    mask = FeatureMask(blocks=tuple(flags), grouping=grouping).fit(_X, _Y)
    order = (
        np.argsort(-score_ftest(_X, _Y), kind="stable") if grouping == "score" else np.arange(7)
    )
    expected = np.zeros(7, dtype=bool)
    for keep, group in zip(flags, np.array_split(order, 3)):
        expected[group] = keep
    assert np.array_equal(mask.support_, expected)


def test_empty_mask_is_described_as_keeping_all() -> None:
    space = FullModelSpace(
        classifiers=["naive_bayes"], selectors=["mask"], preprocessors=[], bias=False
    )
    params: dict[str, Any] = {f"fs:mask:{i}": False for i in range(7)}
    params["clf:naive_bayes:var_smoothing"] = 1e-9
    spec = _fixed_spec(space, params, 7, 2)
    assert spec.describe() == (
        "mask(0/7 features, none set: keeps all features) > naive_bayes(var_smoothing=1e-09)"
    )
    pipeline = space.build(spec).fit(_X, _Y)
    assert pipeline.named_steps["fs_mask"].support_.all()
    blocks = FullModelSpace(
        classifiers=["naive_bayes"], selectors=["mask"], preprocessors=[], max_mask_params=3
    )
    params = {f"fs:mask:b{j}": False for j in range(3)}
    params.update({"clf:naive_bayes:var_smoothing": 1e-9, "post:bias": False})
    assert (
        _fixed_spec(blocks, params, 7, 2)
        .describe()
        .startswith("mask(0/3 blocks, score, none set: keeps all features) > ")
    )
    reg = RegressionSpace(regressors=["linear"], selectors=["mask"], preprocessors=[])
    params = {f"fs:mask:{i}": False for i in range(7)}
    params.update({"reg:linear:penalty": "ridge", "reg:linear:alpha": 1e-3})
    spec = _fixed_spec(reg, params, 7, 0)
    assert spec.describe().startswith("mask(0/7 features, none set: keeps all features) > ")
    fitted = reg.build(spec).fit(_X, _X[:, 2])
    assert fitted.named_steps["fs_mask"].support_.all()


def test_an_all_false_mask_trial_completes_and_exports_what_it_fits() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    space = FullModelSpace(
        classifiers=["naive_bayes"], selectors=["mask"], preprocessors=[], bias=False
    )
    empty: dict[str, Any] = {f"fs:mask:{i:02d}": False for i in range(X.shape[1])}
    empty["clf:naive_bayes:var_smoothing"] = 1e-9
    model = FullModelSelector(
        space=space,
        n_trials=1,
        initial_pipelines=[empty],
        ensemble_top=1,
        final_check=None,
        random_state=0,
    ).fit(X, y)
    trial = model.study_.trials[0]
    assert trial.state == optuna.trial.TrialState.COMPLETE
    assert trial.params == empty
    assert trial.user_attrs["fms:n_features"] == X.shape[1]
    assert "none set: keeps all features" in trial.user_attrs["fms:pipeline"]
    assert model.best_pipeline_.named_steps["fs_mask"].support_.all()
    script = export_python(model)
    assert "Pipeline: mask(0/30 features, none set: keeps all features)" in script
    namespace: dict[str, Any] = {}
    exec(script.replace('if __name__ == "__main__":', "if False:"), namespace)
    refit = namespace["fit"](X, y)
    assert np.array_equal(namespace["predict"](refit, X), model.predict(X))
