"""Exact marginals of discrete factor products, for many rows at once, by a junction tree.

A *factor* is a pair ``(scope, table)``: a tuple of variable indices and an
array of log values of shape ``(n_rows or 1, r_scope[0], r_scope[1], ...)``
-- one table per row (evidence already plugged in) or one shared by all
rows. For ``Phi(x) = exp(sum of the factors)`` :func:`log_marginals` returns
``log sum_{x: x_v = s} Phi(x)`` for every variable ``v`` and state ``s``, and
the log partition function, for every row -- exact summation, never the
enumeration of every joint configuration.

The tree decomposition is networkx's min-fill heuristic
(:func:`networkx.algorithms.approximation.treewidth_min_fill_in`) on the
interaction graph; messages are passed up and down the tree in log space
(``logsumexp``), all rows of a block at once. Multi-dimensional classifiers
use it for the marginal posterior of each class variable (Mauá's notes,
section 6: the class graph of an MDBNC may have a large tree-width, and the
sum over the other labels must not enumerate all their configurations).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np
from networkx.algorithms.approximation import treewidth_min_fill_in
from numpy.typing import ArrayLike

from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from .._special import logsumexp

__all__ = ["log_marginals", "junction_tree_of_scopes", "brute_force_log_marginals"]

#: Cells of the largest clique array (rows x clique states) built at once.
_BLOCK_CELLS = 4_000_000


def junction_tree_of_scopes(scopes: Iterable[Iterable[int]], n_variables: int) -> nx.Graph:
    """A tree decomposition covering every scope: an ``nx.Graph`` of frozenset bags.

    Every scope lies inside some bag and the bags holding any variable form
    a connected subtree (the running intersection property), so it is a
    junction tree for any product of factors over these scopes.

    Parameters
    ----------
    scopes : iterable of iterable of int
        Variable indices of each factor.
    n_variables : int
        Variables are ``0 .. n_variables - 1``; one not in any scope gets a bag of its own.

    Returns
    -------
    nx.Graph
        Nodes are frozensets of variable indices (the bags), no bag inside another.

    Examples
    --------
    >>> tree = junction_tree_of_scopes([(0, 1), (1, 2), (2, 0), (3,)], 4)
    >>> sorted(sorted(bag) for bag in tree.nodes)
    [[0, 1, 2], [3]]
    """
    graph = nx.Graph()
    graph.add_nodes_from(range(n_variables))
    for scope in scopes:
        scope = list(scope)
        graph.add_edges_from((a, b) for i, a in enumerate(scope) for b in scope[i + 1 :])
    _, tree = treewidth_min_fill_in(graph)
    # Keep only maximal bags: a bag inside a neighbour is merged into it.
    merged = True
    while merged:
        merged = False
        for bag in list(tree.nodes):
            for other in tree.neighbors(bag):
                if bag <= other:
                    for nb in tree.neighbors(bag):
                        if nb != other:
                            tree.add_edge(other, nb)
                    tree.remove_node(bag)
                    merged = True
                    break
            if merged:
                break
    return tree


def _expand(table, scope, bag, cards):
    """`table` (rows, *scope sorted) reshaped to broadcast over `bag` (sorted)."""
    shape = [table.shape[0]] + [cards[v] if v in scope else 1 for v in bag]
    return table.reshape(shape)


def _sorted_factor(scope: Iterable[int], table: ArrayLike, n_rows: int) -> tuple[tuple[int, ...], np.ndarray]:
    scope = tuple(int(v) for v in scope)
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != len(scope) + 1:
        raise ValueError(
            f"A factor over {len(scope)} variable(s) needs {len(scope) + 1} axes (rows first), got {table.ndim}."
        )
    if table.shape[0] not in (1, n_rows):
        raise ValueError(f"A factor has {table.shape[0]} rows; expected 1 or {n_rows}.")
    if len(set(scope)) != len(scope):
        raise ValueError(f"A factor's scope repeats a variable: {scope}.")
    order = np.argsort(scope, kind="stable")
    return tuple(scope[i] for i in order), np.transpose(table, [0] + [int(i) + 1 for i in order])


def log_marginals(
    factors: Iterable[tuple[Sequence[int], ArrayLike]],
    cardinalities: Sequence[int],
    n_rows: int,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    names: Sequence[Hashable] | None = None,
    fix: str = "bound the number of parents more tightly",
) -> tuple[list[np.ndarray], np.ndarray]:
    """Log marginals of ``exp(sum of log factors)`` for every variable and row.

    Parameters
    ----------
    factors : sequence of (scope, table)
        ``scope`` a tuple of variable indices in ``range(len(cardinalities))``,
        ``table`` of shape ``(n_rows or 1, *[cardinalities[v] for v in scope])``
        holding log values (``-inf`` for zero).
    cardinalities : sequence of int
    n_rows : int
    max_cells : int, default=10_000_000
        The largest clique table (states of one row) allowed.
    names : sequence, optional
        The variables' names, for the error message (positions otherwise).
    fix : str, optional
        What besides a larger `max_cells` would shrink the cliques, for the
        error message (the caller's parameter: ``"lower k"``).

    Returns
    -------
    marginals : list of ndarray, one per variable, of shape (n_rows, r_v)
        ``log sum_{x: x_v = s} Phi(x)`` (unnormalized).
    log_partition : ndarray of shape (n_rows,)
        ``log sum_x Phi(x)``.

    Raises
    ------
    TableTooLargeError
        If a clique of the junction tree would exceed `max_cells` states
        (checked before any clique table is allocated).
    ValueError
        If a factor's shape does not match its scope.

    Examples
    --------
    >>> import numpy as np
    >>> f = (0, 1), np.log([[[1.0, 2.0], [3.0, 4.0]]])  # one row, Phi(x0, x1)
    >>> marginals, log_z = log_marginals([f], [2, 2], 1)
    >>> np.exp(marginals[0]).round(6).tolist(), round(float(np.exp(log_z[0])), 6)
    ([[3.0, 7.0]], 10.0)
    """
    cards = [int(r) for r in cardinalities]
    checked = [_sorted_factor(scope, table, n_rows) for scope, table in factors]
    for scope, array in checked:
        expected = tuple(cards[v] for v in scope)
        if array.shape[1:] != expected:
            raise ValueError(f"A factor over {scope} has shape {array.shape[1:]}, expected {expected}.")
    tree = junction_tree_of_scopes([s for s, _ in checked], len(cards))
    bags = {bag: tuple(sorted(bag)) for bag in tree.nodes}
    largest = max((math.prod(cards[v] for v in b) for b in bags.values()), default=1)
    if largest > max_cells:
        widest = max(bags.values(), key=lambda b: math.prod(cards[v] for v in b))
        labels = list(range(len(cards))) if names is None else list(names)
        check_cells(
            largest,
            max_cells,
            what=f"clique table of exact inference over {describe_variables([labels[v] for v in widest], [cards[v] for v in widest])}",
            fix=fix,
        )
    # Each factor goes to the smallest bag that holds its scope.
    assigned: dict[frozenset, list[tuple[tuple[int, ...], np.ndarray]]] = {bag: [] for bag in bags}
    for scope, array in checked:
        home = min((b for b in bags if set(scope) <= b), key=lambda b: (len(b), bags[b]))
        assigned[home].append((scope, array))
    root = max(bags, key=lambda b: (len(b), bags[b]))
    order = list(nx.dfs_preorder_nodes(tree, root))
    parent = {root: None}
    for u, v in nx.dfs_edges(tree, root):
        parent[v] = u
    rows_per_block = max(1, _BLOCK_CELLS // max(largest, 1))
    marginals = [np.empty((n_rows, r)) for r in cards]
    log_partition = np.empty(n_rows)
    home_of = {v: min((b for b in bags if v in b), key=lambda b: (len(b), bags[b])) for v in range(len(cards))}
    for start in range(0, max(n_rows, 1), rows_per_block):
        stop = min(n_rows, start + rows_per_block)
        if stop <= start:
            break
        m = stop - start
        potentials = {}
        for bag, axes in bags.items():
            potential = np.zeros([1] + [cards[v] for v in axes])
            for scope, table in assigned[bag]:
                block = table if table.shape[0] == 1 else table[start:stop]
                potential = potential + _expand(block, scope, axes, cards)
            potentials[bag] = np.broadcast_to(potential, [m] + [cards[v] for v in axes])
        up: dict[frozenset, np.ndarray] = {}
        down: dict[frozenset, np.ndarray] = {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for bag in reversed(order):
                belief = potentials[bag]
                for child in tree.neighbors(bag):
                    if child != parent[bag]:
                        belief = belief + up[child]
                if parent[bag] is not None:
                    up[bag] = _message(belief, bags[bag], bags[parent[bag]], cards)
            for bag in order:
                incoming = [down[bag]] if parent[bag] is not None else []
                children = [c for c in tree.neighbors(bag) if c != parent[bag]]
                for child in children:
                    belief = potentials[bag]
                    for message in incoming + [up[c] for c in children if c != child]:
                        belief = belief + message
                    down[child] = _message(belief, bags[bag], bags[child], cards)
            beliefs = {}
            for bag in bags:
                belief = potentials[bag]
                if parent[bag] is not None:
                    belief = belief + down[bag]
                for child in tree.neighbors(bag):
                    if child != parent[bag]:
                        belief = belief + up[child]
                beliefs[bag] = belief
            log_partition[start:stop] = _logsumexp_axes(beliefs[root], range(1, beliefs[root].ndim))
            for v in range(len(cards)):
                bag = home_of[v]
                axes = bags[bag]
                others = [k + 1 for k, u in enumerate(axes) if u != v]
                marginals[v][start:stop] = _logsumexp_axes(beliefs[bag], others).reshape(m, cards[v])
    return marginals, log_partition


def _logsumexp_axes(array, axes):
    axes = tuple(axes)
    if not axes:
        return np.asarray(array)
    return logsumexp(array, axis=axes)


def _message(belief, source, target, cards):
    """Sum `belief` over `source` minus `target`, shaped to broadcast over `target`."""
    summed = [k + 1 for k, v in enumerate(source) if v not in target]
    message = _logsumexp_axes(belief, summed) if summed else belief
    kept = [v for v in source if v in target]
    return message.reshape([message.shape[0]] + [cards[v] if v in kept else 1 for v in target])


def brute_force_log_marginals(
    factors: Iterable[tuple[Sequence[int], ArrayLike]], cardinalities: Sequence[int], n_rows: int
) -> tuple[list[np.ndarray], np.ndarray]:
    """The same as :func:`log_marginals` by enumerating every joint configuration (tests, tiny problems)."""
    cards = [int(r) for r in cardinalities]
    check_cells(n_rows * math.prod(cards), DEFAULT_MAX_CELLS, what="brute-force joint table", fix="use log_marginals")
    full = np.zeros([n_rows] + cards)
    for scope, table in factors:
        scope, table = _sorted_factor(scope, table, n_rows)
        full = full + _expand(table, scope, tuple(range(len(cards))), cards)
    with np.errstate(divide="ignore"):
        marginals = [
            _logsumexp_axes(full, [k + 1 for k in range(len(cards)) if k != v]).reshape(n_rows, cards[v])
            for v in range(len(cards))
        ]
        log_partition = _logsumexp_axes(full, range(1, len(cards) + 1))
    return marginals, np.asarray(log_partition).reshape(n_rows)
