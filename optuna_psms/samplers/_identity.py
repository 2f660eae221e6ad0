"""What an algorithm is: the one description every part of the package reads.

Each sampler class carries an :class:`Identity` (``FocusedGridSampler`` one per mode): the
tag its records carry, its title and description for the dashboard's note, and the names of
its generation and member for figures and user attrs. The CLI, the comparison and benchmark
factories, the dashboard labels and meta-optimisation read it from the class (through
:mod:`optuna_psms.samplers._registry`); nothing else writes it down.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """An algorithm's identity.

    Args:
        tag: The algorithm tag written into every record (PSOSampler's is ``identity.tag``):
            records of two tags are never mixed, and a stored study's sampler is recognised
            by it.
        title: The algorithm's name with its paper (one line).
        description: What it does and what its per-trial user attrs mean (Markdown), for the
            study's note in optuna-dashboard.
        generation: What one generation is called (``"iteration"``).
        member: What one member of a generation is called (``"particle"``).
        persistent_members: Whether member ``i`` of one generation moves on to member ``i``
            of the next (PSO's particles), so that a member has a trajectory to draw.
    """

    tag: str
    title: str
    description: str
    generation: str
    member: str
    persistent_members: bool = False
