"""The per-trial state a sampler writes: JSON text in trial system attrs, chunked.

A record is one JSON object. Its text goes to the system attr ``psms:rec`` when it fits in
:data:`CHUNK` characters, otherwise to ``psms:rec:0`` ... ``psms:rec:{k-1}`` followed by
``psms:rec:n = k`` (written last, so a reader never sees half a record). Optuna stores an
attr value as JSON, which escapes each ``"`` as ``\\"``; with at most :data:`CHUNK` ASCII
characters a stored value stays under 64 KB (MySQL ``TEXT``). Nothing is pickled.
"""

from __future__ import annotations

import json
from typing import Any


KEY = "psms:rec"
#: Characters of record text per attr value (stored size is at most twice this, plus 2).
CHUNK = 30_000
# One encoder for every record: ``json.dumps`` with options builds a new one per call.
_ENCODER = json.JSONEncoder(
    separators=(",", ":"), allow_nan=False, ensure_ascii=True, check_circular=False
)


def dump(record: dict[str, Any]) -> dict[str, Any]:
    """The system attrs that store ``record`` (insertion order = write order)."""
    text = _ENCODER.encode(record)
    if len(text) <= CHUNK:
        return {KEY: text}
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    attrs: dict[str, Any] = {f"{KEY}:{i}": c for i, c in enumerate(chunks)}
    attrs[f"{KEY}:n"] = len(chunks)
    return attrs


def present(system_attrs: dict[str, Any]) -> bool:
    """Whether ``system_attrs`` hold a (possibly chunked) record."""
    return KEY in system_attrs or f"{KEY}:n" in system_attrs


def load(system_attrs: dict[str, Any]) -> dict[str, Any] | None:
    """The record stored in ``system_attrs``; ``None`` if absent, incomplete or unreadable."""
    text = system_attrs.get(KEY)
    if text is None:
        n = system_attrs.get(f"{KEY}:n")
        if not isinstance(n, int):
            return None
        parts = [system_attrs.get(f"{KEY}:{i}") for i in range(n)]
        if not all(isinstance(p, str) for p in parts):
            return None
        text = "".join(p for p in parts if isinstance(p, str))
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
