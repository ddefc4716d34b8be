import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_network, network_layout  # noqa: E402
from graphmodels.plotting.network import format_label  # noqa: E402
from graphmodels.structures import augmented_naive_bayes, orient_forest  # noqa: E402


def _axes():
    return Figure(figsize=(8, 6)).subplots()


def _nodes(ax):
    (collection,) = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "nodes"]
    return collection.get_offsets()


def _edges(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


def _tan(n, seed=0):
    rng = np.random.default_rng(seed)
    tree = nx.Graph()
    names = [f"x{i}" for i in range(n)]
    tree.add_nodes_from(names)
    for i in range(1, n):
        tree.add_edge(names[int(rng.integers(i))], names[i], weight=float(rng.random()))
    arcs = orient_forest(tree)
    weights = {name: float(rng.random()) for name in names}
    return augmented_naive_bayes("C", names, arcs, cardinalities={"C": 2}, class_weights=weights)


def test_counts_of_nodes_and_edges_and_kinds():
    g = _tan(6)
    ax = draw_network(g, _axes())
    assert len(_nodes(ax)) == 6 + 1
    edges = _edges(ax)
    assert len(edges) == g.number_of_edges() == 6 + 5
    gids = [p.get_gid() for p in edges]
    assert gids.count("edge:class") == 6 and gids.count("edge:augmenting") == 5
    for patch in edges:
        if patch.get_gid() == "edge:class":
            assert patch.get_linestyle() != "-"
    widest_class = max(p.get_linewidth() for p in edges if p.get_gid() == "edge:class")
    thinnest_aug = min(p.get_linewidth() for p in edges if p.get_gid() == "edge:augmenting")
    assert widest_class <= 1.8 + 1e-9 and thinnest_aug >= 1.4 - 1e-9


def test_edge_width_grows_with_weight():
    g = nx.DiGraph()
    g.add_node("C", role="class")
    for name, w in [("a", 0.1), ("b", 0.4)]:
        g.add_node(name, role="feature")
        g.add_edge("C", name, kind="class", weight=w)
    ax = draw_network(g, _axes())
    by_target = {tuple(np.round(p._posA_posB[1], 6)): p.get_linewidth() for p in _edges(ax)}
    pos = network_layout(g)
    assert by_target[tuple(np.round(pos["b"], 6))] > by_target[tuple(np.round(pos["a"], 6))]


@pytest.mark.parametrize("n", [3, 9, 40])
def test_class_node_on_top_and_deterministic(n):
    g = _tan(n, seed=n)
    first, second = network_layout(g), network_layout(g.copy())
    assert first == second
    assert all(first["C"][1] > y for node, (x, y) in first.items() if node != "C")
    ax1, ax2 = draw_network(g, _axes()), draw_network(g, _axes())
    np.testing.assert_array_equal(_nodes(ax1), _nodes(ax2))
    offsets = _nodes(ax1)
    assert np.argmax(offsets[:, 1]) == list(g.nodes).index("C")


def test_children_below_parents():
    g = _tan(12, seed=3)
    pos = network_layout(g)
    for u, v, kind in g.edges(data="kind"):
        if kind == "augmenting":
            assert pos[u][1] > pos[v][1]


@pytest.mark.parametrize("n", [9, 40])
def test_naive_bayes_rows_wrap_and_do_not_overlap(n):
    g = augmented_naive_bayes("C", [f"feature_{i}" for i in range(n)])
    pos = network_layout(g)
    rows = {}
    for _node, (x, y) in pos.items():
        rows.setdefault(y, []).append(x)
    assert max(len(xs) for xs in rows.values()) <= max(10, int(np.ceil(2 * np.sqrt(n))))
    points = np.array(list(pos.values()))
    distances = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)) + np.eye(len(points)) * 10
    assert distances.min() >= 0.99


def test_forty_variables_draws():
    g = _tan(40, seed=1)
    ax = draw_network(g, show_weights=True)
    assert len(_nodes(ax)) == 41 and len(_edges(ax)) == 40 + 39
    width, height = ax.figure.get_size_inches()
    assert width <= 30 and height <= 20
    plt.close(ax.figure)


def test_undirected_graph():
    g = nx.relabel_nodes(nx.random_labeled_tree(15, seed=2), lambda i: f"v{i}")
    ax = draw_network(g, _axes())
    assert len(_nodes(ax)) == 15 and len(_edges(ax)) == 14
    assert all(p.get_gid() == "edge" for p in _edges(ax))
    assert network_layout(g) == network_layout(g)


