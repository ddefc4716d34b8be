"""Maximum hyperforest at k = 3 on wide data (issues 18 and 26): connect-4 and generated sets.

The candidate weights of every subset of up to k + 1 = 4 variables dominate the fit of
``HyperforestClassifier(treewidth=3, criterion, representation)``. This script fits it (defaults
otherwise: incremental algorithm, 100 starts, as benchmarks/bench_hyperforests.py) on

- ``connect-4``: all 67,557 rows of the shared set (issue 18's figures);
- ``connect-4-90``: the first training fold of ``StratifiedKFold(10, shuffle=True,
  random_state=0)`` (60,801 rows; issue 26 measured 18.8 s for ML-J-3 on 90% of connect-4), with
  the log-loss on the other 10%;
- ``gen:NAME``: 60,000 rows x 42 attributes and a 3-class class from ``wide_data.HYPERFOREST``
  (benchmarks/wide_data.py): chains of three-way parities of ternary, binary or 2-5-state
  columns, independent columns, skewed (connect-4-like) columns; log-loss on 10,000 more rows.

Each fit runs once in its own process. With ``--before PATH`` the graphmodels package in PATH (a
checkout of the code to compare with, e.g. ``git worktree add /tmp/before <commit>``) is timed
too, configuration by configuration just before the current one (or ``--after PATH``), and the
learned structures (every hyperedge; every class's for Cf) and the held-out log-losses are
compared bit for bit.

Run ``python benchmarks/bench_wide_hyperforest.py [--before PATH] [--configs connect-4-90:ml:joint]
[--results PATH]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import wide_data  # noqa: E402
from bench_hyperforests import load, triple_name  # noqa: E402

#: (data, criterion, representation), all at k = 3
CONFIGS = (
    [("connect-4-90", "ml", "joint")]
    + [(f"gen:{name}", "ml", "joint") for name in wide_data.HYPERFOREST]
    + [("connect-4", "ml", "joint"), ("connect-4", "ml", "shared"), ("connect-4", "mdl", "free")]
)
TARGET_S = 15.0


def data(name):
    """``(X, y, X_test, y_test)``; no test part for all of connect-4."""
    if name.startswith("gen:"):
        options = wide_data.HYPERFOREST[name[4:]][1]
        X, y = wide_data.hyperforest_data(**options)
        X_test, y_test = wide_data.hyperforest_data(n_rows=10_000, **options, seed=1)
        return X, y, X_test, y_test
    loaded = load("connect-4")
    if loaded is None:
        return None
    X, y = loaded
    if name == "connect-4":
        return X, y, None, None
    from sklearn.model_selection import StratifiedKFold

    train, test = next(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    return X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]


def structures(model):
    items = getattr(model, "structures_", None)
    if items is None or getattr(model, "representation_", None) != "free":
        items = [model.structure_]
    return [sorted(sorted(map(str, h)) for h in s.hyperedges) for s in items]


def one(spec):
    import graphmodels as gm

    name, criterion, representation = spec.rsplit(":", 2)
    split = data(name)
    if split is None:
        print(json.dumps({"spec": spec, "missing": True}))
        return
    X, y, X_test, y_test = split
    gm.HyperforestClassifier(treewidth=1).fit(X.iloc[:300], y.iloc[:300])  # imports and first calls
    start, cpu = time.perf_counter(), time.process_time()
    model = gm.HyperforestClassifier(treewidth=3, criterion=criterion, representation=representation).fit(X, y)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    log_loss = None
    if X_test is not None:
        proba = np.clip(model.predict_proba(X_test), 1e-15, 1.0)
        index = pd.Index(model.classes_).get_indexer(y_test)
        log_loss = float(-np.mean(np.log(proba[np.arange(len(index)), index])))
    print(
        json.dumps(
            {
                "spec": spec,
                "rows": len(X),
                "columns": X.shape[1] + 1,
                "seconds": seconds,
                "cpu_seconds": cpu,
                "load": common.load_average(),
                "structures": structures(model),
                "test_log_loss": log_loss,
                "graphmodels": str(Path(gm.__file__).parent),
            }
        )
    )


def run(spec, tree=None):
    result = common.run_one(__file__, spec, tree)
    if result is None:
        raise SystemExit(f"{spec}: the fit printed nothing")
    return result


def _describe(name):
    if name.startswith("gen:"):
        return f"{name[4:]}: {wide_data.HYPERFOREST[name[4:]][0]}"
    return {"connect-4": "connect-4, all rows", "connect-4-90": "connect-4, 90% (a 10-fold training fold)"}[name]


def _table(pairs):
    rows = []
    for before, after in pairs:
        name, criterion, representation = after["spec"].rsplit(":", 2)
        row = {
            "data": f"{_describe(name)} ({after['rows']:,} x {after['columns']})",
            "triple": triple_name(criterion, representation, 3),
        }
        if before is not None:
            row["before: wall / CPU"] = f"{before['seconds']:.1f} / {before['cpu_seconds']:.1f} s"
        row["after: wall / CPU"] = f"{after['seconds']:.1f} / {after['cpu_seconds']:.1f} s"
        if before is not None:
            row["CPU speed-up"] = f"{before['cpu_seconds'] / after['cpu_seconds']:.1f}x"
            same = before["structures"] == after["structures"] and before["test_log_loss"] == after["test_log_loss"]
            row["same structure and log-loss"] = "yes" if same else "**NO**"
        loss = after["test_log_loss"]
        row["test log-loss"] = "-" if loss is None else f"{loss:.4f}"
        row["load (1 min) before / after"] = (
            f"{before['load'][0]:.1f} / {after['load'][0]:.1f}" if before is not None else f"{after['load'][0]:.1f}"
        )
        rows.append(row)
    return common.markdown_table(pd.DataFrame(rows))


SECTION = """## Maximum hyperforest at k = 3 on wide data (issues 18 and 26)

