"""Comparing learned structures: the exact difference of two, and the frequencies of many.

Every structure the library learns is read as a set of *items* of one of four kinds:

* ``"arcs"``: the arcs ``(u, v)`` of an ``nx.DiGraph`` over variables (naive Bayes, TAN,
  FAN, KDB, Chow-Liu, the hierarchical naive Bayes' latent tree, any Bayesian network);
* ``"edges"``: the edges of an undirected ``nx.Graph`` (a Markov network), as
  ``frozenset({u, v})``;
* ``"hyperedges"``: the maximal hyperedges of two or more variables of a
  :class:`~graphmodels.structures.Hyperforest` (or the cliques of its junction tree); a
  classifier with one hyperforest per class (``HyperforestClassifier(representation="free")``,
  or ``"auto"`` when it chose them) is read by its hyperforests (:func:`~graphmodels.structures.hyperforests_by_class`),
  their hyperedges pooled: the maximal ones among the hyperedges of every class (a dict of
  class label -> hyperforest, or a tuple of hyperforests, is read the same way);
* ``"regions"``: the maximal regions of two or more variables of a Kikuchi region graph
  (frozenset nodes with ``counting_number``).

:func:`structure_difference` compares two structures of one kind exactly (pyAgrum's
``showBNDiff``); :func:`structure_frequencies` counts, over many structures of one kind, how
often each item appears (R bnlearn's ``custom.strength``, which ``boot.strength`` feeds with
bootstrap refits; :func:`graphmodels.evaluation.edge_stability` is that). Both take fitted
models too: :func:`structure_of` reads a model's ``structure_`` (and ``class_name_``) without
importing the models layer above it, so this module stays pure structure logic.

The latent variables of a latent tree have arbitrary names (``L1``, ``L2``, ...) that differ
from one fit to the next; they are matched by what they summarize: each latent node is renamed
to the frozenset of the observed variables below it.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .dags import cpdag as _cpdag
from .hyperforests import Hyperforest, hyperforests_by_class

__all__ = [
    "STRUCTURE_KINDS",
    "StructureDifference",
    "EdgeStability",
    "structure_difference",
    "structure_frequencies",
    "structure_of",
]

#: The kinds of items a structure is compared by (see the module docstring).
STRUCTURE_KINDS = ("arcs", "edges", "hyperedges", "regions")

#: Status of an item of a :class:`StructureDifference`, as in its graph's ``status`` edge attribute.
STATUSES = ("shared", "only_a", "only_b", "reversed", "reoriented")


# ---------------------------------------------------------------------------- reading structures
@dataclass(frozen=True)
class _Items:
    """A structure read as a set of items of one kind, with its nodes and each item's attributes."""

    kind: str
    items: frozenset
    nodes: dict  # node -> attributes (role, cardinality, ...), in the structure's order
    data: dict  # item -> attributes of its arc or edge (kind, weight), arcs and edges only
    class_name: Hashable | None
    source: str  # what it was, for error messages: "TAN (arcs of an nx.DiGraph)"


def _describe(obj):
    return type(obj).__name__


def _given_forests(obj):
    """Hyperforests given as such, read pooled: a dict of class label -> Hyperforest, or a tuple or list of them."""
    if isinstance(obj, Mapping):
        return hyperforests_by_class(obj)
    if isinstance(obj, (tuple, list)) and len(obj) > 0 and all(isinstance(s, Hyperforest) for s in obj):
        return tuple(obj)
    return None


def _structure_of(obj):
    """``(structure, class_name, what)`` of a structure or a fitted model: see :func:`structure_of`."""
    if isinstance(obj, (nx.Graph, Hyperforest)):
        return obj, None, _describe(obj)
    given = _given_forests(obj)
    if given is not None:
        return given, None, "hyperforests"
    check = getattr(obj, "_check_fitted", None)
    if callable(check) and not hasattr(obj, "structure_"):
        check()  # a graphmodels model that is not fitted: the contract's NotFittedError
    by_class = hyperforests_by_class(obj)
    if by_class is not None:
        return by_class, getattr(obj, "class_name_", None), _describe(obj)
    structure = getattr(obj, "structure_", None)
    if not isinstance(structure, (nx.Graph, Hyperforest)):
        raise TypeError(
            "Expected a networkx graph, a Hyperforest or a fitted model whose `structure_` is one, "
            f"got {_describe(obj)}."
        )
    return structure, getattr(obj, "class_name_", None), _describe(obj)


def structure_of(obj: Any) -> nx.Graph | Hyperforest | dict[Hashable, Hyperforest] | tuple[Hyperforest, ...]:
    """The structure that :func:`structure_difference` and :func:`structure_frequencies` compare.

    Parameters
    ----------
    obj : nx.DiGraph, nx.Graph, Hyperforest, dict, tuple of Hyperforest or fitted model
        A structure (returned as is), or a fitted model: its ``structure_``, or for a
        classifier with one hyperforest per class (``HyperforestClassifier(representation="free")``,
        or ``"auto"`` when it chose them) the dict of class label -> Hyperforest of
        :func:`~graphmodels.structures.hyperforests_by_class` (its ``structure_`` is the union
        of the classes' Markov networks, an ``nx.Graph``, not what is compared).

    Returns
    -------
    nx.DiGraph, nx.Graph, Hyperforest, dict or tuple
        A dict (class label -> Hyperforest) or tuple of hyperforests is compared by their
        hyperedges pooled. A new dict or tuple; the structures themselves are not copied.

    Raises
    ------
    TypeError
        If `obj` is neither a structure nor a fitted model with one.
    NotFittedError
        For an unfitted graphmodels model.

    See Also
    --------
    EdgeStability.structures : each refit's structure, as this function gives it.

    Examples
    --------
    >>> import networkx as nx
    >>> graph = nx.DiGraph([("C", "x")])
    >>> structure_of(graph) is graph
    True
    """
    return _structure_of(obj)[0]


