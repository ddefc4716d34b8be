"""Tests of graphmodels.learners.trees: Chow-Liu, TAN and FAN against brute force."""

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from graphmodels.learners import chow_liu_tree, fan_structure, fan_threshold, tan_structure
from graphmodels.stats import CountingEngine, conditional_mutual_information, mutual_information
from graphmodels.stats.scores import bdeu_family_score, pairwise_bdeu_gain
from graphmodels.structures import feature_parents, is_augmented_naive_bayes

ALGORITHMS = ["kruskal", "prim"]


def _noisy_copy(rng, source, card, keep):
    """A column equal to `source` mod `card` with probability `keep`, else uniform."""
    noise = rng.integers(0, card, len(source))
    return np.where(rng.random(len(source)) < keep, source % card, noise)


def _random_frame(seed, n_features, n=400, with_class=False):
    """Features with random cardinalities; random pairs strongly, weakly or not linked.

    Column names are strings in a shuffled order so that nothing depends on
    names sorting like positions.
    """
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 5, n_features)
    columns = {}
    if with_class:
        cls = rng.integers(0, int(rng.integers(2, 4)), n)
    for k in range(n_features):
        if k and rng.random() < 0.7:
            parent = columns[f"x{int(rng.integers(0, k))}"]
            column = _noisy_copy(rng, parent, cards[k], keep=rng.choice([0.15, 0.5, 0.9]))
        elif with_class:
            column = _noisy_copy(rng, cls, cards[k], keep=0.4)
        else:
            column = rng.integers(0, cards[k], n)
        columns[f"x{k}"] = column
    if with_class:
        # The class also shifts every feature a little, so CMI differs from MI.
        columns = {k: np.where(rng.random(n) < 0.15, cls % cards[i], v) for i, (k, v) in enumerate(columns.items())}
        columns["class"] = cls
    names = list(columns)
    order = rng.permutation(len(names))
    return pd.DataFrame({names[i]: columns[names[i]] for i in order})


def _spanning_trees(nodes):
    """Every spanning tree of the complete graph on `nodes`, via Prüfer sequences."""
    n = len(nodes)
    if n == 1:
        yield []
        return
    if n == 2:
        yield [(nodes[0], nodes[1])]
        return
    for sequence in itertools.product(range(n), repeat=n - 2):
        tree = nx.from_prufer_sequence(list(sequence))
        yield [(nodes[u], nodes[v]) for u, v in tree.edges]


def _edge_set(edges):
    return {frozenset(e) for e in edges}


def _brute_force_best(candidates, weight):
    """Best total weight over candidate edge lists, its edge set, and whether it is unique."""
    scored = sorted(
        ((sum(weight[frozenset(e)] for e in edges), _edge_set(edges)) for edges in candidates), key=lambda t: -t[0]
    )
    best, best_edges = scored[0]
    unique = len(scored) == 1 or scored[1][0] < best - 1e-9
    return best, best_edges, unique


# ---------------------------------------------------------------- Chow-Liu
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n_features, seed", [(2, 0), (3, 1), (4, 2), (5, 3), (6, 4), (6, 5), (6, 6)])
def test_chow_liu_equals_brute_force_over_spanning_trees(algorithm, n_features, seed):
    frame = _random_frame(seed, n_features)
    engine = CountingEngine.from_frame(frame)
    nodes = list(frame.columns)
    weight = {frozenset((u, v)): mutual_information(engine, u, v) for u, v in itertools.combinations(nodes, 2)}
    best, best_edges, unique = _brute_force_best(_spanning_trees(nodes), weight)

    tree = chow_liu_tree(engine, algorithm=algorithm)
    assert nx.is_tree(tree) and set(tree.nodes) == set(nodes)
    total = sum(weight[frozenset(e)] for e in tree.edges)
    assert total == pytest.approx(best, abs=1e-12)
    if len(set(np.round(list(weight.values()), 12))) == len(weight):
        assert unique
        assert _edge_set(tree.edges) == best_edges
    for u, v, w in tree.edges(data="weight"):
        assert w == pytest.approx(weight[frozenset((u, v))], abs=1e-12)
    for node, data in tree.nodes(data=True):
        assert data["role"] == "feature"
        assert data["cardinality"] == engine.cardinality(node)


