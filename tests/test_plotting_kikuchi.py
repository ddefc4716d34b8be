import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402
from matplotlib.path import Path  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_interactions, draw_kikuchi_path, draw_region_graph  # noqa: E402
from graphmodels.plotting._common import REGION_COLORS, region_style  # noqa: E402
from graphmodels.structures import cluster_variation_regions  # noqa: E402


def _axes():
    return Figure(figsize=(7, 5)).subplots()


def _regions(ax, size=None):
    return [
        p
        for p in ax.patches
        if (p.get_gid() or "").startswith("region:") and (size is None or p.get_gid() == f"region:{size}")
    ]


def _count_by_size(ax):
    counts = {}
    for patch in _regions(ax):
        size = int(patch.get_gid().split(":")[1])
        counts[size] = counts.get(size, 0) + 1
    return counts


def _nodes(ax):
    (collection,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    return np.asarray(collection.get_offsets())


def _vertices(patch):
    """Drawn vertices of a region path (the control points of bends left out)."""
    path = patch.get_path()
    keep = [i for i, code in enumerate(path.codes) if code in (Path.MOVETO, Path.LINETO)]
    keep += [i for i in range(len(path.codes)) if path.codes[i] == Path.CURVE3 and i % 2 == 0]
    return path.vertices[sorted(keep)]


def _distance_to_segment(points, a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = np.clip(((points - a) @ (b - a)) / ((b - a) @ (b - a)), 0, 1)
    return np.linalg.norm(points - (a + t[:, None] * (b - a)), axis=1)


@pytest.fixture(scope="module")
def xor_model():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(300, 4)), columns=["a", "b", "c", "d"])
    y = (X["a"] ^ X["b"]).map({0: "no", 1: "yes"})
    return gm.KikuchiBayes(max_region_size=3).fit(X, y)


# Tic-tac-toe board (x: left..right, y: bottom..top) and the MAP regions of
# Figure 2 of Jakulin & Rish (2006), each + class: 5 squares (the centre and
# the corners), 4 pairs (centre, corner) and 6 lines of three (both
# diagonals, the middle column, the top and bottom rows, the left column).
BOARD = {
    f"{row}-{col}": (x, y)
    for (row, y), (col, x) in itertools.product(
        [("top", 2), ("middle", 1), ("bottom", 0)], [("left", 0), ("middle", 1), ("right", 2)]
    )
}
FIGURE_2 = (
    [(s, "class") for s in ["middle-middle", "bottom-left", "bottom-right", "top-left", "top-right"]]
    + [("middle-middle", s, "class") for s in ["bottom-left", "top-right", "bottom-right", "top-left"]]
    + [
        ("top-right", "middle-middle", "bottom-left", "class"),
        ("top-left", "middle-middle", "bottom-right", "class"),
        ("top-middle", "middle-middle", "bottom-middle", "class"),
        ("bottom-left", "bottom-middle", "bottom-right", "class"),
        ("top-left", "top-middle", "top-right", "class"),
        ("top-left", "middle-left", "bottom-left", "class"),
    ]
)


# ---------------------------------------------------------------------------
# draw_interactions


def test_artists_per_region_size_on_hand_made_regions():
    regions = [("a", "y"), ("b", "y"), ("a", "b", "y"), ("a", "b", "c", "y")]
    pos = {"a": (0.0, 0.0), "b": (2.0, 0.0), "c": (1.0, 1.5)}
    ax = draw_interactions(regions, pos, class_name="y", ax=_axes())
    assert _count_by_size(ax) == {2: 2, 3: 1, 4: 1}
    rings = _regions(ax, 2)
    assert all(isinstance(p, Circle) for p in rings)
    assert sorted(tuple(p.center) for p in rings) == [(0.0, 0.0), (2.0, 0.0)]
    (line,) = _regions(ax, 3)
    (dashed,) = _regions(ax, 4)
    assert line.get_linestyle() == "-" and dashed.get_linestyle() == "--"
    colors = {size: _regions(ax, size)[0].get_edgecolor()[:3] for size in (2, 3, 4)}
    assert len(set(colors.values())) == 3
    assert np.allclose(colors[4], matplotlib.colors.to_rgb(REGION_COLORS[4]))
    # The 4-way region is not collinear: a closed triangle through (near) a, b and c.
    corners = _vertices(dashed)
    assert np.allclose(corners[0], corners[-1])
    for point in pos.values():
        assert np.min(np.linalg.norm(corners - point, axis=1)) < 0.3
    # The class is not a node; only the three attributes are.
    assert len(_nodes(ax)) == 3
    assert "y" in ax.get_legend().get_title().get_text()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["2-way (1 attribute): 2", "3-way (2 attributes): 1", "4-way (3 attributes): 1"]


