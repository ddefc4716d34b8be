"""Deprecated: the BIF reader and writer and the bundled networks moved to :mod:`graphmodels.io` (this alias warns)."""

from __future__ import annotations

from typing import Any

from .._deprecation import moved, no_attribute

_MOVED = ("read_bif", "write_bif", "load_network", "list_networks")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from .. import io

        return moved(__name__, name, io)
    raise no_attribute(__name__, name)
