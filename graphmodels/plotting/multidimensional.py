"""Drawing of multi-dimensional Bayesian network classifiers (MDBNCs).

:func:`draw_multidimensional` draws an MDBNC (see
:mod:`graphmodels.structures.multidimensional`) with its three subgraphs set
apart: the class variables on a top row, their class-to-class arcs (the class
subgraph) arched above that row so that they pass over the classes between
their ends; the features below, in as many rows as it takes; the
class-to-feature arcs (the bridge subgraph) thin, light and dashed; the
feature-to-feature arcs (the feature subgraph) bold. Each kind has its colour
(``KIND_COLORS`` of :mod:`graphmodels.plotting.export`, shared with
:func:`~graphmodels.plotting.to_dot`) and line style, and the legend names the
three subgraphs with their numbers of arcs. Features without any arc (not
selected) are drawn faded at the bottom.

:func:`multidimensional_layout` gives the positions: features ordered by the
mean position of their class parents (barycentre ordering) and laid out
column by column, so that the features of a class sit under it and bridge
arcs stay short; each class is then moved over the mean of its features,
keeping the classes in their order.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch

from ..structures.multidimensional import ARC_KINDS, arc_kind
from ._common import (
    KIND_COLORS,
    ROLE_COLORS,
    NodeArc,
    _auto_row_width,
    _bend,
    _check_bool,
    _edge_widths,
    _fitting_font_size,
    _is_number,
    _measure,
    _points_per_unit,
    _slots,
    as_graph,
    format_label,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.base import BaseModel

__all__ = ["draw_multidimensional", "multidimensional_layout", "ARC_STYLES", "SUBGRAPH_NAMES"]

#: Name of the subgraph that the arcs of each kind make up, as the legend gives it.
SUBGRAPH_NAMES = {
    "class-class": "class subgraph",
    "class-feature": "bridge subgraph",
    "feature-feature": "feature subgraph",
}

#: Line style, width range in points (growing with ``weight`` within a kind), opacity and layer of each arc kind.
ARC_STYLES: dict[str, dict[str, Any]] = {
    "class-class": {"linestyle": "-.", "widths": (1.3, 3.0), "alpha": 0.9, "zorder": 2},
    "class-feature": {"linestyle": "--", "widths": (0.5, 1.3), "alpha": 0.5, "zorder": 1},
    "feature-feature": {"linestyle": "-", "widths": (1.8, 4.5), "alpha": 0.9, "zorder": 2},
}

_CLASS_GAP = 1.5  # rows between the class row and the first feature row
_CLASS_SPACING = 1.5  # least distance between neighbouring classes, in slots (and 0.8 of an even spread)
_NEIGHBOUR_WEIGHT = 0.5  # pull of a feature neighbour on a feature's place, relative to a class parent
_SWEEPS = 4  # rounds of placing features under their classes and classes over their features
_FADED = 0.3  # opacity of features without arcs
_PAD = 0.6  # margin around the nodes, in slots
_MAX_DIAMETER = 64.0  # points


# ---------------------------------------------------------------------------
# Input


def _mdbnc_problem(graph):
    """Why `graph` is not an MDBNC (a phrase), or None if it is one."""
    if not isinstance(graph, nx.DiGraph):
        return f"it is an undirected {type(graph).__name__}"
    roles = dict(graph.nodes(data="role"))
    for node, role in roles.items():
        if role not in ("class", "feature"):
            return f"node {node!r} has role {role!r} (set role='class' or role='feature' on every node)"
    if "class" not in roles.values():
        return "it has no node with role 'class'"
    for u, v, kind in graph.edges(data="kind"):
        if roles[u] == "feature" and roles[v] == "class":
            return f"arc {u!r} -> {v!r} goes from a feature into a class"
        expected = arc_kind(graph, u, v)
        if kind != expected:
            return f"arc {u!r} -> {v!r} has kind {kind!r}, expected {expected!r}"
    if not nx.is_directed_acyclic_graph(graph):
        return f"its arcs form a cycle: {nx.find_cycle(graph)}"
    return None


def _as_mdbnc(graph_or_model, member=None):
    """The MDBNC of a graph or fitted model (its ``structure_``, or ``member_structures_[member]``)."""
    if member is not None:
        if isinstance(graph_or_model, nx.Graph) or not hasattr(graph_or_model, "member_structures_"):
            raise TypeError(
                f"`member` needs a fitted ensemble with `member_structures_` (such as "
                f"MultiDimensionalAODE), got {type(graph_or_model).__name__}."
            )
        members = graph_or_model.member_structures_
        try:
            graph = members[member]
        except (KeyError, IndexError, TypeError):
            valid = list(members) if isinstance(members, dict) else f"0..{len(members) - 1}"
            raise ValueError(f"Unknown `member` {member!r}; valid: {valid}.") from None
        graph = as_graph(graph)
    else:
        graph = as_graph(graph_or_model)
    problem = _mdbnc_problem(graph)
    if problem is not None:
        raise ValueError(
            "Expected a multi-dimensional Bayesian network classifier (see "
            f"graphmodels.structures.multidimensional.multidimensional_classifier), but {problem}."
        )
    return graph


def _in_listed_order(graph, role, listed):
    """Nodes of `role`, in the order of `listed` if it lists exactly them, else in graph order."""
    nodes = [n for n, r in graph.nodes(data="role") if r == role]
    try:
        listed = list(listed) if listed is not None else None
        if listed is not None and len(listed) == len(nodes) and set(listed) == set(nodes):
            return listed
    except TypeError:
        pass
    return nodes


def _check_max_row_width(value):
    if value is not None and (
        isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1
    ):
        raise ValueError(f"`max_row_width` must be a positive integer, got {value!r}.")


def _check_positive(value, name):
    if value is not None and (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"`{name}` must be a positive number, got {value!r}.")


def _weight_kinds(show_weights):
    if isinstance(show_weights, (bool, np.bool_)):
        return set(ARC_KINDS) if show_weights else set()
    if isinstance(show_weights, str) and show_weights in ARC_KINDS:
        return {show_weights}
    raise ValueError(f"`show_weights` must be True, False or one of {list(ARC_KINDS)}, got {show_weights!r}.")


# ---------------------------------------------------------------------------
# Layout


def _isotonic(targets, weights):
    """Weighted least-squares non-decreasing fit of `targets` (pool adjacent violators)."""
    blocks = []  # [mean, weight, count]
    for target, weight in zip(targets, weights):
        blocks.append([float(target), float(weight), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return [mean for mean, _, count in blocks for _ in range(count)]


def _feature_keys(linked, class_parents, neighbours, class_x, feature_x):
    """Where each linked feature would like to be: the mean x of its class parents and (at half the
    weight) of its feature neighbours placed so far. Without any of these, a feature takes the mean
    of its neighbours' keys, round by round (order-free); the rest have no key."""
    keys = {}
    for f in linked:
        xs = [class_x[c] for c in class_parents[f]]
        near = [feature_x[g] for g in neighbours[f] if g in feature_x]
        if xs or near:
            keys[f] = (sum(xs) + _NEIGHBOUR_WEIGHT * sum(near)) / (len(xs) + _NEIGHBOUR_WEIGHT * len(near))
    pending = [f for f in linked if f not in keys]
    while pending:
        found = {}
        for f in pending:
            known = [keys[g] for g in neighbours[f] if g in keys]
            if known:
                found[f] = sum(known) / len(known)
        if not found:
            break
        keys.update(found)
        pending = [f for f in pending if f not in found]
    return keys


