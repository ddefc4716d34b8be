"""Rich display of models in notebooks: what ``model._repr_html_()`` shows.

Every model (``BaseModel._repr_html_``, so every registered classifier,
density and multi-label model) displays in Jupyter as one HTML block built
by :func:`model_html`:

* a header: the class name and the hyperparameters that differ from their
  defaults, as ``repr(model)`` (scikit-learn's convention);
* unfitted: the table of every hyperparameter (changed ones in bold), and
  nothing else;
* fitted: a summary (rows seen, attributes, classes or labels, the
  structure's kind and size, the estimator chosen, the strongest
  interactions with their weights, the discretizer's cut points), the
  hyperparameters folded away, and the learned structure drawn as inline
  SVG by :func:`graphmodels.plotting.draw_network`.

Rendering happens only when a front-end asks for it, and is bounded: a
structure with more than :data:`~graphmodels._display.MAX_DRAWN_NODES` (300)
nodes is summarized without a drawing (the summary says so and names
:func:`~graphmodels.plotting.draw_network`); one of more than
:data:`~graphmodels._display.LARGE_DRAWING` (60) nodes is drawn without its
class arcs (a note says so; naive Bayes shows its class and attributes); AODE
and AnDE draw at most 2 members and a model with one structure per class
(``ChowLiu``, ``HyperforestClassifier`` with ``representation_ == "free"``)
at most 2 classes, the most probable (:data:`MAX_DRAWN_MEMBERS`), as many
as hold 60 nodes in all (one when a member has more). Drawing options given
by the caller (``show(model, top_k=...)``) take precedence, and with any of
them the class arcs are drawn. It never raises: an error while summarizing
shows as a message beside the model's ``repr``, an error while drawing as a
note under the summary.

Only ``_repr_html_`` is offered, no ``_repr_svg_``: IPython computes every
``_repr_*_`` an object has for every display (its ``DisplayFormatter``
calls all formatters; the front-end then picks one), so both would draw the
model twice and store it twice in the notebook. For the drawing alone, or
an object that also offers ``image/svg+xml`` (for front-ends that prefer
SVG) from a single drawing, use :func:`graphmodels.plotting.show`.

The drawing comes from the plotting layer, above this one, through the hook
of :mod:`graphmodels._display` (registered by ``graphmodels/__init__.py``);
this module reads fitted attributes only, and imports no model module (the
models import it), so it recognizes model families by their attributes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._display import (
    LARGE_DRAWING,
    MAX_DRAWN_NODES,
    MAX_LISTED,
    TOP_INTERACTIONS,
    drawing_html,
    format_list,
    format_value,
    hyperedge_text,
    node_count,
    plural,
    render,
    representation_scores,
    representation_scoring,
    safe_html,
    structure_rows,
)
from ..estimators.parameters import Estimator
from ..structures import Hyperforest, hyperforests_by_class

__all__ = ["model_html", "model_summary", "parameter_table", "MAX_DRAWN_MEMBERS"]

#: Most members of an AODE or AnDE drawn in a display (the most informative super-parents first),
#: and most classes of a model with one structure per class (the most probable first): two show what
#: the members are; each one more costs as much as the first (0.2 s for 17 nodes; five classes of 39
#: attributes took 1.4 s).
MAX_DRAWN_MEMBERS = 2


def model_html(
    model: Any, *, max_nodes: int = MAX_DRAWN_NODES, draw: Callable[..., str] | None = None, **options: Any
) -> str:
    """The HTML block a notebook shows for `model` (what ``model._repr_html_()`` returns).

    Parameters
    ----------
    model : graphmodels model
        Fitted or not.
    max_nodes : int, default=300
        A structure with more nodes (all members' together, for a grid of
        members) is summarized without a drawing.
    draw : callable, optional
        ``draw(model, **options) -> "<svg ...>"``; by default the registered
        drawer, :func:`graphmodels.plotting.draw_svg`.
    **options
        Drawing options, those of :func:`graphmodels.plotting.draw_network`.

    Returns
    -------
    str
        One ``<div class="gm-display">`` with a scoped ``<style>``: no
        script, no link, nothing fetched. It never raises.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> text = model_html(gm.TAN().fit(X, y))
    >>> "<svg" in text and "strongest interactions" in text
    True
    >>> "<svg" in model_html(gm.TAN(algorithm="prim"))  # unfitted: its parameters only
    False
    """
    return safe_html(model, lambda: _model_html(model, max_nodes, draw, options))


def _is_fitted(model: Any) -> bool:
    check = getattr(model, "_is_fitted", None)
    return bool(check()) if callable(check) else True


def _model_html(model, max_nodes, draw, options):
    title = repr(model)
    parameters = parameter_table(model)
    if not _is_fitted(model):
        return render(title, parameters=parameters, parameters_open=True, notes=["not fitted: call fit first"])
    n_nodes, drawing_options = _drawn_nodes(model, max_nodes)
    drawn, notes = model, []
    large = _without_class_arcs(model) if n_nodes <= max_nodes and not options else None
    if large is not None:
        drawn, hidden, shown = large
        drawing_options.update(hidden)
        notes.append(
            f"{shown} nodes: drawn without the class arcs (one from the class to every attribute); "
            "graphmodels.plotting.draw_network(model) draws them"
        )
    drawing, drawing_notes = drawing_html(
        drawn, n_nodes, max_nodes=max_nodes, draw=draw, options={**drawing_options, **options}
    )
    notes = notes + drawing_notes if drawing else drawing_notes
    return render(title, model_summary(model), parameters=parameters, notes=notes, drawing=drawing)


# ---------------------------------------------------------------------------- parameters
def _differs(value: Any, default: Any) -> bool:
    try:
        return not bool(value == default)
    except (ValueError, TypeError):
        return value is not default


def parameter_table(model: Any) -> list[tuple[str, str, bool]]:
    """``(name, repr of the value, differs from the default)`` of every hyperparameter, in name order."""
    params = model.get_params(deep=False) if hasattr(model, "get_params") else {}
    try:
        signature: Mapping[str, inspect.Parameter] = inspect.signature(type(model).__init__).parameters
    except (TypeError, ValueError):
        signature = {}
    rows = []
    for name, value in params.items():
        default = signature[name].default if name in signature else inspect.Parameter.empty
        changed = default is inspect.Parameter.empty or _differs(value, default)
        rows.append((name, repr(value), changed))
    return rows


# ---------------------------------------------------------------------------- summary
def _members(model: Any) -> list[Any] | None:
    """The member models of a multi-label wrapper (one per label), or None."""
    members = getattr(model, "estimators_", None)
    return list(members) if isinstance(members, list) else None


def _base_model(model: Any) -> Any:
    """LabelPowerset's fitted base classifier (``estimator_`` is a model there, not an Estimator)."""
    base = getattr(model, "estimator_", None)
    return base if base is not None and hasattr(base, "get_params") and not isinstance(base, Estimator) else None


