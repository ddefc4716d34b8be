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

Files from anyone
-----------------
:func:`load_model` trusts nothing in a file. It never unpickles and builds
only registered classes. It reads a JSON file within a byte budget
(``max_bytes``), and an NPZ archive entry by entry: the document first
(within ``max_bytes``), then only the entries the document names, each after
its ``.npy`` header is checked (its shape against ``max_cells``; its dtype:
numbers, booleans, text or dates, never objects; the bytes of all entries
together against ``max_bytes``) and its data read through a stream that
stops at the declared size. An entry the document does not name is refused.
A fitted entry must be one of the model's declared fitted attributes (so a
file cannot replace a method), and the decoded model is checked as a fit
would have made it (each model's ``_validate_fitted_state``): finite
log-probabilities, each distribution summing to 1 within 1e-6, shapes that
match the encoder's levels, the classes and the parents, parent indices in
range. Every failure is a :class:`ModelFileError` naming the file and the
entry.

:func:`save_model` writes through :func:`graphmodels._files.atomic_write`: a
temporary file beside the target, flushed and fsynced, then moved onto it. A
failed write (a full disk) leaves the previous file intact, two concurrent
saves leave one complete file, and a reader never sees a half-written one.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import os
import re
import struct
import zipfile
import zlib
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .._files import DEFAULT_MAX_BYTES, FileTooLargeError, atomic_write, check_max_bytes, format_size, read_bytes
from .._memory import DEFAULT_MAX_CELLS
from ..data.discretize import EqualFrequencyDiscretizer, MDLDiscretizer, _BaseDiscretizer
from ..data.encoding import TableEncoder
from ..estimators.parameters import Estimator, get_estimator
from ..structures.hyperforests import Hyperforest
from ._fitted import FittedStateError
from .registry import _BY_CLASS_NAME

__all__ = ["save_model", "load_model", "load", "ModelFileError"]

#: Version of the file format :func:`save_model` writes; :func:`load_model` reads 1 to this one.
FORMAT_VERSION = 2

#: The file extensions of saved models.
EXTENSIONS = (".json", ".npz")

#: pandas' nullable dtypes a saved DataFrame column may have (written with None for missing cells).
_NULLABLE_DTYPES = ("Int64", "boolean")

#: The NPZ entry holding the document: the JSON text of everything but the arrays.
_DOCUMENT = "__document__"

#: dtype kinds a saved array may have: booleans, integers, floats, complex, text, bytes, dates and
#: durations. Never objects, which numpy stores pickled (a JSON file writes them item by item).
_ARRAY_KINDS = "biufcUSMm"

#: Bytes read from an NPZ entry at a time.
_CHUNK = 1 << 20

#: What a damaged ZIP archive raises while it is read (zipfile, zlib and numpy's header parser).
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    struct.error,
)


