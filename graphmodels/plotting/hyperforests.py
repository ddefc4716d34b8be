"""Drawing of hyperforests with matplotlib.

:func:`draw_hyperforest` draws a :class:`~graphmodels.structures.Hyperforest`
as its Markov network (the primal graph) with every maximal hyperedge shaded
as a padded, rounded convex hull around its nodes, or as its bipartite factor
graph. :func:`draw_junction_tree` draws its junction forest as a layered tree:
cliques labelled with their variables, edges with their separators. The
hyperedge colours agree between the three pictures: the i-th maximal
hyperedge of size >= `min_size` (in the order of
:attr:`~graphmodels.structures.Hyperforest.maximal_hyperedges`) gets the i-th
colour of `cmap` everywhere.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import matplotlib
import networkx as nx
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap, to_rgba
from matplotlib.patches import PathPatch
from matplotlib.path import Path

from ..structures.hyperforests import Hyperforest, hyperforests_by_class
from ._common import (
    FADED_ALPHA,
    FADED_WIDTH,
    KIND_COLORS,
    _check_top_k,
    _circular,
    _component_packed,
    _depths,
    _fitting_font_size,
    _frame,
    _role,
    _sizes,
    _spacing,
    _spanning_forest,
    _strongest,
    _tidy_positions,
    format_label,
    hyperedge_outline,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap

    from ..models.base import BaseModel

__all__ = [
    "draw_factor_graph",
    "draw_hyperforest",
    "draw_junction_tree",
    "hyperedge_outline",
    "VIEWS",
    "HYPERFOREST_LAYOUTS",
]

#: Views of :func:`draw_hyperforest`.
VIEWS = ("primal", "factor")

_GREY = "#e6e6e6"


# ---------------------------------------------------------------------------
# Input


def _as_hyperforest(forest: Any) -> Hyperforest:
    if isinstance(forest, Hyperforest):
        return forest
    structure = getattr(forest, "structure_", None)
    if isinstance(structure, Hyperforest):
        return structure
    if hyperforests_by_class(forest) is not None:
        raise TypeError(
            f"{type(forest).__name__} has one hyperforest per class (representation='free'): pass one class's, "
            "hyperforests_by_class(model)[label] (graphmodels.structures) or model.structures_[k], or draw the "
            "union of their Markov networks with draw_network(model)."
        )
    raise TypeError(
        f"Expected a Hyperforest (graphmodels.structures.Hyperforest) or a fitted model whose "
        f"`structure_` is one, got {type(forest).__name__}."
    )


def _check_min_size(min_size):
    if isinstance(min_size, bool) or not isinstance(min_size, numbers.Integral) or min_size < 1:
        raise ValueError(f"`min_size` must be an integer >= 1, got {min_size!r}.")


def _hyperedge_colors(forest, min_size, cmap):
    """Maximal hyperedge -> RGBA colour, for those with at least `min_size` nodes."""
    cmap = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    shown = [h for h in forest.maximal_hyperedges if len(h) >= min_size]
    listed = isinstance(cmap, ListedColormap) and cmap.N <= 64
    colors = {}
    for i, h in enumerate(shown):
        colors[h] = cmap(i % cmap.N) if listed else cmap(i / max(len(shown) - 1, 1))
    return colors


def _hyperedge_weights(forest):
    """Maximal hyperedge -> weight (None if unknown) of a fitted model's candidate weights, else None."""
    try:
        weights = forest.weights_
    except AttributeError:  # a bare Hyperforest, or a model loaded without its weights
        return None
    if not isinstance(weights, Mapping):  # one mapping per class
        return None
    return weights


def _strong_hyperedges(model, hyperedges, top_k):
    """Hyperedge -> drawn in full: the `top_k` heaviest, or (without weights) the largest, ties in order."""
    weights = None if isinstance(model, Hyperforest) else _hyperedge_weights(model)
    if weights is not None:
        values = [weights.get(h) for h in hyperedges]
    else:
        values = [float(len(h)) for h in hyperedges]
    return dict(zip(hyperedges, _strongest(values, top_k)[0]))


def _in_node_order(forest, nodes):
    index = {v: i for i, v in enumerate(forest.nodes)}
    return sorted(nodes, key=index.__getitem__)