def _chosen_model(model: Any) -> Any:
    """The model a BNClassifier chose (``model_``, drawn and asked in its place), or None."""
    chosen = getattr(model, "model_", None)
    return chosen if chosen is not None and hasattr(getattr(model, "selection_", None), "columns") else None


def _drawn_nodes(model: Any, max_nodes: int) -> tuple[int, dict[str, Any]]:
    """The nodes the model's drawing shows (every member's, in a grid), and the drawing options it needs."""
    chosen = _chosen_model(model)
    if chosen is not None:
        return _drawn_nodes(chosen, max_nodes)
    members = _members(model)
    if members is not None:
        return sum(node_count(getattr(m, "structure_", None)) for m in members), {}
    base = _base_model(model)
    if base is not None:
        return _drawn_nodes(base, max_nodes)
    if hasattr(model, "interactions_"):
        # Kikuchi-Bayes is drawn as its interaction diagram: one point per attribute.
        return int(model.n_features_in_), {}
    per_member = node_count(getattr(model, "structure_", None))
    # A grid's panels hold at most LARGE_DRAWING nodes in all (one panel when a member has more).
    room = min(max_nodes, LARGE_DRAWING) // max(per_member, 1)
    if hasattr(model, "ranked_superparents"):
        # AODE, AnDE: a grid of the most informative members (1 or 2).
        members_drawn = int(np.clip(room, 1, MAX_DRAWN_MEMBERS))
        return per_member * members_drawn, {"max_members": members_drawn}
    n_classes = _classes_with_a_structure(model)
    if n_classes:
        # ChowLiu, HyperforestClassifier with one structure per class: a grid of the most probable
        # classes (1 or 2), each over every variable.
        classes_drawn = int(np.clip(room, 1, min(n_classes, MAX_DRAWN_MEMBERS)))
        return per_member * classes_drawn, {"max_members": classes_drawn}
    return per_member, {}