def test_collinear_four_way_is_an_open_segment_offset_from_the_parallel_line():
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0), "c": (2.0, 0.0)}
    regions = [("a", "b", "y"), ("c", "a", "b", "y")]
    ax = draw_interactions(regions, pos, class_name="y", ax=_axes(), labels=False)
    (line,) = _regions(ax, 3)
    (dashed,) = _regions(ax, 4)
    path = _vertices(dashed)
    assert not np.allclose(path[0], path[-1])  # open
    assert sorted(np.round(path[:, 0], 6)) == [0.0, 1.0, 2.0]  # a, b, c in order along the line
    # The first region drawn keeps the centre line; the second is moved off it, parallel.
    assert np.allclose(_vertices(line)[:, 1], 0.0)
    offset = path[:, 1]
    assert np.allclose(offset, offset[0]) and abs(offset[0]) > 0.01


def test_figure_2_of_the_paper_on_the_board():
    # Jakulin & Rish (2006), Figure 2: 5 green circles, 4 blue lines, 6 red dashed lines.
    ax = draw_interactions(FIGURE_2, BOARD, class_name="class", ax=_axes())
    assert _count_by_size(ax) == {2: 5, 3: 4, 4: 6}
    assert len(_nodes(ax)) == 8  # middle-right is in no region
    ax = draw_interactions(FIGURE_2, BOARD, class_name="class", attributes=list(BOARD), ax=_axes())
    assert np.allclose(_nodes(ax), list(BOARD.values()))
    # Every 4-way region lies on a row, column or diagonal: all drawn as open dashed segments.
    for patch in _regions(ax, 4):
        vertices = _vertices(patch)
        assert not np.allclose(vertices[0], vertices[-1])
    # The 3-way region (middle-middle, bottom-left) and the diagonal through it stay apart.
    (pair,) = [p for p in _regions(ax, 3) if p.get_label() == "middle-middle,bottom-left,class"]
    (diagonal,) = [p for p in _regions(ax, 4) if p.get_label().startswith("top-right,middle-middle,bottom-left")]
    gap = _distance_to_segment(_vertices(diagonal), *_vertices(pair)[[0, -1]])
    assert gap.min() > 0.01


def test_offsets_follow_the_order_regions_are_given():
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0)}
    first = draw_interactions(
        [("a", "b", "y"), ("a", "b", "c", "y")], {**pos, "c": (2, 0)}, class_name="y", ax=_axes(), legend=False
    )
    assert np.allclose(_vertices(_regions(first, 3)[0])[:, 1], 0.0)
    assert not np.allclose(_vertices(_regions(first, 4)[0])[:, 1], 0.0)


def test_segment_across_a_third_attribute_is_bent_around_it():
    pos = {"a": (0.0, 0.0), "m": (1.0, 0.0), "b": (2.0, 0.0)}
    ax = draw_interactions([("a", "b", "y"), ("m", "y")], pos, class_name="y", ax=_axes())
    (line,) = _regions(ax, 3)
    assert Path.CURVE3 in line.get_path().codes
    middle = line.get_path().vertices[1]  # the control point of the bend
    assert abs(middle[1]) > 0.1