def _forests(nodes):
    """Every forest over `nodes` as an edge list (subsets of the complete graph without a cycle)."""
    pairs = list(itertools.combinations(nodes, 2))
    for size in range(len(nodes)):
        for edges in itertools.combinations(pairs, size):
            graph = nx.Graph(list(edges))
            if nx.is_forest(graph):
                yield list(edges)


@pytest.mark.parametrize("n_features, seed, rows", [(3, 1, 40), (4, 2, 60), (5, 3, 30), (5, 7, 400), (4, 8, 15)])
def test_chow_liu_mdl_forest_equals_brute_force_over_forests(n_features, seed, rows):
    frame = _random_frame(seed, n_features).iloc[:rows]
    engine = CountingEngine.from_frame(frame)
    nodes = list(frame.columns)
    m = len(frame)
    weight = {
        frozenset((u, v)): mutual_information(engine, u, v)
        - (engine.cardinality(u) - 1) * (engine.cardinality(v) - 1) * math.log(m) / (2 * m)
        for u, v in itertools.combinations(nodes, 2)
    }
    best, best_edges, _ = _brute_force_best(_forests(nodes), weight)
    forest = chow_liu_tree(engine, criterion="mdl")
    assert nx.is_forest(forest) and set(forest.nodes) == set(nodes)
    assert sum(weight[frozenset(e)] for e in forest.edges) == pytest.approx(best, abs=1e-12)
    assert all(w > 0 for _, _, w in forest.edges(data="weight"))


def _bdeu_family(frame, child, parent, ess):
    """BDeu score of `child`'s family (`parent` None for a root), counted by pandas."""
    if parent is None:
        table = frame[child].value_counts().to_numpy()[None, :]
    else:
        table = pd.crosstab(frame[parent], frame[child]).to_numpy()
    # Zero cells add nothing, so crosstab's observed states are enough, but BDeu spreads the
    # sample size over every state: pad to the full cardinalities.
    full = np.zeros((frame[parent].nunique() if parent is not None else 1, frame[child].nunique()))
    full[: table.shape[0], : table.shape[1]] = table
    return bdeu_family_score(full, equivalent_sample_size=ess)


def _forest_log_marginal_likelihood(frame, edges, ess, family_scores=None):
    """BDeu log marginal likelihood of the forest network over `frame`'s columns, oriented from a root per tree.

    `family_scores`, a dict, keeps each family's score across the forests of one brute force.
    """
    family_scores = {} if family_scores is None else family_scores
    graph = nx.Graph(list(edges))
    graph.add_nodes_from(frame.columns)
    total = 0.0
    for component in nx.connected_components(graph):
        root = min(component)
        parents = {root: None, **{v: u for u, v in nx.bfs_edges(graph, root)}}
        for child, parent in parents.items():
            if (child, parent) not in family_scores:
                family_scores[child, parent] = _bdeu_family(frame, child, parent, ess)
            total += family_scores[child, parent]
    return total


@pytest.mark.parametrize(
    "n_features, seed, rows, ess", [(3, 1, 40, 1.0), (4, 2, 60, 4.0), (5, 3, 30, 0.5), (4, 8, 200, 8.0)]
)
def test_chow_liu_bdeu_forest_has_the_highest_marginal_likelihood_of_all_forests(n_features, seed, rows, ess):
    # Brute force over every forest, each scored as a Bayesian network (Heckerman et al. 1995): the
    # learned forest's marginal likelihood is the highest, and its weights are the edges' Bayes factors.
    frame = _random_frame(seed, n_features).iloc[:rows].reset_index(drop=True)
    frame = frame.apply(lambda column: pd.Series(pd.factorize(column, sort=True)[0]))
    nodes = list(frame.columns)
    families: dict = {}
    scored = sorted((_forest_log_marginal_likelihood(frame, edges, ess, families), edges) for edges in _forests(nodes))
    best = scored[-1][0]
    forest = chow_liu_tree(frame, criterion="bdeu", equivalent_sample_size=ess)
    assert nx.is_forest(forest) and set(forest.nodes) == set(nodes)
    assert _forest_log_marginal_likelihood(frame, forest.edges, ess) == pytest.approx(best, abs=1e-9)
    empty = _forest_log_marginal_likelihood(frame, [], ess)
    for u, v, w in forest.edges(data="weight"):
        gain = _forest_log_marginal_likelihood(frame, [(u, v)], ess) - empty
        assert w == pytest.approx(gain / rows, abs=1e-12) and w > 0


