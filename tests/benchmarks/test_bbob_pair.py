"""``--pair A B``: per-function Mann-Whitney marks, the Wilcoxon over functions, the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from optuna_psms.benchmarks import bbob
from optuna_psms.benchmarks._bbob_pair import compare_pair


pytest.importorskip("scipy")


def _runs(rows: list[tuple[str, int, list[float]]]) -> list[dict[str, Any]]:
    return [
        {"sampler": s, "function": f, "instance": 1, "seed": k, "trace": [9.0, v]}
        for s, f, values in rows
        for k, v in enumerate(values)
    ]


def _marks_rows() -> list[tuple[str, int, list[float]]]:
    ten = [float(v) for v in range(1, 11)]
    return [
        # f1: every run of "a" below every run of "b": a significant win.
        ("a", 1, ten),
        ("b", 1, [100.0 + v for v in ten]),
        # f2: both below 1e-8 (solved): ties at the floor, not a ratio of 1e-12 / 1e-9.
        ("a", 2, [1e-12] * 10),
        ("b", 2, [1e-9] * 10),
        # f3: interleaved samples, "a" lower by the median: no difference shown.
        ("a", 3, [2.0 * v - 1.0 for v in ten]),
        ("b", 3, [2.0 * v for v in ten]),
        # f4: the mirror of f1, a significant loss.
        ("a", 4, [100.0 + v for v in ten]),
        ("b", 4, ten),
    ]


def test_marks_follow_the_rank_test_and_the_floor() -> None:
    result = compare_pair(_runs(_marks_rows()), "a", "b", [1, 2, 3, 4])
    rows = {row["function"]: row for row in result["rows"]}
    assert [rows[f]["mark"] for f in (1, 2, 3, 4)] == ["W", "T", "T", "L"]
    assert rows[1]["ratio"] == pytest.approx(5.5 / 105.5) and rows[1]["p"] < 1e-3
    assert rows[2]["ratio"] == 1.0 and rows[2]["p"] == 1.0
    assert rows[3]["ratio"] == pytest.approx(10.0 / 11.0) and rows[3]["p"] > 0.5
    assert (result["wins"], result["ties"], result["losses"], result["lower"]) == (1, 2, 1, 2)
    # One win, one loss: no verdict whatever the Wilcoxon says.
    assert result["verdict"] == "no difference shown"


def test_verdict_needs_the_wilcoxon_and_more_wins_than_losses() -> None:
    # Eight functions, "a" a hundred times lower on each: 8 wins, and 8 of 8 log ratios
    # negative gives the exact Wilcoxon p = 2 / 2^8.
    ten = [float(v) for v in range(1, 11)]
    rows = [("a", f, ten) for f in range(1, 9)]
    rows += [("b", f, [100.0 * (f + v) for v in ten]) for f in range(1, 9)]
    result = compare_pair(_runs(rows), "a", "b", list(range(1, 9)))
    assert result["wins"] == 8 and result["p"] == pytest.approx(2 / 256)
    assert (result["w_plus"], result["w_minus"]) == (0.0, 36.0)
    assert result["verdict"] == "a beats b beyond noise"
    assert compare_pair(_runs(rows), "b", "a", list(range(1, 9)))["verdict"] == (
        "a beats b beyond noise"
    )
    # The same consistent direction, but each function's samples interleave (a's runs are
    # b's times 0.9): the Wilcoxon alone is significant, no function is: no verdict.
    rows = [("b", f, [float(f + v) for v in ten]) for f in range(1, 9)]
    rows += [("a", f, [0.9 * (f + v) for v in ten]) for f in range(1, 9)]
    result = compare_pair(_runs(rows), "a", "b", list(range(1, 9)))
    assert result["p"] < 0.05 and result["w_plus"] < result["w_minus"]
    assert result["wins"] == 0 and result["verdict"] == "no difference shown"


def test_bad_pairs_are_errors() -> None:
    runs = _runs(_marks_rows())
    with pytest.raises(ValueError, match="two different samplers"):
        compare_pair(runs, "a", "a", [1])
    with pytest.raises(ValueError, match="'c' has no runs"):
        compare_pair(runs, "a", "c", [1])


def test_pair_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    meta = {
        "samplers": ["random", "a", "b"],
        "functions": [1, 2, 3, 4],
        "dim": 5,
        "trials": 2,
        "seeds": 10,
        "instances": [1],
        "optuna": "x",
        "command": "synthetic",
    }
    runs = _runs(_marks_rows() + [("random", f, [50.0] * 10) for f in (1, 2, 3, 4)])
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"meta": meta, "runs": runs}))
    bbob.main(["--from-json", str(path), "--pair", "a", "b", "--pair", "b", "a"])
    out = capsys.readouterr().out
    assert "bbob, 5 dimensions, 2 trials, seeds 0-9, instances [1]: a against b" in out
    assert "| f1 sphere | 5.5 | 106 | 0.0521 |" in out and out.count("| W |") == 2
    assert "| f2 ellipsoid | 1e-08 | 1e-08 | 1 | 1 | T |" in out
    assert "a against b over 4 functions: 1 W / 2 T / 1 L" in out
    assert "b against a over 4 functions: 1 W / 2 T / 1 L" in out
    assert out.count("Verdict") == 2 and "normalized regret" not in out
    # --functions narrows the pair too.
    bbob.main(["--from-json", str(path), "--functions", "1", "--pair", "a", "b"])
    out = capsys.readouterr().out
    assert "over 1 function: 1 W / 0 T / 0 L" in out and "f4" not in out
    for pair, message in ((["a", "zz"], "--pair: 'zz' is not among"), (["a", "a"], "different")):
        with pytest.raises(SystemExit):
            bbob.main(["--from-json", str(path), "--pair", *pair])
        assert message in capsys.readouterr().err
