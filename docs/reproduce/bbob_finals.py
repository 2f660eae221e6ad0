"""Cut saved BBOB runs to their final regrets: one small JSON the table can be rebuilt from.

``python -m optuna_psms.benchmarks.bbob --json`` saves every run's whole best-so-far trace
(about 10 KB per run at 1,000 trials). The table needs only each run's final value, the
wall and centre shares; this script merges several such files (same rules as
``--from-json``: dimension, trials and instances must agree, seeds are united) and keeps,
per run, the trace's last value only. ``--from-json`` reads the result like any saved run;
plots need the whole traces. Run::

    python docs/reproduce/bbob_finals.py docs/reproduce/data/bbob10_finals.json a.json b.json ...
"""

from __future__ import annotations

import argparse
import json

from optuna_psms.benchmarks.bbob import merge_saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    meta, runs = merge_saved(args.paths, parser)
    runs = [dict(run, trace=run["trace"][-1:]) for run in runs]
    meta["traces"] = (
        "final value only (cut by docs/reproduce/bbob_finals.py; plots need the full files)"
    )
    with open(args.out, "w") as fh:
        json.dump({"meta": meta, "runs": runs}, fh)


if __name__ == "__main__":
    main()
