"""Fitted models as Bayesian networks (``to_bayesian_network``), and the interchange formats.

The class posterior of every exported network is computed here by brute force: for each test
row, every configuration of the class and of the hidden variables (latents, and attributes whose
cell is unobserved or holds a value never seen in fit) is enumerated, the network's joint
``log_likelihood_codes`` evaluated on all of them, and the hidden variables summed out. It must
equal the model's ``predict_proba``.
"""

import io
import itertools
import re

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._special import logsumexp
from graphmodels.estimators import Discriminative
from graphmodels.io import load_network, read_uai, read_xmlbif, write_bif, write_uai, write_xmlbif
from graphmodels.models import (
    AODE,
    FAN,
    KDB,
    TAN,
    AnDE,
    ChowLiu,
    HierarchicalNaiveBayes,
    HyperforestClassifier,
    HyperforestDensity,
    KikuchiBayes,
    MultiDimensionalAODE,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
    NaiveBayes,
    SelectiveKDB,
)
from graphmodels.models.export import UNSEEN_STATE, state_names
from graphmodels.networks import DiscreteBayesianNetwork, DiscreteMarkovNetwork, random_multidimensional_network

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


def _mixed_frame(seed, n=240):
    """Strings with dependencies, one numeric column (cut by the default discretizer), missing cells."""
    rng = np.random.default_rng(seed)
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
    ChowLiu,  # only an instance that kept one tree for every class (TAN's) has it: see test_fitted_model_messages.py
    gm.BayesianNetwork,
}


