"""Checking frequency weights (``sample_weight``), once for every consumer.

The counting engine, the discretizers and the metrics all take non-negative frequency weights
(a row of weight 2 counts twice); they check them here, so that a bad weight gets the same
message wherever it arrives.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["check_sample_weight"]


def check_sample_weight(sample_weight: ArrayLike, n_rows: int, *, positive_total: bool = False) -> np.ndarray:
    """`sample_weight` as float64 of shape (n_rows,); else an error saying what arrived.

    Parameters
    ----------
    sample_weight : array-like of shape (n_rows,)
        Non-negative, finite frequency weights.
    n_rows : int
        The number of rows the weights belong to.
    positive_total : bool, default=False
        Also refuse weights that sum to zero.

    Returns
    -------
    ndarray of shape (n_rows,), float64

    Raises
    ------
    TypeError
        For weights that are not numbers.
    ValueError
        For the wrong shape, a negative, NaN or infinite weight (its row is named), or
        (with `positive_total`) weights that sum to zero.

    Examples
    --------
    >>> check_sample_weight([1, 2], 2).tolist()
    [1.0, 2.0]
    >>> check_sample_weight([1, -1], 2)
    Traceback (most recent call last):
    ...
    ValueError: `sample_weight` must be finite and non-negative, got -1.0 at row 1 (1 such weight(s)).
    """
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"`sample_weight` must be numbers, one weight per row: {error}.") from None
    if weights.shape != (n_rows,):
        raise ValueError(
            f"`sample_weight` must have shape ({n_rows},), one weight per row of `X`, got {weights.shape}."
        )
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"`sample_weight` must be finite and non-negative, got {float(weights[first])} at row {first} "
            f"({int(bad.sum())} such weight(s))."
        )
    if positive_total and weights.sum() <= 0:
        raise ValueError("`sample_weight` sums to 0; at least one row needs a positive weight.")
    return weights
