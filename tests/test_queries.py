"""Questions asked of fitted models: each model's distribution against its predictions and brute force."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.io import load_network


def _tiny(seed=0, n_rows=400):
    """Four attributes with dependencies among themselves and with a 3-state class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n_rows)
    a = np.where(rng.random(n_rows) < 0.7, y % 2, rng.integers(2, size=n_rows))
    b = np.where(rng.random(n_rows) < 0.6, (a + y) % 3, rng.integers(3, size=n_rows))
    c = np.where(rng.random(n_rows) < 0.6, b % 2, rng.integers(2, size=n_rows))
    d = np.where(rng.random(n_rows) < 0.5, (a + c) % 2, rng.integers(2, size=n_rows))
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).map(lambda v: f"s{v}")
    return X, pd.Series([f"c{v}" for v in y], name="class")


#: Every classifier kind with a distribution, and whether its posterior given some attributes is
#: predict_proba with the others missing (the ensembles drop members whose super-parent is missing).
CLASSIFIERS = {
    "nb": (gm.NaiveBayes, {}, True),
    "tan": (gm.TAN, {}, True),
    "fan": (gm.FAN, {}, True),
    "kdb": (gm.KDB, {"k": 2}, True),
    "skdb": (gm.SelectiveKDB, {}, True),
    "chow-liu": (gm.ChowLiu, {"representation": "free"}, True),
    "chow-liu-shared": (gm.ChowLiu, {"representation": "shared"}, True),
    "hyperforest-joint": (gm.HyperforestClassifier, {"representation": "joint"}, True),
    "hyperforest-free": (gm.HyperforestClassifier, {"representation": "free"}, True),
    "kikuchi": (gm.KikuchiBayes, {"averaging": False}, True),
    "tan-discriminative": (gm.TAN, {"estimator": "discriminative"}, True),
    "chow-liu-discriminative": (gm.ChowLiu, {"representation": "free", "estimator": "discriminative"}, True),
    "aode": (gm.AODE, {"frequency_threshold": 0}, False),
    "ande": (gm.AnDE, {"n": 2, "frequency_threshold": 0}, False),
    "hnb": (gm.HierarchicalNaiveBayes, {"random_state": 0}, False),
}


@pytest.fixture(scope="session")
def tiny():
    return _tiny()


@pytest.fixture(scope="session")
def fitted(tiny):
    X, y = tiny
    models = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (cls, params, _) in CLASSIFIERS.items():
            models[name] = cls(**params).fit(X, y)
    return models


def _enumerate(model):
    """Every configuration of the model's variables and its probability, by ``probability`` of a full assignment."""
    distribution = model.distribution()
    names = distribution.variables
    rows = list(itertools.product(*[distribution.states[v] for v in names]))
    frame = pd.DataFrame(rows, columns=names)
    return frame, distribution.probability(frame).to_numpy()


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_the_class_posterior_is_predict_proba(fitted, tiny, name):
    X, _ = tiny
    model = fitted[name]
    rows = X.head(25)
    full = model.query(model.class_name_, evidence=rows)
    assert list(full.columns) == list(model.classes_)
    np.testing.assert_allclose(full.to_numpy(), model.predict_proba(rows), atol=1e-10)
    if CLASSIFIERS[name][2]:
        partial = rows.copy()
        partial[["c", "d"]] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the missing cells are states never seen
            expected = model.predict_proba(partial)
        np.testing.assert_allclose(
            model.query(model.class_name_, evidence=rows[["a", "b"]]).to_numpy(), expected, atol=1e-10
        )


@pytest.mark.parametrize(
    "name", ["tan", "chow-liu", "hyperforest-free", "kikuchi", "aode", "hnb", "tan-discriminative"]
)
def test_every_answer_equals_enumeration(fitted, name):
    model = fitted[name]
    frame, p = _enumerate(model)
    assert p.sum() == pytest.approx(1.0, abs=1e-10)
    given = (frame["a"] == "s1").to_numpy()
    for variable in ["b", model.class_name_]:
        expected = pd.Series(p[given], index=frame.loc[given, variable]).groupby(level=0).sum()
        answer = model.query(variable, evidence={"a": "s1"})
        np.testing.assert_allclose(answer.to_numpy(), (expected / expected.sum())[answer.index].to_numpy(), atol=1e-10)
    pair = model.query(["d", "b"], evidence={"a": "s1"}, joint=True)["probability"]
    expected = (
        pd.Series(p[given], index=pd.MultiIndex.from_frame(frame.loc[given, ["d", "b"]])).groupby(level=[0, 1]).sum()
    )
    np.testing.assert_allclose(pair.to_numpy(), (expected / expected.sum())[pair.index].to_numpy(), atol=1e-10)
    best = model.map_query(evidence={"a": "s1"})
    top = int(np.argmax(np.where(given, p, -1)))
    assert best.states == {v: frame.iloc[top][v] for v in best.states}
    assert best.probability == pytest.approx(p[top] / p[given].sum(), abs=1e-10)


