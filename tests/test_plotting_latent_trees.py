import matplotlib

matplotlib.use("Agg")

import itertools  # noqa: E402
import re  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_latent_tree, draw_network, latent_tree_layout  # noqa: E402
from graphmodels.plotting.latent_trees import _wrapped, state_lines  # noqa: E402
from graphmodels.structures import add_latent, naive_bayes_tree  # noqa: E402


def _axes(size=(8, 6)):
    return Figure(figsize=size).subplots()


def _texts(ax, gid):
    return [t.get_text() for t in ax.texts if t.get_gid() == gid]


def _boxes(ax):
    return [p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_gid() == "latent_box"]


def _box_centre(patch):
    return patch.get_x() + patch.get_width() / 2, patch.get_y() + patch.get_height() / 2


def _nodes(ax):
    (collection,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    return np.asarray(collection.get_offsets())


def _edges(ax, kind):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch) and p.get_gid() == f"edge:{kind}"]


def _nested_tree():
    """C -> L2 -> (L1 -> (a, b), c), C -> d: a latent over a latent, as monk1's HNB."""
    tree = naive_bayes_tree("C", ["a", "b", "c", "d"], {"C": 2, "a": 2, "b": 3, "c": 2, "d": 2})
    l1 = [[(0, 0), (1, 1)], [(0, 1), (1, 0), (1, 2)], [(0, 2)]]
    tree = add_latent(tree, "L1", ["a", "b"], l1)
    l2 = [[(0, 0), (0, 1), (1, 0)], [(1, 1), (0, 2), (1, 2)]]
    return add_latent(tree, "L2", ["c", "L1"], l2)


@pytest.fixture(scope="module")
def model():
    # Seeded monk-like concept: (a == b) or (c == 0); HNB finds L1 over (a, b), L2 over (c, L1).
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(300, 5)), columns=list("abcde"))
    y = np.where((X["a"] == X["b"]) | (X["c"] == 0), "yes", "no")
    return gm.HierarchicalNaiveBayes(random_state=0).fit(X, y)


# ---------------------------------------------------------------------------
# Layout


@pytest.mark.parametrize("show_states", [False, True])
def test_parents_above_children_and_centred(show_states):
    tree = _nested_tree()
    pos = latent_tree_layout(tree, show_states=show_states)
    assert set(pos) == set(tree.nodes)
    for parent in tree.nodes:
        kids = list(tree.successors(parent))
        for child in kids:
            assert pos[parent][1] > pos[child][1]
        if kids:
            xs = [pos[k][0] for k in kids]
            assert pos[parent][0] == pytest.approx((min(xs) + max(xs)) / 2)
    # Rows by depth: the class on top, then L2 and d, then L1 and c, then a and b.
    assert pos["C"][1] > pos["L2"][1] == pos["d"][1] > pos["L1"][1] == pos["c"][1] > pos["a"][1] == pos["b"][1]
    # Children ordered by the first attribute below them: L2 (holds a) before d, L1 before c, a before b.
    assert pos["L2"][0] < pos["d"][0] and pos["L1"][0] < pos["c"][0] and pos["a"][0] < pos["b"][0]


def test_naive_bayes_tree_is_one_row_under_the_class():
    tree = naive_bayes_tree("C", ["x", "y", "z"])
    pos = latent_tree_layout(tree)
    assert pos["x"][1] == pos["y"][1] == pos["z"][1] < pos["C"][1]
    assert pos["x"][0] < pos["y"][0] < pos["z"][0]
    assert pos["C"][0] == pytest.approx(pos["y"][0])