def _latent_names(graph):
    """Each latent node (``role="latent"``) -> the frozenset of the observed variables below it."""
    latent = [n for n, role in graph.nodes(data="role") if role == "latent"]
    if not latent:
        return {}
    names = {}
    for node in latent:
        below = frozenset(d for d in nx.descendants(graph, node) if graph.nodes[d].get("role") != "latent")
        names[node] = below
    if len(set(names.values())) < len(names):
        raise ValueError("Two latent nodes summarize the same observed variables; they cannot be told apart.")
    return names


def _read(obj) -> _Items:
    """`obj` (a structure or a fitted model) as a set of items of its kind."""
    structure, class_name, what = _structure_of(obj)
    if isinstance(structure, (dict, tuple)):  # one hyperforest per class: their hyperedges pooled
        forests = tuple(structure.values()) if isinstance(structure, dict) else structure
        pooled = {h for forest in forests for h in forest.maximal_hyperedges if len(h) > 1}
        items = frozenset(h for h in pooled if not any(h < other for other in pooled))
        nodes: dict[Any, dict] = {}
        for forest in forests:
            for v in forest.nodes:
                nodes.setdefault(v, dict(forest.node_attributes.get(v, {})))
        source = f"{what} (hyperedges of {len(forests)} Hyperforests, one per class, pooled)"
        return _Items("hyperedges", items, nodes, {}, class_name, source)
    if isinstance(structure, Hyperforest):
        items = frozenset(h for h in structure.maximal_hyperedges if len(h) > 1)
        nodes = {v: dict(structure.node_attributes.get(v, {})) for v in structure.nodes}
        return _Items("hyperedges", items, nodes, {}, class_name, f"{what} (hyperedges of a Hyperforest)")
    graph = structure
    if graph.number_of_nodes() and all(isinstance(n, frozenset) for n in graph.nodes):
        if all("counting_number" in d for _, d in graph.nodes(data=True)):
            kind = "regions"
            maximal = [r for r in graph.nodes if not any(r < other for other in graph.nodes)]
        elif all(d.get("kind") == "clique" for _, d in graph.nodes(data=True)):
            kind = "hyperedges"  # a junction tree: its cliques are the maximal hyperedges
            maximal = list(graph.nodes)
        else:
            raise TypeError(
                f"{what} has frozenset nodes but is neither a region graph (nodes with `counting_number`) "
                "nor a junction tree (nodes with kind='clique'); it cannot be compared."
            )
        variables = list(dict.fromkeys(v for r in graph.nodes for v in sorted(r, key=str)))
        nodes = {v: {"role": "class"} if v == class_name else {} for v in variables}
        items = frozenset(r for r in maximal if len(r) > 1)
        source = "regions of a region graph" if kind == "regions" else "hyperedges: the cliques of a junction tree"
        return _Items(kind, items, nodes, {}, class_name, f"{what} ({source})")
    rename = _latent_names(graph) if graph.is_directed() else {}
    nodes = {rename.get(n, n): dict(d) for n, d in graph.nodes(data=True)}
    data: dict[Any, dict] = {}
    if graph.is_directed():
        for u, v, d in graph.edges(data=True):
            data[(rename.get(u, u), rename.get(v, v))] = dict(d)
        kind = "arcs"
    else:
        for u, v, d in graph.edges(data=True):
            data[frozenset((u, v))] = dict(d)
        kind = "edges"
    if class_name is None:
        found = [n for n, d in nodes.items() if d.get("role") == "class"]
        class_name = found[0] if len(found) == 1 else None
    return _Items(kind, frozenset(data), nodes, data, class_name, f"{what} ({kind} of an nx.{type(graph).__name__})")


def _pairs(sets):
    """Every pair of variables that some set of `sets` holds, as frozensets."""
    return {frozenset(p) for s in sets for p in itertools.combinations(sorted(s, key=str), 2)}


def _covered(item, sets):
    """Whether `item` is a subset of some set of `sets` (a hyperedge or region is present in a structure)."""
    return any(item <= s for s in sets)


