"""A region graph of the cluster variation method, drawn as a Hasse diagram with its counting numbers."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.patches import Patch

from ._common import (
    FADED_ALPHA,
    _auto_row_width,
    _check_bool,
    _check_pos,
    _check_step,
    _check_top_k,
    _fitted_kikuchi,
    _fitting_font_size,
    _frame,
    _model_attributes,
    _points_per_unit,
    _slots,
    _strongest,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.kikuchi import KikuchiBayes

__all__ = ["draw_region_graph", "SIGN_COLORS"]


#: Fill of a region-graph node by the sign of its counting number.
SIGN_COLORS = {1: "#cfe3f7", -1: "#f8d0cc", 0: "#e6e6e6"}


_SIGN_EDGES = {1: "#4a7fb5", -1: "#c0504d", 0: "#8d8d8d"}


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


def draw_region_graph(
    graph_or_model: nx.DiGraph | KikuchiBayes,
    *,
    class_name: Hashable | None = None,
    step: int | None = None,
    ax: Axes | None = None,
    pos: dict[Any, Any] | None = None,
    shorten: bool | int = True,
    label_func: Callable[[Any], str] | None = None,
    font_size: float | None = None,
    max_row_width: int | None = None,
    legend: bool = True,
    title: str | None = None,
    top_k: int | None = None,
    faded: str = "fade",
) -> Axes:
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
    top_k : int, optional
        Draw only the `top_k` strongest regions in full and the others as
        `faded` says. No gain per region is recorded, so for a model the
        strength is the order in which the regions were added along the
        search path (``path_["region"]``; earlier is stronger), the regions
        that are not on the path (intersections) ranking last; for a bare
        region graph, larger regions first, ties in graph order. An edge is
        drawn in full when both its regions are.
    faded : {"fade", "hide"}, default="fade"
        The regions left out by `top_k` (and their edges): drawn light
        (alpha 0.15), or not drawn (then left out of the ``"regions"``
        collection, the edges and the legend counts).

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure when `ax` is omitted (one Axes, as
        every drawing of :mod:`graphmodels.plotting` returns).
        One text per region with gid ``"region"`` (its variables, then
        ``c = <counting number>``), a ``PathCollection`` with gid
        ``"regions"`` (offsets in graph node order) and a ``LineCollection``
        with gid ``"edges"`` (one segment per edge, in graph edge order).

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a directed graph nor a fitted
        KikuchiBayes, or `pos` is not a dict (an unfitted KikuchiBayes
        raises NotFittedError).
    ValueError
        If a node is not a region or has no counting number, `step` is out
        of range, `pos` misses a region, `top_k` is not an integer >= 1, or
        `faded` is unknown.

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
    top_k = _check_top_k(top_k, faded)
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

    if order is not None:  # earlier along the path is stronger; intersections rank last
        weights = [-float(order[frozenset(r)]) if frozenset(r) in order else None for r in regions]
    else:
        weights = [float(len(r)) for r in regions]
    strong = dict(zip(regions, _strongest(weights, top_k)[0]))
    shown = [r for r in regions if strong[r] or faded == "fade"]
    edges = [(u, v) for u, v in graph.edges if u in shown and v in shown] if faded == "hide" else list(graph.edges)
    segments = [(positions[u], positions[v]) for u, v in edges]
    edge_alpha = [1.0 if strong[u] and strong[v] else FADED_ALPHA for u, v in edges]
    ax.add_collection(
        LineCollection(
            segments,
            colors=[to_rgba("#7a7a7a", a) for a in edge_alpha] if top_k is not None else "#7a7a7a",
            linewidths=1.1,
            zorder=1,
            gid="edges",
        ),
        autolim=False,
    )
    index = {r: i for i, r in enumerate(regions)}
    keep = [index[r] for r in shown]
    signs = [int(np.sign(graph.nodes[regions[i]]["counting_number"])) for i in keep]
    fulls = [strong[regions[i]] for i in keep]
    texts, xy = [texts[i] for i in keep], xy[keep].reshape(-1, 2)
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=font_size**2,
        c=[to_rgba(SIGN_COLORS[s], 1.0 if full else FADED_ALPHA) for s, full in zip(signs, fulls)]
        if top_k is not None
        else [SIGN_COLORS[s] for s in signs],
        edgecolors="none",
        zorder=2,
        gid="regions",
    )
    for text, (x, y), sign, full in zip(texts, xy, signs, fulls):
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=font_size,
            linespacing=1.05,
            zorder=4 if full else 3,
            gid="region",
            alpha=None if full else FADED_ALPHA,
            bbox={
                "boxstyle": "round,pad=0.35",
                "facecolor": SIGN_COLORS[sign],
                "edgecolor": _SIGN_EDGES[sign],
                "linewidth": 1.0,
                **({} if full else {"alpha": FADED_ALPHA}),
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
