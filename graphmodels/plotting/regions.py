"""Drawing of Kikuchi-Bayes models: interaction diagrams, region graphs, search paths.

:func:`draw_interactions` draws the regions of a Kikuchi-Bayes classifier the
way Figure 2 of Jakulin & Rish (2006) draws the MAP model of tic-tac-toe:
attributes are points, and since every region holds the class, the class is
left out and each region is drawn through its attributes only: a ring for a
2-way region (one attribute + class), a solid line for a 3-way one, a dashed
path for a 4-way one and a dotted polygon for larger ones, one colour per
size. :func:`draw_region_graph` draws a region graph of the cluster
variation method as a Hasse diagram with the counting numbers, and
:func:`draw_kikuchi_path` the log prior, likelihood and posterior along the
greedy path of the structure search, with the MAP stage marked.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Mapping

import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Patch, PathPatch
from matplotlib.path import Path
from matplotlib.ticker import MaxNLocator

from ..models.kikuchi import KikuchiBayes
from .hyperforests import _fitting_font_size, _frame, _points_per_unit, _sizes, _spacing
from .network import _auto_row_width, _bend, format_label, network_layout, scatter_nodes

__all__ = [
    "draw_interactions",
    "draw_region_graph",
    "draw_kikuchi_path",
    "region_style",
    "REGION_COLORS",
    "SIGN_COLORS",
    "PHASE_COLORS",
]

#: Colour of a region by its number of variables, class included: green
#: 2-way, blue 3-way and red 4-way regions, as in Figure 2 of Jakulin & Rish.
REGION_COLORS = {2: "#2a9d3f", 3: "#1f5fbf", 4: "#d62828"}
_LARGER_COLORS = ("#7b2cbf", "#b5651d", "#4d4d4d")  # 5-way, 6-way, 7-way and larger
_LINESTYLES = {3: "-", 4: "--"}  # 2-way regions are rings; larger ones dotted

#: Fill of a region-graph node by the sign of its counting number.
SIGN_COLORS = {1: "#cfe3f7", -1: "#f8d0cc", 0: "#e6e6e6"}
_SIGN_EDGES = {1: "#4a7fb5", -1: "#c0504d", 0: "#8d8d8d"}

#: Shading of the phases of the search path (``path_["phase"]``).
PHASE_COLORS = {"ascent": "#e3f1e0", "beyond MAP": "#ececec"}
_OTHER_PHASE_COLORS = ("#fdf0d5", "#e5e1f2", "#dbeef4")


def region_style(size):
    """Colour and line style of a region with `size` variables (class included).

    Parameters
    ----------
    size : int
        Number of variables of the region, class included, >= 2.

    Returns
    -------
    color : str
    linestyle : str
        ``"ring"`` for 2-way regions (drawn as a ring around their
        attribute), ``"-"`` for 3-way, ``"--"`` for 4-way and ``":"`` for
        larger ones.

    Examples
    --------
    >>> region_style(3)
    ('#1f5fbf', '-')
    >>> region_style(2)[1], region_style(6)[1]
    ('ring', ':')
    """
    if size in REGION_COLORS:
        color = REGION_COLORS[size]
    else:
        color = _LARGER_COLORS[min(size - 5, len(_LARGER_COLORS) - 1)] if size >= 5 else "#4d4d4d"
    return color, "ring" if size == 2 else _LINESTYLES.get(size, ":")


# ---------------------------------------------------------------------------
# Input


def _fitted_kikuchi(obj, what):
    """`obj` if it is a fitted Kikuchi-Bayes model, None if it is not a model at all."""
    if all(hasattr(obj, name) for name in ("path_", "map_step_", "class_name_")):
        return obj
    if isinstance(obj, KikuchiBayes):
        raise TypeError(f"This KikuchiBayes instance is not fitted yet; call `fit` before drawing its {what}.")
    if hasattr(obj, "fit") and hasattr(obj, "predict"):
        raise TypeError(
            f"Expected a fitted KikuchiBayes model to draw its {what}, got {type(obj).__name__}, "
            "which has no Kikuchi-Bayes path (`path_`, `map_step_`)."
        )
    return None


def _check_step(model, step):
    n = len(model.path_)
    if step is None:
        return int(model.map_step_)
    if isinstance(step, bool) or not isinstance(step, numbers.Integral) or not 0 <= step < n:
        raise ValueError(f"`step` must be an integer in 0..{n - 1} (a row of `path_`), got {step!r}.")
    return int(step)


def _model_attributes(model):
    encoder = getattr(model, "encoder_", None)
    columns = getattr(encoder, "columns_", None)
    if columns is None:
        return []
    return [name for name in columns if name != model.class_name_]


def _regions_of(model_or_regions, class_name, step):
    """``(regions, class_name, attributes)``: regions as attribute tuples (class removed), in order."""
    model = _fitted_kikuchi(model_or_regions, "interactions")
    if model is not None:
        if class_name is not None and class_name != model.class_name_:
            raise ValueError(
                f"`class_name` is {class_name!r} but the model's class is {model.class_name_!r}; "
                "leave `class_name` out when drawing a model."
            )
        class_name = model.class_name_
        step = _check_step(model, step)
        raw = list(model.path_["region"].iloc[1 : step + 1])
        attributes = _model_attributes(model)
    else:
        if step is not None:
            raise ValueError("`step` applies to a fitted model only, not to a list of regions.")
        if isinstance(model_or_regions, (str, bytes, Mapping)) or not isinstance(model_or_regions, Iterable):
            raise TypeError(
                "Expected a fitted KikuchiBayes model or an iterable of regions (each an iterable "
                f"of variable names, class included), got {type(model_or_regions).__name__}."
            )
        if class_name is None:
            raise ValueError(
                "`class_name` is needed to draw a list of regions: the class is in every region and is not drawn."
            )
        raw = list(model_or_regions)
        attributes = []
    regions, seen = [], set()
    for region in raw:
        if isinstance(region, (str, bytes)) or not isinstance(region, Iterable):
            raise TypeError(
                f"Each region must be an iterable of variable names, got {region!r}; "
                "write a region as a tuple such as ('a', 'b', class_name)."
            )
        names = list(dict.fromkeys(region))
        if class_name not in names:
            raise ValueError(
                f"Region {tuple(names)!r} does not hold the class {class_name!r}; "
                "every Kikuchi-Bayes region holds the class."
            )
        key = frozenset(names)
        if len(names) == 1 or key in seen:  # the class alone has no attribute to draw
            continue
        seen.add(key)
        regions.append(tuple(n for n in names if n != class_name))
    known = set(attributes)
    for region in regions:
        for name in region:
            if name not in known:
                known.add(name)
                attributes.append(name)
    return regions, class_name, attributes


def _check_pos(pos, nodes, what):
    if not isinstance(pos, Mapping):
        raise TypeError(f"`pos` must be a dict {what} -> (x, y), got {type(pos).__name__}.")
    missing = [n for n in nodes if n not in pos]
    if missing:
        raise ValueError(
            f"`pos` has no position for {what} {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)." if len(missing) > 1 else ".")
        )
    out = {}
    for n in nodes:
        try:
            x, y = (float(v) for v in pos[n])
        except (TypeError, ValueError):
            raise ValueError(f"`pos[{n!r}]` must be a pair of numbers (x, y), got {pos[n]!r}.") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"`pos[{n!r}]` must be finite, got {pos[n]!r}.")
        out[n] = (x, y)
    return out


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False, got {value!r}.")


# ---------------------------------------------------------------------------
# Interaction diagram: geometry


def _shape(points, tolerance):
    """``(order, closed)``: the order in which a region's path visits its points.

    Points within `tolerance` of a line (two points always) give an open
    path along the line; otherwise a closed polygon visiting every point in
    order of angle around the centroid (a simple, star-shaped polygon, so
    interior points are visited too), counter-clockwise.
    """
    centred = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    along, across = centred @ vt[0], centred @ vt[1] if len(vt) > 1 else np.zeros(len(points))
    if len(points) == 2 or np.abs(across).max() <= tolerance:
        return list(np.argsort(along, kind="stable")), False
    angles = np.arctan2(centred[:, 1], centred[:, 0])
    return list(np.argsort(angles, kind="stable")), True


def _unit_normal(a, b):
    """Left unit normal of the direction a -> b."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    length = math.hypot(d[0], d[1])
    if length == 0:
        return np.zeros(2)
    return np.array([-d[1], d[0]]) / length


