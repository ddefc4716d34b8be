"""Readable drawings of large models (issue 17): `top_k`, the page-shaped layout, distinct labels, font floor."""

import math
import warnings

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from graphmodels.plotting import draw_network  # noqa: E402
from graphmodels.plotting._common import FADED_ALPHA, MIN_FONT_SIZE, format_labels  # noqa: E402
from graphmodels.plotting.network import draw_graph  # noqa: E402
from graphmodels.structures import augmented_naive_bayes, orient_forest  # noqa: E402

# The first attribute names of MULAN's emotions data: long, with a common prefix and middle.
EMOTIONS = [
    f"{a}_Acc1298_{b}_Mem40_{c}"
    for a in ("Mean", "Std")
    for b in ("Mean", "Std")
    for c in ["Centroid", "Rolloff", "Flux"] + [f"MFCC_{i}" for i in range(13)]
] + ["BH_LowPeakAmp", "BH_LowPeakBPM", "BH_HighPeakAmp", "BH_HighPeakBPM", "BH_HighLowRatio", "BHSUM1", "BHSUM2"]


def _tan(names, seed=0):
    rng = np.random.default_rng(seed)
    tree = nx.Graph()
    tree.add_nodes_from(names)
    for i in range(1, len(names)):
        tree.add_edge(names[int(rng.integers(i))], names[i], weight=float(rng.random()))
    weights = {name: float(rng.random()) for name in names}
    return augmented_naive_bayes("C", names, orient_forest(tree), cardinalities={"C": 2}, class_weights=weights)


def _edges(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


def _nodes(ax):
    (collection,) = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "nodes"]
    return collection


def _texts(ax):
    return [t for t in ax.texts if t.get_text()]


@pytest.mark.parametrize("k", [1, 3, 5])
def test_top_k_draws_k_strongest_in_full_and_fades_the_rest(k):
    g = _tan([f"x{i}" for i in range(8)])
    ax = draw_graph(g, Figure(figsize=(8, 6)).subplots(), top_k=k)
    edges = _edges(ax)
    assert len(edges) == g.number_of_edges()
    full = [p for p in edges if p.get_alpha() != FADED_ALPHA]
    assert len(full) == k and all(p.get_gid() == "edge:augmenting" for p in full)
    # The full ones are the k heaviest augmenting arcs (widest in the default drawing); class arcs all faded.
    default = [p.get_linewidth() for p in _edges(draw_graph(g, Figure(figsize=(8, 6)).subplots()))]
    augmenting = sorted((w for w, p in zip(default, edges) if p.get_gid() == "edge:augmenting"), reverse=True)
    assert len(augmenting) == 7
    assert sorted(p.get_linewidth() for p in full) == pytest.approx(sorted(augmenting[:k]))
    assert all(p.get_alpha() == FADED_ALPHA for p in edges if p.get_gid() == "edge:class")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"{k} strongest of 7 arcs shown; the rest faded; class arcs faded" in legend


def test_top_k_picks_the_heaviest_edges():
    g = nx.Graph()
    g.add_weighted_edges_from([("a", "b", 0.1), ("b", "c", 0.9), ("c", "d", 0.5), ("d", "e", 0.7)])
    ax = draw_graph(g, Figure().subplots(), top_k=2, layout="circular")
    full = {i for i, p in enumerate(_edges(ax)) if p.get_alpha() != FADED_ALPHA}
    assert full == {1, 3}  # edges in graph order: (a,b), (b,c), (c,d), (d,e)


def test_top_k_larger_than_the_edges_draws_all_and_hide_drops_the_rest():
    g = _tan([f"x{i}" for i in range(6)])
    ax = draw_graph(g, Figure().subplots(), top_k=100)
    augmenting = [p for p in _edges(ax) if p.get_gid() == "edge:augmenting"]
    assert len(augmenting) == 5 and all(p.get_alpha() == 0.9 for p in augmenting)
    ax = draw_graph(g, Figure().subplots(), top_k=2, faded="hide")
    assert len(_edges(ax)) == 2


