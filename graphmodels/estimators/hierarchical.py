"""Hierarchical Dirichlet estimates: each parent configuration backs off to fewer parents.

A conditional table ``P(x | a_1, ..., a_k)`` is smoothed toward
``P(x | a_1, ..., a_{k-1})``, which is smoothed toward ``P(x | a_1, ...,
a_{k-2})``, and so on down to ``P(x)``, smoothed toward the uniform
distribution. Each level's strength (its Dirichlet concentration) is the one
that maximises that level's marginal likelihood (empirical Bayes). In a
classifier's family table the class is the first parent, so an attribute's
table ``P(x_i | y, x_parent)`` backs off to the naive-Bayes table
``P(x_i | y)``: an augmenting arc that the data do not support fades into
naive Bayes instead of into a uniform guess.

References
----------
.. [1] Petitjean, F., Buntine, W., Webb, G. I., & Zaidi, N. (2018). Accurate
       parameter estimation for Bayesian network classifiers using
       hierarchical Dirichlet processes. *Machine Learning*, 107(8-10),
       1303-1331.
.. [2] MacKay, D. J. C., & Peto, L. C. B. (1995). A hierarchical Dirichlet
       language model. *Natural Language Engineering*, 1(3), 289-308.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._special import gammaln
from .parameters import ESTIMATORS, Estimator, _check_counts, _positive_range, maximise_on_log_grid

__all__ = ["HierarchicalDirichlet", "dirichlet_multinomial_log_likelihood"]


def dirichlet_multinomial_log_likelihood(counts: ArrayLike, base: ArrayLike, concentration: ArrayLike) -> np.ndarray:
    """Log marginal likelihood of rows of counts, each under ``Dirichlet(s * base)``.

    For a parent configuration ``j`` with counts ``N_jx`` (total ``N_j``),
    base distribution ``b_jx`` and concentration ``s`` [1]_:

    .. math::

        \\log P(N_j \\mid s, b_j) = \\log\\Gamma(s) - \\log\\Gamma(s + N_j)
        + \\sum_x \\big(\\log\\Gamma(s b_{jx} + N_{jx}) - \\log\\Gamma(s b_{jx})\\big),

    summed over ``j``: the probability of the rows in the order they came.
    With a uniform base it is :func:`~graphmodels.estimators.bdeu_log_marginal_likelihood`
    of one parent configuration per row. Only non-empty cells and rows
    contribute.

    Parameters
    ----------
    counts : array-like of shape (n_configurations, r)
        Non-negative counts (weights need not be integers).
    base : array-like broadcastable to (n_configurations, r)
        Base distributions, each row positive and summing to 1.
    concentration : float or array-like of floats
        Values > 0; the result has their shape.

    Returns
    -------
    ndarray of the shape of `concentration`
        In nats.

    References
    ----------
    .. [1] Minka, T. P. (2000). Estimating a Dirichlet distribution. Technical
           report, MIT (the Polya distribution).

    Examples
    --------
    Two rows in two cells, base (1/2, 1/2), ``s = 2``: ``P = 1/2 * 1/3``.

    >>> import numpy as np
    >>> value = dirichlet_multinomial_log_likelihood([[1, 1]], [0.5, 0.5], 2.0)
    >>> bool(np.isclose(value, np.log(1 / 6)))
    True
    """
    counts = _check_counts(counts)
    if counts.ndim != 2:
        raise ValueError(f"`counts` must be 2-D (configurations x states), got shape {counts.shape}.")
    base = np.broadcast_to(np.asarray(base, dtype=np.float64), counts.shape)
    s = np.asarray(concentration, dtype=np.float64)
    if not (np.all(np.isfinite(s)) and np.all(s > 0)):
        raise ValueError(f"`concentration` must hold finite numbers > 0, got {concentration!r}.")
    cells, cell_base, totals = _occupied_cells(counts, base)
    return _polya_log_likelihood(cells, cell_base, totals, s)


def _occupied_cells(counts, base):
    """The non-empty cells, their base probabilities and the non-empty row totals (checked input)."""
    occupied = counts > 0
    totals = counts.sum(axis=1)
    return counts[occupied], base[occupied], totals[totals > 0]


def _polya_log_likelihood(cells, cell_base, totals, concentration):
    """:func:`dirichlet_multinomial_log_likelihood` from :func:`_occupied_cells` (no checks: the search's inner loop)."""
    s = concentration[..., None]
    return (gammaln(s * cell_base + cells) - gammaln(s * cell_base)).sum(axis=-1) + (
        gammaln(s) - gammaln(s + totals)
    ).sum(axis=-1)


class HierarchicalDirichlet(Estimator):
    """Hierarchical Dirichlet smoothing with empirical-Bayes concentrations.

    For a family table with parents ``a_1, ..., a_k`` (leading axes, in order)
    and child ``x`` (last axis) [1]_ [2]_:

    .. math::

        \\hat\\theta(x \\mid a_1..a_k) = \\frac{N(x, a_1..a_k)
        + s_k \\hat\\theta(x \\mid a_1..a_{k-1})}{N(a_1..a_k) + s_k},

    down to :math:`\\hat\\theta(x) = (N(x) + s_0 / r) / (N + s_0)`. The
    parent dropped first is the last one: in a classifier's family
    ``(class, attribute parents..., child)`` the attribute parents go first and
    the class last, so a sparse configuration of ``(y, x_parent)`` falls back
    on ``P(x_i | y)`` (the naive-Bayes estimate), not on the uniform
    distribution. Each level's concentration ``s_l`` (one per level and
    table, shared by its parent configurations: the "tied" concentrations of
    [1]_) maximises :func:`dirichlet_multinomial_log_likelihood` of that
    level's counts under its smoothed base, searched on a log grid in
    ``[min_concentration, max_concentration]``. An attribute parent that
    tells nothing about the child gets a large ``s`` (its configurations
    keep the base); a strong one a small ``s``. Axes of size 1 are skipped.

    :meth:`joint` smooths a table toward the product of its (smoothed)
    one-dimensional marginals, independence, with its own empirical-Bayes
    concentration; a one-dimensional table is smoothed toward uniform.

    Parameters
    ----------
    min_concentration : float, default=1.0
        Smallest concentration considered; must be > 0.
    max_concentration : float, default=100000.0
        Largest; must be >= `min_concentration`. At the largest value a
        level's estimates are (nearly) its base.

    See Also
    --------
    EmpiricalBayesBDeu : one empirical-Bayes sample size per table, toward uniform.
    MarginalSmoothing : one level, toward the child's marginal, fixed strength.

    Notes
    -----
    The base of each level is estimated from the same rows (summed over the
    dropped parent), a plug-in approximation of the hierarchical posterior
    that [1]_ samples by Gibbs sampling. The cost is a few vectorized
    ``gammaln`` passes over each level's non-zero cells.

    References
    ----------
    .. [1] Petitjean, F., Buntine, W., Webb, G. I., & Zaidi, N. (2018).
           Accurate parameter estimation for Bayesian network classifiers
           using hierarchical Dirichlet processes. *Machine Learning*,
           107(8-10), 1303-1331.
    .. [2] MacKay, D. J. C., & Peto, L. C. B. (1995). A hierarchical Dirichlet
           language model. *Natural Language Engineering*, 1(3), 289-308.

    Examples
    --------
    The child ignores its parent: every row keeps (nearly) the marginal.

    >>> import numpy as np
    >>> table = HierarchicalDirichlet().conditional([[30, 10], [3, 1]])
    >>> np.round(table, 3).tolist()
    [[0.728, 0.272], [0.728, 0.272]]

    The child copies its parent: the rows stay apart.

    >>> table = HierarchicalDirichlet().conditional([[40, 0], [0, 40]])
    >>> bool(table[0, 0] > 0.95 and table[1, 1] > 0.95)
    True
    """

    name = "hierarchical"

    def __init__(self, min_concentration: float = 1.0, max_concentration: float = 1e5) -> None:
        self.min_concentration, self.max_concentration = _positive_range(
            min_concentration, max_concentration, "concentration"
        )

    def select_concentration(self, counts: ArrayLike, base: ArrayLike) -> float:
        """The concentration of one level: the maximiser of its marginal likelihood.

        Parameters
        ----------
        counts : array-like of shape (n_configurations, r)
        base : array-like broadcastable to (n_configurations, r)

        Returns
        -------
        float
            In ``[min_concentration, max_concentration]``; the smallest value
            when there are no counts.
        """
        counts = _check_counts(counts)
        if counts.ndim != 2:
            raise ValueError(f"`counts` must be 2-D (configurations x states), got shape {counts.shape}.")
        if counts.sum() <= 0:
            return self.min_concentration
        cells, cell_base, totals = _occupied_cells(
            counts, np.broadcast_to(np.asarray(base, dtype=np.float64), counts.shape)
        )
        return maximise_on_log_grid(
            lambda grid: _polya_log_likelihood(cells, cell_base, totals, grid),
            self.min_concentration,
            self.max_concentration,
        )

    def _level(self, counts, base):
        """This level's pseudo-counts ``s * base``, with ``s`` by empirical Bayes."""
        base = np.broadcast_to(base, counts.shape)
        flat = counts.reshape(-1, counts.shape[-1])
        return self.select_concentration(flat, base.reshape(flat.shape)) * base

    def _conditional_pseudo_counts(self, counts):
        n_parents = counts.ndim - 1
        if n_parents == 0:
            return self._level(counts, np.full(counts.shape, 1.0 / counts.shape[-1]))
        last = n_parents - 1
        fewer = counts.sum(axis=last)
        fewer_pseudo = self._conditional_pseudo_counts(fewer)
        if counts.shape[last] == 1:
            # The same rows as the level below: nothing to back off from.
            return np.expand_dims(fewer_pseudo, last)
        smoothed = fewer + fewer_pseudo
        base = smoothed / smoothed.sum(axis=-1, keepdims=True)
        return self._level(counts, np.expand_dims(base, last))

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        """``s * base`` of the table's top level (for :meth:`conditional`) or toward independence (:meth:`joint`).

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
        conditional : bool, default=True
            For :meth:`conditional`: the concentration of the last parent's
            level times the smoothed estimate without that parent. For
            :meth:`joint`: a concentration times the product of the table's
            smoothed one-dimensional marginals.

        Returns
        -------
        ndarray of the shape of `counts`
            Positive.
        """
        counts = _check_counts(counts)
        if conditional or counts.ndim == 1:
            return self._conditional_pseudo_counts(counts)
        base = np.ones(counts.shape)
        for axis in range(counts.ndim):
            other = tuple(a for a in range(counts.ndim) if a != axis)
            marginal = counts.sum(axis=other)
            smoothed = marginal + self._conditional_pseudo_counts(marginal)
            base = base * np.expand_dims(smoothed / smoothed.sum(), other)
        return self._level(counts.reshape(-1), base.reshape(-1)).reshape(counts.shape)

    def _params(self) -> dict[str, Any]:
        return {"min_concentration": self.min_concentration, "max_concentration": self.max_concentration}


# Registered here rather than in parameters.py, which this module builds on.
ESTIMATORS["hierarchical"] = HierarchicalDirichlet
