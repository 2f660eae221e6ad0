"""optuna-dashboard's note functions without importing optuna-dashboard's web app.

The one touch of optuna-dashboard's internals (its private module ``_note.py``), with the
measurement that pays for it: ``import optuna_dashboard`` took 1-2 s in the first ask of
every process (it imports its web app, Optuna's importance module, scikit-learn and SciPy),
for a study note; loading ``_note.py`` alone takes about a millisecond. If that file cannot
be loaded (another layout, another version), the package is imported as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any


def note_functions() -> Any:
    """optuna-dashboard's ``get_note``/``save_note``, or ``None`` without optuna-dashboard.

    ``import optuna_dashboard`` imports its web app, which imports Optuna's importance
    module, scikit-learn and SciPy: 1-2 s in the first ask of every process, for a note.
    Its note functions live in ``optuna_dashboard/_note.py``, which needs only Optuna, so
    unless the package is imported already that file is loaded on its own (about a
    millisecond, once per study and process); if it cannot be (another layout, another
    version), the package is imported as usual. The note's storage format stays
    optuna-dashboard's own either way.
    """
    if "optuna_dashboard" in sys.modules:
        return sys.modules["optuna_dashboard"]  # None when marked as not importable
    try:
        spec = importlib.util.find_spec("optuna_dashboard")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    try:
        assert spec.origin is not None
        path = os.path.join(os.path.dirname(spec.origin), "_note.py")
        file_spec = importlib.util.spec_from_file_location(_NOTE_MODULE, path)
        assert file_spec is not None and file_spec.loader is not None
        module: Any = importlib.util.module_from_spec(file_spec)
        file_spec.loader.exec_module(module)
        if callable(module.get_note) and callable(module.save_note):
            return module
    except Exception:
        pass
    try:
        return importlib.import_module("optuna_dashboard")
    except ImportError:
        return None


#: Name under which optuna-dashboard's ``_note.py`` is loaded on its own.
_NOTE_MODULE = "optuna_psms._dashboard_note"