class ModelFileError(ValueError):
    """A file that :func:`load_model` cannot read as a saved graphmodels model.

    The message names the file and says what is wrong with it: an extension
    other than ``.json`` or ``.npz``, an empty, truncated or corrupted file
    (not valid JSON, not UTF-8 text, a damaged ZIP archive), an NPZ archive
    holding an object array (which only pickle could read; graphmodels never
    loads pickled data) or an entry its document does not name, a JSON or NPZ
    file that is not a saved model, a model class this version does not know,
    a format version newer than this version reads, a file or an array beyond
    the load's budgets (``max_bytes``, ``max_cells``), JSON nested too deeply,
    a fitted entry that is not one of the model's fitted attributes, or
    fitted tables that no fit could have made (see :func:`load_model`). A
    ``ValueError``, so ``except ValueError`` catches it too; a missing file
    raises ``FileNotFoundError`` naming the path.
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


class _Decoder:
    """Turns a document's plain data back into values: its arrays from an NPZ archive, or checked JSON lists."""

    def __init__(self, arrays: Any, source: str, max_cells: int) -> None:
        self.arrays = arrays
        self.source = source
        self.max_cells = max_cells

    def __call__(self, value: Any) -> Any:
        decode = self
        if isinstance(value, list):
            return [decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "__npz__" in value:
            return self.arrays[value["__npz__"]]
        if "__ndarray__" in value:
            items = value["__ndarray__"]
            shape = tuple(value["shape"])
            dtype = _checked_array_header("an array of its document", shape, value["dtype"], self, objects=True)
            if dtype == np.dtype(object):
                out = np.empty(len(items), dtype=object)
                for i, item in enumerate(items):  # one by one: a tuple item is one cell
                    out[i] = decode(item)
                return out.reshape(shape)
            return np.array(items, dtype=dtype).reshape(shape)
        if "__graph__" in value:
            data = decode(value["__graph__"])
            return nx.node_link_graph(data, directed=value["directed"], edges="edges")
        if "__frame__" in value:
            columns = {}
            for name, data in value["__frame__"]:
                if isinstance(data, dict) and "__nullable__" in data:
                    columns[_hashable(decode(name))] = pd.array(data["__nullable__"], dtype=data["dtype"])
                    continue
                decoded = decode(data)
                if isinstance(decoded, list):
                    column = np.empty(len(decoded), dtype=object)
                    column[:] = [_hashable(v) if isinstance(v, list) else v for v in decoded]
                    decoded = column
                columns[_hashable(decode(name))] = decoded
            return pd.DataFrame(columns)
        if "__encoder__" in value:
            return TableEncoder.from_dict(_encoder_state(decode(value["__encoder__"])))
        if "__hyperforest__" in value:
            return Hyperforest.from_dict(decode(value["__hyperforest__"]))
        if "__estimator__" in value:
            return get_estimator(value["__estimator__"])
        if "__discretizer__" in value:
            return _BaseDiscretizer.from_dict(decode(value["__discretizer__"]))
        if "__dict__" in value:
            return {_hashable(decode(k)): decode(v) for k, v in value["__dict__"]}
        if "__tuple__" in value:
            return tuple(decode(v) for v in value["__tuple__"])
        if "__frozenset__" in value:
            return frozenset(_hashable(decode(v)) for v in value["__frozenset__"])
        if "__model__" in value:
            return _decode_model(value["__model__"], self, _NESTED)
        return {k: decode(v) for k, v in value.items()}


def _pickled(source, entry):
    return (
        f"{source} holds an object array ({entry}), which only pickle could read; graphmodels never loads "
        "pickled data. It was not written by graphmodels' save."
    )


def _checked_array_header(entry, shape, dtype, decoder, *, objects=False):
    """The dtype of an array declared with `shape` and `dtype`, checked before anything is allocated.

    The shape must be non-negative integers whose product is at most ``max_cells``,
    the dtype one of :data:`_ARRAY_KINDS` (or an object array written item by item in
    JSON, when `objects`), its bytes at most those of ``max_cells`` float64 cells.
    """
    source = decoder.source
    if not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) and n >= 0 for n in shape):
        raise ModelFileError(f"{source} is damaged: the shape of {entry} is {shape!r}, not sizes.")
    dtype = np.dtype(dtype)
    if dtype.hasobject and not (objects and dtype == np.dtype(object)):
        raise ModelFileError(_pickled(source, entry))
    if dtype.kind not in _ARRAY_KINDS + ("O" if objects else "") or dtype.fields is not None or dtype.subdtype:
        raise ModelFileError(f"{source} is damaged: the dtype of {entry} is {dtype}, which save never writes.")
    cells = math.prod(int(n) for n in shape)
    if cells > decoder.max_cells or cells * dtype.itemsize > 8 * decoder.max_cells:
        raise ModelFileError(
            f"{source} declares an array of shape {tuple(int(n) for n in shape)} ({dtype}, {cells:,} cells, "
            f"{format_size(cells * dtype.itemsize)}) in {entry}, more than max_cells={decoder.max_cells:,} cells "
            f"({format_size(8 * decoder.max_cells)}). If the file is trusted and memory allows, pass a larger "
            "`max_cells` to load_model."
        )
    return dtype


