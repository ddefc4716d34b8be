"""Fitted models as Bayesian networks (``to_bayesian_network``), and the interchange formats.

The class posterior of every exported network is computed here by brute force: for each test
row, every configuration of the class and of the hidden variables (latents, and attributes whose
cell is unobserved or holds a value never seen in fit) is enumerated, the network's joint
``log_likelihood_codes`` evaluated on all of them, and the hidden variables summed out. It must
equal the model's ``predict_proba``.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._special import logsumexp
from graphmodels.estimators import Discriminative
from graphmodels.models import (
    AODE,
    FAN,
    KDB,
    TAN,
    AnDE,
    ChowLiu,
    DiscreteBayesianNetwork,
    HierarchicalNaiveBayes,
    HyperforestClassifier,
    KikuchiBayes,
    MultiDimensionalAODE,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
    NaiveBayes,
    SelectiveKDB,
)
from graphmodels.models.export import UNSEEN_STATE, state_names
from graphmodels.models.synthetic import random_multidimensional_network

# ---------------------------------------------------------------- brute force


def brute_force_posteriors(bn, evidence, queries):
    """Posterior of each query variable given `evidence`, by enumerating every hidden configuration.

    `evidence` maps variable names to an int array of shape (n_rows,) of codes, ``-1`` for a cell
    summed out; variables of `bn` not in `evidence` (the queries, latents) are summed out too.
    Returns one (n_rows, r_query) array per query.
    """
    position = {v: j for j, v in enumerate(bn.variables)}
    n_rows = len(next(iter(evidence.values())))
    out = [np.empty((n_rows, bn.cardinalities[q])) for q in queries]
    for r in range(n_rows):
        known = {v: int(codes[r]) for v, codes in evidence.items() if codes[r] >= 0}
        hidden = [v for v in bn.variables if v not in known]
        grid = list(itertools.product(*(range(bn.cardinalities[v]) for v in hidden)))
        full = np.empty((len(grid), len(bn.variables)), dtype=np.int64)
        for v, code in known.items():
            full[:, position[v]] = code
        for k, v in enumerate(hidden):
            full[:, position[v]] = [config[k] for config in grid]
        joint = bn.log_likelihood_codes(full)
        for t, q in enumerate(queries):
            states = full[:, position[q]]
            marginal = np.array([logsumexp(joint[states == s]) for s in range(bn.cardinalities[q])])
            out[t][r] = np.exp(marginal - logsumexp(marginal))
    return out


def encoded(model, X):
    """The model's codes of `X` through its public fitted attributes (``-1``: unobserved or unseen)."""
    frame = X[list(model.encoder_.columns_)]
    if getattr(model, "discretizer_", None) is not None:
        frame = model.discretizer_.transform(frame)
    return model.encoder_.transform(frame)


def evidence_of(model, bn, X):
    """Codes of `X` keyed by network variable (columns the network leaves out are dropped)."""
    codes = encoded(model, X)
    return {str(c): codes[:, j] for j, c in enumerate(model.encoder_.columns_) if str(c) in bn.cardinalities}


# ---------------------------------------------------------------- data


def _mixed_frame(seed):
    """Strings with dependencies, one numeric column (cut by the default discretizer), missing cells."""
    rng = np.random.default_rng(seed)
    n = 240
    y = rng.integers(3, size=n)
    a = np.where(rng.random(n) < 0.7, y % 2, rng.integers(2, size=n))
    b = np.where(rng.random(n) < 0.6, (a + y) % 3, rng.integers(3, size=n))
    c = np.where(rng.random(n) < 0.5, b, rng.integers(4, size=n))
    X = pd.DataFrame(
        {
            "a": [f"a{v}" for v in a],
            "b": [f"b{v}" for v in b],
            "c": [f"c{v}" for v in c],
            "num": np.round(rng.normal(size=n) + 1.5 * y, 3),
        }
    )
    X.loc[rng.random(n) < 0.05, "c"] = np.nan  # "<missing>" is a state of c
    return X, pd.Series([f"k{v}" for v in y], name="label")


def _data(name):
    if name == "mixed":
        return _mixed_frame(0)
    return gm.datasets.load(name, return_X_y=True)