@pytest.mark.parametrize(
    "cls", [AODE, AnDE, HyperforestClassifier, KikuchiBayes, MultiDimensionalAODE], ids=lambda c: c.__name__
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
    # b's states in order of first appearance (text and a number do not compare): "1", then 1.
    assert bn.states["b"] == ["'1'", "1"] and bn.states["class"] == ["1", "2"]


# ---------------------------------------------------------------- XMLBIF


def _assert_same_network(a, b, *, atol=0.0, same_order=True):
    """Same variables, states and parents (in order, or as sets), CPTs equal within `atol` after aligning axes."""
    assert a.variables == b.variables if same_order else sorted(a.variables) == sorted(b.variables)
    for v in a.variables:
        assert a.states[v] == b.states[v], v
        if same_order:
            assert a.parents[v] == b.parents[v], v
        assert set(a.parents[v]) == set(b.parents[v]) and len(a.parents[v]) == len(b.parents[v]), v
        order = [b.parents[v].index(p) for p in a.parents[v]] + [len(a.parents[v])]
        np.testing.assert_allclose(np.transpose(b.cpts[v], order), a.cpts[v], rtol=0, atol=atol, err_msg=v)


def _tiny_network():
    """a -> c <- b with distinct numbers everywhere, and states that need escaping in XML."""
    return DiscreteBayesianNetwork(
        {"a": (), "b": (), "c": ("a", "b")},
        {"a": ["a0", "a1"], "b": ["b<0>", "b & 1", "b2"], "c": ["c0", "c1"]},
        {
            "a": [0.3, 0.7],
            "b": [0.2, 0.5, 0.3],
            "c": [[[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]], [[0.4, 0.6], [0.5, 0.5], [0.6, 0.4]]],
        },
        name="tiny",
    )


TINY_XMLBIF = """<?xml version="1.0"?>
<!-- P(c | a, b): the child varies fastest, then b, then a (the spec's order). -->
<BIF VERSION="0.3">
<NETWORK>
  <NAME>tiny</NAME>
  <VARIABLE TYPE="nature"><NAME>a</NAME><OUTCOME>a0</OUTCOME><OUTCOME>a1</OUTCOME>
    <PROPERTY>position = (0, 0)</PROPERTY></VARIABLE>
  <VARIABLE TYPE="nature"><NAME>b</NAME>
    <OUTCOME>b&lt;0&gt;</OUTCOME><OUTCOME>b &amp; 1</OUTCOME><OUTCOME>b2</OUTCOME></VARIABLE>
  <VARIABLE TYPE="nature"><NAME>c</NAME><OUTCOME>c0</OUTCOME><OUTCOME>c1</OUTCOME></VARIABLE>
  <DEFINITION><FOR>a</FOR><TABLE>0.3 0.7</TABLE></DEFINITION>
  <DEFINITION><FOR>b</FOR><TABLE>0.2 0.5 0.3</TABLE></DEFINITION>
  <DEFINITION><FOR>c</FOR><GIVEN>a</GIVEN><GIVEN>b</GIVEN>
    <TABLE>0.1 0.9 0.2 0.8 0.3 0.7 0.4 0.6 0.5 0.5 0.6 0.4</TABLE></DEFINITION>
</NETWORK>
</BIF>
"""


def test_read_xmlbif_hand_written_table_order():
    bn = read_xmlbif(TINY_XMLBIF)
    _assert_same_network(bn, _tiny_network())
    assert bn.name == "tiny"
    assert bn.cpts["c"][1, 0].tolist() == [0.4, 0.6]  # P(c | a=a1, b=b<0>)


@pytest.mark.parametrize("network", ["tiny", "alarm"])
def test_xmlbif_round_trip_is_exact(network, tmp_path):
    bn = _tiny_network() if network == "tiny" else load_network("alarm")
    text = write_xmlbif(bn)
    back = read_xmlbif(text)
    _assert_same_network(bn, back, atol=1e-15)
    assert back.to_dict() == bn.to_dict()  # exactly: 17 significant digits
    for path in [tmp_path / "net.xml", tmp_path / "net.xml.gz"]:
        assert write_xmlbif(bn, path) is None
        assert read_xmlbif(path).to_dict() == bn.to_dict()
        assert read_xmlbif(str(path)).to_dict() == bn.to_dict()
    with open(tmp_path / "net.xml", "rb") as fh:
        assert read_xmlbif(fh).to_dict() == bn.to_dict()
    assert read_xmlbif(text.encode("utf-8")).to_dict() == bn.to_dict()
    buffer = io.StringIO()
    write_xmlbif(bn, buffer)
    assert buffer.getvalue() == text


def test_xmlbif_round_trip_of_a_fitted_classifier():
    X, y = gm.datasets.load("iris", return_X_y=True)
    bn = TAN().fit(X, y).to_bayesian_network()
    assert read_xmlbif(write_xmlbif(bn)).to_dict() == bn.to_dict()


def test_xmlbif_names_xml_cannot_keep_are_refused():
    bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", " y"]}, {"a": [0.5, 0.5]})
    with pytest.raises(ValueError, match=r"state of 'a' ' y' cannot be written in XMLBIF"):
        write_xmlbif(bn)
    bn = DiscreteBayesianNetwork({"a\rb": ()}, {"a\rb": ["x", "y"]}, {"a\rb": [0.5, 0.5]})
    with pytest.raises(ValueError, match=r"variable name 'a\\rb' cannot be written"):
        write_xmlbif(bn)
    with pytest.raises(TypeError, match="DiscreteBayesianNetwork"):
        write_xmlbif({"a": ()})


def _broken(old, new):
    assert old in TINY_XMLBIF
    return TINY_XMLBIF.replace(old, new)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("<TABLE>0.2 0.5 0.3</TABLE>", "<TABLE>0.2 0.5 0.4</TABLE>", r"definition of 'b'.*sums to 1\.1"),
        ("0.5 0.5 0.6 0.4</TABLE>", "0.5 0.5 0.6 0.5</TABLE>", r"definition of 'c'.*'c' given a=a1, b=b2 sums to"),
        ("<TABLE>0.3 0.7</TABLE>", "<TABLE>0.3 0.7 0.0</TABLE>", r"definition of 'a'.*must hold 2 numbers.*got 3"),
        ("<TABLE>0.2 0.5 0.3</TABLE>", "<TABLE>0.2 half 0.3</TABLE>", r"definition of 'b'.*'half'.*not a number"),
        ("<TABLE>0.2 0.5 0.3</TABLE>", "<TABLE>0.2 -0.5 1.3</TABLE>", r"definition of 'b'.*must be >= 0"),
        ("<GIVEN>b</GIVEN>", "<GIVEN>d</GIVEN>", r"definition of 'c'.*unknown parent 'd'"),
        ("<FOR>b</FOR>", "<FOR>e</FOR>", r"definition of 'e'.*'e' is not a declared <VARIABLE>"),
        ("<DEFINITION><FOR>b</FOR><TABLE>0.2 0.5 0.3</TABLE></DEFINITION>", "", r"'b' has no <DEFINITION>"),
        (
            "<DEFINITION><FOR>a</FOR>",
            "<DEFINITION><FOR>a</FOR><TABLE>1 0</TABLE></DEFINITION><DEFINITION><FOR>a</FOR>",
            r"'a' has two <DEFINITION>",
        ),
        ("<OUTCOME>a0</OUTCOME><OUTCOME>a1</OUTCOME>", "", r"variable 'a' has no <OUTCOME>"),
        ("<OUTCOME>a1</OUTCOME>", "<OUTCOME>a0</OUTCOME>", r"variable 'a' lists the outcome 'a0' twice"),
        (
            '<VARIABLE TYPE="nature"><NAME>a</NAME>',
            '<VARIABLE TYPE="decision"><NAME>a</NAME>',
            r"'a' has TYPE='decision'",
        ),
        ("<GIVEN>a</GIVEN>", "<GIVEN>c</GIVEN>", r"definition of 'c'.*repeat a variable"),
        ("</NETWORK>", "", r"not well-formed XML"),
        ("<BIF VERSION", "<!DOCTYPE BIF [<!ENTITY x 'y'>]><BIF VERSION", r"entity declarations"),
    ],
)
def test_read_xmlbif_errors_name_the_file_and_variable(old, new, message, tmp_path):
    path = tmp_path / "broken.xml"
    path.write_text(_broken(old, new), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^XMLBIF file '{re.escape(str(path))}'[:,].*{message}"):
        read_xmlbif(path)
    with pytest.raises(ValueError, match=rf"^XMLBIF text[:,].*{message}"):
        read_xmlbif(_broken(old, new))


def test_read_xmlbif_cycle_and_source_errors(tmp_path):
    cyclic = _broken("<FOR>a</FOR><TABLE>0.3 0.7</TABLE>", "<FOR>a</FOR><GIVEN>c</GIVEN><TABLE>0.3 0.7 0.5 0.5</TABLE>")
    with pytest.raises(ValueError, match=r"^XMLBIF text: .*cycle"):
        read_xmlbif(cyclic)
    with pytest.raises(ValueError, match="neither XMLBIF text nor an existing file"):
        read_xmlbif(str(tmp_path / "absent.xml"))
    with pytest.raises(TypeError, match="`source` must be"):
        read_xmlbif(3)
    # Within `atol`, a distribution is accepted and renormalized.
    loose = _broken("<TABLE>0.2 0.5 0.3</TABLE>", "<TABLE>0.2 0.5 0.30001</TABLE>")
    with pytest.raises(ValueError, match="pass a larger `atol`"):
        read_xmlbif(loose)
    np.testing.assert_allclose(read_xmlbif(loose, atol=1e-4).cpts["b"].sum(), 1.0, atol=1e-15)


# pgmpy and pyAgrum: files written by them are read back with the same CPTs.


def _alarm_bif_file(tmp_path):
    """The bundled ALARM BIF, decompressed, for the other libraries to read."""
    path = tmp_path / "alarm.bif"
    path.write_text(write_bif(load_network("alarm")), encoding="utf-8")
    return path


def _pgmpy_write(writer, path):
    """``writer.write`` (pgmpy >= 1.1), else the older ``write_xmlbif``."""
    (writer.write if hasattr(writer, "write") else writer.write_xmlbif)(str(path))


def test_read_xmlbif_of_pgmpy_files(tmp_path):
    pytest.importorskip("pgmpy", reason="pgmpy writes the XMLBIF files this test reads")
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyNetwork
    from pgmpy.readwrite import BIFReader, XMLBIFReader, XMLBIFWriter

    # A network built in pgmpy: its CPD columns run over (a, b), b fastest.
    states = {"a": ["a0", "a1"], "b": ["b0", "b1", "b2"], "c": ["c0", "c1"]}
    model = PgmpyNetwork([("a", "c"), ("b", "c")])
    model.add_cpds(
        TabularCPD("a", 2, [[0.3], [0.7]], state_names={"a": states["a"]}),
        TabularCPD("b", 3, [[0.2], [0.5], [0.3]], state_names={"b": states["b"]}),
        TabularCPD(
            "c",
            2,
            [[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]],
            evidence=["a", "b"],
            evidence_card=[2, 3],
            state_names=states,
        ),
    )
    _pgmpy_write(XMLBIFWriter(model), tmp_path / "tiny.xml")
    bn = read_xmlbif(tmp_path / "tiny.xml")
    expected = _tiny_network()
    assert bn.cpts["c"].tolist() == expected.cpts["c"].tolist()
    assert bn.parents == expected.parents and bn.states["b"] == states["b"]
    # ALARM read by pgmpy from BIF (it sorts the variables) and written as XMLBIF; and pgmpy reads ours.
    alarm = load_network("alarm")
    _pgmpy_write(XMLBIFWriter(BIFReader(str(_alarm_bif_file(tmp_path))).get_model()), tmp_path / "alarm.xml")
    _assert_same_network(alarm, read_xmlbif(tmp_path / "alarm.xml"), atol=1e-15, same_order=False)
    write_xmlbif(alarm, tmp_path / "ours.xml")
    theirs = XMLBIFReader(str(tmp_path / "ours.xml")).get_model()
    for v in alarm.variables:
        cpd = theirs.get_cpds(v)  # values of shape (r_child, prod r_parents), the last parent fastest
        assert cpd.variables == [v, *alarm.parents[v]] and cpd.state_names[v] == alarm.states[v]
        table = cpd.get_values().T.reshape(alarm.cpts[v].shape)
        np.testing.assert_allclose(table, alarm.cpts[v], rtol=0, atol=1e-15, err_msg=v)


def test_read_xmlbif_of_pyagrum_files(tmp_path):
    gum = pytest.importorskip("pyagrum", reason="pyAgrum writes the XMLBIF files this test reads")
    # A network built in pyAgrum (saveBN writes XMLBIF for the extension .bifxml).
    bn = gum.BayesNet("tiny")
    bn.add(gum.LabelizedVariable("a", "a", ["a0", "a1"]))
    bn.add(gum.LabelizedVariable("b", "b", ["b0", "b1", "b2"]))
    bn.add(gum.LabelizedVariable("c", "c", ["c0", "c1"]))
    bn.addArc("a", "c")
    bn.addArc("b", "c")
    bn.cpt("a").fillWith([0.3, 0.7])
    bn.cpt("b").fillWith([0.2, 0.5, 0.3])
    for (a, b), row in zip(
        itertools.product(["a0", "a1"], ["b0", "b1", "b2"]), _tiny_network().cpts["c"].reshape(-1, 2)
    ):
        bn.cpt("c")[{"a": a, "b": b}] = row.tolist()
    gum.saveBN(bn, str(tmp_path / "tiny.bifxml"))
    ours = read_xmlbif(tmp_path / "tiny.bifxml")
    assert ours.cpts["c"].tolist() == _tiny_network().cpts["c"].tolist()
    assert ours.name == "tiny" and ours.parents["c"] == ("a", "b")
    # ALARM read by pyAgrum from BIF and written as XMLBIF (6 significant digits: atol=1e-5);
    # pyAgrum reorders some parents, so the CPTs are compared with their axes aligned.
    alarm = load_network("alarm")
    gum.saveBN(gum.loadBN(str(_alarm_bif_file(tmp_path))), str(tmp_path / "alarm.bifxml"))
    _assert_same_network(alarm, read_xmlbif(tmp_path / "alarm.bifxml", atol=1e-5), atol=1e-6, same_order=False)
    # pyAgrum reads ours, all CPTs equal (its arrays have the axes of ``names`` reversed).
    write_xmlbif(alarm, tmp_path / "ours.bifxml")
    theirs = gum.loadBN(str(tmp_path / "ours.bifxml"))
    assert theirs.size() == len(alarm.variables) and theirs.sizeArcs() == alarm.n_edges
    for v in alarm.variables:
        tensor = theirs.cpt(v)
        axes = list(tensor.names)[::-1]
        table = np.transpose(tensor.toarray(), [axes.index(p) for p in (*alarm.parents[v], v)])
        np.testing.assert_allclose(table, alarm.cpts[v], rtol=0, atol=1e-15, err_msg=v)


# ---------------------------------------------------------------- UAI

# The example of the UAI 2008 format page (http://graphmod.ics.uci.edu/uai08/FileFormat):
# P(x0) P(x1 | x0) P(x2 | x1), the last variable of each scope varying fastest.
SPEC_BAYES = """BAYES
3
2 2 3
3
1 0
2 0 1
2 1 2

2
 0.436 0.564

4
 0.128 0.872
 0.920 0.080

6
 0.210 0.333 0.457
 0.811 0.000 0.189
"""


def _positional(bn):
    """`bn` with the names a UAI file gives: variables "0", "1", ... by position, states "0", "1", ... by code."""
    name = {v: str(j) for j, v in enumerate(bn.variables)}
    return DiscreteBayesianNetwork(
        {name[v]: tuple(name[p] for p in bn.parents[v]) for v in bn.variables},
        {name[v]: [str(s) for s in range(bn.cardinalities[v])] for v in bn.variables},
        {name[v]: bn.cpts[v] for v in bn.variables},
    )


def _assert_same_factors(a, b, *, atol=0.0):
    assert a.variables == b.variables and a.cardinalities == b.cardinalities
    assert [scope for scope, _ in a.factors] == [scope for scope, _ in b.factors]
    for (_, x), (_, y) in zip(a.factors, b.factors):
        np.testing.assert_allclose(x, y, rtol=0, atol=atol)


def test_read_uai_the_format_example():
    bn = read_uai(SPEC_BAYES)
    assert bn.variables == ["0", "1", "2"]
    assert bn.parents == {"0": (), "1": ("0",), "2": ("1",)}
    assert bn.states["2"] == ["0", "1", "2"]
    assert bn.cpts["1"][0, 1] == 0.872  # P(x1 = 1 | x0 = 0)
    assert bn.cpts["2"][1].tolist() == [0.811, 0.0, 0.189]  # P(x2 | x1 = 1)
    assert write_uai(bn) == write_uai(read_uai(write_uai(bn)))


def test_read_uai_skips_comments_and_layout():
    text = "c an example\nc\n" + SPEC_BAYES.replace("1 0\n", "1 0   # x0\n").replace("\n\n", "\n")
    assert read_uai(text).to_dict() == read_uai(SPEC_BAYES).to_dict()
    one_line = " ".join(SPEC_BAYES.split())
    assert read_uai(one_line).to_dict() == read_uai(SPEC_BAYES).to_dict()
    assert read_uai(SPEC_BAYES.replace("BAYES", "bayes")).to_dict() == read_uai(SPEC_BAYES).to_dict()


@pytest.mark.parametrize("network", ["tiny", "alarm", "tan"])
def test_uai_bayes_round_trip_is_exact(network, tmp_path):
    if network == "tiny":
        bn = _tiny_network()
    elif network == "alarm":
        bn = load_network("alarm")
    else:
        X, y = gm.datasets.load("car", return_X_y=True)
        bn = TAN().fit(X, y).to_bayesian_network()
    text = write_uai(bn)
    assert text.startswith(f"BAYES\n{len(bn.variables)}\n")
    back = read_uai(text)
    assert isinstance(back, DiscreteBayesianNetwork)
    expected = _positional(bn)
    _assert_same_network(expected, back, atol=1e-15)
    assert back.to_dict() == expected.to_dict()  # exactly: 17 significant digits
    for path in [tmp_path / "net.uai", tmp_path / "net.uai.gz"]:
        write_uai(bn, path)
        assert read_uai(path).to_dict() == expected.to_dict()
    with open(tmp_path / "net.uai", "rb") as fh:
        assert read_uai(fh).to_dict() == expected.to_dict()


def test_write_uai_bayes_scope_lists_the_parents_then_the_child():
    text = write_uai(_tiny_network()).splitlines()
    # a, b, c with c's parents (a, b): c's scope is "3 0 1 2", and its table one distribution per line.
    assert text[:7] == ["BAYES", "3", "2 3 2", "3", "1 0", "1 1", "3 0 1 2"]
    assert text[-7:] == ["12", " 0.1 0.9", " 0.2 0.8", " 0.3 0.7", " 0.4 0.6", " 0.5 0.5", " 0.6 0.4"]


def _markov_network():
    return DiscreteMarkovNetwork(
        {"x": 2, "y": 3, "z": 2},
        [
            (("y", "x"), [[1.0, 2.0], [3.0, 4.0], [5.0, 0.0]]),
            (("z",), [0.5, 1.5]),
            ((), 7.0),
            (("x", "y", "z"), np.arange(1.0, 13.0).reshape(2, 3, 2) / 7),
        ],
        name="toy",
    )


def test_uai_markov_round_trip_is_exact(tmp_path):
    mn = _markov_network()
    text = write_uai(mn)
    lines = text.splitlines()
    assert lines[:8] == ["MARKOV", "3", "2 3 2", "4", "2 1 0", "1 2", "0", "3 0 1 2"]
    assert lines[9:13] == ["6", " 1.0 2.0", " 3.0 4.0", " 5.0 0.0"]  # y slowest, x fastest
    back = read_uai(text)
    assert isinstance(back, DiscreteMarkovNetwork)
    expected = DiscreteMarkovNetwork(
        {"0": 2, "1": 3, "2": 2}, [(tuple({"x": "0", "y": "1", "z": "2"}[v] for v in s), t) for s, t in mn.factors]
    )
    _assert_same_factors(expected, back)
    assert back.log_partition() == pytest.approx(mn.log_partition(), abs=1e-12)
    write_uai(mn, tmp_path / "toy.uai.gz")
    _assert_same_factors(expected, read_uai(tmp_path / "toy.uai.gz"))


def test_markov_network_partition_function_by_brute_force():
    mn = _markov_network()
    grid = np.array(list(itertools.product(range(2), range(3), range(2))))
    unnormalized = np.ones(len(grid))
    position = {"x": 0, "y": 1, "z": 2}
    for scope, table in mn.factors:
        unnormalized *= table[tuple(grid[:, position[v]] for v in scope)]
    assert np.exp(mn.log_partition()) == pytest.approx(unnormalized.sum(), rel=1e-12)
    np.testing.assert_allclose(np.exp(mn.log_likelihood_codes(grid)), unnormalized / unnormalized.sum(), atol=1e-15)
    assert sorted(mn.graph.edges) == [("x", "y"), ("x", "z"), ("y", "z")]


# HyperforestDensity as a Markov network


@pytest.mark.parametrize(
    "dataset, treewidth", [("iris", 1), ("iris", 2), ("car", 2), ("tic-tac-toe", 2), ("mixed", 1), ("mixed", 2)]
)
def test_hyperforest_density_markov_network_is_score_samples(dataset, treewidth):
    X, y = _data(dataset)
    data = X.assign(target=y.to_numpy())
    model = HyperforestDensity(treewidth=treewidth).fit(data)
    mn = model.to_markov_network()
    assert mn.variables == [str(c) for c in data.columns]
    assert [mn.cardinalities[str(c)] for c in data.columns] == list(model.encoder_.cardinalities_)
    assert len(mn.factors) == len(model.network_["cliques"])
    assert max(len(scope) for scope, _ in mn.factors) <= treewidth + 1
    assert mn.log_partition() == pytest.approx(0.0, abs=1e-12)
    rows = data.sample(40, random_state=0)
    np.testing.assert_allclose(mn.log_likelihood_codes(encoded(model, rows)), model.score_samples(rows), atol=1e-9)
    # The MARKOV file gives the same density.
    back = read_uai(write_uai(mn))
    np.testing.assert_allclose(back.log_likelihood_codes(encoded(model, rows)), model.score_samples(rows), atol=1e-9)


def test_hyperforest_density_markov_network_sums_to_one_by_enumeration():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 200)
    frame = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, 200)) % 3, "c": rng.integers(0, 2, 200)})
    model = HyperforestDensity(treewidth=2).fit(frame)
    mn = model.to_markov_network()
    grid = np.array(list(itertools.product(*(range(mn.cardinalities[v]) for v in mn.variables))))
    assert np.exp(mn.log_likelihood_codes(grid)).sum() == pytest.approx(1.0, abs=1e-12)
    product = np.zeros(len(grid))
    for scope, table in mn.factors:
        with np.errstate(divide="ignore"):
            product += np.log(table)[tuple(grid[:, mn.variables.index(v)] for v in scope)]
    np.testing.assert_allclose(product, mn.log_likelihood_codes(grid), atol=1e-12)  # Z = 1: the product is P


