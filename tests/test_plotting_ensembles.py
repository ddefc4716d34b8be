"""Members of AODE and AnDE: ``member_structure``, ``ranked_superparents`` and their drawing.

AODE: Webb, Boughton & Wang (2005), Machine Learning 58(1); AnDE: Webb, Boughton, Zheng, Ting &
Salem (2012), Machine Learning 86(2). A member with super-parents ``S`` is
``P(y, x_S) prod_{k not in S} P(x_k | y, x_S)``: the class and every super-parent are parents of
every other attribute, the super-parents joined in column order.
"""

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.models.aode import _block_mutual_information  # noqa: E402
from graphmodels.plotting import draw_network  # noqa: E402
from graphmodels.structures import is_augmented_naive_bayes, superparent_network  # noqa: E402


def _three_attributes():
    """8 rows, class ``y``: ``a`` copies the class, ``b`` is independent of it, ``c`` in between.

    By hand, in nats: ``I(a; y) = log 2``, ``I(b; y) = 0``,
    ``I(c; y) = log 2 - 5/8 H(1/5, 4/5)`` (c = 0 only with y = 0, 3 rows; c = 1 with 1 row of
    y = 0 and 4 of y = 1), ``I(a, b; y) = I(a, c; y) = log 2`` (a alone decides y) and
    ``I(b, c; y) = log 2 - 3/8 H(1/3, 2/3)`` (only (b, c) = (1, 1) mixes classes, 1 : 2).
    """
    X = pd.DataFrame(
        {
            "a": ["0", "0", "0", "0", "1", "1", "1", "1"],
            "b": ["0", "0", "1", "1", "0", "0", "1", "1"],
            "c": ["0", "0", "0", "1", "1", "1", "1", "1"],
        }
    )
    y = pd.Series(["n", "n", "n", "n", "p", "p", "p", "p"], name="y")
    return X, y


def _entropy(*probabilities):
    return -sum(p * math.log(p) for p in probabilities)


def _fit(model):
    X, y = _three_attributes()
    return model.fit(X, y)


