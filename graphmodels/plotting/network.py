"""Drawing of network structures with matplotlib.

:func:`draw_network` draws any networkx graph or a fitted model's
``structure_``; :func:`network_layout` computes the deterministic positions it
uses. Classifiers are drawn with the class at the top and the attribute
forest below it as a layered tree; undirected graphs with a Kamada-Kawai
layout.
"""

from __future__ import annotations

import math
import numbers
import re
from collections import deque

import networkx as nx
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch

from .export import KIND_COLORS, ROLE_COLORS, as_graph

__all__ = ["draw_network", "network_layout", "LAYOUTS"]


# ---------------------------------------------------------------------------
# Layouts. Coordinates are in "slots": neighbouring nodes of a row are 1 apart,
# rows are 1 apart (y decreases downwards).


def _auto_row_width(n):
    return max(10, math.ceil(2 * math.sqrt(max(n, 1))))


def _class_nodes(graph):
    return [n for n, role in graph.nodes(data="role") if role == "class"]


def _spanning_forest(graph, nodes, order):
    """BFS forest of the subgraph on `nodes` (arcs followed forwards if directed).

    Returns ``(roots, children)``; roots and children lists are in `order`.
    Directed: the roots are the nodes without a parent, then (for cycles) the
    first node not reached. Undirected: each component is rooted at its first
    node of minimum eccentricity, so trees are as shallow as they can be.
    """
    sub = graph.subgraph(nodes)
    key = order.__getitem__
    children = {n: [] for n in nodes}
    seen, roots = set(), []

    def grow(root):
        roots.append(root)
        seen.add(root)
        queue = deque([root])
        while queue:
            parent = queue.popleft()
            neighbours = sub.successors(parent) if sub.is_directed() else sub.neighbors(parent)
            for child in sorted(neighbours, key=key):
                if child not in seen:
                    seen.add(child)
                    children[parent].append(child)
                    queue.append(child)

    ordered = sorted(nodes, key=key)
    if sub.is_directed():
        for node in ordered:
            if sub.in_degree(node) == 0:
                grow(node)
        for node in ordered:
            if node not in seen:
                grow(node)
    else:
        for component in sorted(nx.connected_components(sub), key=lambda c: min(map(key, c))):
            members = sorted(component, key=key)
            if 2 < len(members) <= 500:
                eccentricity = nx.eccentricity(sub.subgraph(members))
                root = min(members, key=lambda n: (eccentricity[n], key(n)))
            else:
                root = members[0]
            grow(root)
    return roots, children


def _depths(roots, children):
    depth = {}
    for root in roots:
        depth[root] = 0
        stack = [root]
        while stack:
            node = stack.pop()
            for child in children[node]:
                depth[child] = depth[node] + 1
                stack.append(child)
    return depth


def _tidy_positions(roots, children):
    """Leaves one slot apart, left to right; each parent centred over its children."""
    x, next_leaf = {}, 0
    for root in roots:
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if not children[node]:
                x[node] = float(next_leaf)
                next_leaf += 1
            elif done:
                x[node] = (x[children[node][0]] + x[children[node][-1]]) / 2
            else:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(children[node]))
    return x, next_leaf


def _preorder(roots, children):
    out = []
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(children[node]))
    return out


def _wrapped_rows(roots, children, width):
    """Rows by depth, each split into sub-rows of at most `width` nodes.

    Returns a list of rows (lists of nodes in pre-order, so siblings stay
    together and follow their parents).
    """
    depth = _depths(roots, children)
    by_depth = {}
    for node in _preorder(roots, children):
        by_depth.setdefault(depth[node], []).append(node)
    rows = []
    for d in sorted(by_depth):
        row = by_depth[d]
        size = math.ceil(len(row) / math.ceil(len(row) / width))  # balanced sub-rows
        for start in range(0, len(row), size):
            rows.append(row[start : start + size])
    return rows


