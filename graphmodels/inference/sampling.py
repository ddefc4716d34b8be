"""Approximate inference by sampling a Bayesian network: likelihood weighting.

Likelihood weighting (Fung & Chang 1990; Shachter & Peot 1990) samples the variables of a
Bayesian network in topological order from their conditional tables, clamps each observed
variable to its state instead of sampling it, and weighs the sample by the probability of the
evidence given the sampled parents. Soft evidence is a virtual child: the variable is sampled
and the sample weighed by the evidence's likelihood of the state drawn. Weighted frequencies
estimate the posterior; the effective sample size ``(sum w)^2 / sum w^2`` says how many
unweighted samples they are worth (small when the evidence is improbable). The exact sampler
of the layer is :meth:`JunctionTree.sample <graphmodels.inference.JunctionTree.sample>`.

References
----------
.. [1] Fung, R., & Chang, K.-C. (1990). Weighing and integrating evidence for stochastic
   simulation in Bayesian networks. *Proceedings of UAI 5*, 209-220.
.. [2] Shachter, R. D., & Peot, M. A. (1990). Simulation approaches to general probabilistic
   inference on belief networks. *Proceedings of UAI 5*, 221-231.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx
import numpy as np

from .belief_propagation import ApproximateResult

__all__ = ["likelihood_weighting", "weighted_samples"]


def _conditionals(distribution: Any):
    """Each variable's table ``P(v | parents)`` as (parents, table of shape (prod parents, r_v))."""
    if distribution.children is None:
        raise ValueError(
            "Likelihood weighting samples a Bayesian network (a distribution given by conditional tables with "
            "their children); this distribution is a product of potentials: use the exact sampler."
        )
    index = distribution._index
    tables = {}
    for factor, child in zip(distribution.factors, distribution.children):
        v = index[child]
        parents = [index[u] for u in factor.variables if u != child]
        order = [factor.variables.index(distribution.variables[p]) for p in parents] + [factor.variables.index(child)]
        table = np.exp(np.transpose(factor.log_values, order)).reshape(-1, len(distribution.states[child]))
        if v in tables:
            raise ValueError(f"Two conditional tables have the child {child!r}.")
        tables[v] = (parents, table)
    missing = [distribution.variables[v] for v in range(len(distribution.variables)) if v not in tables]
    if missing:
        raise ValueError(
            f"No conditional table has the child {missing[0]!r}: likelihood weighting needs one per variable."
        )
    return tables


def weighted_samples(
    distribution: Any, n_samples: int, evidence: Mapping[int, np.ndarray], *, random_state: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Likelihood-weighted samples (codes) and their weights (normalized to sum to 1)."""
    rng = np.random.default_rng(random_state)
    tables = _conditionals(distribution)
    dag = nx.DiGraph()
    dag.add_nodes_from(tables)
    for v, (parents, _) in tables.items():
        dag.add_edges_from((p, v) for p in parents)
    cards = [len(distribution.states[v]) for v in distribution.variables]
    codes = np.zeros((n_samples, len(cards)), dtype=np.intp)
    log_weight = np.zeros(n_samples)
    for v in nx.lexicographical_topological_sort(dag):
        parents, table = tables[v]
        row = (
            np.ravel_multi_index(tuple(codes[:, p] for p in parents), [cards[p] for p in parents])
            if parents
            else np.zeros(n_samples, dtype=np.intp)
        )
        probabilities = table[row]  # (n, r_v)
        likelihood = evidence.get(v)
        if likelihood is not None and (likelihood > 0).sum() == 1:  # hard evidence: clamp
            state = int(np.argmax(likelihood))
            codes[:, v] = state
            with np.errstate(divide="ignore"):
                log_weight += np.log(probabilities[:, state])
            continue
        totals = probabilities.sum(axis=1, keepdims=True)
        cumulative = np.cumsum(probabilities / np.where(totals > 0, totals, 1.0), axis=1)
        u = rng.random(n_samples)
        codes[:, v] = np.minimum((cumulative < u[:, None]).sum(axis=1), cards[v] - 1)
        if likelihood is not None:  # soft evidence: a virtual child
            with np.errstate(divide="ignore"):
                log_weight += np.log(likelihood[codes[:, v]])
    if not np.isfinite(log_weight).any():
        raise ValueError("Every likelihood-weighted sample has weight 0: the evidence is (nearly) impossible.")
    weights = np.exp(log_weight - log_weight.max())
    return codes, weights / weights.sum()


def likelihood_weighting(
    distribution: Any,
    positions: list[int],
    evidence: Mapping[int, np.ndarray],
    *,
    n_samples: int = 10_000,
    random_state: Any = None,
) -> ApproximateResult:
    """Posterior marginals of `positions` estimated from likelihood-weighted samples.

    Returns
    -------
    ApproximateResult
        ``marginals`` and, in ``residuals``, the effective sample size (one entry).
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"`n_samples` must be a positive integer, got {n_samples!r}.")
    codes, weights = weighted_samples(distribution, int(n_samples), evidence, random_state=random_state)
    marginals = {}
    for k in positions:
        r = len(distribution.states[distribution.variables[k]])
        marginals[k] = np.bincount(codes[:, k], weights=weights, minlength=r)
    effective = float(1.0 / np.square(weights).sum())
    result = ApproximateResult(marginals, True, int(n_samples), [effective], "likelihood weighting")
    result.effective_sample_size = effective  # type: ignore[attr-defined]
    return result