# ---------------------------------------------------------------------------- the difference of two
@dataclass(frozen=True, repr=False)
class StructureDifference:
    """The exact difference of two structures of one kind (see :func:`structure_difference`).

    Attributes
    ----------
    kind : {"arcs", "edges", "hyperedges", "regions"}
    shared : frozenset
        Items of both structures (arcs with the same orientation).
    only_a, only_b : frozenset
        Items of one structure only; an arc reversed in the other is not here.
    reversed : frozenset of tuple
        Arcs ``(u, v)`` of `a` whose reverse ``(v, u)`` is an arc of `b` (``"arcs"`` only;
        empty for the other kinds), oriented as in `a`.
    graph : nx.DiGraph or nx.Graph
        Every node of both, and an edge per compared item with ``status`` (one of
        ``"shared"``, ``"only_a"``, ``"only_b"``, ``"reversed"``). Arcs: the arcs of both,
        a reversed arc once, as in `a`. Edges: the edges of both. Hyperedges and regions: the
        pairs of variables they join, ``"shared"`` when both structures join the pair, else
        whose structure does.
    labels : tuple of str
        Names of `a` and `b` for drawings and messages.
    class_name : hashable or None
        The class variable, when either structure names one.
    reoriented : frozenset
        Comparing equivalence classes (``structure_difference(a, b, cpdag=True)``): the items
        of `a` whose pair `b` joins too, one as an arc and the other as an undirected edge (as
        in `a`: an arc tuple or an undirected edge's frozenset). Empty otherwise.
    """

    kind: str
    shared: frozenset
    only_a: frozenset
    only_b: frozenset
    reversed: frozenset
    graph: nx.Graph = field(compare=False)
    labels: tuple[str, str] = ("a", "b")
    class_name: Hashable | None = None
    reoriented: frozenset = frozenset()

    @property
    def counts(self) -> dict[str, int]:
        """Number of items of each status: ``{"shared": .., "only_a": .., "only_b": .., "reversed": ..}``."""
        return {status: len(getattr(self, status)) for status in STATUSES}

    @property
    def identical(self) -> bool:
        """True when the two structures have the same items."""
        return not (self.only_a or self.only_b or self.reversed)

    @property
    def hamming(self) -> int:
        """Structural Hamming distance: items of one structure only, plus reversed (and reoriented) arcs [1]_.

        With ``cpdag=True`` it is the distance of the two CPDAGs as R bnlearn's ``shd`` counts
        it: each pair of variables that one CPDAG joins differently from the other (absent,
        undirected, or an arc either way) counts once.

        References
        ----------
        .. [1] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing
               Bayesian network structure learning algorithm. *Machine Learning*, 65(1), 31-78.
        """
        return len(self.only_a) + len(self.only_b) + len(self.reversed) + len(self.reoriented)

    def __repr__(self) -> str:
        counts = ", ".join(f"{status}={n}" for status, n in self.counts.items())
        return f"StructureDifference(kind={self.kind!r}, {counts})"


