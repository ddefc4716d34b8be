"""Seeing and teaching inference: answers that display with bars, traced messages, and their drawings.

Each drawing is checked against what it must show, computed independently: the bars of
draw_inference against enumeration of the joint, the red edges of draw_d_separation against
every active trail found by brute force, the frames of a message animation against the trace.
"""

from __future__ import annotations

import itertools
import re
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.inference import JointPosterior, Posterior, Posteriors, QueryTrace  # noqa: E402
from graphmodels.inference.separation import _trail_is_active, active_trails  # noqa: E402
from graphmodels.models import NotFittedError  # noqa: E402
from graphmodels.networks import DiscreteBayesianNetwork  # noqa: E402
from graphmodels.plotting import (  # noqa: E402
    animate,
    draw_d_separation,
    draw_factor_graph,
    draw_inference,
    draw_junction_tree,
    draw_posterior,
)
from graphmodels.plotting.message_passing import table_text  # noqa: E402
from graphmodels.plotting.posteriors import BAR_COLOR, OBSERVED_COLOR  # noqa: E402
from graphmodels.plotting.separation import ACTIVE_COLOR  # noqa: E402

CARDS = ("card", "card:evidence", "card:soft-evidence")

# The animations are drawn frame by frame here, not rendered as a whole.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering anything")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _network(cpts, parents, states):
    return DiscreteBayesianNetwork(parents, states, {v: np.asarray(t, dtype=float) for v, t in cpts.items()})


@pytest.fixture(scope="session")
def sprinkler():
    """rain -> sprinkler, (rain, sprinkler) -> wet, wet -> slippery."""
    states = {v: ["no", "yes"] for v in ("rain", "sprinkler", "wet", "slippery")}
    parents = {"rain": [], "sprinkler": ["rain"], "wet": ["rain", "sprinkler"], "slippery": ["wet"]}
    cpts = {
        "rain": [0.8, 0.2],
        "sprinkler": [[0.6, 0.4], [0.99, 0.01]],
        "wet": [[[1.0, 0.0], [0.1, 0.9]], [[0.2, 0.8], [0.01, 0.99]]],
        "slippery": [[0.9, 0.1], [0.3, 0.7]],
    }
    return _network(cpts, parents, states)


@pytest.fixture(scope="session")
def tree7():
    """a -> b, a -> c, c -> d with 7 states each: a junction tree of three cliques (too large to merge)."""
    rng = np.random.default_rng(4)
    parents = {"a": [], "b": ["a"], "c": ["a"], "d": ["c"]}
    cpts = {v: rng.dirichlet(np.ones(7), size=(7,) * len(parents[v])) for v in parents}
    return _network(cpts, parents, {v: [f"s{k}" for k in range(7)] for v in parents})


def _joint(network):
    """Every configuration of the network and its probability, by the chain rule."""
    names = network.variables
    rows = list(itertools.product(*[range(len(network.states[v])) for v in names]))
    p = np.ones(len(rows))
    for i, row in enumerate(rows):
        at = dict(zip(names, row))
        for v in names:
            p[i] *= network.cpts[v][tuple(at[u] for u in network.parents[v]) + (at[v],)]
    return names, np.array(rows), p


def _posterior(network, variable, likelihoods):
    """P(variable | evidence) by enumeration; `likelihoods` maps a variable to its likelihood vector."""
    names, rows, p = _joint(network)
    weight = p.copy()
    for v, vector in likelihoods.items():
        weight *= np.asarray(vector)[rows[:, names.index(v)]]
    k = names.index(variable)
    out = np.array([weight[rows[:, k] == s].sum() for s in range(len(network.states[variable]))])
    return out / out.sum()


def _tiny(seed=0, n_rows=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n_rows)
    a = np.where(rng.random(n_rows) < 0.7, y % 2, rng.integers(2, size=n_rows))
    b = np.where(rng.random(n_rows) < 0.6, (a + y) % 3, rng.integers(3, size=n_rows))
    c = np.where(rng.random(n_rows) < 0.6, b % 2, rng.integers(2, size=n_rows))
    X = pd.DataFrame({"a": a, "b": b, "c": c}).map(lambda v: f"s{v}")
    return X, pd.Series([f"c{v}" for v in y], name="class")


