"""The per-trial memory ceiling (``trial_memory``, in MiB).

A trial with a ceiling runs its folds in the worker process of :mod:`optuna_psms.fms._folds`
(as with ``trial_timeout``). When the trial's task arrives there, the worker's address-space
limit (``RLIMIT_AS``, Linux) is set to what the process maps at that moment (the interpreter,
scikit-learn, the data) plus the ceiling; an allocation past it fails, the fold raises
``MemoryError`` (or the process dies in a library that cannot report it), the trial fails with
the reason in ``fms:error`` and the study goes on with a fresh worker. The limit counts address
space, not resident memory: a library that reserves more than it touches (thread stacks,
allocator arenas) counts in full, so give a ceiling some hundreds of MiB above what a trial
really needs. The refits after the search run in the searching process, without a ceiling.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any


#: The start of the reason of a trial that ran out of its ceiling (``fms:error``).
MEMORY_MARK = "exceeded trial_memory"


def check_trial_memory(value: Any) -> float | None:
    """``value`` as MiB (``None``: no ceiling); ``ValueError`` unless a positive finite number
    on Linux (elsewhere the address-space limit is not enforced)."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not value > 0
        or not math.isfinite(value)
    ):
        raise ValueError(f"trial_memory must be a positive number of MiB or None; got {value!r}.")
    if not sys.platform.startswith("linux"):
        raise ValueError(
            f"trial_memory needs Linux (an address-space limit); this is {sys.platform!r}."
        )
    return float(value)


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


def limit_memory(mib: float | None) -> None:
    """Set this process's address-space limit to what it maps now plus ``mib`` MiB (``None``:
    back to the hard limit). Called in the worker process only."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if mib is None:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        return
    soft = _mapped_bytes() + int(mib * 2**20)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def memory_reason(error: str, mib: float) -> str:
    """The ``fms:error`` of a fold that failed under a ceiling of ``mib`` MiB: marked when it
    was out of memory (``MemoryError``, or a worker that died)."""
    if error.startswith("MemoryError") or error.startswith("WorkerDied"):
        return f"{MEMORY_MARK}={mib:g} MiB ({error})"[:1000]
    return error