def _set_label(forest, nodes, line_length=16):
    """``"a,b,c"`` in node order; lines break after a comma past `line_length` characters."""
    lines, current = [], ""
    for name in (str(v).replace("\n", " ") for v in _in_node_order(forest, nodes)):
        if current and len(current) + 1 + len(name) > line_length:
            lines.append(current + ",")
            current = name
        else:
            current = f"{current},{name}" if current else name
    lines.append(current)
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Layouts


def _packed(one):
    """Lay out each connected component with ``one(sub, seed)`` and pack them in rows."""
    return lambda graph, seed: _component_packed(graph, lambda sub: one(sub, seed))


def _kamada_kawai_one(sub, seed):
    start = nx.spring_layout(sub, seed=seed, weight=None)
    return nx.kamada_kawai_layout(sub, pos=start, weight=None)


def _bipartite(graph, seed):
    """Variables on one row, factors on a row above, each factor over the mean of its variables.

    Variables are placed in the order a breadth-first search of the factor
    graph meets them (component by component, from the first node in graph
    order), so the variables of a factor sit together; factors are then
    pushed apart to at least one slot.
    """
    order = {node: i for i, node in enumerate(graph.nodes)}

    def by_order(nodes):
        return sorted(nodes, key=order.__getitem__)

    variables, seen = [], set()
    for start in graph.nodes:
        if start not in seen:
            component = [start] + [v for _, v in nx.bfs_edges(graph, start, sort_neighbors=by_order)]
            seen.update(component)
            variables.extend(n for n in component if graph.nodes[n].get("kind") != "factor")
    pos = {v: (float(i), 0.0) for i, v in enumerate(variables)}
    factors = [n for n in graph.nodes if graph.nodes[n].get("kind") == "factor"]
    centres = {f: float(np.mean([pos[v][0] for v in graph.neighbors(f)])) for f in factors}
    height = max(2.0, 0.2 * len(variables))
    last = -math.inf
    for f in sorted(factors, key=lambda f: (centres[f], order[f])):
        x = max(centres[f], last + 1.0)
        pos[f] = (x, height)
        last = x
    if factors:  # re-centre the factor row over the variable row
        shift = np.mean([pos[f][0] for f in factors]) - np.mean(list(centres.values()))
        for f in factors:
            pos[f] = (pos[f][0] - shift, height)
    return pos


#: Layout methods of :func:`draw_hyperforest` and :func:`draw_junction_tree`, by name.
HYPERFOREST_LAYOUTS = {
    "kamada_kawai": _packed(_kamada_kawai_one),
    "spring": _packed(lambda sub, seed: nx.spring_layout(sub, seed=seed, weight=None)),
    "spectral": _packed(lambda sub, seed: nx.spectral_layout(sub, weight=None)),
    "circular": lambda graph, seed: _circular(graph),
    "bipartite": _bipartite,
}


def _tree_layout(tree, seed=None):
    """Tidy layered forest: each tree rooted at a most central clique, root on top."""
    order = {node: i for i, node in enumerate(tree.nodes)}
    roots, children = _spanning_forest(tree, list(tree.nodes), order)
    x, _ = _tidy_positions(roots, children)
    depth = _depths(roots, children)
    return {node: (x[node], -float(depth[node])) for node in tree.nodes}


def _layout(graph, layout, pos, random_state, valid, default):
    """Positions of every node of `graph` from `pos`, a layout name or a callable."""
    if pos is not None:
        missing = [n for n in graph.nodes if n not in pos]
        if missing:
            raise ValueError(f"`pos` has no position for {len(missing)} node(s), e.g. {missing[0]!r}.")
        return {n: (float(pos[n][0]), float(pos[n][1])) for n in graph.nodes}
    if graph.number_of_nodes() == 0:
        return {}
    if layout is None:
        layout = default
    if callable(layout):
        raw = layout(graph)
    elif isinstance(layout, str) and layout in valid:
        raw = valid[layout](graph, random_state)
    else:
        raise ValueError(f"Unknown layout {layout!r}; valid: {sorted(valid)} or a callable graph -> positions.")
    return {n: (float(raw[n][0]), float(raw[n][1])) for n in graph.nodes}


# ---------------------------------------------------------------------------
# Drawing helpers


