"""Multi-dimensional Bayesian network classifiers: structures, scores, learners, junction-tree
inference and the three models, checked against hand computations and brute force."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from graphmodels.inference import brute_force_log_marginals, junction_tree_of_scopes, log_marginals
from graphmodels.learners.multidimensional import (
    bridge_and_feature_forest,
    bridge_parent_sets,
    class_forest,
)
from graphmodels.models.multidimensional import (
    MultiDimensionalAODE,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
)
from graphmodels.networks import random_multidimensional_network
from graphmodels.stats import CountingEngine
from graphmodels.stats.scores import bdeu_family_score, bic_family_score, family_score
from graphmodels.structures.multidimensional import (
    bridge_subgraph,
    class_subgraph,
    feature_subgraph,
    is_multidimensional_classifier,
    multidimensional_classifier,
)

MODELS = [MultiDimensionalNaiveBayes, MultiDimensionalTAN, MultiDimensionalAODE]


# --------------------------------------------------------------- structures
def test_structure_kinds_and_subgraphs():
    g = multidimensional_classifier(
        ["C1", "C2"], ["a", "b", "c"], [("C1", "C2"), ("C1", "a"), ("C2", "b"), ("a", "b")], cardinalities={"a": 3}
    )
    assert is_multidimensional_classifier(g)
    assert g.nodes["a"]["cardinality"] == 3 and g.nodes["C1"]["role"] == "class"
    assert list(class_subgraph(g).edges()) == [("C1", "C2")]
    assert sorted(bridge_subgraph(g).edges()) == [("C1", "a"), ("C2", "b")]
    assert list(feature_subgraph(g).edges()) == [("a", "b")]
    assert set(feature_subgraph(g).nodes) == {"a", "b", "c"}


def test_structure_rejects_feature_to_class_cycles_and_repeats():
    with pytest.raises(ValueError, match="no arc from a feature into a class"):
        multidimensional_classifier(["C"], ["a"], [("a", "C")])
    with pytest.raises(ValueError, match="cycle"):
        multidimensional_classifier(["C"], ["a", "b"], [("a", "b"), ("b", "a")])
    with pytest.raises(ValueError, match="unique"):
        multidimensional_classifier(["x"], ["x"])
    with pytest.raises(ValueError, match="neither a class nor a feature"):
        multidimensional_classifier(["C"], ["a"], [("C", "z")])
    g = nx.DiGraph([("a", "C")])
    nx.set_node_attributes(g, {"a": "feature", "C": "class"}, "role")
    assert not is_multidimensional_classifier(g)


# ------------------------------------------------------------------- scores
def test_aic_by_hand():
    counts = np.array([[3.0, 1.0], [0.0, 4.0]])
    assert np.isclose(family_score(counts, "aic"), 3 * np.log(3 / 4) + np.log(1 / 4) - 2)


def test_bic_by_hand():
    counts = np.array([[3.0, 1.0], [0.0, 4.0]])
    expected = 3 * np.log(3 / 4) + np.log(1 / 4) - np.log(8) / 2 * 2 * 1
    assert np.isclose(bic_family_score(counts), expected)
    assert np.isclose(family_score(counts, "bic"), expected)


def test_bdeu_equals_sequential_predictive_probability():
    # The BDeu marginal likelihood is the product of the Dirichlet predictive
    # probabilities of the rows in any order (Heckerman et al. 1995, eq. 28).
    rng = np.random.default_rng(0)
    parents = rng.integers(0, 3, 40)
    child = rng.integers(0, 2, 40)
    ess, q, r = 2.5, 3, 2
    counts = np.zeros((q, r))
    log_p = 0.0
    for pa, x in zip(parents, child):
        alpha = ess / (q * r)
        log_p += np.log((counts[pa, x] + alpha) / (counts[pa].sum() + ess / q))
        counts[pa, x] += 1
    assert np.isclose(bdeu_family_score(counts, equivalent_sample_size=ess), log_p)


@pytest.mark.parametrize("criterion", ["bic", "bdeu"])
def test_scores_are_score_equivalent(criterion):
    rng = np.random.default_rng(1)
    joint = rng.integers(0, 9, size=(3, 4)).astype(float)
    n = joint.sum()

    def gain(table):
        return family_score(table, criterion, sample_size=n) - family_score(
            table.sum(axis=0)[None], criterion, sample_size=n
        )

    assert np.isclose(gain(joint), gain(joint.T))


def test_unknown_criterion():
    with pytest.raises(ValueError, match="criterion"):
        family_score([[1, 2]], "bdue")


# ------------------------------------------------------------------ learners
def _engine(data):
    cards = [int(data[c].astype(int).max()) + 1 for c in data.columns]
    return CountingEngine(data.astype(int).to_numpy(), cards, names=list(data.columns))


def _sample(seed, n_classes=3, n_features=5, n=3000, feature_arcs=False):
    network, truth = random_multidimensional_network(
        n_classes, n_features, feature_arcs=feature_arcs, random_state=seed
    )
    return network.sample(n, random_state=seed + 100), truth


@pytest.mark.parametrize("criterion", ["bic", "aic", "bdeu"])
@pytest.mark.parametrize("seed", [0, 1])
def test_bridge_parent_sets_are_the_exhaustive_argmax(criterion, seed):
    data, _ = _sample(seed, n=400)
    engine = _engine(data)
    classes, features = [c for c in data if c.startswith("C")], [c for c in data if c.startswith("A")]
    bridge = bridge_parent_sets(engine, classes, features, max_parents=2, criterion=criterion)
    for f in features:
        scores = {}
        for k in range(3):
            for parents in itertools.combinations(classes, k):
                table = engine.counts(list(parents) + [f]).reshape(-1, engine.cardinality(f))
                scores[parents] = float(family_score(table, criterion, sample_size=engine.total))
        best = max(scores.values())
        assert np.isclose(scores[bridge[f][0]], best)
        assert np.isclose(bridge[f][1], best - scores[()])


def _total_score(engine, features, class_sets, feature_parent, criterion):
    total = 0.0
    for f in features:
        family = list(class_sets[f]) + ([feature_parent[f]] if feature_parent[f] else []) + [f]
        table = engine.counts(family).reshape(-1, engine.cardinality(f))
        total += float(family_score(table, criterion, sample_size=engine.total))
    return total


@pytest.mark.parametrize("criterion", ["bic", "aic", "bdeu"])
def test_bridge_and_feature_forest_is_the_best_over_every_forest(criterion):
    data, _ = _sample(3, n_classes=3, n_features=4, n=600, feature_arcs=True)
    engine = _engine(data)
    classes, features = [c for c in data if c.startswith("C")], [c for c in data if c.startswith("A")]
    bridge, arcs = bridge_and_feature_forest(engine, classes, features, max_parents=1, criterion=criterion)
    parent_of = {f: None for f in features}
    for u, v, _ in arcs:
        parent_of[v] = u
    ours = _total_score(engine, features, {f: bridge[f][0] for f in features}, parent_of, criterion)
    candidate_sets = [()] + [(c,) for c in classes]
    best = -np.inf
    for choice in itertools.product([None] + features, repeat=len(features)):
        assignment = dict(zip(features, choice))
        if any(assignment[f] == f for f in features):
            continue
        graph = nx.DiGraph([(p, f) for f, p in assignment.items() if p])
        if graph.number_of_nodes() and not nx.is_directed_acyclic_graph(graph):
            continue
        total = 0.0
        for f in features:
            total += max(_total_score(engine, [f], {f: s}, {f: assignment[f]}, criterion) for s in candidate_sets)
        best = max(best, total)
    assert np.isclose(ours, best)


def test_class_forest_is_the_best_spanning_forest():
    data, _ = _sample(5, n_classes=4, n_features=1, n=500)
    engine = _engine(data)
    classes = [c for c in data if c.startswith("C")]
    arcs = class_forest(engine, classes, criterion="bic")

    def score(edges):
        parent = {c: None for c in classes}
        graph = nx.Graph(list(edges))
        graph.add_nodes_from(classes)
        directed = nx.DiGraph()
        for component in nx.connected_components(graph):
            root = sorted(component)[0]
            directed.add_edges_from(nx.bfs_edges(graph, root))
        for u, v in directed.edges:
            parent[v] = u
        return sum(
            float(
                family_score(
                    engine.counts(([parent[c]] if parent[c] else []) + [c]).reshape(-1, 2),
                    "bic",
                    sample_size=engine.total,
                )
            )
            for c in classes
        )

    pairs = list(itertools.combinations(classes, 2))
    best = max(
        score(edges)
        for k in range(len(classes))
        for edges in itertools.combinations(pairs, k)
        if not edges or nx.is_forest(nx.Graph(list(edges)))
    )
    assert np.isclose(score([(u, v) for u, v, _ in arcs]), best)


# ------------------------------------------------------------ junction tree
@pytest.mark.parametrize("seed", range(25))
def test_junction_tree_marginals_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_vars = int(rng.integers(1, 7))
    cards = rng.integers(2, 4, n_vars)
    factors = []
    for _ in range(int(rng.integers(1, 9))):
        scope = tuple(rng.choice(n_vars, int(rng.integers(0, min(3, n_vars) + 1)), replace=False).tolist())
        rows = 7 if rng.random() < 0.7 else 1
        table = rng.normal(size=(rows,) + tuple(int(cards[v]) for v in scope))
        if rng.random() < 0.2:
            table[table < -1] = -np.inf  # zeros
        factors.append((scope, table))
    ours, log_z = log_marginals(factors, cards, 7)
    expected, expected_z = brute_force_log_marginals(factors, cards, 7)
    assert np.allclose(log_z, expected_z)
    for a, b in zip(ours, expected):
        assert np.allclose(a, b)


def test_junction_tree_has_the_running_intersection_property():
    rng = np.random.default_rng(2)
    scopes = [tuple(rng.choice(8, 3, replace=False)) for _ in range(8)]
    tree = junction_tree_of_scopes(scopes, 8)
    assert nx.is_tree(tree)
    for scope in scopes:
        assert any(set(scope) <= bag for bag in tree.nodes)
    for v in range(8):
        holding = [bag for bag in tree.nodes if v in bag]
        assert nx.is_connected(tree.subgraph(holding))


def test_junction_tree_refuses_huge_cliques():
    scopes = [tuple(range(10))]
    factors = [(scopes[0], np.zeros((1,) + (4,) * 10))]
    with pytest.raises(ValueError, match="max_cells"):
        log_marginals(factors, [4] * 10, 1, max_cells=1000)


# -------------------------------------------------------------------- models
def _brute_force_posteriors(model, X):
    """Each label's posterior by enumerating every label vector (and every value of unseen cells)."""
    codes = model._encode_new(X)
    class_cards = [len(c) for c in model.classes_]
    feature_cards = list(model.encoder_.cardinalities_)
    n, m = codes.shape[0], len(class_cards)
    members = []
    for parents, tables in zip(model.class_parents_, model.class_log_tables_):
        joint = np.full((n,) + tuple(class_cards), -np.inf)
        for row in range(n):
            hidden = np.flatnonzero(codes[row] < 0)
            for labels in itertools.product(*[range(r) for r in class_cards]):
                terms = []
                for values in itertools.product(*[range(feature_cards[i]) for i in hidden]):
                    x = codes[row].copy()
                    x[hidden] = values
                    total = sum(
                        t[tuple(labels[p] for p in pa) + (labels[j],)] for j, (pa, t) in enumerate(zip(parents, tables))
                    )
                    for i, (pa, t) in enumerate(zip(model.feature_class_parents_, model.feature_log_tables_)):
                        index = tuple(labels[p] for p in pa)
                        if model.feature_parents_[i] >= 0:
                            index += (x[model.feature_parents_[i]],)
                        total += t[index + (x[i],)]
                    terms.append(total)
                joint[(row,) + labels] = logsumexp(terms)
        members.append(joint)
    out = []
    for j in range(m):
        others = tuple(k + 1 for k in range(m) if k != j)
        per_member = np.stack([logsumexp(joint, axis=others) if others else joint for joint in members])
        if getattr(model, "pooling", "linear") == "linear":
            pooled = logsumexp(per_member, axis=0)
        else:
            pooled = (per_member - logsumexp(per_member, axis=2, keepdims=True)).mean(axis=0)
        out.append(np.exp(pooled - logsumexp(pooled, axis=1, keepdims=True)))
    return out