def _decode_model(document, decoder, source):
    """The model written by :func:`_encode_model`, its class looked up in the registry, its fitted state checked."""
    if not isinstance(document, dict) or not {"model", "params", "fitted"} <= set(document):
        raise ModelFileError(f"{source} is damaged: a saved model has the entries 'model', 'params' and 'fitted'.")
    cls = _registered_class(document["model"]) if isinstance(document["model"], str) else None
    if cls is None:
        raise ModelFileError(
            f"Unknown model {document['model']!r} in {source}; known: {sorted(_BY_CLASS_NAME)}. "
            "It was saved by another version of graphmodels, or by a model class registered in code "
            "that is not imported here."
        )
    fitted = document["fitted"]
    if not isinstance(fitted, dict):
        raise ModelFileError(f"{source} is damaged: its 'fitted' entry is not a mapping of names to values.")
    declared = cls._declared_fitted_attributes()
    undeclared = [name for name in fitted if name not in declared]  # never set: a file cannot replace a method
    # A hyperparameter added after the file was written takes the value the model was fitted
    # with, not today's default (ChowLiu's `representation`: files before it fitted per class).
    params = {**getattr(cls, "_params_of_older_files", {}), **decoder(document["params"])}
    model = cls(**params)
    try:
        model._validate_params()
    except ValueError as error:  # InvalidParameterError, or a cross-parameter rule
        raise ModelFileError(f"{_damaged(source, cls)}its hyperparameters: {error}") from None
    state = vars(model)
    for name, value in getattr(cls, "_fitted_of_older_files", {}).items():
        if name not in fitted:
            state[name] = value
    for name, value in fitted.items():
        if name in declared:
            state[name] = decoder(value)
    if model._is_fitted():
        if undeclared:
            raise ModelFileError(
                f"{_damaged(source, cls)}its fitted entry {undeclared[0]!r} is not a fitted attribute of "
                f"{cls.__name__} (those are {sorted(declared)}); graphmodels' save never writes it."
            )
        try:
            model._validate_fitted_state()
        except FittedStateError as error:
            raise ModelFileError(f"{_damaged(source, cls)}{error}") from None
    return model


#: The `source` of a model nested in another: its errors name the file when the outer model's load catches them.
_NESTED = "a nested model"


