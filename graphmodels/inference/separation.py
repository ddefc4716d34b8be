"""What the structure alone says: d-separation, active trails, Markov blankets, graph separation.

In a Bayesian network, ``X`` and ``Y`` are independent given ``Z`` in every distribution the
DAG admits exactly when ``Z`` d-separates them: no trail between them is active, a trail being
active when each collider on it (``a -> b <- c``) is in ``Z`` or has a descendant in ``Z``, and
no other node on it is in ``Z`` (Pearl 1988; Koller & Friedman 2009, section 3.3). In a Markov
network the criterion is plain separation: every path from ``X`` to ``Y`` meets ``Z``.
networkx decides d-separation (:func:`networkx.is_d_separator`,
:func:`networkx.find_minimal_d_separator`); the functions here add the questions a course asks
next: which nodes are reachable by an active trail (Koller & Friedman's Algorithm 3.1), which
trails are active, and the Markov blanket.

References
----------
.. [1] Pearl, J. (1988). *Probabilistic Reasoning in Intelligent Systems*. Morgan Kaufmann.
.. [2] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press. Sections 3.3 and 4.3.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import networkx as nx

__all__ = [
    "active_trail_nodes",
    "active_trails",
    "d_separated",
    "independent",
    "markov_blanket",
    "minimal_d_separator",
    "separated",
]


def _set(nodes: Hashable | Iterable[Hashable] | None, graph: nx.Graph, what: str) -> set[Hashable]:
    if nodes is None:
        return set()
    if (
        isinstance(nodes, (str, bytes))
        or not isinstance(nodes, Iterable)
        or isinstance(nodes, tuple)
        and nodes in graph
    ):
        nodes = [nodes]
    result = set(nodes)
    missing = [n for n in result if n not in graph]
    if missing:
        raise ValueError(f"{what}: {missing[0]!r} is not a node of the graph.")
    return result


def d_separated(dag: nx.DiGraph, x, y, given=None) -> bool:
    """Whether `given` d-separates `x` from `y` in `dag` (nodes or sets of nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> dag = nx.DiGraph([("rain", "wet"), ("sprinkler", "wet"), ("wet", "slippery")])
    >>> d_separated(dag, "rain", "sprinkler"), d_separated(dag, "rain", "sprinkler", "slippery")
    (True, False)
    """
    if not dag.is_directed():
        raise TypeError("d-separation is defined on a DAG; use `separated` for an undirected graph.")
    xs, ys, zs = _set(x, dag, "x"), _set(y, dag, "y"), _set(given, dag, "given")
    if xs & ys or (xs | ys) & zs:
        raise ValueError("`x`, `y` and `given` must be disjoint.")
    return bool(nx.is_d_separator(dag, xs, ys, zs))


def minimal_d_separator(dag: nx.DiGraph, x, y, *, included=None, restricted=None) -> set[Hashable] | None:
    """A smallest set that d-separates `x` from `y` (containing `included`, within `restricted`), or None."""
    xs, ys = _set(x, dag, "x"), _set(y, dag, "y")
    found = nx.find_minimal_d_separator(
        dag, xs, ys, included=_set(included, dag, "included"), restricted=_set(restricted, dag, "restricted") or None
    )
    return None if found is None else set(found)


def separated(graph: nx.Graph, x, y, given=None) -> bool:
    """Whether every path from `x` to `y` in the undirected `graph` passes through `given`."""
    xs, ys, zs = _set(x, graph, "x"), _set(y, graph, "y"), _set(given, graph, "given")
    if xs & ys or (xs | ys) & zs:
        raise ValueError("`x`, `y` and `given` must be disjoint.")
    undirected = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    rest = undirected.subgraph(set(undirected) - zs)
    reached: set[Hashable] = set()
    for source in xs:
        reached |= nx.node_connected_component(rest, source)
    return not (reached & ys)


def independent(graph: nx.Graph, x, y, given=None) -> bool:
    """The structure's independence: d-separation in a DAG, separation in an undirected graph."""
    return d_separated(graph, x, y, given) if graph.is_directed() else separated(graph, x, y, given)


def markov_blanket(graph: nx.Graph, node: Hashable) -> set[Hashable]:
    """Parents, children and the children's other parents in a DAG; the neighbours in a Markov network.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(markov_blanket(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")]), "a"))
    ['b', 'c']
    """
    _set(node, graph, "node")
    if not graph.is_directed():
        return set(graph.neighbors(node))
    blanket = set(graph.predecessors(node)) | set(graph.successors(node))
    for child in graph.successors(node):
        blanket |= set(graph.predecessors(child))
    blanket.discard(node)
    return blanket


def active_trail_nodes(dag: nx.DiGraph, source: Hashable, given=None) -> set[Hashable]:
    """The nodes reachable from `source` by an active trail given `given` (Koller & Friedman, Algorithm 3.1).

    `source` itself is included; an observed node is never reached.

    Examples
    --------
    >>> import networkx as nx
    >>> dag = nx.DiGraph([("rain", "wet"), ("sprinkler", "wet")])
    >>> sorted(active_trail_nodes(dag, "rain")), sorted(active_trail_nodes(dag, "rain", "wet"))
    (['rain', 'wet'], ['rain', 'sprinkler'])
    """
    zs = _set(given, dag, "given")
    _set(source, dag, "source")
    # Phase 1: the observed nodes and their ancestors (a collider is open when it is one of them).
    open_colliders = set(zs)
    for z in zs:
        open_colliders |= nx.ancestors(dag, z)
    # Phase 2: breadth-first search over (node, direction): "up" = reached from a child.
    reachable: set[Hashable] = set()
    visited: set[tuple[Hashable, str]] = set()
    frontier = [(source, "up")]
    while frontier:
        node, direction = frontier.pop()
        if (node, direction) in visited:
            continue
        visited.add((node, direction))
        if node not in zs:
            reachable.add(node)
        if direction == "up" and node not in zs:
            frontier.extend((parent, "up") for parent in dag.predecessors(node))
            frontier.extend((child, "down") for child in dag.successors(node))
        elif direction == "down":
            if node not in zs:
                frontier.extend((child, "down") for child in dag.successors(node))
            if node in open_colliders:  # a v-structure opened by the evidence
                frontier.extend((parent, "up") for parent in dag.predecessors(node))
    return reachable


def _trail_is_active(dag: nx.DiGraph, trail: list[Hashable], zs: set[Hashable], open_colliders: set[Hashable]) -> bool:
    for a, b, c in zip(trail, trail[1:], trail[2:]):
        collider = dag.has_edge(a, b) and dag.has_edge(c, b)
        if collider and b not in open_colliders:
            return False
        if not collider and b in zs:
            return False
    return True


def active_trails(
    dag: nx.DiGraph, x: Hashable, y: Hashable, given=None, *, max_trails: int = 100, max_examined: int = 100_000
) -> list[list[Hashable]]:
    """The active trails from `x` to `y` given `given` (at most `max_trails`, shortest first).

    A trail is a path in the DAG's skeleton; the trails are listed by length, so the first
    ones are those a reader checks first. At most `max_examined` trails are looked at (a dense
    graph has exponentially many). Only nodes that can lie on an active trail are searched:
    every prefix of an active trail is active, so each of its nodes is observed or reachable
    from `x` by an active trail, and likewise from `y` (and d-separated nodes have none).

    Examples
    --------
    >>> import networkx as nx
    >>> dag = nx.DiGraph([("rain", "wet"), ("sprinkler", "wet"), ("wet", "slippery")])
    >>> active_trails(dag, "rain", "sprinkler", given="slippery")
    [['rain', 'wet', 'sprinkler']]
    """
    zs = _set(given, dag, "given")
    _set([x, y], dag, "x, y")
    if x in zs or y in zs:
        raise ValueError("`x` and `y` must not be observed.")
    open_colliders = set(zs)
    for z in zs:
        open_colliders |= nx.ancestors(dag, z)
    found: list[list[Hashable]] = []
    if nx.is_d_separator(dag, {x}, {y}, zs):
        return found
    onto = (active_trail_nodes(dag, x, zs) | zs) & (active_trail_nodes(dag, y, zs) | zs)
    skeleton = dag.to_undirected(as_view=True).subgraph(onto)
    for examined, trail in enumerate(nx.shortest_simple_paths(skeleton, x, y)):
        if examined >= max_examined:
            break
        if _trail_is_active(dag, trail, zs, open_colliders):
            found.append(trail)
            if len(found) >= max_trails:
                break
    return found
