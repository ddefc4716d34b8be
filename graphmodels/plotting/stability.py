"""Drawings of structure stability and of the difference of two structures.

:func:`draw_stability` draws the union of refitted structures
(:func:`graphmodels.evaluation.edge_stability`, R bnlearn's ``strength.plot``): each arc or
edge as wide and as opaque as it is frequent, the consensus (frequency >= threshold) dark and
the rest grey, an arrowhead only where the refits agree on the direction; hyperedges and
regions as shaded hulls, opaque as they are frequent. :func:`draw_structure_difference` draws
:func:`graphmodels.structures.structure_difference` on one layout of both structures (pyAgrum's
``showBNDiff``): shared items grey, items of one structure only in its colour, reversed arcs
dashed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch, PathPatch
from matplotlib.path import Path

from ..structures.comparison import EdgeStability, StructureDifference
from ._common import (
    KIND_COLORS,
    ROLE_COLORS,
    NodeArc,
    _bend,
    _check_bool,
    _frame,
    _points_per_unit,
    _role,
    _sizes,
    _spacing,
    format_label,
    hyperedge_outline,
    network_layout,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_stability", "draw_structure_difference", "DIFFERENCE_COLORS"]

#: Colour of the consensus items (frequency >= threshold) and of the others.
CONSENSUS_COLOR = "#1d3557"
BELOW_COLOR = "#8d99ae"
#: Colour of the consensus hyperedges and regions, shaded beneath their pairs.
HULL_COLOR = "#2a9d3f"

#: Colours of the statuses of :func:`draw_structure_difference`.
DIFFERENCE_COLORS = {
    "shared": "#8d8d8d",
    "only_a": "#1f5fbf",
    "only_b": "#e07a00",
    "reversed": "#7b2cbf",
    "reoriented": "#c9184a",
}


# ---------------------------------------------------------------------------- shared pieces
def _node_label(node, max_length=24):
    """A node's label; a latent node named by the observed variables below it shows them in brackets."""
    if isinstance(node, frozenset):
        return format_label("[" + ",".join(sorted(str(v) for v in node)) + "]", max_length)
    return format_label(node, max_length)


def _drawn_nodes(graph, kind, class_name):
    """The nodes drawn: all, except for regions the class (in every region, as in draw_interactions)."""
    if kind == "regions" and class_name is not None:
        return [n for n in graph.nodes if n != class_name]
    return list(graph.nodes)


def _positions(graph, nodes, kind, layout):
    if isinstance(layout, Mapping):
        missing = [n for n in nodes if n not in layout]
        if missing:
            raise ValueError(f"`layout` has no position for {len(missing)} node(s), e.g. {missing[0]!r}.")
        return {n: (float(layout[n][0]), float(layout[n][1])) for n in nodes}
    if layout is not None and not isinstance(layout, str):
        raise TypeError(f"`layout` must be None, a method name or a dict of positions, got {type(layout).__name__}.")
    sub = graph.subgraph(nodes)
    if layout is None and kind in ("hyperedges", "regions"):
        layout = "kamada_kawai"
    return network_layout(sub, layout) if nodes else {}


def _new_axes(xy, legend):
    import matplotlib.pyplot as plt

    if len(xy):
        spread = np.ptp(xy, axis=0) / _spacing(xy)
        width = float(np.clip(1.3 * (spread[0] + 1.6), 4.5, 24.0)) + (2.4 if legend else 0.0)
        height = float(np.clip(1.15 * (spread[1] + 1.6), 3.0, 18.0))
    else:
        width, height = 4.0, 3.0
    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def _setup(ax, graph, kind, class_name, layout, node_size, font_size, legend, labels, title):
    """Axes, positions, node sizes: what both drawings share. Returns a dict of the pieces."""
    _check_bool(labels, "labels")
    _check_bool(legend, "legend")
    nodes = _drawn_nodes(graph, kind, class_name)
    pos = _positions(graph, nodes, kind, layout)
    xy = np.array([pos[n] for n in nodes], dtype=float).reshape(-1, 2)
    if ax is None:
        ax = _new_axes(xy, legend)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not nodes:
        return None, ax
    spacing = _spacing(xy)
    equal = kind in ("hyperedges", "regions")  # hulls are round
    ppu_x, ppu_y = _frame(ax, xy, 0.7 * spacing, equal=equal)
    texts = [_node_label(n) for n in nodes] if labels else []
    if node_size is None:
        node_size = float(np.clip(0.45 * spacing * min(ppu_x, ppu_y), 8.0, 56.0)) ** 2
    node_size, font_size = _sizes(spacing, min(ppu_x, ppu_y), texts, node_size, font_size)
    roles = [_role(graph.nodes[n]) for n in nodes]
    scatter_nodes(ax, xy, roles, node_size, gid="nodes")
    for text, (x, y), role in zip(texts, xy, roles):
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=font_size,
            fontweight="bold" if role == "class" else "normal",
            linespacing=1.0,
            zorder=4,
            gid="label",
        )
    radius_points = math.sqrt(node_size) / 2
    return {
        "nodes": nodes,
        "pos": pos,
        "xy": xy,
        "index": {n: i for i, n in enumerate(nodes)},
        "spacing": spacing,
        "ppu": (ppu_x, ppu_y),
        "radius_points": radius_points,
        "radius": radius_points / min(ppu_x, ppu_y),
        "font_size": font_size,
        "equal": equal,
    }, ax