def test_chow_liu_bdeu_links_no_column_that_is_constant_in_the_rows():
    # BDeu spreads its prior over every state, also those a class never takes, and then favours
    # an edge at a column constant in the class: such pairs share no information and are not linked.
    frame = pd.DataFrame({"a": list("xxxy"), "b": list("uuuv"), "y": list("pppq")})
    engine = CountingEngine.from_frame(frame)
    gains = pairwise_bdeu_gain(engine, ["a", "b"], given="y", per_stratum=True)
    assert gains[0, 0, 1] > 0  # the artefact, within class p where a and b are constant
    forest, steps = chow_liu_tree(engine, ["a", "b"], stratum=("y", 0), criterion="bdeu", trace=True)
    assert list(forest.edges) == []
    assert steps["reason"].tolist() == ["no information between them in these rows"]
    # A class with one row: every weight is 0 in exact arithmetic (float noise is not an edge).
    rng = np.random.default_rng(1)
    rows = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.integers(0, 2, 60), "c": rng.integers(0, 4, 60)})
    rows["y"] = ["z"] + ["w"] * 59
    engine = CountingEngine.from_frame(rows)
    single = engine.position("y"), int(np.flatnonzero(np.asarray(engine.counts(["y"])) == 1)[0])
    for criterion in ("bdeu", "mdl"):
        assert list(chow_liu_tree(engine, ["a", "b", "c"], stratum=("y", single[1]), criterion=criterion).edges) == []


def test_pairwise_bdeu_gain_equals_family_scores_with_unknown_cells_and_strata():
    rng = np.random.default_rng(3)
    n = 300
    a, c, y = rng.integers(0, 3, n), rng.integers(0, 4, n), rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.6, a % 2, rng.integers(0, 2, n))
    c[rng.random(n) < 0.1] = -1  # unknown cells: they drop out of the pairs that read c only
    engine = CountingEngine(np.column_stack([a, b, c, y]), [3, 2, 4, 2], names=["a", "b", "c", "y"])
    assert engine.has_unknown
    names = ["a", "b", "c"]
    gains = pairwise_bdeu_gain(engine, names, equivalent_sample_size=2.0, given="y", per_stratum=True)
    summed = pairwise_bdeu_gain(engine, names, equivalent_sample_size=2.0, given="y")
    for s in range(2):
        for i, j in itertools.permutations(range(3), 2):
            table = np.asarray(engine.counts(["y", names[i], names[j]]), dtype=float)[s]
            expected = bdeu_family_score(table, equivalent_sample_size=2.0) - bdeu_family_score(
                table.sum(axis=0)[None], equivalent_sample_size=2.0
            )
            assert gains[s, i, j] == pytest.approx(expected, abs=1e-9)
    np.testing.assert_allclose(summed, gains.sum(axis=0))
    assert np.all(np.diagonal(gains, axis1=1, axis2=2) == 0)
    with pytest.raises(ValueError, match="equivalent_sample_size"):
        pairwise_bdeu_gain(engine, names, equivalent_sample_size=0.0)
    with pytest.raises(TypeError, match="equivalent_sample_size"):
        chow_liu_tree(engine, names, criterion="bdeu", equivalent_sample_size="4")
    with pytest.raises(ValueError, match="per_stratum"):
        pairwise_bdeu_gain(engine, names, per_stratum=True)


def test_chow_liu_mdl_keeps_a_strong_edge_and_drops_noise():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 500)
    frame = pd.DataFrame({"a": a, "b": a ^ (rng.random(500) < 0.05), "noise": rng.integers(0, 2, 500)})
    engine = CountingEngine.from_frame(frame)
    assert _edge_set(chow_liu_tree(engine, criterion="mdl").edges) == {frozenset(("a", "b"))}
    assert len(chow_liu_tree(engine).edges) == 2  # Chow & Liu's tree spans every node
    with pytest.raises(ValueError, match="criterion"):
        chow_liu_tree(engine, criterion="bic")


