"""Speed and memory of the bounded tree-width Markov network classifiers (Liang & Srebro).

For every method triple f-R-k (criterion f in {ML, MDL}, representation R in
{J, Cs, Cf}, tree-width k = 1, 2, 3) on letter (20,000 x 17), connect-4
(67,557 x 43) and splice (3,190 x 61), all rows: the time of
``HyperforestClassifier.fit`` and its split into

(a) candidate weights: ``stats.hyperedge_weights`` (the subset entropies of
    every set of up to k + 1 variables, the paper's O(m n^(k+1)) bottleneck,
    and their Moebius sums);
(b) structure search: ``learners.max_hyperforest`` (one call per class for Cf);
(c) parameters: ``models.hyperforest.clique_log_tables``;
and "other" = the rest of ``fit`` (encoding the table, the counting engine,
the class prior). The three parts are timed inside the real ``fit`` by
wrapping the module functions it calls, so they add up to the fit time.

Every configuration runs in a fresh Python process (this script run with
``--child``): the process loads the data, resets its peak resident size
(``/proc/self/clear_refs``), fits once and reads the peak (``VmHWM``): the peak
RSS of the whole process during the fit, and its growth over the resident size
just before the fit. Then the fit is repeated for the time (best of 3 when the
first fit took under 20 s, else 1 run) and, unless ``--no-tracemalloc``,
once more under ``tracemalloc`` (numpy reports its buffers to it) for a
second memory figure.

Side by side at k = 1, in the same run and also one fresh process each:
pgmpy's ``TreeSearch`` (structure only: "chow-liu" over every column with the
class, "tan") against the structure part of ML-J-1 and ML-Cs-1 (fit minus
parameters), and pyAgrum's ``skbn.BNClassifier("Chow-Liu" / "TAN")`` (its
only Chow-Liu / TAN learner: structure and parameters) against the whole fit.
Then, on splice: ``n_starts`` = 1 vs 100 (backtracking of the incremental
algorithm) at k = 2, 3, and the global vs incremental algorithm at k = 2,
with the weight of the structure each finds.

The issue's targets (MDL-Cs-3 on letter under 10 s, ML-J-2 on connect-4 under
30 s, peak memory under 4 GiB) are printed PASS / FAIL; a failing time target
is profiled with cProfile in a fresh process and the top functions reported.

Run ``python benchmarks/bench_hyperforests.py`` (about half an hour on 2
cores), or ``--quick`` (no connect-4 k = 3, no tracemalloc, no pgmpy
TreeSearch on connect-4; prints only unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import io
import json
import pstats
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

CLASS = "class"
DATASETS = ("letter", "connect-4", "splice")
TREEWIDTHS = (1, 2, 3)
#: (criterion, representation) in the order of the tables; the brief's minimum is ML-J, MDL-Cs, MDL-Cf.
TRIPLES = (("ml", "joint"), ("ml", "shared"), ("ml", "free"), ("mdl", "joint"), ("mdl", "shared"), ("mdl", "free"))
SHORT = {"joint": "J", "shared": "Cs", "free": "Cf"}
#: (dataset, triple, k, seconds): fit-time targets of the issue.
TIME_TARGETS = (("letter", ("mdl", "shared"), 3, 10.0), ("connect-4", ("ml", "joint"), 2, 30.0))
MEMORY_TARGET_GIB = 4.0
CHILD_TIMEOUT_S = 3600


def triple_name(criterion, representation, k):
    return f"{criterion.upper()}-{SHORT[representation]}-{k}"


# ---------------------------------------------------------------------------- data
def load(name):
    """All rows of `name` as ``(X, y)``; letter's 16 numeric columns cut into 5 equal-frequency bins.

    The discretizer is the paper's protocol (``min_distinct=10``), fitted on all
    20,000 rows: the benchmark fits on the whole table, so there is no test part.
    """
    import graphmodels as gm

    frame = common.read_dataset(name)
    if frame is None:
        return None
    X, y = frame.drop(columns=CLASS), frame[CLASS]
    if name == "letter":
        X = gm.data.EqualFrequencyDiscretizer(n_bins=5, min_distinct=10).fit_transform(X)
    return X, y


# ---------------------------------------------------------------------------- memory (child side)
def _status_bytes(field):
    """``VmRSS`` / ``VmHWM`` of this process from /proc/self/status, in bytes (None if unavailable)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak():
    """Reset the peak resident size (VmHWM) to the current one; False where Linux does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _ru_maxrss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_memory_once(function):
    """Run `function` once; returns ``(result, seconds, memory dict)``.

    ``peak`` is the process's peak RSS during the call (VmHWM after a reset), or
    the lifetime ``ru_maxrss`` where the reset is not possible (``exact`` False).
    """
    gc.collect()
    before = _status_bytes("VmRSS")
    exact = _reset_peak() and before is not None
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    peak = _status_bytes("VmHWM") if exact else None
    maxrss = _ru_maxrss_bytes()
    if peak is None:
        peak, exact = maxrss, False
    growth = None if before is None else max(peak - before, 0)
    return result, seconds, dict(rss_before=before, rss_peak=peak, rss_growth=growth, ru_maxrss=maxrss, exact=exact)


def tracemalloc_peak(function):
    gc.collect()
    tracemalloc.start()
    try:
        function()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


# ---------------------------------------------------------------------------- phase timing (child side)
class PhaseTimer:
    """Wrap the functions ``HyperforestClassifier._fit`` calls and add up their wall time.

    ``hyperedge_weights`` (a), ``max_hyperforest`` (b) and ``clique_log_tables``
    (c) are looked up as globals of ``graphmodels.models.hyperforest`` when
    ``_fit`` runs, so replacing them there times the real fit;
    ``subset_entropies`` (inside (a)) is replaced in ``graphmodels.stats.hyperedges``.
    """

    TARGETS = (
        ("weights", "graphmodels.models.hyperforest", "hyperedge_weights"),
        ("search", "graphmodels.models.hyperforest", "max_hyperforest"),
        ("parameters", "graphmodels.models.hyperforest", "clique_log_tables"),
        ("entropies", "graphmodels.stats.hyperedges", "subset_entropies"),
    )

    def __init__(self):
        self.seconds = {}
        self._saved = []

    def __enter__(self):
        self.seconds = {phase: 0.0 for phase, _, _ in self.TARGETS}
        for phase, module_name, attribute in self.TARGETS:
            module = importlib.import_module(module_name)
            original = getattr(module, attribute)
            self._saved.append((module, attribute, original))
            setattr(module, attribute, self._wrap(phase, original))
        return self

    def _wrap(self, phase, function):
        def timed_call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - start

        return timed_call

    def __exit__(self, *exc):
        for module, attribute, original in reversed(self._saved):
            setattr(module, attribute, original)
        self._saved = []
        return False


# ---------------------------------------------------------------------------- child tasks
#: A configuration whose first run took less than this is run 3 times and the best time kept.
REPEAT_BUDGET_S = 20.0


def _repeat(function, first_seconds, *, repeat=3, budget=REPEAT_BUDGET_S):
    """More runs of `function` after a first one (up to `repeat` in all when the first took under `budget`).

    The rule of ``common.timed`` with a larger budget: the machine is shared, and
    a single run of a few seconds can be slowed several times by another job.
    """
    results = []
    if first_seconds < budget:
        for _ in range(repeat - 1):
            start = time.perf_counter()
            value = function()
            results.append((time.perf_counter() - start, value))
    return results


def child_ours(spec):
    from graphmodels.models import HyperforestClassifier

    X, y = load(spec["dataset"])

    def fit():
        model = HyperforestClassifier(
            estimator="liang-srebro",  # the paper's pseudo-count 0.001, explicitly
            treewidth=spec["k"],
            criterion=spec["criterion"],
            representation=spec["representation"],
            algorithm=spec.get("algorithm", "incremental"),
            n_starts=spec.get("n_starts", 100),
        )
        with PhaseTimer() as phases:
            model.fit(X, y)
        return phases.seconds, model

    (phases, model), seconds, memory = measure_memory_once(fit)
    runs = [(seconds, phases)] + [(s, value[0]) for s, value in _repeat(fit, seconds)]
    best_seconds, best_phases = min(runs, key=lambda run: run[0])
    # C_f: one Hyperforest per class in structures_ (structure_ is their union, an nx.Graph).
    structures = model.structures_ if model.representation_ == "free" else [model.structure_]
    out = dict(
        fit=best_seconds,
        first=seconds,
        runs=len(runs),
        phases=best_phases,
        memory=memory,
        n_nodes=len(structures[0].nodes),
        n_maximal=sum(len(s.maximal_hyperedges) for s in structures),
    )
    if spec.get("tracemalloc"):
        out["tracemalloc"] = tracemalloc_peak(fit)
    return out


def child_pgmpy(spec):
    from pgmpy.estimators import TreeSearch

    X, y = load(spec["dataset"])
    train = X.assign(**{CLASS: np.asarray(y)})

    def structure():
        if spec["estimator_type"] == "tan":
            search = TreeSearch(train, root_node=X.columns[0])
            return search.estimate(estimator_type="tan", class_node=CLASS, show_progress=False)
        return TreeSearch(train, root_node=CLASS).estimate(estimator_type="chow-liu", show_progress=False)

    dag, seconds, memory = measure_memory_once(structure)
    runs = [seconds] + [s for s, _ in _repeat(structure, seconds)]
    return dict(fit=min(runs), first=seconds, runs=len(runs), memory=memory, n_edges=dag.number_of_edges())


def child_pyagrum(spec):
    import pyagrum as gum
    import pyagrum.skbn as skbn

    if spec.get("threads"):
        gum.setNumberOfThreads(spec["threads"])
    X, y = load(spec["dataset"])
    y = pd.Series(np.asarray(y), name=CLASS)

    def fit():
        model = skbn.createBNClassifier(learningMethod=spec["method"], prior="Smoothing", priorWeight=0.001)
        return model.fit(X, y)

    model, seconds, memory = measure_memory_once(fit)
    runs = [seconds] + [s for s, _ in _repeat(fit, seconds)]
    return dict(
        fit=min(runs),
        first=seconds,
        runs=len(runs),
        memory=memory,
        n_edges=model.bn_.sizeArcs(),
        threads=gum.getNumberOfThreads(),
    )


def child_search(spec):
    """Time ``max_hyperforest`` alone on precomputed weights, for several (algorithm, n_starts)."""
    from graphmodels.learners import max_hyperforest
    from graphmodels.learners.trees import canonical_order
    from graphmodels.models import training_counts
    from graphmodels.stats import hyperedge_weights

    X, y = load(spec["dataset"])
    engine = training_counts(X, y).engine  # encoded as HyperforestClassifier's fit encodes them
    names = engine.names
    # The nodes in the order the classifier's fit uses (it fixes the order by name).
    if spec["representation"] == "joint":
        nodes, given = canonical_order(names), None
    else:
        nodes, given = canonical_order(names[:-1]), names[-1]
    weights = hyperedge_weights(engine, nodes, k=spec["k"], score=spec["criterion"], given=given)
    for size in range(2, spec["k"] + 2):
        weights.weights_of_size(size)  # the Moebius sums are cached on the weights: compute them before timing
    results = []
    for algorithm, n_starts in spec["settings"]:
        seconds, forest, runs = common.timed(
            lambda: max_hyperforest(weights, spec["k"], algorithm=algorithm, n_starts=n_starts),  # noqa: B023
            budget=REPEAT_BUDGET_S,
        )
        results.append(
            dict(
                algorithm=algorithm,
                n_starts=n_starts,
                seconds=seconds,
                runs=runs,
                weight=forest.weight(weights),
                maximal=sorted(sorted(map(str, h)) for h in forest.maximal_hyperedges),
            )
        )
    return dict(results=results)


def child_profile(spec):
    """cProfile one fit; the functions with the largest own time and the largest cumulative time."""
    from graphmodels.models import HyperforestClassifier

    X, y = load(spec["dataset"])
    model = HyperforestClassifier(
        treewidth=spec["k"],
        criterion=spec["criterion"],
        representation=spec["representation"],
        estimator="liang-srebro",
    )
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    model.fit(X, y)
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler, stream=io.StringIO())
    total = stats.total_tt
    rows = []
    for (filename, line, function), (_, calls, own, cumulative, _) in stats.stats.items():
        where = f"{Path(filename).name}:{line}({function})" if line else function
        rows.append(dict(function=where, calls=calls, own=own, cumulative=cumulative))
    top_own = sorted(rows, key=lambda r: -r["own"])[:10]
    top_cumulative = sorted(rows, key=lambda r: -r["cumulative"])[:15]
    return dict(wall=wall, total=total, top_own=top_own, top_cumulative=top_cumulative)


CHILD_TASKS = {
    "ours": child_ours,
    "pgmpy": child_pgmpy,
    "pyagrum": child_pyagrum,
    "search": child_search,
    "profile": child_profile,
}


def run_child(spec):
    """Run one task in a fresh interpreter; returns its result dict, or ``{"error": ...}``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {CHILD_TIMEOUT_S} s"}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": tail[:200]}
    return json.loads(lines[-1])


