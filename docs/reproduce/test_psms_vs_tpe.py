"""docs/reproduce/psms_vs_tpe.py: the default full-model search against TPE as users run it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import optuna
import pytest

from optuna_psms import FullModelSelector


@pytest.fixture
def script() -> Any:
    return importlib.import_module("psms_vs_tpe")


def test_the_default_arm_is_the_selector_as_shipped(script: Any) -> None:
    default = script.searches(3, 100)["default"].get_params()
    assert default == FullModelSelector(random_state=3).get_params()


def test_the_tpe_arm_is_plain_tpe_with_its_best_trial_refitted(script: Any) -> None:
    tpe = script.searches(3, 40)["tpe"]
    assert isinstance(tpe.sampler, optuna.samplers.TPESampler)
    assert (tpe.initial_pipelines, tpe.ensemble_top, tpe.final_check) == (None, 1, None)
    assert (tpe.n_trials, tpe.cv, tpe.random_state) == (40, 2, 3)


@pytest.mark.parametrize(
    ("d", "expected"),
    [
        ([-2.0, -1.0, -3.0, 0.0], "the default search beats TPE beyond noise"),
        ([2.0, 1.0, 3.0, 0.0], "TPE beats the default search beyond noise"),
        ([-2.0, 1.0, -3.0, 2.5], "level"),
        # Beyond two standard errors on the mean but more losses than wins: not a win.
        ([-30.0, 1.0, 1.0, 1.0, -30.0, 1.0, 1.0, 1.0, -30.0], "level"),
    ],
)
def test_the_pre_registered_rule(script: Any, d: list[float], expected: str) -> None:
    assert script.verdict(d) == expected
    # The second rule reads default - tpe-defaults the same way: the default search is PSO's.
    assert script.samplers_verdict(d) == expected.replace("the default search", "PSO")


def _row(seed: int, default: float, tpe: float) -> dict[str, Any]:
    test = {"default": default, "tpe": tpe, "logreg": 30.0, "svc-grid": 25.0}
    return {"set": "bupa", "seed": seed, "test_ber": test, "check": {"choice": "vote"}}


def test_the_summary_states_the_rule_on_the_default_minus_tpe(script: Any) -> None:
    rows = [_row(0, 20.0, 22.0), _row(1, 18.0, 21.0), _row(2, 25.0, 26.0)]
    lines = script.summary(rows)
    assert "default - tpe: 3/0/0, -2.00 ± 0.58 (Wilcoxon p = 0.25)" in lines
    assert lines[-2:] == [
        "final check of default chose: svc 0, vote 3",
        "rule: the default search beats TPE beyond noise",
    ]
    assert not any("tpe-defaults" in line for line in lines)  # no such arm in the rows


def test_the_summary_joins_a_third_arm_by_split_and_reads_the_second_rule(script: Any) -> None:
    rows = [_row(0, 20.0, 22.0), _row(1, 18.0, 21.0), _row(2, 25.0, 26.0)]
    third = [
        {"set": "bupa", "seed": s, "test_ber": {"tpe-defaults": v}, "seconds": {},
         "check:tpe-defaults": {"choice": "svc"}}
        for s, v in ((2, 24.0), (0, 21.0), (1, 18.0))
    ]  # fmt: skip
    lines = script.summary(rows + third)
    assert lines[0] == "3 splits, 1 sets"
    assert "mean test BER tpe-defaults: 21.00" in lines
    assert "default - tpe-defaults: 1/1/1, +0.00 ± 0.58 (Wilcoxon p = 1)" in lines
    assert "final check of tpe-defaults chose: svc 3, vote 0" in lines
    assert lines[-1] == "second rule (PSO against TPE, same defaults): level"


def test_the_third_arm_is_tpe_with_every_other_default(script: Any) -> None:
    arm = script.searches(5, 100)["tpe-defaults"]
    assert isinstance(arm.sampler, optuna.samplers.TPESampler)
    expected = FullModelSelector(random_state=5).get_params()
    assert {**arm.get_params(), "sampler": None} == {**expected, "sampler": None}


@pytest.mark.slow
def test_a_command_writes_a_row_per_split_and_does_not_rerun_one(
    script: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "vs.jsonl"
    args = ["--sets", "bupa@120", "--seeds", "1", "--trials", "8", "--out", str(out)]
    script.main(args)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["set"], r["seed"]) for r in rows] == [("bupa@120", 0)]
    assert set(rows[0]["test_ber"]) == {"default", "tpe", "logreg", "svc-grid"}
    assert all(0.0 <= v <= 100.0 for v in rows[0]["test_ber"].values())
    assert (
        rows[0]["check"]["choice"] in {"vote", "svc"} and "tpe-defaults" not in rows[0]["test_ber"]
    )
    capsys.readouterr()
    script.main(args)  # the split is in the file: nothing runs, nothing is appended
    assert capsys.readouterr().out == "" and out.read_text().count("\n") == 1


def test_the_details_split_by_collection_and_by_the_checks_choices(script: Any) -> None:
    def row(
        name: str, default: float, tpe: float, other: float, choices: tuple[str, str]
    ) -> dict[str, Any]:
        test = {"default": default, "tpe": tpe, "tpe-defaults": other}
        return {
            "set": name, "seed": 0, "test_ber": test,
            "seconds": {"default": 2.0, "tpe": 1.0, "tpe-defaults": 3.0},
            "check": {"choice": choices[0]}, "check:tpe-defaults": {"choice": choices[1]},
        }  # fmt: skip

    rows = [
        row("bupa", 20.0, 22.0, 21.0, ("vote", "vote")),
        row("sonar", 18.0, 21.0, 19.0, ("vote", "vote")),
        row("glass1", 10.0, 10.0, 10.0, ("svc", "svc")),
        row("haberman", 12.0, 11.0, 12.0, ("svc", "svc")),
        row("wdbc", 5.0, 5.0, 6.0, ("vote", "svc")),
    ]
    lines = script.details(rows)
    assert "13 sets: default - tpe: 2/1/0, -1.67 ± 0.88" in lines
    assert "third: default - tpe: 0/1/1, +0.50 ± 0.50" in lines
    assert "the two final checks chose alike on 4 of 5 splits" in lines
    assert "both chose vote (2): default - tpe-defaults: 2/0/0, -1.00 ± 0.00" in lines
    assert "both chose svc (2): default - tpe-defaults: 0/2/0, +0.00 ± 0.00" in lines
    assert "seconds tpe-defaults: 15 in all, median 3.0 per split" in lines
