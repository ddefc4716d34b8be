"""The BayesianNetwork model (issue 29): fit, parameters of a given DAG, likelihoods, queries, EM.

Proofs: parameters of a given DAG are the estimator's tables of the counts; the joint sums to 1;
a row's likelihood with missing cells is the sum over its completions; the E-step's expected
counts equal brute-force enumeration; EM never lowers the likelihood; a latent class model
recovers a planted mixture (adjusted Rand index >= 0.9); the network survives save/load and
the interchange formats.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import get_estimator
from graphmodels.models import BayesianNetwork, load_model
from graphmodels.models.em import _slots_tree, expected_counts
from graphmodels.structures import cpdag, structure_difference


def _chain(seed, n_rows=500):
    """a -> b -> c, and d independent; 2, 3, 2 and 2 states."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n_rows)
    b = np.where(rng.random(n_rows) < 0.2, rng.integers(0, 3, n_rows), a + rng.integers(0, 2, n_rows))
    c = np.where(rng.random(n_rows) < 0.15, rng.integers(0, 2, n_rows), (b > 0).astype(int))
    d = rng.integers(0, 2, n_rows)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(str)


def _holes(frame, share, seed):
    return frame.mask(np.random.default_rng(seed).random(frame.shape) < share)


@pytest.fixture(scope="module")
def chain():
    return _chain(0)


def test_parameters_of_a_given_dag_are_the_estimators_tables(chain):
    dag = nx.DiGraph([("a", "b"), ("b", "c")])
    model = BayesianNetwork(structure=dag, estimator="laplace").fit(chain)
    assert set(model.structure_.edges) == {("a", "b"), ("b", "c")}
    levels = dict(zip(model.encoder_.columns_, model.encoder_.levels_))  # the data's order of the states
    counts = pd.crosstab(chain["b"], chain["c"]).loc[levels["b"], levels["c"]].to_numpy()
    expected = get_estimator("laplace").conditional(counts)
    np.testing.assert_allclose(model.cpd("c").to_numpy(), expected)
    assert model.cpd("d").shape == (1, 2)  # a node the DAG leaves alone has no parents
    # The joint sums to one over every configuration.
    grid = pd.DataFrame(
        list(itertools.product(*[levels for levels in model.encoder_.levels_])), columns=model.encoder_.columns_
    )
    assert np.exp(model.score_samples(grid)).sum() == pytest.approx(1.0)


def test_likelihood_queries_and_export_agree_with_the_network(chain, tmp_path):
    model = BayesianNetwork(criterion="bdeu").fit(chain)
    network = model.to_bayesian_network()
    np.testing.assert_allclose(model.score_samples(chain), network.log_likelihood(chain), atol=1e-10)
    asked = model.query("a", evidence={"c": "1"})
    np.testing.assert_allclose(asked.to_numpy(), network.query("a", evidence={"c": "1"}).to_numpy(), atol=1e-10)
    path = tmp_path / "chain.bif"
    gm.io.write_bif(network, path)
    again = gm.io.read_bif(path)
    np.testing.assert_allclose(again.log_likelihood(chain), network.log_likelihood(chain), atol=1e-9)
    saved = tmp_path / "model.json"
    model.save(saved)
    loaded = load_model(saved)
    np.testing.assert_allclose(loaded.score_samples(chain), model.score_samples(chain))
    assert set(loaded.structure_.edges) == set(model.structure_.edges)


def test_a_missing_cell_is_summed_out(chain):
    model = BayesianNetwork(structure=nx.DiGraph([("a", "b"), ("b", "c")]), missing="em").fit(chain)
    row = pd.DataFrame({"a": ["1"], "b": [np.nan], "c": ["0"], "d": [np.nan]})
    completions = pd.DataFrame([{"a": "1", "b": b, "c": "0", "d": d} for b in ("0", "1", "2") for d in ("0", "1")])
    brute = np.log(np.exp(model.score_samples(completions)).sum())
    assert model.score_samples(row)[0] == pytest.approx(brute)


def test_expected_counts_equal_enumeration():
    rng = np.random.default_rng(1)
    parents = [(), (0,), (1,)]
    cards = [2, 3, 2]
    tables = [rng.dirichlet(np.ones(2)), rng.dirichlet(np.ones(3), size=2), rng.dirichlet(np.ones(2), size=3)]
    codes = np.array([[0, -1, 1], [-1, -1, 0], [1, 2, -1], [1, 0, 1]])
    weights = np.array([2.0, 1.0, 3.0, 1.0])
    tree = _slots_tree(parents, cards, 10_000, None)
    counts, log_likelihood = expected_counts(tree, parents, tables, codes, weights)
    brute = [np.zeros((2,)), np.zeros((2, 3)), np.zeros((3, 2))]
    total = 0.0
    for row, w in zip(codes, weights):
        options = [[s] if s >= 0 else list(range(r)) for s, r in zip(row, cards)]
        joint = {
            x: tables[0][x[0]] * tables[1][x[0], x[1]] * tables[2][x[1], x[2]] for x in itertools.product(*options)
        }
        evidence = sum(joint.values())
        total += w * np.log(evidence)
        for x, p in joint.items():
            brute[0][x[0]] += w * p / evidence
            brute[1][x[0], x[1]] += w * p / evidence
            brute[2][x[1], x[2]] += w * p / evidence
    for ours, theirs in zip(counts, brute):
        np.testing.assert_allclose(ours, theirs, atol=1e-12)
    assert log_likelihood == pytest.approx(total)