def test_top_k_ranks_class_arcs_of_naive_bayes():
    g = augmented_naive_bayes("C", ["a", "b", "c"], [], class_weights={"a": 0.3, "b": 0.9, "c": 0.1})
    ax = draw_network(g, Figure().subplots(), top_k=1)
    full = [p for p in _edges(ax) if p.get_alpha() != FADED_ALPHA]
    assert len(full) == 1


def test_top_k_none_is_the_default_drawing():
    g = _tan([f"x{i}" for i in range(6)])
    a = draw_graph(g, Figure().subplots())
    b = draw_graph(g, Figure().subplots(), top_k=None)
    assert [(p.get_alpha(), p.get_linewidth()) for p in _edges(a)] == [
        (p.get_alpha(), p.get_linewidth()) for p in _edges(b)
    ]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_invalid_top_k_raises_naming_it(bad):
    with pytest.raises(ValueError, match="`top_k`"):
        draw_network(_tan(["a", "b"]), Figure().subplots(), top_k=bad)


def test_invalid_faded_raises_naming_it():
    with pytest.raises(ValueError, match="`faded`"):
        draw_graph(_tan(["a", "b"]), Figure().subplots(), top_k=1, faded="grey")


def test_labels_of_common_prefix_names_are_distinct():
    for max_length in (10, 16, 24):
        labels = format_labels(EMOTIONS, max_length)
        assert len(set(labels)) == len(EMOTIONS)
        assert all(len(line) <= max_length + 3 for label in labels for line in label.split("\n"))
    assert (
        format_labels(["Mean_Acc1298_Mean_Mem40_Centroid", "Mean_Acc1298_Mean_Mem40_Rolloff"])
        != ["Mean_Acc1298_Mean_Mem40…"] * 2
    )
    names = [f"common_prefix_of_every_{i:02d}_name" for i in range(30)] + ["x" * 40 + "1", "x" * 40 + "2"]
    assert len(set(format_labels(names, 12))) == len(names)


def test_labels_unchanged_when_the_cut_keeps_them_apart():
    names = ["middle-middle-square", "short", "a" * 30]
    from graphmodels.plotting.network import format_label

    assert format_labels(names) == [format_label(n) for n in names]


def test_large_tan_fits_the_page():
    g = _tan(EMOTIONS)
    assert g.number_of_nodes() == 72
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = draw_network(g, top_k=20)
    fig = ax.figure
    width, height = fig.get_size_inches()
    assert width <= 16 and height <= 12
    fig.canvas.draw()
    nodes = _nodes(ax)
    xy = nodes.get_offsets()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert (xy[:, 0] > x0).all() and (xy[:, 0] < x1).all() and (xy[:, 1] > y0).all() and (xy[:, 1] < y1).all()
    screen = ax.transData.transform(xy)
    gaps = np.sqrt(((screen[:, None] - screen[None]) ** 2).sum(-1))
    gaps[np.diag_indices_from(gaps)] = np.inf
    diameter = math.sqrt(nodes.get_sizes().max()) * fig.dpi / 72
    assert gaps.min() > diameter
    # Labels: one per node, all distinct, no smaller than the floor, inside the figure.
    labels = [t for t in _texts(ax) if t.get_zorder() == 4]
    assert len(labels) == 72 and len({t.get_text() for t in labels}) == 72
    assert min(t.get_fontsize() for t in labels) >= MIN_FONT_SIZE
    box = fig.bbox
    renderer = fig.canvas.get_renderer()
    for t in labels:
        extent = t.get_window_extent(renderer)
        assert extent.x0 >= box.x0 and extent.x1 <= box.x1 and extent.y0 >= box.y0 and extent.y1 <= box.y1
    # The page is used: rows wrapped to a landscape page, not one wide row nor a tall tree.
    assert 0.6 < np.ptp(screen[:, 0]) / np.ptp(screen[:, 1]) < 2.5
    assert sum(p.get_alpha() != FADED_ALPHA for p in _edges(ax)) == 20


