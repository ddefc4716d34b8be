"""Throughput and peak memory of the network readers: BIF, XMLBIF and UAI files of 1, 10 and 80 MB.

Issue 26: each reader tokenized the whole file into Python objects before any check (27-58
bytes of memory per byte of text; BIF at 0.15-0.3 MB/s). Target: a 10 MB file of each format
read in about a second, in memory proportional to the tables it declares.

The files are written by graphmodels from one random network per size: ``--parents`` root
variables of ``--states`` states and as many children as the size asks, each child with all
the roots as parents (a table of ``states ** (parents + 1)`` cells, 5^5 = 3,125 by default),
each distribution drawn uniformly and normalized, written with 17 significant digits. The
three formats of one size hold the same network (their sizes differ by their syntax).

Every read runs in a fresh ``python`` process, so that its peak resident memory
(``ru_maxrss``) is its own: the table gives that peak and its excess over the same process
just before the read (the interpreter, numpy and the reader's imports), next to the size of
the text and of the tables (8 bytes a cell). Readers:

- ``graphmodels``: this checkout;
- ``graphmodels <rev>`` (``--baseline``, default ``main``): a git revision extracted with
  ``git archive``, for before/after figures; run on files up to ``--baseline-max-mb`` (the old
  readers need 27-58 bytes a byte of text: 80 MB would take gigabytes);
- ``pgmpy`` (``BIFReader``, ``XMLBIFReader``, ``UAIReader``) and ``pyAgrum`` (``loadBN``), the
  ``bench`` extra, when installed; pgmpy's BIF and UAI readers (pyparsing) on the smallest size
  only. A read is stopped after ``--timeout`` seconds.

Run ``python benchmarks/bench_readers.py`` (prints); ``--out FILE`` also writes the
``<!-- readers:start -->`` ... ``<!-- readers:end -->`` section of FILE (benchmarks/RESULTS.md).
The machine may be shared: the load average is recorded, and ratios within one run are the
figures to compare.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

sys.path.insert(0, str(common.REPO))

FORMATS = {"BIF": ".bif", "XMLBIF": ".bifxml", "UAI": ".uai"}  # pyAgrum picks its reader by the ending
SIZES_MB = (1, 10, 80)
TARGET_MB_PER_S = 10.0  # issue 26: a 10 MB file in about a second
SLOW = 10.0  # s: a read this slow is not repeated

#: What a child process runs: imports, the memory before, the read, the peak during it.
#: On Linux the peak resident memory is reset after the imports (``/proc/self/clear_refs``),
#: so that the peak is the read's; elsewhere ``ru_maxrss`` (the imports' peak may hide a small read).
CHILD = """
import json, resource, sys, time
reader, path = sys.argv[1], sys.argv[2]
if reader == "graphmodels":
    try:
        from graphmodels.io import read_bif, read_uai, read_xmlbif
    except ImportError:  # a revision from before graphmodels.io (issue 28): the readers were in models
        from graphmodels.models import read_bif, read_uai, read_xmlbif
    read = {"bif": read_bif, "bifxml": read_xmlbif, "uai": read_uai}[path.rsplit(".", 1)[1]]
elif reader == "pgmpy":
    from pgmpy.readwrite import BIFReader, UAIReader, XMLBIFReader
    kind = {"bif": BIFReader, "bifxml": XMLBIFReader, "uai": UAIReader}[path.rsplit(".", 1)[1]]
    read = lambda p: kind(p).get_model()
else:
    import pyagrum as gum
    read = gum.loadBN

def memory_kib():
    try:
        with open("/proc/self/status") as status:
            fields = dict(line.split(":", 1) for line in status)
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak, peak

try:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak resident memory starts again from the current one
except OSError:
    pass
