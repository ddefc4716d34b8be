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

from ._tables import from_log
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

    Factors of one shape are stacked and updated together (one ``einsum`` per shape and
    position per iteration), and a variable's messages to its factors come from its belief
    divided by each factor's own message, in log space -- so an iteration costs a few numpy
    calls whatever the number of factors.

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
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    log_unary = np.zeros(offsets[-1])
    for v, likelihood in (evidence or {}).items():
        if likelihood.ndim != 1:
            raise ValueError("Loopy belief propagation takes one evidence set, not a batch.")
        with np.errstate(divide="ignore"):
            log_unary[offsets[v] : offsets[v + 1]] += np.log(likelihood)
    # Stack the factors of one shape: groups[shape] = (indices of the factors, scopes, tables).
    grouped: dict[tuple[int, ...], list[int]] = {}
    scopes = []
    tables = []
    for f, (scope, log_table) in enumerate(factors):
        scope = tuple(int(v) for v in scope)
        values, _ = from_log(np.asarray(log_table, dtype=np.float64), len(scope))
        scopes.append(scope)
        tables.append(values)
        if scope:
            grouped.setdefault(values.shape, []).append(f)
    groups = []
    for shape, members in grouped.items():
        scope_array = np.array([scopes[f] for f in members], dtype=np.intp)  # (m, k)
        stacked = np.stack([tables[f] for f in members])  # (m, *shape)
        # Flat state index of each (factor, position, state): offsets[v] + state.
        cells = [offsets[scope_array[:, j]][:, None] + np.arange(shape[j]) for j in range(len(shape))]
        messages = [np.full((len(members), r), 1.0 / r) for r in shape]
        groups.append((members, scope_array, stacked, cells, messages))
    residuals: list[float] = []
    converged = False
    iteration = 0
    floor = np.finfo(np.float64).tiny
    for iteration in range(1, max_iter + 1):
        log_belief = log_unary.copy()
        for _, _, _, cells, messages in groups:
            for cell, message in zip(cells, messages):
                np.add.at(log_belief, cell, np.log(np.maximum(message, floor)))
        change = 0.0
        for members, _, stacked, cells, messages in groups:
            k = len(cells)
            # Each variable's message to this factor: its belief without the factor's own message.
            to_factor = []
            for cell, message in zip(cells, messages):
                log_in = log_belief[cell] - np.log(np.maximum(message, floor))
                log_in -= log_in.max(axis=1, keepdims=True)
                incoming = np.exp(log_in)
                to_factor.append(incoming / incoming.sum(axis=1, keepdims=True))
            updated = []
            for j in range(k):
                args: list = [stacked, list(range(k + 1))]
                for i in range(k):
                    if i != j:
                        args += [to_factor[i], [0, i + 1]]
                new = np.einsum(*args, [0, j + 1])
                total = new.sum(axis=1, keepdims=True)
                new = np.where(total > 0, new / np.where(total > 0, total, 1.0), 1.0 / new.shape[1])
                if damping:
                    new = damping * messages[j] + (1 - damping) * new
                    new = new / new.sum(axis=1, keepdims=True)
                change = max(change, float(np.abs(new - messages[j]).max()))
                updated.append(new)
            messages[:] = updated
            if trace is not None:
                for row, f in enumerate(members):
                    for j, v in enumerate(factors[f][0]):
                        trace.append(
                            Message(f, int(v), (int(v),), updated[j][row], f"loopy iteration {iteration}", iteration)
                        )
        residuals.append(change)
        if change < tol:
            converged = True
            break
    log_belief = log_unary.copy()
    for _, _, _, cells, messages in groups:
        for cell, message in zip(cells, messages):
            with np.errstate(divide="ignore"):
                np.add.at(log_belief, cell, np.log(message))
    marginals = {}
    for v in range(len(cards)):
        piece = log_belief[offsets[v] : offsets[v + 1]]
        if not np.isfinite(piece).any():
            raise ValueError("The evidence has probability zero under the model: a belief of loopy BP is zero.")
        belief = np.exp(piece - piece.max())
        marginals[v] = belief / belief.sum()
    return ApproximateResult(marginals, converged, iteration, residuals, "loopy belief propagation")
