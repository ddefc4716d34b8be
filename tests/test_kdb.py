"""Tests of the k-dependence Bayesian classifier: kdb_structure and KDB."""

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402
from scipy.special import logsumexp  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels._validation import InvalidParameterError  # noqa: E402
from graphmodels.learners import kdb_structure  # noqa: E402
from graphmodels.models import KDB, NaiveBayes, load_model  # noqa: E402
from graphmodels.stats import CountingEngine  # noqa: E402
from graphmodels.structures import feature_parents  # noqa: E402


def _h(*p):
    """Entropy (nats) of a distribution given by its probabilities."""
    return -sum(x * math.log(x) for x in p if x > 0)


def _hand_table():
    # a copies the class; d leans to the class; b equals d in class 0 and
    # mostly in class 1, and says nothing of the class alone.
    return pd.DataFrame(
        {
            "a": [0, 0, 0, 0, 1, 1, 1, 1],
            "b": [0, 0, 1, 1, 0, 0, 1, 1],
            "d": [0, 0, 1, 1, 0, 1, 1, 1],
            "class": [0, 0, 0, 0, 1, 1, 1, 1],
        }
    )


def _augmenting(graph):
    return {
        (u, v): w for u, v, kind in graph.edges(data="kind") if kind == "augmenting" for w in [graph[u][v]["weight"]]
    }


# ----------------------------------------------------------------------------- hand-computed
def test_hand_computed_structure_and_weights():
    frame = _hand_table()
    graph = kdb_structure(frame, "class", k=1)
    weights = {v: w for u, v, w in graph.edges(data="weight") if u == "class"}
    # I(a; C) = H(C) = log 2 (a is the class); I(b; C) = 0 (b is 0/1 half the time in each class);
    # I(d; C) = H(d) - H(d | C) with P(d=1) = 5/8, P(d=1 | C=0) = 1/2, P(d=1 | C=1) = 3/4.
    assert weights["a"] == pytest.approx(math.log(2))
    assert weights["b"] == pytest.approx(0.0, abs=1e-12)
    assert weights["d"] == pytest.approx(_h(5 / 8, 3 / 8) - (_h(1 / 2, 1 / 2) + _h(3 / 4, 1 / 4)) / 2)
    # Order a, d, b. d's only candidate is a, with I(d; a | C) = 0 (a is known given C): no parent.
    # b: I(b; a | C) = 0, and I(b; d | C) = (I_0 + I_1) / 2 with I_0 = log 2 (b = d in class 0)
    # and I_1 = H(d | C=1) - H(d | b, C=1) = H(3/4) - H(1/2) / 2.
    cmi = (math.log(2) + _h(3 / 4, 1 / 4) - math.log(2) / 2) / 2
    assert _augmenting(graph) == {("d", "b"): pytest.approx(cmi)}
    # k = 2 adds nothing: a is conditionally independent of both (the threshold is 0, strict).
    assert _augmenting(kdb_structure(frame, "class", k=2)).keys() == {("d", "b")}
    assert _augmenting(kdb_structure(frame, "class", k=2, min_conditional_mutual_information=cmi + 1e-6)) == {}
    assert _augmenting(kdb_structure(frame, "class", k=0)) == {}
    assert graph.nodes["class"]["role"] == "class"
    assert all(graph.nodes[n] == {"role": "feature", "cardinality": 2} for n in "abd")
    assert {kind for _, _, kind in graph.edges(data="kind")} == {"class", "augmenting"}


def test_hand_computed_tables():
    frame = _hand_table()
    model = KDB(k=1, estimator="mle").fit(frame[["a", "b", "d"]], frame["class"])
    assert model.feature_parents_ == [(), (2,), ()]
    # P(b | C=1, d=1): the rows of class 1 with d = 1 have b = 0, 1, 1.
    np.testing.assert_allclose(np.exp(model.log_tables_[1][1, 1]), [1 / 3, 2 / 3])
    np.testing.assert_allclose(np.exp(model.log_tables_[1][0]), [[1, 0], [0, 1]])  # b = d in class 0
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.5, 0.5])
    assert model.log_tables_[1].shape == (2, 2, 2)


# ----------------------------------------------------------------------------- brute force
def _random_frame(seed, n_features=6, n=300):
    """Random cardinalities; each attribute copies the class or an earlier attribute (or two) sometimes."""
    rng = np.random.default_rng(seed)
    cls = rng.integers(0, int(rng.integers(2, 4)), n)
    cards = rng.integers(2, 5, n_features)
    columns = {}
    for j in range(n_features):
        noise = rng.integers(0, cards[j], n)
        sources = [cls] + [columns[f"x{i}"] for i in rng.choice(j, size=min(j, 2), replace=False)] if j else [cls]
        signal = sum(sources) % cards[j]
        columns[f"x{j}"] = np.where(rng.random(n) < rng.choice([0.2, 0.5, 0.8]), signal, noise)
    names = list(columns)
    order = rng.permutation(n_features)
    frame = pd.DataFrame({names[i]: columns[names[i]] for i in order})
    frame["class"] = cls
    return frame


