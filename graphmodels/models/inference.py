"""Log-likelihood of rows under forest-structured Bayesian networks.

Shared by naive Bayes, TAN, FAN, the class-conditional Chow-Liu classifier
and the Chow-Liu density: in all of them each attribute has at most one
attribute parent, and the tables may depend on a stratum (the class).

A cell coded ``-1`` (a state unseen in training) is unobserved: the variable
is summed out. Rows without such cells take a fast path (one table lookup per
variable); the others get exact sum-product message passing up each tree.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

__all__ = ["forest_log_likelihood", "topological_order"]

# Cells of the largest intermediate array of one block of message passing.
_MESSAGE_CELLS = 4_000_000


def topological_order(parents):
    """Order of the variables with every parent before its children.

    Parameters
    ----------
    parents : sequence of int
        ``parents[j]`` is the parent position of variable ``j``, or ``-1``.

    Raises
    ------
    ValueError
        If the parent map has a cycle.
    """
    parents = list(parents)
    children = [[] for _ in parents]
    roots = []
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


def forest_log_likelihood(codes, parents, log_tables):
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
    for j, table in enumerate(log_tables):
        p = parents[j]
        parent_codes = codes[:, p] if p >= 0 else 0
        # table[:, a, b] gathered for every row: shape (n_strata, n_rows).
        result += table[:, parent_codes, codes[:, j]].T


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