def test_larger_regions_are_dotted_polygons_and_repeats_are_drawn_once():
    pos = {"a": (0, 0), "b": (1, 0), "c": (1, 1), "d": (0, 1)}
    regions = [("a", "b", "c", "d", "y"), ("d", "c", "b", "a", "y"), ("y",)]
    ax = draw_interactions(regions, pos, class_name="y", ax=_axes())
    (polygon,) = _regions(ax)
    assert polygon.get_gid() == "region:5" and polygon.get_linestyle() == ":"
    vertices = _vertices(polygon)
    assert np.allclose(vertices[0], vertices[-1]) and len(vertices) == 5
    assert region_style(5)[0] != region_style(4)[0]


def test_custom_pos_is_honoured_and_labels_optional():
    pos = {"b": (3.0, -1.0), "a": (-2.0, 4.0)}
    ax = draw_interactions(
        [("a", "y"), ("a", "b", "y")], pos, class_name="y", ax=_axes(), label_func=lambda name: name.upper()
    )
    assert np.allclose(_nodes(ax), [pos["a"], pos["b"]])
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "label") == ["A", "B"]
    assert _regions(ax, 2)[0].center == pytest.approx(pos["a"])
    assert np.allclose(_vertices(_regions(ax, 3)[0])[[0, -1]], [pos["a"], pos["b"]])
    ax = draw_interactions([("a", "y"), ("a", "b", "y")], pos, class_name="y", ax=_axes(), labels=False)
    assert not [t for t in ax.texts if t.get_gid() == "label"]


def test_default_layout_and_new_figure():
    ax = draw_interactions([("a", "b", "y"), ("b", "c", "y"), ("d", "y")], class_name="y")
    try:
        assert len(_nodes(ax)) == 4
        assert ax.get_aspect() == 1.0
    finally:
        plt.close(ax.figure)


def test_model_regions_up_to_the_map_step(xor_model):
    model = xor_model
    ax = draw_interactions(model, ax=_axes())
    added = list(model.path_["region"].iloc[1 : model.map_step_ + 1])
    expected = {}
    for region in added:
        expected[len(region)] = expected.get(len(region), 0) + 1
    assert _count_by_size(ax) == expected
    assert ("a", "b", "no") not in added and any(set(r) == {"a", "b", model.class_name_} for r in added)
    # Every attribute of the model is a node, used or not.
    assert len(_nodes(ax)) == 4
    ax = draw_interactions(model, step=0, ax=_axes())
    assert _regions(ax) == []
    ax = draw_interactions(model, step=1, ax=_axes())
    assert len(_regions(ax)) == 1


def test_tic_tac_toe_model_draws_its_path_regions():
    frame = gm.datasets.load("tic-tac-toe")
    model = gm.KikuchiBayes().fit(frame.drop(columns="class"), frame["class"])
    pos = {name: BOARD[name.rsplit("-", 1)[0]] for name in frame.columns if name != "class"}
    ax = draw_interactions(model, pos, ax=_axes())
    sizes = model.path_["size"].iloc[1 : model.map_step_ + 1].value_counts().to_dict()
    assert _count_by_size(ax) == sizes
    assert np.allclose(_nodes(ax), [pos[name] for name in frame.columns if name != "class"])


