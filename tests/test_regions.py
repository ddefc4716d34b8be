"""Region graphs of the cluster variation method (Jakulin & Rish, Algorithm 1)."""

import itertools

import networkx as nx
import numpy as np
import pytest

from graphmodels.structures import (
    cluster_variation_regions,
    counting_numbers_are_valid,
    degrees_of_freedom,
    initial_regions,
    intersection_closure,
    random_hypertree,
    region_graph,
)


def counting(graph):
    return {"".join(sorted(r)): c for r, c in graph.nodes(data="counting_number")}


def test_two_overlapping_regions_keep_their_intersection():
    # The printed loop condition |R_{k-1}| > 2 would skip this intersection.
    graph = cluster_variation_regions([("A", "B"), ("B", "C")])
    assert counting(graph) == {"AB": 1, "BC": 1, "B": -1}
    assert {("".join(sorted(u)), "".join(sorted(v))) for u, v in graph.edges} == {("AB", "B"), ("BC", "B")}
    assert all(graph.nodes[r]["size"] == len(r) for r in graph)


def test_redundant_regions_are_dropped():
    graph = cluster_variation_regions([("A",), ("A", "B", "C"), ("B", "C"), ("A", "B", "C")])
    assert counting(graph) == {"ABC": 1}


def test_three_by_three_grid_plaquettes():
    # Four 2x2 plaquettes of a 3x3 grid (Yedidia et al. 2004): the four shared
    # edges get -1 and the centre, in all four plaquettes and all four
    # edges, gets 1 - 4 + 4 = 1.
    plaquettes = ["ABDE", "BCEF", "DEGH", "EFHI"]
    graph = cluster_variation_regions([tuple(p) for p in plaquettes])
    assert counting(graph) == {**{p: 1 for p in plaquettes}, "BE": -1, "DE": -1, "EF": -1, "EH": -1, "E": 1}
    assert counting_numbers_are_valid(graph)


def test_nested_intersections_do_not_depend_on_order():
    # ABC & ABD = AB, ABC & ACD = AC, and AB & AC = A is also ABD & ACD's
    # intersection's subset: counting numbers must see every superset.
    regions = [("A", "B", "C"), ("A", "B", "D"), ("A", "C", "D"), ("A", "E")]
    expected = counting(cluster_variation_regions(regions))
    # A: 1 - (4 initial regions) - (-3 pair regions) = 0, so it is left out.
    assert expected == {"ABC": 1, "ABD": 1, "ACD": 1, "AE": 1, "AB": -1, "AC": -1, "AD": -1}
    for permutation in itertools.permutations(regions):
        assert counting(cluster_variation_regions(permutation)) == expected


def test_region_with_zero_counting_number_is_left_out():
    # A: in ABC, ABD, ACD (1 each) and AB, AC, AD (-1 each): 1 - (3 - 3) = 1 ...
    # plus AE (1): 1 - 4 + 3 = 0, so A is not a node.
    graph = cluster_variation_regions([("A", "B", "C"), ("A", "B", "D"), ("A", "C", "D"), ("A", "E")])
    assert frozenset("A") not in graph
    assert counting_numbers_are_valid(graph)


@pytest.mark.parametrize("seed", range(30))
def test_random_region_sets_count_every_variable_once(seed):
    rng = np.random.default_rng(seed)
    variables = list("abcdefgh")
    regions = [tuple(rng.choice(variables, size=rng.integers(1, 5), replace=False)) for _ in range(rng.integers(1, 9))]
    graph = cluster_variation_regions(regions)
    assert counting_numbers_are_valid(graph, variables=set().union(*map(set, regions)))
    for variable in set().union(*map(set, regions)):
        assert sum(c for r, c in graph.nodes(data="counting_number") if variable in r) == 1
    # Every region kept is an intersection of initial regions, and maximal ones are the initial ones.
    closure = intersection_closure(regions)
    assert set(graph) <= closure
    maximal = {frozenset(r) for r in regions if not any(set(r) < set(o) for o in regions)}
    assert set(initial_regions(graph)) == maximal
    # Edges go to maximal sub-regions only: the graph is its own transitive reduction.
    assert nx.is_directed_acyclic_graph(graph)
    assert set(nx.transitive_reduction(graph).edges) == set(graph.edges)
    # Shuffling the input changes nothing.
    shuffled = [regions[i][::-1] for i in rng.permutation(len(regions))]
    assert counting(cluster_variation_regions(shuffled)) == counting(graph)


def _random_joint(rng, n_variables):
    table = rng.gamma(0.7, size=(2,) * n_variables)
    return table / table.sum()


