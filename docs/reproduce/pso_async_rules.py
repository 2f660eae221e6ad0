"""Asynchronous rules for ``PSOSampler`` with many workers: why it keeps its chain rule.

With ``W`` simulated workers (``optuna_psms/benchmarks/parallel.py``) and the 4 particles of
``PSOSampler(budget=200)``, each particle has about ``W / 4`` trials running at any ask. The
rules compared, all identical to the sequential swarm with one worker (the script checks it):

* ``chain`` (``PSOSampler``'s rule): a particle's move starts from its previous trial, even
  while that trial runs (its stored position and velocity; its value joins the bests later);
* ``own``: the asynchronous PSO of the literature (a particle moves from its own *evaluated*
  state): a move starts from the particle's latest finished, successful trial, so while its
  previous trials run the particle's further slots are sibling moves from one state;
* ``leaf``: as ``own``, but the particle continues from the best of the sibling moves to
  finish (a trial's parent is recorded; the base is the best finished trial of the particle
  that no finished trial has moved from yet);
* ``w_end``: ``chain`` with the final inertia ``w_end`` for a move whose base is still
  running (less momentum on a position whose value is unknown).

Prints the normalized regret at ``--workers`` (median final regret over the seeds /
RandomSampler's at the same worker count, mean over the 24 functions; 5-D, 200 trials,
log-normal durations). The rules' sizes of swarm were checked as well: more particles under
concurrency (e.g. ``swarm_size=16`` at 16 workers, one running trial per particle, the
literature's setting) is worse (``python -m optuna_psms.benchmarks.bbob --samplers random
'pso@budget{"swarm_size": 16}' --workers-sim 1 16 --first-seed 10 --seeds 3``).

Run (about 2 core-minutes per six seeds)::

    python docs/reproduce/pso_async_rules.py --first-seed 10 --seeds 6 --workers 16
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np
import optuna

from optuna_psms import PSOSampler
from optuna_psms.benchmarks import parallel
from optuna_psms.benchmarks._bbob_table import _ratio
from optuna_psms.benchmarks.bbob import make_objective
from optuna_psms.benchmarks.bbob import run_one
from optuna_psms.samplers.core.base import better
from optuna_psms.samplers.core.base import Dim
from optuna_psms.samplers.core.base import Proposal
from optuna_psms.samplers.core.base import Record
from optuna_psms.samplers.core.pso import PSOStrategy


RULES = ("chain", "own", "leaf", "w_end")


class _Own(PSOStrategy):
    def _base(self, member: int, iteration: int) -> Record | None:
        history = self._by_member.get(member, {})
        for g in range(iteration - 1, -1, -1):
            rec = history.get(g)
            if rec is not None and rec.ok:
                return rec
        return None


class _Leaf(_Own):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._leaves: dict[int, dict[int, Record]] = {}
        self._expanded: set[int] = set()

    def _parent(self, record: Record) -> int:
        b = record.info.get("b")
        if isinstance(b, int):
            return b
        return record.number - self.swarm_size if record.generation > 0 else -1

    def tell(self, record: Record) -> None:
        super().tell(record)
        if record.member < 0 or not record.ok:
            return
        if record.number not in self._expanded:
            self._leaves.setdefault(record.member, {})[record.number] = record
        b = self._parent(record)
        if b >= 0:
            self._expanded.add(b)
            for leaves in self._leaves.values():
                leaves.pop(b, None)

    def _base(self, member: int, iteration: int) -> Record | None:
        best: Record | None = None
        for rec in self._leaves.get(member, {}).values():
            if rec.generation < iteration:
                best = better(best, rec)
        return best if best is not None else super()._base(member, iteration)

    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        proposal = super().ask(number, rng)
        i = number - self.run_start
        base = (
            self._base(i % self.swarm_size, i // self.swarm_size) if i >= self.swarm_size else None
        )
        proposal.info["b"] = -1 if base is None else base.number
        return proposal


class _WEnd(PSOStrategy):
    def ask(self, number: int, rng: np.random.Generator) -> Proposal:
        i = number - self.run_start
        member, iteration = i % self.swarm_size, i // self.swarm_size
        base = self._base(member, iteration) if iteration > 0 else None
        if base is None or base.loss is not None:
            return super().ask(number, rng)
        saved = self.inertia
        self.inertia = (saved[2], saved[1], saved[2])
        try:
            return super().ask(number, rng)
        finally:
            self.inertia = saved


_CLASSES: dict[str, type[PSOStrategy]] = {
    "chain": PSOStrategy,
    "own": _Own,
    "leaf": _Leaf,
    "w_end": _WEnd,
}


class RuleSampler(PSOSampler):
    """``PSOSampler`` with the asynchronous rule ``rule`` (one of :data:`RULES`)."""

    def __init__(self, rule: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rule = rule

    def _make_strategy(self, dims: tuple[Dim, ...], run_start: int) -> PSOStrategy:
        return _CLASSES[self._rule](len(dims), run_start, settings=self._settings, dims=dims)


def final_regret(rule: str, function: int, seed: int, workers: int, trials: int = 200) -> float:
    """Best regret after ``trials`` of ``RuleSampler(rule, budget=trials)`` with ``workers``."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=RuleSampler(rule, budget=trials, seed=seed))
    durations = parallel.durations("lognormal", seed, trials)
    parallel.simulate(study, make_objective(function, 5), trials, workers, durations)
    return float(study.best_value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-seed", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=RULES)
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    # One worker: every rule is the sequential swarm (checked on one function and seed).
    sequential = {final_regret(rule, 3, seeds[0], 1, 60) for rule in args.rules}
    assert len(sequential) == 1, f"the rules differ with one worker: {sequential}"
    reference = {
        f: statistics.median(
            run_one("random", f, 5, 1, 200, s, args.workers)[0][-1] for s in seeds
        )
        for f in range(1, 25)
    }
    for rule in args.rules:
        score = statistics.fmean(
            _ratio(
                statistics.median(final_regret(rule, f, s, args.workers) for s in seeds),
                reference[f],
            )
            for f in range(1, 25)
        )
        print(f"{rule:6s} seeds {seeds[0]}-{seeds[-1]}, {args.workers} workers: {score:.3f}")


if __name__ == "__main__":
    main()
