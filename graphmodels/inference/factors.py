"""Factors over named discrete variables: a scope, the states of each variable, a log-table.

A :class:`Factor` is the unit every model hands to the inference layer: a conditional
probability table of a Bayesian network, a clique potential of a Markov network, a region's
table raised to its counting number. Its table is kept in log space, so a zero is ``-inf`` and
a product of factors is a sum of their tables. The arithmetic here (product, sum-out, max-out,
reduction by evidence) is for small factors and teaching: the exact methods of the layer work
on many factors at once in :mod:`~graphmodels.inference.junction_tree` and
:mod:`~graphmodels.inference.elimination`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._special import logsumexp

__all__ = ["Factor", "factor_product"]


class Factor:
    """A table over named discrete variables, in log space.

    Parameters
    ----------
    variables : sequence of hashable
        The scope, one name per axis of `log_values` (distinct).
    log_values : array-like
        Log values, of shape ``[len(states[v]) for v in variables]``; ``-inf`` for zero.
    states : sequence of sequence, optional
        The state labels of each variable (default ``0 .. r - 1``).

    Examples
    --------
    >>> f = Factor.from_values(["rain", "wet"], [[0.8, 0.2], [0.1, 0.9]], states=[["no", "yes"], ["no", "yes"]])
    >>> f.marginalize(["rain"]).values.round(2).tolist()
    [0.9, 1.1]
    >>> f.reduce({"rain": "yes"}).to_series().round(2).to_dict()
    {'no': 0.1, 'yes': 0.9}
    """

    __slots__ = ("variables", "states", "log_values")

    def __init__(
        self, variables: Sequence[Hashable], log_values: ArrayLike, states: Sequence[Sequence[Any]] | None = None
    ) -> None:
        variables = tuple(variables)
        log_values = np.asarray(log_values, dtype=np.float64)
        if len(set(variables)) != len(variables):
            raise ValueError(f"A factor's variables must be distinct, got {list(variables)}.")
        if log_values.ndim != len(variables):
            raise ValueError(
                f"A factor over {len(variables)} variable(s) needs a table of {len(variables)} axes, "
                f"got {log_values.ndim}."
            )
        if np.isnan(log_values).any() or np.isposinf(log_values).any():
            raise ValueError(f"The table of a factor over {list(variables)} holds NaN or +inf.")
        if states is None:
            states = [list(range(r)) for r in log_values.shape]
        states = tuple(tuple(s) for s in states)
        if len(states) != len(variables) or any(len(s) != r for s, r in zip(states, log_values.shape)):
            raise ValueError(
                f"The states of a factor over {list(variables)} must match its table's shape {log_values.shape}."
            )
        self.variables = variables
        self.states = states
        self.log_values = log_values

    @classmethod
    def from_values(
        cls, variables: Sequence[Hashable], values: ArrayLike, states: Sequence[Sequence[Any]] | None = None
    ) -> Factor:
        """A factor from non-negative values (probabilities or potentials)."""
        values = np.asarray(values, dtype=np.float64)
        if (values < 0).any():
            raise ValueError(f"The values of a factor over {list(variables)} must be >= 0.")
        with np.errstate(divide="ignore"):
            return cls(variables, np.log(values), states)

    @property
    def values(self) -> np.ndarray:
        """The table in probability space."""
        return np.exp(self.log_values)

    @property
    def cardinalities(self) -> tuple[int, ...]:
        return self.log_values.shape

    def state_index(self, variable: Hashable, state: Any) -> int:
        """The position of `state` among `variable`'s states (its string form also matches)."""
        return _state_index(self.states[self.variables.index(variable)], state, variable)

    def __repr__(self) -> str:
        scope = ", ".join(map(repr, self.variables))
        return f"Factor({scope}; shape={self.log_values.shape})"

    def _aligned(self, variables: Sequence[Hashable]) -> np.ndarray:
        order = [self.variables.index(v) for v in variables if v in self.variables]
        moved = np.transpose(self.log_values, order)
        return moved.reshape(
            [self.log_values.shape[self.variables.index(v)] if v in self.variables else 1 for v in variables]
        )

    def product(self, other: Factor) -> Factor:
        """The product of two factors (a sum of log-tables) over the union of their scopes."""
        variables = list(self.variables) + [v for v in other.variables if v not in self.variables]
        states = [
            self.states[self.variables.index(v)] if v in self.variables else other.states[other.variables.index(v)]
            for v in variables
        ]
        for v in set(self.variables) & set(other.variables):
            if self.states[self.variables.index(v)] != other.states[other.variables.index(v)]:
                raise ValueError(f"The two factors list different states of {v!r}.")
        return Factor(variables, self._aligned(variables) + other._aligned(variables), states)

    __mul__ = product

    def marginalize(self, variables: Iterable[Hashable]) -> Factor:
        """Sum `variables` out."""
        return self._reduce_axes(variables, logsumexp)

    def maximize(self, variables: Iterable[Hashable]) -> Factor:
        """Maximize `variables` out."""
        return self._reduce_axes(variables, np.max)

    def _reduce_axes(self, variables, reducer) -> Factor:
        gone = set(variables)
        missing = gone - set(self.variables)
        if missing:
            raise ValueError(f"{sorted(map(repr, missing))} not in the factor's scope {list(self.variables)}.")
        axes = tuple(k for k, v in enumerate(self.variables) if v in gone)
        kept = [k for k, v in enumerate(self.variables) if v not in gone]
        with np.errstate(divide="ignore", invalid="ignore"):
            table = reducer(self.log_values, axis=axes) if axes else self.log_values
        return Factor([self.variables[k] for k in kept], np.asarray(table), [self.states[k] for k in kept])

    def reduce(self, evidence: Mapping[Hashable, Any]) -> Factor:
        """The factor with the variables of `evidence` fixed to their states (and removed)."""
        index: list[Any] = [slice(None)] * len(self.variables)
        for variable, state in evidence.items():
            if variable in self.variables:
                k = self.variables.index(variable)
                index[k] = _state_index(self.states[k], state, variable)
        kept = [k for k, item in enumerate(index) if isinstance(item, slice)]
        return Factor([self.variables[k] for k in kept], self.log_values[tuple(index)], [self.states[k] for k in kept])

    def normalize(self) -> Factor:
        """The factor divided by its total (a distribution over its scope)."""
        total = logsumexp(self.log_values) if self.log_values.size else 0.0
        if not np.isfinite(total):
            raise ValueError(f"A factor over {list(self.variables)} sums to zero: it cannot be normalized.")
        return Factor(self.variables, self.log_values - total, self.states)

    def to_series(self, name: str | None = None) -> pd.Series:
        """The table in probability space, indexed by the states (a MultiIndex for several variables)."""
        values = self.values
        if len(self.variables) == 1:
            index = pd.Index(list(self.states[0]), name=self.variables[0])
        else:
            index = pd.MultiIndex.from_product([list(s) for s in self.states], names=list(self.variables))
        return pd.Series(values.ravel(), index=index, name=name)


def factor_product(factors: Iterable[Factor]) -> Factor:
    """The product of many factors (small ones: the result spans the union of the scopes)."""
    result = None
    for factor in factors:
        result = factor if result is None else result.product(factor)
    if result is None:
        return Factor([], np.zeros(()))
    return result


def _state_index(states: Sequence[Any], state: Any, variable: Hashable) -> int:
    """The position of `state` in `states`: an equal state of the same kind, else a unique equal text."""
    for k, candidate in enumerate(states):
        try:
            equal = bool(candidate == state)
        except (TypeError, ValueError):
            equal = False
        # True == 1 in Python: a boolean state only matches a boolean.
        if equal and isinstance(candidate, (bool, np.bool_)) == isinstance(state, (bool, np.bool_)):
            return k
    text = str(state)
    matches = [k for k, candidate in enumerate(states) if str(candidate) == text]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(map(repr, list(states)[:20])) + (", ..." if len(states) > 20 else "")
    raise ValueError(f"{state!r} is not a state of {variable!r}; its states are {listed}.")