def _grid(ordered, rows):
    """Column by column: the k-th feature in column ``k // rows``, row ``k % rows``; consecutive rows
    staggered by half a slot so that arcs into a lower row pass between the nodes above it."""
    pos = {}
    for k, node in enumerate(ordered):
        column, row = divmod(k, rows)
        stagger = 0.0 if rows == 1 else (-0.25 if row % 2 == 0 else 0.25)
        pos[node] = (column + stagger, -(_CLASS_GAP + row))
    return pos


def _mdbnc_positions(graph, classes, features, width):
    order = {node: i for i, node in enumerate(graph.nodes)}
    linked = [f for f in features if graph.degree(f)]
    isolated = [f for f in features if not graph.degree(f)]
    role = dict(graph.nodes(data="role"))
    class_parents = {
        f: sorted({u for u in graph.predecessors(f) if role[u] == "class"}, key=order.__getitem__) for f in linked
    }
    class_children = {
        c: sorted({v for v in graph.successors(c) if role[v] == "feature"}, key=order.__getitem__) for c in classes
    }

    neighbours = {
        f: sorted({g for g in nx.all_neighbors(graph, f) if role[g] == "feature"}, key=order.__getitem__)
        for f in linked
    }

    rows = math.ceil(len(linked) / width) if linked else 0
    columns = math.ceil(len(linked) / rows) if rows else 0
    iso_rows = math.ceil(len(isolated) / (columns or width)) if isolated else 0
    iso_size = math.ceil(len(isolated) / iso_rows) if iso_rows else 0
    span = max(columns, iso_size)  # slots -0.5 .. span - 0.5

    # Classes first spread evenly over the features ...
    m = len(classes)
    spacing = max(_CLASS_SPACING, 0.8 * span / m) if m else 0.0
    step = max(span / m, spacing) if m else 0.0
    centre = (span - 1) / 2 if span else 0.0
    spread = {c: centre + (i - (m - 1) / 2) * step for i, c in enumerate(classes)}
    class_x = dict(spread)
    pos = {}
    for _ in range(_SWEEPS):
        # ... features by the barycentre of their class parents (and feature neighbours), column by column ...
        keys = _feature_keys(linked, class_parents, neighbours, class_x, {f: x for f, (x, _) in pos.items()})
        ordered = sorted(linked, key=lambda f: (f not in keys, keys.get(f, 0.0), order[f]))
        pos = _grid(ordered, rows) if rows else {}
        # ... then each class over the mean of its features, classes kept in order and apart.
        targets, weights = [], []
        for i, c in enumerate(classes):
            children = [pos[f][0] for f in class_children[c]]
            target, weight = (float(np.mean(children)), float(len(children))) if children else (spread[c], 0.25)
            targets.append(target - i * spacing)
            weights.append(weight)
        fitted = _isotonic(targets, weights)
        class_x = {c: fitted[i] + i * spacing for i, c in enumerate(classes)}

    for c in classes:
        pos[c] = (class_x[c], 0.0)
    for k, f in enumerate(isolated):
        row, i = divmod(k, iso_size)
        in_row = min(iso_size, len(isolated) - row * iso_size)
        pos[f] = ((span - 1) / 2 + i - (in_row - 1) / 2, -(_CLASS_GAP + rows + row))
    return {n: (round(float(pos[n][0]), 9) + 0.0, round(float(pos[n][1]), 9) + 0.0) for n in graph.nodes}