def _edges(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


# ----------------------------------------------------------------------------------------------
# member_structure, by hand
# ----------------------------------------------------------------------------------------------
CLASS_ARCS = {("y", "a"), ("y", "b"), ("y", "c")}


@pytest.mark.parametrize(
    ("superparent", "arcs"),
    [
        ("a", {("a", "b"), ("a", "c")}),
        ("b", {("b", "a"), ("b", "c")}),
        ("c", {("c", "a"), ("c", "b")}),
    ],
)
def test_aode_member_by_hand(superparent, arcs):
    model = _fit(gm.AODE(frequency_threshold=0))
    member = model.member_structure(superparent)
    assert set(member.edges) == CLASS_ARCS | arcs
    assert {(u, v): kind for u, v, kind in member.edges(data="kind")} == {
        **{arc: "class" for arc in CLASS_ARCS},
        **{arc: "augmenting" for arc in arcs},
    }
    assert dict(member.nodes(data="role")) == {"y": "class", "a": "feature", "b": "feature", "c": "feature"}
    assert dict(member.nodes(data="cardinality")) == {"y": 2, "a": 2, "b": 2, "c": 2}
    assert member.graph["superparents"] == (superparent,)
    assert is_augmented_naive_bayes(member, max_feature_parents=1)
    # A 1-tuple is the same member; AnDE(n=1) has the same members.
    assert nx.utils.edges_equal(model.member_structure((superparent,)).edges, member.edges)
    assert set(_fit(gm.AnDE(n=1)).member_structure(superparent).edges) == set(member.edges)


@pytest.mark.parametrize(
    ("superparents", "arcs"),
    [
        (("a", "b"), {("a", "b"), ("a", "c"), ("b", "c")}),
        (("a", "c"), {("a", "c"), ("a", "b"), ("c", "b")}),
        (("b", "c"), {("b", "c"), ("b", "a"), ("c", "a")}),
    ],
)
def test_a2de_member_by_hand(superparents, arcs):
    model = _fit(gm.AnDE(n=2))
    member = model.member_structure(superparents)
    assert set(member.edges) == CLASS_ARCS | arcs
    assert {kind for u, v, kind in member.edges(data="kind") if u != "y"} == {"augmenting"}
    assert nx.is_directed_acyclic_graph(member)
    # The family of each child outside S is {class} + S: the tables the member multiplies.
    child = ({"a", "b", "c"} - set(superparents)).pop()
    assert set(member.predecessors(child)) == {"y", *superparents}
    # The order of the names does not matter: the super-parents are joined in column order.
    reversed_member = model.member_structure(tuple(reversed(superparents)))
    assert set(reversed_member.edges) == set(member.edges)
    assert reversed_member.graph["superparents"] == superparents


def test_a0de_member_is_the_skeleton_and_n_above_p_is_the_complete_dag():
    naive = _fit(gm.AnDE(n=0))
    assert set(naive.member_structure(()).edges) == set(naive.structure_.edges) == CLASS_ARCS
    saturated = _fit(gm.AnDE(n=5))  # acts as n=3 on 3 attributes
    member = saturated.member_structure(("c", "a", "b"))
    assert set(member.edges) == CLASS_ARCS | {("a", "b"), ("a", "c"), ("b", "c")}


def test_member_structure_is_a_new_graph_and_the_model_is_unchanged():
    model = _fit(gm.AODE())
    before = (list(model.structure_.nodes(data=True)), list(model.structure_.edges(data=True)))
    member = model.member_structure("a")
    member.add_edge("b", "c")
    assert (list(model.structure_.nodes(data=True)), list(model.structure_.edges(data=True))) == before
    assert not model.member_structure("a").has_edge("b", "c")


def test_integer_column_names():
    rng = np.random.default_rng(4)
    X = rng.integers(3, size=(60, 4))
    y = rng.integers(2, size=60)
    model = gm.AODE(discretizer=None).fit(X, y)
    cls = next(n for n, role in model.structure_.nodes(data="role") if role == "class")
    member = model.member_structure(np.int64(2))
    assert set(member.successors(2)) == {0, 1, 3}
    assert set(member.successors(cls)) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("model", "bad"),
    [
        (gm.AODE(), "zz"),
        (gm.AODE(), ("a", "b")),
        (gm.AODE(), ()),
        (gm.AnDE(n=2), "a"),
        (gm.AnDE(n=2), ("a",)),
        (gm.AnDE(n=2), ("a", "b", "c")),
        (gm.AnDE(n=2), ("a", "zz")),
        (gm.AnDE(n=2), ("a", "a")),
        (gm.AnDE(n=2), ("a", "y")),  # the class is not an attribute
        (gm.AnDE(n=0), "a"),
    ],
)
def test_bad_superparents_raise_value_error_naming_the_parameter(model, bad):
    model = _fit(model)
    with pytest.raises(ValueError, match="`superparents`"):
        model.member_structure(bad)


def test_wrong_length_says_how_many():
    with pytest.raises(ValueError, match=r"a tuple of 2 column names: each member of this AnDE has 2"):
        _fit(gm.AnDE(n=2)).member_structure("a")
    with pytest.raises(ValueError, match=r"among \['a', 'b', 'c'\], got 'zz'"):
        _fit(gm.AODE()).member_structure("zz")


@pytest.mark.parametrize("model", [gm.AODE(), gm.AnDE()])
def test_unfitted_model_raises(model):
    with pytest.raises(gm.models.NotFittedError):
        model.member_structure("a")
    with pytest.raises(gm.models.NotFittedError):
        model.ranked_superparents()
    with pytest.raises(gm.models.NotFittedError):
        draw_network(model)


def test_superparent_network_rejects_bad_names():
    with pytest.raises(ValueError, match="`superparents` must name distinct"):
        superparent_network("C", ["a", "b"], ["b", "b"])
    with pytest.raises(ValueError, match="`superparents` must name attributes"):
        superparent_network("C", ["a", "b"], ["C"])


# ----------------------------------------------------------------------------------------------
# ranked_superparents: I(X_S; C) of the stored counts
# ----------------------------------------------------------------------------------------------
def test_mutual_information_of_the_blocks_by_hand():
    log2 = math.log(2)
    aode = _fit(gm.AODE())
    values = _block_mutual_information(*aode._superparent_tables()[1:])
    np.testing.assert_allclose(values, [log2, 0.0, log2 - 5 / 8 * _entropy(0.2, 0.8)], atol=1e-12)
    a2de = _fit(gm.AnDE(n=2))
    values = _block_mutual_information(*a2de._superparent_tables()[1:])
    np.testing.assert_allclose(values, [log2, log2, log2 - 3 / 8 * _entropy(1 / 3, 2 / 3)], atol=1e-12)


