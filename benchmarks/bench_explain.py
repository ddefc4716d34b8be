"""Explanations and interaction analysis (issue 30): run times, and pyAgrum's Shapley values beside ours.

Three measurements, each timed as wall clock and as the process's CPU time (the machine is
shared: the CPU time is the steadier figure; the load average is recorded beside them):

* **Interaction analysis** (:func:`graphmodels.interaction_graph`) on every shared data set (the
  class column last; ``alarm`` is a network, not a table): the information of every attribute
  about the class and the interaction information ``I(A; B; C)`` of every pair of attributes
  with the class, first alone (``test=None``), then with the asymptotic likelihood-ratio test of
  every pair and attribute and Benjamini-Hochberg's correction (the default). Numeric columns are
  cut by the default MDL discretizer, inside the timed call. Target: under 10 s each.
* **Every triple of splice's 61 columns** (60 attributes and the class, 35,990 triples):
  :func:`graphmodels.stats.triple_interaction_information`, without and with the asymptotic
  test. Target: under 10 s.
* **Shapley values of 1,000 rows of adult** (a seeded sample; 14 attributes, so 16,384
  coalitions a row) by :func:`graphmodels.shapley_values` for a TAN and a naive Bayes fitted on
  all rows (exact), and for the TAN by sampling (200 permutations) with its largest error
  against the exact values. Target: the TAN's exact values under 5 s.
* **pyAgrum beside ours on the same TAN**: the TAN exported by
  :func:`graphmodels.io.to_pyagrum`, pyAgrum's ``ConditionalShapValues(bn, class, logit=True)``
  (the same game: a coalition's value is the posterior log-odds with the other attributes
  unobserved) on rows given as the network's labels, one row at a time (its ``compute`` on a
  Series); the largest absolute difference from ours and the time per row of each. On adult
  (14 attributes, 3 rows: pyAgrum runs one junction-tree query per coalition) and on two
  binary sets with 9 attributes (20 rows each).

Usage::

    python benchmarks/bench_explain.py [--sets car adult ...] [--pyagrum-rows 3] [--out benchmarks/RESULTS.md]

Reads ``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``); with ``--out``, writes the section
between ``<!-- explain:start -->`` and ``<!-- explain:end -->``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.stats import triple_interaction_information  # noqa: E402

TARGET_PAIRS = 10.0
TARGET_TRIPLES = 10.0
TARGET_SHAPLEY = 5.0
NOT_TABLES = {"alarm"}
PYAGRUM_SETS = (("adult", 3), ("tic-tac-toe", 20), ("breast-cancer-wisconsin", 20))


def _clock(function):
    """``(wall seconds, CPU seconds, result)`` of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _all_sets():
    folder = common.datasets_dir()
    if folder is None:
        return []
    return sorted(p.name[: -len(".csv.gz")] for p in folder.glob("*.csv.gz") if p.name[:-7] not in NOT_TABLES)


def _split(frame):
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def interaction_rows(names):
    rows = []
    for name in names:
        frame = common.read_dataset(name)
        if frame is None:
            continue
        X, y = _split(frame)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wall_info, cpu_info, _ = _clock(lambda X=X, y=y: gm.interaction_graph(X, y, test=None))
            wall_test, cpu_test, graph = _clock(lambda X=X, y=y: gm.interaction_graph(X, y))
        pairs = graph.graph["pairs"]
        rows.append(
            {
                "set": name,
                "rows": len(X),
                "attributes": X.shape[1],
                "pairs": len(pairs),
                "information: wall": wall_info,
                "information: CPU": cpu_info,
                "with tests: wall": wall_test,
                "with tests: CPU": cpu_test,
                "significant pairs": int(pairs["significant"].sum()),
            }
        )
        print(f"[explain] pairs {name}: {wall_info:.2f} s / {wall_test:.2f} s (wall), {len(pairs)} pairs")
    return pd.DataFrame(rows)