class _Lanes:
    """Signed offsets already taken on each pair of attributes, to keep parallel regions apart."""

    def __init__(self, gap):
        self.gap = gap
        self.taken = {}

    def choose(self, edges, signs, outward_only):
        """Offset (a multiple of `gap`) for a region whose `edges` move by ``sign * offset``."""
        candidates = [0] + [s * k for k in range(1, 9) for s in (1, -1) if not (outward_only and s < 0)]
        best, best_clashes = 0, None
        for lane in candidates:
            clashes = sum(
                abs(lane * sign - other) < 0.5 for edge, sign in zip(edges, signs) for other in self.taken.get(edge, ())
            )
            if best_clashes is None or clashes < best_clashes:
                best, best_clashes = lane, clashes
            if clashes == 0:
                break
        for edge, sign in zip(edges, signs):
            self.taken.setdefault(edge, []).append(best * sign)
        return best * self.gap


def _region_path(members, pos, index, others_xy, lanes, tolerance, clearance):
    """Path of a region of two or more attributes, offset into a free lane; also whether it is closed."""
    points = np.array([pos[m] for m in members], dtype=float)
    order, closed = _shape(points, tolerance)
    ring = [members[i] for i in order]
    pairs = list(zip(ring, ring[1:] + ring[:1])) if closed else list(zip(ring, ring[1:]))
    # Each pair in its canonical direction (first in attribute order first), so
    # that regions sharing a pair agree on its normal and on its bend.
    canonical = [(u, v) if index[u] < index[v] else (v, u) for u, v in pairs]
    if closed:
        outward = [-_unit_normal(pos[u], pos[v]) for u, v in pairs]  # counter-clockwise polygon
    else:
        line_normal = _unit_normal(pos[ring[0]], pos[ring[-1]])
        outward = [line_normal] * len(pairs)
    signs = [1 if float(np.dot(n, _unit_normal(pos[a], pos[b]))) > 0 else -1 for n, (a, b) in zip(outward, canonical)]
    offset = lanes.choose(canonical, signs, outward_only=closed)

    # Vertices moved by `offset` along the outward normals (mitred at polygon corners).
    vertices = []
    for i, node in enumerate(ring):
        p = np.asarray(pos[node], dtype=float)
        if not closed:
            vertices.append(p + offset * outward[0])
            continue
        n1, n2 = outward[i - 1], outward[i]
        denominator = 1.0 + float(np.dot(n1, n2))
        shift = (n1 + n2) / denominator if denominator > 1e-6 else n1
        vertices.append(p + offset * shift)
    if closed:
        vertices.append(vertices[0])

    xy, codes = [vertices[0]], [Path.MOVETO]
    for i, (u, v) in enumerate(pairs):
        a, b = vertices[i], vertices[i + 1]
        cu, cv = canonical[i]
        others = np.array([others_xy[n] for n in others_xy if n not in (cu, cv)]).reshape(-1, 2)
        rad = _bend(np.asarray(pos[cu]), np.asarray(pos[cv]), others, clearance)
        if rad == 0.0:
            xy.append(b)
            codes.append(Path.LINETO)
            continue
        if (u, v) != (cu, cv):
            rad = -rad  # arc3 bends to the right of the direction of travel
        (dx, dy) = b - a
        xy.extend([(a + b) / 2 + rad * np.array([dy, -dx]), b])
        codes.extend([Path.CURVE3, Path.CURVE3])
    return Path(np.array(xy), codes), closed


# ---------------------------------------------------------------------------
# Interaction diagram