def test_large_drawing_in_a_small_axes_warns_and_keeps_the_floor():
    g = _tan([f"attribute_number_{i}" for i in range(150)])
    with pytest.warns(UserWarning, match="top_k"):
        ax = draw_graph(g, Figure(figsize=(4, 3)).subplots())
    assert min(t.get_fontsize() for t in _texts(ax)) >= MIN_FONT_SIZE


def test_large_drawing_row_width_follows_the_axes():
    g = _tan([f"x{i}" for i in range(60)])
    wide = draw_graph(g, Figure(figsize=(16, 6)).subplots())
    tall = draw_graph(g, Figure(figsize=(6, 12)).subplots())

    def columns(ax):
        xy = _nodes(ax).get_offsets()
        return len(np.unique(np.round(xy[1:, 0], 6)))

    assert columns(wide) > columns(tall)


# ---------------------------------------------------------------------------
# top_k / faded in draw_hyperforest, draw_interactions and draw_region_graph


def _alphas(artists):
    return [a.get_alpha() for a in artists]


def _hulls(ax):
    return [p for p in ax.patches if p.get_gid() == "hyperedge"]


def _regions(ax):
    return [p for p in ax.patches if (p.get_gid() or "").startswith("region:")]


def _region_texts(ax):
    return [t for t in ax.texts if t.get_gid() == "region"]


def _forest():
    from graphmodels.structures import random_hypertree

    return random_hypertree(10, 2, random_state=0)


def _kikuchi():
    import pandas as pd

    import graphmodels as gm

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(300, 5)), columns=["a", "b", "c", "d", "e"])
    y = ((X["a"] ^ X["b"]) + X["c"] + X["d"] >= 2).map({False: "no", True: "yes"})
    return gm.KikuchiBayes(max_region_size=3).fit(X, y)


@pytest.mark.parametrize("k", [1, 2])
def test_hyperforest_top_k_draws_k_hulls_in_full(k):
    from graphmodels.plotting import draw_hyperforest

    forest = _forest()
    plain = _alphas(_hulls(draw_hyperforest(forest, ax=Figure().subplots())))
    assert len(plain) > k and all(a is None for a in plain)
    alphas = _alphas(_hulls(draw_hyperforest(forest, ax=Figure().subplots(), top_k=k)))
    assert len(alphas) == len(plain)
    assert alphas.count(None) == k and alphas.count(FADED_ALPHA) == len(plain) - k
    hidden = _hulls(draw_hyperforest(forest, ax=Figure().subplots(), top_k=k, faded="hide"))
    assert len(hidden) == k and all(p.get_alpha() is None for p in hidden)
    # Without weights, the largest hyperedges are the strongest.
    full = [p for p in _hulls(draw_hyperforest(forest, ax=Figure().subplots(), top_k=k)) if p.get_alpha() is None]
    sizes = sorted((len(h) for h in forest.maximal_hyperedges if len(h) >= 2), reverse=True)
    assert sorted((len(p.get_label().split(",")) for p in full), reverse=True) == sizes[:k]


def test_hyperforest_top_k_of_a_model_ranks_by_its_weights():
    import pandas as pd

    import graphmodels as gm
    from graphmodels.plotting import draw_hyperforest

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 3, size=(200, 5)), columns=list("abcde"))
    X["b"] = X["a"]
    model = gm.HyperforestDensity().fit(X)
    weights = model.weights_
    shown = [h for h in model.structure_.maximal_hyperedges if len(h) >= 2]
    best = max(shown, key=lambda h: weights.get(h))
    full = [p for p in _hulls(draw_hyperforest(model, ax=Figure().subplots(), top_k=1)) if p.get_alpha() is None]
    assert [set(p.get_label().split(",")) for p in full] == [set(map(str, best))]


