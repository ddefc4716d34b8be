"""The plotting package is layered: ``_common`` <- drawing modules and ``export`` <- ``dispatch``
<- ``svg`` <- ``notebook``.

Parsed from the source (every import, module level or inside a function), so a
helper that drifts back into a drawing module, or a drawing that reaches into a
sibling, fails here rather than as an import circle at run time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from registry_models import quick_model  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_network  # noqa: E402

PACKAGE = Path(gm.__file__).parent / "plotting"
HELPERS = {"_common"}
DRAWINGS = {
    "network",
    "hyperforests",
    "latent_trees",
    "multidimensional",
    "interactions",
    "interaction_graph",
    "region_graph",
    "kikuchi_path",
    "stability",
    "posteriors",
}
# animation: replays a learning trace through several drawings (graph, hyperforest, interactions), so it
# calls them as dispatch does and is an entry module; no drawing imports it.
# explanations: colours the structure drawn by draw_graph (network), as animation replays drawings.
# separation: draws the d-separation question on draw_graph's drawing; message_passing replays a traced query
# on the junction-tree, factor-graph or region-graph drawing (for animation): entry modules too.
ENTRY = {
    "dispatch",
    "export",
    "svg",
    "notebook",
    "animation",
    "explanations",
    "separation",
    "message_passing",
    "__init__",
}


def _sibling_imports(module):
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_every_module_is_placed_in_a_layer():
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert modules == HELPERS | DRAWINGS | ENTRY


@pytest.mark.parametrize("module", sorted(HELPERS))
def test_helpers_import_no_drawing(module):
    assert _sibling_imports(module) == set()


@pytest.mark.parametrize("module", sorted(DRAWINGS | {"export"}))
def test_drawings_import_only_the_helpers(module):
    assert _sibling_imports(module) <= HELPERS, module


def test_only_the_dispatcher_and_the_package_import_drawings():
    for module in sorted(HELPERS | DRAWINGS | {"export"}):
        assert not (_sibling_imports(module) & {"dispatch"}), module


def test_helpers_are_defined_once():
    # The copies that used to live in several drawing modules.
    for name in ("_check_bool", "_role", "format_label", "scatter_nodes", "network_layout", "as_graph"):
        defining = [
            p.stem
            for p in PACKAGE.glob("*.py")
            if any(
                isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name for n in ast.parse(p.read_text()).body
            )
        ]
        assert defining == ["_common"], (name, defining)


# ---------------------------------------------------------------------------
# Dispatch by type


def _data(seed=0, n_rows=200):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = (a + rng.integers(0, 2, n_rows)) % 3
    c = rng.integers(0, 2, n_rows)
    X = pd.DataFrame({"a": a, "b": b, "c": c}).astype(str)
    y = pd.Series(np.where((a + c) % 2 == 0, "even", "odd"), name="label")
    Y = pd.DataFrame({"L1": y.to_numpy(), "L2": np.where(b > 0, "on", "off")})
    return X, y, Y


def test_free_hyperforest_classifier_draws_the_union_of_its_class_networks():
    X, y, _ = _data()
    model = gm.HyperforestClassifier(treewidth=1, representation="free", criterion="ml").fit(X, y)
    ax = draw_network(model, Figure().subplots())
    edges = [p for p in ax.patches if (p.get_gid() or "").startswith("edge")]
    assert len(edges) == model.structure_.number_of_edges() > 0


@pytest.mark.parametrize("wrapper", [gm.BinaryRelevance, gm.ClassifierChain])
def test_multilabel_wrappers_draw_one_axes_per_label(wrapper):
    X, _, Y = _data()
    model = wrapper(base=gm.TAN()).fit(X, Y)
    first = draw_network(model)
    axes = first.figure.axes  # the first label's axes; the figure holds one per label
    assert axes[0] is first and [ax.get_title() for ax in axes] == ["L1", "L2"]
    for ax, member in zip(axes, model.estimators_):
        edges = [p for p in ax.patches if (p.get_gid() or "").startswith("edge")]
        assert len(edges) == member.structure_.number_of_edges()
    with pytest.raises(ValueError, match="one structure per label"):
        draw_network(model, Figure().subplots())


def _class_node(ax):
    return next(t.get_text() for t in ax.texts if t.get_fontweight() == "bold")


@pytest.mark.parametrize("order", [None, ["L2", "L1"]])
def test_classifier_chain_axes_are_titled_in_chain_order(order):
    # The members are fitted in chain order: the k-th axes shows the member of order_[k], whose class is that label.
    X, _, Y = _data()
    model = gm.ClassifierChain(base=gm.NaiveBayes(), order=order).fit(X, Y)
    axes = draw_network(model).figure.axes
    assert [ax.get_title() for ax in axes] == model.order_ == (order or ["L1", "L2"])
    assert [_class_node(ax) for ax in axes] == model.order_


def test_label_powerset_draws_its_base_classifier():
    X, _, Y = _data()
    model = gm.LabelPowerset(base=gm.TAN()).fit(X, Y)
    ax = draw_network(model, Figure().subplots())
    edges = [p for p in ax.patches if (p.get_gid() or "").startswith("edge")]
    assert len(edges) == model.estimator_.structure_.number_of_edges()


def _drawing_of(ax):
    """Which drawing made `ax`, told by the artists only that drawing makes."""
    gids = {a.get_gid() for a in [*ax.patches, *ax.collections, *ax.texts]}
    legend = ax.get_legend()
    legend_texts = [t.get_text() for t in legend.get_texts()] if legend else []
    if "regions" in gids:
        return "region_graph"
    if legend and legend.get_title().get_text().startswith("Regions"):
        return "interactions"
    if any("subgraph" in text for text in legend_texts):
        return "multidimensional"
    if "label" in gids or "latent_box" in gids:
        return "latent_tree"
    if "hyperedge" in gids or "cliques" in gids:
        return "hyperforest"
    assert "nodes" in gids and not {t.get_gid() for t in ax.texts} - {None}, gids
    return "graph"


def _structures():
    from graphmodels import structures as st

    latent = st.add_latent(st.naive_bayes_tree("C", ["a", "b", "c"]), "L", ["a", "b"], [[(0, 0), (1, 1)], [(0, 1)]])
    unlisted = st.multidimensional_classifier(["C1", "C2"], ["a", "b"])
    unlisted.graph["features"] = ["a"]  # no arcs, and the lists do not name its nodes: not drawn as an MDBNC
    return {
        "undirected tree": (nx.path_graph(["a", "b", "c"]), "graph"),
        "augmented naive Bayes": (st.augmented_naive_bayes("C", ["a", "b"], [("a", "b")]), "graph"),
        "hyperforest": (st.random_hypertree(5, 2, random_state=0), "graph"),
        "region graph": (st.cluster_variation_regions([("a", "b", "y"), ("b", "c", "y")]), "region_graph"),
        "latent tree": (latent, "latent_tree"),
        "naive Bayes tree (no latent)": (st.naive_bayes_tree("C", ["a", "b"]), "graph"),
        "MDBNC": (
            st.multidimensional_classifier(["C1", "C2"], ["a", "b"], [("C1", "C2"), ("C1", "a")]),
            "multidimensional",
        ),
        "MDBNC without arcs": (st.multidimensional_classifier(["C1", "C2"], ["a", "b"]), "multidimensional"),
        "MDBNC without arcs, lists not matching": (unlisted, "graph"),
    }


@pytest.mark.parametrize("kind", list(_structures()))
def test_each_structure_kind_gets_its_drawing(kind):
    structure, expected = _structures()[kind]
    assert _drawing_of(draw_network(structure, Figure().subplots())) == expected


#: The drawing of each registered model that does not get the generic one.
_MODEL_DRAWINGS = {
    "kikuchi-bayes": "interactions",
    "hnb": "latent_tree",
    "md-nb": "multidimensional",
    "md-tan": "multidimensional",
    "md-aode": "multidimensional",
}


@pytest.mark.parametrize("name", sorted(gm.models.registered_models()))
def test_every_registered_model_is_drawn_when_fitted_and_refused_when_not(name):
    cls = gm.models.registered_models()[name]
    X, y, Y = _data()
    kind = next(k for k in ("classifier", "density", "multilabel") if name in gm.models.registered_models(k))
    with pytest.raises(gm.models.NotFittedError, match=f"{cls.__name__} instance is not fitted"):
        draw_network(cls())
    model = quick_model(name)
    model = model.fit(X, y) if kind == "classifier" else model.fit(X) if kind == "density" else model.fit(X, Y)
    expected = _MODEL_DRAWINGS.get(name, "graph")
    if name in ("binary-relevance", "classifier-chain"):
        axes = draw_network(model).figure.axes
        assert [_drawing_of(ax) for ax in axes] == [expected] * len(model.estimators_)
    else:
        assert _drawing_of(draw_network(model, Figure().subplots())) == expected


@pytest.mark.parametrize("bad", [42, "a graph", [nx.path_graph(2)], {"a": ["b"]}, np.eye(2)])
def test_what_is_not_a_structure_is_a_type_error_listing_what_is(bad):
    with pytest.raises(
        TypeError, match="Expected a networkx graph, a Hyperforest, a DiscreteBayesianNetwork or a fitted model"
    ):
        draw_network(bad, Figure().subplots())
