"""Parameter estimators: from count tables to probability tables.

An estimator turns a table of counts into a table of probabilities. For a
conditional probability table (CPT) the child variable is the **last** axis
and the parents are the leading axes; every slice along the last axis sums to
one. Estimators know nothing about structures or rows: models ask the
counting engine for a family's table and hand it here.

References
----------
.. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
       Bayesian networks: the combination of knowledge and statistical data.
       *Machine Learning*, 20(3), 197-243. (BDeu.)
.. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture 10 of
       MAC6916, section 3 (likelihood-equivalent Dirichlet priors for TAN).
.. [3] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded
       tree-width Markov networks. MIT CSAIL technical report, section 6.4
       (pseudo-count 0.001).
.. [4] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
       classifiers. *Machine Learning*, 29(2-3), 131-163, section 4
       (smoothing toward the marginal).
.. [5] MacKay, D. J. C. (1992). Bayesian interpolation. *Neural Computation*,
       4(3), 415-447 (the evidence framework: hyperparameters by maximum
       marginal likelihood).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._special import gammaln

__all__ = [
    "Estimator",
    "MaximumLikelihood",
    "Dirichlet",
    "BDeu",
    "MarginalSmoothing",
    "EmpiricalBayesBDeu",
    "bdeu_log_marginal_likelihood",
    "get_estimator",
    "maximise_on_log_grid",
    "maximise_on_log_grids",
    "ESTIMATORS",
    "LIANG_SREBRO_PSEUDO_COUNT",
]

#: The pseudo-count Liang & Srebro (2004) add to every cell.
LIANG_SREBRO_PSEUDO_COUNT = 0.001


class Estimator:
    """Base class: an estimator adds pseudo-counts to the cells, then normalizes.

    Every estimator is defined by its table of pseudo-counts,
    :meth:`pseudo_counts`: ``conditional(N) = (N + a) / sum_x (N + a)`` along
    the child axis and ``joint(N) = (N + a) / sum (N + a)``. Subclasses define
    :meth:`pseudo_count` when one number per table suffices (:class:`Dirichlet`,
    :class:`BDeu`), or override :meth:`pseudo_counts` when the pseudo-counts
    differ from cell to cell or depend on the counts
    (:class:`MarginalSmoothing`, :class:`EmpiricalBayesBDeu`,
    :class:`~graphmodels.estimators.HierarchicalDirichlet`). Because the
    pseudo-counts are explicit, the estimate without one row is exact
    arithmetic on the counts (``(N - 1 + a) / (N_pa - 1 + A)``): the
    leave-one-out selection of :mod:`graphmodels.estimators.selection` reads
    them. Instances are immutable, comparable and JSON-describable
    (:meth:`to_dict`).
    """

    name = "estimator"

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        """Pseudo-count added to every cell of a table of this shape."""
        raise NotImplementedError(
            f"{type(self).__name__} adds no single pseudo-count per table; use its pseudo_counts()."
        )

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        """The pseudo-counts this estimator adds to each cell of a table.

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
            The table (estimators that adapt to the data read it).
        conditional : bool, default=True
            For :meth:`conditional` (child on the last axis) or for :meth:`joint`.

        Returns
        -------
        ndarray of the shape of `counts`
            Non-negative.
        """
        counts = _check_counts(counts)
        return np.full(counts.shape, self.pseudo_count(counts.shape))

    def pseudo_counts_of_tables(self, tables: Sequence[ArrayLike], *, conditional: bool = True) -> list[np.ndarray]:
        """:meth:`pseudo_counts` of many tables at once.

        The estimators that search a hyperparameter per table
        (:class:`EmpiricalBayesBDeu`,
        :class:`~graphmodels.estimators.HierarchicalDirichlet`) search all the
        tables together, in a few vectorized passes instead of a few per
        table; the result is the same as one call per table.

        Parameters
        ----------
        tables : sequence of array-like
        conditional : bool, default=True

        Returns
        -------
        list of ndarray, one per table
        """
        return [self.pseudo_counts(table, conditional=conditional) for table in tables]

    def conditional(self, counts: ArrayLike) -> np.ndarray:
        """CPT ``P(child | parents)`` from a family table (child on the last axis).

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)

        Returns
        -------
        ndarray of the same shape
            Each slice along the last axis sums to 1. A parent configuration
            with no counts and no pseudo-counts gets the uniform distribution.
        """
        counts = _check_counts(counts)
        return _normalized_along_child(counts + self.pseudo_counts(counts))

    def conditionals(self, tables: Sequence[ArrayLike]) -> list[np.ndarray]:
        """:meth:`conditional` of many family tables, normalized in one vectorized pass.

        The pseudo-counts come from :meth:`pseudo_counts_of_tables` (an
        adaptive estimator searches all tables together); the smoothed tables
        are laid end to end, each parent configuration a run of its child's
        states, so one ``reduceat`` gives every configuration's total. Equal
        to one :meth:`conditional` call per table, up to the rounding of
        those totals.

        Parameters
        ----------
        tables : sequence of array-like, each of shape (r_parent_1, ..., r_parent_k, r_child)

        Returns
        -------
        list of ndarray, one per table, of its shape
        """
        checked = _count_arrays(tables)  # their values are checked where the pseudo-counts are made
        # Each table copied once if it is a strided view (AODE's blocks of one pairwise table), not
        # once by every pass below that flattens it.
        checked = [np.ascontiguousarray(table) for table in checked]
        result: list[np.ndarray] = []
        # Small tables in batches (their per-call cost is what batching saves); a large one alone,
        # normalized as conditional() does, without full-size repeats of its totals.
        for batch in batches_of_cells(range(len(checked)), [t.size for t in checked], limit=CONDITIONALS_BATCH_CELLS):
            pseudo = dict(zip(batch, self.pseudo_counts_of_tables([checked[i] for i in batch])))
            if len(batch) == 1:
                (i,) = batch
                result.append(_normalized_along_child(_check_counts(checked[i]) + pseudo[i]))
                continue
            # The batch's tables end to end, checked by one pass as _check_counts checks one.
            smoothed = _check_counts(np.concatenate([checked[i].reshape(-1) for i in batch]))
            smoothed = smoothed + np.concatenate([np.reshape(pseudo[i], -1) for i in batch])
            sizes = np.array([checked[i].size for i in batch], dtype=np.int64)
            states = np.array([checked[i].shape[-1] for i in batch], dtype=np.int64)
            runs = np.repeat(states, sizes // np.maximum(states, 1))
            totals = np.repeat(np.add.reduceat(smoothed, segment_starts(runs)), runs)
            flat = _divided_or_uniform(smoothed, totals, np.repeat(1.0 / np.maximum(states, 1), sizes))
            parts = _segments(flat, np.concatenate([[0], np.cumsum(sizes)]))
            result.extend(part.reshape(checked[i].shape) for part, i in zip(parts, batch))
        return result

    def joint(self, counts: ArrayLike) -> np.ndarray:
        """Joint distribution from a table of counts (all cells sum to 1).

        Parameters
        ----------
        counts : array-like of any shape (at least one axis)

        Returns
        -------
        ndarray of the same shape
            All cells sum to 1; uniform when there are no counts and no
            pseudo-counts.
        """
        counts = _check_counts(counts)
        return _normalized_joint(counts, self.pseudo_counts(counts, conditional=False))

    def joints(self, tables: Sequence[ArrayLike]) -> list[np.ndarray]:
        """:meth:`joint` of many tables, their pseudo-counts from one :meth:`pseudo_counts_of_tables` call.

        An adaptive estimator searches every table's hyperparameter in the
        same few vectorized passes (AODE's superparent tables: one search,
        not one per attribute); the result equals one :meth:`joint` call per
        table.

        Parameters
        ----------
        tables : sequence of array-like, each of any shape (at least one axis)

        Returns
        -------
        list of ndarray, one per table, of its shape
        """
        checked = _check_tables(tables)
        pseudo = self.pseudo_counts_of_tables(checked, conditional=False)
        return [_normalized_joint(counts, extra) for counts, extra in zip(checked, pseudo)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description: ``{"name": ..., <parameters>}``."""
        return {"name": self.name, **self._params()}

    def _params(self) -> dict[str, Any]:
        return {}

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params().items()))))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"


