"""The notebooks of examples/notebooks/ run from top to bottom, so they cannot rot.

Each notebook is executed once per test session with nbclient in a ``python3`` kernel (the
``notebook`` extra: ``pip install -e ".[notebook]"``), on this checkout, in a temporary
folder; the tests then read its outputs (cells are found by their tag). The interchange
notebook also needs the ``interop`` extra (pgmpy, pyAgrum). The executed notebook is written
as one HTML page (:func:`notebook_html`: markdown, code, and the outputs as a browser shows
them: HTML, SVG, PNG, text) for a person or a browser test to open.

The committed notebooks carry no outputs: that is checked without running anything.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import json
import os
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "examples" / "notebooks"
NAMES = ["quick_start", "interchange"]
#: Packages a notebook needs besides graphmodels and the notebook extra.
NEEDS = {"interchange": ("pgmpy", "pyagrum")}
NOTEBOOK_EXTRA = "needs the notebook extra: pip install 'graphmodels[notebook]'"
#: Most seconds one cell may take (each notebook runs in a few seconds).
CELL_TIMEOUT = 180


def test_every_notebook_is_tested():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebooks_have_no_outputs(name):
    notebook = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, cell["source"]


# ---------------------------------------------------------------------------- running them
@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """``executed(name)`` -> (the executed notebook, seconds it took, path of its HTML page); run once each."""
    nbformat = pytest.importorskip("nbformat", reason=NOTEBOOK_EXTRA)
    nbclient = pytest.importorskip("nbclient", reason=NOTEBOOK_EXTRA)
    pytest.importorskip("ipykernel", reason=NOTEBOOK_EXTRA)
    from jupyter_client.kernelspec import KernelSpecManager

    if "python3" not in KernelSpecManager().find_kernel_specs():
        pytest.skip("no python3 Jupyter kernel: run `python -m ipykernel install --user`")
    folder = tmp_path_factory.mktemp("notebooks")
    # the kernel imports this checkout, as tests/test_lazy_imports.py does
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    done = {}

    def run(name):
        if name not in done:
            missing = [m for m in NEEDS.get(name, ()) if importlib.util.find_spec(m) is None]
            if missing:
                pytest.skip(f"{name}.ipynb needs {', '.join(missing)}: pip install 'graphmodels[interop]'")
            notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
            client = nbclient.NotebookClient(
                notebook,
                timeout=CELL_TIMEOUT,
                kernel_name="python3",
                resources={"metadata": {"path": str(folder)}},
            )
            start = time.perf_counter()
            client.execute(env=env)
            seconds = time.perf_counter() - start
            page = folder / f"{name}.html"
            page.write_text(notebook_html(notebook, title=name), encoding="utf-8")
            done[name] = (notebook, seconds, page)
        return done[name]

    return run


def tagged(notebook, tag):
    """The code cell carrying `tag` in its metadata."""
    (cell,) = [c for c in notebook.cells if tag in c.metadata.get("tags", [])]
    return cell


def stdout(cell):
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_without_errors(executed, name):
    notebook, seconds, _ = executed(name)
    assert seconds < 600  # a guard against a hang; each takes a few seconds
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.execution_count is not None
            assert not [o for o in cell.outputs if o.output_type == "error"], cell.source


def test_quick_start_outputs(executed):
    notebook, _, _ = executed("quick_start")
    assert "rows sum to 1: True" in stdout(tagged(notebook, "predict_proba"))
    accuracy = float(re.search(r"accuracy on \d+ held-out rows: ([\d.]+)", stdout(tagged(notebook, "accuracy")))[1])
    assert 0.85 < accuracy <= 1.0
    others = stdout(tagged(notebook, "others"))
    assert "HyperforestClassifier: accuracy" in others and "KikuchiBayes: accuracy" in others
    (shown,) = [o for o in tagged(notebook, "model").outputs if o.output_type == "execute_result"]
    assert "TAN" in shown.data["text/plain"]
    (drawn,) = [o for o in tagged(notebook, "draw").outputs if o.output_type == "display_data"]
    assert base64.b64decode(drawn.data["image/png"]).startswith(b"\x89PNG")


def test_interchange_outputs(executed):
    notebook, _, _ = executed("interchange")
    assert stdout(tagged(notebook, "formats")).strip().endswith("True")
    posteriors = stdout(tagged(notebook, "posteriors"))
    assert float(re.search(r"largest difference: (\S+)", posteriors)[1]) <= 1e-9
    assert stdout(tagged(notebook, "round_trip")).split() == ["True"] * 4


@pytest.mark.parametrize("name", NAMES)
def test_notebook_html_page(executed, name):
    notebook, _, page = executed(name)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert text.count('<pre class="input">') == sum(c.cell_type == "code" for c in notebook.cells)
    if name == "quick_start":
        assert text.count('<img src="data:image/png;base64,') == 2
        assert "rows sum to 1: True" in text


@pytest.mark.parametrize("name", NAMES)
def test_notebook_page_in_a_browser(executed, name, tmp_path):
    # tests/headless_browser.py: Chromium loads the page; no console message, not blank
    browser = pytest.importorskip("headless_browser", reason="tests/headless_browser.py is not there")
    notebook, _, page = executed(name)
    text = page.read_text(encoding="utf-8")
    # Chromium prints nothing for a resource that fails to load: the page must need none
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""", text)
    heading = notebook.cells[0].source.splitlines()[0].lstrip("# ")
    browser.check_page(page, tmp_path, expect=(html.escape(heading), '<pre class="input">'))