@pytest.mark.parametrize(
    "model",
    [
        *[cls() for cls in MODELS],
        MultiDimensionalAODE(pooling="logarithmic"),
        MultiDimensionalNaiveBayes(max_parents=4, criterion="bdeu"),
    ],
)
@pytest.mark.parametrize("n_classes", [2, 4])
def test_marginal_posteriors_equal_brute_force_enumeration(model, n_classes):
    data, _ = _sample(7, n_classes=n_classes, n_features=5, n=800, feature_arcs=True)
    X, Y = data.filter(like="A"), data.filter(like="C")
    model.fit(X, Y)
    test = X.head(25).copy()
    test.iloc[0, 1] = "unseen"  # summed out
    test.iloc[1, :2] = "unseen"
    test.iloc[2, :] = "unseen"
    ours = model.predict_proba(test)
    expected = _brute_force_posteriors(model, test)
    for a, b in zip(ours, expected):
        assert np.allclose(a, b, atol=1e-10)
        assert np.allclose(a.sum(axis=1), 1.0)
    predicted = model.predict(test)
    for j, proba in enumerate(ours):
        assert (predicted[:, j] == model.classes_[j][np.argmax(proba, axis=1)]).all()


def test_six_labels_with_complete_bridge_equal_brute_force():
    data, _ = _sample(11, n_classes=6, n_features=4, n=600)
    X, Y = data.filter(like="A"), data.filter(like="C")
    model = MultiDimensionalAODE(max_parents=3).fit(X, Y)
    for a, b in zip(model.predict_proba(X.head(6)), _brute_force_posteriors(model, X.head(6))):
        assert np.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_recovers_the_class_and_bridge_subgraphs_of_a_known_mdbnc(seed):
    data, truth = _sample(seed, n_classes=4, n_features=10, n=20000)
    X, Y = data.filter(like="A"), data.filter(like="C")
    tan = MultiDimensionalTAN().fit(X, Y)
    nb = MultiDimensionalNaiveBayes().fit(X, Y)
    assert set(bridge_subgraph(nb.structure_).edges) == set(bridge_subgraph(truth).edges)
    assert set(bridge_subgraph(tan.structure_).edges) == set(bridge_subgraph(truth).edges)
    skeleton = {frozenset(e) for e in class_subgraph(tan.structure_).edges}
    assert skeleton == {frozenset(e) for e in class_subgraph(truth).edges}
    assert not class_subgraph(nb.structure_).edges and not feature_subgraph(tan.structure_).edges


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_tan_recovers_feature_arcs_with_the_bridge(seed):
    data, truth = _sample(seed, n_classes=4, n_features=12, n=20000, feature_arcs=True)
    model = MultiDimensionalTAN(criterion="bdeu").fit(data.filter(like="A"), data.filter(like="C"))
    assert set(bridge_subgraph(model.structure_).edges) == set(bridge_subgraph(truth).edges)
    assert set(feature_subgraph(model.structure_).edges) == set(feature_subgraph(truth).edges)


