"""Structure stability and comparison (issue 17): edge_stability, structure_difference, their
drawings, the grid layout helper, and the interaction diagram's lines ending on attributes."""

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.path import Path  # noqa: E402
from registry_models import quick_model  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import (  # noqa: E402
    draw_interactions,
    draw_network,
    draw_stability,
    draw_structure_difference,
    grid_layout,
)
from graphmodels.stats import CountingEngine  # noqa: E402


def _segment_endpoints(path, transform):
    """Display coordinates of the ends of every segment (lines and curves) of `path`."""
    ends = []
    for vertices, code in path.iter_segments(transform, simplify=False, curves=True):
        if code != Path.CLOSEPOLY:
            ends.append(vertices[-2:])
    return np.array(ends).reshape(-1, 2)


def _node_discs(ax, gid="nodes"):
    """Centres (display coordinates) and radii (pixels) of the node markers of `ax`."""
    (nodes,) = [c for c in ax.collections if c.get_gid() == gid]
    centres = ax.transData.transform(np.asarray(nodes.get_offsets()))
    radii = np.sqrt(np.broadcast_to(nodes.get_sizes(), len(centres))) / 2 * ax.figure.dpi / 72
    return centres, radii


def _line_ends_off_nodes(ax):
    """Ends of drawn lines (region paths, arcs, Line2D) that lie on no node marker, in display coordinates."""
    ax.figure.draw_without_rendering()
    centres, radii = _node_discs(ax)
    stray = []
    artists = [p for p in ax.patches if hasattr(p, "get_path") and (p.get_gid() or "").startswith("region:")]
    for patch in artists:
        if patch.get_gid() == "region:2":  # a ring around its attribute: no line ends
            continue
        for end in _segment_endpoints(patch.get_path(), patch.get_transform()):
            if not (np.linalg.norm(centres - end, axis=1) <= radii + 0.5).any():
                stray.append((patch.get_label(), end))
    for line in ax.lines:
        xy = line.get_transform().transform(line.get_xydata())
        for end in xy[[0, -1]]:
            if not (np.linalg.norm(centres - end, axis=1) <= radii + 0.5).any():
                stray.append((line.get_label(), end))
    return stray


# ---------------------------------------------------------------------------- interaction diagram
@pytest.mark.parametrize(
    "name, max_region_size",
    [("tic-tac-toe", 4), ("tic-tac-toe", 3), ("car", 4), ("monk1", 4), ("monk2", 4), ("monk3", 4)],
)
def test_interaction_diagram_without_pos_ends_every_line_on_an_attribute(name, max_region_size):
    # Before the fix, a polygon (4-way region) offset into a lane had mitred corners: at a sharp
    # corner of Kamada-Kawai's layout the mitre reached far past the attribute, and lines ended at
    # empty points (tic-tac-toe, monk2); lanes wider than the disc left lines beside the attribute.
    X, y = gm.datasets.load(name, return_X_y=True)
    model = gm.KikuchiBayes(max_region_size=max_region_size).fit(X, y)
    ax = draw_interactions(model, ax=Figure(figsize=(7, 5)).subplots())
    assert [p for p in ax.patches if p.get_gid() not in ("region:2", None)], "some region is drawn as a line"
    assert _line_ends_off_nodes(ax) == []


def test_interaction_diagram_sharp_corners_are_bevelled_on_the_disc():
    # A thin triangle drawn in its second lane (a parallel 3-way region takes the first): the
    # corners at a and b are sharp, their mitres would end far outside the discs.
    pos = {"a": (0.0, 0.0), "b": (4.0, 0.0), "c": (2.0, 0.25)}
    regions = [("a", "b", "y"), ("a", "c", "y"), ("b", "c", "y"), ("a", "b", "c", "y")]
    ax = draw_interactions(regions, pos, class_name="y", ax=Figure(figsize=(7, 5)).subplots())
    assert _line_ends_off_nodes(ax) == []
    # Many regions on one pair: the lanes are squeezed into the disc rather than left beside it.
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0), **{f"c{k}": (0.5, 0.3 + 0.4 * k) for k in range(8)}}
    regions = [("a", "b", f"c{k}", "y") for k in range(8)]
    ax = draw_interactions(regions, pos, class_name="y", ax=Figure(figsize=(7, 5)).subplots())
    assert _line_ends_off_nodes(ax) == []


