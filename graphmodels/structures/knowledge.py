"""Expert knowledge for structure searches: required and forbidden arcs, tiers, roots, parent limits.

R bnlearn's ``whitelist``, ``blacklist``, ``tiers2blacklist``, ``root`` and ``maxp`` in one
checked object: :func:`expert_knowledge` reads them against the variables, refuses names that
are not variables and constraints that contradict each other (an arc both required and
forbidden, required arcs that form a cycle, point into a root, against the tiers or past a
parent limit), and gives the searches the matrices they mask their moves with.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

__all__ = ["Knowledge", "expert_knowledge"]


@dataclass(frozen=True)
class Knowledge:
    """Constraints on the arcs of a DAG over `nodes` (made by :func:`expert_knowledge`).

    Attributes
    ----------
    nodes : tuple
        The variables, in order (the order of the matrices).
    required : frozenset of tuple
        Arcs every structure must have.
    forbidden : frozenset of tuple
        Arcs no structure may have (given ones, not those the tiers and roots imply).
    tiers : tuple of tuple
        A temporal order: no arc from a node of a later tier to a node of an earlier one.
    roots : frozenset
        Nodes without parents.
    max_parents : dict
        The most parents of each node (absent: no limit).
    """

    nodes: tuple[Hashable, ...]
    required: frozenset[tuple[Hashable, Hashable]] = frozenset()
    forbidden: frozenset[tuple[Hashable, Hashable]] = frozenset()
    tiers: tuple[tuple[Hashable, ...], ...] = ()
    roots: frozenset[Hashable] = frozenset()
    max_parents: Mapping[Hashable, int] | None = None

    @property
    def _index(self) -> dict[Hashable, int]:
        return {v: i for i, v in enumerate(self.nodes)}

    def _tier_of(self) -> dict[Hashable, int]:
        return {v: t for t, tier in enumerate(self.tiers) for v in tier}

    def allows(self, u: Hashable, v: Hashable) -> bool:
        """Whether the arc ``u -> v`` is allowed (not forbidden, not against a tier or a root)."""
        if u == v or (u, v) in self.forbidden or v in self.roots:
            return False
        tier = self._tier_of()
        return not (u in tier and v in tier and tier[u] > tier[v])

    def allowed_matrix(self) -> np.ndarray:
        """``allowed[i, j]``: whether ``nodes[i] -> nodes[j]`` is allowed; shape (n, n), bool."""
        n = len(self.nodes)
        index = self._index
        allowed = ~np.eye(n, dtype=bool)
        for u, v in self.forbidden:
            allowed[index[u], index[v]] = False
        for r in self.roots:
            allowed[:, index[r]] = False
        tier = self._tier_of()
        if tier:
            level = np.array([tier.get(v, -1) for v in self.nodes])
            ranked = level >= 0
            later = (level[:, None] > level[None, :]) & ranked[:, None] & ranked[None, :]
            allowed &= ~later
        return allowed

    def required_matrix(self) -> np.ndarray:
        """``required[i, j]``: whether ``nodes[i] -> nodes[j]`` is required; shape (n, n), bool."""
        n = len(self.nodes)
        index = self._index
        required = np.zeros((n, n), dtype=bool)
        for u, v in self.required:
            required[index[u], index[v]] = True
        return required

    def parent_limits(self) -> np.ndarray:
        """The most parents of each node, in node order (``n - 1`` where unlimited); shape (n,), int."""
        n = len(self.nodes)
        limits = np.full(n, max(n - 1, 0), dtype=np.int64)
        for v, k in (self.max_parents or {}).items():
            limits[self._index[v]] = min(int(k), max(n - 1, 0))
        return limits

    def violations(self, dag: nx.DiGraph) -> list[str]:
        """What `dag` breaks, one sentence each (empty when it respects every constraint)."""
        problems = []
        for u, v in sorted(self.required, key=str):
            if not dag.has_edge(u, v):
                problems.append(f"it lacks the required arc {u!r} -> {v!r}")
        for u, v in dag.edges:
            if not self.allows(u, v):
                problems.append(f"its arc {u!r} -> {v!r} is forbidden{self._why(u, v)}")
        limits = self.max_parents or {}
        for v in dag.nodes:
            if v in limits and dag.in_degree(v) > limits[v]:
                problems.append(f"{v!r} has {dag.in_degree(v)} parents, more than max_parents={limits[v]}")
        return problems

    def _why(self, u: Hashable, v: Hashable) -> str:
        if (u, v) in self.forbidden:
            return ""
        if v in self.roots:
            return f" ({v!r} is a root)"
        tier = self._tier_of()
        return f" (tier {tier.get(u)} after tier {tier.get(v)})"

    def check(self, dag: nx.DiGraph, what: str = "the structure") -> None:
        """Raise ``ValueError`` naming what `dag` breaks, if anything."""
        problems = self.violations(dag)
        if problems:
            raise ValueError(f"{what[:1].upper() + what[1:]} contradicts the expert knowledge: {'; '.join(problems)}.")


def _arcs(value: Any, what: str, known: set) -> frozenset[tuple[Hashable, Hashable]]:
    if value is None:
        return frozenset()
    if isinstance(value, nx.Graph):
        value = list(value.edges)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"`{what}` must be a list of (parent, child) pairs or an nx.DiGraph, got {value!r}.")
    arcs = []
    for arc in value:
        if isinstance(arc, (str, bytes)) or not isinstance(arc, Sequence) or len(arc) != 2:
            raise TypeError(f"`{what}` must hold (parent, child) pairs, got {arc!r}.")
        u, v = arc
        for node in (u, v):
            if node not in known:
                raise ValueError(f"`{what}` names {node!r}, which is not a variable.")
        if u == v:
            raise ValueError(f"`{what}` holds the self-loop {u!r} -> {v!r}.")
        arcs.append((u, v))
    return frozenset(arcs)


def _node_list(value: Any, what: str, known: set) -> list[Hashable]:
    if value is None:
        return []
    try:
        single = value in known
    except TypeError:
        single = False
    if single:
        return [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"`{what}` names {value!r}, which is not a variable.")
    nodes = list(value)
    for node in nodes:
        if node not in known:
            raise ValueError(f"`{what}` names {node!r}, which is not a variable.")
    return nodes


def expert_knowledge(
    nodes: Iterable[Hashable],
    *,
    required: Any = None,
    forbidden: Any = None,
    tiers: Sequence[Iterable[Hashable]] | None = None,
    root: Any = None,
    max_parents: int | Mapping[Hashable, int] | None = None,
) -> Knowledge:
    """Check expert knowledge against the variables and against itself.

    Parameters
    ----------
    nodes : iterable of hashable
        The variables.
    required : list of (parent, child) pairs or nx.DiGraph, optional
        Arcs every learned structure has (bnlearn's ``whitelist``).
    forbidden : list of (parent, child) pairs or nx.DiGraph, optional
        Arcs no learned structure has (bnlearn's ``blacklist``). Forbid both directions to
        keep two variables apart.
    tiers : sequence of sequences of nodes, optional
        A temporal order, earliest first: no arc from a later tier into an earlier one (arcs
        within a tier are allowed; a node in no tier is free).
    root : node or list of nodes, optional
        Nodes without parents.
    max_parents : int or dict, optional
        The most parents of every node, or of the nodes a dict names.

    Returns
    -------
    Knowledge

    Raises
    ------
    ValueError
        For a name that is not a variable, a node in two tiers, a negative `max_parents`, and
        constraints that contradict each other: an arc both required and forbidden, required
        arcs forming a cycle, a required arc into a root, against the tiers, or giving a node
        more parents than `max_parents`. The message names the arcs.
    TypeError
        For arcs that are not pairs.

    Examples
    --------
    >>> knowledge = expert_knowledge("abc", required=[("a", "b")], tiers=[["a"], ["b", "c"]])
    >>> knowledge.allows("c", "a"), knowledge.allows("c", "b")
    (False, True)
    >>> expert_knowledge("ab", required=[("a", "b")], forbidden=[("a", "b")])
    Traceback (most recent call last):
    ...
    ValueError: The arc 'a' -> 'b' is both required and forbidden.
    """
    nodes = tuple(nodes)
    known = set(nodes)
    if len(known) != len(nodes):
        raise ValueError("The variables must be distinct.")
    required_arcs = _arcs(required, "required", known)
    forbidden_arcs = _arcs(forbidden, "forbidden", known)
    tier_lists: list[tuple[Hashable, ...]] = []
    seen: dict[Hashable, int] = {}
    if tiers is not None:
        if isinstance(tiers, (str, bytes)) or not isinstance(tiers, Iterable):
            raise TypeError(f"`tiers` must be a list of lists of variables, got {tiers!r}.")
        for t, tier in enumerate(tiers):
            members = _node_list(tier, "tiers", known)
            for node in members:
                if node in seen and seen[node] != t:
                    raise ValueError(f"{node!r} is in two tiers ({seen[node]} and {t}).")
                seen[node] = t
            tier_lists.append(tuple(members))
    roots = frozenset(_node_list(root, "root", known))
    limits: dict[Hashable, int] | None = None
    if max_parents is not None:
        if isinstance(max_parents, Mapping):
            items = dict(max_parents)
            for node in items:
                if node not in known:
                    raise ValueError(f"`max_parents` names {node!r}, which is not a variable.")
        else:
            items = {node: max_parents for node in nodes}
        limits = {}
        for node, k in items.items():
            if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
                raise ValueError(f"`max_parents` must be an integer >= 0, got {k!r} for {node!r}.")
            limits[node] = int(k)
    knowledge = Knowledge(nodes, required_arcs, forbidden_arcs, tuple(tier_lists), roots, limits)

    both = sorted(required_arcs & forbidden_arcs, key=str)
    if both:
        raise ValueError(f"The arc {both[0][0]!r} -> {both[0][1]!r} is both required and forbidden.")
    for u, v in sorted(required_arcs, key=str):
        if v in roots:
            raise ValueError(f"The required arc {u!r} -> {v!r} points into {v!r}, which is a root.")
        if not knowledge.allows(u, v):
            raise ValueError(f"The required arc {u!r} -> {v!r} goes against the tiers{knowledge._why(u, v)}.")
    graph = nx.DiGraph(list(required_arcs))
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        path = " -> ".join([repr(u) for u, _ in cycle] + [repr(cycle[0][0])])
        raise ValueError(f"The required arcs form the cycle {path}.")
    for v in graph.nodes:
        if limits is not None and v in limits and graph.in_degree(v) > limits[v]:
            raise ValueError(f"{v!r} has {graph.in_degree(v)} required parents, more than max_parents={limits[v]}.")
    return knowledge
