"""Networks to and from pgmpy and pyAgrum (the converters of ``graphmodels.io``).

Each library's own inference answers the queries on the exported networks: pgmpy's
``VariableElimination`` and pyAgrum's ``LazyPropagation`` must give graphmodels' marginals of
ALARM (exact, by the junction tree of ``graphmodels.inference``) and the classifiers'
``predict_proba`` to 1e-9, with attributes left unobserved in some rows. Tests that need pgmpy
or pyAgrum are skipped without them (``pip install -e ".[interop]"``; CI installs it); the
error and layout checks that need neither always run.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.inference import log_marginals
from graphmodels.io import from_pgmpy, from_pyagrum, load_network, to_pgmpy, to_pyagrum
from graphmodels.models import (
    AODE,
    KDB,
    TAN,
    ChowLiu,
    HierarchicalNaiveBayes,
    HyperforestClassifier,
    KikuchiBayes,
    MultiDimensionalTAN,
    NaiveBayes,
)
from graphmodels.networks import DiscreteBayesianNetwork, random_multidimensional_network

SKIP_REASON = "needs the interop extra: pip install 'graphmodels[interop]'"


@pytest.fixture
def pgmpy():
    return pytest.importorskip("pgmpy", reason=SKIP_REASON)


@pytest.fixture
def gum():
    return pytest.importorskip("pyagrum", reason=SKIP_REASON)


# ---------------------------------------------------------------------------- inference helpers
def graphmodels_posteriors(bn, evidence, queries):
    """``P(q | evidence)`` for each query by graphmodels' junction tree; `evidence` maps names to labels."""
    position = {v: j for j, v in enumerate(bn.variables)}
    factors = []
    with np.errstate(divide="ignore"):
        for v in bn.variables:
            scope = [position[p] for p in bn.parents[v]] + [position[v]]
            factors.append((scope, np.log(bn.cpts[v])[None]))
    for v, label in evidence.items():
        indicator = np.full(bn.cardinalities[v], -np.inf)
        indicator[bn.states[v].index(label)] = 0.0
        factors.append(([position[v]], indicator[None]))
    marginals, log_z = log_marginals(factors, [bn.cardinalities[v] for v in bn.variables], 1)
    return {q: np.exp(marginals[position[q]][0] - log_z[0]) for q in queries}


def pgmpy_posteriors(network, evidence, queries):
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(network)
    out = {}
    for q in queries:
        factor = engine.query([q], evidence=evidence or None, show_progress=False)
        assert factor.state_names[q] == network.get_cpds(q).state_names[q]  # values in our state order
        out[q] = np.asarray(factor.values, dtype=np.float64)
    return out


def pyagrum_posteriors(network, evidence, queries):
    import pyagrum

    engine = pyagrum.LazyPropagation(network)
    engine.setEvidence(dict(evidence))  # string values are labels (an int would be an index)
    engine.makeInference()
    return {q: np.asarray(engine.posterior(q).toarray(), dtype=np.float64) for q in queries}


def evidence_rows(model, bn, X):
    """Per row of `X`, the observed cells as {network variable: state label}; cells coded -1 are left out."""
    frame = X[list(model.encoder_.columns_)]
    if getattr(model, "discretizer_", None) is not None:
        frame = model.discretizer_.transform(frame)
    codes = model.encoder_.transform(frame)
    rows = []
    for r in range(codes.shape[0]):
        row = {}
        for j, column in enumerate(model.encoder_.columns_):
            name = str(column)
            if name in bn.cardinalities and codes[r, j] >= 0:
                row[name] = bn.states[name][codes[r, j]]
        rows.append(row)
    return rows


def assert_same_network(a, b, atol=1e-12):
    assert a.variables == b.variables
    assert a.parents == b.parents
    assert a.states == b.states
    for v in a.variables:
        np.testing.assert_allclose(b.cpts[v], a.cpts[v], rtol=0, atol=atol)