def test_undirected_graph_with_components_and_isolated_nodes():
    g = nx.Graph([("a", "b"), ("b", "c"), ("d", "e")])
    g.add_node("lonely")
    pos = network_layout(g)
    assert set(pos) == set(g)
    points = np.array(list(pos.values()))
    distances = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1)) + np.eye(len(points)) * 10
    assert distances.min() > 0.5


@pytest.mark.parametrize("model_class", [gm.NaiveBayes, gm.TAN, gm.FAN, gm.ChowLiu, gm.AODE, gm.AnDE])
def test_fitted_models(model_class):
    frame = gm.datasets.load("car")
    model = model_class().fit(frame.drop(columns="class"), frame["class"])
    ax = draw_network(model, _axes(), title=model_class.__name__)
    assert len(_nodes(ax)) == model.structure_.number_of_nodes()
    assert len(_edges(ax)) == model.structure_.number_of_edges()
    assert ax.get_title() == model_class.__name__


def test_density_model():
    frame = gm.datasets.load("car")
    model = gm.ChowLiuTree().fit(frame)
    ax = draw_network(model, _axes())
    assert len(_edges(ax)) == frame.shape[1] - 1


def test_unusual_node_names():
    names = ["#", "a b", "é", 1, 'quote"d', "back\\slash", "new\nline", "x" * 60]
    g = augmented_naive_bayes("class #1", names, [("a b", "é"), (1, "#")])
    ax = draw_network(g, _axes(), show_weights=True)
    assert len(_nodes(ax)) == len(names) + 1
    texts = [t.get_text() for t in ax.texts]
    assert "é" in texts and "1" in texts and "#" in texts
    assert all(len(t) <= 24 + 3 for t in texts)


def test_format_label():
    assert format_label(7) == "7"
    assert format_label("x" * 30, max_length=10) == "x" * 9 + "…"
    assert format_label("middle-middle-square") == "middle-\nmiddle-\nsquare"
    assert "\n" not in format_label("short")
    assert format_label("a\nb") == "a b"


def test_user_layout_and_unknown_layout():
    g = nx.DiGraph([("a", "b")])
    ax = draw_network(g, _axes(), layout={"a": (0, 0), "b": (3, 1)})
    np.testing.assert_array_equal(_nodes(ax), [[0, 0], [3, 1]])
    with pytest.raises(ValueError, match="no position"):
        draw_network(g, _axes(), layout={"a": (0, 0)})
    with pytest.raises(ValueError, match="valid"):
        draw_network(g, _axes(), layout="hexagonal")
    ax = draw_network(g, _axes(), layout="circular")
    assert len(_nodes(ax)) == 2


@pytest.mark.parametrize("bad", [None, [("a", "b")], "graph", 3, np.zeros((2, 2))])
def test_rejects_non_graph(bad):
    with pytest.raises(TypeError, match="networkx graph"):
        draw_network(bad, _axes())


def test_rejects_unfitted_model():
    with pytest.raises(gm.models.NotFittedError, match="TAN instance is not fitted"):
        draw_network(gm.TAN(), _axes())


def test_rejects_what_is_not_a_structure():
    with pytest.raises(
        TypeError,
        match="Expected a networkx graph, a Hyperforest, a DiscreteBayesianNetwork or a fitted model whose `structure_` is one of these, got list",
    ):
        draw_network([("a", "b")], _axes())


def test_input_not_mutated():
    g = _tan(7)
    before = (list(g.nodes(data=True)), list(g.edges(data=True)), dict(g.graph))
    draw_network(g, _axes(), show_weights=True)
    network_layout(g)
    assert (list(g.nodes(data=True)), list(g.edges(data=True)), dict(g.graph)) == before


def test_empty_graph_and_creates_figure():
    ax = draw_network(nx.DiGraph())
    assert len(ax.patches) == 0
    plt.close(ax.figure)


def test_legend_lists_roles_and_kinds():
    g = _tan(4)
    g.add_node("H", role="latent")
    ax = draw_network(g, _axes())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["class", "attribute", "latent", "class arc", "augmenting arc"]
    assert draw_network(g, _axes(), legend=False).get_legend() is None


# ---------------------------------------------------------------------------- the drawing's fast paths
def test_node_arc_is_matplotlibs_arc3_clipped_to_the_node_circles():
    from matplotlib.patches import ConnectionStyle

    from graphmodels.plotting._common import NodeArc

    rng = np.random.default_rng(0)
    for _ in range(100):
        a, b = rng.uniform(0, 400, 2), rng.uniform(0, 400, 2)
        rad = float(rng.choice([0.0, 0.15, -0.3, 0.6]))
        shrink_a, shrink_b = rng.uniform(0, 40, 2)
        expected = ConnectionStyle.Arc3(rad=rad)(a, b, shrink_a, shrink_b)  # bisection to 0.01 pixel
        path = NodeArc(rad=rad)(a, b, shrink_a, shrink_b)
        assert list(path.codes) == list(expected.codes)
        np.testing.assert_allclose(path.vertices, expected.vertices, atol=0.03)
    # Circles that cover the whole curve: matplotlib's own rule.
    both = ConnectionStyle.Arc3(rad=0.2)((0, 0), (10, 0), 30, 30)
    np.testing.assert_allclose(NodeArc(rad=0.2)((0, 0), (10, 0), 30, 30).vertices, both.vertices)


