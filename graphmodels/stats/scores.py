"""Decomposable Bayesian-network scores of one family (a variable and its parents) from counts.

A family table ``N[pa, x]`` of shape (..., q, r) -- q parent configurations,
r states of the child, any leading batch axes -- gives the family's
contribution to the network score:

* BIC: ``sum N[pa, x] log(N[pa, x] / N[pa]) - log(N) / 2 * q (r - 1)``;
* AIC: the log-likelihood minus ``q (r - 1)``;
* log-likelihood: ``sum N[pa, x] log(N[pa, x] / N[pa])`` (no penalty);
* BDeu (Heckerman, Geiger & Chickering, 1995) with equivalent sample size
  ``ess``: ``sum_pa [lgamma(a_pa) - lgamma(a_pa + N[pa]) + sum_x lgamma(a + N[pa, x]) - lgamma(a)]``,
  ``a_pa = ess / q``, ``a = ess / (q r)``;
* K2 (Cooper & Herskovits, 1992): the same Bayesian-Dirichlet marginal
  likelihood with one pseudo-count per cell, ``a = 1``, ``a_pa = r``.

All are decomposable; BIC, AIC, the log-likelihood and BDeu are also
score-equivalent (K2 is not), so the gain of an arc between two otherwise
parentless variables is the same in both directions.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._special import gammaln, xlogy
from .counting import CountingEngine

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FAMILY_SCORES",
    "family_score",
    "bic_family_score",
    "aic_family_score",
    "bdeu_family_score",
    "k2_family_score",
    "log_likelihood_family_score",
    "pairwise_bdeu_gain",
]


def _as_family(counts: ArrayLike) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim < 1:
        raise ValueError("A family table needs at least the child's axis.")
    if counts.ndim == 1:
        counts = counts[None, :]
    if np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ValueError("Family counts must be finite and non-negative.")
    return counts


def _log_likelihood(counts: np.ndarray) -> np.ndarray:
    """``sum N[pa, x] log(N[pa, x] / N[pa])`` of checked tables of shape (..., q, r)."""
    parent_totals = counts.sum(axis=-1, keepdims=True)
    return np.sum(xlogy(counts, counts) - xlogy(counts, parent_totals), axis=(-2, -1))


def log_likelihood_family_score(counts: ArrayLike) -> np.ndarray | float:
    """Maximized log-likelihood of a family table of shape (..., q, r): ``sum N log(N / N[pa])``.

    Parameters
    ----------
    counts : array_like of shape (..., q, r)

    Returns
    -------
    float or ndarray of shape (...)
        One score per batch entry (a scalar for a single (q, r) table).

    Examples
    --------
    >>> round(float(log_likelihood_family_score([[3, 1], [0, 4]])), 6)  # 3 log(3/4) + log(1/4)
    -2.249341
    """
    return _log_likelihood(_as_family(counts))


def bic_family_score(counts: ArrayLike, *, sample_size: float | None = None) -> np.ndarray | float:
    """BIC score of a family table of shape (..., q, r).

    Parameters
    ----------
    counts : array_like of shape (..., q, r)
    sample_size : float, optional
        N of the penalty; by default the table's own total (per batch entry).

    Returns
    -------
    float or ndarray of shape (...)
        One score per batch entry (a scalar for a single (q, r) table).

    Examples
    --------
    >>> import numpy as np
    >>> round(float(bic_family_score([[3, 1], [0, 4]])), 6)  # 3 log(3/4) + log(1/4) - log(8)/2 * 2
    -4.328782
    """
    counts = _as_family(counts)
    log_likelihood = _log_likelihood(counts)
    n = counts.sum(axis=(-2, -1)) if sample_size is None else float(sample_size)
    q, r = counts.shape[-2], counts.shape[-1]
    with np.errstate(divide="ignore"):
        penalty = np.where(np.asarray(n) > 0, np.log(np.maximum(n, 1e-300)), 0.0) / 2.0 * q * (r - 1)
    return log_likelihood - penalty


def aic_family_score(counts: ArrayLike) -> np.ndarray | float:
    """AIC score of a family table of shape (..., q, r): log-likelihood minus ``q (r - 1)``.

    Parameters
    ----------
    counts : array_like of shape (..., q, r)

    Returns
    -------
    float or ndarray of shape (...)
        One score per batch entry (a scalar for a single (q, r) table).

    Examples
    --------
    >>> round(float(aic_family_score([[3, 1], [0, 4]])), 6)  # 3 log(3/4) + log(1/4) - 2
    -4.249341
    """
    counts = _as_family(counts)
    return _log_likelihood(counts) - counts.shape[-2] * (counts.shape[-1] - 1)


def bdeu_family_score(counts: ArrayLike, *, equivalent_sample_size: float = 1.0) -> np.ndarray | float:
    """BDeu log marginal likelihood of a family table of shape (..., q, r).

    Parameters
    ----------
    counts : array_like of shape (..., q, r)
    equivalent_sample_size : float, default=1.0
        The prior's equivalent sample size (> 0), spread evenly over the cells.

    Returns
    -------
    float or ndarray of shape (...)
        One score per batch entry (a scalar for a single (q, r) table).

    Raises
    ------
    ValueError
        If `equivalent_sample_size` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import gammaln
    >>> # one parent configuration, two states, ess 2: lgamma(2) - lgamma(5) + lgamma(1 + 3) + lgamma(1 + 0) - 2 lgamma(1)
    >>> round(float(bdeu_family_score([[3, 0]], equivalent_sample_size=2.0)), 6) == round(float(gammaln(4) - gammaln(5)), 6)
    True
    """
    counts = _as_family(counts)
    check_equivalent_sample_size(equivalent_sample_size)
    q, r = counts.shape[-2], counts.shape[-1]
    a_parent = equivalent_sample_size / q
    a_cell = a_parent / r
    parent_totals = counts.sum(axis=-1)
    per_parent = gammaln(a_parent) - gammaln(a_parent + parent_totals)
    per_cell = gammaln(a_cell + counts) - gammaln(a_cell)
    return per_parent.sum(axis=-1) + per_cell.sum(axis=(-2, -1))


def k2_family_score(counts: ArrayLike) -> np.ndarray | float:
    """K2 log marginal likelihood of a family table of shape (..., q, r) (Cooper & Herskovits [1]_).

    The Bayesian-Dirichlet score with a pseudo-count of 1 in every cell:
    ``sum_pa [lgamma(r) - lgamma(r + N[pa]) + sum_x lgamma(1 + N[pa, x])]``.

    Parameters
    ----------
    counts : array_like of shape (..., q, r)

    Returns
    -------
    float or ndarray of shape (...)
        One score per batch entry (a scalar for a single (q, r) table).

    References
    ----------
    .. [1] Cooper, G. F., & Herskovits, E. (1992). A Bayesian method for the induction of
           probabilistic networks from data. *Machine Learning*, 9(4), 309-347.

    Examples
    --------
    >>> import math
    >>> # one parent configuration, counts (3, 0): lgamma(2) - lgamma(5) + lgamma(4) + lgamma(1) = log(3! / 4!)
    >>> math.isclose(float(k2_family_score([[3, 0]])), math.log(6 / 24))
    True
    """
    counts = _as_family(counts)
    r = counts.shape[-1]
    parent_totals = counts.sum(axis=-1)
    return np.sum(gammaln(r) - gammaln(r + parent_totals), axis=-1) + np.sum(gammaln(1.0 + counts), axis=(-2, -1))


#: Family scores by name.
FAMILY_SCORES = ("bic", "aic", "bdeu", "k2", "log-likelihood")


def family_score(
    counts: ArrayLike,
    criterion: str = "bic",
    *,
    equivalent_sample_size: float = 1.0,
    sample_size: float | None = None,
) -> np.ndarray | float:
    """Score of a family table by `criterion` (a name of :data:`FAMILY_SCORES`).

    Parameters
    ----------
    counts : array_like of shape (..., q, r)
    criterion : {"bic", "aic", "bdeu", "k2", "log-likelihood"}, default="bic"
    equivalent_sample_size : float, default=1.0
        Used by ``"bdeu"``.
    sample_size : float, optional
        Used by ``"bic"``, see :func:`bic_family_score`.

    Returns
    -------
    float or ndarray of shape (...)

    Raises
    ------
    ValueError
        For an unknown criterion.
    """
    if criterion == "bic":
        return bic_family_score(counts, sample_size=sample_size)
    if criterion == "aic":
        return aic_family_score(counts)
    if criterion == "bdeu":
        return bdeu_family_score(counts, equivalent_sample_size=equivalent_sample_size)
    if criterion == "k2":
        return k2_family_score(counts)
    if criterion == "log-likelihood":
        return log_likelihood_family_score(counts)
    raise ValueError(f"`criterion` must be one of {list(FAMILY_SCORES)}, got {criterion!r}.")


def check_equivalent_sample_size(value: object) -> float:
    """`value` as a float if it is a positive finite number, else a ``ValueError``/``TypeError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"`equivalent_sample_size` must be a number, got {type(value).__name__}.")
    if not 0 < value < math.inf:
        raise ValueError(f"`equivalent_sample_size` must be positive and finite, got {value!r}.")
    return float(value)


