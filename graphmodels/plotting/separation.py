"""The d-separation drawing: :func:`draw_d_separation` highlights the active trails between two nodes.

An entry module of the plotting package (like ``dispatch``): it draws the structure with
:func:`~graphmodels.plotting.draw_graph` and marks on it what the structure says about one
independence question -- the observed nodes shaded, the two asked ringed, every edge of an
active trail (Koller & Friedman 2009, section 3.3; :func:`graphmodels.inference.active_trails`)
in red, and a caption with the answer.

References
----------
.. [1] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press. Sections 3.3 and 4.3.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.lines import Line2D

from ..inference import Distribution, Mixture
from ..inference.separation import active_trails, d_separated, separated
from ._common import as_graph
from .network import draw_graph

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_d_separation", "ACTIVE_COLOR", "OBSERVED_COLOR"]

#: The edges of active trails, the observed nodes, the ring around the nodes asked about.
ACTIVE_COLOR = "#d62828"
OBSERVED_COLOR = "#8d99ae"
ASKED_COLOR = "#1d3557"


def _nodes(value: Any, graph: nx.Graph, what: str) -> list[Hashable]:
    """A node or an iterable of nodes, as a list (a tuple that is a node is one node)."""
    if value is None:
        return []
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, Iterable)
        or (isinstance(value, tuple) and value in graph)
    ):
        value = [value]
    nodes = list(dict.fromkeys(value))
    missing = [n for n in nodes if n not in graph]
    if missing:
        raise ValueError(f"`{what}`: {missing[0]!r} is not a node of the graph.")
    return nodes


def _with_roles(graph: nx.Graph, obj: Any) -> nx.Graph:
    labels = getattr(obj, "label_names_", None)
    classes = set(labels) if labels is not None else {getattr(obj, "class_name_", None)}
    if isinstance(obj, Mixture) and obj.label is not None:
        classes.add(obj.label)
    graph = graph.copy()
    for node, data in graph.nodes(data=True):
        data.setdefault("role", "class" if node in classes else "feature")
    return graph


def _separation_graphs(obj: Any) -> tuple[nx.Graph, nx.Graph]:
    """The graph the question is asked of (a DAG, or a Markov network) and the graph drawn (with roles and kinds)."""
    if isinstance(obj, nx.Graph):
        return obj, obj
    if isinstance(obj, (Distribution, Mixture)):
        return obj.graph, _with_roles(obj.graph, obj)
    distribution = getattr(obj, "distribution", None)
    if not callable(distribution):
        raise TypeError(
            "draw_d_separation draws a DAG or an undirected graph (networkx), a model with a distribution, "
            f"a DiscreteBayesianNetwork or a Distribution; got {type(obj).__name__}."
        )
    asked = distribution().graph  # a NotFittedError for a model not fitted
    drawn = None
    if getattr(obj, "structure_", None) is not None:
        structure = as_graph(obj)
        if (
            structure.is_directed() == asked.is_directed()
            and set(structure.nodes) == set(asked.nodes)
            and {frozenset(e) if not asked.is_directed() else e for e in structure.edges}
            == {frozenset(e) if not asked.is_directed() else e for e in asked.edges}
        ):
            drawn = structure
    return asked, drawn if drawn is not None else _with_roles(asked, obj)


def _trails(graph, xs, ys, zs, max_trails):
    """The active trails (DAG) or unblocked paths (Markov network) between `xs` and `ys` given `zs`; whether capped.

    At most ``max_trails + 1`` are looked for: one more tells that there are more.
    """
    found: list[list[Hashable]] = []
    rest = None if graph.is_directed() else graph.subgraph(set(graph) - set(zs))
    for a in xs:
        for b in ys:
            room = max_trails + 1 - len(found)
            if room <= 0:
                break
            if rest is None:
                found.extend(active_trails(graph, a, b, zs, max_trails=room))
            elif nx.has_path(rest, a, b):
                for path in nx.shortest_simple_paths(rest, a, b):
                    found.append(path)
                    if len(found) > max_trails:
                        break
    return found[:max_trails], len(found) > max_trails


def _set_text(nodes: list[Hashable]) -> str:
    return ", ".join(map(str, nodes)) if len(nodes) == 1 else "{" + ", ".join(map(str, nodes)) + "}"


def _trail_text(graph: nx.Graph, trail: list[Hashable]) -> str:
    if not graph.is_directed():
        return " - ".join(map(str, trail))
    parts = [str(trail[0])]
    for a, b in zip(trail, trail[1:]):
        parts.append(("→ " if graph.has_edge(a, b) else "← ") + str(b))
    return " ".join(parts)


def draw_d_separation(
    model_or_dag: Any,
    x: Hashable | Iterable[Hashable],
    y: Hashable | Iterable[Hashable],
    given: Hashable | Iterable[Hashable] | None = None,
    *,
    ax: Axes | None = None,
    layout: str | dict[Any, Any] | None = None,
    max_trails: int = 100,
    title: str | None = None,
    legend: bool = True,
    **draw_options: Any,
) -> Axes:
    """Draw whether `given` d-separates `x` from `y`: the active trails in red, the observed nodes shaded.

    The structure is drawn as :func:`~graphmodels.plotting.draw_graph` draws it (the class on
    top, arcs by kind); on it the observed nodes (`given`) are filled grey, `x` and `y` ringed,
    and every edge of an active trail between them red and thick, the other edges faded. A trail
    is active when each collider on it (``a -> b <- c``) is observed or has an observed
    descendant and no other node on it is observed; `x` and `y` are d-separated -- independent
    in every distribution the DAG admits -- exactly when no trail is active. The caption says
    which, and shows the shortest active trail. For a Markov network (an undirected graph,
    or a model whose tables are potentials) the question is plain separation: the paths that
    avoid the observed nodes are drawn instead.

    Parameters
    ----------
    model_or_dag : nx.DiGraph, nx.Graph, fitted model, DiscreteBayesianNetwork or Distribution
        A model is asked through its distribution's graph (``model.distribution().graph``: its
        DAG, or its Markov network for log-potentials and mixtures) and drawn as its
        ``structure_`` when that is the same graph.
    x, y : node or iterable of nodes
    given : node or iterable of nodes, optional
        The observed nodes.
    ax : matplotlib.axes.Axes, optional
    layout : str or dict, optional
        As for :func:`~graphmodels.plotting.draw_network`.
    max_trails : int, default=100
        The most trails drawn, the shortest first (a dense graph has exponentially many); the
        caption says when there are more.
    title : str, optional
        Default: the answer, ``"HR and BP are d-connected given CO: 1 active trail"``, and the
        shortest trail.
    legend : bool, default=True
    **draw_options
        Passed to :func:`~graphmodels.plotting.draw_graph` (``node_size``, ``font_size``, ...).

    Returns
    -------
    matplotlib.axes.Axes
        The drawing of :func:`~graphmodels.plotting.draw_graph`, its edges (``FancyArrowPatch``,
        in graph order) restyled: those on an active trail with gid ``"edge:active"``. The
        observed nodes are a ``PathCollection`` with gid ``"observed"``, the ring around `x` and
        `y` one with gid ``"asked"``.

    Raises
    ------
    TypeError
        For something that is neither a graph nor a model with a distribution.
    ValueError
        For a node not in the graph, `x`, `y` and `given` not disjoint, or a `max_trails` below 1.

    See Also
    --------
    graphmodels.inference.d_separated, graphmodels.inference.active_trails
    graphmodels.models.queries.StructureQuestions.independent

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> dag = nx.DiGraph([("rain", "wet"), ("sprinkler", "wet"), ("wet", "slippery")])
    >>> ax = draw_d_separation(dag, "rain", "sprinkler", given="slippery")
    >>> ax.get_title().splitlines()[0]
    'rain and sprinkler are d-connected given slippery: 1 active trail'
    >>> sorted(p.get_gid() for p in ax.patches)
    ['edge', 'edge:active', 'edge:active']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if isinstance(max_trails, bool) or not isinstance(max_trails, int) or max_trails < 1:
        raise ValueError(f"`max_trails` must be an integer >= 1, got {max_trails!r}.")
    asked, drawn = _separation_graphs(model_or_dag)
    xs, ys, zs = _nodes(x, asked, "x"), _nodes(y, asked, "y"), _nodes(given, asked, "given")
    directed = asked.is_directed()
    apart = d_separated(asked, xs, ys, zs) if directed else separated(asked, xs, ys, zs)
    trails, capped = ([], False) if apart else _trails(asked, xs, ys, zs, max_trails)
    on_trails = {frozenset(pair) for trail in trails for pair in zip(trail, trail[1:])}

    before = len(ax.patches) if ax is not None else 0
    ax = draw_graph(drawn, ax, layout=layout, legend=False, **draw_options)
    edges = [p for p in ax.patches[before:] if (p.get_gid() or "").startswith("edge")]
    for patch, (u, v) in zip(edges, drawn.edges()):  # draw_graph adds one patch per edge, in graph order
        if frozenset((u, v)) in on_trails:
            patch.set_color(ACTIVE_COLOR)
            patch.set_linewidth(3.0)
            patch.set_linestyle("-")
            patch.set_alpha(0.95)
            patch.set_zorder(2.5)
            patch.set_gid("edge:active")
        else:
            patch.set_alpha(0.3)
    nodes = list(drawn.nodes)
    collection: Any = next(c for c in ax.collections if c.get_gid() == "nodes")  # draw_graph's PathCollection
    xy = np.asarray(collection.get_offsets())
    size = float(np.max(collection.get_sizes()))
    where = {n: xy[i] for i, n in enumerate(nodes)}
    if zs:
        points = np.array([where[n] for n in zs])
        ax.scatter(
            points[:, 0],
            points[:, 1],
            s=size,
            c=OBSERVED_COLOR,
            edgecolors="#2b2d42",
            linewidths=1.2,
            zorder=3.2,
            gid="observed",
        )
    points = np.array([where[n] for n in xs + ys])
    ax.scatter(
        points[:, 0],
        points[:, 1],
        s=1.9 * size,
        facecolors="none",
        edgecolors=ASKED_COLOR,
        linewidths=2.4,
        zorder=3.4,
        gid="asked",
    )
    if title is None:
        relation = ("d-separated" if apart else "d-connected") if directed else ("separated" if apart else "connected")
        given_text = f" given {_set_text(zs)}" if zs else ""
        head = f"{_set_text(xs)} and {_set_text(ys)} are {relation}{given_text}"
        what = "active trail" if directed else "path avoiding the observed nodes"
        if apart:
            title = f"{head}: no {what}"
        else:
            count = f"{'more than ' if capped else ''}{len(trails)} {what}{'s' if len(trails) != 1 or capped else ''}"
            title = f"{head}: {count}\n{_trail_text(asked, trails[0])}" + (
                f" (the {len(trails)} shortest drawn)" if capped else ""
            )
    ax.set_title(title, fontsize=10)
    if legend:
        handles = [
            Line2D([], [], color=ACTIVE_COLOR, linewidth=3, label="active trail" if directed else "unblocked path"),
            Line2D(
                [],
                [],
                linestyle="",
                marker="o",
                markersize=9,
                markerfacecolor=OBSERVED_COLOR,
                markeredgecolor="#2b2d42",
                label="observed",
            ),
            Line2D(
                [],
                [],
                linestyle="",
                marker="o",
                markersize=11,
                markerfacecolor="none",
                markeredgecolor=ASKED_COLOR,
                markeredgewidth=2,
                label=f"asked: {_set_text(xs)} and {_set_text(ys)}",
            ),
        ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, 0.0), ncol=3, fontsize=8, frameon=False)
    return ax
