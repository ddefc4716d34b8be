"""Selective KDB's leave-one-out grid: at the scored rows' cells against whole tables (A/B in one process).

:func:`graphmodels.models.selective_kdb._leave_one_out_grid` scores every ``(k, number of
attributes)`` sub-model of a selective KDB from the counts. It computes each family's
probabilities at the scored rows' cells only (a family whose parents have more configurations
than rows from the configurations the rows hold, not its whole table), all families of a block of
attributes normalized together, and every k's loss along the order in one pass; the formulation it
replaced (kept below as :func:`whole_table_grid`) normalized and took the log of each whole family
table and scored each k apart. This script times both on the same structure, each run on a fresh
engine over the same rows (its tables counted inside the timing, as in every inner fold of
BNClassifier), one process, alternating, and checks that the losses are equal bit for bit.

Data: the training rows of fold 0 (``StratifiedKFold(5, shuffle=True, random_state=0)``, the
peers' binning) of a few shared sets; the grid estimator of a selection (Laplace's), as
BNClassifier's folds use it. With ``--results``, the table is written to the section
``selective-kdb-grid`` of RESULTS.md.

Usage::

    python benchmarks/bench_selective_kdb_grid.py [--sets splice wine ...] [--repeats 3] [--results]
"""

from __future__ import annotations

import argparse
import time

import bench_peers
import common
import numpy as np
from sklearn.model_selection import StratifiedKFold

import graphmodels as gm
from graphmodels._special import log_sum_exp_rows
from graphmodels.estimators.parameters import get_estimator
from graphmodels.estimators.selection import (
    MAX_SELECTION_ROWS,
    RememberedPseudoCounts,
    class_prior_cells,
    family_cells,
    leave_one_out_correction,
)
from graphmodels.models import selective_kdb


def whole_table_grid(engine, order, parents, estimator, *, max_k, loss="log-loss"):
    """The grid as it was computed before (graphmodels c97a1c1): whole tables, one k at a time."""
    score = selective_kdb._LOSSES[loss]
    codes, weights = engine.rows()
    if len(codes) > MAX_SELECTION_ROWS:
        keep = np.sort(np.random.default_rng(0).choice(len(codes), MAX_SELECTION_ROWS, replace=False))
        codes, weights = codes[keep], weights[keep]
    estimator = RememberedPseudoCounts(estimator)
    class_name = engine.names[-1]
    position = {name: j for j, name in enumerate(engine.names)}
    y = codes[:, -1]
    rows = np.arange(len(y))
    n_classes = engine.cardinality(class_name)

    def held_out_loss(joint):
        with np.errstate(invalid="ignore"):
            log_posterior = joint[rows, y] - log_sum_exp_rows(joint)
        log_posterior = np.where(np.isnan(log_posterior), -np.inf, log_posterior)
        return score(log_posterior, np.argmax(joint, axis=1) == y, weights)

    prior = class_prior_cells(engine, y, estimator)
    start = np.broadcast_to(selective_kdb._log(estimator.joint(prior.counts)), (len(y), n_classes)).copy()
    start[rows, y] += leave_one_out_correction(prior, weights)
    losses = np.empty((max_k + 1, len(order) + 1))
    losses[:, 0] = held_out_loss(start)
    joints = np.repeat(start[None], max_k + 1, axis=0)
    for s, child in enumerate(order, start=1):
        terms = {}
        for k in range(max_k + 1):
            members = selective_kdb._in_order(parents[child][:k], order)
            if len(members) not in terms:
                family = [*members, child]
                counts = engine.counts([class_name, *family])
                family_codes = [codes[:, position[name]] for name in family]
                cells = family_cells(counts, estimator, [y, *family_codes])
                table = selective_kdb._log(estimator.conditional(counts)).reshape(n_classes, -1)
                term = table[:, np.ravel_multi_index(tuple(family_codes), counts.shape[1:])].T
                term[rows, y] += leave_one_out_correction(cells, weights)
                terms[len(members)] = term
            joints[k] += terms[len(members)]
            losses[k, s] = held_out_loss(joints[k])
    return losses


def fresh(engine):
    """A new engine over the same rows: nothing counted yet, as a fold's engine."""
    codes, weights = engine.rows()
    sample_weight = None if np.all(weights == 1.0) else weights
    return gm.stats.CountingEngine(
        codes, engine.cardinalities, names=engine.names, sample_weight=sample_weight, max_cells=engine.max_cells
    )


def grid_inputs(name):
    """The engine, order and parents a default SelectiveKDB scores on fold 0's training rows."""
    X, y, _ = bench_peers.load(name, None)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    data = bench_peers.fold_data(X, y, train, test)
    captured = {}
    library = selective_kdb._leave_one_out_grid

    def capture(engine, order, parents, estimator, **kwargs):
        captured.update(engine=engine, order=order, parents=parents, max_k=kwargs["max_k"])
        return library(engine, order, parents, estimator, **kwargs)

    selective_kdb._leave_one_out_grid = capture
    try:
        gm.SelectiveKDB().fit(data["X_train"], data["y_train"])
    finally:
        selective_kdb._leave_one_out_grid = library
    return captured


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets",
        nargs="+",
        default=["lymphography", "glass", "soybean-large", "splice", "kr-vs-kp", "mushroom", "satimage", "wine"],
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", action="store_true", help="write the table to RESULTS.md")
    args = parser.parse_args(argv)
    load_at_start = common.load_average()
    estimator = get_estimator("laplace")
    lines = [
        "| set | attributes | max k | whole tables (s) | at the rows' cells (s) | ratio | same losses |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    print("\n".join(lines))
    for name in args.sets:
        found = grid_inputs(name)
        engine, order, parents, max_k = found["engine"], found["order"], found["parents"], found["max_k"]
        times: dict[str, list[float]] = {"whole": [], "cells": []}
        results = {}
        grids = {"whole": whole_table_grid, "cells": selective_kdb._leave_one_out_grid}
        for repeat in range(args.repeats):
            for kind in ("whole", "cells") if repeat % 2 == 0 else ("cells", "whole"):
                counts = fresh(engine)
                start = time.process_time()
                results[kind] = grids[kind](counts, order, parents, estimator, max_k=max_k)
                times[kind].append(time.process_time() - start)
        same = bool(np.array_equal(results["whole"], results["cells"], equal_nan=True))
        old, new = np.median(times["whole"]), np.median(times["cells"])
        lines.append(f"| {name} | {len(order)} | {max_k} | {old:.3f} | {new:.3f} | {old / new:.2f}x | {same} |")
        print(lines[-1], flush=True)
    if args.results:
        body = "\n".join(
            [
                "## Selective KDB's leave-one-out grid: the rows' cells against whole tables "
                "(bench_selective_kdb_grid.py, issue 27)",
                "",
                "The grid of a default `SelectiveKDB()` on fold 0's training rows (the peers' binning), Laplace's "
                "estimator (a selection's grid estimator, as BNClassifier's folds use it), each run on a fresh "
                "engine (its tables counted inside the timing, as in an inner fold); CPU seconds, the median of "
                f"{args.repeats} alternating runs in one process; "
                "`same losses`: every (k, attributes) loss equal bit for bit.",
                "",
                common.machine_markdown(),
                f"- load average (1, 5, 15 min) when the run started: {load_at_start}",
                "",
                *lines,
            ]
        )
        common.write_section("selective-kdb-grid", body)


if __name__ == "__main__":
    main()
