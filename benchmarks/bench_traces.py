"""Cost of the learning traces (issue 17): fit time with ``trace=False`` and ``trace=True``, per learner.

Two measurements, on shared sets of ``../shared/datasets`` (car, tic-tac-toe, kr-vs-kp, splice,
letter as a stratified 2,000-row sample; emotions for the multi-dimensional classifiers):

* **fit**: every model with a ``trace`` parameter, default settings otherwise, fitted with the
  trace off and on. The two settings alternate (off, on, off, on, ...) so that a burst of load
  from other jobs hits both alike, and each time is the median of ``--repeat`` samples (default 5).
* **search**: the learner function alone (``chow_liu_tree``, ``tan_structure``, ...), called on a
  counting engine whose tables are already counted and cached: the structure search without the
  counting that dominates a fit, so the ratio is the trace's cost at its most visible. Median of
  ``--search-repeat`` samples (default 9), alternating likewise.

A sample (of fits or of searches) is the mean time of as many calls as take about 50 ms, one
call for the slower ones: a fit or search of a few milliseconds is then not at the mercy of one
time slice another process takes.

Recording off costs nothing by construction (the learners hold ``None`` and every recording
statement is behind ``if record is not None``): the "off" times are the learners' own.

Usage::

    python benchmarks/bench_traces.py [--sets car splice ...] [--repeat 5] [--search-repeat 9]
        [--no-fit] [--no-search] [--out benchmarks/RESULTS.md]

Writes its section of RESULTS.md between ``<!-- traces:start -->`` and ``<!-- traces:end -->``
(only for a run over every set with both measurements, unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.data import read_multilabel  # noqa: E402
from graphmodels.learners import (  # noqa: E402
    chow_liu_tree,
    fan_structure,
    hierarchical_naive_bayes_search,
    kdb_structure,
    kikuchi_bayes_path,
    max_hyperforest,
    multidimensional_structure,
    tan_structure,
)
from graphmodels.models.base import training_counts  # noqa: E402
from graphmodels.stats import hyperedge_weights  # noqa: E402
from graphmodels.structures import cluster_variation_regions  # noqa: E402

SETS = ("car", "tic-tac-toe", "kr-vs-kp", "splice", "letter")
BATCH_SECONDS = 0.05  # a search sample: as many calls as take about this long
MAX_ROWS = 2000  # letter (20,000 rows, 26 classes) is sampled down to this, stratified

CLASSIFIERS = {
    "TAN": gm.TAN,
    "FAN": gm.FAN,
    # One search per class, as when the RESULTS table was made (the default "auto" adds TAN's).
    "ChowLiu": lambda **kw: gm.ChowLiu(representation="free", **kw),
    "KDB": gm.KDB,
    "SelectiveKDB": gm.SelectiveKDB,
    "HierarchicalNaiveBayes": lambda **kw: gm.HierarchicalNaiveBayes(random_state=0, **kw),
    # Shared, as when the RESULTS table was made (the default is "auto": both, keeping one).
    "HyperforestClassifier": lambda **kw: gm.HyperforestClassifier(representation="shared", **kw),
    "HyperforestClassifier (free)": lambda **kw: gm.HyperforestClassifier(representation="free", **kw),
    "KikuchiBayes": gm.KikuchiBayes,
}
DENSITIES = {"ChowLiuTree": gm.ChowLiuTree, "HyperforestDensity": gm.HyperforestDensity}
MULTILABEL = {
    "MultiDimensionalNaiveBayes": gm.models.MultiDimensionalNaiveBayes,
    "MultiDimensionalTAN": gm.models.MultiDimensionalTAN,
    "MultiDimensionalAODE": gm.models.MultiDimensionalAODE,
}


def load(name):
    frame = common.read_dataset(name)
    if frame is None:
        return None
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].astype(str).rename("class")
    if len(frame) > MAX_ROWS and name == "letter":
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(np.arange(len(frame)), train_size=MAX_ROWS, stratify=y, random_state=0)
        keep = np.sort(keep)
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    return X, y


def alternate(off, on, repeat, *, batch_seconds=0.0):
    """Median seconds of `off` and of `on`, called alternately `repeat` times each, and `on`'s last result.

    With `batch_seconds`, each sample times a batch of calls lasting about that long (sized from
    one call of `off`) and divides: a search of a millisecond is not at the mercy of one time slice
    another process takes.
    """
    calls = 1
    if batch_seconds:
        start = time.perf_counter()
        off()
        calls = max(1, int(batch_seconds / max(time.perf_counter() - start, 1e-6)))
    times = {False: [], True: []}
    result = None
    for _ in range(repeat):
        for flag, function in ((False, off), (True, on)):
            start = time.perf_counter()
            for _ in range(calls):
                out = function()
            times[flag].append((time.perf_counter() - start) / calls)
            if flag:
                result = out
    return statistics.median(times[False]), statistics.median(times[True]), result


# ---------------------------------------------------------------------------- fit
def fit_rows(name, X, y, repeat):
    rows = []
    entries = [(m, c, True) for m, c in CLASSIFIERS.items()] + [(m, c, False) for m, c in DENSITIES.items()]
    for model, cls, supervised in entries:

        def fit(flag, cls=cls, supervised=supervised):
            return cls(trace=flag).fit(X, y) if supervised else cls(trace=flag).fit(X)

        off, on, fitted = alternate(lambda: fit(False), lambda: fit(True), repeat, batch_seconds=BATCH_SECONDS)
        rows.append(_row("fit", name, model, off, on, len(fitted.trace_), repeat))
        print(f"  fit {name:12s} {model:24s} off {off:8.3f} s  on {on:8.3f} s  x{on / off:.2f}", flush=True)
    return rows


def multilabel_fit_rows(X, Y, repeat):
    rows = []
    for model, cls in MULTILABEL.items():
        off, on, fitted = alternate(
            lambda cls=cls: cls().fit(X, Y),
            lambda cls=cls: cls(trace=True).fit(X, Y),
            repeat,
            batch_seconds=BATCH_SECONDS,
        )
        rows.append(_row("fit", "emotions", model, off, on, len(fitted.trace_), repeat))
        print(f"  fit emotions     {model:24s} off {off:8.3f} s  on {on:8.3f} s  x{on / off:.2f}", flush=True)
    return rows


# ---------------------------------------------------------------------------- search
def search_rows(name, X, y, repeat):
    engine = training_counts(X, y, discretizer="mdl").engine
    class_name, features = engine.names[-1], engine.names[:-1]
    weights = hyperedge_weights(engine, features, k=2, score="mdl", given=class_name)
    path = kikuchi_bayes_path(engine, class_name, max_region_size=3)
    regions = [step["region"] for step in path]
    learners = {
        "chow_liu_tree (Kruskal)": lambda t: chow_liu_tree(engine, features, trace=t),
        "chow_liu_tree (Prim)": lambda t: chow_liu_tree(engine, features, algorithm="prim", trace=t),
        "tan_structure": lambda t: tan_structure(engine, class_name, trace=t),
        "fan_structure": lambda t: fan_structure(engine, class_name, trace=t),
        "kdb_structure (k=2)": lambda t: kdb_structure(engine, class_name, k=2, trace=t),
        "max_hyperforest (incremental, k=2)": lambda t: max_hyperforest(weights, 2, trace=t),
        "max_hyperforest (global, k=2)": lambda t: max_hyperforest(weights, 2, algorithm="global", trace=t),
        "cluster_variation_regions (Kikuchi path)": lambda t: cluster_variation_regions(regions, trace=t),
        "kikuchi_bayes_path (regions <= 3)": lambda t: kikuchi_bayes_path(
            engine, class_name, max_region_size=3, trace=t
        ),
        "hierarchical_naive_bayes_search": lambda t: hierarchical_naive_bayes_search(
            engine, class_name, random_state=0, trace=t
        ),
    }
    rows = []
    for learner, call in learners.items():
        call(False)  # fills the engine's caches
        search_repeat = repeat if "kikuchi" not in learner and "hierarchical" not in learner else max(5, repeat // 2)
        off, on, result = alternate(
            lambda call=call: call(False), lambda call=call: call(True), search_repeat, batch_seconds=BATCH_SECONDS
        )
        rows.append(_row("search", name, learner, off, on, len(result[-1]), search_repeat))
        print(f"  search {name:12s} {learner:42s} off {off * 1000:9.2f} ms  on {on * 1000:9.2f} ms", flush=True)
    return rows


def multilabel_search_rows(X, Y, repeat):
    frame = pd.concat([X, Y], axis=1)
    engine = training_counts(frame, discretizer="equal-frequency").engine
    classes, features = list(Y.columns), list(X.columns)

    def call(flag):
        kwargs = dict(class_subgraph="forest", feature_subgraph="forest", criterion="bdeu")
        return multidimensional_structure(engine, classes, features, trace=flag, **kwargs)

    call(False)
    off, on, result = alternate(lambda: call(False), lambda: call(True), repeat, batch_seconds=BATCH_SECONDS)
    print(f"  search emotions multidimensional_structure off {off * 1000:.2f} ms on {on * 1000:.2f} ms", flush=True)
    return [_row("search", "emotions", "multidimensional_structure (forests)", off, on, len(result[-1]), repeat)]


def _row(kind, dataset, learner, off, on, n_steps, repeat):
    return {
        "measure": kind,
        "dataset": dataset,
        "learner": learner,
        "off_s": off,
        "on_s": on,
        "ratio": on / off if off > 0 else float("nan"),
        "steps": n_steps,
        "repeat": repeat,
    }


# ---------------------------------------------------------------------------- report
def section(results, machine, seconds, load_before, load_after, repeat, search_repeat):
    lines = [
        "## Learning traces: the cost of `trace=True` (bench_traces.py)",
        "",
        machine,
        f"- load average (1, 5, 15 min) when the run ended: {load_after}",
        f"- {seconds / 60:.1f} min in all",
        "",
        "The machine is shared (2 cores; other engineers' benchmarks ran at the same time, load "
        f"{load_before[0] if load_before else '?'} at the start): each time is a median, with the off and on runs "
        "alternating so that bursts of load hit both alike. *off*: `trace=False`, the learners' own time "
        "(recording off costs nothing: the recorder is `None` and every recording statement sits behind "
        "`if record is not None`). *steps*: rows of the trace.",
        "",
    ]
    fit = results[results["measure"] == "fit"]
    if len(fit):
        lines += [
            f"### Model fit, default settings (median of {repeat} samples each)",
            "",
            "Fit of the model from the raw table (encoding, counting, structure search, parameters); a "
            f"sample is the mean of as many fits as take about {BATCH_SECONDS * 1000:.0f} ms (one fit for "
            "the slower ones). "
            "letter: a stratified 2,000-row sample; emotions: equal-frequency bins (the models' default). "
            '`HyperforestClassifier (free)`: `representation="free"`, one search per class, as `ChowLiu`.',
            "",
        ]
        lines.append(_table(fit, scale=1.0, unit="s"))
        lines += [
            "",
            f"Median ratio over all fits: {fit['ratio'].median():.2f}x; largest: {fit['ratio'].max():.2f}x "
            f"({_largest(fit)}).",
            "",
        ]
    search = results[results["measure"] == "search"]
    if len(search):
        lines += [
            f"### Structure search alone (median of {search_repeat} samples; 5 for the Kikuchi-Bayes and "
            "hierarchical NB searches)",
            "",
            "The learner function on a counting engine whose tables are already cached: no counting, so "
            f"the trace's cost is at its most visible. A sample is the mean of as many calls as take about "
            f"{BATCH_SECONDS * 1000:.0f} ms (one call for the slower searches), so that a search of a "
            "millisecond is not at the mercy of one time slice of another process. Hyperforests: MDL weights "
            "of the class-conditional "
            "shared model, computed beforehand; `cluster_variation_regions`: the regions of the Kikuchi-Bayes "
            "path (`max_region_size=3`).",
            "",
        ]
        lines.append(_table(search, scale=1000.0, unit="ms"))
        lines += [
            "",
            f"Median ratio: {search['ratio'].median():.2f}x; largest: {search['ratio'].max():.2f}x "
            f"({_largest(search)}). The large ratios are those of searches under a millisecond, where the "
            "fixed cost of building the trace's DataFrame (a few tenths of a millisecond) dominates; beyond "
            "it a step costs a few microseconds (a dict appended to a list, the names of its item).",
        ]
    return "\n".join(lines)


def _largest(frame):
    row = frame.loc[frame["ratio"].idxmax()]
    return f"{row['learner']} on {row['dataset']}"


def _table(frame, *, scale, unit):
    shown = pd.DataFrame(
        {
            "dataset": frame["dataset"],
            "learner": frame["learner"],
            f"off ({unit})": [f"{v * scale:.3f}" if v * scale < 100 else f"{v * scale:.1f}" for v in frame["off_s"]],
            f"on ({unit})": [f"{v * scale:.3f}" if v * scale < 100 else f"{v * scale:.1f}" for v in frame["on_s"]],
            "on / off": [f"{v:.2f}" for v in frame["ratio"]],
            "steps": frame["steps"].astype(int),
        }
    )
    return common.markdown_table(shown)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS) + ["emotions"])
    parser.add_argument("--repeat", type=int, default=5, help="fits per setting (median), >= 5 on a busy machine")
    parser.add_argument("--search-repeat", type=int, default=9, help="search calls per setting (median)")
    parser.add_argument("--no-fit", action="store_true")
    parser.add_argument("--no-search", action="store_true")
    parser.add_argument("--out", help="RESULTS file to write the section into (default: benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    start, load_before, machine = time.perf_counter(), common.load_average(), common.machine_markdown()
    rows = []
    for name in args.sets:
        if name == "emotions":
            folder = common.datasets_dir()
            if folder is None or not (folder / "emotions.csv.gz").is_file():
                continue
            X, Y = read_multilabel(folder / "emotions.csv.gz", prefix="label_")
            if not args.no_fit:
                rows += multilabel_fit_rows(X, Y, args.repeat)
            if not args.no_search:
                rows += multilabel_search_rows(X, Y, args.search_repeat)
            continue
        data = load(name)
        if data is None:
            continue
        X, y = data
        print(f"{name}: {X.shape[0]} rows, {X.shape[1]} attributes", flush=True)
        if not args.no_fit:
            rows += fit_rows(name, X, y, args.repeat)
        if not args.no_search:
            rows += search_rows(name, X, y, args.search_repeat)
    results = pd.DataFrame(rows)
    seconds = time.perf_counter() - start
    body = section(results, machine, seconds, load_before, common.load_average(), args.repeat, args.search_repeat)
    print(body)
    complete = set(args.sets) >= set(SETS) | {"emotions"} and not (args.no_fit or args.no_search)
    if args.out or complete:
        path = common.write_section("traces", body, args.out or common.RESULTS)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