def structure_difference(
    a: Any, b: Any, *, labels: Sequence[str] | None = None, cpdag: bool = False
) -> StructureDifference:
    """What two learned structures of the same kind share, and where they differ.

    pyAgrum's ``showBNDiff`` for every structure of the library: TAN against Chow-Liu,
    one cross-validation fold's network against another's, the network that generated the
    data against the learned one. The difference is exact and symmetric:
    ``structure_difference(b, a)`` swaps `only_a` and `only_b`, keeps `shared`, and has the
    same reversed arcs, each oriented as in its own first structure.

    Parameters
    ----------
    a, b : nx.DiGraph, nx.Graph, Hyperforest, dict or tuple of Hyperforest, or fitted model
        Two structures of the same kind (see :data:`STRUCTURE_KINDS`), or fitted models whose
        ``structure_`` is one. A region graph is compared by its maximal regions, a
        hyperforest by its maximal hyperedges (of two or more variables, exactly: a hyperedge
        ``{a, b}`` of one is not shared with ``{a, b, c}`` of the other), a latent tree with
        each latent node named by the observed variables below it. A hyperforest classifier
        with one hyperforest per class (``representation="free"``), a dict of class label
        -> hyperforest or a tuple of hyperforests is compared by the hyperedges of its classes
        pooled (the maximal ones among them); compare one class by its label, with
        ``structure_difference(hyperforests_by_class(a)[label], hyperforests_by_class(b)[label])``
        (not by position: two fits on different rows can hold different classes).
    labels : pair of str, optional
        Names of `a` and `b` in drawings; default ``("a", "b")``, or the class names of two
        models of different classes.
    cpdag : bool, default=False
        Compare the Markov equivalence classes of two DAGs instead of the DAGs: each DAG is
        replaced by its CPDAG (:func:`~graphmodels.structures.cpdag`; a graph with undirected
        edges, as pairs of arcs, is read as a CPDAG already), whose items are its arcs and its
        undirected edges (frozensets). Data cannot tell the DAGs of one class apart, so this is
        how a structure search is scored against the truth (R bnlearn's ``shd``):
        :attr:`StructureDifference.hamming` counts the pairs joined differently.

    Returns
    -------
    StructureDifference

    Raises
    ------
    TypeError
        If `a` or `b` is not a structure nor a fitted model with one, or if their kinds
        differ (the message names both).
    NotFittedError
        For an unfitted graphmodels model.

    See Also
    --------
    structure_frequencies : how often each item appears among many structures.
    graphmodels.plotting.draw_structure_difference : the drawing.

    Examples
    --------
    >>> import networkx as nx
    >>> a = nx.DiGraph([("C", "x"), ("C", "y"), ("x", "y"), ("y", "z")])
    >>> b = nx.DiGraph([("C", "x"), ("C", "y"), ("y", "x"), ("x", "z")])
    >>> diff = structure_difference(a, b)
    >>> sorted(diff.shared), sorted(diff.only_a), sorted(diff.only_b), sorted(diff.reversed)
    ([('C', 'x'), ('C', 'y')], [('y', 'z')], [('x', 'z')], [('x', 'y')])
    >>> diff.hamming
    3
    """
    if cpdag:
        return _cpdag_difference(a, b, _check_labels(labels, a, b))
    first, second = _read(a), _read(b)
    if first.kind != second.kind:
        raise TypeError(
            f"Cannot compare {first.source} with {second.source}: structure_difference needs two "
            "structures of the same kind (arcs, edges, hyperedges or regions)."
        )
    names = _check_labels(labels, a, b)
    kind = first.kind
    A, B = first.items, second.items
    if kind == "arcs":
        flipped_b = {(v, u) for u, v in B}
        reversed_arcs = frozenset(arc for arc in A - B if arc in flipped_b and arc not in B)
        only_a = frozenset(A - B - reversed_arcs)
        only_b = frozenset(B - A - {(v, u) for u, v in reversed_arcs})
    else:
        reversed_arcs = frozenset()
        only_a, only_b = frozenset(A - B), frozenset(B - A)
    shared = frozenset(A & B)

    graph = nx.DiGraph() if kind == "arcs" else nx.Graph()
    nodes = dict(first.nodes)  # every node of both, in the order of `a` then `b`; attributes as in `a`
    for node, attributes in second.nodes.items():
        nodes.setdefault(node, attributes)
    graph.add_nodes_from(nodes.items())
    if kind in ("arcs", "edges"):
        for status, items, source in (
            ("shared", shared, first),
            ("only_a", only_a, first),
            ("only_b", only_b, second),
            ("reversed", reversed_arcs, first),
        ):
            for item in _ordered_items(items, list(graph.nodes)):
                u, v = item if kind == "arcs" else _pair(item, list(graph.nodes))
                graph.add_edge(u, v, **{**source.data.get(item, {}), "status": status})
    else:
        pairs_a, pairs_b = _pairs(A), _pairs(B)
        order = list(graph.nodes)
        for pair in _ordered_items(pairs_a | pairs_b, order):
            status = "shared" if pair in pairs_a and pair in pairs_b else ("only_a" if pair in pairs_a else "only_b")
            graph.add_edge(*_pair(pair, order), status=status)
    class_name = first.class_name if first.class_name is not None else second.class_name
    return StructureDifference(kind, shared, only_a, only_b, reversed_arcs, graph, names, class_name)


def _as_cpdag(obj: Any) -> nx.DiGraph:
    structure, _, what = _structure_of(obj)
    if not isinstance(structure, nx.DiGraph):
        raise TypeError(f"cpdag=True compares DAGs or CPDAGs (nx.DiGraph), got {what}.")
    if any(structure.has_edge(v, u) for u, v in structure.edges):
        return structure  # undirected edges already: a CPDAG (or PDAG)
    return _cpdag(structure)


def _pattern_items(graph: nx.DiGraph) -> dict[frozenset, Any]:
    """Each joined pair -> its item: the arc ``(u, v)``, or the pair itself when undirected."""
    items: dict[frozenset, Any] = {}
    for u, v in graph.edges:
        pair = frozenset((u, v))
        items[pair] = pair if graph.has_edge(v, u) else (u, v)
    return items


def _cpdag_difference(a: Any, b: Any, names: tuple[str, str]) -> StructureDifference:
    """:func:`structure_difference` of the CPDAGs of `a` and `b`."""
    first, second = _as_cpdag(a), _as_cpdag(b)
    items_a, items_b = _pattern_items(first), _pattern_items(second)
    shared, only_a, only_b, flipped, reoriented = set(), set(), set(), set(), set()
    for pair, item in items_a.items():
        other = items_b.get(pair)
        if other is None:
            only_a.add(item)
        elif other == item:
            shared.add(item)
        elif isinstance(item, tuple) and isinstance(other, tuple):
            flipped.add(item)
        else:
            reoriented.add(item)
    only_b = {item for pair, item in items_b.items() if pair not in items_a}
    graph = nx.DiGraph()
    graph.add_nodes_from(first.nodes(data=True))
    graph.add_nodes_from((n, d) for n, d in second.nodes(data=True) if n not in graph)
    order = list(graph.nodes)
    for status, items in (
        ("shared", shared),
        ("only_a", only_a),
        ("only_b", only_b),
        ("reversed", flipped),
        ("reoriented", reoriented),
    ):
        for item in _ordered_items(items, order):
            if isinstance(item, tuple):
                graph.add_edge(*item, status=status, directed=True)
            else:
                graph.add_edge(*_pair(item, order), status=status, directed=False)
    class_name = next((n for n, role in graph.nodes(data="role") if role == "class"), None)
    return StructureDifference(
        "arcs",
        frozenset(shared),
        frozenset(only_a),
        frozenset(only_b),
        frozenset(flipped),
        graph,
        names,
        class_name,
        frozenset(reoriented),
    )


