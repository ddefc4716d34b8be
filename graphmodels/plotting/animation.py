"""Animations of learning traces: a model fitted with ``trace=True``, replayed step by step.

:func:`animate` turns a fitted model's ``trace_`` into the frames of its usual drawing (the same
layout in every frame, the step's item highlighted, a caption naming the step and its score) and
returns a :class:`matplotlib.animation.FuncAnimation`; :func:`animation_widget` shows the same
frames under an ipywidgets slider. This is an entry module of the plotting package (like
``dispatch``): it calls the drawing modules, which never import it.

The replay of each kind of trace is written once, here (:data:`REPLAYS`): the structure after
each step is rebuilt from the accepted steps alone, as ``tests/test_traces.py`` checks that it
can be.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from ..inference import QueryTrace
from ..models.augmented import FAN, TAN, ChowLiu
from ..models.base import BaseModel
from ..models.bayesian_network import BayesianNetwork
from ..models.density import ChowLiuTree
from ..models.hierarchical_nb import HierarchicalNaiveBayes
from ..models.hyperforest import HyperforestClassifier, HyperforestDensity
from ..models.kdb import KDB
from ..models.kikuchi import KikuchiBayes
from ..structures.hyperforests import Hyperforest
from ._common import network_layout
from .hyperforests import draw_hyperforest
from .interactions import draw_interactions
from .message_passing import message_animator
from .network import draw_graph

if TYPE_CHECKING:
    from matplotlib.animation import FuncAnimation
    from matplotlib.axes import Axes

__all__ = ["animate", "animation_widget", "REPLAYS"]

#: Colours of the highlighted step: an accepted item, a rejected one, the cycle it would close.
ACCEPT_COLOR = "#2a9d3f"
REJECT_COLOR = "#d62828"
CYCLE_COLOR = "#f4a261"

#: Actions whose item is left out of the structure (subsampled first when frames are too many).
_REJECTED = ("reject", "drop", "test", "redundant")


@dataclass
class Frame:
    """One frame: the structure after a step, the step's row of the trace (None for the final frame)."""

    structure: Any
    row: dict[str, Any] | None
    caption: str
    accepted: bool = False
    nodes: tuple[Hashable, ...] = ()
    cycle: tuple[Hashable, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# captions


def _item_text(item: Any) -> str:
    if item is None or (isinstance(item, float) and math.isnan(item)):
        return ""
    if isinstance(item, frozenset):
        return "{" + ", ".join(sorted(map(str, item))) + "}"
    if isinstance(item, tuple):
        return "(" + ", ".join(map(str, item)) + ")"
    return str(item)


def _caption(position: int, total: int, row: dict[str, Any], score_name: str, unit: str = "") -> str:
    """``"step 1/16: accept (a, b), I = 0.072 nats — joins two trees"``."""
    text = f"step {position}/{total}: {row['action']}"
    item = _item_text(row.get("item"))
    if item:
        text += f" {item}"
    score = row.get("score")
    if score is not None and not (isinstance(score, float) and math.isnan(score)):
        value = float(score)
        text += f", {score_name} = " + (f"{value:.1f}" if abs(value) >= 100 else f"{value:.3g}")
        if unit:
            text += f" {unit}"
    if row.get("reason"):
        text += f" \N{EM DASH} {row['reason']}"
    return text


def _wrap(text: str, width: int = 90) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


# ---------------------------------------------------------------------------------------------
# replays: model -> (steps to animate, structure after each, final structure, drawing kind)


@dataclass
class Replay:
    """What a replay gives :func:`animate`: the steps, the structure after each, the final one."""

    rows: list[dict[str, Any]]
    structures: list[Any]
    final: Any
    kind: str  # "graph", "hyperforest", "interactions"
    score_name: str
    unit: str = ""
    cycles: list[tuple[Hashable, ...]] = field(default_factory=list)
    title: str = ""


def _rows(frame) -> list[dict[str, Any]]:
    names = [str(c) for c in frame.columns]
    columns = [frame[c].tolist() for c in frame.columns]
    return [dict(zip(names, cells)) for cells in zip(*columns)]


def _class_steps(model, trace, class_label):
    """The rows of one class's search (a ``class`` column), and the index of that class."""
    classes = list(model.classes_)
    if class_label is None:
        class_label = classes[0]
    if class_label not in classes:
        raise ValueError(f"`class_label` must be one of the classes {classes}, got {class_label!r}.")
    return trace[trace["class"] == class_label], classes.index(class_label), class_label


def _tree_replay(model, class_label):
    """TAN, FAN, KDB, ChowLiu (one class), ChowLiuTree: edges added one by one to the class arcs."""
    trace = model.trace_
    title = ""
    if isinstance(model, ChowLiu) and getattr(model, "representation_", "free") == "free":
        trace, index, label = _class_steps(model, trace, class_label)
        final = model.structures_[index]
        title = f"class {label}"
    else:
        final = model.structure_
    if isinstance(model, KDB):
        score_name = "I(X; Y | C)"
    elif isinstance(model, FAN):
        score_name = "I - T_R"
    else:
        score_name = "I"
    structure = nx.DiGraph()
    structure.add_nodes_from(final.nodes(data=True))
    structure.graph.update(final.graph)
    structure.add_edges_from((u, v, d) for u, v, d in final.edges(data=True) if d.get("kind") == "class")
    has_class = any(r == "class" for _, r in final.nodes(data="role"))
    rows, structures, cycles = [], [], []
    for row in _rows(trace):
        if row["action"] == "accept" and isinstance(row["item"], tuple) and len(row["item"]) == 2:
            u, v = row["item"]
            if final.has_edge(v, u):
                u, v = v, u
            if final.has_edge(u, v):  # SelectiveKDB accepts arcs it then leaves out with their attributes
                structure = structure.copy()
                data = dict(final.edges[u, v])
                data.setdefault("weight", row["score"])
                if has_class:
                    data.setdefault("kind", "augmenting")
                structure.add_edge(u, v, **data)
        rows.append(row)
        structures.append(structure)
        cycle = row.get("cycle")
        cycles.append(tuple(cycle) if isinstance(cycle, (tuple, list)) else ())
    return Replay(rows, structures, final, "graph", score_name, "nats", cycles, title)


def _hyperforest_replay(model, class_label):
    """Hyperforest models: the maximal hyperedges after each step (the winning run of the incremental search)."""
    trace = model.trace_
    title = ""
    if getattr(model, "representation_", None) == "free":  # one search per class (also as "Cf")
        trace, index, label = _class_steps(model, trace, class_label)
        final = model.structures_[index]
        title = f"class {label}"
    else:
        final = model.structure_
    nodes = list(final.nodes)
    attributes = final.node_attributes
    incremental = "run" in trace.columns and (trace["action"] == "best").any()
    if incremental:
        best = trace.loc[trace["action"] == "best", "run"].iloc[0]
        trace = trace[trace["run"] == best]
    maximal: list[frozenset] = []
    rows, structures = [], []
    current = Hyperforest([], nodes, node_attributes=attributes)
    for row in _rows(trace):
        item = row["item"]
        if isinstance(item, frozenset) and (
            row["action"] in ("add", "attach", "new tree") if incremental else row["action"] == "accept"
        ):
            maximal = [h for h in maximal if not item >= h] + [item]
            current = Hyperforest(maximal, nodes, node_attributes=attributes)
        rows.append(row)
        structures.append(current)
    return Replay(rows, structures, final, "hyperforest", "weight", "nats", title=title)


def _kikuchi_replay(model, class_label):
    """Kikuchi-Bayes: the regions added along the search path, each with the log posterior it reached."""
    trace = model.trace_
    trace = trace[trace["part"] == "search"]
    regions: list[tuple] = []
    rows, structures = [], []
    for row in _rows(trace):
        if row["action"] in ("start", "accept") and isinstance(row["item"], frozenset):
            regions = [*regions, tuple(sorted(row["item"], key=str))]
        rows.append(row)
        structures.append(regions)
    best = int(model.map_step_)
    final = [tuple(sorted(r, key=str)) for r in model.path_["region"].iloc[: best + 1]]
    return Replay(rows, structures, final, "interactions", "log posterior", title=f"MAP stage {best}")


def _without_latent(graph: nx.DiGraph, latent: Hashable) -> nx.DiGraph:
    """`graph` without `latent`, its children hung from its parent (with the latent's own arc kind)."""
    graph = graph.copy()
    parents = list(graph.predecessors(latent))
    for child in list(graph.successors(latent)):
        for parent in parents:
            graph.add_edge(parent, child, **graph.edges[parent, latent])
    graph.remove_node(latent)
    return graph


def _hnb_replay(model, class_label):
    """Hierarchical naive Bayes: latents added one by one (the steps over states left out)."""
    final = model.structure_
    trace = model.trace_[~model.trace_["action"].isin(["initial", "collapse", "stop"])]
    rows = _rows(trace)
    accepted = [row["latent"] for row in rows if row["action"] == "accept"]
    # The structure with the first k latents: the final one without the later ones, latest first.
    partial = [final]
    for latent in reversed(accepted):
        partial.insert(0, _without_latent(partial[0], latent))
    structures, count = [], 0
    for row in rows:
        if row["action"] == "accept":
            count += 1
        structures.append(partial[count])
    return Replay(rows, structures, final, "graph", "accuracy")


class _ArcStructures:
    """The structure after each step of a search, built from its arc set when a frame asks for it.

    A search over 37 variables has hundreds of steps (PC starts from the complete graph), and
    only the frames drawn need their graph.
    """

    def __init__(self, final: nx.DiGraph, arc_sets: list[frozenset]) -> None:
        self.final = final
        self.arc_sets = arc_sets

    def __len__(self) -> int:
        return len(self.arc_sets)

    def __getitem__(self, i: int) -> nx.DiGraph:
        graph = nx.DiGraph()
        graph.add_nodes_from(self.final.nodes(data=True))
        graph.graph.update(self.final.graph)
        for u, v in sorted(self.arc_sets[i], key=str):
            graph.add_edge(u, v, **(self.final.edges[u, v] if self.final.has_edge(u, v) else {}))
        return graph


def _network_search_replay(model, class_label):
    """BayesianNetwork: the arcs after each move of a score-based search (add, delete, reverse; a
    restart's restore), or PC's edges removed from the complete graph, then oriented."""
    trace = model.trace_
    pc = bool((trace["action"] == "remove").any()) or model.structure == "pc"
    final = model.cpdag_ if pc else model.structure_
    names = [n for n, role in final.nodes(data="role") if role != "latent"]
    arcs = {(u, v) for u in names for v in names if u != v} if pc else set()
    rows, arc_sets = [], []
    for row in _rows(trace):
        action, item = row["action"], row.get("item")
        item = tuple(item) if isinstance(item, (tuple, list)) else item
        if action in ("start", "restore") and isinstance(row.get("arcs"), (tuple, list)):
            arcs = {tuple(arc) for arc in row["arcs"]}
        elif action == "add":
            arcs.add(item)
        elif action in ("delete", "remove"):
            arcs.discard(item)
            if action == "remove":
                arcs.discard(item[::-1])
        elif action == "reverse":
            arcs.discard(item)
            arcs.add(item[::-1])
        elif action == "orient":
            arcs.discard(item[::-1])
        rows.append(row)
        arc_sets.append(frozenset(arcs))
    score_name = "p" if pc else "score change"
    return Replay(rows, _ArcStructures(final, arc_sets), final, "graph", score_name)  # type: ignore[arg-type]


#: One replay per kind of trace: the model classes it serves (the first match wins).
REPLAYS: dict[tuple[type, ...], Callable[[Any, Any], Replay]] = {
    (TAN, FAN, KDB, ChowLiu, ChowLiuTree): _tree_replay,
    (HyperforestClassifier, HyperforestDensity): _hyperforest_replay,
    (KikuchiBayes,): _kikuchi_replay,
    (HierarchicalNaiveBayes,): _hnb_replay,
    (BayesianNetwork,): _network_search_replay,
}


def _supported() -> str:
    return ", ".join(cls.__name__ for classes in REPLAYS for cls in classes)


def _replay(model: Any, class_label: Any) -> Replay:
    if not isinstance(model, BaseModel):
        raise TypeError(f"Expected a fitted model ({_supported()}), got {type(model).__name__}.")
    model._check_fitted()
    for classes, replay in REPLAYS.items():
        if isinstance(model, classes):
            if getattr(model, "trace_", None) is None:
                raise ValueError(
                    f"{type(model).__name__} has no trace_: fit it with trace=True "
                    f"(e.g. {type(model).__name__}(trace=True).fit(X, y)) to animate its search."
                )
            return replay(model, class_label)
    raise ValueError(f"animate supports {_supported()}; got {type(model).__name__}.")


# ---------------------------------------------------------------------------------------------
# frames


def _choose(rows: list[dict[str, Any]], max_frames: int) -> list[int]:
    """Indices of the steps drawn: all of them if they fit in ``max_frames - 1`` frames (one is the final).

    Otherwise rejected steps (:data:`_REJECTED`) are left out first, evenly spread; if the other
    steps alone are too many, they are subsampled evenly too (the last one kept).
    """
    budget = max_frames - 1
    if len(rows) <= budget:
        return list(range(len(rows)))
    kept = [i for i, row in enumerate(rows) if row["action"] not in _REJECTED]
    rejected = [i for i, row in enumerate(rows) if row["action"] in _REJECTED]
    if len(kept) >= budget:
        picks = np.unique(np.linspace(0, len(kept) - 1, budget).round().astype(int))
        return [kept[i] for i in picks]
    room = budget - len(kept)
    chosen = np.unique(np.linspace(0, len(rejected) - 1, room).round().astype(int)) if room else ()
    return sorted(kept + [rejected[i] for i in chosen])


def _frames(replay: Replay, max_frames: int) -> list[Frame]:
    total = len(replay.rows)
    frames = []
    for i in _choose(replay.rows, max_frames):
        row = replay.rows[i]
        item = row.get("item")
        if isinstance(item, (tuple, frozenset)):
            nodes = tuple(item)
        elif item is None or (isinstance(item, float) and math.isnan(item)):
            nodes = ()
        else:
            nodes = (item,)
        if replay.kind == "interactions":
            nodes = tuple(n for n in nodes if n != getattr(replay.final, "class_name", None))
        frames.append(
            Frame(
                structure=replay.structures[i],
                row=row,
                caption=_caption(i + 1, total, row, replay.score_name, replay.unit),
                accepted=row["action"] not in _REJECTED,
                nodes=nodes,
                cycle=replay.cycles[i] if replay.cycles else (),
            )
        )
    frames.append(Frame(structure=replay.final, row=None, caption=f"final structure ({total} steps)"))
    return frames


def _positions(replay: Replay, model: Any, layout: Any) -> dict[Hashable, tuple[float, float]]:
    """The layout of every frame: computed once, from the final structure."""
    if isinstance(layout, dict):
        return {n: (float(x), float(y)) for n, (x, y) in layout.items()}
    if replay.kind == "hyperforest":
        return network_layout(replay.final.primal_graph(), layout or "kamada_kawai")
    if replay.kind == "interactions":
        attributes = [n for n in model.feature_names_in_] if hasattr(model, "feature_names_in_") else None
        graph = nx.Graph()
        graph.add_nodes_from(attributes or [])
        for region in replay.final:
            members = [n for n in region if n != model.class_name_]
            graph.add_nodes_from(members)
            graph.add_edges_from((u, v) for i, u in enumerate(members) for v in members[i + 1 :])
        return network_layout(graph, layout or "kamada_kawai")
    return network_layout(replay.final, layout)


class _Animator:
    """Draws frame k of a replay on one axes (the same limits every frame)."""

    def __init__(self, model, replay, frames, pos, ax, options):
        self.model, self.replay, self.frames, self.pos, self.ax = model, replay, frames, pos, ax
        self.options = options
        self.limits = None

    def _draw_structure(self, structure):
        ax, pos = self.ax, self.pos
        if self.replay.kind == "hyperforest":
            draw_hyperforest(structure, ax=ax, pos={n: pos[n] for n in structure.nodes})
        elif self.replay.kind == "interactions":
            class_name = self.model.class_name_
            attributes = [n for n in pos]
            draw_interactions(
                [(*r, class_name) if class_name not in r else r for r in structure] or [(class_name,)],
                pos,
                class_name=class_name,
                attributes=attributes,
                ax=ax,
                legend=self.options["legend"],
            )
        else:
            draw_graph(structure, ax, layout=pos, legend=self.options["legend"], **self.options["draw"])

    def _highlight(self, frame):
        ax, pos = self.ax, self.pos
        nodes = [n for n in frame.nodes if n in pos]
        if not nodes:
            return
        color = ACCEPT_COLOR if frame.accepted else REJECT_COLOR
        style = "-" if frame.accepted else "--"
        if len(frame.cycle) > 1:
            path = np.array([pos[n] for n in frame.cycle if n in pos])
            ax.plot(path[:, 0], path[:, 1], color=CYCLE_COLOR, linewidth=6, alpha=0.6, zorder=0.5, gid="cycle")
        xy = np.array([pos[n] for n in nodes])
        if len(nodes) == 2:
            ax.plot(xy[:, 0], xy[:, 1], color=color, linestyle=style, linewidth=3.5, alpha=0.85, zorder=6, gid="step")
        elif len(nodes) > 2:
            closed = np.vstack([xy, xy[:1]])
            ax.plot(closed[:, 0], closed[:, 1], color=color, linestyle=style, linewidth=2.5, zorder=6, gid="step")
        drawn = [c.get_sizes() for c in ax.collections if c.get_gid() == "nodes" and len(c.get_sizes())]
        ring = 1.5 * float(drawn[0].max()) if drawn else 600.0  # just around the drawn nodes
        ax.scatter(
            xy[:, 0], xy[:, 1], s=ring, facecolors="none", edgecolors=color, linewidths=2.5, zorder=7, gid="step_nodes"
        )

    def draw(self, k: int) -> list[Any]:
        ax = self.ax
        frame = self.frames[k]
        ax.clear()
        self._draw_structure(frame.structure)
        if frame.row is not None:
            self._highlight(frame)
        if self.limits is None:
            self.limits = (ax.get_xlim(), ax.get_ylim())
        ax.set_xlim(*self.limits[0])
        ax.set_ylim(*self.limits[1])
        ax.set_axis_off()
        title = f"{self.options['title']}\n" if self.options["title"] else ""
        size = self.options["caption_size"]
        width = ax.get_position().width * ax.figure.get_figwidth() * 72  # type: ignore[union-attr]
        caption = _wrap(frame.caption, max(int(width / (0.55 * size)), 20))
        ax.set_title(title + caption, fontsize=size, loc="left")
        return []


def _check_positive_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _animator(model, *, class_label, layout, max_frames, ax, figsize, title, legend, caption_size, draw_options):
    max_frames = _check_positive_int(max_frames, "max_frames", 2)
    if isinstance(model, QueryTrace):
        return message_animator(
            model, layout=layout, max_frames=max_frames, ax=ax, figsize=figsize, title=title, caption_size=caption_size
        )
    replay = _replay(model, class_label)
    frames = _frames(replay, max_frames)
    pos = _positions(replay, model, layout)
    if ax is None:
        import matplotlib.pyplot as plt

        figure, ax = plt.subplots(figsize=figsize)
        figure.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.85)
    if title is None:
        title = type(model).__name__ + (f", {replay.title}" if replay.title else "")
    options = {"title": title, "legend": legend, "caption_size": caption_size, "draw": dict(draw_options)}
    animator = _Animator(model, replay, frames, pos, ax, options)
    animator.draw(len(frames) - 1)  # the final frame first: it fixes the limits of every frame
    return animator