def _new_axes(xy, aspect=1.0):
    import matplotlib.pyplot as plt

    if len(xy):
        width = float(np.clip(1.1 * (np.ptp(xy[:, 0]) + 2.0), 4.0, 24.0))
        height = float(np.clip(1.1 * aspect * (np.ptp(xy[:, 1]) + 2.0) + 0.5, 3.0, 18.0))
    else:
        width, height = 4.0, 3.0
    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def _draw_variables(ax, nodes, xy, data, labels, node_size, font_size, gid):
    roles = [_role(d) for d in data]
    scatter_nodes(ax, xy, roles, node_size, gid=gid)
    if labels is False:
        return
    for node, (x, y), role in zip(nodes, xy, roles):
        text = labels.get(node, "") if isinstance(labels, dict) else format_label(node)
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=font_size,
            linespacing=1.0,
            zorder=4,
            fontweight="bold" if role == "class" else "normal",
        )


def _label_texts(nodes, labels):
    if labels is False:
        return []
    if isinstance(labels, dict):
        return [str(labels.get(n, "")) for n in nodes]
    return [format_label(n) for n in nodes]


def _check_labels(labels):
    if not isinstance(labels, (bool, dict)):
        raise TypeError(f"`labels` must be a bool or a dict node -> text, got {type(labels).__name__}.")


# ---------------------------------------------------------------------------
# Public drawing functions


