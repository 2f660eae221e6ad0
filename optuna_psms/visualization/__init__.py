"""Plotly figures for optuna-psms studies, in the style of :mod:`optuna.visualization`."""

from optuna_psms.visualization._comparison import plot_best_so_far
from optuna_psms.visualization._comparison import plot_final_values


__all__ = ["plot_best_so_far", "plot_final_values"]
