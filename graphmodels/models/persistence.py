"""Saving and loading fitted models as JSON or NPZ, never pickle.

A saved model holds its class name, its hyperparameters and every fitted
attribute (names ending in ``_``): arrays, networkx graphs (node-link data),
the table encoder and the estimator, each written as plain data. A registered
model nested in a hyperparameter or a fitted attribute (a wrapper's `base`,
its fitted `estimators_`) is written the same way, as
``{"__model__": {"model": name, "params": ..., "fitted": ...}}``. Loading
looks every class name up in a fixed registry, so a file cannot make the
loader run arbitrary code.

Names and labels
----------------
Column names, state labels, class labels and label names are any hashable
values, and a loaded model must give back exactly the values it was fitted
on. JSON has no tuples and turns ``1`` and ``"1"`` apart only by type, so a
value JSON cannot hold as itself is written tagged: a tuple as
``{"__tuple__": [...]}``, a frozenset as ``{"__frozenset__": [...]}`` (a
numpy scalar is written as the Python scalar it equals). Integers, floats,
booleans, None and strings are JSON values of their own type, so ``1``,
``1.0``, ``True`` and ``"1"`` stay four different labels.

Format versions
---------------
Every file records ``"format": "graphmodels"`` and a ``"version"``
(:data:`FORMAT_VERSION`). Version 2 writes the table encoder's column names
and levels tagged as above; version 1 wrote them as plain JSON, where a tuple
became a list. Version 1 files still load (a list there can only have been a
tuple, as names and labels are hashable); a file from a newer version raises
:class:`ModelFileError`, as does any file that cannot be read as a model.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from ..data.discretize import EqualFrequencyDiscretizer, MDLDiscretizer, _BaseDiscretizer
from ..data.encoding import TableEncoder
from ..estimators.parameters import Estimator, get_estimator
from ..structures.hyperforests import Hyperforest
from .registry import _BY_CLASS_NAME

__all__ = ["save_model", "load_model", "load", "ModelFileError"]

#: Version of the file format :func:`save_model` writes; :func:`load_model` reads 1 to this one.
FORMAT_VERSION = 2

#: The file extensions of saved models.
EXTENSIONS = (".json", ".npz")

#: pandas' nullable dtypes a saved DataFrame column may have (written with None for missing cells).
_NULLABLE_DTYPES = ("Int64", "boolean")


class ModelFileError(ValueError):
    """A file that :func:`load_model` cannot read as a saved graphmodels model.

    The message names the file and says what is wrong with it: an extension
    other than ``.json`` or ``.npz``, an empty, truncated or corrupted file
    (not valid JSON, not UTF-8 text, a damaged ZIP archive), an NPZ archive
    holding an object array (which only pickle could read; graphmodels never
    loads pickled data), a JSON or NPZ file that is not a saved model, a model
    class this version does not know, or a format version newer than this
    version reads. A ``ValueError``, so ``except ValueError`` catches it too;
    a missing file raises ``FileNotFoundError`` naming the path.
    """


def _registered_class(name):
    """The registered class whose class name is `name` (the registry is the only source)."""
    entry = _BY_CLASS_NAME.get(name)
    return None if entry is None else entry.cls


def _fitted_names(model):
    return sorted(name for name in vars(model) if name.endswith("_") and not name.startswith("_"))


def _encode(value, arrays):
    if isinstance(value, np.ndarray):
        if arrays is not None and value.dtype != object:
            key = f"a{len(arrays)}"
            arrays[key] = value
            return {"__npz__": key}
        return {
            "__ndarray__": [_encode(v, None) for v in value.ravel().tolist()]
            if value.dtype == object
            else value.tolist(),
            "dtype": str(value.dtype),
            "shape": list(value.shape),
        }
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (nx.Graph, nx.DiGraph)):
        data = nx.node_link_data(value, edges="edges")
        return {"__graph__": _encode(data, None), "directed": value.is_directed()}
    if isinstance(value, pd.DataFrame):
        columns = []
        for name in value.columns:
            column = value[name]
            if str(column.dtype) in _NULLABLE_DTYPES:
                # pandas' nullable integers and booleans (a learning trace's `component`): None for <NA>.
                cells = [None if cell is pd.NA else _encode(cell, None) for cell in column.array]
                columns.append([_encode(name, None), {"__nullable__": cells, "dtype": str(column.dtype)}])
                continue
            data = column.to_numpy() if column.dtype != object else list(column)
            columns.append([_encode(name, None), _encode(data, arrays)])
        return {"__frame__": columns}
    if isinstance(value, TableEncoder):
        # Column names and state labels as tagged values, so a tuple name stays a tuple.
        return {"__encoder__": {key: _encode(item, None) for key, item in value.to_dict().items()}}
    if isinstance(value, Hyperforest):
        return {"__hyperforest__": _encode(value.to_dict(), None)}
    if isinstance(value, Estimator):
        return {"__estimator__": value.to_dict()}
    if isinstance(value, (EqualFrequencyDiscretizer, MDLDiscretizer)):
        return {"__discretizer__": _encode(value.to_dict(), None)}
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k, None), _encode(v, arrays)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        encoded = [_encode(v, arrays) for v in value]
        return {"__tuple__": encoded} if isinstance(value, tuple) else encoded
    if isinstance(value, (frozenset, set)):
        return {"__frozenset__": [_encode(v, None) for v in sorted(value, key=repr)]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _registered_class(type(value).__name__) is type(value):
        return {"__model__": _encode_model(value, arrays)}
    if hasattr(value, "get_params") and not isinstance(value, type):
        raise TypeError(
            f"Cannot save the nested model {type(value).__name__}: only graphmodels models "
            "registered with `register_model` can be saved inside another."
        )
    raise TypeError(f"Cannot save a value of type {type(value).__name__}.")


def _encode_model(model, arrays):
    """Class name, hyperparameters and fitted attributes of a registered model, as plain data."""
    fitted = {}
    for name in _fitted_names(model):
        try:
            fitted[name] = _encode(getattr(model, name), arrays)
        except TypeError as error:
            raise TypeError(f"Cannot save `{name}` of {type(model).__name__}: {error}") from None
    return {"model": type(model).__name__, "params": _encode(model.get_params(deep=False), arrays), "fitted": fitted}


def _decode_model(document, arrays, source):
    """The model written by :func:`_encode_model`, its class looked up in the registry."""
    if not isinstance(document, dict) or not {"model", "params", "fitted"} <= set(document):
        raise ModelFileError(f"{source} is damaged: a saved model has the entries 'model', 'params' and 'fitted'.")
    cls = _registered_class(document["model"]) if isinstance(document["model"], str) else None
    if cls is None:
        raise ModelFileError(
            f"Unknown model {document['model']!r} in {source}; known: {sorted(_BY_CLASS_NAME)}. "
            "It was saved by another version of graphmodels, or by a model class registered in code "
            "that is not imported here."
        )
    # A hyperparameter added after the file was written takes the value the model was fitted
    # with, not today's default (ChowLiu's `representation`: files before it fitted per class).
    params = {**getattr(cls, "_params_of_older_files", {}), **_decode(document["params"], arrays)}
    model = cls(**params)
    for name, value in getattr(cls, "_fitted_of_older_files", {}).items():
        if name not in document["fitted"]:
            setattr(model, name, value)
    for name, value in document["fitted"].items():
        setattr(model, name, _decode(value, arrays))
    return model


def _decode(value, arrays):
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__npz__" in value:
        return arrays[value["__npz__"]]
    if "__ndarray__" in value:
        dtype = np.dtype(value["dtype"])
        if dtype == np.dtype(object):
            out = np.empty(len(value["__ndarray__"]), dtype=object)
            for i, item in enumerate(value["__ndarray__"]):  # one by one: a tuple item is one cell
                out[i] = _decode(item, arrays)
            return out.reshape(value["shape"])
        return np.array(value["__ndarray__"], dtype=dtype).reshape(value["shape"])
    if "__graph__" in value:
        data = _decode(value["__graph__"], arrays)
        return nx.node_link_graph(data, directed=value["directed"], edges="edges")
    if "__frame__" in value:
        columns = {}
        for name, data in value["__frame__"]:
            if isinstance(data, dict) and "__nullable__" in data:
                columns[_hashable(_decode(name, arrays))] = pd.array(data["__nullable__"], dtype=data["dtype"])
                continue
            decoded = _decode(data, arrays)
            if isinstance(decoded, list):
                column = np.empty(len(decoded), dtype=object)
                column[:] = [_hashable(v) if isinstance(v, list) else v for v in decoded]
                decoded = column
            columns[_hashable(_decode(name, arrays))] = decoded
        return pd.DataFrame(columns)
    if "__encoder__" in value:
        return TableEncoder.from_dict(_encoder_state(_decode(value["__encoder__"], arrays)))
    if "__hyperforest__" in value:
        return Hyperforest.from_dict(_decode(value["__hyperforest__"], arrays))
    if "__estimator__" in value:
        return get_estimator(value["__estimator__"])
    if "__discretizer__" in value:
        return _BaseDiscretizer.from_dict(_decode(value["__discretizer__"], arrays))
    if "__dict__" in value:
        return {_hashable(_decode(k, arrays)): _decode(v, arrays) for k, v in value["__dict__"]}
    if "__tuple__" in value:
        return tuple(_decode(v, arrays) for v in value["__tuple__"])
    if "__frozenset__" in value:
        return frozenset(_hashable(_decode(v, arrays)) for v in value["__frozenset__"])
    if "__model__" in value:
        return _decode_model(value["__model__"], arrays, "a nested model")
    return {k: _decode(v, arrays) for k, v in value.items()}


def _hashable(value):
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def _encoder_state(state):
    """The state of a TableEncoder, with names and labels that a version-1 file wrote as lists back to tuples.

    A name or a state label is hashable, so it is never a list: a list can only be
    a tuple that JSON turned into one (version 1 wrote them untagged).
    """
    state = dict(state)
    if "columns" in state:
        state["columns"] = [_hashable(c) for c in state["columns"]]
    if "levels" in state:
        state["levels"] = [[_hashable(v) for v in levels] for levels in state["levels"]]
    return state


# `model` is typed Any, not BaseModel: base.py imports this module (in BaseModel.save), and an
# import back, even for type checkers only, would close an import circle (tests/test_import_layers.py).
def save_model(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted model to `path`: JSON if it ends in ``.json``, NPZ if in ``.npz``.

    Parameters
    ----------
    model : BaseModel
        A fitted model of a registered class.
    path : str or path-like
        Ends in ``.json`` or ``.npz``.

    Raises
    ------
    TypeError
        If the model's class is not registered.
    ValueError
        If the model is not fitted or the extension is neither.
    """
    if _registered_class(type(model).__name__) is not type(model):
        raise TypeError(f"{type(model).__name__} is not a registered graphmodels model.")
    model._check_fitted()
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower()
    if extension not in EXTENSIONS:
        raise ValueError(f"Save to a '.json' or '.npz' file, got {path!r}.")
    arrays: dict[str, Any] | None = {} if extension == ".npz" else None
    document = {"format": "graphmodels", "version": FORMAT_VERSION, **_encode_model(model, arrays)}
    text = json.dumps(document)  # fails before anything is written
    if arrays is None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        np.savez_compressed(path, __document__=np.array(text), **arrays)