def animate(
    model: BaseModel | QueryTrace,
    *,
    interval: int = 800,
    layout: str | dict[Any, Any] | None = None,
    max_frames: int = 200,
    class_label: Any = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (7.0, 5.0),
    title: str | None = None,
    legend: bool = True,
    caption_size: float = 9.0,
    repeat_delay: int = 2000,
    **draw_options: Any,
) -> FuncAnimation:
    """Animate a structure search: one frame per step of a model's learning trace, then the final structure.

    The model must have been fitted with ``trace=True``. Frame ``k`` draws the structure built by
    the accepted steps up to step ``k`` with the model's usual drawing (the layout computed once,
    from the final structure, so every node keeps its place), the step's item highlighted (an
    accepted edge or region in bold green; a rejected one red and dashed, with, for Kruskal, the
    path it would close into a cycle in orange), and a caption naming the step and its score
    (``"step 5/16: reject (maint, safety), I = 0.006396 — closes a cycle of 3 edges"``). The last
    frame shows the final structure.

    ==========================================  ==================================================
    model                                       frames
    ==========================================  ==================================================
    ``TAN``, ``FAN``, ``KDB``, ``ChowLiuTree``  the augmenting arcs (or tree edges) added to the
                                                class arcs, one step each (rejected and dropped
                                                pairs, roots, KDB's order included)
    ``ChowLiu``                                 the same, for the search of one class
                                                (`class_label`); TAN's search when
                                                it kept one tree for every class
    ``HyperforestClassifier``,                  the hyperedges added; for the incremental search,
    ``HyperforestDensity``                      the steps of the winning run; for
                                                ``representation="free"``, one class's search
    ``KikuchiBayes``                            the regions added along the search path, with the
                                                log posterior each reached; the final frame is the
                                                MAP stage
    ``HierarchicalNaiveBayes``                  the latents added (the steps over the states of a
                                                latent are left out)
    ``BayesianNetwork``                         each move of its search (an arc added, deleted or
                                                reversed, with its score change; a restart's
                                                random moves; the return to the best network);
                                                for ``structure="pc"``, the edges removed from the
                                                complete graph (with the p-value), then oriented
    a query asked with ``trace=True`` (a        message passing: one frame per message of
    ``QueryTrace``)                             ``trace.messages`` on the drawing of the junction
                                                tree (:func:`draw_junction_tree`), the factor
                                                graph of loopy BP (:func:`draw_factor_graph`) or
                                                the region graph of GBP (:func:`draw_region_graph`):
                                                an arrow along the message's edge and its table
                                                beside the drawing; the final frame shows the
                                                answer where it is read
    ==========================================  ==================================================

    Parameters
    ----------
    model : fitted model or QueryTrace
        One of the models above, fitted with ``trace=True``; or what
        ``model.query(variables, evidence, trace=True)`` returns.
    interval : int, default=800
        Milliseconds between frames.
    layout : str or dict, optional
        A method name of :func:`~graphmodels.plotting.network_layout` or a dict node ->
        ``(x, y)``, for the final structure; by default the drawing's own.
    max_frames : int, default=200
        The most frames (``>= 2``, the final one included). A query's trace longer than that
        (loopy BP runs many sweeps) shows evenly spread messages. A longer learning trace leaves
        out its rejected steps first (``"reject"``, ``"drop"``, HNB's ``"test"``), evenly spread; if the
        others are still too many they are subsampled evenly too. Every frame still shows the
        structure replayed up to its step. Chow-Liu on the 60 attributes of ``splice`` has
        1770 candidate edges.
    class_label : optional
        For a ``ChowLiu`` or hyperforest classifier with one structure per class
        (``representation_ == "free"``), which class's search to animate (default: the first
        class). Ignored by the others.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure of `figsize` is made if omitted.
    figsize : (float, float), default=(7.0, 5.0)
    title : str, optional
        Above the captions; default: the model's class name (and the class animated).
    legend : bool, default=True
    caption_size : float, default=9.0
        Font size of the captions, in points.
    repeat_delay : int, default=2000
        Milliseconds to wait on the final frame before the animation starts again.
    **draw_options
        Passed to :func:`~graphmodels.plotting.draw_graph` for the tree learners and HNB
        (``node_size``, ``font_size``, ``show_weights``, ...).

    Returns
    -------
    matplotlib.animation.FuncAnimation
        Save it with ``anim.save("search.gif", writer="pillow")`` (Pillow comes with
        matplotlib), show it in a notebook with ``IPython.display.HTML(anim.to_jshtml())``.
        It also has ``frames`` (the :class:`Frame` of each frame: ``structure``, the trace's
        ``row``, ``caption``) and ``structures`` (the structure drawn in each frame); for a
        query's trace, ``frames`` holds a ``MessageFrame`` per frame (the message's ``row`` of
        ``trace.messages``, None for the answer; ``caption``; ``table``, the text shown). Under
        Jupyter's inline backend the figure it makes is not left open in pyplot, so a cell
        shows the animation alone, not also a static copy of its last frame; other backends
        keep it there (``plt.show()`` plays the animation in a window).

    Raises
    ------
    ValueError
        For a model without ``trace_`` (fit it with ``trace=True``), a model whose search is not
        animated (the message lists those that are), an unknown `class_label`, a
        `max_frames` below 2, or a query's trace without messages.
    TypeError
        For anything that is not a model.
    NotFittedError
        For a model that is not fitted.

    See Also
    --------
    animation_widget : the same frames under a slider, in a notebook.
    draw_network : the drawing of the final structure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("lenses", return_X_y=True)
    >>> model = gm.TAN(trace=True).fit(X, y)
    >>> anim = animate(model, figsize=(4, 3))
    >>> len(anim.frames) == len(model.trace_) + 1
    True
    >>> anim.frames[0].caption
    'step 1/7: accept (age, prescription), I = 0.0635 nats — joins two trees'
    >>> anim.to_jshtml().startswith("\\n<link")
    True
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from matplotlib.animation import FuncAnimation

    interval = _check_positive_int(interval, "interval", 1)
    made_figure = ax is None
    animator = _animator(
        model,
        class_label=class_label,
        layout=layout,
        max_frames=max_frames,
        ax=ax,
        figsize=figsize,
        title=title,
        legend=legend,
        caption_size=caption_size,
        draw_options=draw_options,
    )
    if made_figure and _shows_open_figures_after_each_cell():
        import matplotlib.pyplot as plt

        # The notebook's inline backend displays every open pyplot figure when a cell ends: a
        # static copy of the last frame under `HTML(anim.to_jshtml())`. The animation keeps and
        # renders its figure without pyplot, so pyplot lets go of it (before the animation
        # listens for the figure's close event).
        plt.close(animator.ax.figure)  # type: ignore[arg-type]  # a Figure: the one _animator made
    anim = FuncAnimation(
        animator.ax.figure,
        animator.draw,
        frames=len(animator.frames),
        init_func=lambda: [],
        interval=interval,
        repeat_delay=repeat_delay,
        blit=False,
        cache_frame_data=False,
    )
    anim.frames = animator.frames  # type: ignore[attr-defined]  # documented extras on the animation
    if not isinstance(model, QueryTrace):
        anim.structures = [frame.structure for frame in animator.frames]  # type: ignore[attr-defined]
    return anim


def _shows_open_figures_after_each_cell() -> bool:
    """Whether pyplot's backend is the notebook's inline one (``%matplotlib inline``, Jupyter's default).

    It draws every figure left open in pyplot as a static image when a cell ends; interactive
    backends (a window, ``ipympl``) instead play an animation in its figure, so they keep it.
    """
    import matplotlib

    return "backend_inline" in matplotlib.get_backend()


def animation_widget(model: BaseModel, **options: Any) -> Any:
    """The frames of :func:`animate` under an ipywidgets slider, for a notebook.

    Parameters
    ----------
    model : fitted model
        As for :func:`animate`.
    **options
        Passed to :func:`animate` (``max_frames``, ``class_label``, ``figsize``, ...;
        ``interval`` is the slider's play speed).

    Returns
    -------
    ipywidgets.VBox
        A ``Play`` button and an ``IntSlider`` over the frames, above an ``Output`` showing the
        frame chosen; ``frames`` and ``figure`` as attributes.

    Raises
    ------
    ImportError
        When ipywidgets is not installed (``pip install ipywidgets``).
    """
    try:
        import ipywidgets as widgets
    except ImportError:
        raise ImportError("animation_widget needs ipywidgets: pip install ipywidgets") from None
    import matplotlib.pyplot as plt
    from IPython.display import display

    interval = _check_positive_int(options.pop("interval", 800), "interval", 1)
    settings = {
        "class_label": None,
        "layout": None,
        "max_frames": 200,
        "ax": None,
        "figsize": (7.0, 5.0),
        "title": None,
        "legend": True,
        "caption_size": 9.0,
    }
    options.pop("repeat_delay", None)  # a slider does not repeat
    for name in settings:
        if name in options:
            settings[name] = options.pop(name)
    animator = _animator(model, **settings, draw_options=options)
    figure = animator.ax.figure
    draw = animator.draw
    plt.close(figure)  # type: ignore[arg-type]  # shown through the output widget only
    n_frames = len(animator.frames)
    slider = widgets.IntSlider(value=0, min=0, max=n_frames - 1, description="frame", continuous_update=False)
    play = widgets.Play(value=0, min=0, max=n_frames - 1, interval=interval)
    widgets.jslink((play, "value"), (slider, "value"))
    output = widgets.Output()

    def show(change: Any) -> None:
        draw(change["new"] if isinstance(change, dict) else change)
        with output:
            output.clear_output(wait=True)
            display(figure)

    slider.observe(show, names="value")
    show(0)
    box = widgets.VBox([widgets.HBox([play, slider]), output])
    box.frames = animator.frames
    box.figure = figure
    return box
