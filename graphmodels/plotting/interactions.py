"""The interaction diagram of a Kikuchi-Bayes model (Figure 2 of Jakulin & Rish, 2006).

:func:`draw_interactions` draws the regions of a Kikuchi-Bayes classifier the
way Figure 2 draws the MAP model of tic-tac-toe: attributes are points, and
since every region holds the class, the class is left out and each region is
drawn through its attributes only: a ring for a 2-way region (one attribute +
class), a solid line for a 3-way one, a dashed path for a 4-way one and a
dotted polygon for larger ones, one colour per size.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, PathPatch
from matplotlib.path import Path

from ._common import (
    FADED_ALPHA,
    FADED_WIDTH,
    _bend,
    _check_bool,
    _check_pos,
    _check_step,
    _check_top_k,
    _fitted_kikuchi,
    _frame,
    _model_attributes,
    _sizes,
    _spacing,
    _strongest,
    format_label,
    network_layout,
    region_style,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.kikuchi import KikuchiBayes

__all__ = ["draw_interactions"]


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
    """Signed lanes already taken on each pair of attributes, to keep parallel regions apart."""

    def __init__(self):
        self.taken = {}

    def choose(self, edges, signs, outward_only):
        """Lane (a signed integer) for a region whose `edges` move by ``sign * lane`` gaps."""
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
        return best


def _region_route(members, pos, index, lanes, tolerance):
    """How a region of two or more attributes runs: its ring of attributes, whether closed, its normals and lane."""
    points = np.array([pos[m] for m in members], dtype=float)
    order, closed = _shape(points, tolerance)
    ring = [members[i] for i in order]
    pairs = list(zip(ring, ring[1:] + ring[:1])) if closed else list(zip(ring, ring[1:]))
    # Each pair in its canonical direction (first in attribute order first), so that
    # regions sharing a pair agree on its normal and on its bend.
    canonical = [(u, v) if index[u] < index[v] else (v, u) for u, v in pairs]
    if closed:
        outward = [-_unit_normal(pos[u], pos[v]) for u, v in pairs]  # counter-clockwise polygon
    else:
        line_normal = _unit_normal(pos[ring[0]], pos[ring[-1]])
        outward = [line_normal] * len(pairs)
    signs = [1 if float(np.dot(n, _unit_normal(pos[a], pos[b]))) > 0 else -1 for n, (a, b) in zip(outward, canonical)]
    lane = lanes.choose(canonical, signs, outward_only=closed)
    return ring, pairs, canonical, outward, closed, lane


def _region_path(route, pos, others_xy, offset, reach, clearance):
    """Path of a region along its `route`, moved `offset` (data units) off the attributes' centres.

    Every vertex stays within `reach` of its attribute's centre, so that every
    segment starts and ends on an attribute's disc: a polygon corner whose
    mitre would reach farther (a sharp corner: the mitre grows as
    1 / cos(angle / 2)) is bevelled, i.e. cut by a short segment between the
    two offset edges, hidden under the disc.
    """
    ring, pairs, canonical, outward, closed, _ = route
    # Each edge i runs from starts[i] to ends[i].
    starts, ends = [], []
    for i, (u, v) in enumerate(pairs):
        normal = outward[i]
        starts.append(np.asarray(pos[u], dtype=float) + offset * normal)
        ends.append(np.asarray(pos[v], dtype=float) + offset * normal)
    if closed:
        # Mitre the corner at ring[i] (between edge i - 1 and edge i) where it stays within reach.
        for i in range(len(ring)):
            n1, n2 = outward[i - 1], outward[i]
            denominator = 1.0 + float(np.dot(n1, n2))
            if denominator > 1e-6:
                shift = (n1 + n2) / denominator
                if abs(offset) * math.hypot(shift[0], shift[1]) <= reach:
                    corner = np.asarray(pos[ring[i]], dtype=float) + offset * shift
                    ends[i - 1] = starts[i] = corner

    xy, codes = [starts[0]], [Path.MOVETO]
    for i, (u, v) in enumerate(pairs):
        a, b = starts[i], ends[i]
        if i and not np.allclose(a, xy[-1]):
            xy.append(a)  # the bevel of a sharp corner
            codes.append(Path.LINETO)
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
    if closed and not np.allclose(xy[-1], xy[0]):
        xy.append(starts[0])  # the bevel of the first corner
        codes.append(Path.LINETO)
    return Path(np.array(xy), codes), closed


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
    model_or_regions: KikuchiBayes | Iterable[Iterable[Hashable]],
    pos: dict[Any, Any] | None = None,
    *,
    class_name: Hashable | None = None,
    step: int | None = None,
    attributes: Sequence[Hashable] | None = None,
    ax: Axes | None = None,
    labels: bool = True,
    label_func: Callable[[Any], str] | None = None,
    node_size: float | None = None,
    font_size: float | None = None,
    linewidth: float = 2.0,
    gap: float | None = None,
    legend: bool = True,
    title: str | None = None,
    top_k: int | None = None,
    faded: str = "fade",
) -> Axes:
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
    given, i.e. for a model in the order the search added them. Every line
    starts and ends on an attribute's disc, whatever the layout: the lanes
    stay within the disc (drawn closer than `gap` when many regions share a
    pair), and a polygon corner too sharp to mitre within the disc is
    bevelled.

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
        ``max(2.5 * linewidth, 4)``. Narrowed when the lanes of a pair would
        not fit within 0.8 of an attribute's disc radius.
    legend : bool, default=True
        A legend (right of the axes) with the count of regions of each size,
        titled with the class, which every region also holds.
    title : str, optional
    top_k : int, optional
        Draw only the `top_k` strongest regions in full and the others as
        `faded` says. The path records no gain per region, so strength is
        the order in which the regions were added along the search path
        (``path_["region"]``), or the order of a given list: earlier is
        stronger. A `top_k` of at least the number of regions draws them
        all in full.
    faded : {"fade", "hide"}, default="fade"
        The regions left out by `top_k`: drawn light (alpha 0.15) and thin
        (0.5 points), or not drawn (the legend still counts them).

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        Attributes are a ``PathCollection`` with gid ``"nodes"`` (offsets in
        the order of `attributes`), their labels texts with gid ``"label"``.
        Each region is one patch with gid ``"region:<size>"`` (size with the
        class: a ``Circle`` for ``"region:2"``, else a ``PathPatch``) whose
        label lists the region's variables.

    Raises
    ------
    NotFittedError
        If `model_or_regions` is a KikuchiBayes that is not fitted.
    TypeError
        If `model_or_regions` is another kind of model,
        or not an iterable of regions; if a region is a bare string; if
        `pos` is not a dict.
    ValueError
        If a region does not hold the class, `class_name` is missing (list
        of regions) or differs from the model's, `step` is out of range,
        `pos` lacks an attribute (the message names it) or `attributes` lacks
        one of a region, `top_k` is not an integer >= 1, or `faded` is
        unknown.

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
    top_k = _check_top_k(top_k, faded)
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
    lanes = _Lanes()
    index = {a: i for i, a in enumerate(attributes)}
    tolerance = 1e-6 * max(float(np.ptp(xy, axis=0).max()), spacing)
    clearance = 1.3 * radius
    routes = {
        region: _region_route(list(region), positions, index, lanes, tolerance) for region in regions if len(region) > 1
    }
    # Every line starts and ends on an attribute's disc: lanes stay within `reach` of the
    # centres (parallel regions drawn closer together when many share a pair).
    reach = 0.8 * radius
    widest = max((abs(route[-1]) for route in routes.values()), default=0)
    if widest * gap > reach:
        gap = reach / widest

    counts = {}
    # No gain per region is recorded: earlier along the path (or in the list) is stronger.
    strong, _ = _strongest([float(-i) for i in range(len(regions))], top_k)
    for region, full in zip(regions, strong):
        size = len(region) + 1
        counts[size] = counts.get(size, 0) + 1
        if not full and faded == "hide":
            continue
        color, style = region_style(size)
        name = ",".join(str(v) for v in region + (class_name,))
        if size == 2:
            patch = Circle(
                positions[region[0]],
                radius + max(0.45 * radius, 1.5 * linewidth / ppu),
                fill=False,
                edgecolor=color,
                linewidth=linewidth if full else FADED_WIDTH,
                alpha=None if full else FADED_ALPHA,
                zorder=3.5 if full else 0.5,
                gid="region:2",
                label=name,
            )
        else:
            route = routes[region]
            path, _ = _region_path(route, positions, positions, route[-1] * gap, reach, clearance)
            patch = PathPatch(
                path,
                fill=False,
                edgecolor=color,
                linewidth=linewidth if full else FADED_WIDTH,
                linestyle=style,
                capstyle="round",
                joinstyle="round",
                alpha=0.95 if full else FADED_ALPHA,
                zorder=(2 - 0.01 * min(size, 50)) if full else 0.5,
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