def _test_rows(X, seed):
    """12 rows of `X`, with one value never seen in fit and one unobserved cell (where the data allow)."""
    rng = np.random.default_rng(seed)
    rows = X.iloc[rng.choice(len(X), size=12, replace=False)].reset_index(drop=True).copy()
    text = [j for j in range(X.shape[1]) if not pd.api.types.is_numeric_dtype(X.dtypes.iloc[j])]
    numeric = [j for j in range(X.shape[1]) if j not in text]
    if text:
        rows.iloc[0, text[0]] = "never seen in fit"
    if numeric:
        rows.iloc[1, numeric[0]] = np.nan  # no NaN in fit: unobserved
        rows.iloc[2, numeric[-1]] = 1e6  # far right: the last interval
    if len(text) > 1:
        rows.iloc[3, text[-1]] = "never seen either"
        rows.iloc[4, text[0]] = "never seen in fit"
        rows.iloc[4, text[1]] = "never seen either"
    return rows


def _discriminative():
    return Discriminative(penalty=1.0, generative="bdeu-auto")


CLASSIFIERS = {
    "nb": lambda: NaiveBayes(),
    "tan": lambda: TAN(),
    "fan": lambda: FAN(),
    "kdb1": lambda: KDB(k=1),
    "kdb2": lambda: KDB(k=2),
    "skdb": lambda: SelectiveKDB(),
    "nb-discriminative": lambda: NaiveBayes(estimator=_discriminative()),
    "tan-discriminative": lambda: TAN(estimator=_discriminative()),
    "fan-discriminative": lambda: FAN(estimator=_discriminative()),
    "kdb1-discriminative": lambda: KDB(k=1, estimator=_discriminative()),
    "skdb1-discriminative": lambda: SelectiveKDB(max_k=1, estimator=_discriminative()),
}


# ---------------------------------------------------------------- to_bayesian_network


@pytest.mark.parametrize("dataset", ["iris", "car", "tic-tac-toe", "mixed"])
@pytest.mark.parametrize("key", list(CLASSIFIERS))
def test_network_posterior_is_predict_proba(key, dataset):
    X, y = _data(dataset)
    model = CLASSIFIERS[key]().fit(X, y)
    bn = model.to_bayesian_network()
    assert isinstance(bn, DiscreteBayesianNetwork)
    assert bn.variables[0] == model.class_name_
    rows = _test_rows(X, seed=1)
    codes = encoded(model, rows)
    assert (codes < 0).any()  # the rows do test summing out
    (posterior,) = brute_force_posteriors(bn, evidence_of(model, bn, rows), [bn.variables[0]])
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)


@pytest.mark.parametrize("key", ["nb", "tan", "fan", "kdb1", "kdb2", "skdb", "tan-discriminative"])
def test_network_structure_states_and_tables(key):
    X, y = _mixed_frame(1)
    model = CLASSIFIERS[key]().fit(X, y)
    bn = model.to_bayesian_network()
    assert bn.name == type(model).__name__
    assert sorted(bn.graph.edges) == sorted((str(a), str(b)) for a, b in model.structure_.edges)
    assert bn.states["label"] == list(model.classes_)
    kept = list(model.selected_features_) if isinstance(model, SelectiveKDB) else list(X.columns)
    assert bn.variables == ["label", *kept]
    for j, column in enumerate(model.encoder_.columns_):
        if column in kept:
            assert bn.states[column] == state_names(model.encoder_.levels_[j])
    if "num" in kept:
        assert bn.states["num"][0].startswith("(-inf, ")  # the discretizer's intervals
    if "c" in kept:
        assert "<missing>" in bn.states["c"]
    if not isinstance(model.estimator_, Discriminative):  # the fitted tables are the CPTs
        np.testing.assert_allclose(np.log(bn.cpts["label"]), model.class_log_prior_, atol=1e-12)
        tables = model.log_tables_
        for name, table in zip(kept, tables):
            np.testing.assert_allclose(np.log(bn.cpts[name]).reshape(-1), table.reshape(-1), atol=1e-12)


def test_selective_kdb_network_leaves_out_the_dropped_attributes():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    model = SelectiveKDB().fit(X, y)
    assert not model.support_.all()  # this data set does drop one
    bn = model.to_bayesian_network()
    assert bn.variables[1:] == list(model.selected_features_)
    dropped = X.columns[~model.support_]
    assert not set(dropped) & set(bn.variables)