@pytest.mark.parametrize("show_states", [False, True])
def test_drawn_where_laid_out_without_overlaps(show_states):
    tree = _nested_tree()
    pos = latent_tree_layout(tree, show_states=show_states)
    ax = draw_latent_tree(tree, ax=_axes(), show_states=show_states)
    plain = [n for n in tree.nodes if tree.nodes[n]["role"] != "latent"]
    np.testing.assert_allclose(_nodes(ax), [pos[n] for n in plain])
    boxes = _boxes(ax)
    latents = [n for n in tree.nodes if tree.nodes[n]["role"] == "latent"]
    assert len(boxes) == len(latents)
    for box, node in zip(boxes, latents):
        np.testing.assert_allclose(_box_centre(box), pos[node])
    # No two latent boxes overlap, and no disc centre lies in a box.
    extents = [(b.get_x(), b.get_x() + b.get_width(), b.get_y(), b.get_y() + b.get_height()) for b in boxes]
    for (x0, x1, y0, y1), (u0, u1, v0, v1) in itertools.combinations(extents, 2):
        assert x1 <= u0 or u1 <= x0 or y1 <= v0 or v1 <= y0
    for x, y in _nodes(ax):
        assert not any(x0 < x < x1 and y0 < y < y1 for x0, x1, y0, y1 in extents)
    # Everything fits in the axes.
    (xmin, xmax), (ymin, ymax) = ax.get_xlim(), ax.get_ylim()
    for x0, x1, y0, y1 in extents:
        assert xmin <= x0 and x1 <= xmax and ymin <= y0 and y1 <= ymax


def test_edges_by_kind():
    tree = _nested_tree()
    ax = draw_latent_tree(tree, ax=_axes())
    assert len(_edges(ax, "class")) == tree.out_degree("C") == 2
    assert len(_edges(ax, "latent")) == tree.number_of_edges() - 2 == 4


# ---------------------------------------------------------------------------
# Labels and states


def test_one_label_per_latent_with_its_state_count():
    ax = draw_latent_tree(_nested_tree(), ax=_axes())
    assert _texts(ax, "latent") == ["L1 (3 states)", "L2 (2 states)"]
    assert sorted(_texts(ax, "label")) == ["C", "a", "b", "c", "d"]
    assert _texts(ax, "states") == []


def test_model_labels_and_states(model):
    tree = model.structure_
    ax = draw_latent_tree(model, ax=_axes(), show_states=True, max_configurations=None)
    latents = [n for n in tree.nodes if tree.nodes[n]["role"] == "latent"]
    assert latents == [latent.name for latent in model.latents_]
    assert _texts(ax, "latent") == [f"{n} ({tree.nodes[n]['cardinality']} states)" for n in latents]
    # Each state's listing holds exactly the configurations of `latent_states_` (wrapped lines rejoined).
    for listing, name in zip(_texts(ax, "states"), latents):
        rows = model.latent_states_[model.latent_states_["latent"] == name]
        joined = re.sub(r"\s*\|\s*", "|", " ".join(line.strip() for line in listing.split("\n")))
        for row in rows.itertuples():
            expected = "|".join(c.replace(", ", ",") for c in row.configurations.split("; "))
            assert f"{row.state}: {expected}" in joined


def test_state_lines_exact():
    tree = _nested_tree()
    assert state_lines(tree, "L1", max_configurations=None) == [
        "0: a=0,b=0 | a=1,b=1",
        "1: a=0,b=1 | a=1,b=0 | a=1,b=2",
        "2: a=0,b=2",
    ]
    # Truncated after two configurations; the rest counted.
    assert state_lines(tree, "L1", max_configurations=2)[1] == "1: a=0,b=1 | a=1,b=0 | ... (+1)"
    assert state_lines(tree, "L2", max_configurations=1) == [
        "0: c=0,L1=0 | ... (+2)",
        "1: c=1,L1=1 | ... (+2)",  # configurations listed in the order the tree keeps them
    ]


@pytest.mark.parametrize("max_configurations, expected", [(1, 4), (2, 3), (3, 0), (None, 0)])
def test_listing_truncated(max_configurations, expected):
    ax = draw_latent_tree(_nested_tree(), ax=_axes(), show_states=True, max_configurations=max_configurations)
    listings = _texts(ax, "states")
    assert len(listings) == 2
    truncated = sum(line.count("... (+") for text in listings for line in text.split("\n"))
    assert truncated == expected


