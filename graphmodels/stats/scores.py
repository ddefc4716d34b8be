"""Decomposable Bayesian-network scores of one family (a variable and its parents) from counts.

A family table ``N[pa, x]`` of shape (..., q, r) -- q parent configurations,
r states of the child, any leading batch axes -- gives the family's
contribution to the network score:

* BIC: ``sum N[pa, x] log(N[pa, x] / N[pa]) - log(N) / 2 * q (r - 1)``;
* BDeu (Heckerman, Geiger & Chickering, 1995) with equivalent sample size
  ``ess``: ``sum_pa [lgamma(a_pa) - lgamma(a_pa + N[pa]) + sum_x lgamma(a + N[pa, x]) - lgamma(a)]``,
  ``a_pa = ess / q``, ``a = ess / (q r)``.

Both are decomposable and score-equivalent, so the gain of an arc between two
otherwise parentless variables is the same in both directions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._special import gammaln, xlogy

__all__ = ["FAMILY_SCORES", "family_score", "bic_family_score", "aic_family_score", "bdeu_family_score"]


def _as_family(counts: ArrayLike) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim < 1:
        raise ValueError("A family table needs at least the child's axis.")
    if counts.ndim == 1:
        counts = counts[None, :]
    if np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ValueError("Family counts must be finite and non-negative.")
    return counts


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
    parent_totals = counts.sum(axis=-1, keepdims=True)
    log_likelihood = np.sum(xlogy(counts, counts) - xlogy(counts, parent_totals), axis=(-2, -1))
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
    parent_totals = counts.sum(axis=-1, keepdims=True)
    log_likelihood = np.sum(xlogy(counts, counts) - xlogy(counts, parent_totals), axis=(-2, -1))
    return log_likelihood - counts.shape[-2] * (counts.shape[-1] - 1)


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
    if not equivalent_sample_size > 0:
        raise ValueError(f"`equivalent_sample_size` must be > 0, got {equivalent_sample_size!r}.")
    q, r = counts.shape[-2], counts.shape[-1]
    a_parent = equivalent_sample_size / q
    a_cell = a_parent / r
    parent_totals = counts.sum(axis=-1)
    per_parent = gammaln(a_parent) - gammaln(a_parent + parent_totals)
    per_cell = gammaln(a_cell + counts) - gammaln(a_cell)
    return per_parent.sum(axis=-1) + per_cell.sum(axis=(-2, -1))


#: Family scores by name.
FAMILY_SCORES = ("bic", "aic", "bdeu")


def family_score(
    counts: ArrayLike,
    criterion: str = "bic",
    *,
    equivalent_sample_size: float = 1.0,
    sample_size: float | None = None,
) -> np.ndarray | float:
    """Score of a family table by `criterion` (``"bic"``, ``"aic"`` or ``"bdeu"``).

    Parameters
    ----------
    counts : array_like of shape (..., q, r)
    criterion : {"bic", "aic", "bdeu"}, default="bic"
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
    raise ValueError(f"`criterion` must be one of {list(FAMILY_SCORES)}, got {criterion!r}.")
