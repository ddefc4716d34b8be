"""The empirical-Bayes searches' scorers against the formula written cell by cell (A/B in one process).

:class:`~graphmodels.estimators.EmpiricalBayesBDeu` (``"bdeu-auto"``, AODE's default) and
:class:`~graphmodels.estimators.HierarchicalDirichlet` choose a hyperparameter per table by a
log-grid search whose cost is ``gammaln``. Their scorers evaluate it once per distinct
(prior, count) pair and weight it by its multiplicity; the straightforward scorer (the one they
replaced) evaluates it per non-empty cell. This script times both on the same tables, one
process, alternating, and checks that they choose the same values (bit for bit).

Tables: AODE's families ``(class, super-parent, child)`` of every pair of attributes, counted on
the training rows of fold 0 (``StratifiedKFold(5, shuffle=True, random_state=0)``, the peers'
binning) of a few shared sets. With ``--results``, the table is written to the section
``empirical-bayes-search`` of RESULTS.md.

Usage::

    python benchmarks/bench_empirical_bayes_search.py [--sets splice wine ...] [--repeats 3] [--results]
"""

from __future__ import annotations

import argparse
import time

import bench_peers
import common
import numpy as np
from sklearn.model_selection import StratifiedKFold

from graphmodels._special import gammaln
from graphmodels.estimators import EmpiricalBayesBDeu, HierarchicalDirichlet, hierarchical, parameters
from graphmodels.estimators.parameters import segment_starts


def cell_by_cell_bdeu_scorer(terms):
    """The BDeu scorer before distinct counts were shared: ``gammaln`` of every non-empty cell."""
    cells = np.concatenate([t.cells for t in terms])
    parents = np.concatenate([t.parents for t in terms])
    cell_table = np.repeat(np.arange(len(terms)), [t.cells.size for t in terms])
    parent_table = np.repeat(np.arange(len(terms)), [t.parents.size for t in terms])
    cell_starts, parent_starts = (
        segment_starts([t.cells.size for t in terms]),
        segment_starts([t.parents.size for t in terms]),
    )
    n_cells = np.array([t.n_cells for t in terms], dtype=np.float64)[:, None]
    n_configurations = np.array([t.n_configurations for t in terms], dtype=np.float64)[:, None]

    def score(grids):
        alpha, per_parent = grids / n_cells, grids / n_configurations
        k, n, m = cells.size, len(terms), parents.size
        g = gammaln(
            np.concatenate(
                [alpha[cell_table] + cells[:, None], alpha, per_parent, per_parent[parent_table] + parents[:, None]]
            )
        )
        cell_terms = g[:k] - g[k : k + n][cell_table]
        parent_terms = g[k + n : k + 2 * n][parent_table] - g[k + 2 * n : k + 2 * n + m]
        return np.add.reduceat(cell_terms, cell_starts, axis=0) + np.add.reduceat(parent_terms, parent_starts, axis=0)

    return score


def cell_by_cell_polya_scorer(levels):
    """The hierarchical scorer before distinct counts were shared: ``gammaln`` of every non-empty cell."""
    cells = np.concatenate([cells for cells, _, _ in levels])
    cell_base = np.concatenate([base for _, base, _ in levels])
    totals = np.concatenate([totals for _, _, totals in levels])
    cell_level = np.repeat(np.arange(len(levels)), [c.size for c, _, _ in levels])
    total_level = np.repeat(np.arange(len(levels)), [t.size for _, _, t in levels])
    cell_starts, total_starts = (
        segment_starts([c.size for c, _, _ in levels]),
        segment_starts([t.size for _, _, t in levels]),
    )

    def score(grids):
        prior = grids[cell_level] * cell_base[:, None]
        k, n = cells.size, len(levels)
        g = gammaln(np.concatenate([prior + cells[:, None], prior, grids, grids[total_level] + totals[:, None]]))
        cell_terms = g[:k] - g[k : 2 * k]
        total_terms = g[2 * k : 2 * k + n][total_level] - g[2 * k + n :]
        return np.add.reduceat(cell_terms, cell_starts, axis=0) + np.add.reduceat(total_terms, total_starts, axis=0)

    return score


def aode_tables(name):
    """The (class, super-parent, child) count tables of fold 0's training rows."""
    X, y, _ = bench_peers.load(name, None)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    data = bench_peers.fold_data(X, y, train, test)
    codes = np.column_stack([np.unique(data["X_train"][c], return_inverse=True)[1] for c in data["X_train"].columns])
    classes = np.unique(data["y_train"], return_inverse=True)[1]
    sizes = codes.max(axis=0) + 1
    tables = []
    for parent in range(codes.shape[1]):
        for child in range(codes.shape[1]):
            if child != parent:
                table = np.zeros((classes.max() + 1, sizes[parent], sizes[child]))
                np.add.at(table, (classes, codes[:, parent], codes[:, child]), 1.0)
                tables.append(table)
    return tables


def timed(estimator, tables, module, attribute, scorer):
    """CPU seconds of one search of all tables with `scorer` in place of the library's, and the result."""
    library = getattr(module, attribute)
    setattr(module, attribute, scorer or library)
    try:
        start = time.process_time()
        result = estimator.pseudo_counts_of_tables(tables)
        return time.process_time() - start, result
    finally:
        setattr(module, attribute, library)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["splice", "satimage", "soybean-large", "wine"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", action="store_true", help="write the table to RESULTS.md")
    args = parser.parse_args(argv)
    load_at_start = common.load_average()
    searches = [
        ("bdeu-auto", EmpiricalBayesBDeu(), parameters, "_bdeu_scores_on_grids", cell_by_cell_bdeu_scorer),
        ("hierarchical", HierarchicalDirichlet(), hierarchical, "_polya_scores_on_grids", cell_by_cell_polya_scorer),
    ]
    lines = [
        "| set | tables | estimator | cell by cell (s) | distinct counts (s) | ratio | same choices |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    print("\n".join(lines))
    for name in args.sets:
        tables = aode_tables(name)
        for label, estimator, module, attribute, reference in searches:
            times: dict[str, list[float]] = {"cells": [], "distinct": []}
            for repeat in range(args.repeats):
                for kind in ("cells", "distinct") if repeat % 2 == 0 else ("distinct", "cells"):
                    seconds, result = timed(
                        estimator, tables, module, attribute, reference if kind == "cells" else None
                    )
                    times[kind].append(seconds)
                    if kind == "cells":
                        expected = result
                    else:
                        found = result
            same = all(np.array_equal(a, b) for a, b in zip(expected, found))
            old, new = np.median(times["cells"]), np.median(times["distinct"])
            lines.append(f"| {name} | {len(tables)} | {label} | {old:.3f} | {new:.3f} | {old / new:.2f}x | {same} |")
            print(lines[-1], flush=True)
    if args.results:
        body = "\n".join(
            [
                "## Empirical-Bayes searches: distinct counts against cell by cell (bench_empirical_bayes_search.py, issue 27)",
                "",
                "The searches of `bdeu-auto` and `hierarchical` over AODE's family tables of fold 0's training rows "
                "(the peers' binning), CPU seconds of the search alone, the median of "
                f"{args.repeats} alternating runs in one process; `same choices`: every table's chosen value equal "
                "bit for bit.",
                "",
                common.machine_markdown(),
                f"- load average (1, 5, 15 min) when the run started: {load_at_start}",
                "",
                *lines,
            ]
        )
        common.write_section("empirical-bayes-search", body)


if __name__ == "__main__":
    main()
