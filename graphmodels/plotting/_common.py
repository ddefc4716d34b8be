"""Shared helpers of the drawings: colours and styles, labels and fonts, layouts, geometry, checks.

Every drawing module of :mod:`graphmodels.plotting` imports its shared pieces from here and
nothing from its sibling drawing modules; this module draws nothing and imports no drawing
module, so the package has no import circle (``tests/test_plotting_layers.py``).
"""

from __future__ import annotations

import json
import math
import numbers
import re
from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.patches import ConnectionStyle
from matplotlib.path import Path

from .._threads import one_blas_thread
from ..models.base import BaseModel
from ..models.kikuchi import KikuchiBayes
from ..structures.hyperforests import Hyperforest

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from numpy.typing import ArrayLike

    from ..models.base import BaseModel

#: Fill colour of each node ``role``, shared with :func:`~graphmodels.plotting.draw_network`.
ROLE_COLORS = {
    "class": "#f4a261",
    "feature": "#a8dadc",
    "latent": "#cdb4db",
    "other": "#e0e0e0",
}


#: Colour of each edge ``kind``; edges without a kind use ``None``'s colour. The last three are the
#: class, bridge and feature subgraphs of a multi-dimensional classifier (MDBNC).
KIND_COLORS = {
    "class": "#8d8d8d",
    "augmenting": "#1d3557",
    None: "#2a6f97",
    "class-class": "#ae2012",
    "class-feature": "#8d8d8d",
    "feature-feature": "#1d3557",
}


#: Edge kinds drawn dashed (arcs from a class to an attribute).
DASHED_KINDS = ("class", "class-feature")


def as_graph(graph_or_model: nx.Graph | Hyperforest | BaseModel) -> nx.Graph:
    """The networkx graph of `graph_or_model`: the graph itself or a model's ``structure_``.

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest, given network or fitted model
        A networkx graph (any subclass), a
        :class:`~graphmodels.structures.Hyperforest`, a given network
        (:class:`~graphmodels.networks.DiscreteBayesianNetwork`: its DAG;
        :class:`~graphmodels.networks.DiscreteMarkovNetwork`: its graph), or an
        object whose ``structure_`` attribute is one of these.

    Returns
    -------
    nx.Graph
        The graph itself, not a copy. A hyperforest gives a new graph: its
        primal graph, with graph attribute ``hyperedges``: the maximal
        hyperedges of two or more nodes as JSON text (lists in node order).

    Raises
    ------
    TypeError
        If `graph_or_model` is neither, or is another library's model that
        is not fitted (an unfitted graphmodels model raises NotFittedError).

    Examples
    --------
    >>> as_graph(nx.path_graph(3)).number_of_nodes()
    3
    >>> as_graph(Hyperforest([("a", "b", "c"), ("c", "d")])).graph
    {'hyperedges': '[["a", "b", "c"], ["c", "d"]]'}
    """
    if isinstance(graph_or_model, nx.Graph):
        return graph_or_model
    if isinstance(graph_or_model, Hyperforest):
        return _primal_with_hyperedges(graph_or_model)
    structure = getattr(graph_or_model, "structure_", None)
    if isinstance(structure, nx.Graph):
        return structure
    if isinstance(structure, Hyperforest):
        return _primal_with_hyperedges(structure)
    if not isinstance(graph_or_model, BaseModel) and hasattr(graph_or_model, "variables"):
        # A given network (DiscreteBayesianNetwork, DiscreteMarkovNetwork): its DAG or Markov graph.
        network = getattr(graph_or_model, "graph", None)
        if isinstance(network, nx.Graph):
            return network
    if isinstance(graph_or_model, BaseModel):
        graph_or_model._check_fitted()  # the contract's NotFittedError for an unfitted graphmodels model
    kind = type(graph_or_model).__name__
    accepted = "a networkx graph, a Hyperforest, a DiscreteBayesianNetwork or a fitted model whose `structure_` is one of these"
    if hasattr(graph_or_model, "fit"):
        raise TypeError(f"Expected {accepted}, got an unfitted {kind}; call fit first.")
    raise TypeError(f"Expected {accepted}, got {kind}.")


def _primal_with_hyperedges(forest):
    graph = forest.primal_graph()
    index = {v: i for i, v in enumerate(forest.nodes)}
    maximal = [sorted(h, key=index.__getitem__) for h in forest.maximal_hyperedges if len(h) > 1]
    graph.graph["hyperedges"] = json.dumps([[_json_item(v) for v in h] for h in maximal], ensure_ascii=False)
    return graph


def _json_item(value):
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return [_json_item(v) for v in value]
    return str(value)


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


def _dag_layers(graph, nodes):
    """Layers of a DAG that is not a forest, or None: each node one row below its lowest parent.

    Arcs between `nodes` decide (a node with two parents or more among them makes the graph
    not a forest); an undirected edge of a CPDAG (both arcs) follows the order of the arcs.
    Returns the rows, top first, each ordered by the barycentre heuristic of Sugiyama, Tagawa
    & Toda (1981): a few sweeps down and up, each node placed at the mean position of its
    neighbours in the row before, so that arcs cross less.
    """
    if not graph.is_directed():
        return None
    sub = graph.subgraph(nodes)
    arcs = [(u, v) for u, v in sub.edges if u != v and not sub.has_edge(v, u)]
    parents_of = [v for _, v in arcs]
    if len(set(parents_of)) == len(parents_of):  # at most one parent each: a forest, drawn as a tidy tree
        return None
    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from(arcs)
    if not nx.is_directed_acyclic_graph(dag):
        return None
    rank = {v: i for i, v in enumerate(nx.lexicographical_topological_sort(dag, key=list(nodes).index))}
    for u, v in sub.edges:
        if sub.has_edge(v, u) and rank[u] < rank[v]:
            dag.add_edge(u, v)  # an undirected edge, drawn down the order of the arcs
    depth = {}
    for v in nx.topological_sort(dag):
        depth[v] = 1 + max((depth[p] for p in dag.predecessors(v)), default=-1)
    order = {v: i for i, v in enumerate(nodes)}
    rows = [sorted((v for v in nodes if depth[v] == d), key=order.__getitem__) for d in range(max(depth.values()) + 1)]
    for sweep in range(4):
        down = sweep % 2 == 0
        sequence = range(1, len(rows)) if down else range(len(rows) - 2, -1, -1)
        for k in sequence:
            reference = rows[k - 1] if down else rows[k + 1]
            where = {v: i / max(len(reference) - 1, 1) for i, v in enumerate(reference)}
            own = {v: i / max(len(rows[k]) - 1, 1) for i, v in enumerate(rows[k])}

            def centre(v, where=where, own=own, down=down):
                linked = [where[u] for u in (dag.predecessors(v) if down else dag.successors(v)) if u in where]
                return (sum(linked) / len(linked) if linked else own[v], own[v])

            rows[k] = sorted(rows[k], key=centre)
    return rows


