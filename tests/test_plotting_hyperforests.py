import io
import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.path import Path  # noqa: E402

from graphmodels.plotting import draw_hyperforest, draw_junction_tree, to_dot, to_graphml  # noqa: E402
from graphmodels.plotting.hyperforests import hyperedge_outline  # noqa: E402
from graphmodels.structures import Hyperforest, hyperforests_by_class, random_hypertree  # noqa: E402


def _axes():
    return Figure(figsize=(6, 5)).subplots()


def _collection(ax, gid):
    (collection,) = [c for c in ax.collections if c.get_gid() == gid]
    return collection


def _hulls(ax):
    return [p for p in ax.patches if p.get_gid() == "hyperedge"]


def _texts(ax, gid):
    return [t.get_text() for t in ax.texts if t.get_gid() == gid]


def _small():
    """Two components (a 3-clique chained to a pair, and a pair) plus two isolated nodes; x is the class."""
    forest = Hyperforest([("a", "b", "c"), ("c", "d"), ("e", "x")], nodes=list("abcdexgh"))
    forest.node_attributes["x"]["role"] = "class"
    return forest


def _snapshot(forest):
    return (forest.nodes, forest.hyperedges, json.dumps(forest.node_attributes, sort_keys=True))


@pytest.mark.parametrize("min_size", [1, 2, 3, 4])
def test_one_shaded_region_per_large_maximal_hyperedge(min_size):
    forest = _small()
    ax = draw_hyperforest(forest, ax=_axes(), min_size=min_size)
    # maximal hyperedges: {a,b,c}, {c,d}, {e,x}, {g}, {h}
    expected = {1: 5, 2: 3, 3: 1, 4: 0}[min_size]
    hulls = _hulls(ax)
    assert len(hulls) == expected == sum(len(h) >= min_size for h in forest.maximal_hyperedges)
    if min_size == 2:
        assert sorted(p.get_label() for p in hulls) == ["a,b,c", "c,d", "e,x"]
        assert len({tuple(p.get_facecolor()) for p in hulls}) == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_hypertree_hulls_enclose_their_nodes(seed):
    forest = random_hypertree(10, 2, random_state=seed)
    ax = draw_hyperforest(forest, ax=_axes(), random_state=seed)
    hulls = _hulls(ax)
    assert len(hulls) == len(forest.maximal_hyperedges) == 8
    offsets = _collection(ax, "nodes").get_offsets()
    position = dict(zip(forest.nodes, offsets))
    by_label = {p.get_label(): p for p in hulls}
    for h in forest.maximal_hyperedges:
        label = ",".join(str(v) for v in sorted(h, key=forest.nodes.index))
        path = by_label[label].get_path()
        assert all(path.contains_point(position[v]) for v in h)
    assert all(p.get_zorder() < _collection(ax, "nodes").get_zorder() for p in hulls)
    assert all(0 < p.get_facecolor()[3] <= 0.25 + 1e-9 for p in hulls)


def test_nodes_drawn_at_given_positions():
    forest = _small()
    rng = np.random.default_rng(0)
    pos = {v: tuple(rng.uniform(-5, 5, size=2)) for v in forest.nodes}
    ax = draw_hyperforest(forest, ax=_axes(), pos=pos)
    np.testing.assert_allclose(_collection(ax, "nodes").get_offsets(), [pos[v] for v in forest.nodes])
    edges = _collection(ax, "edges").get_segments()
    assert len(edges) == forest.primal_graph().number_of_edges() == 5
    ax = draw_hyperforest(forest, view="factor", ax=_axes(), pos=pos)
    np.testing.assert_allclose(_collection(ax, "variables").get_offsets(), [pos[v] for v in forest.nodes])


def test_factors_missing_from_pos_go_to_their_variables_mean():
    forest = Hyperforest([("a", "b"), ("c",)], nodes="abc")
    pos = {"a": (0, 0), "b": (2, 0), "c": (5, 5)}
    ax = draw_hyperforest(forest, view="factor", ax=_axes(), pos=pos)
    factors = _collection(ax, "factors").get_offsets()
    np.testing.assert_allclose(factors[0], [1, 0])  # {a, b}
    assert factors[1][0] == 5 and factors[1][1] > 5  # {c}, just above c


