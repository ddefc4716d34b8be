"""Deprecated: the junction-tree code moved to :mod:`graphmodels.inference` (this alias warns)."""

from __future__ import annotations

import warnings
from typing import Any

_MOVED = ("log_marginals", "junction_tree_of_scopes", "brute_force_log_marginals")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"graphmodels.models.factors.{name} moved to graphmodels.inference.{name}; the old path will be removed.",
            DeprecationWarning,
            stacklevel=2,
        )
        from .. import inference

        return getattr(inference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