def _layered(graph, max_row_width=None):
    order = {node: i for i, node in enumerate(graph.nodes)}
    classes = _class_nodes(graph)
    top = classes[:1]
    rest = [n for n in graph.nodes if n not in set(top)]
    width = max_row_width or _auto_row_width(len(rest))
    layers = _dag_layers(graph, rest)
    if layers is not None:
        return _rows_layout(layers, width, top)
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


def _rows_layout(layers, width, top):
    """Positions of layered rows, each wider than `width` split into balanced sub-rows, centred."""
    rows = []
    for layer in layers:
        size = math.ceil(len(layer) / math.ceil(len(layer) / width))
        rows.extend(layer[start : start + size] for start in range(0, len(layer), size))
    widest = max(len(row) for row in rows)
    offset = 1 if top else 0
    pos = {}
    for r, row in enumerate(rows):
        shift = (widest - len(row)) / 2 + (0.25 if r % 2 else -0.25) * (len(row) == widest and len(rows) > 1)
        for i, node in enumerate(row):
            pos[node] = (i + shift, -float(r + offset))
    for node in top:
        pos[node] = ((widest - 1) / 2, 0.0)
    return pos


#: Nodes from which a drawing counts as large: its default layout flows the layers into rows
#: shaped to the page (:func:`_flowed_layered`), its figure is at most :data:`LARGE_FIGURE` inches
#: and its labels are at least :data:`MIN_FONT_SIZE` points.
LARGE_GRAPH = 40

#: Largest figure (width, height in inches) made for a large drawing.
LARGE_FIGURE = (16.0, 12.0)

#: Smallest label size (points) of a large drawing; below it, a warning suggests `top_k` or more room.
MIN_FONT_SIZE = 5.0

#: Inches per slot of a new figure (a row's neighbours are 1 slot apart along x, rows 1 along y).
SLOT_INCHES = (1.3, 1.05)


def _page_row_width(n, aspect):
    """Nodes per row so that `n` nodes in rows fill a page `aspect` (width / height) wide."""
    columns = math.sqrt(max(n, 1) * aspect * SLOT_INCHES[1] / SLOT_INCHES[0])
    return int(min(max(round(columns), 3), max(n, 1)))


def _flowed_layered(graph, width):
    """The layered layout of a large graph, its layers flowed into rows of `width` nodes.

    The nodes are taken layer by layer (as :func:`network_layout`'s ``"layered"``
    orders them: depth in the spanning forest, pre-order within a depth) and
    written row by row like the words of a text, so that a deep tree does not
    make a tall, mostly empty drawing; a parent comes before its children, which
    are on its row or one of the next ones. The class sits above, centred.
    """
    order = {node: i for i, node in enumerate(graph.nodes)}
    top = _class_nodes(graph)[:1]
    rest = [n for n in graph.nodes if n not in set(top)]
    layers = _dag_layers(graph, rest)
    if layers is not None:  # a DAG's layers, in order: every arc goes to a later node
        flow = [node for layer in layers for node in layer]
    else:
        roots, children = _spanning_forest(graph, rest, order)
        depth = _depths(roots, children)
        flow = sorted(_preorder(roots, children), key=depth.__getitem__)  # stable: pre-order within a depth
    width = max(min(int(width), len(flow)), 1)
    offset = 1 if top else 0
    pos = {}
    for k, node in enumerate(flow):
        row, column = divmod(k, width)
        # The last row centred under the others; odd rows shifted by a quarter slot, so that an arc to
        # the row below does not run through the node right under its start.
        in_row = min(width, len(flow) - row * width)
        shift = (width - in_row) / 2 + (0.25 if row % 2 else -0.25)
        pos[node] = (float(column + shift), -float(row + offset))
    for node in top:
        pos[node] = ((width - 1) / 2, 0.0)
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
    # Small dense products: on one BLAS thread (a hand-off between threads costs more on a busy machine).
    with one_blas_thread():
        return _component_packed(graph, _stress_majorization)


#: Iterations of the stress majorization, at most, and the relative decrease of the energy that ends it.
_STRESS_ITERATIONS = 500
_STRESS_TOLERANCE = 1e-4


