"""Drawings of explanations: a row's terms as a waterfall, on the model's structure, and over a data set.

They draw the frames of :meth:`BaseClassifier.explain <graphmodels.models.BaseClassifier.explain>`
and :func:`~graphmodels.shapley_values` (one column per term, ``<prior>`` first; one block per
class for more than two classes). :func:`draw_contributions` and
:func:`draw_contribution_summary` draw the model's structure through
:func:`~graphmodels.plotting.draw_graph` and colour it, so this is an entry module of the
package (as :mod:`~graphmodels.plotting.animation` is), not a drawing module: no drawing imports it.

Colours: a term that raises the explained log-odds (or the class's log-probability) is
vermillion, one that lowers it blue (Okabe & Ito's colour-blind safe pair).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
import pandas as pd

from ._common import ROLE_COLORS, as_graph, format_label
from .network import draw_graph

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_waterfall", "draw_contributions", "draw_contribution_summary", "POSITIVE", "NEGATIVE"]

#: Colours of a term that raises (vermillion) or lowers (blue) the explained score.
POSITIVE = "#D55E00"
NEGATIVE = "#0072B2"
_SPECIAL = ("<prior>", "<normalizer>")


def _check_frame(contributions):
    if isinstance(contributions, pd.Series):
        return contributions.to_frame().T
    if not isinstance(contributions, pd.DataFrame):
        raise TypeError(
            "`contributions` must be the DataFrame of model.explain(X) or graphmodels.shapley_values(model, X) "
            f"(or one row of it), got {type(contributions).__name__}."
        )
    if len(contributions.columns) == 0 or len(contributions) == 0:
        raise ValueError("`contributions` is empty.")
    columns = contributions.columns
    names = columns.get_level_values(-1) if isinstance(columns, pd.MultiIndex) else columns
    if "<prior>" not in set(names):
        raise ValueError(
            "`contributions` has no '<prior>' column: pass the frame of model.explain(X) or "
            "graphmodels.shapley_values(model, X), not the data."
        )
    return contributions


def _row_of(frame, row):
    """The position of `row` (a position, else an index label) in `frame`."""
    if isinstance(row, (numbers.Integral,)) and not isinstance(row, bool) and row not in frame.index:
        if not -len(frame) <= row < len(frame):
            raise ValueError(f"`row` {row} is out of range for {len(frame)} rows.")
        return int(row) % len(frame)
    if row in frame.index:
        return int(np.flatnonzero(frame.index == row)[0])
    raise ValueError(f"`row` {row!r} is neither a position nor a label of the rows.")


def _block(frame, class_, row=None):
    """``(values, label)``: the columns of one class's block (the frame itself for two classes)."""
    if not isinstance(frame.columns, pd.MultiIndex):
        if class_ is not None:
            raise ValueError("`class_` picks a block of a frame with one block per class; this one has one block.")
        return frame, None
    labels = list(dict.fromkeys(frame.columns.get_level_values(0)))
    if class_ is None:
        if row is None:
            return None, labels
        totals = [float(frame[label].iloc[row].sum()) for label in labels]
        class_ = labels[int(np.argmax(totals))]  # the predicted class: the largest log-probability
    if class_ not in labels:
        raise ValueError(f"`class_` must be one of {labels}, got {class_!r}.")
    return frame[class_], class_


def _what(frame, label):
    explains = frame.attrs.get("explains", "")
    if label is not None:
        return f"log P({label!r} | x)"
    return explains or "log-odds"