def _check_labels(labels: Any, a: Any, b: Any) -> tuple[str, str]:
    if labels is None:
        name_a, name_b = _describe(a), _describe(b)
        if (
            name_a != name_b
            and not isinstance(a, (nx.Graph, Hyperforest))
            and not isinstance(b, (nx.Graph, Hyperforest))
            and _given_forests(a) is None
            and _given_forests(b) is None
        ):
            return (name_a, name_b)
        return ("a", "b")
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise TypeError(f"`labels` must be a pair of strings, got {labels!r}.")
    names = tuple(str(label) for label in labels)
    if len(names) != 2:
        raise ValueError(f"`labels` must be a pair of strings, got {len(names)} of them.")
    return names[0], names[1]


def _pair(item, order):
    """The two ends of an undirected item, in node order."""
    index = {n: i for i, n in enumerate(order)}
    u, v = sorted(item, key=lambda n: index.get(n, len(index)))
    return u, v


def _ordered_items(items, order):
    """Items in a fixed order: by the positions of their nodes in `order`."""
    index = {n: i for i, n in enumerate(order)}

    def key(item):
        members = item if isinstance(item, tuple) else sorted(item, key=lambda n: index.get(n, len(index)))
        return [index.get(n, len(index)) for n in members], str(item)

    return sorted(items, key=key)