# ---------------------------------------------------------------------------- grid layout
def test_grid_layout_puts_tic_tac_toe_on_its_board_with_the_class_above():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    rows, columns = ("top", "middle", "bottom"), ("left", "middle", "right")
    # The data's columns run row by row, as the board is read.
    assert list(X.columns) == [f"{r}-{c}-square" for r in rows for c in columns]
    model = gm.TAN().fit(X, y)
    pos = grid_layout(model)
    assert list(pos) == [model.class_name_, *X.columns]
    for i, r in enumerate(rows):
        for j, c in enumerate(columns):
            assert pos[f"{r}-{c}-square"] == (float(j), float(-i))
    assert pos[model.class_name_] == (1.0, 1.0)
    assert grid_layout(X.columns) == {name: pos[name] for name in X.columns}
    # Usable by the drawings that take positions: the generic one and the interaction diagram.
    ax = draw_network(model, Figure().subplots(), layout=pos)
    (nodes,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    assert np.allclose(nodes.get_offsets(), [pos[n] for n in model.structure_.nodes])
    kikuchi = gm.KikuchiBayes().fit(X, y)
    ax = draw_interactions(kikuchi, grid_layout(kikuchi), ax=Figure().subplots())
    (nodes,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    assert np.allclose(nodes.get_offsets(), [pos[n] for n in X.columns])


@pytest.mark.parametrize(
    "position, expected",
    [("top", (0.5, 1.0)), ("bottom", (0.5, -2.0)), ("left", (-1.0, -0.5)), ("right", (2.0, -0.5))],
)
def test_grid_layout_class_positions(position, expected):
    pos = grid_layout(["C", "a", "b", "c", "d"], class_nodes=["C"], class_position=position)
    assert pos["C"] == expected
    assert [pos[n] for n in "abcd"] == [(0.0, 0.0), (1.0, 0.0), (0.0, -1.0), (1.0, -1.0)]


def test_grid_layout_order_columns_spacing_and_graphs():
    pos = grid_layout(["a", "b", "c"], 2, order=["c", None, "a", "b"], spacing=2.0)
    assert pos == {"a": (0.0, -2.0), "b": (2.0, -2.0), "c": (0.0, 0.0)}
    graph = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    graph.nodes["C"]["role"] = "class"
    assert grid_layout(graph, 1) == {"C": (0.0, 1.0), "a": (0.0, 0.0), "b": (0.0, -1.0)}
    assert grid_layout(graph, 3, class_position="grid") == {"C": (0.0, 0.0), "a": (1.0, 0.0), "b": (2.0, 0.0)}
    forest = gm.structures.Hyperforest([("a", "b"), ("b", "c", "d")])
    assert len(grid_layout(forest)) == 4


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((42,), {}, TypeError, "iterable of node names"),
        (("abc",), {}, TypeError, "iterable of node names"),
        ((["a", "b"],), {"order": ["a"]}, ValueError, "lacks 'b'"),
        ((["a", "b"],), {"order": ["a", "b", "a"]}, ValueError, "more than once"),
        ((["a", "b"],), {"order": ["a", "b", "z"]}, ValueError, "'z'.*not among"),
        ((["a", "C"],), {"order": ["a", "C"], "class_nodes": ["C"]}, ValueError, "class node"),
        ((["a"],), {"class_nodes": ["C"]}, ValueError, "'C'"),
        ((["a"], 0), {}, ValueError, "n_columns"),
        ((["a"],), {"class_position": "above"}, ValueError, "class_position"),
        ((["a"],), {"spacing": 0}, ValueError, "spacing"),
    ],
)
def test_grid_layout_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        grid_layout(*args, **kwargs)


def test_grid_layout_of_an_unfitted_model_is_the_contract_error():
    with pytest.raises(gm.models.NotFittedError):
        grid_layout(gm.TAN())


# ---------------------------------------------------------------------------- shared counting
@pytest.mark.parametrize("unknown", [False, True])
def test_integer_weights_count_exactly_as_repeated_rows(unknown):
    # A bootstrap resample as weights: the pairwise tables (counted in float32 for whole weights)
    # equal those of the repeated rows, cell for cell, and those of float64 weights.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(500, 5))
    if unknown:
        codes[rng.random(codes.shape) < 0.05] = -1
    cards = [4] * 5
    weights = np.bincount(rng.integers(0, 500, 500), minlength=500).astype(float)
    weighted = CountingEngine(codes, cards, sample_weight=weights).pairwise_counts(given=4)
    repeated = CountingEngine(np.repeat(codes, weights.astype(int), axis=0), cards).pairwise_counts(given=4)
    assert np.array_equal(weighted.table, repeated.table)
    nudged = CountingEngine(codes, cards, sample_weight=weights * (1 + 1e-12)).pairwise_counts(given=4)  # float64
    assert np.allclose(nudged.table, repeated.table, rtol=1e-9)


