"""Variable elimination: joint marginals and (marginal) MAP, with the order's induced width.

Variable elimination answers one question at a time by summing (or maximizing) the variables
out of a product of factors one by one, in a greedy order (:mod:`~graphmodels.inference.orders`):
each step multiplies the factors that mention the variable and sums it out of their product
(Zhang & Poole 1994; Dechter 1996). It is the method for questions a junction tree's cliques do
not hold: the joint of variables in different cliques, and the most probable state of a subset
of the variables (marginal MAP), where the summed variables must go before the maximized ones
(Koller & Friedman 2009, section 13.6), so its cliques can be larger than the tree's.

The functions work on variable positions and scaled tables (:mod:`._tables`), with an optional
batch axis: one question per row of a batch of evidence.

References
----------
.. [1] Zhang, N. L., & Poole, D. (1994). A simple approach to Bayesian network computations.
   *Proceedings of the Tenth Canadian Conference on Artificial Intelligence*, 171-178.
.. [2] Dechter, R. (1996). Bucket elimination: a unifying framework for probabilistic
   inference. *Proceedings of UAI*, 211-219.
.. [3] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press. Chapters 9 and 13.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from ._tables import combine, from_log, normalize
from .orders import EliminationOrder, greedy_elimination

__all__ = ["eliminate", "maximize"]

Scope = tuple[int, ...]


class _Table:
    __slots__ = ("values", "scope", "batched", "scale")

    def __init__(self, values: np.ndarray, scope: Scope, batched: bool, scale) -> None:
        self.values = values
        self.scope = scope
        self.batched = batched
        self.scale = scale


def _tables(factors, evidence):
    tables = []
    for scope, log_table in factors:
        scope = tuple(int(v) for v in scope)
        values, scale = from_log(np.asarray(log_table, dtype=np.float64), len(scope))
        tables.append(_Table(values, scope, False, float(scale)))
    for v, likelihood in evidence.items():
        tables.append(_Table(likelihood, (int(v),), likelihood.ndim == 2, 0.0))
    return tables


def _order(tables, cardinalities, eliminate, first, heuristic, max_cells, names, keep) -> EliminationOrder:
    n = len(cardinalities)
    adjacency: list[set[int]] = [set() for _ in range(n)]
    for table in tables:
        for v in table.scope:
            adjacency[v].update(table.scope)
    for v in keep:  # the kept variables end in one table: connect them
        adjacency[v].update(keep)
    elimination = greedy_elimination(adjacency, cardinalities, heuristic=heuristic, eliminate=eliminate, first=first)
    cliques = list(elimination.cliques) + ([frozenset(keep)] if keep else [])
    largest = max([elimination.largest] + [math.prod(cardinalities[v] for v in keep)])
    if largest > max_cells:
        widest = max(cliques, key=lambda c: math.prod(cardinalities[v] for v in c))
        labels = list(range(n)) if names is None else list(names)
        check_cells(
            largest,
            max_cells,
            what=(
                f"largest table of variable elimination (induced width {elimination.width}) over "
                f"{describe_variables([labels[v] for v in sorted(widest)], [cardinalities[v] for v in sorted(widest)])}"
            ),
            fix='ask about fewer variables at once, or use an approximate method (method="loopy" or "gbp")',
        )
    return elimination


def _step(tables: list[_Table], v: int, mode: str, cards: Sequence[int]):
    """Eliminate `v`: the tables without it, the new table, and (max) the joined table for traceback."""
    joined = [t for t in tables if v in t.scope]
    rest = [t for t in tables if v not in t.scope]
    if not joined:  # a variable no factor mentions: uniform (its sum is r_v, its max 1)
        joined = [_Table(np.ones(cards[v]), (v,), False, 0.0)]
    union: list[int] = []
    for t in joined:
        union.extend(u for u in t.scope if u not in union)
    scope = tuple(union)
    out = tuple(u for u in scope if u != v)
    operands = [(t.values, t.scope) for t in joined]
    batched = [t.batched for t in joined]
    scale = sum((t.scale for t in joined), 0.0)
    is_batched = any(batched)
    if mode == "sum":
        values, log_total = normalize(combine(operands, out, batched=batched), len(out))
        return rest + [_Table(values, out, is_batched, scale + log_total)], None
    full = combine(operands, scope, batched=batched)
    axis = full.ndim - len(scope) + scope.index(v)
    peak = full.max(axis=axis)
    top = peak.max(axis=tuple(range(peak.ndim - len(out), peak.ndim))) if out else peak
    safe = np.where(top > 0, top, 1.0)
    values = peak / (safe.reshape(safe.shape + (1,) * len(out)) if np.ndim(safe) else safe)
    with np.errstate(divide="ignore"):
        new = _Table(values, out, is_batched, scale + np.log(top))
    return rest + [new], (scope, full)


def eliminate(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Sequence[int],
    keep: Sequence[int],
    evidence: Mapping[int, np.ndarray] | None = None,
    *,
    heuristic: str = "min-fill",
    max_cells: int = DEFAULT_MAX_CELLS,
    names: Sequence[Hashable] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The joint ``P(keep | evidence)`` by summing every other variable out.

    Parameters
    ----------
    factors : sequence of (scope, log_table)
    cardinalities : sequence of int
    keep : sequence of int
        The variables of the joint, in the order of its axes.
    evidence : mapping of int to ndarray, optional
        Likelihood vectors, ``(r_v,)`` or batched ``(n, r_v)``.

    Returns
    -------
    joint : ndarray of shape ``(*batch, *[r_v for v in keep])``
        Normalized (zeros where the evidence has probability zero).
    log_evidence : ndarray of shape batch
    width : int
        The induced width of the elimination order.
    """
    evidence = dict(evidence or {})
    cards = [int(r) for r in cardinalities]
    keep = tuple(int(v) for v in keep)
    tables = _tables(factors, evidence)
    others = [v for v in range(len(cards)) if v not in keep]
    order = _order(tables, cards, others, None, heuristic, max_cells, names, keep)
    for v in order.order:
        tables, _ = _step(tables, v, "sum", cards)
    operands = [(t.values, t.scope) for t in tables]
    batched = [t.batched for t in tables]
    for v in keep:  # a kept variable no factor mentions is uniform
        if not any(v in t.scope for t in tables):
            operands.append((np.ones(cards[v]), (v,)))
            batched.append(False)
    values, log_total = normalize(combine(operands, keep, batched=batched), len(keep))
    scale = sum((t.scale for t in tables), 0.0) + log_total
    return values, np.asarray(scale), order.width