def child_main(spec_text):
    spec = json.loads(spec_text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = CHILD_TASKS[spec["task"]](spec)
        except Exception as exc:  # noqa: BLE001 - one failing configuration must not stop the run
            result = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:200]}
    print(json.dumps(result))
    return 0


# ---------------------------------------------------------------------------- formatting
def gib(value):
    if value is None or not np.isfinite(value):
        return "–"
    return f"{value / 2**30:.2f} GiB" if value >= 2**30 else f"{value / 2**20:.0f} MiB"


def _run_label(row):
    return f"best of {row['runs']}" if row.get("runs", 1) > 1 else "1 run"


def ours_table(rows):
    records = []
    for r in rows:
        if "error" in r:
            records.append(
                dict(
                    k=r["k"],
                    triple=r["triple"],
                    fit=f"failed: {r['error']}",
                    weights="",
                    entropies="",
                    search="",
                    parameters="",
                    other="",
                    runs="",
                    peak="",
                    growth="",
                    tracemalloc="",
                    load=r["load"],
                )
            )
            continue
        p = r["phases"]
        other = r["fit"] - p["weights"] - p["search"] - p["parameters"]
        records.append(
            dict(
                k=r["k"],
                triple=r["triple"],
                fit=common.fmt_seconds(r["fit"]),
                weights=common.fmt_seconds(p["weights"]),
                entropies=f"{100 * p['entropies'] / p['weights']:.0f}%" if p["weights"] > 0 else "–",
                search=common.fmt_seconds(p["search"]),
                parameters=common.fmt_seconds(p["parameters"]),
                other=common.fmt_seconds(other),
                runs=_run_label(r),
                peak=gib(r["memory"]["rss_peak"]) + ("" if r["memory"]["exact"] else " (lifetime)"),
                growth=gib(r["memory"]["rss_growth"]),
                tracemalloc=gib(r.get("tracemalloc")),
                load=r["load"],
            )
        )
    frame = pd.DataFrame(records)
    frame.columns = [
        "k",
        "triple",
        "fit (total)",
        "(a) weights",
        "of (a): subset entropies",
        "(b) search",
        "(c) parameters",
        "other",
        "runs",
        "peak RSS (process)",
        "RSS growth in fit",
        "tracemalloc peak",
        "load (1 min)",
    ]
    return common.markdown_table(frame)


