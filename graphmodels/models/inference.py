"""Deprecated: the forest and clique-tree likelihoods moved to :mod:`graphmodels.inference` (this alias warns)."""

from __future__ import annotations

import warnings
from typing import Any

_MOVED = ("forest_log_likelihood", "topological_order", "clique_tree_log_likelihood", "clique_tree_sample")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"graphmodels.models.inference.{name} moved to graphmodels.inference.{name}; the old path will be removed.",
            DeprecationWarning,
            stacklevel=2,
        )
        from .. import inference

        return getattr(inference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