def draw_waterfall(
    contributions: pd.DataFrame | pd.Series,
    row: Any = 0,
    *,
    data: pd.DataFrame | pd.Series | None = None,
    class_: Hashable | None = None,
    max_terms: int = 10,
    ax: Axes | None = None,
    title: str | None = None,
    value_format: str = "+.2f",
) -> Axes:
    """A waterfall of one row's terms: from the prior to the model's score, largest terms first.

    Parameters
    ----------
    contributions : DataFrame or Series
        ``model.explain(X)`` or ``graphmodels.shapley_values(model, X)``, or one row of it.
    row : int or index label, default=0
        The row to draw (a position, or a label of the frame's index).
    data : DataFrame or Series, optional
        The rows explained (`X`): each term over one attribute is labelled ``name = value``.
    class_ : label, optional
        For more than two classes, the class whose block is drawn; by default the row's
        predicted class.
    max_terms : int, default=10
        The largest terms drawn one by one; the others share one bar.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    value_format : str, default="+.2f"
        Format of the numbers written on the bars.

    Returns
    -------
    matplotlib.axes.Axes
        Each bar is a ``Rectangle`` with gid ``"term:<name>"`` (``"term:<prior>"`` first).

    Examples
    --------
    >>> import graphmodels as gm
    >>> from matplotlib.figure import Figure
    >>> X, y = gm.datasets.load("voting", return_X_y=True)
    >>> terms = gm.TAN().fit(X, y).explain(X.head(1))
    >>> ax = draw_waterfall(terms, data=X.head(1), max_terms=5, ax=Figure().subplots())
    >>> [p.get_gid() for p in ax.patches][:2]
    ['term:<prior>', 'term:physician-fee-freeze']
    """
    frame = _check_frame(contributions)
    if isinstance(max_terms, bool) or not isinstance(max_terms, numbers.Integral) or max_terms < 1:
        raise ValueError(f"`max_terms` must be an integer >= 1, got {max_terms!r}.")
    position = _row_of(frame, row)
    block, label = _block(frame, class_, position)
    values = block.iloc[position]
    prior = float(values.get("<prior>", 0.0))
    terms = values.drop(labels=[n for n in ("<prior>",) if n in values.index])
    order = np.argsort(-np.abs(terms.to_numpy(dtype=float)), kind="stable")
    shown = [terms.index[i] for i in order[:max_terms]]
    rest = [terms.index[i] for i in order[max_terms:]]
    entries = [("<prior>", prior)] + [(name, float(terms[name])) for name in shown]
    if rest:
        entries.append((f"{len(rest)} other terms", float(terms[rest].sum())))
    total = prior + float(terms.sum())
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.5, 0.45 * len(entries) + 1.6), layout="constrained")
    row_data = None
    if data is not None:
        row_data = data if isinstance(data, pd.Series) else data.iloc[position]
    start = 0.0
    for k, (name, value) in enumerate(entries):
        y = -k
        if name == "<prior>":
            left, width, colour = 0.0, value, "#9e9e9e"
        else:
            left, width, colour = start, value, POSITIVE if value >= 0 else NEGATIVE
        ax.barh(y, width, left=left, height=0.62, color=colour, edgecolor="none", gid=f"term:{name}")
        end = left + width
        if k:
            ax.plot([start, start], [y + 0.5, y - 0.31], color="#666666", linewidth=0.7, zorder=0)
        start = end
        ax.text(
            end,
            y,
            f" {format(value, value_format)} ",
            va="center",
            ha="left" if value >= 0 else "right",
            fontsize=9,
            color="#333333",
        )
    labels = []
    for name, _ in entries:
        text = "prior" if name == "<prior>" else str(name)
        if row_data is not None and name in getattr(row_data, "index", []):
            text = f"{name} = {row_data[name]}"
        labels.append(format_label(text, max_length=40, line_length=40))
    ax.set_yticks([-k for k in range(len(entries))], labels, fontsize=9)
    ax.axvline(total, color="#222222", linewidth=1.2, linestyle=":")
    ax.axvline(0.0, color="#bbbbbb", linewidth=0.8)
    what = _what(frame, label)
    note = f"{what} = {total:.2f}"
    if label is None and frame.attrs.get("explains", "").startswith("log-odds"):
        note += f"   (probability {1 / (1 + math.exp(-total)):.2f})"
    elif label is not None:
        note += f"   (probability {math.exp(min(total, 0.0)):.2f})"
    ax.set_xlabel(note)
    low, high = ax.get_xlim()
    span = high - low
    ax.set_xlim(low - 0.08 * span, high + 0.08 * span)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="y", length=0)
    ax.set_title(title if title is not None else f"Why row {frame.index[position]!r}: {what}", fontsize=11)
    return ax


# ----------------------------------------------------------------------------- on the structure
def _attribute_graph(model):
    """The graph to colour: the model's structure, or for Kikuchi-Bayes the class and attributes sharing regions."""
    regions = getattr(model, "stage_counting_numbers_", None)
    if regions is None:
        return as_graph(model)
    graph = nx.DiGraph()
    graph.add_node(model.class_name_, role="class")
    for name in model.encoder_.columns_:
        graph.add_node(name, role="feature")
        graph.add_edge(model.class_name_, name, kind="class")
    for region in regions[model.map_step_]:
        attributes = [a for a in region if a != model.class_name_]
        for i, a in enumerate(attributes):
            for b in attributes[i + 1 :]:
                graph.add_edge(a, b, kind="augmenting")
    return graph