# ---------------------------------------------------------------------------- a hand-checked layout
def _three_nodes(parent_order=("a", "b")):
    """c (4 states) under a (2) and b (3): each CPT cell a distinct number."""
    cards = {"a": 2, "b": 3}
    raw = np.arange(1.0, 1.0 + 2 * 3 * 4).reshape(2, 3, 4)  # axes (a, b, c)
    raw = raw / raw.sum(axis=-1, keepdims=True)
    table = raw if parent_order == ("a", "b") else raw.transpose(1, 0, 2)
    return DiscreteBayesianNetwork(
        parents={"a": (), "b": (), "c": parent_order},
        states={v: [f"{v}{k}" for k in range(r)] for v, r in {**cards, "c": 4}.items()},
        cpts={"a": [0.3, 0.7], "b": [0.2, 0.3, 0.5], "c": table},
        name="three",
    ), raw


@pytest.mark.parametrize("parent_order", [("a", "b"), ("b", "a")])
def test_pgmpy_cpd_layout_by_hand(pgmpy, parent_order):
    bn, raw = _three_nodes(parent_order)
    cpd = to_pgmpy(bn).get_cpds("c")
    assert cpd.variables == ["c", *parent_order]
    values = cpd.get_values()  # (r_c, configurations of the evidence, the last varying fastest)
    cards = {"a": 2, "b": 3}
    for i in range(2):
        for j in range(3):
            index = {"a": i, "b": j}
            column = index[parent_order[0]] * cards[parent_order[1]] + index[parent_order[1]]
            np.testing.assert_array_equal(values[:, column], raw[i, j])
    assert cpd.state_names == {"c": ["c0", "c1", "c2", "c3"], "a": ["a0", "a1"], "b": ["b0", "b1", "b2"]}


@pytest.mark.parametrize("parent_order", [("a", "b"), ("b", "a")])
def test_pyagrum_cpt_layout_by_hand(gum, parent_order):
    bn, raw = _three_nodes(parent_order)
    network = to_pyagrum(bn)
    cpt = network.cpt("c")
    assert cpt.names == ("c", *parent_order)  # the child first, then the parents in arc order
    # toarray's axes are in the reverse order of cpt.names (checked here, cell by cell)
    assert cpt.toarray().shape == tuple({"a": 2, "b": 3, "c": 4}[v] for v in reversed(cpt.names))
    instantiation = gum.Instantiation(cpt)
    for i in range(2):
        for j in range(3):
            for k in range(4):
                instantiation.chgVal("a", i)
                instantiation.chgVal("b", j)
                instantiation.chgVal("c", k)
                assert cpt.get(instantiation) == raw[i, j, k]
    assert [network.variable("c").label(k) for k in range(4)] == ["c0", "c1", "c2", "c3"]
    assert network.property("name") == "three"


@pytest.mark.parametrize("parent_order", [("a", "b"), ("b", "a")])
def test_round_trips_keep_the_parent_order(pgmpy, gum, parent_order):
    bn, _ = _three_nodes(parent_order)
    for back in (from_pgmpy(to_pgmpy(bn)), from_pyagrum(to_pyagrum(bn))):
        assert_same_network(bn, back, atol=0)
        assert back.name == "three"


# ---------------------------------------------------------------------------- ALARM
@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm")


def test_alarm_round_trip_pgmpy(pgmpy, alarm):
    network = to_pgmpy(alarm)
    assert network.check_model()
    assert list(network.nodes()) == alarm.variables
    assert sorted(network.edges()) == sorted(alarm.graph.edges())
    back = from_pgmpy(network)
    assert_same_network(alarm, back)
    assert back.name == alarm.name


def test_alarm_round_trip_pyagrum(gum, alarm):
    network = to_pyagrum(alarm)
    assert network.size() == 37 and network.sizeArcs() == 46
    back = from_pyagrum(network)
    assert_same_network(alarm, back)
    assert back.name == alarm.name


ALARM_QUERIES = ["HYPOVOLEMIA", "LVFAILURE", "CATECHOL", "HR", "BP", "INTUBATION", "VENTLUNG"]
ALARM_EVIDENCE = [
    {},
    {"HRBP": "HIGH", "CVP": "LOW"},
    {"SAO2": "LOW", "MINVOL": "ZERO", "HISTORY": "TRUE", "EXPCO2": "LOW"},
]


