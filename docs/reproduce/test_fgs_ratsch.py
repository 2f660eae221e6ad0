"""The FGS Table 4 script on Rätsch's protocol (docs/reproduce/fgs_ratsch.py), on a tiny
setting."""

from __future__ import annotations

import functools
import json
from pathlib import Path
import statistics
from typing import Any

import numpy as np
import pytest


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


DOCS = Path(__file__).parent


@pytest.fixture
def ratsch(monkeypatch: pytest.MonkeyPatch) -> Any:
    import fgs_ratsch

    small = (
        ("AFGS-60", "afgs", 6),
        ("CMA-ES-60", "cmaes", 6),
        ("DFGS-90", "dfgs", 6),
        ("CMA-ES-90", "cmaes", 8),
        ("CMA-ES-300", "cmaes", 10),
        ("random-90", "random", 6),
    )
    monkeypatch.setattr(fgs_ratsch, "RUNS", small)
    return fgs_ratsch


def test_splits_have_the_training_size_of_ratsch(ratsch: Any) -> None:
    parts = ratsch.splits("heart", 6)
    assert len(parts) == 6
    for x_tr, x_te, y_tr, _ in parts:
        assert len(x_tr) == len(y_tr) == 170 and len(x_tr) + len(x_te) == 270
    assert not (parts[0][0] == parts[1][0]).all()  # each split is another draw


def test_fitness_is_the_mean_error_of_the_first_five_splits(ratsch: Any) -> None:
    results = ratsch.run_set("heart", 7, seed=0)
    assert [r["run"] for r in results] == [label for label, _, _ in ratsch.RUNS]
    parts = ratsch.splits("heart", 7)
    for r in results:
        assert r["trials"] == dict((label, n) for label, _, n in ratsch.RUNS)[r["run"]]
        errors = [ratsch.error(r["params"], s) for s in parts]
        assert r["test"] == pytest.approx(errors)  # every split, with the chosen parameters
        assert r["fitness"] == pytest.approx(statistics.fmean(errors[:5]))
    text = ratsch.table(results, ["heart"])
    assert "| heart |" in text and "/ 15.8" in text  # the paper's figure beside ours


def test_significance_needs_a_consistent_difference(ratsch: Any) -> None:
    a = [0.1 + 0.001 * i for i in range(30)]
    assert ratsch.significant(a, a) == "="
    assert ratsch.significant(a, [x + 0.05 for x in a]) == "<"
    assert ratsch.significant([x + 0.05 for x in a], a) == ">"