def _settle(ax, frame):
    """Let a layout engine place the axes (beside an outside legend), then measure the scale again.

    Lines are bent and hulls padded in screen units: with the scale measured before the
    legend took its room, the bends of long arcs would leave the axes.
    """
    figure = getattr(ax.figure, "figure", ax.figure)  # the root figure of a subfigure
    if figure.get_layout_engine() is not None:
        figure.draw_without_rendering()
    ppu_x, ppu_y = _points_per_unit(ax)
    if frame["equal"]:
        ppu_x = ppu_y = min(ppu_x, ppu_y)
    frame["ppu"] = (ppu_x, ppu_y)
    frame["radius"] = frame["radius_points"] / min(ppu_x, ppu_y)


def _add_line(ax, frame, u, v, *, directed, arrow, width, color, alpha, linestyle, gid, label, zorder):
    """One arc or edge from `u` to `v`, bent around other nodes, ending on the node discs."""
    pos, index = frame["pos"], frame["index"]
    ppu_x, ppu_y = frame["ppu"]
    screen = frame["xy"] * [1.0, ppu_y / ppu_x]  # x units, equally long on screen both ways
    others = np.delete(screen, [index[u], index[v]], axis=0)
    clearance = max(1.3 * frame["radius_points"] / ppu_x, 0.2)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    bounds = ((x0, x1), (y0 * ppu_y / ppu_x, y1 * ppu_y / ppu_x))  # bends stay within the axes
    rad = _bend(screen[index[u]], screen[index[v]], others, clearance, bounds) if u != v else 0.0
    patch = FancyArrowPatch(
        pos[u],
        pos[v],
        arrowstyle="-|>" if directed and arrow else "-",
        mutation_scale=8 + 1.5 * width,
        shrinkA=frame["radius_points"] + 1,
        shrinkB=frame["radius_points"] + 1,
        linewidth=width,
        linestyle=linestyle,
        color=color,
        alpha=alpha,
        connectionstyle=NodeArc(rad=rad),
        zorder=zorder,
        gid=gid,
        label=label,
    )
    patch.set_in_layout(False)  # the limits are set from the nodes
    ax.add_artist(patch)
    return patch, rad


def _midpoint(frame, u, v, rad):
    """Middle of the arc3 curve from `u` to `v` (for a label)."""
    (ux, uy), (vx, vy) = frame["pos"][u], frame["pos"][v]
    ppu_x, ppu_y = frame["ppu"]
    aspect = ppu_x / ppu_y
    return (ux + vx) / 2 + rad * (vy - uy) / 2 / aspect, (uy + vy) / 2 - rad * (vx - ux) / 2 * aspect


def _add_hull(ax, frame, members, *, pad, facecolor, edgecolor, linewidth, linestyle, zorder, gid, label):
    outline = hyperedge_outline([frame["pos"][v] for v in members], pad)
    patch = PathPatch(
        Path(np.vstack([outline, outline[:1]]), closed=True),
        facecolor=facecolor,
        edgecolor=edgecolor,
        linewidth=linewidth,
        linestyle=linestyle,
        zorder=zorder,
        gid=gid,
        label=label,
    )
    ax.add_patch(patch)
    return patch


def _fit_hulls(ax, frame):
    """Widen the limits to the hulls (their pads reach past the nodes)."""
    vertices = [p.get_path().vertices for p in ax.patches if (p.get_gid() or "").startswith("hull")]
    if not vertices:
        return
    points = np.vstack(vertices)
    margin = 0.1 * frame["spacing"]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    ax.set_xlim(min(x0, points[:, 0].min() - margin), max(x1, points[:, 0].max() + margin))
    ax.set_ylim(min(y0, points[:, 1].min() - margin), max(y1, points[:, 1].max() + margin))


