"""Helpers shared by the BIF, XMLBIF and UAI readers and writers: sources, outputs, numbers and checks.

A source is a path, an open file (text or binary), bytes, or the text itself. It is read through
:func:`graphmodels._files.read_bytes`: compressed data (gzip, bzip2, xz, recognised by their magic
bytes) is decompressed as a stream, and reading stops with :class:`FileTooLargeError` as soon as
the text passes ``max_bytes``. Every message of a reader starts with the *label* of its source
(the file's path or ``"<text>"``), so an error names the file that holds the problem.

The readers parse the runs of numbers of their tables with numpy (:func:`plain_numbers`), not one
Python float at a time; a run that numpy cannot read as plain decimal numbers is left to each
reader's careful token-by-token path, which names the token and its line.
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy as np

from .._files import DEFAULT_MAX_BYTES, FileTooLargeError, check_max_bytes, format_size, read_bytes, write_text

#: What a reader accepts as its source.
Source = str | os.PathLike[str] | bytes | bytearray | IO[Any]

#: What the runs of numbers parsed by numpy may hold: digits, signs, points, exponents, separators.
_PLAIN_NUMBER_BYTES = b"0123456789.+-eE \t\n\r\x0b\x0c,|"


def decode(data: bytes | str) -> str:
    """`data` as text: UTF-8, or Latin-1 (older files) when it is not UTF-8."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # older files are Latin-1
        return data.decode("latin-1")


def read_source(
    source: Any, fmt: str, looks_like_text: Callable[[str], bool], max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[bytes | str, str]:
    """The content of `source` (decompressed, within `max_bytes`) and the label naming it in messages.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or file object
        A string for which ``looks_like_text`` is true is the text itself; any other string is a path.
    fmt : str
        Name of the format, for messages ("BIF", "XMLBIF", "UAI").
    looks_like_text : callable
    max_bytes : int
        The most bytes to read (after decompression; characters of a text given as a string).

    Returns
    -------
    content : bytes or str
        ``str`` for a string or a text file object, else ``bytes`` (see :func:`decode`).
    label : str
        ``"XMLBIF file 'path'"`` or ``"XMLBIF text"``.

    Raises
    ------
    FileTooLargeError
        If the content passes `max_bytes` (a ValueError); the message names the limit.
    ValueError
        If compressed content is truncated or corrupt, or a path names no file.
    """
    max_bytes = check_max_bytes(max_bytes)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source) if isinstance(source, memoryview) else source
        return read_bytes(data, max_bytes=max_bytes, what=fmt), f"{fmt} text"
    if isinstance(source, str) and looks_like_text(source):
        if len(source) > max_bytes:
            raise FileTooLargeError(
                f"{fmt} text holds more than {format_size(max_bytes)}, the limit of this read; pass a larger "
                "`max_bytes` if memory allows.",
                limit=max_bytes,
            )
        return source, f"{fmt} text"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise ValueError(f"`source` is neither {fmt} text nor an existing file: {path!r}.")
        return read_bytes(path, max_bytes=max_bytes, what=f"{fmt} file"), f"{fmt} file {path!r}"
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        label = f"{fmt} file {name!r}" if isinstance(name, str) else f"{fmt} text"
        return read_bytes(source, max_bytes=max_bytes, what=f"{fmt} file"), label
    raise TypeError(f"`source` must be a path, a file object or {fmt} text, got {type(source).__name__}.")


def plain_numbers(run: str | bytes, *, commas: bool = True) -> np.ndarray | None:
    """The numbers of `run`, separated by white space (and ``,`` or ``|``), parsed by numpy in one call.

    Parameters
    ----------
    run : str or bytes
        ASCII text of plain decimal numbers (``0.25``, ``-1e-3``) and separators.
    commas : bool, default=True
        Whether ``,`` and ``|`` separate numbers too (BIF); else they make the run not plain.

    Returns
    -------
    ndarray of float64 or None
        None when `run` holds anything else (``nan``, ``inf``, a word, a comment, a non-ASCII
        character) or a token numpy cannot read: the caller's careful path then reads it
        token by token and names what is wrong. A number reads as Python's ``float`` reads it
        (both round correctly).
    """
    if isinstance(run, str):
        if not run.isascii():
            return None
        data = run.encode("ascii")
    else:
        data = run
    if data.translate(None, _PLAIN_NUMBER_BYTES if commas else _PLAIN_NUMBER_BYTES[:-2]):
        return None
    if commas and (b"," in data or b"|" in data):
        data = data.replace(b",", b" ").replace(b"|", b" ")
    try:
        with warnings.catch_warnings():  # numpy 1.x warns (DeprecationWarning) where numpy 2 raises
            warnings.simplefilter("error", DeprecationWarning)
            return np.fromstring(data, sep=" ")
    except (ValueError, DeprecationWarning):
        return None


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