@pytest.fixture(scope="session")
def tiny_models():
    X, y = _tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "tan": gm.TAN().fit(X, y),
            "chow-liu-free": gm.ChowLiu(representation="free").fit(X, y),
            "aode": gm.AODE(frequency_threshold=0).fit(X, y),
            "hyperforest": gm.HyperforestClassifier().fit(X, y),
            "hnb": gm.HierarchicalNaiveBayes(
                random_state=0, n_folds=2, n_candidate_pairs=1, max_latents=1, estimator="laplace"
            ).fit(X, y),
            "tan-discriminative": gm.TAN(estimator="discriminative").fit(X, y),
        }


# ---------------------------------------------------------------------------------------------
# Answers that display as tables with bars


def _widths(html):
    return [float(w) for w in re.findall(r'style="width: ([0-9.]+)%"', html)]


def test_a_posterior_is_a_series_that_displays_its_bars(sprinkler):
    answer = sprinkler.query("rain", {"wet": "yes"})
    assert isinstance(answer, Posterior) and isinstance(answer, pd.Series)
    expected = _posterior(sprinkler, "rain", {"wet": [0, 1]})
    np.testing.assert_allclose(answer.to_numpy(), expected, atol=1e-12)
    html = answer._repr_html_()
    assert "P(rain | wet=yes)" in html and "<script" not in html and "http" not in html
    np.testing.assert_allclose(_widths(html), np.round(100 * expected, 1))
    # Anything computed from it is a plain pandas object; the answer's values are untouched.
    assert type(answer.round(2)) is pd.Series and type(answer * 2) is pd.Series
    assert type(answer.to_frame()) is pd.DataFrame


def test_several_answers_and_joints_display_too(sprinkler):
    several = sprinkler.query(["rain", "wet"], {"slippery": "yes"})
    assert isinstance(several, Posteriors) and list(several) == ["rain", "wet"]
    html = several._repr_html_()
    expected = np.concatenate([_posterior(sprinkler, v, {"slippery": [0, 1]}) for v in ("rain", "wet")])
    np.testing.assert_allclose(_widths(html), np.round(100 * expected, 1))
    joint = sprinkler.query(["rain", "sprinkler"], {"wet": "yes"}, joint=True)
    assert isinstance(joint, JointPosterior) and type(joint["probability"]) is pd.Series
    np.testing.assert_allclose(_widths(joint._repr_html_()), np.round(100 * joint["probability"].to_numpy(), 1))
    observed = sprinkler.query("wet", {"wet": "yes"})._repr_html_()
    assert '<tr class="gm-observed"><td>yes</td>' in observed
    best = sprinkler.map_query(evidence={"wet": "yes"})._repr_html_()
    assert "<th>rain</th><td>no</td>" in best and "probability" in best
    batch = sprinkler.query("rain", pd.DataFrame({"wet": ["yes", "no"]}))
    assert type(batch) is pd.DataFrame  # a batch stays a plain DataFrame, one row per evidence set


# ---------------------------------------------------------------------------------------------
# trace=True


def test_a_traced_query_records_the_messages_the_answer_needs(tree7):
    evidence = {"d": "s3"}
    trace = tree7.query("b", evidence, trace=True)
    assert isinstance(trace, QueryTrace) and trace.method == "junction tree"
    answer, messages = trace
    pd.testing.assert_series_equal(answer, tree7.query("b", evidence), check_series_type=False)
    np.testing.assert_allclose(answer.to_numpy(), _posterior(tree7, "b", {"d": np.eye(7)[3]}), atol=1e-12)
    tree = tree7.distribution().junction_tree()
    # Towards the clique where b is read, every other clique sends exactly one message.
    assert len(tree.cliques) >= 3 and len(messages) == len(tree.cliques) - 1
    assert list(messages.columns) == ["step", "iteration", "kind", "source", "target", "separator", "table"]
    graph = trace.graph
    for row in messages.itertuples():
        assert graph.has_edge(row.source, row.target)
        assert set(row.separator) == graph.edges[row.source, row.target]["sepset"]
        assert sum(row.table.values()) == pytest.approx(1.0)
    assert messages["target"].iloc[-1] == trace.targets[0] and "b" in trace.targets[0]
    # The cache of messages is neither used nor changed: the same question traces the same messages.
    again: list = []
    tree7.distribution().query("b", evidence, trace=again)
    assert again == []  # reused: none computed
    repeated = tree7.query("b", evidence, trace=True).messages
    assert len(repeated) == len(messages)
    assert list(repeated["table"]) == list(messages["table"])