def _bend_by_brute_force(a, b, others, clearance, bounds):
    """The rule of ``_bend``, one candidate at a time against every node."""
    from graphmodels.plotting._common import _BENDS, _T

    best, best_hits = 0.0, None
    for rad in _BENDS:
        control = (a + b) / 2 + rad * np.array([b[1] - a[1], a[0] - b[0]])
        curve = (1 - _T) ** 2 * a + 2 * _T * (1 - _T) * control + _T**2 * b
        (x0, x1), (y0, y1) = bounds
        if rad != 0 and (
            curve[:, 0].min() < x0 or curve[:, 0].max() > x1 or curve[:, 1].min() < y0 or curve[:, 1].max() > y1
        ):
            continue
        hits = sum(np.hypot(*(curve - p).T).min() < clearance for p in others)
        if best_hits is None or hits < best_hits:
            best, best_hits = rad, hits
    return best


def test_bend_scores_every_candidate_against_the_nearby_nodes_as_one_at_a_time_against_all():
    from graphmodels.plotting._common import _bend

    rng = np.random.default_rng(1)
    bent = 0
    for _ in range(80):
        points = rng.uniform(0, 10, (int(rng.integers(3, 30)), 2))
        clearance = float(rng.uniform(0.2, 1.0))
        bounds = ((-0.5, 10.5), (-0.5, 10.5))
        rad = _bend(points[0], points[1], points[2:], clearance, bounds)
        assert rad == _bend_by_brute_force(points[0], points[1], points[2:], clearance, bounds)
        bent += rad != 0
    assert bent > 8  # the cases are not all straight


def _kamada_kawai_energy(graph, pos):
    """Kamada-Kawai's energy at the best scale of `pos` (graph distances as the ideal lengths)."""
    nodes = list(graph.nodes)
    d = dict(nx.all_pairs_shortest_path_length(graph))
    ideal = np.array([[d[u][v] for v in nodes] for u in nodes], dtype=float)
    xy = np.array([pos[n] for n in nodes])
    apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    off = ~np.eye(len(nodes), dtype=bool)
    w = 1 / ideal[off] ** 2
    scale = (w * apart[off] * ideal[off]).sum() / (w * apart[off] ** 2).sum()
    return float((w * (scale * apart[off] - ideal[off]) ** 2).sum() / 2)


@pytest.mark.parametrize(
    "graph",
    [nx.random_labeled_tree(25, seed=1), nx.grid_2d_graph(4, 5), nx.petersen_graph(), nx.star_graph(12)],
    ids=["tree", "grid", "petersen", "star"],
)
def test_kamada_kawai_layout_reaches_networkx_energy_and_keeps_nodes_apart(graph):
    from graphmodels._threads import one_blas_thread
    from graphmodels.plotting._common import _stress_majorization

    pos = _stress_majorization(graph)
    assert pos == _stress_majorization(graph.copy())  # deterministic
    with one_blas_thread():  # scipy's L-BFGS-B: many tiny BLAS calls
        reference = nx.kamada_kawai_layout(graph, weight=None)
    # Another local minimum, as low within 15% (on random trees of 25 to 60 nodes: 0.97 to 1.11 of networkx's).
    assert _kamada_kawai_energy(graph, pos) <= 1.15 * _kamada_kawai_energy(graph, reference)
    xy = np.array(list(pos.values()))
    gaps = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) + np.eye(len(xy)) * 1e9
    assert gaps.min() > 0.3  # an edge is about 1: leaves of one parent do not share a point


def test_labels_inside_the_axes_are_left_out_of_the_layout_and_the_others_measured():
    g = _tan(12)
    fitted = draw_network(g, Figure(figsize=(8, 6), layout="constrained").subplots())
    labels = [t for t in fitted.texts if t.get_text()]
    assert len(labels) == 13 and not any(t.get_in_layout() for t in labels)  # the fitted font stays in its slot
    large = draw_network(g, Figure(figsize=(8, 6), layout="constrained").subplots(), font_size=40)
    measured = [t.get_in_layout() for t in large.texts if t.get_text()]
    assert any(measured)  # labels at the edges may reach past the axes: constrained layout makes room
