"""Rich display in notebooks (``_repr_html_``, ``plotting.show``).

Every registered model, fitted and unfitted; the size bound; a drawing or a summary that fails;
nothing fetched.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels import _display
from graphmodels.models import registered_models
from graphmodels.models.display import model_html
from graphmodels.plotting import NotebookDisplay, draw_svg, show
from graphmodels.structures import Hyperforest

MODELS = registered_models()
KINDS = {name: kind for kind in ("classifier", "density", "multilabel") for name in registered_models(kind)}
#: The only addresses a display may hold: the namespaces of the inline SVG.
SVG_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def _multilabel_data(seed=0, n_rows=150):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = (a + rng.integers(0, 2, n_rows)) % 3
    X = pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": rng.choice(["no", "yes"], n_rows)})
    Y = pd.DataFrame({"L1": np.where(a > 0, "on", "off"), "L2": np.where(b == 2, "10", "2")})
    return X, Y


def _fit(name, dataset):
    model = MODELS[name](random_state=0) if "random_state" in MODELS[name]().get_params() else MODELS[name]()
    kind = KINDS[name]
    if kind == "multilabel":
        X, Y = _multilabel_data()
        return model.fit(X, Y), len(X)
    X, y = gm.datasets.load(dataset, return_X_y=True)
    return (model.fit(X, y) if kind == "classifier" else model.fit(X)), len(X)


def _addresses(text):
    return set(re.findall(r"https?://[^\s\"'<>]+", text))


# ---------------------------------------------------------------------------- every registered model
# Single-label models on a categorical and a numeric set; multi-label ones on one generated frame.
FITTED = [(name, dataset) for name in sorted(MODELS) for dataset in ("car", "iris") if KINDS[name] != "multilabel"]
FITTED += [(name, "generated") for name in sorted(MODELS) if KINDS[name] == "multilabel"]


@pytest.mark.parametrize("name, dataset", FITTED)
def test_every_fitted_model_displays_summary_and_drawing(name, dataset):
    model, n_rows = _fit(name, dataset)
    text = model._repr_html_()
    assert isinstance(text, str) and text.startswith('<div class="gm-display">')
    assert type(model).__name__ in text
    assert "<svg" in text, name
    assert "could not" not in text and "gm-error" not in text.replace(".gm-error", "")
    assert f"<th>rows</th><td>{n_rows:,}</td>" in text
    assert "<script" not in text.lower() and "<link" not in text.lower() and "@import" not in text
    assert _addresses(text) <= SVG_NAMESPACES
    if dataset == "iris":
        assert "cut points" in text and "petal length: " in text  # the discretizer's cuts of the numeric columns


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_unfitted_model_lists_its_parameters_and_draws_nothing(name):
    model = MODELS[name]()
    text = model._repr_html_()
    assert f"{type(model).__name__}()" in text
    assert "<svg" not in text and "not fitted" in text
    for parameter in model.get_params(deep=False):
        assert f"<th>{parameter}</th>" in text


def test_header_shows_the_changed_parameters_in_bold():
    text = gm.KDB(k=2, estimator="bdeu")._repr_html_()
    assert "KDB(estimator=&#x27;bdeu&#x27;, k=2)" in text
    assert '<th class="gm-changed">k</th>' in text and "<th>missing</th>" in text


def test_fitted_summary_lists_classes_structure_estimator_and_strongest_interactions():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN(estimator="bdeu").fit(X, y)
    text = model._repr_html_()
    assert "<th>classes</th><td>4: acc, good, unacc, vgood</td>" in text
    assert "directed graph: 7 nodes (1 class, 6 attributes), 11 arcs (6 class, 5 augmenting)" in text
    assert "<th>estimator</th><td>BDeu(equivalent_sample_size=1.0)</td>" in text
    # The five heaviest arcs, heaviest first, with their weights (mutual information, nats).
    edges = sorted(model.structure_.edges(data="weight"), key=lambda e: -e[2])[:5]
    shown = re.search(r"<th>strongest interactions</th><td>(.*?)</td>", text).group(1).split("<br>")
    assert shown == [f"{u} → {v}: {w:.4g}" for u, v, w in edges]


def test_kikuchi_and_hyperforest_list_their_interactions():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    kikuchi = gm.KikuchiBayes().fit(X, y)
    text = kikuchi._repr_html_()
    assert "region graph:" in text and "search path" in text and " × " in text
    forest = gm.HyperforestClassifier().fit(X, y)
    text = forest._repr_html_()
    assert "hyperforest of width" in text and "strongest interactions" in text


def test_rows_seen_is_a_fitted_attribute():
    X, y = gm.datasets.load("iris", return_X_y=True)
    assert gm.NaiveBayes().fit(X, y).n_rows_ == 150
    assert gm.ChowLiuTree().fit(X).n_rows_ == 150
    X, Y = _multilabel_data(n_rows=40)
    assert gm.BinaryRelevance().fit(X, Y).n_rows_ == 40
    assert gm.NaiveBayes().fit(X, Y["L1"], sample_weight=np.full(40, 2.5)).n_rows_ == 40


# ---------------------------------------------------------------------------- bounded, lazy, never raising
def test_a_large_model_shows_a_summary_not_a_drawing_and_renders_fast():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(200, 100)), columns=[f"x{j}" for j in range(100)])
    y = rng.integers(0, 2, 200)
    model = gm.TAN(estimator="bdeu").fit(X, y)
    start = time.perf_counter()
    text = model._repr_html_()
    elapsed = time.perf_counter() - start
    assert "<svg" not in text
    assert "structure too large to draw inline: 101 nodes (more than 60)" in text
    assert "graphmodels.plotting.draw_network" in text
    assert "<th>attributes</th><td>100: x0, x1, x2, x3, x4, x5, x6, x7, … (92 more)</td>" in text
    assert elapsed < 1.0
    assert "<svg" in model_html(model, max_nodes=101)  # the bound is a parameter


def test_aode_draws_at_most_three_members_and_fewer_for_larger_members():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.AODE().fit(X, y)
    assert model_html(model).count("super-parent: ") == 3  # 7 nodes a member: 3 fit in 60
    assert model_html(model, max_nodes=15).count("super-parent: ") == 2
    assert model_html(model, max_nodes=7).count("super-parent: ") == 1


def test_a_drawing_that_raises_leaves_the_summary_and_says_why(monkeypatch):
    import graphmodels.plotting.dispatch as dispatch

    def broken(*args, **kwargs):
        raise RuntimeError("the layout <exploded>")

    monkeypatch.setattr(dispatch, "draw_network", broken)
    X, y = gm.datasets.load("car", return_X_y=True)
    text = gm.NaiveBayes().fit(X, y)._repr_html_()
    assert "could not draw the structure: RuntimeError: the layout &lt;exploded&gt;" in text
    assert "<th>classes</th>" in text and "<svg" not in text


def test_a_summary_that_raises_shows_the_repr_and_the_error(monkeypatch):
    import graphmodels.models.display as display

    def broken(model):
        raise KeyError("no such thing")

    monkeypatch.setattr(display, "model_summary", broken)
    X, y = gm.datasets.load("car", return_X_y=True)
    text = gm.TAN(algorithm="prim").fit(X, y)._repr_html_()
    assert "TAN(algorithm=&#x27;prim&#x27;)" in text
    assert "could not display: KeyError: &#x27;no such thing&#x27;" in text


def test_without_a_drawer_the_display_says_so():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.NaiveBayes().fit(X, y)
    previous = _display.set_svg_drawer(None)
    try:
        text = model._repr_html_()
    finally:
        _display.set_svg_drawer(previous)
    assert "<svg" not in text and "no SVG drawer is registered" in text


def test_displaying_an_unfitted_model_imports_no_matplotlib():
    statement = "import sys, graphmodels as gm; gm.TAN()._repr_html_(); print('matplotlib' in sys.modules)"
    root = str(Path(gm.__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == "False"


def test_the_drawing_is_the_same_text_every_time():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN().fit(X, y)
    first, second = draw_svg(model), draw_svg(model)
    assert first == second and "<metadata" not in first
    assert _addresses(first) <= SVG_NAMESPACES


# ---------------------------------------------------------------------------- structures and show()
def test_hyperforest_displays_its_hyperedges_and_primal_graph():
    forest = Hyperforest([("a", "b", "c"), ("c", "d")], nodes=["a", "b", "c", "d", "e"])
    text = forest._repr_html_()
    assert "hyperforest of width 2: 5 variables, 2 maximal hyperedges of 2 or more" in text
    assert "<th>hyperedges</th><td>{a, b, c}, {c, d}</td>" in text
    assert "<svg" in text


@pytest.mark.parametrize(
    "structure",
    [
        "tan structure",
        "junction tree",
        "region graph",
        "latent tree",
        "multidimensional graph",
    ],
)
def test_show_displays_every_kind_of_structure(structure):
    X, y = gm.datasets.load("car", return_X_y=True)
    if structure == "tan structure":
        graph, expected = gm.TAN().fit(X, y).structure_, "directed graph: 7 nodes"
    elif structure == "junction tree":
        graph, expected = Hyperforest([("a", "b", "c"), ("c", "d")]).junction_tree(), "junction tree: 2 cliques"
    elif structure == "region graph":
        graph, expected = gm.KikuchiBayes().fit(X, y).structure_, "region graph: "
    elif structure == "latent tree":
        graph, expected = gm.HierarchicalNaiveBayes(random_state=0).fit(X, y).structure_, "latent"
    else:
        X, Y = _multilabel_data()
        graph, expected = gm.models.MultiDimensionalTAN().fit(X, Y).structure_, "directed graph: 5 nodes"
    shown = show(graph)
    assert isinstance(shown, NotebookDisplay)
    text = shown._repr_html_()
    assert expected in text and "<svg" in text
    if structure == "junction tree":
        assert ">a,b,c</text>" in text  # draw_junction_tree's clique labels, not a frozenset's repr
    bundle = shown._repr_mimebundle_()
    assert bundle["image/svg+xml"] in bundle["text/html"]  # one drawing, offered twice
    assert bundle["text/plain"].startswith("show(<")


def test_show_takes_drawing_options_and_a_bound():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN().fit(X, y)
    plain, weighted = show(model.structure_).svg, show(model.structure_, show_weights=True).svg
    assert weighted.count("<text") > plain.count("<text")
    bounded = show(model, max_nodes=5)
    assert "too large to draw inline: 7 nodes (more than 5)" in bounded.html
    assert "image/svg+xml" not in bounded._repr_mimebundle_()
    assert bounded.svg.startswith("<svg")  # asked for, it is drawn anyway
    assert "<svg" in show(model.to_bayesian_network()).html


def test_show_saves_html_and_svg(tmp_path):
    X, y = gm.datasets.load("car", return_X_y=True)
    shown = show(gm.NaiveBayes().fit(X, y))
    page = shown.save(tmp_path / "model.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<title>NaiveBayes()</title>" in page
    assert shown.save(tmp_path / "model.svg").read_text(encoding="utf-8").startswith("<svg")
    with pytest.raises(ValueError, match="must end in .html, .htm or .svg"):
        shown.save(tmp_path / "model.png")


def test_show_never_raises_on_what_it_cannot_draw():
    text = show(gm.NaiveBayes()).html
    assert "not fitted" in text
    text = show(nx.DiGraph()).html
    assert "empty structure" in text
