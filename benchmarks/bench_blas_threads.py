"""TAN's fits with the counting engine's BLAS products on one thread (the default) and on all.

``graphmodels._threads.one_blas_thread`` wraps the one-hot Gram products of the counting engine
and the discriminative estimator's L-BFGS-B. This script fits ``TAN()`` on the first fold
(StratifiedKFold(5, shuffle=True, random_state=0), 5 equal-frequency bins, as bench_peers.py) of
every shared set, once with the default and once with the wrapper replaced by a no-op (BLAS
keeps its own thread count), alternating, and reports the median total of 3 rounds, wall clock
and CPU. The machine's load is reported: the gap is widest when other processes compete for
the cores.

Usage::

    python benchmarks/bench_blas_threads.py [--rounds 3]

Reads ``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``); writes its section of RESULTS.md
between ``<!-- blas-threads:start -->`` and ``<!-- blas-threads:end -->``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_peers import fold_data, load, shared_sets  # noqa: E402

import graphmodels as gm  # noqa: E402
import graphmodels.estimators.discriminative as discriminative  # noqa: E402
import graphmodels.stats.counting as counting  # noqa: E402


def fits(data):
    wall, cpu = time.perf_counter(), time.process_time()
    for X, y in data:
        gm.TAN().fit(X, y)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from sklearn.model_selection import StratifiedKFold

    warnings.simplefilter("ignore")
    data = []
    for name in shared_sets(None):
        X, y, _ = load(name, 20_000)
        train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        fold = fold_data(X, y, train, test)
        data.append((fold["X_train"], fold["y_train"]))
    load_before = common.load_average()
    one_thread = counting.one_blas_thread
    results = {"one BLAS thread (default)": [], "BLAS's own threads": []}
    fits(data)  # warm-up: imports and caches
    for _ in range(args.rounds):
        for label in results:
            no_op = label != "one BLAS thread (default)"
            counting.one_blas_thread = contextlib.nullcontext if no_op else one_thread
            discriminative.one_blas_thread = counting.one_blas_thread
            results[label].append(fits(data))
    counting.one_blas_thread = discriminative.one_blas_thread = one_thread
    rows = [
        f"| {label} | {statistics.median(w for w, _ in runs):.2f} s | {statistics.median(c for _, c in runs):.2f} s |"
        for label, runs in results.items()
    ]
    body = "\n".join(
        [
            "## BLAS threads in the counting engine (bench_blas_threads.py)",
            "",
            f"`TAN()` fitted on the first training fold of each of the {len(data)} shared sets; the median "
            f"total of {args.rounds} alternating rounds.",
            "",
            common.machine_markdown(),
            f"- load average at the end of the run: {common.load_average()} (at the start: {load_before})",
            "",
            "| BLAS in the Gram products | total wall clock | total CPU |",
            "| --- | --- | --- |",
            *rows,
        ]
    )
    print(body)
    common.write_section("blas-threads", body)


if __name__ == "__main__":
    main()