def test_chow_liu_hand_example():
    # The docstring example. Tables (rows: first variable):
    #   a,b = [[2, 1], [0, 2]]: H(a) = H(b) = H(2/5), H(a,b) = H(2/5, 1/5, 2/5)
    #       -> I = 2 H(2/5) - H(2/5, 1/5, 2/5) = 0.2911 nats;
    #   a,c = [[3, 0], [1, 1]] -> I = H(2/5) + H(1/5) - H(3/5, 1/5, 1/5) = 0.2231;
    #   b,c = [[2, 0], [2, 1]] -> I = H(2/5) + H(1/5) - H(2/5, 2/5, 1/5) = 0.1185.
    # So the maximum spanning tree is a-b, a-c.
    frame = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 0, 1, 1, 1], "c": [0, 0, 1, 0, 0]})

    def h(*p):
        return -sum(x * math.log(x) for x in p)

    expected = {
        ("a", "b"): 2 * h(0.4, 0.6) - h(0.4, 0.2, 0.4),
        ("a", "c"): h(0.4, 0.6) + h(0.2, 0.8) - h(0.6, 0.2, 0.2),
        ("b", "c"): h(0.4, 0.6) + h(0.2, 0.8) - h(0.4, 0.4, 0.2),
    }
    assert expected["a", "b"] == pytest.approx(0.2911, abs=1e-4)
    mi = {p: mutual_information(frame, *p) for p in [("a", "b"), ("a", "c"), ("b", "c")]}
    for pair, value in expected.items():
        assert mi[pair] == pytest.approx(value, rel=1e-12)
    assert mi["a", "b"] > mi["a", "c"] > mi["b", "c"]
    for algorithm in ALGORITHMS:
        assert _edge_set(chow_liu_tree(frame, algorithm=algorithm).edges) == _edge_set([("a", "b"), ("a", "c")])


def test_chow_liu_on_a_subset_of_variables():
    frame = _random_frame(7, 5)
    subset = list(frame.columns[:3])
    tree = chow_liu_tree(frame, subset)
    assert set(tree.nodes) == set(subset) and nx.is_tree(tree)


# ---------------------------------------------------------------- TAN
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n_features, seed", [(2, 10), (3, 11), (4, 12), (5, 13), (6, 14), (6, 15)])
def test_tan_equals_brute_force_over_spanning_trees(algorithm, n_features, seed):
    frame = _random_frame(seed, n_features, with_class=True)
    engine = CountingEngine.from_frame(frame)
    features = [c for c in frame.columns if c != "class"]
    weight = {
        frozenset((u, v)): conditional_mutual_information(engine, u, v, "class")
        for u, v in itertools.combinations(features, 2)
    }
    best, best_edges, unique = _brute_force_best(_spanning_trees(features), weight)

    graph = tan_structure(engine, "class", algorithm=algorithm)
    augmenting = [(u, v) for u, v, kind in graph.edges(data="kind") if kind == "augmenting"]
    assert sum(weight[frozenset(e)] for e in augmenting) == pytest.approx(best, abs=1e-12)
    assert nx.is_tree(nx.Graph(augmenting)) or n_features == 1
    assert len(augmenting) == n_features - 1
    if unique:
        assert _edge_set(augmenting) == best_edges
    _check_augmented_naive_bayes(graph, engine, features)
    for u, v in augmenting:
        assert graph.edges[u, v]["weight"] == pytest.approx(weight[frozenset((u, v))], abs=1e-12)
    # The root (no attribute parent) is the attribute most informative about the class.
    roots = [f for f, ps in feature_parents(graph).items() if not ps]
    class_mi = {f: mutual_information(engine, f, "class") for f in features}
    assert roots == [max(features, key=class_mi.__getitem__)]


def _check_augmented_naive_bayes(graph, engine, features):
    assert isinstance(graph, nx.DiGraph)
    assert nx.is_directed_acyclic_graph(graph)
    assert set(graph.nodes) == set(features) | {"class"}
    assert graph.nodes["class"]["role"] == "class"
    assert graph.in_degree("class") == 0
    for f in features:
        assert graph.has_edge("class", f) and graph.edges["class", f]["kind"] == "class"
        assert graph.edges["class", f]["weight"] == pytest.approx(mutual_information(engine, f, "class"), abs=1e-12)
        assert graph.nodes[f]["role"] == "feature"
        assert graph.nodes[f]["cardinality"] == engine.cardinality(f)
        attribute_parents = [p for p in graph.predecessors(f) if p != "class"]
        assert len(attribute_parents) <= 1
    assert is_augmented_naive_bayes(graph)


