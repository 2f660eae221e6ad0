"""How a trial of a full-model study ended, read from its user attrs.

A failed or timed-out pipeline leaves its reason in ``fms:error``; a trial Ctrl-C cut is
marked :data:`INTERRUPTED` instead. :func:`failure_reason` reads either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from optuna_psms._compat._interrupted import INTERRUPTED_ATTR as _INTERRUPTED_ATTR


#: User attr (``True``) of a trial that Ctrl-C (``KeyboardInterrupt``) cut: Optuna fails it,
#: with no ``fms:error``, since its pipeline did not fail (defined beside the code that fails
#: the trials a Ctrl-C left ``RUNNING``, which needs only Optuna).
INTERRUPTED = _INTERRUPTED_ATTR
#: The reason :func:`failure_reason` gives a trial Ctrl-C cut (user attr :data:`INTERRUPTED`).
INTERRUPTED_REASON = "interrupted (Ctrl-C)"


def failure_reason(user_attrs: Mapping[str, Any]) -> str:
    """Why a trial of a full-model study did not complete, from its user attrs.

    Args:
        user_attrs: The trial's user attrs.

    Returns:
        Its ``fms:error`` (a failed or timed-out pipeline), :data:`INTERRUPTED_REASON` for a
        trial Ctrl-C cut (:data:`INTERRUPTED`, which has no ``fms:error``), else ``""``.
    """
    error = user_attrs.get("fms:error")
    if error:
        return str(error)
    return INTERRUPTED_REASON if user_attrs.get(INTERRUPTED) is True else ""
