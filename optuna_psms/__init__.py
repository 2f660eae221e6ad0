"""optuna-psms: population-based samplers and full model selection for Optuna."""

from optuna_psms._adapter import PopulationSampler
from optuna_psms._pso import PSOSampler

__version__ = "0.1.0"

__all__ = ["PSOSampler", "PopulationSampler", "__version__"]
