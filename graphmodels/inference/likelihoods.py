"""Log-likelihood of rows under forest networks and rooted clique trees, for the models' predictions.

The models' hot path: ``log P_s(x)`` of every row and every stratum (a class) at once.
:func:`forest_log_likelihood` serves naive Bayes, TAN, FAN, the class-conditional Chow-Liu
classifier and the Chow-Liu density (each attribute with at most one attribute parent);
:func:`clique_tree_log_likelihood` and :func:`clique_tree_sample` serve the hyperforest models,
whose junction forest of clique conditionals is given by the fit (no compilation needed).
Questions with evidence go to :class:`~graphmodels.inference.JunctionTree`, and so do the
marginals of per-row factor products (:func:`log_marginals`).

A cell coded ``-1`` (a state unseen in training) is unobserved: the variable
is summed out. Rows without such cells take a fast path (one table lookup per
variable); the others get exact sum-product message passing up each tree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike

from .._memory import DEFAULT_MAX_CELLS, check_cells
from .._special import log_sum_exp_last, logsumexp
from ._tables import from_log
from .junction_tree import JunctionTree

__all__ = [
    "brute_force_log_marginals",
    "clique_tree_log_likelihood",
    "clique_tree_sample",
    "forest_log_likelihood",
    "junction_tree_of_scopes",
    "log_marginals",
    "topological_order",
]

# Cells of the largest intermediate array of one block of message passing.
_MESSAGE_CELLS = 4_000_000


def topological_order(parents: Iterable[int]) -> list[int]:
    """Order of the variables with every parent before its children.

    Parameters
    ----------
    parents : sequence of int
        ``parents[j]`` is the parent position of variable ``j``, or ``-1``.

    Returns
    -------
    list of int
        The variable positions, roots first (depth first from each root).

    Raises
    ------
    ValueError
        If the parent map has a cycle.
    """
    parents = list(parents)
    children: list[list[int]] = [[] for _ in parents]
    roots: list[int] = []
    for j, p in enumerate(parents):
        (roots if p < 0 else children[p]).append(j)
    order = []
    stack = list(reversed(roots))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children[j]))
    if len(order) != len(parents):
        raise ValueError("The parent map has a cycle.")
    return order


def forest_log_likelihood(
    codes: ArrayLike, parents: Sequence[int] | np.ndarray, log_tables: Sequence[np.ndarray]
) -> np.ndarray:
    """``log P_s(x)`` of every row under every stratum's forest network.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_variables)
        Integer codes; ``-1`` marks an unobserved cell.
    parents : sequence of int, length n_variables
        Parent position of each variable, ``-1`` for roots.
    log_tables : sequence of ndarray
        ``log_tables[j]`` has shape ``(n_strata, r_parent, r_j)`` (``r_parent
        = 1`` for a root) and holds ``log P_s(x_j | x_parent)``.

    Returns
    -------
    ndarray of shape (n_rows, n_strata)
    """
    codes = np.asarray(codes)
    n_rows = codes.shape[0]
    n_strata = log_tables[0].shape[0] if log_tables else 1
    result = np.zeros((n_rows, n_strata))
    unknown = (codes < 0).any(axis=1) if codes.size else np.zeros(n_rows, bool)
    known = ~unknown
    if known.all():
        _add_observed(result, codes, parents, log_tables)
    elif known.any():
        partial = np.zeros((int(known.sum()), n_strata))
        _add_observed(partial, codes[known], parents, log_tables)
        result[known] = partial
    if unknown.any():
        rows = np.flatnonzero(unknown)
        # Bound the (rows, strata, r_parent, r_j) intermediates to ~4M cells.
        widest = max((t.shape[0] * t.shape[1] * t.shape[2] for t in log_tables), default=1)
        block = max(1, _MESSAGE_CELLS // widest)
        for start in range(0, len(rows), block):
            chunk = rows[start : start + block]
            result[chunk] = _message_passing(codes[chunk], parents, log_tables)
    return result


def _add_observed(result, codes, parents, log_tables):
    total = np.zeros((result.shape[1], codes.shape[0]))
    for j, table in enumerate(log_tables):
        p = parents[j]
        # Each row's (parent, child) cell as one flat index, gathered for every stratum by one
        # np.take: shape (n_strata, n_rows), twice as fast as fancy indexing on two axes.
        cell = codes[:, j] if p < 0 else codes[:, p].astype(np.intp) * table.shape[2] + codes[:, j]
        total += np.take(table.reshape(table.shape[0], -1), cell, axis=1)
    result += total.T


def _message_passing(codes, parents, log_tables):
    """Exact ``log sum_{unobserved} P_s(x)`` by upward messages on each tree."""
    n_rows = codes.shape[0]
    n_strata = log_tables[0].shape[0]
    order = topological_order(parents)
    # incoming[j]: (n_rows, n_strata, r_j) log of the product of the children's messages.
    incoming = [np.zeros((n_rows, n_strata, t.shape[2])) for t in log_tables]
    total = np.zeros((n_rows, n_strata))
    has_children = np.zeros(len(parents), dtype=bool)
    has_children[[p for p in parents if p >= 0]] = True
    for j in reversed(order):
        table = log_tables[j]  # (S, r_pa, r_j)
        observed = codes[:, j] >= 0
        message = np.empty((n_rows, n_strata, table.shape[1]))
        if observed.any():
            # An observed child is a lookup: message(n, s, a) = table[s, a, x_j] + incoming[n, s, x_j].
            rows = np.flatnonzero(observed)
            x = codes[rows, j]
            message[rows] = np.transpose(table[:, :, x], (2, 0, 1)) + incoming[j][rows, :, x][:, :, None]
        if not observed.all():
            # An unobserved child is summed out: logsumexp over its states.
            rows = np.flatnonzero(~observed)
            with np.errstate(divide="ignore", invalid="ignore"):
                if has_children[j]:
                    message[rows] = log_sum_exp_last(table[None, :, :, :] + incoming[j][rows][:, :, None, :])
                else:
                    # Nothing below it: the sum is the same for every row.
                    message[rows] = logsumexp(table, axis=2)[None]
        p = parents[j]
        if p >= 0:
            incoming[p] += message
        else:
            total += message[:, :, 0]
    return total


# ----------------------------------------------------------------------------- clique trees
def clique_tree_log_likelihood(
    codes: ArrayLike,
    cliques: Sequence[tuple[int, ...]],
    clique_parents: Sequence[int] | np.ndarray,
    log_tables: Sequence[np.ndarray],
) -> np.ndarray:
    """``log P_s(x)`` of every row under a rooted junction forest of clique conditionals.

    The distribution is ``P_s(x) = prod_c P_s(x_{c - sep(c)} | x_{sep(c)})``
    over cliques in parents-first order: the factorization of a
    decomposable (bounded tree-width) Markov network.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_variables)
        Integer codes; ``-1`` marks an unobserved cell, summed out exactly.
    cliques : sequence of tuple of int
        Variable positions of each clique, separator first, parents first.
    clique_parents : sequence of int
        Index of each clique's parent clique, ``-1`` for roots.
    log_tables : sequence of ndarray
        ``log_tables[c]`` has shape ``(n_strata, r_1, ..., r_|c|)`` (axes in
        the order of ``cliques[c]``) and holds ``log P_s(residual | separator)``
        (for a root, the joint of its clique).

    Returns
    -------
    ndarray of shape (n_rows, n_strata)
    """
    codes = np.asarray(codes)
    n_rows = codes.shape[0]
    n_strata = log_tables[0].shape[0] if log_tables else 1
    result = np.zeros((n_rows, n_strata))
    if not n_rows:
        return result
    involved = sorted({p for clique in cliques for p in clique})
    unknown = (codes[:, involved] < 0) if involved else np.zeros((n_rows, 0), bool)
    partial = unknown.any(axis=1)
    complete = np.flatnonzero(~partial)
    if len(complete):
        rows = codes[complete]
        for clique, table in zip(cliques, log_tables):
            index = np.ravel_multi_index(tuple(rows[:, p] for p in clique), table.shape[1:])
            result[complete] += table.reshape(n_strata, -1)[:, index].T
    if partial.any():
        patterns, inverse = np.unique(unknown[partial], axis=0, return_inverse=True)
        partial_rows = np.flatnonzero(partial)
        for k, pattern in enumerate(patterns):
            rows = partial_rows[inverse.ravel() == k]
            hidden = {involved[i] for i in np.flatnonzero(pattern)}
            widest = max(math.prod(t.shape) for t in log_tables)
            step = max(1, _MESSAGE_CELLS // widest)
            for start in range(0, len(rows), step):
                chunk = rows[start : start + step]
                result[chunk] = _clique_messages(codes[chunk], hidden, cliques, clique_parents, log_tables)
    return result


def _clique_messages(codes, hidden, cliques, clique_parents, log_tables):
    """Exact ``log sum_{hidden} P_s(x)`` by upward messages in the junction forest.

    Messages are kept in probability space, rescaled per row and stratum
    so that nothing underflows; the scales are added back in log space.
    """
    n_rows = codes.shape[0]
    n_strata = log_tables[0].shape[0]
    children = [[] for _ in cliques]
    for c, parent in enumerate(clique_parents):
        if parent >= 0:
            children[parent].append(c)
    messages = [None] * len(cliques)
    total = np.zeros((n_rows, n_strata))
    for c in reversed(range(len(cliques))):
        clique = cliques[c]
        known_axes = [i for i, p in enumerate(clique) if p not in hidden]
        hidden_axes = [i for i, p in enumerate(clique) if p in hidden]
        table = np.moveaxis(log_tables[c], [1 + i for i in known_axes + hidden_axes], range(1, 1 + len(clique)))
        if known_axes:
            picked = table[(slice(None),) + tuple(codes[:, clique[i]] for i in known_axes)]  # (S, n, hidden...)
            factor = np.exp(np.moveaxis(picked, 1, 0))
        else:
            factor = np.broadcast_to(np.exp(table)[None], (n_rows,) + table.shape)
        label = {clique[i]: 2 + j for j, i in enumerate(hidden_axes)}
        operands = [factor, [0, 1] + [label[clique[i]] for i in hidden_axes]]
        for child in children[c]:
            message, variables = messages[child]
            operands += [message, [0, 1] + [label[v] for v in variables]]
        separator = set(clique[: _separator_size(c, cliques, clique_parents)])
        kept = [clique[i] for i in hidden_axes if clique[i] in separator]
        message = np.einsum(*operands, [0, 1] + [label[v] for v in kept])
        scale = message.reshape(n_rows, n_strata, -1).max(axis=2)
        scale = np.where(scale > 0, scale, 1.0)
        message = message / scale.reshape((n_rows, n_strata) + (1,) * len(kept))
        with np.errstate(divide="ignore"):
            total += np.log(scale)
            if clique_parents[c] < 0:
                total += np.log(message)
        messages[c] = (message, kept)
    return total


def _separator_size(c, cliques, clique_parents):
    parent = clique_parents[c]
    if parent < 0:
        return 0
    return len(set(cliques[c]) & set(cliques[parent]))


def clique_tree_sample(
    cliques: Sequence[tuple[int, ...]],
    clique_parents: Sequence[int] | np.ndarray,
    log_tables: Sequence[np.ndarray],
    n_samples: int,
    n_variables: int,
    rng: np.random.Generator,
    stratum: int = 0,
) -> np.ndarray:
    """Forward-sample rows of codes from a rooted junction forest (parents first).

    Parameters
    ----------
    cliques, clique_parents, log_tables
        The junction forest, as for :func:`clique_tree_log_likelihood`.
    n_samples : int
        Rows to draw.
    n_variables : int
        Columns of the result; a variable in no clique stays 0.
    rng : numpy.random.Generator
        Source of the draws.
    stratum : int, default=0
        Which leading slice of the tables to sample from.

    Returns
    -------
    ndarray of shape (n_samples, n_variables), int64
    """
    codes = np.zeros((n_samples, n_variables), dtype=np.int64)
    for c, clique in enumerate(cliques):
        table = np.exp(log_tables[c][stratum])
        n_separator = _separator_size(c, cliques, clique_parents)
        separator_cells = math.prod(table.shape[:n_separator])
        rows = table.reshape(separator_cells, -1)
        if n_separator:
            index = np.ravel_multi_index(tuple(codes[:, p] for p in clique[:n_separator]), table.shape[:n_separator])
        else:
            index = np.zeros(n_samples, dtype=np.int64)
        cumulative = np.cumsum(rows, axis=1)
        draws = rng.random(n_samples) * cumulative[index, -1]
        # Row by row searchsorted, vectorized: count the cells below the draw.
        cell = np.minimum((draws[:, None] >= cumulative[index]).sum(axis=1), rows.shape[1] - 1)
        residual = np.unravel_index(cell, table.shape[n_separator:])
        for p, values in zip(clique[n_separator:], residual):
            codes[:, p] = values
    return codes


# ----------------------------------------------------------------------------- per-row factor products
#: Cells of the largest clique array (rows x clique states) built at once.
_BLOCK_CELLS = 4_000_000


def _sorted_factor(scope, table, n_rows):
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
    return scope, table


def junction_tree_of_scopes(scopes: Iterable[Iterable[int]], n_variables: int) -> nx.Graph:
    """A tree decomposition covering every scope: an ``nx.Graph`` of frozenset bags (min-fill cliques).

    Every scope lies inside some bag and the bags holding any variable form a connected
    subtree (the running intersection property).

    Examples
    --------
    >>> tree = junction_tree_of_scopes([(0, 1), (1, 2), (2, 0), (3,)], 4)
    >>> sorted(sorted(bag) for bag in tree.nodes)
    [[0, 1, 2], [3]]
    """
    slots: list[tuple[Sequence[int], np.ndarray | None]] = [(tuple(int(v) for v in scope), None) for scope in scopes]
    tree = JunctionTree(slots, [2] * n_variables, max_cells=2**62, merge_cells=0)
    return tree.graph


def log_marginals(
    factors: Iterable[tuple[Sequence[int], ArrayLike]],
    cardinalities: Sequence[int],
    n_rows: int,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    names: Sequence | None = None,
    fix: str = "bound the number of parents more tightly",
) -> tuple[list[np.ndarray], np.ndarray]:
    """Log marginals of ``exp(sum of log factors)`` for every variable and row, by the junction tree.

    Parameters
    ----------
    factors : sequence of (scope, table)
        ``scope`` a tuple of variable indices, ``table`` of shape ``(n_rows or 1, *[cardinalities[v]
        for v in scope])`` holding log values (``-inf`` for zero): one table per row (evidence
        plugged in) or one shared by all rows.
    cardinalities : sequence of int
    n_rows : int
    max_cells : int, default=10_000_000
        The largest clique table (states of one row) allowed.
    names : sequence, optional
        The variables' names, for the error message.
    fix : str, optional
        What besides a larger `max_cells` would shrink the cliques, for the error message.

    Returns
    -------
    marginals : list of ndarray, one per variable, of shape (n_rows, r_v)
        ``log sum_{x: x_v = s} Phi(x)`` (unnormalized).
    log_partition : ndarray of shape (n_rows,)
        ``log sum_x Phi(x)``.

    Raises
    ------
    TableTooLargeError
        If a clique of the junction tree would exceed `max_cells` states (before allocating).

    Examples
    --------
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
    shared = [(scope, table[0]) for scope, table in checked if table.shape[0] == 1]
    per_row = [(scope, table) for scope, table in checked if table.shape[0] != 1]
    tree = JunctionTree(
        shared + [(scope, None) for scope, _ in per_row], cards, max_cells=max_cells, names=names, fix=fix
    )
    marginals = [np.empty((n_rows, r)) for r in cards]
    log_partition = np.empty(n_rows)
    step = max(1, _BLOCK_CELLS // max(tree.largest_clique, 1))
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        row_factors = {}
        scale = np.zeros(stop - start)
        for k, (scope, table) in enumerate(per_row):
            values, log_scale = from_log(table[start:stop], len(scope))
            row_factors[k] = values
            scale = scale + log_scale
        block, log_z = tree.marginals(range(len(cards)), {}, row_factors=row_factors)
        log_z = np.broadcast_to(np.asarray(log_z) + scale, (stop - start,))
        log_partition[start:stop] = log_z
        with np.errstate(divide="ignore"):
            for v in range(len(cards)):
                marginals[v][start:stop] = np.log(np.broadcast_to(block[v], (stop - start, cards[v]))) + log_z[:, None]
    return marginals, log_partition


def brute_force_log_marginals(
    factors: Iterable[tuple[Sequence[int], ArrayLike]], cardinalities: Sequence[int], n_rows: int
) -> tuple[list[np.ndarray], np.ndarray]:
    """The same as :func:`log_marginals` by enumerating every joint configuration (tests, tiny problems)."""
    cards = [int(r) for r in cardinalities]
    check_cells(n_rows * math.prod(cards), DEFAULT_MAX_CELLS, what="brute-force joint table", fix="use log_marginals")
    full = np.zeros([n_rows] + cards)
    for scope, table in factors:
        scope, table = _sorted_factor(scope, table, n_rows)
        order = sorted(range(len(scope)), key=lambda k: scope[k])
        moved = np.transpose(table, [0] + [k + 1 for k in order])
        shape = [table.shape[0]] + [cards[v] if v in scope else 1 for v in range(len(cards))]
        full = full + moved.reshape(shape)
    with np.errstate(divide="ignore"):
        marginals = [
            logsumexp(full, axis=tuple(k + 1 for k in range(len(cards)) if k != v)).reshape(n_rows, cards[v])
            if len(cards) > 1
            else full.reshape(n_rows, cards[v])
            for v in range(len(cards))
        ]
        log_partition = logsumexp(full, axis=tuple(range(1, len(cards) + 1)))
    return marginals, np.asarray(log_partition).reshape(n_rows)
