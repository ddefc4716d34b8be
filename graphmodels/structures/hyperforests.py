"""Hyperforests: acyclic hypergraphs closed under subsets, with networkx views.

A hyperforest of width k is the structure of a Markov network of tree-width
at most k (Srebro, 2000): its hyperedges are the cliques (not necessarily
maximal) of a triangulated graph whose largest clique has k + 1 variables.
Acyclicity is alpha-acyclicity, tested by Graham's (GYO) reduction.

Views: :meth:`Hyperforest.primal_graph` (the Markov network, ``nx.Graph``),
:meth:`Hyperforest.factor_graph` (bipartite variables and factors) and
:meth:`Hyperforest.junction_tree` (maximal hyperedges joined by separators).

References
----------
.. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
       bounded tree-width Markov networks. MIT CSAIL technical report.
.. [2] Srebro, N. (2000). Maximum likelihood Markov networks: an
       algorithmic approach. Master's thesis, MIT.
.. [3] Beeri, C., Fagin, R., Maier, D., & Yannakakis, M. (1983). On the
       desirability of acyclic database schemes. *Journal of the ACM*,
       30(3), 479-513 (Graham / GYO reduction).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

__all__ = [
    "Hyperforest",
    "gyo_reduction",
    "is_acyclic",
    "is_hyperforest",
    "hyperforest_width",
    "subsets",
    "random_hypertree",
    "hyperforests_by_class",
]


def subsets(hyperedge: Iterable[Hashable], *, proper: bool = False) -> list[frozenset]:
    """All non-empty subsets of `hyperedge` as frozensets (smallest first).

    Examples
    --------
    >>> sorted(sorted(s) for s in subsets({"a", "b"}))
    [['a'], ['a', 'b'], ['b']]
    """
    items = sorted(hyperedge, key=_node_key)
    top = len(items) - 1 if proper else len(items)
    return [frozenset(c) for size in range(1, top + 1) for c in itertools.combinations(items, size)]


def _node_key(node):
    return (str(node), type(node).__name__)


def gyo_reduction(hyperedges: Iterable[Iterable[Hashable]]) -> list[frozenset]:
    """Graham's (GYO) reduction of a hypergraph.

    Repeatedly removes (a) vertices that lie in exactly one hyperedge and
    (b) hyperedges contained in another one (or empty). A hypergraph is
    (alpha-)acyclic if and only if nothing remains.

    Parameters
    ----------
    hyperedges : iterable of iterables of hashable vertices

    Returns
    -------
    list of frozenset
        The hyperedges left when no rule applies; empty when acyclic.

    Examples
    --------
    >>> gyo_reduction([{"a", "b"}, {"b", "c"}])
    []
    >>> sorted(sorted(e) for e in gyo_reduction([{"a", "b"}, {"b", "c"}, {"a", "c"}]))
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    edges = {}
    incidence = defaultdict(set)  # vertex -> ids of the hyperedges holding it
    for i, edge in enumerate(hyperedges):
        edge = set(edge)
        edges[i] = edge
        for v in edge:
            incidence[v].add(i)
    changed = True
    while changed and edges:
        changed = False
        # (a) a vertex in one hyperedge only is an "ear" vertex: drop it.
        for v in [v for v, ids in incidence.items() if len(ids) == 1]:
            (i,) = incidence.pop(v)
            edges[i].discard(v)
            changed = True
        # (b) drop hyperedges that are empty or inside another hyperedge;
        # candidate supersets share the edge's rarest vertex.
        for i in sorted(edges, key=lambda i: len(edges[i])):
            edge = edges[i]
            if edge:
                rarest = min(edge, key=lambda v: len(incidence[v]))
                if not any(j != i and edge <= edges[j] for j in incidence[rarest]):
                    continue
            del edges[i]
            for v in edge:
                incidence[v].discard(i)
                if not incidence[v]:
                    del incidence[v]
            changed = True
    return [frozenset(e) for e in edges.values()]