# ---------------------------------------------------------------- FAN
def test_fan_threshold_hand_values():
    # T_R = |C| (|Xi| - 1) (|Xj| - 1) log N / (2 N).
    assert fan_threshold(2, 3, 3, 100) == pytest.approx(2 * 2 * 2 * math.log(100) / 200, rel=1e-15)
    assert fan_threshold(2, 3, 3, 100) == pytest.approx(0.18420680743952367, rel=1e-12)
    assert fan_threshold(3, 2, 4, 50) == pytest.approx(3 * 1 * 3 * math.log(50) / 100, rel=1e-15)
    assert fan_threshold(3, 2, 4, 50) == fan_threshold(3, 4, 2, 50)
    assert fan_threshold(2, 2, 2, 1) == math.inf


def _forests(nodes):
    """Every forest on `nodes`: all acyclic subsets of the complete graph's edges."""
    pairs = list(itertools.combinations(nodes, 2))
    for mask in range(1 << len(pairs)):
        edges = [pairs[k] for k in range(len(pairs)) if mask >> k & 1]
        graph = nx.Graph(edges)
        if not edges or nx.is_forest(graph):
            yield edges


def _mdl_gain(engine, u, v):
    # Hamine & Helman eq. (6): an arc Xj -> Xi (|C| parent configurations more
    # per child state) costs (|Xj||C|(|Xi|-1) - |C|(|Xi|-1)) log N / 2 and gains
    # N I(Xi; Xj | C) in log-likelihood; the net gain is symmetric in i and j.
    n = engine.n_rows
    c = engine.cardinality("class")
    ri, rj = engine.cardinality(u), engine.cardinality(v)
    penalty = (rj * c * (ri - 1) - c * (ri - 1)) * math.log(n) / 2
    return n * conditional_mutual_information(engine, u, v, "class") - penalty


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n_features, seed", [(2, 20), (3, 21), (4, 22), (5, 23), (5, 24), (5, 25), (5, 26), (5, 27)])
def test_fan_is_mdl_optimal_by_brute_force_over_forests(algorithm, n_features, seed):
    frame = _random_frame(seed, n_features, n=300, with_class=True)
    engine = CountingEngine.from_frame(frame)
    features = [c for c in frame.columns if c != "class"]
    gain = {frozenset((u, v)): _mdl_gain(engine, u, v) for u, v in itertools.combinations(features, 2)}
    best, best_edges, unique = _brute_force_best(_forests(features), gain)

    graph = fan_structure(engine, "class", algorithm=algorithm)
    augmenting = [(u, v) for u, v, kind in graph.edges(data="kind") if kind == "augmenting"]
    assert sum(gain[frozenset(e)] for e in augmenting) == pytest.approx(best, abs=1e-8)
    if unique:
        assert _edge_set(augmenting) == best_edges
    assert all(gain[frozenset(e)] > 0 for e in augmenting)
    _check_augmented_naive_bayes(graph, engine, features)
    for u, v in augmenting:
        expected = fan_threshold(
            engine.cardinality("class"), engine.cardinality(u), engine.cardinality(v), engine.n_rows
        )
        assert graph.edges[u, v]["threshold"] == pytest.approx(expected, rel=1e-12)


def test_fan_brute_force_cases_are_proper_forests():
    # Guard against a data generator that makes the FAN test trivial: among
    # the 5-attribute cases, optima with no arc and with fewer than 4 arcs
    # (a proper forest) must both appear, and some optimum with an arc.
    sizes = []
    for seed in range(23, 28):
        frame = _random_frame(seed, 5, n=300, with_class=True)
        engine = CountingEngine.from_frame(frame)
        features = [c for c in frame.columns if c != "class"]
        gain = {frozenset((u, v)): _mdl_gain(engine, u, v) for u, v in itertools.combinations(features, 2)}
        sizes.append(len(_brute_force_best(_forests(features), gain)[1]))
    assert any(0 < s < 4 for s in sizes)