def test_soft_evidence_and_samples_on_a_model(fitted):
    model = fitted["tan"]
    frame, p = _enumerate(model)
    likelihood = {"s0": 0.2, "s1": 0.8}
    weights = frame["d"].map(likelihood).to_numpy() * p
    expected = pd.Series(weights, index=frame["class"]).groupby(level=0).sum()
    answer = model.query("class", evidence={"d": likelihood})
    np.testing.assert_allclose(answer.to_numpy(), (expected / expected.sum())[answer.index].to_numpy(), atol=1e-10)
    sample = model.sample(2000, random_state=0, evidence={"class": "c1", "a": "s0"})
    assert list(sample.columns) == ["class", "a", "b", "c", "d"]
    assert (sample["class"] == "c1").all() and (sample["a"] == "s0").all()
    pd.testing.assert_frame_equal(sample, model.sample(2000, random_state=0, evidence={"class": "c1", "a": "s0"}))
    posterior = model.query("b", evidence={"class": "c1", "a": "s0"})
    observed = sample["b"].value_counts(normalize=True).reindex(posterior.index, fill_value=0)
    assert np.abs(observed.to_numpy() - posterior.to_numpy()).max() < 0.05


def test_the_hyperforest_density_is_its_score_samples():
    frame = gm.datasets.load("car")
    density = gm.HyperforestDensity(treewidth=2).fit(frame)
    rows = frame.head(30)
    np.testing.assert_allclose(
        np.log(density.distribution().probability(rows).to_numpy()), density.score_samples(rows), atol=1e-10
    )
    marginal = density.query("safety")
    counts = frame["safety"].value_counts(normalize=True)
    assert marginal.sum() == pytest.approx(1.0)
    assert np.abs(marginal - counts[marginal.index]).max() < 0.02  # a fitted density keeps the marginals


def test_a_number_for_a_cut_column_is_cut_as_at_prediction():
    iris = gm.datasets.load("iris")
    X, y = iris.drop(columns="class"), iris["class"]
    model = gm.TAN().fit(X, y)
    label = model.encoder_.levels_[2][-1]  # the top interval of petal length
    by_number = model.query("class", evidence={"petal length": 6.5})
    pd.testing.assert_series_equal(by_number, model.query("class", evidence={"petal length": label}))


def test_multi_dimensional_classifiers_answer_joints_of_labels():
    rng = np.random.default_rng(3)
    n = 300
    l1 = rng.integers(2, size=n)
    l2 = np.where(rng.random(n) < 0.7, l1, rng.integers(2, size=n))
    X = pd.DataFrame(
        {f"x{k}": np.where(rng.random(n) < 0.7, (l1 + k * l2) % 2, rng.integers(2, size=n)) for k in range(4)}
    )
    Y = pd.DataFrame({"l1": l1, "l2": l2})
    for model in (gm.models.MultiDimensionalTAN().fit(X, Y), gm.models.MultiDimensionalAODE().fit(X, Y)):
        rows = X.head(10)
        marginals = model.predict_proba(rows)
        for j, label in enumerate(["l1", "l2"]):
            np.testing.assert_allclose(model.query(label, evidence=rows).to_numpy(), marginals[j], atol=1e-10)
        joint = model.query(["l1", "l2"], evidence=rows, joint=True)
        np.testing.assert_allclose(joint.to_numpy().reshape(10, 2, 2).sum(axis=2), marginals[0], atol=1e-10)


def test_given_networks_answer_too():
    alarm = load_network("alarm")
    posterior = alarm.query("HYPOVOLEMIA", evidence={"CVP": "HIGH", "BP": "LOW"})
    assert posterior.sum() == pytest.approx(1.0) and list(posterior.index) == alarm.states["HYPOVOLEMIA"]
    markov = gm.HyperforestDensity(treewidth=2).fit(gm.datasets.load("car")).to_markov_network()
    assert markov.query("class").sum() == pytest.approx(1.0)
    sample = alarm.sample(50, random_state=0, evidence={"CVP": "HIGH"})
    assert (sample["CVP"] == "HIGH").all()