# ---------------------------------------------------------------------------- the frequencies of many
@dataclass(frozen=True, repr=False)
class EdgeStability:
    """How often each arc, edge, hyperedge or region appears among many structures of one kind.

    Made by :func:`graphmodels.evaluation.edge_stability` (structures refitted on resamples)
    and :func:`structure_frequencies` (any list of structures).

    Attributes
    ----------
    kind : {"arcs", "edges", "hyperedges", "regions"}
    graph : nx.DiGraph or nx.Graph
        The union of the structures. Nodes: every node of any structure, with its attributes
        (``role``, ...) as first seen. Arcs: one arc per pair of variables joined in some
        structure, oriented the way most structures orient it (ties: as first seen), with
        ``frequency`` (fraction of the structures with an arc between the two, either way),
        ``direction`` (fraction of those with this orientation, in [0.5, 1]), ``count`` and
        the arc's ``kind`` as first seen. Edges: ``frequency`` and ``count``. Hyperedges and
        regions: an edge per pair of variables some item joins, with ``frequency``: the
        fraction of the structures in which one hyperedge (region) holds both.
    frequencies : pandas.Series
        Item -> frequency, most frequent first (ties in node order), named ``"frequency"``.
        Arcs as ``(u, v)`` tuples oriented as in `graph`; edges as ``(u, v)`` tuples in node
        order; hyperedges and regions as frozensets: every maximal item of any structure, with
        the fraction of the structures in which it is present, i.e. contained in one of their
        items (a hyperforest holds every subset of its hyperedges; a Kikuchi model every
        interaction inside its regions), so a subset is never less frequent than its superset.
    table : pandas.DataFrame
        The same, one row per item: ``source``, ``target``, ``frequency``, ``direction``
        (arcs; bnlearn's ``from``, ``to``, ``strength``, ``direction``), ``source``,
        ``target``, ``frequency`` (edges), or ``members`` (frozenset), ``size``,
        ``frequency``.
    structures : tuple
        The structures counted, in order, as :func:`structure_of` gives them (networkx graphs
        or hyperforests; for models, their ``structure_``, or for a hyperforest classifier with
        one hyperforest per class a dict of class label -> Hyperforest, holding only the
        classes the refit's rows had), e.g. for :func:`structure_difference` between two
        resamples. :meth:`class_frequencies` gives the frequencies within one class.
    n_resamples : int
        Number of structures.
    threshold : float
        Default threshold of :meth:`consensus` (and of the drawing's highlight).
    method : str or None
        How the structures were obtained: ``"bootstrap"``, ``"subsample"``, ``"cv"``,
        ``"given"`` (resamples passed as weights) or None (structures passed to
        :func:`structure_frequencies`).
    class_name : hashable or None
        The class variable, if the structures name one.
    """

    kind: str
    graph: nx.Graph = field(compare=False)
    frequencies: pd.Series = field(compare=False)
    table: pd.DataFrame = field(compare=False)
    structures: tuple = field(compare=False)
    n_resamples: int
    threshold: float
    method: str | None = None
    class_name: Hashable | None = None

    def consensus(self, threshold: float | None = None) -> nx.Graph | list[frozenset]:
        """The consensus structure: the items present in at least `threshold` of the structures.

        Parameters
        ----------
        threshold : float, optional
            In [0, 1]; defaults to :attr:`threshold`. An item is kept when its frequency is
            >= `threshold` (up to rounding).

        Returns
        -------
        nx.DiGraph, nx.Graph or list of frozenset
            Arcs: a new ``nx.DiGraph`` with every node and the kept arcs, each oriented as in
            :attr:`graph` (the majority orientation) with its attributes; it can, rarely, hold
            a directed cycle that no single structure had (check with
            ``nx.is_directed_acyclic_graph``). Edges: a new ``nx.Graph``. Hyperedges and
            regions: the kept items that no other kept item contains, most frequent first;
            they need not form a hyperforest (test with
            :func:`~graphmodels.structures.is_hyperforest`).

        Raises
        ------
        ValueError
            If `threshold` is not a number in [0, 1].
        """
        threshold = self.threshold if threshold is None else _check_threshold(threshold)
        kept: list[Any] = [item for item, f in self.frequencies.items() if f >= threshold - 1e-12]
        if self.kind in ("arcs", "edges"):
            graph = self.graph.__class__()
            graph.add_nodes_from(self.graph.nodes(data=True))
            graph.add_edges_from((u, v, self.graph.edges[u, v]) for u, v in kept)
            return graph
        return [item for item in kept if not any(item < other for other in kept)]

    def averaged_network(self, threshold: float | str | None = "auto") -> nx.DiGraph:
        """The averaged network: the arcs of frequency at least `threshold`, as a DAG (R bnlearn's ``averaged.network``).

        Each kept pair is oriented the way most structures orient it; the arcs are added
        strongest first (frequency, then direction), and an arc that would close a directed
        cycle is left out, so the result is always acyclic.

        Parameters
        ----------
        threshold : float, "auto" or None, default="auto"
            ``"auto"``: Scutari & Nagarajan's [1]_ significance threshold, estimated from the
            frequencies of every pair of nodes (see :func:`structure_frequencies`); None: this
            object's :attr:`threshold`; or a number in [0, 1].

        Returns
        -------
        nx.DiGraph
            Every node, and the kept arcs with their ``frequency``, ``direction`` and
            ``count``; graph attribute ``threshold``: the threshold used.

        Raises
        ------
        ValueError
            For structures that are not DAGs (kind other than ``"arcs"``), or a bad `threshold`.

        References
        ----------
        .. [1] Scutari, M., & Nagarajan, R. (2013). Identifying significant edges in graphical
               models of molecular networks. *Artificial Intelligence in Medicine*, 57(3), 207-217.

        Examples
        --------
        >>> fits = [nx.DiGraph([("a", "b"), ("b", "c")])] * 3 + [nx.DiGraph([("b", "a"), ("c", "a")])]
        >>> averaged = structure_frequencies(fits).averaged_network(threshold=0.5)
        >>> sorted(averaged.edges), averaged.graph["threshold"]
        ([('a', 'b'), ('b', 'c')], 0.5)
        """
        if self.kind != "arcs":
            raise ValueError(f"An averaged network is a DAG: it averages arcs, not {self.kind}.")
        if threshold == "auto":
            value = _estimated_threshold(self.frequencies.to_numpy(), self.graph.number_of_nodes())
        elif threshold is None:
            value = self.threshold
        else:
            value = _check_threshold(threshold)
        dag = nx.DiGraph(threshold=float(value))
        dag.add_nodes_from(self.graph.nodes(data=True))
        kept = [(u, v, d) for u, v, d in self.graph.edges(data=True) if d["frequency"] >= value - 1e-12]
        for u, v, data in sorted(kept, key=lambda arc: (-arc[2]["frequency"], -arc[2]["direction"])):
            if not nx.has_path(dag, v, u):
                dag.add_edge(u, v, **data)
        return dag

    def class_frequencies(self, label: Hashable, *, threshold: float | str | None = None) -> EdgeStability:
        """The frequencies within one class, for structures with one hyperforest per class.

        Each structure of :attr:`structures` that is a dict of class label -> Hyperforest
        (a hyperforest classifier with one hyperforest per class) gives its hyperforest of
        class `label`; a structure without one (a refit whose rows held no row of the class)
        is left out, so :attr:`n_resamples` of the result counts the structures that have
        the class. A single Hyperforest (a refit where ``representation="auto"`` chose one
        hyperforest shared by the classes) is every class's. The same as
        ``structure_frequencies([s[label] for s in result.structures if label in s])`` when
        every structure is a dict; never index the classes by position, which differs
        between refits that hold different classes.

        Parameters
        ----------
        label : hashable
            A class label, as in the model's ``classes_``.
        threshold : float or "auto", optional
            Threshold of the result's consensus; defaults to :attr:`threshold`.

        Returns
        -------
        EdgeStability
            Of kind ``"hyperedges"``, with the same :attr:`method` and :attr:`class_name`.

        Raises
        ------
        TypeError
            If a structure is neither a dict of class label -> Hyperforest nor a Hyperforest,
            or if none is a dict (no structure is per class).
        ValueError
            If no per-class structure has a hyperforest of class `label` (the message lists
            the classes there are).
        """
        forests = []
        labels: dict[Hashable, None] = {}
        for i, structure in enumerate(self.structures):
            if isinstance(structure, Hyperforest):
                forests.append(structure)  # one hyperforest shared by every class
                continue
            if not isinstance(structure, Mapping):
                raise TypeError(
                    "class_frequencies needs structures with one hyperforest per class (dicts of class label -> "
                    f"Hyperforest, as edge_stability gives for HyperforestClassifier(representation='free')); "
                    f"structures[{i}] is {_describe(structure)}."
                )
            labels.update(dict.fromkeys(structure))
            if label in structure:
                forests.append(structure[label])
        if not labels:
            raise TypeError(
                "class_frequencies needs structures with one hyperforest per class (dicts of class label -> "
                "Hyperforest); every structure here is one hyperforest shared by the classes: use the "
                "frequencies themselves."
            )
        if label not in labels:
            raise ValueError(f"No structure has a hyperforest of class {label!r}; the classes are {list(labels)}.")
        return structure_frequencies(
            forests,
            threshold=self.threshold if threshold is None else threshold,
            method=self.method,
            class_name=self.class_name,
        )

    def __repr__(self) -> str:
        return (
            f"EdgeStability(kind={self.kind!r}, n_resamples={self.n_resamples}, items={len(self.frequencies)}, "
            f"consensus={len(self.frequencies[self.frequencies >= self.threshold - 1e-12])} at "
            f"threshold={self.threshold:g}" + (f", method={self.method!r}" if self.method else "") + ")"
        )


