"""Wide multi-label data (issue 18): MultiDimensionalTAN structure learning, 12 labels x 40 attributes, max_parents=3.

Times ``MultiDimensionalTAN(max_parents=3).fit(X, Y)`` on a generated data set
(seed fixed) with the learner of commit ``BEFORE`` (the per-child loop, read
with ``git show`` into a temporary module and patched in) and with the current
batched one, checks that both learn the same structure, and writes the
``wide`` section of RESULTS.md.

    python benchmarks/bench_wide.py
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, fmt_ratio, fmt_seconds, machine_markdown, markdown_table, timed, write_section  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.learners import multidimensional as learner  # noqa: E402

#: The last commit with the per-child loop in bridge_and_feature_forest.
BEFORE = "1ee05a4"


def wide_data(seed=0, n_rows=3000, n_labels=12, n_attributes=40):
    """Binary/ternary labels in a chain; 3-5-state attributes on two labels and the previous attribute."""
    rng = np.random.default_rng(seed)
    labels, prev = {}, None
    for k in range(n_labels):
        r = 2 if k % 3 else 3
        y = (
            rng.integers(0, r, n_rows)
            if prev is None
            else np.where(rng.random(n_rows) < 0.6, prev % r, rng.integers(0, r, n_rows))
        )
        labels[f"label_{k}"], prev = y, y
    attrs, ys = {}, list(labels.values())
    for j in range(n_attributes):
        s = 3 + j % 3
        a, b = ys[j % n_labels], ys[(3 * j + 1) % n_labels]
        u = rng.random(n_rows)
        other = attrs[f"x{j - 1}"] % s if j else rng.integers(0, s, n_rows)
        attrs[f"x{j}"] = np.where(u < 0.35, (a + 2 * b) % s, np.where(u < 0.7, other, rng.integers(0, s, n_rows)))
    return pd.DataFrame(attrs).astype(str), pd.DataFrame(labels).astype(str)


def old_learner():
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:graphmodels/learners/multidimensional.py"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "multidimensional_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("graphmodels.learners._multidimensional_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fit(X, Y):
    return gm.models.MultiDimensionalTAN(max_parents=3).fit(X, Y)


def arcs(model):
    graph = model.structure_ if hasattr(model, "structure_") else model.graph_
    return sorted(graph.edges())


def main():
    X, Y = wide_data()
    fit(X.iloc[:200], Y.iloc[:200])  # imports and first-call costs out of the timings
    current = learner.bridge_and_feature_forest
    learner.bridge_and_feature_forest = old_learner().bridge_and_feature_forest
    try:
        before, old_model, _ = timed(lambda: fit(X, Y), repeat=1)
    finally:
        learner.bridge_and_feature_forest = current
    after, new_model, runs = timed(lambda: fit(X, Y), repeat=3)
    same = arcs(old_model) == arcs(new_model)
    rows = pd.DataFrame(
        [
            {
                "data": f"{len(X)} rows, {Y.shape[1]} labels (2-3 states) x {X.shape[1]} attributes (3-5 states), seed 0",
                f"before ({BEFORE})": fmt_seconds(before),
                "after": fmt_seconds(after) + f" (best of {runs})",
                "speed-up": fmt_ratio(before / after),
                "same structure": "yes" if same else "NO",
                "arcs": len(arcs(new_model)),
            }
        ]
    )
    print(rows.to_string(index=False))
    body = (
        "## Wide data: MultiDimensionalTAN(max_parents=3) fit (bench_wide.py, issue 18)\n\n"
        + machine_markdown()
        + "\n\n"
        + markdown_table(rows)
        + "\n\nBefore: one family score per child per candidate class-parent set (299 sets). After: every "
        "(attribute parent, child) pair of a set scored at once from its pairwise block matrix, BDeu's "
        "log-gamma terms looked up per distinct prior weight for integral counts; the same scores and ties."
    )
    write_section("wide", body)
    if not same:
        raise SystemExit("the structures differ")


if __name__ == "__main__":
    main()
