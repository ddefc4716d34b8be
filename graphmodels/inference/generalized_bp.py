"""Generalized belief propagation on region graphs: the parent-to-child algorithm.

A region graph (the cluster variation method's, which the library builds for Kikuchi-Bayes:
:func:`~graphmodels.structures.cluster_variation_regions`) defines a free-energy
approximation whose stationary points generalized belief propagation finds (Yedidia, Freeman &
Weiss 2005, section VI.B). In the parent-to-child algorithm, messages flow along the edges of
the region graph, from a region ``P`` to each child ``R``, over ``R``'s variables. With
``E(R)`` the region ``R`` and its descendants, a region's belief is its factors times every
message into ``E(R)`` from outside ``E(R)``:

.. math:: b_R(x_R) \\propto \\prod_{a \\in A_R} f_a(x_a)
          \\prod_{(I, J):\\, J \\in E(R),\\, I \\notin E(R)} m_{I \\to J}(x_J),

and the message from ``P`` to ``R`` is fixed so that the belief of ``R`` is the belief of ``P``
summed over ``P \\ R``:

.. math:: m_{P \\to R}(x_R) \\propto
          \\frac{\\sum_{x_{P \\setminus R}} \\prod_{a \\in A_P \\setminus A_R} f_a(x_a)
                 \\prod_{(I, J) \\in N(P, R)} m_{I \\to J}(x_J)}
                {\\prod_{(I, J) \\in D(P, R)} m_{I \\to J}(x_J)}

where ``N(P, R)`` are the edges into ``E(P) \\ E(R)`` from outside ``E(P)`` and ``D(P, R)`` the
edges into ``E(R)`` from ``E(P) \\ E(R)`` other than ``(P, R)`` itself. ``A_R`` holds every factor whose scope lies in ``R``,
which counts each factor once when the counting numbers are the cluster variation method's.
On a region graph without loops (a junction tree's cliques and separators) the beliefs are
exact; on the Bethe region graph (factors over variables) the algorithm is loopy belief
propagation. Messages are updated one after the other, larger regions first (each update sees
the sweep's earlier ones), and damped geometrically, ``m <- m_old^damping m_new^(1 - damping)``:
parallel updates of multi-level region graphs (a grid's plaquettes) oscillate where this
schedule converges.

References
----------
.. [1] Yedidia, J. S., Freeman, W. T., & Weiss, Y. (2005). Constructing free-energy
   approximations and generalized belief propagation algorithms. *IEEE Transactions on
   Information Theory*, 51(7), 2282-2312.
.. [2] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for classification.
   IBM Research Report (the region graphs of the library, Algorithm 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import networkx as nx
import numpy as np

from ..structures.regions import cluster_variation_regions
from ._tables import combine, from_log
from .belief_propagation import ApproximateResult, _check_options
from .junction_tree import Message

__all__ = ["generalized_belief_propagation", "region_graph_of_scopes"]


def region_graph_of_scopes(scopes: Iterable[Iterable[int]], n_variables: int) -> nx.DiGraph:
    """The cluster variation method's region graph of factor scopes (every variable in some region)."""
    regions = [frozenset(scope) for scope in scopes if scope]
    covered = set().union(*regions) if regions else set()
    regions += [frozenset([v]) for v in range(n_variables) if v not in covered]
    return cluster_variation_regions(regions)


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def generalized_belief_propagation(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Sequence[int],
    region_graph: nx.DiGraph,
    evidence: Mapping[int, np.ndarray] | None = None,
    *,
    damping: float = 0.5,
    max_iter: int = 200,
    tol: float = 1e-8,
    trace: list | None = None,
) -> ApproximateResult:
    """Parent-to-child generalized belief propagation on `region_graph`.

    Parameters
    ----------
    factors : sequence of (scope, log_table)
    cardinalities : sequence of int
    region_graph : nx.DiGraph
        Nodes are frozensets of variable positions, edges go from a region to its children
        (sub-regions); every factor's scope must lie in some region and every variable in some
        region (counting numbers are not needed by the updates: they are implied by the graph).
    evidence : mapping of int to ndarray, optional
        One likelihood vector per observed variable (a factor over it).
    damping, max_iter, tol : see :func:`~graphmodels.inference.loopy_belief_propagation`.
    trace : list, optional
        The messages of every iteration (``source``/``target`` index ``list(region_graph)``).

    Returns
    -------
    ApproximateResult
        The marginal of each variable read from the smallest region holding it.
    """
    _check_options(damping, max_iter, tol)
    cards = [int(r) for r in cardinalities]
    regions = list(region_graph.nodes)
    index = {r: k for k, r in enumerate(regions)}
    scopes = [tuple(sorted(r)) for r in regions]
    tables: list[tuple[tuple[int, ...], np.ndarray]] = []
    for scope, log_table in factors:
        scope = tuple(int(v) for v in scope)
        values, _ = from_log(np.asarray(log_table, dtype=np.float64), len(scope))
        tables.append((scope, values))
    for v, likelihood in (evidence or {}).items():
        if likelihood.ndim != 1:
            raise ValueError("Generalized belief propagation takes one evidence set, not a batch.")
        tables.append(((int(v),), likelihood))
    contained = [{f for f, (scope, _) in enumerate(tables) if set(scope) <= region} for region in regions]
    for f, (scope, _) in enumerate(tables):
        if not any(f in c for c in contained):
            raise ValueError(f"The region graph has no region holding the scope {scope} of a factor.")
    for v in range(len(cards)):
        if not any(v in r for r in regions):
            raise ValueError(f"The region graph has no region holding variable {v}.")
    edges = [(index[p], index[c]) for p, c in region_graph.edges]
    descendants = [{index[d] for d in nx.descendants(region_graph, r)} | {index[r]} for r in regions]
    # The message sets of each edge's update, fixed by the graph.
    numerators = {}
    denominators = {}
    for p, r in edges:
        outside = descendants[p] - descendants[r]
        numerators[(p, r)] = [(i, j) for i, j in edges if j in outside and i not in descendants[p]]
        denominators[(p, r)] = [(i, j) for i, j in edges if j in descendants[r] and i in outside and (i, j) != (p, r)]
    incoming = [
        [(i, j) for i, j in edges if j in descendants[r] and i not in descendants[r]] for r in range(len(regions))
    ]
    messages = {
        (p, r): np.full([cards[v] for v in scopes[r]], 1.0 / np.prod([cards[v] for v in scopes[r]])) for p, r in edges
    }
    residuals: list[float] = []
    converged = False
    iteration = 0
    # Larger regions first: a message then sees this sweep's messages from above it.
    schedule = sorted(edges, key=lambda edge: (-len(scopes[edge[0]]), -len(scopes[edge[1]]), edge))
    floor = np.finfo(np.float64).tiny
    for iteration in range(1, max_iter + 1):
        change = 0.0
        for p, r in schedule:
            operands = [(tables[f][1], tables[f][0]) for f in sorted(contained[p] - contained[r])]
            operands += [(messages[(i, j)], scopes[j]) for i, j in numerators[(p, r)]]
            if not operands:
                operands = [(np.ones([cards[v] for v in scopes[p]]), scopes[p])]
            numerator = combine(operands, scopes[r], batched=[False] * len(operands))
            below = denominators[(p, r)]
            if below:
                denominator = _broadcast_product(scopes[r], [(messages[(i, j)], scopes[j]) for i, j in below], cards)
                new = _safe_divide(numerator, np.maximum(denominator, floor * (numerator > 0)))
            else:
                new = numerator
            total = new.sum()
            new = new / total if np.isfinite(total) and total > 0 else np.full_like(new, 1.0 / new.size)
            old = messages[(p, r)]
            if damping:  # geometric: messages multiply, so they are averaged in log space
                with np.errstate(divide="ignore", invalid="ignore"):
                    mixed = np.where(new > 0, old**damping * new ** (1 - damping), 0.0)
                total = mixed.sum()
                new = mixed / total if total > 0 else new
            change = max(change, float(np.abs(new - old).max()))
            messages[(p, r)] = new  # sequential: later updates see it
            if trace is not None:
                trace.append(Message(p, r, scopes[r], new, f"gbp iteration {iteration}", iteration))
        residuals.append(change)
        if change < tol:
            converged = True
            break
    marginals = {}
    for v in range(len(cards)):
        home = min((k for k, r in enumerate(regions) if v in r), key=lambda k: (len(scopes[k]), k))
        operands = [(values, scope) for f, (scope, values) in enumerate(tables) if f in contained[home]]
        operands += [(messages[(i, j)], scopes[j]) for i, j in incoming[home]]
        if not operands:
            operands = [(np.ones([cards[u] for u in scopes[home]]), scopes[home])]
        belief = combine(operands, (v,), batched=[False] * len(operands))
        if not belief.sum() > 0:
            raise ValueError("The evidence has probability zero under the model: a belief of GBP is zero.")
        marginals[v] = belief / belief.sum()
    return ApproximateResult(marginals, converged, iteration, residuals, "generalized belief propagation")


def _broadcast_product(scope, operands, cards):
    """The product of tables over sub-scopes of `scope`, as one table over `scope`."""
    product = np.ones([cards[v] for v in scope])
    for values, sub in operands:
        shape = [cards[v] if v in sub else 1 for v in scope]
        order = sorted(range(len(sub)), key=lambda k: scope.index(sub[k]))
        product = product * np.transpose(values, order).reshape(shape)
    return product
