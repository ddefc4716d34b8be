"""Conditional independence tests of discrete variables from contingency tables.

A test of ``X _||_ Y | Z`` reads the table ``N[z, x, y]`` (the strata ``z`` are the joint
configurations of the conditioning variables; none: one stratum) and compares it with the
table expected under independence within each stratum, ``E[z, x, y] = N[z, x] N[z, y] / N[z]``:

* ``"g2"``, the likelihood-ratio statistic ``G2 = 2 sum N log(N / E)``;
* ``"chi2"``, Pearson's ``X2 = sum (N - E)^2 / E`` over the cells with ``E > 0``;
* ``"mi"``, the conditional mutual information ``I(X; Y | Z) = G2 / (2 N)`` in nats, the
  statistic of R bnlearn's ``"mi"`` test: its p-value is G2's.

The p-value is the upper tail of the chi-squared distribution with the degrees of freedom
``sum_z (r_x - 1)(r_y - 1)``, or, by default, adjusted for empty cells as R bnlearn's
``"mi-adf"`` and ``"x2-adf"`` tests (Edwards 2000): in each stratum only the states of X and of
Y that occur count, ``sum_z (nonzero x_z - 1)(nonzero y_z - 1)``, so that strata and states
the data never show add no degrees of freedom. A test left with no degree of freedom accepts
independence (p-value 1).

Tables are batched: a table of shape (..., n_strata, r_x, r_y) gives one test per leading index,
so that a learner tests many pairs with the tables of one pass of the counting engine
(:meth:`~graphmodels.stats.CountingEngine.one_way_counts` given a conditioning set).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._special import xlogy

__all__ = ["CI_TESTS", "IndependenceTest", "independence_test", "independence_test_counts"]

#: The conditional independence tests, by name.
CI_TESTS = ("g2", "chi2", "mi")


@dataclass(frozen=True)
class IndependenceTest:
    """The result of a conditional independence test (arrays for a batch of tables).

    Attributes
    ----------
    statistic : float or ndarray
        G2, X2 or the conditional mutual information (nats), per `test`.
    df : float or ndarray
        Degrees of freedom of the chi-squared reference distribution.
    p_value : float or ndarray
        Upper tail of that distribution at the chi-squared statistic (G2 for ``"mi"``).
    test : str
    """

    statistic: float | np.ndarray
    df: float | np.ndarray
    p_value: float | np.ndarray
    test: str


def _check_test(test: object) -> str:
    if test not in CI_TESTS:
        raise ValueError(f"`test` must be one of {list(CI_TESTS)}, got {test!r}.")
    return str(test)


def independence_test_counts(counts: ArrayLike, test: str = "g2", *, adjusted_df: bool = True) -> IndependenceTest:
    """Test ``X _||_ Y | Z`` from the table ``N[..., z, x, y]``.

    Parameters
    ----------
    counts : array_like of shape (..., n_strata, r_x, r_y) or (r_x, r_y)
        Non-negative counts; a 2-d table is one stratum (a marginal test). Leading axes are
        a batch of independent tests.
    test : {"g2", "chi2", "mi"}, default="g2"
    adjusted_df : bool, default=True
        Degrees of freedom from the states each stratum shows (R bnlearn's ``"mi-adf"``);
        False: ``n_strata (r_x - 1)(r_y - 1)``.

    Returns
    -------
    IndependenceTest
        Floats for one table, arrays of the batch shape otherwise.

    Raises
    ------
    ValueError
        For an unknown `test`, or counts that are negative, not finite or of fewer than two axes.

    References
    ----------
    .. [1] Edwards, D. (2000). *Introduction to Graphical Modelling* (2nd ed.). Springer.
    .. [2] Scutari, M. (2010). Learning Bayesian networks with the bnlearn R package.
           *Journal of Statistical Software*, 35(3), 1-22.

    Examples
    --------
    >>> result = independence_test_counts([[10, 0], [0, 10]])
    >>> round(float(result.statistic), 4), float(result.df)  # G2 = 2 * 20 * log 2
    (27.7259, 1.0)
    >>> float(independence_test_counts([[5, 5], [5, 5]]).p_value)
    1.0
    """
    test = _check_test(test)
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim < 2:
        raise ValueError(
            f"A test needs a table with the states of X and Y on its last two axes, got shape {table.shape}."
        )
    if np.any(table < 0) or not np.all(np.isfinite(table)):
        raise ValueError("Counts must be finite and non-negative.")
    if table.ndim == 2:
        table = table[None]
    row = table.sum(axis=-1, keepdims=True)  # N[z, x]
    column = table.sum(axis=-2, keepdims=True)  # N[z, y]
    total = row.sum(axis=-2, keepdims=True)  # N[z]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(total > 0, row * column / np.where(total > 0, total, 1.0), 0.0)
    if test == "chi2":
        with np.errstate(divide="ignore", invalid="ignore"):
            cells = np.where(expected > 0, (table - expected) ** 2 / np.where(expected > 0, expected, 1.0), 0.0)
        statistic = cells.sum(axis=(-3, -2, -1))
        chi = statistic
    else:
        # 2 sum N log(N N_z / (N_zx N_zy)), from xlogy so that empty cells add nothing.
        g2 = 2.0 * (
            np.sum(xlogy(table, table), axis=(-3, -2, -1))
            + np.sum(xlogy(total[..., 0, 0], total[..., 0, 0]), axis=-1)
            - np.sum(xlogy(row, row), axis=(-3, -2, -1))
            - np.sum(xlogy(column, column), axis=(-3, -2, -1))
        )
        chi = np.maximum(g2, 0.0)  # rounding can leave -1e-13 for independent tables
        n = table.sum(axis=(-3, -2, -1))
        statistic = chi if test == "g2" else np.where(n > 0, chi / (2.0 * np.where(n > 0, n, 1.0)), 0.0)
    if adjusted_df:
        rows_seen = np.maximum((row[..., 0] > 0).sum(axis=-1) - 1, 0)
        columns_seen = np.maximum((column[..., 0, :] > 0).sum(axis=-1) - 1, 0)
        df = (rows_seen * columns_seen).sum(axis=-1).astype(np.float64)
    else:
        r_x, r_y = table.shape[-2], table.shape[-1]
        df = np.full(table.shape[:-3], float(table.shape[-3] * (r_x - 1) * (r_y - 1)))
    from scipy.stats import chi2

    with np.errstate(invalid="ignore"):
        p_value = np.where(df > 0, chi2.sf(chi, np.maximum(df, 1.0)), 1.0)
    if np.ndim(statistic) == 0:
        return IndependenceTest(float(statistic), float(df), float(p_value), test)
    return IndependenceTest(np.asarray(statistic), np.asarray(df), np.asarray(p_value), test)


def independence_test(data, x, y, given=(), *, test: str = "g2", adjusted_df: bool = True) -> IndependenceTest:
    """Test ``x _||_ y | given`` on the rows of a counting engine or a DataFrame.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    x, y : variable name or position
    given : sequence of names or positions, default=()
        The conditioning variables.
    test : {"g2", "chi2", "mi"}, default="g2"
    adjusted_df : bool, default=True
        See :func:`independence_test_counts`.

    Returns
    -------
    IndependenceTest

    Raises
    ------
    ValueError
        For an unknown `test`, or a variable that is both tested and given.

    See Also
    --------
    independence_test_counts : the test of a given table.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 1] * 50, "b": [0, 1] * 50, "c": [0, 0, 1, 1] * 25})
    >>> independence_test(frame, "a", "b").p_value < 1e-6, independence_test(frame, "a", "c").p_value
    (True, 1.0)
    """
    from .information import as_engine

    _check_test(test)
    engine = as_engine(data)
    given = [given] if isinstance(given, (str, bytes)) or not np.iterable(given) else list(given)
    positions = engine.positions([x, y, *given])
    if len(set(positions)) != len(positions):
        raise ValueError(f"`x`, `y` and `given` must be distinct variables, got {x!r}, {y!r} and {given!r}.")
    table = np.asarray(engine.counts([engine.names[p] for p in positions]))
    r_x, r_y = table.shape[0], table.shape[1]
    # (x, y, z...) -> (z, x, y)
    table = np.moveaxis(table.reshape(r_x, r_y, -1), -1, 0)
    return independence_test_counts(table, test, adjusted_df=adjusted_df)