def _default_layout(attributes, regions):
    """Kamada-Kawai layout of the co-occurrence graph; attributes sharing no region on a grid below.

    Two attributes are adjacent if some region holds both. The connected
    attributes are laid out by :func:`~graphmodels.plotting.network_layout`
    (median edge 1.5); the others, in `attributes` order, fill a grid with
    the same spacing, about as wide as the rest or square.
    """
    cooccurrence = nx.Graph()
    cooccurrence.add_nodes_from(attributes)
    for region in regions:
        cooccurrence.add_edges_from((u, v) for i, u in enumerate(region) for v in region[i + 1 :])
    isolated = [a for a in attributes if cooccurrence.degree(a) == 0]
    connected = cooccurrence.subgraph([a for a in attributes if cooccurrence.degree(a) > 0])
    pos = dict(network_layout(connected, "kamada_kawai")) if connected.number_of_nodes() else {}
    if isolated:
        step = 1.5
        if pos:
            xy = np.array(list(pos.values()))
            left, bottom = float(xy[:, 0].min()), float(xy[:, 1].min()) - step
            columns = max(int(np.ptp(xy[:, 0]) // step) + 1, math.ceil(math.sqrt(len(isolated))))
        else:
            left, bottom = 0.0, 0.0
            columns = math.ceil(math.sqrt(1.5 * len(isolated)))
        for i, a in enumerate(isolated):
            pos[a] = (left + step * (i % columns), bottom - step * (i // columns))
    return pos


def draw_interactions(
    model_or_regions,
    pos=None,
    *,
    class_name=None,
    step=None,
    attributes=None,
    ax=None,
    labels=True,
    label_func=None,
    node_size=None,
    font_size=None,
    linewidth=2.0,
    gap=None,
    legend=True,
    title=None,
):
    """Draw the interactions (regions) of a Kikuchi-Bayes model as in Figure 2 of [1]_.

    Every region of a Kikuchi-Bayes classifier holds the class, so the class
    is not drawn: the attributes are points and each region is drawn
    through its attributes.

    * 2-way region (one attribute + class): a green ring around the attribute;
    * 3-way (two attributes + class): a solid blue line between them;
    * 4-way (three attributes + class): a dashed red path through the three
      (a segment if they are collinear, else a triangle);
    * larger: a dotted polygon through its attributes (purple for 5-way,
      brown for 6-way, grey beyond), in order of angle around their centre.

    Regions sharing a pair of attributes are offset from each other by
    `gap`, so that a 3-way line and a 4-way path along the same squares stay
    visible side by side; a segment that would run across a third attribute
    is bent around it. Regions are drawn (and get their lanes) in the order
    given, i.e. for a model in the order the search added them.

    Parameters
    ----------
    model_or_regions : KikuchiBayes or iterable of regions
        A fitted :class:`~graphmodels.KikuchiBayes`: the regions added along
        its path up to and including stage `step` (default: the MAP stage),
        i.e. ``path_["region"][1 : step + 1]``, regions subsumed by later ones
        included, as in the paper's figure. Or an iterable of regions, each a
        tuple or set of variable names holding `class_name`. Repeated
        regions are drawn once; the class alone draws nothing.
    pos : dict, optional
        Attribute -> ``(x, y)``; the axes have equal aspect. Defaults to a
        Kamada-Kawai layout of the co-occurrence graph of the attributes
        (two attributes adjacent if some region holds both; see
        :func:`~graphmodels.plotting.network_layout`), with the attributes
        that share no region with another on a grid below.
    class_name : hashable, optional
        The class variable. Required with a list of regions; taken from a
        model (``class_name_``).
    step : int, optional
        Row of the model's ``path_`` to draw the regions of; only with a model.
    attributes : list, optional
        Attributes drawn as points, in this order. Defaults to all the
        attributes of a model (so unused ones show as bare points), or to
        those in the regions. Must hold every attribute of every region.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the layout is made if omitted.
    labels : bool, default=True
        Write each attribute's name on its point.
    label_func : callable, optional
        Attribute -> label text; defaults to
        :func:`~graphmodels.plotting.network.format_label` (wrapped, cut
        at 24 characters).
    node_size : float, optional
        Area of an attribute's disc in points^2; by default fitted to the
        spacing of the points.
    font_size : float, optional
        Label size in points; by default fitted to the disc.
    linewidth : float, default=2.0
        Line width of the regions, points.
    gap : float, optional
        Distance between parallel regions, points; defaults to
        ``max(2.5 * linewidth, 4)``.
    legend : bool, default=True
        A legend (right of the axes) with the count of regions of each size,
        titled with the class, which every region also holds.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Attributes are a ``PathCollection`` with gid ``"nodes"`` (offsets in
        the order of `attributes`), their labels texts with gid ``"label"``.
        Each region is one patch with gid ``"region:<size>"`` (size with the
        class: a ``Circle`` for ``"region:2"``, else a ``PathPatch``) whose
        label lists the region's variables.

    Raises
    ------
    TypeError
        If `model_or_regions` is an unfitted model, another kind of model,
        or not an iterable of regions; if a region is a bare string; if
        `pos` is not a dict.
    ValueError
        If a region does not hold the class, `class_name` is missing (list
        of regions) or differs from the model's, `step` is out of range,
        `pos` lacks an attribute (the message names it) or `attributes` lacks
        one of a region.

    See Also
    --------
    draw_region_graph : the region graph these regions induce.
    draw_kikuchi_path : the search path the regions were added along.
    graphmodels.KikuchiBayes

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report, Figure 2.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> regions = [("a", "y"), ("b", "y"), ("a", "b", "y"), ("a", "b", "c", "y")]
    >>> pos = {"a": (0, 0), "b": (1, 0), "c": (0.5, 1)}
    >>> ax = draw_interactions(regions, pos, class_name="y", ax=Figure().subplots())
    >>> [p.get_gid() for p in ax.patches]
    ['region:2', 'region:2', 'region:3', 'region:4']
    """
    regions, class_name, found = _regions_of(model_or_regions, class_name, step)
    _check_bool(labels, "labels")
    _check_bool(legend, "legend")
    if label_func is not None and not callable(label_func):
        raise TypeError(f"`label_func` must be callable (attribute -> text), got {type(label_func).__name__}.")
    if attributes is None:
        attributes = found
    else:
        if isinstance(attributes, (str, bytes)) or not isinstance(attributes, Iterable):
            raise TypeError(f"`attributes` must be a list of names, got {type(attributes).__name__}.")
        attributes = list(dict.fromkeys(attributes))
        given = set(attributes)
        for region in regions:
            lacking = [n for n in region if n not in given]
            if lacking:
                raise ValueError(f"`attributes` lacks {lacking[0]!r}, which region {region + (class_name,)!r} holds.")
        if class_name in given:
            raise ValueError(f"`attributes` must not hold the class {class_name!r}: it is not drawn.")
    if not isinstance(linewidth, numbers.Real) or not linewidth > 0:
        raise ValueError(f"`linewidth` must be a number > 0, got {linewidth!r}.")
    if gap is not None and (not isinstance(gap, numbers.Real) or gap < 0):
        raise ValueError(f"`gap` must be a number >= 0 (points), got {gap!r}.")

    if pos is None:
        pos = _default_layout(attributes, regions)
    positions = _check_pos(pos, attributes, "attribute")

    xy = np.array([positions[a] for a in attributes], dtype=float).reshape(-1, 2)
    if ax is None:
        import matplotlib.pyplot as plt

        if len(xy):
            spread = np.ptp(xy, axis=0) / _spacing(xy)
            width = float(np.clip(1.3 * (spread[0] + 1.6), 4.0, 22.0)) + (2.6 if legend else 0.0)
            height = float(np.clip(1.3 * (spread[1] + 1.6), 3.0, 16.0)) + (0.4 if title else 0.0)
        else:
            width, height = 4.0, 3.0
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not attributes:
        return ax

    spacing = _spacing(xy)
    ppu, _ = _frame(ax, xy, 0.75 * spacing, equal=True)
    label_of = label_func if label_func is not None else format_label
    texts = [str(label_of(a)) for a in attributes] if labels else []
    if node_size is None:  # a bit larger than draw_hyperforest's: labels are long, rings go around
        node_size = float(np.clip(0.5 * spacing * ppu, 6.0, 60.0)) ** 2
    node_size, font_size = _sizes(spacing, ppu, texts, node_size, font_size)
    radius = math.sqrt(node_size) / 2 / ppu  # data units
    gap = (max(2.5 * float(linewidth), 4.0) if gap is None else float(gap)) / ppu
    lanes = _Lanes(gap)
    index = {a: i for i, a in enumerate(attributes)}
    tolerance = 1e-6 * max(float(np.ptp(xy, axis=0).max()), spacing)
    clearance = 1.3 * radius

    counts = {}
    for region in regions:
        size = len(region) + 1
        counts[size] = counts.get(size, 0) + 1
        color, style = region_style(size)
        name = ",".join(str(v) for v in region + (class_name,))
        if size == 2:
            patch = Circle(
                positions[region[0]],
                radius + max(0.45 * radius, 1.5 * linewidth / ppu),
                fill=False,
                edgecolor=color,
                linewidth=linewidth,
                zorder=3.5,
                gid="region:2",
                label=name,
            )
        else:
            path, closed = _region_path(list(region), positions, index, positions, lanes, tolerance, clearance)
            patch = PathPatch(
                path,
                fill=False,
                edgecolor=color,
                linewidth=linewidth,
                linestyle=style,
                capstyle="round",
                joinstyle="round",
                alpha=0.95,
                zorder=2 - 0.01 * min(size, 50),
                gid=f"region:{size}",
                label=name,
            )
        ax.add_patch(patch)

    scatter_nodes(ax, xy, ["feature"] * len(attributes), node_size, gid="nodes")
    for text, (x, y) in zip(texts, xy):
        ax.text(x, y, text, ha="center", va="center", fontsize=font_size, linespacing=1.0, zorder=4, gid="label")

    if legend:
        _interaction_legend(ax, counts, class_name, linewidth, font_size)
    return ax


def _interaction_legend(ax, counts, class_name, linewidth, font_size):
    handles = []
    for size in sorted(counts):
        color, style = region_style(size)
        label = f"{size}-way ({size - 1} attribute{'s' if size > 2 else ''}): {counts[size]}"
        if style == "ring":
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="",
                    marker="o",
                    markersize=11,
                    markerfacecolor="none",
                    markeredgecolor=color,
                    markeredgewidth=linewidth,
                    label=label,
                )
            )
        else:
            handles.append(Line2D([], [], color=color, linestyle=style, linewidth=linewidth, label=label))
    if not handles:
        handles.append(Line2D([], [], linestyle="", label="no region with an attribute"))
    ax.legend(
        handles=handles,
        title=f"Regions (each also holds\nthe class {str(class_name)!r}, not drawn)",
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
        fontsize=max(font_size, 8.0),
        title_fontsize=max(font_size, 8.0),
        handlelength=2.6,
        alignment="left",
    )


# ---------------------------------------------------------------------------
# Region graph


def _as_region_graph(graph_or_model, class_name, step):
    model = _fitted_kikuchi(graph_or_model, "region graph")
    order = None
    if model is not None:
        if class_name is not None and class_name != model.class_name_:
            raise ValueError(
                f"`class_name` is {class_name!r} but the model's class is {model.class_name_!r}; "
                "leave `class_name` out when drawing a model."
            )
        step = _check_step(model, step)
        graph = model.structure_ if step == model.map_step_ else model.region_graph(step)
        # Regions in the order they were added (first guess of the order of each row);
        # variables in column order inside a label.
        order = {frozenset(r): i for i, r in enumerate(model.path_["region"].iloc[: step + 1])}
        ranks = {name: i for i, name in enumerate(_model_attributes(model))}
        return graph, model.class_name_, order, ranks
    if step is not None:
        raise ValueError("`step` applies to a fitted model only, not to a region graph.")
    if not isinstance(graph_or_model, nx.DiGraph):
        raise TypeError(
            "Expected a region graph (networkx.DiGraph whose nodes are regions) or a fitted "
            f"KikuchiBayes model, got {type(graph_or_model).__name__}."
        )
    for node, data in graph_or_model.nodes(data=True):
        if isinstance(node, (str, bytes)) or not isinstance(node, Iterable):
            raise ValueError(f"Region graph nodes must be regions (frozensets of variable names), got {node!r}.")
        if not isinstance(data.get("counting_number"), numbers.Real):
            raise ValueError(f"Region {sorted(map(str, node))} has no numeric `counting_number` attribute.")
    return graph_or_model, class_name, order, {}


def _common_affixes(names):
    """Longest prefix and suffix, ending or starting at a separator, shared by all `names` (two or more)."""
    names = [str(n) for n in names]
    if len(set(names)) < 2:
        return "", ""
    separators = "-_. /"
    prefix = names[0]
    for n in names[1:]:
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    cut = max((i + 1 for i, ch in enumerate(prefix) if ch in separators), default=0)
    prefix = prefix[:cut]
    suffix = names[0]
    for n in names[1:]:
        while not n.endswith(suffix):
            suffix = suffix[1:]
    cut = min((i for i, ch in enumerate(suffix) if ch in separators), default=len(suffix))
    suffix = suffix[cut:]
    # Never eat a whole name.
    if any(len(n) <= len(prefix) + len(suffix) for n in names):
        return "", ""
    return prefix, suffix


def _name_shortener(variables, shorten):
    if isinstance(shorten, (bool, np.bool_)) and not shorten:
        return str
    limit = 14 if isinstance(shorten, (bool, np.bool_)) else int(shorten)
    prefix, suffix = _common_affixes(variables)

    def short(name):
        text = str(name)
        if prefix and text.startswith(prefix):
            text = text[len(prefix) :]
        if suffix and text.endswith(suffix):
            text = text[: len(text) - len(suffix)]
        return text if len(text) <= limit else text[: limit - 1] + "…"

    return short


def _wrap_names(names, line_length):
    lines, current = [], ""
    for name in names:
        if current and len(current) + 2 + len(name) > line_length:
            lines.append(current + ",")
            current = name
        else:
            current = f"{current}, {name}" if current else name
    lines.append(current)
    return lines


def _hasse_layout(graph, order, max_row_width, sweeps=12, restarts=12):
    """Rows by region size (largest on top), ordered by the barycentre heuristic.

    Each row starts in `order` (then by names); alternate downward and
    upward sweeps sort a row by the mean slot of its neighbours in the rows
    above (below). On graphs of at most 400 edges each arrangement is refined
    by swapping neighbours (transposition) and the whole is repeated from
    `restarts` seeded shuffles; the arrangement with the fewest edge
    crossings is kept (Sugiyama et al., 1981).
    """
    sizes = sorted({len(r) for r in graph}, reverse=True)
    rank = {s: i for i, s in enumerate(sizes)}
    rows = [[] for _ in sizes]

    def key(region):
        return (order.get(region, len(order)) if order else 0, sorted(map(str, region)))

    for region in sorted(graph, key=key):
        rows[rank[len(region)]].append(region)
    slot = {}

    def place(row):
        for i, region in enumerate(row):
            slot[region] = i - (len(row) - 1) / 2

    for row in rows:
        place(row)

    groups = {}
    for u, v in graph.edges:
        groups.setdefault((rank[len(u)], rank[len(v)]), []).append((u, v))

    def crossings():
        total = 0
        for edges in groups.values():
            a = np.array([slot[u] for u, _ in edges])
            b = np.array([slot[v] for _, v in edges])
            total += int(((a[:, None] - a[None, :]) * (b[:, None] - b[None, :]) < 0).sum()) // 2
        return total

    def barycentre(region, neighbours):
        xs = [slot[n] for n in neighbours]
        return sum(xs) / len(xs) if xs else slot[region]

    neighbours = {
        region: [(rank[len(n)], n) for n in itertools.chain(graph.predecessors(region), graph.successors(region))]
        for region in graph
    }

    def pair_crossings(u, v):
        """Crossings between the edges of `u` and `v` (same row) with u left of v, and with v left of u."""
        now = swapped = 0
        for row_x, x in neighbours[u]:
            for row_z, z in neighbours[v]:
                if row_x == row_z:
                    now += slot[x] > slot[z]
                    swapped += slot[x] < slot[z]
        return now, swapped

    def transpose(count, limit=20):
        """Swap neighbours of a row while that removes crossings (a local search)."""
        improved, rounds = True, 0
        while improved and count > 0 and rounds < limit:
            improved, rounds = False, rounds + 1
            for row in rows:
                for i in range(len(row) - 1):
                    u, v = row[i], row[i + 1]
                    now, swapped = pair_crossings(u, v)
                    if swapped < now:
                        row[i], row[i + 1] = v, u
                        slot[u], slot[v] = slot[v], slot[u]
                        count -= now - swapped
                        improved = True
        return count

    # Each arrangement met by the sweeps is refined by transposition; the one with
    # the fewest crossings is kept (a full count costs edges^2, so not on huge graphs).
    n_edges = graph.number_of_edges()
    countable = n_edges <= 2000
    refine = n_edges <= 400
    best = None
    # Not too large graphs: more starts from seeded shuffles of the rows.
    rng = np.random.default_rng(0)
    starts = 1 + (restarts if refine else 0)
    plan = [(start, sweep) for start in range(starts) for sweep in range(sweeps + 1 if countable else 3)]
    for start, sweep in plan:
        if start > 0 and sweep == 0:
            for row in rows:
                row[:] = [row[i] for i in rng.permutation(len(row))]
                place(row)
        if sweep > 0:
            down = sweep % 2 == 1
            near = graph.predecessors if down else graph.successors
            for r in range(1, len(rows)) if down else range(len(rows) - 2, -1, -1):
                rows[r].sort(key=lambda region: barycentre(region, list(near(region))))  # stable
                place(rows[r])
        if not countable:
            continue
        count = crossings()
        if refine:
            saved = [list(row) for row in rows]
            count = transpose(count)
        if best is None or count < best[0]:
            best = (count, [list(row) for row in rows])
        if refine:
            rows = saved
            for row in rows:
                place(row)
        if count == 0:
            break
    if best is not None:
        rows = best[1]

    width = max_row_width or _auto_row_width(graph.number_of_nodes())
    pos, y = {}, 0.0
    for row in rows:
        chunks = math.ceil(len(row) / width)
        size = math.ceil(len(row) / chunks)
        for start in range(0, len(row), size):
            part = row[start : start + size]
            for i, region in enumerate(part):
                pos[region] = (i - (len(part) - 1) / 2, y)
            y -= 1.0
    return pos


def _slots(xy):
    """Smallest gap between neighbours of a row, and between rows (1 if undefined)."""
    ys = np.unique(np.round(xy[:, 1], 9))
    gaps = []
    for y in ys:
        xs = np.unique(np.round(xy[np.isclose(xy[:, 1], y), 0], 9))
        gaps.extend(np.diff(xs))
    if not gaps:  # one region per row: fall back on the gaps between any x
        gaps = list(np.diff(np.unique(np.round(xy[:, 0], 9))))
    gaps = [g for g in gaps if g > 0]
    slot_x = float(min(gaps)) if gaps else 1.0
    slot_y = float(np.min(np.diff(ys))) if len(ys) > 1 else 1.0
    return slot_x, slot_y


def draw_region_graph(
    graph_or_model,
    *,
    class_name=None,
    step=None,
    ax=None,
    pos=None,
    shorten=True,
    label_func=None,
    font_size=None,
    max_row_width=None,
    legend=True,
    title=None,
):
    """Draw a region graph of the cluster variation method as a Hasse diagram.

    Regions stand in rows by size, the largest on top, each row ordered to
    keep edges short (barycentre heuristic); edges go from each region down
    to its maximal sub-regions. Each region is a box with its variables and
    its counting number (``c = -2``), tinted blue for c > 0, red for c < 0
    and grey for c = 0. The Kikuchi approximation is
    :math:`\\prod_R P(v_R)^{c_R}` (eq. 1 of [1]_).

    Parameters
    ----------
    graph_or_model : networkx.DiGraph or KikuchiBayes
        A region graph (nodes are regions, i.e. frozensets of names, with a
        ``counting_number``; edges from a region to its sub-regions) as
        :func:`~graphmodels.structures.cluster_variation_regions` returns,
        or a fitted :class:`~graphmodels.KikuchiBayes` (the region graph of
        stage `step`, by default its MAP ``structure_``). Not changed.
    class_name : hashable, optional
        Left out of the labels of the regions holding it (every region of a
        Kikuchi-Bayes model does; the class alone is written as its name),
        as a note under the diagram says. Taken from a model.
    step : int, optional
        Row of the model's ``path_`` whose region graph is drawn.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the diagram is made if omitted.
    pos : dict, optional
        Region -> ``(x, y)`` (keys may be any iterables of the names).
    shorten : bool or int, default=True
        Shorten the names in the labels: ``True`` strips a prefix and a
        suffix shared by all of them (``"-square"`` of tic-tac-toe) and cuts
        them at 14 characters; an int cuts them at that many characters
        instead; ``False`` keeps the names.
    label_func : callable, optional
        Variable -> text; overrides `shorten`.
    font_size : float, optional
        Label size in points; by default fitted to the room per region.
    max_row_width : int, optional
        Most regions on one row; longer rows are wrapped. Defaults to
        ``max(10, ceil(2 * sqrt(n)))`` for ``n`` regions.
    legend : bool, default=True
        Which tint is which sign, with counts.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One text per region with gid ``"region"`` (its variables, then
        ``c = <counting number>``), a ``PathCollection`` with gid
        ``"regions"`` (offsets in graph node order) and a ``LineCollection``
        with gid ``"edges"`` (one segment per edge, in graph edge order).

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a directed graph nor a fitted
        KikuchiBayes (an unfitted one included), or `pos` is not a dict.
    ValueError
        If a node is not a region or has no counting number, `step` is out
        of range, or `pos` misses a region.

    See Also
    --------
    draw_interactions : the regions drawn over the attributes.
    graphmodels.structures.cluster_variation_regions

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.
    .. [2] Yedidia, J. S., Freeman, W. T., & Weiss, Y. (2004). Constructing
           free energy approximations and generalized belief propagation
           algorithms. MERL TR2004-040.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.structures import cluster_variation_regions
    >>> graph = cluster_variation_regions([("a", "b", "y"), ("b", "c", "y")])
    >>> ax = draw_region_graph(graph, class_name="y", ax=Figure().subplots())
    >>> sorted(t.get_text().replace("\\n", " ") for t in ax.texts if t.get_gid() == "region")
    ['a, b c = 1', 'b c = -1', 'b, c c = 1']
    """
    graph, class_name, order, ranks = _as_region_graph(graph_or_model, class_name, step)
    _check_bool(legend, "legend")
    if label_func is not None and not callable(label_func):
        raise TypeError(f"`label_func` must be callable (variable -> text), got {type(label_func).__name__}.")
    if not (isinstance(shorten, (bool, np.bool_)) or (isinstance(shorten, numbers.Integral) and shorten >= 2)):
        raise ValueError(f"`shorten` must be True, False or an integer >= 2, got {shorten!r}.")
    if max_row_width is not None and (
        isinstance(max_row_width, bool) or not isinstance(max_row_width, numbers.Integral) or max_row_width < 1
    ):
        raise ValueError(f"`max_row_width` must be a positive integer, got {max_row_width!r}.")

    regions = list(graph.nodes)
    if pos is not None:
        if not isinstance(pos, Mapping):
            raise TypeError(f"`pos` must be a dict region -> (x, y), got {type(pos).__name__}.")
        keyed = {frozenset(k): v for k, v in pos.items()}
        checked = _check_pos(keyed, [frozenset(r) for r in regions], "region")
        positions = {r: checked[frozenset(r)] for r in regions}
    elif regions:
        positions = _hasse_layout(graph, order, max_row_width)
    else:
        positions = {}

    xy = np.array([positions[r] for r in regions], dtype=float).reshape(-1, 2)
    slot_x, slot_y = _slots(xy)
    if ax is None:
        import matplotlib.pyplot as plt

        if len(xy):
            width = float(np.clip(1.9 * (np.ptp(xy[:, 0]) / slot_x + 1.2), 4.0, 30.0))
            height = float(np.clip(1.3 * (np.ptp(xy[:, 1]) / slot_y + 1.0) + 0.6, 3.0, 20.0))
        else:
            width, height = 4.0, 3.0
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    ax.set_axis_off()
    if title is not None:
        ax.set_title(title)
    if not regions:
        return ax

    variables = sorted({v for r in regions for v in r if v != class_name}, key=str)
    short = label_func if label_func is not None else _name_shortener(variables, shorten)
    texts = []
    for region in regions:
        names = [v for v in region if v != class_name]
        if not names:
            names = list(region)
        names = sorted(names, key=lambda v: (ranks.get(v, len(ranks)), str(v)))
        c = graph.nodes[region]["counting_number"]
        c_text = f"{int(c)}" if float(c).is_integer() else f"{c:g}"
        texts.append("\n".join(_wrap_names([str(short(v)) for v in names], 16) + [f"c = {c_text}"]))

    ppu_x, ppu_y = _frame(ax, xy, np.array([0.6 * slot_x, 0.55 * slot_y]), equal=False)
    if pos is None:  # the lowest row has the fewest variables: less room below it
        low, high = ax.get_ylim()
        ax.set_ylim(low + 0.15 * slot_y, high)
        ppu_y = _points_per_unit(ax)[1]
    if font_size is None:
        font_size = _fitting_font_size(texts, 0.9 * slot_x * ppu_x, 0.75 * slot_y * ppu_y)
    font_size = float(font_size)

    segments = [(positions[u], positions[v]) for u, v in graph.edges]
    ax.add_collection(LineCollection(segments, colors="#7a7a7a", linewidths=1.1, zorder=1, gid="edges"), autolim=False)
    signs = [int(np.sign(graph.nodes[r]["counting_number"])) for r in regions]
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=font_size**2,
        c=[SIGN_COLORS[s] for s in signs],
        edgecolors="none",
        zorder=2,
        gid="regions",
    )
    for text, (x, y), sign in zip(texts, xy, signs):
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=font_size,
            linespacing=1.05,
            zorder=4,
            gid="region",
            bbox={
                "boxstyle": "round,pad=0.35",
                "facecolor": SIGN_COLORS[sign],
                "edgecolor": _SIGN_EDGES[sign],
                "linewidth": 1.0,
            },
        )
    if legend:
        handles = []
        for sign, what in ((1, "c > 0"), (-1, "c < 0"), (0, "c = 0")):
            n = signs.count(sign)
            if n:
                handles.append(
                    Patch(facecolor=SIGN_COLORS[sign], edgecolor=_SIGN_EDGES[sign], label=f"{what}: {n} region(s)")
                )
        note = "c: counting number"
        if class_name is not None and all(class_name in r for r in regions):
            note += f"\n(each region also holds {str(class_name)!r})"
        ax.legend(
            handles=handles,
            title=note,
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
            frameon=False,
            fontsize=max(font_size, 8.0),
            title_fontsize=max(font_size, 8.0),
            alignment="left",
        )
    return ax


