"""NaiveBayes and TAN fitted from a Dask DataFrame on a 2-worker LocalCluster, beside the in-memory engine.

The data: 50 attributes of 5 states and a 2-state class (int8 columns), each attribute a copy of
its left neighbour (shifted) half of the time, else noise, so that TAN has a chain to find. Each
partition of ``PARTITION_ROWS`` rows is generated from its own seed (``make_partition(seed)``):
the Dask DataFrame is ``dd.from_map(make_partition, seeds)``, so the rows never sit in one
process; every pass of the engine generates the partitions again on the workers, as it would
read files again. The Parquet point writes the same partitions to a folder of files, one at a
time, and fits from ``dd.read_parquet(folder)``.

- Dask: ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GiB")``,
  a fresh cluster per point; the peak memory of each worker is the ``ru_maxrss`` of its process
  (``resource.getrusage``), read after the fits.
- In memory: the same partitions concatenated into one pandas DataFrame in a fresh subprocess
  (numpy's BLAS may use both cores), ``fit(X, y)``; its ``ru_maxrss`` is the process peak.
- Both with the default settings (``estimator="leave-one-out"``, ``discretizer="auto"``); each fit
  is timed once, wall-clock, including the pass that learns the states. The two fits are checked
  equal: ``predict_proba`` of the first 20,000 rows, to 1e-12.

Run ``python benchmarks/bench_dask.py`` (writes the ``dask`` section of benchmarks/RESULTS.md;
``--quick`` for 10^5 and 10^6 rows, printed only; ``--render-only`` rewrites the section from the
measured points kept in benchmarks/results/dask.json). The 10^8 point runs only when the 10^7
Dask fits project it under 20 minutes (``--max-rows`` overrides).
"""

from __future__ import annotations

import argparse
import functools
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402

N_FEATURES, N_STATES, N_CLASSES = 50, 5, 2
PARTITION_ROWS = 500_000
CHECK_ROWS = 20_000
#: Targets of issue 18.
FLAT_TARGET = 1.5  # time per row at 10^8 / at 10^7
RATIO_TARGET = 3.0  # Dask time per row / in-memory time per row, at 10^7
WORKER_GIB_TARGET = 2.0
PROJECTION_LIMIT_S = 20 * 60
#: The measured points, from which --render-only rewrites the section.
RAW = Path(__file__).resolve().parent / "results" / "dask.json"


def make_partition(seed, n_rows):
    """One partition: `n_rows` rows from their own seed."""
    rng = np.random.default_rng(seed)
    y = rng.integers(N_CLASSES, size=n_rows).astype(np.int8)
    columns = {}
    previous = y.astype(np.int16)
    for j in range(N_FEATURES):
        noise = rng.integers(N_STATES, size=n_rows, dtype=np.int16)
        copy = rng.random(n_rows, dtype=np.float32) < 0.5
        value = np.where(copy, (previous + j) % N_STATES, noise)
        columns[f"x{j:02d}"] = value.astype(np.int8)
        previous = value
    columns["class"] = y
    return pd.DataFrame(columns)


