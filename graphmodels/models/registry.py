"""The one registry of model classes: persistence, the command line and `compare` read it.

A model class joins with the :func:`register_model` decorator, under a short
name (``"tan"``) and a kind:

* ``"classifier"``: single-label classifiers ``fit(X, y)``; the command
  line's ``--model`` and :func:`graphmodels.evaluation.compare`
  choose among them, in registration order;
* ``"density"``: density estimators ``fit(X)``;
* ``"multilabel"``: multi-label classifiers ``fit(X, Y)``.

:func:`graphmodels.models.load_model` only builds classes found here, so a
saved file cannot make the loader run arbitrary code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

__all__ = ["ModelEntry", "register_model", "registered_models", "model_class", "make_model", "MODEL_KINDS"]

MODEL_KINDS = ("classifier", "density", "multilabel")


@dataclass(frozen=True)
class ModelEntry:
    """A registered model: its short name, class and kind."""

    name: str
    cls: type
    kind: str


_BY_NAME: dict[str, ModelEntry] = {}
_BY_CLASS_NAME: dict[str, ModelEntry] = {}

_Class = TypeVar("_Class", bound=type)


@overload
def register_model(name: _Class, *, kind: str | None = None) -> _Class: ...


@overload
def register_model(name: str | None = None, *, kind: str | None = None) -> Callable[[_Class], _Class]: ...


def register_model(name: str | type | None = None, *, kind: str | None = None) -> Any:
    """Register a model class (a class decorator).

    Parameters
    ----------
    name : str or type, optional
        Short name (lower case, e.g. ``"tan"``); by default the class name in
        lower case. Passing a class directly (``register_model(MyModel)``)
        registers it under that default name.
    kind : {"classifier", "density", "multilabel"}, optional
        By default the class's ``_model_kind``, set by its base class
        (``BaseClassifier``, ``BaseDensity``, ``BaseMultiLabelClassifier``).

    Returns
    -------
    callable or type
        The decorator (or the class, when a class was passed).

    Raises
    ------
    ValueError
        For a short name or class name already registered to another class,
        or an unknown kind.

    Examples
    --------
    >>> from graphmodels.models import BaseClassifier
    >>> @register_model("my-model")
    ... class MyModel(BaseClassifier):
    ...     pass
    >>> model_class("my-model") is MyModel
    True
    >>> _unregister("my-model")
    """
    if isinstance(name, type):
        return register_model(None, kind=kind)(name)

    def decorate(cls: _Class) -> _Class:
        entry = ModelEntry(name or cls.__name__.lower(), cls, kind or _kind_of(cls))
        if entry.kind not in MODEL_KINDS:
            raise ValueError(f"`kind` must be one of {list(MODEL_KINDS)}, got {entry.kind!r}.")
        for table, key in ((_BY_NAME, entry.name), (_BY_CLASS_NAME, cls.__name__)):
            known = table.get(key)
            if known is not None and known.cls is not cls:
                raise ValueError(f"{key!r} is already registered to {known.cls.__module__}.{known.cls.__name__}.")
        _BY_NAME[entry.name] = entry
        _BY_CLASS_NAME[cls.__name__] = entry
        return cls

    return decorate


def _kind_of(cls):
    # Each base class names its kind (`_model_kind`), so this module imports no model.
    return getattr(cls, "_model_kind", "classifier")


def _unregister(name):
    entry = _BY_NAME.pop(name)
    _BY_CLASS_NAME.pop(entry.cls.__name__, None)


def registered_models(kind: str | None = None) -> dict[str, type]:
    """The registered models, in registration order.

    Parameters
    ----------
    kind : {"classifier", "density", "multilabel"}, optional
        Only models of this kind.

    Returns
    -------
    dict
        Short name -> class.
    """
    if kind is not None and kind not in MODEL_KINDS:
        raise ValueError(f"`kind` must be one of {list(MODEL_KINDS)} or None, got {kind!r}.")
    return {e.name: e.cls for e in _BY_NAME.values() if kind is None or e.kind == kind}


def model_class(name: str) -> type:
    """The registered class for a short name (``"tan"``) or a class name (``"TAN"``).

    Parameters
    ----------
    name : str
        A short name (any case) or a class name.

    Returns
    -------
    type
        The model class.

    Raises
    ------
    ValueError
        For an unknown name, listing the valid short names.
    """
    if isinstance(name, str):
        entry = _BY_NAME.get(name.lower()) or _BY_CLASS_NAME.get(name)
        if entry is not None:
            return entry.cls
    raise ValueError(f"Unknown model {name!r}; valid names: {sorted(_BY_NAME)}.")


def make_model(name: str, **params: Any) -> Any:
    """A new model of the registered class `name` with hyperparameters `params`.

    Parameters
    ----------
    name : str
        A short name or a class name, as for :func:`model_class`.
    **params
        Hyperparameters of the model.

    Returns
    -------
    model
        A new, unfitted instance.
    """
    return model_class(name)(**params)