@pytest.mark.parametrize("evidence", ALARM_EVIDENCE, ids=["prior", "two-findings", "four-findings"])
def test_alarm_marginals_agree(pgmpy, gum, alarm, evidence):
    mine = graphmodels_posteriors(alarm, evidence, ALARM_QUERIES)
    theirs = [
        pgmpy_posteriors(to_pgmpy(alarm), evidence, ALARM_QUERIES),
        pyagrum_posteriors(to_pyagrum(alarm), evidence, ALARM_QUERIES),
    ]
    for q in ALARM_QUERIES:
        assert mine[q].sum() == pytest.approx(1.0, abs=1e-12)
        for other in theirs:
            np.testing.assert_allclose(other[q], mine[q], rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------- fitted classifiers
def _iris():
    # numeric columns, cut by the default discretizer: the states are interval labels
    return gm.datasets.load("iris", return_X_y=True)


def _same_or_different(seed=0):
    # y = (a == b) needs a latent over (a, b): HierarchicalNaiveBayes finds it
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd")).astype(str)
    return X, pd.Series(np.where(X["a"] == X["b"], "same", "different"), name="class")


def _test_rows(X, seed):
    """10 rows of `X`; row 0 has one attribute unobserved (NaN, never in fit), row 1 a value never seen."""
    rng = np.random.default_rng(seed)
    rows = X.iloc[rng.choice(len(X), size=10, replace=False)].reset_index(drop=True).copy()
    rows.iloc[0, 0] = np.nan
    text = [j for j in range(X.shape[1]) if not pd.api.types.is_numeric_dtype(X.dtypes.iloc[j])]
    if text:
        rows.iloc[1, text[-1]] = "never seen in fit"
    return rows


CLASSIFIERS = {
    "tan-car": (lambda: TAN(), lambda: gm.datasets.load("car", return_X_y=True)),
    "nb-iris": (lambda: NaiveBayes(), _iris),
    "kdb2-tic-tac-toe": (lambda: KDB(k=2), lambda: gm.datasets.load("tic-tac-toe", return_X_y=True)),
    "hnb-latent": (lambda: HierarchicalNaiveBayes(random_state=0), _same_or_different),
}


@pytest.mark.parametrize("key", list(CLASSIFIERS))
def test_class_posteriors_agree_with_predict_proba(pgmpy, gum, key):
    make_model, load = CLASSIFIERS[key]
    X, y = load()
    model = make_model().fit(X, y)
    bn = model.to_bayesian_network()
    if key == "hnb-latent":
        assert any(v not in X.columns and v != "class" for v in bn.variables)  # a latent is summed out
    rows = _test_rows(X, seed=0)
    evidence = evidence_rows(model, bn, rows)
    assert len(evidence[0]) < X.shape[1]  # the unobserved attribute is left out
    expected = model.predict_proba(rows)
    class_name = bn.variables[0]
    assert bn.states[class_name] == [str(c) for c in model.classes_]
    networks = {"pgmpy": (to_pgmpy(model), pgmpy_posteriors), "pyagrum": (to_pyagrum(model), pyagrum_posteriors)}
    for library, (network, posteriors) in networks.items():
        got = np.array([posteriors(network, row, [class_name])[class_name] for row in evidence])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9, err_msg=library)


def test_multidimensional_marginal_posteriors_agree(pgmpy, gum):
    network, _ = random_multidimensional_network(3, 5, feature_arcs=True, random_state=0)
    data = network.sample(300, random_state=1)
    X, Y = data.filter(like="A"), data.filter(like="C")
    model = MultiDimensionalTAN().fit(X, Y)
    bn = model.to_bayesian_network()
    rows = X.sample(8, random_state=0).reset_index(drop=True)
    rows.loc[0, "A1"] = np.nan
    rows.loc[1, ["A2", "A3"]] = "never seen in fit"
    evidence = evidence_rows(model, bn, rows)
    assert len(evidence[0]) == 4 and len(evidence[1]) == 3
    expected = model.predict_proba(rows)  # one (n_rows, r_label) array per label
    labels = list(Y.columns)
    for library, network, posteriors in [
        ("pgmpy", to_pgmpy(model), pgmpy_posteriors),
        ("pyagrum", to_pyagrum(model), pyagrum_posteriors),
    ]:
        got = [posteriors(network, row, labels) for row in evidence]
        for j, label in enumerate(labels):
            np.testing.assert_allclose(
                np.array([g[label] for g in got]), expected[j], rtol=0, atol=1e-9, err_msg=f"{library} {label}"
            )


