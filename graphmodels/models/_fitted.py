"""Checks of a fitted model's state, for a model read from a file.

A fit computes its tables, so they are right by construction; a file can hold anything. After
:func:`~graphmodels.models.load_model` decodes a model it calls the model's
``_validate_fitted_state()``: each model family checks there what its prediction reads (every
table finite, its probabilities in [0, 1] and each distribution summing to 1, its shape the one
the encoder's levels, the classes and the parents give, every parent or position index in range
and every parent map acyclic), with the helpers of this module. Each raises
:class:`FittedStateError`, naming the entry (``log_tables_[2]``) and what is wrong; the loader
turns it into a :class:`~graphmodels.models.ModelFileError` naming the file.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from ..inference.likelihoods import topological_order

__all__ = [
    "TOLERANCE",
    "FittedStateError",
    "array",
    "block_distributions",
    "counts",
    "instance",
    "integers",
    "log_table",
    "parent_map",
    "positions",
    "same_labels",
    "sequence",
]

#: How far a probability may pass 1, and a distribution's sum differ from 1.
TOLERANCE = 1e-6

_KINDS = {"f": "floating-point numbers", "iu": "integers", "b": "booleans", "iuf": "numbers"}


class FittedStateError(ValueError):
    """A fitted attribute that a fit could not have made: its name (``entry``) and what is wrong."""

    def __init__(self, entry: str, problem: str) -> None:
        super().__init__(f"`{entry}` {problem}")
        self.entry = entry


def instance(entry: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """`value`, which must be an instance of `kind` (`what` names it in the message)."""
    if not isinstance(value, kind):
        raise FittedStateError(entry, f"must be {what}, got {type(value).__name__}.")
    return value


def sequence(entry: str, value: Any, length: int | None = None) -> list[Any] | tuple[Any, ...]:
    """`value`, which must be a list or tuple (of `length` items, when given)."""
    instance(entry, value, (list, tuple), "a list")
    if length is not None and len(value) != length:
        raise FittedStateError(entry, f"has {len(value)} items, but the model needs {length}.")
    return value


def array(entry: str, value: Any, *, kind: str = "f", shape: Sequence[int] | None = None, ndim: int | None = None):
    """`value`, which must be an ndarray of dtype kind in `kind`, of `shape` or `ndim` dimensions when given."""
    if not isinstance(value, np.ndarray):
        raise FittedStateError(entry, f"must be an array, got {type(value).__name__}.")
    if value.dtype.kind not in kind:
        raise FittedStateError(entry, f"must hold {_KINDS.get(kind, kind)}, got dtype {value.dtype}.")
    if shape is not None and value.shape != tuple(shape):
        raise FittedStateError(
            entry, f"has shape {value.shape}, but the model's classes, states and parents need {tuple(shape)}."
        )
    if ndim is not None and value.ndim != ndim:
        raise FittedStateError(entry, f"has {value.ndim} dimensions, but the model needs {ndim}.")
    return value


def integers(entry: str, value: Any, *, low: int, high: int, shape: Sequence[int] | None = None) -> np.ndarray:
    """`value`, an integer array whose items are all in ``low .. high - 1``."""
    value = array(entry, value, kind="iu", shape=shape)
    if value.size and (int(value.min()) < low or int(value.max()) >= high):
        bad = int(value.min()) if int(value.min()) < low else int(value.max())
        raise FittedStateError(entry, f"holds the index {bad}, outside {low}..{high - 1}.")
    return value


def positions(entry: str, value: Any, high: int, *, exclude: int | None = None) -> tuple[int, ...]:
    """`value`, a list or tuple of distinct integer positions in ``0 .. high - 1`` (not `exclude`)."""
    sequence(entry, value)
    items = []
    for item in value:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
            raise FittedStateError(entry, f"must hold integer positions, got {item!r}.")
        if not 0 <= item < high:
            raise FittedStateError(entry, f"holds the position {int(item)}, outside 0..{high - 1}.")
        items.append(int(item))
    if len(set(items)) != len(items):
        raise FittedStateError(entry, f"repeats a position: {items}.")
    if exclude is not None and exclude in items:
        raise FittedStateError(entry, f"makes variable {exclude} a parent of itself.")
    return tuple(items)


def parent_map(entry: str, value: Any, n_variables: int) -> np.ndarray:
    """`value`, the parent position of each of `n_variables` (-1 for a root), a forest without cycles."""
    parents = integers(entry, value, low=-1, high=n_variables, shape=(n_variables,))
    own = np.flatnonzero(parents == np.arange(n_variables))
    if own.size:
        raise FittedStateError(entry, f"makes variable {int(own[0])} its own parent.")
    try:
        topological_order(parents.tolist())
    except ValueError:
        raise FittedStateError(entry, "has a cycle: it is not a forest of parents.") from None
    return parents


def log_table(
    entry: str,
    value: Any,
    shape: Sequence[int],
    *,
    axes: int | Iterable[int] = -1,
    probabilities: bool = True,
) -> np.ndarray:
    """`value`, a table of log-probabilities of `shape` whose distributions lie along `axes`.

    Parameters
    ----------
    entry : str
        The attribute's name, for the message.
    value : ndarray
        The table.
    shape : sequence of int
        Its expected shape.
    axes : int or iterable of int, default=-1
        The axes each distribution runs over (-1: a conditional table, one
        distribution per configuration of the leading axes; every axis: a joint).
    probabilities : bool, default=True
        False for log-potentials (a discriminative fit): only finite numbers are required.

    Raises
    ------
    FittedStateError
        For a table of another type or shape, a NaN, a log-probability above 0
        (a probability above 1), or a distribution whose sum differs from 1 by
        more than :data:`TOLERANCE`; for log-potentials, any value not finite.
    """
    table = array(entry, value, kind="f", shape=shape)
    if not probabilities:
        if not np.isfinite(table).all():
            raise FittedStateError(entry, "holds NaN or infinite values: a log-potential is a finite number.")
        return table
    if np.isnan(table).any():
        raise FittedStateError(entry, "holds NaN: not a log-probability.")
    top = float(table.max(initial=-np.inf))
    if top > TOLERANCE:
        raise FittedStateError(
            entry, f"holds a probability above 1 (log-probability {top:.6g} > 0): not a log-probability table."
        )
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    if not axes or table.size == 0:
        return table
    # Every value is at most ~0, so the plain sum of the probabilities is exact enough (and far
    # cheaper than a log-sum-exp): a distribution holds a cell of at least 1 / its size.
    totals = np.exp(table).sum(axis=axes)
    error = np.abs(np.asarray(totals) - 1.0)
    if error.size and float(error.max()) > TOLERANCE:
        worst = np.unravel_index(int(np.argmax(error)), error.shape)
        where = f" at {tuple(int(i) for i in worst)}" if error.ndim else ""
        raise FittedStateError(
            entry,
            f"has a distribution{where} that sums to {float(np.asarray(totals)[worst]):.9g}, not 1 "
            f"(within {TOLERANCE:g}).",
        )
    return table


def _typed(values: Iterable[Any]) -> list[tuple[type, Any]]:
    return [(type(v.item() if isinstance(v, np.generic) else v), v) for v in values]


def same_labels(entry: str, value: Any, expected: Sequence[Hashable] | np.ndarray, what: str) -> None:
    """`value` must hold the labels `expected` (same values, types and order); `what` names them."""
    labels = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if labels is None or _typed(labels) != _typed(expected):
        shown = labels[:10] if labels is not None else value
        raise FittedStateError(entry, f"is {shown!r}, but {what} is {list(expected)[:10]!r}.")


def counts(entry: str, value: Any, shape: Sequence[int]) -> np.ndarray:
    """`value`, a table of counts of `shape`: finite numbers, none negative."""
    table = array(entry, value, kind="iuf", shape=shape)
    if table.size and not (np.isfinite(table).all() and float(table.min()) >= 0):
        raise FittedStateError(entry, "holds a count that is negative, NaN or infinite.")
    return table


def block_distributions(
    entry: str, value: np.ndarray, starts: np.ndarray, *, joint: bool = False, skip: np.ndarray | None = None
) -> None:
    """The blocks of the last axis of the log table `value`, ``starts[s]:starts[s + 1]``, must be distributions.

    Each block of each row is one distribution; with `joint`, each block over every row
    together is (its leading axis the class). ``skip[row, s]`` (rows of the second axis)
    marks blocks that hold no distribution (a variable in its own conditioning set).
    """
    if value.size == 0 or len(starts) < 2:
        return
    totals = np.add.reduceat(np.exp(value), starts[:-1], axis=-1)  # (..., n_blocks)
    if joint:
        totals = totals.sum(axis=0)
    error = np.abs(totals - 1.0)
    if skip is not None:
        error[..., skip] = 0.0
    if float(error.max()) > TOLERANCE:
        worst = np.unravel_index(int(np.argmax(error)), error.shape)
        s = int(worst[-1])
        where = f" at {tuple(int(i) for i in worst[:-1])}" if len(worst) > 1 else ""
        raise FittedStateError(
            entry,
            f"has a distribution{where} over its columns {int(starts[s])}..{int(starts[s + 1]) - 1} that sums to "
            f"{float(totals[worst]):.9g}, not 1 (within {TOLERANCE:g}).",
        )