def _check_threshold(threshold):
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not 0 <= threshold <= 1:
        raise ValueError(f"`threshold` must be a number in [0, 1] or 'auto', got {threshold!r}.")
    return float(threshold)


def structure_frequencies(
    structures: Iterable[Any],
    *,
    threshold: float | str = 0.5,
    method: str | None = None,
    class_name: Hashable | None = None,
) -> EdgeStability:
    """How often each arc, edge, hyperedge or region appears among structures of one kind.

    R bnlearn's ``custom.strength``: the frequencies of :func:`~graphmodels.evaluation.edge_stability`
    for structures learned any other way (on data sets of several sites, by several
    learners, ...).

    Parameters
    ----------
    structures : iterable of nx.DiGraph, nx.Graph, Hyperforest or fitted models
        At least one, all of the same kind (see :data:`STRUCTURE_KINDS`). An element that is a
        dict of class label -> hyperforest or a tuple of hyperforests (one per class) is one
        structure, their hyperedges pooled; a fitted model is read by :func:`structure_of`.
    threshold : float or "auto", default=0.5
        Default threshold of the consensus (:meth:`EdgeStability.consensus`), in [0, 1].
        ``"auto"`` (arcs and edges only) estimates it as Scutari & Nagarajan [1]_ do: the
        empirical distribution of the frequencies of all pairs of nodes (pairs never joined
        count as 0) is compared in L1 norm with the ideal one, a fraction ``1 - t`` of pairs
        at 0 and ``t`` at 1; with the best ``t``, the items among the most frequent ``t``
        of the pairs are kept: the threshold is the smallest frequency above the
        ``1 - t`` quantile (1 when none is).
    method : str, optional
        Recorded as :attr:`EdgeStability.method`.
    class_name : hashable, optional
        The class variable, for structures that do not name it (a region graph holds the
        class in every region; the drawings leave it out). Fitted models and graphs with a
        node of ``role="class"`` name it themselves.

    Returns
    -------
    EdgeStability

    Raises
    ------
    ValueError
        For no structures, or a bad `threshold`.
    TypeError
        For something that is not a structure, or structures of different kinds (the message
        names the first that differs).

    See Also
    --------
    graphmodels.evaluation.edge_stability : structures refitted on bootstrap resamples.
    structure_difference : the exact difference of two structures.

    References
    ----------
    .. [1] Scutari, M., & Nagarajan, R. (2013). Identifying significant edges in graphical
           models of molecular networks. *Artificial Intelligence in Medicine*, 57(3), 207-217.

    Examples
    --------
    >>> import networkx as nx
    >>> fits = [nx.DiGraph([("a", "b"), ("b", "c")]), nx.DiGraph([("b", "a"), ("b", "c")]), nx.DiGraph([("a", "b")])]
    >>> result = structure_frequencies(fits)
    >>> result.table
      source target  frequency  direction
    0      a      b   1.000000   0.666667
    1      b      c   0.666667   1.000000
    >>> sorted(result.consensus(0.9).edges)
    [('a', 'b')]
    """
    if isinstance(structures, (nx.Graph, Hyperforest, Mapping, str, bytes)) or not isinstance(structures, Iterable):
        raise TypeError(f"`structures` must be a list of structures, got {_describe(structures)}.")
    structures = list(structures)
    if not structures:
        raise ValueError("`structures` must hold at least one structure, got none.")
    read = [_read(s) for s in structures]
    kind = read[0].kind
    for i, r in enumerate(read):
        if r.kind != kind:
            raise TypeError(
                f"Every structure must be of one kind: structures[0] is {read[0].source}, structures[{i}] is {r.source}."
            )
    if threshold == "auto" and kind not in ("arcs", "edges"):
        raise ValueError(f"threshold='auto' estimates a threshold for arcs and edges, not for {kind}.")
    if threshold != "auto":
        threshold = _check_threshold(threshold)
    raw = tuple(structure_of(s) for s in structures)
    return _frequencies(read, kind, threshold, method, raw, class_name)


