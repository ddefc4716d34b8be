"""Issue 18: KikuchiBayes on wide data, 2,000 rows of 3-state columns.

The class depends on four columns (x000..x003, seed 0); every other column is
noise. Fits the default ``gm.KikuchiBayes()`` (max_region_size=4: candidate
regions of up to 3 attributes, C(n, 3) of them) at 50 and 100 columns, and at
200 only if 100 finishes in under 60 s; reports fit time, peak resident
memory of a fresh process (``resource.getrusage``), the MAP regions and the
path's log posteriors. Each size runs in its own subprocess with a time limit.

Run ``python benchmarks/bench_wide_kikuchi.py [--label before|after] [--results PATH]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

LIMIT_S = 120


def data(n_cols, n_rows=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n_rows, n_cols))
    logit = 1.2 * (X[:, 0] == 2) - 1.0 * (X[:, 1] == 0) + 0.8 * ((X[:, 2] + X[:, 3]) % 3 == 0)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]), pd.Series(y, name="y")


def one(n_cols):
    import resource
    import time

    import graphmodels as gm

    X, y = data(n_cols)
    start = time.perf_counter()
    model = gm.KikuchiBayes().fit(X, y)
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB (Linux: KiB)
    path = model.path_
    posts = [float(v) for v in path["log_posterior"]] if isinstance(path, pd.DataFrame) else []
    print(
        json.dumps(
            {
                "n_cols": n_cols,
                "seconds": seconds,
                "peak_mib": rss,
                "stages": len(posts),
                "best_log_posterior": max(posts) if posts else None,
            }
        )
    )


def run(n_cols):
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n_cols)], capture_output=True, text=True, timeout=LIMIT_S
        )
        return json.loads(out.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"n_cols": n_cols, "seconds": float("inf"), "peak_mib": None, "stages": None, "best_log_posterior": None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", type=int)
    parser.add_argument("--label", default="after")
    parser.add_argument("--results", default=str(common.RESULTS))
    args = parser.parse_args()
    if args.one:
        return one(args.one)
    rows = [run(50), run(100)]
    if rows[-1]["seconds"] < 60:
        rows.append(run(200))
    frame = pd.DataFrame(rows)
    frame.insert(0, "code", args.label)
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