def draw_hyperforest(
    forest: Hyperforest | BaseModel,
    *,
    view: str = "primal",
    ax: Axes | None = None,
    layout: str | Callable[[nx.Graph], Any] | None = None,
    pos: dict[Any, Any] | None = None,
    labels: bool | dict[Any, str] = True,
    hyperedge_alpha: float = 0.25,
    min_size: int = 2,
    cmap: str | Colormap = "tab20",
    node_size: float | None = None,
    font_size: float | None = None,
    title: str | None = None,
    random_state: int | None = 0,
    top_k: int | None = None,
    faded: str = "fade",
) -> Axes:
    """Draw a hyperforest: its Markov network with shaded hyperedges, or its factor graph.

    Variables are filled by ``role`` as in
    :func:`~graphmodels.plotting.draw_network` (the class node orange with a
    bold outline and label, features light blue) and labelled with their
    names.

    * ``view="primal"``: the primal graph (the Markov network,
      :meth:`~graphmodels.structures.Hyperforest.primal_graph`), each maximal
      hyperedge with at least `min_size` nodes shaded beneath the nodes as its
      padded convex hull (a capsule for two nodes), one `cmap` colour each.
    * ``view="factor"``: the bipartite factor graph of the maximal hyperedges
      (:meth:`~graphmodels.structures.Hyperforest.factor_graph`): variables
      as circles, factors as small squares in their hyperedge's colour (grey
      below `min_size`), labelled with their number of variables.

    Parameters
    ----------
    forest : Hyperforest
        Or a fitted model whose ``structure_`` is one. Not changed.
    view : {"primal", "factor"}, default="primal"
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the layout is made if omitted.
    layout : str or callable, optional
        ``"kamada_kawai"`` (default; started from a spring layout seeded with
        `random_state`), ``"spring"``, ``"spectral"`` (these three lay out
        each connected component on its own and pack them in rows),
        ``"circular"`` (one circle in node order) or ``"bipartite"``
        (variables on one row, factors on another); or a callable
        ``layout(graph) -> {node: (x, y)}`` such as :func:`networkx.shell_layout`,
        called on the drawn view.
    pos : dict, optional
        Node -> ``(x, y)``; overrides `layout`. In the factor view, factors
        (frozensets) it leaves out are placed at the mean of their variables
        (a singleton factor just above its variable).
    labels : bool or dict, default=True
        Label the nodes with their names, not at all, or with the given
        texts (node -> str; missing nodes unlabelled).
    hyperedge_alpha : float, default=0.25
        Opacity of the shaded hyperedges (primal view).
    min_size : int, default=2
        Smallest hyperedge that is shaded (primal view) or coloured (factor
        view); 1 also shades isolated nodes.
    cmap : str or matplotlib.colors.Colormap, default="tab20"
        Hyperedge colours; a listed colormap is used colour by colour
        (cycling), any other is sampled evenly.
    node_size : float, optional
        Variable marker area in points^2; by default fitted to the spacing of
        the nodes.
    font_size : float, optional
        Label size in points; by default fitted to the node size.
    title : str, optional
    random_state : int, optional, default=0
        Seed of the default and ``"spring"`` layouts.
    top_k : int, optional
        Draw only the `top_k` heaviest hyperedges in full and the others as
        `faded` says: in the primal view the shaded hyperedges (those of at
        least `min_size` nodes), in the factor view the factors (and their
        edges). A fitted model ranks them by the candidate hyperedge weight
        its structure was chosen by (``weights_``, the ML or MDL weight);
        a bare Hyperforest carries no weights (nor does a model loaded from
        disk, or one with a structure per class), so they rank by size,
        larger first, ties in the order of ``maximal_hyperedges``. A
        `top_k` of at least their number draws them all in full.
    faded : {"fade", "hide"}, default="fade"
        The hyperedges left out by `top_k`: drawn light (patch or factor
        alpha 0.15, outline 0.5 points), or not drawn.

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Primal view: the variables are one ``PathCollection`` with gid
        ``"nodes"`` (offsets in node order), the edges a ``LineCollection``
        with gid ``"edges"`` and each shaded hyperedge a ``PathPatch`` with
        gid ``"hyperedge"`` and its variables as label (``"a,b,c"``). Factor
        view: collections with gids ``"variables"`` (in node order),
        ``"factors"`` (in the order of ``maximal_hyperedges``) and ``"edges"``.

    Raises
    ------
    TypeError
        If `forest` is not a Hyperforest, or `labels` is neither a bool nor
        a dict.
    ValueError
        For an unknown `view` or `layout`, ``"bipartite"`` in the primal
        view, `pos` missing a node, `hyperedge_alpha` / `min_size` out of
        range, a `top_k` that is not an integer >= 1, or an unknown `faded`.

    See Also
    --------
    draw_junction_tree : the junction forest of the same hyperforest.
    hyperedge_outline : the shape of a shaded hyperedge.
    graphmodels.plotting.to_dot, graphmodels.plotting.to_graphml : export.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures import random_hypertree
    >>> forest = random_hypertree(6, 2, random_state=0)
    >>> ax = draw_hyperforest(forest, ax=Figure().subplots())
    >>> sum(patch.get_gid() == "hyperedge" for patch in ax.patches)
    4
    >>> ax = draw_hyperforest(forest, view="factor", ax=Figure().subplots())
    >>> [len(c.get_offsets()) for c in ax.collections if c.get_gid() in ("variables", "factors")]
    [6, 4]
    """
    model = forest
    forest = _as_hyperforest(forest)
    top_k = _check_top_k(top_k, faded)
    if view not in VIEWS:
        raise ValueError(f"Unknown view {view!r}; valid: {list(VIEWS)}.")
    if not isinstance(hyperedge_alpha, numbers.Real) or not 0 <= hyperedge_alpha <= 1:
        raise ValueError(f"`hyperedge_alpha` must be a number in [0, 1], got {hyperedge_alpha!r}.")
    _check_min_size(min_size)
    _check_labels(labels)
    valid = dict(HYPERFOREST_LAYOUTS)
    if view == "primal":
        del valid["bipartite"]
        graph = forest.primal_graph()
        positions = _layout(graph, layout, pos, random_state, valid, "kamada_kawai")
    else:
        graph = forest.factor_graph(maximal=True)
        if pos is not None:
            pos = _factor_positions(forest, pos)
        positions = _layout(graph, layout, pos, random_state, valid, "kamada_kawai")
    colors = _hyperedge_colors(forest, min_size, cmap)

    xy_all = np.array(list(positions.values()), dtype=float).reshape(-1, 2)
    if ax is None:
        ax = _new_axes(xy_all)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not positions:
        return ax

    variables = list(forest.nodes)
    xy = np.array([positions[v] for v in variables], dtype=float)
    spacing = _spacing(xy_all)
    ppu, _ = _frame(ax, xy_all, 0.8 * spacing, equal=True)
    texts = _label_texts(variables, labels)
    node_size, font_size = _sizes(spacing, ppu, texts, node_size, font_size)
    radius = math.sqrt(node_size) / 2 / ppu  # data units

    if view == "primal":
        strong = _strong_hyperedges(model, list(colors), top_k)
        if faded == "hide":
            colors = {h: c for h, c in colors.items() if strong[h]}
        _draw_hulls(ax, forest, positions, colors, radius, spacing, hyperedge_alpha, strong)
        segments = [(positions[u], positions[v]) for u, v in graph.edges]
        ax.add_collection(
            LineCollection(segments, colors=KIND_COLORS[None], linewidths=1.3, alpha=0.85, zorder=2, gid="edges"),
            autolim=False,
        )
        _draw_variables(
            ax, variables, xy, [forest.node_attributes[v] for v in variables], labels, node_size, font_size, "nodes"
        )
        return ax

    factors = list(forest.maximal_hyperedges)
    strong = _strong_hyperedges(model, factors, top_k)
    if faded == "hide":
        factors = [h for h in factors if strong[h]]
    fxy = np.array([positions[h] for h in factors], dtype=float).reshape(-1, 2)
    drawn = set(factors)
    edges = [(u, v) for u, v in graph.edges if (u if u in strong else v) in drawn]
    segments = [(positions[u], positions[v]) for u, v in edges]
    if top_k is None:
        edge_colors: Any = "#7a7a7a"
    else:
        edge_colors = [to_rgba("#7a7a7a", 0.8 if strong[u if u in strong else v] else FADED_ALPHA) for u, v in edges]
    ax.add_collection(
        LineCollection(
            segments, colors=edge_colors, linewidths=1.0, alpha=0.8 if top_k is None else None, zorder=2, gid="edges"
        ),
        autolim=False,
    )
    _draw_variables(
        ax, variables, xy, [forest.node_attributes[v] for v in variables], labels, node_size, font_size, "variables"
    )
    ax.scatter(
        fxy[:, 0],
        fxy[:, 1],
        s=0.45 * node_size,
        marker="s",
        c=[colors.get(h, _GREY) for h in factors]
        if top_k is None
        else [to_rgba(colors.get(h, _GREY), 1.0 if strong[h] else FADED_ALPHA) for h in factors],
        edgecolors="#333333"
        if top_k is None
        else [to_rgba("#333333", 1.0 if strong[h] else FADED_ALPHA) for h in factors],
        linewidths=0.8,
        zorder=3,
        gid="factors",
    )
    if labels is not False:
        for h, (x, y) in zip(factors, fxy):
            ax.text(
                x,
                y,
                str(len(h)),
                ha="center",
                va="center",
                fontsize=max(0.8 * font_size, 4.5),
                zorder=4,
                gid="factor-label",
            )
    return ax