def _stress_majorization(graph):
    """Kamada-Kawai positions of a connected graph, minimized by stress majorization.

    Kamada and Kawai's energy ``sum_{i<j} (|x_i - x_j| - d_ij)^2 / d_ij^2``, ``d_ij`` the number
    of edges between ``i`` and ``j``, is the stress with weights ``d_ij^-2``; Gansner, Koren and
    North minimize it by majorization (the Guttman transform, which never raises it). The start
    is classical multidimensional scaling of the distances, moved by a tenth of an edge along a
    circle in graph order: nodes with the same distances to every other node (two leaves of one
    parent) would otherwise start, and stay, on one point. Deterministic. On 40 nodes it takes
    about 10 ms where networkx's ``kamada_kawai_layout`` (scipy's L-BFGS-B from a circle) took
    0.04 to 0.8 s (the latter when scipy's BLAS runs several threads on a busy machine), at an
    energy as low or lower (a grid: networkx's; a circle start alone is caught in a fold); on 300
    nodes about 0.15 s.

    References
    ----------
    .. [1] Kamada, T., & Kawai, S. (1989). An algorithm for drawing general undirected graphs.
           Information Processing Letters, 31(1), 7-15.
    .. [2] Gansner, E. R., Koren, Y., & North, S. (2004). Graph drawing by stress majorization.
           Graph Drawing 2004, LNCS 3383, 239-250.
    """
    from scipy.sparse.csgraph import shortest_path

    nodes = list(graph.nodes)
    n = len(nodes)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=None, format="csr")
    distance = shortest_path(adjacency, directed=False, unweighted=True)
    weight = np.zeros_like(distance)
    off = ~np.eye(n, dtype=bool)
    weight[off] = distance[off] ** -2.0
    angle = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    xy = _classical_scaling(distance) + 0.1 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    # The weighted Laplacian's pseudo-inverse (its null space is the constant vector).
    laplacian = -weight
    laplacian[np.diag_indices(n)] = weight.sum(axis=1)
    inverse = np.linalg.inv(laplacian + 1.0 / n) - 1.0 / n
    pull = weight * distance
    previous = None
    for _ in range(_STRESS_ITERATIONS):
        squared = (xy * xy).sum(axis=1)
        apart = np.sqrt(np.maximum(squared[:, None] + squared[None, :] - 2 * xy @ xy.T, 0.0))
        energy = float((weight * (apart - distance) ** 2).sum())
        if previous is not None and previous - energy <= _STRESS_TOLERANCE * previous:
            break
        previous = energy
        with np.errstate(divide="ignore", invalid="ignore"):
            push = np.where(apart > 1e-12, pull / apart, 0.0)
        push[np.diag_indices(n)] = -push.sum(axis=1)
        xy = inverse @ (-push @ xy)
    return {node: (float(x), float(y)) for node, (x, y) in zip(nodes, xy)}


def _classical_scaling(distance, iterations=60):
    """Two-dimensional classical MDS of a distance matrix: its two leading eigenvectors, scaled.

    Power iteration with Gram-Schmidt from a fixed start (no LAPACK call: on a busy machine a
    300 x 300 eigendecomposition took a second), so the result depends on the distances only.
    """
    n = len(distance)
    squared = distance**2
    centred = -0.5 * (squared - squared.mean(axis=0) - squared.mean(axis=1)[:, None] + squared.mean())
    vectors = np.stack([np.linspace(-1.0, 1.0, n), np.cos(np.linspace(0.0, np.pi, n))], axis=1)
    for _ in range(iterations):
        vectors = centred @ vectors
        first = vectors[:, 0] / max(float(np.linalg.norm(vectors[:, 0])), 1e-300)
        second = vectors[:, 1] - (first @ vectors[:, 1]) * first
        second /= max(float(np.linalg.norm(second)), 1e-300)
        vectors = np.stack([first, second], axis=1)
    values = np.einsum("ij,ij->j", vectors, centred @ vectors)
    return vectors * np.sqrt(np.maximum(values, 1e-12))


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


def network_layout(
    graph_or_model: nx.Graph | Hyperforest | BaseModel, method: str | None = None, *, max_row_width: int | None = None
) -> dict[Any, tuple[float, float]]:
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
          `max_row_width` nodes. A DAG that is not a forest (a node with two
          parents) is drawn by layers of the longest path from a root, so
          that every arc points down (an undirected edge of a CPDAG follows
          the order of the arcs), each layer ordered to cross fewer arcs and
          wrapped every `max_row_width` nodes.
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


def drawing_positions(
    graph: nx.Graph,
    layout: str | Mapping[Any, Any] | None = None,
    *,
    max_row_width: int | None = None,
    ax: Axes | None = None,
    page_aspect: float | None = None,
) -> dict[Any, tuple[float, float]]:
    """The positions of :func:`~graphmodels.plotting.draw_graph` (and the drawings on its layout).

    A dict `layout` is checked to cover every node; a large graph (:data:`LARGE_GRAPH` nodes
    or more) with the default or ``"layered"`` layout has its layers flowed into rows shaped
    to the page (`ax`'s, else `page_aspect`, else :data:`LARGE_FIGURE`'s); anything else is
    :func:`network_layout`'s.

    Raises
    ------
    ValueError
        For a dict missing nodes, an unknown layout name or a bad `max_row_width`.
    TypeError
        For a `layout` that is neither None, a name nor a dict.
    """
    if isinstance(layout, Mapping):
        missing = [n for n in graph.nodes if n not in layout]
        if missing:
            raise ValueError(f"`layout` has no position for {len(missing)} node(s), e.g. {missing[0]!r}.")
        return {n: (float(layout[n][0]), float(layout[n][1])) for n in graph.nodes}
    if graph.number_of_nodes() >= LARGE_GRAPH and (layout is None or layout == "layered"):
        network_layout(nx.empty_graph(0), "layered", max_row_width=max_row_width)  # checks `max_row_width`
        if max_row_width is None:
            if ax is not None:
                box = ax.get_position()
                fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
                aspect = box.width * fig_w / (box.height * fig_h)
            else:
                aspect = page_aspect if page_aspect is not None else LARGE_FIGURE[0] / LARGE_FIGURE[1]
            max_row_width = _page_row_width(graph.number_of_nodes(), aspect)
        return _flowed_layered(graph, max_row_width)
    if layout is None or isinstance(layout, str):
        return network_layout(graph, layout, max_row_width=max_row_width)
    raise TypeError(f"`layout` must be None, a method name or a dict of positions, got {type(layout).__name__}.")


#: Where :func:`grid_layout` puts the class nodes.
CLASS_POSITIONS = ("top", "bottom", "left", "right", "grid")