def _damaged(source, cls):
    """The start of a message about a model of class `cls` read from `source` (or nested in a file's model)."""
    if source == _NESTED:
        return f"in a nested {cls.__name__}, "
    return f"{source} is damaged: in its {cls.__name__}, "


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

    The file is written atomically: to a temporary file in the same
    directory, flushed and fsynced, then moved onto `path`
    (:func:`graphmodels._files.atomic_write`). If the write fails (a full
    disk), the previous file at `path` is left as it was; of two saves to
    the same path at once, one complete file remains.

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
    OSError
        If the file cannot be written; nothing at `path` has changed.
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
        with atomic_write(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        payload: dict[str, Any] = {_DOCUMENT: np.array(text), **arrays}
        with atomic_write(path, "wb") as handle:
            np.savez_compressed(handle, **payload)


def load(path: str | os.PathLike[str], **budgets: int) -> Any:
    """Deprecated alias of :func:`load_model` (``gm.load`` read like loading data)."""
    import warnings

    warnings.warn("`graphmodels.load` is deprecated; use `graphmodels.load_model`.", FutureWarning, stacklevel=2)
    return load_model(path, **budgets)


def load_model(
    path: str | os.PathLike[str], *, max_cells: int = DEFAULT_MAX_CELLS, max_bytes: int = DEFAULT_MAX_BYTES
) -> Any:
    """Load a model written by :meth:`~graphmodels.models.base.BaseModel.save`.

    The file may come from anyone: nothing in it is executed or unpickled,
    and what it holds is checked before it is used (see Notes).

    Parameters
    ----------
    path : str or path-like
        A ``.json`` or ``.npz`` file.
    max_cells : int, default=10_000_000
        The most cells (and bytes of that many float64 cells, 80 MB by default)
        of one array of the file, checked against its declared shape before
        it is read; the budget a model's ``max_cells`` sets for its own tables.
    max_bytes : int, default=536_870_912
        The most bytes read: of a JSON file (after decompression), or of an
        NPZ archive's document and arrays together, as their headers declare
        them (512 MiB by default). A JSON file becomes Python objects of up to
        ~20 times its size while it is parsed.

    Returns
    -------
    model
        The fitted model (of the class named in the file).

    Raises
    ------
    ModelFileError
        If the file cannot be read as a saved graphmodels model, holds more
        than the budgets allow, or holds tables no fit could have made; the
        message names the file, the entry and what is wrong (see
        :class:`ModelFileError`).
    FileNotFoundError
        If there is no file at `path`.

    Notes
    -----
    An NPZ archive is read entry by entry: its document first, then only the
    arrays the document names, each once its ``.npy`` header has been checked
    (the shape against `max_cells`, the dtype: never an object array, which
    only pickle could read) and through a stream that stops at the size the
    header declares; an archive holding any other entry is refused. Only the
    registered model classes are built, and only with their own fitted
    attributes (a file cannot replace a method). The model is then checked
    as a fit would have made it: every table finite, probabilities in [0, 1]
    (log-probabilities at most 0) and each distribution summing to 1 within
    1e-6 (a discriminative fit's log-potentials: finite), shapes that match
    the encoder's levels, the classes and the parents, parent indices in
    range and parent maps without cycles, ``classes_`` as long as the class
    prior.
    """
    if isinstance(max_cells, bool) or not isinstance(max_cells, numbers.Integral) or max_cells < 1:
        raise ValueError(f"`max_cells` must be a positive integer (a number of cells), got {max_cells!r}.")
    max_bytes = check_max_bytes(max_bytes)
    path = os.fspath(path)
    source = repr(path)
    extension = os.path.splitext(path)[1].lower()
    if extension not in EXTENSIONS:
        raise ModelFileError(
            f"Cannot load {source}: a saved model is a '.json' or '.npz' file (written by model.save), "
            f"got {extension or 'no extension'!r}. graphmodels never reads pickle files."
        )
    if extension == ".json":
        return _load_document(_read_json(path, source, max_bytes), _Decoder({}, source, int(max_cells)))
    with _NpzEntries(path, source, int(max_cells), max_bytes) as entries:
        model = _load_document(entries.document, _Decoder(entries, source, int(max_cells)))
        entries.check_all_read()
    return model


def _load_document(document, decoder):
    """The model of a file's document: its format and version checked, decoded, its fitted state checked."""
    source = decoder.source
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
    depth = _nesting_depth(document)
    if depth > MAX_NESTING_DEPTH:
        raise ModelFileError(
            f"{source} is damaged: its document is nested too deeply to decode ({depth} levels, more than "
            f"{MAX_NESTING_DEPTH}; graphmodels' save never nests it so)."
        )
    try:
        model = _decode_model(document, decoder, source)
    except ModelFileError as error:
        if source in str(error):
            raise
        raise ModelFileError(f"{source} is damaged: {error}") from None  # from a nested model
    except RecursionError:
        raise ModelFileError(
            f"{source} is damaged: its document is nested too deeply to decode (graphmodels' save never nests it so)."
        ) from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        raise ModelFileError(
            f"{source} is damaged, or was not written by graphmodels: {type(error).__name__}: {error}"
        ) from None
    if not model._is_fitted():
        raise ModelFileError(f"{source} is damaged: the {type(model).__name__} it holds is not fitted.")
    return model


#: The deepest nesting of lists and objects a model document may have. A saved model nests a few
#: levels per nested model; the bound makes the check independent of Python's recursion limit.
MAX_NESTING_DEPTH = 200


def _nesting_depth(document):
    """The deepest nesting of lists and dicts in `document`, walked without recursion."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth)
        if depth > MAX_NESTING_DEPTH:
            return depth  # deep enough to refuse; no need to walk the rest
        stack.extend((item, depth + 1) for item in value)
    return deepest


def _parse_json(text, source, what):
    """The value of JSON `text`; JSON nested past Python's recursion limit is a ModelFileError, not a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ModelFileError(
            f"{source} is not a saved model: {what} is nested too deeply to parse (graphmodels' save never nests it so)."
        ) from None


def _read_json(path, source, max_bytes):
    """The document of a ``.json`` model file, read within `max_bytes`."""
    try:
        data = read_bytes(path, max_bytes=max_bytes, what="model file")
    except FileTooLargeError:
        raise ModelFileError(
            f"{source} holds more than {format_size(max_bytes)}, the limit of this load; if the file is trusted "
            "and memory allows, pass a larger `max_bytes` to load_model."
        ) from None
    except ValueError as error:  # a damaged gzip, bzip2 or xz stream
        raise ModelFileError(str(error)) from None
    assert isinstance(data, bytes)
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
        return _parse_json(text, source, "its JSON")
    except json.JSONDecodeError as error:
        raise ModelFileError(
            f"{source} is not valid JSON (truncated or corrupted?): {error.msg} at line {error.lineno}, "
            f"column {error.colno}."
        ) from None