def test_ranking_by_hand():
    assert _fit(gm.AODE()).ranked_superparents() == [("a",), ("c",), ("b",)]
    # (a, b) and (a, c) tie at log 2: column order.
    assert _fit(gm.AnDE(n=2)).ranked_superparents() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert _fit(gm.AnDE(n=2)).ranked_superparents(2) == [("a", "b"), ("a", "c")]
    assert _fit(gm.AnDE(n=0)).ranked_superparents() == [()]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_ranking_is_the_brute_force_mutual_information(n, random_table):
    X, y = random_table(np.random.default_rng(n), cards=(2, 3, 4, 2, 3))
    model = gm.AnDE(n=n).fit(X, y)
    frame = X.assign(label=y)
    brute = {
        subset: gm.stats.mutual_information(frame, list(subset), "label")
        for subset in itertools.combinations(X.columns, n)
    }
    ranked = model.ranked_superparents()
    assert sorted(ranked) == sorted(brute)
    values = [brute[subset] for subset in ranked]
    assert all(first >= second - 1e-12 for first, second in zip(values, values[1:]))
    if n == 1:
        assert gm.AODE().fit(X, y).ranked_superparents() == ranked


def test_ranking_does_not_depend_on_row_order_or_weights(random_table):
    X, y = random_table(np.random.default_rng(7))
    ranked = gm.AnDE(n=2).fit(X, y).ranked_superparents()
    order = np.random.default_rng(8).permutation(len(X))
    assert gm.AnDE(n=2).fit(X.iloc[order], y.iloc[order]).ranked_superparents() == ranked
    doubled = gm.AnDE(n=2).fit(X, y, sample_weight=np.full(len(X), 2.0))
    assert doubled.ranked_superparents() == ranked


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_ranked_superparents_rejects_bad_max_members(bad):
    with pytest.raises(ValueError, match="`max_members` must be an integer >= 1"):
        _fit(gm.AODE()).ranked_superparents(bad)


def test_save_load_keeps_the_members(tmp_path):
    model = _fit(gm.AnDE(n=2))
    model.save(tmp_path / "a2de.json")
    again = gm.models.load_model(tmp_path / "a2de.json")
    assert again.ranked_superparents() == model.ranked_superparents()
    assert set(again.member_structure(("b", "c")).edges) == set(model.member_structure(("b", "c")).edges)


# ----------------------------------------------------------------------------------------------
# draw_network
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "max_members", "titles"),
    [
        (gm.AODE(), 6, ["super-parent: a", "super-parent: c", "super-parent: b"]),
        (gm.AODE(), 2, ["super-parent: a", "super-parent: c"]),
        (gm.AnDE(n=2), 6, ["super-parents: a, b", "super-parents: a, c", "super-parents: b, c"]),
        (gm.AnDE(n=2), 1, ["super-parents: a, b"]),
        (gm.AnDE(n=0), 6, ["no super-parent (naive Bayes)"]),
    ],
)
def test_draw_network_draws_the_most_informative_members(model, max_members, titles):
    model = _fit(model)
    first = draw_network(model, max_members=max_members)
    axes = first.figure.axes  # the first member's axes is returned; the figure holds every member drawn
    assert axes[0] is first and len(axes) == len(titles) <= max_members
    assert [ax.get_title() for ax in axes] == titles
    for ax, superparents in zip(axes, model.ranked_superparents(max_members)):
        member = model.member_structure(superparents)
        gids = [p.get_gid() for p in _edges(ax)]
        assert len(gids) == member.number_of_edges()
        assert gids.count("edge:augmenting") == member.number_of_edges() - 3
    # One figure; the legend once.
    assert {ax.figure for ax in axes} == {axes[0].figure}
    assert axes[0].get_legend() is not None and all(ax.get_legend() is None for ax in axes[1:])


def test_draw_network_figure_title():
    model = _fit(gm.AnDE(n=2))
    ax = draw_network(model, max_members=2)
    assert ax.figure.get_suptitle() == "AnDE: 2 of 3 members, the highest I(super-parents; class)"
    ax = draw_network(model)
    assert ax.figure.get_suptitle() == "AnDE: its 3 members"
    ax = draw_network(model, title="A2DE", legend=False)
    assert ax.figure.get_suptitle() == "A2DE"
    assert all(panel.get_legend() is None for panel in ax.figure.axes)


