"""Elimination orders and the cliques they induce: min-fill, min-weight, min-degree.

Eliminating a variable from a product of factors joins all factors that mention it into one
table over the variable and its current neighbours in the interaction graph, then connects
those neighbours (the *fill-in*). The largest such table decides the cost of exact inference;
its number of variables minus one is the *induced width* of the order, and the best order's
induced width is the tree-width of the graph. Finding that order is NP-hard, so the classical
greedy heuristics pick, at each step, the variable that adds the fewest fill-in edges
(min-fill), makes the smallest table (min-weight: the product of the cardinalities) or has the
fewest neighbours (min-degree) (Koller & Friedman 2009, section 9.4.3.1; Kjaerulff 1990).

The functions work on variable positions ``0 .. n - 1``; :func:`elimination_order` also takes
an ``nx.Graph`` of named variables.

References
----------
.. [1] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press. Section 9.4.3.
.. [2] Kjaerulff, U. (1990). Triangulation of graphs: algorithms giving small total state
   space. Technical report R-90-09, Aalborg University.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import networkx as nx

__all__ = ["HEURISTICS", "EliminationOrder", "elimination_order", "greedy_elimination", "induced_width"]

#: The greedy elimination heuristics, by name.
HEURISTICS = ("min-fill", "min-weight", "min-degree")


class EliminationOrder:
    """A greedy elimination order and the cliques it induces.

    Attributes
    ----------
    order : list of int
        The variables in the order they are eliminated.
    cliques : list of frozenset of int
        ``cliques[k]`` is the variable ``order[k]`` with its neighbours at the time it is
        eliminated: the table that elimination step builds.
    width : int
        The induced width: the size of the largest clique minus one.
    largest : int
        States of the largest clique (the product of its cardinalities).
    """

    __slots__ = ("order", "cliques", "width", "largest")

    def __init__(self, order: list[int], cliques: list[frozenset[int]], cardinalities: Sequence[int]) -> None:
        self.order = order
        self.cliques = cliques
        self.width = max((len(c) for c in cliques), default=1) - 1
        self.largest = max((math.prod(cardinalities[v] for v in c) for c in cliques), default=1)

    def __repr__(self) -> str:
        return f"EliminationOrder(width={self.width}, largest={self.largest}, order={self.order})"


def _score(heuristic: str, v: int, adjacency: list[set[int]], cards: Sequence[int]) -> float:
    neighbours = adjacency[v]
    if heuristic == "min-degree":
        return len(neighbours)
    if heuristic == "min-weight":
        return math.log(cards[v]) + sum(math.log(cards[u]) for u in neighbours)
    # Missing edges among the neighbours, by C-level set differences: each neighbour a misses
    # |N(v) - N(a)| - 1 of the others (itself included in the difference), each pair counted twice.
    return sum(len(neighbours - adjacency[a]) - 1 for a in neighbours) // 2


def greedy_elimination(
    adjacency: Sequence[Iterable[int]],
    cardinalities: Sequence[int],
    *,
    heuristic: str = "min-fill",
    eliminate: Iterable[int] | None = None,
    first: Iterable[int] | None = None,
) -> EliminationOrder:
    """Eliminate variables greedily by `heuristic`; the order and its cliques.

    Parameters
    ----------
    adjacency : sequence of iterable of int
        ``adjacency[v]``: the neighbours of variable ``v`` in the interaction graph (variables
        that share a factor).
    cardinalities : sequence of int
        States of each variable (min-weight uses them).
    heuristic : {"min-fill", "min-weight", "min-degree"}
        The greedy criterion; ties go to the variable with the smaller weight, then position.
    eliminate : iterable of int, optional
        The variables to eliminate (default all). The others stay in the graph.
    first : iterable of int, optional
        Variables that must be eliminated before all the others of `eliminate` (the summed
        variables of a marginal MAP query, eliminated before the maximized ones).

    Returns
    -------
    EliminationOrder
    """
    if heuristic not in HEURISTICS:
        raise ValueError(f"`heuristic` must be one of {', '.join(map(repr, HEURISTICS))}, got {heuristic!r}.")
    cards = [int(r) for r in cardinalities]
    graph = [set(neighbours) for neighbours in adjacency]
    for v, neighbours in enumerate(graph):
        neighbours.discard(v)
        for u in neighbours:
            graph[u].add(v)
    remaining = set(range(len(graph)) if eliminate is None else eliminate)
    stages = [set(first) & remaining] if first is not None else []
    stages.append(remaining - (stages[0] if stages else set()))
    order: list[int] = []
    cliques: list[frozenset[int]] = []
    for stage in stages:
        heap = [(_score(heuristic, v, graph, cards), _weight(v, graph, cards), v) for v in stage]
        heapq.heapify(heap)
        current = {v: score for score, _, v in heap}
        while heap:
            score, _, v = heapq.heappop(heap)
            if v not in current or score != current[v]:
                continue  # a stale entry
            del current[v]
            neighbours = graph[v]
            cliques.append(frozenset(neighbours | {v}))
            order.append(v)
            listed = list(neighbours)
            filled = False
            for u in listed:
                graph[u].discard(v)
                before = len(graph[u])
                graph[u].update(w for w in listed if w != u)
                filled = filled or len(graph[u]) != before
            graph[v] = set()
            # The neighbours' scores change; with fill-in edges, so may those of their neighbours.
            affected = set(listed)
            if heuristic == "min-fill" and filled:
                for u in listed:
                    affected |= graph[u]
            for u in affected:
                if u in current:
                    new = _score(heuristic, u, graph, cards)
                    if new != current[u]:
                        current[u] = new
                        heapq.heappush(heap, (new, _weight(u, graph, cards), u))
    return EliminationOrder(order, cliques, cards)


def _weight(v: int, graph: list[set[int]], cards: Sequence[int]) -> float:
    return math.log(cards[v]) + sum(math.log(cards[u]) for u in graph[v])


def elimination_order(
    graph: nx.Graph, *, heuristic: str = "min-fill", cardinality: str = "cardinality"
) -> tuple[list[Hashable], int]:
    """A greedy elimination order of an undirected graph, and its induced width.

    Parameters
    ----------
    graph : nx.Graph
        The interaction graph (a Markov network, or the moral graph of a Bayesian network).
    heuristic : {"min-fill", "min-weight", "min-degree"}
    cardinality : str
        The node attribute holding each variable's number of states (min-weight; 2 where absent).

    Returns
    -------
    order : list
        The nodes in elimination order.
    width : int
        The induced width of the order.

    Examples
    --------
    >>> import networkx as nx
    >>> order, width = elimination_order(nx.cycle_graph(5))
    >>> width
    2
    """
    nodes = list(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    adjacency = [{index[u] for u in graph.neighbors(node)} for node in nodes]
    cards: list[Any] = [graph.nodes[node].get(cardinality, 2) for node in nodes]
    result = greedy_elimination(adjacency, cards, heuristic=heuristic)
    return [nodes[v] for v in result.order], result.width


def induced_width(graph: nx.Graph, order: Sequence[Hashable]) -> int:
    """The induced width of eliminating the nodes of `graph` in `order`.

    Examples
    --------
    >>> import networkx as nx
    >>> induced_width(nx.path_graph(4), [0, 1, 2, 3]), induced_width(nx.star_graph(3), [0, 1, 2, 3])
    (1, 3)
    """
    order = list(order)
    if sorted(map(repr, order)) != sorted(map(repr, graph.nodes)) or len(set(order)) != len(order):
        raise ValueError("`order` must list every node of `graph` exactly once.")
    adjacency = {node: set(graph.neighbors(node)) - {node} for node in graph.nodes}
    width = 0
    for node in order:
        neighbours = adjacency.pop(node)
        width = max(width, len(neighbours))
        for u in neighbours:
            adjacency[u].discard(node)
            adjacency[u].update(w for w in neighbours if w != u)
    return width
