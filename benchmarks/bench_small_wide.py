"""Small, wide tables (issue 26): the default HyperforestClassifier and gm.report's default models.

On 80 rows x 45 attributes (the generator of tests/conftest.py: each column copies its left
neighbour or the class sometimes, seed 3) -- the shape on which the test suite's slowest report
tests ran -- the fit of ``HyperforestClassifier()`` (100 starts of the incremental search in each of
the representation choice's inner fits) and of ``TAN()`` beside it, best of 3 CPU seconds after a
warm-up fit, each in its own process. With ``--before PATH`` the graphmodels package in PATH (a
checkout of the code to compare with, e.g. ``git worktree add /tmp/before <commit>``) is timed
too, and the predicted probabilities of both are compared.

    python benchmarks/bench_small_wide.py [--before PATH] [--results benchmarks/RESULTS.md]
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

MODELS = ("HyperforestClassifier", "TAN")


def table(seed=3, n_rows=80, cards=(2, 3) * 22 + (2,), n_classes=3):
    """tests/conftest.py's ``_random_table``: each column copies its left neighbour or the class sometimes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n_rows)
    columns, previous = {}, y
    for j, r in enumerate(cards):
        noise = rng.integers(r, size=n_rows)
        copy = rng.random(n_rows) < 0.6
        columns[f"x{j}"] = np.where(copy, previous % r, noise)
        previous = columns[f"x{j}"]
    X = pd.DataFrame({k: [f"s{v}" for v in col] for k, col in columns.items()})
    return X, pd.Series([f"c{v}" for v in y], name="label")


def one(name):
    import graphmodels as gm

    X, y = table()
    getattr(gm, name)().fit(X.iloc[:30, :6], y.iloc[:30])  # imports, first calls
    cpu = []
    for _ in range(3):
        start = time.process_time()
        model = getattr(gm, name)().fit(X, y)
        cpu.append(time.process_time() - start)
    proba = np.asarray(model.predict_proba(X))
    print(json.dumps({"model": name, "cpu_seconds": min(cpu), "proba": proba.round(15).tolist()}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one")
    parser.add_argument("--before", help="a folder holding the graphmodels package to compare with")
    parser.add_argument("--results", help="rewrite the small-wide section of this markdown file")
    args = parser.parse_args()
    if args.one:
        return one(args.one)
    header = common.machine_markdown()
    rows = []
    for name in MODELS:
        before = common.run_one(__file__, name, args.before) if args.before else None
        after = common.run_one(__file__, name)
        row = {"model (80 rows x 45 attributes)": f"{name}()"}
        if before is not None:
            row["before: CPU"] = f"{before['cpu_seconds']:.2f} s"
        row["after: CPU"] = f"{after['cpu_seconds']:.2f} s"
        if before is not None:
            row["speed-up"] = f"{before['cpu_seconds'] / after['cpu_seconds']:.1f}x"
            row["same probabilities"] = "yes" if before["proba"] == after["proba"] else "**NO**"
        rows.append(row)
    shown = common.markdown_table(pd.DataFrame(rows))
    print(header, shown, sep="\n\n")
    if args.results:
        before = f" (before: `--before {args.before}`)" if args.before else ""
        body = (
            "## Small, wide tables: the default hyperforest classifier (bench_small_wide.py, issue 26)\n\n"
            f"`python benchmarks/bench_small_wide.py{' --before PATH' if args.before else ''}`{before}: "
            "`fit` on 80 rows x 45 attributes (tests/conftest.py's generator, seed 3), best of 3 CPU "
            "seconds after a warm-up fit, each model in its own process; the probabilities compared "
            "to 15 decimals.\n\n" + header + "\n\n" + shown + "\n\n"
            "What changed (issue 26): the incremental maximum-hyperforest search runs its 101 starts "
            "together in numpy when no trace is kept (the scalar loop stays for traces and as the "
            "reference the tests compare with), and the gains' colex ranks are computed in bulk."
        )
        common.write_section("small-wide", body, args.results)


if __name__ == "__main__":
    main()
