"""The inference layer against brute-force enumeration on small random factor products."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from graphmodels.inference import (
    Distribution,
    Factor,
    JunctionTree,
    Mixture,
    eliminate,
    elimination_order,
    generalized_belief_propagation,
    greedy_elimination,
    induced_width,
    loopy_belief_propagation,
    maximize,
    region_graph_of_scopes,
)
from graphmodels.stats import TableTooLargeError

# A loopy product: the cycle 0-1-2-3-0, a triple (3, 4, 5), a unary and a chord (1, 4).
CARDS = [2, 3, 2, 4, 3, 2]
SCOPES = [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4, 5), (5,), (1, 4)]


def _random_factors(rng, scopes=SCOPES, cards=CARDS, zeros=False):
    factors = []
    for scope in scopes:
        values = rng.random([cards[v] for v in scope]) + 0.01
        if zeros:
            values[rng.random(values.shape) < 0.15] = 0.0
        with np.errstate(divide="ignore"):
            factors.append((scope, np.log(values)))
    return factors


def _joint(factors, cards, evidence=None):
    """The unnormalized joint table by enumeration (brute force)."""
    full = np.zeros(cards)
    for scope, table in factors:
        order = sorted(range(len(scope)), key=lambda k: scope[k])
        shape = [cards[v] if v in scope else 1 for v in range(len(cards))]
        full = full + np.transpose(table, order).reshape(shape)
    joint = np.exp(full)
    for v, likelihood in (evidence or {}).items():
        shape = [1] * len(cards)
        shape[v] = cards[v]
        joint = joint * likelihood.reshape(shape)
    return joint


def _marginal(joint, keep):
    others = tuple(k for k in range(joint.ndim) if k not in keep)
    table = joint.sum(axis=others)
    order = sorted(range(len(keep)), key=lambda k: keep[k])
    return np.transpose(table, np.argsort(order)) / table.sum()


EVIDENCE = {3: np.array([0.0, 1.0, 0.0, 0.0]), 5: np.array([0.3, 0.7])}


@pytest.mark.parametrize("heuristic", ["min-fill", "min-weight", "min-degree"])
def test_junction_tree_marginals_equal_enumeration(heuristic):
    rng = np.random.default_rng(0)
    factors = _random_factors(rng, zeros=True)
    tree = JunctionTree(factors, CARDS, heuristic=heuristic)
    for evidence in ({}, EVIDENCE):
        joint = _joint(factors, CARDS, evidence)
        marginals, log_evidence = tree.marginals(range(6), evidence)
        assert log_evidence == pytest.approx(np.log(joint.sum()), abs=1e-12)
        for v in range(6):
            np.testing.assert_allclose(marginals[v], _marginal(joint, (v,)), atol=1e-12)


@pytest.mark.parametrize("merge_cells", [0, 256])
def test_the_cliques_form_a_junction_tree(merge_cells):
    rng = np.random.default_rng(1)
    tree = JunctionTree(_random_factors(rng), CARDS, merge_cells=merge_cells)
    graph = tree.graph
    assert nx.is_tree(graph)
    for v in range(6):  # running intersection: the cliques holding v are connected
        holding = [c for c in graph if v in c]
        assert nx.is_connected(graph.subgraph(holding))
    for scope in SCOPES:  # every factor fits in a clique
        assert any(set(scope) <= c for c in graph)
    if merge_cells == 0:  # the elimination order's own cliques
        assert tree.width == max(len(c) for c in graph) - 1
    else:  # small neighbours merged: fewer cliques, none past the threshold unless it was already
        assert len(graph) < len(JunctionTree(_random_factors(np.random.default_rng(1)), CARDS, merge_cells=0).cliques)


def test_batched_evidence_equals_one_question_at_a_time():
    rng = np.random.default_rng(2)
    factors = _random_factors(rng)
    tree = JunctionTree(factors, CARDS)
    states = np.array([0, 1, 2, 3, 1])
    batch = {3: np.eye(4)[states], 5: np.tile([0.3, 0.7], (5, 1))}
    marginals, log_evidence = tree.marginals(range(6), batch)
    for row, state in enumerate(states):
        single = {3: np.eye(4)[state], 5: np.array([0.3, 0.7])}
        expected, expected_log = tree.marginals(range(6), single)
        assert log_evidence[row] == pytest.approx(float(expected_log), abs=1e-12)
        for v in range(6):
            np.testing.assert_allclose(marginals[v][row], expected[v], atol=1e-12)


def test_new_evidence_recomputes_only_the_messages_it_touches():
    rng = np.random.default_rng(3)
    tree = JunctionTree(_random_factors(rng), CARDS, merge_cells=0)  # the order's cliques: messages to count
    first: list = []
    tree.marginals(range(6), EVIDENCE, trace=first)
    again: list = []
    tree.marginals(range(6), EVIDENCE, trace=again)
    assert first and not again  # the same evidence: every message reused
    changed = dict(EVIDENCE)
    changed[5] = np.array([0.9, 0.1])
    partial: list = []
    marginals, _ = tree.marginals(range(6), changed, trace=partial)
    assert partial and all(tree.side[(m.source, m.target)] & {5} for m in partial)
    assert len(partial) < len(first)
    joint = _joint(_random_factors(np.random.default_rng(3)), CARDS, changed)
    np.testing.assert_allclose(marginals[0], _marginal(joint, (0,)), atol=1e-12)


def test_mpe_equals_the_largest_cell():
    rng = np.random.default_rng(4)
    factors = _random_factors(rng, zeros=True)
    tree = JunctionTree(factors, CARDS)
    for evidence in ({}, EVIDENCE):
        joint = _joint(factors, CARDS, evidence)
        states, log_value = tree.mpe(evidence)
        assert tuple(states) == np.unravel_index(joint.argmax(), CARDS)
        assert log_value == pytest.approx(np.log(joint.max()), abs=1e-12)


@pytest.mark.parametrize("keep", [(0,), (4, 0), (1, 3, 5)])
def test_variable_elimination_joints_and_marginal_map(keep):
    rng = np.random.default_rng(5)
    factors = _random_factors(rng)
    joint = _joint(factors, CARDS, EVIDENCE)
    expected = _marginal(joint, keep)
    values, log_evidence, width = eliminate(factors, CARDS, keep, EVIDENCE)
    np.testing.assert_allclose(values, expected, atol=1e-12)
    assert log_evidence == pytest.approx(np.log(joint.sum()), abs=1e-12)
    states, log_value, log_e, _ = maximize(factors, CARDS, keep, EVIDENCE)
    assert tuple(states) == np.unravel_index(expected.argmax(), expected.shape)
    assert np.exp(log_value - log_e) == pytest.approx(expected.max(), abs=1e-12)


def test_exact_samples_follow_the_posterior():
    rng = np.random.default_rng(6)
    factors = _random_factors(rng)
    tree = JunctionTree(factors, CARDS)
    samples = tree.sample(60_000, EVIDENCE, random_state=0)
    assert (samples[:, 3] == 1).all()
    joint = _joint(factors, CARDS, EVIDENCE)
    for keep in [(1,), (0, 4)]:
        expected = _marginal(joint, keep).ravel()
        codes = np.ravel_multi_index(tuple(samples[:, k] for k in keep), [CARDS[k] for k in keep])
        observed = np.bincount(codes, minlength=expected.size) / len(samples)
        # 5 standard errors of a frequency
        assert np.all(np.abs(observed - expected) <= 5 * np.sqrt(expected * (1 - expected) / len(samples)) + 1e-9)
    assert (tree.sample(5, EVIDENCE, random_state=1) == tree.sample(5, EVIDENCE, random_state=1)).all()


def test_impossible_evidence_is_a_clear_error():
    factor = Factor.from_values(["a", "b"], [[1.0, 0.0], [0.0, 1.0]], [["x", "y"], ["x", "y"]])
    model = Distribution([factor])
    with pytest.raises(ValueError, match="probability zero"):
        model.query("a", evidence={"b": "y", "a": "x"})
    frame = pd.DataFrame({"a": ["x", "x"], "b": ["x", "y"]}, index=["ok", "bad"])
    with pytest.raises(ValueError, match="1 row.*'bad'"):
        model.query("a", evidence=frame)


def test_the_clique_guard_names_the_width_and_the_way_out():
    grid = nx.grid_2d_graph(12, 12)
    index = {node: k for k, node in enumerate(grid)}
    factors = [((index[u], index[v]), np.zeros((4, 4))) for u, v in grid.edges]
    with pytest.raises(TableTooLargeError, match=r"induced width 1[2-9].*method=\"loopy\" or \"gbp\""):
        JunctionTree(factors, [4] * len(index))


def test_min_fill_on_a_cycle_and_induced_width():
    order, width = elimination_order(nx.cycle_graph(6))
    assert width == 2 and sorted(order) == list(range(6))
    assert induced_width(nx.cycle_graph(6), order) == 2
    grid = nx.grid_2d_graph(4, 4)
    _, width = elimination_order(grid)
    assert width == 4  # the tree-width of a 4 x 4 grid
    with pytest.raises(ValueError, match="heuristic"):
        greedy_elimination([[1], [0]], [2, 2], heuristic="max-fill")


def test_loopy_bp_is_exact_on_a_tree_and_close_on_a_loop():
    rng = np.random.default_rng(7)
    tree_scopes = [(0, 1), (1, 2), (1, 3), (3, 4), (3, 5), (2,)]
    factors = _random_factors(rng, tree_scopes)
    result = loopy_belief_propagation(factors, CARDS, EVIDENCE, damping=0.0)
    joint = _joint(factors, CARDS, EVIDENCE)
    assert result.converged
    for v in range(6):
        np.testing.assert_allclose(result.marginals[v], _marginal(joint, (v,)), atol=1e-10)
    loopy = loopy_belief_propagation(_random_factors(rng), CARDS)
    assert loopy.converged and loopy.residuals[-1] < 1e-8


def test_loopy_bp_converges_on_a_grid_with_damping():
    rng = np.random.default_rng(8)
    grid = nx.grid_2d_graph(6, 6)  # benchmarks/bench_inference.py reports 10 x 10
    index = {node: k for k, node in enumerate(grid)}
    factors = [((index[u], index[v]), rng.normal(0, 0.5, (2, 2))) for u, v in grid.edges]
    factors += [((k,), rng.normal(0, 0.5, 2)) for k in range(36)]
    result = loopy_belief_propagation(factors, [2] * 36, damping=0.5, max_iter=500, tol=1e-10)
    assert result.converged
    exact, _ = JunctionTree(factors, [2] * 36).marginals(range(36))
    error = max(np.abs(result.marginals[v] - exact[v]).max() for v in range(36))
    assert error < 0.05  # the Bethe approximation on a weakly coupled grid


def test_gbp_is_exact_on_a_tree_region_graph_and_loopy_bp_on_the_bethe_graph():
    rng = np.random.default_rng(9)
    chain = _random_factors(rng, [(0, 1), (1, 2), (2, 3), (3, 4, 5)])
    regions = region_graph_of_scopes([s for s, _ in chain], 6)
    result = generalized_belief_propagation(chain, CARDS, regions, EVIDENCE, damping=0.0)
    joint = _joint(chain, CARDS, EVIDENCE)
    for v in range(6):
        np.testing.assert_allclose(result.marginals[v], _marginal(joint, (v,)), atol=1e-10)
    factors = _random_factors(rng)
    bethe = nx.DiGraph()
    bethe.add_nodes_from(frozenset([v]) for v in range(6))
    for scope, _ in factors:
        if len(scope) > 1:
            bethe.add_edges_from((frozenset(scope), frozenset([v])) for v in scope)
    gbp = generalized_belief_propagation(factors, CARDS, bethe, tol=1e-12, max_iter=2000)
    bp = loopy_belief_propagation(factors, CARDS, tol=1e-12, max_iter=2000)
    assert gbp.converged and bp.converged
    for v in range(6):
        np.testing.assert_allclose(gbp.marginals[v], bp.marginals[v], atol=1e-9)


# -- the named API ---------------------------------------------------------------------------


def _sprinkler():
    rain = Factor.from_values(["rain"], [0.8, 0.2], [["no", "yes"]])
    sprinkler = Factor.from_values(["rain", "sprinkler"], [[0.6, 0.4], [0.99, 0.01]], [["no", "yes"], ["off", "on"]])
    wet = Factor.from_values(
        ["rain", "sprinkler", "wet"],
        [[[1.0, 0.0], [0.1, 0.9]], [[0.2, 0.8], [0.01, 0.99]]],
        [["no", "yes"], ["off", "on"], ["dry", "wet"]],
    )
    return Distribution([rain, sprinkler, wet], children=["rain", "sprinkler", "wet"])


def test_named_queries_by_hand():
    model = _sprinkler()
    # P(wet) = sum over rain, sprinkler; P(rain=yes, wet) by hand.
    p_wet = 0.8 * (0.6 * 0.0 + 0.4 * 0.9) + 0.2 * (0.99 * 0.8 + 0.01 * 0.99)
    p_rain_wet = 0.2 * (0.99 * 0.8 + 0.01 * 0.99)
    assert model.probability({"wet": "wet"}) == pytest.approx(p_wet, abs=1e-12)
    posterior = model.query("rain", evidence={"wet": "wet"})
    assert list(posterior.index) == ["no", "yes"] and posterior.name == "rain"
    assert posterior["yes"] == pytest.approx(p_rain_wet / p_wet, abs=1e-12)
    soft = model.query("rain", evidence={"wet": {"wet": 0.9, "dry": 0.1}})
    expected = (0.9 * p_rain_wet + 0.1 * (0.2 - p_rain_wet)) / (0.9 * p_wet + 0.1 * (1 - p_wet))
    assert soft["yes"] == pytest.approx(expected, abs=1e-12)
    joint = model.query(["rain", "sprinkler"], evidence={"wet": "wet"}, joint=True)
    assert joint.index.names == ["rain", "sprinkler"]
    assert joint["probability"].sum() == pytest.approx(1.0)
    assert joint.loc[("yes", "off"), "probability"] == pytest.approx(0.2 * 0.99 * 0.8 / p_wet, abs=1e-12)
    best = model.map_query(evidence={"wet": "wet"})
    assert best.states == {"rain": "no", "sprinkler": "on"}
    assert best.probability == pytest.approx(0.8 * 0.4 * 0.9 / p_wet, abs=1e-12)


def test_a_dataframe_asks_one_question_per_row():
    model = _sprinkler()
    evidence = pd.DataFrame({"wet": ["wet", "dry", None]}, index=["a", "b", "c"])
    batch = model.query("rain", evidence=evidence)
    assert list(batch.index) == ["a", "b", "c"]
    for row, state in zip("ab", ["wet", "dry"]):
        single = model.query("rain", evidence={"wet": state})
        np.testing.assert_allclose(batch.loc[row].to_numpy(), single.to_numpy(), atol=1e-12)
    np.testing.assert_allclose(batch.loc["c"].to_numpy(), [0.8, 0.2], atol=1e-12)


def test_approximate_methods_on_the_named_api():
    model = _sprinkler()
    exact = model.query("rain", evidence={"wet": "wet"})
    weighted = model.query(
        "rain", evidence={"wet": "wet"}, method="likelihood-weighting", n_samples=40_000, random_state=0
    )
    assert np.abs(weighted.to_numpy() - exact.to_numpy()).max() < 0.02
    with pytest.raises(ValueError, match="method"):
        model.query("rain", method="magic")
    with pytest.raises(ValueError, match="one evidence set"):
        model.query("rain", evidence=pd.DataFrame({"wet": ["wet"]}), method="loopy")


def test_unknown_names_are_clear_errors():
    model = _sprinkler()
    with pytest.raises(ValueError, match="'rian' is not a variable.*'rain', 'sprinkler', 'wet'"):
        model.query("rian")
    with pytest.raises(ValueError, match="'soggy' is not a state of 'wet'; its states are 'dry', 'wet'"):
        model.query("rain", evidence={"wet": "soggy"})
    with pytest.raises(ValueError, match="likelihood for each of its 2 states"):
        model.query("rain", evidence={"wet": [0.5, 0.2, 0.3]})


def test_a_mixture_equals_its_enumerated_joint():
    rng = np.random.default_rng(10)
    states = [["a", "b"], ["x", "y", "z"], ["p", "q"]]
    components = []
    joint = np.zeros((3, 2, 3, 2))
    weights = np.array([0.2, 0.5, 0.3])
    for c in range(3):
        f1, f2 = rng.random((2, 3)), rng.random((3, 2))
        components.append(
            Distribution(
                [Factor.from_values(["A", "B"], f1, states[:2]), Factor.from_values(["B", "C"], f2, states[1:])]
            )
        )
        table = f1[:, :, None] * f2[None, :, :]
        joint[c] = weights[c] * table / table.sum()
    mixture = Mixture(components, weights, label="class", labels=["c1", "c2", "c3"])
    given_b = joint[:, 1]
    np.testing.assert_allclose(
        mixture.query("class", evidence={"A": "b"}).to_numpy(), given_b.sum(axis=(1, 2)) / given_b.sum(), atol=1e-12
    )
    pair = mixture.query(["C", "class"], evidence={"A": "b"}, joint=True)["probability"].to_numpy()
    table = given_b.sum(axis=1)
    np.testing.assert_allclose(pair, (table / table.sum()).T.ravel(), atol=1e-12)
    best = mixture.map_query()
    assert tuple(mixture.states[v].index(s) for v, s in best.states.items()) == np.unravel_index(
        joint.argmax(), joint.shape
    )
    assert best.probability == pytest.approx(joint.max(), abs=1e-12)
    hidden = Mixture(components, weights)
    answer = hidden.map_query(["B", "C"], evidence={"A": "a"})
    table = joint[:, 0].sum(axis=0)
    assert (states[1].index(answer.states["B"]), states[2].index(answer.states["C"])) == np.unravel_index(
        table.argmax(), table.shape
    )
    assert mixture.probability({"A": "a"}) == pytest.approx(joint[:, 0].sum(), abs=1e-12)
    sample = mixture.sample(20, evidence={"class": "c2"}, random_state=0)
    assert list(sample.columns) == ["class", "A", "B", "C"] and (sample["class"] == "c2").all()


def test_factor_arithmetic_by_hand():
    f = Factor.from_values(["a", "b"], [[1.0, 2.0], [3.0, 4.0]])
    g = Factor.from_values(["b"], [10.0, 100.0])
    product = f * g
    np.testing.assert_allclose(product.values, [[10.0, 200.0], [30.0, 400.0]])
    np.testing.assert_allclose(product.marginalize(["a"]).values, [40.0, 600.0])
    np.testing.assert_allclose(product.maximize(["b"]).values, [200.0, 400.0])
    np.testing.assert_allclose(f.normalize().values.sum(), 1.0)
    np.testing.assert_allclose(f.reduce({"a": 1}).values, [3.0, 4.0])
    with pytest.raises(ValueError, match="distinct"):
        Factor(["a", "a"], np.zeros((2, 2)))


def test_every_configuration_sums_to_one():
    rng = np.random.default_rng(11)
    factors = _random_factors(rng)
    names = [f"v{k}" for k in range(6)]
    model = Distribution([Factor([names[v] for v in s], t) for s, t in factors])
    total = 0.0
    for states in itertools.product(*[range(r) for r in CARDS]):
        total += model.probability({names[k]: s for k, s in enumerate(states)})
    assert total == pytest.approx(1.0, abs=1e-10)


def test_gbp_on_plaquettes_beats_loopy_bp_on_a_grid():
    # Yedidia, Freeman & Weiss (2005): the cluster variation method with 2 x 2 plaquettes is far
    # more accurate than the Bethe approximation (loopy BP) on a grid.
    from graphmodels.structures import cluster_variation_regions

    rng = np.random.default_rng(12)
    grid = nx.grid_2d_graph(4, 4)
    index = {node: k for k, node in enumerate(grid)}
    factors = [((index[u], index[v]), rng.normal(0, 1.0, (2, 2))) for u, v in grid.edges]
    factors += [((k,), rng.normal(0, 0.5, 2)) for k in range(16)]
    exact, _ = JunctionTree(factors, [2] * 16).marginals(range(16))
    plaquettes = [frozenset(index[(i + a, j + b)] for a in (0, 1) for b in (0, 1)) for i in range(3) for j in range(3)]
    gbp = generalized_belief_propagation(factors, [2] * 16, cluster_variation_regions(plaquettes), max_iter=1000)
    bp = loopy_belief_propagation(factors, [2] * 16, max_iter=1000)
    assert gbp.converged and bp.converged
    gbp_error = max(np.abs(gbp.marginals[v] - exact[v]).max() for v in range(16))
    bp_error = max(np.abs(bp.marginals[v] - exact[v]).max() for v in range(16))
    assert gbp_error < 1e-4 < bp_error