def _members(item, frame, class_name):
    """The drawn members of a hyperedge or region (the class left out of a region)."""
    return [v for v in sorted(item, key=lambda v: frame["index"].get(v, -1)) if v != class_name and v in frame["pos"]]


def _role_handles(graph, nodes):
    names = {"class": "class", "feature": "attribute", "latent": "latent", "other": "other"}
    roles = {_role(graph.nodes[n]) for n in nodes}
    return [
        Line2D(
            [],
            [],
            linestyle="",
            marker="o",
            markersize=9,
            markerfacecolor=ROLE_COLORS[role],
            markeredgecolor="#4d4d4d",
            label=names[role],
        )
        for role in ("class", "feature", "latent", "other")
        if role in roles
    ]


def _legend(ax, handles, title, font_size):
    ax.legend(
        handles=handles,
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
        fontsize=max(font_size, 8.0),
        title_fontsize=max(font_size, 8.0),
        handlelength=2.6,
        alignment="left",
    )


def _check_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise ValueError(f"`{name}` must be a number in [0, 1], got {value!r}.")
    return float(value)


# ---------------------------------------------------------------------------- stability
def draw_stability(
    result: EdgeStability,
    ax: Axes | None = None,
    *,
    threshold: float | None = None,
    layout: str | dict[Any, Any] | None = None,
    labels: bool = True,
    edge_labels: bool = False,
    direction_threshold: float = 0.75,
    min_frequency: float = 0.0,
    max_width: float = 6.0,
    node_size: float | None = None,
    font_size: float | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw the union of refitted structures, each item as wide and opaque as it is frequent.

    R bnlearn's ``strength.plot`` for :func:`~graphmodels.evaluation.edge_stability`:

    * arcs and edges: one line per pair of nodes joined in some refit, its width growing from
      0.5 to `max_width` points and its opacity from 0.15 to 1 with its frequency. The
      consensus (frequency >= `threshold`) is dark blue and solid, the rest grey and dashed;
      class arcs (``kind="class"``) are grey whatever their frequency, as in
      :func:`~graphmodels.plotting.draw_graph`. An arc has an arrowhead only where at least
      `direction_threshold` of the refits that have it orient it this way (its ``direction``):
      a line without one is an arc whose direction the data do not settle;
    * hyperedges and regions: the pairs of variables they join, as lines drawn the same way
      (a pair's frequency is that of the refits with one item holding both), and the
      consensus items (:meth:`~graphmodels.structures.EdgeStability.consensus`) shaded green
      beneath them (see :func:`draw_hyperforest`). The class, which is in every region of a
      Kikuchi-Bayes model, is left out as in :func:`draw_interactions`, so that a consensus
      region of one attribute and the class is a ring around the attribute. The frequency of
      every item is in ``result.frequencies``.

    Parameters
    ----------
    result : EdgeStability
        From :func:`~graphmodels.evaluation.edge_stability` or
        :func:`~graphmodels.structures.structure_frequencies`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the layout is made if omitted.
    threshold : float, optional
        In [0, 1]; defaults to ``result.threshold``.
    layout : str or dict, optional
        A method of :func:`~graphmodels.plotting.network_layout` applied to the union graph
        (default: ``"layered"`` for arcs, ``"kamada_kawai"`` otherwise), or node -> ``(x, y)``
        such as :func:`~graphmodels.plotting.grid_layout` gives.
    labels : bool, default=True
        Write the node names (a latent node as its observed variables in brackets).
    edge_labels : bool, default=False
        Write each line's frequency at its middle (arcs and edges).
    direction_threshold : float, default=0.75
        Smallest ``direction`` (in [0.5, 1]) that earns an arc its arrowhead.
    min_frequency : float, default=0.0
        Items less frequent than this are not drawn (say 0.05, for a figure of a large model).
    max_width : float, default=6.0
        Line width (points) of an item present in every refit.
    node_size, font_size : float, optional
        Marker area (points^2) and label size (points); fitted to the spacing by default.
    legend : bool, default=True
        Right of the axes: widths by frequency, the consensus, the arrowheads, the roles.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Nodes are a ``PathCollection`` with gid ``"nodes"``; each arc, edge or pair a
        ``FancyArrowPatch`` with gid ``"edge:consensus"``, ``"edge:below"`` or
        ``"edge:class"`` and label ``"u -> v: frequency"`` (``"u - v: ..."`` for pairs),
        drawn in the order of ``result.graph.edges``; each consensus hyperedge or region a
        ``PathPatch`` with gid ``"hull:consensus"``, in the order of
        ``result.consensus(threshold)``.

    Raises
    ------
    TypeError
        If `result` is not an EdgeStability, or `layout` is neither a name nor a dict.
    ValueError
        For a `threshold`, `direction_threshold` or `min_frequency` outside [0, 1], a
        `max_width` <= 0, an unknown layout name or a layout dict missing a node.

    See Also
    --------
    graphmodels.evaluation.edge_stability, draw_structure_difference

    Examples
    --------
    >>> import networkx as nx
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures import structure_frequencies
    >>> fits = [nx.DiGraph([("a", "b"), ("b", "c")]), nx.DiGraph([("a", "b")]), nx.DiGraph([("a", "b"), ("c", "b")])]
    >>> ax = draw_stability(structure_frequencies(fits), Figure().subplots(), threshold=0.9)
    >>> [(p.get_gid(), p.get_label()) for p in ax.patches]  # b - c: in 2 of 3 refits, once each way
    [('edge:consensus', 'a -> b: 1'), ('edge:below', 'b -> c: 0.667')]
    """
    if not isinstance(result, EdgeStability):
        raise TypeError(
            f"Expected an EdgeStability (from edge_stability or structure_frequencies), got {type(result).__name__}."
        )
    threshold = result.threshold if threshold is None else _check_fraction(threshold, "threshold")
    direction_threshold = _check_fraction(direction_threshold, "direction_threshold")
    min_frequency = _check_fraction(min_frequency, "min_frequency")
    _check_bool(edge_labels, "edge_labels")
    if isinstance(max_width, bool) or not isinstance(max_width, numbers.Real) or not max_width > 0:
        raise ValueError(f"`max_width` must be a number > 0, got {max_width!r}.")
    graph, kind = result.graph, result.kind
    frame, ax = _setup(ax, graph, kind, result.class_name, layout, node_size, font_size, legend, labels, title)
    if frame is None:
        return ax

    if legend:
        _stability_legend(ax, result, threshold, direction_threshold, max_width, frame)
    _settle(ax, frame)

    def width(f):
        return 0.5 + (float(max_width) - 0.5) * f

    def alpha(f):
        return 0.15 + 0.85 * f

    if kind in ("arcs", "edges"):
        for u, v, data in graph.edges(data=True):
            f = float(data["frequency"])
            if f < min_frequency:
                continue
            consensus = f >= threshold - 1e-12
            is_class = data.get("kind") == "class"
            status = "class" if is_class else "consensus" if consensus else "below"
            color = KIND_COLORS["class"] if is_class else CONSENSUS_COLOR if consensus else BELOW_COLOR
            _, rad = _add_line(
                ax,
                frame,
                u,
                v,
                directed=graph.is_directed(),
                arrow=float(data.get("direction", 1.0)) >= direction_threshold - 1e-12,
                width=0.6 + 1.4 * f if is_class else width(f),  # class arcs thin, as in draw_graph
                color=color,
                alpha=0.3 + 0.4 * f if is_class else alpha(f),
                linestyle="-" if consensus and not is_class else "--",
                gid=f"edge:{status}",
                label=f"{u} -> {v}: {f:.3g}",
                zorder=2 if consensus else 1,
            )
            if edge_labels:
                x, y = _midpoint(frame, u, v, rad)
                ax.text(
                    x,
                    y,
                    f"{f:.2f}",
                    ha="center",
                    va="center",
                    fontsize=max(frame["font_size"] - 1.5, 5.0),
                    color=color,
                    zorder=5,
                    gid="edge-label",
                    bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
                )
    else:
        # The pairs of variables that one item holds, as lines by frequency; the consensus items
        # shaded beneath them (an item of one drawn variable, a region of one attribute and the
        # class, as a ring).
        for u, v, data in graph.edges(data=True):
            f = float(data["frequency"])
            if f < min_frequency or u not in frame["pos"] or v not in frame["pos"]:
                continue
            consensus = f >= threshold - 1e-12
            _add_line(
                ax,
                frame,
                u,
                v,
                directed=False,
                arrow=False,
                width=width(f),
                color=CONSENSUS_COLOR if consensus else BELOW_COLOR,
                alpha=alpha(f),
                linestyle="-" if consensus else "--",
                gid=f"edge:{'consensus' if consensus else 'below'}",
                label=f"{u} - {v}: {f:.3g}",
                zorder=2 if consensus else 1,
            )
        kept = result.consensus(threshold)
        for rank, item in enumerate(kept):
            members = _members(item, frame, result.class_name)
            if not members:
                continue
            f = float(result.frequencies[item])
            _add_hull(
                ax,
                frame,
                members,
                pad=1.25 * frame["radius"] + 0.05 * frame["spacing"] * (1 + rank % 3),
                facecolor=to_rgba(HULL_COLOR, 0.12 + 0.18 * f),
                edgecolor=to_rgba(HULL_COLOR, 0.9),
                linewidth=1.0 + 1.5 * f,
                linestyle="-",
                zorder=0.5,
                gid="hull:consensus",
                label=",".join(str(v) for v in sorted(item, key=str)) + f": {f:.3g}",
            )
        _fit_hulls(ax, frame)

    return ax


def _stability_legend(ax, result, threshold, direction_threshold, max_width, frame):
    line = result.kind in ("arcs", "edges")
    handles = []
    for f in (1.0, 0.5, 0.25):
        w = 0.5 + (float(max_width) - 0.5) * f
        handles.append(Line2D([], [], color=CONSENSUS_COLOR, linewidth=w, alpha=0.15 + 0.85 * f, label=f"in {f:.0%}"))
    handles.append(Line2D([], [], color=CONSENSUS_COLOR, linewidth=2.5, label=f"consensus (>= {threshold:.2g})"))
    handles.append(Line2D([], [], color=BELOW_COLOR, linewidth=2.5, linestyle="--", label="below"))
    if result.kind == "arcs":
        handles.append(
            Line2D([], [], linestyle="", label=f"arrowhead: direction in\n>= {direction_threshold:.0%} of its refits")
        )
    if not line:
        handles.append(
            Patch(facecolor=to_rgba(HULL_COLOR, 0.25), edgecolor=HULL_COLOR, label=f"consensus {result.kind[:-1]}")
        )
    if result.kind == "regions" and result.class_name is not None:
        handles.append(Line2D([], [], linestyle="", label=f"every region holds\nthe class {result.class_name!r}"))
    handles += _role_handles(result.graph, frame["nodes"])
    how = f" ({result.method})" if result.method else ""
    _legend(ax, handles, f"{result.kind.capitalize()} of {result.n_resamples} refits{how}", frame["font_size"])


# ---------------------------------------------------------------------------- difference
def draw_structure_difference(
    difference: StructureDifference,
    ax: Axes | None = None,
    *,
    layout: str | dict[Any, Any] | None = None,
    labels: bool = True,
    colors: Mapping[str, Any] | None = None,
    node_size: float | None = None,
    font_size: float | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw two structures at once, on one layout: shared, only in one of them, reversed.

    pyAgrum's ``showBNDiff`` for :func:`~graphmodels.structures.structure_difference`: the
    nodes of both structures are laid out once (the union graph), and each arc, edge,
    hyperedge or region is drawn by its status:

    * shared: solid grey;
    * only in `a` (``difference.labels[0]``): solid blue; only in `b`: solid orange;
    * reversed (arcs of both, opposite ways): dashed purple, the arrowhead as in `a`.

    Hyperedges and regions are shaded hulls in these colours (the class left out of the
    regions, as in :func:`draw_interactions`).

    Parameters
    ----------
    difference : StructureDifference
    ax : matplotlib.axes.Axes, optional
    layout : str or dict, optional
        As for :func:`draw_stability`; the same dict for several drawings keeps their nodes in
        place.
    labels : bool, default=True
    colors : dict, optional
        Status -> colour, overriding :data:`DIFFERENCE_COLORS` (``"shared"``, ``"only_a"``,
        ``"only_b"``, ``"reversed"``).
    node_size, font_size : float, optional
    legend : bool, default=True
        Right of the axes: each status with its count, named by ``difference.labels``.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Each arc or edge a ``FancyArrowPatch``, each hyperedge or region a ``PathPatch``, with
        gid ``"diff:<status>"`` and the item as label.

    Raises
    ------
    TypeError
        If `difference` is not a StructureDifference, `colors` not a dict or `layout` neither a
        name nor a dict.
    ValueError
        For an unknown status in `colors`, an unknown layout name or a layout dict missing a
        node.

    See Also
    --------
    graphmodels.structures.structure_difference, draw_stability

    Examples
    --------
    >>> import networkx as nx
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures import structure_difference
    >>> a = nx.DiGraph([("a", "b"), ("b", "c")])
    >>> b = nx.DiGraph([("b", "a"), ("b", "d")])
    >>> ax = draw_structure_difference(structure_difference(a, b), Figure().subplots())
    >>> sorted(p.get_gid() for p in ax.patches)
    ['diff:only_a', 'diff:only_b', 'diff:reversed']
    """
    if not isinstance(difference, StructureDifference):
        raise TypeError(f"Expected a StructureDifference (from structure_difference), got {type(difference).__name__}.")
    palette = dict(DIFFERENCE_COLORS)
    if colors is not None:
        if not isinstance(colors, Mapping):
            raise TypeError(f"`colors` must be a dict status -> colour, got {type(colors).__name__}.")
        unknown = [k for k in colors if k not in palette]
        if unknown:
            raise ValueError(f"`colors` has an unknown status {unknown[0]!r}; valid: {list(palette)}.")
        palette.update(colors)
    graph, kind = difference.graph, difference.kind
    frame, ax = _setup(ax, graph, kind, difference.class_name, layout, node_size, font_size, legend, labels, title)
    if frame is None:
        return ax
    if legend:
        _difference_legend(ax, difference, palette, frame)
    _settle(ax, frame)
    if kind in ("arcs", "edges"):
        for u, v, data in graph.edges(data=True):
            status = data["status"]
            _add_line(
                ax,
                frame,
                u,
                v,
                directed=graph.is_directed() and data.get("directed", True),
                arrow=True,
                width=1.4 if status == "shared" else 2.2,
                color=palette[status],
                alpha=0.8 if status == "shared" else 0.95,
                linestyle="--" if status == "reversed" else "-",
                gid=f"diff:{status}",
                label=f"{u} -> {v}" if graph.is_directed() else f"{u} - {v}",
                zorder=1 if status == "shared" else 2,
            )
    else:
        rank = 0
        for status in ("shared", "only_a", "only_b"):
            for item in sorted(getattr(difference, status), key=lambda h: (-len(h), sorted(map(str, h)))):
                members = _members(item, frame, difference.class_name)
                if not members:
                    continue
                _add_hull(
                    ax,
                    frame,
                    members,
                    pad=1.25 * frame["radius"] + 0.05 * frame["spacing"] * (1 + rank % 3),
                    facecolor=to_rgba(palette[status], 0.18),
                    edgecolor=to_rgba(palette[status], 0.95),
                    linewidth=1.2 if status == "shared" else 2.0,
                    linestyle="-",
                    zorder=1 if status == "shared" else 1.5,
                    gid=f"diff:{status}",
                    label=",".join(str(v) for v in sorted(item, key=str)),
                )
                rank += 1
        _fit_hulls(ax, frame)
    return ax


def _difference_legend(ax, difference, palette, frame):
    a, b = difference.labels
    counts = difference.counts
    names = {
        "shared": "shared",
        "only_a": f"only in {a}",
        "only_b": f"only in {b}",
        "reversed": "reversed",
        "reoriented": "arc in one,\nundirected in the other",
    }
    line = difference.kind in ("arcs", "edges")
    handles: list[Any] = []
    for status in ("shared", "only_a", "only_b", "reversed", "reoriented"):
        if status == "reversed" and difference.kind != "arcs":
            continue
        if status == "reoriented" and not difference.reoriented:
            continue
        text = f"{names[status]}: {counts[status]}"
        if status == "reversed":
            text += f"\n(arrowhead as in {a})"
        if line:
            handles.append(
                Line2D(
                    [],
                    [],
                    color=palette[status],
                    linewidth=1.4 if status == "shared" else 2.2,
                    linestyle="--" if status == "reversed" else "-",
                    label=text,
                )
            )
        else:
            handles.append(Patch(facecolor=to_rgba(palette[status], 0.18), edgecolor=palette[status], label=text))
    if difference.kind == "regions" and difference.class_name is not None:
        handles.append(Line2D([], [], linestyle="", label=f"every region holds\nthe class {difference.class_name!r}"))
    handles += _role_handles(difference.graph, frame["nodes"])
    _legend(ax, handles, f"{difference.kind.capitalize()}: {a} vs {b}", frame["font_size"])
