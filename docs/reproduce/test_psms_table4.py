"""The PSMS Table 4 script (docs/reproduce/psms_table4.py): its ``--preprocessors`` pool
restriction
and its ``--out`` file."""

from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer


# The docs script end to end (a reproduction command of docs/reproduce/reproductions.md on a small
# setting): in the slow set, which .ci/run runs, to keep the README's test command under
# five minutes.
pytestmark = pytest.mark.slow


DOCS = Path(__file__).parent


@pytest.fixture
def table4(monkeypatch: pytest.MonkeyPatch) -> Any:
    import psms_table4

    return psms_table4


def _data() -> tuple[np.ndarray, np.ndarray]:
    x, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:40, 400:440]  # both classes
    return x[rows, :6], y[rows]


def test_preprocessors_reach_the_space(table4: Any) -> None:
    x, y = _data()
    selector = table4.select("random", x, y, 8, 0, {}, ["standardize", "shift_scale"])
    assert selector.space.preprocessor_names == ["standardize", "shift_scale"]
    params = [set(t.params) for t in selector.study_.trials]
    assert len(params) == 8
    assert not any(p.startswith("pre:normalize") for ps in params for p in ps)
    # The remaining steps are still searched (switched on in some trial).
    assert any(t.params.get("pre:standardize") for t in selector.study_.trials)


def test_default_pool_is_unchanged(table4: Any) -> None:
    x, y = _data()
    selector = table4.select("random", x, y, 8, 0, {})
    assert selector.space is None  # the selector's own default pool, as before the option
    assert all("pre:normalize" in t.params for t in selector.study_.trials)


def test_the_table_keeps_the_papers_single_pipeline_unless_asked(table4: Any) -> None:
    x, y = _data()
    single = table4.select("random", x, y, 8, 0, {})
    assert single.ensemble_top == 1 and len(single.ensemble_) == 1  # the documented tables
    voted = table4.select("random", x, y, 8, 0, {"ensemble_top": 3})
    assert len(voted.ensemble_) == 3


def test_unknown_preprocessor_is_refused(table4: Any) -> None:
    with pytest.raises(SystemExit):
        table4.main(["--preprocessors", "standardize", "whiten"])


def test_out_appends_one_line_per_run(tmp_path: Path) -> None:
    # A fresh interpreter: the script forks its worker, and forking this test process after
    # the in-process fits above can deadlock the child.
    out = tmp_path / "runs.jsonl"
    out.write_text('{"earlier": 1}\n')  # appended to, never overwritten
    argv = ["--sets", "heart", "--seeds", "2", "--trials", "3", "--samplers", "random"]
    run = subprocess.run(
        [
            sys.executable,
            str(DOCS / "psms_table4.py"),
            *argv,
            "--option",
            "cv=3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    lines = [json.loads(s) for s in out.read_text().splitlines()]
    assert lines[0] == {"earlier": 1}
    assert [(r["set"], r["seed"]) for r in lines[1:]] == [("heart", 0), ("heart", 1)]
    for r in lines[1:]:
        assert r["trials"] == 3 and r["options"] == {"cv": 3} and r["preprocessors"] is None
        assert set(r["test_ber"]) == {"random", "logreg", "svc-grid"}
        assert set(r["cv_ber"]) == set(r["seconds"]) == {"random"}
        # The file holds what the run printed.
        t, cv = r["test_ber"]["random"], r["cv_ber"]["random"]
        assert f"heart seed={r['seed']} random: cv BER {cv:.2f} test BER {t:.2f}" in run.stdout
        assert f"heart seed={r['seed']} logreg {r['test_ber']['logreg']:.2f}" in run.stdout


def test_pair_compares_two_runs_on_the_splits_both_have(
    table4: Any, tmp_path: Path, capsys: Any
) -> None:
    def row(name: str, seed: int, pso: float, svc: float) -> str:
        return json.dumps(
            {
                "set": name,
                "seed": seed,
                "test_ber": {"pso": pso, "logreg": 20.0, "svc-grid": svc},
                "cv_ber": {"pso": 1.0},
            }  # fmt: skip
        )

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join([row("x", 0, 10.0, 12.0), row("x", 1, 14.0, 12.0),
                            row("y", 0, 5.0, 5.0), row("z", 0, 99.0, 1.0)]))  # fmt: skip
    b.write_text("\n".join([row("x", 0, 11.0, 12.0), row("x", 1, 14.0, 12.0),
                            row("y", 0, 8.0, 5.0)]))  # fmt: skip
    table4.main(["--pair", str(a), str(b)])
    out = capsys.readouterr().out
    assert "3 paired splits" in out  # z is only in a
    # a - b: -1, 0, -3 -> mean -1.33, s.d. 1.53, s.e. 0.88
    assert "| pso: a against b | 2/1/0 | -1.33 +- 0.88 |" in out
    # a against the SVC: -2, +2, 0 -> 1/1/1, mean 0
    assert "| pso (a) against svc-grid | 1/1/1 | +0.00 +- 1.15 |" in out
    assert "| pso (b) against logreg | 3/0/0 |" in out
    assert "| set | pso (a) | pso (b) | logreg | svc-grid |" in out
    assert "| x | 12.00 | 12.50 | 20.00 | 12.00 |" in out
    assert "| mean | 9.67 | 11.00 | 20.00 | 9.67 |" in out


def test_a_set_cut_to_n_rows_is_the_same_rows_for_every_seed(table4: Any) -> None:
    x0, t0, y0, u0 = table4.split("bupa@100", 0)
    x1, t1, _, _ = table4.split("bupa@100", 1)
    assert len(x0) + len(t0) == 100 and len(t0) == 30
    assert sorted(x0.index.tolist() + t0.index.tolist()) == sorted(
        x1.index.tolist() + t1.index.tolist()
    )
    assert x0.index.tolist() != x1.index.tolist()  # the seed still moves the 70/30 split
    full, _, yf, _ = table4.split("bupa", 0)
    assert len(full) > 200
    assert abs(np.mean(np.r_[y0, u0] == yf[0]) - np.mean(yf == yf[0])) < 0.03  # stratified