def _factor_positions(forest, pos):
    """`pos` with missing factors placed at the mean of their variables."""
    filled = dict(pos)
    missing_variables = [v for v in forest.nodes if v not in pos]
    if missing_variables:
        raise ValueError(
            f"`pos` has no position for {len(missing_variables)} variable(s), e.g. {missing_variables[0]!r}."
        )
    xy = np.array([pos[v] for v in forest.nodes], dtype=float).reshape(-1, 2)
    lift = 0.4 * _spacing(xy)
    for h in forest.maximal_hyperedges:
        if h not in filled:
            centre = np.mean([pos[v] for v in h], axis=0)
            filled[h] = (centre[0], centre[1] + lift) if len(h) == 1 else tuple(centre)
    return filled


def _draw_hulls(ax, forest, positions, colors, radius, spacing, alpha, strong=None):
    """One padded hull per coloured hyperedge, largest first, beneath edges and nodes (faded unless `strong`)."""
    for i, (h, color) in enumerate(colors.items()):
        full = strong is None or strong[h]
        pad = 1.3 * radius + 0.06 * spacing * (1 + i % 3)  # staggered, so shared borders stay apart
        outline = hyperedge_outline([positions[v] for v in h], pad)
        path = Path(np.vstack([outline, outline[:1]]), closed=True)
        patch = PathPatch(
            path,
            facecolor=to_rgba(color, alpha),
            edgecolor=to_rgba(color, min(1.0, alpha + 0.55)),
            linewidth=1.2 if full else FADED_WIDTH,
            alpha=None if full else FADED_ALPHA,
            zorder=1 if full else 0.5,
            gid="hyperedge",
            label=_set_label(forest, h, line_length=10**9),
        )
        ax.add_patch(patch)
    if colors:
        vertices = np.vstack([p.get_path().vertices for p in ax.patches if p.get_gid() == "hyperedge"])
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        margin = 0.1 * spacing
        ax.set_xlim(min(x0, vertices[:, 0].min() - margin), max(x1, vertices[:, 0].max() + margin))
        ax.set_ylim(min(y0, vertices[:, 1].min() - margin), max(y1, vertices[:, 1].max() + margin))