class MaximumLikelihood(Estimator):
    """Relative frequencies, ``n_x / n``.

    Zero counts give zero probabilities, so a test row with a combination
    never seen in training gets likelihood 0 (log-loss infinity). Use a
    Dirichlet prior for prediction.

    Examples
    --------
    >>> MaximumLikelihood().conditional([[1, 3], [0, 0]]).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """

    name = "mle"

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return 0.0


class Dirichlet(Estimator):
    """Symmetric Dirichlet prior: add `pseudo_count` to every cell.

    ``pseudo_count=1`` is Laplace's rule; ``pseudo_count=0.001`` is the
    smoothing of Liang & Srebro (2004) [1]_.

    Parameters
    ----------
    pseudo_count : float, default=1.0
        Must be >= 0.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded
           tree-width Markov networks. MIT CSAIL technical report, section 6.4
           (pseudo-count 0.001).

    Examples
    --------
    >>> Dirichlet(1.0).conditional([[1, 3], [0, 0]]).tolist()
    [[0.3333333333333333, 0.6666666666666666], [0.5, 0.5]]
    """

    name = "dirichlet"

    def __init__(self, pseudo_count: float = 1.0) -> None:
        pseudo_count = _as_float(pseudo_count, "pseudo_count")
        if not np.isfinite(pseudo_count) or pseudo_count < 0:
            raise ValueError(f"`pseudo_count` must be a finite number >= 0, got {pseudo_count}.")
        self.pseudo_count_value = pseudo_count

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return self.pseudo_count_value

    def _params(self) -> dict[str, Any]:
        return {"pseudo_count": self.pseudo_count_value}


class BDeu(Estimator):
    """Bayesian Dirichlet, likelihood-equivalent and uniform (BDeu).

    The equivalent sample size is spread evenly over the cells of the whole
    family table: ``alpha = equivalent_sample_size / (q * r)`` per cell, with
    ``q`` parent configurations and ``r`` child states [1]_. Markov-equivalent
    structures get the same score, which is what keeps TAN learning a
    maximum spanning tree problem under Bayesian estimates [2]_.

    In a classifier the family of attribute ``X_i`` includes the class, so
    ``BDeu(alpha)`` puts ``alpha / (|C| r_parent r_i)`` in each cell: Mauá's
    class-conditional equivalent sample size ``alpha_c`` is ``alpha / |C|``.

    Parameters
    ----------
    equivalent_sample_size : float, default=1.0
        Must be > 0.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical data.
           *Machine Learning*, 20(3), 197-243.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture 10 of
           MAC6916, section 3 (likelihood-equivalent Dirichlet priors for TAN).

    Examples
    --------
    >>> BDeu(4.0).conditional([[1, 3], [0, 0]]).tolist()
    [[0.3333333333333333, 0.6666666666666666], [0.5, 0.5]]
    """

    name = "bdeu"

    def __init__(self, equivalent_sample_size: float = 1.0) -> None:
        self.equivalent_sample_size = _positive_number(equivalent_sample_size, "equivalent_sample_size")

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return _bdeu_pseudo_count(self.equivalent_sample_size, int(np.prod(shape)))

    def _params(self) -> dict[str, Any]:
        return {"equivalent_sample_size": self.equivalent_sample_size}


