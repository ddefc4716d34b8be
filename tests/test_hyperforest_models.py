"""Hyperforest density and classifier (Liang & Srebro): normalization, special cases, known answers."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from graphmodels.estimators import Dirichlet, LeaveOneOutSelection
from graphmodels.models import (
    TAN,
    ChowLiu,
    HyperforestClassifier,
    HyperforestDensity,
    NaiveBayes,
    load_model,
)
from graphmodels.networks import random_hypertree_network
from graphmodels.structures import is_hyperforest


def _frame(seed=0, n_rows=300, cards=(2, 3, 2, 3)):
    rng = np.random.default_rng(seed)
    data = {}
    previous = None
    for i, r in enumerate(cards):
        column = rng.integers(0, r, n_rows)
        if previous is not None:
            column = np.where(rng.random(n_rows) < 0.6, previous % r, column)
        data[f"v{i}"] = [f"s{c}" for c in column]
        previous = column
    return pd.DataFrame(data)


def _all_configurations(model, frame):
    levels = [sorted(frame[c].unique()) for c in frame.columns]
    return pd.DataFrame(list(itertools.product(*levels)), columns=frame.columns)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
@pytest.mark.parametrize("criterion", ["ml", "mdl"])
@pytest.mark.parametrize("pseudo_count", [0.001, 0.5, 0.0])
def test_density_sums_to_one(k, criterion, pseudo_count):
    frame = _frame(seed=k)
    model = HyperforestDensity(treewidth=k, criterion=criterion, estimator=Dirichlet(pseudo_count)).fit(frame)
    assert is_hyperforest(model.structure_.maximal_hyperedges, k=k)
    with np.errstate(divide="ignore"):
        total = np.exp(model.score_samples(_all_configurations(model, frame))).sum()
    assert total == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("representation", ["joint", "shared", "free"])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_classifier_joint_sums_to_one(representation, k):
    frame = _frame(seed=3, cards=(2, 3, 2, 2))
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    model = HyperforestClassifier(treewidth=k, representation=representation, criterion="ml").fit(X, y)
    configurations = _all_configurations(model, X)
    joint = model.joint_log_likelihood(configurations)
    assert np.exp(joint).sum() == pytest.approx(1.0, abs=1e-9)
    proba = model.predict_proba(configurations)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(configurations))


def test_training_log_likelihood_is_the_forest_weight():
    """Section 2.2: with ML parameters, the mean training log-likelihood is sum_h w_h."""
    frame = _frame(seed=5, n_rows=500)
    for k in [1, 2, 3]:
        model = HyperforestDensity(treewidth=k, estimator="mle").fit(frame)
        weight = model.structure_.weight(dict(model.weights_.items()))
        assert model.score_samples(frame).mean() == pytest.approx(weight, abs=1e-10)


@pytest.mark.unseen_values
def test_unseen_states_are_summed_out():
    frame = _frame(seed=1)
    model = HyperforestDensity(treewidth=2, estimator=Dirichlet(0.1)).fit(frame)
    row = frame.iloc[[0]].copy()
    row["v1"] = "never seen"
    row["v3"] = "nor this"
    completions = pd.concat(
        [row.assign(v1=a, v3=b) for a in sorted(frame["v1"].unique()) for b in sorted(frame["v3"].unique())]
    )
    expected = logsumexp(model.score_samples(completions))
    assert model.score_samples(row)[0] == pytest.approx(expected, abs=1e-10)
    # and in a classifier, for every representation
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    for representation in ["joint", "shared", "free"]:
        clf = HyperforestClassifier(treewidth=2, representation=representation).fit(X, y)
        query = X.iloc[[3]].assign(v1="never seen")
        filled = pd.concat([X.iloc[[3]].assign(v1=a) for a in sorted(X["v1"].unique())])
        np.testing.assert_allclose(
            clf.joint_log_likelihood(query)[0], logsumexp(clf.joint_log_likelihood(filled), axis=0), atol=1e-10
        )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.unseen_values
def test_several_unseen_cells_on_wide_junction_trees(seed):
    """Messages through separators of width 3: three hidden cells per row, against explicit sums."""
    network, _ = random_hypertree_network(8, 3, random_state=seed)
    data = network.sample(3000, random_state=seed)
    model = HyperforestDensity(treewidth=3, estimator=Dirichlet(0.1)).fit(data)
    rng = np.random.default_rng(seed)
    for row in range(4):
        hidden = list(rng.choice(data.columns, size=3, replace=False))
        query = data.iloc[[row]].assign(**{h: "unseen" for h in hidden})
        completions = pd.concat(
            [data.iloc[[row]].assign(**dict(zip(hidden, values))) for values in itertools.product(["0", "1"], repeat=3)]
        )
        assert model.score_samples(query)[0] == pytest.approx(logsumexp(model.score_samples(completions)), abs=1e-9)


def _dependent_xy(seed=0, n_rows=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    columns = {}
    previous = y
    for i in range(5):
        noise = rng.integers(0, 3, n_rows)
        keep = rng.random(n_rows) < 0.3 + 0.1 * i
        columns[f"a{i}"] = np.where(keep, (previous + i) % 3, noise)
        previous = columns[f"a{i}"]
    return pd.DataFrame(columns), pd.Series(y, name="label")


def test_special_cases_coincide_with_the_core_models():
    """Table 1 of the paper: Cf-1 is Chow-Liu, Cs-1 is TAN, Cs/Cf-0 naive Bayes, J-0 the majority."""
    X, y = _dependent_xy()
    cs1 = HyperforestClassifier(treewidth=1, criterion="ml", representation="shared", estimator="mle").fit(X, y)
    tan = TAN(estimator="mle").fit(X, y)
    tan_edges = {frozenset(e) for e in tan.structure_.edges if "label" not in e}
    assert {frozenset(e) for e in cs1.structure_.primal_graph().edges} == tan_edges
    np.testing.assert_allclose(cs1.predict_proba(X), tan.predict_proba(X), atol=1e-10)

    cf1 = HyperforestClassifier(treewidth=1, criterion="ml", representation="free", estimator="mle").fit(X, y)
    chow_liu = ChowLiu(estimator="mle").fit(X, y)
    trees = chow_liu.structures_
    assert len(trees) == len(cf1.structures_) == 3
    for forest, tree in zip(cf1.structures_, trees):
        assert {frozenset(e) for e in forest.primal_graph().edges} == {frozenset(e) for e in tree.edges}
    # The union graph names, per edge, the classes whose structure has it.
    union = {frozenset(e): set(c) for *e, c in cf1.structure_.edges(data="classes")}
    for label, tree in zip(cf1.classes_, trees):
        for e in tree.edges:
            assert label in union[frozenset(e)]
    assert sum(len(c) for c in union.values()) == sum(t.number_of_edges() for t in trees)
    np.testing.assert_allclose(cf1.predict_proba(X), chow_liu.predict_proba(X), atol=1e-10)

    for representation in ["shared", "free"]:
        nb0 = HyperforestClassifier(treewidth=0, representation=representation, estimator="mle").fit(X, y)
        np.testing.assert_allclose(
            nb0.predict_proba(X), NaiveBayes(estimator="mle").fit(X, y).predict_proba(X), atol=1e-10
        )
    majority = HyperforestClassifier(treewidth=0, representation="joint").fit(X, y)
    assert (majority.predict(X) == np.bincount(y).argmax()).all()


def test_ml_cs_1_with_the_paper_smoothing_is_close_to_tan():
    X, y = _dependent_xy(seed=2)
    cs1 = HyperforestClassifier(treewidth=1, criterion="ml", representation="Cs", estimator="liang-srebro").fit(X, y)
    tan = TAN(estimator="liang-srebro").fit(X, y)
    np.testing.assert_allclose(cs1.predict_proba(X), tan.predict_proba(X), atol=1e-3)


def test_sampling_is_seeded_and_follows_the_model():
    frame = _frame(seed=4)
    model = HyperforestDensity(treewidth=2).fit(frame)
    a = model.sample(20000, random_state=7)
    pd.testing.assert_frame_equal(a, model.sample(20000, random_state=7))
    configurations = _all_configurations(model, frame)
    expected = np.exp(model.score_samples(configurations))
    observed = a.value_counts().reindex(pd.MultiIndex.from_frame(configurations), fill_value=0).to_numpy() / len(a)
    assert np.abs(observed - expected).max() < 0.01


@pytest.mark.parametrize("k", [1, 2, 3])
def test_hidden_hypertree_is_recovered(k):
    """Section 6.1: 10,000 samples of a random width-k network over binary variables.

    k' = k recovers the hidden hypertree (ML and MDL); for k' = k + 1 MDL
    still recovers it while ML overfits with width k + 1. Greedy search can
    miss, so a rate over seeds is asserted.
    """
    wider = k < 3  # the search at width k + 1 is proven at k = 1, 2; at width 4 it costs ~10 s a seed
    recovered = {"ml": 0, "mdl": 0, "mdl+1": 0} if wider else {"ml": 0, "mdl": 0}
    seeds = range(6)
    for seed in seeds:
        network, hypertree = random_hypertree_network(9, k, random_state=seed)
        data = network.sample(10000, random_state=seed + 100)
        for criterion in ["ml", "mdl"]:
            found = HyperforestDensity(treewidth=k, criterion=criterion).fit(data).structure_
            recovered[criterion] += found == hypertree
        if wider:
            assert HyperforestDensity(treewidth=k + 1, criterion="ml").fit(data).structure_.width == k + 1
            found = HyperforestDensity(treewidth=k + 1, criterion="mdl").fit(data).structure_
            recovered["mdl+1"] += found == hypertree
    assert min(recovered.values()) >= 5, recovered


@pytest.mark.parametrize("representation", ["joint", "shared", "free"])
@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_persistence_round_trip(tmp_path, representation, extension):
    X, y = _dependent_xy(seed=1)
    y = y.map({0: "10", 1: "1", 2: "2"})  # integer-looking labels keep their order and type
    model = HyperforestClassifier(treewidth=2, representation=representation).fit(X, y)
    model.save(tmp_path / f"model{extension}")
    again = load_model(tmp_path / f"model{extension}")
    np.testing.assert_allclose(again.predict_proba(X), model.predict_proba(X))
    assert list(again.classes_) == ["1", "10", "2"]
    if representation == "free":
        assert again.structures_ == model.structures_
        assert nx.utils.graphs_equal(again.structure_, model.structure_)
    else:
        assert again.structure_ == model.structure_
    density = HyperforestDensity(treewidth=2).fit(X)
    density.save(tmp_path / f"density{extension}")
    reloaded = load_model(tmp_path / f"density{extension}")
    np.testing.assert_allclose(reloaded.score_samples(X), density.score_samples(X))
    with pytest.raises(AttributeError, match="not saved"):
        _ = reloaded.weights_


def test_parameter_errors():
    X, y = _dependent_xy()
    for bad, message in [
        ({"treewidth": -1}, "treewidth"),
        ({"treewidth": 1.5}, "treewidth"),
        ({"criterion": "bic"}, "criterion"),
        ({"algorithm": "exhaustive"}, "algorithm"),
        ({"n_starts": 0}, "n_starts"),
        ({"pseudo_count": -1}, "pseudo_count"),
        ({"estimator": "smooth"}, "estimator"),
        ({"representation": "mixed"}, "representation"),
    ]:
        with pytest.raises(ValueError, match=message):
            HyperforestClassifier(**bad).fit(X, y)
    with pytest.raises(ValueError, match="treewidth"):
        HyperforestDensity(treewidth=-2).fit(X)


def test_pseudo_count_is_a_deprecated_alias_of_a_dirichlet_estimator():
    X, y = _dependent_xy()
    with pytest.warns(FutureWarning, match="pseudo_count"):
        old = HyperforestClassifier(treewidth=2, pseudo_count=0.5).fit(X, y)
    new = HyperforestClassifier(treewidth=2, estimator=Dirichlet(0.5)).fit(X, y)
    assert old.estimator_ == Dirichlet(0.5)
    np.testing.assert_array_equal(old.predict_proba(X), new.predict_proba(X))
    # The paper's 0.001 is "liang-srebro"; the default is chosen by leave-one-out among its candidates.
    paper = HyperforestClassifier(treewidth=2, estimator="liang-srebro").fit(X, y)
    np.testing.assert_array_equal(
        paper.predict_proba(X),
        HyperforestClassifier(treewidth=2, estimator=Dirichlet(0.001)).fit(X, y).predict_proba(X),
    )
    assert HyperforestClassifier(treewidth=2).fit(X, y).estimator_ in LeaveOneOutSelection().candidates


@pytest.mark.parametrize("representation", ["shared", "free"])
@pytest.mark.parametrize("duplicated", [False, True])
def test_column_order_does_not_matter(duplicated, representation):
    X, y = _dependent_xy(seed=3)
    if duplicated:  # exact ties between weights
        X = X.assign(copy0=X["a0"], copy1=X["a1"])
    a = HyperforestClassifier(treewidth=2, representation=representation).fit(X, y)
    b = HyperforestClassifier(treewidth=2, representation=representation).fit(X[X.columns[::-1]], y)
    if representation == "free":  # the union of the classes' Markov networks, and each class's hyperforest
        assert {frozenset(e) for e in a.structure_.edges} == {frozenset(e) for e in b.structure_.edges}
        assert a.structures_ == b.structures_
    else:
        assert a.structure_ == b.structure_
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X[X.columns[::-1]]), atol=1e-12)