def test_to_markov_network_unfitted_and_write_uai_of_a_model():
    with pytest.raises(gm.models.NotFittedError):
        HyperforestDensity().to_markov_network()
    X, y = gm.datasets.load("car", return_X_y=True)
    with pytest.raises(TypeError, match=r"got TAN; write model.to_bayesian_network\(\)"):
        write_uai(TAN().fit(X, y))
    with pytest.raises(TypeError, match=r"got HyperforestDensity; write model.to_markov_network\(\)"):
        write_uai(HyperforestDensity().fit(X))


def _spec_with(old, new):
    assert old in SPEC_BAYES
    return SPEC_BAYES.replace(old, new, 1)


MARKOV_TEXT = "MARKOV\n2\n2 2\n1\n2 0 1\n4\n 1.0 2.0\n 3.0 4.0\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (_spec_with("BAYES", "CSP"), r"line 1: the network type must be BAYES or MARKOV, got 'CSP'"),
        (_spec_with("2 2 3", "2 two 3"), r"line 3: expected the cardinality of variable 1 \(an integer\), got 'two'"),
        (_spec_with("2 2 3", "2 0 3"), r"line 3: the cardinality of variable 1 must be >= 1, got 0"),
        (_spec_with("2 1 2", "2 1 3"), r"line 7: a variable of function 2 must be in 0..2, got 3"),
        (_spec_with("2 1 2", "2 1 1"), r"line 7: the scope of function 2 repeats a variable: \[1, 1\]"),
        (
            _spec_with("\n4\n", "\n5\n"),
            r"line 12: the table of function 1 over variables \[0, 1\] .* must have 4 entries, got 5",
        ),
        (_spec_with("0.128", "0.1x8"), r"line 13: the table of function 1 holds '0.1x8', which is not a number"),
        (SPEC_BAYES.rsplit("0.189", 1)[0], r"the table of function 2 must hold 6 numbers, but the text ends after 5"),
        (SPEC_BAYES + " 0.5\n", r"numbers are left after the last table, starting with '0.5'"),
        (
            _spec_with("0.920 0.080", "0.920 0.090"),
            r"function 1 \(the CPT of variable 1\): the distribution of '1' given 0=1 sums to",
        ),
        (_spec_with("2 1 2", "2 2 1"), r"variable 1 is the child \(last in the scope\) of functions 1 and 2"),
        (_spec_with("3\n1 0", "2\n1 0").replace("2 1 2\n", "").rsplit("6\n", 1)[0], r"3 variables, got 2 functions"),
        (  # P(x0 | x2), P(x1 | x0), P(x2 | x1)
            _spec_with("1 0\n", "2 2 0\n").replace("2\n 0.436 0.564", "6\n 0.436 0.564 0.5 0.5 0.2 0.8"),
            r"the graph must be acyclic",
        ),
        (
            MARKOV_TEXT.replace("3.0", "-3.0"),
            r"function 0 over variables \[0, 1\] must hold finite numbers >= 0, got -3.0",
        ),
        (MARKOV_TEXT.replace("2 0 1", "3 0 1 1"), r"line 5: the scope size of function 0 must be in 0..2, got 3"),
    ],
)
def test_read_uai_errors_name_the_file(text, message, tmp_path):
    path = tmp_path / "broken.uai"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^UAI file '{re.escape(str(path))}'[:,].*{message}"):
        read_uai(path)
    with pytest.raises(ValueError, match=rf"^UAI text[:,].*{message}"):
        read_uai(text)


