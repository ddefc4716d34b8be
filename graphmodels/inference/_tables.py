"""Scaled tables: the arithmetic every exact method of the inference layer shares.

A *scaled table* is a pair ``(values, log_scale)``: non-negative ``values`` in probability
space, of shape ``(*batch, *cards)`` where ``batch`` is ``()`` (one question) or ``(n,)`` (one
question per row of a batch), and ``log_scale`` of shape ``batch``; the table it stands for is
``values * exp(log_scale)``. Working in probability space makes a product one multiplication
and a sum-out one ``einsum`` (ten times cheaper than ``logsumexp`` in log space), and
renormalising after every step keeps the values away from underflow: the scale carries the
magnitude exactly, in log space.

Tables are indexed by variable positions; the scope of a table is a tuple of positions (its
axes after the batch axes, in order). Einsum labels are positions relabelled to ``0 .. k-1``
per call, so any number of variables can be used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["combine", "normalize", "from_log", "to_log"]

Scope = tuple[int, ...]


def _labels(scopes: Sequence[Scope], out: Scope) -> tuple[dict[int, int], list[list[int]], list[int]]:
    mapping: dict[int, int] = {}
    for scope in (*scopes, out):
        for v in scope:
            if v not in mapping:
                mapping[v] = len(mapping)
    return mapping, [[mapping[v] for v in scope] for scope in scopes], [mapping[v] for v in out]


def combine(
    operands: Sequence[tuple[np.ndarray, Scope]],
    out: Scope,
    *,
    batched: Sequence[bool] | None = None,
) -> np.ndarray:
    """Multiply `operands` and sum out every variable not in `out`, by one ``einsum``.

    Parameters
    ----------
    operands : sequence of (ndarray, scope)
        Each array has shape ``(*batch, *cards of scope)``; the batch part may be absent
        (a table shared by all rows).
    out : tuple of int
        The variables kept, in this order.
    batched : sequence of bool, optional
        Whether each operand has the leading batch axis (default: all do).

    Returns
    -------
    ndarray of shape ``(*batch, *cards of out)``
    """
    if batched is None:
        batched = [True] * len(operands)
    _, scopes, kept = _labels([scope for _, scope in operands], out)
    args: list = []
    for (array, _), labels, has_batch in zip(operands, scopes, batched):
        args.append(array)
        args.append([Ellipsis, *labels] if has_batch else labels)
    args.append([Ellipsis, *kept])
    return np.einsum(*args)


def normalize(values: np.ndarray, n_axes: int) -> tuple[np.ndarray, np.ndarray]:
    """Divide `values` by its sum over the last `n_axes` axes; the values and the log of the sums.

    A batch row whose sum is 0 (evidence of probability zero) keeps its zeros and gets a log
    sum of ``-inf``.
    """
    if values.ndim == n_axes:  # one question: scalars, no masks
        total = float(values.sum())
        if total > 0:
            return values / total, np.float64(math.log(total))
        return values, np.float64(-np.inf)
    axes = tuple(range(values.ndim - n_axes, values.ndim))
    total = values.sum(axis=axes) if axes else values.copy()
    positive = total > 0
    safe = np.where(positive, total, 1.0)
    scaled = values / (safe.reshape(safe.shape + (1,) * n_axes) if np.ndim(safe) else safe)
    with np.errstate(divide="ignore"):
        return scaled, np.log(total)


def from_log(log_values: np.ndarray, n_axes: int) -> tuple[np.ndarray, np.ndarray]:
    """Log values to a scaled table: ``exp(log_values - max)`` and the max (per batch row)."""
    log_values = np.asarray(log_values, dtype=np.float64)
    axes = tuple(range(log_values.ndim - n_axes, log_values.ndim))
    top = (
        log_values.max(axis=axes)
        if axes and log_values.size
        else np.zeros(log_values.shape[: log_values.ndim - n_axes])
    )
    top = np.where(np.isfinite(top), top, 0.0)
    shift = top.reshape(top.shape + (1,) * n_axes) if np.ndim(top) else top
    with np.errstate(under="ignore"):
        return np.exp(log_values - shift), np.asarray(top, dtype=np.float64)


def to_log(values: np.ndarray, log_scale: np.ndarray, n_axes: int) -> np.ndarray:
    """A scaled table back to log values (``-inf`` for zeros)."""
    scale = np.asarray(log_scale)
    with np.errstate(divide="ignore"):
        return np.log(values) + (scale.reshape(scale.shape + (1,) * n_axes) if scale.ndim else scale)
