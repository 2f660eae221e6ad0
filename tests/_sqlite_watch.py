"""Read a SQLite study file that another process is writing, without touching its schema.

``optuna.load_study`` on a file that another process is still creating races with it: both
run Optuna's schema set-up, and the second insert into ``alembic_version`` fails (seen once in
CI). A test that polls such a file reads it here instead: read-only, through ``sqlite3``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
import sqlite3


def trial_states(db: Path) -> dict[str, Counter[str]]:
    """Trial states per study name; empty while the file or its tables do not exist yet."""
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5.0) as conn:
            rows = conn.execute(
                "SELECT s.study_name, t.state FROM studies s "
                "LEFT JOIN trials t ON t.study_id = s.study_id"
            ).fetchall()
    except sqlite3.OperationalError:  # no tables yet, or locked by a writer for too long
        return {}
    states: dict[str, Counter[str]] = {}
    for name, state in rows:
        counts = states.setdefault(name, Counter())
        if state is not None:
            counts[state] += 1
    return states