# ---------------------------------------------------------------------------- edge_stability
def _tiny(seed=0, n_rows=120):
    """Four attributes: b copies a, d copies c (mostly), the class follows a; every state in every half."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = np.where(rng.random(n_rows) < 0.8, a, rng.integers(0, 3, n_rows))
    c = rng.integers(0, 2, n_rows)
    d = np.where(rng.random(n_rows) < 0.7, c, 1 - c)
    label = np.where(rng.random(n_rows) < 0.75, a % 2, rng.integers(0, 2, n_rows))
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(str)
    return X, pd.Series(np.array(["no", "yes"])[label], name="label")


def _arcs(model):
    return {(u, v) for u, v in model.structure_.edges}


@pytest.mark.parametrize("model", [gm.TAN(), gm.FAN(), gm.KDB(k=2)], ids=repr)
def test_frequencies_are_the_hand_counted_refits_on_given_resamples(model):
    # The models that learn their structure before their tables, whose refits fit tables by a fixed
    # Dirichlet(1) (STRUCTURE_BEFORE_TABLES): the structures of refits with the model's own estimator.
    assert type(model) in gm.evaluation.stability.STRUCTURE_BEFORE_TABLES
    X, y = _tiny()
    rng = np.random.default_rng(1)
    n = len(X)
    weights = np.array([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(3)], dtype=float)
    # Each refit by hand: the model on the rows repeated as often as the resample draws them.
    fits = [
        gm.models.clone_model(model).fit(
            X.iloc[np.repeat(np.arange(n), w.astype(int))], y.iloc[np.repeat(np.arange(n), w.astype(int))]
        )
        for w in weights
    ]
    pairs, oriented = {}, {}
    for fit in fits:
        for u, v in _arcs(fit):
            pairs[frozenset((u, v))] = pairs.get(frozenset((u, v)), 0) + 1
            oriented[(u, v)] = oriented.get((u, v), 0) + 1
    result = gm.evaluation.edge_stability(model, X, y, method=weights)
    assert result.n_resamples == 3 and result.method == "given" and result.kind == "arcs"
    assert len(result.frequencies) == len(pairs)
    for (u, v), frequency in result.frequencies.items():
        assert frequency == pairs[frozenset((u, v))] / 3
        assert result.graph.edges[u, v]["direction"] == oriented[(u, v)] / pairs[frozenset((u, v))]
        assert oriented[(u, v)] >= oriented.get((v, u), 0)  # the majority orientation is kept
    for fit, structure in zip(fits, result.structures):
        assert _arcs(fit) == set(structure.edges)


def test_cross_validation_frequencies_are_the_hand_counted_fold_fits():
    X, y = _tiny(seed=3)
    result = gm.evaluation.edge_stability(
        gm.HyperforestClassifier(), X, y, method="cv", n_splits=3, n_resamples=3, random_state=7
    )
    folds = gm.evaluation.RepeatedStratifiedKFold(n_splits=3, random_state=np.random.default_rng(7)).split(X, y)
    present = {}
    for train, _ in folds:
        # One hyperforest, or one per class (representation="free"): their hyperedges pooled.
        fit = gm.HyperforestClassifier().fit(X.iloc[train], y.iloc[train])
        forests = fit.structures_ if fit.representation_ == "free" else [fit.structure_]
        hyperedges = [h for forest in forests for h in forest.maximal_hyperedges]
        for item in result.frequencies.index:  # present: inside one of the fold's hyperedges
            present[item] = present.get(item, 0) + any(item <= h for h in hyperedges)
    assert result.kind == "hyperedges" and result.method == "cv"
    assert {item: round(3 * f) for item, f in result.frequencies.items()} == present
    assert all(abs(3 * f - round(3 * f)) < 1e-12 for f in result.frequencies)


def _data_for(name, X, y):
    kinds = gm.models.registered_models
    if name in kinds("density"):
        return X, None
    return X, y


STRUCTURED = sorted(set(gm.models.registered_models("classifier")) | set(gm.models.registered_models("density")))


@pytest.mark.parametrize("name", STRUCTURED)
def test_shared_counting_gives_the_structures_of_naive_refits(name, random_table):
    # Every registered classifier and density: the same seed gives the same resamples on both
    # paths, and the shared weighted counts give exactly the structures of refits on the rows
    # (two resamples: each path's pair of structures and the frequencies they make).
    X, y = random_table(np.random.default_rng(0), n_rows=240, cards=(2, 3, 3, 2))
    cls = gm.models.registered_models()[name]
    model = quick_model(
        name, **({"random_state": 0} if "random_state" in cls().get_params() else {})
    )  # HNB draws its folds
    X, y = _data_for(name, X, y)
    shared = gm.evaluation.edge_stability(model, X, y, n_resamples=2, random_state=5)
    naive = gm.evaluation.edge_stability(model, X, y, n_resamples=2, random_state=5, reuse_counts=False)
    assert shared.kind == naive.kind
    pd.testing.assert_series_equal(shared.frequencies, naive.frequencies)
    for a, b in zip(shared.structures, naive.structures):
        assert gm.structures.structure_difference(a, b).identical
    assert not hasattr(model, "structure_")  # the estimator itself is never fitted


@pytest.mark.parametrize("method", ["bootstrap", "subsample", "cv"])
def test_methods_seeds_and_weights(method):
    X, y = _tiny(seed=4)
    first = gm.evaluation.edge_stability(gm.TAN(), X, y, n_resamples=4, method=method, random_state=0)
    again = gm.evaluation.edge_stability(gm.TAN(), X, y, n_resamples=4, method=method, random_state=0)
    pd.testing.assert_series_equal(first.frequencies, again.frequencies)
    assert first.n_resamples == len(first.structures) == 4 and first.method == method
    # Integer weights are repeated rows: the same refits as on the repeated frame (bootstrap draws
    # from the repeated rows with the weights as probabilities, so compare through given resamples).
    weights = np.random.default_rng(2).integers(1, 3, len(X)).astype(float)
    result = gm.evaluation.edge_stability(
        gm.TAN(), X, y, n_resamples=4, method=method, sample_weight=weights, random_state=1
    )
    assert result.n_resamples == 4


def test_densities_and_regions():
    X, _ = _tiny()
    result = gm.evaluation.edge_stability(gm.ChowLiuTree(), X, n_resamples=5, random_state=0)
    assert result.kind == "arcs" and set(result.graph.nodes) == set(X.columns)
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    result = gm.evaluation.edge_stability(gm.KikuchiBayes(), X, y, n_resamples=3, random_state=0)
    assert result.kind == "regions" and result.class_name == "class"
    assert result.graph.nodes["class"]["role"] == "class"
    assert all("class" in region for region in result.frequencies.index)
    # A region inside a more frequent one is at least as frequent (presence is containment).
    for small in result.frequencies.index:
        for large in result.frequencies.index:
            if small < large:
                assert result.frequencies[small] >= result.frequencies[large]


def test_latent_trees_are_matched_by_what_their_latent_nodes_summarize():
    X, y = gm.datasets.load("car", return_X_y=True)
    result = gm.evaluation.edge_stability(gm.HierarchicalNaiveBayes(), X, y, n_resamples=3, random_state=0)
    latent = [n for n, role in result.graph.nodes(data="role") if role == "latent"]
    assert latent and all(isinstance(n, frozenset) and n <= set(X.columns) for n in latent)
    # Renaming the latent nodes of one tree changes nothing.
    tree = result.structures[0]
    renamed = nx.relabel_nodes(tree, {n: f"Z{n}" for n, role in tree.nodes(data="role") if role == "latent"})
    assert gm.structures.structure_difference(tree, renamed).identical


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"threshold": 1.5}, ValueError, "threshold"),
        ({"threshold": -0.1}, ValueError, "threshold"),
        ({"method": "jackknife"}, ValueError, "method"),
        ({"method": "cv", "n_splits": 1}, ValueError, "n_splits"),
        ({"reuse_counts": "yes"}, TypeError, "reuse_counts"),
        ({"method": "subsample", "sample_weight": np.full(120, 0.5)}, ValueError, "integer `sample_weight`"),
        ({"method": np.ones((2, 7))}, ValueError, r"shape \(n_resamples, 120\)"),
        ({"method": np.ones((2, 120)), "sample_weight": np.ones(120)}, ValueError, "not both"),
    ],
)
def test_edge_stability_parameter_errors(kwargs, error, match):
    X, y = _tiny()
    with pytest.raises(error, match=match):
        gm.evaluation.edge_stability(gm.TAN(), X, y, **kwargs)


def test_edge_stability_model_errors():
    X, y = _tiny()
    with pytest.raises(ValueError, match="classifier: pass the class labels"):
        gm.evaluation.edge_stability(gm.TAN(), X)
    with pytest.raises(ValueError, match="density estimator.*y=None"):
        gm.evaluation.edge_stability(gm.ChowLiuTree(), X, y)
    with pytest.raises(TypeError, match="got the class TAN; write TAN()"):
        gm.evaluation.edge_stability(gm.TAN, X, y)
    with pytest.raises(TypeError, match="multi-label model"):
        gm.evaluation.edge_stability(gm.BinaryRelevance(base=gm.TAN()), X, pd.DataFrame({"y1": y, "y2": y}))
    with pytest.raises(TypeError, match="graphmodels classifier or density"):
        gm.evaluation.edge_stability(object(), X, y)


# ---------------------------------------------------------------------------- structure_difference
def _random_dag(rng, nodes, p=0.4):
    order = list(rng.permutation(nodes))
    return nx.DiGraph([(u, v) for i, u in enumerate(order) for v in order[i + 1 :] if rng.random() < p])


@pytest.mark.parametrize("seed", range(20))
def test_arc_differences_are_exact_and_symmetric(seed):
    rng = np.random.default_rng(seed)
    nodes = list("abcdef")
    a, b = _random_dag(rng, nodes), _random_dag(rng, nodes)
    ab, ba = gm.structures.structure_difference(a, b), gm.structures.structure_difference(b, a)
    A, B = set(a.edges), set(b.edges)
    flipped = {(v, u) for u, v in ab.reversed}
    # Exact: the statuses partition each structure's arcs.
    assert ab.shared | ab.only_a | ab.reversed == A and ab.shared | ab.only_b | flipped == B
    assert not (ab.shared & ab.only_a) and not (ab.shared & ab.reversed) and not (ab.only_a & ab.reversed)
    assert ab.shared == A & B and ab.reversed == {(u, v) for u, v in A - B if (v, u) in B}
    # Symmetric: only_a and only_b swap, shared stays, the reversed arcs are the same pairs.
    assert (ba.shared, ba.only_a, ba.only_b) == (ab.shared, ab.only_b, ab.only_a)
    assert ba.reversed == flipped
    assert ab.hamming == ba.hamming == len(A ^ B) - len(ab.reversed)
    statuses = nx.get_edge_attributes(ab.graph, "status")
    assert sorted(statuses.values()) == sorted(
        ["shared"] * len(ab.shared)
        + ["only_a"] * len(ab.only_a)
        + ["only_b"] * len(ab.only_b)
        + ["reversed"] * len(ab.reversed)
    )
    assert gm.structures.structure_difference(a, a.copy()).identical


def test_hand_made_differences_of_every_kind():
    # Edges: undirected graphs.
    diff = gm.structures.structure_difference(nx.Graph([("a", "b"), ("b", "c")]), nx.Graph([("b", "a"), ("c", "d")]))
    assert diff.kind == "edges" and diff.shared == {frozenset("ab")} and diff.reversed == frozenset()
    assert diff.only_a == {frozenset("bc")} and diff.only_b == {frozenset("cd")}
    # Hyperedges: maximal ones compared exactly; the graph compares the pairs they join.
    a = gm.structures.Hyperforest([("a", "b", "c"), ("c", "d")])
    b = gm.structures.Hyperforest([("a", "b"), ("c", "d"), ("d", "e")])
    diff = gm.structures.structure_difference(a, b)
    assert diff.kind == "hyperedges" and diff.shared == {frozenset("cd")}
    assert diff.only_a == {frozenset("abc")} and diff.only_b == {frozenset("ab"), frozenset("de")}
    status = nx.get_edge_attributes(diff.graph, "status")
    assert {frozenset(e): s for e, s in status.items()} == {
        frozenset("ab"): "shared",
        frozenset("cd"): "shared",
        frozenset("ac"): "only_a",
        frozenset("bc"): "only_a",
        frozenset("de"): "only_b",
    }
    # A junction tree is read as its cliques.
    assert gm.structures.structure_difference(a.junction_tree(), a).identical
    # Regions: the maximal regions of region graphs.
    regions_a = gm.structures.cluster_variation_regions([("a", "b", "y"), ("b", "c", "y")])
    regions_b = gm.structures.cluster_variation_regions([("a", "b", "y"), ("c", "y")])
    diff = gm.structures.structure_difference(regions_a, regions_b)
    assert diff.kind == "regions" and diff.shared == {frozenset("aby")}
    assert diff.only_a == {frozenset("bcy")} and diff.only_b == {frozenset("cy")}


def test_per_class_hyperforests_are_compared_by_their_pooled_hyperedges():
    # Class 0 joins {a, b, c}; class 1 joins {a, b} (inside it: not an item) and {c, d}.
    a = (gm.structures.Hyperforest([("a", "b", "c")], "abcd"), gm.structures.Hyperforest([("a", "b"), ("c", "d")]))
    b = (gm.structures.Hyperforest([("a", "b"), ("c", "d")]), gm.structures.Hyperforest([("d", "e")], "abcde"))
    diff = gm.structures.structure_difference(a, b)
    assert diff.kind == "hyperedges" and diff.labels == ("a", "b")
    assert diff.shared == {frozenset("cd")}
    assert diff.only_a == {frozenset("abc")} and diff.only_b == {frozenset("ab"), frozenset("de")}
    assert diff == gm.structures.structure_difference(list(a), b)
    # Frequencies: an item is present in a structure when one class's hyperedge holds it.
    result = gm.structures.structure_frequencies([a, b, a[:1]])
    assert result.kind == "hyperedges" and result.structures == (a, b, a[:1])
    assert result.frequencies.to_dict() == {
        frozenset("abc"): 2 / 3,
        frozenset("cd"): 2 / 3,
        frozenset("ab"): 1.0,
        frozenset("de"): 1 / 3,
    }
    # A free model is read as its per-class hyperforests; it compares with a shared one.
    X, y = _tiny(seed=4, n_rows=300)
    free = gm.HyperforestClassifier(representation="free").fit(X, y)
    shared = gm.HyperforestClassifier(representation="shared").fit(X, y)
    diff = gm.structures.structure_difference(free, shared)
    assert diff.labels == ("a", "b") and diff.class_name == y.name
    by_hand = gm.structures.structure_difference(free.structures_, shared.structure_)
    assert (diff.shared, diff.only_a, diff.only_b) == (by_hand.shared, by_hand.only_a, by_hand.only_b)
    by_class = gm.structures.hyperforests_by_class(free)
    assert gm.structures.structure_of(free) == by_class == dict(zip(free.classes_, free.structures_))
    one_class = gm.structures.structure_difference(by_class["no"], by_class["yes"])
    assert one_class.kind == "hyperedges"
    assert gm.structures.structure_difference(by_class, shared).shared == diff.shared  # a dict: pooled too
    # edge_stability keeps each refit's hyperforests by class label: the frequencies of one class.
    result = gm.evaluation.edge_stability(free, X, y, n_resamples=4, random_state=0)
    assert all(isinstance(s, dict) and list(s) == ["no", "yes"] for s in result.structures)
    first = result.class_frequencies("no")
    assert first.kind == "hyperedges" and first.n_resamples == 4
    pooled = set(result.frequencies.index)
    assert all(any(item <= other for other in pooled) for item in first.frequencies.index)


def _rare_class(seed=0):
    """Classes w (20 rows), z (19) and x (1): a resample or fold often lacks x. In w, b copies a; in z, c copies b."""
    rng = np.random.default_rng(seed)
    y = np.array(["w"] * 20 + ["z"] * 19 + ["x"])
    a, b, c, d = (rng.integers(0, 2, 40) for _ in range(4))
    b = np.where(y == "w", a, b)
    c = np.where(y == "z", b, c)
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(str)
    return X, pd.Series(y, name="class")


@pytest.mark.parametrize("reuse_counts", [True, False])
def test_per_class_hyperforests_are_kept_by_class_label_when_a_refit_lacks_a_class(reuse_counts):
    X, y = _rare_class()
    n = len(X)
    rng = np.random.default_rng(2)
    weights = np.array([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(4)], dtype=float)
    weights[:, -1] = [0.0, 3.0, 1.0, 1.0]  # resample 0 draws no row of class x, the others draw it
    # One hyperforest per class asked for: on 13 rows per class "auto" may keep the shared one.
    free = gm.HyperforestClassifier(representation="free")
    result = gm.evaluation.edge_stability(free, X, y, method=weights, reuse_counts=reuse_counts)
    # Each refit by hand, on the rows repeated as drawn: its classes and hyperforests, paired.
    fits = []
    for w in weights:
        rows = np.repeat(np.arange(n), w.astype(int))
        fits.append(gm.HyperforestClassifier(representation="free").fit(X.iloc[rows], y.iloc[rows]))
    assert list(fits[0].classes_) == ["w", "z"] and list(fits[1].classes_) == ["w", "x", "z"]
    for fit, structure in zip(fits, result.structures):
        assert structure == dict(zip(fit.classes_, fit.structures_))
    # Within one class: its hyperforest in each refit that has the class, never another class's.
    for label in ("w", "z", "x"):
        forests = [dict(zip(fit.classes_, fit.structures_))[label] for fit in fits if label in fit.classes_]
        within = result.class_frequencies(label)
        expected = gm.structures.structure_frequencies(forests)
        assert within.n_resamples == len(forests) == (3 if label == "x" else 4)
        pd.testing.assert_series_equal(within.frequencies, expected.frequencies)
        assert within.method == "given" and within.threshold == result.threshold
    # z's hyperforests join b and c in every refit (c copies b in z); w's never do (there b copies a).
    assert result.class_frequencies("z").frequencies[frozenset("bc")] == 1.0
    assert frozenset("bc") not in result.class_frequencies("w").frequencies.index
    assert result.class_frequencies("w").frequencies[frozenset("ab")] == 1.0


@pytest.mark.parametrize("reuse_counts", [True, False])
def test_folds_without_a_class_have_no_hyperforest_of_it(reuse_counts):
    X, y = _rare_class(seed=1)
    result = gm.evaluation.edge_stability(
        gm.HyperforestClassifier(representation="free"),
        X,
        y,
        method="cv",
        n_splits=5,
        n_resamples=5,
        random_state=0,
        reuse_counts=reuse_counts,
    )
    folds = gm.evaluation.RepeatedStratifiedKFold(n_splits=5, random_state=np.random.default_rng(0)).split(X, y)
    for (train, _), structure in zip(folds, result.structures):
        assert list(structure) == sorted(set(y.iloc[train]))
    assert sum("x" not in structure for structure in result.structures) == 1  # the fold that tests x's row
    assert result.class_frequencies("x").n_resamples == 4
    assert result.class_frequencies("z").frequencies[frozenset("bc")] == 1.0


def test_class_frequencies_errors():
    X, y = _rare_class()
    tan = gm.evaluation.edge_stability(gm.TAN(), X, y, n_resamples=2, random_state=0)
    with pytest.raises(TypeError, match=r"one hyperforest per class .* structures\[0\] is DiGraph"):
        tan.class_frequencies("w")
    free = gm.evaluation.edge_stability(
        gm.HyperforestClassifier(representation="free"), X, y, n_resamples=2, random_state=0
    )
    with pytest.raises(ValueError, match=r"No structure has a hyperforest of class 'v'; the classes are \['w', "):
        free.class_frequencies("v")
    assert free.class_frequencies("w", threshold=0.9).threshold == 0.9


def test_differences_of_fitted_models_and_their_errors():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    tan, chow_liu = gm.TAN().fit(X, y), gm.ChowLiu().fit(X, y)
    diff = gm.structures.structure_difference(tan, chow_liu)
    assert diff.labels == ("TAN", "ChowLiu") and diff.class_name == "class"
    assert diff == gm.structures.structure_difference(tan.structure_, chow_liu.structure_, labels=["TAN", "ChowLiu"])
    assert "StructureDifference(kind='arcs'" in repr(diff)
    with pytest.raises(TypeError, match=r"TAN \(arcs of an nx.DiGraph\) with HyperforestClassifier \(hyperedges"):
        gm.structures.structure_difference(tan, gm.HyperforestClassifier().fit(X, y))
    with pytest.raises(gm.models.NotFittedError):
        gm.structures.structure_difference(gm.TAN(), tan)
    with pytest.raises(TypeError, match="Expected a networkx graph"):
        gm.structures.structure_difference(tan, {"a": "b"})
    with pytest.raises(ValueError, match="pair of strings"):
        gm.structures.structure_difference(tan, tan, labels=("x", "y", "z"))


# ---------------------------------------------------------------------------- structure_frequencies
def test_frequencies_threshold_consensus_and_errors():
    fits = [nx.DiGraph([("a", "b"), ("b", "c")]), nx.DiGraph([("b", "a"), ("b", "c")]), nx.DiGraph([("a", "b")])]
    result = gm.structures.structure_frequencies(fits, threshold=0.9)
    assert result.frequencies.to_dict() == {("a", "b"): 1.0, ("b", "c"): 2 / 3}
    assert result.graph.edges["a", "b"]["direction"] == 2 / 3 and result.graph.edges["a", "b"]["count"] == 3
    assert sorted(result.consensus().edges) == [("a", "b")]
    assert sorted(result.consensus(0.5).edges) == [("a", "b"), ("b", "c")]
    forests = [gm.structures.Hyperforest([("a", "b", "c")]), gm.structures.Hyperforest([("a", "b"), ("c", "d")])]
    result = gm.structures.structure_frequencies(forests)
    assert result.frequencies.to_dict() == {frozenset("ab"): 1.0, frozenset("abc"): 0.5, frozenset("cd"): 0.5}
    assert result.consensus(0.6) == [frozenset("ab")]
    assert result.consensus(0.5) == [frozenset("abc"), frozenset("cd")]
    assert result.graph.edges["a", "b"]["frequency"] == 1.0 and result.graph.edges["b", "c"]["frequency"] == 0.5
    with pytest.raises(TypeError, match=r"structures\[1\] is Hyperforest"):
        gm.structures.structure_frequencies([fits[0], forests[0]])
    with pytest.raises(ValueError, match="at least one"):
        gm.structures.structure_frequencies([])
    with pytest.raises(TypeError, match="list of structures"):
        gm.structures.structure_frequencies(fits[0])
    with pytest.raises(ValueError, match="threshold"):
        gm.structures.structure_frequencies(fits, threshold=2)
    with pytest.raises(ValueError, match="arcs and edges"):
        gm.structures.structure_frequencies(forests, threshold="auto")


def test_estimated_threshold_of_scutari_and_nagarajan():
    # 6 nodes, 15 pairs: 3 pairs in every structure, 2 in half, 10 never. F on [0, 1) is 10/15 on
    # [0, 0.5) and 12/15 on [0.5, 1); both levels cost the same L1 distance, the larger is taken
    # (fewer pairs kept): the quantile is 0.5 and the threshold the next frequency, 1.
    always = [("a", "b"), ("b", "c"), ("c", "d")]
    fits = [nx.DiGraph(always + [("d", "e"), ("e", "f")]), nx.DiGraph(always)]
    result = gm.structures.structure_frequencies(fits, threshold="auto")
    assert result.threshold == 1.0
    assert sorted(result.consensus().edges) == always
    # 4 in 4 of 5 structures and 11 never: F is 11/15 on [0, 0.8), the threshold 0.8.
    fits = [nx.DiGraph(always + [("d", "e")])] * 4 + [nx.DiGraph()]
    fits[4].add_nodes_from("abcdef")
    assert gm.structures.structure_frequencies(fits, threshold="auto").threshold == 0.8


# ---------------------------------------------------------------------------- drawings
def _edge_patches(ax):
    return [p for p in ax.patches if (p.get_gid() or "").startswith("edge:")]


def test_draw_stability_widths_opacity_and_arrowheads_follow_the_frequencies():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    result = gm.evaluation.edge_stability(gm.TAN(), X, y, n_resamples=12, random_state=0)
    ax = draw_stability(result, Figure(figsize=(9, 6)).subplots(), threshold=0.6, edge_labels=True)
    patches = _edge_patches(ax)
    edges = list(result.graph.edges(data=True))
    assert len(patches) == len(edges)
    augmenting = []
    for patch, (u, v, data) in zip(patches, edges):
        assert patch.get_label() == f"{u} -> {v}: {data['frequency']:.3g}"
        if data.get("kind") == "class":
            assert patch.get_gid() == "edge:class"
            continue
        assert patch.get_gid() == ("edge:consensus" if data["frequency"] >= 0.6 else "edge:below")
        headed = type(patch.get_arrowstyle()).__name__ != "Curve"
        assert headed == (data["direction"] >= 0.75)
        augmenting.append((data["frequency"], patch.get_linewidth(), patch.get_alpha()))
    augmenting.sort()
    assert len({f for f, _, _ in augmenting}) > 2  # frequencies vary on this set
    for (f1, w1, a1), (f2, w2, a2) in zip(augmenting, augmenting[1:]):
        assert w1 <= w2 and a1 <= a2 and (f1 == f2) == (w1 == w2)
    assert len([t for t in ax.texts if t.get_gid() == "edge-label"]) == len(edges)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "consensus (>= 0.6)" in legend and ax.get_legend().get_title().get_text().startswith("Arcs of 12")
    # min_frequency leaves the rare arcs out.
    ax = draw_stability(result, Figure().subplots(), min_frequency=0.5)
    assert len(_edge_patches(ax)) == int((result.frequencies >= 0.5).sum())


@pytest.mark.parametrize("model", [gm.HyperforestClassifier(), gm.KikuchiBayes()])
def test_draw_stability_of_hyperedges_and_regions(model):
    X, y = _tiny(seed=2, n_rows=200)
    result = gm.evaluation.edge_stability(model, X, y, n_resamples=6, random_state=0)
    ax = draw_stability(result, Figure().subplots(), layout=grid_layout(X.columns))
    pairs = [(u, v, f) for u, v, f in result.graph.edges(data="frequency") if result.class_name not in (u, v)]
    patches = _edge_patches(ax)
    assert len(patches) == len(pairs)
    widths = sorted((f, p.get_linewidth()) for p, (_, _, f) in zip(patches, pairs))
    assert all(w1 <= w2 for (_, w1), (_, w2) in zip(widths, widths[1:]))
    hulls = [p for p in ax.patches if p.get_gid() == "hull:consensus"]
    assert len(hulls) == len(result.consensus())
    (nodes,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    drawn = [n for n in result.graph.nodes if n != result.class_name or result.kind == "hyperedges"]
    assert len(nodes.get_offsets()) == len(drawn)  # the class, in every region, is not drawn


def test_draw_structure_difference_statuses_colours_and_legend():
    a = nx.DiGraph([("C", "x"), ("C", "y"), ("x", "y"), ("y", "z")])
    b = nx.DiGraph([("C", "x"), ("C", "y"), ("y", "x"), ("x", "z"), ("z", "w")])
    diff = gm.structures.structure_difference(a, b, labels=("fold 1", "fold 2"))
    ax = draw_structure_difference(diff, Figure().subplots())
    by_status = {}
    for patch in ax.patches:
        by_status.setdefault(patch.get_gid(), []).append(patch)
    assert {k: len(v) for k, v in by_status.items()} == {
        "diff:shared": 2,
        "diff:only_a": 1,
        "diff:only_b": 2,
        "diff:reversed": 1,
    }
    (reversed_arc,) = by_status["diff:reversed"]
    assert reversed_arc.get_label() == "x -> y" and reversed_arc.get_linestyle() == "--"
    colours = {status: matplotlib.colors.to_hex(p[0].get_edgecolor()) for status, p in by_status.items()}
    assert len(set(colours.values())) == 4
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:3] == ["shared: 2", "only in fold 1: 1", "only in fold 2: 2"]
    # One layout for both structures: every node of either is drawn once.
    (nodes,) = [c for c in ax.collections if c.get_gid() == "nodes"]
    assert len(nodes.get_offsets()) == 5
    forests = gm.structures.structure_difference(
        gm.structures.Hyperforest([("a", "b", "c")]), gm.structures.Hyperforest([("a", "b"), ("c", "d")])
    )
    ax = draw_structure_difference(forests, Figure().subplots(), colors={"only_b": "black"})
    assert sorted(p.get_gid() for p in ax.patches) == ["diff:only_a", "diff:only_b", "diff:only_b"]


def test_draw_network_dispatches_results_and_drawing_errors():
    fits = [nx.DiGraph([("a", "b")]), nx.DiGraph([("b", "a"), ("b", "c")])]
    result = gm.structures.structure_frequencies(fits)
    assert len(_edge_patches(draw_network(result, Figure().subplots()))) == 2
    diff = gm.structures.structure_difference(*fits)
    assert {p.get_gid() for p in draw_network(diff, Figure().subplots()).patches} == {"diff:reversed", "diff:only_b"}
    ax = draw_stability(result)  # a new figure
    assert ax.figure.get_size_inches()[0] > 4
    with pytest.raises(TypeError, match="EdgeStability"):
        draw_stability(diff)
    with pytest.raises(TypeError, match="StructureDifference"):
        draw_structure_difference(result)
    with pytest.raises(ValueError, match="threshold"):
        draw_stability(result, threshold=1.2)
    with pytest.raises(ValueError, match="no position"):
        draw_stability(result, layout={"a": (0, 0)})
    with pytest.raises(ValueError, match="unknown status"):
        draw_structure_difference(diff, colors={"new": "red"})


def test_models_whose_search_reads_rows_are_refitted_on_rows():
    from graphmodels.evaluation.stability import _refits_on_rows

    assert _refits_on_rows(gm.HierarchicalNaiveBayes(), 100)
    assert not _refits_on_rows(gm.SelectiveKDB(), 2000) and _refits_on_rows(gm.SelectiveKDB(), 2001)
    assert not _refits_on_rows(gm.TAN(), 10**6)