def _layered(graph, max_row_width=None):
    order = {node: i for i, node in enumerate(graph.nodes)}
    classes = _class_nodes(graph)
    top = classes[:1]
    rest = [n for n in graph.nodes if n not in set(top)]
    width = max_row_width or _auto_row_width(len(rest))
    roots, children = _spanning_forest(graph, rest, order)
    pos = {}
    tidy_x, tidy_width = _tidy_positions(roots, children)
    offset = 1 if top else 0
    if tidy_width <= width:
        depth = _depths(roots, children)
        for node in rest:
            pos[node] = (tidy_x[node], -float(depth[node] + offset))
        span = (0.0, max(tidy_width - 1.0, 0.0))
    else:
        rows = _wrapped_rows(roots, children, width)
        widest = max(len(row) for row in rows)
        for r, row in enumerate(rows):
            # Centre each row; stagger consecutive sub-rows by half a slot so that
            # arcs into a lower row do not run through a node right above it.
            shift = (widest - len(row)) / 2 + (0.25 if r % 2 else -0.25) * (len(row) == widest)
            for i, node in enumerate(row):
                pos[node] = (i + shift, -float(r + offset))
        span = (-0.25, widest - 0.75)
    for node in top:
        pos[node] = ((span[0] + span[1]) / 2, 0.0)
    return pos


def _normalized(pos, edges):
    """Scale raw positions so that the median edge (or nearest-neighbour gap) is 1.5 slots."""
    nodes = list(pos)
    if len(nodes) < 2:
        return {n: (0.0, 0.0) for n in nodes}
    xy = np.array([pos[n] for n in nodes], dtype=float)
    lengths = [math.dist(pos[u], pos[v]) for u, v in edges if u != v]
    if not lengths:
        d = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1))
        d[np.diag_indices_from(d)] = np.inf
        lengths = list(d.min(axis=1))
    scale = 1.5 / max(float(np.median(lengths)), 1e-12)
    xy = (xy - xy.mean(axis=0)) * scale
    return {n: (float(x), float(y)) for n, (x, y) in zip(nodes, xy)}


def _component_packed(graph, layout_one):
    """Lay out each connected component with `layout_one`, then pack them in rows."""
    undirected = graph.to_undirected(as_view=True)
    order = {node: i for i, node in enumerate(graph.nodes)}
    components = sorted(nx.connected_components(undirected), key=lambda c: (-len(c), min(map(order.get, c))))
    pos, x_cursor, y_cursor, row_height = {}, 0.0, 0.0, 0.0
    total = graph.number_of_nodes()
    row_limit = max(4 * math.sqrt(total), 6.0)
    for component in components:
        members = sorted(component, key=order.get)
        sub = undirected.subgraph(members)
        local = _normalized(layout_one(sub) if len(members) > 1 else {members[0]: (0.0, 0.0)}, sub.edges)
        xy = np.array([local[n] for n in members])
        low, high = xy.min(axis=0), xy.max(axis=0)
        w, h = high - low
        if x_cursor > 0 and x_cursor + w > row_limit:
            x_cursor, y_cursor, row_height = 0.0, y_cursor - row_height - 1.0, 0.0
        for n, (x, y) in zip(members, xy):
            pos[n] = (float(x - low[0] + x_cursor), float(y - high[1] + y_cursor))
        x_cursor += w + 1.0
        row_height = max(row_height, h)
    return pos


def _kamada_kawai(graph, max_row_width=None):
    return _component_packed(graph, lambda sub: nx.kamada_kawai_layout(sub, weight=None))


def _spring(graph, max_row_width=None):
    return _component_packed(graph, lambda sub: nx.spring_layout(sub, seed=0, weight=None))


def _circular(graph, max_row_width=None):
    raw = nx.circular_layout(list(graph.nodes))
    return _normalized(raw, list(zip(graph.nodes, list(graph.nodes)[1:])))


