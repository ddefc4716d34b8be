"""Log-likelihood of rows under forest-structured Bayesian networks.

Shared by naive Bayes, TAN, FAN, the class-conditional Chow-Liu classifier
and the Chow-Liu density: in all of them each attribute has at most one
attribute parent, and the tables may depend on a stratum (the class).

A cell coded ``-1`` (a state unseen in training) is unobserved: the variable
is summed out. Rows without such cells take a fast path (one table lookup per
variable); the others get exact sum-product message passing up each tree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._special import logsumexp

__all__ = ["forest_log_likelihood", "topological_order", "clique_tree_log_likelihood", "clique_tree_sample"]

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
                    message[rows] = logsumexp(table[None, :, :, :] + incoming[j][rows][:, :, None, :], axis=3)
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