def _plain_counts(*columns):
    """Joint counts of integer columns, with plain numpy."""
    shape = tuple(int(c.max()) + 1 for c in columns)
    table = np.zeros(shape)
    np.add.at(table, tuple(columns), 1)
    return table


def _plain_entropy(table):
    p = table[table > 0] / table.sum()
    return float(-(p * np.log(p)).sum())


def _plain_cmi(x, y, z):
    """I(X; Y | Z) = H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)."""
    return (
        _plain_entropy(_plain_counts(x, z))
        + _plain_entropy(_plain_counts(y, z))
        - _plain_entropy(_plain_counts(x, y, z))
        - _plain_entropy(_plain_counts(z))
    )


def _sahami(frame, class_name, k, theta):
    """Sahami's algorithm written out plainly: parent sets of every attribute."""
    c = frame[class_name].to_numpy()
    names = [n for n in frame.columns if n != class_name]
    constant = np.zeros(len(frame), dtype=int)
    mi = {n: round(_plain_cmi(frame[n].to_numpy(), c, constant), 12) for n in names}
    order = sorted(names, key=lambda n: (-mi[n], n))
    parents = {}
    for rank, child in enumerate(order):
        cmi = {o: round(_plain_cmi(frame[child].to_numpy(), frame[o].to_numpy(), c), 12) for o in order[:rank]}
        best = sorted((o for o in cmi if cmi[o] > theta), key=lambda o: (-cmi[o], o))
        parents[child] = set(best[:k])
    return parents, mi


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("theta", [0.0, 0.02])
def test_parent_sets_equal_brute_force(k, seed, theta):
    frame = _random_frame(seed)
    expected, mi = _sahami(frame, "class", k, theta)
    graph = kdb_structure(frame, "class", k=k, min_conditional_mutual_information=theta)
    got = {n: set(p) for n, p in feature_parents(graph).items()}
    assert got == expected
    assert nx.is_directed_acyclic_graph(graph)
    assert all(len(p) <= k for p in got.values())
    for name, value in mi.items():
        assert graph["class"][name]["weight"] == pytest.approx(value, abs=1e-9)
    c = frame["class"].to_numpy()
    for (u, v), weight in _augmenting(graph).items():
        assert weight == pytest.approx(_plain_cmi(frame[u].to_numpy(), frame[v].to_numpy(), c), abs=1e-9)
        assert weight > theta


def test_k_one_gives_a_forest_and_large_k_is_bounded_by_the_attributes():
    frame = _random_frame(7, n_features=5)
    forest = kdb_structure(frame, "class", k=1)
    assert all(len(p) <= 1 for p in feature_parents(forest).values())
    features = forest.subgraph(n for n in forest if n != "class")
    assert nx.is_forest(features.to_undirected())
    # With k >= n - 1 the i-th attribute in the order may take every one before it.
    full = kdb_structure(frame, "class", k=10)
    assert 1 < max(len(p) for p in feature_parents(full).values()) <= 4


def test_engine_and_frame_give_the_same_structure():
    frame = _random_frame(3)
    engine = CountingEngine.from_frame(frame)
    by_engine = kdb_structure(engine, "class", k=2)
    by_frame = kdb_structure(frame, "class", k=2)
    assert sorted(by_engine.edges(data=True)) == sorted(by_frame.edges(data=True))
    subset = kdb_structure(frame, "class", ["x0", "x1", "x2"], k=2)
    assert set(subset) == {"class", "x0", "x1", "x2"}


def test_families_beyond_max_cells_are_left_out():
    frame = _random_frame(1, n_features=5, n=400)
    engine = CountingEngine.from_frame(frame)
    cards = {n: engine.cardinality(n) for n in engine.names}

    def family_cells(graph):
        return {
            v: cards["class"] * cards[v] * math.prod(cards[p] for p in ps) for v, ps in feature_parents(graph).items()
        }

    unbounded = kdb_structure(engine, "class", k=3)
    limit = max(family_cells(unbounded).values())
    bounded_engine = CountingEngine.from_frame(frame)
    bounded_engine.pairwise_counts([n for n in frame.columns if n != "class"], given="class")
    bounded_engine.max_cells = limit - 1  # the pairwise tables are counted already: only the families are bounded
    bounded = kdb_structure(bounded_engine, "class", k=3)
    assert max(family_cells(bounded).values()) < limit
    assert sorted(bounded.edges) != sorted(unbounded.edges)  # another candidate took the place of a too large one


