"""Learning traces (issue 17): every structure learner can record its steps as a DataFrame.

The proof that a trace tells the truth: replaying its accepted steps rebuilds the learned
structure exactly, for every learner and every model with a ``trace`` parameter; the
rejected Kruskal edges really close a cycle in the forest of their time; Kruskal's steps come
in non-increasing weight; tracing changes neither the structure nor the predictions; a saved
model keeps its trace. A hand-computed Chow-Liu case fixes the exact order and weights.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._trace import BASE_COLUMNS
from graphmodels.learners import (
    bridge_and_feature_forest,
    bridge_parent_sets,
    chow_liu_tree,
    class_forest,
    collapse_states,
    fan_structure,
    hierarchical_naive_bayes_search,
    kdb_ranking,
    kdb_structure,
    kikuchi_bayes_path,
    max_hyperforest,
    multidimensional_structure,
    tan_structure,
)
from graphmodels.models.base import training_counts
from graphmodels.stats import hyperedge_weights
from graphmodels.structures import Hyperforest, cluster_variation_regions


# ----------------------------------------------------------------------------- data
def _engine(name, *, with_class=True, max_rows=None):
    frame = gm.datasets.load(name)
    if max_rows is not None:
        frame = frame.iloc[:max_rows]
    X, y = frame.drop(columns="class"), frame["class"]
    return training_counts(X, y if with_class else None, discretizer="mdl" if with_class else "equal-frequency").engine


def _random_engine(seed, *, n_rows=300, cards=(2, 3, 4, 2, 3, 2), n_classes=3, with_class=True):
    """Columns that copy their left neighbour (or the class) often: a structure worth finding."""
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n_rows)
    columns, previous = {}, y
    for j, r in enumerate(cards):
        copy = rng.random(n_rows) < 0.6
        columns[f"x{j}"] = np.where(copy, previous % r, rng.integers(r, size=n_rows))
        previous = columns[f"x{j}"]
    X = pd.DataFrame(columns)
    return training_counts(X, pd.Series(y, name="label") if with_class else None).engine


ENGINES = {
    "car": lambda: _engine("car"),
    "tic-tac-toe": lambda: _engine("tic-tac-toe"),
    "iris": lambda: _engine("iris"),
    "random-0": lambda: _random_engine(0),
    "random-1": lambda: _random_engine(1, cards=(3, 3, 3, 3, 3, 3, 3)),
}


@pytest.fixture(params=sorted(ENGINES), ids=sorted(ENGINES))
def engine(request):
    return ENGINES[request.param]()


def _check_columns(trace, *extra):
    assert isinstance(trace, pd.DataFrame)
    assert trace.columns[0] == "step"
    assert [c for c in trace.columns if c in BASE_COLUMNS] == list(BASE_COLUMNS)
    assert set(extra) <= set(trace.columns)
    assert trace["step"].tolist() == list(range(len(trace)))


def _edge_set(edges):
    return {frozenset(e[:2]) for e in edges}


# ----------------------------------------------------------------------------- replays
def _replay_spanning(steps, nodes):
    """The undirected forest of the accepted steps, checking each step against the forest of its time.

    Rejected edges must join two nodes already connected, and their ``cycle`` must be the path
    between them then; Prim's accepted edges must grow the tree from a visited node.
    """
    forest = nx.Graph()
    forest.add_nodes_from(nodes)
    visited = set()
    for row in steps.itertuples(index=False):
        if row.action == "accept":
            u, v = row.item
            assert not nx.has_path(forest, u, v), f"accepted edge {row.item} closes a cycle"
            forest.add_edge(u, v, weight=row.score)
            visited |= {u, v}
        elif row.action == "reject":
            u, v = row.item
            path = nx.shortest_path(forest, u, v)  # raises if they are not connected
            assert tuple(path) == tuple(row.cycle)
            assert row.reason == f"closes a cycle of {len(path)} edges"
        elif row.action == "start":
            assert row.item not in visited
            visited.add(row.item)
    return forest


def _check_kruskal_order(steps):
    scores = steps.loc[steps["action"].isin(["accept", "reject"]), "score"].to_numpy()
    assert np.all(np.diff(scores) <= 0)


def _orient(forest, steps):
    roots = steps.loc[steps["action"] == "root", "item"].tolist()
    assert len(roots) == nx.number_connected_components(forest)
    arcs = set()
    for root in roots:
        arcs |= set(nx.bfs_edges(forest, root))
    return arcs


def _augmenting_arcs(structure):
    return {(u, v) for u, v, kind in structure.edges(data="kind") if kind == "augmenting"}


# ----------------------------------------------------------------------------- hand-computed
def _four_variables():
    """a uniform; b = a; c = a except in one row of each half; d independent of all.

    I(a; b) = log 2; I(a; c) = I(b; c) = log 2 - H(1/4); every pair with d has I = 0.
    """
    a = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    c = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    d = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    return pd.DataFrame({"a": a, "b": a.copy(), "c": c, "d": d})


def _entropy(*p):
    return -sum(x * math.log(x) for x in p)


def test_chow_liu_hand_computed_kruskal_order():
    tree, steps = chow_liu_tree(_four_variables(), trace=True)
    strong, weak = math.log(2), math.log(2) - _entropy(0.25, 0.75)
    # (a, c) and (b, c) tie: networkx's stable sort keeps the canonical order, (a, c) first.
    assert steps[["action", "item"]].values.tolist() == [
        ["accept", ("a", "b")],
        ["accept", ("a", "c")],
        ["reject", ("b", "c")],
        ["accept", ("a", "d")],
        ["reject", ("b", "d")],
        ["reject", ("c", "d")],
    ]
    np.testing.assert_allclose(steps["score"], [strong, weak, weak, 0, 0, 0], atol=1e-12)
    assert steps["cycle"].tolist() == [None, None, ("b", "a", "c"), None, ("b", "a", "d"), ("c", "a", "d")]
    assert steps.loc[2, "reason"] == "closes a cycle of 3 edges"
    assert _edge_set(tree.edges) == {frozenset("ab"), frozenset("ac"), frozenset("ad")}


def test_chow_liu_hand_computed_mdl_drops():
    tree, steps = chow_liu_tree(_four_variables(), criterion="mdl", trace=True)
    penalty = math.log(8) / 16  # (2 - 1)(2 - 1) log(m) / (2m), m = 8 rows
    strong, weak = math.log(2) - penalty, math.log(2) - _entropy(0.25, 0.75) - penalty
    assert steps[["action", "item"]].values.tolist() == [
        ["drop", ("a", "d")],
        ["drop", ("b", "d")],
        ["drop", ("c", "d")],
        ["accept", ("a", "b")],
        ["accept", ("a", "c")],
        ["reject", ("b", "c")],
    ]
    np.testing.assert_allclose(steps["score"], [-penalty] * 3 + [strong, weak, weak], atol=1e-12)
    assert _edge_set(tree.edges) == {frozenset("ab"), frozenset("ac")}


def test_chow_liu_hand_computed_prim_grows_one_tree():
    tree, steps = chow_liu_tree(_four_variables(), algorithm="prim", trace=True)
    # networkx's Prim starts from set(graph).pop(), which depends on the string hash seed: which
    # frontier edges get rejected does too, but the tree is one start and three accepted edges.
    actions = steps["action"].tolist()
    assert actions[0] == "start" and actions.count("start") == 1 and actions.count("accept") == 3
    assert set(actions) <= {"start", "accept", "reject"}
    _replay_spanning(steps, "abcd")
    assert _edge_set(steps.loc[steps["action"] == "accept", "item"]) == _edge_set(tree.edges)


# ----------------------------------------------------------------------------- trees
@pytest.mark.parametrize("algorithm", ["kruskal", "prim"])
@pytest.mark.parametrize("criterion", ["ml", "mdl", "bdeu"])
def test_chow_liu_replay(engine, algorithm, criterion):
    features = engine.names[:-1]
    plain = chow_liu_tree(engine, features, algorithm=algorithm, criterion=criterion)
    tree, steps = chow_liu_tree(engine, features, algorithm=algorithm, criterion=criterion, trace=True)
    assert nx.utils.graphs_equal(plain, tree) and sorted(plain.edges(data=True)) == sorted(tree.edges(data=True))
    _check_columns(steps, "cycle")
    forest = _replay_spanning(steps, features)
    assert _edge_set(forest.edges) == _edge_set(tree.edges)
    for u, v, weight in tree.edges(data="weight"):
        assert forest.edges[u, v]["weight"] == weight
    candidates = math.comb(len(features), 2)
    if algorithm == "kruskal":
        _check_kruskal_order(steps)
        assert steps["action"].isin(["accept", "reject", "drop"]).all() and len(steps) == candidates
    if criterion in ("mdl", "bdeu"):
        drops = steps[steps["action"] == "drop"]
        assert list(drops.index) == list(range(len(drops)))  # listed first
        # A pair without information in the rows is dropped whatever its BDeu weight.
        assert (drops.loc[drops["reason"] != "no information between them in these rows", "score"] <= 0).all()


def test_chow_liu_per_stratum(engine):
    class_name, features = engine.names[-1], engine.names[:-1]
    for state in range(int(engine.cardinality(class_name))):
        tree, steps = chow_liu_tree(engine, features, stratum=(class_name, state), criterion="mdl", trace=True)
        assert _edge_set(_replay_spanning(steps, features).edges) == _edge_set(tree.edges)


@pytest.mark.parametrize("algorithm", ["kruskal", "prim"])
@pytest.mark.parametrize("learner", [tan_structure, fan_structure], ids=["tan", "fan"])
def test_tan_fan_replay(engine, learner, algorithm):
    class_name, features = engine.names[-1], engine.names[:-1]
    plain = learner(engine, class_name, algorithm=algorithm)
    structure, steps = learner(engine, class_name, algorithm=algorithm, trace=True)
    assert sorted(plain.edges(data=True)) == sorted(structure.edges(data=True))
    assert dict(plain.nodes(data=True)) == dict(structure.nodes(data=True))
    _check_columns(steps, "cycle")
    forest = _replay_spanning(steps, features)
    assert _orient(forest, steps) == _augmenting_arcs(structure)
    if algorithm == "kruskal":
        _check_kruskal_order(steps)


def test_fan_thresholds_and_components(engine):
    class_name, features = engine.names[-1], engine.names[:-1]
    structure, steps = fan_structure(engine, class_name, trace=True)
    _check_columns(steps, "component", "information", "threshold")
    drops = steps[steps["action"] == "drop"]
    tree_steps = steps[steps["action"].isin(["accept", "reject"])]
    assert (drops["information"] <= drops["threshold"]).all()
    assert (tree_steps["information"] > tree_steps["threshold"]).all()
    np.testing.assert_allclose(tree_steps["score"], tree_steps["information"] - tree_steps["threshold"], atol=1e-11)
    n_classes, n = engine.cardinality(class_name), engine.total
    for row in pd.concat([drops, tree_steps]).itertuples():
        u, v = row.item
        expected = gm.learners.fan_threshold(n_classes, engine.cardinality(u), engine.cardinality(v), n)
        assert row.threshold == pytest.approx(expected)
    # The components are those of the pairs kept, each edge inside its own component.
    kept = nx.Graph(list(tree_steps["item"]))
    kept.add_nodes_from(features)
    components = steps[steps["action"] == "component"]
    assert set(components["item"]) == {frozenset(c) for c in nx.connected_components(kept)}
    member = {v: c for c, item in zip(components["component"], components["item"]) for v in item}
    assert all(member[u] == member[v] == c for (u, v), c in zip(tree_steps["item"], tree_steps["component"]))
    assert list(drops.index) == list(range(len(drops))) and components.index.min() == len(drops)


def test_fan_with_equal_cardinalities_has_one_threshold_per_component():
    engine = _random_engine(3, cards=(3, 3, 3, 3, 3), n_rows=2000)
    _, steps = fan_structure(engine, "label", trace=True)
    components = steps[(steps["action"] == "component") & steps["item"].map(len).gt(1)]
    assert len(components) and components["threshold"].notna().all()
    expected = gm.learners.fan_threshold(3, 3, 3, engine.total)
    np.testing.assert_allclose(components["threshold"], expected)


# ----------------------------------------------------------------------------- KDB
@pytest.mark.parametrize(
    ("k", "threshold", "max_cells"), [(0, 0.0, None), (1, 0.0, None), (2, 0.01, None), (3, 0.0, 60)]
)
def test_kdb_replay(engine, k, threshold, max_cells):
    class_name = engine.names[-1]
    if max_cells is not None:
        engine.pairwise_counts(engine.names[:-1], given=class_name)  # counted (and cached) first
        engine.max_cells = max_cells  # then families of more than 60 cells are left out
    kwargs = dict(k=k, min_conditional_mutual_information=threshold)
    plain = kdb_structure(engine, class_name, **kwargs)
    structure, steps = kdb_structure(engine, class_name, trace=True, **kwargs)
    assert sorted(plain.edges(data=True)) == sorted(structure.edges(data=True))
    _check_columns(steps, "child", "rank")
    _, order, parents, again = kdb_ranking(engine, class_name, trace=True, **kwargs)
    pd.testing.assert_frame_equal(steps, again)
    assert steps.loc[steps["action"] == "order", "item"].tolist() == order
    accepted = steps[steps["action"] == "accept"]
    assert set(accepted["item"]) == _augmenting_arcs(structure)
    replayed = {name: [] for name in order}
    for parent, child in accepted["item"]:
        replayed[child].append(parent)
    assert replayed == parents
    for child, rows in steps[steps["action"].isin(["accept", "reject"])].groupby("child", sort=False):
        assert (rows["item"].map(lambda arc: arc[1]) == child).all()
        assert order.index(child) > max(order.index(parent) for parent, _ in rows["item"])
        # Candidates by decreasing information; the ones under the threshold last.
        above = rows[rows["score"] > threshold]
        assert np.all(np.diff(above["score"].to_numpy()) <= 0)
        assert (rows.loc[rows["score"] <= threshold, "action"] == "reject").all()


# ----------------------------------------------------------------------------- hyperforests
def _replay_incremental(steps):
    best = steps[steps["action"] == "best"]
    assert len(best) == 1
    run = best["run"].iloc[0]
    rows = steps[(steps["run"] == run) & steps["action"].isin(["add", "attach", "new tree"])]
    maximal = []
    for row in rows.itertuples():
        if row.action == "attach":
            assert row.base < row.item and len(row.item - row.base) == 1
        maximal = [h for h in maximal if not row.item >= h] + [row.item]
    # The winner: the first run heavier than every earlier one by more than float noise (1e-12).
    winner, weight = None, -np.inf
    for row in steps[steps["action"] == "run"].itertuples():
        if row.score > weight + 1e-12:
            winner, weight = row.run, row.score
    assert (run, best["score"].iloc[0]) == (winner, weight)
    return maximal


def _replay_global(steps, nodes):
    forest = Hyperforest([], nodes)
    for row in steps.itertuples():
        if row.action == "accept":
            assert row.item not in forest and forest.would_remain_acyclic(row.item) and row.gain > 0
            forest.add(row.item)
        elif row.action == "reject":
            if row.reason.startswith("already"):
                assert row.item in forest
            elif row.reason == "no positive gain":
                assert row.gain <= 1e-12
            else:
                assert not forest.would_remain_acyclic(row.item)
    scores = steps.loc[steps["action"].isin(["accept", "reject"]), "score"].to_numpy()
    assert np.all(np.diff(scores) <= 0)
    return forest.maximal_hyperedges


@pytest.mark.parametrize("algorithm", ["incremental", "global"])
@pytest.mark.parametrize(("k", "criterion"), [(1, "ml"), (2, "mdl"), (3, "ml")])
@pytest.mark.parametrize("name", ["car", "random-0", "random-1"])
def test_max_hyperforest_replay(name, algorithm, k, criterion):
    engine = ENGINES[name]()
    weights = hyperedge_weights(engine, k=k, score=criterion)
    plain = max_hyperforest(weights, k, algorithm=algorithm, n_starts=20)
    forest, steps = max_hyperforest(weights, k, algorithm=algorithm, n_starts=20, trace=True)
    assert plain == forest
    _check_columns(steps, "run", "base", "gain")
    maximal = _replay_incremental(steps) if algorithm == "incremental" else _replay_global(steps, engine.names)
    assert set(maximal) == set(forest.maximal_hyperedges)
    if algorithm == "incremental":
        assert steps.loc[steps["action"] == "run", "run"].tolist() == list(range(21))


def test_max_hyperforest_trivial_trace_is_empty():
    forest, steps = max_hyperforest({("a", "b"): 1.0}, 0, trace=True)
    assert len(steps) == 0 and list(steps.columns[:5]) == list(BASE_COLUMNS)


# ----------------------------------------------------------------------------- CVM regions
def _random_regions(rng, n_variables, n_regions, largest):
    names = [f"v{i}" for i in range(n_variables)]
    return [tuple(rng.choice(names, size=rng.integers(1, largest + 1), replace=False)) for _ in range(n_regions)]


@pytest.mark.parametrize("seed", range(8))
def test_cluster_variation_regions_replay(seed):
    rng = np.random.default_rng(seed)
    initial = _random_regions(rng, 7, 6, 4)
    plain = cluster_variation_regions(initial)
    graph, steps = cluster_variation_regions(initial, trace=True)
    assert nx.utils.graphs_equal(plain, graph) and dict(plain.nodes(data=True)) == dict(graph.nodes(data=True))
    _check_columns(steps, "level", "counting_number", "meet_of")
    accepted = steps[steps["action"] == "accept"]
    assert dict(zip(accepted["item"], accepted["counting_number"])) == dict(graph.nodes(data="counting_number"))
    assert (steps.loc[steps["action"] == "reject", "counting_number"] == 0).all()
    # Level 0 holds the initial regions; each intersection comes from a region one level up and an initial one.
    initial_rows = steps[steps["action"] == "initial"]
    assert set(initial_rows["item"]) == {
        r for r in map(frozenset, initial) if not any(r < frozenset(o) for o in initial)
    }
    level = dict(zip(initial_rows["item"], initial_rows["level"]))
    for row in steps[steps["action"] == "intersection"].itertuples():
        first, second = row.meet_of
        assert row.item == first & second and second in set(initial_rows["item"])
        assert level[first] == row.level - 1 and row.item not in level
        level[row.item] = row.level
    assert set(level) == set(steps.loc[steps["action"].isin(["accept", "reject"]), "item"])
    # Counting numbers from the largest regions down, each 1 - the sum over its supersets.
    counted = steps[steps["action"].isin(["accept", "reject"])]
    assert np.all(np.diff(counted["item"].map(len).to_numpy()) <= 0)
    numbers = dict(zip(counted["item"], counted["counting_number"]))
    for region, c in numbers.items():
        assert c == 1 - sum(other_c for other, other_c in numbers.items() if region < other)


# ----------------------------------------------------------------------------- Kikuchi-Bayes
@pytest.mark.parametrize("name", ["car", "tic-tac-toe", "random-0"])
def test_kikuchi_bayes_path_replay(name):
    engine = ENGINES[name]()
    if name == "tic-tac-toe":
        engine = _engine("tic-tac-toe", max_rows=400)
    kwargs = dict(max_region_size=3)
    plain = kikuchi_bayes_path(engine, **kwargs)
    path, steps = kikuchi_bayes_path(engine, trace=True, **kwargs)
    assert [(p["region"], p["log_posterior"]) for p in plain] == [(p["region"], p["log_posterior"]) for p in path]
    _check_columns(steps, "phase", "size", "stage", "df", "log_prior", "log_likelihood")
    stages = steps[steps["action"].isin(["start", "accept"])]
    assert stages["stage"].tolist() == list(range(len(path)))
    assert stages["item"].tolist() == [p["region"] for p in path]
    np.testing.assert_array_equal(stages["score"], [p["log_posterior"] for p in path])
    map_row = steps.iloc[-1]
    assert map_row["action"] == "map"
    best = int(np.argmax([p["log_posterior"] for p in path]))
    assert map_row["stage"] == best
    # The MAP model is Algorithm 1 run on the regions accepted up to its stage.
    regions = stages["item"].iloc[: best + 1].tolist()
    graph = cluster_variation_regions(regions)
    assert dict(graph.nodes(data="counting_number")) == path[best]["counting_numbers"]
    # A rejected region is no better than the stage it failed to improve on.
    for index in steps.index[(steps["action"] == "reject") & steps["item"].notna()]:
        row, stage = steps.loc[index], stages[stages.index < index].iloc[-1]
        if row["phase"] == "ascent":
            assert row["score"] <= stage["score"] + 1e-6 * max(1.0, abs(stage["score"]))


def test_kikuchi_bayes_path_max_steps_stops():
    engine = _engine("car")
    path, steps = kikuchi_bayes_path(engine, max_region_size=3, max_steps=2, trace=True)
    assert len(path) == 3
    assert steps["action"].tolist()[-2:] == ["stop", "map"]


# ----------------------------------------------------------------------------- hierarchical NB
def _replay_collapses(rows, configurations):
    """Groups of configurations after the ``"collapse"`` steps, starting from the ``"initial"`` ones."""
    groups = [(c,) for c in rows.loc[rows["action"] == "initial", "item"]]
    for first, second in rows.loc[rows["action"] == "collapse", "item"]:
        groups.remove(first)
        groups.remove(second)
        groups.append(first + second)
    state_of = {}
    order = {c: i for i, c in enumerate(configurations)}
    for s, group in enumerate(sorted(groups, key=lambda g: min(order[c] for c in g))):
        state_of.update(dict.fromkeys(group, s))
    return state_of


@pytest.mark.parametrize("seed", range(4))
def test_collapse_states_replay(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, size=(9, 3)) * rng.integers(0, 2, size=(9, 1))
    counts[:, 0] += 10 * (np.arange(9) % 2)
    plain = collapse_states(counts, counts.sum())
    state_of, steps = collapse_states(counts, counts.sum(), trace=True)
    np.testing.assert_array_equal(plain, state_of)
    _check_columns(steps)
    replayed = _replay_collapses(steps, list(range(9)))
    assert [replayed.get(i, -1) for i in range(9)] == state_of.tolist()
    assert (steps.loc[steps["action"] == "collapse", "score"] > 0).all()
    assert steps["action"].iloc[-1] == "stop" and not steps["score"].iloc[-1] > 0


def _hnb_frame(seed, n_rows=400):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, size=(n_rows, 5)), columns=list("abcde"))
    y = np.where((X["a"] == X["b"]) ^ (X["c"] > 1), "one", "two")
    return X, y


@pytest.mark.parametrize("seed", range(3))
def test_hierarchical_naive_bayes_replay(seed):
    X, y = _hnb_frame(seed)
    engine = training_counts(X, y).engine
    latents, history = hierarchical_naive_bayes_search(engine, random_state=seed)
    again, _, steps = hierarchical_naive_bayes_search(engine, random_state=seed, trace=True)
    assert [(v.name, v.children, v.state_of.tolist()) for v in latents] == [
        (v.name, v.children, v.state_of.tolist()) for v in again
    ]
    _check_columns(steps, "latent", "significance", "cardinality")
    cards = {name: int(engine.cardinality(name)) for name in engine.names}
    accepted = steps[steps["action"] == "accept"]
    assert len(accepted) == len(latents)
    for row, latent in zip(accepted.itertuples(), latents):
        assert (row.latent, row.item, row.cardinality) == (latent.name, latent.children, latent.cardinality)
        configurations = list(itertools.product(*(range(cards[c]) for c in row.item)))
        state_of = _replay_collapses(steps[steps["latent"] == row.latent], configurations)
        table = np.array([state_of.get(c, -1) for c in configurations]).reshape(latent.state_of.shape)
        np.testing.assert_array_equal(table, latent.state_of)
        cards[latent.name] = latent.cardinality
    # Each round tests its pairs, then accepts the best or stops.
    assert steps["action"].iloc[0] == "start"
    assert steps["action"].iloc[-1] in ("reject", "stop")
    scores = [history[0]["score"], *[h["score"] for h in history[1:]]]
    assert accepted["score"].tolist() == scores[1:]


# ----------------------------------------------------------------------------- multi-dimensional
def _multidimensional_engine(seed):
    from graphmodels.networks import random_multidimensional_network

    network, _ = random_multidimensional_network(3, 6, random_state=seed)
    data = network.sample(600, random_state=seed + 1)
    classes = [c for c in data.columns if c.startswith("C")]
    features = [c for c in data.columns if c.startswith("A")]
    return training_counts(data).engine, classes, features


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("feature_subgraph", ["empty", "forest"])
@pytest.mark.parametrize("class_subgraph", ["empty", "forest"])
def test_multidimensional_replay(seed, class_subgraph, feature_subgraph):
    engine, classes, features = _multidimensional_engine(seed)
    kwargs = dict(class_subgraph=class_subgraph, feature_subgraph=feature_subgraph, criterion="bic")
    plain = multidimensional_structure(engine, classes, features, **kwargs)
    structure, steps = multidimensional_structure(engine, classes, features, trace=True, **kwargs)
    assert sorted(plain.edges(data=True)) == sorted(structure.edges(data=True))
    _check_columns(steps, "part")
    assert list(steps.columns[:2]) == ["step", "part"]
    arcs = set()
    class_steps = steps[steps["part"] == "class"]
    if class_subgraph == "forest":
        _check_kruskal_order(class_steps)
        arcs |= _orient(_replay_spanning(class_steps, classes), class_steps)
    bridge = steps[steps["part"] == "bridge"]
    assert bridge["item"].tolist() == features
    arcs |= {(c, f) for f, parents in zip(bridge["item"], bridge["parents"]) for c in parents}
    feature_steps = steps[steps["part"] == "feature"]
    arcs |= set(feature_steps.loc[feature_steps["action"] == "accept", "item"])
    assert arcs == set(structure.edges)
    assert np.all(np.diff(feature_steps["score"].to_numpy()) <= 0)


def test_multidimensional_parts_alone():
    engine, classes, features = _multidimensional_engine(0)
    arcs, steps = class_forest(engine, classes, trace=True)
    assert arcs == class_forest(engine, classes)
    assert _orient(_replay_spanning(steps, classes), steps) == {(u, v) for u, v, _ in arcs}
    chosen, steps = bridge_parent_sets(engine, classes, features, trace=True)
    assert chosen == bridge_parent_sets(engine, classes, features)
    assert dict(zip(steps["item"], steps["parents"])) == {f: chosen[f][0] for f in features}
    bridge, arcs, steps = bridge_and_feature_forest(engine, classes, features, trace=True)
    assert (bridge, arcs) == bridge_and_feature_forest(engine, classes, features)
    arc_steps = steps.iloc[: len(steps) - len(features)]
    assert set(arc_steps.loc[arc_steps["action"] == "accept", "item"]) == {(u, v) for u, v, _ in arcs}
    assert dict(zip(steps["item"].iloc[-len(features) :], steps["parents"].iloc[-len(features) :])) == {
        f: bridge[f][0] for f in features
    }


# ----------------------------------------------------------------------------- the flag
@pytest.mark.parametrize(
    "call",
    [
        lambda t: chow_liu_tree(_four_variables(), trace=t),
        lambda t: tan_structure(_four_variables(), "d", trace=t),
        lambda t: kdb_structure(_four_variables(), "d", trace=t),
        lambda t: max_hyperforest({("a", "b"): 1.0}, 1, trace=t),
        lambda t: cluster_variation_regions([("a", "b")], trace=t),
        lambda t: collapse_states([[1, 0]], 1, trace=t),
    ],
)
def test_trace_must_be_a_bool(call):
    with pytest.raises(TypeError, match="`trace` must be True or False"):
        call("yes")


# ----------------------------------------------------------------------------- models
def _car(n_rows=None):
    X, y = gm.datasets.load("car", return_X_y=True)
    return (X, y) if n_rows is None else (X.iloc[:n_rows], y.iloc[:n_rows])


def _fit_both(model, X, y=None):
    """The model fitted with and without a trace; their predictions must agree exactly."""
    plain = gm.models.clone_model(model).fit(X, y) if y is not None else gm.models.clone_model(model).fit(X)
    traced = model.set_params(trace=True)
    traced = traced.fit(X, y) if y is not None else traced.fit(X)
    if hasattr(plain, "predict_proba"):
        np.testing.assert_array_equal(plain.predict_proba(X), traced.predict_proba(X))
    else:
        np.testing.assert_array_equal(plain.score_samples(X), traced.score_samples(X))
    assert "trace_" not in vars(plain)
    _check_columns(traced.trace_)
    return traced


@pytest.mark.parametrize("algorithm", ["kruskal", "prim"])
@pytest.mark.parametrize("cls", [gm.TAN, gm.FAN], ids=["tan", "fan"])
def test_tan_fan_models_replay(cls, algorithm):
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    model = _fit_both(cls(algorithm=algorithm), X, y)
    forest = _replay_spanning(model.trace_, list(X.columns))
    assert _orient(forest, model.trace_) == _augmenting_arcs(model.structure_)


@pytest.mark.parametrize("criterion", ["ml", "mdl"])
def test_chow_liu_classifier_replay(criterion):
    X, y = _car()
    model = _fit_both(gm.ChowLiu(criterion=criterion, representation="free"), X, y)
    assert list(model.trace_.columns[:2]) == ["step", "class"]
    for label, tree in zip(model.classes_, model.structures_):
        steps = model.trace_[model.trace_["class"] == label]
        assert set(_orient(_replay_spanning(steps, list(X.columns)), steps)) == set(tree.edges)


def test_chow_liu_tree_density_replay():
    X, _ = _car()
    model = _fit_both(gm.ChowLiuTree(), X)
    forest = _replay_spanning(model.trace_, list(X.columns))
    assert _orient(forest, model.trace_) == set(model.structure_.edges)
    roots = model.trace_[model.trace_["action"] == "root"]
    assert roots["item"].tolist() == [n for n, r in model.structure_.nodes(data="root") if r]


@pytest.mark.parametrize("k", [1, 2])
def test_kdb_model_replay(k):
    X, y = _car()
    model = _fit_both(gm.KDB(k=k), X, y)
    assert set(model.trace_.loc[model.trace_["action"] == "accept", "item"]) == _augmenting_arcs(model.structure_)


def test_selective_kdb_replay():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    model = _fit_both(gm.SelectiveKDB(max_k=3), X, y)
    steps = model.trace_
    (k, n_attributes) = steps["item"].iloc[-1]
    assert steps["action"].iloc[-1] == "select" and (k, n_attributes) == (model.k_, int(model.support_.sum()))
    order = steps.loc[steps["action"] == "order", "item"].tolist()
    kept = set(order[:n_attributes])
    arcs = set()
    for child, rows in steps[steps["action"] == "accept"].groupby("child", sort=False):
        if child in kept:
            arcs |= {arc for arc in rows["item"].iloc[:k] if arc[0] in kept}
    assert arcs == _augmenting_arcs(model.structure_)
    assert set(model.structure_) - {model.class_name_} == kept


@pytest.mark.parametrize("representation", ["joint", "shared", "free"])
@pytest.mark.parametrize("algorithm", ["incremental", "global"])
def test_hyperforest_classifier_replay(representation, algorithm):
    X, y = _car()
    model = _fit_both(gm.HyperforestClassifier(representation=representation, algorithm=algorithm, n_starts=10), X, y)
    names = list(X.columns) + ([model.class_name_] if representation == "joint" else [])

    def replay(steps):
        return _replay_incremental(steps) if algorithm == "incremental" else _replay_global(steps, names)

    if representation == "free":
        for label, forest in zip(model.classes_, model.structures_):
            steps = model.trace_[model.trace_["class"] == label]
            assert set(replay(steps)) == set(forest.maximal_hyperedges)
    else:
        assert set(replay(model.trace_)) == set(model.structure_.maximal_hyperedges)


def test_hyperforest_density_replay():
    X, _ = _car()
    model = _fit_both(gm.HyperforestDensity(treewidth=2, n_starts=10), X)
    assert set(_replay_incremental(model.trace_)) == set(model.structure_.maximal_hyperedges)


@pytest.mark.parametrize("averaging", [True, False])
def test_kikuchi_bayes_model_replay(averaging):
    X, y = _car()
    model = _fit_both(gm.KikuchiBayes(max_region_size=3, averaging=averaging), X, y)
    steps = model.trace_
    search, regions = steps[steps["part"] == "search"], steps[steps["part"] == "regions"]
    assert search.index.max() < regions.index.min()
    stages = search[search["action"].isin(["start", "accept"])]
    assert stages["item"].tolist() == [frozenset(region) for region in model.path_["region"]]
    np.testing.assert_array_equal(stages["score"], model.path_["log_posterior"])
    assert search["stage"].iloc[-1] == model.map_step_
    accepted = regions[regions["action"] == "accept"]
    assert dict(zip(accepted["item"], accepted["counting_number"])) == dict(
        model.structure_.nodes(data="counting_number")
    )


def test_hierarchical_naive_bayes_model_replay():
    X, y = _hnb_frame(0)
    model = _fit_both(gm.HierarchicalNaiveBayes(random_state=0), X, y)
    accepted = model.trace_[model.trace_["action"] == "accept"]
    assert [(row.latent, row.item) for row in accepted.itertuples()] == [
        (name, tuple(children)) for name, children, _ in model.latent_definitions_
    ]
    cards = dict(zip(model.encoder_.columns_, model.encoder_.cardinalities_))
    for (name, children, table), row in zip(model.latent_definitions_, accepted.itertuples()):
        configurations = list(itertools.product(*(range(cards[c]) for c in children)))
        state_of = _replay_collapses(model.trace_[model.trace_["latent"] == name], configurations)
        np.testing.assert_array_equal([state_of.get(c, -1) for c in configurations], np.ravel(table))
        cards[name] = row.cardinality


@pytest.mark.parametrize(
    "cls", [gm.models.MultiDimensionalNaiveBayes, gm.models.MultiDimensionalTAN, gm.models.MultiDimensionalAODE]
)
def test_multidimensional_models_replay(cls):
    from graphmodels.networks import random_multidimensional_network

    network, _ = random_multidimensional_network(3, 6, random_state=0)
    data = network.sample(600, random_state=1)
    X, Y = data.filter(like="A"), data.filter(like="C")
    plain = cls().fit(X, Y)
    model = cls(trace=True).fit(X, Y)
    for a, b in zip(plain.predict_proba(X), model.predict_proba(X)):
        np.testing.assert_array_equal(a, b)
    steps = model.trace_
    arcs = set()
    class_steps = steps[steps["part"] == "class"]
    if len(class_steps):
        arcs |= _orient(_replay_spanning(class_steps, list(Y.columns)), class_steps)
    bridge = steps[steps["part"] == "bridge"]
    arcs |= {(c, f) for f, parents in zip(bridge["item"], bridge["parents"]) for c in parents}
    feature_steps = steps[steps["part"] == "feature"]
    arcs |= set(feature_steps.loc[feature_steps["action"] == "accept", "item"])
    assert arcs == set(model.structure_.edges)


def test_traced_prim_accepts_networkx_edges_and_rejects_only_cycle_closers():
    """Prim written out for tracing accepts exactly networkx's edges (ties included); each
    rejected edge's ends are already joined by the tree, along the recorded cycle."""
    import itertools

    from graphmodels._trace import Trace
    from graphmodels.learners.trees import _traced_prim

    rng = np.random.default_rng(1)
    for _ in range(100):
        names = [f"v{i}" for i in range(int(rng.integers(2, 10)))]
        graph = nx.Graph()
        graph.add_nodes_from(names)
        for a, b in itertools.combinations(names, 2):
            if rng.random() < 0.7:
                graph.add_edge(a, b, weight=float(rng.integers(0, 4)))  # many ties
        expected = [(u, v) for u, v, _ in nx.maximum_spanning_edges(graph, algorithm="prim", data=True)]
        record = Trace()
        edges = _traced_prim(graph, "weight", record, {})
        assert [(u, v) for u, v, _ in edges] == expected
        frame = record.frame()
        tree = nx.Graph()
        tree.add_edges_from(expected)
        for _, row in frame[frame["action"] == "reject"].iterrows():
            u, v = row["item"]
            assert tuple(nx.shortest_path(tree, u, v)) == row["cycle"]
            assert row["score"] == graph.edges[u, v]["weight"]