def test_draw_network_builds_only_max_members(monkeypatch):
    # 14 attributes: 91 pairs, of which only 4 members are built and drawn.
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(2, size=(60, 14)), columns=[f"x{i}" for i in range(14)]).astype(str)
    y = pd.Series(rng.integers(2, size=60)).astype(str)
    model = gm.AnDE(n=2, discretizer=None).fit(X, y)
    assert len(model.superparents_[-1]) == 91
    built = []
    original = type(model).member_structure

    def spy(self, superparents):
        built.append(superparents)
        return original(self, superparents)

    monkeypatch.setattr(type(model), "member_structure", spy)
    ax = draw_network(model, max_members=4)
    assert len(ax.figure.axes) == 4 and built == model.ranked_superparents(4)  # 2 rows of 3, the spare cells removed


@pytest.mark.parametrize("model", [gm.AODE(), gm.AnDE(n=2)])
def test_draw_network_with_ax_still_draws_the_skeleton(model):
    model = _fit(model)
    ax = Figure().subplots()
    drawn = draw_network(model, ax, title="skeleton", max_members=1)
    assert drawn is ax and ax.get_title() == "skeleton"
    assert [p.get_gid() for p in _edges(ax)] == ["edge:class"] * 3


def test_draw_network_with_ax_keeps_the_cut_points():
    X, y = gm.datasets.load("iris", return_X_y=True)
    model = gm.AODE().fit(X, y)
    texts = [t.get_text() for t in draw_network(model, Figure().subplots(), show_cut_points=True).texts]
    assert any("|" in text for text in texts)


@pytest.mark.parametrize("bad", [0, -2, 2.5, False, None])
def test_draw_network_rejects_bad_max_members(bad):
    with pytest.raises(ValueError, match="`max_members` must be an integer >= 1"):
        draw_network(_fit(gm.AODE()), max_members=bad)


def test_drawing_does_not_change_the_model():
    model = _fit(gm.AnDE(n=2))
    before = (list(model.structure_.nodes(data=True)), list(model.structure_.edges(data=True)))
    draw_network(model)
    assert (list(model.structure_.nodes(data=True)), list(model.structure_.edges(data=True))) == before


# ------------------------------------------------- one structure per class: a grid of the classes
def _per_class_models():
    X, y = gm.datasets.load("glass", return_X_y=True)  # six classes
    free = {"representation": "free"}
    return X, y, [gm.ChowLiu(**free).fit(X, y), gm.HyperforestClassifier(**free).fit(X, y)]


def test_a_model_with_one_structure_per_class_draws_each_class_most_frequent_first():
    import matplotlib.pyplot as plt

    from graphmodels.plotting import network_layout
    from graphmodels.structures import hyperforests_by_class

    X, y, models = _per_class_models()
    frequent = y.value_counts(sort=False)
    for model in models:
        assert model.representation_ == "free"
        first = draw_network(model, max_members=4)
        axes = first.figure.axes
        assert axes[0] is first and len(axes) == 4
        # The four most probable classes (here, generatively fitted: the most frequent) first, titled by label.
        order = sorted(model.classes_, key=lambda c: (-frequent[c], list(model.classes_).index(c)))[:4]
        assert [ax.get_title() for ax in axes] == [f"class {label}" for label in order]
        kind = "forest" if isinstance(model, gm.ChowLiu) else "hyperforest"
        assert axes[0].figure._suptitle.get_text() == (
            f"{type(model).__name__}: one {kind} per class (4 of 6 classes, the most probable)"
        )
        # One layout for every class: each node at the same place in every panel.
        structures = (
            dict(zip(model.classes_, model.structures_))
            if isinstance(model, gm.ChowLiu)
            else hyperforests_by_class(model)
        )
        union = nx.Graph()
        for label in order:
            graph = structures[label]
            graph = graph if isinstance(graph, nx.Graph) else graph.primal_graph()
            union.add_nodes_from(graph)
            union.add_edges_from(graph.edges)
        expected = network_layout(union, "kamada_kawai")
        for ax in axes:
            centres = {t.get_text(): t.get_position() for t in ax.texts if t.get_text() in set(map(str, X.columns))}
            assert centres and all(np.allclose(xy, expected[name]) for name, xy in centres.items())
        plt.close(axes[0].figure)


def test_with_an_axes_or_a_shared_structure_the_model_is_drawn_whole():
    X, y, models = _per_class_models()
    for model in models:
        ax = Figure().subplots()
        assert draw_network(model, ax) is ax  # the union of the classes' structures, in the axes given
        assert ax.figure.axes == [ax]
    car_X, car_y = gm.datasets.load("car", return_X_y=True)
    shared = gm.ChowLiu().fit(car_X, car_y)
    assert shared.representation_ == "shared"
    assert len(draw_network(shared).figure.axes) == 1