def is_acyclic(hyperedges: Iterable[Iterable[Hashable]]) -> bool:
    """True if the hypergraph is (alpha-)acyclic, by GYO reduction.

    Examples
    --------
    >>> is_acyclic([{"a", "b", "c"}, {"a", "b"}, {"b", "c"}, {"a", "c"}])
    True
    >>> is_acyclic([{"a", "b"}, {"b", "c"}, {"a", "c"}])
    False
    """
    return not gyo_reduction(hyperedges)


def is_hyperforest(hyperedges: Iterable[Iterable[Hashable]], k: int | None = None) -> bool:
    """True if the hypergraph is acyclic and, if `k` is given, of width at most `k`.

    The width of an acyclic hypergraph is its largest hyperedge size minus
    one: the tree-width of its primal graph.
    """
    edges = [frozenset(e) for e in hyperedges]
    if k is not None and any(len(e) > k + 1 for e in edges):
        return False
    return is_acyclic(edges)


def hyperforest_width(hyperedges: Iterable[Iterable[Hashable]]) -> int:
    """Width (tree-width of the primal graph) of an acyclic hypergraph.

    Raises
    ------
    ValueError
        If the hypergraph is not acyclic.
    """
    edges = [frozenset(e) for e in hyperedges]
    if not is_acyclic(edges):
        raise ValueError("The hypergraph is not acyclic (GYO reduction leaves hyperedges).")
    return max((len(e) for e in edges), default=0) - 1