def _bdeu_pseudo_count(equivalent_sample_size, n_cells):
    """BDeu's pseudo-count of each cell of a family table of `n_cells` cells."""
    return equivalent_sample_size / max(n_cells, 1)


class MarginalSmoothing(Estimator):
    """Smoothing toward the marginal (Friedman, Geiger & Goldszmidt, 1997).

    Each parent configuration's distribution is shrunk toward the child's
    marginal distribution with the weight of `n0` imaginary rows [1]_:

    .. math::

        \\theta(x \\mid pa) = \\frac{N(x, pa) + N_0 \\hat P(x)}{N(pa) + N_0}.

    A well-populated parent configuration keeps its relative frequencies; a
    sparse one falls back toward :math:`\\hat P(x)`; one with no counts gets
    :math:`\\hat P(x)` itself. The marginal is read from the family table
    (the sum over every leading axis: the parents, the class included) and is
    itself smoothed toward the uniform distribution with the same weight,
    :math:`\\hat P(x) = (N(x) + N_0 / r) / (N + N_0)` for ``r`` child
    states, so that no probability is zero even for a state the table never
    saw (for example within one class of the Chow-Liu classifier); with
    ``N >> N0`` this is the paper's marginal frequency.

    :meth:`joint` is the analogue for a table without parents: ``n0``
    imaginary rows spread as the product of the table's one-dimensional
    (smoothed) marginals, ``P(x) = (N(x) + N0 prod_i P_i(x_i)) / (N + N0)``,
    which shrinks toward independence of the table's variables. For a
    one-dimensional table both are ``(N(x) + N0 P(x)) / (N + N0)``.

    Parameters
    ----------
    n0 : float, default=5.0
        :math:`N_0`, the imaginary rows per parent configuration (the paper
        uses 5). Must be > 0.

    See Also
    --------
    BDeu : imaginary rows spread uniformly over the whole table.

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. *Machine Learning*, 29(2-3), 131-163, section 4
           (smoothing toward the marginal, ``N0 = 5``).

    Examples
    --------
    The marginal of ``[[1, 3], [0, 0]]`` is ``(1, 3)``, smoothed with
    ``n0 = 4`` toward uniform: ``(1 + 2, 3 + 2) / 8 = (0.375, 0.625)``. Row 0
    is ``(1 + 4 * 0.375, 3 + 4 * 0.625) / 8``; row 1, never seen, is the
    smoothed marginal:

    >>> MarginalSmoothing(4.0).conditional([[1, 3], [0, 0]]).tolist()
    [[0.3125, 0.6875], [0.375, 0.625]]
    """

    name = "marginal-smoothing"

    def __init__(self, n0: float = 5.0) -> None:
        self.n0 = _positive_number(n0, "n0")

    def _smoothed_marginal(self, marginal: np.ndarray) -> np.ndarray:
        return (marginal + self.n0 / marginal.size) / (marginal.sum() + self.n0)

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        """``N0`` times the (smoothed) marginal of the child, or the product of the marginals.

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
        conditional : bool, default=True
            For :meth:`conditional` (``N0 P(x)`` in every parent configuration,
            which then gets the smoothed marginal when it has no counts) or for
            :meth:`joint` (``N0 prod_i P_i(x_i)``).

        Returns
        -------
        ndarray of the shape of `counts`
        """
        counts = _check_counts(counts)
        if conditional:
            prior = self._smoothed_marginal(counts.reshape(-1, counts.shape[-1]).sum(axis=0))
            return np.broadcast_to(self.n0 * prior, counts.shape).copy()
        prior = np.ones(counts.shape)
        for axis in range(counts.ndim):
            other = tuple(a for a in range(counts.ndim) if a != axis)
            marginal = self._smoothed_marginal(counts.sum(axis=other))
            prior = prior * np.expand_dims(marginal, other)
        return self.n0 * prior

    def _params(self) -> dict[str, Any]:
        return {"n0": self.n0}


def bdeu_log_marginal_likelihood(
    counts: ArrayLike, equivalent_sample_size: ArrayLike, *, conditional: bool = True
) -> np.ndarray:
    """Log marginal likelihood of a count table under BDeu, for one or many sample sizes.

    For a family table with ``q`` parent configurations and ``r`` child
    states, ``alpha = ess / (q r)`` per cell and [1]_

    .. math::

        \\log P(N \\mid ess) = \\sum_j \\Big[\\log\\Gamma(r\\alpha) - \\log\\Gamma(r\\alpha + N_j)
        + \\sum_k \\big(\\log\\Gamma(\\alpha + N_{jk}) - \\log\\Gamma(\\alpha)\\big)\\Big],

    the probability of the rows in the order they came (no multinomial
    coefficient), so that it compares sample sizes on the same data. Only
    non-empty cells and parent configurations contribute, so the cost grows
    with the number of non-zero cells, not with the table's size.

    Parameters
    ----------
    counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
        Non-negative counts (weights need not be integers).
    equivalent_sample_size : float or array-like of floats
        Values > 0; the result has their shape.
    conditional : bool, default=True
        Score ``P(child | parents)`` with the child on the last axis (the
        BDeu family score); with False, the whole table is one multinomial
        (``q = 1``), the score of :meth:`Estimator.joint`.

    Returns
    -------
    ndarray of the shape of `equivalent_sample_size`
        In nats.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical data.
           *Machine Learning*, 20(3), 197-243.

    Examples
    --------
    Two rows, one in each of two cells, with ``ess = 2`` (``alpha = 1``):
    ``P = 1/2 * 1/3``.

    >>> import numpy as np
    >>> value = bdeu_log_marginal_likelihood([1, 1], 2.0, conditional=False)
    >>> bool(np.isclose(value, np.log(1 / 6)))
    True
    """
    counts = _check_counts(counts)
    ess = np.asarray(equivalent_sample_size, dtype=np.float64)
    if not (np.all(np.isfinite(ess)) and np.all(ess > 0)):
        raise ValueError(f"`equivalent_sample_size` must hold finite numbers > 0, got {equivalent_sample_size!r}.")
    terms = _BDeuTerms.of(counts, conditional)
    if not terms.cells.size:  # no counts: every term is empty
        return np.zeros(ess.shape)
    return _bdeu_scores_on_grids([terms])(ess.reshape(1, -1))[0].reshape(ess.shape)