def test_discriminative_kdb2_exports_when_families_nest_and_refuses_otherwise():
    # iris: every attribute's two parents lie in one parent's family: exact CPTs.
    X, y = gm.datasets.load("iris", return_X_y=True)
    model = KDB(k=2, estimator=_discriminative()).fit(X, y)
    bn = model.to_bayesian_network()
    rows = _test_rows(X, seed=2)
    (posterior,) = brute_force_posteriors(bn, evidence_of(model, bn, rows), ["class"])
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)
    # car: some attribute's parents do not nest, and the log-potentials have no CPTs of that structure.
    X, y = gm.datasets.load("car", return_X_y=True)
    model = KDB(k=2, estimator=_discriminative()).fit(X, y)
    nested = all(
        any(set(family) - {p} <= set(model.feature_parents_[p]) for p in family)
        for family in model.feature_parents_
        if family
    )
    assert not nested
    with pytest.raises(ValueError, match=r"KDB.to_bayesian_network: .*'discriminative'.* attribute \d"):
        model.to_bayesian_network()
    # The same structure fitted generatively exports.
    generative = KDB(k=2).fit(X, y).to_bayesian_network()
    assert generative.n_edges == model.structure_.number_of_edges()


def test_discriminative_tables_become_cpts_exactly():
    # Hand-checkable: naive Bayes with one binary attribute, log-potentials w.
    X = pd.DataFrame({"x": ["u", "v", "v", "u", "v", "u", "u", "v"]})
    y = pd.Series(["p", "p", "p", "q", "q", "q", "q", "p"], name="y")
    model = NaiveBayes(estimator=_discriminative()).fit(X, y)
    prior, table = model.class_log_prior_, model.log_tables_[0][:, 0, :]
    bn = model.to_bayesian_network()
    # P(y, x) is proportional to exp(prior[y] + table[y, x]); its CPTs are the normalized factors.
    joint = np.exp(prior[:, None] + table)
    joint /= joint.sum()
    np.testing.assert_allclose(bn.cpts["y"], joint.sum(axis=1), atol=1e-15)
    np.testing.assert_allclose(bn.cpts["x"], joint / joint.sum(axis=1, keepdims=True), atol=1e-15)


# ------------------------------------------------------------ hierarchical naive Bayes


@pytest.mark.parametrize("dataset", ["car", "tic-tac-toe"])
def test_hnb_network_posterior_is_predict_proba(dataset):
    X, y = gm.datasets.load(dataset, return_X_y=True)
    model = HierarchicalNaiveBayes(random_state=0).fit(X, y)
    bn = model.to_bayesian_network()
    latents = [name for name, _, _ in model.latent_definitions_]
    assert latents and bn.variables[-len(latents) :] == latents
    rows = _test_rows(X, seed=3)
    # Values never seen in fit only in attributes that are children of the class: the model
    # drops the factor of a latent whose child is unseen, the network sums the child out
    # (documented in latent_tree_network), so there the two differ.
    class_children = [c for c in X.columns if c in model.children_]
    for column in X.columns:
        if column not in class_children:
            rows[column] = X[column].iloc[: len(rows)].to_numpy()
    if class_children:
        rows.loc[0, class_children[0]] = "never seen in fit"
    evidence = evidence_of(model, bn, rows)
    (posterior,) = brute_force_posteriors(bn, evidence, ["class"])
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 2])
def test_hnb_network_with_child_configurations_never_seen_in_fit(seed):
    # y is the parity of a + b + c; two configurations are left out of fit and asked about.
    # Seed 0 leaves a top latent with unseen configurations (UNSEEN_MASS), seed 2 a latent
    # under another latent (its extra UNSEEN_STATE).
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, size=(600, 5)), columns=list("abcde"))
    y = pd.Series(np.where((X["a"] + X["b"] + X["c"]) % 2 == 0, "even", "odd"), name="class")
    keep = ~((X["a"] == 2) & (X["b"] == 2)) & ~((X["c"] == 0) & (X["a"] == 1))
    model = HierarchicalNaiveBayes(random_state=0).fit(X[keep], y[keep])
    bn = model.to_bayesian_network()
    unseen = any((table < 0).any() for _, _, table in model.latent_definitions_)
    assert unseen
    if seed == 2:
        assert any(UNSEEN_STATE in bn.states[name] for name, _, _ in model.latent_definitions_)
    rows = pd.DataFrame(np.array(list(itertools.product(range(3), repeat=3))), columns=list("abc"))
    rows = rows.assign(d=rng.integers(0, 3, size=len(rows)), e=rng.integers(0, 3, size=len(rows)))
    (posterior,) = brute_force_posteriors(bn, evidence_of(model, bn, rows), ["class"])
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)


