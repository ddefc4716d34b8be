"""Drawings of the interaction analysis (Jakulin & Bratko) and of the information in a structure.

* :func:`draw_interaction_graph`: the attributes as discs sized by their information about the
  class; the strongest synergies (solid vermillion) and redundancies (dashed blue) between pairs
  as edges labelled with their share of the class entropy;
* :func:`draw_interaction_dendrogram`: the attributes clustered by interaction distance;
* :func:`draw_information`: any structure with the entropy of each node and the mutual
  information of each arc (pyAgrum's ``showInformation``, drawn without Graphviz).

Both interaction drawings take the graph of :func:`graphmodels.interaction_graph`; the
interaction graph takes ``pos`` as :func:`~graphmodels.plotting.draw_interactions` does, so the
Kikuchi-Bayes diagram of the same data can sit beside it with the attributes in the same places.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch

from ._common import (
    ROLE_COLORS,
    _bend,
    _check_bool,
    _check_pos,
    _frame,
    _sizes,
    _spacing,
    as_graph,
    format_label,
    network_layout,
    scatter_nodes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_interaction_graph", "draw_interaction_dendrogram", "draw_information", "SYNERGY", "REDUNDANCY"]

#: Colours of a synergy (positive interaction information) and a redundancy (negative): Okabe & Ito's
#: colour-blind safe vermillion and blue, as the explanation drawings' raising and lowering terms.
SYNERGY = "#D55E00"
REDUNDANCY = "#0072B2"


def _check_interaction_graph(graph):
    if not isinstance(graph, nx.Graph) or "class_entropy" not in graph.graph:
        raise TypeError(
            "Expected the graph of graphmodels.interaction_graph(X, y) (a networkx Graph whose graph attributes "
            f"hold 'class_entropy'), got {type(graph).__name__}."
        )
    return graph


def _check_count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"`{name}` must be an integer >= 0, got {value!r}.")
    return int(value)


def _percent(share):
    value = 100.0 * float(share)
    return f"{value:+.1f}%" if abs(value) >= 0.1 else f"{value:+.2f}%"


def _chosen_edges(graph, top, significant):
    """The `top` strongest synergies and the `top` strongest redundancies (significant ones only, if asked)."""
    edges = [(u, v, d) for u, v, d in graph.edges(data=True) if not significant or d.get("significant", True)]
    synergies = sorted((e for e in edges if e[2]["interaction"] > 0), key=lambda e: -e[2]["interaction"])
    redundancies = sorted((e for e in edges if e[2]["interaction"] < 0), key=lambda e: e[2]["interaction"])
    return synergies[:top] + redundancies[:top]


def draw_interaction_graph(
    graph: nx.Graph,
    pos: dict[Any, Any] | None = None,
    *,
    top: int = 6,
    significant: bool = False,
    attributes: Sequence[Hashable] | str | None = None,
    ax: Axes | None = None,
    labels: bool = True,
    node_size: float | None = None,
    font_size: float | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Axes:
    """Draw Jakulin & Bratko's interaction graph: the strongest synergies and redundancies with the class.

    Attributes are discs, their area growing with their information about the class ``I(A; C)``
    and labelled with it as a share of ``H(C)``; the `top` strongest synergies (``I(A; B; C) >
    0``: solid vermillion) and the `top` strongest redundancies (``< 0``: dashed blue) are edges
    whose width grows with ``|I(A; B; C)|``, labelled with their share of ``H(C)`` (``*``: an
    irreducible 3-way interaction, significant after the graph's multiple-testing correction; a
    redundancy is often none, as the pair's own dependence explains it) [1]_.

    Parameters
    ----------
    graph : networkx.Graph
        From :func:`graphmodels.interaction_graph`.
    pos : dict, optional
        Attribute -> ``(x, y)`` (equal aspect), e.g. the positions of the same attributes in
        :func:`~graphmodels.plotting.draw_interactions`; by default a Kamada-Kawai layout of the
        edges drawn (:func:`~graphmodels.plotting.network_layout`).
    top : int, default=6
        Edges of each kind drawn.
    significant : bool, default=False
        Only edges whose adjusted P-value is at most the graph's ``alpha``.
    attributes : sequence, "all" or None
        The attributes drawn; by default those of the edges drawn and the `top` most informative.
    ax : matplotlib.axes.Axes, optional
    labels : bool, default=True
    node_size, font_size : float, optional
        Largest disc area (points^2) and label size; by default fitted to the spacing.
    legend : bool, default=True
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Attributes: the ``PathCollection`` with gid ``"nodes"``; edges: ``FancyArrowPatch`` with gid
        ``"synergy"`` or ``"redundancy"`` and the pair as label.

    References
    ----------
    .. [1] Jakulin, A., & Bratko, I. (2003). Analyzing attribute dependencies. *PKDD 2003*.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from matplotlib.figure import Figure
    >>> from graphmodels.stats import interaction_graph
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(300, 2)), columns=["a", "b"])
    >>> y = (X["a"] ^ X["b"]).rename("y")  # a and b: synergy
    >>> X["c"], X["d"] = y ^ (rng.random(300) < 0.1), y ^ (rng.random(300) < 0.1)  # c and d: redundancy
    >>> graph = interaction_graph(X, y)
    >>> ax = draw_interaction_graph(graph, top=1, ax=Figure().subplots())
    >>> [p.get_gid() for p in ax.patches]
    ['synergy', 'redundancy']
    """
    _check_interaction_graph(graph)
    top = _check_count(top, "top")
    _check_bool(significant, "significant")
    _check_bool(labels, "labels")
    _check_bool(legend, "legend")
    edges = _chosen_edges(graph, top, significant)
    if attributes is None:
        informative = sorted(graph.nodes, key=lambda n: -graph.nodes[n].get("mutual_information", 0.0))[:top]
        wanted = {n for u, v, _ in edges for n in (u, v)} | set(informative)
        nodes = [n for n in graph.nodes if n in wanted]
    elif isinstance(attributes, str) and attributes == "all":
        nodes = list(graph.nodes)
    else:
        nodes = list(dict.fromkeys(attributes))
        unknown = [n for n in nodes if n not in graph]
        if unknown:
            raise ValueError(f"`attributes` names {unknown[0]!r}, which is not an attribute of the graph.")
        edges = [e for e in edges if e[0] in nodes and e[1] in nodes]
    if pos is None:
        drawn = nx.Graph()
        drawn.add_nodes_from(nodes)
        drawn.add_edges_from((u, v) for u, v, _ in edges)
        pos = network_layout(drawn, "kamada_kawai") if nodes else {}
    positions = _check_pos(pos, nodes, "attribute")
    xy = np.array([positions[n] for n in nodes], dtype=float).reshape(-1, 2)
    if ax is None:
        import matplotlib.pyplot as plt

        if len(xy):
            spread = np.ptp(xy, axis=0) / _spacing(xy)
            size = (
                float(np.clip(1.5 * (spread[0] + 1.8), 5.0, 20.0)),
                float(np.clip(1.5 * (spread[1] + 1.8), 4.0, 15.0)),
            )
        else:
            size = (5.0, 4.0)
        _, ax = plt.subplots(figsize=(size[0] + (3.2 if legend else 0.0), size[1]), layout="constrained")
    ax.set_axis_off()
    h = float(graph.graph["class_entropy"])
    unit = graph.graph.get("unit", "nats")
    target = graph.graph.get("target", "class")
    ax.set_title(
        title if title is not None else f"Interactions with {target!r} (share of H({target}) = {h:.3g} {unit})",
        fontsize=11,
    )
    if not nodes:
        return ax
    spacing = _spacing(xy)
    ppu, _ = _frame(ax, xy, 0.8 * spacing, equal=True)
    shares = np.array([float(graph.nodes[n].get("share", 0.0)) for n in nodes])
    texts = (
        [f"{format_label(n, 18, 10)}\n{100 * s:.1f}%" for n, s in zip(nodes, shares)] if labels else [""] * len(nodes)
    )
    if node_size is None:  # larger discs than draw_network's: two lines of label, for slides
        node_size = float(np.clip(0.62 * spacing * ppu, 8.0, 66.0)) ** 2
    largest, font_size = _sizes(spacing, ppu, texts, node_size, font_size)
    scale = shares / shares.max() if shares.max() > 0 else np.zeros_like(shares)
    areas = largest * (0.45 + 0.55 * np.sqrt(np.clip(scale, 0.0, 1.0)))
    scatter_nodes(ax, xy, ["feature"] * len(nodes), areas, gid="nodes")
    if labels:
        for text, (x, y) in zip(texts, xy):
            ax.text(x, y, text, ha="center", va="center", fontsize=font_size, linespacing=1.0, zorder=4, gid="label")
    strongest = max((abs(d["interaction"]) for _, _, d in edges), default=0.0) or 1.0
    index = {n: i for i, n in enumerate(nodes)}
    radius = math.sqrt(largest) / 2
    for u, v, data in edges:
        synergy = data["interaction"] > 0
        width = 1.2 + 4.8 * abs(data["interaction"]) / strongest
        others = np.delete(xy, [index[u], index[v]], axis=0)
        rad = _bend(xy[index[u]], xy[index[v]], others, 0.55 * spacing)
        patch = FancyArrowPatch(
            positions[u],
            positions[v],
            arrowstyle="-",
            shrinkA=radius * 0.8,
            shrinkB=radius * 0.8,
            linewidth=width,
            linestyle="-" if synergy else (0, (4, 2.5)),
            color=SYNERGY if synergy else REDUNDANCY,
            alpha=0.9,
            connectionstyle=f"arc3,rad={rad}",
            zorder=2,
            gid="synergy" if synergy else "redundancy",
            label=f"{u} - {v}",
        )
        ax.add_patch(patch)
        (ux, uy), (vx, vy) = positions[u], positions[v]
        mid = ((ux + vx) / 2 + rad * (vy - uy) / 2, (uy + vy) / 2 - rad * (vx - ux) / 2)
        star = "*" if data.get("significant") else ""
        ax.text(
            mid[0],
            mid[1],
            _percent(data["share"]) + star,
            ha="center",
            va="center",
            fontsize=max(font_size - 0.5, 6.5),
            color=SYNERGY if synergy else REDUNDANCY,
            zorder=5,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )
    if legend:
        handles = [
            Line2D([], [], color=SYNERGY, linewidth=3, label="synergy: I(A;B;C) > 0"),
            Line2D([], [], color=REDUNDANCY, linewidth=3, linestyle=(0, (4, 2.5)), label="redundancy: I(A;B;C) < 0"),
            Line2D(
                [],
                [],
                linestyle="",
                marker="o",
                markersize=10,
                markerfacecolor=ROLE_COLORS["feature"],
                markeredgecolor="#4d4d4d",
                label="attribute: I(A;C), area",
            ),  # fmt: skip
        ]
        if graph.graph.get("test") is not None:
            handles.append(Line2D([], [], linestyle="", label=f"* significant (alpha {graph.graph.get('alpha')})"))
        ax.legend(
            handles=handles,
            title=f"% of H({target})",
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
            frameon=False,
            fontsize=9,
            title_fontsize=9,
            alignment="left",
        )
    return ax


# ----------------------------------------------------------------------------- dendrogram
def _cluster_coordinates(linkage, n):
    """Leaf order and, for each merge, the y of each of its two children and their x (heights)."""
    from scipy.cluster.hierarchy import leaves_list

    order = leaves_list(linkage)
    y = {int(leaf): float(k) for k, leaf in enumerate(order)}
    x = {int(leaf): 0.0 for leaf in order}
    members = {int(leaf): [int(leaf)] for leaf in order}
    merges = []
    for i, (a, b, height, _) in enumerate(linkage):
        a, b = int(a), int(b)
        node = n + i
        y[node] = (y[a] + y[b]) / 2
        x[node] = float(height)
        members[node] = members[a] + members[b]
        merges.append((a, b, node))
    return order, x, y, members, merges


def draw_interaction_dendrogram(
    graph: nx.Graph,
    *,
    method: str = "average",
    truncation: float = 1000.0,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Draw the attributes clustered by interaction distance (Jakulin & Bratko's interaction dendrogram).

    The distance of two attributes is ``1 / |I(A; B; C)|`` (as a share of ``H(C)``; see
    :func:`graphmodels.stats.interaction_distances`), so the attributes that interact most,
    in synergy or in redundancy, merge first (left). Each merge is coloured by the mean
    interaction between the two clusters it joins: vermillion for synergy, blue for redundancy
    [1]_. The axis reads the strength at which clusters merge, ``|I| / H(C)``, in percent.

    Parameters
    ----------
    graph : networkx.Graph
        From :func:`graphmodels.interaction_graph`.
    method : str, default="average"
        The linkage of :func:`scipy.cluster.hierarchy.linkage` (``"average"``, ``"complete"``,
        ``"single"``, ``"weighted"``).
    truncation : float, default=1000.0
        The largest distance (an interaction weaker than ``1 / truncation`` of ``H(C)``).
    ax : matplotlib.axes.Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One ``Line2D`` per merge with gid ``"merge:synergy"`` or ``"merge:redundancy"``.

    References
    ----------
    .. [1] Jakulin, A., & Bratko, I. (2003). Analyzing attribute dependencies. *PKDD 2003*.

    Examples
    --------
    >>> import graphmodels as gm
    >>> from matplotlib.figure import Figure
    >>> X, y = gm.datasets.load("voting", return_X_y=True)
    >>> graph = gm.interaction_graph(X, y, test=None)
    >>> ax = draw_interaction_dendrogram(graph, ax=Figure().subplots())
    >>> len([line for line in ax.lines if line.get_gid().startswith("merge")])
    15
    """
    from scipy.cluster.hierarchy import linkage

    from ..stats.interactions import interaction_distances

    _check_interaction_graph(graph)
    if method not in ("average", "complete", "single", "weighted"):
        raise ValueError(f"`method` must be 'average', 'complete', 'single' or 'weighted', got {method!r}.")
    names, distances = interaction_distances(graph, truncation=truncation)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.5, max(3.0, 0.34 * len(names) + 1.4)), layout="constrained")
    target = graph.graph.get("target", "class")
    ax.set_title(title if title is not None else f"Interaction dendrogram ({target!r})", fontsize=11)
    if len(names) < 2:
        ax.set_axis_off()
        return ax
    tree = linkage(distances, method=method)
    order, x, y, members, merges = _cluster_coordinates(tree, len(names))
    share = np.zeros((len(names), len(names)))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j and graph.has_edge(a, b):
                share[i, j] = float(graph.edges[a, b].get("share", 0.0))
    leaf_x = 1.0 / float(truncation)  # the leaves: a strength of 100% sits at 1
    position = {k: math.log10(max(v, 1.0)) if k >= len(names) else math.log10(1.0 / leaf_x) for k, v in x.items()}
    # Strength axis: log10(1 / |share|) = 0 at 100%, 1 at 10%, ...; leaves at the truncation, on the right.
    for a, b, node in merges:
        mean = float(share[np.ix_(members[a], members[b])].mean())
        colour = SYNERGY if mean > 0 else REDUNDANCY
        h = position[node]
        xs = [position[a] if a >= len(names) else math.log10(truncation), h, h,
              position[b] if b >= len(names) else math.log10(truncation)]  # fmt: skip
        ys = [y[a], y[a], y[b], y[b]]
        ax.plot(xs, ys, color=colour, linewidth=2.0, solid_capstyle="round",
                gid=f"merge:{'synergy' if mean > 0 else 'redundancy'}")  # fmt: skip
    mi = {n: float(graph.nodes[n].get("share", 0.0)) for n in names}
    ax.set_yticks(
        [y[int(leaf)] for leaf in order],
        [f"{format_label(names[int(leaf)], 30, 30)} ({100 * mi[names[int(leaf)]]:.1f}%)" for leaf in order],
        fontsize=9,
    )
    ax.yaxis.tick_right()
    top = math.log10(truncation)
    ticks = [t for t in range(0, int(top) + 1)]
    ax.set_xticks(ticks, [f"{100 / 10**t:g}%" for t in ticks])
    ax.set_xlim(-0.1, top + 0.05)
    ax.set_xlabel(f"|I(A;B;{target})| / H({target}) at which the clusters merge")
    for side in ("top", "left"):
        ax.spines[side].set_visible(False)
    ax.legend(
        handles=[
            Line2D([], [], color=SYNERGY, linewidth=2.5, label="synergy (mean I > 0)"),
            Line2D([], [], color=REDUNDANCY, linewidth=2.5, label="redundancy (mean I < 0)"),
        ],
        loc="lower left",
        frameon=False,
        fontsize=8.5,
    )
    return ax


