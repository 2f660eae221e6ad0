"""Names of a package imported on first use (PEP 562), so that importing the package, and
the command line's ``--help``, import neither Optuna nor scikit-learn."""

from __future__ import annotations

from collections.abc import Callable
import importlib
import importlib.util
from typing import Any


def attach(
    package: str, namespace: dict[str, Any], table: dict[str, str], exported: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: a name of ``table`` (name -> module) is
    imported from its module on first use and kept in ``namespace`` (the package's
    ``globals()``), and so is a submodule named as an attribute; ``exported`` (its
    ``__all__``) is listed by ``dir``."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            # A submodule not imported yet (``optuna_psms.fms.space`` after ``import
            # optuna_psms.fms``), as an eager package would have it.
            if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}"):
                value = importlib.import_module(f"{package}.{name}")
                namespace[name] = value
                return value
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exported))

    return __getattr__, __dir__