# ---------------------------------------------------------------------------- names that must survive
def _odd_names_frame(seed=0):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.integers(3, size=n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(3, size=n))
    b = np.where(rng.random(n) < 0.6, (a + 1) % 3, rng.integers(3, size=n))
    X = pd.DataFrame(
        {
            "petal length #1": [["1", "10", "2"][v] for v in a],  # labels that sort as strings, not numbers
            "température (°C)": [["a b", "#", "é"][v] for v in b],
            "x": rng.integers(2, size=n).astype(str),
        }
    )
    return X, pd.Series([["1", "10", "2"][v] for v in y], name="class label")


@pytest.mark.parametrize("cls", [NaiveBayes, TAN])
def test_names_and_labels_survive(pgmpy, gum, cls):
    X, y = _odd_names_frame()
    model = cls().fit(X, y)
    bn = model.to_bayesian_network()
    assert bn.variables == ["class label", *X.columns]
    assert bn.states["class label"] == ["1", "10", "2"]  # classes_, sorted
    # An attribute's states in the data's order (text: first appearance), not sorted.
    assert bn.states["température (°C)"] == list(pd.unique(X["température (°C)"])) != ["#", "a b", "é"]
    assert_same_network(bn, from_pgmpy(to_pgmpy(model)), atol=0)
    assert_same_network(bn, from_pyagrum(to_pyagrum(model)), atol=0)
    network = to_pyagrum(model)
    assert network.variable("petal length #1").labels() == tuple(pd.unique(X["petal length #1"]))
    # evidence by label: "2" is the label "2", "10" the label "10", whatever their codes
    rows = pd.DataFrame({"petal length #1": ["2", "10"], "température (°C)": ["é", "#"], "x": [np.nan, "1"]})
    evidence = evidence_rows(model, bn, rows)
    assert evidence[0] == {"petal length #1": "2", "température (°C)": "é"}
    expected = model.predict_proba(rows)
    for network, posteriors in [(to_pgmpy(model), pgmpy_posteriors), (to_pyagrum(model), pyagrum_posteriors)]:
        got = np.array([posteriors(network, row, ["class label"])["class label"] for row in evidence])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


def test_from_pgmpy_writes_other_names_and_states_as_strings(pgmpy):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyNetwork

    network = PgmpyNetwork([(0, "y")])
    network.add_cpds(
        TabularCPD(0, 2, [[0.25], [0.75]], state_names={0: [10, 20]}),
        TabularCPD("y", 3, [[0.5, 0.1], [0.25, 0.1], [0.25, 0.8]], evidence=[0], evidence_card=[2]),
    )
    bn = from_pgmpy(network)
    assert bn.variables == ["0", "y"] and bn.parents["y"] == ("0",)
    assert bn.states == {"0": ["10", "20"], "y": ["0", "1", "2"]}
    np.testing.assert_array_equal(bn.cpts["y"], [[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
    assert bn.name is None


def test_from_pgmpy_refuses_incomplete_networks(pgmpy):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyNetwork

    network = PgmpyNetwork([("a", "b")])
    network.add_cpds(TabularCPD("a", 2, [[0.5], [0.5]]))
    with pytest.raises(ValueError, match="node 'b' has no CPD"):
        from_pgmpy(network)
    clash = PgmpyNetwork()
    clash.add_nodes_from([1, "1"])
    clash.add_cpds(TabularCPD(1, 2, [[0.5], [0.5]]), TabularCPD("1", 2, [[0.5], [0.5]]))
    with pytest.raises(ValueError, match=r"the variables \[1, '1'\] would all be named '1'"):
        from_pgmpy(clash)


def test_from_pyagrum_of_native_variables(gum):
    network = gum.BayesNet("native")
    network.add(gum.RangeVariable("level", "", 2, 4))
    network.add(gum.LabelizedVariable("flag", "", ["off", "on"]))
    network.addArc("level", "flag")
    network.cpt("level").fillWith([0.2, 0.3, 0.5])
    network.cpt("flag").fillWith([0.9, 0.1, 0.5, 0.5, 0.0, 1.0])  # flag varies fastest
    bn = from_pyagrum(network)
    assert bn.name == "native"
    assert bn.states == {"level": ["2", "3", "4"], "flag": ["off", "on"]}
    np.testing.assert_array_equal(bn.cpts["flag"], [[0.9, 0.1], [0.5, 0.5], [0.0, 1.0]])


def test_from_pyagrum_refuses_unfilled_tables(gum):
    network = gum.BayesNet()
    network.add(gum.LabelizedVariable("a", "", ["x", "y"]))  # CPT left all zeros
    with pytest.raises(ValueError, match="the distribution of 'a' sums to 0.0"):
        from_pyagrum(network)


def test_unnamed_network_stays_unnamed(pgmpy, gum):
    bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.5, 0.5]})
    assert from_pgmpy(to_pgmpy(bn)).name is None
    assert from_pyagrum(to_pyagrum(bn)).name is None