#: Layout methods of :func:`network_layout`, by name.
LAYOUTS = {
    "layered": _layered,
    "kamada_kawai": _kamada_kawai,
    "spring": _spring,
    "circular": _circular,
}


def network_layout(graph_or_model, method=None, *, max_row_width=None):
    """Deterministic node positions for :func:`draw_network`.

    Parameters
    ----------
    graph_or_model : nx.Graph or fitted model
        A networkx graph or a fitted model (its ``structure_``).
    method : {"layered", "kamada_kawai", "spring", "circular"}, optional
        Defaults to ``"layered"`` for directed graphs and to
        ``"kamada_kawai"`` for undirected ones.

        * ``"layered"``: the node with ``role="class"`` (if any) at the top
          centre; the other nodes as a layered forest below it, following the
          arcs between them (class arcs ignored): roots on the second row,
          their children on the next, and so on. Nodes are taken in graph
          order. A forest no wider than `max_row_width` leaves is drawn as a
          tidy tree (each parent centred over its children); a wider one (naive
          Bayes on many attributes, say) row by depth, each row wrapped every
          `max_row_width` nodes.
        * ``"kamada_kawai"``, ``"spring"`` (seed 0): each connected component
          on its own, the components packed in rows.
        * ``"circular"``: one circle, in graph order.
    max_row_width : int, optional
        Most nodes on one row of the layered layout; defaults to
        ``max(10, ceil(2 * sqrt(n)))`` for ``n`` nodes.

    Returns
    -------
    dict
        Node -> ``(x, y)``; neighbouring nodes of a row are 1 apart, rows
        are 1 apart and y decreases downwards.

    Raises
    ------
    ValueError
        For an unknown `method`.
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.

    Examples
    --------
    >>> g = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    >>> g.nodes["C"]["role"] = "class"
    >>> network_layout(g)
    {'C': (0.0, 0.0), 'a': (0.0, -1.0), 'b': (0.0, -2.0)}
    """
    graph = as_graph(graph_or_model)
    if method is None:
        method = "layered" if graph.is_directed() else "kamada_kawai"
    if method not in LAYOUTS:
        raise ValueError(f"Unknown layout {method!r}; valid: {sorted(LAYOUTS)}.")
    if max_row_width is not None and (not isinstance(max_row_width, numbers.Integral) or max_row_width < 1):
        raise ValueError(f"`max_row_width` must be a positive integer, got {max_row_width!r}.")
    if graph.number_of_nodes() == 0:
        return {}
    pos = LAYOUTS[method](graph, max_row_width)
    return {node: pos[node] for node in graph.nodes}


# ---------------------------------------------------------------------------
# Labels


def format_label(name, max_length=24, line_length=8):
    """A short label for a node name: ``str``, truncated with an ellipsis, wrapped.

    Lines break after ``-``, ``_``, ``.``, ``/`` and spaces, at most three lines.

    Parameters
    ----------
    name : hashable
    max_length : int, default=24
        Longer names are cut to this many characters, the last being ``…``.
    line_length : int, default=8
        Preferred length of one line.

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_label("middle-middle-square"))
    middle-
    middle-
    square
    >>> format_label("a" * 30)
    'aaaaaaaaaaaaaaaaaaaaaaa…'
    """
    text = " ".join(str(name).split("\n")).replace("\r", " ")
    if len(text) > max_length:
        text = text[: max_length - 1] + "…"
    if len(text) <= line_length:
        return text
    tokens = re.findall(r"[^-_./\s]*[-_./\s]*", text)
    lines, current = [], ""
    for token in filter(None, tokens):
        if current and len(current) + len(token.rstrip()) > line_length:
            lines.append(current)
            current = token
        else:
            current += token
    lines.append(current)
    lines = [line.strip() for line in lines if line.strip()]
    if len(lines) > 3:
        lines = lines[:2] + ["".join(lines[2:])]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Drawing

