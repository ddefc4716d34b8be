"""Tree and forest structures of Bayesian-network classifiers, as networkx graphs.

Conventions shared by every structure graphmodels returns:

* nodes carry ``role`` (``"class"``, ``"feature"`` or ``"latent"``) and
  ``cardinality`` (number of states);
* edges carry ``weight`` (the information measure that chose them) and, in
  classifiers, ``kind``: ``"class"`` for class-to-attribute arcs and
  ``"augmenting"`` for attribute-to-attribute arcs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

__all__ = [
    "orient_forest",
    "augmented_naive_bayes",
    "superparent_network",
    "class_node",
    "feature_parents",
    "is_augmented_naive_bayes",
]


def orient_forest(forest: nx.Graph, root_key: Callable[[Any], Any] | None = None) -> nx.DiGraph:
    """Direct every tree of an undirected forest away from its root.

    Parameters
    ----------
    forest : nx.Graph
        An undirected forest; node and edge attributes are kept.
    root_key : callable, optional
        ``root_key(node)`` gives a sortable score; each tree is rooted at its
        node with the highest score (ties: the node listed first in
        `forest`). Defaults to the first node of each tree.

    Returns
    -------
    nx.DiGraph
        A new graph; `forest` is not changed.

    Raises
    ------
    ValueError
        If `forest` has a cycle.

    Examples
    --------
    >>> g = nx.Graph([("a", "b"), ("b", "c")])
    >>> sorted(orient_forest(g, root_key=lambda n: n == "b").edges())
    [('b', 'a'), ('b', 'c')]
    """
    if forest.number_of_nodes() and not nx.is_forest(forest):
        raise ValueError("Expected a forest (an acyclic undirected graph), got a graph with a cycle.")
    order = {node: i for i, node in enumerate(forest.nodes)}
    directed = nx.DiGraph()
    directed.graph.update(forest.graph)
    directed.add_nodes_from(forest.nodes(data=True))
    for component in nx.connected_components(forest):
        nodes = sorted(component, key=order.__getitem__)
        if root_key is None:
            root = nodes[0]
        else:
            root = max(nodes, key=lambda n: (root_key(n), -order[n]))
        directed.nodes[root]["root"] = True
        for parent, child in nx.bfs_edges(forest, root, sort_neighbors=lambda ns: sorted(ns, key=order.__getitem__)):
            directed.add_edge(parent, child, **forest.edges[parent, child])
    return directed


def augmented_naive_bayes(
    class_variable: Hashable,
    features: Sequence[Hashable],
    augmenting_arcs: nx.DiGraph | Iterable[tuple[Hashable, Hashable]] = (),
    *,
    cardinalities: Mapping[Any, int] | None = None,
    class_weights: Mapping[Any, float] | None = None,
) -> nx.DiGraph:
    """A naive Bayes DAG (class parent of every feature) plus augmenting arcs.

    Parameters
    ----------
    class_variable : hashable
    features : sequence of hashable
    augmenting_arcs : nx.DiGraph or iterable of (parent, child)
        Arcs between features; a DiGraph's edge attributes are kept.
    cardinalities : mapping, optional
        Number of states of each node, stored as ``cardinality``.
    class_weights : mapping, optional
        ``weight`` of each class-to-feature arc (e.g. ``I(X; C)``).

    Returns
    -------
    nx.DiGraph
    """
    graph = nx.DiGraph()
    cardinalities = cardinalities or {}
    class_weights = class_weights or {}
    graph.add_node(class_variable, role="class")
    for feature in features:
        graph.add_node(feature, role="feature")
    for node in graph.nodes:
        if node in cardinalities:
            graph.nodes[node]["cardinality"] = int(cardinalities[node])
    for feature in features:
        attrs: dict[str, Any] = {"kind": "class"}
        if feature in class_weights:
            attrs["weight"] = float(class_weights[feature])
        graph.add_edge(class_variable, feature, **attrs)
    if isinstance(augmenting_arcs, nx.DiGraph):
        arcs = augmenting_arcs.edges(data=True)
    else:
        arcs = ((u, v, {}) for u, v in augmenting_arcs)
    for u, v, data in arcs:
        if u not in graph or v not in graph or u == class_variable or v == class_variable:
            raise ValueError(f"Augmenting arc ({u!r}, {v!r}) must join two features.")
        graph.add_edge(u, v, **{**data, "kind": "augmenting"})
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("The augmenting arcs form a directed cycle.")
    return graph


def superparent_network(
    class_variable: Hashable,
    features: Sequence[Hashable],
    superparents: Sequence[Hashable],
    *,
    cardinalities: Mapping[Any, int] | None = None,
) -> nx.DiGraph:
    """One member of an averaged n-dependence ensemble (AODE, AnDE) as a DAG.

    The member with super-parents ``S`` is the classifier
    ``P(y, x_S) prod_{k not in S} P(x_k | y, x_S)`` of Webb, Boughton &
    Wang (2005) for ``|S| = 1`` (AODE) [1]_ and of Webb et al. (2012) for
    any ``|S|`` (AnDE) [2]_: the class is a parent of every attribute and
    every super-parent a parent of every attribute outside ``S``. The joint
    ``P(y, x_S)`` is a full table, so the super-parents are also joined among
    themselves, each to the later ones in `features` order (``S = (a, b)``
    gives ``a -> b``): the graph stays acyclic and its families are exactly
    the tables the member multiplies.

    Parameters
    ----------
    class_variable : hashable
    features : sequence of hashable
        Every attribute, in order.
    superparents : sequence of hashable
        Distinct members of `features`, in any order; empty gives naive Bayes.
    cardinalities : mapping, optional
        Number of states of each node, stored as ``cardinality``.

    Returns
    -------
    nx.DiGraph
        Built as :func:`augmented_naive_bayes` builds classifiers: nodes with
        ``role`` (``"class"``, ``"feature"``) and ``cardinality``, class arcs
        ``kind="class"``, super-parent arcs ``kind="augmenting"``; the graph
        attribute ``superparents`` holds the super-parents in `features` order.

    Raises
    ------
    ValueError
        If `superparents` names something that is not in `features`, or a
        feature twice.

    See Also
    --------
    graphmodels.models.AODE.member_structure, graphmodels.models.AnDE.member_structure

    References
    ----------
    .. [1] Webb, G. I., Boughton, J. R., & Wang, Z. (2005). Not so naive
           Bayes: aggregating one-dependence estimators. *Machine Learning*,
           58(1), 5-24.
    .. [2] Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M., & Salem, H.
           (2012). Learning by extrapolation from marginal to
           full-multivariate probability distributions: decreasingly naive
           Bayesian classification. *Machine Learning*, 86(2), 233-272.

    Examples
    --------
    >>> g = superparent_network("C", ["a", "b", "c"], ("b", "a"))
    >>> sorted(g.edges(data="kind"))  # doctest: +NORMALIZE_WHITESPACE
    [('C', 'a', 'class'), ('C', 'b', 'class'), ('C', 'c', 'class'),
     ('a', 'b', 'augmenting'), ('a', 'c', 'augmenting'), ('b', 'c', 'augmenting')]
    >>> g.graph["superparents"]
    ('a', 'b')
    """
    features = list(features)
    positions: dict[int, Hashable] = {}
    for name in superparents:
        matches = [i for i, feature in enumerate(features) if feature == name]
        if not matches:
            shown = ", ".join(map(repr, features[:10])) + (", ..." if len(features) > 10 else "")
            raise ValueError(f"`superparents` must name attributes among [{shown}], got {name!r}.")
        if matches[0] in positions:
            raise ValueError(f"`superparents` must name distinct attributes, got {name!r} twice.")
        positions[matches[0]] = features[matches[0]]
    ordered = [positions[i] for i in sorted(positions)]
    arcs = [
        (parent, child)
        for rank, parent in enumerate(ordered)
        for child in features
        if child != parent and child not in ordered[:rank]
    ]
    graph = augmented_naive_bayes(class_variable, features, arcs, cardinalities=cardinalities)
    graph.graph["superparents"] = tuple(ordered)
    return graph


def class_node(graph: nx.Graph) -> Hashable:
    """The node whose ``role`` is ``"class"``.

    Parameters
    ----------
    graph : nx.Graph or nx.DiGraph
        A structure whose nodes carry ``role``.

    Returns
    -------
    hashable

    Raises
    ------
    ValueError
        If there is not exactly one.
    """
    nodes = [n for n, role in graph.nodes(data="role") if role == "class"]
    if len(nodes) != 1:
        raise ValueError(f"Expected exactly one node with role='class', found {len(nodes)}.")
    return nodes[0]


def feature_parents(graph: nx.DiGraph) -> dict[Hashable, list[Hashable]]:
    """Map each feature to its feature parents (class excluded), in graph order."""
    cls = class_node(graph)
    return {
        node: [p for p in graph.predecessors(node) if p != cls]
        for node, role in graph.nodes(data="role")
        if role != "class"
    }


def is_augmented_naive_bayes(graph: nx.DiGraph, *, max_feature_parents: int = 1) -> bool:
    """True if `graph` is a DAG whose class is a parent of every feature and
    each feature has at most `max_feature_parents` feature parents."""
    try:
        cls = class_node(graph)
    except ValueError:
        return False
    if not nx.is_directed_acyclic_graph(graph) or graph.in_degree(cls) != 0:
        return False
    parents = feature_parents(graph)
    return all(graph.has_edge(cls, f) for f in parents) and all(
        len(ps) <= max_feature_parents for ps in parents.values()
    )
