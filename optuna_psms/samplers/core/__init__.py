"""Optuna-free numerical cores of the population samplers.

Every module here works on plain numpy arrays in the unit box ``[0, 1]^d``. The Optuna
adapter (:mod:`optuna_psms.samplers._adapter`) turns trials into
:class:`~optuna_psms.samplers.core.base.Record`
objects, feeds them to a :class:`~optuna_psms.samplers.core.base.Strategy` and turns the strategy's
:class:`~optuna_psms.samplers.core.base.Proposal` back into parameter values.
"""

from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.base import Strategy


__all__ = ["Dim", "Proposal", "Record", "Strategy"]
