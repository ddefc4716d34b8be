"""The README's Python blocks run, what their comments claim is what they compute, and each figure
comes from the code beside it (issue 26).

Every ```python block of README.md runs once per session, in order, in one namespace, in a
temporary folder (the files it writes land there), statement by statement. A statement that is an
expression with a comment made of a Python literal (``model.score(X, y)  # 1.0``, ``array([2.45,
4.75])``, a list), optionally followed by a parenthesised note, must evaluate to that literal
(numbers to the digits shown). A block preceded by ``<!-- not run: REASON -->`` is illustrative
and skipped with that reason, as is a block that reads ``../shared`` (the shared data sets beside
the checkout, read from their real place) when that folder is absent, or a block that needs an
optional package that is not installed. Each figure of the README (``![...](examples/figures/...)``)
is mapped to the example that makes it; the README's text beside the figure (since the previous
figure or heading) and the example must both hold the figure's key calls.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SHARED = ROOT.parent / "shared"
#: A fenced Python block, with the HTML comment right above it if there is one.
BLOCK = re.compile(r"(?:<!--\s*(?P<marker>.*?)\s*-->\n)?^```python\n(?P<code>.*?)^```", re.M | re.S)
#: Optional packages a name the README imports from graphmodels needs (the converters of graphmodels.io).
NEEDS = {"to_pgmpy": ("pgmpy",), "from_pgmpy": ("pgmpy",), "to_pyagrum": ("pyagrum",), "from_pyagrum": ("pyagrum",)}


def _blocks():
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, m["marker"], m["code"]) for m in BLOCK.finditer(text)]


BLOCKS = _blocks()


def _missing_packages(code):
    """The packages the block imports (or that the graphmodels modules it imports need) that are not installed."""
    modules, names = set(), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            if node.module.startswith("graphmodels"):
                names.update(alias.name for alias in node.names)
    needed = {m.split(".")[0] for m in modules if not m.startswith("graphmodels")}
    needed.update(p for name in names for p in NEEDS.get(name, ()))
    return sorted(p for p in needed if importlib.util.find_spec(p) is None)


def _skip_reason(marker, code):
    if marker and marker.startswith("not run:"):
        return f"illustrative only (README: {marker})"
    if "../shared" in code and not SHARED.is_dir():
        return f"reads ../shared, the shared data sets beside the checkout, and {SHARED} is absent"
    missing = _missing_packages(code)
    if missing:
        return f"needs {', '.join(missing)}, not installed (pip install -e '.[test,docs,interop,notebook,dask]')"
    return None


def _claim(line):
    """The literal a statement's trailing comment claims, as ``(value, text)``, or None."""
    if "  # " not in line:
        return None
    text = line.split("  # ", 1)[1].strip()
    text = re.sub(r"\s+\([^()]*\)$", "", text)  # a parenthesised note after the value
    if text.startswith("array(") and text.endswith(")"):
        text = text[len("array(") : -1]
    try:
        return ast.literal_eval(text), text
    except (ValueError, SyntaxError):
        return None


def _decimals(text):
    return [len(m[1]) for m in re.finditer(r"\d\.(\d+)", text)] or [0]


def _agrees(value, claimed, text):
    """Whether `value` is `claimed`: the same strings; numbers equal to the digits the claim shows."""
    if isinstance(value, np.ndarray) or hasattr(value, "tolist"):
        value = np.asarray(value).tolist()
    if isinstance(claimed, (int, float)) and not isinstance(claimed, bool):
        return isinstance(value, (int, float)) and round(float(value), max(_decimals(text))) == claimed
    if isinstance(claimed, (list, tuple)) and all(isinstance(c, (int, float)) for c in claimed):
        return len(value) == len(claimed) and np.allclose(np.round(value, max(_decimals(text))), claimed)
    return value == claimed


def _run(code, namespace, source):
    """Run `code` statement by statement; check the literal each commented expression claims."""
    lines = code.splitlines()
    for statement in ast.parse(code).body:
        compiled = ast.Module(body=[statement], type_ignores=[])
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), source, "eval"), namespace)
            claim = _claim(lines[statement.end_lineno - 1])
            if claim is not None:
                claimed, text = claim
                assert _agrees(value, claimed, text), (
                    f"{source}, line {statement.end_lineno}: {lines[statement.end_lineno - 1].strip()!r} "
                    f"gives {value!r}"
                )
        else:
            exec(compile(compiled, source, "exec"), namespace)


@pytest.fixture(scope="session")
def readme_run(tmp_path_factory):
    """Each block's outcome, ``{line: None (ran) | ("skip", reason) | ("error", message)}``, run in order once."""
    import matplotlib.pyplot as plt

    folder = tmp_path_factory.mktemp("readme")
    namespace: dict = {"__name__": "__readme__"}
    outcomes = {}
    here = os.getcwd()
    os.chdir(folder)
    try:
        for line, marker, code in BLOCKS:
            reason = _skip_reason(marker, code)
            if reason:
                outcomes[line] = ("skip", reason)
                continue
            code = code.replace('"../shared/', f'"{SHARED.as_posix()}/')  # the shared data where they are
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    _run(code, namespace, f"README.md block at line {line}")
            except Exception as error:  # reported by the block's own test, with what raised
                outcomes[line] = ("error", f"{type(error).__name__}: {error}")
            else:
                outcomes[line] = None
            finally:
                plt.close("all")
    finally:
        os.chdir(here)
    return outcomes