def test_aode_members_are_superparent_stars_sharing_the_bridge():
    data, _ = _sample(4, n_classes=3, n_features=6, n=500)
    model = MultiDimensionalAODE().fit(data.filter(like="A"), data.filter(like="C"))
    assert len(model.member_structures_) == 3
    for k, member in zip(model.label_names_, model.member_structures_):
        assert sorted(class_subgraph(member).edges) == sorted((k, c) for c in model.label_names_ if c != k)
        assert set(bridge_subgraph(member).edges) == set(bridge_subgraph(model.structure_).edges)
        assert is_multidimensional_classifier(member)


@pytest.mark.parametrize("cls", MODELS)
def test_odd_names_and_integer_looking_labels_round_trip(cls):
    rng = np.random.default_rng(3)
    n = 300
    a = rng.integers(0, 3, n)
    X = pd.DataFrame(
        {"# a": a.astype(str), "b c": rng.integers(0, 2, n).astype(str), "é": (a + rng.integers(0, 2, n)).astype(str)}
    )
    Y = pd.DataFrame({"y 1": np.where(a > 0, "10", "2"), "#y2": np.where(rng.random(n) < 0.5, "1", "10")})
    model = cls().fit(X, Y)
    assert model.label_names_ == ["y 1", "#y2"]
    assert [c.tolist() for c in model.classes_] == [["10", "2"], ["1", "10"]]
    predicted = model.predict(X)
    assert predicted.shape == (n, 2) and set(predicted[:, 0]) <= {"10", "2"}
    proba = model.predict_proba(X)
    assert proba[0].shape == (n, 2)
    # Column order = classes_ order: the "10" column is high where a > 0.
    assert proba[0][a > 0, 0].mean() > 0.8


