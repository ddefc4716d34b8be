"""Loading model files: hostile archives refused in bounded memory, and what the checks cost.

Two measures, each of this checkout and, with ``--baseline REV``, of a git revision (extracted
with ``git archive`` into a temporary folder), every figure from a fresh ``python`` process:

- hostile NPZ files (issue 26): a 0.6 MiB archive of a TAN on ``car`` with one extra entry of
  85 million float64 zeros (648 MiB once decompressed), and one whose class-prior entry has a
  ``.npy`` header declaring 10**12 cells (7.28 TiB): what loading it does (loaded, refused,
  which error) and the growth of the process's peak resident memory while it tries;
- load time of good files, written by this checkout (the format is unchanged): TAN (JSON),
  AODE, A2DE and Kikuchi-Bayes (NPZ) fitted on ``kr-vs-kp``; the minimum of ``--repeat``
  loads in one process after a warm-up load, the processes of both trees interleaved.

Run ``python benchmarks/bench_model_files.py --baseline 2dec9ef`` (prints); ``--out FILE``
also writes the ``<!-- model-files:start -->`` ... ``<!-- model-files:end -->`` section of FILE
(benchmarks/RESULTS.md).
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
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

WORKER = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import graphmodels as gm
mode, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "hostile":
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        gm.load_model(path)
        outcome = "loaded"
    except BaseException as error:  # what the old code raised is the finding
        message = str(error).replace(repr(path), "the file")
        outcome = f"{type(error).__name__}: {message[:90]}"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"outcome": outcome, "peak_mib": grown / 1024}))
else:
    gm.load_model(path)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        gm.load_model(path)
        times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": min(times)}))
"""


def _run(root, mode, path, repeat=1):
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(  # run beside the file: the current directory would come before PYTHONPATH
        [sys.executable, "-c", WORKER, mode, str(path), str(repeat)],
        env=env,
        cwd=Path(path).parent,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _extract(revision, folder):
    archive = subprocess.run(["git", "archive", revision], cwd=common.REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def _files(folder):
    """The good and the hostile files, written by this checkout."""
    import numpy as np

    import graphmodels as gm

    X, y = gm.datasets.load("kr-vs-kp", return_X_y=True)
    good = {
        "TAN, kr-vs-kp (.json)": (gm.TAN(), ".json"),
        "AODE, kr-vs-kp (.npz)": (gm.AODE(), ".npz"),
        "A2DE, kr-vs-kp (.npz)": (gm.AnDE(n=2), ".npz"),
        "KikuchiBayes, kr-vs-kp (.npz)": (gm.KikuchiBayes(), ".npz"),
    }
    paths = {}
    for k, (label, (model, extension)) in enumerate(good.items()):
        paths[label] = folder / f"good{k}{extension}"
        model.fit(X, y).save(paths[label])
    car = folder / "car.npz"
    gm.TAN().fit(*gm.datasets.load("car", return_X_y=True)).save(car)
    with zipfile.ZipFile(car) as archive:
        document = json.loads(str(np.load(io.BytesIO(archive.read("__document__.npy")))))
        prior = document["fitted"]["class_log_prior_"]["__npz__"] + ".npy"
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    extra = folder / "extra-entry.npz"
    with zipfile.ZipFile(extra, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for name, data in members.items():
            out.writestr(name, data)
        with out.open("extra.npy", "w", force_zip64=True) as handle:
            np.lib.format.write_array(handle, np.zeros(85_000_000))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    huge = folder / "huge-header.npz"
    with zipfile.ZipFile(huge, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in members.items():
            out.writestr(name, header.getvalue() if name == prior else data)
    hostile = {
        f"extra entry of 648 MiB ({extra.stat().st_size / 2**20:.1f} MiB file)": extra,
        f"header declaring 7.28 TiB ({huge.stat().st_size / 2**10:.1f} KiB file)": huge,
    }
    return paths, hostile


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a git revision to measure too")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", help="write the model-files section of this file (benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trees = {"after": common.REPO}
        if args.baseline:
            trees = {f"before ({args.baseline})": _extract(args.baseline, tmp / "baseline"), **trees}
        good, hostile = _files(tmp)
        hostile_rows = []
        for label, path in hostile.items():
            row = {"file": label}
            for tree, root in trees.items():
                result = _run(root, "hostile", path)
                row[f"{tree}: outcome"] = result["outcome"]
                row[f"{tree}: peak memory growth"] = f"{result['peak_mib']:.0f} MiB"
            hostile_rows.append(row)
        good_rows = []
        for label, path in good.items():
            row = {"model file": f"{label}, {path.stat().st_size / 2**10:,.0f} KiB"}
            for tree, root in trees.items():
                row[tree] = common.fmt_seconds(_run(root, "time", path, args.repeat)["seconds"])
            good_rows.append(row)
    import pandas as pd

    hostile_table = common.markdown_table(pd.DataFrame(hostile_rows))
    good_table = common.markdown_table(pd.DataFrame(good_rows))
    print(hostile_table, "\n", good_table, sep="\n")
    load_end = os.getloadavg()
    if args.out:
        command = "python benchmarks/bench_model_files.py" + (f" --baseline {args.baseline}" if args.baseline else "")
        body = "\n\n".join(
            [
                "## Model files (bench_model_files.py)",
                f"Produced by `{command}` (load average at start {tuple(round(v, 2) for v in load_start)}, at end "
                f"{tuple(round(v, 2) for v in load_end)}: a machine shared with other jobs, so compare the columns of "
                "one run, not these times with other sections).",
                common.machine_markdown(),
                "Hostile NPZ files (issue 26), each loaded in a fresh process; the growth of its peak resident "
                "memory while it tried:",
                hostile_table,
                f"Load time of good files (the minimum of {args.repeat} loads in one process after a warm-up load; "
                "the checks of the fitted state run on every load):",
                good_table,
            ]
        )
        common.write_section("model-files", body, Path(args.out))


if __name__ == "__main__":
    main()