@pytest.mark.parametrize(
    "regions, kwargs, error, match",
    [
        ([("a", "b")], {"class_name": "y"}, ValueError, r"\('a', 'b'\).*class 'y'"),
        ([("a", "y")], {}, ValueError, "class_name"),
        (["ay"], {"class_name": "y"}, TypeError, "iterable of variable names"),
        ("ay", {"class_name": "y"}, TypeError, "iterable of regions"),
        (42, {"class_name": "y"}, TypeError, "iterable of regions"),
        ([("a", "b", "y")], {"class_name": "y", "pos": {"a": (0, 0)}}, ValueError, "attribute 'b'"),
        ([("a", "y")], {"class_name": "y", "pos": [(0, 0)]}, TypeError, "dict"),
        ([("a", "y")], {"class_name": "y", "pos": {"a": "xy"}}, ValueError, "pair of numbers"),
        ([("a", "y")], {"class_name": "y", "step": 1}, ValueError, "fitted model only"),
        ([("a", "b", "y")], {"class_name": "y", "attributes": ["a"]}, ValueError, "lacks 'b'"),
        ([("a", "y")], {"class_name": "y", "labels": "yes"}, TypeError, "labels"),
    ],
)
def test_draw_interactions_errors(regions, kwargs, error, match):
    kwargs = dict(kwargs)
    pos = kwargs.pop("pos", None)
    with pytest.raises(error, match=match):
        draw_interactions(regions, pos, ax=_axes(), **kwargs)


def test_model_errors(xor_model):
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1]})
    y = ["n", "y", "y", "n"]
    with pytest.raises(gm.models.NotFittedError, match="not fitted"):
        draw_interactions(gm.KikuchiBayes(), ax=_axes())
    with pytest.raises(gm.models.NotFittedError, match="not fitted"):
        draw_region_graph(gm.KikuchiBayes(), ax=_axes())
    with pytest.raises(gm.models.NotFittedError, match="not fitted"):
        draw_kikuchi_path(gm.KikuchiBayes(), ax=_axes())
    with pytest.raises(TypeError, match="TAN"):
        draw_interactions(gm.TAN().fit(X, y), ax=_axes())
    with pytest.raises(ValueError, match="step"):
        draw_interactions(xor_model, step=len(xor_model.path_), ax=_axes())
    with pytest.raises(ValueError, match="class"):
        draw_interactions(xor_model, class_name="other", ax=_axes())


# ---------------------------------------------------------------------------
# draw_region_graph


def _texts(ax):
    return [t.get_text() for t in ax.texts if t.get_gid() == "region"]


def _segments(ax):
    (edges,) = [c for c in ax.collections if c.get_gid() == "edges"]
    return [np.asarray(s) for s in edges.get_segments()]


def _region_offsets(ax):
    (regions,) = [c for c in ax.collections if c.get_gid() == "regions"]
    return np.asarray(regions.get_offsets())


def test_hasse_diagram_texts_edges_and_rows():
    # A triangle of pairwise regions: {a,b},{b,c},{a,c} (c = 1) meet in {a},{b},{c}
    # (c = 1 - 2 = -1), which meet in {} (not a region). With the class: + y each,
    # and {y} gets c = 1 - (3 - 3) = 1.
    graph = cluster_variation_regions([("a", "b", "y"), ("b", "c", "y"), ("a", "c", "y")])
    before = nx.to_dict_of_dicts(graph), dict(graph.nodes(data=True))
    ax = draw_region_graph(graph, class_name="y", ax=_axes())
    texts = _texts(ax)
    assert len(texts) == graph.number_of_nodes() == 7
    expected = {
        frozenset("aby"): "a, b\nc = 1",
        frozenset("ay"): "a\nc = -1",
        frozenset("y"): "y\nc = 1",
    }
    regions = list(graph.nodes)
    for region, text in expected.items():
        assert texts[regions.index(region)] == text
    for region, text in zip(regions, texts):
        assert text.endswith(f"c = {graph.nodes[region]['counting_number']}")
    segments = _segments(ax)
    assert len(segments) == graph.number_of_edges() == 6 + 3
    offsets = _region_offsets(ax)
    position = {r: offsets[i] for i, r in enumerate(regions)}
    for (u, v), segment in zip(graph.edges, segments):
        assert np.allclose(segment, [position[u], position[v]])
        assert position[u][1] > position[v][1]  # larger regions above
    assert (nx.to_dict_of_dicts(graph), dict(graph.nodes(data=True))) == before
    # Fill by sign of the counting number.
    colors = [t.get_bbox_patch().get_facecolor() for t in ax.texts if t.get_gid() == "region"]
    assert colors[regions.index(frozenset("aby"))] != colors[regions.index(frozenset("ay"))]
    assert colors[regions.index(frozenset("aby"))] == colors[regions.index(frozenset("y"))]