def test_em_never_lowers_the_likelihood_and_beats_available_case(chain):
    holes = _holes(chain, 0.3, 2)
    dag = nx.DiGraph([("a", "b"), ("b", "c")])
    model = BayesianNetwork(structure=dag, missing="em", estimator="mle", em_tol=1e-10).fit(holes)
    history = model.em_trace_["log_likelihood"].to_numpy()
    assert (np.diff(history) >= -1e-8).all() and len(history) > 2
    available = BayesianNetwork(structure=dag, missing="available-case", estimator="mle").fit(holes)
    assert model.score(holes) >= available.score(holes) - 1e-9
    assert "em_trace_" not in vars(available)
    # On complete rows EM has nothing to fill in: the counts' own tables.
    complete = BayesianNetwork(structure=dag, missing="em", estimator="mle").fit(chain)
    np.testing.assert_allclose(complete.score_samples(chain), available.fit(chain).score_samples(chain))


def adjusted_rand_score(a, b):
    """Hubert & Arabie's (1985) adjusted Rand index of two labelings."""
    table = pd.crosstab(np.asarray(a), np.asarray(b)).to_numpy()

    def pairs(x):
        return (x * (x - 1) / 2).sum()

    index, rows, columns = pairs(table), pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    expected = rows * columns / pairs(np.array([table.sum()]))
    return (index - expected) / ((rows + columns) / 2 - expected)


def test_latent_class_model_recovers_a_planted_mixture():
    rng = np.random.default_rng(3)
    n, k = 600, 3
    truth = rng.integers(0, k, n)
    profiles = rng.dirichlet(np.full(4, 0.3), size=(6, k))  # each of 6 columns: a distribution per cluster
    X = pd.DataFrame(
        {f"x{j}": [f"s{(rng.random() > np.cumsum(profiles[j, z])).sum()}" for z in truth] for j in range(6)}
    )
    structure = nx.DiGraph([("Z", f"x{j}") for j in range(6)])
    model = BayesianNetwork(structure=structure, latent={"Z": k}, n_init=2, random_state=0, estimator="laplace")
    model.fit(X)
    assert model.structure_.nodes["Z"]["role"] == "latent" and model.latent_names_ == ["Z"]
    posterior = model.query("Z", evidence=X)
    assert adjusted_rand_score(truth, posterior.to_numpy().argmax(axis=1)) >= 0.9
    assert model.em_trace_["start"].nunique() == 2
    assert model.sample(5, random_state=0).shape == (5, 6)
    assert adjusted_rand_score([0, 0, 1, 1], [5, 5, 2, 2]) == 1.0


def test_a_latent_model_survives_save_and_load(tmp_path):
    frame = _chain(6, n_rows=200)[["a", "c", "d"]]
    model = BayesianNetwork(structure=nx.DiGraph([("H", "a"), ("H", "c")]), latent={"H": 2}, random_state=0)
    model.fit(frame)
    model.save(tmp_path / "latent.npz")
    loaded = load_model(tmp_path / "latent.npz")
    np.testing.assert_allclose(loaded.score_samples(frame), model.score_samples(frame))
    assert loaded.query("H", evidence={"a": "1"}).to_dict() == pytest.approx(
        model.query("H", evidence={"a": "1"}).to_dict()
    )


def test_structural_em_learns_through_missing_cells():
    frame = _chain(4, n_rows=1500)
    holes = _holes(frame, 0.15, 5)
    complete = BayesianNetwork(criterion="bic").fit(frame)
    learned = BayesianNetwork(criterion="bic", missing="structural-em", random_state=0).fit(holes)
    assert structure_difference(learned, complete, cpdag=True).hamming == 0
    assert "round" in learned.em_trace_.columns
    # Searching the available cases alone finds a spurious arc here, which structural EM drops.
    available = BayesianNetwork(criterion="bic", missing="available-case").fit(holes)
    assert structure_difference(available, complete, cpdag=True).hamming > 0
    with pytest.raises(ValueError, match="structural-em"):
        BayesianNetwork(structure="pc", missing="structural-em").fit(holes)