@pytest.mark.parametrize(
    "layout", [None, "kamada_kawai", "spring", "spectral", "circular", "bipartite", nx.shell_layout]
)
def test_factor_view_draws_variables_and_factors(layout):
    forest = random_hypertree(9, 2, random_state=3)
    ax = draw_hyperforest(forest, view="factor", layout=layout, ax=_axes())
    n_variables = len(_collection(ax, "variables").get_offsets())
    n_factors = len(_collection(ax, "factors").get_offsets())
    assert (n_variables, n_factors) == (9, len(forest.maximal_hyperedges)) == (9, 7)
    assert n_variables + n_factors == forest.factor_graph().number_of_nodes()
    assert len(_collection(ax, "edges").get_segments()) == 7 * 3
    assert _texts(ax, "factor-label") == ["3"] * 7
    assert _hulls(ax) == []


def test_bipartite_layout_puts_factors_above_variables():
    ax = draw_hyperforest(_small(), view="factor", layout="bipartite", ax=_axes())
    variables = _collection(ax, "variables").get_offsets()
    factors = _collection(ax, "factors").get_offsets()
    assert len(set(variables[:, 1])) == 1 and len(set(factors[:, 1])) == 1
    assert factors[0, 1] > variables[0, 1]
    assert len(set(np.round(factors[:, 0], 9))) == len(factors)


def test_layouts_are_deterministic():
    forest = random_hypertree(12, 3, random_state=5)
    first = _collection(draw_hyperforest(forest, ax=_axes()), "nodes").get_offsets()
    second = _collection(draw_hyperforest(forest.copy(), ax=_axes()), "nodes").get_offsets()
    np.testing.assert_array_equal(first, second)
    other = _collection(draw_hyperforest(forest, ax=_axes(), layout="spring", random_state=1), "nodes")
    assert other.get_offsets().shape == first.shape


def test_class_node_highlighted():
    forest = _small()
    ax = draw_hyperforest(forest, ax=_axes())
    nodes = _collection(ax, "nodes")
    widths = nodes.get_linewidths()
    i = forest.nodes.index("x")
    assert widths[i] > max(np.delete(widths, i))
    assert [t.get_fontweight() for t in ax.texts if t.get_text() == "x"] == ["bold"]
    colours = nodes.get_facecolors()
    assert not np.allclose(colours[i], colours[0])


def test_labels_off_and_custom():
    forest = _small()
    assert len(draw_hyperforest(forest, ax=_axes(), labels=False).texts) == 0
    ax = draw_hyperforest(forest, ax=_axes(), labels={"a": "Alpha"})
    assert [t.get_text() for t in ax.texts if t.get_text()] == ["Alpha"]
    with pytest.raises(TypeError, match="`labels`"):
        draw_hyperforest(forest, ax=_axes(), labels="yes")


def test_junction_tree_labels_cliques_and_separators():
    forest = Hyperforest([("a", "b", "c"), ("b", "c", "d"), ("d", "e"), ("f", "g")], nodes="abcdefgh")
    ax = draw_junction_tree(forest, ax=_axes())
    assert sorted(_texts(ax, "clique")) == ["a,b,c", "b,c,d", "d,e", "f,g", "h"]
    assert sorted(_texts(ax, "sepset")) == ["b,c", "d"]
    assert len(_collection(ax, "cliques").get_offsets()) == 5
    assert len(_collection(ax, "edges").get_segments()) == 2  # a forest: 5 cliques, 3 trees


def test_draw_network_draws_a_junction_tree_as_draw_junction_tree():
    from graphmodels.plotting import draw_network

    forest = Hyperforest([("a", "b", "c"), ("b", "c", "d"), ("d", "e"), ("f", "g")], nodes="abcdefgh")
    ax = draw_network(forest.junction_tree(), _axes())
    assert sorted(_texts(ax, "clique")) == ["a,b,c", "b,c,d", "d,e", "f,g", "h"]
    assert sorted(_texts(ax, "sepset")) == ["b,c", "d"]


def test_junction_tree_is_layered_root_on_top():
    forest = random_hypertree(10, 2, random_state=0)
    tree = forest.junction_tree()
    ax = draw_junction_tree(forest, ax=_axes())
    pos = dict(zip(forest.maximal_hyperedges, _collection(ax, "cliques").get_offsets()))
    depths = sorted({y for _, y in pos.values()}, reverse=True)
    assert [h for h, (_, y) in pos.items() if y == depths[0]] and len(depths) >= 2
    for u, v in tree.edges:  # every edge joins consecutive layers
        assert abs(depths.index(pos[u][1]) - depths.index(pos[v][1])) == 1
    separators = {",".join(str(v) for v in sorted(s, key=forest.nodes.index)) for _, _, s in tree.edges(data="sepset")}
    assert set(_texts(ax, "sepset")) == separators


