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