def test_hasse_layout_of_a_chain_has_no_crossings():
    graph = cluster_variation_regions([("c", "d", "y"), ("a", "b", "y"), ("b", "c", "y"), ("d", "e", "y")])
    ax = draw_region_graph(graph, ax=_axes())
    segments = _segments(ax)
    crossings = sum(
        (s[0][0] - t[0][0]) * (s[1][0] - t[1][0]) < 0
        for s, t in itertools.combinations(segments, 2)
        if np.isclose(s[0][1], t[0][1]) and np.isclose(s[1][1], t[1][1])
    )
    assert crossings == 0


def test_region_graph_of_a_model_and_custom_pos(xor_model):
    ax = draw_region_graph(xor_model, ax=_axes())
    assert len(_texts(ax)) == xor_model.structure_.number_of_nodes()
    assert len(_segments(ax)) == xor_model.structure_.number_of_edges()
    assert all(xor_model.class_name_ not in text or text.startswith(xor_model.class_name_) for text in _texts(ax))
    assert "holds" in ax.get_legend().get_title().get_text()
    graph = xor_model.region_graph(0)
    ax = draw_region_graph(xor_model, step=0, ax=_axes())
    assert len(_texts(ax)) == graph.number_of_nodes() == 1

    graph = cluster_variation_regions([("a", "b"), ("b", "c")])
    pos = {("a", "b"): (0, 1), frozenset("bc"): (5, 1), ("b",): (2.5, -3)}
    ax = draw_region_graph(graph, pos=pos, ax=_axes())
    expected = {frozenset(k): v for k, v in pos.items()}
    assert np.allclose(_region_offsets(ax), [expected[r] for r in graph.nodes])


def test_region_graph_shortening():
    graph = cluster_variation_regions([("top-left-square", "top-right-square", "y")])
    (text,) = _texts(draw_region_graph(graph, class_name="y", ax=_axes()))
    assert text == "left, right\nc = 1"  # the shared "top-" and "-square" go
    graph = cluster_variation_regions([("top-left-square", "bottom-right-square", "y")])
    (text,) = _texts(draw_region_graph(graph, class_name="y", ax=_axes()))
    assert text == "bottom-right,\ntop-left\nc = 1"  # without a model, names in str order
    (text,) = _texts(draw_region_graph(graph, class_name="y", shorten=5, ax=_axes()))
    assert text == "bott…, top-…\nc = 1"
    (text,) = _texts(draw_region_graph(graph, class_name="y", shorten=False, ax=_axes()))
    assert "top-left-square" in text
    (text,) = _texts(draw_region_graph(graph, class_name="y", label_func=lambda v: v[:1], ax=_axes()))
    assert text == "b, t\nc = 1"


def test_region_graph_errors():
    with pytest.raises(TypeError, match="region graph"):
        draw_region_graph(nx.Graph([(frozenset("ab"), frozenset("a"))]), ax=_axes())
    bad = nx.DiGraph()
    bad.add_node(frozenset("ab"))
    with pytest.raises(ValueError, match="counting_number"):
        draw_region_graph(bad, ax=_axes())
    graph = cluster_variation_regions([("a", "b"), ("b", "c")])
    with pytest.raises(ValueError, match="region"):
        draw_region_graph(graph, pos={("a", "b"): (0, 0)}, ax=_axes())
    with pytest.raises(ValueError, match="step"):
        draw_region_graph(graph, step=1, ax=_axes())


# ---------------------------------------------------------------------------
# draw_kikuchi_path


