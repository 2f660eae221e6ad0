"""Focused grid search (Barbero, López & Dorronsoro, 2009), in the unit box.

* :mod:`~optuna_psms.samplers.core.grid.cells`: the cell maths both modes share (grid points, keys,
  the golden-ratio visiting stride, the evaluated-point bookkeeping).
* :mod:`~optuna_psms.samplers.core.grid.dfgs`: the refined deterministic search (outer ``3^M`` and
  inner ``2^M`` grids, Eq. 6 recentring).
* :mod:`~optuna_psms.samplers.core.grid.afgs`: the annealed search on the outer grids (Eq. 7-8).

Discrete coordinates snap to the centre of their cell, so grid points that snap to the same
value are one point (evaluated once).
"""

from optuna_psms.samplers.core.grid.afgs import acceptance_probability
from optuna_psms.samplers.core.grid.afgs import AFGSStrategy
from optuna_psms.samplers.core.grid.afgs import default_points_per_level
from optuna_psms.samplers.core.grid.afgs import neighbour
from optuna_psms.samplers.core.grid.afgs import temperature
from optuna_psms.samplers.core.grid.cells import golden_stride
from optuna_psms.samplers.core.grid.cells import GridSettings
from optuna_psms.samplers.core.grid.cells import MODES
from optuna_psms.samplers.core.grid.dfgs import dfgs_grid
from optuna_psms.samplers.core.grid.dfgs import dfgs_offset
from optuna_psms.samplers.core.grid.dfgs import dfgs_offsets
from optuna_psms.samplers.core.grid.dfgs import DFGSStrategy
from optuna_psms.samplers.core.grid.dfgs import eq6_recentre
from optuna_psms.samplers.core.grid.dfgs import level_size
from optuna_psms.samplers.core.grid.dfgs import MATERIALISE_LIMIT


__all__ = [
    "AFGSStrategy",
    "DFGSStrategy",
    "GridSettings",
    "MATERIALISE_LIMIT",
    "MODES",
    "acceptance_probability",
    "default_points_per_level",
    "dfgs_grid",
    "dfgs_offset",
    "dfgs_offsets",
    "eq6_recentre",
    "level_size",
    "golden_stride",
    "neighbour",
    "temperature",
]
