"""Shared helpers of the benchmark scripts: data sets, timing, machine facts, RESULTS.md.

Not part of the package: the scripts in this folder import it as a sibling module.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "RESULTS.md"
RESULTS_TITLE = "# Benchmark results"

#: Where the shared data sets live unless GRAPHMODELS_DATASETS says otherwise.
DEFAULT_DATASETS = REPO.parent / "shared" / "datasets"


def datasets_dir():
    """The shared data-set folder, or None (with a message) when it is missing."""
    path = Path(os.environ.get("GRAPHMODELS_DATASETS", DEFAULT_DATASETS))
    if not path.is_dir():
        print(
            f"[benchmarks] data-set folder {path} not found: the real data sets are skipped. "
            "Set GRAPHMODELS_DATASETS to the folder holding adult.csv.gz, letter.csv.gz, "
            "connect-4.csv.gz."
        )
        return None
    return path


def read_dataset(name):
    """The shared CSV `name` as a DataFrame, or None (with a message) when it is missing."""
    folder = datasets_dir()
    if folder is None:
        return None
    path = folder / f"{name}.csv.gz"
    if not path.is_file():
        print(f"[benchmarks] {path} not found: data set {name!r} is skipped.")
        return None
    return pd.read_csv(path)


def load_sets(names, load_one, tag):
    """``{name: load_one(folder, name)}`` for the shared sets found; says which are missing.

    `load_one` returns None for a missing file; `tag` prefixes the message.
    """
    folder = datasets_dir()
    if folder is None:
        print(f"[{tag}] missing: all {len(names)} sets ({', '.join(names)}).")
        return {}
    sets, missing = {}, []
    for name in names:
        data = load_one(folder, name)
        if data is None:
            missing.append(name)
        else:
            sets[name] = data
    if missing:
        print(f"[{tag}] missing from {folder}: {', '.join(missing)} (skipped).")
    return sets


# ---------------------------------------------------------------------------- timing
def timed(function, *, repeat=3, budget=2.0):
    """Run `function`; if it took less than `budget` seconds, run it up to `repeat` times in all.

    Returns ``(best_seconds, result_of_last_call, n_runs)``. The same rule is
    applied to every peer, so fast methods are timed as best of 3 and slow ones
    once.
    """
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
        if times[0] >= budget:
            break
    return min(times), result, len(times)


# ---------------------------------------------------------------------------- machine
def _cpu_model():
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown"
    match = re.search(r"^model name\s*:\s*(.+)$", text, flags=re.M)
    return match.group(1).strip() if match else "unknown"


def _memory_gib():
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return float("nan")
    match = re.search(r"^MemTotal:\s*(\d+) kB", text, flags=re.M)
    return int(match.group(1)) / 2**20 if match else float("nan")


def _version(module):
    try:
        mod = __import__(module)
        return getattr(mod, "__version__", "?")
    except Exception as error:  # noqa: BLE001 - report whatever went wrong
        return f"not importable ({type(error).__name__})"


def load_average():
    try:
        return tuple(round(x, 2) for x in os.getloadavg())
    except OSError:
        return None


def _git_commit():
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def machine_markdown():
    """A markdown bullet list describing the machine and the versions."""
    versions = ", ".join(
        f"{name} {_version(module)}"
        for name, module in [
            ("graphmodels", "graphmodels"),
            ("numpy", "numpy"),
            ("pandas", "pandas"),
            ("scipy", "scipy"),
            ("networkx", "networkx"),
            ("pgmpy", "pgmpy"),
            ("pyagrum", "pyagrum"),
            ("scikit-learn", "sklearn"),
        ]
    )
    load = load_average()
    return "\n".join(
        [
            f"- date: {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')} (graphmodels commit {_git_commit()})",
            f"- CPU: {_cpu_model()}, `nproc` = {os.cpu_count()}",
            f"- memory: {_memory_gib():.1f} GiB",
            f"- Python {platform.python_version()} on {platform.system()} {platform.release()}",
            f"- versions: {versions}",
            f"- load average (1, 5, 15 min) when the run started: {load}",
        ]
    )


# ---------------------------------------------------------------------------- markdown
def markdown_table(frame):
    """A pipe table of a DataFrame (no index), values already formatted as strings."""
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"
    rows = [
        "| " + " | ".join(str(v).replace("|", "\\|").replace("\n", " ") for v in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])


def write_section(key, body, path=RESULTS):
    """Replace (or append) the block between ``<!-- key:start -->`` and ``<!-- key:end -->``.

    The same convention as benchmarks/bench_uci.py, so that every script refreshes only its
    own sections of RESULTS.md. `body` should start with its own ``## `` heading.
    """
    path = Path(path)
    start, end = f"<!-- {key}:start -->", f"<!-- {key}:end -->"
    block = f"{start}\n{body.strip()}\n{end}"
    content = path.read_text() if path.exists() else RESULTS_TITLE + "\n"
    if start in content and end in content:
        before, rest = content.split(start, 1)
        _, after = rest.split(end, 1)
        content = before + block + after
    else:
        content = content.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(content)
    return path


def write_machine_section(path=RESULTS):
    return write_section(
        "machine", "## Machine (bench_classifiers.py, bench_counting.py)\n\n" + machine_markdown(), path
    )


def fmt_seconds(value):
    if value is None or not np.isfinite(value):
        return "–"
    if value < 0.01:
        return f"{value * 1000:.2f} ms"
    if value < 10:
        return f"{value:.3f} s"
    return f"{value:.1f} s"


def fmt_ratio(value):
    if value is None or not np.isfinite(value):
        return "–"
    return f"{value:.1f}x" if value >= 1 else f"{value:.2f}x"


# ---------------------------------------------------------------------------- synthetic data
def synthetic_tan(n_rows, *, n_features=50, n_states=5, n_classes=2, seed=0, class_weight=0.1):
    """Rows drawn from a random TAN-like network, as integer codes.

    The class is uniform; attribute 0 has only the class as parent; attribute
    ``j >= 1`` has the class and one earlier attribute (chosen at random) as
    parents. Each CPT is ``(1 - class_weight) * shared + class_weight *
    per_class`` with every row of ``shared`` and ``per_class`` drawn from a
    symmetric Dirichlet(0.5): strong links between attributes, a weak class
    signal, so the classes overlap. The network is fixed by `seed`.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features), int8
    y : ndarray of shape (n_rows,), int8
    """
    model_rng = np.random.default_rng(seed)
    parents = [-1] + [int(model_rng.integers(0, j)) for j in range(1, n_features)]
    cpts = []
    for p in parents:
        r_parent = 1 if p < 0 else n_states
        shared = model_rng.dirichlet(np.full(n_states, 0.5), size=(1, r_parent))
        per_class = model_rng.dirichlet(np.full(n_states, 0.5), size=(n_classes, r_parent))
        cpts.append((1 - class_weight) * shared + class_weight * per_class)
    rng = np.random.default_rng([seed, n_rows])
    y = rng.integers(0, n_classes, size=n_rows).astype(np.int8)
    X = np.empty((n_rows, n_features), dtype=np.int8)
    for j, p in enumerate(parents):
        parent_codes = 0 if p < 0 else X[:, p]
        cumulative = np.cumsum(cpts[j][y, parent_codes], axis=1)  # (n_rows, n_states)
        u = rng.random(n_rows)[:, None]
        X[:, j] = np.minimum((u > cumulative).sum(axis=1), n_states - 1)
    return X, y


#: The generators of :func:`tiny_wide_set`: the kind of class-conditional dependence each plants.
TINY_WIDE_GENERATORS = ("independent", "shared-tree", "class-trees", "sparse-signal", "clusters")


def tiny_wide_set(generator, seed):
    """A small, wide classification set: 20-40 rows, 30-60 attributes, 2-4 classes (drawn by `seed`).

    Each class has at least ``n_rows // n_classes`` rows. `generator` plants
    one kind of dependence, every probability row drawn from a Dirichlet:

    * ``"independent"``: attributes independent given the class (naive Bayes is the truth),
      each ``P(x_j | c)`` a mixture of a shared row (weight 0.7) and the class's own;
    * ``"shared-tree"``: one random tree over the attributes in every class (TAN is the truth),
      ``P(x_j | x_parent, c)`` mixed as above;
    * ``"class-trees"``: each class its own random tree and tables (a multinet is the truth);
    * ``"sparse-signal"``: five attributes depend on the class, the others are uniform noise;
    * ``"clusters"``: two hidden clusters within each class; every attribute depends on the class
      and the cluster (dependencies within a class, none given the cluster).

    Returns
    -------
    X : DataFrame of shape (n_rows, n_features), string states
    y : Series of shape (n_rows,), string labels
    """
    if generator not in TINY_WIDE_GENERATORS:
        raise ValueError(f"`generator` must be one of {TINY_WIDE_GENERATORS}, got {generator!r}.")
    rng = np.random.default_rng([TINY_WIDE_GENERATORS.index(generator), seed])
    n_rows, n_features, n_classes = int(rng.integers(20, 41)), int(rng.integers(30, 61)), int(rng.integers(2, 5))
    states = rng.integers(2, 5, n_features)
    y = rng.permutation(np.arange(n_rows) % n_classes)
    X = np.zeros((n_rows, n_features), dtype=np.int64)

    def draw(probabilities):  # one state per row from its row of probabilities
        cumulative = np.cumsum(probabilities, axis=1)
        return np.minimum(
            (rng.random(len(probabilities))[:, None] > cumulative).sum(axis=1), probabilities.shape[1] - 1
        )

    def random_tree():
        order = rng.permutation(n_features)
        return order, [-1] + [int(order[rng.integers(0, i)]) for i in range(1, n_features)]

    if generator in ("independent", "sparse-signal"):
        for j, r in enumerate(states):
            shared = rng.dirichlet(np.full(r, 1.0))
            own = rng.dirichlet(np.full(r, 1.0), size=n_classes)
            weight = 0.3 if generator == "independent" else (0.8 if j < 5 else 0.0)
            X[:, j] = draw(((1 - weight) * shared + weight * own)[y])
    elif generator == "shared-tree":
        order, parents = random_tree()
        for j, p in zip(order, parents):
            r_parent = 1 if p < 0 else states[p]
            shared = rng.dirichlet(np.full(states[j], 0.5), size=r_parent)
            own = rng.dirichlet(np.full(states[j], 0.5), size=(n_classes, r_parent))
            table = 0.7 * shared[None] + 0.3 * own
            X[:, j] = draw(table[y, 0 if p < 0 else X[:, p]])
    elif generator == "class-trees":
        for c in range(n_classes):
            rows = np.flatnonzero(y == c)
            order, parents = random_tree()
            for j, p in zip(order, parents):
                table = rng.dirichlet(np.full(states[j], 0.5), size=1 if p < 0 else states[p])
                X[rows, j] = draw(table[X[rows, p]] if p >= 0 else np.repeat(table, len(rows), axis=0))
    else:  # clusters
        cluster = rng.integers(0, 2, n_rows)
        for j, r in enumerate(states):
            table = rng.dirichlet(np.full(r, 0.5), size=(n_classes, 2))
            X[:, j] = draw(table[y, cluster])
    frame = pd.DataFrame(X.astype(str), columns=[f"x{j}" for j in range(n_features)])
    return frame, pd.Series(y.astype(str), name="class")


def run_one(script, argument, tree=None, *, timeout=None):
    """Run ``python SCRIPT --one ARGUMENT`` in a fresh process and return the JSON of its last line.

    `tree`: the folder whose ``graphmodels`` package the process imports (a checkout of the code
    to compare with); by default this checkout's, never an installed copy of another one.
    Returns None when the process printed nothing (its stderr's end is printed); raises
    ``subprocess.TimeoutExpired`` past `timeout` seconds.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO if tree is None else tree) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, str(script), "--one", argument], capture_output=True, text=True, timeout=timeout, env=env
    )
    lines = out.stdout.strip().splitlines()
    if not lines:
        print(f"{argument}: {out.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(lines[-1])