def find(rows, dataset, criterion, representation, k):
    for r in rows:
        if (r["dataset"], r["criterion"], r["representation"], r["k"]) == (dataset, criterion, representation, k):
            return r
    return None


def target_rows(ours):
    verdicts = []
    for dataset, (criterion, representation), k, limit in TIME_TARGETS:
        r = find(ours, dataset, criterion, representation, k)
        name = triple_name(criterion, representation, k)
        if r is None:
            measured, verdict = "not run", "NOT MEASURED"
        elif "error" in r:
            measured, verdict = f"failed: {r['error']}", "FAIL"
        else:
            measured = f"{common.fmt_seconds(r['fit'])} ({_run_label(r)})"
            verdict = "PASS" if r["fit"] < limit else "FAIL"
        verdicts.append(
            dict(
                target=f"{name} on {dataset}: fit under {limit:g} s",
                measured=measured,
                verdict=verdict,
                dataset=dataset,
                criterion=criterion,
                representation=representation,
                k=k,
            )
        )
    measured = [r for r in ours if "error" not in r]
    if measured:

        def memory_of(r):
            return max(r["memory"]["rss_peak"] or 0, r.get("tracemalloc") or 0)

        worst = max(measured, key=memory_of)
        ok = memory_of(worst) < MEMORY_TARGET_GIB * 2**30
        verdicts.append(
            dict(
                target=f"peak memory under {MEMORY_TARGET_GIB:g} GiB (every configuration)",
                measured=f"largest: {gib(memory_of(worst))} ({worst['triple']} on {worst['dataset']}; "
                "larger of process peak RSS and tracemalloc peak)",
                verdict="PASS" if ok else "FAIL",
            )
        )
    return verdicts


