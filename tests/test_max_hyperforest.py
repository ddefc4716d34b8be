"""Maximum-weight hyperforests: brute force on tiny problems, invariants, and the tree case."""

import functools
import itertools

import networkx as nx
import numpy as np
import pytest

from graphmodels.learners import chow_liu_tree, max_hyperforest
from graphmodels.stats import CountingEngine, HyperedgeWeights, hyperedge_weights
from graphmodels.structures import Hyperforest, is_hyperforest


def _random_weights(n, k, seed, *, positive=True):
    rng = np.random.default_rng(seed)
    nodes = [f"v{i}" for i in range(n)]
    mapping = {}
    for size in range(1, k + 2):
        for h in itertools.combinations(nodes, size):
            if size == 1:
                mapping[h] = -1.0
            else:
                mapping[h] = rng.random() if positive else rng.normal()
    return HyperedgeWeights.from_mapping(mapping, nodes, max_size=k + 1), mapping


@functools.cache
def _all_hyperforests(nodes, k):
    """Every hyperforest of width <= k on `nodes` (a tuple; closures), by exhaustive growth.

    Enumerated once per (nodes, k) for the file: the tests only read the forests' weights.
    """
    candidates = [frozenset(h) for s in range(2, k + 2) for h in itertools.combinations(nodes, s)]
    start = Hyperforest([], nodes)
    seen = {frozenset(start.hyperedges): start}
    frontier = [start]
    while frontier:
        new = []
        for forest in frontier:
            for h in candidates:
                if h not in forest and forest.would_remain_acyclic(h):
                    grown = forest.copy()
                    grown.add(h)
                    key = frozenset(grown.hyperedges)
                    if key not in seen:
                        seen[key] = grown
                        new.append(grown)
        frontier = new
    return list(seen.values())


def _best_weight(weights, mapping, nodes, k):
    return max(f.weight({frozenset(h): w for h, w in mapping.items()}) for f in _all_hyperforests(tuple(nodes), k))