def test_read_uai_source_errors(tmp_path):
    with pytest.raises(ValueError, match="neither UAI text nor an existing file"):
        read_uai(str(tmp_path / "absent.uai"))
    with pytest.raises(TypeError, match="`source` must be"):
        read_uai(2.5)
    with pytest.raises(ValueError, match=r"^UAI text, line 1: the text ends where the number of variables"):
        read_uai("MARKOV ")


def _pgmpy_uai(writer, path):
    (writer.write if hasattr(writer, "write") else writer.write_uai)(str(path))


def test_uai_and_pgmpy(tmp_path):
    pytest.importorskip("pgmpy", reason="pgmpy writes and reads the UAI files of this test")
    from pgmpy.factors.discrete import DiscreteFactor, TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyNetwork
    from pgmpy.models import DiscreteMarkovNetwork as PgmpyMarkov
    from pgmpy.readwrite import UAIReader, UAIWriter

    # MARKOV: pgmpy flattens each factor in the order of its scope, as the format says.
    theirs = PgmpyMarkov([("a", "b"), ("b", "c")])
    ab = DiscreteFactor(["a", "b"], [2, 3], np.arange(1.0, 7.0))
    bc = DiscreteFactor(["b", "c"], [3, 2], [0.5, 1.0, 2.0, 0.25, 4.0, 3.0])
    theirs.add_factors(ab, bc)
    _pgmpy_uai(UAIWriter(theirs), tmp_path / "pgmpy_markov.uai")
    ours = read_uai(tmp_path / "pgmpy_markov.uai")
    # pgmpy numbers the variables by (cardinality, name): a, c (2 states), then b (3 states).
    index = {"a": "0", "c": "1", "b": "2"}
    assert ours.cardinalities == {"0": 2, "1": 2, "2": 3}
    for factor, (scope, table) in zip([ab, bc], ours.factors):
        assert scope == tuple(index[v] for v in factor.scope())
        np.testing.assert_allclose(table, factor.values, rtol=0, atol=1e-15)
    # pgmpy reads our MARKOV files (its grammar takes no constant factor: the scopes are not empty).
    mine = [(scope, table) for scope, table in _markov_network().factors if scope]
    write_uai(DiscreteMarkovNetwork(_markov_network().cardinalities, mine), tmp_path / "ours_markov.uai")
    model = UAIReader(str(tmp_path / "ours_markov.uai")).get_model()
    read_back = model.get_factors()
    assert len(read_back) == len(mine)
    for (scope, table), factor in zip(mine, read_back):
        assert factor.scope() == [f"var_{'xyz'.index(v)}" for v in scope]
        np.testing.assert_allclose(factor.values, table, rtol=0, atol=1e-15)

    # BAYES: pgmpy (1.1) lets the child vary slowest. The reader takes its files when they
    # follow the format and otherwise refuses them, naming the file: never a silent misreading.
    bn = PgmpyNetwork([("a", "c"), ("b", "c")])
    bn.add_cpds(
        TabularCPD("a", 2, [[0.3], [0.7]]),
        TabularCPD("b", 3, [[0.2], [0.5], [0.3]]),
        TabularCPD("c", 2, [[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]], ["a", "b"], [2, 3]),
    )
    path = tmp_path / "pgmpy_bayes.uai"
    _pgmpy_uai(UAIWriter(bn), path)
    try:
        read = read_uai(path)
    except ValueError as error:
        assert str(error).startswith(f"UAI file {str(path)!r}") and "sums to" in str(error)
    else:  # a pgmpy that follows the format: the same CPTs
        child = next(v for v in read.variables if len(read.parents[v]) == 2)
        assert sorted(read.cpts[child].reshape(-1, 2).tolist()) == sorted(
            [[0.1, 0.9], [0.2, 0.8], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.6, 0.4]]
        )