def test_junction_tree_options():
    forest = random_hypertree(7, 2, random_state=1)
    ax = draw_junction_tree(forest, ax=_axes(), labels=False, sepsets=False, layout="circular")
    assert len(ax.texts) == 0
    pos = {h: (i, 0) for i, h in enumerate(forest.maximal_hyperedges)}
    ax = draw_junction_tree(forest, ax=_axes(), pos=pos)
    np.testing.assert_allclose(_collection(ax, "cliques").get_offsets(), [pos[h] for h in forest.maximal_hyperedges])
    with pytest.raises(ValueError, match="'tree'"):
        draw_junction_tree(forest, ax=_axes(), layout="bipartite")


def test_hull_and_clique_colours_agree():
    forest = random_hypertree(8, 2, random_state=2)
    primal = draw_hyperforest(forest, ax=_axes(), hyperedge_alpha=1.0)
    tree = draw_junction_tree(forest, ax=_axes())
    factor = draw_hyperforest(forest, view="factor", ax=_axes())
    hull_colours = [p.get_facecolor() for p in _hulls(primal)]
    np.testing.assert_allclose(hull_colours, _collection(tree, "cliques").get_facecolors())
    np.testing.assert_allclose(hull_colours, _collection(factor, "factors").get_facecolors())


@pytest.mark.parametrize("view", ["primal", "factor"])
def test_isolated_nodes_and_width_zero(view):
    isolated = Hyperforest([("a", "b")], nodes=["a", "b", "c", "d"])
    ax = draw_hyperforest(isolated, view=view, ax=_axes())
    assert len(_hulls(ax)) == (1 if view == "primal" else 0)
    width_zero = random_hypertree(5, 0, random_state=0)
    assert width_zero.width == 0
    ax = draw_hyperforest(width_zero, view=view, ax=_axes())
    assert _hulls(ax) == []
    ax = draw_junction_tree(width_zero, ax=_axes())
    assert sorted(_texts(ax, "clique")) == ["0", "1", "2", "3", "4"] and _texts(ax, "sepset") == []
    single = Hyperforest([], nodes=["only"])
    draw_hyperforest(single, view=view, ax=_axes(), min_size=1)
    draw_junction_tree(single, ax=_axes())


def test_empty_forest_and_new_figure():
    empty = Hyperforest()
    ax = draw_hyperforest(empty)
    assert len(ax.patches) == len(ax.collections) == 0
    plt.close(ax.figure)
    ax = draw_junction_tree(empty, title="empty")
    assert ax.get_title() == "empty"
    plt.close(ax.figure)
    ax = draw_hyperforest(random_hypertree(6, 1, random_state=0), view="factor", title="factor")
    assert ax.get_title() == "factor"
    plt.close(ax.figure)


def test_unusual_node_names():
    forest = Hyperforest([((1, 2), "a b", "é"), ("é", 3.5)])
    ax = draw_hyperforest(forest, ax=_axes())
    assert "é" in [t.get_text() for t in ax.texts]
    ax = draw_junction_tree(forest, ax=_axes())
    assert sorted(_texts(ax, "clique")) == ["(1, 2),a b,é", "é,3.5"]


def test_bad_view_layout_and_type():
    forest = _small()
    with pytest.raises(ValueError, match=r"Unknown view 'markov'; valid: \['primal', 'factor'\]"):
        draw_hyperforest(forest, view="markov", ax=_axes())
    with pytest.raises(ValueError, match="Unknown layout 'hexagonal'; valid: .*kamada_kawai"):
        draw_hyperforest(forest, layout="hexagonal", ax=_axes())
    with pytest.raises(ValueError, match="Unknown layout 'bipartite'"):
        draw_hyperforest(forest, layout="bipartite", ax=_axes())  # the primal graph is not bipartite
    with pytest.raises(ValueError, match="Unknown layout"):
        draw_junction_tree(forest, layout="hexagonal", ax=_axes())
    with pytest.raises(ValueError, match="no position"):
        draw_hyperforest(forest, pos={"a": (0, 0)}, ax=_axes())
    with pytest.raises(ValueError, match="no position"):
        draw_hyperforest(forest, view="factor", pos={"a": (0, 0)}, ax=_axes())
    with pytest.raises(ValueError, match="hyperedge_alpha"):
        draw_hyperforest(forest, hyperedge_alpha=2, ax=_axes())
    with pytest.raises(ValueError, match="min_size"):
        draw_hyperforest(forest, min_size=0, ax=_axes())