`python benchmarks/bench_wide_hyperforest.py --before PATH --results benchmarks/RESULTS.md`:
`HyperforestClassifier(treewidth=3, criterion, representation)` (defaults otherwise: incremental
algorithm, 100 starts) on 90% of connect-4 (a stratified 10-fold training fold, log-loss on the other
10%), on 60,000 rows x 42 attributes of each generator of `benchmarks/wide_data.py` (`HYPERFOREST`:
chains of three-way parities over ternary, binary or 2-5-state columns, independent columns,
skewed columns as connect-4's board cells; log-loss on 10,000 more rows) and on all of connect-4;
each fit once in its own process, "before" (the code at the start of issue 26, a git worktree)
just before "after". Target (issue 26): ML-J-3 on 90% of connect-4 under {target:.0f} s on a quiet
machine (it took 18.8 s there), and on every generated set.

{header}

{table}

**Timed on a machine shared with up to 7 other sessions' jobs** (see the load averages): wall times
are inflated several times and even CPU times are (cache and memory bandwidth are shared); compare
the two codes by their CPU times in the same row. To be rerun on a quiet machine.

What changed (issue 26): the weights' counts of every subset of up to 4 variables come from one-hot
Gram products per cell of each base of k - 1 = 2 variables (issue 18). Now a cell at a variable's
most common state is that variable's marginal minus its other states, along every axis: the
columns multiplied are the other states' and a column of ones (a ternary variable: 2 of 3 columns,
4/9 of the products), expanded back by a 0/+-1 matrix; the cells of a base at a common state come
from the Gram matrices of the smaller bases (kept from the passes before), so only the rows outside
the common state of both base variables are multiplied (connect-4: 3% of the rows on average; uniform
ternary data: 44%). The rows are gathered as whole rows of a contiguous copy of the later columns
(bases grouped by their last variable), 2-3 times faster than a column slice. Counts are integers
below 2^24 and every partial sum lies between 0 and the number of rows: exact in float32, the same
counts bit for bit (tested against multiplying every cell), so the same weights and structures.

Issue 18 (9084a18, all of connect-4, on the idle machine): the Gram products replaced one bincount
per base: ML-J-3 50.7 -> 6.2 s, ML-Cs-3 44.1 -> 6.8 s, MDL-Cf-3 44.8 -> 7.2 s, the same structures.
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one")
    parser.add_argument("--configs", help="comma-separated data:criterion:representation (default: all)")
    parser.add_argument("--before", help="a folder holding the graphmodels package to compare with")
    parser.add_argument("--after", help="a folder holding the graphmodels package to time (default: this one)")
    parser.add_argument("--results", help="rewrite the wide-hyperforest section of this markdown file")
    args = parser.parse_args()
    if args.one:
        return one(args.one)
    header = common.machine_markdown()
    print(header, flush=True)
    specs = args.configs.split(",") if args.configs else [":".join(c) for c in CONFIGS]
    pairs = []
    for spec in specs:
        before = run(spec, args.before) if args.before else None
        after = run(spec, args.after)
        if after.get("missing"):
            print(f"{spec}: data missing, skipped")
            continue
        pairs.append((before, after))
        print(spec, {k: after[k] for k in ("seconds", "cpu_seconds", "load", "test_log_loss")}, flush=True)
    table = _table(pairs)
    print(table)
    if args.results:
        common.write_section(
            "wide-hyperforest", SECTION.format(header=header, table=table, target=TARGET_S), args.results
        )


if __name__ == "__main__":
    main()
