"""Hyperforest structures: GYO reduction, the dynamic acyclicity check, networkx views."""

import itertools

import networkx as nx
import numpy as np
import pytest

from graphmodels.structures import (
    Hyperforest,
    gyo_reduction,
    hyperforest_width,
    hyperforests_by_class,
    is_acyclic,
    is_hyperforest,
    random_hypertree,
    subsets,
)


def _acyclic_by_chordality(hyperedges, nodes):
    """Independent criterion: alpha-acyclic iff the primal graph is chordal and conformal."""
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for h in hyperedges:
        graph.add_edges_from(itertools.combinations(sorted(h), 2))
    if not nx.is_chordal(graph):
        return False
    return all(any(set(c) <= set(h) for h in hyperedges) for c in nx.find_cliques(graph) if len(c) > 1)


# ----------------------------------------------------------------------------- GYO
def test_gyo_hand_cases():
    assert is_acyclic([])
    assert is_acyclic([{"a"}])
    assert is_acyclic([{"a", "b"}, {"b", "c"}, {"c", "d"}])  # a path
    assert not is_acyclic([{"a", "b"}, {"b", "c"}, {"a", "c"}])  # a triangle of edges
    # the triangle is covered by a hyperedge: acyclic
    assert is_acyclic([{"a", "b"}, {"b", "c"}, {"a", "c"}, {"a", "b", "c"}])
    # the classic non-conformal case: three 2-subsets of a 3-set with a centre
    assert not is_acyclic([{"a", "b", "x"}, {"b", "c", "y"}, {"a", "c", "z"}])
    # a 4-cycle of hyperedges
    assert not is_acyclic([{"a", "b", "c"}, {"c", "d"}, {"d", "e"}, {"e", "a"}])
    assert sorted(sorted(e) for e in gyo_reduction([{"a", "b"}, {"b", "c"}, {"a", "c"}, {"c", "d"}])) == [
        ["a", "b"],
        ["a", "c"],
        ["b", "c"],
    ]


@pytest.mark.parametrize("seed", range(30))
def test_gyo_agrees_with_chordal_conformal_criterion(seed):
    rng = np.random.default_rng(seed)
    nodes = list(range(7))
    hyperedges = [
        set(rng.choice(nodes, size=rng.integers(2, 4), replace=False).tolist()) for _ in range(rng.integers(1, 6))
    ]
    assert is_acyclic(hyperedges) == _acyclic_by_chordality(hyperedges, nodes)


def test_width_checks():
    assert hyperforest_width([{"a", "b", "c"}, {"c", "d"}]) == 2
    assert is_hyperforest([{"a", "b", "c"}, {"c", "d"}], k=2)
    assert not is_hyperforest([{"a", "b", "c"}, {"c", "d"}], k=1)
    with pytest.raises(ValueError, match="not acyclic"):
        hyperforest_width([{"a", "b"}, {"b", "c"}, {"a", "c"}])


# ----------------------------------------------------------------------------- the type
def test_closure_under_subsets_and_nodes():
    forest = Hyperforest([("a", "b", "c")], nodes=["a", "b", "c", "d"])
    assert len(forest) == 7 + 1  # 7 non-empty subsets of abc, and {d}
    assert {"a", "c"} in forest and ("d",) in forest and ("a", "d") not in forest
    assert forest.width == 2
    assert [sorted(h) for h in forest.maximal_hyperedges] == [["a", "b", "c"], ["d"]]
    assert forest.components() == [frozenset("abc"), frozenset("d")]
    assert set(subsets({"a", "b", "c"}, proper=True)) == {frozenset(s) for s in ["a", "b", "c", "ab", "ac", "bc"]}


def test_constructor_rejects_cycles_and_unknown_nodes():
    with pytest.raises(ValueError, match="not acyclic"):
        Hyperforest([("a", "b"), ("b", "c"), ("a", "c")])
    with pytest.raises(ValueError, match="not in `nodes`"):
        Hyperforest([("a", "z")], nodes=["a", "b"])
    with pytest.raises(TypeError, match="iterable of nodes"):
        Hyperforest(["ab", 3])


def test_add_returns_new_hyperedges_and_guards():
    forest = Hyperforest([], nodes="abcd")
    assert sorted(map(sorted, forest.add(("a", "b")))) == [["a", "b"]]
    assert sorted(map(sorted, forest.add(("a", "b", "c")))) == [["a", "b", "c"], ["a", "c"], ["b", "c"]]
    assert forest.add(("a", "c")) == []  # already there
    with pytest.raises(ValueError, match="more than 3"):
        forest.add(("a", "b", "c", "d"), max_size=3)
    forest.add(("c", "d"))
    with pytest.raises(ValueError, match="hypercycle"):
        forest.add(("a", "d"))
    with pytest.raises(ValueError, match="Unknown node"):
        forest.add(("a", "q"))


