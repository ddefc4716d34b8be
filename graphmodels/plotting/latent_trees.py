"""Drawing of hierarchical naive Bayes models: the latent tree, optionally with its states.

:func:`draw_latent_tree` draws the latent tree of a hierarchical naive Bayes
classifier (Langseth & Nielsen, 2006) top down: the class at the top, its
children (attributes and latent variables) on the row below, each latent's
children below it, and so on, each parent centred over its children.
Attributes are discs, as in :func:`~graphmodels.plotting.draw_network`;
latent variables are rounded boxes labelled with their name and number of
states, and optionally with the child configurations behind each state.
:func:`latent_tree_layout` gives the positions.

The layout is computed in units of the font size (ems) from the measured
size of every label, so boxes never overlap however long their state
listings are; the drawing is then scaled to the axes (or the figure is
sized to the drawing).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ..data.discretize import is_interval_label
from ..models.hierarchical_nb import HierarchicalNaiveBayes
from ._common import (
    _LINESPACING,
    KIND_COLORS,
    ROLE_COLORS,
    NodeArc,
    _check_bool,
    _measure,
    _role,
    format_label,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.base import BaseModel

__all__ = ["draw_latent_tree", "latent_tree_layout"]

#: Outline of a latent box and colour of latent-to-child arcs.
LATENT_EDGE_COLOR = "#6d597a"

_FONT = 9.0  # default label size (points) of a new figure
_STATE_SCALE = 0.85  # state listings, relative to the labels
_LEGEND_SCALE = 0.9
_H_GAP = 1.2  # ems between neighbouring shapes of one row
_V_GAP = 2.8  # ems between rows
_PAD = 0.5  # ems inside a latent box
_MARGIN = 0.5  # ems around the drawing
_WRAP = 60  # characters per line of a state listing
_MAX_FIGURE = (30.0, 20.0)  # inches


# ---------------------------------------------------------------------------
# Input


def _as_latent_tree(tree_or_model):
    """``(tree, root)`` of a latent tree or a fitted model, with its shape checked."""
    if isinstance(tree_or_model, nx.Graph):
        tree = tree_or_model
    elif isinstance(tree_or_model, HierarchicalNaiveBayes) and not hasattr(tree_or_model, "structure_"):
        tree_or_model._check_fitted()  # NotFittedError, as for every graphmodels model
    elif isinstance(getattr(tree_or_model, "structure_", None), nx.Graph):
        tree = tree_or_model.structure_
    elif hasattr(tree_or_model, "fit"):
        raise TypeError(
            f"Expected a latent tree (networkx.DiGraph) or a fitted model with one as `structure_`, "
            f"got an unfitted {type(tree_or_model).__name__}; call `fit` first."
        )
    else:
        raise TypeError(
            "Expected a latent tree (networkx.DiGraph) or a fitted HierarchicalNaiveBayes, "
            f"got {type(tree_or_model).__name__}."
        )
    if not tree.is_directed() or tree.is_multigraph():
        raise TypeError(f"A latent tree is a networkx.DiGraph (arcs parent -> child), got {type(tree).__name__}.")
    roots = [n for n, role in tree.nodes(data="role") if role == "class"]
    if len(roots) != 1:
        raise ValueError(
            f"A latent tree has exactly one node with role 'class' (its root), found {len(roots)}"
            + (f": {roots}." if roots else "; set `role='class'` on the class node.")
        )
    root = roots[0]
    if tree.in_degree(root):
        raise ValueError(f"The class {root!r} must be the root of the latent tree, but it has a parent.")
    for node in tree.nodes:
        if node != root and tree.in_degree(node) != 1:
            raise ValueError(
                f"A latent tree gives every node but the class exactly one parent; {node!r} has {tree.in_degree(node)}."
            )
    if not nx.is_arborescence(tree):
        raise ValueError(f"The latent tree is not a tree rooted at the class {root!r}: it has a cycle.")
    return tree, root


def _check_max_configurations(value):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`max_configurations` must be a positive integer or None, got {value!r}.")
    return int(value)


# ---------------------------------------------------------------------------
# Texts


def _n_states(data):
    cardinality = data.get("cardinality")
    if cardinality is None and data.get("states") is not None:
        cardinality = len(data["states"])
    return cardinality


def latent_label(name: Hashable, data: Mapping[str, Any]) -> str:
    """The label of a latent node: its name and number of states.

    Examples
    --------
    >>> latent_label("L1", {"cardinality": 3})
    'L1 (3 states)'
    >>> latent_label("L2", {"states": [[(0, 0)]]})
    'L2 (1 state)'
    """
    k = _n_states(data)
    if k is None:
        return str(name)
    return f"{name} ({int(k)} state{'' if int(k) == 1 else 's'})"


def state_lines(tree: nx.DiGraph, node: Hashable, max_configurations: int | None = 4) -> list[str]:
    """One line per state of latent `node`: the child configurations behind it.

    Parameters
    ----------
    tree : networkx.DiGraph
        A latent tree; `node` carries ``children`` and ``states``.
    node : hashable
    max_configurations : int or None, default=4
        Configurations shown per state; the rest are counted, ``"... (+k)"``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from graphmodels.structures import add_latent, naive_bayes_tree
    >>> tree = add_latent(naive_bayes_tree("C", ["a", "b"]), "L", ["a", "b"],
    ...                   [[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
    >>> state_lines(tree, "L", max_configurations=1)
    ['0: a=0,b=0 | ... (+1)', '1: a=0,b=1 | ... (+1)']
    """
    data = tree.nodes[node]
    states = data.get("states")
    if states is None:
        return ["(states not recorded)"]
    children = tuple(data.get("children", tuple(tree.successors(node))))
    lines = []
    for s, configurations in enumerate(states):
        configurations = list(configurations)
        shown = configurations if max_configurations is None else configurations[:max_configurations]
        parts = [
            # ", " between children when an interval label (itself holding a comma) is among them
            (", " if any(is_interval_label(v) for v in config) else ",").join(
                _state_text(child, value) for child, value in zip(children, config)
            )
            for config in shown
        ]
        if len(configurations) > len(shown):
            parts.append(f"... (+{len(configurations) - len(shown)})")
        lines.append(f"{s}: " + (" | ".join(parts) if parts else "(none)"))
    return lines


def _state_text(child, value):
    """``child=value``, or ``petal length in (2.45, 4.75]`` for a discretized child's interval."""
    return f"{child} in {value}" if is_interval_label(value) else f"{child}={value}"


def _wrapped(lines, width=_WRAP):
    """Lines longer than `width` characters broken after ``" | "`` into lines of even length.

    Continuation lines are indented past the state number.
    """
    out = []
    for line in lines:
        head, sep, rest = line.partition(": ")
        if not sep or len(line) <= width:
            out.append(line)
            continue
        parts = rest.split(" | ")
        indent = " " * (len(head) + 2 + len(head) // 2)
        n_lines = math.ceil(len(line) / width)
        for limit in range(math.ceil(len(line) / n_lines), len(line) + 1):  # the most even split
            broken, current = [], f"{head}: {parts[0]}"
            for part in parts[1:]:
                if len(current) + 3 + len(part) > limit:
                    broken.append(current + " |")
                    current = indent + part
                else:
                    current += " | " + part
            broken.append(current)
            if len(broken) <= n_lines:
                break
        out.extend(broken)
    return out


# ---------------------------------------------------------------------------
# Layout


def _ordered_children(tree, root):
    """Children of every node, ordered by the first attribute below them (graph order)."""
    order = {node: i for i, node in enumerate(tree.nodes)}
    first = {}
    for node in nx.dfs_postorder_nodes(tree, root):
        below = [first[child] for child in tree.successors(node)]
        first[node] = min(below) if below else order[node]
    return {node: sorted(tree.successors(node), key=lambda c: (first[c], order[c])) for node in tree.nodes}


def _tidy_x(root, children, width, gap):
    """x of every node: subtrees packed left to right by their contours, parents centred.

    A contour is, per depth below a subtree's root, the leftmost and
    rightmost extent of its shapes; a subtree is moved right until it clears
    the subtrees already placed by `gap` at every depth they share.
    """

    def place(node):
        half = width[node] / 2
        kids = children[node]
        if not kids:
            return {node: 0.0}, [(-half, half)]
        offsets, contour, shifts = {}, [], []
        for kid in kids:
            kid_offsets, kid_contour = place(kid)
            shift = max(
                (right - left + gap for (_, right), (left, _) in zip(contour, kid_contour)),
                default=0.0,
            )
            shifts.append(shift)
            offsets.update({n: x + shift for n, x in kid_offsets.items()})
            for depth, (left, right) in enumerate(kid_contour):
                if depth < len(contour):
                    contour[depth] = (min(contour[depth][0], left + shift), max(contour[depth][1], right + shift))
                else:
                    contour.append((left + shift, right + shift))
        centre = (shifts[0] + shifts[-1]) / 2
        offsets = {n: x - centre for n, x in offsets.items()}
        offsets[node] = 0.0
        return offsets, [(-half, half)] + [(left - centre, right - centre) for left, right in contour]

    offsets, contour = place(root)
    left = min(low for low, _ in contour)
    return {n: x - left for n, x in offsets.items()}


def _geometry(tree, root, show_states, max_configurations):
    """Shapes, texts and positions of every node, in ems of the label font.

    Returns a dict of node -> dict with ``role``, ``label``, ``states``
    (text or None), ``size`` (width, height), ``header`` (height of the
    label line of a latent box) and ``xy``; plus the disc diameter.
    """
    children = _ordered_children(tree, root)
    nodes = {}
    for node, data in tree.nodes(data=True):
        role = _role(data)
        if role == "latent":
            label = latent_label(node, data)
            w, h = _measure(label, "bold")
            states = "\n".join(_wrapped(state_lines(tree, node, max_configurations))) if show_states else None
            if states:
                sw, sh = _measure(states)
                w, body = max(w, _STATE_SCALE * sw), h + 0.45 + _STATE_SCALE * sh
            else:
                body = h
            nodes[node] = {
                "role": role,
                "label": label,
                "states": states,
                "header": h,
                "size": (w + 2 * _PAD, body + 2 * _PAD * 0.7),
            }
        else:
            label = format_label(node)
            text = _measure(label, "bold" if role == "class" else "normal")
            nodes[node] = {"role": role, "label": label, "states": None, "text": text}
    diameter = max([math.hypot(*n["text"]) + 0.5 for n in nodes.values() if "text" in n] + [2.4])
    for n in nodes.values():
        if "text" in n:
            n["size"] = (diameter, diameter)

    depth = nx.shortest_path_length(tree, root)
    heights = {}
    for node, d in depth.items():
        heights[d] = max(heights.get(d, 0.0), nodes[node]["size"][1])
    row_y, top = {}, 0.0
    for d in sorted(heights):
        row_y[d] = top - heights[d] / 2
        top -= heights[d] + _V_GAP
    x = _tidy_x(root, children, {n: nodes[n]["size"][0] for n in nodes}, _H_GAP)
    for node in tree.nodes:
        nodes[node]["xy"] = (float(x[node]), float(row_y[depth[node]]))
    return nodes, diameter


def latent_tree_layout(
    tree_or_model: nx.DiGraph | BaseModel, *, show_states: bool = False, max_configurations: int | None = 4
) -> dict[Any, tuple[float, float]]:
    """Positions of the nodes of a latent tree as drawn by :func:`draw_latent_tree`.

    The class is at the top centre of its subtree; every node's children
    are on the row below it, ordered by the first attribute (in graph
    order) beneath them, packed as tightly as their shapes allow, with each
    parent centred over its first and last child. Attributes stay at their
    own depth: an attribute that is a child of the class is on the second
    row.

    Parameters
    ----------
    tree_or_model : networkx.DiGraph or fitted HierarchicalNaiveBayes
    show_states : bool, default=False
        Make room for the state listing of each latent box.
    max_configurations : int or None, default=4
        Child configurations listed per state.

    Returns
    -------
    dict
        Node -> ``(x, y)`` in units of the label font size (ems); the
        leftmost shape touches ``x = 0``, the top row is centred at
        ``y = -height / 2`` and y decreases downwards.

    Raises
    ------
    TypeError, ValueError
        As :func:`draw_latent_tree`.

    Examples
    --------
    >>> from graphmodels.structures import add_latent, naive_bayes_tree
    >>> tree = add_latent(naive_bayes_tree("C", ["a", "b", "c"]), "L", ["a", "b"],
    ...                   [[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
    >>> pos = latent_tree_layout(tree)
    >>> pos["C"][1] > pos["L"][1] > pos["a"][1], pos["a"][1] == pos["b"][1]
    (True, True)
    >>> bool(pos["a"][0] < pos["L"][0] < pos["b"][0])
    True
    """
    tree, root = _as_latent_tree(tree_or_model)
    _check_bool(show_states, "show_states")
    nodes, _ = _geometry(tree, root, show_states, _check_max_configurations(max_configurations))
    return {node: nodes[node]["xy"] for node in tree.nodes}


# ---------------------------------------------------------------------------
# Drawing


def _boundary(node, towards):
    """Point where the line from `node`'s centre towards `towards` leaves its shape."""
    x, y = node["xy"]
    dx, dy = towards[0] - x, towards[1] - y
    length = math.hypot(dx, dy)
    if length == 0:
        return x, y
    ux, uy = dx / length, dy / length
    w, h = node["size"]
    if node["role"] == "latent":
        t = min(w / 2 / abs(ux) if ux else math.inf, h / 2 / abs(uy) if uy else math.inf)
    else:
        t = w / 2
    return x + t * ux, y + t * uy


def _legend_entries(roles, kinds, font, show_states):
    entries = []
    disc = {"linestyle": "", "marker": "o", "markersize": font, "markeredgecolor": "#4d4d4d"}
    if "class" in roles:
        entries.append(
            Line2D(
                [], [], markerfacecolor=ROLE_COLORS["class"], label="class", **{**disc, "markeredgecolor": "#5a3e1b"}
            )
        )
    if "feature" in roles:
        entries.append(Line2D([], [], markerfacecolor=ROLE_COLORS["feature"], label="attribute", **disc))
    if "other" in roles:
        entries.append(Line2D([], [], markerfacecolor=ROLE_COLORS["other"], label="other", **disc))
    if "latent" in roles:
        entries.append(
            Line2D(
                [],
                [],
                linestyle="",
                marker="s",
                markersize=1.1 * font,
                markerfacecolor=ROLE_COLORS["latent"],
                markeredgecolor=LATENT_EDGE_COLOR,
                label="latent variable",
            )
        )
    if "class" in kinds:
        entries.append(Line2D([], [], color=KIND_COLORS["class"], linestyle="--", label="class \u2192 child"))
    if "latent" in kinds:
        entries.append(Line2D([], [], color=LATENT_EDGE_COLOR, linewidth=1.5, label="latent \u2192 child"))
    if show_states and "latent" in roles:
        entries.append(Line2D([], [], linestyle="", label="k: the child values that\nmake up latent state k"))
    return entries


def draw_latent_tree(
    tree_or_model: nx.DiGraph | BaseModel,
    *,
    ax: Axes | None = None,
    show_states: bool = False,
    max_configurations: int | None = 4,
    title: str | None = None,
    legend: bool = True,
    font_size: float | None = None,
) -> Axes:
    """Draw a hierarchical naive Bayes model: class on top, latent tree below.

    The class is the root; below it are its children, attributes (discs)
    and latent variables (rounded boxes, labelled ``"L1 (3 states)"``),
    and below each latent its own children, down to the attributes, which
    stay at their depth. Arcs from the class are dashed and grey, arcs from
    a latent to its children solid and purple. A latent is a deterministic
    function of its children (Langseth & Nielsen [1]_): with `show_states`
    its box also lists, for each of its states, the child configurations
    that it stands for, e.g. ``"0: attr1=1,attr2=1 | attr1=2,attr2=2"``; a
    latent child's value is its state number, as listed in its own box.

    Parameters
    ----------
    tree_or_model : networkx.DiGraph or fitted HierarchicalNaiveBayes
        A latent tree (see :mod:`graphmodels.structures.latent_trees`):
        arcs parent -> child, one node with ``role="class"`` at the root,
        latent nodes with ``role="latent"``, ``cardinality`` and (for
        `show_states`) ``children`` and ``states``; or a fitted model whose
        ``structure_`` is one, such as
        :class:`~graphmodels.HierarchicalNaiveBayes` (naive Bayes, a
        latent tree without latents, is drawn too).
    ax : matplotlib.axes.Axes, optional
        Where to draw; the drawing is scaled to fit it. A new figure sized
        to the drawing is made if omitted.
    show_states : bool, default=False
        List the child configurations behind each state inside each
        latent box.
    max_configurations : int or None, default=4
        Configurations listed per state; the others are counted as
        ``"... (+k)"``. None lists all.
    title : str, optional
    legend : bool, default=True
        Explain the shapes and arcs, to the right of the tree.
    font_size : float, optional
        Label size in points (state listings are 85% of it). Default: 9
        for a new figure; with `ax`, the largest size (at most 10) at which
        the drawing fits.

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        The class and attributes are its ``PathCollection`` with gid
        ``"nodes"`` (offsets in graph order, latents left out); each
        latent is a ``FancyBboxPatch`` with gid ``"latent_box"`` and a text
        with gid ``"latent"`` (its label), in graph order; with
        `show_states`, a text with gid ``"states"`` per latent. Class and
        attribute labels are texts with gid ``"label"``. Arcs are
        ``FancyArrowPatch`` es with gid ``"edge:class"`` (from the class)
        or ``"edge:latent"``.

    Raises
    ------
    TypeError
        If `tree_or_model` is neither a directed graph nor a fitted model,
        or `show_states` or `legend` is not a bool (an unfitted
        HierarchicalNaiveBayes raises NotFittedError).
    ValueError
        If the graph has no node or several with role ``"class"``, is not
        a tree rooted at the class, `max_configurations` is not a
        positive integer or None, or `font_size` not a positive number.

    See Also
    --------
    latent_tree_layout : the positions.
    draw_network : dispatches here for latent trees and HNB models.
    graphmodels.structures.add_latent

    References
    ----------
    .. [1] Langseth, H., & Nielsen, T. D. (2006). Classification using
           hierarchical naive Bayes models. *Machine Learning*, 63(2),
           135-159.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures import add_latent, naive_bayes_tree
    >>> tree = add_latent(naive_bayes_tree("C", ["a", "b", "c"]), "L", ["a", "b"],
    ...                   [[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
    >>> ax = draw_latent_tree(tree, ax=Figure().subplots(), show_states=True)
    >>> [t.get_text() for t in ax.texts if t.get_gid() in ("latent", "states")]
    ['L (2 states)', '0: a=0,b=0 | a=1,b=1\\n1: a=0,b=1 | a=1,b=0']
    """
    tree, root = _as_latent_tree(tree_or_model)
    _check_bool(show_states, "show_states")
    _check_bool(legend, "legend")
    max_configurations = _check_max_configurations(max_configurations)
    if font_size is not None and (
        not isinstance(font_size, numbers.Real)
        or isinstance(font_size, bool)
        or not math.isfinite(font_size)
        or font_size <= 0
    ):
        raise ValueError(f"`font_size` must be a positive number, got {font_size!r}.")

    nodes, diameter = _geometry(tree, root, show_states, max_configurations)
    edges = list(tree.edges)
    kinds = {"class" if u == root else "latent" for u, _ in edges}
    roles = {n["role"] for n in nodes.values()}

    boxes = np.array(
        [
            (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            for (x, y), (w, h) in ((n["xy"], n["size"]) for n in nodes.values())
        ]
    )
    low = boxes[:, :2].min(axis=0) - _MARGIN
    high = boxes[:, 2:].max(axis=0) + _MARGIN
    entries = _legend_entries(roles, kinds, _FONT, show_states) if legend else []
    if entries:
        sizes = [_measure(e.get_label()) for e in entries]
        legend_width = _LEGEND_SCALE * (max(w for w, _ in sizes) + 3.2) + 1.0
        legend_height = _LEGEND_SCALE * sum(max(h, 1.2) + 0.55 for _, h in sizes) + 0.5
        legend_at = (high[0] + 0.5, high[1] - _MARGIN)
        high[0] += legend_width
        low[1] = min(low[1], high[1] - legend_height - _MARGIN)
    extent = high - low

    if ax is None:
        import matplotlib.pyplot as plt

        font = _FONT if font_size is None else float(font_size)
        title_band = 0.45 if title is not None else 0.0  # inches
        font = min(font, _MAX_FIGURE[0] * 72 / extent[0], (_MAX_FIGURE[1] - title_band) * 72 / extent[1])
        width, height = extent[0] * font / 72, extent[1] * font / 72 + title_band
        figure = plt.figure(figsize=(width, height))
        ax = figure.add_axes((0.0, 0.0, 1.0, 1.0 - title_band / height))
    else:
        bbox = ax.get_position()
        # A SubFigure's Axes has no get_size_inches: unsupported here, as before.
        fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
        # 5% to spare: a constrained or tight layout may yet shrink the axes a little.
        fit = 0.95 * min(bbox.width * fig_w * 72 / extent[0], bbox.height * fig_h * 72 / extent[1])
        font = min(10.0, fit) if font_size is None else float(font_size)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)

    # Limits at `font` points per em along both axes, the drawing centred.
    bbox = ax.get_position()
    # A SubFigure's Axes has no get_size_inches: unsupported here, as before.
    fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
    half = np.array([bbox.width * fig_w, bbox.height * fig_h]) * 72 / font / 2
    centre = (low + high) / 2
    ax.set_xlim(centre[0] - half[0], centre[0] + half[0])
    ax.set_ylim(centre[1] - half[1], centre[1] + half[1])
    ax.set_aspect("equal", adjustable="box")  # discs and fonts are in points, boxes in data units

    # Arcs, from shape boundary to shape boundary.
    for u, v in edges:
        kind = "class" if u == root else "latent"
        start = _boundary(nodes[u], nodes[v]["xy"])
        end = _boundary(nodes[v], nodes[u]["xy"])
        ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=0.9 * font + 2,
                shrinkA=0.0,
                shrinkB=1.0,
                connectionstyle=NodeArc(rad=0.0),
                linewidth=1.0 if kind == "class" else 1.5,
                linestyle="--" if kind == "class" else "-",
                color=KIND_COLORS["class"] if kind == "class" else LATENT_EDGE_COLOR,
                alpha=0.8 if kind == "class" else 0.95,
                zorder=1,
                gid=f"edge:{kind}",
            )
        )

    # Class and attributes: discs.
    plain = [n for n in tree.nodes if nodes[n]["role"] != "latent"]
    xy = np.array([nodes[n]["xy"] for n in plain], dtype=float).reshape(-1, 2)
    scatter_nodes(ax, xy, [nodes[n]["role"] for n in plain], (diameter * font) ** 2, gid="nodes")
    for node, (x, y) in zip(plain, xy):
        ax.text(
            x,
            y,
            nodes[node]["label"],
            ha="center",
            va="center",
            fontsize=font,
            linespacing=_LINESPACING,
            fontweight="bold" if nodes[node]["role"] == "class" else "normal",
            zorder=4,
            gid="label",
        )

    # Latents: boxes with their label on top, then the states.
    for node in tree.nodes:
        n = nodes[node]
        if n["role"] != "latent":
            continue
        (x, y), (w, h) = n["xy"], n["size"]
        ax.add_patch(
            FancyBboxPatch(
                (x - w / 2, y - h / 2),
                w,
                h,
                boxstyle="round,pad=0,rounding_size=0.5",
                facecolor=ROLE_COLORS["latent"],
                edgecolor=LATENT_EDGE_COLOR,
                linewidth=1.3,
                zorder=3,
                gid="latent_box",
            )
        )
        if n["states"] is None:
            ax.text(
                x, y, n["label"], ha="center", va="center", fontsize=font, fontweight="bold", zorder=4, gid="latent"
            )
            continue
        top = y + h / 2 - 0.7 * _PAD
        ax.text(x, top, n["label"], ha="center", va="top", fontsize=font, fontweight="bold", zorder=4, gid="latent")
        rule = top - n["header"] - 0.2
        ax.plot([x - w / 2, x + w / 2], [rule, rule], color=LATENT_EDGE_COLOR, linewidth=0.8, zorder=4, gid="rule")
        ax.text(
            x - w / 2 + _PAD,
            rule - 0.25,
            n["states"],
            ha="left",
            va="top",
            fontsize=_STATE_SCALE * font,
            linespacing=_LINESPACING,
            zorder=4,
            gid="states",
        )

    if entries:
        ax.legend(
            handles=_legend_entries(roles, kinds, font, show_states),
            loc="upper left",
            bbox_to_anchor=legend_at,
            bbox_transform=ax.transData,
            fontsize=_LEGEND_SCALE * font,
            frameon=False,
            borderaxespad=0.0,
            borderpad=0.0,
            handlelength=2.2,
        )
    return ax