class _BDeuTerms(NamedTuple):
    """What :func:`bdeu_log_marginal_likelihood` reads of a table: its non-empty cells and configurations."""

    cells: np.ndarray
    parents: np.ndarray
    n_cells: int
    n_configurations: int

    @classmethod
    def of(cls, counts, conditional):
        return cls.of_tables([counts], conditional)[0]

    @classmethod
    def of_tables(cls, tables, conditional):
        """The terms of many (checked) tables, in a few passes over all of them, not a few per table.

        A table is ``q`` parent configurations of ``r`` states (``q = 1`` for :meth:`joint`'s); the
        configurations' totals of the tables of one width are summed as one array of rows, each
        row as the table's own sum would add it.
        """
        shapes = [_configurations_and_states(table, conditional) for table in tables]
        if not tables:
            return []
        sizes = np.array([table.size for table in tables], dtype=np.int64)
        flat = np.concatenate([table.reshape(-1) for table in tables])
        # Every configuration's total, the configurations of table after table end to end.
        n_configurations = np.array([q for q, _ in shapes], dtype=np.int64)
        widths = sizes // n_configurations
        totals = np.empty(int(n_configurations.sum()))
        first_total = segment_starts(n_configurations)
        for width in np.unique(widths):
            members = np.flatnonzero(widths == width)
            rows = np.concatenate([flat[s : s + n] for s, n in zip(segment_starts(sizes)[members], sizes[members])])
            at = np.repeat(first_total[members] - segment_starts(n_configurations[members]), n_configurations[members])
            totals[at + np.arange(at.size)] = rows.reshape(at.size, -1).sum(axis=1)
        cells = _nonzero_by_segment(flat, sizes)
        parents = _nonzero_by_segment(totals, n_configurations)
        return [
            cls(table_cells, table_parents, q * max(r, 1), q)
            for table_cells, table_parents, (q, r) in zip(cells, parents, shapes)
        ]