def triple_rows():
    frame = common.read_dataset("splice")
    if frame is None:
        return pd.DataFrame()
    rows = []
    for test in (None, "asymptotic"):
        wall, cpu, triples = _clock(lambda test=test: triple_interaction_information(frame, test=test))
        rows.append(
            {
                "test": test or "none",
                "columns": frame.shape[1],
                "triples": len(triples),
                "wall": wall,
                "CPU": cpu,
                "strongest abs(I), nats": float(triples["interaction"].abs().max()),
            }
        )
        print(f"[explain] splice triples, test={test}: {wall:.2f} s wall, {cpu:.2f} s CPU ({len(triples)})")
    return pd.DataFrame(rows)


def _adult_model(cls):
    frame = common.read_dataset("adult")
    X, y = _split(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the integer columns cut by MDL, as intended here
        return X, cls().fit(X, y)


def shapley_rows(n_rows=1000):
    if common.read_dataset("adult") is None:
        return pd.DataFrame()
    rows = []
    X, tan = _adult_model(gm.TAN)
    sample = X.sample(n_rows, random_state=0)
    gm.shapley_values(tan, sample.head(5))  # warm-up
    _, nb = _adult_model(gm.NaiveBayes)
    exact = None
    # Sampling scores (p + 1) masked rows per permutation through the model's general scoring, not the
    # trees' programme: on 100 of the rows.
    cases = (("TAN", tan, "exact", n_rows), ("NaiveBayes", nb, "exact", n_rows), ("TAN", tan, "sampling", 100))
    for label, model, method, n in cases:
        rows_used = sample.head(n)
        wall, cpu, result = _clock(
            lambda model=model, method=method, rows_used=rows_used: gm.shapley_values(
                model, rows_used, method=method, random_state=0, return_std=True
            )
        )
        values, errors = result
        log_proba = model.predict_log_proba(rows_used)
        efficiency = float(np.abs(values.sum(axis=1).to_numpy() - (log_proba[:, 1] - log_proba[:, 0])).max())
        if label == "TAN" and method == "exact":
            exact = values
        gap = math.nan
        if method == "sampling" and exact is not None:
            gap = float(np.abs(values - exact.loc[values.index]).to_numpy().max())
        rows.append(
            {
                "model": label,
                "method": method,
                "rows": n,
                "wall": wall,
                "CPU": cpu,
                "efficiency: max abs(sum - log-odds)": efficiency,
                "max abs(sampled - exact)": gap,
                "max standard error": float(errors.to_numpy().max()) if method == "sampling" else math.nan,
            }
        )
        print(f"[explain] Shapley {label} {method}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    return pd.DataFrame(rows)


def _labels(model, rows):
    """The rows as the labels of the exported network's states (the model's own coding of each cell)."""
    codes = np.asarray(model._encode_new(rows))
    columns, levels = list(model.encoder_.columns_), model.encoder_.levels_
    return pd.DataFrame({c: [str(levels[j][k]) for k in codes[:, j]] for j, c in enumerate(columns)}, index=rows.index)


def pyagrum_rows(sets):
    try:
        from pyagrum.explain import ConditionalShapValues
    except ImportError:
        print("[explain] pyAgrum is not installed: its comparison is skipped.")
        return pd.DataFrame()
    from graphmodels.io import to_pyagrum

    rows = []
    for name, n_rows in sets:
        frame = common.read_dataset(name)
        if frame is None:
            continue
        X, y = _split(frame)
        if y.nunique() != 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = gm.TAN().fit(X, y)
        sample = X.sample(n_rows, random_state=0)
        # Rows whose every cell is a state of the network (a missing cell is the state "<missing>").
        labels = _labels(model, sample)
        wall_ours, cpu_ours, ours = _clock(lambda model=model, sample=sample: gm.shapley_values(model, sample))
        explainer = ConditionalShapValues(to_pyagrum(model), model.class_name_)
        columns = list(model.encoder_.columns_)
        # pyAgrum's logit of P(classes_[1]) is log P(c1) / (1 - P(c1)) = our log-odds for two classes.
        wall_theirs, cpu_theirs, theirs = _clock(
            lambda explainer=explainer, labels=labels, columns=columns: [
                pd.Series(explainer.compute(labels.loc[i])[1])[columns] for i in labels.index
            ]
        )
        difference = max(
            float(np.abs(ours.loc[i, columns].to_numpy() - t.to_numpy()).max()) for i, t in zip(labels.index, theirs)
        )
        base_gap = float(abs(ours["<prior>"].iloc[0] - explainer.baseline[1]))
        rows.append(
            {
                "set": name,
                "attributes": len(columns),
                "rows": n_rows,
                "max abs(ours - pyAgrum)": max(difference, base_gap),
                "ours: wall per row": wall_ours / n_rows,
                "ours: CPU per row": cpu_ours / n_rows,
                "pyAgrum: wall per row": wall_theirs / n_rows,
                "pyAgrum: CPU per row": cpu_theirs / n_rows,
                "pyAgrum / ours (CPU)": cpu_theirs / max(cpu_ours, 1e-9),
            }
        )
        print(f"[explain] pyAgrum on {name}: max difference {difference:.2e}, {cpu_theirs / n_rows:.3f} s CPU a row")
    return pd.DataFrame(rows)


def _fmt(frame, seconds=(), ratios=(), small=()):
    out = frame.copy()
    for column in out.columns:
        if column in seconds:
            out[column] = [common.fmt_seconds(v) for v in out[column]]
        elif column in ratios:
            out[column] = [common.fmt_ratio(v) for v in out[column]]
        elif column in small:
            out[column] = ["–" if not np.isfinite(v) else f"{v:.1e}" for v in out[column]]
        elif out[column].dtype.kind == "f":
            out[column] = [f"{v:.3f}" for v in out[column]]
        elif out[column].dtype.kind in "iu":
            out[column] = [f"{v:,}" for v in out[column]]
    return common.markdown_table(out)


def _verdict(wall, cpu, target):
    """Whether a timing meets its target, in wall-clock and in CPU time."""
    if wall < target:
        return "met in wall-clock and CPU time"
    return "met in CPU time only (the wall clock is over it at this load)" if cpu < target else "NOT met"


def render(pairs, triples, shapley, pyagrum, load_start, load_end):
    commit = common._git_commit()
    today = time.strftime("%Y-%m-%d %H:%M")
    parts = [
        "## Explanations and interaction analysis (bench_explain.py)",
        "",
        f"Produced by `python benchmarks/bench_explain.py` at graphmodels commit {commit} on {today}; load average "
        f"(1, 5, 15 min) {load_start} at the start, {load_end} at the end (a machine of 2 cores shared with other "
        "jobs: under load the wall clock is up to several times the CPU time; each target is judged on both).",
        "",
    ]
    if len(pairs):
        worst = pairs["with tests: wall"].max()
        worst_cpu = pairs["with tests: CPU"].max()
        parts += [
            "### Every pair of attributes with the class, every shared set (`interaction_graph`)",
            "",
            f"`information`: `test=None`; `with tests`: the default analysis (the asymptotic likelihood-ratio test of "
            "every attribute and every pair against the model of its 2-way tables, fitted by IPF, and "
            "Benjamini-Hochberg's correction); numeric columns cut by MDL inside the call; `significant pairs`: "
            f"adjusted P <= 0.05. Slowest set with tests: {common.fmt_seconds(worst)} wall, "
            f"{common.fmt_seconds(worst_cpu)} CPU (target < {TARGET_PAIRS:.0f} s: "
            f"{_verdict(worst, worst_cpu, TARGET_PAIRS)}).",
            "",
            _fmt(pairs, seconds={c for c in pairs.columns if ": wall" in c or ": CPU" in c}),
            "",
        ]
    if len(triples):
        parts += [
            "### Every triple of splice's 61 columns (`triple_interaction_information`)",
            "",
            "The 60 attributes and the class: every triple, in one batch per first variable; `asymptotic`: each "
            f"triple tested as the pairs are (IPF, chi-squared), Benjamini-Hochberg over all. Target < "
            f"{TARGET_TRIPLES:.0f} s: {_verdict(triples['wall'].max(), triples['CPU'].max(), TARGET_TRIPLES)}.",
            "",
            _fmt(triples, seconds={"wall", "CPU"}),
            "",
        ]
    if len(shapley):
        tan = shapley[(shapley["model"] == "TAN") & (shapley["method"] == "exact")].iloc[0]
        parts += [
            "### Shapley values of 1,000 rows of adult (`shapley_values`)",
            "",
            "A seeded sample of 1,000 rows, models fitted on all 48,842; 14 attributes, 16,384 coalitions a row; "
            "`exact` by the dynamic programme over the TAN's tree, for naive Bayes (an additive game) from the empty "
            "coalition and the 14 singletons, "
            "`sampling` by 200 antithetic permutations on the first 100 of those rows (each permutation scores 15 "
            "masked rows through the model's general scoring, not the trees' programme: for a tree model with 14 "
            "attributes the exact values are both cheaper and exact; sampling is for more than 15 attributes). Efficiency: the values of a row add up to its log-odds. "
            f"Target: the TAN's exact values < {TARGET_SHAPLEY:.0f} s: {common.fmt_seconds(tan['CPU'])} CPU, "
            f"{common.fmt_seconds(tan['wall'])} wall ({_verdict(tan['wall'], tan['CPU'], TARGET_SHAPLEY)}).",
            "",
            _fmt(
                shapley,
                seconds={"wall", "CPU"},
                small={"efficiency: max abs(sum - log-odds)", "max abs(sampled - exact)", "max standard error"},
            ),
            "",
        ]
    if len(pyagrum):
        parts += [
            "### pyAgrum's Shapley values beside ours, the same TAN",
            "",
            "The TAN fitted by graphmodels on all rows, exported by `graphmodels.io.to_pyagrum`; pyAgrum's "
            "`ConditionalShapValues(bn, class, logit=True).compute(row)` on the row's labels, one row at a time; "
            "ours: `shapley_values(model, rows)` on the same rows (one call). Both compute the same game "
            "(marginalization: a coalition's value is the posterior log-odds with the others unobserved), so the "
            "values agree to rounding; pyAgrum answers one junction-tree query per coalition of each row, ours "
            "sums every coalition of every row in one dynamic programme over the tree.",
            "",
            _fmt(
                pyagrum,
                seconds={c for c in pyagrum.columns if "per row" in c},
                ratios={"pyAgrum / ours (CPU)"},
                small={"max abs(ours - pyAgrum)"},
            ),
            "",
        ]
    return "\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="shared sets of the pairs' timing (default: all)")
    parser.add_argument("--pyagrum-rows", type=int, default=3, help="rows of adult explained by pyAgrum (default: 3)")
    parser.add_argument("--skip-pyagrum", action="store_true")
    parser.add_argument("--out", help="RESULTS.md to update")
    args = parser.parse_args(argv)
    load_start = common.load_average()
    gm.interaction_graph(gm.datasets.load("lenses"), "class")  # imports
    pairs = interaction_rows(args.sets or _all_sets())
    triples = triple_rows()
    shapley = shapley_rows()
    sets = [(name, args.pyagrum_rows if name == "adult" else n) for name, n in PYAGRUM_SETS]
    pyagrum = pd.DataFrame() if args.skip_pyagrum else pyagrum_rows(sets)
    body = render(pairs, triples, shapley, pyagrum, load_start, common.load_average())
    print(body)
    if args.out:
        common.write_section("explain", body, args.out)
        print(f"[explain] section written to {args.out}")


if __name__ == "__main__":
    main()
