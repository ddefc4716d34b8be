"""The tutorials of examples/tutorials/ run, each alone, so that the gallery cannot rot.

The documentation build (sphinx-gallery, ``docs/conf.py``) executes them too; these tests
catch a broken tutorial without building the docs. Each script runs as ``__main__`` in the test's
process (the Agg backend, its own folder, matplotlib's settings and the warning filters restored
after), on the full bundled data it teaches with; a process of its own would import graphmodels,
pandas and matplotlib again for each (about 2 s a script).
"""

from __future__ import annotations

import ast
import runpy
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "examples" / "tutorials"
SCRIPTS = sorted(TUTORIALS.glob("plot_*.py"))


def test_tutorials_exist():
    assert len(SCRIPTS) >= 1
    assert (TUTORIALS / "GALLERY_HEADER.rst").is_file()


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_tutorial_has_title_and_references(script):
    # sphinx-gallery takes the page title from the docstring's first line, underlined with "=".
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring is not None
    title, underline = docstring.splitlines()[:2]
    assert set(underline) == {"="} and len(underline) == len(title)
    assert "References" in docstring


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_tutorial_runs(script, tmp_path, monkeypatch):
    import matplotlib
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    try:
        with matplotlib.rc_context(), warnings.catch_warnings():
            runpy.run_path(str(script), run_name="__main__")
    finally:
        plt.close("all")