def test_searches_and_expert_knowledge(chain):
    for structure in ("hill-climb", "tabu", "pc", "mmhc", "exact"):
        model = BayesianNetwork(structure=structure, random_state=0).fit(chain)
        assert nx.is_directed_acyclic_graph(model.structure_)
        assert {frozenset(e) for e in model.cpdag_.edges} >= {frozenset(e) for e in model.structure_.edges}
    pc = BayesianNetwork(structure="pc").fit(chain)
    assert set(pc.cpdag_.edges) == set(cpdag(pc.structure_).edges)  # the DAG is a member of PC's class
    forced = BayesianNetwork(required=[("c", "b")], forbidden=[("a", "b")], root="c").fit(chain)
    assert forced.structure_.has_edge("c", "b") and not forced.structure_.has_edge("a", "b")
    assert forced.structure_.in_degree("c") == 0
    with pytest.raises(ValueError, match="both required and forbidden"):
        BayesianNetwork(required=[("a", "b")], forbidden=[("a", "b")]).fit(chain)
    with pytest.raises(ValueError, match="contradicts the expert knowledge"):
        BayesianNetwork(structure=nx.DiGraph([("a", "b")]), forbidden=[("a", "b")]).fit(chain)
    with pytest.raises(ValueError, match="neither a column"):
        BayesianNetwork(structure=nx.DiGraph([("a", "zz")])).fit(chain)
    with pytest.raises(ValueError, match="latent"):
        BayesianNetwork(latent={"Z": 2}).fit(chain)


def test_traced_search_and_animation(chain):
    model = BayesianNetwork(structure="tabu", trace=True).fit(chain)
    moves = model.trace_[model.trace_["action"].isin(["add", "delete", "reverse"])]
    assert len(moves) >= model.structure_.number_of_edges()
    from graphmodels.plotting import animate

    animation = animate(model, max_frames=6)
    assert set(animation.structures[-1].edges) == set(model.structure_.edges)


def test_the_dask_engine_gives_the_same_network(chain):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    with dask.config.set(scheduler="synchronous"):
        distributed = BayesianNetwork(criterion="bdeu").fit(dd.from_pandas(chain, npartitions=3))
    memory = BayesianNetwork(criterion="bdeu").fit(chain)
    assert set(distributed.structure_.edges) == set(memory.structure_.edges)
    np.testing.assert_allclose(distributed.score_samples(chain), memory.score_samples(chain), atol=1e-12)
    with pytest.raises(ValueError, match="memory"):
        BayesianNetwork(missing="em").fit(dd.from_pandas(chain, npartitions=2))


def test_edge_stability_gives_arc_strengths_and_the_averaged_network(chain):
    result = gm.evaluation.edge_stability(BayesianNetwork(), chain, n_resamples=8, random_state=0)
    averaged = result.averaged_network()
    assert nx.is_directed_acyclic_graph(averaged)
    assert {frozenset(e) for e in averaged.edges} == {frozenset(("a", "b")), frozenset(("b", "c"))}
    assert 0 < averaged.graph["threshold"] <= 1
    assert result.table.set_index(["source", "target"])["frequency"].max() == 1.0
    # A cycle the majorities would make is broken at its weakest arc.
    fits = [nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])] * 2 + [nx.DiGraph([("a", "b"), ("b", "c")])]
    averaged = gm.structures.structure_frequencies(fits).averaged_network(threshold=0.5)
    assert set(averaged.edges) == {("a", "b"), ("b", "c")}


def test_dag_drawings_point_down_and_cpdag_edges_are_undirected():
    import matplotlib.pyplot as plt

    from graphmodels.plotting import draw_network, network_layout
    from graphmodels.structures import undirected_edges

    alarm = gm.io.load_network("alarm")
    position = network_layout(alarm.graph)
    assert all(position[u][1] > position[v][1] for u, v in alarm.graph.edges)  # main drew 7 of 46 upward
    ax = draw_network(alarm)  # a given network: its DAG
    assert len(ax.patches) == alarm.graph.number_of_edges()
    plt.close(ax.figure)
    pattern = cpdag(alarm.graph)
    ax = draw_network(pattern)
    lines = [type(p.get_arrowstyle()).__name__ for p in ax.patches]
    assert lines.count("Curve") == len(undirected_edges(pattern)) > 0  # one line, no arrowhead, per edge
    assert len(lines) == pattern.number_of_edges() - len(undirected_edges(pattern))


def test_map_query_sample_and_display_of_a_given_dag(chain):
    dag = nx.DiGraph([("a", "b"), ("b", "c")])
    model = BayesianNetwork(structure=dag, estimator="laplace").fit(chain)
    levels = dict(zip(model.encoder_.columns_, model.encoder_.levels_))
    grid = pd.DataFrame(list(itertools.product(*levels.values())), columns=list(levels))
    joint = np.exp(model.score_samples(grid))
    # The most probable joint state given c = "1", by enumerating every row of the grid.
    given = (grid["c"] == "1").to_numpy()
    brute = grid[given].iloc[int(np.argmax(joint[given]))]
    states, probability = model.map_query(evidence={"c": "1"})
    assert {k: states[k] for k in ("a", "b", "d")} == {k: brute[k] for k in ("a", "b", "d")}
    assert probability == pytest.approx(joint[given].max() / joint[given].sum())
    assert model.score(chain) == pytest.approx(model.score_samples(chain).sum())  # as KernelDensity.score
    assert list(model.sample(4, random_state=1).columns) == ["a", "b", "c", "d"]
    html = model._repr_html_()
    assert "BayesianNetwork" in html and "<svg" in html
