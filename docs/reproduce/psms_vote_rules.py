"""Vote rules against the default (``centred10``) on a choosing and a confirming block of seeds.

Reads the rows of ``docs/reproduce/psms_ensemble.py --out`` and, for the rules that need each
member's
test scores, its ``--scores`` side file. For every rule and sampler it prints the paired change
of test BER against ``centred10`` (W/T/L, mean ± standard error, points) on the choosing seeds
and on the confirming seeds, and the change pooled over the samplers (mean of their means).

Rules: ``centredK`` for every K the rows hold, and (with ``--scores``) ``divC_K``: the centred
vote of the first K members in rank order keeping at most C per classifier (``clf:method``),
and ``tolC``: the centred vote of the members (of the rows' ten) whose CV BER is at most the
best member's plus ``C`` standard errors of it (``C`` in :data:`TOLERANCES`; the standard
error of a balanced error rate ``b`` estimated on ``n0`` and ``n1`` rows of the two classes,
``sqrt(b (1 - b) (1/n0 + 1/n1) / 4)``, with the training part's class counts taken as 7/3 of
the test part's), so that a member the CV can tell apart from the best stays out of the vote.

Run (the figures of docs/reproduce/reproductions.md, PSMS, "the vote on 50 fresh splits")::

    python docs/reproduce/psms_ensemble.py --sets heart breast pima titanic german --trials 100 \\
        --seeds 10 --first-seed 10 --samplers pso tpe --ks 1 5 10 20 30 \\
        --out rows.jsonl --scores scores.jsonl
    python docs/reproduce/psms_vote_rules.py rows.jsonl --scores scores.jsonl --samplers pso tpe \\
        --choose 10-14 --confirm 15-19
"""

from __future__ import annotations

import argparse
from collections import Counter
import json
from pathlib import Path
import statistics
import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray


sys.path.insert(0, str(Path(__file__).resolve().parent))
from psms_ensemble import pair_line


def ber(y: NDArray[Any], pred: NDArray[Any]) -> float:
    """Balanced error rate (%) of binary labels 0/1."""
    return float(100 * (1 - 0.5 * (np.mean(pred[y == 0] == 0) + np.mean(pred[y == 1] == 1))))


def diverse(side: dict[str, Any], k: int, cap: int) -> float:
    """Test BER of the centred vote of the first ``k`` members, at most ``cap`` per classifier."""
    chosen: list[int] = []
    count: Counter[Any] = Counter()
    for i, params in enumerate(side["member_params"]):
        method = params.get("clf:method")
        if count[method] < cap:
            chosen.append(i)
            count[method] += 1
        if len(chosen) == k:
            break
    scores = np.asarray(side["member_scores"])[chosen]
    return ber(np.asarray(side["y_test"]), (scores.mean(axis=0) >= 0.5).astype(int))


#: The ``C`` of the ``tolC`` rules.
TOLERANCES = (0.5, 1.0, 2.0)


def within(row: dict[str, Any], side: dict[str, Any], c: float) -> NDArray[np.intp]:
    """The members (indices, best first) within ``c`` standard errors of the best CV BER."""
    y = np.asarray(side["y_test"])
    n0, n1 = (7.0 / 3.0 * np.sum(y == k) for k in (0, 1))
    cv = np.asarray(row["member_cv_ber"], dtype=float) / 100.0
    se = float(np.sqrt(cv[0] * (1.0 - cv[0]) * (1.0 / n0 + 1.0 / n1) / 4.0))
    return np.flatnonzero(cv <= cv[0] + c * se + 1e-12)


def tolerant(row: dict[str, Any], side: dict[str, Any], c: float) -> float:
    """Test BER of the centred vote of the members within ``c`` standard errors of the best."""
    scores = np.asarray(side["member_scores"])[within(row, side, c)]
    return ber(np.asarray(side["y_test"]), (scores.mean(axis=0) >= 0.5).astype(int))


def kept_line(rows: list[dict[str, Any]], sides: list[dict[str, Any]]) -> str:
    """How many of the ten members each ``tolC`` rule keeps on average."""
    by_key = {(r["set"], r["seed"], r["sampler"]): r for r in rows}
    pairs = [(by_key[k], s) for s in sides if (k := (s["set"], s["seed"], s["sampler"])) in by_key]
    means = [
        f"tol{c:g} {statistics.fmean(len(within(r, s, c)) for r, s in pairs):.1f}"
        for c in TOLERANCES
    ]
    return f"members kept on average over {len(pairs)} searches: " + ", ".join(means)


def table(
    rows: list[dict[str, Any]],
    sides: list[dict[str, Any]],
    samplers: list[str],
    blocks: dict[str, range],
) -> list[str]:
    """One line per rule: its change against centred10 in each block of seeds."""
    results = {(r["set"], r["seed"], r["sampler"]): dict(r["test_ber"]) for r in rows}
    by_key = {(r["set"], r["seed"], r["sampler"]): r for r in rows}
    for side in sides:
        key = (side["set"], side["seed"], side["sampler"])
        if key in results:
            for cap in (2, 3):
                results[key][f"div{cap}_10"] = diverse(side, 10, cap)
            for c in TOLERANCES:
                results[key][f"tol{c:g}"] = tolerant(by_key[key], side, c)
    common = set.intersection(*(set(results[k]) for k in results if k[2] in samplers))
    rules = [
        r for r in sorted(common) if r.startswith(("centred", "div", "tol")) and r != "centred10"
    ]
    lines = ["| rule | " + " | ".join(f"seeds {name}" for name in blocks) + " |"]
    lines.append("|---" * (len(blocks) + 1) + "|")
    everyone: set[tuple[str, int]] = {(k[0], k[1]) for k in results}
    for sampler in samplers:
        everyone &= {(k[0], k[1]) for k in results if k[2] == sampler}
    for rule in rules:
        cells = []
        for seeds in blocks.values():
            splits = sorted(sp for sp in everyone if sp[1] in seeds)
            parts, means = [], []
            for s in samplers:
                new = [results[(*sp, s)][rule] for sp in splits]
                old = [results[(*sp, s)]["centred10"] for sp in splits]
                means.append(statistics.fmean(a - b for a, b in zip(new, old)))
                parts.append(f"{s} {pair_line(new, old)}")
            cells.append(f"{statistics.fmean(means):+.2f} ({'; '.join(parts)})")
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def _seeds(text: str) -> range:
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", help="rows of docs/reproduce/psms_ensemble.py --out")
    parser.add_argument("--scores", default=None, help="its --scores side file")
    parser.add_argument("--samplers", nargs="+", default=["pso", "tpe"])
    parser.add_argument("--choose", type=_seeds, required=True, metavar="A-B")
    parser.add_argument("--confirm", type=_seeds, default=None, metavar="A-B")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in open(args.rows) if line.strip()]
    sides = [] if args.scores is None else [json.loads(x) for x in open(args.scores) if x.strip()]
    blocks = {f"{args.choose[0]}-{args.choose[-1]} (choosing)": args.choose}
    if args.confirm is not None:
        blocks[f"{args.confirm[0]}-{args.confirm[-1]} (confirming)"] = args.confirm
    print("\n".join(table(rows, sides, args.samplers, blocks)))
    if sides:
        print(kept_line([r for r in rows if r["sampler"] in args.samplers], sides))


if __name__ == "__main__":
    main()