before, _ = memory_kib()
start, cpu = time.perf_counter(), time.process_time()
network = read(path)
seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
_, peak = memory_kib()
print(json.dumps({"seconds": seconds, "cpu": cpu_seconds, "before_kib": before, "peak_kib": peak}))
"""


def random_network(target_mb, *, states, parents, seed=0):
    """A network whose BIF text is about `target_mb` MB: `parents` roots and children of all of them."""
    from graphmodels.networks import DiscreteBayesianNetwork

    rng = np.random.default_rng(seed)
    cells = states ** (parents + 1)
    bytes_per_cell = 21  # a 17-digit number and its separator, and the rows' labels
    n_children = max(1, round(target_mb * 1e6 / (cells * bytes_per_cell)))
    labels = [f"s{i}" for i in range(states)]
    roots = [f"r{j}" for j in range(parents)]
    family = {v: () for v in roots} | {f"x{k}": tuple(roots) for k in range(n_children)}
    cpts = {}
    for v, ps in family.items():
        table = rng.random((states,) * (len(ps) + 1)) + 1e-3
        cpts[v] = table / table.sum(axis=-1, keepdims=True)
    return DiscreteBayesianNetwork(family, {v: labels for v in family}, cpts, name=f"random{target_mb}")


def write_files(folder, sizes, *, states, parents):
    """{(format, size): (path, MB of text, cells)}: one network per size, written in the three formats."""
    from graphmodels.io import write_bif, write_uai, write_xmlbif

    writers = {"BIF": write_bif, "XMLBIF": write_xmlbif, "UAI": write_uai}
    files = {}
    for size in sizes:
        network = random_network(size, states=states, parents=parents)
        cells = sum(table.size for table in network.cpts.values())
        for fmt, extension in FORMATS.items():
            path = Path(folder) / f"random{size}{extension}"
            writers[fmt](network, path)
            files[fmt, size] = (path, path.stat().st_size / 1e6, cells)
        print(f"  wrote the {size} MB network: {len(network.variables)} variables, {cells:,} cells", flush=True)
    return files


def extract_revision(rev, into):
    """The ``graphmodels`` folder of git revision `rev`, extracted under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(common.REPO), "archive", "--format=tar", rev, "graphmodels"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return Path(into)