def draw_junction_tree(
    forest: Hyperforest | BaseModel | nx.Graph,
    *,
    ax: Axes | None = None,
    layout: str | Callable[[nx.Graph], Any] | None = None,
    pos: dict[Any, Any] | None = None,
    labels: bool = True,
    sepsets: bool = True,
    min_size: int = 2,
    cmap: str | Colormap = "tab20",
    font_size: float | None = None,
    title: str | None = None,
    random_state: int | None = 0,
) -> Axes:
    """Draw the junction forest of a hyperforest: cliques joined by their separators.

    Each clique (maximal hyperedge) is a box labelled with its variables in
    node order (``"a,b,c"``), tinted with the colour its hyperedge has in
    :func:`draw_hyperforest` (grey below `min_size`); each edge carries a
    square box with its separator. By default every tree of the forest is
    drawn top-down from its most central clique, leaves one slot apart and
    each parent centred over its children; the trees stand side by side.

    Parameters
    ----------
    forest : Hyperforest or nx.Graph
        Or a fitted model whose ``structure_`` is one. Not changed. A graph
        is a junction tree itself, drawn with its own edges: frozenset
        cliques (with ``sepset`` on the edges, else their intersection), as
        :meth:`~graphmodels.structures.Hyperforest.junction_tree` and the
        inference layer's :attr:`JunctionTree.graph
        <graphmodels.inference.JunctionTree.graph>` give it (whose cliques
        may be joined by empty separators, written ``∅``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the layout is made if omitted.
    layout : str or callable, optional
        ``"tree"`` (default), any layout name of :func:`draw_hyperforest`
        except ``"bipartite"``, or a callable ``layout(graph) -> {node: (x, y)}``
        called on :meth:`~graphmodels.structures.Hyperforest.junction_tree`
        (on the graph given).
    pos : dict, optional
        Clique (frozenset) -> ``(x, y)``; overrides `layout`.
    labels : bool, default=True
        Write the variables of each clique (else draw plain dots).
    sepsets : bool, default=True
        Write the separator of each edge.
    min_size : int, default=2
        Cliques smaller than this are grey.
    cmap : str or matplotlib.colors.Colormap, default="tab20"
    font_size : float, optional
        Clique label size in points; by default fitted to the room per
        clique (separators 1.5 points smaller).
    title : str, optional
    random_state : int, optional, default=0
        Seed of the ``"kamada_kawai"`` and ``"spring"`` layouts.

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        The cliques are a ``PathCollection`` with gid ``"cliques"`` (offsets
        in the order of ``maximal_hyperedges``, of the graph's nodes for a
        graph); their labels texts with gid
        ``"clique"``, the separators texts with gid ``"sepset"`` and the edges
        a ``LineCollection`` with gid ``"edges"``.

    Raises
    ------
    TypeError
        If `forest` is not a Hyperforest, or a graph whose nodes are not all frozensets.
    ValueError
        For an unknown `layout`, `pos` missing a clique, a bad `min_size`, or
        a graph whose cliques are not those of a junction tree (not acyclic).

    See Also
    --------
    draw_hyperforest
    graphmodels.structures.Hyperforest.junction_tree

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> forest = Hyperforest([("a", "b", "c"), ("b", "c", "d"), ("d", "e")])
    >>> ax = draw_junction_tree(forest, ax=Figure().subplots())
    >>> sorted(t.get_text() for t in ax.texts if t.get_gid() == "clique")
    ['a,b,c', 'b,c,d', 'd,e']
    >>> sorted(t.get_text() for t in ax.texts if t.get_gid() == "sepset")
    ['b,c', 'd']
    """
    if isinstance(forest, nx.Graph):
        tree = forest
        cliques = list(tree.nodes)
        if not all(isinstance(h, frozenset) for h in cliques):
            raise TypeError(
                "Expected a Hyperforest, a fitted model whose `structure_` is one, or a junction tree: a graph "
                "whose nodes are frozenset cliques (Hyperforest.junction_tree(), JunctionTree.graph); got a graph "
                "with other nodes."
            )
        forest = Hyperforest(cliques)  # the colours and the variables' order of the labels
    else:
        forest = _as_hyperforest(forest)
        tree = forest.junction_tree()
        cliques = list(forest.maximal_hyperedges)
        ordered = nx.Graph()  # cliques in the order of `maximal_hyperedges`
        ordered.add_nodes_from((h, tree.nodes[h]) for h in cliques)
        ordered.add_edges_from(tree.edges(data=True))
        tree = ordered
    _check_min_size(min_size)
    if not isinstance(labels, bool):
        raise TypeError(f"`labels` must be a bool, got {type(labels).__name__}.")
    valid = {"tree": _tree_layout, **{k: v for k, v in HYPERFOREST_LAYOUTS.items() if k != "bipartite"}}
    positions = _layout(tree, layout, pos, random_state, valid, "tree")
    colors = _hyperedge_colors(forest, min_size, cmap)

    xy = np.array([positions[h] for h in cliques], dtype=float).reshape(-1, 2)
    if ax is None:
        ax = _new_axes(xy, aspect=0.7)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not cliques:
        return ax

    spacing = _spacing(xy)
    xs, ys = np.unique(np.round(xy[:, 0], 9)), np.unique(np.round(xy[:, 1], 9))
    slot_x = float(np.min(np.diff(xs))) if len(xs) > 1 else spacing
    slot_y = float(np.min(np.diff(ys))) if len(ys) > 1 else spacing
    ppu_x, ppu_y = _frame(ax, xy, np.array([0.6 * slot_x, 0.5 * slot_y]), equal=False)
    texts = [_set_label(forest, h) for h in cliques]
    if font_size is None:
        font_size = _fitting_font_size(
            texts, 0.95 * slot_x * ppu_x, 0.4 * slot_y * ppu_y, char_width=0.58, line_height=1.25
        )
    font_size = float(font_size)

    segments = [(positions[u], positions[v]) for u, v in tree.edges]
    ax.add_collection(LineCollection(segments, colors="#7a7a7a", linewidths=1.2, zorder=1, gid="edges"), autolim=False)
    fills = [colors.get(h, _GREY) for h in cliques]
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=font_size**2 if labels else 120.0,
        c=[to_rgba(c, 1.0) for c in fills],
        edgecolors="#4d4d4d",
        linewidths=0.8,
        zorder=2,
        gid="cliques",
    )
    if labels:
        for text, (x, y), fill in zip(texts, xy, fills):
            ax.text(
                x,
                y,
                text,
                ha="center",
                va="center",
                fontsize=font_size,
                zorder=4,
                linespacing=1.0,
                gid="clique",
                bbox={
                    "boxstyle": "round,pad=0.35",
                    "facecolor": _blend(fill, 0.45),
                    "edgecolor": to_rgba(fill, 1.0) if fill != _GREY else "#8d8d8d",
                    "linewidth": 1.2,
                },
            )
    if sepsets:
        for u, v, shared in tree.edges(data="sepset"):
            (ux, uy), (vx, vy) = positions[u], positions[v]
            shared = u & v if shared is None else shared
            ax.text(
                (ux + vx) / 2,
                (uy + vy) / 2,
                _set_label(forest, shared) if shared else "∅",
                ha="center",
                va="center",
                fontsize=max(font_size - 1.5, 4.0),
                zorder=3,
                linespacing=1.0,
                color="#333333",
                gid="sepset",
                bbox={"boxstyle": "square,pad=0.2", "facecolor": "white", "edgecolor": "#7a7a7a", "linewidth": 0.8},
            )
    return ax