def multidimensional_layout(
    graph_or_model: nx.DiGraph | BaseModel, *, max_row_width: int | None = None
) -> dict[Any, tuple[float, float]]:
    """Deterministic node positions for :func:`draw_multidimensional`.

    The classes are on the top row (y = 0), in the order of
    ``graph.graph["classes"]`` (else graph order), first spread evenly over
    the width of the features. The features that have an arc fill the rows
    below (the first at y = -1.5, the next 1 apart): they are sorted by the
    mean x of their class parents (barycentre ordering; a feature without a
    class parent takes the mean of its feature neighbours' places, one
    with neither goes last, ties in graph order) and placed column by
    column, so that the features of a class are under it; consecutive rows
    are staggered by half a slot. Each class is then moved over the mean x
    of its features (least squares, the classes kept in order and at least
    ``max(1.5, 0.8 * width / n_classes)`` apart). Four such rounds are
    made, the later ones also pulling each feature, at half the weight of
    a class parent, towards its feature neighbours, which shortens the
    feature arcs. Features without any arc are on the last rows, centred.

    Parameters
    ----------
    graph_or_model : nx.DiGraph or fitted model
        An MDBNC (see
        :func:`~graphmodels.structures.multidimensional.multidimensional_classifier`)
        or a fitted model whose ``structure_`` is one.
    max_row_width : int, optional
        Most features on one row; defaults to
        ``max(10, ceil(2 * sqrt(n_features)))``. The rows are balanced:
        ``ceil(n / ceil(n / max_row_width))`` features each.

    Returns
    -------
    dict
        Node -> ``(x, y)`` in graph order; neighbouring features of a row
        are 1 apart.

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.
    ValueError
        If the graph is not an MDBNC or `max_row_width` is not a positive
        integer.

    Examples
    --------
    >>> from graphmodels.structures.multidimensional import multidimensional_classifier
    >>> g = multidimensional_classifier(["C1", "C2"], ["b", "a"], [("C1", "C2"), ("C1", "a"), ("C2", "b")])
    >>> multidimensional_layout(g)
    {'C1': (-0.25, 0.0), 'C2': (1.25, 0.0), 'b': (1.0, -1.5), 'a': (0.0, -1.5)}
    """
    graph = _as_mdbnc(graph_or_model)
    _check_max_row_width(max_row_width)
    classes = _in_listed_order(graph, "class", graph.graph.get("classes"))
    features = _in_listed_order(graph, "feature", graph.graph.get("features"))
    width = int(max_row_width) if max_row_width is not None else _auto_row_width(len(features))
    return _mdbnc_positions(graph, classes, features, width)


