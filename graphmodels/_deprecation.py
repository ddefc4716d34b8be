"""Old import paths kept as aliases: the name from its new module, with a ``DeprecationWarning``.

An alias module (``graphmodels/models/bif.py`` after the readers moved to ``graphmodels.io``)
defines a module ``__getattr__`` that imports the new module itself -- so that
``tests/test_import_layers.py`` sees the arc -- and returns :func:`moved`'s answer. This module
imports nothing of graphmodels.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any


def moved(old_module: str, name: str, new_module: ModuleType) -> Any:
    """``new_module.name``, warning that ``old_module.name`` is an old path.

    Called from an alias module's ``__getattr__``: the warning points at the line that used
    the old path (``stacklevel=3``: past this function and ``__getattr__``).
    """
    warnings.warn(
        f"{old_module}.{name} moved to {new_module.__name__}.{name}; the old path will be removed.",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(new_module, name)


def no_attribute(module: str, name: str) -> AttributeError:
    """The error of a module ``__getattr__`` for a name that is neither defined nor moved."""
    return AttributeError(f"module {module!r} has no attribute {name!r}")
