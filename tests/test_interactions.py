"""Interaction analysis (Jakulin & Bratko 2003, 2004): interaction information and its significance (issue 30).

The batched values against their entropy formula computed by brute force from pandas counts;
the textbook cases (XOR is one bit of synergy, a copy one bit of redundancy); the parts' model
(IPF) against its margins; P-values uniform under a generated null (a Kolmogorov-Smirnov check);
the corrections for multiple testing by hand.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.stats import (
    CountingEngine,
    adjust_p_values,
    information_graph,
    interaction_distances,
    interaction_graph,
    interaction_information,
    mutual_information,
    pairwise_interaction_information,
    triple_interaction_information,
)
from graphmodels.stats.interactions import _no_three_way_fit, _three_way_batch, _two_way_tests


def _entropy(frame, columns):
    p = frame.groupby(list(columns)).size().to_numpy() / len(frame)
    return float(-(p * np.log(p)).sum())


def _brute_interaction(frame, columns):
    k = len(columns)
    return -sum(
        (-1) ** (k - size) * _entropy(frame, subset)
        for size in range(1, k + 1)
        for subset in itertools.combinations(columns, size)
    )


def _random_frame(seed, n_rows=300, cards=(2, 3, 4, 2, 3)):
    rng = np.random.default_rng(seed)
    columns, previous = {}, rng.integers(0, 2, n_rows)
    for j, r in enumerate(cards):
        columns[f"v{j}"] = np.where(rng.random(n_rows) < 0.5, previous % r, rng.integers(0, r, n_rows))
        previous = columns[f"v{j}"]
    return pd.DataFrame(columns)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_interaction_information_equals_its_entropy_formula(k):
    frame = _random_frame(0)
    for columns in itertools.combinations(frame.columns, k):
        assert interaction_information(frame, list(columns)) == pytest.approx(
            _brute_interaction(frame, columns), abs=1e-12
        )
    # Two variables: the mutual information; one: the entropy.
    assert interaction_information(frame, ["v0", "v1"]) == pytest.approx(mutual_information(frame, "v0", "v1"))
    assert interaction_information(frame, ["v2"], base=2) == pytest.approx(_entropy(frame, ["v2"]) / np.log(2))


def test_synergy_is_positive_and_redundancy_negative():
    frame = pd.DataFrame(list(itertools.product([0, 1], [0, 1])) * 25, columns=["a", "b"])
    frame["xor"], frame["copy"], frame["y"] = frame["a"] ^ frame["b"], frame["a"], frame["a"]
    assert interaction_information(frame, ["a", "b", "xor"], base=2) == pytest.approx(1.0)  # XOR: synergy
    assert interaction_information(frame, ["a", "copy", "y"], base=2) == pytest.approx(-1.0)  # a copy: redundancy
    assert interaction_information(frame, ["a", "b", "y"], base=2) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="twice"):
        interaction_information(frame, ["a", "a"])
    with pytest.raises(ValueError, match="at least one"):
        interaction_information(frame, [])


def test_batched_pairs_and_triples_equal_one_at_a_time():
    frame = _random_frame(1)
    matrix = pairwise_interaction_information(frame, "v4")
    names = ["v0", "v1", "v2", "v3"]
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        assert matrix[i, j] == pytest.approx(interaction_information(frame, [a, b, "v4"]), abs=1e-12)
    for i, a in enumerate(names):
        assert matrix[i, i] == pytest.approx(mutual_information(frame, a, "v4"), abs=1e-12)
    triples = triple_interaction_information(frame)
    assert len(triples) == 10
    for row in triples.itertuples():
        assert row.interaction == pytest.approx(interaction_information(frame, [row.a, row.b, row.c]), abs=1e-12)
    with pytest.raises(ValueError, match="max_triples"):
        triple_interaction_information(frame, max_triples=5)


def test_unknown_codes_drop_rows_from_their_own_tables_only():
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 3, size=(200, 4))
    codes[rng.random((200, 4)) < 0.1] = -1
    engine = CountingEngine(codes, [3, 3, 3, 3], names=list("abcy"))
    matrix = pairwise_interaction_information(engine, "y")
    for i, j in itertools.combinations(range(3), 2):
        keep = (codes[:, [i, j, 3]] >= 0).all(axis=1)
        frame = pd.DataFrame(codes[keep][:, [i, j, 3]], columns=["p", "q", "y"])
        assert matrix[i, j] == pytest.approx(_brute_interaction(frame, ["p", "q", "y"]), abs=1e-12)


def test_ipf_matches_the_three_margins_and_leaves_a_table_without_interaction_alone():
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 20, size=(5, 2, 3, 4)).astype(float)
    fitted = _no_three_way_fit(tables)
    for axis in (1, 2, 3):
        assert np.allclose(fitted.sum(axis=axis), tables.sum(axis=axis), atol=1e-5)
    # A table that is a product of 2-way factors is its own parts' model: G2 = 0.
    ab, ac, bc = rng.random((2, 3)), rng.random((2, 4)), rng.random((3, 4))
    product = 1000 * ab[:, :, None] * ac[:, None, :] * bc[None, :, :]
    statistic, df, p_value = _three_way_batch(product[None], "asymptotic", 1, None)
    assert statistic[0] == pytest.approx(0.0, abs=1e-6) and df[0] == 6 and p_value[0] == pytest.approx(1.0)


def _null_tables(rng, n_tables, n_rows):
    """2 x 3 x 2 tables drawn from a distribution with 2-way interactions only: exp(u_ab + u_ac + u_bc)."""
    ab, ac, bc = 0.5 * rng.normal(size=(2, 3)), 0.5 * rng.normal(size=(2, 2)), 0.5 * rng.normal(size=(3, 2))
    p = np.exp(ab[:, :, None] + ac[:, None, :] + bc[None, :, :])
    p /= p.sum()
    return rng.multinomial(n_rows, p.ravel(), size=n_tables).reshape(n_tables, 2, 3, 2).astype(float)


def test_p_values_are_uniform_under_a_generated_null():
    from scipy.stats import kstest

    rng = np.random.default_rng(0)
    # The chi-squared limit, with every expected cell above 10 (1,000 rows).
    _, df, asymptotic = _three_way_batch(_null_tables(rng, 300, 1000), "asymptotic", 1, rng)
    assert (df == 2).all()
    assert kstest(asymptotic, "uniform").pvalue > 0.01
    # The bootstrap from the fitted parts' model, on smaller tables.
    _, _, bootstrap = _three_way_batch(_null_tables(rng, 120, 300), "bootstrap", 49, rng)
    assert kstest(bootstrap, "uniform").pvalue > 0.01
    # The 2-way test of independence.
    independent = rng.multinomial(800, np.outer([0.3, 0.7], [0.2, 0.5, 0.3]).ravel(), size=400).reshape(400, 2, 3)
    _, _, two_way = _two_way_tests(independent.astype(float), "asymptotic", 1, rng)
    assert kstest(two_way, "uniform").pvalue > 0.01
    # And a real 3-way interaction (XOR) is found.
    frame = pd.DataFrame(rng.integers(0, 2, size=(300, 2)), columns=["a", "b"])
    graph = interaction_graph(frame, (frame["a"] ^ frame["b"]).rename("y"))
    assert graph.edges["a", "b"]["p_value"] < 1e-10


def test_bootstrap_agrees_with_the_asymptotic_test():
    rng = np.random.default_rng(5)
    tables = _null_tables(rng, 3, 600)
    tables[0, 0, 0, 0] += 40  # an interaction
    _, _, asymptotic = _three_way_batch(tables, "asymptotic", 1, rng)
    _, _, bootstrap = _three_way_batch(tables, "bootstrap", 300, rng)
    assert np.allclose(asymptotic, bootstrap, atol=0.08)
    assert bootstrap.min() >= 1 / 301


def test_adjusted_p_values_by_hand():
    p = [0.01, 0.04, 0.03, 0.2, np.nan]
    # Benjamini-Hochberg: sorted p * m / rank (0.04, 0.06, 0.0533, 0.2), then the running minimum from the top.
    assert np.allclose(adjust_p_values(p)[:4], [0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2])
    assert np.isnan(adjust_p_values(p)[4])
    assert np.allclose(adjust_p_values(p, "holm")[:4], [0.04, 0.09, 0.09, 0.2])
    assert np.allclose(adjust_p_values(p, "bonferroni")[:4], [0.04, 0.16, 0.12, 0.8])
    assert np.allclose(adjust_p_values(p, None)[:4], p[:4])
    with pytest.raises(ValueError, match="method"):
        adjust_p_values(p, "fdr")


def test_interaction_graph_of_a_data_set():
    X, y = gm.datasets.load("voting", return_X_y=True)
    graph = interaction_graph(X, y, triples=True)
    assert set(graph.nodes) == set(X.columns) and graph.number_of_edges() == 16 * 15 // 2
    h = graph.graph["class_entropy"]
    assert h == pytest.approx(_entropy(y.to_frame(), ["class"]))
    edge = graph.edges["physician-fee-freeze", "el-salvador-aid"]
    frame = pd.concat([X, y], axis=1)
    expected = _brute_interaction(frame.fillna("?"), ["physician-fee-freeze", "el-salvador-aid", "class"])
    assert edge["interaction"] == pytest.approx(expected, abs=1e-12)
    assert edge["share"] == pytest.approx(expected / h)
    assert edge["kind"] == ("synergy" if expected > 0 else "redundancy")
    pairs = graph.graph["pairs"]
    assert list(pairs.columns[:5]) == ["a", "b", "interaction", "share", "kind"]
    assert (np.diff(np.abs(pairs["interaction"])) <= 1e-15).all()
    assert graph.graph["attributes"]["attribute"].iloc[0] == "physician-fee-freeze"
    assert len(graph.graph["triples"]) == 560 and "significant" in graph.graph["triples"]
    # y by column name, numeric columns cut as a classifier cuts them.
    X, y = gm.datasets.load("iris", return_X_y=True)
    graph = interaction_graph(pd.concat([X, y], axis=1), "class", test=None)
    assert graph.graph["target"] == "class" and "p_value" not in graph.graph["pairs"]
    with pytest.raises(ValueError, match="alpha"):
        interaction_graph(X, y, alpha=2)
    with pytest.raises(ValueError, match="test"):
        interaction_graph(X, y, test="permutation")


def test_distances_and_information_graph():
    frame = _random_frame(6, cards=(2, 3, 2))
    graph = interaction_graph(frame[["v0", "v1"]], frame["v2"], test=None)
    names, distances = interaction_distances(graph)
    share = abs(graph.edges["v0", "v1"]["share"])
    assert names == ["v0", "v1"] and distances[0] == pytest.approx(1 / share if share > 1e-3 else 1000.0)
    structure = nx.DiGraph([("v0", "v1"), ("v1", "v2"), ("v1", "elsewhere")])
    info = information_graph(structure, frame, base=2)
    assert info.edges["v0", "v1"]["mutual_information"] == pytest.approx(mutual_information(frame, "v0", "v1", base=2))
    assert info.nodes["v2"]["entropy"] == pytest.approx(_entropy(frame, ["v2"]) / np.log(2))
    assert "entropy" not in info.nodes["elsewhere"] and "mutual_information" not in structure.edges["v0", "v1"]