def _hand_path():
    # Posterior peaks at step 2; phases start / ascent x2 / beyond MAP x2.
    return pd.DataFrame(
        {
            "region": [("y",), ("a", "y"), ("a", "b", "y"), ("b", "y"), ("c", "y")],
            "size": [1, 2, 3, 2, 2],
            "phase": ["start", "ascent", "ascent", "beyond MAP", "beyond MAP"],
            "log_prior": [-1.0, -2.0, -4.0, -6.0, -8.0],
            "log_likelihood": [-20.0, -15.0, -10.0, -9.5, -9.0],
            "log_posterior": [-21.0, -17.0, -14.0, -15.5, -17.0],
        }
    )


def _line(ax, gid):
    (line,) = [line for line in ax.lines if line.get_gid() == gid]
    return line


def test_path_plot_marks_the_map_step_and_shades_phases():
    path = _hand_path()
    ax = draw_kikuchi_path(path, ax=_axes())
    assert list(_line(ax, "map").get_xdata()) == [2, 2]
    star = _line(ax, "map_marker")
    assert list(star.get_xdata()) == [2] and list(star.get_ydata()) == [-14.0]
    for column in ("log_prior", "log_likelihood", "log_posterior"):
        line = _line(ax, column)
        assert list(line.get_xdata()) == [0, 1, 2, 3, 4]
        assert list(line.get_ydata()) == list(path[column])
    spans = {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("phase:")}
    assert set(spans) == {"phase:ascent", "phase:beyond MAP"}
    x0, x1 = (lambda e: (e.x0, e.x1))(spans["phase:beyond MAP"].get_extents().transformed(ax.transData.inverted()))
    assert x0 == pytest.approx(2.5) and x1 == pytest.approx(4.5)
    (added,) = [c for c in ax.collections if c.get_gid() == "added"]
    assert len(added.get_offsets()) == 5
    assert "MAP (step 2)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_path_plot_of_a_model_with_weights(xor_model):
    ax = draw_kikuchi_path(xor_model, ax=_axes(), weights=True)
    assert list(_line(ax, "map").get_xdata()) == [xor_model.map_step_] * 2
    twins = [a for a in ax.figure.axes if a is not ax]
    assert len(twins) == 1
    (bars,) = twins[0].containers
    assert all(p.get_gid() == "weights" for p in bars)
    assert np.allclose([p.get_height() for p in bars], xor_model.path_["weight"])
    assert np.allclose([p.get_x() + p.get_width() / 2 for p in bars], np.arange(len(xor_model.path_)))


def test_path_plot_without_optional_columns_and_weights_from_posterior():
    path = _hand_path()[["log_prior", "log_likelihood", "log_posterior"]]
    ax = draw_kikuchi_path(path, ax=_axes(), weights=True)
    twin = [a for a in ax.figure.axes if a is not ax][0]
    heights = np.array([p.get_height() for p in twin.containers[0]])
    expected = np.exp(path["log_posterior"] - path["log_posterior"].max())
    assert np.allclose(heights, expected / expected.sum())
    assert not [p for p in ax.patches if (p.get_gid() or "").startswith("phase:")]


def test_path_plot_errors():
    with pytest.raises(ValueError, match="log_posterior"):
        draw_kikuchi_path(_hand_path().drop(columns="log_posterior"), ax=_axes())
    with pytest.raises(ValueError, match="no rows"):
        draw_kikuchi_path(_hand_path().iloc[:0], ax=_axes())
    with pytest.raises(TypeError, match="DataFrame"):
        draw_kikuchi_path([1, 2, 3], ax=_axes())
    with pytest.raises(TypeError, match="weights"):
        draw_kikuchi_path(_hand_path(), weights="yes", ax=_axes())


def test_draw_network_dispatches_kikuchi_models_and_region_graphs():
    from graphmodels.plotting import draw_network

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(300, 3)), columns=["a", "b", "c"])
    model = gm.KikuchiBayes(max_region_size=3).fit(X, X["a"] ^ X["b"])
    ax = draw_network(model)
    assert any(str(a.get_gid()).startswith("region:") for a in ax.get_children())
    ax = draw_network(model.structure_)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "c = 1" in texts
    plt.close("all")
