"""Optuna-free numerical cores of the population samplers.

Every module here works on plain numpy arrays in the unit box ``[0, 1]^d``. The Optuna
adapter (:mod:`optuna_psms._adapter`) turns trials into :class:`~optuna_psms.core.base.Record`
objects, feeds them to a :class:`~optuna_psms.core.base.Strategy` and turns the strategy's
:class:`~optuna_psms.core.base.Proposal` back into parameter values.
"""

from optuna_psms.core.base import Dim
from optuna_psms.core.base import Proposal
from optuna_psms.core.base import Record
from optuna_psms.core.base import Strategy


__all__ = ["Dim", "Proposal", "Record", "Strategy"]