def peer_table(ours, peers):
    records = []
    for p in peers:
        r = find(ours, p["dataset"], "ml", p["ours_representation"], 1)
        if r is None or "error" in r:
            continue
        ours_structure = r["fit"] - r["phases"]["parameters"]
        ours_time = ours_structure if p["compare"] == "structure" else r["fit"]
        if "error" in p:
            peer_time, ratio, memory = f"failed: {p['error']}", "–", "–"
        else:
            peer_time = f"{common.fmt_seconds(p['fit'])} ({_run_label(p)}; first {common.fmt_seconds(p['first'])})"
            ratio = common.fmt_ratio(p["fit"] / ours_time)
            memory = gib(p["memory"]["rss_peak"])
        records.append(
            {
                "data set": p["dataset"],
                "peer": p["label"],
                "graphmodels": f"{r['triple']}, {'fit minus (c)' if p['compare'] == 'structure' else 'whole fit'}",
                "graphmodels time": common.fmt_seconds(ours_time),
                "peer time": peer_time,
                "peer / graphmodels": ratio,
                "peer edges": p.get("n_edges", "–"),
                "peer peak RSS": memory,
                "graphmodels peak RSS": gib(r["memory"]["rss_peak"]),
                "load (1 min)": p["load"],
            }
        )
    return common.markdown_table(pd.DataFrame(records)) if records else "(no peer ran)"