@pytest.mark.filterwarnings("ignore::FutureWarning:pgmpy")
def test_alarm_agrees_with_pyagrum_and_pgmpy(tmp_path):
    gum = pytest.importorskip("pyagrum", reason="pyAgrum comes with the interop extra")
    pytest.importorskip("pgmpy", reason="pgmpy comes with the interop extra")
    from pgmpy.inference import VariableElimination

    from graphmodels.io import to_pgmpy

    alarm = load_network("alarm")
    path = tmp_path / "alarm.bif"
    gm.io.write_bif(alarm, path)
    engine = gum.LazyPropagation(gum.loadBN(str(path)))
    evidence = {"CVP": "HIGH", "BP": "LOW", "HRBP": "NORMAL"}
    engine.setEvidence(evidence)
    engine.makeInference()
    elimination = VariableElimination(to_pgmpy(alarm))
    for variable in ["HYPOVOLEMIA", "LVFAILURE", "CATECHOL"]:
        ours = alarm.query(variable, evidence=evidence)
        theirs = engine.posterior(variable)
        expected = [theirs[{variable: state}] for state in ours.index]
        np.testing.assert_allclose(ours.to_numpy(), expected, atol=1e-9)
        pgmpy = elimination.query([variable], evidence=evidence, show_progress=False)
        np.testing.assert_allclose(ours.to_numpy(), [pgmpy.get_value(**{variable: s}) for s in ours.index], atol=1e-9)


def test_models_without_a_fit_or_with_bad_questions_say_so(fitted):
    with pytest.raises(gm.models.NotFittedError):
        gm.TAN().query("class")
    model = fitted["nb"]
    with pytest.raises(ValueError, match="'e' is not a variable"):
        model.query("e")
    with pytest.raises(ValueError, match="'s9' is not a state of 'a'"):
        model.query("class", evidence={"a": "s9"})


def test_structure_questions_by_hand():
    import networkx as nx

    from graphmodels.inference import active_trail_nodes, active_trails, d_separated, markov_blanket, separated

    # The sprinkler network: rain -> wet <- sprinkler, wet -> slippery; cloudy -> rain, cloudy -> sprinkler.
    dag = nx.DiGraph(
        [("cloudy", "rain"), ("cloudy", "sprinkler"), ("rain", "wet"), ("sprinkler", "wet"), ("wet", "slippery")]
    )
    assert d_separated(dag, "rain", "sprinkler", "cloudy")
    assert not d_separated(dag, "rain", "sprinkler", ["cloudy", "slippery"])  # the collider's descendant opens it
    assert active_trails(dag, "rain", "sprinkler", given=["cloudy", "slippery"]) == [["rain", "wet", "sprinkler"]]
    assert active_trails(dag, "rain", "sprinkler") == [["rain", "cloudy", "sprinkler"]]
    assert active_trail_nodes(dag, "rain", "cloudy") == {"rain", "wet", "slippery"}
    # Brute force: y is reachable by an active trail exactly when x and y are not d-separated.
    for z in [(), ("wet",), ("cloudy", "wet"), ("slippery",)]:
        reach = active_trail_nodes(dag, "rain", z)
        for other in set(dag) - {"rain"} - set(z):
            assert (other in reach) == (not d_separated(dag, "rain", other, z))
    assert markov_blanket(dag, "rain") == {"cloudy", "wet", "sprinkler"}
    assert separated(nx.path_graph(4), 0, 3, 2) and not separated(nx.cycle_graph(4), 0, 2, 1)
    with pytest.raises(TypeError, match="separated"):
        d_separated(nx.path_graph(3), 0, 2)


def test_models_answer_structure_questions(fitted):
    nb = fitted["nb"]
    assert not nb.independent("a", "b") and nb.independent("a", "b", given="class")
    assert nb.markov_blanket("a") == {"class"}
    assert nb.active_trails("a", "b") == [["a", "class", "b"]]
    mixture = fitted["chow-liu"]  # a Markov network: the class joined to everything
    assert "class" in mixture.markov_blanket("a")
    with pytest.raises(TypeError, match="Markov network"):
        mixture.active_trails("a", "b")
