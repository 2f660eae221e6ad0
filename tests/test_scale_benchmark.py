"""The scale benchmark script runs and prints its side-by-side tables (tiny sizes)."""

from __future__ import annotations

from typing import Any

import pytest

from optuna_psms.benchmarks import scale
from tests.conftest import require_service


def _table(out: str, title: str) -> list[list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {title}"))
    rows = []
    for line in lines[start + 2 :]:
        if line.startswith("=="):
            break
        rows.append(line.split())
    return rows


@pytest.mark.slow
def test_abandoned_and_journal_tables(capsys: pytest.CaptureFixture[str]) -> None:
    scale.main(
        ["--scenarios", "abandoned", "journal", "--trials", "8", "--abandoned", "0", "5"]
        + ["--journal-sleep", "0.0"]
    )
    out = capsys.readouterr().out
    abandoned = _table(out, "abandoned")
    assert [row[0] for row in abandoned] == ["0", "5"]
    assert abandoned[0][4:] == ["1.00", "1.00"]  # ratios to the same sampler's 0-abandoned cost
    assert all(float(v) > 0 for row in abandoned for v in row[1:])
    (journal,) = _table(out, "journal file")
    assert journal[0] == "4" and journal[4] == "8" and journal[5] == "0"  # all done, no dup


@pytest.mark.slow
@pytest.mark.services
def test_grpc_proxy_table(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    scale.main(["--scenarios", "grpc", "--trials", "8", "--grpc-workers", "2", "--sleep", "0"])
    (row,) = _table(capsys.readouterr().out, "gRPC proxy")
    assert row[0] == "2" and row[4] == "8" and row[5] == "0"
    assert float(row[1]) > 0 and float(row[2]) > 0