def _grid_nodes(nodes):
    """``(nodes, class nodes)`` of what :func:`grid_layout` takes: names, a graph, a hyperforest or a fitted model."""
    if isinstance(nodes, nx.Graph):
        return list(nodes.nodes), [n for n, role in nodes.nodes(data="role") if role == "class"]
    if isinstance(nodes, Hyperforest):
        return list(nodes.nodes), []
    if isinstance(nodes, BaseModel):
        nodes._check_fitted()
        class_name = getattr(nodes, "class_name_", None)
        names = _model_attributes(nodes) if class_name is not None else list(getattr(nodes.encoder_, "columns_", []))
        classes = [] if class_name is None else [class_name]
        structure = getattr(nodes, "structure_", None)
        extra = list(structure.nodes) if isinstance(structure, (nx.Graph, Hyperforest)) else []
        known = set(names) | set(classes)
        # Latent nodes of a latent tree join the grid after the attributes; Kikuchi's regions do not.
        names += [n for n in extra if not isinstance(n, frozenset) and n not in known]
        return classes + names, classes
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise TypeError(
            "`nodes` must be an iterable of node names, a networkx graph, a Hyperforest or a fitted model, "
            f"got {type(nodes).__name__}."
        )
    return list(dict.fromkeys(nodes)), []


