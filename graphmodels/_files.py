"""Files that never hurt the machine or lose what they held: atomic writes and budgeted reads.

Every file graphmodels writes goes through :func:`atomic_write`: the bytes go to a temporary
file in the target's directory, are flushed and fsynced, and only then replace the target with
``os.replace``. A failed write (a full disk, an exception half-way) leaves the previous file
intact; two concurrent writers leave one complete file; a reader never sees a half-written one.

Every file graphmodels reads goes through :func:`read_bytes`: a compressed file (gzip, bzip2,
xz, recognised by its magic bytes, not its name) is decompressed as a stream, and reading stops
with :class:`FileTooLargeError` as soon as the (decompressed) bytes pass the budget, so a small
compressed "bomb" never reaches memory. A truncated or corrupt compressed file raises a
:class:`ValueError` that says so, never ``EOFError`` or ``lzma.LZMAError``.

This module imports nothing of graphmodels, so that every layer can use it.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FileTooLargeError",
    "atomic_write",
    "compression_of",
    "open_decompressed",
    "read_bytes",
    "write_bytes",
    "write_text",
]

#: Default budget of one read, in bytes after decompression (512 MiB).
DEFAULT_MAX_BYTES = 512 * 2**20

#: Magic bytes of the compressed formats read transparently.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))

#: Bytes read at a time.
_CHUNK = 1 << 20


class FileTooLargeError(ValueError, MemoryError):
    """A file holds more bytes than the read's budget; raised before the excess is read.

    A :class:`ValueError` (the input asks for too much, and the message names the limit and the
    parameter that sets it) and a :class:`MemoryError` (what it prevents).

    Attributes
    ----------
    limit : int
        The budget in bytes that was exceeded.
    parameter : str
        The parameter that sets the budget (``"max_bytes"``).
    """

    def __init__(self, message: str, *, limit: int, parameter: str = "max_bytes") -> None:
        super().__init__(message)
        self.limit = limit
        self.parameter = parameter


def format_size(n_bytes: int) -> str:
    """``536870912`` -> ``'512 MiB'``: a byte count for a message."""
    size = float(n_bytes)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" or size == int(size) else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n_bytes} bytes"  # pragma: no cover


def compression_of(head: bytes) -> str | None:
    """The compression (``"gzip"``, ``"bzip2"``, ``"xz"``) whose magic bytes `head` starts with, or None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def _decompressing(raw: IO[bytes], compression: str | None) -> IO[bytes]:
    if compression == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if compression == "bzip2":
        import bz2

        return bz2.BZ2File(raw, mode="rb")  # type: ignore[return-value]
    if compression == "xz":
        import lzma

        return lzma.LZMAFile(raw, mode="rb")  # type: ignore[return-value]
    return raw


def _damage_errors() -> tuple[type[BaseException], ...]:
    import lzma
    import zlib

    return (EOFError, OSError, lzma.LZMAError, zlib.error)


@contextlib.contextmanager
def open_decompressed(path: str | os.PathLike[str], *, what: str = "file") -> Iterator[IO[bytes]]:
    """Open `path` for reading bytes, decompressing gzip, bzip2 or xz as a stream.

    A damaged stream raises ``ValueError`` ("... is a truncated or corrupt gzip file") when it
    is read inside the ``with`` block.
    """
    path = os.fspath(path)
    with open(path, "rb") as raw:
        compression = compression_of(raw.read(6))
        raw.seek(0)
        stream = _decompressing(raw, compression)
        try:
            yield stream
        except _damage_errors() as error:
            if compression is None or isinstance(error, (FileNotFoundError, PermissionError, IsADirectoryError)):
                raise
            raise ValueError(
                f"{what} {path!r} is a truncated or corrupt {compression} file: {type(error).__name__}: {error}"
            ) from None
        finally:
            if stream is not raw:
                stream.close()


def _read_limited(stream: IO[Any], max_bytes: int, label: str) -> Any:
    """Read `stream` to its end in chunks, refusing past `max_bytes` (bytes, or characters of text)."""
    parts = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, max_bytes + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise FileTooLargeError(
                f"{label} holds more than {format_size(max_bytes)} (after decompression), the limit of this read; "
                f"pass a larger `max_bytes` if the file is trusted and memory allows.",
                limit=max_bytes,
            )
    if not parts:
        return b"" if not isinstance(stream, io.TextIOBase) else ""
    return parts[0][:0].join(parts)