@pytest.mark.parametrize("bad", [None, nx.Graph([("a", "b")]), [("a", "b")], "forest"])
def test_rejects_non_hyperforest(bad):
    with pytest.raises(TypeError, match="Expected a Hyperforest"):
        draw_hyperforest(bad, ax=_axes())
    with pytest.raises(TypeError, match="Expected a Hyperforest"):
        draw_junction_tree(bad, ax=_axes())


def test_a_model_with_one_hyperforest_per_class_names_how_to_draw_it():
    class Free:
        classes_ = np.array(["no", "yes"], dtype=object)
        structure_ = nx.Graph([("a", "b")])
        structures_ = [_small(), _small()]

    for draw in (draw_hyperforest, draw_junction_tree):
        with pytest.raises(
            TypeError, match=r"one hyperforest per class .*pass one class's, hyperforests_by_class\(model\)\[label\]"
        ):
            draw(Free(), ax=_axes())
    forests = hyperforests_by_class(Free())
    assert len(_hulls(draw_hyperforest(forests["yes"], ax=_axes()))) == 3


def test_accepts_model_with_hyperforest_structure():
    class Fitted:
        structure_ = _small()

    assert len(_hulls(draw_hyperforest(Fitted(), ax=_axes()))) == 3


def test_drawing_does_not_modify_the_forest():
    forest = _small()
    before = _snapshot(forest)
    for view in ("primal", "factor"):
        draw_hyperforest(forest, view=view, ax=_axes(), min_size=1)
    draw_junction_tree(forest, ax=_axes())
    to_dot(forest)
    assert _snapshot(forest) == before


@pytest.mark.parametrize(
    "points, corners",
    [
        ([(0, 0)], [(-1, -1), (1, 1)]),
        ([(0, 0), (4, 0)], [(-1, -1), (5, 1)]),
        ([(0, 0), (2, 0), (4, 0)], [(-1, -1), (5, 1)]),  # collinear: a capsule
        ([(0, 0), (4, 0), (0, 3), (1, 1)], [(-1, -1), (5, 4)]),
    ],
)
def test_hyperedge_outline_is_the_hull_grown_by_pad(points, corners):
    outline = hyperedge_outline(points, pad=1.0)  # arcs sampled every 7.5 degrees: within 1 - cos(3.75°)
    np.testing.assert_allclose(outline.min(axis=0), corners[0], atol=0.003)
    np.testing.assert_allclose(outline.max(axis=0), corners[1], atol=0.003)
    path = Path(np.vstack([outline, outline[:1]]), closed=True)
    assert all(path.contains_point(p) for p in points)
    # every outline vertex lies at distance `pad` from the hull (i.e. from some point or hull edge)
    gaps = np.sqrt(((outline[:, None, :] - np.asarray(points, float)[None]) ** 2).sum(-1)).min(axis=1)
    assert np.all(gaps >= 1.0 - 1e-9)
    x, y = outline[:, 0], outline[:, 1]
    assert 0.5 * (x @ np.roll(y, -1) - y @ np.roll(x, -1)) > 0  # counter-clockwise


def test_hyperedge_outline_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        hyperedge_outline(np.zeros((0, 2)), 1.0)
    with pytest.raises(ValueError, match="pad"):
        hyperedge_outline([(0, 0)], 0)


def test_export_of_a_hyperforest():
    forest = _small()
    text = to_dot(forest)
    assert text.startswith("graph {") and '"a" -- "b"' in text and '"x" ["role"="class"' in text
    buffer = io.BytesIO()
    to_graphml(forest, buffer)
    back = nx.read_graphml(io.BytesIO(buffer.getvalue()))
    assert sorted(back.nodes) == sorted(forest.nodes)
    assert back.number_of_edges() == forest.primal_graph().number_of_edges()
    assert json.loads(back.graph["hyperedges"]) == [["a", "b", "c"], ["c", "d"], ["e", "x"]]