def maximize(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Sequence[int],
    variables: Sequence[int],
    evidence: Mapping[int, np.ndarray] | None = None,
    *,
    heuristic: str = "min-fill",
    max_cells: int = DEFAULT_MAX_CELLS,
    names: Sequence[Hashable] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The most probable joint state of `variables` (marginal MAP; MPE when they are all).

    The other variables are summed out first, then `variables` maximized out and decoded by
    traceback, which gives ``argmax_{x_V} sum_{x_rest} P(x_V, x_rest, evidence)`` exactly.

    Returns
    -------
    states : ndarray of int of shape ``(*batch, len(variables))``
    log_value : ndarray of shape batch
        ``log max_{x_V} sum_{x_rest} prod factors x evidence``.
    log_evidence : ndarray of shape batch
        ``log sum_x prod factors x evidence``, so that ``exp(log_value - log_evidence)`` is
        ``P(x_V* | evidence)``.
    width : int
    """
    evidence = dict(evidence or {})
    cards = [int(r) for r in cardinalities]
    variables = [int(v) for v in variables]
    tables = _tables(factors, evidence)
    summed = [v for v in range(len(cards)) if v not in variables]
    order = _order(tables, cards, range(len(cards)), summed, heuristic, max_cells, names, ())
    traceback: list[tuple[int, Scope, np.ndarray]] = []
    for v in order.order:
        if v in variables:
            tables, joined = _step(tables, v, "max", cards)
            traceback.append((v, *joined))
        else:
            tables, _ = _step(tables, v, "sum", cards)
    log_value = sum((t.scale for t in tables), 0.0)
    for t in tables:  # constants left (scopes are empty now)
        with np.errstate(divide="ignore"):
            log_value = log_value + np.log(t.values)
    log_value = np.asarray(log_value)
    batch_shape = log_value.shape
    states = np.zeros(batch_shape + (len(cards),), dtype=np.intp)
    for v, scope, full in reversed(traceback):
        others = [u for u in scope if u != v]
        full = np.broadcast_to(full, batch_shape + full.shape[full.ndim - len(scope) :])
        moved = np.moveaxis(full, len(batch_shape) + scope.index(v), -1)
        flat = moved.reshape(batch_shape + (-1, cards[v]))
        if others:
            index = np.ravel_multi_index(tuple(states[..., u] for u in others), [cards[u] for u in others])
        else:
            index = np.zeros(batch_shape, dtype=np.intp)
        row = np.take_along_axis(flat, np.asarray(index)[..., None, None], axis=-2)[..., 0, :]
        states[..., v] = row.argmax(axis=-1)
    _, log_evidence, _ = eliminate(factors, cards, (), evidence, heuristic=heuristic, max_cells=max_cells, names=names)
    return states[..., variables], log_value, log_evidence, order.width