# ---------------------------------------------------------------------------
# Drawing helpers


def _arch_heights(edges, pos, class_xy, clearance):
    """Height (data units) of each class-class arc between two classes of one row, or None.

    An arc rises ``clearance / 2`` per class step it spans (so that nested
    arcs stay apart) and at least enough to pass `clearance` above every
    class between its ends (a quadratic Bezier with its control point over
    the middle is ``4 h t (1 - t)`` high at fraction ``t`` of the way).
    """
    heights = []
    for u, v, data in edges:
        (ux, uy), (vx, vy) = pos[u], pos[v]
        if data.get("kind") != "class-class" or not math.isclose(uy, vy, abs_tol=1e-9) or ux == vx:
            heights.append(None)
            continue
        low, high = min(ux, vx), max(ux, vx)
        between = [(x, y) for x, y in class_xy if low < x < high and abs(y - uy) < clearance]
        height = clearance / 2 * (len(between) + 1)
        for x, y in between:
            t = (x - low) / (high - low)
            height = max(height, (clearance + (y - uy)) / (4 * t * (1 - t)))
        heights.append(height)
    return heights


def _label_font(texts, room_x, room_y):
    """Label size (points) for nodes with `room_x` x `room_y` points each.

    The largest size (at most 10) at which the labels fit inside the largest
    disc the room allows (80% of it), but not below 7 points if the labels
    fit 90% x 80% of the room at that size (they then overflow their discs
    but not their room), nor below 4.5.
    """
    in_room = _fitting_font_size(texts, 0.9 * room_x, 0.8 * room_y, pad=0.0, line_pad=0.0, min_chars=3)
    chars = max([len(line) for text in texts for line in text.split("\n")] + [3])
    lines = max([text.count("\n") + 1 for text in texts] + [1])
    in_disc = min(0.8 * room_x, 0.8 * room_y, _MAX_DIAMETER) / math.hypot(0.6 * chars, 1.2 * lines)
    return max(min(in_room, in_disc), min(in_room, 7.0))


def _diameter(texts, font, room_x, room_y):
    """Disc diameter (points): large enough for the labels at `font`, within 80% of the room."""
    chars = max([len(line) for text in texts for line in text.split("\n")] + [3])
    lines = max([text.count("\n") + 1 for text in texts] + [1])
    text = math.hypot(0.6 * font * chars, 1.2 * font * lines)
    return max(min(max(0.62 * min(room_x, room_y), text), 0.8 * room_x, 0.8 * room_y, _MAX_DIAMETER), 8.0)


def _row_width_for(graph, ax, feature_labels, legend):
    """The most features per row at which the default layout gives the feature labels the largest
    font in `ax`, and of those the roomiest nodes; None if there is nothing to choose."""
    role = dict(graph.nodes(data="role"))
    features = [n for n in graph.nodes if role[n] == "feature"]
    n_linked = sum(1 for f in features if graph.degree(f))
    n_isolated = len(features) - n_linked
    if len(features) < 2:
        return None
    classes = [n for n in graph.nodes if role[n] == "class"]
    rank = {c: i for i, c in enumerate(_in_listed_order(graph, "class", graph.graph.get("classes")))}
    steps = max([abs(rank[u] - rank[v]) for u, v, k in graph.edges(data="kind") if k == "class-class"] + [0])
    top = max(_PAD, 0.325 * steps + 0.2)  # the arches of the class subgraph (see _arch_heights)
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    width_points = bbox.width * fig_w * 72
    height_points = bbox.height * fig_h * 72 - (45.0 if legend else 0.0)
    best, best_score = None, None
    for width in sorted({math.ceil(max(n_linked, n_isolated) / r) for r in range(1, max(n_linked, n_isolated) + 1)}):
        rows = math.ceil(n_linked / width) if n_linked else 0
        columns = math.ceil(n_linked / rows) if rows else 0
        iso_rows = math.ceil(n_isolated / (columns or width)) if n_isolated else 0
        span = max(columns, math.ceil(n_isolated / iso_rows) if iso_rows else 0)
        x_extent = max(span + (0.5 if rows > 1 else 0.0), _CLASS_SPACING * (len(classes) - 1) + 1) + 2 * _PAD
        y_extent = _CLASS_GAP + rows + iso_rows - 1 + _PAD + top
        room_x, room_y = width_points / x_extent, height_points / y_extent
        score = (round(4 * _label_font(feature_labels, room_x, room_y)), min(room_x, room_y))
        if best_score is None or score > best_score:
            best, best_score = width, score
    return best


