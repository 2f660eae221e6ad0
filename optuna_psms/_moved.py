"""Old import paths of modules that moved: each old name is the new module itself.

A model or study pickled by an earlier release names its classes by the module they were
defined in then (``optuna_psms._pso.PSOSampler``, ``optuna_psms.core.settings.PSOSettings``);
user code may import them by those paths too. :data:`MOVED` maps each old module, or old
package prefix, to where it lives now; :func:`install` puts a finder on ``sys.meta_path``
that answers an import of an old name with the new module object (the same object, so
``isinstance`` and pickling see one class), and leaves every other import alone.
"""

from __future__ import annotations

from collections.abc import Sequence
import importlib
import importlib.abc
import importlib.machinery
import sys
import types


#: Old module (or package: its submodules follow) -> new module, since 0.1.0.
MOVED: dict[str, str] = {
    "optuna_psms.core": "optuna_psms.samplers.core",
    "optuna_psms._adapter": "optuna_psms.samplers._adapter",
    "optuna_psms._align": "optuna_psms.samplers._align",
    "optuna_psms._lifecycle": "optuna_psms.samplers._lifecycle",
    "optuna_psms._records": "optuna_psms.samplers._records",
    "optuna_psms._registry": "optuna_psms.samplers._registry",
    "optuna_psms._runs": "optuna_psms.samplers._runs",
    "optuna_psms._space": "optuna_psms.samplers._space",
    "optuna_psms._study_info": "optuna_psms.samplers._study_info",
    "optuna_psms._view": "optuna_psms.samplers._view",
    "optuna_psms._pso": "optuna_psms.samplers.pso",
    "optuna_psms._pattern": "optuna_psms.samplers.pattern",
    "optuna_psms._grid": "optuna_psms.samplers.grid",
    "optuna_psms._eda": "optuna_psms.samplers.eda",
    "optuna_psms._dynamic_random": "optuna_psms.samplers.dynamic_random",
    "optuna_psms._ctrl_c": "optuna_psms._compat._interrupted",
    "optuna_psms._meta_score": "optuna_psms.meta._score",
    "optuna_psms.cli._data": "optuna_psms.fms.datasets",
    "optuna_psms.cli._holdout": "optuna_psms.fms.holdout",
    "optuna_psms.cli._study": "optuna_psms.fms._join",
    "optuna_psms.compare._cli": "optuna_psms.cli._compare",
    # Full model selection's modules merged by concept (they were split by size).
    "optuna_psms.fms._identifiers": "optuna_psms.fms.data",
    "optuna_psms.fms._text_columns": "optuna_psms.fms.data",
    "optuna_psms.fms._worker": "optuna_psms.fms._folds",
    "optuna_psms.fms._verbosity": "optuna_psms.fms._search",
    "optuna_psms.fms._optimize": "optuna_psms.fms._search",
    "optuna_psms.fms._selector_score": "optuna_psms.fms.selector",
    "optuna_psms.fms._objective_args": "optuna_psms.fms.objective",
}


def new_name(old: str) -> str | None:
    """Where the module ``old`` lives now, or ``None`` if it did not move."""
    for prefix, target in MOVED.items():
        if old == prefix or old.startswith(prefix + "."):
            return target + old[len(prefix) :]
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system has set the alias's spec on the module: give it back its own.
        module.__spec__ = self.spec


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
