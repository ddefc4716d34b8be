"""A conditional table as a DataFrame, and the lookup of a variable by its name.

Written once here for the given networks (``DiscreteBayesianNetwork.cpd``) and used by the
fitted models' tables (:mod:`graphmodels.models.tables`) too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["conditional_frame", "find_node", "state_index"]


def state_index(levels: Sequence[Any] | np.ndarray, name: Hashable | None = None) -> pd.Index:
    """The labels of one variable as a flat object Index (tuple labels stay labels)."""
    values = np.empty(len(levels), dtype=object)
    for k, level in enumerate(levels):  # one by one: a tuple label is one cell
        values[k] = level.item() if isinstance(level, np.generic) else level
    return pd.Index(values, dtype=object, name=name, tupleize_cols=False)


def conditional_frame(
    node: Hashable,
    states: Sequence[Any] | np.ndarray,
    parents: Sequence[tuple[Hashable, Sequence[Any] | np.ndarray]],
    probabilities: np.ndarray,
) -> pd.DataFrame:
    """A conditional table ``P(node | parents)`` as a DataFrame.

    Parameters
    ----------
    node : hashable
        The variable's name (the columns' name).
    states : sequence of shape (r_node,)
        Its state labels, in code order.
    parents : sequence of (name, states)
        Each parent's name and state labels, in the order of the table's axes.
    probabilities : ndarray of shape (r_parent_1, ..., r_parent_m, r_node)

    Returns
    -------
    DataFrame of shape (prod r_parent, r_node)
        Columns: the node's states (named `node`). Index: the parents'
        configurations, the first parent varying slowest -- a MultiIndex
        named by the parents for two or more, a flat Index named by the
        parent for one, and the single label ``"probability"`` for none.

    Raises
    ------
    ValueError
        If the table's shape does not match the states.

    Examples
    --------
    >>> frame = conditional_frame("wet", ["no", "yes"], [("rain", ["no", "yes"])], np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> frame.index.name, frame.columns.name, frame.loc["yes"].tolist()
    ('rain', 'wet', [0.2, 0.8])
    """
    table = np.asarray(probabilities, dtype=np.float64)
    shape = tuple(len(levels) for _, levels in parents) + (len(states),)
    if table.shape != shape:
        raise ValueError(f"The table of {node!r} has shape {table.shape}, but its parents and states need {shape}.")
    if not parents:
        index = pd.Index(["probability"])
    elif len(parents) == 1:
        index = state_index(parents[0][1], parents[0][0])
    else:
        index = pd.MultiIndex.from_product(
            [state_index(levels) for _, levels in parents], names=[name for name, _ in parents]
        )
    return pd.DataFrame(table.reshape(-1, len(states)), index=index, columns=state_index(states, node))


def find_node(node: Any, known: Iterable[Hashable]) -> Hashable | None:
    """`node` as one of `known` (equal names), or None; an unhashable `node` is None too."""
    try:
        hash(node)
    except TypeError:
        return None
    for name in known:
        try:
            if name == node and (type(name) is bool) == (type(node) is bool):  # True is not the column 1
                return name
        except (TypeError, ValueError):
            continue
    return None