def load(path: str | os.PathLike[str]) -> Any:
    """Deprecated alias of :func:`load_model` (``gm.load`` read like loading data)."""
    import warnings

    warnings.warn("`graphmodels.load` is deprecated; use `graphmodels.load_model`.", FutureWarning, stacklevel=2)
    return load_model(path)


def load_model(path: str | os.PathLike[str]) -> Any:
    """Load a model written by :meth:`~graphmodels.models.base.BaseModel.save`.

    Parameters
    ----------
    path : str or path-like
        A ``.json`` or ``.npz`` file.

    Returns
    -------
    model
        The fitted model (of the class named in the file).

    Raises
    ------
    ModelFileError
        If the file cannot be read as a saved graphmodels model; the message
        names the file and what is wrong (see :class:`ModelFileError`).
    FileNotFoundError
        If there is no file at `path`.
    """
    path = os.fspath(path)
    source = repr(path)
    extension = os.path.splitext(path)[1].lower()
    if extension not in EXTENSIONS:
        raise ModelFileError(
            f"Cannot load {source}: a saved model is a '.json' or '.npz' file (written by model.save), "
            f"got {extension or 'no extension'!r}. graphmodels never reads pickle files."
        )
    document, arrays = _read_npz(path, source) if extension == ".npz" else (_read_json(path, source), {})
    if not isinstance(document, dict) or document.get("format") != "graphmodels":
        raise ModelFileError(f'{source} is not a saved graphmodels model (it has no "format": "graphmodels" entry).')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(f"{source} is damaged: its format version is {version!r}, not a positive integer.")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{source} was saved in format version {version}, but this version of graphmodels reads "
            f"versions 1 to {FORMAT_VERSION}; upgrade graphmodels to load it."
        )
    try:
        model = _decode_model(document, arrays, source)
    except ModelFileError as error:
        if source in str(error):
            raise
        raise ModelFileError(f"{source} is damaged: {error}") from None  # from a nested model
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        raise ModelFileError(
            f"{source} is damaged, or was not written by graphmodels: {type(error).__name__}: {error}"
        ) from None
    if not model._is_fitted():
        raise ModelFileError(f"{source} is damaged: the {type(model).__name__} it holds is not fitted.")
    return model


