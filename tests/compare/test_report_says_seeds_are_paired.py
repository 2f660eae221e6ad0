"""compare's report says what a seed is: the samplers draw common random numbers at one seed,
so the comparison is paired (issue 31, item 4; docs/core.md)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from optuna_psms.compare import compare_samplers
from optuna_psms.compare._stats import SEED_NOTE


@pytest.mark.slow  # 2.7 s at load 9.6 (plotly's import, 28 Nov 2026)
def test_the_html_report_says_the_seeds_are_paired(tmp_path: Path) -> None:
    result = compare_samplers("sphere", "umda,bumda", n_seeds=1, n_trials=2, dim=2, baseline=None)
    report = tmp_path / "r.html"
    result.write_report(str(report))
    assert "common random numbers" in SEED_NOTE and html.escape(SEED_NOTE) in report.read_text()
