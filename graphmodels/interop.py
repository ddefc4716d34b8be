"""Deprecated: the pgmpy and pyAgrum converters moved to :mod:`graphmodels.io` (this alias warns)."""

from __future__ import annotations

from typing import Any

from ._deprecation import moved, no_attribute

_MOVED = ("to_pgmpy", "from_pgmpy", "to_pyagrum", "from_pyagrum")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from . import io

        return moved(__name__, name, io)
    raise no_attribute(__name__, name)
