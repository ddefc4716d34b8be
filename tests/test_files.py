"""Atomic writes and budgeted reads (graphmodels._files): the base of every reader and writer."""

import bz2
import gzip
import io
import lzma
import os
import threading

import pytest

from graphmodels._files import FileTooLargeError, atomic_write, read_bytes, write_bytes, write_text


def test_atomic_write_replaces_the_file_whole(tmp_path):
    path = tmp_path / "model.json"
    write_text(path, "old")
    write_text(path, "new")
    assert path.read_text() == "new"
    assert os.listdir(tmp_path) == ["model.json"]  # no temporary file left behind


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    path = tmp_path / "model.json"
    write_text(path, "previous content")
    with pytest.raises(OSError, match="disk full"):
        with atomic_write(path, "w") as handle:
            handle.write("half of the new")
            raise OSError(28, "disk full")
    assert path.read_text() == "previous content"
    assert os.listdir(tmp_path) == ["model.json"]


def test_a_new_file_gets_the_permissions_of_open(tmp_path):
    mask = os.umask(0o022)
    try:
        path = tmp_path / "a.txt"
        write_bytes(path, b"x")
        assert os.stat(path).st_mode & 0o777 == 0o644
        os.chmod(path, 0o600)
        write_bytes(path, b"y")  # an existing file keeps its permissions
        assert os.stat(path).st_mode & 0o777 == 0o600
    finally:
        os.umask(mask)


def test_concurrent_writers_leave_one_complete_file(tmp_path):
    path = tmp_path / "shared.txt"
    texts = [str(i) * 200_000 for i in range(8)]
    threads = [threading.Thread(target=write_text, args=(path, text)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert path.read_text() in texts
    assert os.listdir(tmp_path) == ["shared.txt"]


def test_write_text_compresses_a_gz_path(tmp_path):
    path = tmp_path / "net.bif.gz"
    write_text(path, "network x { }")
    assert gzip.decompress(path.read_bytes()) == b"network x { }"


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress, lambda data: data])
def test_read_bytes_decompresses_by_magic_bytes(tmp_path, compress):
    data = b"variable a { }\n" * 100
    path = tmp_path / "file.any"
    path.write_bytes(compress(data))
    assert read_bytes(path) == data
    assert read_bytes(path.read_bytes()) == data
    with open(path, "rb") as handle:
        assert read_bytes(handle) == data


def test_a_compressed_bomb_is_refused_at_the_budget(tmp_path):
    path = tmp_path / "bomb.gz"
    path.write_bytes(gzip.compress(b"\0" * (50 * 2**20)))  # 50 KiB on disk, 50 MiB inside
    assert path.stat().st_size < 2**20
    with pytest.raises(FileTooLargeError, match=r"more than 1 MiB.*max_bytes") as info:
        read_bytes(path, max_bytes=2**20, what="BIF file")
    assert info.value.limit == 2**20 and "BIF file" in str(info.value)
    with pytest.raises(MemoryError):  # also a MemoryError
        read_bytes(path.read_bytes(), max_bytes=2**20)


def test_a_text_file_object_is_read_within_its_budget():
    assert read_bytes(io.StringIO("abc"), max_bytes=3) == "abc"
    with pytest.raises(FileTooLargeError):
        read_bytes(io.StringIO("abcd"), max_bytes=3)


@pytest.mark.parametrize(
    ("compress", "name"), [(gzip.compress, "gzip"), (bz2.compress, "bzip2"), (lzma.compress, "xz")]
)
def test_a_truncated_compressed_file_is_a_value_error(tmp_path, compress, name):
    path = tmp_path / "cut"
    path.write_bytes(compress(os.urandom(50_000))[:-100])
    with pytest.raises(ValueError, match=f"truncated or corrupt {name}"):
        read_bytes(path)


@pytest.mark.parametrize("max_bytes", [0, -1, 1.5, True, "10"])
def test_max_bytes_is_checked(max_bytes):
    with pytest.raises(ValueError, match="`max_bytes` must be a positive integer"):
        read_bytes(b"abc", max_bytes=max_bytes)
