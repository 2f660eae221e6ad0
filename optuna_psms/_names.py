"""The close name of a mistyped one, for "did you mean ...?" in error messages."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def close_name(name: str, names: Iterable[Any], cutoff: float = 0.8) -> str | None:
    """The one of ``names`` closest to the mistyped or renamed column ``name`` (case aside:
    ``'wine class'`` for ``'Wine_Class'``), or ``None`` if none is close.

    ``cutoff`` is :func:`difflib.get_close_matches`'s: 0.8 for columns, where a wrong guess
    among many names misleads; :func:`did_you_mean` takes 0.6 for the few short names of an
    option (``svm`` is 0.67 from ``svc``).
    """
    import difflib

    lowered = {str(n).lower(): n for n in names}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[close[0]] if close else None


def did_you_mean(name: str, names: Iterable[Any]) -> str:
    """``"did you mean 'svc'? "`` for ``name`` ``'svm'`` among an option's fixed ``names``,
    or ``""`` when none is close (to put between an error's "unknown ..." and its list)."""
    close = close_name(name, names, cutoff=0.6)
    return f"did you mean {close!r}? " if close is not None else ""