def pairwise_bdeu_gain(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    *,
    equivalent_sample_size: float = 1.0,
    given: Hashable | None = None,
    per_stratum: bool = False,
) -> np.ndarray:
    """BDeu gain of an arc between every pair of otherwise parentless variables, all pairs at once.

    The gain of ``X_i -> X_j`` is ``BDeu(X_j | X_i) - BDeu(X_j)``
    (:func:`bdeu_family_score` of the pair's table minus that of ``X_j``'s
    one-way table): the log Bayes factor of the arc under the BDeu prior of
    Heckerman, Geiger & Chickering [1]_. BDeu is score-equivalent, so the
    gain is the same in both directions, and a maximum spanning forest of the
    positive gains is the tree (or forest) network of highest marginal
    likelihood [1]_. All pairwise tables come from one batch of one-hot
    products (:meth:`CountingEngine.pairwise_counts`); the log-gamma sums run
    over the whole block matrix. A row with an unknown cell counts in the
    pairs that do not read it, as in
    :func:`~graphmodels.stats.pairwise_mutual_information`.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : sequence, optional
        Defaults to every variable except `given`.
    equivalent_sample_size : float, default=1.0
        The BDeu prior's equivalent sample size (> 0).
    given : name or position, optional
        A conditioning variable, typically the class: the gains within the
        rows of each of its states, each stratum its own data set.
    per_stratum : bool, default=False
        With `given`: one matrix per state (as each class's own tree needs)
        instead of their sum (the gain of the arc in every class's network).

    Returns
    -------
    ndarray of shape (n_variables, n_variables), or (n_states, n_variables, n_variables) per stratum
        Symmetric, in nats (not per row); the diagonal is 0.

    Raises
    ------
    ValueError
        If `equivalent_sample_size` is not positive and finite, or
        `per_stratum` is set without `given`.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical
           data. *Machine Learning*, 20(3), 197-243.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1] * 5, "b": [0, 0, 1, 1] * 5, "c": [0, 1] * 10})
    >>> gain = pairwise_bdeu_gain(frame)
    >>> bool(gain[0, 1] > 0 > gain[0, 2])  # a and b copy each other; c is independent of both
    True
    """
    from .information import as_engine

    check_equivalent_sample_size(equivalent_sample_size)
    if per_stratum and given is None:
        raise ValueError("`per_stratum=True` needs a conditioning variable `given`.")
    engine = as_engine(data)
    pairs = engine.pairwise_counts(variables, given=given)
    p = len(pairs.variables)
    if p == 0:
        return np.zeros((len(pairs.table), 0, 0) if per_stratum else (0, 0))
    joint = pairs.table  # (strata, K, K)
    starts = pairs.offsets[:-1]
    cards = np.asarray(pairs.cardinalities, dtype=np.float64)
    card_of = np.repeat(cards, pairs.cardinalities)  # (K,): r of the variable each state belongs to
    a = float(equivalent_sample_size)
    # Block (i, j) read as the family of X_j (columns) with parent X_i (rows): its own
    # margins, since a row with an unknown cell drops out of the blocks that read it.
    a_cell = a / np.outer(card_of, card_of)
    cells = np.add.reduceat(np.add.reduceat(gammaln(a_cell + joint) - gammaln(a_cell), starts, axis=1), starts, axis=2)
    parent_counts = np.add.reduceat(joint, starts, axis=2)  # (strata, K, p): n_a of block (i, j)
    child_counts = np.add.reduceat(joint, starts, axis=1)  # (strata, p, K): n_b of block (i, j)
    a_state = (a / card_of)[None, :, None]
    parents = np.add.reduceat(gammaln(a_state) - gammaln(a_state + parent_counts), starts, axis=1)
    a_child = (a / card_of)[None, None, :]
    children = np.add.reduceat(gammaln(a_child + child_counts) - gammaln(a_child), starts, axis=2)
    totals = np.add.reduceat(parent_counts, starts, axis=1)  # (strata, p, p)
    # BDeu(X_j | X_i) - BDeu(X_j): the child's own term lgamma(a) - lgamma(a + m) moves to the other side.
    gain = cells + parents - children - (gammaln(a) - gammaln(a + totals))
    gain = (gain + np.swapaxes(gain, -1, -2)) / 2  # equal in exact arithmetic (score equivalence)
    diagonal = np.arange(p)
    gain[:, diagonal, diagonal] = 0.0
    return gain if per_stratum else gain.sum(axis=0)