def test_the_mlp_protocol_pairs_its_own_runs(ratsch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    small = (
        ("AFGS-30", "afgs", 4),
        ("CMA-ES-30", "cmaes", 4),
        ("DFGS-60", "dfgs", 4),
        ("CMA-ES-60", "cmaes", 5),
        ("CMA-ES-300", "cmaes", 6),
        ("random-60", "random", 4),
    )
    monkeypatch.setattr(ratsch, "MLP_RUNS", small)
    # The protocol, not the network, is under test: 10 epochs instead of 100 keep it fast.
    monkeypatch.setattr(ratsch, "build", functools.partial(ratsch.build, max_iter=10))
    results = ratsch.run_set("heart", 6, seed=0, model="mlp")
    assert [r["run"] for r in results] == [label for label, _, _ in small]
    for r in results:
        assert r["model"] == "mlp" and set(r["params"]) == {"hidden", "log10_alpha"}
    text = ratsch.table(results, ["heart"], "mlp")
    assert "AFGS-30 vs CMA-ES-30, DFGS-60 vs CMA-ES-60" in text and "/ 27.8" in text
    with pytest.raises(ValueError, match="model must be one of"):
        ratsch.protocol("tree")


def test_the_anisotropic_kernel_with_equal_widths_is_the_isotropic_one(ratsch: Any) -> None:
    build = ratsch.build  # docs/reproduce/fgs_svm.py's, which fgs_ratsch imports

    for name, d, columns in (("heart", 13, 13), ("breast", 9, 39)):
        attrs = ratsch.attributes(name)
        assert len(attrs) == columns and int(attrs.max()) + 1 == d  # one width per attribute
        x_tr, x_te, y_tr, _ = split = ratsch.splits(name, 1)[0]
        aniso = {"log2_C": 2.5, **{f"log2_gamma_{i}": -3.0 for i in range(d)}}
        iso = {"log2_C": 2.5, "log2_gamma": -3.0}
        ours = ratsch.aniso_build(aniso, attrs).fit(x_tr, y_tr).decision_function(x_te)
        theirs = build("svm", iso, seed=0).fit(x_tr, y_tr).decision_function(x_te)
        assert np.ptp(theirs) > 1.0  # not a constant decision function
        assert ours == pytest.approx(theirs, abs=1e-6)
        assert ratsch.error(aniso, split, "svm-aniso", attrs) == ratsch.error(iso, split)


def test_each_width_acts_on_the_columns_of_its_own_attribute(ratsch: Any) -> None:
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    attrs = ratsch.attributes("breast")  # x3 (inv-nodes) is one-hot: 7 columns
    keep = 3
    assert (attrs == keep).sum() == 7
    x_tr, x_te, y_tr, _ = ratsch.splits("breast", 1)[0]
    params = {"log2_C": 4.0, **{f"log2_gamma_{i}": -400.0 for i in range(9)}}
    params[f"log2_gamma_{keep}"] = -1.0  # every other attribute switched off
    ours = ratsch.aniso_build(params, attrs).fit(x_tr, y_tr).decision_function(x_te)
    only = make_pipeline(StandardScaler(), SVC(C=16.0, gamma=0.5))
    cols = attrs == keep
    theirs = only.fit(x_tr[:, cols], y_tr).decision_function(x_te[:, cols])
    assert np.ptp(theirs) > 1.0  # not a constant decision function
    assert ours == pytest.approx(theirs, abs=1e-6)
    params[f"log2_gamma_{keep}"] = -6.0  # and the width matters
    other = ratsch.aniso_build(params, attrs).fit(x_tr, y_tr).decision_function(x_te)
    assert other != pytest.approx(theirs, abs=1e-5)


def test_the_anisotropic_runs_pair_afgs_with_cmaes_at_equal_trials(ratsch: Any) -> None:
    # the paper's Table 5 CMA-ES counts at 5 generations: 55 (heart), 50 (breast, pima), 65
    assert [5 * ratsch.cma_popsize(d + 1) for d in (13, 9, 8, 20)] == [55, 50, 50, 65]
    results = ratsch.run_set("heart", 6, seed=0, model="svm-aniso", generations=(1, 2))
    labels = ["CMA-ES-1g", "AFGS-1g", "CMA-ES-2g", "AFGS-2g"]
    assert [r["run"] for r in results] == labels
    assert [r["trials"] for r in results] == [11, 11, 22, 22]
    attrs = ratsch.attributes("heart")
    parts = ratsch.splits("heart", 6)
    for r in results:
        assert r["n_params"] == 14 and len(r["params"]) == 14
        errors = [ratsch.error(r["params"], s, "svm-aniso", attrs) for s in parts]
        assert r["test"] == pytest.approx(errors)
        assert r["fitness"] == pytest.approx(statistics.fmean(errors[:5]))
    text = ratsch.aniso_table(results, ["heart"])
    assert "| heart (D 13; 11, 22) |" in text and "AFGS-1g vs CMA-ES-1g" in text
    assert "/ 15.7" not in text and "(? ?) |" in text  # no paper column at 1 or 2 generations
    assert ratsch.paper_column("AFGS-50g") == 3 and ratsch.paper_column("CMA-ES-5g") == 0


def test_pvalues_and_load_reprint_a_saved_run(ratsch: Any, tmp_path: Path, capsys: Any) -> None:
    from scipy.stats import mannwhitneyu
    from scipy.stats import wilcoxon

    a = [0.1 + 0.001 * i for i in range(30)]
    b = [x + 0.002 + 0.001 * (i % 3) for i, x in enumerate(a)]
    assert ratsch.pvalues(a, a) == (1.0, pytest.approx(1.0))
    paired, unpaired = ratsch.pvalues(a, b)
    assert paired == pytest.approx(wilcoxon(a, b).pvalue) and paired < 1e-5
    assert unpaired == pytest.approx(mannwhitneyu(a, b).pvalue) and unpaired > paired
    results = [
        {"set": "german", "run": label, "n_params": 21, "trials": 13, "fitness": 0.25, "test": t}
        for label, t in (("CMA-ES-1g", b), ("AFGS-1g", a))
    ]
    saved = tmp_path / "runs.json"
    saved.write_text(json.dumps(results))
    argv = ["--model", "svm-aniso", "--sets", "heart", "german", "--load", str(saved)]
    assert ratsch.main(argv) == results
    out = capsys.readouterr().out
    assert "| german (D 20; 13) |" in out and "| heart" not in out  # only the saved sets
    assert f"german AFGS-1g 11.45 vs CMA-ES-1g 11.75: paired Wilcoxon p = {paired:.2g}" in out
