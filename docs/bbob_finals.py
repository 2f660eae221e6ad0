"""Cut saved BBOB runs to their final regrets: one small JSON the table can be rebuilt from.

``python -m optuna_psms.benchmarks.bbob --json`` saves every run's whole best-so-far trace
(about 10 KB per run at 1,000 trials). The table needs only each run's final value, the
wall and centre shares; this script merges several such files (same rules as
``--from-json``: dimension, trials, seeds and instances must agree) and keeps, per run, the
trace's last value only. ``--from-json`` reads the result like any saved run; plots need the
whole traces. Run::

    python docs/bbob_finals.py docs/data/bbob10_finals.json a.json b.json ...
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    meta: dict[str, Any] = {}
    runs: dict[tuple[str, int, int, int], Any] = {}
    for path in args.paths:
        with open(path) as fh:
            saved = json.load(fh)
        m = saved["meta"]
        if meta:
            for key in ("dim", "trials", "seeds", "instances"):
                if m[key] != meta[key]:
                    parser.error(f"{path} differs in {key}")
            meta["samplers"] += [s for s in m["samplers"] if s not in meta["samplers"]]
            meta["functions"] = sorted(set(meta["functions"]) | set(m["functions"]))
            meta["command"] += " + " + m["command"]
            meta["seconds"] = round(meta["seconds"] + m["seconds"], 1)
        else:
            meta = dict(m, files=[])
        meta["files"].append(path.rsplit("/", 1)[-1])
        for run in saved["runs"]:
            ident = (run["sampler"], run["function"], run["instance"], run["seed"])
            runs[ident] = dict(run, trace=run["trace"][-1:])
    meta["traces"] = "final value only (cut by docs/bbob_finals.py; plots need the full files)"
    with open(args.out, "w") as fh:
        json.dump({"meta": meta, "runs": list(runs.values())}, fh)


if __name__ == "__main__":
    main()
