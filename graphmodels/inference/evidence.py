"""Evidence by state name, soft (virtual) evidence and batches of evidence, as likelihood vectors.

Every method of the inference layer takes evidence as a likelihood vector per observed
variable: hard evidence ``{"A": "x"}`` is the indicator of state ``x``; soft or virtual
evidence ``{"A": {"x": 0.7, "y": 0.3}}`` (Pearl 1988, section 2.2.2) multiplies the joint by the
given likelihood of each state (a state left out has likelihood 0); a DataFrame asks one
question per row, each column a variable and each cell a state, a missing cell (``NaN``,
``None``) meaning unobserved in that row.

References
----------
.. [1] Pearl, J. (1988). *Probabilistic Reasoning in Intelligent Systems*. Morgan Kaufmann.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .factors import _state_index

__all__ = ["likelihoods"]


def _variable_index(variables: Sequence[Hashable], index: Mapping[Hashable, int], name: Hashable) -> int:
    try:
        return index[name]
    except (KeyError, TypeError):
        pass
    text = str(name)
    matches = [k for k, v in enumerate(variables) if str(v) == text]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(map(repr, list(variables)[:30])) + (", ..." if len(variables) > 30 else "")
    raise ValueError(f"{name!r} is not a variable of the model; its variables are {listed}.") from None


def _soft(states: Sequence[Any], value: Any, name: Hashable) -> np.ndarray:
    if isinstance(value, Mapping):
        vector = np.zeros(len(states))
        for state, weight in value.items():
            vector[_state_index(states, state, name)] = weight
    else:
        vector = np.asarray(value, dtype=np.float64)
        if vector.shape != (len(states),):
            raise ValueError(
                f"Soft evidence on {name!r} must give a likelihood for each of its {len(states)} states, "
                f"got shape {vector.shape}."
            )
    if not np.isfinite(vector).all() or (vector < 0).any():
        raise ValueError(f"Soft evidence on {name!r} must be finite likelihoods >= 0, got {vector.tolist()}.")
    if not (vector > 0).any():
        raise ValueError(f"Soft evidence on {name!r} gives every state likelihood 0.")
    return vector


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def likelihoods(
    evidence: Mapping[Hashable, Any] | pd.DataFrame | None,
    variables: Sequence[Hashable],
    states: Sequence[Sequence[Any]],
) -> tuple[dict[int, np.ndarray], int | None]:
    """Evidence as likelihood vectors by variable position.

    Parameters
    ----------
    evidence : mapping, DataFrame or None
        ``{variable: state}`` (hard), ``{variable: {state: likelihood}}`` or
        ``{variable: [likelihood per state]}`` (soft), or a DataFrame with one evidence set
        per row (its cells states; missing cells unobserved).
    variables : sequence of hashable
        The model's variables, in position order.
    states : sequence of sequence
        Each variable's states.

    Returns
    -------
    likelihood : dict of int to ndarray
        ``(r_v,)`` vectors, or ``(n_rows, r_v)`` for a DataFrame.
    n_rows : int or None
        The number of evidence sets of a DataFrame, None for a mapping.

    Raises
    ------
    ValueError
        For an unknown variable or state, or soft evidence that is not a likelihood.
    TypeError
        For evidence that is neither a mapping nor a DataFrame.
    """
    index = {}
    for k, v in enumerate(variables):
        try:
            index[v] = k
        except TypeError:
            pass
    if evidence is None:
        return {}, None
    if isinstance(evidence, pd.DataFrame):
        n_rows = len(evidence)
        result: dict[int, np.ndarray] = {}
        for column in evidence.columns:
            k = _variable_index(variables, index, column)
            if k in result:
                raise ValueError(f"The evidence names {variables[k]!r} twice.")
            cells = evidence[column].to_numpy(dtype=object)
            table = np.ones((n_rows, len(states[k])))
            codes: dict[Any, int] = {}
            for row, cell in enumerate(cells):
                if _is_missing(cell):
                    continue
                key = (type(cell), cell) if _hashable(cell) else None
                code = codes.get(key) if key is not None else None
                if code is None:
                    code = _state_index(states[k], cell, variables[k])
                    if key is not None:
                        codes[key] = code
                table[row] = 0.0
                table[row, code] = 1.0
            result[k] = table
        return result, n_rows
    if not isinstance(evidence, Mapping):
        raise TypeError(
            f"`evidence` must be a dict of variable -> state (or likelihoods) or a DataFrame, got {type(evidence).__name__}."
        )
    result = {}
    for name, value in evidence.items():
        k = _variable_index(variables, index, name)
        if k in result:
            raise ValueError(f"The evidence names {variables[k]!r} twice.")
        if isinstance(value, Mapping) or (
            isinstance(value, (list, tuple, np.ndarray)) and not _hashable_state(value, states[k])
        ):
            result[k] = _soft(states[k], value, variables[k])
        else:
            vector = np.zeros(len(states[k]))
            vector[_state_index(states[k], value, variables[k])] = 1.0
            result[k] = vector
    return result, None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _hashable_state(value: Any, states: Sequence[Any]) -> bool:
    """Whether a tuple `value` is itself one of `states` (states may be tuples)."""
    if not isinstance(value, tuple):
        return False
    return any(value == s for s in states if isinstance(s, tuple))
