"""Multi-dimensional Bayesian network classifiers (MDBNCs) as one networkx DAG.

A class that is a vector of labels ``C_1..C_m`` and attributes ``A_1..A_n``
share one DAG in which no arc goes from an attribute into a class. Its arcs
fall into three subgraphs (van der Gaag & de Waal, 2006; Bielza, Li &
Larrañaga, 2011; Mauá's notes, section 5):

* the *class subgraph*: class-to-class arcs (``kind="class-class"``);
* the *bridge subgraph*: class-to-feature arcs (``kind="class-feature"``);
* the *feature subgraph*: feature-to-feature arcs (``kind="feature-feature"``).

Nodes carry ``role`` (``"class"`` or ``"feature"``) and ``cardinality``;
edges carry ``kind`` and ``weight`` (the score gain or information that chose
them), as every structure of graphmodels does.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import networkx as nx

__all__ = [
    "ARC_KINDS",
    "multidimensional_classifier",
    "is_multidimensional_classifier",
    "arc_kind",
    "class_subgraph",
    "bridge_subgraph",
    "feature_subgraph",
    "class_variables",
    "feature_variables",
]

#: The three kinds of arcs of an MDBNC, in drawing order.
ARC_KINDS = ("class-class", "class-feature", "feature-feature")


def arc_kind(graph: nx.DiGraph, parent: Hashable, child: Hashable) -> str:
    """The kind of the arc ``parent -> child`` from the roles of its ends.

    Raises
    ------
    ValueError
        For an arc from a feature into a class, which an MDBNC forbids.
    """
    parent_role, child_role = graph.nodes[parent].get("role"), graph.nodes[child].get("role")
    if parent_role == "class":
        return "class-class" if child_role == "class" else "class-feature"
    if child_role == "class":
        raise ValueError(f"An MDBNC has no arc from a feature into a class, got {parent!r} -> {child!r}.")
    return "feature-feature"


def multidimensional_classifier(
    classes: Iterable[Hashable],
    features: Iterable[Hashable],
    arcs: Iterable[tuple[Hashable, Hashable] | tuple[Hashable, Hashable, Mapping[str, Any]]] = (),
    *,
    cardinalities: Mapping[Any, int] | None = None,
) -> nx.DiGraph:
    """Build an MDBNC DAG from its variables and arcs.

    Parameters
    ----------
    classes : sequence of hashable
        The class variables (labels) ``C_1..C_m``.
    features : sequence of hashable
        The attributes; a name may not be both a class and a feature.
    arcs : iterable of (parent, child) or (parent, child, dict)
        Arcs of any of the three kinds; a dict's items become edge attributes
        (e.g. ``weight``). Each arc's ``kind`` is set from the roles of its ends.
    cardinalities : mapping, optional
        Variable -> number of states, stored as the ``cardinality`` node attribute.

    Returns
    -------
    nx.DiGraph
        ``graph["classes"]`` and ``graph["features"]`` list the variables in the given order.

    Raises
    ------
    ValueError
        If a name is repeated, an arc has an unknown end, goes from a feature
        into a class, or the arcs form a cycle.

    Examples
    --------
    >>> g = multidimensional_classifier(["C1", "C2"], ["a", "b"], [("C1", "C2"), ("C1", "a"), ("C2", "b"), ("a", "b")])
    >>> sorted((u, v, k) for u, v, k in g.edges(data="kind"))
    [('C1', 'C2', 'class-class'), ('C1', 'a', 'class-feature'), ('C2', 'b', 'class-feature'), ('a', 'b', 'feature-feature')]
    """
    classes, features = list(classes), list(features)
    names = classes + features
    if len(set(names)) != len(names):
        seen, repeated = set(), []
        for name in names:
            if name in seen:
                repeated.append(name)
            seen.add(name)
        raise ValueError(f"Variable names must be unique across classes and features; repeated: {repeated[:5]}.")
    graph = nx.DiGraph(classes=classes, features=features)
    cardinalities = dict(cardinalities or {})
    for role, group in (("class", classes), ("feature", features)):
        for name in group:
            graph.add_node(name, role=role)
            if name in cardinalities:
                graph.nodes[name]["cardinality"] = int(cardinalities[name])
    for arc in arcs:
        parent, child, data = (arc[0], arc[1], dict(arc[2]) if len(arc) > 2 else {})
        for end in (parent, child):
            if end not in graph:
                raise ValueError(f"Arc {parent!r} -> {child!r} names {end!r}, which is neither a class nor a feature.")
        data["kind"] = arc_kind(graph, parent, child)
        graph.add_edge(parent, child, **data)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        raise ValueError(f"The arcs form a cycle: {cycle}.")
    return graph


def is_multidimensional_classifier(graph: nx.DiGraph) -> bool:
    """Whether `graph` is an MDBNC: a DAG of class and feature nodes, no feature-to-class arc,
    and every edge's ``kind`` matching the roles of its ends."""
    if not isinstance(graph, nx.DiGraph) or not nx.is_directed_acyclic_graph(graph):
        return False
    roles = dict(graph.nodes(data="role"))
    if not set(roles.values()) <= {"class", "feature"} or "class" not in roles.values():
        return False
    for u, v, kind in graph.edges(data="kind"):
        if roles[u] == "feature" and roles[v] == "class":
            return False
        if kind != arc_kind(graph, u, v):
            return False
    return True


def class_variables(graph: nx.DiGraph) -> list[Hashable]:
    """Class nodes in the graph's order (``graph["classes"]`` when present)."""
    if "classes" in graph.graph:
        return list(graph.graph["classes"])
    return [n for n, role in graph.nodes(data="role") if role == "class"]


def feature_variables(graph: nx.DiGraph) -> list[Hashable]:
    """Feature nodes in the graph's order (``graph["features"]`` when present)."""
    if "features" in graph.graph:
        return list(graph.graph["features"])
    return [n for n, role in graph.nodes(data="role") if role == "feature"]


def _arcs_of_kind(graph, kind, nodes):
    sub = nx.DiGraph()
    sub.graph.update(graph.graph)
    sub.add_nodes_from((n, graph.nodes[n]) for n in nodes)
    sub.add_edges_from((u, v, d) for u, v, d in graph.edges(data=True) if d.get("kind") == kind)
    return sub


def class_subgraph(graph: nx.DiGraph) -> nx.DiGraph:
    """The class nodes and the class-to-class arcs (a new graph)."""
    return _arcs_of_kind(graph, "class-class", class_variables(graph))


def bridge_subgraph(graph: nx.DiGraph) -> nx.DiGraph:
    """Every node and only the class-to-feature arcs (a new graph)."""
    return _arcs_of_kind(graph, "class-feature", class_variables(graph) + feature_variables(graph))


def feature_subgraph(graph: nx.DiGraph) -> nx.DiGraph:
    """The feature nodes and the feature-to-feature arcs (a new graph)."""
    return _arcs_of_kind(graph, "feature-feature", feature_variables(graph))
