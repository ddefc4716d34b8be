"""Helpers shared by the XMLBIF and UAI readers and writers: sources, outputs, numbers and checks.

A source is a path, an open file (text or binary), bytes, or the text itself; gzip data is
decompressed. Every message of a reader starts with the *label* of its source (the file's path
or ``"<text>"``), so an error names the file that holds the problem.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy as np

from .._files import write_text

#: What a reader accepts as its source.
Source = str | os.PathLike[str] | bytes | bytearray | IO[Any]


def _decode(data: bytes) -> str:
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # older files are Latin-1
        return data.decode("latin-1")


def read_source(source: Any, fmt: str, looks_like_text: Callable[[str], bool]) -> tuple[str, str]:
    """The text of `source` and the label naming it in messages.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or file object
        A string for which ``looks_like_text`` is true is the text itself; any other string is a path.
    fmt : str
        Name of the format, for messages ("XMLBIF", "UAI").
    looks_like_text : callable

    Returns
    -------
    text : str
    label : str
        ``"XMLBIF file 'path'"`` or ``"XMLBIF text"``.
    """
    if isinstance(source, (bytes, bytearray)):
        return _decode(bytes(source)), f"{fmt} text"
    if isinstance(source, str) and looks_like_text(source):
        return source, f"{fmt} text"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise ValueError(f"`source` is neither {fmt} text nor an existing file: {path!r}.")
        with open(path, "rb") as fh:
            return _decode(fh.read()), f"{fmt} file {path!r}"
    if hasattr(source, "read"):
        data = source.read()
        name = getattr(source, "name", None)
        label = f"{fmt} file {name!r}" if isinstance(name, str) else f"{fmt} text"
        return (data if isinstance(data, str) else _decode(data)), label
    raise TypeError(f"`source` must be a path, a file object or {fmt} text, got {type(source).__name__}.")


def write_output(text: str, path_or_file: str | os.PathLike[str] | IO[Any] | None) -> str | None:
    """Return `text` (`path_or_file` None) or write it to a path (``.gz``: gzip; atomically) or an open file."""
    if path_or_file is None:
        return text
    if hasattr(path_or_file, "write"):
        if isinstance(path_or_file, io.TextIOBase):
            path_or_file.write(text)
        else:  # a binary file object
            path_or_file.write(text.encode("utf-8"))
        return None
    # A temporary file beside the target, fsynced, then moved onto it: a failed write keeps the old file.
    write_text(os.fspath(path_or_file), text)
    return None


def number(x: float) -> str:
    """A float as ``repr`` writes it: 17 significant digits, read back exactly."""
    return repr(float(x))


def check_cpt(
    table: np.ndarray,
    child: str,
    parents: Sequence[str],
    states: Callable[[str, int], str],
    where: str,
    atol: float,
) -> None:
    """Raise ValueError naming the first conditional distribution of `table` that is not one.

    Parameters
    ----------
    table : ndarray of shape (r_parent1, ..., r_parentK, r_child)
    child : str
    parents : sequence of str
    states : callable
        ``states(variable, code)`` is the label of a state, for the message.
    where : str
        Prefix of the message (the source's label and the block).
    atol : float
    """
    if not np.all(np.isfinite(table)):
        raise ValueError(f"{where}: the probabilities of {child!r} must be finite numbers.")
    if np.any(table < 0):
        bad = float(table[table < 0].flat[0])
        raise ValueError(f"{where}: the probabilities of {child!r} must be >= 0, got {bad!r}.")
    sums = table.sum(axis=-1)
    off = np.abs(sums - 1.0) > atol
    if np.any(off):
        index = tuple(int(i) for i in np.argwhere(off)[0])
        config = ", ".join(f"{p}={states(p, i)}" for p, i in zip(parents, index))
        given = f" given {config}" if config else ""
        raise ValueError(
            f"{where}: the distribution of {child!r}{given} sums to {float(sums[index])!r}, not 1 "
            f"(tolerance {atol}): {table[index].tolist()}; pass a larger `atol` to read it anyway."
        )