def _term_attributes(name, nodes):
    """The nodes a term is about: itself, the attributes of ``{a, b}``, or none (a term of the model)."""
    if name in nodes:
        return [name]
    text = str(name)
    if not (text.startswith("{") and text.endswith("}")):
        return []
    by_text = {str(n): n for n in nodes}
    found, part = [], ""
    for token in text[1:-1].split(", "):
        part = token if not part else f"{part}, {token}"
        if part in by_text:
            found.append(by_text[part])
            part = ""
    return found if not part else []


def _node_values(values, nodes):
    """Each node's share of the terms (a term over several attributes split evenly), and the terms left."""
    by_node = dict.fromkeys(nodes, 0.0)
    drawn, left = {}, {}
    for name, value in values.items():
        attributes = _term_attributes(name, nodes)
        if not attributes:
            left[name] = float(value)
            continue
        for a in attributes:
            by_node[a] += float(value) / len(attributes)
            drawn[a] = True
    return {n: v for n, v in by_node.items() if n in drawn}, left


def _paint(ax, graph, node_values, *, signed, label):
    """Colour and size the drawn nodes by their values; a colour bar inside the axes' right edge."""
    import matplotlib as mpl

    collection = next(c for c in ax.collections if c.get_gid() == "nodes")
    nodes = list(graph.nodes)
    sizes = np.asarray(collection.get_sizes(), dtype=float)
    base = float(sizes[0]) if len(sizes) else 400.0
    top = max((abs(v) for v in node_values.values()), default=0.0) or 1.0
    if signed:
        norm = mpl.colors.TwoSlopeNorm(vcenter=0.0, vmin=-top, vmax=top)
        cmap = mpl.colormaps["RdBu_r"]
    else:
        norm = mpl.colors.Normalize(vmin=0.0, vmax=top)
        cmap = mpl.colormaps["Oranges"]
    faces, areas = [], []
    for node in nodes:
        role = graph.nodes[node].get("role", "feature")
        if node in node_values:
            value = node_values[node]
            faces.append(cmap(norm(value)))
            areas.append(base * (0.35 + 0.9 * abs(value) / top))
        else:
            faces.append(ROLE_COLORS.get(role, ROLE_COLORS["other"]))
            areas.append(base * (1.0 if role == "class" else 0.35))
    collection.set_facecolor(faces)
    collection.set_sizes(areas)
    # A label on a dark disc is written in white (relative luminance below 0.4).
    offsets = np.asarray(collection.get_offsets(), dtype=float)
    for text in ax.texts:
        at = np.asarray(text.get_position(), dtype=float)
        hit = np.flatnonzero(np.all(np.isclose(offsets, at), axis=1))
        if len(hit):
            r, g, b = mpl.colors.to_rgb(faces[hit[0]])
            if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.4:
                text.set_color("white")
    cax = ax.inset_axes((1.01, 0.15, 0.022, 0.7))
    ax.figure.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), cax=cax, label=label)
    return collection