class Hyperforest:
    """An acyclic hypergraph closed under subsets: the structure of a bounded tree-width Markov network.

    Every subset of a hyperedge is a hyperedge, and every node is a
    (singleton) hyperedge. The model over a hyperforest is
    ``P(x) = prod_h phi_h(x_h)`` over all its hyperedges [1]_.

    Parameters
    ----------
    hyperedges : iterable of iterables of nodes, optional
        Generating hyperedges; their subsets are added.
    nodes : iterable, optional
        Every node, in a fixed order (isolated nodes included). Defaults to
        the nodes of `hyperedges` in order of appearance.
    node_attributes : dict, optional
        ``node -> dict`` of attributes (``role``, ``cardinality``, ...)
        copied onto the nodes of every networkx view.

    Raises
    ------
    ValueError
        If the hyperedges form a hypercycle, or use a node not in `nodes`.

    Attributes
    ----------
    nodes : tuple
    hyperedges : frozenset of frozenset
        All hyperedges, i.e. the closure under subsets.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks.

    Examples
    --------
    >>> forest = Hyperforest([("a", "b", "c"), ("c", "d")])
    >>> forest.width
    2
    >>> sorted(sorted(h) for h in forest.maximal_hyperedges)
    [['a', 'b', 'c'], ['c', 'd']]
    >>> forest.would_remain_acyclic({"a", "d"})
    False
    >>> sorted(forest.junction_tree().edges(data="sepset"))[0][2]
    frozenset({'c'})
    """

    def __init__(
        self,
        hyperedges: Iterable[Iterable[Hashable]] = (),
        nodes: Iterable[Hashable] | None = None,
        *,
        node_attributes: Mapping[Any, Mapping[str, Any]] | None = None,
    ) -> None:
        edges = [frozenset(_as_tuple(h)) for h in hyperedges]
        if nodes is None:
            nodes = list(dict.fromkeys(v for h in edges for v in sorted(h, key=_node_key)))
        self._nodes = tuple(dict.fromkeys(nodes))
        self._index = {v: i for i, v in enumerate(self._nodes)}
        self.node_attributes = {v: dict((node_attributes or {}).get(v, {})) for v in self._nodes}
        unknown = {v for h in edges for v in h} - set(self._index)
        if unknown:
            raise ValueError(f"Hyperedges use nodes not in `nodes`: {sorted(unknown, key=_node_key)[:10]}.")
        remainder = gyo_reduction(edges)
        if remainder:
            raise ValueError(
                "The hyperedges are not acyclic: Graham's reduction leaves "
                f"{sorted(sorted(h, key=_node_key) for h in remainder)[:5]}."
            )
        self._closure = set()
        self._component = {v: i for i, v in enumerate(self._nodes)}  # node -> component id
        self._members = {i: {v} for i, v in enumerate(self._nodes)}  # component id -> nodes
        self._maximal = {i: {frozenset([v])} for i, v in enumerate(self._nodes)}  # component id -> maximal
        for v in self._nodes:
            self._closure.add(frozenset([v]))
        for h in sorted(edges, key=len, reverse=True):
            if h and h not in self._closure:
                self._insert(h)

    # ------------------------------------------------------------------ basics
    @property
    def nodes(self) -> tuple[Hashable, ...]:
        """The nodes, in their fixed order."""
        return self._nodes

    @property
    def hyperedges(self) -> frozenset[frozenset]:
        """All hyperedges (the closure under subsets, singletons included)."""
        return frozenset(self._closure)

    @property
    def maximal_hyperedges(self) -> list[frozenset]:
        """Hyperedges contained in no other, sorted by size (largest first) then nodes."""
        maximal = [h for hs in self._maximal.values() for h in hs]
        return sorted(maximal, key=lambda h: (-len(h), sorted(self._index[v] for v in h)))

    @property
    def width(self) -> int:
        """Largest hyperedge size minus one: the tree-width of the primal graph (-1 if empty)."""
        return max((len(h) for h in self._closure), default=0) - 1

    def components(self) -> list[frozenset]:
        """Node sets of the connected components, in node order."""
        seen, result = set(), []
        for v in self._nodes:
            c = self._component[v]
            if c not in seen:
                seen.add(c)
                result.append(frozenset(self._members[c]))
        return result

    def __contains__(self, hyperedge: object) -> bool:
        return frozenset(_as_tuple(hyperedge)) in self._closure

    def __iter__(self) -> Iterator[frozenset]:
        return iter(sorted(self._closure, key=lambda h: (len(h), sorted(self._index[v] for v in h))))

    def __len__(self) -> int:
        return len(self._closure)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hyperforest):
            return NotImplemented
        return set(self._nodes) == set(other._nodes) and self._closure == other._closure

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def __repr__(self) -> str:
        shown = [tuple(sorted(h, key=self._index.__getitem__)) for h in self.maximal_hyperedges if len(h) > 1]
        return f"Hyperforest(width={self.width}, nodes={len(self._nodes)}, maximal={shown[:6]}{'...' if len(shown) > 6 else ''})"

    def _repr_html_(self) -> str:
        """The notebook display: width, maximal hyperedges and the primal graph drawn as inline SVG.

        Bounded and never raising, as a model's display (see
        :func:`graphmodels.plotting.show`, which also takes drawing options).
        """
        from .._display import structure_html

        return structure_html(self)

    def copy(self) -> Hyperforest:
        """An independent copy."""
        new = Hyperforest.__new__(Hyperforest)
        new._nodes, new._index = self._nodes, self._index
        new.node_attributes = {v: dict(a) for v, a in self.node_attributes.items()}
        new._closure = set(self._closure)
        new._component = dict(self._component)
        new._members = {c: set(m) for c, m in self._members.items()}
        new._maximal = {c: set(m) for c, m in self._maximal.items()}
        return new

    def weight(self, weights: Mapping[Any, float]) -> float:
        """Sum of ``weights[h]`` over every hyperedge (missing keys count 0)."""
        return float(sum(weights.get(h, 0.0) for h in self._closure))

    # ------------------------------------------------------------------ growth
    def would_remain_acyclic(self, hyperedge: Iterable[Hashable]) -> bool:
        """Would adding `hyperedge` (with its subsets) keep the hypergraph acyclic?

        Cheaper than reducing the whole hypergraph again: a hyperedge
        meets each connected component C in a set s_C, and the union is
        acyclic exactly when every C + s_C is (acyclicity is kept by
        restricting to a vertex set, and join trees of the components can
        be glued at the new hyperedge). A component whose s_C is already a
        hyperedge needs no work; the others are reduced alone.
        """
        h = frozenset(_as_tuple(hyperedge))
        self._check_nodes(h)
        if h in self._closure:
            return True
        parts = defaultdict(set)
        for v in h:
            parts[self._component[v]].add(v)
        for c, members in parts.items():
            part = frozenset(members)
            if part in self._closure:
                continue
            if gyo_reduction(list(self._maximal[c]) + [part]):
                return False
        return True

    def add(self, hyperedge: Iterable[Hashable], *, max_size: int | None = None) -> list[frozenset]:
        """Add `hyperedge` and all its subsets, in place.

        Parameters
        ----------
        hyperedge : iterable of nodes
        max_size : int, optional
            Largest hyperedge size allowed (k + 1 for width k).

        Returns
        -------
        list of frozenset
            The hyperedges that were new (`hyperedge` and its new subsets).

        Raises
        ------
        ValueError
            If the hyperedge is too large or would close a hypercycle.
        """
        h = frozenset(_as_tuple(hyperedge))
        self._check_nodes(h)
        if max_size is not None and len(h) > max_size:
            raise ValueError(f"Hyperedge {sorted(h, key=_node_key)} has {len(h)} nodes, more than {max_size}.")
        if not self.would_remain_acyclic(h):
            raise ValueError(f"Adding {sorted(h, key=_node_key)} would close a hypercycle.")
        if not h or h in self._closure:
            return []
        return self._insert(h)

    def _check_nodes(self, h):
        unknown = [v for v in h if v not in self._index]
        if unknown:
            raise ValueError(f"Unknown node(s) {unknown[:5]}; nodes are {list(self._nodes)[:10]}.")

    def _insert(self, h):
        """Add a hyperedge known to keep acyclicity; return the new hyperedges."""
        new = [s for s in subsets(h) if s not in self._closure]
        self._closure.update(new)
        touched = sorted({self._component[v] for v in h})
        target = touched[0]
        for c in touched[1:]:
            for v in self._members.pop(c):
                self._component[v] = target
                self._members[target].add(v)
            self._maximal[target] |= self._maximal.pop(c)
        maximal = self._maximal[target]
        maximal -= {g for g in maximal if g <= h}
        maximal.add(h)
        return new

    # ------------------------------------------------------------------ views
    def _view_nodes(self, graph):
        for v in self._nodes:
            graph.add_node(v, **self.node_attributes.get(v, {}))

    def primal_graph(self) -> nx.Graph:
        """The Markov network: nodes joined when they share a hyperedge (a new ``nx.Graph``).

        Examples
        --------
        >>> sorted(Hyperforest([("a", "b", "c")]).primal_graph().edges)
        [('a', 'b'), ('a', 'c'), ('b', 'c')]
        """
        graph = nx.Graph()
        self._view_nodes(graph)
        for h in self.maximal_hyperedges:
            ordered = sorted(h, key=self._index.__getitem__)
            graph.add_edges_from(itertools.combinations(ordered, 2))
        return graph

    def factor_graph(self, *, maximal: bool = True) -> nx.Graph:
        """Bipartite variable-factor graph (a new ``nx.Graph``).

        Variable nodes have ``bipartite=0``, ``kind="variable"``; factor nodes
        are the hyperedges (frozensets) with ``bipartite=1``,
        ``kind="factor"``, joined to their variables.

        Parameters
        ----------
        maximal : bool, default=True
            Only the maximal hyperedges (the potentials of the Markov
            network once nested ones are absorbed); False gives every
            hyperedge of size >= 2 and the singletons.
        """
        graph = nx.Graph()
        for v in self._nodes:
            graph.add_node(v, bipartite=0, kind="variable", **self.node_attributes.get(v, {}))
        factors = self.maximal_hyperedges if maximal else list(self)
        for h in factors:
            graph.add_node(h, bipartite=1, kind="factor", size=len(h))
            graph.add_edges_from((h, v) for v in sorted(h, key=self._index.__getitem__))
        return graph

    def junction_tree(self) -> nx.Graph:
        """Junction forest of the maximal hyperedges (a new ``nx.Graph``).

        Nodes are the maximal hyperedges (frozensets, ``kind="clique"``);
        an edge joins two of them with ``sepset`` (their intersection) and
        ``weight`` (its size). Any maximum-weight spanning forest of the
        clique intersection graph of an acyclic hypergraph is a junction
        tree (running intersection property); networkx's Kruskal builds it.
        Components of the hyperforest stay separate trees.
        """
        graph = nx.Graph()
        for h in self.maximal_hyperedges:
            graph.add_node(h, kind="clique", size=len(h))
        for _c, maximal in self._maximal.items():
            cliques = sorted(maximal, key=lambda h: sorted(self._index[v] for v in h))
            for a, b in itertools.combinations(cliques, 2):
                shared = a & b
                if shared:
                    graph.add_edge(a, b, sepset=frozenset(shared), weight=len(shared))
        tree = nx.maximum_spanning_tree(graph, algorithm="kruskal")
        tree.add_nodes_from(graph.nodes(data=True))
        return tree

    def clique_order(
        self, root_key: Callable[[Any], Any] | None = None
    ) -> list[tuple[tuple[Hashable, ...], frozenset]]:
        """Maximal hyperedges in a parents-first order of a rooted junction forest.

        Parameters
        ----------
        root_key : callable, optional
            ``root_key(clique)`` gives a sortable score; each tree is rooted
            at its highest-scoring clique (default: the first of
            :attr:`maximal_hyperedges`, i.e. a largest one).

        Returns
        -------
        list of (tuple, frozenset)
            ``(clique, separator)`` pairs: the clique's nodes with the
            separator first (each part in node order), and the separator
            shared with the parent clique (empty for a root).
        """
        tree = self.junction_tree()
        rank = {h: i for i, h in enumerate(self.maximal_hyperedges)}
        result = []
        for component in sorted(nx.connected_components(tree), key=lambda c: min(rank[h] for h in c)):
            members = sorted(component, key=rank.__getitem__)
            root = members[0] if root_key is None else max(members, key=lambda h: (root_key(h), -rank[h]))
            result.append(self._ordered(root, frozenset()))
            for parent, child in nx.bfs_edges(tree, root, sort_neighbors=lambda ns: sorted(ns, key=rank.__getitem__)):
                result.append(self._ordered(child, tree.edges[parent, child]["sepset"]))
        return result

    def _ordered(self, clique, separator):
        key = self._index.__getitem__
        return tuple(sorted(separator, key=key) + sorted(clique - separator, key=key)), frozenset(separator)

    # ------------------------------------------------------------------ data
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data: nodes and maximal hyperedges (in node order)."""
        key = self._index.__getitem__
        return {
            "nodes": list(self._nodes),
            "hyperedges": [sorted(h, key=key) for h in self.maximal_hyperedges if len(h) > 1],
            "node_attributes": {str(i): self.node_attributes[v] for i, v in enumerate(self._nodes)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Hyperforest:
        """Inverse of :meth:`to_dict`."""
        nodes = [tuple(v) if isinstance(v, list) else v for v in data["nodes"]]
        attributes = {nodes[int(i)]: a for i, a in data.get("node_attributes", {}).items()}
        hyperedges = [[tuple(v) if isinstance(v, list) else v for v in h] for h in data["hyperedges"]]
        return cls(hyperedges, nodes, node_attributes=attributes)


def hyperforests_by_class(obj: Any) -> dict[Hashable, Hyperforest] | None:
    """The hyperforest of each class, keyed by class label, of a model with one hyperforest per class.

    A classifier with one hyperforest per class (``HyperforestClassifier(representation="free")``,
    or ``"auto"`` when it chose them) keeps them in ``structures_``, in ``classes_`` order. Read them by label, not by
    position: refits on rows that lack a class (a bootstrap resample, a cross-validation fold)
    have fewer hyperforests, so position ``k`` of one refit and of another can be different
    classes. The model is read by its attributes only (this layer does not import the models).

    Parameters
    ----------
    obj : fitted model, mapping or any object
        A fitted model whose ``structures_`` holds one :class:`Hyperforest` per label of
        ``classes_`` and whose ``structure_`` is not a hyperforest; or a non-empty mapping of
        class label -> :class:`Hyperforest` (such as an element of
        :attr:`EdgeStability.structures <graphmodels.structures.EdgeStability.structures>`).

    Returns
    -------
    dict or None
        A new dict, class label -> :class:`Hyperforest`, in ``classes_`` order (NumPy scalar
        labels as Python scalars); None for anything else: a structure, a model with one
        structure, a multinet of graphs (``ChowLiu``), an unfitted model.

    Examples
    --------
    >>> class Fitted:  # the fitted attributes of HyperforestClassifier(representation="free")
    ...     classes_ = ["no", "yes"]
    ...     structure_ = None  # the union of the classes' Markov networks, an nx.Graph
    ...     structures_ = [Hyperforest([("a", "b")], "abc"), Hyperforest([("b", "c")], "abc")]
    >>> forests = hyperforests_by_class(Fitted())
    >>> {label: sorted(sorted(h) for h in f.maximal_hyperedges if len(h) > 1) for label, f in forests.items()}
    {'no': [['a', 'b']], 'yes': [['b', 'c']]}
    >>> hyperforests_by_class(Hyperforest([("a", "b")])) is None
    True
    """
    if isinstance(obj, Mapping):
        if obj and all(isinstance(f, Hyperforest) for f in obj.values()):
            return dict(obj)
        return None
    forests = getattr(obj, "structures_", None)
    classes = getattr(obj, "classes_", None)
    if isinstance(getattr(obj, "structure_", None), Hyperforest) or classes is None:
        return None
    if not isinstance(forests, (list, tuple)) or not forests or len(forests) != len(classes):
        return None
    if not all(isinstance(f, Hyperforest) for f in forests):
        return None
    return {(label.item() if isinstance(label, np.generic) else label): f for label, f in zip(classes, forests)}


def _as_tuple(hyperedge):
    if isinstance(hyperedge, (str, bytes)) or not np.iterable(hyperedge):
        raise TypeError(f"A hyperedge must be an iterable of nodes, got {hyperedge!r}.")
    return tuple(hyperedge)


def random_hypertree(
    n_nodes: int,
    k: int,
    *,
    random_state: int | np.random.Generator | None = None,
    nodes: Sequence[Hashable] | None = None,
) -> Hyperforest:
    """A random k-tree: a connected hypertree whose maximal hyperedges all have k + 1 nodes.

    Starts from one hyperedge of k + 1 nodes; each further node joins a
    uniformly chosen k-subset of a uniformly chosen maximal hyperedge
    (the construction of random tree-width-k networks in section 6.1 of
    Liang & Srebro).

    Parameters
    ----------
    n_nodes : int
        Number of nodes, at least k + 1.
    k : int
        Width, >= 0 (k = 0 gives isolated nodes).
    random_state : None, int or numpy Generator
    nodes : sequence, optional
        Node names (default ``0 .. n_nodes - 1``).

    Returns
    -------
    Hyperforest

    Examples
    --------
    >>> tree = random_hypertree(6, 2, random_state=0)
    >>> tree.width, len(tree.maximal_hyperedges)
    (2, 4)
    """
    if not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"`k` must be a non-negative integer, got {k!r}.")
    if not isinstance(n_nodes, (int, np.integer)) or n_nodes < k + 1:
        raise ValueError(f"`n_nodes` must be an integer >= k + 1 = {k + 1}, got {n_nodes!r}.")
    nodes = list(range(n_nodes)) if nodes is None else list(nodes)
    if len(nodes) != n_nodes:
        raise ValueError(f"`nodes` has {len(nodes)} names for {n_nodes} nodes.")
    rng = np.random.default_rng(random_state)
    order = [nodes[i] for i in rng.permutation(n_nodes)]
    if k == 0:
        return Hyperforest([], nodes)
    maximal = [tuple(order[: k + 1])]
    for v in order[k + 1 :]:
        host = maximal[rng.integers(len(maximal))]
        keep = rng.choice(len(host), size=k, replace=False)
        maximal.append(tuple(host[i] for i in sorted(keep)) + (v,))
    return Hyperforest(maximal, nodes)