def test_the_readme_has_python_blocks_and_few_are_not_run():
    assert len(BLOCKS) >= 8
    assert sum(1 for _, marker, _ in BLOCKS if marker and marker.startswith("not run:")) <= 1


@pytest.mark.parametrize("line", [line for line, _, _ in BLOCKS], ids=lambda line: f"line{line}")
def test_readme_block_runs_and_its_claims_hold(readme_run, line):
    outcome = readme_run[line]
    if outcome is not None and outcome[0] == "skip":
        pytest.skip(outcome[1])
    assert outcome is None, f"README.md block at line {line}: {outcome[1]}"


def test_claims_are_read_from_comments():
    assert _claim("model.score(X, y)  # 1.0 (naive Bayes: 0.70)") == (1.0, "1.0")
    assert _claim("cuts  # array([2.45, 4.75])")[0] == [2.45, 4.75]
    assert _claim("draw(model)  # 2-, 3-, 4-way regions as rings") is None
    assert _agrees(0.7037, 0.70, "0.70") and not _agrees(0.7137, 0.70, "0.70")
    assert _agrees(np.array([2.4501, 4.75]), [2.45, 4.75], "[2.45, 4.75]")


# ------------------------------------------------------------------------------------ figures
#: Each README figure, the example that makes it, and the key calls that the README's text beside
#: the figure (its code block or its paragraph) and that example both hold.
FIGURES = {
    "tan_car.png": ("examples/draw_tan_car.py", ['load("car")', "gm.TAN().fit(", "draw_network(model"]),
    "hyperforest_views.png": (
        "examples/draw_hyperforest.py",
        [
            'random_hypertree(10, 2, random_state=1, nodes=[f"x{i}" for i in range(10)])',
            'view="factor"',
            "draw_junction_tree(",
        ],
    ),
    "splice_ml_j_3.png": ("examples/draw_splice_hyperforest.py", ["ML-J-3", "splice"]),
    "kikuchi_tic_tac_toe.png": (
        "examples/draw_kikuchi_tic_tac_toe.py",
        ['load("tic-tac-toe")', "KikuchiBayes(max_region_size=4)", "draw_interactions(", "draw_kikuchi_path("],
    ),
    "hnb_monk1.png": (
        "examples/draw_hnb_monk1.py",
        ['load("monk1")', "HierarchicalNaiveBayes(random_state=0)", "draw_latent_tree(", "show_states=True"],
    ),
    "multidimensional_tan.png": (
        "examples/draw_multidimensional.py",
        [
            "random_multidimensional_network(4, 10, feature_arcs=True, random_state=2)",
            "MultiDimensionalTAN()",
            "draw_multidimensional",
        ],
    ),
    # A screenshot of the quick-start notebook, executed by tests/test_notebooks.py.
    "notebook_tan.png": ("examples/notebooks/quick_start.ipynb", ["gm.TAN().fit(", "model"]),
    # A screenshot of the page the README's command writes on iris.
    "report.png": ("README.md", ["graphmodels report iris --out iris_report.html"]),
    "stability_tan.png": (
        "examples/draw_stability.py",
        [
            'load("tic-tac-toe", return_X_y=True)',
            "edge_stability(gm.TAN(), X, y, n_resamples=100, random_state=0)",
            'gm.ChowLiu(representation="free").fit(X, y)',
            "structure_difference(",
        ],
    ),
    "tan_kruskal.gif": ("examples/animate_tan.py", ["car", "trace=True", "animate(model"]),
    "inference_tan_car.png": (
        "examples/draw_inference_tan.py",
        ["gm.TAN().fit(", 'draw_inference(tan, evidence={"class": "vgood", "safety": "high"}, compare_to_prior=True)'],
    ),
}
FIGURE = re.compile(r"^!\[[^\]]*\]\((examples/figures/[^)]+)\)", re.M)


def _beside():
    """Each figure's file name -> the README text since the previous figure or heading (code blocks included)."""
    beside, since, fenced = {}, [], False
    for line in README.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        figure = FIGURE.match(line)
        if figure:
            beside[Path(figure[1]).name] = "\n".join(since)
        if figure or (line.startswith("#") and not fenced):
            since = []
        else:
            since.append(line)
    return beside


def test_every_readme_figure_is_mapped_and_exists():
    shown = [Path(path).name for path in FIGURE.findall(README.read_text(encoding="utf-8"))]
    assert sorted(shown) == sorted(FIGURES)
    for name in shown:
        assert (ROOT / "examples" / "figures" / name).is_file(), name


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_code_beside_a_figure_and_its_example_agree(name):
    source, calls = FIGURES[name]
    beside = _beside()[name]
    made_by = (ROOT / source).read_text(encoding="utf-8")
    for call in calls:
        assert call in beside, f"README beside {name} lacks {call!r}"
        assert call in made_by.replace('\\"', '"'), f"{source} lacks {call!r}"
    if source.endswith(".py"):
        assert name in made_by, f"{source} does not write {name}"
        named = set(re.findall(r"examples/\w+\.py", beside))
        assert named <= {source}, f"README beside {name} names {sorted(named)}, but {source} makes it"
