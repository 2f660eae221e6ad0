"""docs/reproduce/psms_final_check.py: a second CV chooses between the search's vote and a tuned
SVC."""

from __future__ import annotations

import importlib
from typing import Any

import pytest


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


@pytest.fixture
def script() -> Any:
    return importlib.import_module("psms_final_check")


def test_the_lower_cv_ber_is_chosen_and_a_tie_goes_to_the_vote(script: Any) -> None:
    assert script.choose(20.0, 19.5) == "svc"
    assert script.choose(20.0, 20.0) == "vote"
    assert script.choose(19.5, 20.0) == "vote"


def test_a_run_reports_the_chosen_candidates_test_ber(script: Any) -> None:
    row = script.run("bupa@120", 0, 8, k=3, folds=3)
    assert len(row["members"]) == 3 and len(set(row["members"])) == 3
    assert row["choice"] == script.choose(row["cv_ber"]["vote"], row["cv_ber"]["svc"])
    assert row["test_ber"]["choice"] == row["test_ber"][row["choice"]]
    assert set(row["svc_params"]) == {"C", "gamma"}
    for value in [*row["test_ber"].values(), *row["cv_ber"].values()]:
        assert 0.0 <= value <= 100.0


def _row(name: str, seed: int, choice: float, vote: float, svc: float) -> dict[str, Any]:
    test = {"choice": choice, "vote": vote, "svc": svc, "logreg": 30.0}
    return {"set": name, "seed": seed, "choice": "vote", "test_ber": test, "seconds": 1.0}


def test_the_summary_applies_the_pre_registered_rule(script: Any) -> None:
    design = [_row("sonar", 0, 10.0, 12.0, 11.0), _row("bupa", 1, 20.0, 20.0, 20.0)]
    # Third collection: the choice beats the SVC on the mean but loses more splits than it wins.
    third = [_row("glass1", s, c, c, v) for s, (c, v) in enumerate([(10, 20), (21, 20), (21, 20)])]
    lines = script.summary(design + third, [])
    rules = [line for line in lines if line.startswith("rule:")]
    assert rules == ["rule: the final check proceeds", "rule: the final check fails"]
    assert "choice - svc: 1/1/0, -0.50 ± 0.50, Wilcoxon p 1" in lines
    committed = [{"set": "sonar", "seed": 0, "sampler": "pso+defaults",
                  "test_ber": {"centred10": 12.0}}]  # fmt: skip
    assert script.summary(design, committed)[-1].endswith("on 1 of 1 splits")


def test_the_sized_summary_applies_the_rule_per_size_and_pairs_the_smaller_rows(
    script: Any,
) -> None:
    # vote - svc: -2 and +1 (mean -0.5, one win, one loss): the default search beats the SVC.
    rows = [_row("ring@2000", 0, 10.0, 10.0, 12.0), _row("twonorm@2000", 0, 5.0, 5.0, 4.0)]
    smaller = [_row("ring@1000", 0, 9.0, 9.0, 9.0), _row("bupa", 0, 1.0, 1.0, 9.0)]
    lines = script.sized(rows, smaller)
    assert "rule: the default search beats the grid-tuned SVC at 2000 rows" in lines
    assert any(line.startswith("\npooled at 2000 rows: 2 splits") for line in lines)
    assert "vote - svc: 1/0/1, -0.50 ± 1.50, Wilcoxon p 1" in lines
    # Only ring has a row at the other size: vote - svc -2 here, 0 there.
    assert lines[-1].startswith("vote - svc here minus there: 1/0/0, -2.00")
    lost = [_row("ring@2000", 0, 10.0, 10.0, 10.0), _row("twonorm@2000", 0, 5.0, 5.0, 4.0)]
    assert script.sized(lost, [])[-1].endswith("does not beat the grid-tuned SVC at 2000 rows")
    with pytest.raises(ValueError, match="one size"):
        script.sized([*rows, _row("sonar", 0, 1.0, 1.0, 1.0)], [])


def _second_rule(script: Any, rows: list[dict[str, Any]]) -> str:
    (rule,) = [line for line in script.second(rows, [], []) if line.startswith("rule")]
    return str(rule)


def test_the_second_confirmation_needs_both_means_below_zero_and_wins_at_least_losses(
    script: Any,
) -> None:
    # 27 splits of the 13 sets at seeds 4-5 and 27 of the third collection at seeds 2-3.
    thirteen = [_row("sonar", 4 + i % 2, 10.0, 11.0, 11.0) for i in range(27)]
    third = [_row("glass1", 2 + i % 2, 10.0, 10.0, 10.0) for i in range(27)]
    lines = script.second(thirteen + third, [_row("bupa", 0, 0.0, 0.0, 0.0)], [])
    assert "rule on the 54: the final check is adopted" in lines
    means = "mean test BER choice 10.00; vote 11.00; svc 11.00; logreg 30.00"
    assert f"\n13 sets, seeds 4-5: 27 splits (27 s), the SVC chosen in 0; {means}" in lines
    assert any(line.startswith("\nall splits the check has run on (these and --earlier): 55")
               for line in lines)  # fmt: skip
    noise = [line for line in lines if line.startswith("beyond noise")]
    # 27 wins of 1 point each on the 13 sets; all ties on the third collection.
    assert noise[:2] == ["beyond noise (< -2 s.e. and p < 0.05): choice - vote, choice - svc",
                         "beyond noise (< -2 s.e. and p < 0.05): neither"]  # fmt: skip
    # A choice level with the vote (mean 0) fails, unlike the first confirmation's rule.
    level = [_row("sonar", 4, 10.0, 10.0, 11.0) for _ in range(54)]
    assert _second_rule(script, level) == "rule on the 54: the final check fails"
    # Below 0 on the mean but more non-tied losses than wins against the SVC: fails.
    mixed = [_row("sonar", 4, 10.0, 12.0, 20.0 if i < 10 else 9.0) for i in range(54)]
    assert _second_rule(script, mixed) == "rule on the 54: the final check fails"
    assert _second_rule(script, thirteen[:5]).endswith("(5 of the 54 splits: partial)")