def search_tables(searches):
    lines = []
    for s in searches:
        if "error" in s:
            lines.append(f"- {s['triple']} on splice: failed ({s['error']})")
            continue
        reference = s["results"][-1] if s["kind"] == "n_starts" else s["results"][0]
        records = []
        for r in s["results"]:
            runs = f"best of {r['runs']}" if r["runs"] > 1 else "1 run"
            records.append(
                {
                    "triple": s["triple"],
                    "algorithm": r["algorithm"],
                    "n_starts": r["n_starts"] if r["algorithm"] == "incremental" else "–",
                    "search time": f"{common.fmt_seconds(r['seconds'])} ({runs})",
                    "structure weight (nats)": f"{r['weight']:.4f}",
                    "weight - reference": f"{r['weight'] - reference['weight']:+.4f}",
                    "same structure as reference": "yes" if r["maximal"] == reference["maximal"] else "no",
                    "maximal hyperedges": len(r["maximal"]),
                    "load (1 min)": s["load"],
                }
            )
        lines.append(common.markdown_table(pd.DataFrame(records)))
        lines.append("")
    return "\n".join(lines)


def profile_markdown(profiles):
    out = []
    for p in profiles:
        out.append(f"#### {p['triple']} on {p['dataset']}\n")
        if "error" in p:
            out.append(f"Profile failed: {p['error']}\n")
            continue
        out.append(f"Wall time under cProfile {common.fmt_seconds(p['wall'])}; profiled total {p['total']:.2f} s.\n")
        frame = pd.DataFrame(
            [
                {
                    "function": r["function"],
                    "calls": r["calls"],
                    "own time": common.fmt_seconds(r["own"]),
                    "share of total": f"{100 * r['own'] / p['total']:.1f}%",
                    "cumulative": common.fmt_seconds(r["cumulative"]),
                }
                for r in p["top_own"]
            ]
        )
        out.append("Largest own time:\n\n" + common.markdown_table(frame) + "\n")
        frame = pd.DataFrame(
            [
                {
                    "function": r["function"],
                    "cumulative": common.fmt_seconds(r["cumulative"]),
                    "share of total": f"{100 * r['cumulative'] / p['total']:.1f}%",
                }
                for r in p["top_cumulative"]
            ]
        )
        out.append("Largest cumulative time:\n\n" + common.markdown_table(frame) + "\n")
    return "\n".join(out)


# ---------------------------------------------------------------------------- main
def print_search(search):
    shown = search.get("error") or "; ".join(
        f"{r['algorithm']} n_starts={r['n_starts']}: {common.fmt_seconds(r['seconds'])}, weight {r['weight']:.4f}"
        for r in search["results"]
    )
    print(f"[splice] {search['kind']} {search['triple']}: {shown} (load {search['load']})", flush=True)


