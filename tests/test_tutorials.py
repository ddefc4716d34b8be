"""The tutorials of examples/tutorials/ run, each alone, so that the gallery cannot rot.

The documentation build (sphinx-gallery, ``docs/conf.py``) executes them too; these tests
catch a broken tutorial without building the docs. Each script runs in its own process with
the Agg backend, on the full bundled data it teaches with (each takes well under a minute).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "examples" / "tutorials"
SCRIPTS = sorted(TUTORIALS.glob("plot_*.py"))
#: Seconds one tutorial may take: the issue asks for under a minute, with room for a busy machine.
TIMEOUT = 120


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
def test_tutorial_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