@pytest.mark.parametrize("cls", MODELS)
def test_bad_parameters_and_input(cls):
    X = pd.DataFrame({"a": ["x", "y"] * 5})
    Y = pd.DataFrame({"c": [0, 1] * 5, "d": [1, 1, 0, 0, 1] * 2})
    with pytest.raises(ValueError, match="criterion"):
        cls(criterion="bdue").fit(X, Y)
    with pytest.raises(ValueError, match="max_parents"):
        cls(max_parents=-1).fit(X, Y)
    with pytest.raises(ValueError, match="2-dimensional"):
        cls().fit(X, Y["c"])
    with pytest.raises(ValueError, match="missing"):
        cls().fit(X, Y.assign(c=[0, None] * 5))
    model = cls().fit(X, Y)
    with pytest.raises(ValueError, match="columns"):
        model.predict(pd.DataFrame({"a": ["x"], "b": ["y"]}))


@pytest.mark.parametrize(
    "model",
    [
        MultiDimensionalNaiveBayes(estimator="mle", criterion="aic"),
        MultiDimensionalTAN(estimator="mle", criterion="aic"),
        MultiDimensionalAODE(estimator="mle", criterion="aic"),
        MultiDimensionalAODE(estimator="mle", criterion="aic", pooling="logarithmic"),
    ],
)
def test_evidence_impossible_under_every_label_vector_gives_uniform_not_nan(model):
    # a = x only with c = 0 and b = v only with c = 1: with MLE, P(a=x, b=v, c) = 0 for both c.
    X = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "v"]})
    Y = pd.DataFrame({"c": [0, 0, 1, 1], "d": [0, 1, 0, 1]})
    model.fit(X, Y)
    assert model.feature_class_parents_ == [(0,), (0,)]
    with pytest.warns(UserWarning, match="probability 0 under every label vector"):
        proba = model.predict_proba(pd.DataFrame({"a": ["x", "y"], "b": ["v", "v"]}))
    assert np.allclose(proba[0], [[0.5, 0.5], [0.0, 1.0]])
    assert np.allclose(proba[1][0], [0.5, 0.5])
    assert all(np.isfinite(p).all() for p in proba)