def load_1min():
    load = common.load_average()
    return "–" if load is None else f"{load[0]:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="skip connect-4 k=3, tracemalloc and pgmpy on connect-4; print only"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="markdown file whose hyperforests section is (re)written; default "
        "benchmarks/RESULTS.md for a full run, none for --quick",
    )
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--treewidths", nargs="+", type=int, default=list(TREEWIDTHS))
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the tracemalloc fit of each configuration")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--no-search", action="store_true", help="skip the n_starts / global experiments on splice")
    parser.add_argument(
        "--pyagrum-threads",
        type=int,
        default=1,
        help="pyAgrum's number of threads (default 1, as graphmodels; 0 = pyAgrum's default)",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child_main(args.child)
    out = args.out if args.out is not None else (None if args.quick else common.RESULTS)
    use_tracemalloc = not (args.quick or args.no_tracemalloc)
    available = [name for name in args.datasets if common.read_dataset(name) is not None]
    if not available:
        print("No data set found: nothing was run.")
        return 1

    machine = common.machine_markdown()
    load_start = common.load_average()
    start = time.perf_counter()
    skipped = []

    # -- our method triples, one fresh process each
    ours = []
    for dataset in available:
        for k in args.treewidths:
            if args.quick and dataset == "connect-4" and k == 3:
                skipped.append("connect-4 at k = 3 (--quick)")
                continue
            for criterion, representation in TRIPLES:
                spec = dict(
                    task="ours",
                    dataset=dataset,
                    criterion=criterion,
                    representation=representation,
                    k=k,
                    tracemalloc=use_tracemalloc,
                )
                load = load_1min()
                result = run_child(spec)
                row = dict(
                    dataset=dataset,
                    criterion=criterion,
                    representation=representation,
                    k=k,
                    triple=triple_name(criterion, representation, k),
                    load=load,
                    **result,
                )
                ours.append(row)
                shown = (
                    row.get("error")
                    or f"fit {common.fmt_seconds(row['fit'])}, "
                    + ", ".join(f"{phase} {common.fmt_seconds(value)}" for phase, value in row["phases"].items())
                    + f", peak RSS {gib(row['memory']['rss_peak'])}"
                )
                print(f"[{dataset}] {row['triple']}: {shown} (load {load})", flush=True)

    # -- peers at k = 1
    peers, peer_notes = [], []
    if not args.no_peers:
        peer_specs = []
        try:
            import pgmpy  # noqa: F401
        except Exception as exc:  # noqa: BLE001
            peer_notes.append(f"pgmpy not importable ({type(exc).__name__}: {exc}): skipped.")
        else:
            for dataset in available:
                if args.quick and dataset == "connect-4":
                    skipped.append("pgmpy on connect-4 (--quick)")
                    continue
                peer_specs.append(
                    (
                        dict(task="pgmpy", dataset=dataset, estimator_type="chow-liu"),
                        'pgmpy TreeSearch("chow-liu"), all columns + class',
                        "joint",
                        "structure",
                    )
                )
                peer_specs.append(
                    (
                        dict(task="pgmpy", dataset=dataset, estimator_type="tan"),
                        'pgmpy TreeSearch("tan")',
                        "shared",
                        "structure",
                    )
                )
        try:
            import pyagrum.skbn  # noqa: F401
        except Exception as exc:  # noqa: BLE001
            peer_notes.append(f"pyAgrum not importable ({type(exc).__name__}: {exc}): skipped.")
        else:
            for dataset in available:
                for method, representation in (("Chow-Liu", "joint"), ("TAN", "shared")):
                    spec = dict(task="pyagrum", dataset=dataset, method=method, threads=args.pyagrum_threads)
                    peer_specs.append((spec, f'pyAgrum BNClassifier("{method}")', representation, "fit"))
        for spec, label, representation, compare in peer_specs:
            load = load_1min()
            result = run_child(spec)
            peers.append(
                dict(
                    dataset=spec["dataset"],
                    label=label,
                    ours_representation=representation,
                    compare=compare,
                    load=load,
                    **result,
                )
            )
            shown = result.get("error") or f"{common.fmt_seconds(result['fit'])}"
            print(f"[{spec['dataset']}] {label}: {shown} (load {load})", flush=True)

    # -- n_starts and global vs incremental on splice
    searches = []
    if not args.no_search and "splice" in available:
        for criterion, representation in (("ml", "joint"), ("mdl", "shared")):
            for k in (2, 3):
                spec = dict(
                    task="search",
                    dataset="splice",
                    criterion=criterion,
                    representation=representation,
                    k=k,
                    settings=[("incremental", 1), ("incremental", 100)],
                )
                load = load_1min()
                searches.append(
                    dict(
                        kind="n_starts", triple=triple_name(criterion, representation, k), load=load, **run_child(spec)
                    )
                )
                print_search(searches[-1])
        for criterion, representation in (("ml", "joint"), ("mdl", "shared")):
            spec = dict(
                task="search",
                dataset="splice",
                criterion=criterion,
                representation=representation,
                k=2,
                settings=[("incremental", 100), ("global", 100)],
            )
            load = load_1min()
            searches.append(
                dict(kind="algorithm", triple=triple_name(criterion, representation, 2), load=load, **run_child(spec))
            )
            print_search(searches[-1])

    # -- targets, and a profile of every failing time target
    verdicts = target_rows(ours)
    profiles = []
    for v in verdicts:
        if v["verdict"] == "FAIL" and "k" in v:
            spec = dict(
                task="profile",
                dataset=v["dataset"],
                criterion=v["criterion"],
                representation=v["representation"],
                k=v["k"],
            )
            profiles.append(
                dict(
                    triple=triple_name(v["criterion"], v["representation"], v["k"]),
                    dataset=v["dataset"],
                    **run_child(spec),
                )
            )
    for v in verdicts:
        print(f"{v['verdict']}: {v['target']} -- {v['measured']}")

    elapsed = time.perf_counter() - start
    markdown = to_markdown(
        machine,
        load_start,
        elapsed,
        args,
        ours,
        verdicts,
        dict(rows=peers, notes=peer_notes),
        searches,
        profiles,
        skipped,
        use_tracemalloc,
    )
    print("\n" + markdown)
    if out is not None:
        common.write_section("hyperforests", markdown, out)
        print(f"\nwrote the hyperforests section of {out}")
    return 0


def to_markdown(
    machine, load_start, elapsed, args, ours, verdicts, peers, searches, profiles, skipped, use_tracemalloc
):
    out = ["## Bounded tree-width Markov networks: fit time and memory (bench_hyperforests.py)", ""]
    if args.quick:
        out.append("**Quick run, not the benchmark figures.**\n")
    out.append(machine)
    out.append(
        f"- load average (1, 5, 15 min) at the end: {common.load_average()}; the run took "
        f"{elapsed / 60:.1f} min. The machine has 2 cores and may be shared with other jobs "
        f"(load at the start {load_start}): the `load (1 min)` column gives the 1-minute load "
        "average when each configuration started. This benchmark's own process accounts for about 1 "
        "of it: above 2, another job was competing for the 2 cores.\n"
    )
    out.append(
        "`python benchmarks/bench_hyperforests.py`: `HyperforestClassifier(treewidth=k, criterion=f, "
        'representation=R)` with the defaults `algorithm="incremental"`, `n_starts=100`, '
        '`estimator="liang-srebro"` (pseudo-count 0.001), fitted on all rows of each data set (letter: the 16 numeric columns cut '
        "by `EqualFrequencyDiscretizer(n_bins=5, min_distinct=10)` fitted on the 20,000 rows; connect-4 "
        "and splice as they are).\n"
    )
    out.append(
        "- Time split inside the real `fit` (the module functions it calls are wrapped with timers): "
        "**(a)** `stats.hyperedge_weights`, the candidate weights of every set of up to k + 1 "
        "variables (the column *of (a): subset entropies* is the share of (a) spent in "
        "`stats.subset_entropies`, the counting pass); **(b)** `learners.max_hyperforest` (for Cf one "
        "call per class; it includes the lazy Moebius sums and attachment gains of the weights); "
        "**(c)** `clique_log_tables`, the parameters; *other* = fit minus (a), (b), (c): encoding "
        "the table, building the counting engine, the class prior.\n"
        f"- Time: best of 3 fits when the first took under {REPEAT_BUDGET_S:g} s, else 1 fit (the rule "
        "of `common.timed` with a larger budget, because the machine is shared: a single run of a few "
        "seconds was seen slowed several times by other jobs); the parts are those of the fastest fit.\n"
        "- Memory: each configuration runs in a fresh Python process that loads the data, resets its "
        "peak resident size (`/proc/self/clear_refs`), fits once and reads `VmHWM`: *peak RSS "
        "(process)* is the peak of the whole process during the fit (interpreter, pandas, the data "
        "and the fit), *RSS growth in fit* is that peak minus the resident size just before the fit. "
        + (
            "*tracemalloc peak* is the peak of Python and numpy allocations during one more fit under `tracemalloc`.\n"
            if use_tracemalloc
            else "tracemalloc was not run.\n"
        )
    )
    if skipped:
        out.append(f"Skipped: {'; '.join(skipped)}.\n")
    for dataset in dict.fromkeys(r["dataset"] for r in ours):
        part = [r for r in ours if r["dataset"] == dataset]
        shape = {"letter": "20,000 x 17", "connect-4": "67,557 x 43", "splice": "3,190 x 61"}[dataset]
        out.append(f"### {dataset} ({shape})\n")
        out.append(ours_table(part) + "\n")
    out.append("### Targets (issue)\n")
    out.append(
        common.markdown_table(
            pd.DataFrame(
                [{"target": v["target"], "measured": v["measured"], "verdict": f"**{v['verdict']}**"} for v in verdicts]
            )
        )
        + "\n"
    )
    if profiles:
        out.append("### Profiles of the failing targets (cProfile, fresh process)\n")
        out.append(profile_markdown(profiles))
    out.append("### Peers at k = 1\n")
    out.append(
        "Each peer also runs in a fresh process per data set, on the same frames (letter: the same "
        "discretized categorical columns), timed by the same rule. pgmpy 1.1.2 `TreeSearch(...).estimate` "
        'learns a structure only: `"chow-liu"` over every column including the class (root: the class) '
        'is compared with ML-J-1 (Chow-Liu over the attributes and the class), `"tan"` with ML-Cs-1 '
        "(TAN); the graphmodels time is its fit minus (c) (encoding, weights, search). pyAgrum 3.3.1 "
        "has no Chow-Liu or TAN in `BNLearner`; its scikit-learn wrapper `skbn.BNClassifier` "
        '(`learningMethod="Chow-Liu"` / `"TAN"`, prior Smoothing 0.001) is its only such learner '
        "and always learns the parameters too (after writing the data to a temporary CSV), so it is "
        "compared with the whole fit. Its TAN skips the pairs whose conditional mutual information is "
        "below sum / (d (d - 1)), which can leave a forest (*peer edges* counts the arcs, class arcs "
        "included); every data set here has 3 or more classes, so it searches no decision threshold. "
        + (
            f"pyAgrum runs with {args.pyagrum_threads} thread (`pyagrum.setNumberOfThreads`), like "
            "graphmodels: with its default of 2 threads on this shared 2-core machine the same splice "
            "Chow-Liu fit took 0.3 s in one run and 12-30 s in others (its threads wait on each other "
            "when another job holds a core). "
            if args.pyagrum_threads == 1
            else f"pyAgrum threads: {args.pyagrum_threads or 'its default'}. "
        )
        + "Ratios above 1: the peer is slower.\n"
    )
    for note in peers["notes"]:
        out.append(f"- {note}")
    out.append(peer_table(ours, peers["rows"]) + "\n")
    if searches:
        out.append("### Structure search on splice: n_starts and algorithm\n")
        out.append(
            "`learners.max_hyperforest` alone, on the weights of the fit (computed once per table, "
            "with the Moebius sums they cache computed before timing; the attachment gains are "
            "recomputed by every call and are part of its time), best of 3 when under "
            f"{REPEAT_BUDGET_S:g} s. The "
            "structure weight is the sum of the weights of every hyperedge of the found hyperforest "
            "(the training log-likelihood per row for ML, minus the penalty for MDL): higher is "
            "better.\n"
        )
        n_starts = [s for s in searches if s["kind"] == "n_starts"]
        algorithms = [s for s in searches if s["kind"] == "algorithm"]
        if n_starts:
            out.append(
                "**n_starts = 1 vs 100** (incremental algorithm with backtracking over the heaviest "
                "start hyperedges; reference: n_starts = 100):\n"
            )
            out.append(search_tables(n_starts))
        if algorithms:
            out.append("**Global vs incremental** at k = 2 (reference: incremental, n_starts = 100):\n")
            out.append(search_tables(algorithms))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