def draw_contributions(
    model: Any,
    contributions: pd.DataFrame | pd.Series,
    row: Any = 0,
    *,
    class_: Hashable | None = None,
    ax: Axes | None = None,
    layout: str | dict[Any, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """One row's contributions drawn on the model's structure: node colour and size by contribution.

    Each attribute's node is coloured on a diverging scale (vermillion raises the score, blue
    lowers it; the colour bar inside the right edge) and sized by the contribution's magnitude;
    a term over several attributes (a hyperedge, a region) is shared evenly by them. Terms that
    are no node (``<prior>``, ``<members>``, ...) are written under the title.

    Parameters
    ----------
    model : fitted classifier
        Its structure is drawn with :func:`~graphmodels.plotting.draw_graph` (Kikuchi-Bayes: the
        class and the attributes, joined when they share a region).
    contributions : DataFrame or Series
        ``model.explain(X)`` or ``graphmodels.shapley_values(model, X)``, or one row of it.
    row : int or index label, default=0
    class_ : label, optional
        For more than two classes, the block drawn; by default the row's predicted class.
    ax : matplotlib.axes.Axes, optional
    layout : str or dict, optional
        Passed to :func:`~graphmodels.plotting.draw_graph`.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The nodes are the ``PathCollection`` with gid ``"nodes"`` (graph order), recoloured.

    Examples
    --------
    >>> import graphmodels as gm
    >>> from matplotlib.figure import Figure
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> tan = gm.TAN().fit(X, y)
    >>> ax = draw_contributions(tan, gm.shapley_values(tan, X.head(1)), ax=Figure().subplots())
    >>> ax.get_title().startswith("Contributions")
    True
    """
    frame = _check_frame(contributions)
    position = _row_of(frame, row)
    block, label = _block(frame, class_, position)
    graph = _attribute_graph(model)
    values = block.iloc[position].drop(labels=[n for n in _SPECIAL if n in block.columns])
    node_values, left = _node_values(values, list(graph.nodes))
    if not node_values:
        raise ValueError(
            "No term of `contributions` names a node of the model's structure; pass the frame of this model's "
            "explain(X) or of graphmodels.shapley_values(model, X)."
        )
    ax = draw_graph(graph, ax, layout=layout, legend=False)
    what = _what(frame, label)
    _paint(ax, graph, node_values, signed=True, label=f"contribution to {what}")
    prior = float(block.iloc[position].get("<prior>", 0.0))
    notes = [f"prior {prior:+.2f}"] + [f"{name} {value:+.2f}" for name, value in left.items()]
    heading = title if title is not None else f"Contributions to {what}, row {frame.index[position]!r}"
    ax.set_title(heading + "\n" + ", ".join(notes), fontsize=10)
    return ax


def draw_contribution_summary(
    model: Any,
    contributions: pd.DataFrame,
    *,
    class_: Hashable | None = None,
    max_terms: int = 15,
    ax: Axes | None = None,
    structure_ax: Axes | None = None,
    layout: str | dict[Any, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """The mean absolute contribution of each term over a data set, beside the model's structure.

    Left, a bar per term (the largest `max_terms`), the mean of ``|contribution|`` over the
    rows; right, the structure with each attribute's node sized and shaded by its mean.

    Parameters
    ----------
    model : fitted classifier
    contributions : DataFrame
        ``model.explain(X)`` or ``graphmodels.shapley_values(model, X)`` over many rows.
    class_ : label, optional
        For more than two classes, one class's block; by default the mean over the classes.
    max_terms : int, default=15
    ax : matplotlib.axes.Axes, optional
        Where the bars go. Without `ax` a new figure holds both panels.
    structure_ax : matplotlib.axes.Axes, optional
        Where the structure goes; with `ax` but no `structure_ax` only the bars are drawn.
    layout : str or dict, optional
        Passed to :func:`~graphmodels.plotting.draw_graph`.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The bars' axes (bars with gid ``"mean:<term>"``); ``ax.figure.axes`` holds the structure
        too, as every drawing of several panels returns its first.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("voting", return_X_y=True)
    >>> nb = gm.NaiveBayes().fit(X, y)
    >>> ax = draw_contribution_summary(nb, nb.explain(X))
    >>> len(ax.figure.axes) >= 2
    True
    """
    frame = _check_frame(contributions)
    if isinstance(max_terms, bool) or not isinstance(max_terms, numbers.Integral) or max_terms < 1:
        raise ValueError(f"`max_terms` must be an integer >= 1, got {max_terms!r}.")
    block, labels = _block(frame, class_)
    if block is None:  # the mean over the classes' blocks
        parts = [frame[label].drop(columns=[c for c in _SPECIAL if c in frame[label].columns]) for label in labels]
        means = sum(part.abs().mean() for part in parts) / len(parts)
        what = "mean |contribution| over the classes"
    else:
        means = block.drop(columns=[c for c in _SPECIAL if c in block.columns]).abs().mean()
        what = f"mean |contribution| to {_what(frame, labels)}"
    means = means.sort_values(ascending=False, kind="stable")
    shown = means.iloc[:max_terms]
    if ax is None:
        import matplotlib.pyplot as plt

        figure, (ax, structure_ax) = plt.subplots(
            1, 2, figsize=(13.0, max(4.0, 0.32 * len(shown) + 1.8)), layout="constrained", width_ratios=[1, 1.35]
        )
    positions = -np.arange(len(shown))
    for y, (name, value) in zip(positions, shown.items()):
        ax.barh(y, value, height=0.65, color="#E69F00", gid=f"mean:{name}")
        ax.text(value, y, f" {value:.2f}", va="center", fontsize=8.5, color="#333333")
    ax.set_yticks(positions, [format_label(str(n), max_length=34, line_length=34) for n in shown.index], fontsize=9)
    ax.set_xlabel(what)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(title if title is not None else f"Over {len(frame)} rows", fontsize=11)
    if structure_ax is not None:
        graph = _attribute_graph(model)
        node_values, _ = _node_values(means, list(graph.nodes))
        draw_graph(graph, structure_ax, layout=layout, legend=False)
        if node_values:
            _paint(structure_ax, graph, node_values, signed=False, label="mean |contribution|")
        structure_ax.set_title("on the structure", fontsize=11)
    return ax