def _legend_handles(counts, roles, n_isolated, fade_isolated, marker_size):
    """Three node entries (blanks where a kind of node is missing), then the three subgraphs."""
    blank = Line2D([], [], linestyle="", label=" ")
    disc = {"linestyle": "", "marker": "o", "markersize": marker_size, "markeredgecolor": "#4d4d4d"}
    nodes = [
        Line2D(
            [],
            [],
            markerfacecolor=ROLE_COLORS["class"],
            label="class variable",
            **{**disc, "markeredgecolor": "#5a3e1b", "markeredgewidth": 1.6},
        )
    ]
    nodes.append(
        Line2D([], [], markerfacecolor=ROLE_COLORS["feature"], label="feature", **disc) if "feature" in roles else blank
    )
    nodes.append(
        Line2D(
            [],
            [],
            markerfacecolor=to_rgba(ROLE_COLORS["feature"], _FADED),
            label=f"feature without arcs ({n_isolated})",
            **{**disc, "markeredgecolor": to_rgba("#4d4d4d", _FADED)},
        )
        if n_isolated and fade_isolated
        else blank
    )
    arcs = []
    for kind in ARC_KINDS:
        style = ARC_STYLES[kind]
        n = counts[kind]
        arcs.append(
            Line2D(
                [],
                [],
                color=KIND_COLORS[kind],
                linestyle=style["linestyle"],
                linewidth=float(np.mean(style["widths"])),
                alpha=style["alpha"],
                label=f"{SUBGRAPH_NAMES[kind]} ({n} arc{'' if n == 1 else 's'})",
            )
        )
    return nodes, arcs


