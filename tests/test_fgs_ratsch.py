"""The FGS Table 4 script on Rätsch's protocol (docs/fgs_ratsch.py), on a tiny setting."""

from __future__ import annotations

from pathlib import Path
import statistics
from typing import Any

import pytest


DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def ratsch(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(DOCS))
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
    results = ratsch.run_set("heart", 6, seed=0, model="mlp")
    assert [r["run"] for r in results] == [label for label, _, _ in small]
    for r in results:
        assert r["model"] == "mlp" and set(r["params"]) == {"hidden", "log10_alpha"}
    text = ratsch.table(results, ["heart"], "mlp")
    assert "AFGS-30 vs CMA-ES-30, DFGS-60 vs CMA-ES-60" in text and "/ 27.8" in text
    with pytest.raises(ValueError, match="model must be one of"):
        ratsch.protocol("tree")