# ---------------------------------------------------------------------------- errors without the libraries
@pytest.mark.parametrize(
    "make",
    [lambda: ChowLiu(representation="free"), lambda: AODE(), lambda: HyperforestClassifier(), lambda: KikuchiBayes()],
    ids=["ChowLiu", "AODE", "HyperforestClassifier", "KikuchiBayes"],
)
@pytest.mark.parametrize("export", [to_pgmpy, to_pyagrum], ids=["to_pgmpy", "to_pyagrum"])
def test_models_that_are_not_one_network_are_refused(export, make):
    X, y = gm.datasets.load("car", return_X_y=True)
    model = make().fit(X.iloc[:300], y.iloc[:300])
    name = type(model).__name__
    with pytest.raises(TypeError, match=rf"{export.__name__}: {name} has no to_bayesian_network\(\) \(") as info:
        export(model)
    for exportable in ["NaiveBayes", "TAN", "KDB", "HierarchicalNaiveBayes", "MultiDimensionalTAN"]:
        assert exportable in str(info.value)
    # The message names what the model exports instead, and the model has it.
    instead = {
        "ChowLiu": "to_bayesian_networks",
        "AODE": "member_networks",
        "HyperforestClassifier": "to_markov_network",
        "KikuchiBayes": "to_markov_network",
    }[name]
    assert f"model.{instead}()" in str(info.value) and callable(getattr(model, instead))


@pytest.mark.parametrize("export", [to_pgmpy, to_pyagrum])
def test_other_objects_are_refused(export):
    with pytest.raises(TypeError, match=r"takes a DiscreteBayesianNetwork or a fitted model .* got builtins\.dict"):
        export({"a": ()})


def test_unfitted_model_raises_not_fitted():
    with pytest.raises(gm.models.NotFittedError):
        to_pgmpy(TAN())


def test_from_functions_refuse_other_objects(pgmpy, gum):
    bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.5, 0.5]})
    with pytest.raises(TypeError, match=r"from_pgmpy takes a pgmpy.models.DiscreteBayesianNetwork, got graphmodels"):
        from_pgmpy(bn)
    with pytest.raises(TypeError, match=r"from_pyagrum takes a pyagrum.BayesNet, got graphmodels"):
        from_pyagrum(bn)


@pytest.mark.parametrize(
    "function, module",
    [(to_pgmpy, "pgmpy"), (from_pgmpy, "pgmpy"), (to_pyagrum, "pyagrum"), (from_pyagrum, "pyagrum")],
)
def test_missing_extra_says_what_to_install(monkeypatch, function, module):
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.5, 0.5]})
    with pytest.raises(ImportError, match=r"pip install 'graphmodels\[interop\]'"):
        function(bn)


def test_import_graphmodels_loads_neither_library():
    env = dict(os.environ)
    root = str(Path(gm.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    statement = (
        "import sys, graphmodels, graphmodels.io; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pgmpy', 'pyagrum', 'pyAgrum')))"
    )
    out = subprocess.run([sys.executable, "-c", statement], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
