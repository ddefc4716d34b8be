import io
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from graphmodels.plotting import (  # noqa: E402
    draw_multidimensional,
    draw_network,
    multidimensional_layout,
    to_dot,
    to_graphml,
)
from graphmodels.plotting._common import KIND_COLORS  # noqa: E402
from graphmodels.plotting.multidimensional import ARC_STYLES, SUBGRAPH_NAMES  # noqa: E402
from graphmodels.plotting.network import format_label  # noqa: E402
from graphmodels.structures import augmented_naive_bayes  # noqa: E402
from graphmodels.structures.multidimensional import ARC_KINDS, multidimensional_classifier  # noqa: E402


def _axes(size=(8, 6)):
    return Figure(figsize=size).subplots()


def _small():
    """3 classes, 5 features (one without arcs); every kind of arc, one class arc over a class."""
    arcs = [
        ("C1", "C2", {"weight": 0.4}),
        ("C1", "C3", {"weight": 0.2}),
        ("C1", "a", {"weight": 0.3}),
        ("C2", "b", {"weight": 0.5}),
        ("C3", "c", {"weight": 0.1}),
        ("C3", "b", {"weight": 0.2}),
        ("a", "b", {"weight": 0.9}),
        ("b", "c", {"weight": 0.45}),
    ]
    return multidimensional_classifier(
        ["C1", "C2", "C3"],
        ["c", "b", "a", "unused"],
        arcs,
        cardinalities={"C1": 2, "C2": 3, "C3": 2, "a": 2, "b": 2, "c": 4, "unused": 2},
    )


def _large(seed=0, n_classes=6, n_features=72, n_unused=4):
    """An MDBNC of the size of a real multi-label data set: each feature has one or two class parents,
    feature arcs mostly between features that share a class, a few features without arcs."""
    rng = np.random.default_rng(seed)
    classes = [f"label_{i + 1}" for i in range(n_classes)]
    features = [f"attribute_{j + 1:02d}" for j in range(n_features)]
    arcs = [(classes[i], classes[i + 1], {"weight": float(rng.random())}) for i in range(n_classes - 1)]
    arcs += [(classes[0], classes[3], {"weight": 0.1}), (classes[1], classes[5], {"weight": 0.2})]
    used = [features[k] for k in rng.permutation(n_features - n_unused)]
    parents = {}
    for f in used:
        parents[f] = set(rng.choice(n_classes, size=int(rng.integers(1, 3)), replace=False).tolist())
        arcs += [(classes[c], f, {"weight": float(rng.random())}) for c in sorted(parents[f])]
    for j in range(1, len(used)):
        same = [g for g in used[:j] if parents[g] & parents[used[j]]]
        if same and rng.random() < 0.6:
            arcs.append((same[int(rng.integers(len(same)))], used[j], {"weight": float(rng.random())}))
    return multidimensional_classifier(classes, features, arcs)


def _nodes(ax):
    (collection,) = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "nodes"]
    return collection


def _arcs(ax, kind=None):
    patches = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    return [p for p in patches if kind is None or p.get_gid() == f"edge:{kind}"]


def _curve_points(patch, ax):
    """Points along the drawn arrow (Bezier segments evaluated densely), in display units."""
    path = patch.get_path()
    points = [bezier(np.linspace(0, 1, 40)) for bezier, _ in path.iter_bezier()]
    return ax.transData.transform(np.concatenate(points))


def _counts(graph):
    return {kind: sum(1 for *_, k in graph.edges(data="kind") if k == kind) for kind in ARC_KINDS}


class _Fitted:
    """Stands for a fitted multi-dimensional model: only `structure_` (and `fit`) matter to drawing."""

    def __init__(self, structure=None, members=None):
        if structure is not None:
            self.structure_ = structure
        if members is not None:
            self.member_structures_ = members

    def fit(self, X, Y):
        return self


# ---------------------------------------------------------------------------
# Layout


def test_layout_hand_computed():
    # 2 classes over 2 features: rows of at most 10, so one row of 2 columns (x 0 and 1) at y = -1.5.
    # Classes spread 1.5 apart around the centre 0.5: -0.25 and 1.25; a under C1, b under C2 whatever
    # the feature order; then each class over its feature (targets 0 and 1) with the 1.5 gap: unchanged.
    g = multidimensional_classifier(["C1", "C2"], ["b", "a"], [("C1", "a"), ("C2", "b"), ("a", "b")])
    assert multidimensional_layout(g) == {"C1": (-0.25, 0.0), "C2": (1.25, 0.0), "b": (1.0, -1.5), "a": (0.0, -1.5)}