def grid_layout(
    nodes: Iterable[Hashable] | nx.Graph | Hyperforest | BaseModel,
    n_columns: int | None = None,
    *,
    order: Sequence[Hashable | None] | None = None,
    class_nodes: Iterable[Hashable] | None = None,
    class_position: str = "top",
    spacing: float = 1.0,
) -> dict[Any, tuple[float, float]]:
    """Positions on a grid, row by row, for any drawing's ``pos=`` or ``layout=``.

    The attributes fill the cells left to right, top to bottom (in `order`,
    or in the order given); the class nodes sit outside the grid, centred
    above it by default. The model case is a board game: the nine squares of
    tic-tac-toe, whose columns run ``top-left-square, top-middle-square,
    ..., bottom-right-square``, land on the 3 x 3 board with
    ``grid_layout(X.columns)``, and with ``grid_layout(model)`` the class
    too, above the board.

    Parameters
    ----------
    nodes : iterable of hashable, nx.Graph, Hyperforest or fitted model
        The names to place; or a graph (its nodes; those with
        ``role="class"`` are the class nodes), a hyperforest (its nodes), or
        a fitted model (its attributes in column order, its class
        ``class_name_``, and the other plain nodes of its ``structure_``,
        such as latent variables, after the attributes).
    n_columns : int, optional
        Cells per row; defaults to ``ceil(sqrt(n_cells))`` (3 for 9 cells).
    order : sequence, optional
        The nodes of the grid in cell order (row by row); ``None`` entries
        leave a cell empty. Must hold every node that is not a class node
        (or every node, with ``class_position="grid"``).
    class_nodes : iterable, optional
        The class nodes, placed by `class_position`; by default those found
        in `nodes` (``role="class"``, a model's ``class_name_``), none for a
        list of names.
    class_position : {"top", "bottom", "left", "right", "grid"}, default="top"
        Where the class nodes go: one row above (below) the grid, centred,
        side by side; one column left (right) of it, centred, one under the
        other; or in the grid, as the other nodes.
    spacing : float, default=1.0
        Distance between neighbouring cells (and between the grid and the
        class nodes), > 0.

    Returns
    -------
    dict
        Node -> ``(x, y)``: cell (row r, column c) at ``(c * spacing,
        -r * spacing)``, so the first row is at the top (y decreases
        downwards, as in :func:`network_layout`); in the order of `nodes`.

    Raises
    ------
    TypeError
        If `nodes` is none of the above.
    NotFittedError
        For an unfitted graphmodels model.
    ValueError
        For a bad `n_columns`, `spacing` or `class_position`, class nodes not
        among the nodes, or an `order` that lacks a node, repeats one or
        names an unknown one.

    See Also
    --------
    network_layout : the automatic layouts.

    Examples
    --------
    >>> squares = [f"{r}-{c}" for r in ("top", "middle", "bottom") for c in ("left", "middle", "right")]
    >>> pos = grid_layout(squares + ["class"], class_nodes=["class"])
    >>> pos["top-left"], pos["middle-middle"], pos["bottom-right"], pos["class"]
    ((0.0, 0.0), (1.0, -1.0), (2.0, -2.0), (1.0, 1.0))
    >>> grid_layout(["a", "b", "c"], 2, order=["c", None, "a", "b"])
    {'a': (0.0, -1.0), 'b': (1.0, -1.0), 'c': (0.0, 0.0)}
    """
    names, found = _grid_nodes(nodes)
    if class_position not in CLASS_POSITIONS:
        raise ValueError(f"`class_position` must be one of {list(CLASS_POSITIONS)}, got {class_position!r}.")
    if not _is_number(spacing) or not spacing > 0:
        raise ValueError(f"`spacing` must be a number > 0, got {spacing!r}.")
    if class_nodes is None:
        classes = found
    else:
        if isinstance(class_nodes, (str, bytes)) or not isinstance(class_nodes, Iterable):
            raise TypeError(f"`class_nodes` must be an iterable of node names, got {type(class_nodes).__name__}.")
        classes = list(dict.fromkeys(class_nodes))
        unknown = [c for c in classes if c not in set(names)]
        if unknown:
            raise ValueError(f"`class_nodes` names {unknown[0]!r}, which is not among the nodes.")
    if class_position == "grid":
        classes = []
    outside = set(classes)
    grid = [n for n in names if n not in outside]
    if order is None:
        cells: list[Any] = list(grid)
    else:
        if isinstance(order, (str, bytes)) or not isinstance(order, Iterable):
            raise TypeError(f"`order` must be a sequence of node names (None for an empty cell), got {order!r}.")
        cells = list(order)
        placed = [c for c in cells if c is not None]
        repeated = [c for c in placed if placed.count(c) > 1]
        if repeated:
            raise ValueError(f"`order` names {repeated[0]!r} more than once.")
        unknown = [c for c in placed if c not in set(grid)]
        if unknown:
            where = "a class node (placed by `class_position`)" if unknown[0] in outside else "not among the nodes"
            raise ValueError(f"`order` names {unknown[0]!r}, which is {where}.")
        lacking = [n for n in grid if n not in set(placed)]
        if lacking:
            raise ValueError(
                f"`order` lacks {lacking[0]!r}" + (f" (and {len(lacking) - 1} more)." if len(lacking) > 1 else ".")
            )
    if n_columns is None:
        n_columns = max(1, math.ceil(math.sqrt(len(cells))))
    elif isinstance(n_columns, bool) or not isinstance(n_columns, numbers.Integral) or n_columns < 1:
        raise ValueError(f"`n_columns` must be a positive integer, got {n_columns!r}.")
    n_columns = int(n_columns)
    n_rows = max(1, math.ceil(len(cells) / n_columns))
    step = float(spacing)
    pos = {}
    for k, node in enumerate(cells):
        if node is not None:
            pos[node] = (float((k % n_columns) * step), float(-(k // n_columns) * step))
    width, height = (min(n_columns, max(len(cells), 1)) - 1) * step, (n_rows - 1) * step
    for i, node in enumerate(classes):
        shift = (i - (len(classes) - 1) / 2) * step
        if class_position in ("top", "bottom"):
            y = step if class_position == "top" else -height - step
            pos[node] = (float(width / 2 + shift), float(y))
        else:
            x = -step if class_position == "left" else width + step
            pos[node] = (float(x), float(-height / 2 - shift))
    return {node: pos[node] for node in names}


def format_label(name: Hashable, max_length: int = 24, line_length: int = 8) -> str:
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
    text = _one_line(name)
    if len(text) > max_length:
        text = text[: max_length - 1] + "…"
    return _wrap(text, line_length)


def _one_line(name):
    return " ".join(str(name).split("\n")).replace("\r", " ")


def _wrap(text, line_length, ellipsis_breaks=False):
    """`text` broken after ``-``, ``_``, ``.``, ``/`` and spaces (and ``…`` if asked) into lines of about
    `line_length`, at most three."""
    if len(text) <= line_length:
        return text
    tokens = re.findall(r"[^-_./\s…]*[-_./\s…]*" if ellipsis_breaks else r"[^-_./\s]*[-_./\s]*", text)
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


_SEPARATORS = "-_./ "


def _tokens(text):
    """`text` cut after each run of separators: ``"Mean_Acc1298_X"`` -> ``["Mean_", "Acc1298_", "X"]``."""
    return [t for t in re.findall(r"[^-_./\s]*[-_./\s]*", text) if t]


def _middle_cut(text, max_length, tail_share):
    """`text` cut to `max_length` characters by an ellipsis inside it, keeping `tail_share` of them at the end."""
    if len(text) <= max_length:
        return text
    keep = max_length - 1
    tail = min(max(round(keep * tail_share), 0), keep)
    return text[: keep - tail] + "…" + (text[-tail:] if tail else "")


def _without_common_tokens(texts):
    """Each text with the tokens that all of `texts` have at the same place replaced by ``…`` (runs of them by
    one), the first token kept."""
    token_lists = [_tokens(t) for t in texts]
    common = set.intersection(*(set(enumerate(tokens)) for tokens in token_lists)) if token_lists else set()
    out = []
    for tokens in token_lists:
        parts, elided = [], False
        for k, token in enumerate(tokens):
            if (k, token) in common and k > 0:
                elided = True
                continue
            if elided:
                parts[-1] = parts[-1].rstrip(_SEPARATORS) + "…"
            parts.append(token)
            elided = False
        if elided:
            parts[-1] = parts[-1].rstrip(_SEPARATORS) + "…"
        out.append("".join(parts))
    return out


def format_labels(names: Sequence[Hashable], max_length: int = 24, line_length: int = 8) -> list[str]:
    """Labels of `names` as :func:`format_label` writes them, but never two alike.

    Names of at most `max_length` characters are written as they are
    (wrapped). Longer names are cut with an ellipsis at the end, as
    :func:`format_label` does, when that leaves every label distinct;
    otherwise (long names with a common prefix, such as
    ``Mean_Acc1298_Mean_Mem40_Centroid``, ``Mean_Acc1298_Std_Mem40_Centroid``
    and ``Mean_Acc1298_Mean_Mem40_Rolloff``) the tokens (pieces ending in
    ``-``, ``_``, ``.``, ``/`` or a space) that every long name has at the
    same place, but the first, are replaced by ``…`` (``Mean…Mean…Centroid``), and what
    is still too long is cut in the middle, keeping most of the end, where
    such names differ. Labels that still
    agree get the next way of cutting (more of the start kept), and as a
    last resort a number (``~2``).

    Parameters
    ----------
    names : sequence of hashable
        The node names, in order.
    max_length : int, default=24
        Longest label, in characters, before wrapping.
    line_length : int, default=8
        Preferred length of one line.

    Returns
    -------
    list of str
        One label per name, pairwise distinct when the names' texts are.

    See Also
    --------
    format_label : one label on its own.

    Examples
    --------
    >>> names = ["Mean_Acc1298_Mean_Mem40_Centroid", "Mean_Acc1298_Mean_Mem40_Rolloff"]
    >>> names += ["Mean_Acc1298_Std_Mem40_Centroid", "Std_Acc1298_Mean_Mem40_Flux", "BH_LowPeakAmp"]
    >>> [label.replace("\\n", " ") for label in format_labels(names, line_length=80)]
    ['Mean…Mean…Centroid', 'Mean…Mean…Rolloff', 'Mean…Std…Centroid', 'Std…Mean…Flux', 'BH_LowPeakAmp']
    """
    texts = [_one_line(name) for name in names]
    plain = [t if len(t) <= max_length else t[: max_length - 1] + "…" for t in texts]
    long = [i for i, t in enumerate(texts) if len(t) > max_length]
    if len(set(plain)) == len(set(texts)) or not long:
        return [_wrap(t, line_length) for t in plain]
    labels = list(plain)
    condensed = dict(zip(long, _without_common_tokens([texts[i] for i in long])))
    # Cut in the middle, most of the room for the end; the labels still alike get more of the start.
    for i in long:
        labels[i] = _middle_cut(condensed[i], max_length, 0.7)
    for share in (0.5, 0.3, 0.9, 1.0, 0.0):
        clashing = _clashes(labels, texts)
        if not clashing:
            break
        for i in clashing:
            if i in condensed:
                labels[i] = _middle_cut(condensed[i], max_length, share)
    for i in _clashes(labels, texts):
        if i in condensed:
            labels[i] = f"{labels[i]}~{i}"
    return [_wrap(t, line_length, True) for t in labels]


def _clashes(labels, texts):
    """Indices of labels equal to another label whose name's text differs."""
    owners: dict[str, set[str]] = {}
    for label, text in zip(labels, texts):
        owners.setdefault(label, set()).add(text)
    return [i for i, label in enumerate(labels) if len(owners[label]) > 1]


#: What `top_k` does with the edges it leaves out: drawn light and thin, or not drawn.
FADED_MODES = ("fade", "hide")

#: Alpha and line width (points) of a faded edge.
FADED_ALPHA = 0.15
FADED_WIDTH = 0.5


def _check_top_k(top_k, faded):
    """`top_k` as an int (or None), after checking it and `faded`."""
    if faded not in FADED_MODES:
        raise ValueError(f"`faded` must be one of {list(FADED_MODES)}, got {faded!r}.")
    if top_k is None:
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral) or top_k < 1:
        raise ValueError(f"`top_k` must be None or an integer >= 1, got {top_k!r}.")
    return int(top_k)


def _strongest(weights, top_k, grouped=None):
    """Which items are drawn in full: the `top_k` of largest weight (ties in the given order).

    `weights` holds a number or None per item (None ranks last); items with
    ``grouped[i]`` true are one group that is faded as a whole (the class arcs
    of a classifier), unless every item is grouped, when they are ranked as the
    others would be. Returns ``(strong, n_ranked)``: one bool per item, and how
    many items were ranked.
    """
    n = len(weights)
    if top_k is None:
        return [True] * n, n
    grouped = [False] * n if grouped is None or all(grouped) else list(grouped)
    ranked = [i for i in range(n) if not grouped[i]]

    def key(i):
        w = weights[i]
        return (0, -float(w), i) if _is_number(w) else (1, 0.0, i)

    chosen = set(sorted(ranked, key=key)[:top_k])
    return [i in chosen for i in range(n)], len(ranked)


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
_RADS = np.array(_BENDS)


_T = np.linspace(0.04, 0.96, 24)[:, None]


def _bend(a, b, others, clearance=0.45, bounds=None):
    """``rad`` of an ``arc3`` connection from `a` to `b` that passes the fewest `others`.

    Points are in units that are equally long on screen along x and y.
    Candidates go from straight (0) to a bend of 0.6; the first one (least
    bent) that comes within `clearance` of the fewest other nodes wins, so a
    straight segment is kept whenever bending does not help. Curves leaving
    `bounds` ``((xmin, xmax), (ymin, ymax))`` are not considered.

    Every candidate is scored at once, against only the nodes within `clearance` of the box that
    holds all of them (the others cannot be near any): on a drawing of 300 nodes the loop over
    candidates and all nodes took most of its time.
    """
    if len(others) == 0:
        return 0.0
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    # The straight segment first: when it passes no node (most arcs), no bend is scored.
    segment = (1 - _T) * a + _T * b
    low, high = segment.min(axis=0) - clearance, segment.max(axis=0) + clearance
    near = others[((others >= low) & (others <= high)).all(axis=1)]
    if len(near) == 0 or ((segment[:, None, :] - near[None, :, :]) ** 2).sum(axis=2).min() >= clearance**2:
        return 0.0
    dx, dy = b - a
    # arc3's control point: the middle moved by rad * (dy, -dx); curves of shape (bends, points, 2).
    controls = (a + b) / 2 + _RADS[:, None] * np.array([dy, -dx])
    curves = (1 - _T) ** 2 * a + 2 * _T * (1 - _T) * controls[:, None, :] + _T**2 * b
    valid = np.ones(len(_RADS), dtype=bool)
    if bounds is not None:
        low, high = curves.min(axis=1), curves.max(axis=1)
        inside = (
            (low[:, 0] >= bounds[0][0])
            & (high[:, 0] <= bounds[0][1])
            & (low[:, 1] >= bounds[1][0])
            & (high[:, 1] <= bounds[1][1])
        )
        valid = inside | (_RADS == 0)
    corner_low = curves.reshape(-1, 2).min(axis=0) - clearance
    corner_high = curves.reshape(-1, 2).max(axis=0) + clearance
    near = others[((others >= corner_low) & (others <= corner_high)).all(axis=1)]
    if len(near) == 0:
        return 0.0
    points = curves.reshape(-1, 2)
    squared = (points * points).sum(axis=1)[:, None] + (near * near).sum(axis=1)[None, :] - 2 * points @ near.T
    closest = squared.reshape(len(_RADS), len(_T), len(near)).min(axis=1)  # (bends, near)
    hits = (closest < clearance**2).sum(axis=1)
    hits[~valid] = np.iinfo(hits.dtype).max
    return float(_RADS[int(np.argmin(hits))])  # the first (least bent) of the fewest


#: Points of the curve sampled to find where an arc leaves a node's circle (see :class:`NodeArc`).
_ARC_SAMPLES = np.linspace(0.0, 1.0, 129)


class NodeArc(ConnectionStyle.Arc3):
    """matplotlib's ``arc3`` connection, its ends shortened to the node circles in closed form.

    The same curve as ``connectionstyle="arc3,rad=..."`` (a quadratic Bézier through the
    control point ``middle + rad * (dy, -dx)``) cut where it leaves the circles of radius
    ``shrinkA`` and ``shrinkB`` around its ends, but found on 129 points of the curve at once
    (linear interpolation between them, well under a hundredth of a pixel off) instead of
    matplotlib's bisection, which took most of the time of drawing a network of 100 arcs (each
    drawn twice when the figure is saved with a tight bounding box). The part kept is again a
    quadratic Bézier, whose control point is the blossom of the two cut parameters. Clipping to
    patches (``patchA``, ``patchB``), which the drawings do not use, is matplotlib's.
    """

    def __call__(self, posA, posB, shrinkA=2.0, shrinkB=2.0, patchA=None, patchB=None):  # noqa: N803 - matplotlib's names
        if patchA is not None or patchB is not None:
            return super().__call__(posA, posB, shrinkA, shrinkB, patchA, patchB)
        start, end = np.asarray(posA, dtype=float), np.asarray(posB, dtype=float)
        dx, dy = end - start
        control = (start + end) / 2 + self.rad * np.array([dy, -dx])
        t = _ARC_SAMPLES[:, None]
        curve = (1 - t) ** 2 * start + 2 * t * (1 - t) * control + t**2 * end
        t0 = _leaves(np.hypot(*(curve - start).T), shrinkA, _ARC_SAMPLES)
        t1 = 1.0 - _leaves(np.hypot(*(curve - end).T)[::-1], shrinkB, _ARC_SAMPLES)
        if t0 >= t1:  # the circles cover the curve: matplotlib's own rule for what is left
            return super().__call__(posA, posB, shrinkA, shrinkB, patchA, patchB)

        def at(a, b):  # the blossom of the curve: at(t, t) is the point at t
            return (1 - a) * (1 - b) * start + ((1 - a) * b + a * (1 - b)) * control + a * b * end

        return Path([at(t0, t0), at(t0, t1), at(t1, t1)], [Path.MOVETO, Path.CURVE3, Path.CURVE3])


def _leaves(distance, radius, ts):
    """The first parameter at which `distance` (sampled at `ts`, from the circle's centre) reaches `radius`.

    0 when it never does (matplotlib keeps such an end unclipped) or when `radius` is 0.
    """
    if radius <= 0:
        return 0.0
    outside = np.flatnonzero(distance >= radius)
    if len(outside) == 0 or outside[0] == 0:
        return 0.0
    i = outside[0]
    share = (radius - distance[i - 1]) / (distance[i] - distance[i - 1])
    return float(ts[i - 1] + share * (ts[i] - ts[i - 1]))


def scatter_nodes(
    ax: Axes, xy: np.ndarray, roles: Sequence[str], node_size: float | Sequence[float], *, gid: str
) -> PathCollection:
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


def _spacing(xy):
    """Median distance to the nearest other node (1 if undefined)."""
    if len(xy) < 2:
        return 1.0
    d = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1))
    d[np.diag_indices_from(d)] = np.inf
    nearest = d.min(axis=1)
    nearest = nearest[np.isfinite(nearest) & (nearest > 0)]
    return float(np.median(nearest)) if len(nearest) else 1.0