def _seeds(n_rows):
    return list(range(max(1, n_rows // PARTITION_ROWS)))


def _check_frame():
    return make_partition(0, PARTITION_ROWS).iloc[:CHECK_ROWS].drop(columns="class")


def _peak_rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux


# ---------------------------------------------------------------------------------- in memory
def in_memory(n_rows, folder):
    """Fit NB and TAN on the concatenated partitions (run in a subprocess); save both models."""
    start = time.perf_counter()
    frame = pd.concat([make_partition(seed, PARTITION_ROWS) for seed in _seeds(n_rows)], ignore_index=True)
    make_s = time.perf_counter() - start
    X, y = frame.drop(columns="class"), frame["class"]
    times = {}
    for name, model in (("nb", gm.NaiveBayes()), ("tan", gm.TAN())):
        start, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        times[name] = time.perf_counter() - start
        times[f"{name}_cpu"] = time.process_time() - cpu  # every thread of the process
        model.save(Path(folder) / f"{name}-{n_rows}.json")
    return {"rows": len(frame), "make_s": make_s, **times, "peak_gib": _peak_rss_gib()}


def run_in_memory(n_rows, folder):
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--in-memory",
            str(n_rows),
            "--folder",
            str(folder),
            "--partition-rows",
            str(PARTITION_ROWS),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- dask
def _worker_peaks(client):
    def peak():
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20

    return sorted(client.run(peak).values())


def _cpu_seconds(client):
    """CPU seconds used so far by the workers' processes and this (the client's) process."""

    def used():
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    return sum(client.run(used).values()) + time.process_time()


def run_dask(frame_factory, n_rows, folder, label):
    """Fresh cluster; fit NB and TAN from the Dask DataFrame; times, worker peaks, check against memory."""
    import dask.dataframe as dd  # noqa: F401 - imported here: the in-memory subprocess does not need it
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GiB", dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        ddf = frame_factory()
        X, y = ddf.drop(columns="class"), ddf["class"]
        result = {"rows": n_rows, "label": label, "partitions": ddf.npartitions}
        models = {}
        for name, model in (("nb", gm.NaiveBayes()), ("tan", gm.TAN())):
            start, cpu = time.perf_counter(), _cpu_seconds(client)
            model.fit(X, y)
            result[name] = time.perf_counter() - start
            result[f"{name}_cpu"] = _cpu_seconds(client) - cpu
            models[name] = model
            print(f"  [{label}] {name}: {result[name]:.1f} s", flush=True)
        result["worker_peaks_gib"] = _worker_peaks(client)
        assert models["nb"].n_rows_ == n_rows
    check = _check_frame()
    for name, model in models.items():
        saved = Path(folder) / f"{name}-{n_rows}.json"
        if saved.exists():
            memory = gm.models.load_model(saved)
            result[f"{name}_max_diff"] = float(np.abs(model.predict_proba(check) - memory.predict_proba(check)).max())
    return result


def from_map_factory(n_rows):
    import dask.dataframe as dd

    meta = make_partition(0, 1).iloc[:0]
    make = functools.partial(make_partition, n_rows=PARTITION_ROWS)
    return lambda: dd.from_map(make, _seeds(n_rows), meta=meta, enforce_metadata=False)


def parquet_factory(n_rows, folder):
    import dask.dataframe as dd

    path = Path(folder) / f"parquet-{n_rows}"
    path.mkdir()
    start = time.perf_counter()
    for seed in _seeds(n_rows):  # one partition at a time: never all rows in this process
        make_partition(seed, PARTITION_ROWS).to_parquet(path / f"part-{seed:05d}.parquet", index=False)
    write_s = time.perf_counter() - start
    size = sum(f.stat().st_size for f in path.iterdir())
    return (lambda: dd.read_parquet(path)), write_s, size


# ---------------------------------------------------------------------------------- report
def power(rows):
    """10^k for a power of ten, else the number."""
    k = int(round(np.log10(rows)))
    return f"10^{k}" if 10**k == rows else f"{rows:,}"


def _cpu_cell(point):
    if "nb_cpu" not in point:
        return "–"
    return f"{per_row_us(point['nb_cpu'], point['rows']):.2f} / {per_row_us(point['tan_cpu'], point['rows']):.2f}"


def per_row_us(seconds, rows):
    return seconds / rows * 1e6


def render(raw):
    """The markdown section from the raw results (what ``--render-only`` rewrites)."""
    return report(
        raw["memory"],
        raw["dask"],
        raw["parquet"],
        raw["skipped"],
        raw["started"],
        tuple(raw["load_start"]),
        raw["total_s"],
        load_end=tuple(raw["load_end"]),
        versions=raw["versions"],
    )


def report(memory, dask_points, parquet, skipped, started, load_start, total_s, *, load_end, versions):
    rows = []
    for point in memory:
        rows.append(
            {
                "engine": "in memory (1 process)",
                "rows": power(point["rows"]),
                "NB fit": common.fmt_seconds(point["nb"]),
                "TAN fit": common.fmt_seconds(point["tan"]),
                "NB µs/row": f"{per_row_us(point['nb'], point['rows']):.2f}",
                "TAN µs/row": f"{per_row_us(point['tan'], point['rows']):.2f}",
                "CPU µs/row NB / TAN": _cpu_cell(point),
                "peak memory (GiB)": f"{point['peak_gib']:.2f} (process)",
                "same fit": "–",
            }
        )
    for point in dask_points + ([parquet] if parquet else []):
        diffs = [point.get(f"{m}_max_diff") for m in ("nb", "tan")]
        same = "–" if any(d is None for d in diffs) else f"max diff {max(diffs):.1e}"
        rows.append(
            {
                "engine": f"Dask, {point['label']} ({point['partitions']} partitions)",
                "rows": power(point["rows"]),
                "NB fit": common.fmt_seconds(point["nb"]),
                "TAN fit": common.fmt_seconds(point["tan"]),
                "NB µs/row": f"{per_row_us(point['nb'], point['rows']):.2f}",
                "TAN µs/row": f"{per_row_us(point['tan'], point['rows']):.2f}",
                "CPU µs/row NB / TAN": _cpu_cell(point),
                "peak memory (GiB)": " / ".join(f"{g:.2f}" for g in point["worker_peaks_gib"]) + " (workers)",
                "same fit": same,
            }
        )
    table = common.markdown_table(pd.DataFrame(rows))
    by_rows = {p["rows"]: p for p in dask_points}
    mem = {p["rows"]: p for p in memory}
    lines = []
    if 10**7 in by_rows and 10**7 in mem:
        for name in ("nb", "tan"):
            ratio = (by_rows[10**7][name]) / (mem[10**7][name])
            verdict = "meets" if ratio <= RATIO_TARGET else "misses"
            lines.append(
                f"- {name.upper()} at 10^7 rows: Dask / in-memory time per row = **{ratio:.2f}x** "
                f"({verdict} the target of at most {RATIO_TARGET:.0f}x)."
            )
    if 10**8 in by_rows and 10**7 in by_rows:
        for name in ("nb", "tan"):
            flat = (by_rows[10**8][name] / 10**8) / (by_rows[10**7][name] / 10**7)
            verdict = "meets" if flat <= FLAT_TARGET else "misses"
            cpu = ""
            if f"{name}_cpu" in by_rows[10**8]:
                ratio = (by_rows[10**8][f"{name}_cpu"] / 10**8) / (by_rows[10**7][f"{name}_cpu"] / 10**7)
                cpu = f"; CPU time per row (workers and client): {ratio:.2f}"
            lines.append(
                f"- {name.upper()} time per row, 10^8 / 10^7 rows: **{flat:.2f}** "
                f"({verdict} the target of at most {FLAT_TARGET}x){cpu}."
            )
    largest = max(dask_points, key=lambda p: p["rows"])
    peak = max(largest["worker_peaks_gib"])
    verdict = "meets" if peak < WORKER_GIB_TARGET else "misses"
    lines.append(
        f"- Peak worker memory at {power(largest['rows'])} rows: **{peak:.2f} GiB** ({verdict} the target of "
        f"under {WORKER_GIB_TARGET:.0f} GiB per worker; the limit was 2 GiB, so a worker past it is restarted). "
        "It does not grow with the rows: a worker holds one partition and one table at a time, so it is the "
        "same at any number of partitions; the in-memory process needs the whole table."
    )
    if 10**6 in by_rows and 10**7 in by_rows:
        flat = ", ".join(
            f"{name.upper()} {per_row_us(by_rows[10**6][name], 10**6):.2f} -> "
            f"{per_row_us(by_rows[10**7][name], 10**7):.2f} µs"
            for name in ("nb", "tan")
        )
        lines.append(f"- Dask time per row from 10^6 to 10^7 rows: {flat}.")
    if skipped:
        lines.append(f"- {skipped}")
    # Extrapolation from the largest point measured.
    tan_row = largest["tan"] / largest["rows"]
    nb_row = largest["nb"] / largest["rows"]
    hours_here = (tan_row * 1e10) / 3600
    lines.append(
        f"- Extrapolation to 10^10 rows from {power(largest['rows'])}: TAN takes {tan_row * 1e6:.2f} µs per row on "
        f"these 2 workers, so 10^10 rows would take about {hours_here:.0f} hours here "
        f"({nb_row * 1e10 / 3600:.0f} hours for NB); time per row stays flat as the rows grow (each query is "
        "one pass; the tree of table additions grows by one level per factor 8 of partitions), so on W worker "
        f"cores it is about {hours_here * 2:.0f} / W hours ({hours_here * 2 / 100:.1f} hours on 100 cores), "
        "each worker still holding one partition at a time (peak as above)."
    )
    parquet_note = ""
    if parquet:
        parquet_note = (
            f"\n\nParquet: {power(parquet['rows'])} rows written as {parquet['partitions']} files "
            f"({parquet['size_mib']:.0f} MiB, snappy, written in {parquet['write_s']:.0f} s one partition at a "
            "time), fitted from `dd.read_parquet(folder)`; each pass of the engine reads the files again."
        )
    return f"""## Dask backend: NB and TAN from a Dask DataFrame, 10^6 to {power(largest["rows"])} rows x 50 attributes

Produced by `python benchmarks/bench_dask.py` ({total_s / 60:.1f} min; started {started}, load average at start
{load_start}, at end {load_end}; dask {versions["dask"]}, distributed {versions["distributed"]}).
50 attributes of 5 states and a 2-state class, int8 columns, partitions of {PARTITION_ROWS:,} rows each generated
on the workers from its own seed (`dd.from_map`), never gathered; a 2-worker `LocalCluster` (processes, one
thread each, `memory_limit="2GiB"`), fresh for each point. Default settings (`estimator="leave-one-out"`,
`discretizer="auto"`): a Dask TAN fit is three passes over the partitions (the states with the one-way tables,
the pairwise tables given the class, the leave-one-out sample of 2,000 rows), NB two. In memory: the same rows concatenated into one
DataFrame in a fresh process. Time: one wall-clock fit each, including the pass that learns the states; *CPU*:
the CPU seconds of the fit, summed over the worker processes and the client (Dask) or over the process's threads
(in memory), which the other work on the machine inflates much less than the wall clock. *same fit*: the largest difference of `predict_proba` on 20,000 rows between the Dask fit and
the in-memory fit of the same rows. The machine is shared with other work (load above).

{table}

{chr(10).join(lines)}{parquet_note}

**On a cluster of many machines** the code is the same: start a scheduler and workers on the machines
(`dask scheduler`, `dask worker tcp://scheduler:8786`, or a deployment such as dask-kubernetes or dask-jobqueue),
and connect with `Client("tcp://scheduler:8786")` instead of `Client(LocalCluster(...))`. Only the `Client`
address changes: `dd.read_parquet("s3://bucket/table/")` (or any folder every worker can read) and `fit(X, y)`
are as here, graphmodels must be installed on the workers, and what travels over the network is one table per
partition (here at most 250 x 250 x 2 float64, 1 MB) and the 2,000-row sample, never the rows.
"""


def _version(module):
    try:
        return __import__(module).__version__
    except ImportError:
        return "not installed"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 rows, printed only")
    parser.add_argument("--max-rows", type=float, default=None, help="run the 10^8 point (1e8) or not (1e7)")
    parser.add_argument("--render-only", action="store_true", help=f"rewrite the section from {RAW.name}")
    parser.add_argument("--in-memory", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--partition-rows", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    global PARTITION_ROWS
    if args.partition_rows is not None:
        PARTITION_ROWS = args.partition_rows
    if args.in_memory is not None:
        print(json.dumps(in_memory(args.in_memory, args.folder)))
        return
    if args.render_only:
        common.write_section("dask", render(json.loads(RAW.read_text())))
        print(f"wrote {common.RESULTS}")
        return
    sizes = [10**6, 10**7]
    parquet_rows = 10**7
    if args.quick:
        PARTITION_ROWS = 50_000
        sizes, parquet_rows = [10**5, 10**6], 10**6
    started = time.strftime("%Y-%m-%d %H:%M")
    load_start = common.load_average()
    begin = time.perf_counter()
    memory, dask_points = [], []
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            print(f"in memory, {n:.0e} rows", flush=True)
            memory.append(run_in_memory(n, folder))
            print("  ", memory[-1], flush=True)
        for n in sizes:
            print(f"dask, {n:.0e} rows", flush=True)
            dask_points.append(run_dask(from_map_factory(n), n, folder, "generated"))
            print("  ", dask_points[-1], flush=True)
        print(f"dask, parquet, {parquet_rows:.0e} rows", flush=True)
        factory, write_s, size = parquet_factory(parquet_rows, folder)
        parquet = run_dask(factory, parquet_rows, folder, "Parquet folder")
        parquet.update(write_s=write_s, size_mib=size / 2**20)
        print("  ", parquet, flush=True)
        largest = dask_points[-1]
        projected = (largest["nb"] + largest["tan"]) * 10
        skipped = ""
        run_big = (projected < PROJECTION_LIMIT_S) if args.max_rows is None else args.max_rows >= 1e8
        if args.quick:
            run_big = False
        if run_big:
            print(f"dask, 1e8 rows (projected {projected / 60:.1f} min)", flush=True)
            dask_points.append(run_dask(from_map_factory(10**8), 10**8, folder, "generated"))
            print("  ", dask_points[-1], flush=True)
        elif not args.quick:
            skipped = (
                f"The 10^8 point was not run: the 10^7 fits project it at {projected / 60:.0f} min "
                f"(10 x {largest['nb'] + largest['tan']:.0f} s), over the {PROJECTION_LIMIT_S // 60} min budget; "
                "the extrapolation below starts from 10^7."
            )
    raw = {
        "memory": memory,
        "dask": dask_points,
        "parquet": parquet,
        "skipped": skipped,
        "started": started,
        "load_start": load_start,
        "load_end": common.load_average(),
        "total_s": time.perf_counter() - begin,
        "versions": {"dask": _version("dask"), "distributed": _version("distributed")},
    }
    if not args.quick:
        RAW.write_text(json.dumps(raw, indent=1) + "\n")
    body = render(raw)
    print(body)
    if not args.quick:
        common.write_section("dask", body)
        print(f"wrote {common.RESULTS}")


if __name__ == "__main__":
    main()