def _classes_with_a_structure(model: Any) -> int:
    """How many classes have a structure of their own (a per-class grid is drawn), or 0."""
    if getattr(model, "representation_", None) != "free":
        return 0
    forests = hyperforests_by_class(model)
    if forests is not None:
        return len(forests)
    structures = getattr(model, "structures_", None)
    classes = getattr(model, "classes_", None)
    if isinstance(structures, list) and classes is not None and len(structures) == len(classes):
        return len(structures)  # ChowLiu: one tree (a networkx graph) per class
    return 0


def _without_class_arcs(model: Any) -> tuple[Any, dict[str, Any], int] | None:
    """What to draw, with which options, for a drawing of more than ``LARGE_DRAWING`` nodes without its class arcs.

    ``(obj, options, nodes)``, `nodes` those of one drawing (one member, for AODE and AnDE); None
    when the drawing is not that large or has no class arcs, or is a grid of classes, a latent
    tree or an interaction diagram. A model drawn as its one ``structure_`` is drawn as a copy of
    it without the class arcs (naive Bayes: the class and its attributes); AODE and AnDE as
    themselves, with ``top_k`` every arc of a member but the class arcs, which ``draw_network``
    then hides as a group.
    """
    if _members(model) is not None or _base_model(model) is not None or hasattr(model, "interactions_"):
        return None
    if _classes_with_a_structure(model):
        return None
    superparents = hasattr(model, "ranked_superparents")
    if superparents:
        structure = model.member_structure(model.ranked_superparents(1)[0])  # every member has as many arcs
    else:
        structure = getattr(model, "structure_", None)
    if not hasattr(structure, "edges") or not hasattr(structure, "is_directed"):
        return None
    n_nodes = node_count(structure)
    if n_nodes <= LARGE_DRAWING or any(role == "latent" for _, role in structure.nodes(data="role")):
        return None  # small, or a latent tree (drawn by its own drawing)
    class_arcs = [(u, v) for u, v, kind in structure.edges(data="kind") if kind == "class"]
    if not class_arcs:
        return None
    if superparents:
        others = structure.number_of_edges() - len(class_arcs)
        return (model, {"top_k": others, "faded": "hide"}, n_nodes) if others else None
    drawn = structure.copy()
    drawn.remove_edges_from(class_arcs)
    return drawn, {}, n_nodes


def _names(model: Any) -> list[Any]:
    encoder = getattr(model, "encoder_", None)
    if encoder is not None and hasattr(encoder, "columns_"):
        return list(encoder.columns_)
    return list(getattr(model, "feature_columns_", []))


def _cut_points(model: Any) -> list[str]:
    discretizer = getattr(model, "discretizer_", None)
    cuts = getattr(discretizer, "cut_points_", None) or {}
    lines = [
        f"{format_value(column)}: {' | '.join(format(float(c), '.4g') for c in points) or 'no cut'}"
        for column, points in list(cuts.items())[:MAX_LISTED]
    ]
    if len(cuts) > MAX_LISTED:
        lines.append(f"… ({plural(len(cuts) - MAX_LISTED, 'more column')})")
    return lines


