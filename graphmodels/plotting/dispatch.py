"""One entry point for every learned structure: :func:`draw_network` picks the drawing by type.

Models are matched by class (:data:`MODEL_DRAWINGS`, most specific first);
graphs, which are all ``nx.Graph``/``nx.DiGraph``, by what their nodes and
edges hold (a region graph, a latent tree, a multi-dimensional classifier);
anything else with roles and kinds gets the generic drawing. The drawing
modules never import this one, so the package has no import circle.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import networkx as nx

from ..models.ande import AnDE
from ..models.aode import AODE
from ..models.augmented import ChowLiu
from ..models.base import BaseModel
from ..models.bn_classifier import BNClassifier
from ..models.hierarchical_nb import HierarchicalNaiveBayes
from ..models.hyperforest import HyperforestClassifier
from ..models.kikuchi import KikuchiBayes
from ..models.label_transformations import BinaryRelevance, ClassifierChain, LabelPowerset
from ..models.multidimensional import MultiDimensionalAODE, MultiDimensionalNaiveBayes, MultiDimensionalTAN
from ..structures.comparison import EdgeStability, StructureDifference
from ..structures.hyperforests import Hyperforest, hyperforests_by_class
from ..structures.latent_trees import is_latent_tree
from ..structures.multidimensional import is_multidimensional_classifier
from ._common import as_graph, network_layout
from .hyperforests import draw_junction_tree
from .interactions import draw_interactions
from .latent_trees import draw_latent_tree
from .multidimensional import draw_multidimensional
from .network import draw_graph
from .region_graph import draw_region_graph
from .stability import draw_stability, draw_structure_difference

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_network", "MODEL_DRAWINGS"]


def _interactions(model, ax, options):
    layout = options["layout"]
    return draw_interactions(
        model,
        layout if isinstance(layout, dict) else None,
        ax=ax,
        title=options["title"],
        legend=options["legend"],
        **_strongest_options(options),
    )


def _latent_tree(tree_or_model, ax, options):
    return draw_latent_tree(tree_or_model, ax=ax, title=options["title"], legend=options["legend"])


#: Options of :func:`draw_network` that only some drawings take (the others are every drawing's).
_OWN_OPTIONS = ("max_members", "show_cut_points", "top_k", "faded")


def _common_options(options):
    """`options` without those of :data:`_OWN_OPTIONS`: what :func:`draw_graph` and the like take."""
    return {key: value for key, value in options.items() if key not in _OWN_OPTIONS}


def _strongest_options(options):
    """The `top_k` and `faded` of `options`, for the drawings that take them."""
    return {"top_k": options["top_k"], "faded": options["faded"]}


def _multidimensional(graph_or_model, ax, options):
    graph = as_graph(graph_or_model)
    layout = options["layout"]
    if isinstance(layout, str):
        layout = network_layout(graph, layout, max_row_width=options["max_row_width"])
    return draw_multidimensional(graph, ax, **{**_common_options(options), "layout": layout})


def _junction_tree(graph, ax, options):
    """A junction tree (``Hyperforest.junction_tree()``, ``JunctionTree.graph``): drawn with its own edges."""
    return draw_junction_tree(graph, ax=ax, title=options["title"])


def _region_graph(graph, ax, options):
    return draw_region_graph(
        graph, ax=ax, title=options["title"], legend=options["legend"], **_strongest_options(options)
    )


def _members(model, ax, options):
    """One axes per label: each member classifier's structure, titled by its label; the first axes.

    A classifier chain fits its members in chain order (``order_``), binary
    relevance in label order (``label_names_``).
    """
    labels = model.order_ if isinstance(model, ClassifierChain) else model.label_names_
    members = list(zip(labels, model.estimators_))
    if ax is not None:
        raise ValueError(
            f"{type(model).__name__} has one structure per label ({len(members)}); draw with ax=None "
            "(a grid of axes is made) or draw one member, e.g. draw_network(model.estimators_[0], ax)."
        )
    axes = _grid(len(members), options["title"])
    for target, (label, member) in zip(axes, members):
        draw_network(member, target, **{**options, "title": f"{label}"})
    return axes[0]


def _grid(count, title, cell=(5.0, 4.0)):
    """A new figure with `count` axes, 3 a row, titled `title`; the axes, flat, in reading order.

    The spare cells of the last row are removed, not hidden, so that the figure's
    ``axes`` are exactly the panels, in order: what :func:`draw_network` promises.
    """
    import matplotlib.pyplot as plt

    columns = min(3, count)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(cell[0] * columns, cell[1] * rows), squeeze=False, layout="constrained"
    )
    for target in axes.ravel()[count:]:
        figure.delaxes(target)
    if title:
        figure.suptitle(title)
    return list(axes.ravel()[:count])


def _superparent_title(superparents):
    if not superparents:
        return "no super-parent (naive Bayes)"
    return f"super-parent{'s' if len(superparents) > 1 else ''}: {', '.join(map(str, superparents))}"


def _superparent_members(model, ax, options):
    """AODE and AnDE: a grid of the members of the most informative super-parent sets.

    At most ``max_members`` members, those whose super-parents ``S`` have the
    highest ``I(X_S; C)`` (:meth:`~graphmodels.models.AODE.ranked_superparents`),
    each drawn from :meth:`~graphmodels.models.AODE.member_structure` and
    titled by its super-parents (the legend on the first only); only those
    are built. With an `ax`, the naive Bayes skeleton ``structure_`` is drawn
    there, as before members were drawn.
    """
    if ax is not None:
        return _generic(model, ax, options)
    chosen = model.ranked_superparents(options["max_members"])
    total = len(model.superparents_[-1]) if isinstance(model, AnDE) else model.n_features_in_
    title = options["title"]
    if title is None and len(chosen) == total:
        title = f"{type(model).__name__}: its {total} member{'s' if total != 1 else ''}"
    elif title is None:
        title = f"{type(model).__name__}: {len(chosen)} of {total} members, the highest I(super-parents; class)"
    members = [model.member_structure(superparents) for superparents in chosen]
    # Each cell as large as draw_graph would make the first member's figure, within reason.
    method = options["layout"] if isinstance(options["layout"], str) else None
    pos = network_layout(members[0], method, max_row_width=options["max_row_width"])
    xs, ys = zip(*pos.values())
    cell = (
        min(max(1.3 * (max(xs) - min(xs) + 1.6), 5.0), 10.0),
        min(max(1.05 * (max(ys) - min(ys) + 1.6) + 0.6, 4.0), 8.0),
    )
    axes = _grid(len(members), title, cell)
    _draw_panels(axes, [(_superparent_title(m.graph["superparents"]), m) for m in members], options)
    return axes[0]


def _draw_panels(axes, panels, options, **drawing):
    """Each ``(title, graph)`` of `panels` in its axes of `axes`; the legend, the same for all, on the first only."""
    for index, (target, (title, graph)) in enumerate(zip(axes, panels)):
        panel = {"title": title, "legend": options["legend"] and index == 0}
        draw_graph(graph, target, **{**_common_options(options), **drawing, **panel, **_strongest_options(options)})


def _class_structures(model):
    """``(label, structure)`` of each class of a model with one structure per class, else None."""
    if getattr(model, "representation_", None) != "free":
        return None
    if isinstance(model, ChowLiu):
        return list(zip(model.classes_, model.structures_))
    forests = hyperforests_by_class(model)
    return None if forests is None else list(forests.items())


def _per_class(model, ax, options):
    """ChowLiu and the hyperforest classifier with one structure per class: a grid of the classes' structures.

    Without `ax`, at most ``max_members`` classes, the most probable first (by the
    model's class prior ``class_log_prior_``: the most frequent, for a generative fit), each
    structure drawn in its own axes and titled by its class (the legend on the
    first only). With an `ax` (or a structure shared by the classes), the
    model's ``structure_`` is drawn there: the union of the classes' structures.
    """
    structures = _class_structures(model)
    if ax is not None or structures is None:
        return _generic(model, ax, options)
    # The most probable classes first (ties in class order).
    order = sorted(range(len(structures)), key=lambda k: (-model.class_log_prior_[k], k))
    chosen = [structures[k] for k in order[: options["max_members"]]]
    kind = "forest" if isinstance(model, ChowLiu) else "hyperforest"
    title = options["title"]
    if title is None:
        shown = (
            f"its {len(chosen)} classes"
            if len(chosen) == len(structures)
            else f"{len(chosen)} of {len(structures)} classes, the most probable"
        )
        title = f"{type(model).__name__}: one {kind} per class ({shown})"
    layout = options["layout"]
    if not isinstance(layout, dict):
        # One layout for every class, of the union of their edges: the classes compare at a glance.
        union = nx.Graph()
        for _, structure in chosen:
            graph = as_graph(structure)
            union.add_nodes_from(graph.nodes(data=True))
            union.add_edges_from(graph.edges)
        layout = network_layout(union, layout or "kamada_kawai", max_row_width=options["max_row_width"])
    axes = _grid(len(chosen), title)
    _draw_panels(axes, [(f"class {label}", structure) for label, structure in chosen], options, layout=layout)
    return axes[0]


def _label_powerset(model, ax, options):
    return draw_network(model.estimator_, ax, **options)


def _chosen(model, ax, options):
    """A BNClassifier: the model it chose, drawn as that model is, titled by the choice."""
    if options["title"] is None:
        picked = model.selection_[model.selection_["chosen"]]
        label = picked["candidate"].iloc[0] if len(picked) else type(model.model_).__name__
        options = {**options, "title": f"{type(model).__name__}: {label}"}
    return draw_network(model.model_, ax, **options)


#: Drawings of fitted models, by class (the first matching class wins).
MODEL_DRAWINGS = {
    KikuchiBayes: _interactions,
    HierarchicalNaiveBayes: _latent_tree,
    MultiDimensionalNaiveBayes: _multidimensional,
    MultiDimensionalTAN: _multidimensional,
    MultiDimensionalAODE: _multidimensional,
    BinaryRelevance: _members,
    ClassifierChain: _members,
    AODE: _superparent_members,
    AnDE: _superparent_members,
    LabelPowerset: _label_powerset,
    BNClassifier: _chosen,
    ChowLiu: _per_class,
    HyperforestClassifier: _per_class,
}


def _lists_its_nodes(graph):
    """Whether ``graph.graph["classes"]`` and ``["features"]`` together name exactly its nodes."""
    try:
        listed = set(graph.graph["classes"]) | set(graph.graph["features"])
    except (KeyError, TypeError):
        return False
    return listed == set(graph.nodes)


def _graph_drawing(graph):
    """The drawing for a networkx graph, chosen by what it holds.

    A junction tree: undirected, every node a frozenset with
    ``kind="clique"`` (as :meth:`~graphmodels.structures.Hyperforest.junction_tree`
    makes it). A region graph: every node a frozenset with a ``counting_number``. A
    latent tree (:func:`~graphmodels.structures.is_latent_tree`) with at
    least one latent. An MDBNC
    (:func:`~graphmodels.structures.multidimensional.is_multidimensional_classifier`)
    with at least one arc, or without arcs but whose ``graph["classes"]``
    and ``graph["features"]`` list its nodes, as
    :func:`~graphmodels.structures.multidimensional.multidimensional_classifier`
    sets them. Anything else: None (the generic drawing).
    """
    if (
        graph.number_of_nodes()
        and not graph.is_directed()
        and all(isinstance(n, frozenset) and d.get("kind") == "clique" for n, d in graph.nodes(data=True))
    ):
        return _junction_tree
    if graph.number_of_nodes() and all(
        isinstance(n, frozenset) and "counting_number" in d for n, d in graph.nodes(data=True)
    ):
        return _region_graph
    if isinstance(graph, nx.DiGraph) and any(r == "latent" for _, r in graph.nodes(data="role")):
        if is_latent_tree(graph):
            return _latent_tree
    if is_multidimensional_classifier(graph) and (graph.number_of_edges() or _lists_its_nodes(graph)):
        return _multidimensional
    return None


def _generic(graph_or_model, ax, options):
    """The drawing chosen by what the graph holds, else :func:`draw_graph` (with cut points if asked)."""
    graph = as_graph(graph_or_model)
    drawing = _graph_drawing(graph)
    if drawing is not None:
        return drawing(graph, ax, options)
    strongest = _strongest_options(options)
    if options["show_cut_points"] and isinstance(graph_or_model, BaseModel):
        return draw_graph(graph_or_model, ax, **_common_options(options), **strongest, show_cut_points=True)
    return draw_graph(graph, ax, **_common_options(options), **strongest)


def draw_network(
    graph_or_model: nx.Graph | Hyperforest | BaseModel | EdgeStability | StructureDifference,
    ax: Axes | None = None,
    *,
    layout: str | dict[Any, Any] | None = None,
    node_size: float | None = None,
    font_size: float | None = None,
    show_weights: bool | str = False,
    weight_format: str = ".3f",
    title: str | None = None,
    legend: bool = True,
    max_label_length: int = 24,
    max_row_width: int | None = None,
    show_cut_points: bool = False,
    max_members: int = 6,
    top_k: int | None = None,
    faded: str = "fade",
) -> Axes:
    """Draw any learned structure, with the drawing made for its type; return one matplotlib Axes.

    ============================================  =====================================================
    what is drawn                                 drawing
    ============================================  =====================================================
    ``KikuchiBayes``                              :func:`~graphmodels.plotting.draw_interactions`
    a region graph (frozenset nodes with          :func:`~graphmodels.plotting.draw_region_graph`
    ``counting_number``)
    a junction tree (frozenset nodes with         :func:`~graphmodels.plotting.draw_junction_tree`
    ``kind="clique"``)
    ``HierarchicalNaiveBayes``, a latent tree     :func:`~graphmodels.plotting.draw_latent_tree`
    multi-dimensional classifiers (MDBNCs)        :func:`~graphmodels.plotting.draw_multidimensional`
    ``BinaryRelevance``, ``ClassifierChain``      a grid of the members' structures, one per label
                                                  (a chain's in chain order, ``order_``)
    ``LabelPowerset``                             its base classifier's structure
    ``BNClassifier``                              the model it chose (``model_``), as that model is
                                                  drawn, titled by the choice
    ``AODE``, ``AnDE`` without `ax`               a grid of at most `max_members` members: those whose
                                                  super-parents ``S`` have the highest ``I(X_S; C)``
    ``AODE``, ``AnDE`` with `ax`                  their naive Bayes skeleton ``structure_``, generic
    ``ChowLiu``, ``HyperforestClassifier`` with   a grid of at most `max_members` classes'
    one structure per class, without `ax`         structures, the most probable classes first
    an ``EdgeStability`` (``edge_stability``)     :func:`~graphmodels.plotting.draw_stability`
    a ``StructureDifference``                     :func:`~graphmodels.plotting.draw_structure_difference`
    any other graph, hyperforest or fitted model  :func:`~graphmodels.plotting.draw_graph` (class on
                                                  top, attribute forest below, arcs by kind)
    ============================================  =====================================================

    A Chow-Liu or hyperforest classifier with one structure per class
    (``representation_ == "free"``) drawn in a given `ax` is drawn as its
    ``structure_``: the union of the classes' structures, each edge holding the
    classes that have it (draw one class with
    ``draw_network(hyperforests_by_class(model)[label], ax)``,
    :func:`~graphmodels.structures.hyperforests_by_class`, or
    ``draw_network(model.structures_[k], ax)`` for a Chow-Liu classifier).

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest, fitted model, EdgeStability or StructureDifference
        The structure, or a fitted model whose structure is drawn; or the result of
        :func:`~graphmodels.evaluation.edge_stability` or
        :func:`~graphmodels.structures.structure_difference` (drawn with their defaults,
        `layout`, `title` and `legend`).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the structure is made if omitted.
    layout : str or dict, optional
        A method name of :func:`~graphmodels.plotting.network_layout`
        (default: ``"layered"`` for directed graphs, ``"kamada_kawai"`` for
        undirected ones), or a dict node -> ``(x, y)`` covering every node.
    node_size : float, optional
        Marker area in points^2; by default fitted to the room per node.
    font_size : float, optional
        Label size in points; by default fitted to the room per node.
    show_weights : bool or {"class", "augmenting"}, default=False
        Write each edge's ``weight`` at its middle; a kind name: only on
        edges of that kind.
    weight_format : str, default=".3f"
        Format spec of those labels.
    title : str, optional
    legend : bool, default=True
        Show which colour is which role and which line which arc kind.
    max_label_length : int, default=24
        Longer node names are truncated with an ellipsis.
    max_row_width : int, optional
        Passed to :func:`~graphmodels.plotting.network_layout`.
    show_cut_points : bool, default=False
        In the generic drawing of a fitted model, write the cut points of
        each discretized column under its name (see
        :func:`~graphmodels.plotting.draw_graph`).
    max_members : int, default=6
        For an :class:`~graphmodels.models.AODE` or
        :class:`~graphmodels.models.AnDE` drawn without `ax`: the most
        members drawn (``>= 1``). The super-parent sets ``S`` are ranked by
        the plug-in ``I(X_S; C)`` of the counts ``N[y, x_S]`` the model keeps
        (:meth:`~graphmodels.models.AODE.ranked_superparents`, ties in column
        order), and only the first `max_members` members are built
        (:meth:`~graphmodels.models.AODE.member_structure`) and drawn, each
        titled by its super-parents (``"super-parents: a, b"``); AnDE on 60
        attributes has 1770 pairs. For a Chow-Liu or hyperforest classifier
        with one structure per class drawn without `ax`: the most classes
        drawn, the most probable first (``class_log_prior_``). Other drawings ignore it.
    top_k : int, optional
        In the generic drawing (and the members of AODE and AnDE): draw the
        `top_k` edges of largest ``weight`` in full and the rest as `faded`
        says, the class arcs of a classifier faded as one group (see
        :func:`~graphmodels.plotting.draw_graph`); for a KikuchiBayes and a
        region graph, the `top_k` strongest regions (earlier along the
        search path; see :func:`~graphmodels.plotting.draw_interactions`,
        :func:`~graphmodels.plotting.draw_region_graph`). Other drawings
        ignore it.
    faded : {"fade", "hide"}, default="fade"
        The edges (regions) left out by `top_k`: drawn light and thin, or
        not drawn.

    Returns
    -------
    matplotlib.axes.Axes
        Always one Axes, whatever is drawn: `ax` when it is given, else the
        first panel of the new figure. A drawing of several panels (one per
        label of the multi-label wrappers, one per member drawn of AODE and
        AnDE, one per class drawn of a model with one structure per class,
        all without `ax`) returns its first panel (the first label, the most
        informative member, the most probable class); every panel is in
        ``ax.figure.axes``, in the order drawn, and ``ax.figure.savefig(...)``
        saves them all.

    Raises
    ------
    NotFittedError
        For a model that is not fitted.
    TypeError
        For anything that is neither a graph, a hyperforest nor a model.
    ValueError
        For an unknown layout name or a layout dict missing nodes, a
        `max_members` that is not an integer >= 1, a `top_k` that is not an
        integer >= 1 or an unknown `faded`.

    See Also
    --------
    draw_graph : the generic drawing.
    to_dot, to_graphml : export for Graphviz, Gephi, yEd.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> g = nx.DiGraph([("C", "a"), ("C", "b"), ("a", "b")])
    >>> nx.set_node_attributes(g, {"C": "class", "a": "feature", "b": "feature"}, "role")
    >>> nx.set_edge_attributes(g, {("C", "a"): "class", ("C", "b"): "class", ("a", "b"): "augmenting"}, "kind")
    >>> ax = draw_network(g, Figure().subplots())
    >>> len(ax.patches)
    3

    A drawing of several panels returns the first; the figure holds them all:

    >>> import matplotlib.pyplot as plt
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> ax = draw_network(gm.AODE().fit(X, y), max_members=2)
    >>> ax.get_title(), len(ax.figure.axes)
    ('super-parent: safety', 2)
    >>> plt.close(ax.figure)
    """
    if isinstance(max_members, bool) or not isinstance(max_members, numbers.Integral) or max_members < 1:
        raise ValueError(f"`max_members` must be an integer >= 1, got {max_members!r}.")
    options: dict[str, Any] = {
        "layout": layout,
        "node_size": node_size,
        "font_size": font_size,
        "show_weights": show_weights,
        "weight_format": weight_format,
        "title": title,
        "legend": legend,
        "max_label_length": max_label_length,
        "max_row_width": max_row_width,
        "max_members": int(max_members),
        "show_cut_points": show_cut_points,
        "top_k": top_k,
        "faded": faded,
    }
    if isinstance(graph_or_model, EdgeStability):
        return draw_stability(graph_or_model, ax, layout=layout, title=title, legend=legend)
    if isinstance(graph_or_model, StructureDifference):
        return draw_structure_difference(graph_or_model, ax, layout=layout, title=title, legend=legend)
    if isinstance(graph_or_model, BaseModel):
        graph_or_model._check_fitted()
        for cls, drawing in MODEL_DRAWINGS.items():
            if isinstance(graph_or_model, cls):
                return drawing(graph_or_model, ax, options)
    # A graph, a hyperforest, a model without a drawing of its own, or another library's fitted
    # model with a `structure_`.
    return _generic(graph_or_model, ax, options)