def _points_per_unit(ax):
    """Points per data unit along x and y for the current limits."""
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return bbox.width * fig_w * 72 / (x1 - x0), bbox.height * fig_h * 72 / (y1 - y0)


def _frame(ax, xy, margin, equal):
    """Limits around `xy` with `margin`; returns points per data unit (x, y)."""
    low, high = xy.min(axis=0) - margin, xy.max(axis=0) + margin
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    if equal:
        ax.set_aspect("equal", adjustable="box")
        scale = min(_points_per_unit(ax))
        return scale, scale
    return _points_per_unit(ax)


def _fitting_font_size(
    texts, width, height, *, char_width=0.6, pad=0.8, line_height=1.2, line_pad=0.6, low=4.5, high=10.0, min_chars=1
):
    """Font size (points) at which the longest line and the tallest label of
    `texts` fit a box of `width` x `height` points, clipped to [low, high]."""
    chars = max([len(line) for text in texts for line in text.split("\n")] + [min_chars])
    lines = max([text.count("\n") + 1 for text in texts] + [1])
    return float(np.clip(min(width / (char_width * chars + pad), height / (line_height * lines + line_pad)), low, high))


def _sizes(spacing, ppu, texts, node_size, font_size):
    """Node area (points^2) and font size fitted to the spacing of the nodes."""
    if node_size is None:
        diameter = float(np.clip(0.45 * spacing * ppu, 6.0, 44.0))
        node_size = diameter**2
    diameter = math.sqrt(float(node_size))
    if font_size is None:
        font_size = _fitting_font_size(
            texts, 0.95 * diameter, 0.8 * diameter, pad=0.0, line_pad=0.0, low=5.0, min_chars=2
        )
    return float(node_size), float(font_size)