def _hyperedge_weights(model: Any, forest: Any) -> list[str]:
    """The `forest`'s hyperedges of 2 or more variables with the highest weight, when the weights are kept."""
    try:
        weights = model.weights_
    except (AttributeError, ValueError):
        return []  # not saved with a loaded model
    if not isinstance(weights, Mapping):
        return []  # one set of weights per class (representation="free")
    scored = []
    for hyperedge in getattr(forest, "hyperedges", ()):
        if len(hyperedge) > 1 and hyperedge in weights:
            scored.append((float(weights[hyperedge]), hyperedge))
    scored.sort(key=lambda item: (-item[0], format_value(item[1])))
    return [f"{hyperedge_text(forest, h)}: {w:.4g}" for w, h in scored[:TOP_INTERACTIONS]]


def _per_class_rows(model: Any, forests: dict[Any, Hyperforest]) -> tuple[list[tuple[str, str | list[str]]], list[str]]:
    """Summary rows of one hyperforest per class (label -> forest), and the strongest hyperedges over every class."""
    joined = {label: [h for h in forest.maximal_hyperedges if len(h) > 1] for label, forest in forests.items()}
    variables = {v for forest in forests.values() for v in forest.nodes}
    total = sum(len(hyperedges) for hyperedges in joined.values())
    text = (
        f"one hyperforest per class ({plural(len(forests), 'class', 'classes')}): "
        f"{plural(len(variables), 'variable')}, {plural(total, 'maximal hyperedge')} of 2 or more in all"
    )
    lines = [
        f"class {format_value(label)}, hyperforest of width {forest.width}: "
        + (format_list(hyperedge_text(forest, h) for h in joined[label]) or "none (independent variables)")
        for label, forest in forests.items()
    ]
    if len(lines) > MAX_LISTED:
        lines = [*lines[:MAX_LISTED], f"… ({plural(len(lines) - MAX_LISTED, 'more class', 'more classes')})"]
    rows: list[tuple[str, str | list[str]]] = [("structure", text), ("hyperedges", lines)]
    try:
        weights = model.weights_
    except (AttributeError, ValueError):
        return rows, []  # not saved with a loaded model
    if not isinstance(weights, list) or len(weights) != len(forests):
        return rows, []
    scored = []
    for (label, forest), mapping in zip(forests.items(), weights):  # weights_: one per class, in classes_ order
        for hyperedge in forest.hyperedges:
            if len(hyperedge) > 1 and hyperedge in mapping:
                scored.append((float(mapping[hyperedge]), format_value(label), hyperedge_text(forest, hyperedge)))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    return rows, [f"{text} in class {label}: {w:.4g}" for w, label, text in scored[:TOP_INTERACTIONS]]


def _selection_rows(model: Any, chosen: Any) -> list[tuple[str, str | list[str]]]:
    """A BNClassifier's choice and every candidate's inner cross-validated log-loss, best first."""
    table = model.selection_
    picked = table[table["chosen"]]
    label = str(picked["candidate"].iloc[0]) if len(picked) else type(chosen).__name__
    folds = int(table["folds"].max()) if len(table) else 0
    scored = table[table["log_loss"].notna()].sort_values("log_loss", kind="stable")
    lines = [
        f"{row.candidate}: {row.log_loss:.4f}{' (chosen)' if row.chosen else ''}"
        for row in scored.head(MAX_LISTED).itertuples()
    ]
    if len(scored) > MAX_LISTED:
        lines.append(f"… ({plural(len(scored) - MAX_LISTED, 'more candidate')})")
    unscored = len(table) - len(scored)
    if unscored:
        lines.append(
            f"{plural(unscored, 'more candidate')} not scored on every fold (dropped from the race or left out)"
        )
    return [
        ("chosen", f"{label}, refitted on every row"),
        (f"candidates (log-loss, {folds}-fold inner CV)", lines),
    ]


