"""Issue 18: KikuchiBayes on wide data.

Three kinds of data, each fitted with the default ``gm.KikuchiBayes()`` (max_region_size=4:
candidate regions of up to 3 attributes, C(n, 3) of them):

- ``cols:N``: 2,000 rows of N uniform 3-state columns; the class depends on four columns
  (x000..x003, seed 0), every other column is noise. By default 50, 100 and 200 columns
  (200 only if 100 finishes in under 60 s).
- ``connect-4``: the first training fold of stratified 5-fold cross-validation
  (``StratifiedKFold(5, shuffle=True, random_state=0)``) of the shared connect-4 set
  (67,557 x 42, three classes; 54,045 training rows), all attributes categorical.
- ``dna180``: the same fold of splice's 60 nucleotides one-hot encoded into 180 binary
  attributes as in the Statlog DNA set (A = 100, C = 010, G = 001, T = 000), after dropping
  the 15 rows with ambiguity codes (D, N, S, R), as Statlog did: 3,175 x 180, three classes
  (2,540 training rows).

Each fit runs in its own subprocess with a time limit and reports fit time, peak resident
memory of that process (``resource.getrusage``), the number of stages, the best log
posterior and, for the folds, the log-loss on the held-out fold. The shared sets are read
from ``../shared/datasets`` (or ``GRAPHMODELS_DATASETS``); a missing one is skipped with a
message.

Run ``python benchmarks/bench_wide_kikuchi.py [--label before|after] [--sets cols:50,connect-4]
[--limit SECONDS]``; to time another version of the package, put its folder first on
``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import wide_data  # noqa: E402

LIMIT_S = 120
FOLD_SETS = ("connect-4", "dna180")


def data(n_cols, n_rows=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n_rows, n_cols))
    logit = 1.2 * (X[:, 0] == 2) - 1.0 * (X[:, 1] == 0) + 0.8 * ((X[:, 2] + X[:, 3]) % 3 == 0)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]), pd.Series(y, name="y")


def dna180(splice):
    """Splice's nucleotides as Statlog DNA's 180 binary attributes (rows with ambiguity codes dropped)."""
    X = splice.drop(columns="class")
    clean = X.isin(list("ACGT")).all(axis=1)
    X, y = X[clean], splice["class"][clean]
    columns = {}
    for j, name in enumerate(X.columns):
        for letter, k in zip("ACG", range(3)):
            columns[f"a{3 * j + k + 1:03d}"] = (X[name] == letter).astype(np.int8)
    return pd.DataFrame(columns, index=X.index), y


def fold_data(name):
    """The first stratified 5-fold training and test split of a shared set, or None when missing."""
    from sklearn.model_selection import StratifiedKFold

    frame = common.read_dataset("splice" if name == "dna180" else name)
    if frame is None:
        return None
    if name == "dna180":
        X, y = dna180(frame)
    else:
        X, y = frame.drop(columns="class").astype(str), frame["class"]  # all categorical
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    return X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]


def one(spec):
    import resource
    import time

    import graphmodels as gm

    if spec.startswith("cols:"):
        X, y = data(int(spec[5:]))
        X_test = y_test = None
    elif spec.startswith("gen:"):
        X, y = wide_data.kikuchi_data(**wide_data.KIKUCHI[spec[4:]][1])
        X_test = y_test = None
    else:
        split = fold_data(spec)
        if split is None:
            print(json.dumps({"set": spec, "missing": True}))
            return
        X, y, X_test, y_test = split
    start, cpu = time.perf_counter(), time.process_time()
    model = gm.KikuchiBayes().fit(X, y)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB (Linux: KiB)
    posts = [float(v) for v in model.path_["log_posterior"]]
    regions = "|".join(",".join(sorted(map(str, region))) for region in model.path_["region"])
    log_loss = None
    if X_test is not None:
        from sklearn.metrics import log_loss as sk_log_loss

        log_loss = float(sk_log_loss(y_test, model.predict_proba(X_test), labels=model.classes_))
    print(
        json.dumps(
            {
                "set": spec,
                "rows": len(X),
                "columns": X.shape[1],
                "seconds": seconds,
                "cpu_seconds": cpu,
                "load": common.load_average(),
                "peak_mib": rss,
                "stages": len(posts),
                "map_stage": int(model.map_step_),
                "best_log_posterior": max(posts),
                "test_log_loss": log_loss,
                "graphmodels": str(Path(gm.__file__).parent),
                "path_sha": hashlib.sha256(regions.encode()).hexdigest()[:12],
                "log_posteriors": posts,
            }
        )
    )


def run(spec, limit):
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--one", spec], capture_output=True, text=True, timeout=limit, env=os.environ
        )
        lines = out.stdout.strip().splitlines()
        if not lines:
            print(out.stderr[-2000:])
            return {"set": spec, "error": True}
        return json.loads(lines[-1])
    except subprocess.TimeoutExpired:
        return {"set": spec, "seconds": float("inf")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one")
    parser.add_argument("--label", default="after")
    parser.add_argument("--sets", help="comma-separated: cols:N, connect-4, dna180 (default: all)")
    parser.add_argument("--json", help="write the rows (with every stage's log posterior) to this file")
    parser.add_argument("--limit", type=float, default=LIMIT_S, help="seconds per fit before it is killed")
    args = parser.parse_args()
    if args.one:
        return one(args.one)
    print("load average:", common.load_average())
    if args.sets:
        rows = [run(spec, args.limit) for spec in args.sets.split(",")]
    else:
        rows = [run("cols:50", args.limit), run("cols:100", args.limit)]
        if rows[-1].get("seconds", float("inf")) < 60:
            rows.append(run("cols:200", args.limit))
        rows += [run(name, args.limit) for name in FOLD_SETS]
    frame = pd.DataFrame(rows)
    frame.insert(0, "code", args.label)
    print(frame.drop(columns=["graphmodels", "log_posteriors"], errors="ignore").to_string(index=False))
    if args.json:
        Path(args.json).write_text(json.dumps(rows))
    print("load average:", common.load_average())


if __name__ == "__main__":
    main()