def _read_json(path, source):
    """The document of a ``.json`` model file."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.strip():
        raise ModelFileError(f"{source} is empty: not a saved model.")
    if data.startswith(b"PK\x03\x04"):
        raise ModelFileError(f"{source} is a ZIP (NPZ) archive, not JSON text: rename it to '.npz'.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelFileError(
            f"{source} is not a JSON text file: byte {error.start} is not UTF-8 (binary or corrupted data)."
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelFileError(
            f"{source} is not valid JSON (truncated or corrupted?): {error.msg} at line {error.lineno}, "
            f"column {error.colno}."
        ) from None


def _read_npz(path, source):
    """The document and the arrays of a ``.npz`` model file, without ever unpickling."""
    with open(path, "rb") as handle:
        head = handle.read(6)
    if not head:
        raise ModelFileError(f"{source} is empty: not a saved model.")
    if not head.startswith(b"PK"):
        if head.lstrip()[:1] == b"{":
            raise ModelFileError(f"{source} is JSON text, not an NPZ archive: rename it to '.json'.")
        what = "a single numpy array (.npy)" if head.startswith(b"\x93NUMPY") else "not a ZIP archive"
        raise ModelFileError(f"{source} is not an NPZ archive of a saved model: it is {what}.")
    key = "__document__"
    try:
        with np.load(path, allow_pickle=False) as archive:
            if key not in archive.files:
                raise ModelFileError(
                    f"{source} is an NPZ archive but not a saved graphmodels model (it has no {key!r} entry)."
                )
            arrays = {}
            for name in archive.files:
                try:
                    arrays[name] = archive[name]
                except ValueError as error:
                    if "allow_pickle" not in str(error):
                        raise
                    raise ModelFileError(
                        f"{source} holds an object array ({name!r}), which only pickle could read; graphmodels "
                        "never loads pickled data. It was not written by graphmodels' save."
                    ) from None
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as error:
        raise ModelFileError(
            f"{source} is a damaged NPZ archive (truncated or corrupted?): {type(error).__name__}: {error}"
        ) from None
    document = arrays.pop(key)
    if document.dtype.kind != "U" or document.ndim != 0:
        raise ModelFileError(f"{source} is damaged: its {key!r} entry is not a text.")
    try:
        return json.loads(str(document)), arrays
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{source} is damaged: its {key!r} entry is not valid JSON ({error.msg}).") from None
