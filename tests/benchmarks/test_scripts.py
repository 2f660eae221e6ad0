"""The benchmark scripts the docs quote run and print what the docs show (tiny sizes)."""

from __future__ import annotations

import importlib
import math

import pytest

from optuna_psms.benchmarks import nine_functions
from optuna_psms.benchmarks import overhead


def test_overhead_pairs_each_sampler_with_random(capsys: pytest.CaptureFixture[str]) -> None:
    overhead.main(
        ["--samplers", "pso", "afgs", "--memory-trials", "250", "--sqlite-trials", "--repeat", "2"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == [
        "storage", "trials", "sampler", "ms/trial", "early", "late", "x", "random", "(late)"
    ]  # fmt: skip
    rows = {cols[2]: cols for cols in (line.split() for line in lines[2:])}
    assert list(rows) == ["random", "pso", "afgs"]
    assert rows["random"][6:] == ["1.00", "1.00"]
    for cols in rows.values():
        assert cols[0] == "memory" and cols[1] == "250"
        assert float(cols[3]) > 0 and math.isnan(float(cols[4]))  # no early windows at 250
        assert float(cols[6]) > 0 and float(cols[7]) > 0


def test_windows_come_from_block_ends() -> None:
    # 10 blocks of 100 trials per 1,000-trial window; window j costs j + 1 ms per trial.
    ends, t = [], 0.0
    for window in range(8):
        for _ in range(10):
            t += (window + 1) * 100 / 1e3
            ends.append(t)
    total, early, late = overhead._stats(ends, 8000)
    assert total == pytest.approx(4.5)
    assert early == pytest.approx(3.0)  # mean of windows 2, 3, 4 (ms/trial)
    assert late == pytest.approx(7.0)  # mean of windows 6, 7, 8


def test_nine_functions_prints_a_markdown_table(capsys: pytest.CaptureFixture[str]) -> None:
    nine_functions.main(
        ["--samplers", "pso", "--functions", "sphere", "--trials", "30", "--seeds", "1"]
        + ["--workers", "1", "--dim", "3"]
    )
    out = capsys.readouterr().out
    assert "| function | random | pso |" in out
    row = next(line for line in out.splitlines() if line.startswith("| sphere |"))
    assert row.rstrip(" |").endswith(("W", "L"))
    assert "| wins vs random | - |" in out


def test_nine_functions_takes_budget_and_json_names(capsys: pytest.CaptureFixture[str]) -> None:
    nine_functions.main(
        ["--samplers", "umda@budget", 'pattern{"initial_step": 0.25}', "--functions", "sphere"]
        + ["--trials", "20", "--seeds", "1", "--workers", "1", "--dim", "2"]
    )
    out = capsys.readouterr().out
    assert '| function | random | umda@budget | pattern{"initial_step": 0.25} |' in out
    row = next(line for line in out.splitlines() if line.startswith("| sphere |"))
    assert row.count(" W") + row.count(" L") == 2


@pytest.mark.parametrize(
    ("module", "argv", "message"),
    [
        (
            "optuna_psms.benchmarks.bbob",
            ["--trials", "0"],
            "argument --trials: must be at least 1, got 0",
        ),
        (
            "optuna_psms.benchmarks.bbob",
            ["--seeds", "x"],
            "argument --seeds: expected a whole number, got 'x'",
        ),
        (
            "optuna_psms.benchmarks.nine_functions",
            ["--dim", "0"],
            "argument --dim: must be at least 1, got 0",
        ),
        (
            "optuna_psms.benchmarks.nine_functions",
            ["--workers", "-1"],
            "argument --workers: must be at least 1, got -1",
        ),
    ],
)
def test_benchmark_clis_reject_bad_counts_in_one_line(
    module: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert (
        capsys.readouterr().err.strip().splitlines()[-1] == f"python -m {module}: error: {message}"
    )