_LINESPACING = 1.25


@lru_cache(maxsize=1)
def _measurer():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(dpi=72)
    return figure, FigureCanvasAgg(figure).get_renderer()


def _measure(text, weight="normal"):
    """Width and height of `text` (lines at the drawing's spacing) in ems of its own size."""
    if not text:
        return 0.0, 0.0
    # Measured large (hinting makes small text up to ~6% wider or narrower), with 4% to spare.
    figure, renderer = _measurer()
    artist = figure.text(0, 0, text, fontsize=50.0, fontweight=weight, linespacing=_LINESPACING)
    box = artist.get_window_extent(renderer)
    artist.remove()
    return 1.04 * box.width / 50.0, box.height / 50.0


#: Colour of a region by its number of variables, class included: green
#: 2-way, blue 3-way and red 4-way regions, as in Figure 2 of Jakulin & Rish.
REGION_COLORS = {2: "#2a9d3f", 3: "#1f5fbf", 4: "#d62828"}


_LARGER_COLORS = ("#7b2cbf", "#b5651d", "#4d4d4d")  # 5-way, 6-way, 7-way and larger


_LINESTYLES = {3: "-", 4: "--"}  # 2-way regions are rings; larger ones dotted


def region_style(size: int) -> tuple[str, str]:
    """Colour and line style of a region with `size` variables (class included).

    Parameters
    ----------
    size : int
        Number of variables of the region, class included, >= 2.

    Returns
    -------
    color : str
    linestyle : str
        ``"ring"`` for 2-way regions (drawn as a ring around their
        attribute), ``"-"`` for 3-way, ``"--"`` for 4-way and ``":"`` for
        larger ones.

    Examples
    --------
    >>> region_style(3)
    ('#1f5fbf', '-')
    >>> region_style(2)[1], region_style(6)[1]
    ('ring', ':')
    """
    if size in REGION_COLORS:
        color = REGION_COLORS[size]
    else:
        color = _LARGER_COLORS[min(size - 5, len(_LARGER_COLORS) - 1)] if size >= 5 else "#4d4d4d"
    return color, "ring" if size == 2 else _LINESTYLES.get(size, ":")


