"""Declarative checks of hyperparameters, written once for every model.

A model class lists the rule of each constructor argument in
``_parameter_constraints`` (a dict: name -> list of constraints); the value
is valid when any one constraint accepts it. :func:`validate_params` checks
them all and raises :class:`InvalidParameterError` naming the parameter,
what it must be and what arrived. Checking never changes the model: fitted
state is set by ``fit`` alone.

This follows scikit-learn's ``_parameter_constraints`` /
``validate_parameter_constraints`` (``sklearn/utils/_param_validation.py``)
without importing scikit-learn. It sits below every layer (it imports only
numpy), so learners and models use the same checker.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "InvalidParameterError",
    "Interval",
    "Options",
    "Boolean",
    "InstanceOf",
    "Predicate",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter has a value outside its rule (a ValueError and a TypeError, as in scikit-learn)."""


class _Constraint:
    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class Interval(_Constraint):
    """A real or integer number in an interval; booleans are never numbers here.

    Parameters
    ----------
    kind : {numbers.Integral, numbers.Real}
        ``numbers.Integral`` accepts int and numpy integers only.
    left, right : float or None
        Bounds; None is unbounded.
    closed : {"left", "right", "both", "neither"}, default="left"
    """

    def __init__(self, kind: type, left: float | None, right: float | None, *, closed: str = "left") -> None:
        if kind not in (numbers.Integral, numbers.Real):
            raise ValueError(f"`kind` must be numbers.Integral or numbers.Real, got {kind!r}.")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"`closed` must be 'left', 'right', 'both' or 'neither', got {closed!r}.")
        # Any, not `type`: `accepts` compares the values it lets through with `<` and `>`,
        # which the stubs of the numeric ABCs (what an isinstance check narrows to) lack.
        self.kind: Any = kind
        self.left, self.right, self.closed = left, right, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if not np.isfinite(float(value)):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed not in ("left", "both")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed not in ("right", "both")):
                return False
        return True

    def describe(self) -> str:
        noun = "an integer" if self.kind is numbers.Integral else "a finite number"
        low = "-inf" if self.left is None else repr(self.left)
        high = "inf" if self.right is None else repr(self.right)
        opening = "[" if self.closed in ("left", "both") and self.left is not None else "("
        closing = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{noun} in {opening}{low}, {high}{closing}"


class Options(_Constraint):
    """One of a fixed set of values (strings compared case-insensitively when `ignore_case`)."""

    def __init__(self, options: Iterable[Any], *, ignore_case: bool = False) -> None:
        self.options = list(options)
        self.ignore_case = ignore_case

    def accepts(self, value: Any) -> bool:
        if self.ignore_case and isinstance(value, str):
            return value.lower() in {str(o).lower() for o in self.options}
        try:
            return any(value == option and type(value) is type(option) for option in self.options) or (
                isinstance(value, str) and value in self.options
            )
        except (TypeError, ValueError):
            return False

    def describe(self) -> str:
        if len(self.options) == 1:
            return repr(self.options[0])
        return f"one of {self.options}"


class Boolean(_Constraint):
    """True or False (numpy booleans too)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "True or False"


class InstanceOf(_Constraint):
    """An instance of one of `types`, described as `name`."""

    def __init__(self, *types: type, name: str | None = None) -> None:
        self.types = types
        self.name = name or " or ".join(t.__name__ for t in types)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return f"a {self.name}"


class Predicate(_Constraint):
    """A value that `check` accepts; `check` returns a bool or raises ValueError/TypeError.

    For rules that belong to another layer, such as "a name of an estimator
    or an Estimator" (the resolver already knows the valid names and says
    them in its own error message, which is kept).
    """

    def __init__(self, check: Callable[[Any], Any], description: str) -> None:
        self.check, self.description = check, description
        self.message: str | None = None

    def accepts(self, value: Any) -> bool:
        self.message = None
        try:
            result = self.check(value)
        except (ValueError, TypeError) as error:
            self.message = str(error)
            return False
        return result is not False

    def describe(self) -> str:
        return self.description


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    return constraint.describe()


def _accepts(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    return constraint.accepts(value)


def validate_params(owner: str, params: dict[str, Any], constraints: dict[str, list[Any]]) -> None:
    """Check every parameter that has constraints; raise on the first invalid one.

    Parameters
    ----------
    owner : str
        The model's class name, for the message.
    params : dict
        Parameter name -> value (``get_params(deep=False)``).
    constraints : dict
        Parameter name -> list of constraints (``None`` allows None). A
        parameter without an entry is not checked here.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, the accepted values and the value given, e.g.
        "`max_cells` must be an integer in [1, inf), got 0 (TAN)."

    Examples
    --------
    >>> import numbers
    >>> validate_params("Model", {"k": 2}, {"k": [Interval(numbers.Integral, 0, None)]})
    >>> validate_params("Model", {"k": -1}, {"k": [Interval(numbers.Integral, 0, None)]})
    Traceback (most recent call last):
    ...
    graphmodels._validation.InvalidParameterError: `k` must be an integer in [0, inf), got -1 (Model).
    """
    for name, rules in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(_accepts(rule, value) for rule in rules):
            continue
        detail = next((rule.message for rule in rules if isinstance(rule, Predicate) and rule.message), None)
        accepted = " or ".join(_describe(rule) for rule in rules)
        message = f"`{name}` must be {accepted}, got {value!r} ({owner})."
        if detail:
            message = f"{message} {detail}"
        raise InvalidParameterError(message)