def _legend_layout(nodes, arcs, width_points, font):
    """Handles in legend order, the number of columns and the height in points of a legend that fits
    `width_points`: nodes on one row and subgraphs on the next (3 columns), or nodes in one column and
    subgraphs in the other (2), or all in one column."""
    column = max(_measure(h.get_label())[0] for h in nodes + arcs) * font + 5.2 * font  # + handle, gaps
    ncol = int(max(1, min(3, width_points // column)))
    if ncol == 3:
        handles = [h for pair in zip(nodes, arcs) for h in pair]  # legends fill column by column
    else:
        handles = nodes + arcs
        if ncol == 1:
            handles = [h for h in handles if h.get_label() != " "]
    nrows = math.ceil(len(handles) / ncol)
    return handles, ncol, (1.5 * nrows + 0.4) * font


# ---------------------------------------------------------------------------
# Drawing


def draw_multidimensional(
    graph_or_model: nx.DiGraph | BaseModel,
    ax: Axes | None = None,
    *,
    layout: dict[Any, Any] | None = None,
    member: Hashable | None = None,
    title: str | None = None,
    legend: bool = True,
    show_weights: bool | str = False,
    weight_format: str = ".3f",
    node_size: float | None = None,
    font_size: float | None = None,
    max_label_length: int = 24,
    max_row_width: int | None = None,
    fade_isolated: bool = True,
) -> Axes:
    """Draw a multi-dimensional Bayesian network classifier: classes on top, features below.

    The class variables are discs on the top row, the features discs on the
    rows below (see :func:`multidimensional_layout`). The three subgraphs
    are drawn apart, each in its own colour and line style:

    * class subgraph (class -> class): red, dash-dotted arcs arched above
      the class row, rising over the classes between their ends;
    * bridge subgraph (class -> feature): thin, light grey dashed arcs;
    * feature subgraph (feature -> feature): bold dark blue arcs.

    Within each kind the line width grows with ``weight``. Bridge and
    feature arcs bend, if that helps, around the nodes they would cross.
    Features without any arc (not selected) are faded.

    Parameters
    ----------
    graph_or_model : nx.DiGraph or fitted model
        An MDBNC: nodes with ``role`` ``"class"`` or ``"feature"``, arcs
        with ``kind`` ``"class-class"``, ``"class-feature"`` or
        ``"feature-feature"`` (see
        :func:`~graphmodels.structures.multidimensional.multidimensional_classifier`),
        or a fitted model whose ``structure_`` is one. Not changed.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the drawing is made if omitted.
    layout : dict, optional
        Node -> ``(x, y)`` covering every node; by default
        :func:`multidimensional_layout`. Class-class arcs between classes
        of one row are arched above it; the other arcs bend around nodes.
    member : hashable, optional
        Draw ``graph_or_model.member_structures_[member]`` of a fitted
        ensemble such as MultiDimensionalAODE (a list index or a dict key)
        instead of its ``structure_``.
    title : str, optional
    legend : bool, default=True
        A legend below the drawing naming the node kinds and the three
        subgraphs, with their numbers of arcs.
    show_weights : bool or {"class-class", "class-feature", "feature-feature"}, default=False
        Write each arc's ``weight`` at its middle; a kind: only on arcs of
        that kind.
    weight_format : str, default=".3f"
        Format spec of those labels.
    node_size : float, optional
        Disc area in points^2 of every node; by default fitted to the room
        per node (class discs to the room per class).
    font_size : float, optional
        Label size in points; by default the largest (at most 10) at which
        the labels fit the room per node.
    max_label_length : int, default=24
        Longer names are truncated with an ellipsis (see
        :func:`~graphmodels.plotting.network.format_label`).
    max_row_width : int, optional
        Most features on one row, passed to :func:`multidimensional_layout`.
        By default, with `ax`, the width at which the feature labels get the
        largest font (and then the nodes the most room) in `ax`; without, the
        default of :func:`multidimensional_layout` and a figure sized to it.
    fade_isolated : bool, default=True
        Draw features without any arc faded.

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Nodes are its one ``PathCollection`` with gid ``"nodes"`` (offsets
        in graph order), labelled by texts with gid ``"label"`` (graph
        order); each arc is a ``FancyArrowPatch`` with gid
        ``"edge:class-class"``, ``"edge:class-feature"`` or
        ``"edge:feature-feature"``; weights are texts with gid ``"weight"``.

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model, `layout`
        is neither None nor a dict, `member` is given for an object without
        ``member_structures_``, or `legend` or `fade_isolated` is not a bool.
    ValueError
        If the graph is not an MDBNC, `layout` misses a node, `member` is
        unknown, `show_weights` is not a bool or an arc kind,
        `max_row_width` is not a positive integer, or `node_size` or
        `font_size` is not a positive number.

    See Also
    --------
    multidimensional_layout : the positions.
    graphmodels.plotting.draw_network : dispatches here for MDBNCs and models fitted with one.
    graphmodels.plotting.to_dot : Graphviz text, arcs coloured by kind as here.

    References
    ----------
    .. [1] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *International Journal of
           Approximate Reasoning*, 52(6), 705-727.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures.multidimensional import multidimensional_classifier
    >>> g = multidimensional_classifier(
    ...     ["C1", "C2"], ["a", "b", "c"], [("C1", "C2"), ("C1", "a"), ("C2", "b"), ("a", "b")])
    >>> ax = draw_multidimensional(g, Figure().subplots())
    >>> sorted(p.get_gid() for p in ax.patches)
    ['edge:class-class', 'edge:class-feature', 'edge:class-feature', 'edge:feature-feature']
    >>> [t.get_text() for t in ax.get_legend().get_texts()][-3:]
    ['class subgraph (1 arc)', 'bridge subgraph (2 arcs)', 'feature subgraph (1 arc)']
    """
    graph = _as_mdbnc(graph_or_model, member)
    _check_bool(legend, "legend")
    _check_bool(fade_isolated, "fade_isolated")
    weight_kinds = _weight_kinds(show_weights)
    _check_max_row_width(max_row_width)
    _check_positive(node_size, "node_size")
    _check_positive(font_size, "font_size")
    if isinstance(layout, dict):
        missing = [n for n in graph.nodes if n not in layout]
        if missing:
            raise ValueError(f"`layout` has no position for {len(missing)} node(s), e.g. {missing[0]!r}.")
        pos = {n: (float(layout[n][0]), float(layout[n][1])) for n in graph.nodes}
    elif layout is None:
        if max_row_width is None and ax is not None:
            texts = [format_label(n, max_label_length) for n, r in graph.nodes(data="role") if r == "feature"]
            max_row_width = _row_width_for(graph, ax, texts, legend)
        pos = multidimensional_layout(graph, max_row_width=max_row_width)
    else:
        raise TypeError(f"`layout` must be None or a dict of positions, got {type(layout).__name__}.")

    nodes = list(graph.nodes)
    roles = [graph.nodes[n]["role"] for n in nodes]
    isolated = [graph.degree(n) == 0 and r == "feature" for n, r in zip(nodes, roles)]
    edges = list(graph.edges(data=True))
    xy = np.array([pos[n] for n in nodes], dtype=float)
    slot_x, slot_y = _slots(xy)
    class_xy = [pos[n] for n, r in zip(nodes, roles) if r == "class"]
    heights = _arch_heights(edges, pos, class_xy, 0.65 * slot_y)
    arch = max([h for h in heights if h is not None] + [0.0])

    x0, x1 = xy[:, 0].min() - _PAD * slot_x, xy[:, 0].max() + _PAD * slot_x
    y0, y1 = xy[:, 1].min() - _PAD * slot_y, xy[:, 1].max() + max(_PAD * slot_y, arch + 0.2 * slot_y)
    if ax is None:
        import matplotlib.pyplot as plt

        scale = 0.75 / min(slot_x, slot_y)  # inches per data unit
        title_band = 0.45 if title is not None else 0.0
        legend_band = 0.9 if legend else 0.0
        width = float(np.clip(scale * (x1 - x0) + 0.2, 5.0, 30.0))
        height = float(np.clip(scale * (y1 - y0) + 0.2 + legend_band + title_band, 3.0, 20.0))
        figure = plt.figure(figsize=(width, height))
        ax = figure.add_axes((0.01, 0.01, 0.98, 0.98 - title_band / height))
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    bottom = y0

    labels = [format_label(n, max_label_length) for n in nodes]
    feature_labels = [t for t, r in zip(labels, roles) if r == "feature"] or labels
    class_labels = [t for t, r in zip(labels, roles) if r == "class"]

    handles, ncol = [], 1
    counts = {kind: sum(1 for *_, d in edges if d.get("kind") == kind) for kind in ARC_KINDS}
    if legend:
        ppx, ppy = _points_per_unit(ax)
        guess = font_size if font_size is not None else _label_font(feature_labels, slot_x * ppx, slot_y * ppy)
        legend_font = float(np.clip(guess, 7.0, 9.0))
        node_handles, arc_handles = _legend_handles(counts, set(roles), sum(isolated), fade_isolated, 0.9 * legend_font)
        axes_w, axes_h = ppx * (x1 - x0), ppy * (y1 - y0)
        handles, ncol, band = _legend_layout(node_handles, arc_handles, axes_w, legend_font)
        band = min(band, 0.45 * axes_h)
        y0 -= band * (y1 - y0) / (axes_h - band)  # room below the nodes for the legend
        ax.set_ylim(y0, y1)

    # Sizes, in points, from the room per node.
    ppx, ppy = _points_per_unit(ax)
    room_x, room_y = slot_x * ppx, slot_y * ppy
    xs = sorted(x for x, _ in class_xy)
    class_room_x = max(min(np.diff(xs)) * ppx if len(xs) > 1 else (x1 - x0) * ppx, room_x)
    font = float(font_size) if font_size is not None else _label_font(feature_labels, room_x, room_y)
    class_font = float(font_size) if font_size is not None else _label_font(class_labels, class_room_x, room_y)
    if node_size is not None:
        feature_d = class_d = math.sqrt(float(node_size))
    else:
        feature_d = _diameter(feature_labels, font, room_x, room_y)
        class_d = max(_diameter(class_labels, class_font, class_room_x, room_y), feature_d)
    radius = {n: (class_d if r == "class" else feature_d) / 2 for n, r in zip(nodes, roles)}

    # Nodes: one collection in graph order, features without arcs faded.
    collection = scatter_nodes(ax, xy, roles, [radius[n] ** 2 * 4 for n in nodes], gid="nodes")
    if fade_isolated and any(isolated):
        faces = np.array(collection.get_facecolor())
        outlines = np.array(collection.get_edgecolor())
        faces[isolated, 3] = _FADED
        outlines[isolated, 3] = _FADED
        # An (n, 4) RGBA array, as get_facecolor returns it; matplotlib's stubs list only tuples and sequences.
        collection.set_facecolor(faces)  # type: ignore[arg-type]
        collection.set_edgecolor(outlines)  # type: ignore[arg-type]
    for label, (x, y), role, faded in zip(labels, xy, roles, isolated):
        ax.text(
            x,
            y,
            label,
            ha="center",
            va="center",
            fontsize=class_font if role == "class" else font,
            fontweight="bold" if role == "class" else "normal",
            linespacing=1.0,
            zorder=4,
            gid="label",
            color="#7a7a7a" if faded and fade_isolated else "black",
        )

    # Arcs.
    index = {n: i for i, n in enumerate(nodes)}
    aspect = ppx / ppy
    screen = xy * [1.0, 1.0 / aspect]  # x units, equally long on screen both ways
    clearance = max(1.3 * feature_d / 2 / ppx, 0.2 * slot_x)
    bounds = ((x0, x1), (bottom / aspect, y1 / aspect))  # not into the legend
    feature_ys = [y for (_, y), r in zip(xy, roles) if r == "feature"]
    # Feature arcs stay below the class row (some way above the first feature row at most).
    feature_bounds = ((x0, x1), (bottom / aspect, (max(feature_ys + [bottom]) + 0.5 * slot_y) / aspect))
    thickness = float(np.clip(min(room_x, room_y) / 40.0, 0.45, 1.0))  # thinner arcs in a crowded drawing
    ranges = {kind: tuple(thickness * w for w in style["widths"]) for kind, style in ARC_STYLES.items()}
    widths = _edge_widths(edges, ranges, kind_of=lambda data: data["kind"])
    many_bridges = counts["class-feature"] > 40
    for (u, v, data), width, height in zip(edges, widths, heights):
        kind, style = data["kind"], ARC_STYLES[data["kind"]]
        (ux, uy), (vx, vy) = pos[u], pos[v]
        if height is not None:
            # Control point over the middle, 2 * height above the row: on screen, rad * |dx| points.
            rad = -2 * height * ppy / ((vx - ux) * ppx)
        else:
            others = np.delete(screen, [index[u], index[v]], axis=0)
            rad = _bend(
                screen[index[u]],
                screen[index[v]],
                others,
                clearance,
                feature_bounds if kind == "feature-feature" else bounds,
            )
        ax.add_patch(
            FancyArrowPatch(
                (ux, uy),
                (vx, vy),
                arrowstyle="-|>",
                mutation_scale=7 + 1.5 * width,
                shrinkA=radius[u] + 1,
                shrinkB=radius[v] + 1,
                linewidth=width,
                linestyle=style["linestyle"],
                color=KIND_COLORS[kind],
                alpha=0.35 if kind == "class-feature" and many_bridges else style["alpha"],
                connectionstyle=NodeArc(rad=rad),
                zorder=style["zorder"],
                gid=f"edge:{kind}",
            )
        )
        weight = data.get("weight")
        if kind in weight_kinds and _is_number(weight):
            mid = ((ux + vx) / 2 + rad * (vy - uy) / 2 / aspect, (uy + vy) / 2 - rad * (vx - ux) / 2 * aspect)
            ax.text(
                mid[0],
                mid[1],
                format(float(weight), weight_format),
                ha="center",
                va="center",
                fontsize=max(font - 1.5, 4.0),
                color=KIND_COLORS[kind],
                zorder=5,
                gid="weight",
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
            )

    if handles:
        ax.legend(
            handles=handles,
            loc="lower center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=ncol,
            frameon=False,
            fontsize=legend_font,
            handlelength=2.2,
            columnspacing=1.5,
            borderaxespad=0.2,
        )
    return ax
