"""Drawing of network structures with matplotlib.

:func:`draw_graph` draws any networkx graph or a fitted model's
``structure_``; :func:`network_layout` (in ``_common``) computes the
deterministic positions it uses. Classifiers are drawn with the class at the top and the attribute
forest below it as a layered tree; undirected graphs with a Kamada-Kawai
layout.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch
from matplotlib.transforms import TransformedPatchPath

from ._common import (
    FADED_ALPHA,
    FADED_WIDTH,
    KIND_COLORS,
    LARGE_FIGURE,
    LARGE_GRAPH,
    MIN_FONT_SIZE,
    ROLE_COLORS,
    SLOT_INCHES,
    NodeArc,
    _bend,
    _check_bool,
    _check_top_k,
    _edge_widths,
    _is_number,
    _kind,
    _role,
    _strongest,
    as_graph,
    drawing_positions,
    format_label,  # noqa: F401  (imported from here by callers and tests)
    format_labels,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.base import BaseModel
    from ..structures.hyperforests import Hyperforest

__all__ = ["draw_graph"]


# ---------------------------------------------------------------------------
# Layouts. Coordinates are in "slots": neighbouring nodes of a row are 1 apart,
# rows are 1 apart (y decreases downwards).


# ---------------------------------------------------------------------------
# Labels


# ---------------------------------------------------------------------------
# Drawing


def _auto_sizes(ax, pos, labels):
    """Node size (points^2) and font size that fit the room per node in `ax`.

    The font is as large as the longest label line allows within one slot (at
    most 10 points); the circle grows to hold its label, within the slot.
    """
    xy = np.array(list(pos.values()), dtype=float)
    x_span = xy[:, 0].max() - xy[:, 0].min() + 1.2
    y_span = xy[:, 1].max() - xy[:, 1].min() + 1.2
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    slot_w = bbox.width * fig_w * 72 / x_span
    slot_h = bbox.height * fig_h * 72 / y_span
    chars = max([len(line) for label in labels for line in label.split("\n")] + [3])
    lines = max([label.count("\n") + 1 for label in labels] + [1])
    font = float(np.clip(min(0.88 * slot_w / (0.6 * chars), 0.7 * slot_h / (1.2 * lines)), 4.5, 10.0))
    text = math.hypot(0.6 * font * chars, 1.2 * font * lines)
    diameter = min(max(0.62 * min(slot_w, slot_h), text), 0.92 * slot_w, 0.8 * slot_h, 64.0)
    return max(diameter, 8.0) ** 2, font


def _labels_within_axes(ax, xy, labels, font):
    """For each label, centred on its node (`xy`, data units) in `font` points: whether it stays inside `ax`.

    The limits leave 0.6 of a slot beyond the outermost nodes, so most labels are far from an
    edge. Characters are taken 0.75 em wide, wider than most, so that the answer errs towards
    "no" (a label that is then measured).
    """
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    points_x = bbox.width * fig_w * 72 / (x1 - x0)
    points_y = bbox.height * fig_h * 72 / (y1 - y0)
    chars = np.array([max(len(line) for line in label.split("\n")) for label in labels], dtype=float)
    lines = np.array([label.count("\n") + 1 for label in labels], dtype=float)
    room_x = np.minimum(xy[:, 0] - x0, x1 - xy[:, 0]) * points_x
    room_y = np.minimum(xy[:, 1] - y0, y1 - xy[:, 1]) * points_y
    return (0.75 * font * chars / 2 <= room_x) & (1.2 * font * lines / 2 <= room_y)


def _cut_points_text(cuts: Any, digits: int = 3) -> str:
    """The cut points of a discretized column in a node label: ``"2.45 | 4.75"``.

    Examples
    --------
    >>> _cut_points_text([2.45, 4.75])
    '2.45 | 4.75'
    >>> _cut_points_text([])
    'no cut'
    """
    values = [format(float(c), f".{digits}g") for c in cuts]
    return " | ".join(values) if values else "no cut"


def _cut_points(model):
    """Column -> cut points of a fitted model's discretizer (empty for a graph or no discretizer)."""
    discretizer = getattr(model, "discretizer_", None) if not isinstance(model, nx.Graph) else None
    return dict(getattr(discretizer, "cut_points_", {}) or {})