@pytest.mark.parametrize("seed", range(40))
def test_dynamic_check_agrees_with_full_reduction(seed):
    """The component-local check must give the same answer as reducing everything."""
    rng = np.random.default_rng(seed)
    nodes = list(range(9))
    forest = Hyperforest([], nodes=nodes)
    for _ in range(25):
        h = frozenset(rng.choice(nodes, size=rng.integers(2, 5), replace=False).tolist())
        expected = is_acyclic(forest.maximal_hyperedges + [h])
        assert forest.would_remain_acyclic(h) == expected
        if expected:
            forest.add(h)
        assert is_acyclic(forest.maximal_hyperedges)


# ----------------------------------------------------------------------------- views
def _running_intersection(tree):
    nodes = {v for clique in tree.nodes for v in clique}
    for v in nodes:
        holding = [c for c in tree.nodes if v in c]
        if not nx.is_connected(tree.subgraph(holding)):
            return False
    return True


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("seed", range(5))
def test_random_hypertree_views(k, seed):
    tree = random_hypertree(10, k, random_state=seed, nodes=[f"x{i}" for i in range(10)])
    assert tree.width == k
    assert len(tree.maximal_hyperedges) == 10 - k
    assert all(len(h) == k + 1 for h in tree.maximal_hyperedges)
    primal = tree.primal_graph()
    # a k-tree: chordal, connected, tree-width k, k*n - k(k+1)/2 edges
    assert nx.is_chordal(primal) and nx.is_connected(primal)
    assert nx.chordal_graph_treewidth(primal) == k
    assert primal.number_of_edges() == k * 10 - k * (k + 1) // 2
    junction = tree.junction_tree()
    assert nx.is_tree(junction) and _running_intersection(junction)
    assert all(len(s) == k for _, _, s in junction.edges(data="sepset"))
    factor = tree.factor_graph()
    assert nx.is_bipartite(factor)
    assert sum(1 for _, d in factor.nodes(data=True) if d["kind"] == "factor") == 10 - k
    # same structure from the same seed; a hyperforest round-trips through plain data
    assert random_hypertree(10, k, random_state=seed, nodes=[f"x{i}" for i in range(10)]) == tree
    assert Hyperforest.from_dict(tree.to_dict()) == tree


def test_junction_forest_and_clique_order():
    forest = Hyperforest([("a", "b", "c"), ("c", "d"), ("e", "f")], nodes="abcdefg")
    junction = forest.junction_tree()
    assert nx.is_forest(junction) and nx.number_connected_components(junction) == 3
    order = forest.clique_order()
    seen = set()
    for clique, separator in order:
        # separators come first and were seen before; the rest is new
        assert set(clique[: len(separator)]) == separator and separator <= seen
        assert not (set(clique) - separator) & seen
        seen |= set(clique)
    assert seen == set("abcdefg")
    # root choice by key
    order = forest.clique_order(root_key=lambda h: "d" in h)
    assert order[0] == (("c", "d"), frozenset())


def test_node_attributes_reach_views():
    forest = Hyperforest([("a", "y")], node_attributes={"y": {"role": "class"}, "a": {"cardinality": 3}})
    assert forest.primal_graph().nodes["y"]["role"] == "class"
    assert forest.factor_graph().nodes["a"]["cardinality"] == 3


class _Fitted:
    """The fitted attributes of a classifier, as hyperforests_by_class reads them."""

    def __init__(self, classes, structures, structure=None):
        self.classes_ = classes
        self.structures_ = structures
        self.structure_ = nx.Graph() if structure is None else structure


def test_hyperforests_by_class_pairs_each_hyperforest_with_its_label():
    no, yes = Hyperforest([("a", "b")], "abc"), Hyperforest([("b", "c")], "abc")
    forests = hyperforests_by_class(_Fitted(np.array(["no", "yes"], dtype=object), [no, yes]))
    assert forests == {"no": no, "yes": yes} and list(forests) == ["no", "yes"]
    # NumPy labels become Python scalars; a mapping is copied.
    by_int = hyperforests_by_class(_Fitted(np.array([0, 1]), [no, yes]))
    assert by_int == {0: no, 1: yes} and all(type(label) is int for label in by_int)
    mapping = {"yes": yes}
    assert hyperforests_by_class(mapping) == mapping and hyperforests_by_class(mapping) is not mapping


@pytest.mark.parametrize(
    "obj",
    [
        Hyperforest([("a", "b")]),  # a structure
        _Fitted(["no", "yes"], [Hyperforest([("a", "b")])] * 2, structure=Hyperforest([("a", "b")])),  # one shared
        _Fitted(["no", "yes"], [nx.DiGraph([("a", "b")])] * 2),  # a multinet of graphs (ChowLiu)
        _Fitted(["no", "yes", "maybe"], [Hyperforest([("a", "b")])] * 2),  # not one per class
        _Fitted(["no"], []),
        {},
        {"no": nx.Graph()},
        object(),  # not fitted
    ],
)
def test_hyperforests_by_class_is_none_for_anything_else(obj):
    assert hyperforests_by_class(obj) is None
