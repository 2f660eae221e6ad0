"""The scale benchmark script runs and prints its side-by-side tables (tiny sizes)."""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

import optuna
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
    for kind in ("sqlite", "journal"):
        abandoned = _table(out, f"abandoned RUNNING trials on {kind}")[1:]  # after the header
        assert [row[0] for row in abandoned] == ["0", "5"]
        zero = abandoned[0]
        assert zero[3:5] == zero[7:9] == ["1.00", "1.00"]  # ratios to the 0-abandoned cost
        assert zero[10] == "1.00"
        assert all(float(v) > 0 for row in abandoned for v in row[1:])
        # PSO writes its record (and particle, iteration) from inside the sampler
        assert all(float(row[11]) >= float(row[13]) >= 1 for row in abandoned)
        assert all(float(row[5]) >= float(row[9]) for row in abandoned)  # cpu <= own
    (journal,) = _table(out, "journal file")[1:]  # after the header
    assert journal[0] == "4" and journal[4] == "8" and journal[5] == "0"  # all done, no dup
    assert float(journal[6]) > float(journal[7]) > 0  # calls per trial: PSO writes its record
    assert len(journal) == 10 and float(journal[8]) > 0 and float(journal[9]) > 0  # worker CPU


@pytest.mark.slow
@pytest.mark.services
def test_grpc_proxy_table(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    scale.main(["--scenarios", "grpc", "--trials", "8", "--grpc-workers", "2", "--sleep", "0"])
    (row,) = _table(capsys.readouterr().out, "gRPC proxy")[1:]  # after the header
    assert row[0] == "2" and row[4] == "8" and row[5] == "0"
    assert float(row[1]) > 0 and float(row[2]) > 0
    assert float(row[8]) > 0 and float(row[9]) > 0  # the proxy's CPU per trial, both samplers
    assert len(row) == 12 and float(row[10]) > 0 and float(row[11]) > 0  # the workers' CPU


def test_process_cpu_seconds_grows_with_work() -> None:
    before = scale.process_cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:
        pass
    assert scale.process_cpu_seconds(os.getpid()) >= before + 0.02
    assert scale.process_cpu_seconds(2**22 + 12345) == 0.0  # no such process


def test_sampler_spec_takes_keyword_arguments_and_refuses_bad_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        scale.sampler_spec('pso{"record_user_attrs": false}') == 'pso{"record_user_attrs": false}'
    )
    assert scale._label('pso{"record_user_attrs": false}') == "pso--record_user_attrs---false-"
    for bad, message in [
        ("nosuch", "unknown sampler 'nosuch'"),
        ("pso@budget", "NAME@budget is not offered here"),
        ('pso{"no_such_option": 1}', "unknown sampler"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            scale.main(["--sampler", bad, "--scenarios", "journal"])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err


def test_worker_imports_an_objectives_libraries_and_freezes_the_heap(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A throughput worker can stand for a real objective's process: it imports the modules
    # given (a heap to scan at each full garbage collection) and can gc.freeze() after them.
    (tmp_path / "psms_probe_objective_lib.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"sqlite:///{tmp_path}/w.db"
    optuna.create_study(study_name="w", storage=spec)
    calls = tmp_path / "w.calls"
    assert "psms_probe_objective_lib" not in sys.modules
    try:
        scale.worker(
            [spec, "w", "pso", "3", "0", "0", str(calls)]
            + ["--import=psms_probe_objective_lib", "--gc-freeze"]
        )
        assert "psms_probe_objective_lib" in sys.modules
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        sys.modules.pop("psms_probe_objective_lib", None)
    assert len(optuna.load_study(study_name="w", storage=spec).trials) == 3
    assert calls.read_text().split()[0].isdigit()