# ----------------------------------------------------------------------------- information
def _model_information(model, graph, base):
    """Entropies of the nodes and mutual information of the edges from the model's own distribution."""
    log_base = 1.0 if base is None else math.log(base)
    distribution = model.distribution()
    known = set(distribution.variables)
    result = graph.copy()
    for node in graph.nodes:
        if node in known:
            p = np.asarray(model.query(node), dtype=float)
            result.nodes[node]["entropy"] = float(-(p[p > 0] * np.log(p[p > 0])).sum() / log_base)
    for u, v in graph.edges():
        if u in known and v in known:
            joint = model.query([u, v], joint=True)
            table = joint["probability"].to_numpy(dtype=float).reshape(len(model.query(u)), -1)
            pu, pv = table.sum(axis=1, keepdims=True), table.sum(axis=0, keepdims=True)
            cells = table > 0
            mi = float((table[cells] * np.log(table[cells] / (pu @ pv)[cells])).sum()) / log_base
            result.edges[u, v]["mutual_information"] = max(mi, 0.0)
    result.graph["unit"] = "nats" if base is None else ("bits" if base == 2 else f"log base {base}")
    return result


def draw_information(
    structure_or_model: Any,
    data: pd.DataFrame | None = None,
    *,
    base: float | None = None,
    ax: Axes | None = None,
    layout: str | dict[Any, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """Draw a structure with the entropy of each node and the mutual information of each arc.

    pyAgrum's ``showInformation`` without Graphviz: each node is shaded by its entropy
    ``H(X)`` and labelled with it, each arc is as wide as its mutual information ``I(X; Y)``
    and labelled with it.

    Parameters
    ----------
    structure_or_model : networkx graph or fitted model
        A structure (its nodes named as columns of `data`) or a fitted model (its
        ``structure_``).
    data : DataFrame, optional
        The measures' data (for a model, cut as the model cuts its columns; the class under the
        model's class name). Without it a model's own distribution gives them
        (``model.query``).
    base : float, optional
        Logarithm base; nats by default.
    ax : matplotlib.axes.Axes, optional
    layout : str or dict, optional
        A method of :func:`~graphmodels.plotting.network_layout` or positions.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Nodes: the ``PathCollection`` with gid ``"nodes"``; arcs: ``FancyArrowPatch`` with gid
        ``"information"``.

    Raises
    ------
    TypeError
        For a structure without `data`, or a model without a distribution to ask.

    Examples
    --------
    >>> import graphmodels as gm
    >>> from matplotlib.figure import Figure
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> tan = gm.TAN().fit(X, y)
    >>> ax = draw_information(tan, ax=Figure().subplots())
    >>> len([p for p in ax.patches if p.get_gid() == "information"])
    11
    """
    from ..stats.interactions import information_graph

    graph = as_graph(structure_or_model)
    is_model = hasattr(structure_or_model, "structure_")
    if data is not None:
        frame = data
        discretizer = getattr(structure_or_model, "discretizer_", None) if is_model else None
        if discretizer is not None:
            frame = discretizer.transform(frame)
        informed = information_graph(graph, frame, base=base)
    elif is_model and hasattr(structure_or_model, "distribution"):
        informed = _model_information(structure_or_model, graph, base)
    else:
        raise TypeError("Pass `data` to measure a structure's information (a model may use its own distribution).")
    if isinstance(layout, dict):
        pos = _check_pos(layout, list(informed.nodes), "node")
    else:
        pos = network_layout(informed, layout)
    nodes = list(informed.nodes)
    xy = np.array([pos[n] for n in nodes], dtype=float).reshape(-1, 2)
    if ax is None:
        import matplotlib.pyplot as plt

        spread = np.ptp(xy, axis=0) if len(xy) else np.zeros(2)
        _, ax = plt.subplots(
            figsize=(float(np.clip(1.4 * (spread[0] + 1.8), 5.0, 22.0)), float(np.clip(1.3 * (spread[1] + 1.8), 3.5, 16.0))),
            layout="constrained",
        )  # fmt: skip
    ax.set_axis_off()
    unit = informed.graph.get("unit", "nats")
    ax.set_title(title if title is not None else f"Entropy of each node, mutual information of each arc ({unit})")
    if not nodes:
        return ax
    import matplotlib as mpl

    spacing = _spacing(xy)
    ppu, _ = _frame(ax, xy, 0.7 * spacing, equal=False)
    ppu = min(ppu, _)
    entropies = np.array([float(informed.nodes[n].get("entropy", np.nan)) for n in nodes])
    texts = [
        f"{format_label(n, 18, 10)}\nH={h:.2f}" if np.isfinite(h) else format_label(n, 18, 10)
        for n, h in zip(nodes, entropies)
    ]
    node_size, font_size = _sizes(spacing, ppu, texts, None, None)
    finite = entropies[np.isfinite(entropies)]
    norm = mpl.colors.Normalize(vmin=0.0, vmax=float(finite.max()) if len(finite) and finite.max() > 0 else 1.0)
    cmap = mpl.colormaps["YlGn"]
    roles = [informed.nodes[n].get("role", "feature") for n in nodes]
    collection = scatter_nodes(ax, xy, [r if r in ROLE_COLORS else "other" for r in roles], node_size, gid="nodes")
    collection.set_facecolor([cmap(norm(h)) if np.isfinite(h) else ROLE_COLORS["other"] for h in entropies])
    for text, (x, y) in zip(texts, xy):
        ax.text(x, y, text, ha="center", va="center", fontsize=font_size, linespacing=1.0, zorder=4)
    information = [d.get("mutual_information") for _, _, d in informed.edges(data=True)]
    strongest = max((m for m in information if m is not None), default=0.0) or 1.0
    radius = math.sqrt(node_size) / 2
    index = {n: i for i, n in enumerate(nodes)}
    for u, v, data_uv in informed.edges(data=True):
        mi = data_uv.get("mutual_information")
        others = np.delete(xy, [index[u], index[v]], axis=0)
        rad = _bend(xy[index[u]], xy[index[v]], others, 0.4 * spacing)
        patch = FancyArrowPatch(
            pos[u],
            pos[v],
            arrowstyle="-|>" if informed.is_directed() else "-",
            mutation_scale=10,
            shrinkA=radius + 1,
            shrinkB=radius + 1,
            linewidth=0.6 if mi is None else 0.8 + 5.0 * mi / strongest,
            color="#2a6f97",
            alpha=0.85,
            connectionstyle=f"arc3,rad={rad}",
            zorder=2,
            gid="information",
        )
        ax.add_patch(patch)
        if mi is not None:
            (ux, uy), (vx, vy) = pos[u], pos[v]
            mid = ((ux + vx) / 2 + rad * (vy - uy) / 2, (uy + vy) / 2 - rad * (vx - ux) / 2)
            ax.text(
                mid[0], mid[1], f"{mi:.3f}", ha="center", va="center", fontsize=max(font_size - 1, 6.0),
                color="#1d3557", zorder=5,
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
            )  # fmt: skip
    cax = ax.inset_axes((1.01, 0.15, 0.02, 0.7))
    ax.figure.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), cax=cax, label=f"entropy ({unit})")
    return ax