def test_fan_prefers_cheap_arcs_when_thresholds_differ():
    # A triangle where the most informative pair (a, b: 6 states each) has a
    # large MDL penalty; the optimal forest takes the two cheap arcs through
    # the binary attribute d even though I(a; b | C) is the largest weight.
    # Penalties at N = 300, |C| = 2: N T_R = 25 log N = 142.6 for (a, b) and
    # 5 log N = 28.5 for (a, d), (b, d). a and b share d (noisily) and half of
    # a low digit, so I(a; b | C) is the largest but its MDL gain the smallest.
    rng = np.random.default_rng(0)
    n = 300
    cls = rng.integers(0, 2, n)
    d = rng.integers(0, 2, n)
    low = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.9, d, 1 - d) * 3 + low
    b = np.where(rng.random(n) < 0.9, d, 1 - d) * 3 + np.where(rng.random(n) < 0.5, low, rng.integers(0, 3, n))
    frame = pd.DataFrame({"a": a, "b": b, "d": d, "class": cls})
    engine = CountingEngine.from_frame(frame)
    gain = {frozenset(p): _mdl_gain(engine, *p) for p in [("a", "b"), ("a", "d"), ("b", "d")]}
    cmi = {p: conditional_mutual_information(engine, *p, "class") for p in [("a", "b"), ("a", "d"), ("b", "d")]}
    assert cmi["a", "b"] > max(cmi["a", "d"], cmi["b", "d"])  # the trap is set
    assert all(g > 0 for g in gain.values())
    graph = fan_structure(engine, "class")
    augmenting = _edge_set((u, v) for u, v, k in graph.edges(data="kind") if k == "augmenting")
    assert augmenting == _edge_set([("a", "d"), ("b", "d")])


def test_fan_drops_independent_pairs_entirely():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({name: rng.integers(0, 3, 500) for name in ["p", "q", "r", "class"]})
    graph = fan_structure(frame, "class")
    assert not [e for e in graph.edges(data="kind") if e[2] == "augmenting"]
    assert is_augmented_naive_bayes(graph)


# ---------------------------------------------------------------- shared behaviour
LEARNERS = {
    "chow_liu": lambda data, **kw: chow_liu_tree(data, [c for c in data.columns if c != "class"], **kw),
    "tan": lambda data, **kw: tan_structure(data, "class", **kw),
    "fan": lambda data, **kw: fan_structure(data, "class", **kw),
}


@pytest.mark.parametrize("learner", LEARNERS)
def test_unknown_algorithm_lists_valid_ones(learner):
    frame = _random_frame(0, 3, with_class=True)
    with pytest.raises(ValueError, match=r"'boruvka'.*\['kruskal', 'prim'\]"):
        LEARNERS[learner](frame, algorithm="boruvka")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("seed", [30, 31, 32])
def test_permuting_columns_or_rows_gives_the_same_structure(learner, algorithm, seed):
    rng = np.random.default_rng(seed)
    frame = _random_frame(seed, 5, with_class=True)
    learn = LEARNERS[learner]
    reference = learn(frame, algorithm=algorithm)
    permuted = frame[list(rng.permutation(frame.columns))]
    shuffled = frame.iloc[rng.permutation(len(frame))]
    for other in (learn(permuted, algorithm=algorithm), learn(shuffled, algorithm=algorithm)):
        if learner == "chow_liu":
            assert _edge_set(other.edges) == _edge_set(reference.edges)
        else:
            # Roots are chosen by I(X; C), not by column order, so arcs agree too.
            assert set(other.edges) == set(reference.edges)


@pytest.mark.parametrize("learner", LEARNERS)
def test_learners_accept_an_engine_or_a_frame_alike(learner):
    frame = _random_frame(40, 4, with_class=True)
    from_frame = LEARNERS[learner](frame)
    engine = CountingEngine.from_frame(frame)
    if learner == "chow_liu":
        from_engine = chow_liu_tree(engine, [c for c in frame.columns if c != "class"])
    else:
        from_engine = {"tan": tan_structure, "fan": fan_structure}[learner](engine, "class")
    assert set(from_engine.edges) == set(from_frame.edges)


def test_class_cannot_be_a_feature():
    frame = _random_frame(41, 3, with_class=True)
    with pytest.raises(ValueError, match="class"):
        tan_structure(frame, "class", features=["class", "x0"])