def test_hnb_network_exact_tiny_case():
    # y = (a == b): one latent over (a, b) with the states "a == b" and "a != b".
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
    y = np.where(X["a"] == X["b"], "same", "different")
    model = HierarchicalNaiveBayes(random_state=0).fit(X, y)
    bn = model.to_bayesian_network()
    assert bn.parents["L1"] == ("class",)
    assert bn.parents["a"] == ("L1",) and bn.parents["b"] == ("L1", "a")
    # Uniform over each state's two configurations: P(a | L1) = 1/2, P(b | L1, a) deterministic.
    np.testing.assert_allclose(bn.cpts["a"], 0.5)
    assert bn.cpts["b"][:, 0].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert bn.cpts["b"][:, 1].tolist() == [[0.0, 1.0], [1.0, 0.0]]
    np.testing.assert_allclose(np.log(bn.cpts["L1"]), model.child_log_tables_[model.children_.index("L1")])


# ------------------------------------------------------------ multi-dimensional


@pytest.mark.parametrize("cls", [MultiDimensionalNaiveBayes, MultiDimensionalTAN])
def test_multidimensional_network_marginals_are_predict_proba(cls):
    network, _ = random_multidimensional_network(3, 6, feature_arcs=True, random_state=0)
    data = network.sample(400, random_state=1)
    X, Y = data.filter(like="A"), data.filter(like="C")
    rng = np.random.default_rng(0)
    X = X.assign(num=np.round(rng.normal(size=len(X)) + 2.0 * (Y["C0"] == Y["C0"].iloc[0]), 3))
    model = cls().fit(X, Y)
    bn = model.to_bayesian_network()
    assert bn.variables == [*Y.columns, *X.columns]
    assert sorted(bn.graph.edges) == sorted(model.structure_.edges)
    assert bn.states["num"][0].startswith("(-inf, ")  # cut by the default discretizer
    rows = X.sample(15, random_state=0).reset_index(drop=True)
    rows.loc[0, "A1"] = "never seen in fit"
    rows.loc[1, "num"] = np.nan
    rows.loc[2, ["A2", "A3"]] = np.nan
    evidence = evidence_of(model, bn, rows)
    assert any((codes < 0).any() for codes in evidence.values())
    posteriors = brute_force_posteriors(bn, evidence, list(Y.columns))
    for mine, theirs in zip(posteriors, model.predict_proba(rows)):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-9)


# ------------------------------------------------------------ who has the method


HAS_NETWORK = {
    NaiveBayes,
    TAN,
    FAN,
    KDB,
    SelectiveKDB,
    HierarchicalNaiveBayes,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
}


@pytest.mark.parametrize(
    "cls", [ChowLiu, AODE, AnDE, HyperforestClassifier, KikuchiBayes, MultiDimensionalAODE], ids=lambda c: c.__name__
)
def test_models_that_are_not_one_network_have_no_method(cls):
    assert not hasattr(cls, "to_bayesian_network")
    assert not hasattr(cls(), "to_bayesian_network")


def test_registry_models_with_a_network_are_exactly_the_expected_ones():
    having = {cls for cls in gm.models.registered_models().values() if hasattr(cls, "to_bayesian_network")}
    assert having == HAS_NETWORK


@pytest.mark.parametrize("cls", sorted(HAS_NETWORK, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_unfitted_model_raises(cls):
    with pytest.raises(gm.models.NotFittedError):
        cls().to_bayesian_network()


def test_names_that_print_alike_are_refused():
    X = pd.DataFrame({0: ["a", "b", "a", "b"], "0": ["x", "x", "y", "y"]})
    model = NaiveBayes().fit(X, ["p", "q", "p", "q"])
    with pytest.raises(
        ValueError, match=r"NaiveBayes.to_bayesian_network: the variables \[0, '0'\] would all be named '0'"
    ):
        model.to_bayesian_network()


def test_state_names_distinct_in_code_order():
    assert state_names([1, 2.5, "x"]) == ["1", "2.5", "x"]
    assert state_names([1, "1"]) == ["1", "'1'"]
    assert state_names(np.array([3, 1])) == ["3", "1"]
    X = pd.DataFrame({"a": [1, 2, 1, 2], "b": ["1", 1, "1", 1]})
    bn = NaiveBayes().fit(X, [1, 2, 1, 2]).to_bayesian_network()
    assert bn.states["b"] == ["1", "'1'"] and bn.states["class"] == ["1", "2"]
