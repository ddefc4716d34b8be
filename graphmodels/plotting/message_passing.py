"""Message passing replayed: the frames of :func:`~graphmodels.plotting.animate` for a traced query.

A query asked with ``trace=True`` (:class:`~graphmodels.inference.QueryTrace`) holds every
message passed to reach its answer and the graph they travel on. Its animation draws that graph
once -- the junction tree (:func:`~graphmodels.plotting.draw_junction_tree`), the factor graph of
loopy belief propagation (:func:`~graphmodels.plotting.draw_factor_graph`) or the region graph
of generalized belief propagation (:func:`~graphmodels.plotting.draw_region_graph`) -- and
then, one frame per message, an arrow along the message's edge and its table beside the
drawing; a last frame shows the answer where it is read. An entry module of the plotting
package (like ``animation``, which calls it): it calls the drawing modules, which never import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.patches import FancyArrowPatch

from ..inference import QueryTrace
from ..inference.results import given_text
from .hyperforests import draw_factor_graph, draw_junction_tree
from .region_graph import draw_region_graph

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["MessageFrame", "message_frames", "MESSAGE_COLOR"]

#: The arrow of the message shown, and the ring around where the answer is read.
MESSAGE_COLOR = "#e76f51"
ANSWER_COLOR = "#2a9d3f"

#: Most lines of a table written beside the drawing (the largest values; the rest counted).
TABLE_LINES = 8


@dataclass
class MessageFrame:
    """One frame: a message (its row of ``trace.messages``), or the answer (``row`` None)."""

    row: dict[str, Any] | None
    caption: str
    table: str


def _set_text(nodes: Any) -> str:
    if isinstance(nodes, tuple) and len(nodes) == 2 and isinstance(nodes[0], frozenset):  # (scope, k): shared scopes
        return _set_text(nodes[0]) + f" #{nodes[1]}"
    if isinstance(nodes, frozenset):
        return "{" + ", ".join(sorted(map(str, nodes))) + "}"
    return str(nodes)


def _state_text(state: Any) -> str:
    return ", ".join(map(str, state)) if isinstance(state, tuple) else str(state)


def table_text(table: dict[Any, float] | Any, heading: str = "", lines: int = TABLE_LINES) -> str:
    """A table of values as monospace lines with bars: ``"LOW     0.076 █"``; the largest `lines`, in order.

    Examples
    --------
    >>> print(table_text({"no": 0.25, "yes": 0.75}, "rain"))
    rain
    no   0.250 ███
    yes  0.750 █████████
    """
    items = [(_state_text(k), float(v)) for k, v in dict(table).items()]
    shown = items
    if len(items) > lines:
        keep = sorted(np.argsort([-v for _, v in items], kind="stable")[: lines - 1].tolist())
        shown = [items[k] for k in keep]
    width = max((len(label) for label, _ in shown), default=1)
    width = min(width, 18)
    text = [heading] if heading else []
    text += [
        f"{label[:width]:<{width}}  {value:.3f} {'█' * int(round(12 * min(max(value, 0.0), 1.0)))}"
        for label, value in shown
    ]
    if len(items) > len(shown):
        rest = sum(v for _, v in items) - sum(v for _, v in shown)
        text.append(f"… {len(items) - len(shown)} more: {rest:.3f}")
    return "\n".join(text)


def _caption(trace: QueryTrace, row: dict[str, Any], position: int, total: int) -> str:
    source, target = _set_text(row["source"]), _set_text(row["target"])
    over = ", ".join(map(str, row["separator"])) or "nothing (an empty separator)"
    head = f"message {position}/{total}"
    if trace.method == "junction tree":
        return f"{head}: clique {source} → {target}, over {over}"
    iteration = f"iteration {row['iteration']}, "
    if trace.method == "loopy belief propagation":
        return f"{iteration}{head}: factor {source} → variable {target}"
    return f"{iteration}{head}: region {source} → {target}, over {over}"


def _answer_frame(trace: QueryTrace) -> MessageFrame:
    answer = trace.answer
    series = list(answer.values()) if isinstance(answer, dict) else [answer]
    condition = given_text(trace.evidence)
    names = ", ".join(str(s.name) for s in series)
    caption = f"the answer: P({names}{' | ' + condition if condition else ''}), read at " + ", ".join(
        _set_text(t) for t in dict.fromkeys(trace.targets)
    )
    table = "\n\n".join(table_text(dict(zip(s.index, s.to_numpy(float))), str(s.name)) for s in series[:3])
    return MessageFrame(None, caption, table)


def message_frames(trace: QueryTrace, max_frames: int = 200) -> list[MessageFrame]:
    """The frames of a traced query: one per message (evenly chosen if more than ``max_frames - 1``), then the answer."""
    rows: list[dict[str, Any]] = [{str(k): v for k, v in row.items()} for row in trace.messages.to_dict("records")]
    total = len(rows)
    chosen = range(total)
    if total > max_frames - 1:
        chosen = np.unique(np.linspace(0, total - 1, max_frames - 1).round().astype(int)).tolist()
    frames = []
    for k in chosen:
        row = rows[k]
        heading = f"message over {', '.join(map(str, row['separator'])) or '∅'}"
        frames.append(MessageFrame(row, _caption(trace, row, k + 1, total), table_text(row["table"], heading)))
    frames.append(_answer_frame(trace))
    return frames


def _positions(trace: QueryTrace, ax: Axes) -> dict[Any, np.ndarray]:
    """Where the drawing put each node of the trace's graph (read back from its collections)."""
    graph = trace.graph
    collections = {c.get_gid(): np.asarray(c.get_offsets()) for c in ax.collections}
    if trace.method == "junction tree":
        return dict(zip(graph.nodes, collections["cliques"]))
    if trace.method == "loopy belief propagation":
        variables = [n for n, kind in graph.nodes(data="kind") if kind == "variable"]
        factors = [n for n, kind in graph.nodes(data="kind") if kind == "factor"]
        return dict(zip(variables, collections["variables"])) | dict(zip(factors, collections["factors"]))
    return dict(zip(graph.nodes, collections["regions"]))