def check_max_bytes(max_bytes: Any) -> int:
    """`max_bytes` checked: a positive integer."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"`max_bytes` must be a positive integer (a number of bytes), got {max_bytes!r}.")
    return int(max_bytes)


def read_bytes(
    source: str | os.PathLike[str] | bytes | bytearray | IO[Any],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    what: str = "file",
) -> bytes | str:
    """All bytes of `source`, decompressed, within a budget.

    Parameters
    ----------
    source : path, bytes or file object
        A path or an open file (binary or text) is read to its end; bytes are taken as the
        file's content. Compressed content (gzip, bzip2, xz) is recognised by its magic bytes
        and decompressed as a stream.
    max_bytes : int
        The most bytes (after decompression; characters for a text file object) to read.
    what : str
        What the file is, for messages (``"BIF file"``).

    Returns
    -------
    bytes or str
        The content: ``str`` only when `source` is a text file object.

    Raises
    ------
    FileTooLargeError
        If the content exceeds `max_bytes`; raised as soon as the budget is passed.
    ValueError
        If compressed content is truncated or corrupt.
    """
    max_bytes = check_max_bytes(max_bytes)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        compression = compression_of(data[:6])
        label = f"{what} content"
        if compression is None:
            if len(data) > max_bytes:
                return _read_limited(io.BytesIO(data), max_bytes, label)
            return data
        stream = _decompressing(io.BytesIO(data), compression)
        try:
            return _read_limited(stream, max_bytes, label)
        except _damage_errors() as error:
            raise ValueError(
                f"{label} is truncated or corrupt {compression} data: {type(error).__name__}: {error}"
            ) from None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open_decompressed(path, what=what) as stream:
            return _read_limited(stream, max_bytes, f"{what} {path!r}")
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        label = f"{what} {name!r}" if isinstance(name, str) else what
        if isinstance(source, io.TextIOBase):
            return _read_limited(source, max_bytes, label)
        head = source.read(6)
        if isinstance(head, str):  # a text stream that is not an io.TextIOBase
            return head + _read_limited(source, max_bytes - len(head), label)
        compression = compression_of(head)
        rest = _Prefixed(head, source)
        stream = _decompressing(rest, compression)  # type: ignore[arg-type]
        try:
            return _read_limited(stream, max_bytes, label)
        except _damage_errors() as error:
            if compression is None:
                raise
            raise ValueError(
                f"{label} is truncated or corrupt {compression} data: {type(error).__name__}: {error}"
            ) from None
    raise TypeError(f"`source` must be a path, bytes or a file object, got {type(source).__name__}.")


class _Prefixed(io.RawIOBase):
    """A binary stream that gives `head` then the rest of `stream` (for a file object already sniffed)."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(view))
        view[: len(data)] = data
        return len(data)


def _default_file_mode() -> int:
    """The permission bits of a new file under the current umask (mkstemp's files are 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _fsync_directory(directory: str) -> None:
    """Make a rename in `directory` durable (best effort: not every platform opens directories)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb", *, encoding: str | None = None) -> Iterator[IO[Any]]:
    """Open a temporary file beside `path`; on success, flush, fsync and move it onto `path`.

    Parameters
    ----------
    path : str or path-like
        The file to write. Its directory must exist.
    mode : {"wb", "w"}
        Binary or text.
    encoding : str, optional
        The text encoding (text mode; default UTF-8).

    Yields
    ------
    file object
        Write to it inside the ``with`` block. When the block raises, the temporary file is
        removed and `path` is left as it was.

    Notes
    -----
    The replacement is ``os.replace``, atomic on POSIX and Windows when both names are on one
    file system, which a temporary file in the same directory guarantees. The new file gets
    the permissions a plain ``open`` would give it under the current umask; when `path`
    already exists, its permissions are kept.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"`mode` must be 'wb' or 'w', got {mode!r}.")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        try:
            permissions = os.stat(path).st_mode & 0o7777
        except OSError:
            permissions = _default_file_mode()
        with os.fdopen(fd, mode, encoding=(encoding or "utf-8") if mode == "w" else None) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, permissions)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_directory(directory)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "wb") as handle:
        handle.write(data)


def write_text(path: str | os.PathLike[str], text: str, *, compress: bool | None = None) -> None:
    """Write `text` (UTF-8) to `path` atomically; gzip-compressed when `compress` (default: a ``.gz`` path)."""
    path = os.fspath(path)
    data = text.encode("utf-8")
    if compress is None:
        compress = path.endswith(".gz")
    if compress:
        import gzip

        data = gzip.compress(data, mtime=0)
    write_bytes(path, data)
