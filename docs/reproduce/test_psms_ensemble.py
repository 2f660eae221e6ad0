"""The ensemble measurement script (docs/reproduce/psms_ensemble.py): its voting rules and
members."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


DOCS = Path(__file__).parent
optuna.logging.set_verbosity(optuna.logging.ERROR)


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Any:
    import psms_ensemble

    return psms_ensemble


def test_rules(script: Any) -> None:
    classes = np.array(["a", "b"])
    preds = [np.array(["b", "a", "b"]), np.array(["a", "b", "b"])]
    probas = [np.array([[0.4, 0.6], [0.9, 0.1], [0.3, 0.7]])] * 2
    scores = [np.array([0.6, 0.1, 0.4]), np.array([0.2, 0.95, 0.8])]
    out = script.vote(preds, probas, classes, np.array([0.8, 0.2]), scores)
    np.testing.assert_array_equal(out["hard"], ["b", "a", "b"])  # 1-1 ties: the first member
    np.testing.assert_array_equal(out["soft"], ["b", "a", "b"])
    np.testing.assert_array_equal(out["prior"], ["b", "a", "b"])  # row 1: 0.9 / 0.8 > 0.1 / 0.2
    np.testing.assert_array_equal(out["centred"], ["a", "b", "b"])  # means 0.4, 0.525, 0.6
    one = script.vote(preds[:1], probas[:1], classes, np.array([0.5, 0.5]), scores[:1])
    np.testing.assert_array_equal(one["hard"], preds[0])
    np.testing.assert_array_equal(one["centred"], ["b", "a", "a"])


def test_members_are_distinct_and_start_with_the_selector(script: Any) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:40, 400:440]
    x, t = X[rows, :6], y[rows]
    space = FullModelSpace(classifiers=["naive_bayes", "logistic"], selectors=["none"])
    selector = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=6, random_state=0, ensemble_top=1
    ).fit(x, t)
    fitted = script.members(selector, x, t, 4, 0)
    assert fitted[0] is selector and len(fitted) == 4
    keys = [json.dumps(m.best_trial_.params, sort_keys=True) for m in fitted]
    assert len(set(keys)) == 4
    assert all(len(m.ensemble_) == 1 for m in fitted)  # each member one pipeline, not a vote


def test_scores_side_file_replays_the_centred_vote(script: Any, tmp_path: Path) -> None:
    out, side = tmp_path / "rows.jsonl", tmp_path / "scores.jsonl"
    row = script._run("heart", 0, "random", 8, [1, 3], str(out), str(side))
    saved = json.loads(side.read_text())
    assert (saved["set"], saved["seed"], saved["sampler"]) == ("heart", 0, "random+t8")
    y = np.asarray(saved["y_test"])
    scores = np.asarray(saved["member_scores"])
    assert scores.shape == (row["n_members"], y.size) and len(saved["member_params"]) == 3
    for k in (1, 3):
        pred = (scores[:k].mean(axis=0) >= 0.5).astype(int)
        ber = 100.0 * (1.0 - 0.5 * (np.mean(pred[y == 0] == 0) + np.mean(pred[y == 1] == 1)))
        assert ber == pytest.approx(row["test_ber"][f"centred{k}"], abs=1e-9)


def test_paper_table(script: Any) -> None:
    def row(name: str, seed: int, sampler: str, one: float, ten: float) -> dict[str, Any]:
        return {"set": name, "seed": seed, "sampler": sampler,
                "test_ber": {"hard1": one, "centred10": ten}}  # fmt: skip

    rows = [row("a", s, "pso", 10.0, 5.0) for s in range(5)]
    rows += [row("a", s, "pattern", 11.0 + s, 5.0) for s in range(5)]  # pso better on all 5
    rows += [row("b", 0, "pso", 3.0, 1.0), row("b", 0, "pattern", 2.0, 1.0)]
    rows += [row("b", 1, "pso", 3.0, 1.0), row("c", 0, "pattern", 3.0, 1.0)]  # unpaired
    lines = script.paper_table(rows, "pso", "pattern")
    assert "6 paired splits" in lines[0]
    assert lines[3] == "| a | 5 | 10.00 | 13.00 | 5/0/0 | 100.0% | 0.0% | 0.0625 |"  # 2 / 2**5
    assert lines[4] == "| b | 1 | 3.00 | 2.00 | 0/0/1 | 0.0% | 100.0% | 1 |"
    assert lines[5].startswith("| all | 6 | 8.83 | 11.17 | 5/0/1 | 83.3% | 16.7% |")
    assert lines[6] == "paired pso - pattern: 5/0/1, -2.33 ± 0.88"  # -1..-5 and +1
    assert lines[7].endswith("centred10, 6 paired splits")
    assert lines[10:] == [
        "| a | 5 | 5.00 | 5.00 | 0/5/0 | 0.0% | 0.0% | 1 |",  # all tied: p = 1
        "| b | 1 | 1.00 | 1.00 | 0/1/0 | 0.0% | 0.0% | 1 |",
        "| all | 6 | 4.33 | 4.33 | 0/6/0 | 0.0% | 0.0% | 1 |",
        "paired pso - pattern: 0/6/0, +0.00 ± 0.00",
    ]


def test_summary_of_files_with_different_ks_keeps_the_common_rules(
    script: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    def row(seed: int, sampler: str, ks: dict[str, float]) -> dict[str, Any]:
        return {"set": "a", "seed": seed, "sampler": sampler, "test_ber": {"sel": 1.0, **ks}}

    rows = [row(0, s, {"hard1": 10.0, "centred3": 9.0}) for s in ("pso", "tpe")]
    rows += [row(1, s, {"hard1": 12.0, "centred3": 8.0, "centred20": 7.0}) for s in ("pso", "tpe")]
    baselines = {("a", seed): {"logreg": 11.0, "svc-grid": 10.0} for seed in (0, 1)}
    script.summary(rows, baselines)
    out = capsys.readouterr().out
    assert "2 splits with every sampler" in out
    assert "| sampler | hard1 | centred3 |" in out and "centred20" not in out
    assert "| pso | 11.00 | 8.50 |" in out


def test_vote_rules_script_compares_each_rule_with_centred10_per_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psms_vote_rules

    def row(seed: int, sampler: str, c10: float, c20: float) -> dict[str, Any]:
        return {"set": "a", "seed": seed, "sampler": sampler,
                "test_ber": {"centred10": c10, "centred20": c20}}  # fmt: skip

    rows = [row(s, p, 10.0, 9.0 if s < 2 else 11.0) for s in range(4) for p in ("pso", "tpe")]
    # Member 0-2 are one classifier; a cap of 2 swaps member 2 for member 3 (all correct).
    side = {"set": "a", "seed": 0, "sampler": "pso", "y_test": [0, 1],
            "member_params": [{"clf:method": m} for m in ("svc", "svc", "svc", "knn")],
            "member_scores": [[0.9, 0.1], [0.9, 0.1], [0.9, 0.1], [0.0, 1.0]]}  # fmt: skip
    assert psms_vote_rules.diverse(side, 3, 3) == 100.0  # three wrong votes
    assert psms_vote_rules.diverse(side, 3, 2) == 100.0  # 0.6 / 0.4: still wrong
    assert psms_vote_rules.diverse(side, 2, 1) == 0.0  # one svc, one knn: 0.45 / 0.55, right
    lines = psms_vote_rules.table(rows, [], ["pso", "tpe"], {"c": range(0, 2), "f": range(2, 4)})
    assert lines[2].startswith("| centred20 | -1.00 (pso 2/0/0, -1.00 ± 0.00;")
    assert "| +1.00 (pso 0/0/2, +1.00 ± 0.00;" in lines[2]


def test_initial_lines_count_the_initial_pipelines_in_each_search(script: Any) -> None:
    def row(name: str, sampler: str, members: list[int]) -> dict[str, Any]:
        return {"set": name, "sampler": sampler, "members": members, "seconds": {"search": 2.0}}

    rows = [row("a", "pso+defaults", [1, 7, 3]), row("a", "pso+defaults", [9, 8, 5])]
    rows += [row("b", "pso+defaults", [4, 0, 2]), row("a", "pso", [0, 1, 2])]  # no '+': skipped
    assert script.initial_lines(rows) == [
        "pso+defaults: an initial pipeline is the best trial in 1 of 3 searches (a 1, b 0); "
        "the vote holds 1.33 of them on average (a 1.00, b 2.00); 6 s of search"
    ]


def test_paper_table_pairs_a_sampler_with_a_baseline(script: Any) -> None:
    def row(name: str, seed: int, ten: float) -> dict[str, Any]:
        return {"set": name, "seed": seed, "sampler": "pso+defaults",
                "test_ber": {"hard1": ten + 1.0, "centred10": ten}}  # fmt: skip

    rows = [row("a", 0, 20.0), row("a", 1, 30.0), row("b", 0, 10.0)]
    baselines = {("a", 0): {"logreg": 25.0, "svc-grid": 22.0},
                 ("a", 1): {"logreg": 25.0, "svc-grid": 29.0},
                 ("b", 0): {"logreg": 9.0, "svc-grid": 10.0}}  # fmt: skip
    extra = script.baseline_rows(rows, baselines)
    assert {"set": "b", "seed": 0, "sampler": "svc-grid",
            "test_ber": {"hard1": 10.0, "centred10": 10.0}} in extra  # fmt: skip
    lines = script.paper_table(rows + extra, "pso+defaults", "svc-grid")
    assert lines[7].endswith("against svc-grid, test BER (%) of centred10, 3 paired splits")
    assert lines[10] == "| a | 2 | 25.00 | 25.50 | 1/0/1 | 50.0% | 50.0% | 1 |"
    assert lines[11].startswith("| b | 1 | 10.00 | 10.00 | 0/1/0 |")
    assert lines[13] == "paired pso+defaults - svc-grid: 1/1/1, -0.33 ± 0.88"  # -2, +1, 0
    assert script.paper_table(rows + extra, "pso+defaults", "logreg")[13].startswith(
        "paired pso+defaults - logreg: 1/0/2, +0.33 ± "  # -5, +5, +1
    )


def test_cv_reaches_the_search_and_names_the_rows(script: Any, monkeypatch: Any) -> None:
    seen: list[int] = []
    real = script.FullModelSelector

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["cv"])
        return real(*args, **kwargs)

    monkeypatch.setattr(script, "FullModelSelector", spy)
    row = script._run("heart", 0, "random", 4, [1], None, None, "defaults", 5)
    assert row["sampler"] == "random+defaults+cv5+t4" and seen[0] == 5
    first = len(seen)  # the search's selector is the first one each run makes
    row = script._run("heart", 0, "random", 4, [1], None, None, None, 2)
    assert row["sampler"] == "random+t4" and seen[first] == 2
    # cv=2 and 100 trials (every committed row) keep the old names
    assert script.row_name("pso", "defaults", 2, 100) == "pso+defaults"
    assert script.row_name("pso", None, 5, 300) == "pso+cv5+t300"


def test_the_tolerance_vote_keeps_the_members_the_cv_cannot_tell_from_the_best(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psms_vote_rules

    # 30 test rows per class: 70 training rows per class, so at a best CV BER of 20% one
    # standard error is sqrt(0.2 * 0.8 * (2 / 70) / 4) = 3.4 points.
    y = [0] * 30 + [1] * 30
    right, wrong = [0.2] * 30 + [0.8] * 30, [0.8] * 30 + [0.2] * 30
    side = {"y_test": y, "member_scores": [right, wrong, wrong]}
    row = {"member_cv_ber": [20.0, 23.0, 30.0]}
    assert psms_vote_rules.tolerant(row, side, 0.5) == 0.0  # the best alone
    assert psms_vote_rules.tolerant(row, side, 1.0) == 50.0  # best + one wrong: a tie, 0.5
    assert psms_vote_rules.tolerant(row, side, 2.0) == 50.0
    assert psms_vote_rules.tolerant(row, side, 4.0) == 100.0  # two wrong against one right
    keyed = [{**row, "set": "a", "seed": 0, "sampler": "pso"}]
    sides = [{**side, "set": "a", "seed": 0, "sampler": "pso"}]
    assert psms_vote_rules.kept_line(keyed, sides) == (
        "members kept on average over 1 searches: tol0.5 1.0, tol1 2.0, tol2 2.0"
    )