def test_uai_and_pyagrum(tmp_path):
    gum = pytest.importorskip("pyagrum", reason="pyAgrum writes and reads the UAI files of this test")
    # Naive Bayes (every variable has at most one parent), where pyAgrum's table order is the format's.
    X, y = gm.datasets.load("car", return_X_y=True)
    bn = NaiveBayes().fit(X, y).to_bayesian_network()
    expected = _positional(bn)
    write_uai(bn, tmp_path / "nb.uai")
    theirs = gum.loadBN(str(tmp_path / "nb.uai"))
    assert theirs.size() == len(bn.variables) and theirs.sizeArcs() == bn.n_edges
    for j, v in enumerate(expected.variables):
        tensor = theirs.cpt(j)
        axes = list(tensor.names)[::-1]  # pyAgrum's arrays have the axes of `names` reversed
        names = [theirs.variable(int(p)).name() for p in expected.parents[v]] + [theirs.variable(j).name()]
        table = np.transpose(tensor.toarray(), [axes.index(n) for n in names])
        # pyAgrum's UAI reader keeps about 8 significant digits.
        np.testing.assert_allclose(table, expected.cpts[v], rtol=1e-7, atol=0, err_msg=v)
    # pyAgrum's own file (6 significant digits, the names as '#' comments) reads back.
    gum.saveBN(theirs, str(tmp_path / "pyagrum.uai"))
    _assert_same_network(expected, read_uai(tmp_path / "pyagrum.uai", atol=1e-5), atol=1e-6)