def test_layout_wraps_rows_column_by_column():
    # 7 features of one class, rows of at most 3: ceil(7/3) = 3 rows of ceil(7/3) = 3 columns, filled
    # column by column (graph order: all keys tie), rows staggered by -0.25 / +0.25.
    features = [f"f{i}" for i in range(7)]
    g = multidimensional_classifier(["C"], features, [("C", f) for f in features])
    pos = multidimensional_layout(g, max_row_width=3)
    expected = {f"f{k}": (k // 3 + (-0.25 if k % 3 % 2 == 0 else 0.25), -1.5 - k % 3) for k in range(7)}
    assert {f: pos[f] for f in features} == expected
    # The class over the mean x of its features.
    assert pos["C"] == (pytest.approx(np.mean([x for x, _ in expected.values()])), 0.0)


def test_barycentre_ordering():
    # Features listed against the order of their classes are placed under them; one with parents at
    # both ends lies between; the feature without arcs goes to a row of its own below.
    arcs = [("C1", "f1"), ("C2", "f2"), ("C3", "f3"), ("C1", "f13"), ("C3", "f13")]
    g = multidimensional_classifier(["C1", "C2", "C3"], ["lonely", "f3", "f2", "f13", "f1"], arcs)
    pos = multidimensional_layout(g)
    assert pos["f1"][0] < pos["f13"][0] < pos["f3"][0] and pos["f1"][0] < pos["f2"][0] < pos["f3"][0]
    assert pos["C1"][0] < pos["C2"][0] < pos["C3"][0]
    assert pos["lonely"][1] < min(pos[f][1] for f in ("f1", "f2", "f3", "f13"))


def test_feature_without_class_parent_follows_its_neighbours():
    g = multidimensional_classifier(
        ["C1", "C2"], ["y", "x", "b", "a"], [("C1", "a"), ("C2", "b"), ("b", "y"), ("a", "x")]
    )
    pos = multidimensional_layout(g)
    assert pos["a"][0] < pos["b"][0] and pos["x"][0] < pos["y"][0]


@pytest.mark.parametrize("graph", [_small(), _large()], ids=["small", "6x72"])
def test_classes_above_features_and_rows(graph):
    pos = multidimensional_layout(graph)
    classes = graph.graph["classes"]
    assert {pos[c][1] for c in classes} == {0.0}
    assert max(pos[f][1] for f in graph.graph["features"]) <= -1.5
    xs = sorted(pos[c][0] for c in classes)
    assert xs == [pos[c][0] for c in classes]  # classes kept in their order
    assert min(np.diff(xs), default=2.0) >= 1.5 - 1e-9
    # No two nodes in one place.
    assert len(set(pos.values())) == graph.number_of_nodes()


def test_large_layout_rows_and_faded_row():
    g = _large()
    pos = multidimensional_layout(g)
    linked = [f for f in g.graph["features"] if g.degree(f)]
    rows = sorted({pos[f][1] for f in linked}, reverse=True)
    # 72 features: rows of at most max(10, ceil(2 sqrt 72)) = 17, so ceil(68 / 17) = 4 rows of 17.
    assert rows == [-1.5, -2.5, -3.5, -4.5]
    assert all(sum(1 for f in linked if pos[f][1] == y) == 17 for y in rows)
    unused = [f for f in g.graph["features"] if not g.degree(f)]
    assert len(unused) == 4 and {pos[f][1] for f in unused} == {-5.5}


def test_barycentre_shortens_bridge_arcs():
    # Against the same rows filled in graph order under evenly spread classes.
    g = _large(seed=3)
    pos = multidimensional_layout(g)
    classes, features = g.graph["classes"], [f for f in g.graph["features"] if g.degree(f)]
    naive = {f: (k % 17, -1.5 - k // 17) for k, f in enumerate(features)}
    naive.update({c: ((i + 0.5) * 17 / 6 - 0.5, 0.0) for i, c in enumerate(classes)})

    def bridge_length(p):
        return sum(math.dist(p[u], p[v]) for u, v, k in g.edges(data="kind") if k == "class-feature")

    assert bridge_length(pos) < 0.8 * bridge_length(naive)


def test_layout_deterministic_and_free_of_arc_order():
    g = _large(seed=1)
    assert multidimensional_layout(g) == multidimensional_layout(g)
    rng = np.random.default_rng(5)
    arcs = list(g.edges(data=True))
    shuffled = multidimensional_classifier(
        g.graph["classes"], g.graph["features"], [arcs[i] for i in rng.permutation(len(arcs))]
    )
    assert multidimensional_layout(shuffled) == multidimensional_layout(g)


def test_layout_of_model_and_errors():
    g = _small()
    assert multidimensional_layout(_Fitted(g)) == multidimensional_layout(g)
    with pytest.raises(ValueError, match="max_row_width"):
        multidimensional_layout(g, max_row_width=0)
    with pytest.raises(TypeError, match="unfitted _Fitted"):
        multidimensional_layout(_Fitted())


# ---------------------------------------------------------------------------
# Drawing


@pytest.mark.parametrize("graph", [_small(), _large()], ids=["small", "6x72"])
def test_counts_per_gid_and_class_row_on_top(graph):
    ax = draw_multidimensional(graph, _axes((12, 8)))
    counts = _counts(graph)
    gids = [p.get_gid() for p in _arcs(ax)]
    assert len(gids) == graph.number_of_edges()
    for kind in ARC_KINDS:
        assert gids.count(f"edge:{kind}") == counts[kind]
    offsets = _nodes(ax).get_offsets()
    assert len(offsets) == graph.number_of_nodes()
    roles = [r for _, r in graph.nodes(data="role")]
    class_y = [y for (_, y), r in zip(offsets, roles) if r == "class"]
    feature_y = [y for (_, y), r in zip(offsets, roles) if r == "feature"]
    assert min(class_y) > max(feature_y)
    assert [t.get_text() for t in ax.texts if t.get_gid() == "label"] == [format_label(n) for n in graph.nodes]


def test_small_counts_by_hand():
    ax = draw_multidimensional(_small(), _axes())
    gids = sorted(p.get_gid() for p in _arcs(ax))
    assert gids == ["edge:class-class"] * 2 + ["edge:class-feature"] * 4 + ["edge:feature-feature"] * 2


def test_legend_names_the_three_subgraphs():
    ax = draw_multidimensional(_small(), _axes())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    for expected in (
        "class variable",
        "feature",
        "feature without arcs (1)",
        "class subgraph (2 arcs)",
        "bridge subgraph (4 arcs)",
        "feature subgraph (2 arcs)",
    ):
        assert expected in labels
    assert set(SUBGRAPH_NAMES.values()) == {"class subgraph", "bridge subgraph", "feature subgraph"}
    assert draw_multidimensional(_small(), _axes(), legend=False).get_legend() is None


def test_legend_with_empty_subgraphs_and_no_unused_feature():
    g = multidimensional_classifier(["C1", "C2"], ["a"], [("C1", "a")])
    labels = [t.get_text() for t in draw_multidimensional(g, _axes()).get_legend().get_texts()]
    assert "class subgraph (0 arcs)" in labels and "bridge subgraph (1 arc)" in labels
    assert "feature subgraph (0 arcs)" in labels
    assert not any(label.startswith("feature without arcs") for label in labels)


def test_kinds_have_their_colour_style_and_weight():
    ax = draw_multidimensional(_small(), _axes())
    styles = {}
    for kind in ARC_KINDS:
        patches = _arcs(ax, kind)
        assert all(to_rgba(p.get_edgecolor(), 1) == to_rgba(KIND_COLORS[kind]) for p in patches)
        styles[kind] = {p.get_linestyle() for p in patches}
        assert len(styles[kind]) == 1
    assert len({next(iter(s)) for s in styles.values()}) == 3  # one line style per kind
    assert len({KIND_COLORS[k] for k in ARC_KINDS}) == 3
    bridge = [p.get_linewidth() for p in _arcs(ax, "class-feature")]
    assert max(bridge) < min(p.get_linewidth() for p in _arcs(ax, "feature-feature"))  # thin vs bold
    assert max(p.get_alpha() for p in _arcs(ax, "class-feature")) < min(
        p.get_alpha() for p in _arcs(ax, "feature-feature")
    )
    # Within a kind the width grows with the weight, from the low to the high end of the kind's range
    # (1.8 to 4.5 points, all the room there is): a -> b (0.9, the most) 4.5, b -> c (0.45) 1.8 + 2.7 / 2.
    arcs = [(u, v) for u, v, k in _small().edges(data="kind") if k == "feature-feature"]
    widths = dict(zip(arcs, (p.get_linewidth() for p in _arcs(ax, "feature-feature"))))
    assert widths == {("a", "b"): pytest.approx(4.5), ("b", "c"): pytest.approx(3.15)}
    assert ARC_STYLES["feature-feature"]["widths"] == (1.8, 4.5)
    assert ARC_STYLES["class-feature"]["widths"][1] < ARC_STYLES["feature-feature"]["widths"][0]


def test_class_arcs_arch_over_the_classes_between():
    # C1 -> C4 and C1 -> C3 pass over C2 (and C3): they stay above the row, clear of the discs between.
    arcs = [("C1", "C4"), ("C1", "C3"), ("C2", "C3"), ("C1", "C2")] + [(c, f"f{c}") for c in ("C1", "C2", "C3", "C4")]
    g = multidimensional_classifier(["C1", "C2", "C3", "C4"], [f"f{c}" for c in ("C1", "C2", "C3", "C4")], arcs)
    figure = Figure(figsize=(8, 5))
    ax = draw_multidimensional(g, figure.subplots())
    nodes = _nodes(ax)
    pos = dict(zip(g.nodes, map(tuple, nodes.get_offsets())))
    radius = {n: math.sqrt(s) / 2 * figure.dpi / 72 for n, s in zip(g.nodes, nodes.get_sizes())}
    row = ax.transData.transform([(0.0, 0.0)])[0][1]
    heights = {}
    for patch, (u, v) in zip(
        _arcs(ax, "class-class"), [(u, v) for u, v, k in g.edges(data="kind") if k == "class-class"]
    ):
        points = _curve_points(patch, ax)
        assert points[:, 1].min() >= row - 1.0  # above the class row
        heights[(u, v)] = points[:, 1].max() - row
        low, high = sorted((pos[u][0], pos[v][0]))
        for c in g.graph["classes"]:
            if low < pos[c][0] < high:
                centre = ax.transData.transform([pos[c]])[0]
                assert np.sqrt(((points - centre) ** 2).sum(axis=1)).min() > radius[c]
    # Nested arcs stay apart: the wider the higher.
    assert heights[("C1", "C4")] > heights[("C1", "C3")] > heights[("C1", "C2")]


def test_feature_arcs_stay_below_the_class_row():
    g = _large(seed=2)
    ax = draw_multidimensional(g, _axes((14, 9)))
    row = ax.transData.transform([(0.0, 0.0)])[0][1]
    for patch in _arcs(ax, "feature-feature"):
        assert _curve_points(patch, ax)[:, 1].max() < row


def test_72_features_stay_readable():
    g = _large()
    figure = Figure(figsize=(14, 9))
    renderer = FigureCanvasAgg(figure).get_renderer()
    ax = draw_multidimensional(g, figure.subplots())
    labels = [t for t in ax.texts if t.get_gid() == "label"]
    assert min(t.get_fontsize() for t in labels) >= 7.0
    # Names are shortened (attribute_01 -> two lines) and no two labels overlap.
    assert all(len(line) <= 10 for t in labels for line in t.get_text().split("\n"))
    boxes = [t.get_window_extent(renderer) for t in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b)
    # Discs do not overlap either.
    centres = ax.transData.transform(_nodes(ax).get_offsets())
    diameters = np.sqrt(_nodes(ax).get_sizes()) * figure.dpi / 72
    d = np.sqrt(((centres[:, None] - centres[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    assert (d > (diameters[:, None] + diameters[None]) / 2).all()


def test_unselected_features_are_faded():
    g = _small()
    roles = list(g.nodes)
    faces = _nodes(draw_multidimensional(g, _axes())).get_facecolors()
    alpha = dict(zip(roles, faces[:, 3]))
    assert alpha["unused"] == pytest.approx(0.3)
    assert all(alpha[n] == 1.0 for n in roles if n != "unused")
    faces = _nodes(draw_multidimensional(g, _axes(), fade_isolated=False)).get_facecolors()
    assert (faces[:, 3] == 1.0).all()


def test_layout_dict_accepted_and_checked():
    g = _small()
    pos = {n: (float(i), float(-i % 3)) for i, n in enumerate(g.nodes)}
    ax = draw_multidimensional(g, _axes(), layout=pos)
    assert np.allclose(_nodes(ax).get_offsets(), [pos[n] for n in g.nodes])
    assert len(_arcs(ax)) == g.number_of_edges()
    del pos["b"]
    with pytest.raises(ValueError, match="no position for 1 node"):
        draw_multidimensional(g, _axes(), layout=pos)
    with pytest.raises(TypeError, match="`layout` must be None or a dict"):
        draw_multidimensional(g, _axes(), layout="circular")


def test_drawing_deterministic():
    g = _large(seed=4)
    first = draw_multidimensional(g, _axes((12, 8)))
    second = draw_multidimensional(g, _axes((12, 8)))
    assert np.array_equal(_nodes(first).get_offsets(), _nodes(second).get_offsets())
    assert [p.get_connectionstyle().rad for p in _arcs(first)] == [p.get_connectionstyle().rad for p in _arcs(second)]


def test_show_weights():
    g = _small()
    ax = draw_multidimensional(g, _axes(), show_weights=True, weight_format=".2f")
    texts = sorted(t.get_text() for t in ax.texts if t.get_gid() == "weight")
    assert texts == sorted(f"{w:.2f}" for *_, w in g.edges(data="weight"))
    ax = draw_multidimensional(g, _axes(), show_weights="class-class")
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "weight") == ["0.200", "0.400"]
    with pytest.raises(ValueError, match="show_weights"):
        draw_multidimensional(g, _axes(), show_weights="augmenting")


def test_title_new_figure_and_no_mutation():
    g = _small()
    before = (nx.to_dict_of_dicts(g), dict(g.nodes(data=True)), dict(g.graph))
    ax = draw_multidimensional(g, title="three labels")
    try:
        assert ax.get_title() == "three labels"
        width, height = ax.figure.get_size_inches()
        assert 5.0 <= width <= 30.0 and 3.0 <= height <= 20.0
    finally:
        plt.close(ax.figure)
    assert before == (nx.to_dict_of_dicts(g), dict(g.nodes(data=True)), dict(g.graph))


def test_members_of_an_ensemble():
    g, h = _small(), multidimensional_classifier(["C1", "C2", "C3"], ["c", "b", "a", "unused"], [("C2", "a")])
    for members, key in (([g, h], 1), ({"C1": g, "C2": h}, "C2")):
        ax = draw_multidimensional(_Fitted(g, members), _axes(), member=key)
        assert [p.get_gid() for p in _arcs(ax)] == ["edge:class-feature"]
        with pytest.raises(ValueError, match="Unknown `member`"):
            draw_multidimensional(_Fitted(g, members), _axes(), member=7)
    with pytest.raises(TypeError, match="member_structures_"):
        draw_multidimensional(g, _axes(), member=0)


def test_rejects_what_is_not_an_mdbnc():
    tan = augmented_naive_bayes("C", ["a", "b"], [("a", "b")])
    with pytest.raises(ValueError, match="has kind 'class', expected 'class-feature'"):
        draw_multidimensional(tan, _axes())
    with pytest.raises(ValueError, match="undirected"):
        draw_multidimensional(nx.Graph([(1, 2)]), _axes())
    no_roles = nx.DiGraph([("a", "b")])
    with pytest.raises(ValueError, match="role None"):
        draw_multidimensional(no_roles, _axes())
    with pytest.raises(TypeError, match="networkx graph"):
        draw_multidimensional([("a", "b")], _axes())
    with pytest.raises(TypeError, match="unfitted"):
        draw_multidimensional(_Fitted(), _axes())
    with pytest.raises(TypeError, match="`legend` must be True or False"):
        draw_multidimensional(_small(), _axes(), legend="yes")


# ---------------------------------------------------------------------------
# draw_network and export


def test_draw_network_dispatches_graphs_and_models():
    g = _small()
    for obj in (g, _Fitted(g)):
        ax = draw_network(obj, _axes())
        assert sorted({p.get_gid() for p in _arcs(ax)}) == [f"edge:{k}" for k in ARC_KINDS]
        assert np.array_equal(_nodes(ax).get_offsets(), _nodes(draw_multidimensional(g, _axes())).get_offsets())
    # A network_layout method name still lays it out, drawn as an MDBNC.
    ax = draw_network(g, _axes(), layout="circular")
    assert len(_arcs(ax, "class-class")) == 2
    # An MDBNC without arcs, as multidimensional_classifier makes it, too.
    empty = multidimensional_classifier(["C1", "C2"], ["a", "b"])
    assert [t.get_text() for t in draw_network(empty, _axes()).get_legend().get_texts()][
        -1
    ] == "feature subgraph (0 arcs)"


def test_draw_network_keeps_other_graphs():
    tan = augmented_naive_bayes("C", ["a", "b"], [("a", "b")])
    assert sorted(p.get_gid() for p in _arcs(draw_network(tan, _axes()))) == [
        "edge:augmenting",
        "edge:class",
        "edge:class",
    ]
    lone = nx.DiGraph()
    lone.add_node("C", role="class")
    lone.add_node("a", role="feature")
    assert draw_network(lone, _axes()).get_legend().get_texts()[0].get_text() == "class"


def test_to_dot_shows_the_kinds():
    text = to_dot(_small())
    for kind in ARC_KINDS:
        lines = [line for line in text.splitlines() if f'"kind"="{kind}"' in line]
        assert len(lines) == _counts(_small())[kind]
        assert all(f'"color"="{KIND_COLORS[kind]}"' in line for line in lines)
        style = "dashed" if kind == "class-feature" else "solid"
        assert all(f'"style"="{style}"' in line for line in lines)


def test_to_graphml_keeps_the_kinds():
    g = _small()
    buffer = io.BytesIO()
    to_graphml(g, buffer)
    back = nx.read_graphml(io.BytesIO(buffer.getvalue()))
    assert {(u, v): k for u, v, k in back.edges(data="kind")} == {(u, v): k for u, v, k in g.edges(data="kind")}
    assert back.graph["classes"] == '["C1", "C2", "C3"]'
    assert dict(back.nodes(data="role")) == dict(g.nodes(data="role"))


def test_class_without_features_keeps_its_even_place():
    # C2 has no feature: it stays where the even spread put it (centre 0.5 of two columns, classes 1.5
    # apart: -1.0, 0.5, 2.0) unless its neighbours push it; C1 and C3 sit over their features.
    g = multidimensional_classifier(["C1", "C2", "C3"], ["a", "b"], [("C1", "a"), ("C3", "b"), ("C2", "C3")])
    pos = multidimensional_layout(g)
    assert pos["a"] == (0.0, -1.5) and pos["b"] == (1.0, -1.5)
    # Least squares with gaps of 1.5: targets 0 - 0, 0.5 - 1.5, 1 - 3 (weights 1, 0.25, 1) pool to
    # (0 - 0.25 - 2) / 2.25 = -1.0, so the classes are at -1.0, 0.5, 2.0.
    assert [pos[c] for c in ("C1", "C2", "C3")] == [(-1.0, 0.0), (0.5, 0.0), (2.0, 0.0)]


@pytest.mark.parametrize(
    "graph",
    [
        multidimensional_classifier(["A", "B", "C"], [], [("A", "C")]),
        multidimensional_classifier(["A"], ["x"]),
        multidimensional_classifier(
            [0, 1],
            [(2, "t"), 3.5, "z"],
            [(0, 1, {"weight": float("nan")}), (1, (2, "t")), ((2, "t"), 3.5, {"weight": 2})],
        ),
        multidimensional_classifier(["A", "B"], [f"x{i}" for i in range(25)]),
    ],
    ids=["classes-only", "one-each", "odd-names", "no-arcs"],
)
def test_degenerate_graphs(graph):
    ax = draw_multidimensional(graph, _axes(), show_weights=True)
    assert len(_nodes(ax).get_offsets()) == graph.number_of_nodes()
    assert len(_arcs(ax)) == graph.number_of_edges()
    assert sum(1 for t in ax.texts if t.get_gid() == "weight") == sum(
        1 for *_, w in graph.edges(data="weight") if w is not None and math.isfinite(w)
    )


@pytest.mark.parametrize(
    "name, value",
    [("font_size", 0), ("node_size", -1.0), ("font_size", True), ("max_row_width", 2.5), ("fade_isolated", 1)],
)
def test_size_arguments_checked(name, value):
    with pytest.raises((ValueError, TypeError), match=name):
        draw_multidimensional(_small(), _axes(), **{name: value})


def test_fixed_sizes():
    ax = draw_multidimensional(_small(), _axes(), node_size=400.0, font_size=6.0)
    assert (_nodes(ax).get_sizes() == 400.0).all()
    assert {t.get_fontsize() for t in ax.texts if t.get_gid() == "label"} == {6.0}