#: Line width range (points) of each edge ``kind``, scaled by ``weight``.
_WIDTHS = {"class": (0.6, 1.8), "augmenting": (1.4, 5.0), None: (1.0, 4.0)}


def _edge_widths(edges, ranges=_WIDTHS, kind_of=None):
    """Line width of each edge: within its kind's range of `ranges`, growing with ``weight``."""
    kind_of = _kind if kind_of is None else kind_of
    top = {}
    for _, _, data in edges:
        weight = data.get("weight")
        if _is_number(weight) and weight > 0:
            kind = kind_of(data)
            top[kind] = max(top.get(kind, 0.0), float(weight))
    widths = []
    for _, _, data in edges:
        kind, weight = kind_of(data), data.get("weight")
        low, high = ranges[kind]
        if kind in top and _is_number(weight):
            widths.append(low + (high - low) * max(float(weight), 0.0) / top[kind])
        else:
            widths.append((low + high) / 2)
    return widths


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _kind(data):
    kind = data.get("kind")
    return kind if kind in ("class", "augmenting") else None


def _role(data):
    role = data.get("role", "feature")
    return role if role in ("class", "feature", "latent") else "other"


_BENDS = (0.0, 0.15, -0.15, 0.3, -0.3, 0.45, -0.45, 0.6, -0.6)
_T = np.linspace(0.04, 0.96, 24)[:, None]


def _bend(a, b, others, clearance=0.45, bounds=None):
    """``rad`` of an ``arc3`` connection from `a` to `b` that passes the fewest `others`.

    Points are in units that are equally long on screen along x and y.
    Candidates go from straight (0) to a bend of 0.6; the first one (least
    bent) that comes within `clearance` of the fewest other nodes wins, so a
    straight segment is kept whenever bending does not help. Curves leaving
    `bounds` ``((xmin, xmax), (ymin, ymax))`` are not considered.
    """
    if len(others) == 0:
        return 0.0
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    dx, dy = b - a
    best, best_hits = 0.0, None
    for rad in _BENDS:
        # arc3's control point: the middle moved by rad * (dy, -dx).
        control = (a + b) / 2 + rad * np.array([dy, -dx])
        curve = (1 - _T) ** 2 * a + 2 * _T * (1 - _T) * control + _T**2 * b
        if (
            bounds is not None
            and rad != 0
            and (
                curve[:, 0].min() < bounds[0][0]
                or curve[:, 0].max() > bounds[0][1]
                or curve[:, 1].min() < bounds[1][0]
                or curve[:, 1].max() > bounds[1][1]
            )
        ):
            continue
        gaps = np.sqrt(((curve[:, None, :] - others[None, :, :]) ** 2).sum(-1)).min(axis=0)
        hits = int((gaps < clearance).sum())
        if best_hits is None or hits < best_hits:
            best, best_hits = rad, hits
        if hits == 0:
            break
    return best


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