def draw_graph(
    graph_or_model: nx.Graph | Hyperforest | BaseModel,
    ax: Axes | None = None,
    *,
    layout: str | dict[Any, Any] | None = None,
    node_size: float | None = None,
    font_size: float | None = None,
    show_weights: bool | str = False,
    weight_format: str = ".3f",
    title: str | None = None,
    legend: bool = True,
    max_label_length: int = 24,
    max_row_width: int | None = None,
    show_cut_points: bool = False,
    top_k: int | None = None,
    faded: str = "fade",
) -> Axes:
    """Draw a graph of roles and kinds: class on top, attribute forest below, arcs by kind and weight.

    The generic drawing of Bayesian-network classifiers, Chow-Liu trees and
    Markov networks; :func:`~graphmodels.plotting.draw_network` chooses it, or
    a drawing made for the structure, by type.

    Nodes are filled by ``role`` (class, feature, latent; anything else grey)
    and labelled with their names. Class-to-attribute arcs (``kind="class"``)
    are thin, light and dashed; augmenting arcs (``kind="augmenting"``) bold
    and dark blue; other edges (e.g. of a Chow-Liu tree) solid blue. Within
    each kind the line width grows with ``weight`` (mutual information).

    A large graph (40 nodes or more) drawn with the default layout has its
    layers flowed into rows shaped to the page (the figure's, or `ax`'s), a
    new figure of at most 16 x 12 inches, labels kept distinct (see
    :func:`format_labels`) and at least 5 points (a warning says when they
    would have to be smaller); `top_k` shows its strongest arcs.

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest or fitted model
        A networkx graph (directed or not), a hyperforest (its primal graph
        is drawn) or a fitted model, whose ``structure_`` is drawn.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the graph is made if omitted.
    layout : str or dict, optional
        A method name of :func:`network_layout` (default: ``"layered"`` for
        directed graphs, ``"kamada_kawai"`` for undirected ones), or a dict
        node -> ``(x, y)`` covering every node.
    node_size : float, optional
        Marker area in points^2; by default fitted to the room per node.
        Nodes without a ``role`` are drawn as features.
    font_size : float, optional
        Label size in points; by default fitted to the room per node.
    show_weights : bool or {"class", "augmenting"}, default=False
        Write each edge's ``weight`` at its middle; a kind name: only on
        edges of that kind.
    weight_format : str, default=".3f"
        Format spec of those labels.
    title : str, optional
    legend : bool, default=True
        Show which colour is which role and which line which arc kind.
    max_label_length : int, default=24
        Longer node names are truncated with an ellipsis, so that no two
        labels are alike (see :func:`format_labels`).
    max_row_width : int, optional
        Passed to :func:`network_layout`. For a large graph with the default
        layout: nodes per row of the flowed layers (by default chosen from
        the number of nodes and the shape of the page).
    show_cut_points : bool, default=False
        For a fitted model whose ``discretizer_`` cut numeric columns: a
        second line under each such node with its cut points
        (``2.45 | 4.75``, explained in the legend), so that a figure says
        what the states are.
    top_k : int, optional
        Draw only the `top_k` edges of largest ``weight`` in full and the
        others as `faded` says (edges without a weight rank last, ties in
        graph order); the legend says ``"k strongest of N arcs"``. The class
        arcs of a classifier (``kind="class"``, one from the class to every
        attribute) are one group that is always faded, not ranked, unless
        every edge is a class arc (naive Bayes), when they are ranked. A
        `top_k` of at least the number of ranked edges draws them all in
        full. Weight labels (`show_weights`) are written on full edges only.
    faded : {"fade", "hide"}, default="fade"
        The edges left out by `top_k`: drawn light (alpha 0.15) and thin
        (0.5 points), or not drawn.

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Nodes are its one ``PathCollection`` (gid ``"nodes"``, offsets in
        graph order); each edge is a ``FancyArrowPatch`` with gid
        ``"edge:class"``, ``"edge:augmenting"`` or ``"edge"`` (faded edges
        too, with alpha 0.15).

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.
    ValueError
        For an unknown layout name or a layout dict missing nodes, a `top_k`
        that is not an integer >= 1, or an unknown `faded`.

    Warns
    -----
    UserWarning
        When the labels of a large graph would need a font below 5 points to
        fit: they are drawn at 5 points and may overlap.

    See Also
    --------
    draw_network : chooses this drawing or a structure's own by type.
    network_layout : the positions.
    to_dot, to_graphml : export for Graphviz, Gephi, yEd.

    Examples
    --------
    >>> import networkx as nx
    >>> from matplotlib.figure import Figure
    >>> g = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    >>> nx.set_node_attributes(g, {"C": "class", "a": "feature", "b": "feature"}, "role")
    >>> nx.set_edge_attributes(g, {("C", "a"): "class", ("C", "b"): "class", ("a", "b"): "augmenting"}, "kind")
    >>> ax = draw_graph(g, Figure().subplots())
    >>> len(ax.patches)
    3
    """
    graph = as_graph(graph_or_model)
    top_k = _check_top_k(top_k, faded)
    large = graph.number_of_nodes() >= LARGE_GRAPH
    pos = drawing_positions(graph, layout, max_row_width=max_row_width, ax=ax)

    _check_bool(show_cut_points, "show_cut_points")
    cut_points = {n: c for n, c in _cut_points(graph_or_model).items() if n in graph} if show_cut_points else {}
    if ax is None:
        import matplotlib.pyplot as plt

        if pos:
            xy = np.array(list(pos.values()))
            # Room for the wider labels when cut points are written under the names.
            stretch = 1.45 if cut_points else 1.0
            most = LARGE_FIGURE if large else (30.0, 20.0)
            width = float(np.clip(SLOT_INCHES[0] * stretch * (np.ptp(xy[:, 0]) + 1.6), 5.0, most[0]))
            height = float(np.clip(SLOT_INCHES[1] * stretch * (np.ptp(xy[:, 1]) + 1.6) + 0.6, 3.0, most[1]))
        else:
            width, height = 5.0, 3.0
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")

    ax.set_axis_off()
    if title is not None:
        # At y=1, where matplotlib would place it over axes without ticks, but without measuring the
        # hidden axes' ticks at every drawing to find that out (most of a grid of panels' time).
        ax.set_title(title, y=1.0)
    if not pos:
        return ax

    nodes = list(graph.nodes)
    xy = np.array([pos[n] for n in nodes], dtype=float)
    pad = 0.6
    ax.set_xlim(xy[:, 0].min() - pad, xy[:, 0].max() + pad)
    ax.set_ylim(xy[:, 1].min() - pad, xy[:, 1].max() + pad)
    labels = [
        name + (f"\n{_cut_points_text(cut_points[node])}" if node in cut_points else "")
        for node, name in zip(nodes, format_labels(nodes, max_label_length))
    ]
    auto_size, auto_font = _auto_sizes(ax, pos, labels)
    if large and font_size is None and auto_font < MIN_FONT_SIZE:
        import warnings

        warnings.warn(
            f"The labels of {len(nodes)} nodes need a font below {MIN_FONT_SIZE:g} points to fit; drawn at "
            f"{MIN_FONT_SIZE:g} points, they may overlap. Give a larger `ax` (figure), a smaller "
            "`max_label_length`, or show the strongest arcs only with `top_k`.",
            UserWarning,
            stacklevel=2,
        )
        auto_font = MIN_FONT_SIZE
    node_size = auto_size if node_size is None else float(node_size)
    font_size = auto_font if font_size is None else float(font_size)
    # Labels that stay inside the axes need not be measured by constrained layout (or a tight
    # bounding box): measuring every label took as long as drawing the figure.
    labels_inside = _labels_within_axes(ax, xy, labels, font_size)
    radius = math.sqrt(node_size) / 2

    roles = [_role(data) for _, data in graph.nodes(data=True)]
    scatter_nodes(ax, xy, roles, node_size, gid="nodes")
    # Labels are not clipped (ax.text's default) but ax.text would build each a clip box of the
    # axes all the same: one shared clip path (never used) saves that, a twentieth of a 300-node
    # drawing. Edges, which are clipped, keep the clip box: a clip path costs more in the SVG.
    label_clip = TransformedPatchPath(ax.patch)
    for label, (x, y), role, inside in zip(labels, xy, roles, labels_inside):
        text = ax.text(
            x,
            y,
            label,
            ha="center",
            va="center",
            fontsize=font_size,
            fontweight="bold" if role == "class" else "normal",
            zorder=4,
            linespacing=1.0,
            clip_path=label_clip,
        )
        text.set_in_layout(not inside)

    if graph.is_multigraph():
        edges = [(u, v, data) for u, v, _, data in graph.edges(keys=True, data=True)]
    else:
        edges = list(graph.edges(data=True))
    directed = graph.is_directed()
    index = {node: i for i, node in enumerate(nodes)}
    # A CPDAG's undirected edge (an arc each way) is one line without arrowheads.
    undirected = {(u, v) for u, v, _ in edges if directed and u != v and graph.has_edge(v, u)}
    edges = [(u, v, data) for u, v, data in edges if (u, v) not in undirected or index[u] < index[v]]
    many = len(nodes) > 15
    # Data units -> display units, to place labels on curved edges.
    bbox = ax.get_position()
    # A SubFigure's Axes has no get_size_inches: unsupported here, as before.
    fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    points_per_x = bbox.width * fig_w * 72 / (x1 - x0)
    aspect = points_per_x / (bbox.height * fig_h * 72 / (y1 - y0))
    clearance = max(1.3 * radius / points_per_x, 0.2)
    screen = xy * [1.0, 1.0 / aspect]  # x units, equally long on screen both ways
    bounds = ((x0, x1), (y0 / aspect, y1 / aspect))
    strong, n_ranked = _strongest(
        [data.get("weight") for _, _, data in edges], top_k, [_kind(data) == "class" for _, _, data in edges]
    )
    for (u, v, data), width, full in zip(edges, _edge_widths(edges), strong):
        kind = _kind(data)
        if not full and faded == "hide":
            continue
        others = np.delete(screen, [index[u], index[v]], axis=0)
        rad = _bend(screen[index[u]], screen[index[v]], others, clearance, bounds) if u != v else 0.0
        patch = FancyArrowPatch(
            pos[u],
            pos[v],
            arrowstyle="-|>" if directed and (u, v) not in undirected else "-",
            mutation_scale=(8 + 1.5 * width) if full else 6,
            shrinkA=radius + 1,
            shrinkB=radius + 1,
            linewidth=width if full else FADED_WIDTH,
            linestyle="--" if kind == "class" else "-",
            color=KIND_COLORS[kind],
            alpha=((0.35 if many else 0.55) if kind == "class" else 0.9) if full else FADED_ALPHA,
            connectionstyle=NodeArc(rad=rad),
            zorder=(1 if kind == "class" else 2) if full else 0.5,
            gid="edge" if kind is None else f"edge:{kind}",
        )
        # The limits are set above and an edge lies between its nodes: neither the data limits nor a
        # tight bounding box need the edge's path, which matplotlib would compute (shrinking the arc
        # to the node circles by bisection) once for each. It is drawn once; still in `ax.patches`.
        patch.set_in_layout(False)
        ax.add_artist(patch)
        weight = data.get("weight")
        if full and show_weights and _is_number(weight) and (show_weights is True or show_weights == kind):
            (ux, uy), (vx, vy) = pos[u], pos[v]
            mid = ((ux + vx) / 2 + rad * (vy - uy) / 2 / aspect, (uy + vy) / 2 - rad * (vx - ux) / 2 * aspect)
            ax.text(
                mid[0],
                mid[1],
                format(float(weight), weight_format),
                ha="center",
                va="center",
                fontsize=max(font_size - 1.5, 4.0),
                color=KIND_COLORS[kind],
                zorder=5,
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
            )

    if legend:
        handles = []
        role_labels = {"class": "class", "feature": "attribute", "latent": "latent", "other": "other"}
        for role in ("class", "feature", "latent", "other"):
            if role in roles:
                handles.append(
                    Line2D(
                        [],
                        [],
                        linestyle="",
                        marker="o",
                        markersize=9,
                        markerfacecolor=ROLE_COLORS[role],
                        markeredgecolor="#4d4d4d",
                        label=role_labels[role],
                    )
                )
        kinds = {_kind(data) for _, _, data in edges}
        if "class" in kinds:
            handles.append(Line2D([], [], color=KIND_COLORS["class"], linestyle="--", alpha=0.7, label="class arc"))
        if "augmenting" in kinds:
            handles.append(Line2D([], [], color=KIND_COLORS["augmenting"], linewidth=3, label="augmenting arc"))
        if cut_points:
            handles.append(Line2D([], [], linestyle="", label="a | b: cut points"))
        if top_k is not None:
            shown, what = sum(strong), ("arcs" if directed else "edges")
            note = f"{shown} strongest of {n_ranked} {what} shown"
            if shown < n_ranked:
                note += "; the rest hidden" if faded == "hide" else "; the rest faded"
            if n_ranked < len(edges):
                note += "; class arcs hidden" if faded == "hide" else "; class arcs faded"
            handles.append(
                Line2D([], [], color=KIND_COLORS[None], alpha=FADED_ALPHA, linewidth=FADED_WIDTH, label=note)
            )
        if handles:
            ax.legend(
                handles=handles,
                loc="upper left",
                fontsize=max(font_size - 1, 6.0),
                frameon=False,
                handlelength=2.2,
                borderaxespad=0.0,
            )
    return ax