class MessageAnimator:
    """Draws the trace's graph once, then frame k's message on it (the arrow, the table, the caption)."""

    def __init__(self, trace: QueryTrace, frames: list[MessageFrame], ax: Axes, options: dict[str, Any]) -> None:
        self.trace, self.frames, self.ax, self.options = trace, frames, ax, options
        graph = trace.graph
        if trace.method == "junction tree":
            draw_junction_tree(graph, ax=ax, layout=options["layout"])
        elif trace.method == "loopy belief propagation":
            draw_factor_graph(graph, ax=ax, layout=options["layout"])
        else:
            draw_region_graph(graph, ax=ax, legend=False)
        self.pos = _positions(trace, ax)
        # The table beside the axes when the animation made the figure (room was left on the right),
        # else in the axes' top right corner.
        self.table_at = (1.02, 1.0, "left") if options["made_figure"] else (0.99, 0.99, "right")
        self.dynamic: list[Any] = []

    def freeze(self) -> None:
        """Render the graph once into an image behind the axes, so that a frame draws only its message.

        Drawing every clique's label again for each frame is most of an animation's time (ALARM's
        27 frames: 4x faster). For a figure the animation made, which holds the drawing alone; a
        frame saved at another dpi than the figure's shows the drawing resampled.
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        ax = self.ax
        figure: Any = ax.figure
        shown = figure.canvas
        canvas = FigureCanvasAgg(figure)  # an off-screen canvas: the figure's own may be a window's
        canvas.draw()
        image = np.asarray(canvas.buffer_rgba()).copy()
        figure.set_canvas(shown)
        for artist in [*ax.collections, *ax.patches, *ax.texts, *ax.lines]:
            artist.set_visible(False)
        ax.patch.set_visible(False)
        back = figure.add_axes((0.0, 0.0, 1.0, 1.0), zorder=-1, label="the drawing, rendered once")
        back.imshow(image, extent=(0.0, 1.0, 0.0, 1.0), aspect="auto", interpolation="nearest")
        back.set_axis_off()

    def draw(self, k: int) -> list[Any]:
        ax, frame = self.ax, self.frames[k]
        for artist in self.dynamic:
            artist.remove()
        self.dynamic = []
        size = self.options["caption_size"]
        if frame.row is not None:
            a, b = self.pos[frame.row["source"]], self.pos[frame.row["target"]]
            arrow = FancyArrowPatch(
                tuple(a),
                tuple(b),
                arrowstyle="-|>",
                mutation_scale=20,
                linewidth=3.5,
                color=MESSAGE_COLOR,
                shrinkA=14,
                shrinkB=14,
                zorder=6,
                gid="message",
                connectionstyle="arc3,rad=0.12",
            )
            ax.add_artist(arrow)
            ring = ax.scatter(
                [b[0]],
                [b[1]],
                s=900,
                facecolors="none",
                edgecolors=MESSAGE_COLOR,
                linewidths=2.5,
                zorder=6,
                gid="message-target",
            )
            self.dynamic += [arrow, ring]
        else:
            xy = np.array([self.pos[t] for t in dict.fromkeys(self.trace.targets)])
            ring = ax.scatter(
                xy[:, 0],
                xy[:, 1],
                s=1100,
                facecolors="none",
                edgecolors=ANSWER_COLOR,
                linewidths=3,
                zorder=6,
                gid="answer",
            )
            self.dynamic.append(ring)
        x, y, side = self.table_at
        text = ax.text(
            x,
            y,
            frame.table,
            transform=ax.transAxes,
            ha=side,
            va="top",
            family="monospace",
            fontsize=0.95 * size,
            zorder=7,
            gid="message-table",
            bbox={"boxstyle": "round,pad=0.4", "facecolor": "white", "edgecolor": "#8d8d8d", "linewidth": 0.8},
        )
        self.dynamic.append(text)
        title = f"{self.options['title']}\n" if self.options["title"] else ""
        ax.set_title(title + frame.caption, fontsize=size, loc="left")
        return self.dynamic


def message_animator(
    trace: QueryTrace,
    *,
    layout: Any,
    max_frames: int,
    ax: Axes | None,
    figsize: tuple[float, float],
    title: str | None,
    caption_size: float,
) -> MessageAnimator:
    """The animator of a traced query (checked by :func:`~graphmodels.plotting.animate`)."""
    if not len(trace.messages):
        raise ValueError("The trace holds no message (the answer needed none): there is nothing to animate.")
    frames = message_frames(trace, max_frames)
    made_figure = ax is None
    if ax is None:
        import matplotlib.pyplot as plt

        figure, ax = plt.subplots(figsize=figsize)
        figure.subplots_adjust(left=0.02, right=0.7, bottom=0.02, top=0.86)
    if title is None:
        answer = trace.answer
        names = ", ".join(str(s.name) for s in (answer.values() if isinstance(answer, dict) else [answer]))
        given = given_text(trace.evidence)
        title = f"{trace.method}: {len(trace.messages)} messages for P({names}{' | ' + given if given else ''})"
    options = {"layout": layout, "title": title, "caption_size": caption_size, "made_figure": made_figure}
    animator = MessageAnimator(trace, frames, ax, options)
    if made_figure:
        animator.freeze()
    animator.draw(len(frames) - 1)  # the answer first, as a still drawing
    return animator
