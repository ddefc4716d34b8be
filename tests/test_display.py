"""Rich display in notebooks (``_repr_html_``, ``plotting.show``) and tidy tables (``cpd``, ``potential``).

Display: every registered model, fitted and unfitted; the size bound; a drawing or a summary that
fails; nothing fetched. Tables: hand-computed tiny cases, the stored log tables at chosen cells,
state names in code order, parent order, and clique / region marginals against brute-force sums
of the model's own joint.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model

import graphmodels as gm
from graphmodels import _display
from graphmodels.estimators import Discriminative
from graphmodels.models import NotFittedError, registered_models
from graphmodels.models.display import model_html
from graphmodels.networks import DiscreteBayesianNetwork
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
    model = quick_model(name, random_state=0) if "random_state" in MODELS[name]().get_params() else quick_model(name)
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
    forest = gm.HyperforestClassifier(representation="shared").fit(X, y)
    text = forest._repr_html_()
    assert "hyperforest of width" in text and "strongest interactions" in text


def test_a_hyperforest_per_class_lists_each_class_and_its_strongest_hyperedges(tmp_path):
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    model = gm.HyperforestClassifier(representation="free").fit(X, y)  # one hyperforest per class
    text = model._repr_html_()
    total = sum(len([h for h in f.maximal_hyperedges if len(h) > 1]) for f in model.structures_)
    assert f"one hyperforest per class (2 classes): 9 variables, {total} maximal hyperedges of 2 or more in all" in text
    for label, forest in zip(model.classes_, model.structures_):
        assert f"class {label}, hyperforest of width {forest.width}: {{" in text
    shown = re.search(r"<th>strongest interactions</th><td>(.*?)</td>", text).group(1).split("<br>")
    # The heaviest hyperedges of every class, heaviest first, each with its class.
    scored = sorted(
        (
            (-float(weights[h]), str(label), h)
            for label, forest, weights in zip(model.classes_, model.structures_, model.weights_)
            for h in forest.hyperedges
            if len(h) > 1
        ),
        key=lambda item: item[:2],
    )
    assert len(shown) == 5
    for line, (w, label, h) in zip(shown, scored):
        assert line.endswith(f" in class {label}: {-w:.4g}") and line.count(",") == len(h) - 1
    # A loaded model keeps its structures but not the candidate weights.
    model.save(tmp_path / "model.npz")
    loaded = gm.load_model(tmp_path / "model.npz")._repr_html_()
    assert "class negative, hyperforest of width" in loaded and "strongest interactions" not in loaded


class _PerClass:
    """The fitted attributes of HyperforestClassifier(representation="free") that the summary reads."""

    def __init__(self, n_classes):
        self.classes_ = np.array([f"c{i}" for i in range(n_classes)], dtype=object)
        self.structures_ = [Hyperforest([("a", "b")], "abc") for _ in range(n_classes)]
        self.structure_ = nx.Graph([("a", "b")])


@pytest.mark.parametrize(
    "n_classes, structure, last",
    [
        (1, "one hyperforest per class (1 class): 3 variables, 1 maximal hyperedge of 2 or more in all", "class c0"),
        (2, "one hyperforest per class (2 classes): 3 variables, 2 maximal hyperedges of 2 or more in all", "class c1"),
        (
            9,
            "one hyperforest per class (9 classes): 3 variables, 9 maximal hyperedges of 2 or more in all",
            "… (1 more class)",
        ),
        (
            10,
            "one hyperforest per class (10 classes): 3 variables, 10 maximal hyperedges of 2 or more in all",
            "… (2 more classes)",
        ),
    ],
)
def test_hyperforests_per_class_summary_counts_in_the_singular_and_plural(n_classes, structure, last):
    rows = dict(gm.models.display.model_summary(_PerClass(n_classes)))
    assert rows["structure"] == structure
    assert len(rows["hyperedges"]) == min(n_classes, 9) and rows["hyperedges"][-1].startswith(last)


def test_hyperforest_summary_counts_in_the_singular_and_plural():
    assert _display.structure_rows(Hyperforest([("a", "b")]))[0] == (
        "structure",
        "hyperforest of width 1: 2 variables, 1 maximal hyperedge of 2 or more",
    )
    assert _display.structure_rows(Hyperforest([("a", "b"), ("b", "c")]))[0][1].endswith(
        "3 variables, 2 maximal hyperedges of 2 or more"
    )
    assert [_display.plural(n, "class", "classes") for n in (0, 1, 2, 1024)] == [
        "0 classes",
        "1 class",
        "2 classes",
        "1,024 classes",
    ]


def test_rows_seen_is_a_fitted_attribute():
    X, y = gm.datasets.load("iris", return_X_y=True)
    assert gm.NaiveBayes().fit(X, y).n_rows_ == 150
    assert gm.ChowLiuTree().fit(X).n_rows_ == 150
    X, Y = _multilabel_data(n_rows=40)
    assert gm.BinaryRelevance().fit(X, Y).n_rows_ == 40
    assert gm.NaiveBayes().fit(X, Y["L1"], sample_weight=np.full(40, 2.5)).n_rows_ == 40


# ---------------------------------------------------------------------------- bounded, lazy, never raising
def test_a_model_past_60_nodes_is_drawn_without_class_arcs_and_one_past_the_bound_summarized():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(200, 100)), columns=[f"x{j}" for j in range(100)])
    y = rng.integers(0, 2, 200)
    model = gm.TAN(estimator="bdeu").fit(X, y)
    text = model._repr_html_()
    svg = text[text.index("<svg") :]  # drawn, not only summarized
    assert "101 nodes: drawn without the class arcs (one from the class to every attribute)" in text
    # The tree's 99 augmenting arcs, no class arc; every node and its label.
    assert svg.count('id="edge:augmenting') == 99 and 'id="edge:class' not in svg
    assert all(f">x{j}<" in svg for j in range(100))
    assert "<th>attributes</th><td>100: x0, x1, x2, x3, x4, x5, x6, x7, … (92 more)</td>" in text
    bounded = model_html(model, max_nodes=100)  # the bound is a parameter
    assert "<svg" not in bounded and "structure too large to draw inline: 101 nodes (more than 100)" in bounded
    assert "graphmodels.plotting.draw_network" in bounded
    # Asked for, the class arcs are drawn too.
    assert model_html(model, top_k=None, faded="fade").count('id="edge:class') == 100
    # Naive Bayes has only class arcs: its class and attributes are drawn.
    naive = gm.NaiveBayes().fit(X, y)._repr_html_()
    assert "<svg" in naive and 'id="edge' not in naive and ">x99<" in naive and "101 nodes: drawn without" in naive


def test_a_model_with_a_structure_per_class_draws_its_two_most_probable_classes():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.ChowLiu(representation="free").fit(X, y)  # 4 classes: unacc 1210 rows, acc 384, good 69, vgood 65
    svg = model._repr_html_().split("<svg", 1)[1]
    assert re.findall(r">class (\w+)</text>", svg) == ["unacc", "acc"]
    assert "2 of 4 classes, the most probable" in svg


def test_aode_draws_at_most_two_members_and_fewer_for_larger_members():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.AODE().fit(X, y)
    assert model_html(model).count("super-parent: ") == 2  # 7 nodes a member: 8 would fit in 60
    assert model_html(model, max_nodes=13).count("super-parent: ") == 1
    assert "too large to draw inline: 7 nodes (more than 6)" in model_html(model, max_nodes=6)


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


# ---------------------------------------------------------------------------- cpd
def test_cpd_hand_computed_naive_bayes():
    # Maximum likelihood on 5 rows: P(y=p) = 3/5; P(a=x | p) = 2/3, P(a=x | q) = 1/2.
    X = pd.DataFrame({"a": ["x", "x", "y", "x", "y"]})
    y = ["p", "p", "p", "q", "q"]
    model = gm.NaiveBayes(estimator="mle").fit(X, y)
    prior = model.cpd("class")
    assert list(prior.columns) == ["p", "q"] and list(prior.index) == ["probability"]
    np.testing.assert_allclose(prior.to_numpy(), [[3 / 5, 2 / 5]])
    table = model.cpd("a")
    assert table.index.name == "class" and table.columns.name == "a"
    np.testing.assert_allclose(table.loc["p"].to_numpy(), [2 / 3, 1 / 3])
    np.testing.assert_allclose(table.loc["q"].to_numpy(), [1 / 2, 1 / 2])


@pytest.mark.parametrize("cls", [gm.NaiveBayes, gm.TAN, gm.FAN, gm.KDB])
def test_cpd_equals_the_stored_tables_and_rows_sum_to_one(cls):
    X, y = gm.datasets.load("car", return_X_y=True)
    model = cls().fit(X, y)
    columns = list(X.columns)
    for j, name in enumerate(columns):
        table = model.cpd(name)
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
        parents = model.feature_parents_[j]
        parents = [parents] if np.ndim(parents) == 0 else list(parents)
        parents = [p for p in parents if p >= 0]
        assert list(table.index.names) == ["class", *(columns[p] for p in parents)]
        assert list(table.columns) == list(model.encoder_.levels_[j])
        log_table = model.log_tables_[j].reshape(len(model.classes_), -1, len(table.columns))
        # Hand-picked cells: the first and last parent configuration, the last state.
        np.testing.assert_allclose(table.to_numpy()[0, -1], np.exp(log_table[0, 0, -1]))
        np.testing.assert_allclose(table.to_numpy()[-1, -1], np.exp(log_table[-1, -1, -1]))
    np.testing.assert_allclose(model.cpd("class").to_numpy()[0], np.exp(model.class_log_prior_))


def test_cpd_kdb_parent_order_is_the_class_then_feature_parents():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.KDB(k=2).fit(X, y)
    columns = list(X.columns)
    j = next(j for j, family in enumerate(model.feature_parents_) if len(family) == 2)
    first, second = model.feature_parents_[j]
    table = model.cpd(columns[j])
    assert list(table.index.names) == ["class", columns[first], columns[second]]
    c, u, v = 2, 1, 0
    label, s1, s2 = model.classes_[c], model.encoder_.levels_[first][u], model.encoder_.levels_[second][v]
    np.testing.assert_allclose(table.loc[(label, s1, s2)].to_numpy(), np.exp(model.log_tables_[j][c, u, v]))


def test_cpd_state_names_are_the_labels_in_code_order():
    # Integer-looking string labels stay strings: the class in classes_' sorted order ("1" < "10" < "2"),
    # an attribute in the encoder's order (text: the order of first appearance).
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.choice(["1", "10", "2"], 200), "b": rng.choice(["x", "y"], 200)})
    y = pd.Series(rng.choice(["10", "2", "1"], 200), name="target")
    model = gm.TAN().fit(X, y)
    assert list(model.cpd("target").columns) == list(model.classes_) == ["1", "10", "2"]
    table = model.cpd("a")
    first_seen = list(pd.unique(X["a"]))
    assert list(table.columns) == list(model.encoder_.levels_[0]) == first_seen == ["10", "2", "1"]
    assert list(table.index.get_level_values(0).unique()) == ["1", "10", "2"]


def test_cpd_of_a_cut_column_uses_the_interval_labels():
    X, y = gm.datasets.load("iris", return_X_y=True)
    model = gm.NaiveBayes().fit(X, y)
    table = model.cpd("petal length")
    assert list(table.columns) == ["(-inf, 2.45]", "(2.45, 4.75]", "(4.75, inf)"]


def test_cpd_discriminative_rows_are_the_normalized_potentials():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN(estimator=Discriminative(penalty=1.0)).fit(X, y)
    j = int(np.flatnonzero(model.feature_parents_ >= 0)[0])
    table = model.cpd(X.columns[j])
    np.testing.assert_allclose(table.sum(axis=1), 1.0)
    raw = model.log_tables_[j]
    assert not np.allclose(np.exp(raw).sum(axis=-1), 1.0)  # log-potentials, not log-probabilities
    expected = np.exp(raw - np.log(np.exp(raw).sum(axis=-1, keepdims=True)))
    np.testing.assert_allclose(table.to_numpy(), expected.reshape(-1, raw.shape[-1]))


def test_cpd_chow_liu_multinet_repeats_each_class_table_over_other_parents():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.ChowLiu().fit(X, y)
    columns = list(X.columns)
    j = max(range(len(columns)), key=lambda j: len({p for p in model.feature_parents_[:, j] if p >= 0}))
    parents = sorted({int(p) for p in model.feature_parents_[:, j] if p >= 0})
    table = model.cpd(columns[j])
    assert list(table.index.names) == ["class", *(columns[p] for p in parents)]
    np.testing.assert_allclose(table.sum(axis=1), 1.0)
    for c, label in enumerate(model.classes_):
        own = np.exp(model.log_tables_[c][j][0])
        parent = model.feature_parents_[c, j]
        block = table.loc[label]
        for configuration, row in block.iterrows():
            configuration = configuration if isinstance(configuration, tuple) else (configuration,)
            k = 0 if parent < 0 else list(model.encoder_.levels_[parent]).index(configuration[parents.index(parent)])
            np.testing.assert_allclose(row.to_numpy(), own[k])


def test_cpd_selective_kdb_hnb_density_and_networks():
    X, y = gm.datasets.load("car", return_X_y=True)
    selective = gm.SelectiveKDB(max_k=1).fit(X, y)
    left_out = [c for c, kept in zip(X.columns, selective.support_) if not kept]
    for name in selective.selected_features_:
        np.testing.assert_allclose(selective.cpd(name).sum(axis=1), 1.0)
    if left_out:
        with pytest.raises(ValueError, match="left out"):
            selective.cpd(left_out[0])

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
    labels = np.where(frame["a"] == frame["b"], "same", "different")
    hnb = gm.HierarchicalNaiveBayes(random_state=0).fit(frame, labels)
    latent = hnb.latent_definitions_[0][0]
    table = hnb.cpd(latent)
    assert table.index.name == "class" and list(table.columns) == list(range(len(table.columns)))
    np.testing.assert_allclose(table.to_numpy(), np.exp(hnb.child_log_tables_[hnb.children_.index(latent)]))
    with pytest.raises(ValueError, match=f"'a' has no conditional table \\(a child of the latent variable '{latent}'"):
        hnb.cpd("a")

    density = gm.ChowLiuTree().fit(X)
    for j, name in enumerate(X.columns):
        table = density.cpd(name)
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
        parent = density.parents_[j]
        assert table.index.name == X.columns[parent] if parent >= 0 else list(table.index) == ["probability"]

    bn = gm.TAN().fit(X, y).to_bayesian_network()
    assert isinstance(bn, DiscreteBayesianNetwork)
    table = bn.cpd("maint")
    assert list(table.index.names) == list(bn.parents["maint"])
    np.testing.assert_allclose(table.to_numpy().ravel(), bn.cpts["maint"].ravel())
    with pytest.raises(ValueError, match="'nope' is not a variable"):
        bn.cpd("nope")


def test_cpd_multidimensional():
    X, Y = _multilabel_data()
    model = gm.models.MultiDimensionalTAN().fit(X, Y)
    for node in ["L1", "L2", "a", "b", "c"]:
        table = model.cpd(node)
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
    assert list(model.cpd("L2").columns) == ["10", "2"]
    i = list(X.columns).index("a")
    expected = [model.label_names_[p] for p in model.feature_class_parents_[i]]
    if model.feature_parents_[i] >= 0:
        expected.append(list(X.columns)[model.feature_parents_[i]])
    assert [n for n in model.cpd("a").index.names if n is not None] == expected
    ensemble = gm.models.MultiDimensionalAODE().fit(X, Y)
    with pytest.raises(ValueError, match="one table per member"):
        ensemble.cpd("L1")
    np.testing.assert_allclose(ensemble.cpd("a").sum(axis=1), 1.0)


def test_cpd_errors_name_the_node_and_list_the_valid_ones():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.NaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match=r"'colour' has no conditional table; valid nodes: \['class', 'buying'"):
        model.cpd("colour")
    with pytest.raises(ValueError, match="valid nodes"):
        model.cpd(["buying"])  # unhashable
    with pytest.raises(NotFittedError):
        gm.NaiveBayes().cpd("buying")
    assert not hasattr(gm.AODE(), "cpd") and not hasattr(gm.KikuchiBayes(), "cpd")


# ---------------------------------------------------------------------------- potentials
def _configurations(model):
    levels = model.encoder_.levels_
    rows = list(itertools.product(*levels))
    return pd.DataFrame(rows, columns=model.encoder_.columns_)


def _brute_marginal(frame, probability, variables):
    return frame.assign(probability=probability).groupby(list(variables), sort=False)["probability"].sum()


def _small_frame(seed=0, n_rows=400):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n_rows)
    b = (a + (rng.random(n_rows) < 0.2)) % 3
    c = (a * b + rng.integers(0, 2, n_rows)) % 2
    d = rng.integers(0, 3, n_rows)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": np.where(rng.random(n_rows) < 0.7, b, d)})


def test_density_potentials_are_the_marginals_of_its_joint():
    frame = _small_frame()
    model = gm.HyperforestDensity(treewidth=2).fit(frame)
    grid = _configurations(model)
    probability = np.exp(model.score_samples(grid))
    np.testing.assert_allclose(probability.sum(), 1.0)
    for hyperedge in model.structure_.maximal_hyperedges:
        variables = [c for c in frame.columns if c in hyperedge]
        table = model.potential(tuple(reversed(variables)))  # any order
        assert list(table.columns) == [*variables, "probability"]
        np.testing.assert_allclose(table["probability"].sum(), 1.0)
        expected = _brute_marginal(grid, probability, variables)
        got = table.set_index(variables)["probability"]
        np.testing.assert_allclose(got.loc[expected.index].to_numpy(), expected.to_numpy())


@pytest.mark.parametrize("representation", ["joint", "shared", "free"])
def test_classifier_potentials_are_the_marginals_of_its_joint(representation):
    frame = _small_frame(1)
    X, y = frame[["a", "b", "d"]], frame["c"].map({0: "no", 1: "yes"})
    model = gm.HyperforestClassifier(treewidth=1, criterion="ml", representation=representation).fit(X, y)
    grid = _configurations(model)
    joint = np.exp(model.joint_log_likelihood(grid))  # (configurations, classes)
    np.testing.assert_allclose(joint.sum(), 1.0)
    cliques = [c for _, network in model._clique_networks() for c in network["cliques"]]
    names = list(X.columns) + [model.class_name_]
    checked = 0
    for clique in cliques:
        variables = [names[p] for p in sorted(clique)]
        table = model.potential(variables)
        attributes = [v for v in variables if v != model.class_name_]
        if representation == "joint":
            long = pd.concat([grid.assign(**{model.class_name_: label}) for label in model.classes_], ignore_index=True)
            expected = _brute_marginal(long, joint.T.ravel(), variables)
            got = table.set_index(variables)["probability"]
            np.testing.assert_allclose(table["probability"].sum(), 1.0)
        else:
            for c, label in enumerate(model.classes_):
                conditional = joint[:, c] / joint[:, c].sum()
                marginal = _brute_marginal(grid, conditional, attributes)
                in_table = table[table[model.class_name_] == label]
                if len(in_table):
                    np.testing.assert_allclose(in_table["probability"].sum(), 1.0)
                    got = in_table.set_index(attributes)["probability"]
                    np.testing.assert_allclose(got.loc[marginal.index].to_numpy(), marginal.to_numpy())
            assert list(table.columns) == [model.class_name_, *attributes, "probability"]
            checked += 1
            continue
        np.testing.assert_allclose(got.loc[expected.index].to_numpy(), expected.to_numpy())
        checked += 1
    assert checked


def test_kikuchi_region_potential_is_the_smoothed_joint_of_eq_4():
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    model = gm.KikuchiBayes().fit(X, y)
    region = next(r for r in model.region_log_tables_ if len(r) == 3)
    table = model.potential(set(region))
    assert list(table.columns) == [*region, "probability"]
    np.testing.assert_allclose(table["probability"].sum(), 1.0)
    frame = X.assign(**{model.class_name_: np.asarray(y)})
    counts = frame.groupby(list(region)).size()
    theta = model.estimator_.equivalent_sample_size
    cells = len(table)
    row = table.iloc[5]
    key = tuple(row[list(region)])
    expected = (counts.get(key, 0) + theta / cells) / (len(frame) + theta)
    np.testing.assert_allclose(row["probability"], expected)


def test_potential_errors_name_the_clique_and_list_the_valid_ones():
    frame = _small_frame()
    model = gm.HyperforestDensity(treewidth=1).fit(frame)
    with pytest.raises(ValueError, match=r"\('a', 'zz'\) is not a clique of the model; cliques: \["):
        model.potential(("a", "zz"))
    X, y = gm.datasets.load("tic-tac-toe", return_X_y=True)
    kikuchi = gm.KikuchiBayes().fit(X, y)
    with pytest.raises(ValueError, match="is not a region of the model; regions:"):
        kikuchi.potential(["top-left-square"])
    with pytest.raises(NotFittedError):
        gm.HyperforestDensity().potential("a")


# ---------------------------------------------------------------------------- networks
def test_bayesian_network_display_counts_alarm_parameters():
    bn = gm.io.load_network("alarm")
    html = bn._repr_html_()
    # ALARM: 37 variables, 46 arcs and 509 free parameters (Beinlich et al. 1989).
    assert "37 variables" in html and "<th>arcs</th><td>46</td>" in html
    assert "<th>free parameters</th><td>509</td>" in html
    assert "<svg" in html and "<script" not in html


def test_markov_network_display_lists_factors():
    density = gm.HyperforestDensity(treewidth=1).fit(gm.datasets.load("car"))
    network = density.to_markov_network()
    html = network._repr_html_()
    cells = sum(table.size for _, table in network.factors)
    assert f"{len(network.factors):,} ({cells:,} cells)" in html
    assert "<svg" in html


def test_network_display_never_raises(monkeypatch):
    bn = gm.io.load_network("alarm")
    monkeypatch.setattr(type(bn), "graph", property(lambda self: 1 / 0))
    html = bn._repr_html_()
    assert "could not display" in html and "ZeroDivisionError" in html


def test_a_chosen_representation_is_shown_with_its_scores():
    X, y = gm.datasets.load("car", return_X_y=True)
    for model in (gm.ChowLiu().fit(X, y), gm.HyperforestClassifier().fit(X, y)):
        scores = model.representation_selection_.set_index("representation")["log_loss"]
        row = re.search(r"<th>representation</th><td>(.*?)</td>", model._repr_html_()).group(1)
        assert row == (
            f"{model.representation_} (the lower leave-one-out log-loss: "
            f"free {scores['free']:.4f}, shared {scores['shared']:.4f})"
        )
    fixed = gm.HyperforestClassifier(representation="free").fit(X, y)
    assert re.search(r"<th>representation</th><td>(.*?)</td>", fixed._repr_html_()).group(1) == "free"


def test_figure_svg_draws_a_constrained_figure_once_at_its_size_and_gives_its_layout_engine_back():
    import matplotlib.pyplot as plt
    from matplotlib.artist import Artist

    from graphmodels.plotting import figure_svg

    class Counted(Artist):
        def __init__(self):
            super().__init__()
            self.draws = 0

        def draw(self, renderer):
            self.draws += 1

    constrained, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.set_title("a title")
    constrained.add_artist(counted := Counted())
    engine = constrained.get_layout_engine()
    svg = figure_svg(constrained, close=False)
    assert counted.draws == 1  # matplotlib's savefig draws it twice: once to lay it out, once to write it
    assert constrained.get_layout_engine() is engine
    assert 'width="288pt" height="216pt"' in svg and ">a title<" in svg
    assert ax.get_position().y1 < 0.95  # laid out: the axes made room for the title
    plain = plt.figure(figsize=(4, 3))
    plain.add_artist(counted := Counted())
    figure_svg(plain)
    assert counted.draws == 2  # no layout engine: cropped to its tight box, as before
    plt.close(constrained)