def _marginal(joint, keep):
    axes = tuple(i for i in range(joint.ndim) if i not in keep)
    return joint.sum(axis=axes, keepdims=True)


@pytest.mark.parametrize("seed", range(12))
def test_kikuchi_approximation_of_a_junction_tree_is_the_decomposable_distribution(seed):
    rng = np.random.default_rng(seed)
    n = 6
    k = int(rng.integers(1, 4))
    forest = random_hypertree(n, k, random_state=seed)
    cliques = [tuple(sorted(c)) for c in forest.maximal_hyperedges]
    joint = _random_joint(rng, n)
    # The decomposable projection from the junction tree: cliques over separators.
    tree = forest.junction_tree()
    exact = np.ones((2,) * n)
    for node in tree:
        exact = exact * _marginal(joint, tuple(node))
    for u, v in tree.edges:
        separator = tuple(set(u) & set(v))
        if separator:  # an empty separator joins independent components
            exact = exact / _marginal(joint, separator)
    graph = cluster_variation_regions(cliques)
    kikuchi = np.ones((2,) * n)
    for region, c in graph.nodes(data="counting_number"):
        kikuchi = kikuchi * _marginal(joint, tuple(region)) ** c
    np.testing.assert_allclose(kikuchi, exact, rtol=1e-10)
    assert kikuchi.sum() == pytest.approx(1.0)


def test_kikuchi_approximation_is_exact_for_a_chain_and_not_for_a_cycle():
    rng = np.random.default_rng(3)
    joint = _random_joint(rng, 4)
    chain = cluster_variation_regions([(0, 1), (1, 2), (2, 3)])
    product = np.ones((2,) * 4)
    for region, c in chain.nodes(data="counting_number"):
        product = product * _marginal(joint, tuple(region)) ** c
    assert product.sum() == pytest.approx(1.0)
    cycle = cluster_variation_regions([(0, 1), (1, 2), (2, 3), (0, 3)])
    product = np.ones((2,) * 4)
    for region, c in cycle.nodes(data="counting_number"):
        product = product * _marginal(joint, tuple(region)) ** c
    assert abs(product.sum() - 1.0) > 1e-6  # a loop: the Kikuchi product needs normalizing


def test_degrees_of_freedom_eq5_and_eq7_by_hand():
    cards = {"y": 3, "a": 2, "b": 4}
    nb = cluster_variation_regions([("y", "a"), ("y", "b")])
    # Eq. (5): (6 - 1) + (12 - 1) - (3 - 1) = 14 = P(y) 2 + P(a|y) 3 + P(b|y) 9.
    assert degrees_of_freedom(nb, cards) == 14
    # Eq. (7) given the attributes: (6 - 2) + (12 - 4) - (3 - 1) = 10.
    assert degrees_of_freedom(nb, cards, given=["a", "b"]) == 10
    full = cluster_variation_regions([("y", "a", "b")])
    assert degrees_of_freedom(full, cards) == 23
    assert degrees_of_freedom(full, cards, given=["a", "b"]) == 8 * 2
    # A mapping works too.
    assert degrees_of_freedom({("y",): 1}, cards, given=["a"]) == 2
    with pytest.raises(ValueError, match="'z'"):
        degrees_of_freedom({("z",): 1}, cards)


def test_region_graph_from_counting_numbers_and_hasse_edges():
    graph = region_graph({("a", "b", "c"): 1, ("a", "b"): -1, ("a",): 1, ("b", "c", "d"): 1})
    assert (frozenset("abc"), frozenset("ab")) in graph.edges
    assert (frozenset("abc"), frozenset("a")) not in graph.edges  # not maximal: ab lies between
    assert (frozenset("ab"), frozenset("a")) in graph.edges


@pytest.mark.parametrize(
    "bad, error, match",
    [
        ("ab", TypeError, "iterable of regions"),
        (["ab"], TypeError, "one-variable region"),
        ([("a",), ()], ValueError, "empty region"),
        (5, TypeError, "iterable"),
    ],
)
def test_bad_regions_raise_clear_errors(bad, error, match):
    with pytest.raises(error, match=match):
        cluster_variation_regions(bad)


def test_counting_numbers_are_valid_rejects_wrong_numbers():
    graph = region_graph({("a", "b"): 1, ("b", "c"): 1, ("b",): 0})
    assert not counting_numbers_are_valid(graph)
    with pytest.raises(ValueError, match="counting_number"):
        counting_numbers_are_valid(nx.DiGraph([(frozenset("ab"), frozenset("a"))]))