def _frequencies(read, kind, threshold, method, structures, class_name=None):
    """The :class:`EdgeStability` of structures already read (:class:`_Items`)."""
    n = len(read)
    nodes = {}
    for r in read:
        for node, attributes in r.nodes.items():
            nodes.setdefault(node, attributes)
    order = list(nodes)
    index = {node: i for i, node in enumerate(order)}
    if class_name is None:
        class_name = next((r.class_name for r in read if r.class_name is not None), None)
    if class_name is not None and class_name in nodes and kind == "regions":
        nodes[class_name] = {**nodes[class_name], "role": "class"}
    graph = nx.DiGraph() if kind == "arcs" else nx.Graph()
    graph.add_nodes_from(nodes.items())

    if kind == "arcs":
        pair_count, arc_count, first_data = {}, {}, {}
        first_seen = {}
        for r in read:
            for arc in sorted(r.items, key=lambda a: (index[a[0]], index[a[1]])):
                pair = frozenset(arc)
                pair_count[pair] = pair_count.get(pair, 0) + 1
                arc_count[arc] = arc_count.get(arc, 0) + 1
                first_data.setdefault(arc, r.data.get(arc, {}))
                first_seen.setdefault(pair, arc)
        rows = []
        for pair, count in pair_count.items():
            seen = first_seen[pair]
            other = (seen[1], seen[0])
            arc = other if arc_count.get(other, 0) > arc_count.get(seen, 0) else seen
            direction = arc_count.get(arc, 0) / count
            attributes = {k: v for k, v in first_data[arc].items() if k == "kind"}
            graph.add_edge(*arc, **attributes, frequency=count / n, direction=direction, count=count)
            rows.append((arc, count / n, direction))
        rows.sort(key=lambda row: (-row[1], index[row[0][0]], index[row[0][1]]))
        frequencies = _series([row[0] for row in rows], [row[1] for row in rows])
        table = pd.DataFrame(
            {
                "source": [row[0][0] for row in rows],
                "target": [row[0][1] for row in rows],
                "frequency": [row[1] for row in rows],
                "direction": [row[2] for row in rows],
            }
        )
    elif kind == "edges":
        edge_count = {}
        for r in read:
            for edge in r.items:
                edge_count[edge] = edge_count.get(edge, 0) + 1
        rows = []
        for edge, count in edge_count.items():
            u, v = sorted(edge, key=index.__getitem__)
            graph.add_edge(u, v, frequency=count / n, count=count)
            rows.append(((u, v), count / n))
        rows.sort(key=lambda row: (-row[1], index[row[0][0]], index[row[0][1]]))
        frequencies = _series([row[0] for row in rows], [row[1] for row in rows])
        table = pd.DataFrame(
            {
                "source": [row[0][0] for row in rows],
                "target": [row[0][1] for row in rows],
                "frequency": [row[1] for row in rows],
            }
        )
    else:
        union = set().union(*(r.items for r in read))
        counts = {item: sum(_covered(item, r.items) for r in read) for item in union}
        pair_counts = {}
        for r in read:
            for pair in _pairs(r.items):
                pair_counts[pair] = pair_counts.get(pair, 0) + 1
        for pair in _ordered_items(pair_counts, order):
            u, v = _pair(pair, order)
            graph.add_edge(u, v, frequency=pair_counts[pair] / n, count=pair_counts[pair])

        def key(item):
            return (-counts[item], -len(item), sorted(index[v] for v in item))

        items = sorted(union, key=key)
        frequencies = _series(items, [counts[item] / n for item in items])
        table = pd.DataFrame(
            {
                "members": items,
                "size": [len(item) for item in items],
                "frequency": [counts[item] / n for item in items],
            }
        )
    if threshold == "auto":
        threshold = _estimated_threshold(frequencies.to_numpy(), len(order))
    return EdgeStability(kind, graph, frequencies, table, tuple(structures), n, float(threshold), method, class_name)


def _series(items, values):
    index = pd.Index(items, dtype=object, tupleize_cols=False)
    return pd.Series(np.asarray(values, dtype=float), index=index, name="frequency")


def _estimated_threshold(frequencies, n_nodes):
    """Scutari & Nagarajan's (2013) threshold from the frequencies of the pairs joined at least once.

    Every pair of the `n_nodes` nodes counts: those never joined have frequency 0. With
    ``F`` the empirical distribution function of the pair frequencies, the ideal one is
    ``1 - t`` on [0, 1); ``c = 1 - t`` minimizes ``integral_0^1 |F(x) - c| dx``, attained at
    a value of ``F`` (a weighted median; ties: the largest, so the fewest pairs are kept).
    The kept items are those above the ``c`` quantile of ``F``.
    """
    n_pairs = max(n_nodes * (n_nodes - 1) // 2, len(frequencies))
    values = np.concatenate([np.asarray(frequencies, dtype=float), np.zeros(n_pairs - len(frequencies))])
    knots = np.unique(np.concatenate([[0.0], values[values < 1], [1.0]]))
    # F is constant on [knots[k], knots[k + 1]): its value and the length of the interval.
    levels = np.array([(values <= x + 1e-12).mean() for x in knots[:-1]])
    lengths = np.diff(knots)
    costs = np.array([(lengths * np.abs(levels - c)).sum() for c in levels])
    best = levels[np.flatnonzero(costs <= costs.min() + 1e-12)].max()
    quantile = knots[:-1][np.flatnonzero(levels >= best - 1e-12)[0]]
    above = values[values > quantile + 1e-12]
    return float(above.min()) if len(above) else 1.0