# ---------------------------------------------------------------------------- one HTML page
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; }}
pre {{ padding: 0.5em; overflow-x: auto; }}
pre.input {{ background: #f4f4f4; border-left: 3px solid #4a7ab5; }}
pre.output {{ background: #fff; border-left: 3px solid #ccc; white-space: pre-wrap; }}
pre.error {{ background: #fdecec; border-left: 3px solid #c33; }}
div.output img, div.output svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; }} td, th {{ padding: 0.2em 0.6em; border: 1px solid #ddd; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def _inline_markdown(text):
    text = html.escape(text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', text)


def _markdown(source):
    """Headings and paragraphs with inline code, bold and links: what the notebooks use."""
    parts = []
    for block in re.split(r"\n\s*\n", source.strip()):
        heading = re.match(r"(#{1,6})\s+(.*)", block)
        if heading and "\n" not in block:
            level = len(heading[1])
            parts.append(f"<h{level}>{_inline_markdown(heading[2])}</h{level}>")
        else:
            parts.append(f"<p>{_inline_markdown(block)}</p>")
    return "\n".join(parts)


def _output_html(output):
    kind = output.output_type
    if kind == "stream":
        return f'<pre class="output">{html.escape(output.text)}</pre>'
    if kind == "error":
        trace = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.traceback))  # drop the terminal colours
        return f'<pre class="error">{html.escape(trace)}</pre>'
    data = output.data
    if "text/html" in data:
        return f'<div class="output">{data["text/html"]}</div>'
    if "image/svg+xml" in data:
        return f'<div class="output">{data["image/svg+xml"]}</div>'
    if "image/png" in data:
        png = data["image/png"].replace("\n", "")
        return f'<div class="output"><img src="data:image/png;base64,{png}" alt="figure"></div>'
    if "text/plain" in data:
        return f'<pre class="output">{html.escape(data["text/plain"])}</pre>'
    return ""


def notebook_html(notebook, *, title="notebook"):
    """One self-contained HTML page of an executed notebook.

    Markdown cells become headings and paragraphs; each code cell its source in a ``<pre
    class="input">``, then its outputs, the richest kind of each first: ``text/html`` and
    ``image/svg+xml`` inline, ``image/png`` as a data URI, otherwise text (streams, plain
    results, tracebacks) in a ``<pre>``.
    """
    body = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            body.append(_markdown(cell.source))
        elif cell.cell_type == "code":
            body.append(f'<pre class="input">{html.escape(cell.source)}</pre>')
            body.extend(_output_html(output) for output in cell.outputs)
    return _PAGE.format(title=html.escape(title), body="\n".join(body))
