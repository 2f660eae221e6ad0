"""ECDF and convergence plots of a BBOB run (matplotlib, from the ``bench`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
import os
from typing import Any

import numpy as np


#: COCO's standard targets: regret 10^2 down to 10^-8, 51 of them.
TARGETS = 10.0 ** np.linspace(2.0, -8.0, 51)


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only), or an error naming the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('plots need matplotlib: pip install "optuna-psms[bench]"') from exc
    return plt


def ecdf(traces: Sequence[Sequence[float]], targets: np.ndarray = TARGETS) -> np.ndarray:
    """Fraction of (run, target) pairs reached after each trial (COCO's runtime ECDF)."""
    arr = np.asarray(traces, dtype=float)  # runs x trials
    hit = arr[:, :, None] <= targets[None, None, :]
    return np.asarray(hit.mean(axis=(0, 2)))


def write_plots(
    runs: list[dict[str, Any]],
    samplers: Sequence[str],
    functions: Sequence[int],
    meta: dict[str, Any],
    directory: str,
) -> list[str]:
    """Write ``ecdf.png`` and ``convergence.png`` into ``directory``; return their paths."""
    plt = pyplot()
    from optuna_psms.benchmarks._bbob_problem import FUNCTION_NAMES

    os.makedirs(directory, exist_ok=True)
    title = f"bbob {meta['dim']}-D, {meta['trials']} trials, {meta['seeds']} seeds"
    by: dict[tuple[str, int], list[list[float]]] = {}
    for run in runs:
        by.setdefault((run["sampler"], run["function"]), []).append(run["trace"])
    trials = np.arange(1, int(meta["trials"]) + 1)

    fig, ax = plt.subplots(figsize=(8, 5))
    # One colour per sampler in every panel, whichever samplers a panel lacks: the default
    # cycle up to 10 samplers, tab20 beyond (the default cycle repeats after 10).
    colour: dict[str, Any] = {
        s: f"C{k}" if len(samplers) <= 10 else plt.get_cmap("tab20")(k % 20)
        for k, s in enumerate(samplers)
    }
    for s in samplers:
        traces = [t for f in functions for t in by.get((s, f), [])]
        if not traces:
            continue
        ran = sum((s, f) in by for f in functions)
        label = s if ran == len(functions) else f"{s} ({ran} of {len(functions)} functions)"
        ax.step(trials, ecdf(traces), where="post", label=label, color=colour[s])
    ax.set_xscale("log")
    ax.set_xlabel("trials")
    ax.set_ylabel("fraction of (run, target) pairs reached")
    ax.set_title(f"{title}: targets 1e2..1e-8")
    ax.legend(fontsize=8, ncol=2)
    ecdf_path = os.path.join(directory, "ecdf.png")
    fig.savefig(ecdf_path, dpi=110, bbox_inches="tight")
    plt.close(fig)

    cols = 6
    rows = (len(functions) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3 * cols, 2.4 * rows), squeeze=False)
    for ax, f in zip(axes.flat, functions):
        for s in samplers:
            if (s, f) not in by:  # not run on this function (merged partial runs)
                continue
            med = np.median(np.asarray(by[(s, f)], dtype=float), axis=0)
            ax.plot(trials, np.maximum(med, 1e-9), label=s, linewidth=1, color=colour[s])
        ax.set_yscale("log")
        ax.set_title(f"f{f} {FUNCTION_NAMES[f]}", fontsize=8)
        ax.tick_params(which="both", labelsize=6)  # log axes label minor ticks too
    for ax in list(axes.flat)[len(functions) :]:
        ax.axis("off")
    legend: dict[str, Any] = {}
    for ax in axes.flat:
        for handle, name in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(name, handle)
    labels = [s for s in samplers if s in legend]
    handles = [legend[s] for s in labels]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(samplers), 8), fontsize=8)
    fig.suptitle(f"{title}: median best regret", fontsize=10)
    conv_path = os.path.join(directory, "convergence.png")
    fig.savefig(conv_path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return [ecdf_path, conv_path]
