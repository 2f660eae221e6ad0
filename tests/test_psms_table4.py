"""The PSMS Table 4 script (docs/psms_table4.py): its ``--preprocessors`` pool restriction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer


DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def table4(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(DOCS))
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


def test_unknown_preprocessor_is_refused(table4: Any) -> None:
    with pytest.raises(SystemExit):
        table4.main(["--preprocessors", "standardize", "whiten"])