@pytest.mark.parametrize("cls", MODELS)
def test_prediction_builds_evidence_factors_in_bounded_blocks_of_rows(cls, monkeypatch):
    import graphmodels.models.multidimensional as md

    data, _ = _sample(4, n_classes=3, n_features=5, n=400, feature_arcs=True)
    X, Y = data.filter(like="A"), data.filter(like="C")
    model = cls().fit(X, Y)
    test = X.head(40).astype(object).copy()
    test.iloc[::7, 0] = "never seen"  # a second pattern of unknown attributes
    expected = model.predict_proba(test)
    seen = []

    def spy(factors, cardinalities, n_rows, **kwargs):
        seen.append(n_rows)
        return log_marginals(factors, cardinalities, n_rows, **kwargs)

    cells_per_row = sum(table.size for table in model.feature_log_tables_)
    monkeypatch.setattr(md, "_EVIDENCE_CELLS", 3 * cells_per_row)
    monkeypatch.setattr(md, "log_marginals", spy)
    for got, want in zip(model.predict_proba(test), expected):
        assert np.allclose(got, want)
    assert max(seen) == 3


@pytest.mark.parametrize("cls", MODELS)
def test_max_parents_rejects_a_boolean(cls):
    with pytest.raises(ValueError, match="max_parents"):
        cls(max_parents=True).fit(pd.DataFrame({"a": [0, 1]}), pd.DataFrame({"c": [0, 1]}))