def test_hyperforest_factor_view_top_k():
    from graphmodels.plotting import draw_hyperforest

    forest = _forest()
    n = len(forest.maximal_hyperedges)
    ax = draw_hyperforest(forest, view="factor", ax=Figure().subplots(), top_k=2)
    (factors,) = [c for c in ax.collections if c.get_gid() == "factors"]
    alphas = [round(float(a), 6) for a in factors.get_facecolors()[:, 3]]
    assert len(alphas) == n and alphas.count(1.0) == 2 and alphas.count(FADED_ALPHA) == n - 2
    ax = draw_hyperforest(forest, view="factor", ax=Figure().subplots(), top_k=2, faded="hide")
    (factors,) = [c for c in ax.collections if c.get_gid() == "factors"]
    assert len(factors.get_offsets()) == 2


def test_interactions_top_k_draws_the_first_regions_in_full():
    from graphmodels.plotting import draw_interactions

    model = _kikuchi()
    plain = _regions(draw_interactions(model, ax=Figure().subplots()))
    assert len(plain) >= 3
    default = _regions(draw_interactions(model, ax=Figure().subplots(), top_k=None, faded="fade"))
    assert _alphas(default) == _alphas(plain) and [p.get_gid() for p in default] == [p.get_gid() for p in plain]
    faded = _regions(draw_interactions(model, ax=Figure().subplots(), top_k=2))
    assert len(faded) == len(plain)
    assert [p.get_alpha() == FADED_ALPHA for p in faded] == [False] * 2 + [True] * (len(plain) - 2)
    assert [p.get_label() for p in faded[:2]] == [p.get_label() for p in plain[:2]]
    hidden = _regions(draw_interactions(model, ax=Figure().subplots(), top_k=2, faded="hide"))
    assert [p.get_label() for p in hidden] == [p.get_label() for p in plain[:2]]
    assert len(_regions(draw_interactions(model, ax=Figure().subplots(), top_k=10**6))) == len(plain)


def test_region_graph_top_k_fades_or_hides_the_rest():
    from graphmodels.plotting import draw_region_graph

    model = _kikuchi()
    plain = _region_texts(draw_region_graph(model, ax=Figure().subplots()))
    n = len(plain)
    assert n >= 3 and all(t.get_alpha() is None for t in plain)
    faded = _region_texts(draw_region_graph(model, ax=Figure().subplots(), top_k=2))
    assert len(faded) == n and _alphas(faded).count(None) == 2 and _alphas(faded).count(FADED_ALPHA) == n - 2
    ax = draw_region_graph(model, ax=Figure().subplots(), top_k=2, faded="hide")
    assert len(_region_texts(ax)) == 2
    (regions,) = [c for c in ax.collections if c.get_gid() == "regions"]
    assert len(regions.get_offsets()) == 2


def test_draw_network_passes_top_k_to_kikuchi_drawings():
    from graphmodels.structures import cluster_variation_regions

    model = _kikuchi()
    n = len(_regions(draw_network(model, Figure().subplots())))
    assert len(_regions(draw_network(model, Figure().subplots(), top_k=1, faded="hide"))) == 1
    faded = _regions(draw_network(model, Figure().subplots(), top_k=1))
    assert _alphas(faded).count(FADED_ALPHA) == n - 1
    graph = cluster_variation_regions([("a", "b", "y"), ("b", "c", "y"), ("c", "d", "y")])
    ax = draw_network(graph, Figure().subplots(), top_k=1)
    assert _alphas(_region_texts(ax)).count(None) == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_invalid_top_k_raises_in_hyperforest_and_kikuchi_drawings(bad):
    from graphmodels.plotting import draw_hyperforest, draw_interactions, draw_region_graph

    model = _kikuchi()
    for draw, what in ((draw_hyperforest, _forest()), (draw_interactions, model), (draw_region_graph, model)):
        with pytest.raises(ValueError, match="top_k"):
            draw(what, ax=Figure().subplots(), top_k=bad)
        with pytest.raises(ValueError, match="faded"):
            draw(what, ax=Figure().subplots(), top_k=1, faded="dim")