# ---------------------------------------------------------------------------
# Search path

_PATH_COLUMNS = ("log_prior", "log_likelihood", "log_posterior")


def _as_path(model_or_path):
    model = _fitted_kikuchi(model_or_path, "path")
    if model is not None:
        return model.path_, int(model.map_step_)
    if not isinstance(model_or_path, pd.DataFrame):
        raise TypeError(
            f"Expected a fitted KikuchiBayes model or its `path_` DataFrame, got {type(model_or_path).__name__}."
        )
    path = model_or_path
    missing = [c for c in _PATH_COLUMNS if c not in path.columns]
    if missing:
        raise ValueError(f"The path DataFrame lacks column(s) {missing}; it needs {list(_PATH_COLUMNS)}.")
    if len(path) == 0:
        raise ValueError("The path DataFrame has no rows.")
    posterior = path["log_posterior"].to_numpy(dtype=float)
    if not np.isfinite(posterior).any():
        raise ValueError("The path's `log_posterior` has no finite value.")
    return path, int(np.nanargmax(np.where(np.isfinite(posterior), posterior, np.nan)))


def _runs(values):
    """``(value, first, last)`` of each run of equal consecutive values."""
    runs, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            runs.append((values[start], start, i - 1))
            start = i
    return runs


def draw_kikuchi_path(
    model_or_path,
    *,
    ax=None,
    weights=False,
    phases=True,
    sizes=True,
    legend=True,
    title=None,
):
    """Draw the greedy structure search of Kikuchi-Bayes: log prior, likelihood, posterior per step.

    The search of [1]_ (section 7) adds one region per step, climbs to the
    maximum a posteriori (MAP) structure and then goes on while the
    likelihood rises; kBMA averages the stages weighted by their posterior.
    x is the step (row of ``path_``; step 0 is the class alone). The MAP
    step is marked by a vertical line and a star on the log posterior; the
    phases (``"ascent"``, ``"beyond MAP"``) are shaded.

    Parameters
    ----------
    model_or_path : KikuchiBayes or pandas.DataFrame
        A fitted :class:`~graphmodels.KikuchiBayes` or its ``path_``: one
        row per step with columns ``log_prior``, ``log_likelihood`` and
        ``log_posterior`` (nats), optionally ``phase``, ``size`` and
        ``weight``. Row order is step order.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if omitted.
    weights : bool, default=False
        Also draw the model-averaging weight of each step as bars on a twin
        y axis (right); from the ``weight`` column, or ``softmax(log_posterior)``
        without one.
    phases : bool, default=True
        Shade each run of steps of the same ``phase`` (if the column exists).
    sizes : bool, default=True
        Colour the posterior's markers by the size of the region added at
        that step (class included), in the colours of
        :func:`draw_interactions` (if a ``size`` column exists).
    legend : bool, default=True
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The main axes: lines with gids ``"log_prior"``, ``"log_likelihood"``
        and ``"log_posterior"``, the MAP line (gid ``"map"``) and star (gid
        ``"map_marker"``), phase spans with gids ``"phase:<phase>"`` and
        markers with gid ``"added"``. With `weights`, the bars (gid
        ``"weights"``) are on a twin axes of the same figure.

    Raises
    ------
    TypeError
        If `model_or_path` is neither a fitted KikuchiBayes nor a DataFrame.
    ValueError
        If the DataFrame is empty or lacks a needed column (the message
        lists them).

    See Also
    --------
    draw_interactions : the regions added up to the MAP step.
    graphmodels.learners.kikuchi_bayes_path

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report, section 7.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> path = pd.DataFrame({"log_prior": [0.0, -1.0, -3.0], "log_likelihood": [-10.0, -6.0, -5.5],
    ...                      "log_posterior": [-10.0, -7.0, -8.5]})
    >>> ax = draw_kikuchi_path(path, ax=Figure().subplots())
    >>> [line.get_xdata()[0] for line in ax.lines if line.get_gid() == "map"]
    [1]
    """
    path, map_step = _as_path(model_or_path)
    for value, name in ((weights, "weights"), (phases, "phases"), (sizes, "sizes"), (legend, "legend")):
        _check_bool(value, name)
    steps = np.arange(len(path))
    if ax is None:
        import matplotlib.pyplot as plt

        width = float(np.clip(5.0 + 0.2 * len(path), 6.5, 16.0))
        _, ax = plt.subplots(figsize=(width, 4.5), layout="constrained")
    if title is not None:
        ax.set_title(title)

    handles = []
    if phases and "phase" in path.columns:
        others = iter(_OTHER_PHASE_COLORS * (1 + len(path) // len(_OTHER_PHASE_COLORS)))
        colors = dict(PHASE_COLORS)
        shown = set()
        for phase, first, last in _runs(list(path["phase"])):
            if phase == "start":
                continue
            if phase not in colors:
                colors[phase] = next(others)
            # Translucent, so that the weight bars of a twin axes behind show through.
            ax.axvspan(
                first - 0.5,
                last + 0.5,
                facecolor=to_rgba(colors[phase], 0.6),
                edgecolor="none",
                zorder=0,
                gid=f"phase:{phase}",
            )
            if phase not in shown:
                shown.add(phase)
                handles.append(Patch(facecolor=colors[phase], edgecolor="#bbbbbb", label=f"phase: {phase}"))

    styles = {
        "log_prior": ("log prior", "#8d8d8d", "--"),
        "log_likelihood": ("log likelihood", "#2a6f97", "-"),
        "log_posterior": ("log posterior", "#1d1d1d", "-"),
    }
    for column, (label, color, style) in styles.items():
        (line,) = ax.plot(
            steps,
            path[column].to_numpy(dtype=float),
            color=color,
            linestyle=style,
            linewidth=2.0 if column == "log_posterior" else 1.5,
            label=label,
            gid=column,
            zorder=2,
        )
        handles.append(line)
    posterior = path["log_posterior"].to_numpy(dtype=float)

    if sizes and "size" in path.columns:
        size = path["size"].to_numpy()
        colors = [region_style(int(s))[0] if int(s) >= 2 else "#ffffff" for s in size]
        ax.scatter(steps, posterior, s=30, c=colors, edgecolors="#1d1d1d", linewidths=0.6, zorder=3, gid="added")
        for s in sorted({int(s) for s in size if int(s) >= 2}):
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="",
                    marker="o",
                    markersize=6,
                    markerfacecolor=region_style(s)[0],
                    markeredgecolor="#1d1d1d",
                    markeredgewidth=0.6,
                    label=f"{s}-way region added",
                )
            )

    ax.axvline(map_step, color="#d62828", linestyle=":", linewidth=1.3, zorder=1, gid="map")
    (star,) = ax.plot(
        [map_step],
        [posterior[map_step]],
        linestyle="",
        marker="*",
        markersize=15,
        markerfacecolor="#ffd23f",
        markeredgecolor="#1d1d1d",
        zorder=4,
        gid="map_marker",
        label=f"MAP (step {map_step})",
    )
    handles.append(star)
    ax.annotate(
        f"MAP, step {map_step}",
        (map_step, posterior[map_step]),
        xytext=(6, 8),
        textcoords="offset points",
        fontsize=9,
        color="#1d1d1d",
        zorder=5,
    )

    ax.set_xlim(-0.5, len(path) - 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step (one region added per step)")
    ax.set_ylabel("nats")
    ax.grid(axis="y", color="#e0e0e0", linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)

    if weights:
        w = path["weight"].to_numpy(dtype=float) if "weight" in path.columns else _softmax(posterior)
        twin = ax.twinx()
        bars = twin.bar(
            steps,
            w,
            width=0.6,
            color=to_rgba("#f4a261", 0.55),
            edgecolor="#c77d3a",
            linewidth=0.6,
            zorder=1,
            gid="weights",
            label="model-averaging weight (right)",
        )
        twin.set_ylim(0, max(float(np.nanmax(w)) * 1.15, 1e-12))
        twin.set_ylabel("model-averaging weight")
        # Lines above the bars: the main axes in front, its background hidden.
        ax.set_zorder(twin.get_zorder() + 1)
        ax.patch.set_visible(False)
        handles.append(Patch(facecolor=to_rgba("#f4a261", 0.55), edgecolor="#c77d3a", label=bars.get_label()))
    if legend:
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.1 if weights else 1.01, 1.0),
            frameon=False,
            fontsize=8.5,
        )
    return ax


def _softmax(values):
    finite = np.where(np.isfinite(values), values, -np.inf)
    shifted = np.exp(finite - np.max(finite))
    return shifted / shifted.sum()