def model_summary(model: Any) -> list[tuple[str, str | list[str]]]:
    """The summary rows of a fitted model: ``(label, text or lines)``.

    Rows seen, attributes, classes (or labels), the structure, members,
    estimator, strongest interactions and cut points, each when the model
    has it.
    """
    rows: list[tuple[str, str | list[str]]] = []
    n_rows = getattr(model, "n_rows_", None)
    if n_rows is not None:
        rows.append(("rows", f"{int(n_rows):,}"))
    names = _names(model)
    if names:
        rows.append(("attributes", f"{len(names)}: {format_list(names)}"))
    labels = getattr(model, "label_names_", None)
    classes = getattr(model, "classes_", None)
    if labels is not None:
        described = [f"{format_value(name)} ({len(values)} values)" for name, values in zip(labels, classes or [])]
        rows.append(("labels", f"{len(labels)}: {format_list(described)}"))
    elif classes is not None:
        rows.append(("classes", f"{len(classes)}: {format_list(classes)}"))
    structure = getattr(model, "structure_", None)
    interaction_rows: list[str] = []
    forests = hyperforests_by_class(model)
    if forests is not None:
        per_class, interaction_rows = _per_class_rows(model, forests)
        rows.extend(per_class)
    elif structure is not None:
        for label, value in structure_rows(structure):
            if label == "strongest interactions":
                interaction_rows = list(value)
            else:
                rows.append((label, value))
        if not interaction_rows:
            interaction_rows = _hyperedge_weights(model, structure)
    if hasattr(model, "interactions_") and not interaction_rows:
        regions = [" × ".join(format_value(v) for v in region) for region in model.interactions_]
        if regions:
            interaction_rows = [format_list(regions, TOP_INTERACTIONS)]
    representation = getattr(model, "representation_", None)
    if representation is not None:
        scores = representation_scores(model)
        if scores is not None:
            representation = f"{representation} (the lower {representation_scoring(model)} log-loss: {scores})"
        rows.append(("representation", str(representation)))
    members = _members(model)
    if members is not None:
        kinds = sorted({type(m).__name__ for m in members})
        rows.append(("members", f"{len(members)} × {', '.join(kinds)}, one per label"))
    base = _base_model(model)
    if base is not None:
        sets = getattr(model, "label_sets_", None)
        extra = f" over {len(sets)} label combinations" if sets is not None else ""
        rows.append(("base classifier", f"{base!r}{extra}"))
        if getattr(base, "structure_", None) is not None:
            rows.extend(structure_rows(base.structure_))
    if hasattr(model, "ranked_superparents"):
        superparents = getattr(model, "superparents_", None)
        count = len(superparents[-1]) if superparents else getattr(model, "n_features_in_", 0)
        rows.append(("members", f"{count} super-parent models, averaged"))
    if hasattr(model, "k_") and hasattr(model, "selected_features_"):
        selected = list(model.selected_features_)
        rows.append(("selected", f"k = {model.k_}, {len(selected)} of {len(names)} attributes"))
    if hasattr(model, "path_") and hasattr(model, "map_step_"):
        averaged = " (averaged over the path)" if getattr(model, "averaging", False) else ""
        rows.append(("search path", f"{len(model.path_)} stages, MAP at stage {model.map_step_}{averaged}"))
    chosen = _chosen_model(model)
    if chosen is not None:
        rows.extend(_selection_rows(model, chosen))
    estimator = getattr(chosen if chosen is not None else model, "estimator_", None)
    if isinstance(estimator, Estimator):
        rows.append(("estimator", repr(estimator)))
    if interaction_rows:
        rows.append(("strongest interactions", interaction_rows))
    cuts = _cut_points(model)
    if cuts:
        rows.append(("cut points", cuts))
    return rows