def _configurations_and_states(counts, conditional):
    """``(q, r)`` of a table: its parent configurations (1 for a joint table) and child states."""
    r = counts.shape[-1] if conditional else counts.size
    return max(counts.size // max(r, 1), 1), r


def _nonzero_by_segment(values, sizes):
    """The positive values of each of consecutive segments of these sizes, one array per segment."""
    positive = values > 0
    ends = np.cumsum(np.concatenate([[0], positive]))[np.cumsum(np.concatenate([[0], sizes]))]
    return _segments(values[positive], ends)


def _segments(values, bounds):
    """``values[bounds[i]:bounds[i + 1]]`` for each i: ``np.split`` without its per-piece axis swaps."""
    bounds = bounds.tolist()
    return [values[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]


def _bdeu_scores_on_grids(terms):
    """A scorer of many tables' :class:`_BDeuTerms` at once: ``grids`` (tables, points) -> scores.

    The score of a table is ``sum_k [lgamma(alpha + N_jk) - lgamma(alpha)]`` over its non-empty
    cells minus ``sum_j [lgamma(r alpha + N_j) - lgamma(r alpha)]`` over its non-empty parent
    configurations, two :class:`_LogRisingFactorialSums`: every pass of a search over all of a
    model's tables costs a few ``gammaln`` calls over the distinct (prior, count) pairs, not a
    few per table. Every table has counts.
    """
    cells = _LogRisingFactorialSums.of_groups([t.cells for t in terms])
    parents = _LogRisingFactorialSums.of_groups([t.parents for t in terms])
    n_cells = np.array([t.n_cells for t in terms], dtype=np.float64)[:, None]
    n_configurations = np.array([t.n_configurations for t in terms], dtype=np.float64)[:, None]

    def score(grids):
        return cells(grids / n_cells) - parents(grids / n_configurations)

    return score


class _LogRisingFactorialSums:
    """Sums of ``lgamma(x + v) - lgamma(x)`` over groups of values ``v``, for offsets ``x`` given later.

    The searches of :class:`EmpiricalBayesBDeu` and
    :class:`~graphmodels.estimators.HierarchicalDirichlet` evaluate these
    sums (logs of rising factorials) at every grid point, and ``gammaln``
    was most of their cost. Counts repeat: within a table (many cells of
    count 1, 2, ...) and across tables, which on the first, shared grid have
    equal offsets when they have equal shapes. So the values are grouped once
    (each group's distinct values and their multiplicities) and a call costs
    two ``gammaln`` per distinct (offset row, value) pair, then the weighted
    sums ``sum_u m_u [lgamma(x + v_u) - lgamma(x)]`` as one sparse product:
    each term is the one the formula computes per value, bit for bit; only
    the order of the additions differs.

    Parameters
    ----------
    values : 1-D ndarray
        Every group's values, in any order (non-negative floats; weighted
        counts need not be integers).
    owners : 1-D ndarray of int
        The group of each value, in ``range(n_groups)``; every group owns
        at least one.
    n_groups : int
        Every output row gets at least one group.
    share_offsets : bool, default=True
        Look for groups with equal offsets (and share their ``gammaln``
        values); without, every group's offsets are taken to be its own.
    sum_of_group : 1-D ndarray of int, optional
        The output row each group's sum is added to, non-decreasing (groups
        of one table summed together); by default each group its own row.
    """

    def __init__(
        self,
        values: np.ndarray,
        owners: np.ndarray,
        n_groups: int,
        *,
        share_offsets: bool = True,
        sum_of_group: np.ndarray | None = None,
    ) -> None:
        from scipy.sparse import csr_matrix  # loaded on first use: `import graphmodels` stays light

        self._csr_matrix = csr_matrix
        # The distinct (group, value) pairs, sorted by group then value, and how often each occurs.
        self.distinct_values, value_ids = np.unique(values, return_inverse=True)
        n_values = max(self.distinct_values.size, 1)
        keys, pair_of_value = _distinct_keys(np.asarray(owners) * n_values + value_ids.reshape(-1), n_groups * n_values)
        self.multiplicities = np.bincount(pair_of_value, minlength=keys.size).astype(np.float64)
        self.pair_owners, self.value_ids = keys // n_values, keys % n_values
        self.pair_values = self.distinct_values[self.value_ids][:, None]
        sums = self.pair_owners if sum_of_group is None else np.asarray(sum_of_group)[self.pair_owners]
        self.n_sums = n_groups if sum_of_group is None else int(np.max(sum_of_group, initial=-1)) + 1
        # The pairs are sorted by group, so by output row: row i's are indptr[i]:indptr[i + 1].
        self.indptr = np.searchsorted(sums, np.arange(self.n_sums + 1))
        self.share_offsets = share_offsets

    @classmethod
    def of_groups(cls, groups: Sequence[np.ndarray]) -> _LogRisingFactorialSums:
        """From each group's values, one array per group."""
        owners = np.repeat(np.arange(len(groups)), [group.size for group in groups])
        return cls(np.concatenate(groups), owners, len(groups))

    def __call__(self, offsets: np.ndarray) -> np.ndarray:
        """The sums at ``offsets`` (groups, points), row ``g`` the offsets of group ``g``."""
        if not self.share_offsets:  # every pair is distinct already
            # Each term differenced as the formula is written (the rounding of a term, not of a sum).
            terms = gammaln(offsets[self.pair_owners] + self.pair_values)
            terms -= gammaln(offsets)[self.pair_owners]
            return self._weighted_sums(terms, None)
        rows, row_of = _distinct_rows(offsets)
        n_values = self.distinct_values.size
        keys, pair_keys = _distinct_keys(row_of[self.pair_owners] * n_values + self.value_ids, rows.shape[0] * n_values)
        key_rows = keys // n_values
        terms = gammaln(rows[key_rows] + self.distinct_values[keys % n_values][:, None])
        terms -= gammaln(rows)[key_rows]
        return self._weighted_sums(terms, pair_keys)

    def _weighted_sums(self, terms, pair_terms):
        """Each output row's ``sum m * terms[pair_terms]`` over its pairs (`pair_terms` None: pair i's is row i)."""
        if self.multiplicities.size * terms.shape[1] < SPARSE_SUM_CELLS:
            weighted = terms if pair_terms is None else np.take(terms, pair_terms, axis=0)
            weighted *= self.multiplicities[:, None]
            return np.add.reduceat(weighted, self.indptr[:-1], axis=0)
        if pair_terms is None:
            pair_terms = np.arange(terms.shape[0])
        shape = (self.n_sums, terms.shape[0])
        return self._csr_matrix((self.multiplicities, pair_terms, self.indptr), shape=shape) @ terms


#: Weighted terms (pairs x points) from which a sparse product sums them: below, ``reduceat`` is
#: cheaper than building the matrix; above, its strided sums cost several times the product.
SPARSE_SUM_CELLS = 32_768


def _distinct_keys(keys, bound):
    """``np.unique(keys, return_inverse=True)`` of non-negative integers below `bound`; by marking when it is small."""
    if bound > max(8 * keys.size, 1 << 16):
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.reshape(-1)
    seen = np.zeros(bound, dtype=bool)
    seen[keys] = True
    return np.flatnonzero(seen), (np.cumsum(seen) - 1)[keys]


def _distinct_rows(array):
    """``(rows, row_of)``: distinct rows of a 2-D array with ``array == rows[row_of]``.

    Rows are sorted by three of their columns and runs of exactly equal
    neighbours merged: cheaper than ``np.unique(axis=0)``, and exact, since
    equal rows that the sort does not bring together merely stay apart.
    """
    if array.shape[0] == 0:
        return array, np.zeros(0, dtype=np.int64)
    order = np.lexsort((array[:, -1], array[:, array.shape[1] // 2], array[:, 0]))
    ordered = array[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    row_of = np.empty(len(order), dtype=np.int64)
    row_of[order] = np.cumsum(new) - 1
    return ordered[new], row_of


#: Cells of the small tables :meth:`Estimator.conditionals` normalizes together (a larger table alone).
CONDITIONALS_BATCH_CELLS = 65_536


def _normalized_joint(counts, pseudo_counts):
    """``(counts + pseudo_counts) / total``; uniform when the total is 0."""
    smoothed = counts + pseudo_counts
    total = smoothed.sum()
    if total <= 0:
        return np.full(counts.shape, 1.0 / max(counts.size, 1))
    return smoothed / total


def _normalized_along_child(smoothed):
    """Each slice along the last axis divided by its sum; uniform where the sum is 0."""
    totals = smoothed.sum(axis=-1, keepdims=True)
    if totals.size and totals.min() > 0:
        # Every configuration has mass (always, with positive pseudo-counts): one division, not
        # the masked one below, which costs five passes over a table of millions of cells.
        return smoothed / totals
    return _divided_or_uniform(smoothed, totals, 1.0 / smoothed.shape[-1])


def _divided_or_uniform(values, totals, uniform):
    """``values / totals``, and `uniform` where a total is 0 (a parent configuration without mass).

    `values` has the shape of the result; `totals` and `uniform` broadcast to it.
    """
    if np.size(totals) and np.min(totals) > 0:  # every configuration has mass: one pass, not five
        return values / totals
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, values / np.where(totals > 0, totals, 1.0), uniform)


#: Non-empty cells searched in one batch. A pass holds a few (distinct pairs x 41 grid points) float64
#: arrays at once: at most ~50 MiB at this size (every count distinct), about what one table of as
#: many cells needs searched alone. Larger batches share more gammaln values between tables of one
#: shape: 65,536 fitted AODE on splice ~15% faster than 16,384.
SEARCH_BATCH_CELLS = 65_536


def batches_of_cells(
    items: Sequence[int], cells: Sequence[int], limit: int = SEARCH_BATCH_CELLS
) -> Iterator[list[int]]:
    """`items` in consecutive batches of at most `limit` cells (a larger item alone), for batched searches."""
    batch: list[int] = []
    total = 0
    for item, size in zip(items, cells):
        if batch and total + size > limit:
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += size
    if batch:
        yield batch


def search_each(terms: dict[int, Any], n: int, scorer: Callable, n_cells: Callable, low: float, high: float):
    """The maximiser on ``[low, high]`` of each table's score, tables searched together in batches.

    `terms` maps a table's position among `n` to what `scorer` reads of it
    (a list of them makes one ``grids -> scores`` function); `n_cells` gives
    each one's size for :func:`batches_of_cells`. A position without terms
    (a table without counts) gets `low`.
    """
    values = np.full(n, float(low))
    items = list(terms)
    for batch in batches_of_cells(items, [n_cells(terms[i]) for i in items]):
        values[batch] = maximise_on_log_grids(scorer([terms[i] for i in batch]), low, high, len(batch))
    return values


def segment_starts(sizes):
    """The first index of each of consecutive non-empty segments of these sizes."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


class EmpiricalBayesBDeu(Estimator):
    """BDeu whose equivalent sample size maximises each table's marginal likelihood.

    Empirical Bayes (type-II maximum likelihood) [1]_: for every table it is
    given, the estimator picks the equivalent sample size ``ess`` in
    ``[min_equivalent_sample_size, max_equivalent_sample_size]`` that
    maximises :func:`bdeu_log_marginal_likelihood` (the BDeu family score
    [2]_ of :meth:`conditional`'s table, or of the whole table for
    :meth:`joint`), then estimates as ``BDeu(ess)`` does. Tables whose child
    barely depends on the parents get a large ``ess`` (strong smoothing);
    tables with sharp, well-supported conditionals a small one. The search
    costs three vectorized passes of ``gammaln`` over the distinct non-zero
    counts (of tables searched together, those of one shape share them): 21
    log-spaced values over the range, then 11 between the neighbours of the
    best, and 11 again around the new best (:func:`maximise_on_log_grid`:
    the last grid's step is a factor ``1.0125`` over the default range).

    Parameters
    ----------
    min_equivalent_sample_size : float, default=2.0
        Smallest ``ess`` considered; must be > 0. A table whose marginal
        likelihood peaks below it (sharp, sparse counts) would get nearly
        empirical, overconfident probabilities: the floor 2 had lower
        cross-validated log-loss than 0.1 and 1 for TAN, AODE and the Chow-Liu
        classifier and tied for NB and KDB
        (``benchmarks/bench_defaults_structure.py --family bdeu-auto-floor``).
    max_equivalent_sample_size : float, default=1000.0
        Largest ``ess`` considered; must be >= `min_equivalent_sample_size`.

    See Also
    --------
    BDeu : a fixed equivalent sample size.
    bdeu_log_marginal_likelihood : the score maximised.

    Notes
    -----
    A table without counts gets the uniform distribution (any ``ess`` gives
    it). Unlike a fixed :class:`BDeu`, the tables of one model do not share
    one ``ess``, so Markov-equivalent structures need not get equal scores:
    use it for parameters, not as a structure score.

    References
    ----------
    .. [1] MacKay, D. J. C. (1992). Bayesian interpolation. *Neural
           Computation*, 4(3), 415-447.
    .. [2] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical data.
           *Machine Learning*, 20(3), 197-243.

    Examples
    --------
    A child that ignores its parent gets a large sample size, one that copies
    it the smallest allowed:

    >>> estimator = EmpiricalBayesBDeu()
    >>> estimator.select_equivalent_sample_size([[50, 50], [50, 50]]) > 100
    True
    >>> estimator.select_equivalent_sample_size([[100, 0], [0, 100]])
    2.0
    >>> EmpiricalBayesBDeu(0.1).select_equivalent_sample_size([[100, 0], [0, 100]]) < 1
    True
    """

    name = "bdeu-auto"

    def __init__(self, min_equivalent_sample_size: float = 2.0, max_equivalent_sample_size: float = 1000.0) -> None:
        self.min_equivalent_sample_size, self.max_equivalent_sample_size = _positive_range(
            min_equivalent_sample_size, max_equivalent_sample_size, "equivalent_sample_size"
        )

    def select_equivalent_sample_size(self, counts: ArrayLike, *, conditional: bool = True) -> float:
        """The equivalent sample size this estimator uses for a table.

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
        conditional : bool, default=True
            The table of :meth:`conditional` (child on the last axis) or of
            :meth:`joint` (one multinomial).

        Returns
        -------
        float
            The maximiser of :func:`bdeu_log_marginal_likelihood` over the
            search grid; for a table without counts, the smallest value.
        """
        return float(self._select([_check_counts(counts)], conditional)[0])

    def _select(self, tables, conditional):
        """Each (checked) table's equivalent sample size, all searched together."""
        every = _BDeuTerms.of_tables(tables, conditional)
        terms = {i: table_terms for i, table_terms in enumerate(every) if table_terms.cells.size}  # with counts
        low, high = self.min_equivalent_sample_size, self.max_equivalent_sample_size
        return search_each(terms, len(tables), _bdeu_scores_on_grids, lambda t: t.cells.size, low, high)

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        """The pseudo-counts of ``BDeu(ess)`` with this table's ``ess``.

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)
        conditional : bool, default=True
            Select ``ess`` for :meth:`conditional`'s table or for :meth:`joint`'s.

        Returns
        -------
        ndarray of the shape of `counts`
        """
        return self.pseudo_counts_of_tables([counts], conditional=conditional)[0]

    def pseudo_counts_of_tables(self, tables: Sequence[ArrayLike], *, conditional: bool = True) -> list[np.ndarray]:
        checked = _check_tables(tables)
        sizes = self._select(checked, conditional)
        # BDeu(ess)'s pseudo-counts, without building one estimator (and checking its table again) per table.
        return [np.full(table.shape, _bdeu_pseudo_count(float(ess), table.size)) for table, ess in zip(checked, sizes)]

    def _params(self) -> dict[str, Any]:
        return {
            "min_equivalent_sample_size": self.min_equivalent_sample_size,
            "max_equivalent_sample_size": self.max_equivalent_sample_size,
        }


def maximise_on_log_grid(score: Callable[[np.ndarray], np.ndarray], low: float, high: float) -> float:
    """The maximiser of a vectorized score over ``[low, high]``, on a refined log grid.

    Three vectorized passes (:data:`SEARCH_PASSES`): 21 log-spaced values over
    the range, then 11 between the neighbours of the best, and 11 again around
    the new best: the last grid's step is a factor ``(high / low) ** (1 / 500)``
    (1.0125 over ``[2, 1000]``, 1.023 over ``[1, 1e5]``). The hyperparameter
    searches of :class:`EmpiricalBayesBDeu` and
    :class:`~graphmodels.estimators.HierarchicalDirichlet` use its many-task
    form, :func:`maximise_on_log_grids`.

    Parameters
    ----------
    score : callable
        Takes a 1-D array of candidate values, returns their scores (same shape).
    low, high : float
        The range, ``0 < low <= high``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> value = maximise_on_log_grid(lambda x: -np.log(x / 7.0) ** 2, 0.1, 1000.0)
    >>> bool(abs(value / 7.0 - 1) < 0.01)
    True
    """
    return float(maximise_on_log_grids(lambda grids: score(grids[0])[None], low, high, 1)[0])


def maximise_on_log_grids(
    score: Callable[[np.ndarray], np.ndarray], low: float, high: float, n_tasks: int
) -> np.ndarray:
    """:func:`maximise_on_log_grid` for many independent tasks, every pass one call of `score`.

    Parameters
    ----------
    score : callable
        Takes an array of shape (n_tasks, n_points), row ``t`` the values to try
        for task ``t``; returns their scores (same shape).
    low, high : float
        The range of every task, ``0 < low <= high``.
    n_tasks : int

    Returns
    -------
    ndarray of shape (n_tasks,)
        Each task's maximiser on its refined grid (ties: the smallest value).

    Examples
    --------
    >>> import numpy as np
    >>> targets = np.array([[2.0], [50.0]])
    >>> values = maximise_on_log_grids(lambda x: -np.log(x / targets) ** 2, 0.1, 1000.0, 2)
    >>> bool(np.all(np.abs(values / targets[:, 0] - 1) < 0.01))
    True
    """
    values = np.full(n_tasks, float(low))
    if low == high or n_tasks == 0:
        return values
    rows = np.arange(n_tasks)
    first, *refinements = SEARCH_PASSES
    grids = _log_grids(values, np.full(n_tasks, float(high)), first)
    for n in [*refinements, None]:
        best = np.argmax(score(grids), axis=1)
        values = grids[rows, best]
        if n is None:
            break
        last = grids.shape[1] - 1
        grids = _log_grids(grids[rows, np.maximum(best - 1, 0)], grids[rows, np.minimum(best + 1, last)], n)
    return values


#: The points of each pass of :func:`maximise_on_log_grids`: the whole range, then between the best
#: point's neighbours, twice. The searches are most of the empirical-Bayes and hierarchical priors'
#: fits; against (41, 21, 21) -- a last step of a factor 1.0016 over [2, 1000] -- these took 0.92x
#: BNClassifier's CPU on the seven shared sets below 200 rows and 0.97x on six from 1,382 rows, with the
#: same choices in 64 of their 65 outer folds (lenses: one other, 0.450 -> 0.435 nats; RESULTS
#: ``bnclassifier-settings``).
SEARCH_PASSES = (21, 11, 11)

# The searches run thousands of times per fit: the exponents are worked out once.
_LOG_GRID_STEPS = {n: np.linspace(0.0, 1.0, n) for n in set(SEARCH_PASSES)}


def _log_grids(lows: np.ndarray, highs: np.ndarray, n: int) -> np.ndarray:
    """Row ``t``: ``n`` log-spaced values from ``lows[t]`` to ``highs[t]``, both included (``np.geomspace``, cheaper)."""
    steps = _LOG_GRID_STEPS.get(n)
    if steps is None:  # another SEARCH_PASSES (a study setting it): worked out once too
        steps = _LOG_GRID_STEPS[n] = np.linspace(0.0, 1.0, n)
    grids = lows[:, None] * (highs / lows)[:, None] ** steps
    grids[:, -1] = highs
    return grids


#: Estimators by name, for ``estimator="..."`` arguments.
ESTIMATORS: dict[str, Callable[..., Estimator]] = {
    "mle": MaximumLikelihood,
    "dirichlet": Dirichlet,
    "laplace": lambda: Dirichlet(1.0),
    "bdeu": BDeu,
    "liang-srebro": lambda: Dirichlet(LIANG_SREBRO_PSEUDO_COUNT),
    "marginal-smoothing": MarginalSmoothing,
    "bdeu-auto": EmpiricalBayesBDeu,
}


#: ``"name(x)"``: an estimator of one number, such as ``"bdeu(4)"`` or ``"marginal-smoothing(10)"``.
_CALL = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)\(\s*([^()]*?)\s*\)")
_ONE_NUMBER: dict[str, Callable[[float], Estimator]] = {
    "dirichlet": lambda x: Dirichlet(x),
    "bdeu": lambda x: BDeu(x),
    "marginal-smoothing": lambda x: MarginalSmoothing(x),
}


def get_estimator(estimator: Estimator | str | dict[str, Any]) -> Estimator:
    """Resolve an estimator given as an instance, a name or a description dict.

    Parameters
    ----------
    estimator : Estimator, str or dict
        A name from :data:`ESTIMATORS` (``"mle"``, ``"dirichlet"``,
        ``"laplace"``, ``"bdeu"``, ``"liang-srebro"``,
        ``"marginal-smoothing"``, ``"bdeu-auto"``, ``"hierarchical"``), a name with its one
        number (``"dirichlet(0.5)"``, ``"bdeu(4)"``,
        ``"marginal-smoothing(10)"``), or a :meth:`Estimator.to_dict` output.

    Returns
    -------
    Estimator

    Raises
    ------
    ValueError
        For an unknown name, listing the valid ones.
    """
    if isinstance(estimator, Estimator):
        return estimator
    if isinstance(estimator, dict):
        params = dict(estimator)
        name = params.pop("name", None)
        factory = ESTIMATORS.get(name)
        if factory is None or name in ("laplace", "liang-srebro"):
            factory = {"mle": MaximumLikelihood, "dirichlet": Dirichlet, "bdeu": BDeu}.get(name)
        if factory is None:
            raise ValueError(f"Unknown estimator {name!r}; valid names: {sorted(ESTIMATORS)}.")
        return factory(**params)
    if isinstance(estimator, str):
        call = _CALL.fullmatch(estimator.strip())
        name = (call.group(1) if call else estimator).lower()
        factory = ESTIMATORS.get(name)
        if factory is None:
            raise ValueError(f"Unknown estimator {estimator!r}; valid names: {sorted(ESTIMATORS)}.")
        if call is None:
            return factory()
        if name not in _ONE_NUMBER:
            raise ValueError(
                f"Estimator {name!r} takes no value in parentheses, got {estimator!r}; "
                f"these do: {', '.join(f'{n}(x)' for n in sorted(_ONE_NUMBER))}."
            )
        try:
            value = float(call.group(2))
        except ValueError:
            raise ValueError(f"Estimator {estimator!r}: {call.group(2)!r} is not a number.") from None
        return _ONE_NUMBER[name](value)
    raise TypeError(f"`estimator` must be an Estimator, a name or a dict, got {type(estimator).__name__}.")


def _as_float(value, name):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number, got {value!r}.") from None


def _positive_number(value, name):
    """`value` as a float that is finite and > 0, else a ValueError naming `name`."""
    number = _as_float(value, name)
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"`{name}` must be a finite number > 0, got {number}.")
    return number


def _positive_range(low, high, name):
    """``(min_<name>, max_<name>)`` as floats with ``0 < low <= high`` finite, else a ValueError naming them."""
    low = _positive_number(low, f"min_{name}")
    high = _as_float(high, f"max_{name}")
    if not np.isfinite(high) or high < low:
        raise ValueError(f"`max_{name}` must be a finite number >= min_{name} ({low}), got {high}.")
    return low, high


def _count_arrays(tables: Sequence[ArrayLike]) -> list[np.ndarray]:
    """Each table as a float64 array, refused if it has no axis (its values are not read)."""
    arrays = [np.asarray(table, dtype=np.float64) for table in tables]
    if any(table.ndim == 0 for table in arrays):
        raise ValueError("A count table needs at least one axis.")
    return arrays


def _check_tables(tables: Sequence[ArrayLike]) -> list[np.ndarray]:
    """:func:`_check_counts` of many tables: small ones checked together, in one pass over their cells."""
    checked = _count_arrays(tables)
    for batch in batches_of_cells(range(len(checked)), [t.size for t in checked], limit=CONDITIONALS_BATCH_CELLS):
        _check_counts(np.concatenate([checked[i].reshape(-1) for i in batch]) if len(batch) > 1 else checked[batch[0]])
    return checked


def _check_counts(counts: ArrayLike) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim == 0:
        raise ValueError("A count table needs at least one axis.")
    # One reduction each: a NaN or an infinity makes the sum non-finite.
    if counts.size and (counts.min() < 0 or not np.isfinite(counts.sum())):
        raise ValueError("Counts must be finite and non-negative.")
    return counts
