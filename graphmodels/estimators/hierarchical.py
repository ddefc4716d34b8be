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

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .parameters import (
    ESTIMATORS,
    Estimator,
    _check_counts,
    _check_tables,
    _LogRisingFactorialSums,
    _positive_range,
    search_each,
)

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
    occupied = _occupied_cells(counts, base)
    if not occupied[0].size:  # no counts: every term is empty
        return np.zeros(s.shape)
    return _polya_scores_on_grids([occupied])(s.reshape(1, -1))[0].reshape(s.shape)


def _occupied_cells(counts, base):
    """The non-empty cells, their base probabilities and the non-empty row totals (checked input)."""
    occupied = counts > 0
    totals = counts.sum(axis=1)
    return counts[occupied], base[occupied], totals[totals > 0]


def _polya_scores_on_grids(levels):
    """A scorer of many levels' :func:`_occupied_cells` at once: ``grids`` (levels, points) -> scores.

    A level's score is ``sum_x [lgamma(s b_x + N_x) - lgamma(s b_x)]`` over its
    non-empty cells minus ``sum_j [lgamma(s + N_j) - lgamma(s)]`` over its
    non-empty configurations. The cells of one level with one base
    probability share the offset ``s b``, so they form one group of a
    :class:`~graphmodels.estimators.parameters._LogRisingFactorialSums` (the
    configurations of a level another): a pass over all of a model's tables
    costs a few ``gammaln`` calls over the distinct (offset, count) pairs,
    not four per table. Every level has counts.
    """
    cells = np.concatenate([cells for cells, _, _ in levels])
    cell_base = np.concatenate([base for _, base, _ in levels])
    cell_level = np.repeat(np.arange(len(levels)), [c.size for c, _, _ in levels])
    # Groups: the cells of one level with one base probability, sorted by level.
    order = np.lexsort((cell_base, cell_level))
    first = np.ones(order.size, dtype=bool)
    first[1:] = (cell_base[order][1:] != cell_base[order][:-1]) | (cell_level[order][1:] != cell_level[order][:-1])
    group_level, group_base = cell_level[order][first], cell_base[order][first]
    # Levels seldom share a base probability: their groups' offsets are taken to be their own.
    cell_sums = _LogRisingFactorialSums(
        cells[order], np.cumsum(first) - 1, group_level.size, share_offsets=False, sum_of_group=group_level
    )
    totals = _LogRisingFactorialSums.of_groups([totals for _, _, totals in levels])

    def score(grids):
        return cell_sums(grids[group_level] * group_base[:, None]) - totals(grids)

    return score


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
        base = np.broadcast_to(np.asarray(base, dtype=np.float64), counts.shape)
        return float(self._select([(counts, base)])[0])

    def _select(self, levels):
        """Each level's concentration, from its (configurations x states) counts and base, all searched together."""
        occupied = {i: _occupied_cells(counts, base) for i, (counts, base) in enumerate(levels) if counts.sum() > 0}
        low, high = self.min_concentration, self.max_concentration
        return search_each(occupied, len(levels), _polya_scores_on_grids, lambda o: o[0].size, low, high)

    def _conditional_pseudo_counts(self, tables):
        """Each table's ``s * base`` of its top level, the levels of every table searched together, depth by depth."""
        # chains[i]: table i with its parents summed out from the last one on, the child's marginal first.
        chains = []
        for counts in tables:
            chain = [counts]
            while chain[-1].ndim > 1:
                chain.append(chain[-1].sum(axis=chain[-1].ndim - 2))
            chains.append(chain[::-1])
        pseudo: list[Any] = [None] * len(tables)
        for depth in range(max((len(chain) for chain in chains), default=0)):
            levels, bases = [], []
            for i, chain in enumerate(chains):
                if depth >= len(chain):
                    continue
                counts = chain[depth]
                if depth == 0:
                    base = np.full(counts.shape, 1.0 / counts.shape[-1])
                else:
                    last = counts.ndim - 2
                    if counts.shape[last] == 1:
                        # The same rows as the level below: nothing to back off from.
                        pseudo[i] = np.expand_dims(pseudo[i], last)
                        continue
                    smoothed = chain[depth - 1] + pseudo[i]
                    base = np.broadcast_to(
                        np.expand_dims(smoothed / smoothed.sum(axis=-1, keepdims=True), last), counts.shape
                    )
                flat = counts.reshape(-1, counts.shape[-1])
                levels.append((flat, base.reshape(flat.shape)))
                bases.append((i, base))
            for (i, base), concentration in zip(bases, self._select(levels)):
                pseudo[i] = concentration * base
        return pseudo

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
        return self.pseudo_counts_of_tables([counts], conditional=conditional)[0]

    def pseudo_counts_of_tables(self, tables: Sequence[ArrayLike], *, conditional: bool = True) -> list[np.ndarray]:
        checked = _check_tables(tables)
        along_child = [i for i, table in enumerate(checked) if conditional or table.ndim == 1]
        result: list[Any] = [None] * len(checked)
        for i, pseudo in zip(along_child, self._conditional_pseudo_counts([checked[i] for i in along_child])):
            result[i] = pseudo
        for i, counts in enumerate(checked):
            if result[i] is None:
                result[i] = self._joint_pseudo_counts(counts)
        return result

    def _joint_pseudo_counts(self, counts):
        """A concentration times the product of the table's smoothed one-dimensional marginals."""
        axes = range(counts.ndim)
        marginals = [counts.sum(axis=tuple(a for a in axes if a != axis)) for axis in axes]
        base = np.ones(counts.shape)
        for axis, marginal, pseudo in zip(axes, marginals, self._conditional_pseudo_counts(marginals)):
            smoothed = marginal + pseudo
            base = base * np.expand_dims(smoothed / smoothed.sum(), tuple(a for a in axes if a != axis))
        flat, flat_base = counts.reshape(1, -1), base.reshape(1, -1)
        return (self._select([(flat, flat_base)])[0] * flat_base).reshape(counts.shape)

    def _params(self) -> dict[str, Any]:
        return {"min_concentration": self.min_concentration, "max_concentration": self.max_concentration}


# Registered here rather than in parameters.py, which this module builds on.
ESTIMATORS["hierarchical"] = HierarchicalDirichlet
