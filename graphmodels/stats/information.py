"""Information measures computed from the counting engine's tables.

All measures are plug-in (maximum-likelihood) estimates from (weighted)
counts, in nats by default; pass ``base=2`` for bits. Every function takes a
:class:`~graphmodels.stats.CountingEngine` or a DataFrame (which is encoded
and counted on the spot, missing cells as a state).

References
----------
.. [1] Cover, T. M., & Thomas, J. A. (2006). *Elements of Information
       Theory* (2nd ed.). Wiley. Chapter 2.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._special import xlogy
from .counting import CountingEngine

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "entropy",
    "entropy_of_counts",
    "mutual_information",
    "conditional_mutual_information",
    "pairwise_mutual_information",
    "as_engine",
]


def as_engine(data: CountingEngine | pd.DataFrame) -> CountingEngine:
    """Return `data` as a :class:`CountingEngine` (a DataFrame is encoded first)."""
    if isinstance(data, CountingEngine):
        return data
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return CountingEngine.from_frame(data)
    raise TypeError(f"Expected a CountingEngine or a pandas DataFrame, got {type(data).__name__}.")


def _log_base(base):
    if base is None:
        return 1.0
    if base <= 0 or base == 1:
        raise ValueError(f"`base` must be positive and not 1, got {base}.")
    return float(np.log(base))


def entropy_of_counts(counts: ArrayLike, *, base: float | None = None) -> float:
    """Plug-in entropy of the distribution given by a table of counts.

    Parameters
    ----------
    counts : array-like
        Non-negative counts of any shape (all cells form one distribution).
    base : float, optional
        Logarithm base; natural log (nats) by default.

    Returns
    -------
    float
        ``log N - sum n log n / N``; 0 for an empty table.

    Examples
    --------
    >>> round(entropy_of_counts([1, 1, 2], base=2), 6)
    1.5
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    value = np.log(total) - xlogy(counts, counts).sum() / total
    return float(max(value, 0.0) / _log_base(base))


def _group(variables):
    if isinstance(variables, (str, bytes)) or not np.iterable(variables):
        return [variables]
    return list(variables)


def entropy(
    data: CountingEngine | pd.DataFrame, variables: Hashable | Sequence[Hashable], *, base: float | None = None
) -> float:
    """Joint entropy ``H(variables)``.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : name or sequence of names
    base : float, optional
        Logarithm base (natural log by default).

    Returns
    -------
    float

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> round(entropy(frame, ["a", "b"], base=2), 6)
    2.0
    """
    engine = as_engine(data)
    return entropy_of_counts(engine.counts(_group(variables)), base=base)


def mutual_information(
    data: CountingEngine | pd.DataFrame,
    x: Hashable | Sequence[Hashable],
    y: Hashable | Sequence[Hashable],
    *,
    base: float | None = None,
) -> float:
    """Mutual information ``I(X; Y) = H(X) + H(Y) - H(X, Y)``.

    `x` and `y` may each be one variable or a group of variables.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1]})
    >>> round(mutual_information(frame, "a", "b", base=2), 6)
    1.0
    """
    return conditional_mutual_information(data, x, y, [], base=base)


def conditional_mutual_information(
    data: CountingEngine | pd.DataFrame,
    x: Hashable | Sequence[Hashable],
    y: Hashable | Sequence[Hashable],
    z: Hashable | Sequence[Hashable],
    *,
    base: float | None = None,
) -> float:
    """Conditional mutual information ``I(X; Y | Z)``.

    Computed as ``H(X,Z) + H(Y,Z) - H(X,Y,Z) - H(Z)`` from one table over
    all the variables, so it is exactly zero when the table factorizes.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    x, y, z : name or sequence of names
        Disjoint groups of variables; `z` may be empty.
    base : float, optional

    Returns
    -------
    float
        Non-negative (tiny negative round-off is clipped to 0).

    Examples
    --------
    >>> import pandas as pd
    >>> # X = Y xor Z: independent pairwise, fully dependent given Z.
    >>> frame = pd.DataFrame({"y": [0, 0, 1, 1], "z": [0, 1, 0, 1]})
    >>> frame["x"] = frame["y"] ^ frame["z"]
    >>> round(mutual_information(frame, "x", "y", base=2), 6)
    0.0
    >>> round(conditional_mutual_information(frame, "x", "y", "z", base=2), 6)
    1.0
    """
    engine = as_engine(data)
    xs, ys, zs = _group(x), _group(y), _group(z)
    px, py, pz = engine.positions(xs), engine.positions(ys), engine.positions(zs)
    if set(px) & set(py) or set(px) & set(pz) or set(py) & set(pz):
        raise ValueError("The variable groups of a (conditional) mutual information must be disjoint.")
    table = engine.counts([engine.names[p] for p in px + py + pz])  # names: an integer name is not a position
    kx, ky = len(px), len(py)
    axes_x = tuple(range(kx))
    axes_y = tuple(range(kx, kx + ky))
    h_xyz = entropy_of_counts(table)
    h_xz = entropy_of_counts(table.sum(axis=axes_y))
    h_yz = entropy_of_counts(table.sum(axis=axes_x))
    h_z = entropy_of_counts(table.sum(axis=axes_x + axes_y))
    value = h_xz + h_yz - h_xyz - h_z
    return float(max(value, 0.0) / _log_base(base))