@pytest.mark.parametrize("algorithm", ["incremental", "global"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("positive", [True, False])
def test_width_one_is_exact(algorithm, seed, positive):
    """For k = 1 both greedy algorithms are Prim / Kruskal: optimal, also with negative (MDL-like) weights."""
    weights, mapping = _random_weights(5, 1, seed, positive=positive)
    forest = max_hyperforest(weights, 1, algorithm=algorithm)
    assert is_hyperforest(forest.maximal_hyperedges, k=1)
    as_dict = {frozenset(h): w for h, w in mapping.items()}
    assert forest.weight(as_dict) == pytest.approx(_best_weight(weights, mapping, weights.nodes, 1))


@pytest.mark.parametrize("algorithm", ["incremental", "global"])
@pytest.mark.parametrize("seed", range(4))
def test_width_two_is_valid_and_near_the_optimum(algorithm, seed):
    weights, mapping = _random_weights(5, 2, seed, positive=False)
    forest = max_hyperforest(weights, 2, algorithm=algorithm)
    assert is_hyperforest(forest.maximal_hyperedges, k=2)
    as_dict = {frozenset(h): w for h, w in mapping.items()}
    best = _best_weight(weights, mapping, weights.nodes, 2)
    got = forest.weight(as_dict)
    assert got <= best + 1e-9
    # never worse than the empty forest, and close to the optimum on these tiny problems
    assert got >= Hyperforest([], weights.nodes).weight(as_dict) - 1e-9
    assert got >= best - 0.35 * abs(best)


def test_backtracking_never_hurts():
    for seed in range(5):
        weights, mapping = _random_weights(7, 2, seed, positive=False)
        as_dict = {frozenset(h): w for h, w in mapping.items()}
        one = max_hyperforest(weights, 2, n_starts=1).weight(as_dict)
        many = max_hyperforest(weights, 2, n_starts=100).weight(as_dict)
        assert many >= one - 1e-12


def _planted(seed, n_rows=4000):
    """x1 = x0 xor x2 (+ noise) and x3 = x1 xor x4: a width-2 structure pairs cannot see."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, size=(n_rows, 6))
    noise = lambda: (rng.random(n_rows) < 0.05).astype(int)  # noqa: E731
    x[:, 1] = x[:, 0] ^ x[:, 2] ^ noise()
    x[:, 3] = x[:, 1] ^ x[:, 4] ^ noise()
    x[:, 5] = x[:, 4] ^ noise()
    return CountingEngine(x, [2] * 6, names=[f"x{i}" for i in range(6)])


@pytest.mark.parametrize("algorithm", ["incremental", "global"])
@pytest.mark.parametrize("score", ["ml", "mdl"])
def test_planted_triples_are_found(algorithm, score):
    engine = _planted(0)
    forest = max_hyperforest(hyperedge_weights(engine, k=2, score=score), 2, algorithm=algorithm)
    for h in [{"x0", "x1", "x2"}, {"x1", "x3", "x4"}, {"x4", "x5"}]:
        assert h in forest


def test_ml_gives_a_spanning_k_tree_and_mdl_may_give_a_forest():
    rng = np.random.default_rng(3)
    independent = CountingEngine(rng.integers(0, 3, size=(300, 6)), [3] * 6)
    ml = max_hyperforest(hyperedge_weights(independent, k=2, score="ml"), 2)
    assert len(ml.maximal_hyperedges) == 6 - 2 and all(len(h) == 3 for h in ml.maximal_hyperedges)
    assert nx.is_connected(ml.primal_graph())
    mdl = max_hyperforest(hyperedge_weights(independent, k=2, score="mdl"), 2)
    assert mdl.width == 0  # independent variables: nothing pays its parameters


def test_width_one_ml_is_the_chow_liu_tree():
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=(500, 6))
    for j in range(1, 6):
        codes[:, j] = np.where(rng.random(500) < 0.5 + 0.07 * j, codes[:, rng.integers(0, j)], codes[:, j])
    engine = CountingEngine(codes, [3] * 6, names=list("abcdef"))
    tree = chow_liu_tree(engine)
    for algorithm in ["incremental", "global"]:
        forest = max_hyperforest(hyperedge_weights(engine, k=1), 1, algorithm=algorithm)
        assert {frozenset(e) for e in forest.primal_graph().edges} == {frozenset(e) for e in tree.edges}


def test_k_zero_and_small_inputs():
    weights, _ = _random_weights(4, 1, 0)
    assert max_hyperforest(weights, 0).width == 0
    # k larger than the node count allows is capped
    assert max_hyperforest(HyperedgeWeights.from_mapping({("a", "b"): 1.0}, ["a", "b"], max_size=2), 1).width == 1


def test_argument_checks():
    weights, _ = _random_weights(4, 1, 0)
    with pytest.raises(ValueError, match="Unknown algorithm"):
        max_hyperforest(weights, 1, algorithm="annealing")
    with pytest.raises(ValueError, match="`k` must be"):
        max_hyperforest(weights, -1)
    with pytest.raises(ValueError, match="n_starts"):
        max_hyperforest(weights, 1, n_starts=0)
    with pytest.raises(ValueError, match="stop at 2"):
        max_hyperforest(weights, 2)


def test_mapping_weights_and_node_attributes():
    forest = max_hyperforest(
        {("a", "b"): 1.0, ("b", "c"): 2.0}, 1, nodes=["a", "b", "c", "d"], node_attributes={"a": {"role": "class"}}
    )
    assert forest.nodes == ("a", "b", "c", "d")
    assert {"a", "b"} in forest and {"b", "c"} in forest
    assert forest.primal_graph().nodes["a"]["role"] == "class"


def _weight_table(n, k, rng, integer):
    """Random weights of every hyperedge of 1 .. k + 1 of n nodes: small integers (many ties) or normal."""
    nodes = [f"v{i}" for i in range(n)]
    mapping = {}
    for size in range(1, k + 2):
        for h in itertools.combinations(nodes, size):
            mapping[h] = float(rng.integers(-2, 3)) if integer else rng.normal() - 0.3 * (size > 1)
    return HyperedgeWeights.from_mapping(mapping, nodes, max_size=k + 1)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_lockstep_runs_equal_the_reference_loop(k):
    """All runs of the incremental search at once (numpy, without a trace) give every run's closure
    weight to the bit and the same winner as the reference loop `_grow` (which the trace replays):
    random tables, half of them integer-valued (ties everywhere), and MDL weights of random data
    (nodes that start trees of their own)."""
    from graphmodels.learners.hyperforests import _grow, _grow_all, _heaviest

    rng = np.random.default_rng(k)
    largest = {1: 30, 2: 16, 3: 10}[k]
    new_trees = 0
    for case in range(10):
        n = int(rng.integers(k + 1, largest + 1)) if case else largest
        if case == 9:
            codes = rng.integers(0, 3, size=(int(rng.integers(20, 200)), n))
            codes[:, 1:] = np.where(rng.random((len(codes), n - 1)) < 0.5, codes[:, :-1], codes[:, 1:])
            weights = hyperedge_weights(CountingEngine(codes, [3] * n), k=k, score="mdl")
        else:
            weights = _weight_table(n, k, rng, integer=case % 2 == 0)
        n_starts = int(rng.choice([1, 4, 30, 100]))
        starts = [None] + _heaviest(weights, k, n_starts)
        gains = [weights.gains(s) for s in range(k + 1)]
        fast = _grow_all(weights, gains, k, n, starts)
        reference = [_grow(weights, gains, weights.binomial_table(), k, n, start)[1] for start in starts]
        assert fast.tolist() == reference, (case, n, n_starts)
        forest = max_hyperforest(weights, k, n_starts=n_starts)
        traced, trace = max_hyperforest(weights, k, n_starts=n_starts, trace=True)
        assert set(forest.maximal_hyperedges) == set(traced.maximal_hyperedges), (case, n, n_starts)
        assert forest.weight(weights) == pytest.approx(trace["score"].iloc[-1], abs=1e-9)
        new_trees += int((trace["action"] == "new tree").sum()) - 1  # besides the first node of the run without start
    assert new_trees > 0  # the cases do reach nodes that start a tree of their own mid-run