def test_long_lines_wrapped_evenly_and_losslessly():
    line = "0: " + " | ".join(f"attr5={i},L1={j}" for i, j in itertools.product(range(1, 5), range(3)))
    wrapped = _wrapped([line], width=60)
    assert len(wrapped) == -(-len(line) // 60)
    assert all(len(w) <= 60 + len(" |") for w in wrapped)
    assert " ".join(w.strip() for w in wrapped) == line
    assert _wrapped(["1: short | x"]) == ["1: short | x"]


def test_does_not_change_the_tree():
    tree = _nested_tree()
    before = (list(tree.nodes(data=True)), list(tree.edges(data=True)))
    draw_latent_tree(tree, ax=_axes(), show_states=True)
    assert (list(tree.nodes(data=True)), list(tree.edges(data=True))) == before


def test_new_figure_title_and_legend():
    ax = draw_latent_tree(_nested_tree(), show_states=True, title="HNB")
    try:
        assert ax.get_title() == "HNB"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels[:3] == ["class", "attribute", "latent variable"]
        width, height = ax.figure.get_size_inches()
        assert 2 < width < 30 and 1 < height < 20
    finally:
        plt.close(ax.figure)
    assert draw_latent_tree(_nested_tree(), ax=_axes(), legend=False).get_legend() is None


def test_class_alone():
    tree = naive_bayes_tree("C", [])
    ax = draw_latent_tree(tree, ax=_axes())
    assert _texts(ax, "label") == ["C"] and _edges(ax, "class") == []


# ---------------------------------------------------------------------------
# draw_network dispatch


@pytest.mark.parametrize("source", ["model", "graph"])
def test_draw_network_dispatches(model, source):
    graph_or_model = model if source == "model" else model.structure_
    ax = draw_network(graph_or_model, _axes(), title="HNB")
    assert ax.get_title() == "HNB"
    assert _texts(ax, "latent") == _texts(draw_latent_tree(model, ax=_axes()), "latent")
    assert len(_boxes(ax)) == len(model.latents_)


@pytest.mark.parametrize("case", ["no latent", "not a tree", "no class"])
def test_draw_network_draws_other_graphs_as_before(case):
    tree = naive_bayes_tree("C", ["a", "b"]) if case == "no latent" else _nested_tree()
    if case == "not a tree":
        tree.add_edge("a", "b")  # an augmenting arc
    if case == "no class":
        tree.nodes["C"]["role"] = "feature"
    ax = draw_network(tree, _axes())
    assert _boxes(ax) == [] and _texts(ax, "latent") == []
    assert len(_nodes(ax)) == tree.number_of_nodes()


# ---------------------------------------------------------------------------
# Errors


def test_unfitted_model():
    with pytest.raises(gm.models.NotFittedError, match="not fitted"):
        draw_latent_tree(gm.HierarchicalNaiveBayes())
    with pytest.raises(gm.models.NotFittedError, match="fit"):
        draw_network(gm.HierarchicalNaiveBayes(), _axes())


def test_graph_without_a_class():
    tree = _nested_tree()
    tree.nodes["C"]["role"] = "feature"
    with pytest.raises(ValueError, match="role 'class'"):
        draw_latent_tree(tree, ax=_axes())


@pytest.mark.parametrize(
    "change, error, match",
    [
        (lambda t: t.add_node("C2", role="class"), ValueError, "found 2"),
        (lambda t: t.add_edge("d", "a"), ValueError, "'a' has 2"),
        (lambda t: t.add_edge("a", "C"), ValueError, "root"),
        (lambda t: t.to_undirected(), TypeError, "DiGraph"),
    ],
)
def test_bad_graphs(change, error, match):
    tree = _nested_tree()
    changed = change(tree)
    with pytest.raises(error, match=match):
        draw_latent_tree(tree if changed is None else changed, ax=_axes())


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"max_configurations": 0}, ValueError),
        ({"max_configurations": True}, ValueError),
        ({"max_configurations": 1.5}, ValueError),
        ({"show_states": "yes"}, TypeError),
        ({"legend": None}, TypeError),
        ({"font_size": -1}, ValueError),
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        draw_latent_tree(_nested_tree(), ax=_axes(), **kwargs)


def test_not_a_graph():
    with pytest.raises(TypeError, match="latent tree"):
        draw_latent_tree([("C", "a")])
    with pytest.raises(TypeError, match="latent tree"):
        latent_tree_layout(nx.Graph([("C", "a")]))
