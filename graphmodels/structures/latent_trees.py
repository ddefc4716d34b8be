"""Latent trees of hierarchical naive Bayes models, as networkx digraphs.

The class is the root; its children are attributes or latent variables; each
latent variable has children of its own (attributes or earlier latents), so
attributes are the leaves. Nodes carry ``role`` (``"class"``, ``"latent"``,
``"feature"``) and ``cardinality``; a latent node also carries ``children``
(the tuple of its children) and ``states``: for each of its states, the tuple
of child configurations (tuples of child states, in ``children`` order) that
it stands for.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

__all__ = ["naive_bayes_tree", "add_latent", "is_latent_tree", "class_children", "latent_nodes"]


def naive_bayes_tree(
    class_name: Hashable, attributes: Iterable[Hashable], cardinalities: Mapping[Any, int] | None = None
) -> nx.DiGraph:
    """The naive Bayes structure as a latent tree without latents.

    Parameters
    ----------
    class_name : hashable
    attributes : sequence of hashable
    cardinalities : mapping, optional
        Number of states of each variable, stored as ``cardinality``.

    Returns
    -------
    networkx.DiGraph

    Examples
    --------
    >>> tree = naive_bayes_tree("C", ["a", "b"])
    >>> sorted(tree.successors("C")), tree.nodes["a"]["role"]
    (['a', 'b'], 'feature')
    """
    attributes = list(attributes)
    if class_name in attributes:
        raise ValueError(f"The class {class_name!r} is also an attribute.")
    tree = nx.DiGraph()
    cards = dict(cardinalities or {})
    tree.add_node(class_name, role="class", **({"cardinality": int(cards[class_name])} if class_name in cards else {}))
    for attribute in attributes:
        extra = {"cardinality": int(cards[attribute])} if attribute in cards else {}
        tree.add_node(attribute, role="feature", **extra)
        tree.add_edge(class_name, attribute, kind="class")
    return tree


def add_latent(
    tree: nx.DiGraph,
    name: Hashable,
    children: Sequence[Hashable],
    states: Sequence[Sequence[tuple[Hashable, ...]]],
) -> nx.DiGraph:
    """A new tree where latent `name` replaces `children` under the class.

    Parameters
    ----------
    tree : networkx.DiGraph
        A latent tree (not modified).
    name : hashable
        Name of the new latent variable (must be new).
    children : sequence of two or more nodes
        Current children of the class that move under the latent.
    states : sequence of sequences of tuples
        For each state of the latent, the child configurations (tuples of
        child states, in `children` order) it stands for.

    Returns
    -------
    networkx.DiGraph

    Examples
    --------
    >>> tree = add_latent(naive_bayes_tree("C", ["a", "b", "c"]), "L1", ["a", "b"], [[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
    >>> sorted(tree.successors("C")), tree.nodes["L1"]["cardinality"]
    (['L1', 'c'], 2)
    """
    root = _root(tree)
    children = tuple(children)
    if name in tree:
        raise ValueError(f"A node named {name!r} already exists.")
    if len(children) < 2 or len(set(children)) != len(children):
        raise ValueError(f"A latent variable needs two or more distinct children, got {list(children)}.")
    for child in children:
        if not tree.has_edge(root, child):
            raise ValueError(f"{child!r} is not a child of the class {root!r}.")
    # Kept in the order given: labels of mixed types (a missing value's NaN among strings) do not sort.
    states = tuple(tuple(tuple(config) for config in state) for state in states)
    seen = [config for state in states for config in state]
    if len(seen) != len(set(seen)):
        raise ValueError("A child configuration belongs to two states of the latent.")
    if any(len(config) != len(children) for config in seen):
        raise ValueError(f"Each child configuration needs {len(children)} values.")
    new = tree.copy()
    new.add_node(name, role="latent", cardinality=len(states), children=children, states=states)
    new.add_edge(root, name, kind="class")
    for child in children:
        new.remove_edge(root, child)
        new.add_edge(name, child, kind="latent")
    return new


def _root(tree):
    roots = [n for n, role in tree.nodes(data="role") if role == "class"]
    if len(roots) != 1:
        raise ValueError(f"A latent tree has exactly one node with role 'class', found {len(roots)}.")
    return roots[0]


def class_children(tree: nx.DiGraph) -> list[Hashable]:
    """The children of the class, in insertion order."""
    return list(tree.successors(_root(tree)))


def latent_nodes(tree: nx.DiGraph) -> list[Hashable]:
    """The latent nodes, in insertion order."""
    return [n for n, role in tree.nodes(data="role") if role == "latent"]


def is_latent_tree(tree: nx.DiGraph) -> bool:
    """Check the shape: a tree rooted at the class, latents inside, attributes as leaves.

    Also checks that every latent's ``states`` partition child configurations
    of the right length and that its ``children`` are its successors.
    """
    if not isinstance(tree, nx.DiGraph) or tree.number_of_nodes() == 0:
        return False
    try:
        root = _root(tree)
    except ValueError:
        return False
    if not nx.is_arborescence(tree) or tree.in_degree(root) != 0:
        return False
    for node, data in tree.nodes(data=True):
        role = data.get("role")
        if role == "feature" and tree.out_degree(node) != 0:
            return False
        if role == "latent":
            children = tuple(data.get("children", ()))
            if set(children) != set(tree.successors(node)) or len(children) < 2:
                return False
            configs = [c for state in data.get("states", ()) for c in state]
            if len(configs) != len(set(configs)) or any(len(c) != len(children) for c in configs):
                return False
        elif role not in ("class", "feature"):
            return False
    return True