def _fitted_kikuchi(obj, what):
    """`obj` if it is a fitted Kikuchi-Bayes model, None if it is not a model at all."""
    if isinstance(obj, KikuchiBayes):
        obj._check_fitted()  # NotFittedError, as for every graphmodels model
        return obj
    if hasattr(obj, "fit") and hasattr(obj, "predict"):
        raise TypeError(
            f"Expected a fitted KikuchiBayes model to draw its {what}, got {type(obj).__name__}, "
            "which has no Kikuchi-Bayes path (`path_`, `map_step_`)."
        )
    return None


def _check_step(model, step):
    n = len(model.path_)
    if step is None:
        return int(model.map_step_)
    if isinstance(step, bool) or not isinstance(step, numbers.Integral) or not 0 <= step < n:
        raise ValueError(f"`step` must be an integer in 0..{n - 1} (a row of `path_`), got {step!r}.")
    return int(step)


def _model_attributes(model):
    encoder = getattr(model, "encoder_", None)
    columns = getattr(encoder, "columns_", None)
    if columns is None:
        return []
    return [name for name in columns if name != model.class_name_]


def _check_pos(pos, nodes, what):
    if not isinstance(pos, Mapping):
        raise TypeError(f"`pos` must be a dict {what} -> (x, y), got {type(pos).__name__}.")
    missing = [n for n in nodes if n not in pos]
    if missing:
        raise ValueError(
            f"`pos` has no position for {what} {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)." if len(missing) > 1 else ".")
        )
    out = {}
    for n in nodes:
        try:
            x, y = (float(v) for v in pos[n])
        except (TypeError, ValueError):
            raise ValueError(f"`pos[{n!r}]` must be a pair of numbers (x, y), got {pos[n]!r}.") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"`pos[{n!r}]` must be finite, got {pos[n]!r}.")
        out[n] = (x, y)
    return out


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False, got {value!r}.")


def _slots(xy):
    """Smallest gap between neighbours of a row, and between rows (1 if undefined)."""
    ys = np.unique(np.round(xy[:, 1], 9))
    gaps = []
    for y in ys:
        xs = np.unique(np.round(xy[np.isclose(xy[:, 1], y), 0], 9))
        gaps.extend(np.diff(xs))
    if not gaps:  # one region per row: fall back on the gaps between any x
        gaps = list(np.diff(np.unique(np.round(xy[:, 0], 9))))
    gaps = [g for g in gaps if g > 0]
    slot_x = float(min(gaps)) if gaps else 1.0
    slot_y = float(np.min(np.diff(ys))) if len(ys) > 1 else 1.0
    return slot_x, slot_y


# ---------------------------------------------------------------------------
# Hulls (the shaded hyperedges of draw_hyperforest and of the stability drawings)


def hyperedge_outline(points: ArrayLike, pad: float, resolution: int = 12) -> np.ndarray:
    """Outline of the padded convex hull of `points`: the hull grown by a disc of radius `pad`.

    The corners of the hull become circular arcs, so two points give a
    capsule (stadium) and one point a circle. Collinear points are treated
    as the segment between the two extreme ones.

    Parameters
    ----------
    points : array-like of shape (n_points, 2)
        At least one point.
    pad : float
        Distance of the outline from the hull, > 0.
    resolution : int, default=12
        Points per quarter turn of an arc.

    Returns
    -------
    ndarray of shape (n_vertices, 2)
        The closed outline, counter-clockwise, first vertex not repeated.

    Examples
    --------
    >>> outline = hyperedge_outline([(0, 0), (2, 0)], pad=0.5)
    >>> bool(np.allclose(outline.min(axis=0), [-0.5, -0.5]) and np.allclose(outline.max(axis=0), [2.5, 0.5]))
    True
    """
    points = np.unique(np.asarray(points, dtype=float).reshape(-1, 2), axis=0)
    if len(points) == 0:
        raise ValueError("`points` must hold at least one point.")
    if not pad > 0:
        raise ValueError(f"`pad` must be > 0, got {pad!r}.")
    corners = _hull_corners(points)
    if len(corners) == 1:
        angles = np.linspace(0, 2 * np.pi, 4 * resolution, endpoint=False)
        return corners[0] + pad * np.column_stack([np.cos(angles), np.sin(angles)])
    outline = []
    n = len(corners)
    for i in range(n):
        before, here, after = corners[i - 1], corners[i], corners[(i + 1) % n]
        a_in = _normal_angle(here - before)
        a_out = _normal_angle(after - here)
        sweep = (a_out - a_in) % (2 * np.pi)
        steps = max(int(math.ceil(sweep / (np.pi / 2) * resolution)), 1)
        angles = a_in + np.linspace(0.0, sweep, steps + 1)
        outline.append(here + pad * np.column_stack([np.cos(angles), np.sin(angles)]))
    return np.concatenate(outline)


def _normal_angle(direction):
    """Angle of the outward normal of a counter-clockwise edge going along `direction`."""
    return math.atan2(-direction[0], direction[1])


def _hull_corners(points):
    """Corners of the convex hull, counter-clockwise; two extreme points if collinear; one if a point."""
    if len(points) == 1:
        return points
    centred = points - points.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    scale = max(singular[0], 1e-300)
    if len(points) >= 3 and singular[-1] > 1e-9 * scale:
        from scipy.spatial import ConvexHull, QhullError

        try:
            return points[ConvexHull(points).vertices]  # counter-clockwise in 2-D
        except QhullError:
            pass
    along = centred @ vt[0]
    return points[[int(np.argmin(along)), int(np.argmax(along))]]