#: A reference to an NPZ entry as JSON writes it: ``{"__npz__": "a12"}``. Within a JSON string a quote
#: is escaped, so the pattern matches only the document's own keys and values.
_REFERENCE = re.compile(r'"__npz__"\s*:\s*"([^"\\]*)"')


def _npz_references(text):
    """The NPZ entries the document `text` names (``{"__npz__": key}``), found in its text in one pass.

    A key written with escapes is not found, and its entry is then refused: the safe side.
    """
    return set(_REFERENCE.findall(text))


class _NpzEntries:
    """The arrays of an NPZ model file, each read when the document asks for it, within the load's budgets.

    A context manager: entering opens the archive, reads the document (``document``)
    and refuses any entry the document does not name; ``entries[key]`` then reads
    the array ``key`` once, its header checked before its data is decompressed.
    """

    def __init__(self, path: str, source: str, max_cells: int, max_bytes: int) -> None:
        self.path = path
        self.source = source
        self.max_cells = max_cells
        self.remaining = max_bytes  # bytes the arrays may still take
        self.max_bytes = max_bytes
        self.document: Any = None
        self._arrays: dict[str, np.ndarray] = {}
        self._archive: zipfile.ZipFile | None = None
        self._members: dict[str, zipfile.ZipInfo] = {}

    def __enter__(self) -> _NpzEntries:
        self._check_head()
        try:
            with contextlib.ExitStack() as stack:
                self._archive = stack.enter_context(zipfile.ZipFile(self.path))
                self._open()
                self._stack = stack.pop_all()
        except ModelFileError:
            raise
        except _ARCHIVE_ERRORS as error:
            raise self._damaged(error) from None
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stack.close()

    def _damaged(self, error):
        return ModelFileError(
            f"{self.source} is a damaged NPZ archive (truncated or corrupted?): {type(error).__name__}: {error}"
        )

    def _check_head(self):
        with open(self.path, "rb") as handle:
            head = handle.read(6)
            size = os.fstat(handle.fileno()).st_size
        if size > self.max_bytes:  # its directory alone would be read into memory
            raise ModelFileError(
                f"{self.source} is a file of {size:,} bytes, more than max_bytes={self.max_bytes:,}, the limit of this "
                "load; if the file is trusted and memory allows, pass a larger `max_bytes` to load_model."
            )
        if not head:
            raise ModelFileError(f"{self.source} is empty: not a saved model.")
        if not head.startswith(b"PK"):
            if head.lstrip()[:1] == b"{":
                raise ModelFileError(f"{self.source} is JSON text, not an NPZ archive: rename it to '.json'.")
            what = "a single numpy array (.npy)" if head.startswith(b"\x93NUMPY") else "not a ZIP archive"
            raise ModelFileError(f"{self.source} is not an NPZ archive of a saved model: it is {what}.")

    def _open(self):
        """Read the document, then refuse every entry it does not name (before reading any array)."""
        assert self._archive is not None
        for info in self._archive.infolist():
            if info.filename in self._members:
                raise ModelFileError(f"{self.source} is damaged: it holds the entry {info.filename!r} twice.")
            self._members[info.filename] = info
        document_member = f"{_DOCUMENT}.npy"
        if document_member not in self._members:
            raise ModelFileError(
                f"{self.source} is an NPZ archive but not a saved graphmodels model (it has no {_DOCUMENT!r} entry)."
            )
        with self._archive.open(self._members[document_member]) as stream:
            shape, fortran_order, dtype = self._header(stream, repr(_DOCUMENT))
            if dtype.kind != "U" or shape != ():
                raise ModelFileError(f"{self.source} is damaged: its {_DOCUMENT!r} entry is not a text.")
            text = str(self._data(stream, shape, fortran_order, dtype, repr(_DOCUMENT))[()])
        try:
            self.document = _parse_json(text, self.source, f"its {_DOCUMENT!r} entry")
        except json.JSONDecodeError as error:
            raise ModelFileError(
                f"{self.source} is damaged: its {_DOCUMENT!r} entry is not valid JSON ({error.msg})."
            ) from None
        named = {f"{key}.npy" for key in _npz_references(text)} | {document_member}
        for member, info in self._members.items():
            if member not in named:
                key = member[:-4] if member.endswith(".npy") else member
                with self._archive.open(info) as stream:  # an object array says so: it is what pickle would read
                    _, _, dtype = self._header(stream, repr(key), check=False)
                if dtype.hasobject:
                    raise ModelFileError(_pickled(self.source, repr(key)))
                raise ModelFileError(
                    f"{self.source} holds the entry {key!r}, which its document does not name; graphmodels' save "
                    "never writes one, and load_model reads no entry it was not asked for."
                )

    def check_all_read(self) -> None:
        """Refuse an entry the document names where the model does not read it (never decompressed)."""
        unread = sorted(set(self._members) - {f"{key}.npy" for key in self._arrays} - {f"{_DOCUMENT}.npy"})
        if unread:
            raise ModelFileError(
                f"{self.source} holds the entry {unread[0][:-4]!r}, which its model does not use; graphmodels' save "
                "never writes one."
            )

    def __getitem__(self, key: Any) -> np.ndarray:
        if not isinstance(key, str) or f"{key}.npy" not in self._members:
            raise KeyError(f"the document names the array {key!r}, which the archive does not hold")
        if key not in self._arrays:
            assert self._archive is not None
            try:
                with self._archive.open(self._members[f"{key}.npy"]) as stream:
                    shape, fortran_order, dtype = self._header(stream, repr(key))
                    self._arrays[key] = self._data(stream, shape, fortran_order, dtype, repr(key))
            except ModelFileError:
                raise
            except _ARCHIVE_ERRORS as error:
                raise self._damaged(error) from None
        return self._arrays[key]

    def _header(self, stream, entry, *, check=True):
        """``(shape, fortran_order, dtype)`` of the ``.npy`` entry `stream`, checked against the budgets (`check`)."""
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ModelFileError(f"{self.source} is damaged: its entry {entry} is in .npy format {version}.")
        if not check:
            return shape, fortran_order, dtype
        if entry == repr(_DOCUMENT):
            if dtype.kind == "U" and shape == () and dtype.itemsize > self.remaining:
                raise ModelFileError(
                    f"{self.source} declares a document of {format_size(dtype.itemsize)}, more than "
                    f"{format_size(self.max_bytes)}, the limit of this load; if the file is trusted and memory "
                    "allows, pass a larger `max_bytes` to load_model."
                )
            return shape, fortran_order, dtype
        _checked_array_header(entry, shape, dtype, self)
        return shape, fortran_order, dtype

    def _data(self, stream, shape, fortran_order, dtype, entry):
        """The array of `shape` read from `stream`: exactly the bytes its header declares, within the budget."""
        cells = math.prod(shape)
        n_bytes = cells * dtype.itemsize
        if n_bytes > self.remaining:
            raise ModelFileError(
                f"{self.source} declares arrays of more than {format_size(self.max_bytes)} in all (its entry {entry} "
                f"alone {format_size(n_bytes)}), the limit of this load; if the file is trusted and memory allows, "
                "pass a larger `max_bytes` to load_model."
            )
        self.remaining -= n_bytes
        flat = np.empty(cells, dtype=dtype)
        view = memoryview(flat.view(np.uint8)) if n_bytes else memoryview(b"")
        filled = 0
        while filled < n_bytes:
            n_read = stream.readinto(view[filled : filled + _CHUNK])
            if not n_read:
                raise ModelFileError(
                    f"{self.source} is damaged: its entry {entry} holds fewer bytes than its header declares."
                )
            filled += n_read
        if stream.read(1):  # also reaches the end, where zipfile checks the entry's CRC
            raise ModelFileError(
                f"{self.source} is damaged: its entry {entry} holds more bytes than its header declares."
            )
        if fortran_order:
            return flat.reshape(shape[::-1]).transpose()
        return flat.reshape(shape)
