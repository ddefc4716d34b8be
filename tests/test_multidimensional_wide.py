"""Issue 18: the batched scoring of bridge_and_feature_forest gives the structures and scores of the old per-child loop."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from graphmodels.learners import bridge_and_feature_forest
from graphmodels.learners import multidimensional as md
from graphmodels.stats.counting import CountingEngine


def _reference(engine, classes, features, max_parents, criterion, ess):
    """The loop before issue 18: one family score per child per candidate class-parent set."""
    p, n = len(features), engine.total
    best_alone, set_alone = np.full(p, -np.inf), [()] * p
    best_with, set_with = np.full((p, p), -np.inf), np.empty((p, p), dtype=object)
    empty = np.zeros(p)
    for parents in md._parent_set_candidates(classes, max_parents):
        given = list(parents) if parents else None
        pairs = engine.pairwise_counts(features, given=given)
        one = engine.one_way_counts(features, given=given)
        for i in range(p):
            alone = md._score(one.block(i), criterion, ess, n)
            if not parents:
                empty[i] = alone
            if alone > best_alone[i] + 1e-9 * max(1.0, abs(alone)):
                best_alone[i], set_alone[i] = alone, parents
            with_parent = md._scores_with_each_parent(pairs, i, criterion, ess, n)
            tolerance = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(with_parent), with_parent, 0.0)))
            better = with_parent > best_with[:, i] + tolerance
            best_with[better, i] = with_parent[better]
            for j in np.flatnonzero(better):
                set_with[j, i] = parents
    gains = nx.DiGraph()
    gains.add_nodes_from(range(p))
    for j, i in zip(*np.nonzero(np.isfinite(best_with))):
        gain = best_with[j, i] - best_alone[i]
        if gain > 1e-9 * max(1.0, abs(best_alone[i])):
            gains.add_edge(int(j), int(i), weight=float(gain))
    branching = nx.maximum_branching(gains, attr="weight")
    bridge = {features[i]: (set_alone[i], best_alone[i] - empty[i]) for i in range(p)}
    arcs = []
    for j, i in sorted(branching.edges, key=lambda e: (e[1], e[0])):
        bridge[features[i]] = (set_with[j, i], best_with[j, i] - empty[i])
        arcs.append((features[j], features[i], gains.edges[j, i]["weight"]))
    return bridge, arcs


def _wide(seed, n_rows=800, n_labels=5, n_attr=10):
    rng = np.random.default_rng(seed)
    labels, prev = {}, None
    for k in range(n_labels):
        r = 2 if k % 3 else 3
        y = (
            rng.integers(0, r, n_rows)
            if prev is None
            else np.where(rng.random(n_rows) < 0.6, prev % r, rng.integers(0, r, n_rows))
        )
        labels[f"label_{k}"], prev = y, y
    attrs, ys = {}, list(labels.values())
    for j in range(n_attr):
        s = 3 + j % 3
        a, b = ys[j % n_labels], ys[(3 * j + 1) % n_labels]
        u = rng.random(n_rows)
        other = attrs[f"x{j - 1}"] % s if j else rng.integers(0, s, n_rows)
        attrs[f"x{j}"] = np.where(u < 0.35, (a + 2 * b) % s, np.where(u < 0.7, other, rng.integers(0, s, n_rows)))
    return pd.DataFrame(attrs).astype(str), pd.DataFrame(labels).astype(str)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("criterion", ["bic", "bdeu", "aic"])
def test_batched_scores_give_the_old_structure(seed, criterion):
    X, Y = _wide(seed)
    engine = CountingEngine.from_frame(X.join(Y))
    classes, features = list(Y), list(X)
    bridge, arcs = bridge_and_feature_forest(engine, classes, features, max_parents=3, criterion=criterion)
    ref_bridge, ref_arcs = _reference(engine, classes, features, 3, criterion, 1.0)
    assert arcs  # the data have attribute arcs to find
    assert {f: v[0] for f, v in bridge.items()} == {f: v[0] for f, v in ref_bridge.items()}
    np.testing.assert_allclose(
        [bridge[f][1] for f in features], [ref_bridge[f][1] for f in features], rtol=1e-10, atol=1e-8
    )
    assert [a[:2] for a in arcs] == [a[:2] for a in ref_arcs]
    np.testing.assert_allclose([a[2] for a in arcs], [a[2] for a in ref_arcs], rtol=1e-10)


def test_pair_and_alone_scores_match_family_score():
    X, Y = _wide(5, n_rows=300)
    engine = CountingEngine.from_frame(X.join(Y))
    features = list(X)
    for given in (None, ["label_0"], ["label_1", "label_2"]):
        pairs = engine.pairwise_counts(features, given=given)
        one = engine.one_way_counts(features, given=given)
        for criterion in ("bic", "aic", "bdeu"):
            matrix = md._pair_scores(pairs, criterion, 2.0, engine.total)
            alone = md._alone_scores(one, criterion, 2.0, engine.total)
            for i in range(len(features)):
                column = md._scores_with_each_parent(pairs, i, criterion, 2.0, engine.total)
                np.testing.assert_allclose(matrix[:, i], column, rtol=1e-12)
                assert alone[i] == pytest.approx(md._score(one.block(i), criterion, 2.0, engine.total), rel=1e-12)


def test_weighted_counts_fall_back_to_gammaln():
    counts = np.array([[[0.5, 2.0], [1.0, 3.25]]])
    a_values = np.array([0.25, 0.5])
    a_index = np.array([[[0, 1], [1, 0]]])
    expected = md.gammaln(a_values[a_index] + counts) - md.gammaln(a_values[a_index])
    np.testing.assert_array_equal(md._bdeu_cells(counts, a_index, a_values), expected)
    integral = np.array([[[0.0, 2.0], [1.0, 3.0]]])
    expected = md.gammaln(a_values[a_index] + integral) - md.gammaln(a_values[a_index])
    np.testing.assert_array_equal(md._bdeu_cells(integral, a_index, a_values), expected)


def test_complete_integer_counts_take_row_totals_from_the_diagonal():
    """Without unknown codes and sample weights, the BDeu scores of every pair take each parent
    state's totals from the diagonal and skip the integrality checks: the same scores bit for bit
    (issue 26); with unknown codes the learner sums the blocks."""
    X, Y = _wide(6, n_rows=300)
    engine = CountingEngine.from_frame(X.join(Y))
    features = list(X)
    for given in (None, ["label_0"], ["label_1", "label_2", "label_4"]):
        pairs = engine.pairwise_counts(features, given=given)
        assert pairs.integer
        fast = md._pair_scores(pairs, "bdeu", 2.0, engine.total, complete=True)
        np.testing.assert_array_equal(fast, md._pair_scores(pairs, "bdeu", 2.0, engine.total))
        whole = md._bdeu_cells(pairs.table, np.zeros((1, 1, 1), dtype=int), np.array([0.5]), whole=True)
        np.testing.assert_array_equal(
            whole, md._bdeu_cells(pairs.table, np.zeros((1, 1, 1), dtype=int), np.array([0.5]))
        )
    # unknown codes: a parent state's totals differ from block to block, so the learner sums them
    codes = engine.rows(list(range(engine.n_variables)))[0].copy()
    codes[::7, 0] = -1
    unknown = CountingEngine(codes, engine.cardinalities, names=engine.names)
    pairs = unknown.pairwise_counts(features, given=["label_0"])
    summed = md._pair_scores(pairs, "bdeu", 2.0, unknown.total)
    assert not np.allclose(md._pair_scores(pairs, "bdeu", 2.0, unknown.total, complete=True), summed)
    classes = list(Y)
    bridge, arcs = bridge_and_feature_forest(unknown, classes, features, max_parents=2, criterion="bdeu")
    ref_bridge, ref_arcs = _reference(unknown, classes, features, 2, "bdeu", 1.0)
    assert {f: v[0] for f, v in bridge.items()} == {f: v[0] for f, v in ref_bridge.items()}
    np.testing.assert_allclose([bridge[f][1] for f in features], [ref_bridge[f][1] for f in features], rtol=1e-10)
    assert [a[:2] for a in arcs] == [a[:2] for a in ref_arcs]


@pytest.mark.parametrize("criterion, ess", [("bdeu", 1.0), ("bdeu", 10.0), ("bic", 1.0)])
def test_depth_first_refined_scores_equal_each_sets_own_tables(criterion, ess):
    """Each class-parent set's tables refined from its prefix's (depth first, float32, attributes
    ordered by cardinality, BDeu cells looked up on the upper triangle) give the scores of its own
    pairwise and one-way tables, bit for bit (issue 26): 2- and 3-state labels, 1- to 5-state
    attributes, so that some BDeu cell priors computed both ways round differ in the last bit."""
    X, Y = _wide(7, n_rows=300, n_labels=4, n_attr=7)
    X["constant"] = "c"
    X["binary"] = np.where(Y["label_1"] == "0", "u", "v")
    engine = CountingEngine.from_frame(X.join(Y))
    classes, features = list(Y), list(X)
    scored = dict(md._class_parent_set_scores(engine, classes, features, 3, criterion, ess))
    assert set(scored) == set(md._parent_set_candidates(classes, 3))
    asymmetric = 0
    for parents, (alone, with_parent) in scored.items():
        given = list(parents) if parents else None
        pairs = engine.pairwise_counts(features, given=given)
        one = engine.one_way_counts(features, given=given)
        np.testing.assert_array_equal(alone, md._alone_scores(one, criterion, ess, engine.total))
        np.testing.assert_array_equal(with_parent, md._pair_scores(pairs, criterion, ess, engine.total))
        q, distinct = pairs.table.shape[0], np.unique(pairs.cardinalities)
        a = (ess / (q * distinct))[:, None] / distinct[None, :]
        asymmetric += not np.array_equal(a, a.T)
    assert asymmetric  # the mirrored cells' second lookup is exercised


@pytest.mark.parametrize("shape", [(27, 1, 1), (27, 2, 3)])
def test_strata_are_added_one_after_the_other(shape):
    """The cells' terms are added over the strata in order, as the whole table's ``sum(axis=0)``
    adds them, also for a single cell, where numpy's ``sum`` adds pairwise."""
    values = np.random.default_rng(3).random(shape) * 1e3  # a draw whose pairwise sum differs
    expected = np.zeros(shape[1:])
    for stratum in values:
        expected = expected + stratum
    np.testing.assert_array_equal(md._strata_sum(values), expected)
