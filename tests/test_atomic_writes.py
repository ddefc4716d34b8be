"""Every writer of the package writes atomically: a write that fails half-way (a full disk) leaves
the previous file as it was and no temporary file behind (issue 26)."""

import builtins
import errno
import gzip
import os
from types import SimpleNamespace

import networkx as nx
import pandas as pd
import pytest

from graphmodels import cli
from graphmodels.io import write_bif, write_uai, write_xmlbif
from graphmodels.networks import DiscreteBayesianNetwork
from graphmodels.plotting import show, to_dot, to_graphml
from graphmodels.reporting import Report

PREVIOUS = b"the previous, complete file\n"

NETWORK = DiscreteBayesianNetwork(
    {"rain": (), "wet": ("rain",)},
    {"rain": ["no", "yes"], "wet": ["no", "yes"]},
    {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
    name="rain",
)


class _FillingFile:
    """A file that takes `room` bytes (or characters), then fails as a full disk does."""

    def __init__(self, handle, room):
        self._handle = handle
        self._room = room

    def write(self, data):
        if len(data) > self._room:
            self._handle.write(data[: self._room])
            self._room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._handle.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._handle.close()

    def __iter__(self):
        return iter(self._handle)

    def __getattr__(self, name):
        return getattr(self._handle, name)


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """Files opened for writing in `tmp_path` take 16 bytes, then raise ``OSError(ENOSPC)``."""
    room = 16
    real_open, real_fdopen = builtins.open, os.fdopen

    def writing(mode):
        return isinstance(mode, str) and any(c in mode for c in "wax+")

    def fake_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        inside = isinstance(file, (str, os.PathLike)) and os.path.abspath(file).startswith(str(tmp_path))
        return _FillingFile(handle, room) if inside and writing(mode) else handle

    def fake_fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return _FillingFile(handle, room) if writing(mode) else handle

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "fdopen", fake_fdopen)
    return tmp_path


def _previous(path):
    path.write_bytes(PREVIOUS)
    return path


def _intact(path):
    assert path.read_bytes() == PREVIOUS
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name], "a temporary file was left behind"


def _report_page():
    empty = pd.DataFrame()
    return Report(
        fragment="<p>" + "x" * 1000 + "</p>",
        title="t",
        columns=empty,
        mutual_information=empty,
        conditional_mutual_information=empty,
        cv_results=empty,
        cv_summary=empty,
        models={},
        interactions={},
        seconds={},
    )


WRITERS = {
    "bif": ("net.bif", lambda path: write_bif(NETWORK, path)),
    "xmlbif": ("net.xml", lambda path: write_xmlbif(NETWORK, path)),
    "uai.gz": ("net.uai.gz", lambda path: write_uai(NETWORK, path)),
    "graphml": ("net.graphml", lambda path: to_graphml(NETWORK.graph, path)),
    "graphml.gz": ("net.graphml.gz", lambda path: to_graphml(NETWORK.graph, path)),
    "dot": ("net.dot", lambda path: to_dot(NETWORK.graph, path)),
    "report": ("page.html", lambda path: _report_page().save(path)),
    "notebook html": ("shown.html", lambda path: show(NETWORK).save(path)),
    "notebook svg": ("shown.svg", lambda path: show(NETWORK).save(path)),
}


@pytest.mark.parametrize("kind", list(WRITERS))
def test_a_failed_write_leaves_the_previous_file(kind, full_disk):
    name, write = WRITERS[kind]
    path = _previous(full_disk / name)
    with pytest.raises(OSError) as caught:
        write(path)
    assert caught.value.errno == errno.ENOSPC
    _intact(path)


@pytest.mark.parametrize("kind", list(WRITERS))
def test_a_successful_write_replaces_the_file(kind, tmp_path):
    name, write = WRITERS[kind]
    path = _previous(tmp_path / name)
    write(path)
    data = path.read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    assert data != PREVIOUS and len(data) > 40
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    if "graphml" in name:
        assert sorted(nx.read_graphml(path).edges) == [("rain", "wet")]


def test_a_drawing_the_command_fails_to_write_leaves_the_previous_file(full_disk, capsys):
    path = _previous(full_disk / "model.png")
    code = cli.main(["fit", "lenses", "--model", "nb", "--draw", str(path)])
    assert code == 2
    assert "No space left on device" in capsys.readouterr().err
    _intact(path)


def test_an_animation_the_command_fails_to_write_leaves_the_previous_file(full_disk, monkeypatch, capsys):
    import matplotlib.pyplot as plt

    import graphmodels.plotting

    figure = plt.figure()

    def fake_animate(model, **options):  # writes as matplotlib's Pillow writer does: to the name it is given
        def save(filename, writer=None, dpi=None):
            assert filename.endswith(".gif") and os.path.dirname(os.path.abspath(filename)) == str(full_disk)
            with open(filename, "wb") as handle:
                handle.write(b"GIF89a" + b"\0" * 500)

        return SimpleNamespace(_fig=figure, frames=[0], save=save)

    monkeypatch.setattr(graphmodels.plotting, "animate", fake_animate)
    path = _previous(full_disk / "search.gif")
    code = cli.main(["animate", "lenses", "--model", "tan", "--out", str(path)])
    assert code == 2, capsys.readouterr().err
    assert "No space left on device" in capsys.readouterr().err
    _intact(path)