def test_the_message_along_a_chain_is_the_marginal_of_its_end():
    # a -> b -> c (7 states, so that no two cliques are merged): the message from {a, b} to {b, c}
    # over b is P(b) = sum_a P(a) P(b | a) when nothing is observed.
    rng = np.random.default_rng(5)
    p_a, p_b = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7), size=7)
    network = _network(
        {"a": p_a, "b": p_b, "c": rng.dirichlet(np.ones(7), size=7)},
        {"a": [], "b": ["a"], "c": ["b"]},
        {v: [f"s{k}" for k in range(7)] for v in "abc"},
    )
    row = network.query("c", trace=True).messages.iloc[-1]
    assert row["separator"] == ("b",) and row["target"] == frozenset({"b", "c"})
    np.testing.assert_allclose(list(row["table"].values()), p_a @ p_b, atol=1e-12)


def test_loopy_and_gbp_traces_number_their_iterations(sprinkler):
    loopy = sprinkler.query("rain", {"slippery": "yes"}, trace=True, method="loopy")
    edges = sprinkler.distribution().factor_graph.number_of_edges()
    assert len(loopy.messages) == loopy.run.iterations * edges
    assert loopy.messages["iteration"].tolist() == [1 + k // edges for k in range(len(loopy.messages))]
    assert all(loopy.graph.nodes[row.source]["kind"] == "factor" for row in loopy.messages.itertuples())
    assert all(loopy.graph.nodes[row.target]["kind"] == "variable" for row in loopy.messages.itertuples())
    gbp = sprinkler.query("rain", {"slippery": "yes"}, trace=True, method="gbp", max_iter=3)
    assert len(gbp.messages) == 3 * gbp.graph.number_of_edges()
    assert all(gbp.graph.has_edge(row.source, row.target) for row in gbp.messages.itertuples())


def test_trace_refuses_what_it_cannot_follow(sprinkler, tiny_models):
    with pytest.raises(ValueError, match="one evidence set"):
        sprinkler.query("rain", pd.DataFrame({"wet": ["yes"]}), trace=True)
    with pytest.raises(ValueError, match="joint=False"):
        sprinkler.query(["rain", "wet"], joint=True, trace=True)
    with pytest.raises(ValueError, match="passes none"):
        sprinkler.query("rain", method="variable-elimination", trace=True)
    with pytest.raises(ValueError, match="components"):
        tiny_models["chow-liu-free"].query("class", trace=True)
    with pytest.raises(TypeError, match="trace"):
        sprinkler.query("rain", trace="yes")


# ---------------------------------------------------------------------------------------------
# draw_inference


def _bars(ax, gid="posterior"):
    return [p for p in ax.patches if p.get_gid() == gid]


def test_draw_inference_bars_are_the_posteriors(sprinkler):
    evidence = {"wet": "yes", "rain": {"no": 0.3, "yes": 0.6}}
    ax = draw_inference(sprinkler, evidence, compare_to_prior=True)
    assert isinstance(ax, Axes)
    nodes = list(sprinkler.graph.nodes)
    likelihoods = {"wet": [0.0, 1.0], "rain": [0.3, 0.6]}
    expected = np.concatenate([_posterior(sprinkler, v, likelihoods) for v in nodes])
    scale = _bars(ax, "posterior-scale")
    widths = np.array([b.get_width() for b in _bars(ax)]) / scale[0].get_width()
    np.testing.assert_allclose(widths, expected, atol=1e-12)
    priors = np.concatenate([_posterior(sprinkler, v, {}) for v in nodes])
    ticks = [line for line in ax.lines if line.get_gid() == "prior"]
    starts = np.array([b.get_x() for b in _bars(ax)])
    np.testing.assert_allclose(
        [(line.get_xdata()[0] - x0) / scale[0].get_width() for line, x0 in zip(ticks, starts)], priors, atol=1e-12
    )
    cards = {node: p for node, p in zip(nodes, [p for p in ax.patches if p.get_gid() in CARDS])}
    assert cards["wet"].get_gid() == "card:evidence" and cards["rain"].get_gid() == "card:soft-evidence"
    assert cards["sprinkler"].get_gid() == cards["slippery"].get_gid() == "card"
    observed = [b for b in _bars(ax) if b.get_facecolor() == to_rgba(OBSERVED_COLOR)]
    assert len(observed) == 1 and observed[0].get_width() == pytest.approx(scale[0].get_width())  # wet = yes
    # The cards away from the evidence are coloured by their change: the larger, the darker.
    change = {v: np.abs(_posterior(sprinkler, v, likelihoods) - _posterior(sprinkler, v, {})).max() for v in nodes}
    light = {v: sum(to_rgba(cards[v].get_facecolor())[:3]) for v in ("sprinkler", "slippery")}
    assert (change["sprinkler"] > change["slippery"]) == (light["sprinkler"] < light["slippery"])
    texts = [t.get_text() for t in ax.texts if t.get_gid() == "change"]
    assert sorted(texts) == sorted(f"Δ {change[v]:.2f}" for v in ("sprinkler", "slippery"))


@pytest.mark.parametrize("name", ["tan", "chow-liu-free", "aode", "hyperforest", "hnb", "tan-discriminative"])
def test_draw_inference_draws_every_kind_of_model(tiny_models, name):
    model = tiny_models[name]
    ax = draw_inference(model, {"a": "s1"}, ax=Figure(figsize=(7, 5)).subplots())
    variables = model.distribution().variables
    assert len([p for p in ax.patches if p.get_gid() in CARDS]) == len(variables)
    titles = [t.get_text() for t in ax.texts if t.get_gid() == "card-title"]
    assert sorted(titles) == sorted(map(str, variables))  # the class (and HNB's latents) among them
    answer = model.query(variables, {"a": "s1"})
    assert len(_bars(ax)) == sum(len(answer[v]) for v in variables)
    np.testing.assert_allclose(
        sorted(b.get_width() for b in _bars(ax)),
        sorted(np.concatenate([answer[v].to_numpy() for v in variables]) * _bars(ax, "posterior-scale")[0].get_width()),
        atol=1e-12,
    )


def test_draw_inference_flows_a_large_model_into_rows_without_overlap():
    names = [f"v{k}" for k in range(42)]
    network = _network(
        {v: ([0.5, 0.5] if k == 0 else [[0.7, 0.3], [0.2, 0.8]]) for k, v in enumerate(names)},
        {v: ([] if k == 0 else [names[k - 1]]) for k, v in enumerate(names)},
        {v: ["lo", "hi"] for v in names},
    )
    ax = draw_inference(network, {"v0": "hi"}, legend=False, title="")
    cards = [p for p in ax.patches if p.get_gid() in CARDS]
    boxes = [(p.get_x(), p.get_y(), p.get_x() + p.get_width(), p.get_y() + p.get_height()) for p in cards]
    rows = {round(y0 + y1, 6) for _, y0, _, y1 in boxes}
    assert 3 <= len(rows) < 42  # a chain of 42 is one column in the layered layout: flowed into rows
    for (a0, b0, a1, b1), (c0, d0, c1, d1) in itertools.combinations(boxes, 2):
        assert a1 <= c0 or c1 <= a0 or b1 <= d0 or d1 <= b0  # no two cards overlap
    width, height = ax.figure.get_size_inches()
    assert width <= 20.0 + 1e-9 and height <= 15.0 + 1e-9


def test_draw_inference_checks_its_input(sprinkler):
    with pytest.raises(TypeError, match="distribution"):
        draw_inference(nx.DiGraph([("a", "b")]))
    with pytest.raises(TypeError, match="one evidence set"):
        draw_inference(sprinkler, pd.DataFrame({"wet": ["yes"]}))
    with pytest.raises(ValueError, match="max_states"):
        draw_inference(sprinkler, max_states=1)
    with pytest.raises(ValueError, match="change"):
        draw_inference(sprinkler, change="l1")
    with pytest.raises(NotFittedError):
        draw_inference(gm.TAN())


def test_draw_inference_sums_the_states_it_leaves_out():
    states = {"x": [f"s{k}" for k in range(8)], "y": ["n", "p"]}
    network = _network({"x": np.arange(1, 9) / 36, "y": np.tile([0.5, 0.5], (8, 1))}, {"x": [], "y": ["x"]}, states)
    ax = draw_inference(network, max_states=4)
    scale = _bars(ax, "posterior-scale")[0].get_width()
    shown = [b.get_width() / scale for b in _bars(ax)][:3]  # x: its 3 most probable, then the rest
    rest = _bars(ax, "posterior-rest")
    np.testing.assert_allclose(shown, np.array([6, 7, 8]) / 36)
    assert len(rest) == 1 and rest[0].get_width() / scale == pytest.approx(15 / 36)


def test_draw_posterior_draws_the_answer_and_its_prior(sprinkler):
    answer = sprinkler.query(["rain", "sprinkler"], {"wet": "yes"})
    prior = sprinkler.query(["rain", "sprinkler"])
    ax = draw_posterior(answer, prior=prior)
    np.testing.assert_allclose(
        [b.get_width() for b in _bars(ax)], np.concatenate([answer["rain"], answer["sprinkler"]]), atol=1e-12
    )
    np.testing.assert_allclose(
        [line.get_xdata()[0] for line in ax.lines if line.get_gid() == "prior"],
        np.concatenate([prior["rain"], prior["sprinkler"]]),
    )
    assert ax.get_title(loc="left") == "P(rain, sprinkler | wet=yes)"
    assert all(b.get_facecolor() == to_rgba(BAR_COLOR) for b in _bars(ax))
    with pytest.raises(ValueError, match="same variables"):
        draw_posterior(answer, prior=sprinkler.query("rain"))


# ---------------------------------------------------------------------------------------------
# draw_d_separation


def _random_dag(rng, n=7, p=0.35):
    order = rng.permutation(n)
    dag = nx.DiGraph()
    dag.add_nodes_from(range(n))
    dag.add_edges_from((int(order[i]), int(order[j])) for i in range(n) for j in range(i + 1, n) if rng.random() < p)
    return dag


def _brute_force_trails(dag, x, y, given):
    """Every simple trail between x and y in the skeleton that is active given `given` (the definition)."""
    open_colliders = set(given).union(*(nx.ancestors(dag, z) for z in given)) if given else set()
    return [
        path
        for path in nx.all_simple_paths(dag.to_undirected(), x, y)
        if _trail_is_active(dag, path, set(given), open_colliders)
    ]


def test_active_trails_are_every_active_trail():
    rng = np.random.default_rng(0)
    for _ in range(150):
        dag = _random_dag(rng)
        x, y = (int(v) for v in rng.choice(7, 2, replace=False))
        given = {v for v in range(7) if v not in (x, y) and rng.random() < 0.3}
        found = active_trails(dag, x, y, given, max_trails=10**6)
        assert sorted(map(tuple, found)) == sorted(map(tuple, _brute_force_trails(dag, x, y, given)))


def test_draw_d_separation_highlights_exactly_the_edges_of_active_trails():
    rng = np.random.default_rng(1)
    answers = set()
    for _ in range(6):
        dag = _random_dag(rng)
        x, y = (int(v) for v in rng.choice(7, 2, replace=False))
        given = sorted(v for v in range(7) if v not in (x, y) and rng.random() < 0.35)
        ax = draw_d_separation(dag, x, y, given, ax=Figure().subplots(), max_trails=10**6)
        trails = _brute_force_trails(dag, x, y, given)
        expected = {frozenset(pair) for trail in trails for pair in zip(trail, trail[1:])}
        edges = [p for p in ax.patches if (p.get_gid() or "").startswith("edge")]
        active = {frozenset(e) for p, e in zip(edges, dag.edges) if p.get_gid() == "edge:active"}
        assert active == expected
        assert all(p.get_edgecolor()[:3] == to_rgba(ACTIVE_COLOR)[:3] for p in edges if p.get_gid() == "edge:active")
        separated = nx.is_d_separator(dag, {x}, {y}, set(given))
        assert separated == (not trails)
        assert ("d-separated" in ax.get_title()) == separated
        answers.add(separated)
        observed = [c for c in ax.collections if c.get_gid() == "observed"]
        nodes = next(c for c in ax.collections if c.get_gid() == "nodes").get_offsets()
        position = dict(zip(dag.nodes, np.asarray(nodes)))
        if given:
            np.testing.assert_allclose(observed[0].get_offsets(), [position[v] for v in given])
        else:
            assert not observed
    assert answers == {True, False}  # both answers drawn


def test_draw_d_separation_on_models_and_markov_networks(sprinkler, tiny_models):
    ax = draw_d_separation(sprinkler, "rain", "slippery", given="wet")
    assert ax.get_title().startswith("rain and slippery are d-separated given wet: no active trail")
    ax = draw_d_separation(sprinkler, "rain", "sprinkler", given="slippery")
    assert ax.get_title().splitlines() == [
        "rain and sprinkler are d-connected given slippery: 2 active trails",
        "rain → sprinkler",
    ]
    # A discriminative TAN's tables are potentials: separation in its Markov network.
    model = tiny_models["tan-discriminative"]
    ax = draw_d_separation(model, "a", "c", given="class", ax=Figure().subplots())
    graph = model.distribution().graph
    rest = graph.subgraph(set(graph) - {"class"})
    expected = {frozenset(e) for path in nx.all_simple_paths(rest, "a", "c") for e in zip(path, path[1:])}
    edges = [p for p in ax.patches if (p.get_gid() or "").startswith("edge")]
    drawn = [frozenset(e) for e in model.structure_.edges] if len(edges) == model.structure_.number_of_edges() else []
    assert {e for p, e in zip(edges, drawn) if p.get_gid() == "edge:active"} == expected
    assert "separated" in ax.get_title() or "connected" in ax.get_title()
    with pytest.raises(ValueError, match="disjoint"):
        draw_d_separation(sprinkler, "rain", "wet", given="wet")


# ---------------------------------------------------------------------------------------------
# The animation of message passing, and the drawings it plays on


def test_animate_plays_one_frame_per_message_on_the_junction_tree(tree7):
    trace = tree7.query("b", {"d": "s3"}, trace=True)
    anim = animate(trace)
    assert len(anim.frames) == len(trace.messages) + 1  # one per message, then the answer
    ax = anim._fig.axes[0]
    cliques = dict(zip(trace.graph.nodes, next(c for c in ax.collections if c.get_gid() == "cliques").get_offsets()))
    for k, row in enumerate(trace.messages.to_dict("records")):
        anim._func(k)
        assert anim.frames[k].row["step"] == k
        (arrow,) = [p for p in ax.patches if p.get_gid() == "message"]
        np.testing.assert_allclose(arrow._posA_posB, [cliques[row["source"]], cliques[row["target"]]])
        (table,) = [t for t in ax.texts if t.get_gid() == "message-table"]
        assert table.get_text().endswith(table_text(row["table"]))
        assert ax.get_title(loc="left").splitlines()[-1].startswith(f"message {k + 1}/{len(trace.messages)}")
    anim._func(len(anim.frames) - 1)
    assert not [p for p in ax.patches if p.get_gid() == "message"]
    (ring,) = [c for c in ax.collections if c.get_gid() == "answer"]
    np.testing.assert_allclose(ring.get_offsets(), [cliques[trace.targets[0]]])


def test_animate_loopy_messages_on_the_factor_graph(sprinkler):
    trace = sprinkler.query("rain", {"slippery": "yes"}, trace=True, method="loopy", max_iter=4)
    anim = animate(trace, max_frames=10)
    assert len(anim.frames) == 10
    steps = [f.row["step"] for f in anim.frames[:-1]]
    assert steps == sorted(set(steps)) and steps[0] == 0 and steps[-1] == len(trace.messages) - 1
    anim._func(3)
    assert [p for p in anim._fig.axes[0].patches if p.get_gid() == "message"]
    with pytest.raises(ValueError, match="max_frames"):
        animate(trace, max_frames=1)


def test_draw_junction_tree_draws_the_inference_tree_with_its_own_edges():
    # Two components (7 states: too large to merge): the inference tree joins them by an empty separator.
    rng = np.random.default_rng(6)
    parents = {"a": [], "b": ["a"], "c": [], "d": ["c"]}
    network = _network(
        {v: rng.dirichlet(np.ones(7), size=(7,) * len(parents[v])) for v in parents},
        parents,
        {v: [f"s{k}" for k in range(7)] for v in parents},
    )
    graph = network.distribution().junction_tree().graph
    ax = draw_junction_tree(graph, ax=Figure().subplots())
    assert len(next(c for c in ax.collections if c.get_gid() == "edges").get_segments()) == graph.number_of_edges()
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "sepset") == ["∅"]
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "clique") == ["a,b", "c,d"]


def test_draw_factor_graph_of_a_distribution(sprinkler):
    graph = sprinkler.distribution().factor_graph
    ax = draw_factor_graph(sprinkler, ax=Figure().subplots())
    counts = {c.get_gid(): len(c.get_offsets()) for c in ax.collections}
    assert counts["variables"] == 4 and counts["factors"] == 4
    assert (
        len(next(c for c in ax.collections if c.get_gid() == "edges").get_segments())
        == graph.number_of_edges()
        == 1 + 2 + 3 + 2
    )
    with pytest.raises(TypeError, match="mixture"):
        draw_factor_graph(gm.ChowLiu(representation="free").fit(*_tiny()))
