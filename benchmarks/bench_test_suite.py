"""How long the test suite takes: pytest's wall clock as the README's test command runs it (issue 26).

Runs ``python -m pytest -n 2 -q`` (the README's command, two xdist workers on this machine's two
cores) in a checkout, reads pytest's own summary line (tests, time) and the ten slowest tests, and
writes the figures to RESULTS.md. ``--serial`` also times one process (no ``-n``), as the
suite ran before xdist. The figure before this work comes from the CI log of the last run on
record before it (quoted in the section), because re-running an old checkout needs its own
environment.

Run ``python benchmarks/bench_test_suite.py`` from the repository's root on a quiet machine
(the load average is recorded); ``--quick`` prints without writing RESULTS.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import common  # noqa: I001  (the benchmarks' sibling module)

ROOT = Path(__file__).resolve().parents[1]

#: The suite before issue 26's work on it: the CI log of the previous session's last run
#: (main at b3fd895, one process, on this machine while it was quiet).
BEFORE = {
    "command": "python -m pytest",
    "seconds": 799.80,
    "summary": "5811 passed, 23 skipped, 77 xfailed, 1132 warnings",
}


def run_suite(arguments):
    """pytest's summary line, its wall clock and the slowest tests it lists, from one run."""
    command = [sys.executable, "-m", "pytest", "-q", "-rf", "--durations=10", *arguments]
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = finished.stdout.splitlines()
    summary = next((line.strip("= ") for line in reversed(lines) if re.search(r"\d+ passed", line)), "no summary")
    slowest = [line for line in lines if re.match(r"^\d+\.\d+s (call|setup|teardown) ", line)]
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    return {
        "command": " ".join(["python -m pytest", *arguments]),
        "seconds": seconds,
        "summary": summary,
        "slowest": slowest[:10],
        "failed": failed,
        "exit": finished.returncode,
    }


def markdown(runs):
    rows = [f"| before (CI log, b3fd895) | `{BEFORE['command']}` | {BEFORE['seconds']:.0f} s | {BEFORE['summary']} |"]
    rows += [f"| after | `{run['command']}` | {run['seconds']:.0f} s | {run['summary']} |" for run in runs]
    main = runs[0]
    slowest = "\n".join(f"    {line}" for line in main["slowest"])
    return "\n".join(
        [
            "## The test suite's time (bench_test_suite.py, issue 26)",
            "",
            common.machine_markdown(),
            "",
            "| | command | wall clock | pytest's summary |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            f"Target: pytest under 6 minutes on the quiet machine: {main['seconds'] / 60:.1f} min "
            f"({'met' if main['seconds'] < 360 else 'missed'}). The ten slowest tests of the `-n 2` run:",
            "",
            slowest,
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="print only; do not write RESULTS.md")
    parser.add_argument("--serial", action="store_true", help="also time the suite in one process")
    options = parser.parse_args(argv)
    runs = [run_suite(["-n", "2"])]
    if options.serial:
        runs.append(run_suite([]))
    body = markdown(runs)
    print(body)
    if any(run["exit"] != 0 for run in runs):
        for run in runs:
            print("\n".join(run["failed"]), file=sys.stderr)
        print("pytest failed: RESULTS.md not written", file=sys.stderr)
        return 1
    if not options.quick:
        common.write_section("test-suite", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
