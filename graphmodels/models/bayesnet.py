"""Deprecated: :class:`DiscreteBayesianNetwork` moved to :mod:`graphmodels.networks` (this alias warns)."""

from __future__ import annotations

from typing import Any

from .._deprecation import moved, no_attribute


def __getattr__(name: str) -> Any:
    if name == "DiscreteBayesianNetwork":
        from .. import networks

        return moved(__name__, name, networks)
    if name == "SUM_TOLERANCE":
        from ..networks import bayesnet

        return moved(__name__, name, bayesnet)
    raise no_attribute(__name__, name)