def draw_network(
    graph_or_model,
    ax=None,
    *,
    layout=None,
    node_size=None,
    font_size=None,
    show_weights=False,
    weight_format=".3f",
    title=None,
    legend=True,
    max_label_length=24,
    max_row_width=None,
):
    """Draw a structure: class on top, attribute forest below, arcs by kind and weight.

    Nodes are filled by ``role`` (class, feature, latent; anything else grey)
    and labelled with their names. Class-to-attribute arcs (``kind="class"``)
    are thin, light and dashed; augmenting arcs (``kind="augmenting"``) bold
    and dark blue; other edges (e.g. of a Chow-Liu tree) solid blue. Within
    each kind the line width grows with ``weight`` (mutual information).

    Parameters
    ----------
    graph_or_model : nx.Graph or fitted model
        A networkx graph (directed or not) or a fitted model, whose
        ``structure_`` is drawn. A Kikuchi-Bayes model is drawn as its
        interaction diagram, a region graph as a Hasse diagram and a
        multi-dimensional classifier (MDBNC) with its class, bridge and
        feature subgraphs apart (see
        :func:`~graphmodels.plotting.draw_interactions`,
        :func:`~graphmodels.plotting.draw_region_graph`,
        :func:`~graphmodels.plotting.draw_multidimensional`).
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
        Longer node names are truncated with an ellipsis (see
        :func:`format_label`).
    max_row_width : int, optional
        Passed to :func:`network_layout`.

    Returns
    -------
    matplotlib.axes.Axes
        Nodes are its one ``PathCollection`` (gid ``"nodes"``, offsets in
        graph order); each edge is a ``FancyArrowPatch`` with gid
        ``"edge:class"``, ``"edge:augmenting"`` or ``"edge"``.

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.
    ValueError
        For an unknown layout name or a layout dict missing nodes.

    See Also
    --------
    network_layout : the positions.
    to_dot, to_graphml : export for Graphviz, Gephi, yEd.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> g = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    >>> nx.set_node_attributes(g, {"C": "class", "a": "feature", "b": "feature"}, "role")
    >>> nx.set_edge_attributes(g, {("C", "a"): "class", ("C", "b"): "class", ("a", "b"): "augmenting"}, "kind")
    >>> ax = draw_network(g, Figure().subplots())
    >>> len(ax.patches)
    3
    """
    if hasattr(graph_or_model, "stage_counting_numbers_"):
        # A Kikuchi-Bayes model is a set of regions: its drawing is the interaction diagram.
        from .regions import draw_interactions

        return draw_interactions(
            graph_or_model, layout if isinstance(layout, dict) else None, ax=ax, title=title, legend=legend
        )
    from .latent_trees import _is_latent_tree_input, draw_latent_tree

    if _is_latent_tree_input(graph_or_model):
        # A fitted hierarchical naive Bayes model or a latent tree with latents: class on top, latents as boxes.
        return draw_latent_tree(graph_or_model, ax=ax, title=title, legend=legend)
    graph = as_graph(graph_or_model)
    if graph.number_of_nodes() and all(
        isinstance(n, frozenset) and "counting_number" in d for n, d in graph.nodes(data=True)
    ):
        from .regions import draw_region_graph

        return draw_region_graph(graph, ax=ax, title=title, legend=legend)
    from .multidimensional import _is_multidimensional_input, draw_multidimensional

    if _is_multidimensional_input(graph):
        # A multi-dimensional classifier: classes on top, its class, bridge and feature subgraphs apart.
        if isinstance(layout, str):
            layout = network_layout(graph, layout, max_row_width=max_row_width)
        return draw_multidimensional(
            graph,
            ax,
            layout=layout,
            title=title,
            legend=legend,
            show_weights=show_weights,
            weight_format=weight_format,
            node_size=node_size,
            font_size=font_size,
            max_label_length=max_label_length,
            max_row_width=max_row_width,
        )
    if isinstance(layout, dict):
        missing = [n for n in graph.nodes if n not in layout]
        if missing:
            raise ValueError(f"`layout` has no position for {len(missing)} node(s), e.g. {missing[0]!r}.")
        pos = {n: (float(layout[n][0]), float(layout[n][1])) for n in graph.nodes}
    elif layout is None or isinstance(layout, str):
        pos = network_layout(graph, layout, max_row_width=max_row_width)
    else:
        raise TypeError(f"`layout` must be None, a method name or a dict of positions, got {type(layout).__name__}.")

    if ax is None:
        import matplotlib.pyplot as plt

        if pos:
            xy = np.array(list(pos.values()))
            width = float(np.clip(1.3 * (np.ptp(xy[:, 0]) + 1.6), 5.0, 30.0))
            height = float(np.clip(1.05 * (np.ptp(xy[:, 1]) + 1.6) + 0.6, 3.0, 20.0))
        else:
            width, height = 5.0, 3.0
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")

    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not pos:
        return ax

    nodes = list(graph.nodes)
    xy = np.array([pos[n] for n in nodes], dtype=float)
    pad = 0.6
    ax.set_xlim(xy[:, 0].min() - pad, xy[:, 0].max() + pad)
    ax.set_ylim(xy[:, 1].min() - pad, xy[:, 1].max() + pad)
    labels = [format_label(node, max_label_length) for node in nodes]
    auto_size, auto_font = _auto_sizes(ax, pos, labels)
    node_size = auto_size if node_size is None else float(node_size)
    font_size = auto_font if font_size is None else float(font_size)
    radius = math.sqrt(node_size) / 2

    roles = [_role(data) for _, data in graph.nodes(data=True)]
    scatter_nodes(ax, xy, roles, node_size, gid="nodes")
    for label, (x, y), role in zip(labels, xy, roles):
        ax.text(
            x,
            y,
            label,
            ha="center",
            va="center",
            fontsize=font_size,
            fontweight="bold" if role == "class" else "normal",
            zorder=4,
            linespacing=1.0,
        )

    if graph.is_multigraph():
        edges = [(u, v, data) for u, v, _, data in graph.edges(keys=True, data=True)]
    else:
        edges = list(graph.edges(data=True))
    directed = graph.is_directed()
    index = {node: i for i, node in enumerate(nodes)}
    many = len(nodes) > 15
    # Data units -> display units, to place labels on curved edges.
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    points_per_x = bbox.width * fig_w * 72 / (x1 - x0)
    aspect = points_per_x / (bbox.height * fig_h * 72 / (y1 - y0))
    clearance = max(1.3 * radius / points_per_x, 0.2)
    screen = xy * [1.0, 1.0 / aspect]  # x units, equally long on screen both ways
    bounds = ((x0, x1), (y0 / aspect, y1 / aspect))
    for (u, v, data), width in zip(edges, _edge_widths(edges)):
        kind = _kind(data)
        others = np.delete(screen, [index[u], index[v]], axis=0)
        rad = _bend(screen[index[u]], screen[index[v]], others, clearance, bounds) if u != v else 0.0
        patch = FancyArrowPatch(
            pos[u],
            pos[v],
            arrowstyle="-|>" if directed else "-",
            mutation_scale=8 + 1.5 * width,
            shrinkA=radius + 1,
            shrinkB=radius + 1,
            linewidth=width,
            linestyle="--" if kind == "class" else "-",
            color=KIND_COLORS[kind],
            alpha=(0.35 if many else 0.55) if kind == "class" else 0.9,
            connectionstyle=f"arc3,rad={rad}",
            zorder=1 if kind == "class" else 2,
            gid="edge" if kind is None else f"edge:{kind}",
        )
        ax.add_patch(patch)
        weight = data.get("weight")
        if show_weights and _is_number(weight) and (show_weights is True or show_weights == kind):
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
        labels = {"class": "class", "feature": "attribute", "latent": "latent", "other": "other"}
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
                        label=labels[role],
                    )
                )
        kinds = {_kind(data) for _, _, data in edges}
        if "class" in kinds:
            handles.append(Line2D([], [], color=KIND_COLORS["class"], linestyle="--", alpha=0.7, label="class arc"))
        if "augmenting" in kinds:
            handles.append(Line2D([], [], color=KIND_COLORS["augmenting"], linewidth=3, label="augmenting arc"))
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


def scatter_nodes(ax, xy, roles, node_size, *, gid):
    """Nodes as discs coloured by role, the class outlined (shared by every drawing); returns the collection."""
    return ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=node_size,
        c=[ROLE_COLORS[r] for r in roles],
        edgecolors=["#5a3e1b" if r == "class" else "#4d4d4d" for r in roles],
        linewidths=[1.6 if r == "class" else 0.8 for r in roles],
        zorder=3,
        gid=gid,
    )