# ----------------------------------------------------------------------------- the model
def _table(seed, n=300, cards=(2, 3, 2, 3), n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    columns, previous = {}, y
    for j, r in enumerate(cards):
        columns[f"x{j}"] = np.where(rng.random(n) < 0.6, previous % r, rng.integers(0, r, n)).astype(str)
        previous = columns[f"x{j}"].astype(int) + y
    return pd.DataFrame(columns), pd.Series(y, name="label").map({0: "u", 1: "v", 2: "w"})


@pytest.mark.parametrize("estimator", ["bdeu", "laplace"])
def test_k_zero_is_naive_bayes(estimator):
    X, y = _table(0)
    kdb = KDB(k=0, estimator=estimator).fit(X, y)
    nb = NaiveBayes(estimator=estimator).fit(X, y)
    assert _augmenting(kdb.structure_) == {}
    test = X.head(20).copy()
    test.loc[::3, "x1"] = "never seen"
    np.testing.assert_allclose(kdb.predict_proba(test), nb.predict_proba(test), rtol=1e-12)
    np.testing.assert_allclose(kdb.joint_log_likelihood(test), nb.joint_log_likelihood(test), rtol=1e-12)


def _all_configurations(model):
    levels = model.encoder_.levels_
    rows = list(itertools.product(*levels))
    return pd.DataFrame(rows, columns=model.encoder_.columns_)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
@pytest.mark.parametrize("estimator", ["bdeu", "mle"])
def test_joint_sums_to_one_over_every_configuration(k, estimator):
    X, y = _table(1, n=200)
    model = KDB(k=k, estimator=estimator).fit(X, y)
    assert max(len(p) for p in model.feature_parents_) == min(k, 3)
    joint = model.joint_log_likelihood(_all_configurations(model))
    assert float(np.exp(logsumexp(joint))) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(logsumexp(joint, axis=0), model.class_log_prior_, atol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("hidden", [["x0"], ["x1"], ["x0", "x1"], ["x1", "x3"], ["x0", "x1", "x2", "x3"]])
@pytest.mark.unseen_values
def test_unseen_values_are_summed_out_exactly(k, hidden):
    X, y = _table(2)
    model = KDB(k=k).fit(X, y)
    rows = X.head(6).reset_index(drop=True)
    unseen = rows.copy()
    for name in hidden:
        unseen[name] = "unseen state"
    got = model.joint_log_likelihood(unseen)
    # Brute force: the joint summed over every state of the hidden variables.
    position = {name: j for j, name in enumerate(model.encoder_.columns_)}
    terms = []
    for states in itertools.product(*(model.encoder_.levels_[position[n]] for n in hidden)):
        filled = rows.copy()
        for name, state in zip(hidden, states):
            filled[name] = state
        terms.append(model.joint_log_likelihood(filled))
    np.testing.assert_allclose(got, logsumexp(np.stack(terms), axis=0), rtol=1e-12, atol=1e-12)
    # Mixed with complete rows and other patterns in one call, each row is the same.
    mixed = pd.concat([rows.head(2), unseen, rows.tail(2)], ignore_index=True)
    mixed.loc[0, "x2"] = "another unseen state"
    joint = model.joint_log_likelihood(mixed)
    np.testing.assert_allclose(joint[2:8], got, rtol=1e-12)
    np.testing.assert_allclose(joint[8:], model.joint_log_likelihood(rows.tail(2)), rtol=1e-12)
    proba = model.predict_proba(mixed)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(mixed), atol=1e-12)


@pytest.mark.unseen_values
def test_a_parent_of_others_unseen_needs_the_childrens_factors():
    X, y = _table(2)
    model = KDB(k=2).fit(X, y)
    parents = [set(p) for p in model.feature_parents_]
    j = next(j for j in range(4) if any(j in p for p in parents))
    name = model.encoder_.columns_[j]
    row = X.head(1).copy()
    row[name] = "unseen state"
    # Dropping only the hidden variable's own factor would be wrong here.
    terms = [model.joint_log_likelihood(row.assign(**{name: s})) for s in model.encoder_.levels_[j]]
    np.testing.assert_allclose(model.joint_log_likelihood(row), logsumexp(np.stack(terms), axis=0), rtol=1e-12)


@pytest.mark.unseen_values
def test_hidden_variables_in_separate_families_are_summed_out_apart():
    frame = _random_frame(6, n_features=6)
    X, y = frame.drop(columns="class").astype(str), frame["class"]
    model = KDB(k=2).fit(X, y)
    families = [set(p) | {i} for i, p in enumerate(model.feature_parents_)]
    # Two attributes that share no family: their sums are independent.
    j1, j2 = next((a, b) for a, b in itertools.combinations(range(6), 2) if not any({a, b} <= f for f in families))
    names = [model.encoder_.columns_[j] for j in (j1, j2)]
    rows = X.head(5)
    terms = [
        model.joint_log_likelihood(rows.assign(**dict(zip(names, states))))
        for states in itertools.product(*(model.encoder_.levels_[j] for j in (j1, j2)))
    ]
    got = model.joint_log_likelihood(rows.assign(**dict.fromkeys(names, "unseen")))
    np.testing.assert_allclose(got, logsumexp(np.stack(terms), axis=0), rtol=1e-12)


@pytest.mark.unseen_values
def test_summing_out_beyond_max_cells_raises():
    X, y = _table(2)
    model = KDB(k=3).fit(X, y)
    hidden = X.head(2).assign(x0="unseen", x1="unseen", x2="unseen", x3="unseen")
    model.set_params(max_cells=4)
    with pytest.raises(ValueError, match="max_cells"):
        model.joint_log_likelihood(hidden)


@pytest.mark.parametrize("k", [1, 2])
def test_column_order_does_not_matter(k):
    frame = _random_frame(5)
    X, y = frame.drop(columns="class"), frame["class"]
    rng = np.random.default_rng(0)
    shuffled = X[list(rng.permutation(X.columns))]
    a, b = KDB(k=k).fit(X, y), KDB(k=k).fit(shuffled, y)
    assert sorted(a.structure_.edges(data=True)) == sorted(b.structure_.edges(data=True))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(shuffled), rtol=1e-12)
    rows = rng.permutation(len(X))
    c = KDB(k=k).fit(X.iloc[rows], y.iloc[rows])
    np.testing.assert_allclose(a.predict_proba(X), c.predict_proba(X), rtol=1e-10)


