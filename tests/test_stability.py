"""Structure stability and comparison (issue 17): edge_stability, structure_difference, their
drawings, the grid layout helper, and the interaction diagram's lines ending on attributes."""

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.path import Path  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_interactions, draw_network, grid_layout  # noqa: E402
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
