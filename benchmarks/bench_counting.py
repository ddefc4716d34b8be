"""All-pairs conditional mutual information I(X_i; X_j | C) on a 1,000,000 x 50 table.

graphmodels (`gm.stats.pairwise_mutual_information(engine, given=...)`, one-hot
products per class, counted in row chunks) against a naive loop of one
``np.bincount`` per pair, and against scikit-learn's ``mutual_info_score``
looped over pairs and classes (on a subsample: it is much slower).

Time: best of 3 (a fresh engine each time, so nothing is cached; building the
engine is included). Memory, two ways:

- tracemalloc peak of the call (numpy reports its allocations to tracemalloc);
- ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` in a fresh subprocess that
  loads the table from a .npy file, then runs the computation once: the peak
  RSS, and its increase over the RSS after loading.

Run ``python benchmarks/bench_counting.py`` (``--quick`` for 100,000 rows);
``--out FILE`` writes the markdown section into FILE (default
benchmarks/RESULTS.md for a full run, none for --quick).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402

N_FEATURES, N_STATES, N_CLASSES = 50, 5, 2
TIME_TARGET_S = 5.0
MEMORY_TARGET_GIB = 2.0


def graphmodels_cmi(table):
    """``I(X_i; X_j | C)`` for all pairs: the class is the last column of `table`."""
    n_features = table.shape[1] - 1
    cards = [N_STATES] * n_features + [N_CLASSES]
    engine = gm.stats.CountingEngine(table, cards)
    return gm.stats.pairwise_mutual_information(engine, list(range(n_features)), given=n_features)


def naive_cmi(table):
    """One ``np.bincount`` over the rows per pair of attributes."""
    X, y = table[:, :-1].astype(np.int64), table[:, -1].astype(np.int64)
    n, d = X.shape
    base = y * N_STATES
    result = np.zeros((d, d))
    for i in range(d):
        row_code = (base + X[:, i]) * N_STATES
        for j in range(i + 1, d):
            counts = np.bincount(row_code + X[:, j], minlength=N_CLASSES * N_STATES * N_STATES)
            result[i, j] = result[j, i] = _cmi_from_counts(counts.reshape(N_CLASSES, N_STATES, N_STATES), n)
    return result


def _cmi_from_counts(counts, n):
    counts = counts.astype(float)
    n_ca = counts.sum(axis=2, keepdims=True)
    n_cb = counts.sum(axis=1, keepdims=True)
    n_c = counts.sum(axis=(1, 2), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(counts * n_c / (n_ca * n_cb)), 0.0)
    return max(terms.sum() / n, 0.0)


def sklearn_cmi(table):
    """``sum_c P(c) I(X_i; X_j | C = c)`` with ``sklearn.metrics.mutual_info_score`` per pair and class."""
    from sklearn.metrics import mutual_info_score

    X, y = table[:, :-1], table[:, -1]
    d = X.shape[1]
    result = np.zeros((d, d))
    strata = [(np.mean(y == c), X[y == c]) for c in range(N_CLASSES)]
    for i in range(d):
        for j in range(i + 1, d):
            value = sum(p * mutual_info_score(Xc[:, i], Xc[:, j]) for p, Xc in strata)
            result[i, j] = result[j, i] = value
    return result


METHODS = {"graphmodels": graphmodels_cmi, "naive bincount": naive_cmi, "sklearn mutual_info_score": sklearn_cmi}


def make_table(n_rows):
    X, y = common.synthetic_tan(n_rows, n_features=N_FEATURES, n_states=N_STATES, n_classes=N_CLASSES, seed=0)
    return np.column_stack([X, y]).astype(np.int8)


def time_method(function, table, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(table)
        times.append(time.perf_counter() - start)
    return min(times), result


def tracemalloc_peak(function, table):
    tracemalloc.start()
    tracemalloc.reset_peak()
    function(table)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def rss_in_subprocess(method, path):
    """Peak RSS (bytes) of a fresh interpreter that loads `path` and runs `method` once.

    ``before`` is the resident size just before the call (from /proc/self/statm),
    ``after`` the peak resident size (``ru_maxrss``) once the call returned.
    """
    code = (
        "import json, resource, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "import numpy as np, bench_counting as b\n"
        f"table = np.load({str(path)!r})\n"
        "import os\n"
        "before = int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024\n"
        f"b.METHODS[{method!r}](table)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'before': before * 1024, 'after': after * 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows instead of 1,000,000")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument(
        "--sklearn-rows", type=int, default=100_000, help="subsample for the scikit-learn loop (default 100,000)"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    n_rows = args.rows or (100_000 if args.quick else 1_000_000)
    out = args.out if args.out is not None else (None if args.quick else common.RESULTS)

    load_before = common.load_average()
    print(f"generating {n_rows:,} x {N_FEATURES} (+ class) ...", flush=True)
    table = make_table(n_rows)
    rows = []
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for name, function in METHODS.items():
            data = table if name != "sklearn mutual_info_score" else table[: args.sklearn_rows]
            repeat = 3 if name == "graphmodels" else 1
            try:
                seconds, result = time_method(function, data, repeat)
                peak = tracemalloc_peak(function, data) if name != "sklearn mutual_info_score" else np.nan
                path = Path(tmp) / f"table_{len(data)}.npy"
                if not path.exists():
                    np.save(path, data)
                rss = rss_in_subprocess(name, path) if name != "sklearn mutual_info_score" else None
                if reference is None:
                    reference = result
                    difference = 0.0
                elif len(data) == len(table):
                    difference = float(np.abs(result - reference)[np.triu_indices(N_FEATURES, 1)].max())
                else:
                    difference = np.nan
                rows.append(
                    dict(
                        method=name,
                        rows=len(data),
                        seconds=seconds,
                        repeat=repeat,
                        tracemalloc=peak,
                        rss_peak=None if rss is None else rss["after"],
                        rss_delta=None if rss is None else rss["after"] - rss["before"],
                        difference=difference,
                        status="ok",
                    )
                )
            except Exception as exc:  # noqa: BLE001 - report and go on
                rows.append(
                    dict(
                        method=name,
                        rows=len(data),
                        seconds=np.nan,
                        repeat=repeat,
                        tracemalloc=np.nan,
                        rss_peak=None,
                        rss_delta=None,
                        difference=np.nan,
                        status=f"failed ({type(exc).__name__}: {exc})"[:200],
                    )
                )
            print(rows[-1], flush=True)

    gib = lambda b: "–" if b is None or not np.isfinite(b) else f"{b / 2**30:.3f} GiB"  # noqa: E731
    header = (
        "| method | rows | time | tracemalloc peak | max RSS (fresh process) | RSS increase over loaded data "
        "| max abs difference from graphmodels | status |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    lines = [header]
    for r in rows:
        time_text = common.fmt_seconds(r["seconds"]) + (f" (best of {r['repeat']})" if r["repeat"] > 1 else " (1 run)")
        diff = "–" if not np.isfinite(r["difference"]) else f"{r['difference']:.2e}"
        lines.append(
            f"| {r['method']} | {r['rows']:,} | {time_text} | {gib(r['tracemalloc'])} | {gib(r['rss_peak'])} "
            f"| {gib(r['rss_delta'])} | {diff} | {r['status']} |"
        )
    ours = rows[0]
    full_size = ours["rows"] >= 1_000_000
    time_met = np.isfinite(ours["seconds"]) and ours["seconds"] < TIME_TARGET_S
    memory = (
        max(x for x in [ours["tracemalloc"], ours["rss_peak"] or 0] if np.isfinite(x))
        if ours["status"] == "ok"
        else np.nan
    )
    memory_met = np.isfinite(memory) and memory < MEMORY_TARGET_GIB * 2**30
    verdict = lambda met: ("met" if met else "not met") if full_size else "not measured (fewer rows)"  # noqa: E731
    speedups = [
        f"{r['method']} {r['seconds'] / ours['seconds']:.1f}x slower"
        + (
            ""
            if r["rows"] == ours["rows"]
            else f" on {r['rows']:,} rows ({r['seconds'] / ours['seconds'] * ours['rows'] / r['rows']:.0f}x per row)"
        )
        for r in rows[1:]
        if np.isfinite(r["seconds"]) and np.isfinite(ours["seconds"])
    ]
    markdown = "\n".join(
        [
            "## All-pairs conditional mutual information (bench_counting.py)",
            "",
            ("**Quick run, not the benchmark figures.**\n" if args.quick else "")
            + f"`python benchmarks/bench_counting.py`: I(X_i; X_j | C) for all {N_FEATURES * (N_FEATURES - 1) // 2:,} pairs "
            f"of a {n_rows:,} x {N_FEATURES} table ({N_STATES} states, {N_CLASSES} classes, int8 codes, drawn from the "
            "random TAN of `common.synthetic_tan`, seed 0). Load average at start "
            f"{load_before}, at end {common.load_average()}: other processes were running on the 2 cores, "
            "so times are noisy.",
            "",
            "- graphmodels: `CountingEngine(table, cards)` then `pairwise_mutual_information(engine, "
            "variables, given=class)`: one-hot Gram matrices per class, in chunks of 65,536 rows. "
            "naive: one `np.bincount` of (class, x_i, x_j) codes over all rows per pair (1,225 passes). "
            "scikit-learn: `sum_c P(c) mutual_info_score(x_i, x_j | rows of class c)` per pair, run on a "
            "subsample only (pgmpy was not timed here: its TreeSearch computes the same weights pair by pair "
            "and appears in the classifier table).",
            "- Memory: `tracemalloc` peak during one call in this process (numpy allocations), and the peak "
            "RSS (`resource.getrusage(...).ru_maxrss`) of a fresh Python process that loads the table "
            "(.npy, 48 MB of int8 for 1e6 rows) and runs the method once; the increase is over the resident size "
            "just before the call (imports and data loaded).",
            "",
            *lines,
            "",
            f"Speed: {'; '.join(speedups) if speedups else 'no comparison'}.",
            "",
            f"Target (issue 2): all-pairs CMI on 1,000,000 x 50 in under {TIME_TARGET_S:g} s: "
            f"**{verdict(time_met)}** ({common.fmt_seconds(ours['seconds'])} on {ours['rows']:,} rows); "
            f"peak memory under {MEMORY_TARGET_GIB:g} GiB: **{verdict(memory_met)}** "
            f"(larger of tracemalloc peak and max RSS: {gib(memory)}).",
        ]
    )
    print("\n" + markdown)
    if out is not None:
        common.write_machine_section(out)
        common.write_section("counting", markdown, out)
        print(f"\nwrote the counting section of {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