def test_aode_pooling_parameter():
    with pytest.raises(ValueError, match="pooling"):
        MultiDimensionalAODE(pooling="max").fit(pd.DataFrame({"a": [0, 1]}), pd.DataFrame({"c": [0, 1]}))


@pytest.mark.parametrize("cls", MODELS)
def test_sample_weight_equals_duplicated_rows(cls):
    data, _ = _sample(9, n_classes=3, n_features=5, n=300)
    X, Y = data.filter(like="A"), data.filter(like="C")
    weights = np.random.default_rng(0).integers(0, 3, len(X))
    weighted = cls(criterion="bdeu").fit(X, Y, sample_weight=weights)
    repeat = np.repeat(np.arange(len(X)), weights)
    duplicated = cls(criterion="bdeu").fit(X.iloc[repeat], Y.iloc[repeat])
    assert set(weighted.structure_.edges) == set(duplicated.structure_.edges)
    for a, b in zip(weighted.predict_proba(X.head(20)), duplicated.predict_proba(X.head(20))):
        assert np.allclose(a, b)


def test_models_beat_chance_on_their_own_kind_of_data():
    data, _ = _sample(12, n_classes=4, n_features=12, n=3000, feature_arcs=True)
    X, Y = data.filter(like="A"), data.filter(like="C")
    train, test = slice(0, 2000), slice(2000, None)
    truth = Y.iloc[test].to_numpy()
    majority = (truth == Y.iloc[train].mode().iloc[0].to_numpy()).mean()
    for cls in MODELS:
        accuracy = (cls().fit(X.iloc[train], Y.iloc[train]).predict(X.iloc[test]) == truth).mean()
        assert accuracy > majority + 0.1


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_save_and_load_round_trip(cls, extension, tmp_path):
    from graphmodels.models import load_model as load

    data, _ = _sample(6, n_classes=3, n_features=5, n=300, feature_arcs=True)
    X, Y = data.filter(like="A"), data.filter(like="C")
    model = cls().fit(X, Y)
    path = tmp_path / f"model{extension}"
    model.save(path)
    loaded = load(path)
    assert set(loaded.structure_.edges(data="kind")) == set(model.structure_.edges(data="kind"))
    assert (loaded.predict(X) == model.predict(X)).all()
    for a, b in zip(loaded.predict_proba(X), model.predict_proba(X)):
        assert np.allclose(a, b)
