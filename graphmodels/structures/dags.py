"""Directed acyclic graphs and their Markov equivalence classes.

Two DAGs are Markov equivalent -- they admit the same conditional independences -- exactly
when they have the same skeleton and the same v-structures (``a -> c <- b`` with ``a`` and
``b`` not adjacent; Verma & Pearl 1990). The class is drawn as its CPDAG (completed partially
directed acyclic graph, or essential graph): the arcs every member orients the same way stay
arcs, the others become undirected edges. Data alone cannot tell the members apart, so a
structure search is judged by the CPDAG it finds, not by its DAG.

A PDAG or CPDAG is an ``nx.DiGraph`` in which an undirected edge ``u - v`` is the pair of arcs
``(u, v)`` and ``(v, u)``, as R bnlearn and pcalg store them; graph attribute ``"cpdag"`` is
True on the graphs these functions return.

* :func:`cpdag`: the CPDAG of a DAG: its v-structures, then Meek's rules 1-3 (Meek 1995,
  Theorem 3: they complete the pattern of a DAG into its CPDAG);
* :func:`meek_rules`: Meek's four orientation rules applied to a PDAG until none applies (rule
  4 matters only with background knowledge);
* :func:`pdag_to_dag`: a DAG of the class of a PDAG, the consistent extension of Dor & Tarsi
  (1992);
* :func:`markov_equivalent`, :func:`v_structures`, :func:`undirected_edges`;
* :func:`enumerate_dags`: every DAG over a few nodes (543 over four, 29,281 over five), for
  brute force.

References
----------
.. [1] Verma, T., & Pearl, J. (1990). Equivalence and synthesis of causal models. In
       *Proceedings of the 6th Conference on Uncertainty in Artificial Intelligence*, 255-270.
.. [2] Meek, C. (1995). Causal inference and causal explanation with background knowledge. In
       *Proceedings of the 11th Conference on Uncertainty in Artificial Intelligence*, 403-410.
.. [3] Dor, D., & Tarsi, M. (1992). A simple algorithm to construct a consistent extension of
       a partially oriented graph. Technical Report R-185, UCLA Cognitive Systems Laboratory.
.. [4] Chickering, D. M. (2002). Learning equivalence classes of Bayesian-network structures.
       *Journal of Machine Learning Research*, 2, 445-498.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Iterator

import networkx as nx

__all__ = [
    "cpdag",
    "enumerate_dags",
    "markov_equivalent",
    "meek_rules",
    "pdag_to_dag",
    "undirected_edges",
    "v_structures",
]


def _check_dag(dag: object, what: str = "dag") -> nx.DiGraph:
    if not isinstance(dag, nx.DiGraph):
        raise TypeError(f"`{what}` must be an nx.DiGraph, got {type(dag).__name__}.")
    if not nx.is_directed_acyclic_graph(dag):
        cycle = nx.find_cycle(dag)
        raise ValueError(f"`{what}` must be acyclic, but it has the cycle {' -> '.join(str(u) for u, _ in cycle)}.")
    return dag


class _PDAG:
    """A PDAG as parent sets (arcs) and neighbour sets (undirected edges), for the rules."""

    def __init__(self, nodes: list[Hashable]) -> None:
        self.nodes = nodes
        self.parents: dict[Hashable, set[Hashable]] = {v: set() for v in nodes}
        self.children: dict[Hashable, set[Hashable]] = {v: set() for v in nodes}
        self.neighbours: dict[Hashable, set[Hashable]] = {v: set() for v in nodes}
        self.order = {v: i for i, v in enumerate(nodes)}

    @classmethod
    def of(cls, graph: nx.DiGraph) -> _PDAG:
        pdag = cls(list(graph.nodes))
        for u, v in graph.edges:
            if u == v:
                raise ValueError(f"A PDAG has no self-loop, got one at {u!r}.")
            if graph.has_edge(v, u):
                pdag.neighbours[u].add(v)
                pdag.neighbours[v].add(u)
            else:
                pdag.parents[v].add(u)
                pdag.children[u].add(v)
        return pdag

    def adjacent(self, a: Hashable, b: Hashable) -> bool:
        return b in self.parents[a] or b in self.children[a] or b in self.neighbours[a]

    def orient(self, a: Hashable, b: Hashable) -> None:
        """The undirected edge a - b becomes a -> b."""
        self.neighbours[a].discard(b)
        self.neighbours[b].discard(a)
        self.parents[b].add(a)
        self.children[a].add(b)

    def sorted(self, nodes: Iterable[Hashable]) -> list[Hashable]:
        return sorted(nodes, key=self.order.__getitem__)

    def graph(self, source: nx.DiGraph | None = None) -> nx.DiGraph:
        result = nx.DiGraph()
        if source is not None:
            result.add_nodes_from(source.nodes(data=True))
            result.graph.update(source.graph)
        else:
            result.add_nodes_from(self.nodes)
        for v in self.nodes:
            for u in self.sorted(self.parents[v]):
                data = dict(source.edges[u, v]) if source is not None and source.has_edge(u, v) else {}
                result.add_edge(u, v, **data)
            for u in self.sorted(self.neighbours[v]):
                data = dict(source.edges[u, v]) if source is not None and source.has_edge(u, v) else {}
                result.add_edge(u, v, **data)
        result.graph["cpdag"] = True
        return result

    # -- Meek's rules: each returns True when it oriented an edge ---------------------------------
    def _rule1(self) -> bool:
        """a -> b - c, a and c not adjacent: b -> c."""
        for b in self.nodes:
            for c in self.sorted(self.neighbours[b]):
                if any(not self.adjacent(a, c) for a in self.parents[b]):
                    self.orient(b, c)
                    return True
        return False

    def _rule2(self) -> bool:
        """a -> b -> c and a - c: a -> c."""
        for a in self.nodes:
            for c in self.sorted(self.neighbours[a]):
                if self.children[a] & self.parents[c]:
                    self.orient(a, c)
                    return True
        return False

    def _rule3(self) -> bool:
        """a - c -> b <- d - a, a - b, c and d not adjacent: a -> b."""
        for a in self.nodes:
            for b in self.sorted(self.neighbours[a]):
                both = self.sorted(self.neighbours[a] & self.parents[b])
                if any(not self.adjacent(c, d) for c, d in itertools.combinations(both, 2)):
                    self.orient(a, b)
                    return True
        return False

    def _rule4(self) -> bool:
        """a - b, a - c -> d -> b, c and b not adjacent, a adjacent to d: a -> b."""
        for a in self.nodes:
            for b in self.sorted(self.neighbours[a]):
                for d in self.parents[b]:
                    if not self.adjacent(a, d):
                        continue
                    if any(c != b and not self.adjacent(c, b) for c in self.neighbours[a] & self.parents[d]):
                        self.orient(a, b)
                        return True
        return False

    def close(self, rules: int = 4) -> None:
        """Apply rules 1..`rules` until none applies."""
        steps = (self._rule1, self._rule2, self._rule3, self._rule4)[:rules]
        while any(step() for step in steps):
            pass


def v_structures(dag: nx.DiGraph) -> set[tuple[Hashable, Hashable, Hashable]]:
    """The v-structures ``a -> c <- b`` of a DAG (``a``, ``b`` not adjacent), as ``(a, c, b)``.

    Each is listed once, ``a`` before ``b`` in node order.

    Examples
    --------
    >>> sorted(v_structures(nx.DiGraph([("rain", "wet"), ("sprinkler", "wet")])))
    [('rain', 'wet', 'sprinkler')]
    """
    order = {v: i for i, v in enumerate(dag.nodes)}
    found = set()
    for c in dag.nodes:
        parents = sorted((u for u in dag.predecessors(c) if not dag.has_edge(c, u)), key=order.__getitem__)
        for a, b in itertools.combinations(parents, 2):
            if not dag.has_edge(a, b) and not dag.has_edge(b, a):
                found.add((a, c, b))
    return found


def cpdag(dag: nx.DiGraph) -> nx.DiGraph:
    """The CPDAG (essential graph) of a DAG: the arcs its whole Markov equivalence class shares.

    The skeleton with the v-structures oriented, completed by Meek's rules 1-3 [1]_; an arc
    no equivalent DAG reverses stays an arc, every other edge becomes undirected (both arcs).

    Parameters
    ----------
    dag : nx.DiGraph
        Acyclic. Node and arc attributes are kept.

    Returns
    -------
    nx.DiGraph
        A new graph: the compelled arcs, and each undirected edge as two arcs; graph
        attribute ``cpdag=True``.

    Raises
    ------
    TypeError
        If `dag` is not an ``nx.DiGraph``.
    ValueError
        If it has a cycle.

    References
    ----------
    .. [1] Meek, C. (1995). Causal inference and causal explanation with background
           knowledge. In *Proceedings of UAI*, 403-410.

    Examples
    --------
    >>> chain = cpdag(nx.DiGraph([("a", "b"), ("b", "c")]))  # a chain: nothing is compelled
    >>> sorted(undirected_edges(chain))
    [('a', 'b'), ('b', 'c')]
    >>> sorted(cpdag(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])).edges)  # a collider and what follows it
    [('a', 'c'), ('b', 'c'), ('c', 'd')]
    """
    _check_dag(dag)
    pdag = _PDAG(list(dag.nodes))
    compelled = {(a, c) for a, c, _ in v_structures(dag)} | {(b, c) for _, c, b in v_structures(dag)}
    for u, v in dag.edges:
        if (u, v) in compelled:
            pdag.parents[v].add(u)
            pdag.children[u].add(v)
        else:
            pdag.neighbours[u].add(v)
            pdag.neighbours[v].add(u)
    pdag.close(rules=3)
    return pdag.graph(dag)


def meek_rules(pdag: nx.DiGraph) -> nx.DiGraph:
    """Orient the undirected edges of a PDAG that Meek's rules 1-4 compel.

    Rule 1 avoids new v-structures, rule 2 cycles, rules 3 and 4 both at once [1]_; they
    are applied until none applies. Used after a constraint-based search has oriented the
    v-structures and the arcs that background knowledge requires.

    Parameters
    ----------
    pdag : nx.DiGraph
        Undirected edges as pairs of arcs.

    Returns
    -------
    nx.DiGraph
        A new PDAG; graph attribute ``cpdag=True``.

    References
    ----------
    .. [1] Meek, C. (1995). Causal inference and causal explanation with background
           knowledge. In *Proceedings of UAI*, 403-410.

    Examples
    --------
    >>> g = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "b")])  # a -> b - c
    >>> sorted(meek_rules(g).edges)
    [('a', 'b'), ('b', 'c')]
    """
    if not isinstance(pdag, nx.DiGraph):
        raise TypeError(f"`pdag` must be an nx.DiGraph, got {type(pdag).__name__}.")
    state = _PDAG.of(pdag)
    state.close(rules=4)
    return state.graph(pdag)


def undirected_edges(pdag: nx.DiGraph) -> set[tuple[Hashable, Hashable]]:
    """The undirected edges of a PDAG (pairs of arcs), each once, in node order.

    Examples
    --------
    >>> undirected_edges(nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")]))
    {('a', 'b')}
    """
    order = {v: i for i, v in enumerate(pdag.nodes)}
    return {(u, v) for u, v in pdag.edges if pdag.has_edge(v, u) and order[u] < order[v]}


def pdag_to_dag(pdag: nx.DiGraph) -> nx.DiGraph:
    """A DAG in the equivalence class of a PDAG: its consistent extension (Dor & Tarsi [1]_).

    The undirected edges are oriented without a new v-structure or a cycle: repeatedly, a
    node that is a sink of the arcs and whose undirected neighbours are adjacent to all its
    other neighbours gets its undirected edges pointing into it and leaves the graph (the
    first such node in node order, so the result is deterministic).

    Parameters
    ----------
    pdag : nx.DiGraph
        Undirected edges as pairs of arcs.

    Returns
    -------
    nx.DiGraph
        A new DAG with the nodes, arcs and attributes of `pdag`.

    Raises
    ------
    ValueError
        When the PDAG has no consistent extension (its arcs form a cycle, or every
        orientation adds a v-structure), as a constraint-based search on few rows can give.

    References
    ----------
    .. [1] Dor, D., & Tarsi, M. (1992). A simple algorithm to construct a consistent
           extension of a partially oriented graph. Technical Report R-185, UCLA.

    Examples
    --------
    >>> dag = pdag_to_dag(cpdag(nx.DiGraph([("a", "b"), ("b", "c")])))
    >>> nx.is_directed_acyclic_graph(dag), dag.number_of_edges()
    (True, 2)
    """
    if not isinstance(pdag, nx.DiGraph):
        raise TypeError(f"`pdag` must be an nx.DiGraph, got {type(pdag).__name__}.")
    state = _PDAG.of(pdag)
    remaining = set(state.nodes)
    oriented: list[tuple[Hashable, Hashable]] = []
    while remaining:
        chosen = None
        for x in state.nodes:
            if x not in remaining or state.children[x] & remaining:
                continue
            neighbours = state.neighbours[x] & remaining
            adjacent = (state.parents[x] | state.neighbours[x]) & remaining
            if all(all(y == z or state.adjacent(y, z) for z in adjacent) for y in neighbours):
                chosen = x
                break
        if chosen is None:
            raise ValueError(
                "The PDAG has no consistent extension: every orientation of its undirected edges makes a "
                f"cycle or a new v-structure (among {state.sorted(remaining)[:10]})."
            )
        for y in state.sorted(state.neighbours[chosen] & remaining):
            oriented.append((y, chosen))
        remaining.discard(chosen)
    dag = nx.DiGraph()
    dag.add_nodes_from(pdag.nodes(data=True))
    dag.graph.update({k: v for k, v in pdag.graph.items() if k != "cpdag"})
    for v in state.nodes:
        for u in state.sorted(state.parents[v]):
            dag.add_edge(u, v, **pdag.edges[u, v])
    for u, v in oriented:
        dag.add_edge(u, v, **pdag.edges[u, v])
    if not nx.is_directed_acyclic_graph(dag):
        raise ValueError("The PDAG has no consistent extension: its arcs form a cycle.")
    return dag


def markov_equivalent(a: nx.DiGraph, b: nx.DiGraph) -> bool:
    """Whether two DAGs are Markov equivalent: the same skeleton and the same v-structures.

    Examples
    --------
    >>> markov_equivalent(nx.DiGraph([("a", "b")]), nx.DiGraph([("b", "a")]))
    True
    >>> markov_equivalent(nx.DiGraph([("a", "c"), ("b", "c")]), nx.DiGraph([("c", "a"), ("b", "c")]))
    False
    """
    _check_dag(a, "a")
    _check_dag(b, "b")
    if set(a.nodes) != set(b.nodes):
        return False
    skeleton_a = {frozenset(e) for e in a.edges}
    skeleton_b = {frozenset(e) for e in b.edges}
    if skeleton_a != skeleton_b:
        return False

    def shapes(dag):
        return {(frozenset((x, y)), c) for x, c, y in v_structures(dag)}

    return shapes(a) == shapes(b)


def enumerate_dags(nodes: Iterable[Hashable], *, max_parents: int | None = None) -> Iterator[nx.DiGraph]:
    """Every DAG over `nodes` (with at most `max_parents` parents per node), for brute force.

    There are 1, 3, 25, 543 and 29,281 DAGs over one to five labelled nodes (OEIS A003024).

    Parameters
    ----------
    nodes : iterable of hashable
        At most 6 nodes (3,781,503 DAGs).
    max_parents : int, optional

    Yields
    ------
    nx.DiGraph

    Raises
    ------
    ValueError
        For more than 6 nodes.

    Examples
    --------
    >>> sum(1 for _ in enumerate_dags("abcd"))
    543
    """
    nodes = list(nodes)
    n = len(nodes)
    if n > 6:
        raise ValueError(f"enumerate_dags lists the DAGs of at most 6 nodes, got {n}.")
    for parents in _parent_masks(n, max_parents):
        dag = nx.DiGraph()
        dag.add_nodes_from(nodes)
        dag.add_edges_from((nodes[u], nodes[v]) for v in range(n) for u in range(n) if parents[v] >> u & 1)
        yield dag


def _parent_masks(n: int, max_parents: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every DAG over ``range(n)`` as a tuple of parent bit masks, in a fixed order."""
    pairs = list(itertools.combinations(range(n), 2))
    limit = n if max_parents is None else int(max_parents)
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        parents = [0] * n
        for (u, v), c in zip(pairs, choice):
            if c == 1:
                parents[v] |= 1 << u
            elif c == 2:
                parents[u] |= 1 << v
        if any(bin(p).count("1") > limit for p in parents):
            continue
        # Acyclic when every node can be removed, each once its parents are gone.
        left, done = (1 << n) - 1, True
        while left:
            sources = [v for v in range(n) if left >> v & 1 and not parents[v] & left]
            if not sources:
                done = False
                break
            for v in sources:
                left &= ~(1 << v)
        if done:
            yield tuple(parents)
