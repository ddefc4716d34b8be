"""Belief propagation on a factor graph: exact on trees, loopy (with damping) elsewhere.

The sum-product algorithm (Pearl 1988; Kschischang, Frey & Loeliger 2001) passes messages
between variables and factors: a factor sends a variable the sum, over its other variables, of
its table times their messages; a variable sends a factor the product of its other factors'
messages (and its evidence). On a tree-shaped factor graph the beliefs after two sweeps are the
exact marginals; on a graph with loops the same updates, iterated, often converge to good
approximations (Murphy, Weiss & Jordan 1999) -- the Bethe approximation's stationary points
(Yedidia, Freeman & Weiss 2005). Here all messages are updated in parallel and damped,
``m <- damping * m_old + (1 - damping) * m_new``, which helps on tightly coupled loops; the
result reports whether the largest change fell below ``tol`` and how it went, iteration by
iteration.

References
----------
.. [1] Pearl, J. (1988). *Probabilistic Reasoning in Intelligent Systems*. Morgan Kaufmann.
.. [2] Kschischang, F. R., Frey, B. J., & Loeliger, H.-A. (2001). Factor graphs and the
   sum-product algorithm. *IEEE Transactions on Information Theory*, 47(2), 498-519.
.. [3] Murphy, K. P., Weiss, Y., & Jordan, M. I. (1999). Loopy belief propagation for
   approximate inference: an empirical study. *Proceedings of UAI*, 467-475.
.. [4] Yedidia, J. S., Freeman, W. T., & Weiss, Y. (2005). Constructing free-energy
   approximations and generalized belief propagation algorithms. *IEEE Transactions on
   Information Theory*, 51(7), 2282-2312.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ._tables import combine, from_log
from .junction_tree import Message

__all__ = ["ApproximateResult", "loopy_belief_propagation"]


class ApproximateResult:
    """What an iterative method returns: marginals and a convergence report.

    Attributes
    ----------
    marginals : dict of int to ndarray
        The belief of each variable (position), normalized.
    converged : bool
        Whether the largest message change fell below the tolerance.
    iterations : int
    residuals : list of float
        The largest message change of each iteration.
    method : str
    """

    def __init__(self, marginals, converged, iterations, residuals, method):
        self.marginals = marginals
        self.converged = converged
        self.iterations = iterations
        self.residuals = residuals
        self.method = method

    def __repr__(self) -> str:
        state = "converged" if self.converged else "did not converge"
        last = f", last change {self.residuals[-1]:.2e}" if self.residuals else ""
        return f"ApproximateResult({self.method}: {state} after {self.iterations} iterations{last})"


def _check_options(damping: float, max_iter: int, tol: float) -> None:
    if not 0 <= damping < 1:
        raise ValueError(f"`damping` must be in [0, 1), got {damping!r}.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"`max_iter` must be a positive integer, got {max_iter!r}.")
    if not tol > 0:
        raise ValueError(f"`tol` must be > 0, got {tol!r}.")


def _normalized(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    return values / total if total > 0 else np.full_like(values, 1.0 / values.size)


def loopy_belief_propagation(
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
    cardinalities: Sequence[int],
    evidence: Mapping[int, np.ndarray] | None = None,
    *,
    damping: float = 0.5,
    max_iter: int = 200,
    tol: float = 1e-8,
    trace: list | None = None,
) -> ApproximateResult:
    """Sum-product on the factor graph, messages updated in parallel and damped.

    Parameters
    ----------
    factors : sequence of (scope, log_table)
    cardinalities : sequence of int
    evidence : mapping of int to ndarray, optional
        One likelihood vector ``(r_v,)`` per observed variable.
    damping : float in [0, 1), default=0.5
        The weight of the old message in each update (0: no damping).
    max_iter : int, default=200
    tol : float, default=1e-8
        Converged when no message changes by more than this (max absolute difference).
    trace : list, optional
        The factor-to-variable messages of every iteration are appended
        (:class:`~graphmodels.inference.junction_tree.Message`, ``source`` the factor's index).

    Returns
    -------
    ApproximateResult
    """
    _check_options(damping, max_iter, tol)
    cards = [int(r) for r in cardinalities]
    tables = []
    for scope, log_table in factors:
        scope = tuple(int(v) for v in scope)
        values, _ = from_log(np.asarray(log_table, dtype=np.float64), len(scope))
        tables.append((scope, values))
    unary = [np.ones(r) for r in cards]
    for v, likelihood in (evidence or {}).items():
        if likelihood.ndim != 1:
            raise ValueError("Loopy belief propagation takes one evidence set, not a batch.")
        unary[v] = unary[v] * likelihood
    touching: list[list[int]] = [[] for _ in cards]
    for f, (scope, _) in enumerate(tables):
        for v in scope:
            touching[v].append(f)
    to_var = {(f, v): np.full(cards[v], 1.0 / cards[v]) for f, (scope, _) in enumerate(tables) for v in scope}
    residuals: list[float] = []
    converged = False
    iteration = 0
    for iteration in range(1, max_iter + 1):
        to_factor = {}
        for v, factors_of_v in enumerate(touching):
            for f in factors_of_v:
                product = unary[v].copy()
                for g in factors_of_v:
                    if g != f:
                        product = product * to_var[(g, v)]
                to_factor[(v, f)] = _normalized(product)
        change = 0.0
        updated = {}
        for f, (scope, values) in enumerate(tables):
            for v in scope:
                operands = [(values, scope)] + [(to_factor[(u, f)], (u,)) for u in scope if u != v]
                new = _normalized(combine(operands, (v,), batched=[False] * len(operands)))
                old = to_var[(f, v)]
                if damping:
                    new = _normalized(damping * old + (1 - damping) * new)
                change = max(change, float(np.abs(new - old).max()))
                updated[(f, v)] = new
                if trace is not None:
                    trace.append(Message(f, v, (v,), new, f"loopy iteration {iteration}", iteration))
        to_var = updated
        residuals.append(change)
        if change < tol:
            converged = True
            break
    marginals = {}
    for v, factors_of_v in enumerate(touching):
        belief = unary[v].copy()
        for f in factors_of_v:
            belief = belief * to_var[(f, v)]
        if not belief.sum() > 0:
            raise ValueError("The evidence has probability zero under the model: a belief of loopy BP is zero.")
        marginals[v] = belief / belief.sum()
    return ApproximateResult(marginals, converged, iteration, residuals, "loopy belief propagation")