def pairwise_mutual_information(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    *,
    given: Hashable | Sequence[Hashable] | None = None,
    per_stratum: bool = False,
    base: float | None = None,
) -> np.ndarray:
    """Matrix of ``I(X_i; X_j)`` (or ``I(X_i; X_j | given)``) for all pairs at once.

    All pairwise tables come from one batch of one-hot products
    (:meth:`CountingEngine.pairwise_counts`); the sums run over whole block
    matrices, with no loop over pairs.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : sequence, optional
        Defaults to every variable except `given`.
    given : name or position, or a sequence of them, optional
        Conditioning variable, typically the class; several variables
        condition on their joint configurations.
    per_stratum : bool, default=False
        With `given`, return one matrix per state ``s`` of `given`, of
        ``I(X_i; X_j | given = s)`` (the information within the rows of that
        state, as a class-conditional Chow-Liu tree needs), instead of their
        average ``I(X_i; X_j | given)``.
    base : float, optional

    Returns
    -------
    ndarray of shape (n_variables, n_variables), or (n_states, n_variables, n_variables) per stratum
        Symmetric; the diagonal holds ``H(X_i)`` (``H(X_i | given)``), which
        is ``I(X_i; X_i)``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    >>> pairwise_mutual_information(frame, base=2).round(6).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    engine = as_engine(data)
    pairs = engine.pairwise_counts(variables, given=given)
    if engine.total <= 0:
        raise ValueError("Cannot compute mutual information from an empty table.")
    if per_stratum and given is None:
        raise ValueError("`per_stratum=True` needs a conditioning variable `given`.")
    if len(pairs.variables) == 0:
        return np.zeros((len(pairs.table), 0, 0) if per_stratum else (0, 0))
    joint = pairs.table  # (strata, K, K)
    starts = pairs.offsets[:-1]
    if not engine.has_unknown:
        return _pairwise_complete(pairs, per_stratum) / _log_base(base)
    block_of = np.repeat(np.arange(len(pairs.cardinalities)), pairs.cardinalities)
    # Marginals of each block's own table: rows with an unknown (-1) code drop
    # out of the blocks of that variable only, so block (i, j) can have fewer
    # rows than the diagonal counts of X_i; use the block's own sums, as the
    # scalar functions do on the table of (X_i, X_j, given).
    row_sums = np.add.reduceat(joint, starts, axis=2)  # (strata, K, p): n_a in block (i, j)
    col_sums = np.add.reduceat(joint, starts, axis=1)  # (strata, p, K): n_b in block (i, j)
    block_totals = np.add.reduceat(row_sums, starts, axis=1)  # (strata, p, p)
    # n_ab * log(n_ab * n_s / (n_a * n_b)), summed over the cells of each block.
    terms = xlogy(joint, joint)
    terms += xlogy(joint, block_totals[:, block_of][:, :, block_of])
    terms -= xlogy(joint, row_sums[:, :, block_of])
    terms -= xlogy(joint, col_sums[:, block_of, :])
    if per_stratum:
        # I(X_i; X_j | given = s) for each stratum s: each normalized by its own rows.
        blocks = np.add.reduceat(np.add.reduceat(terms, starts, axis=1), starts, axis=2)
        totals = block_totals
    else:
        summed = terms.sum(axis=0)
        blocks = np.add.reduceat(np.add.reduceat(summed, starts, axis=0), starts, axis=1)
        totals = block_totals.sum(axis=0)
    matrix = np.where(totals > 0, blocks / np.where(totals > 0, totals, 1.0), 0.0)
    matrix = np.maximum(matrix, 0.0)
    matrix = (matrix + np.swapaxes(matrix, -1, -2)) / 2
    return matrix / _log_base(base)


def _pairwise_complete(pairs, per_stratum):
    """Pairwise (conditional) MI when every row counts in every block.

    Then block (i, j) of a stratum sums to that stratum's total N_s and its
    margins are the diagonal counts, so
    ``N_s I_s(i; j) = sum n_ab log n_ab - sum n_a log n_a - sum n_b log n_b + N_s log N_s``:
    one ``xlogy`` over the block matrix instead of four.
    """
    joint = pairs.table
    starts = pairs.offsets[:-1]
    block_sums = np.add.reduceat(np.add.reduceat(xlogy(joint, joint), starts, axis=1), starts, axis=2)
    diagonal = np.diagonal(joint, axis1=1, axis2=2)  # (strata, K)
    state_terms = np.add.reduceat(xlogy(diagonal, diagonal), starts, axis=1)  # (strata, p)
    totals = diagonal[:, : pairs.offsets[1]].sum(axis=1)  # (strata,)
    scaled = block_sums - state_terms[:, :, None] - state_terms[:, None, :] + xlogy(totals, totals)[:, None, None]
    if per_stratum:
        matrix = scaled / np.where(totals > 0, totals, 1.0)[:, None, None]
    else:
        grand = totals.sum()
        matrix = scaled.sum(axis=0) / (grand if grand > 0 else 1.0)
    matrix = np.maximum(matrix, 0.0)
    return (matrix + np.swapaxes(matrix, -1, -2)) / 2