def _factor_graph_of(obj: Any) -> nx.Graph:
    """The factor graph to draw: the graph itself, a distribution's, or a model's (through its distribution)."""
    if isinstance(obj, nx.Graph):
        kinds = {kind for _, kind in obj.nodes(data="kind")}
        if not kinds <= {"variable", "factor"} or not obj.number_of_nodes():
            raise ValueError(
                'A factor graph has nodes of kind="variable" and kind="factor" (Distribution.factor_graph, '
                "Hyperforest.factor_graph())."
            )
        return obj
    source = obj.distribution() if callable(getattr(obj, "distribution", None)) else obj
    graph = getattr(source, "factor_graph", None)
    if isinstance(graph, nx.Graph):
        return graph
    raise TypeError(
        "Expected a factor graph (an nx.Graph), a Distribution or a model whose distribution is one; got "
        f"{type(obj).__name__}" + (" (a mixture: draw one component's)" if hasattr(source, "components") else "") + "."
    )


def draw_factor_graph(
    graph_or_distribution: Any,
    *,
    ax: Axes | None = None,
    layout: str | Callable[[nx.Graph], Any] | None = None,
    pos: dict[Any, Any] | None = None,
    labels: bool | dict[Any, str] = True,
    node_size: float | None = None,
    font_size: float | None = None,
    title: str | None = None,
    random_state: int | None = 0,
) -> Axes:
    """Draw a factor graph: variables as circles, factors as small squares joined to their variables.

    The graph on which loopy belief propagation passes its messages
    (:attr:`Distribution.factor_graph <graphmodels.inference.Distribution.factor_graph>`,
    :attr:`QueryTrace.graph <graphmodels.inference.QueryTrace.graph>`); a hyperforest's
    (:meth:`~graphmodels.structures.Hyperforest.factor_graph`) is drawn the same way, without
    the hyperedge colours of ``draw_hyperforest(view="factor")``. Variables are filled by
    ``role`` as in :func:`~graphmodels.plotting.draw_network`; each factor is labelled with its
    number of variables.

    Parameters
    ----------
    graph_or_distribution : nx.Graph, Distribution or fitted model
        A graph with ``kind="variable"`` and ``kind="factor"`` nodes, or what has a
        distribution whose factor graph is drawn.
    ax : matplotlib.axes.Axes, optional
    layout : str or callable, optional
        A layout of :func:`draw_hyperforest` (default ``"kamada_kawai"``; ``"bipartite"``
        puts the variables on one row and the factors above).
    pos : dict, optional
        Node -> ``(x, y)``; overrides `layout`.
    labels : bool or dict, default=True
    node_size, font_size : float, optional
    title : str, optional
    random_state : int, optional, default=0

    Returns
    -------
    matplotlib.axes.Axes
        The variables are a ``PathCollection`` with gid ``"variables"`` and the factors one
        with gid ``"factors"`` (offsets in the graph's order of each), the edges a
        ``LineCollection`` with gid ``"edges"``.

    Raises
    ------
    TypeError
        For something without a factor graph (a mixture has one per component).
    ValueError
        For a graph whose nodes are not variables and factors, or an unknown `layout`.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.inference import Distribution, Factor
    >>> rain = Factor.from_values(["rain"], [0.8, 0.2])
    >>> wet = Factor.from_values(["rain", "wet"], [[0.9, 0.1], [0.2, 0.8]])
    >>> ax = draw_factor_graph(Distribution([rain, wet]), ax=Figure().subplots())
    >>> [len(c.get_offsets()) for c in ax.collections if c.get_gid() in ("variables", "factors")]
    [2, 2]
    """
    graph = _factor_graph_of(graph_or_distribution)
    _check_labels(labels)
    positions = _layout(graph, layout, pos, random_state, HYPERFOREST_LAYOUTS, "kamada_kawai")
    variables = [n for n, kind in graph.nodes(data="kind") if kind == "variable"]
    factors = [n for n, kind in graph.nodes(data="kind") if kind == "factor"]
    xy_all = np.array(list(positions.values()), dtype=float).reshape(-1, 2)
    if ax is None:
        ax = _new_axes(xy_all)
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    spacing = _spacing(xy_all)
    ppu, _ = _frame(ax, xy_all, 0.8 * spacing, equal=True)
    texts = _label_texts(variables, labels)
    node_size, font_size = _sizes(spacing, ppu, texts, node_size, font_size)
    segments = [(positions[u], positions[v]) for u, v in graph.edges]
    ax.add_collection(
        LineCollection(segments, colors="#7a7a7a", linewidths=1.0, alpha=0.8, zorder=2, gid="edges"), autolim=False
    )
    xy = np.array([positions[v] for v in variables], dtype=float).reshape(-1, 2)
    _draw_variables(ax, variables, xy, [graph.nodes[v] for v in variables], labels, node_size, font_size, "variables")
    fxy = np.array([positions[f] for f in factors], dtype=float).reshape(-1, 2)
    ax.scatter(
        fxy[:, 0],
        fxy[:, 1],
        s=0.45 * node_size,
        marker="s",
        c=_GREY,
        edgecolors="#333333",
        linewidths=0.8,
        zorder=3,
        gid="factors",
    )
    if labels is not False:
        for f, (x, y) in zip(factors, fxy):
            size = graph.nodes[f].get("size", graph.degree(f))
            ax.text(x, y, str(size), ha="center", va="center", fontsize=max(0.8 * font_size, 4.5), zorder=4)
    return ax


def _blend(color, alpha):
    """`color` at opacity `alpha` over white, as an opaque RGBA (label boxes hide the edges behind them)."""
    r, g, b, _ = to_rgba(color)
    return (1 - alpha + alpha * r, 1 - alpha + alpha * g, 1 - alpha + alpha * b, 1.0)