def read_once(reader, root, path, timeout):
    """Seconds and memory of one read in a fresh process: a dict, with ``status``."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, reader, str(path)],
            env=env,
            cwd=tempfile.gettempdir(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"stopped after {timeout:.0f} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": f"failed ({last[:120]})"}
    return {"status": "ok", **json.loads(out.stdout.strip().splitlines()[-1])}


def run(files, readers, *, baseline_max_mb, timeout, repeat):
    """One row per (format, size, reader): the best time of `repeat` reads and the peak of that read."""
    rows = []
    for (fmt, size), (path, mb, cells) in files.items():
        for name, (kind, root, limit_mb) in readers.items():
            if limit_mb is not None and size > limit_mb:
                continue
            results = [read_once(kind, root, path, timeout)]
            while len(results) < (repeat if size < 80 else 1) and results[0].get("seconds", SLOW) < SLOW:
                results.append(read_once(kind, root, path, timeout))
            done = [r for r in results if r["status"] == "ok"]
            best = min(done, key=lambda r: r["seconds"]) if done else results[0]
            rows.append({"format": fmt, "size": size, "mb": mb, "cells": cells, "reader": name, **best})
            seconds = best.get("seconds")
            shown = f"{seconds:.2f} s ({mb / seconds:.1f} MB/s)" if seconds else best["status"]
            peak = f", peak {best['peak_kib'] / 1024:.0f} MiB" if "peak_kib" in best else ""
            print(f"  {fmt:6s} {size:3d} MB  {name:22s} {shown}{peak}", flush=True)
    return rows


def render(rows, readers, load_start, load_end, args, commit):
    lines = [
        "## Network readers: throughput and memory (bench_readers.py)",
        "",
        f"Produced by `python benchmarks/bench_readers.py` at graphmodels commit {commit} on "
        f"{time.strftime('%Y-%m-%d %H:%M')}; load average (1, 5, 15 min) {load_start} at the start, "
        f"{load_end} at the end (a machine shared with other jobs: compare the readers within this run).",
        "",
        f"- Files: one random network per size, {args.parents} roots of {args.states} states and children "
        f"of all the roots ({args.states ** (args.parents + 1):,} cells a table), written by graphmodels in each "
        "format (17 significant digits); `MB` is the size of the text, `tables` the float64 cells of its CPTs.",
        "- Each read in a fresh process; `time` the best of "
        f"{args.repeat} reads (one at 80 MB or when it takes over {SLOW:.0f} s; wall clock), `MB/s` the text's size over it, `CPU time` the "
        "process's CPU time of that read (less sensitive to the load); `peak` the peak resident memory during "
        "the read (Linux: reset after the imports through `/proc/self/clear_refs`), `+read` its growth over "
        "the memory before the read (the interpreter and the imports), `x text` that growth over the size of "
        "the text.",
        f"- {', '.join(f'`{name}`' for name in readers)}; a missing row: not run at that size "
        f"(the old readers above {args.baseline_max_mb} MB: at up to 20 bytes of memory a byte of text, 80 MB "
        "would take gigabytes on a shared machine; pgmpy's BIF and UAI readers, pyparsing grammars, above the "
        "smallest size).",
        "- The memory that graphmodels' readers grow by holds the text (read, then decoded once), the "
        "tables and the network's own copies of them (checked, renormalized, their logarithms and cumulative "
        "sums for sampling).",
        "",
        "| format | MB | tables | reader | time | MB/s | CPU time | peak | +read | x text | status |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        ok = row["status"] == "ok"
        grow = (row["peak_kib"] - row["before_kib"]) * 1024 / 1e6 if ok else None
        lines.append(
            "| "
            + " | ".join(
                [
                    row["format"],
                    f"{row['mb']:.1f}",
                    f"{row['cells'] * 8 / 1e6:.1f} MB",
                    row["reader"],
                    common.fmt_seconds(row.get("seconds")),
                    f"{row['mb'] / row['seconds']:.1f}" if ok else "–",
                    common.fmt_seconds(row.get("cpu")),
                    f"{row['peak_kib'] / 1024:.0f} MiB" if ok else "–",
                    f"{grow:.0f} MB" if ok else "–",
                    f"{grow / row['mb']:.1f}" if ok else "–",
                    row["status"],
                ]
            )
            + " |"
        )
    ours = {(r["format"], r["size"]): r for r in rows if r["reader"] == "graphmodels" and r["status"] == "ok"}
    lines += ["", "Targets (issue 26):", ""]
    for fmt in FORMATS:
        row = ours.get((fmt, 10))
        if row is None:
            continue
        speed, cpu_speed = row["mb"] / row["seconds"], row["mb"] / row["cpu"]
        if speed >= TARGET_MB_PER_S:
            verdict = "PASS"
        elif cpu_speed >= TARGET_MB_PER_S:
            verdict = (
                f"PASS in CPU time; the wall clock was {row['seconds'] / row['cpu']:.1f}x the CPU time under this load"
            )
        else:
            verdict = "FAIL"
        lines.append(
            f"- {fmt}, 10 MB in about a second: {row['seconds']:.2f} s wall ({speed:.1f} MB/s), "
            f"{row['cpu']:.2f} s CPU ({cpu_speed:.1f} MB/s) ({verdict})."
        )
    before = [r for r in rows if r["reader"].startswith("graphmodels ") and r["status"] == "ok"]
    for row in before:
        now = ours.get((row["format"], row["size"]))
        if now is None:
            continue
        grown_before = max(row["peak_kib"] - row["before_kib"], 1)
        grown_now = max(now["peak_kib"] - now["before_kib"], 1)
        lines.append(
            f"- {row['format']}, {row['size']} MB against {row['reader']}: {row['seconds'] / now['seconds']:.1f}x "
            f"faster ({row['cpu'] / now['cpu']:.1f}x less CPU time), {grown_before / grown_now:.1f}x less memory "
            "grown during the read."
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES_MB), help="file sizes in MB")
    parser.add_argument("--states", type=int, default=5)
    parser.add_argument("--parents", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="reads per file (the best is kept)")
    parser.add_argument("--baseline", default="main", help="a git revision to compare with, or 'none'")
    parser.add_argument("--baseline-max-mb", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a read is stopped")
    parser.add_argument("--no-peers", action="store_true", help="leave out pgmpy and pyAgrum")
    parser.add_argument("--out", type=Path, help="write the section of this RESULTS.md")
    args = parser.parse_args(argv)
    load_start = common.load_average()
    commit = common._git_commit()
    smallest = min(args.sizes)
    with tempfile.TemporaryDirectory() as folder:
        print("writing the files", flush=True)
        files = write_files(folder, sorted(args.sizes), states=args.states, parents=args.parents)
        readers = {"graphmodels": ("graphmodels", common.REPO, None)}
        if args.baseline != "none":
            root = extract_revision(args.baseline, Path(folder) / "baseline")
            readers[f"graphmodels {args.baseline}"] = ("graphmodels", root, args.baseline_max_mb)
        if not args.no_peers:
            for peer, module in (("pyAgrum", "pyagrum"), ("pgmpy", "pgmpy")):
                try:
                    __import__(module)
                except ImportError:
                    print(f"  {peer} is not installed: left out", flush=True)
                    continue
                readers[peer] = (peer.lower(), None, None)
        print("reading", flush=True)
        rows = []
        for key, value in files.items():  # pgmpy's pyparsing readers (BIF, UAI) on the smallest size only
            peers = dict(readers)
            if key[0] != "XMLBIF" and key[1] != smallest:
                peers.pop("pgmpy", None)
            rows += run(
                {key: value}, peers, baseline_max_mb=args.baseline_max_mb, timeout=args.timeout, repeat=args.repeat
            )
    text = render(rows, readers, load_start, common.load_average(), args, commit)
    print()
    print(text)
    if args.out:
        common.write_section("readers", text, args.out)
        print(f"wrote the readers section of {args.out}")


if __name__ == "__main__":
    main()