@pytest.mark.parametrize("k", [1, 2])
def test_sample_weights_equal_duplicated_rows(k):
    X, y = _table(3, n=120)
    weights = np.random.default_rng(3).integers(1, 4, len(X))
    weighted = KDB(k=k).fit(X, y, sample_weight=weights)
    repeated = KDB(k=k).fit(X.loc[X.index.repeat(weights)], y.loc[y.index.repeat(weights)])
    assert sorted(weighted.structure_.edges(data=True)) == sorted(repeated.structure_.edges(data=True))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.unseen_values
def test_save_load_round_trip_with_two_parents(tmp_path, extension):
    X, y = _table(4)
    model = KDB(k=2).fit(X, y)
    assert max(len(p) for p in model.feature_parents_) == 2
    model.save(tmp_path / f"kdb{extension}")
    again = load_model(tmp_path / f"kdb{extension}")
    assert again.feature_parents_ == model.feature_parents_
    test = X.head(10).assign(x0=["unseen"] * 10)
    np.testing.assert_allclose(again.predict_proba(test), model.predict_proba(test), rtol=1e-12)


def test_k_is_validated():
    X, y = _table(0, n=50)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(InvalidParameterError, match="`k` must be an integer in \\[0, inf\\)"):
            KDB(k=bad).fit(X, y)
        with pytest.raises(ValueError, match="`k`"):
            kdb_structure(_hand_table(), "class", k=bad)
    with pytest.raises(ValueError, match="`min_conditional_mutual_information`"):
        KDB(min_conditional_mutual_information=-0.1).fit(X, y)
    assert KDB(k=np.int64(2)).fit(X, y).structure_ is not None


def test_registered_and_exported():
    assert gm.models.model_class("kdb") is KDB is gm.KDB
    assert gm.models.CLASSIFIERS["kdb"] is KDB
    assert "KDB" in gm.__all__ and "KDB" in gm.models.__all__
    assert "kdb_structure" in gm.learners.__all__


# ----------------------------------------------------------------------------- drawing
def test_draw_network_draws_every_arc():
    from graphmodels.plotting import draw_network

    X, y = _table(2)
    model = KDB(k=2).fit(X, y)
    ax = draw_network(model, Figure().subplots())
    arcs = [p.get_gid() for p in ax.patches if isinstance(p, FancyArrowPatch)]
    kinds = [kind for _, _, kind in model.structure_.edges(data="kind")]
    assert len(arcs) == model.structure_.number_of_edges()
    assert arcs.count("edge:class") == kinds.count("class") == 4
    assert arcs.count("edge:augmenting") == kinds.count("augmenting") >= 3
