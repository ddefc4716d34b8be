"""Posteriors drawn: on the model's structure (:func:`draw_inference`) and as bars (:func:`draw_posterior`).

:func:`draw_inference` is pyAgrum's ``showInference`` without Graphviz: the structure of any
model with a distribution, laid out as :func:`~graphmodels.plotting.draw_network` lays it out
(the class on top, the layered forest below, the large-model layout flowed into rows shaped to
the page), each node a card with its name and the posterior of its states as horizontal bars.
Evidence is marked, and the change from the prior can colour the cards.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import matplotlib
import networkx as nx
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle

from ..inference import Distribution, Mixture
from ..inference.results import given_text
from ._common import (
    DASHED_KINDS,
    KIND_COLORS,
    LARGE_GRAPH,
    ROLE_COLORS,
    _bend,
    _kind,
    _role,
    as_graph,
    drawing_positions,
    format_labels,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap

__all__ = ["draw_inference", "draw_posterior", "CHANGES", "posterior_tables"]

#: Measures of the change from the prior that colour the cards of :func:`draw_inference`.
CHANGES = ("max-abs", "kl")

#: The bars of a posterior, an observed state's bar, and the cards of hard and soft evidence.
BAR_COLOR = "#2a6f97"
OBSERVED_COLOR = "#c1121f"
EVIDENCE_FILL = "#fde0e0"
SOFT_FILL = "#fff1db"
_SCALE_COLOR = "#e9ecef"
_EDGE = "#4d4d4d"

# A card's geometry, in ems of its font: line height, character width, padding, gap between
# the columns (state label | bar | percentage), bar length, percentage column.
_LINE, _CHAR, _PAD, _GAP, _BAR, _PERCENT = 1.35, 0.6, 0.45, 0.4, 6.0, 3.7
# Room around a card: the slot is this many cards wide and high (rows need room for arcs).
_SLOT_X, _SLOT_Y = 1.12, 1.55
# Largest new figure, inches; the font shrinks (to 4.5 points) before the figure passes it.
_MAX_FIGURE = (20.0, 15.0)


# ---------------------------------------------------------------------------------------------
# What is asked and drawn


def _roles(graph: nx.Graph, obj: Any, classes: Sequence[Hashable]) -> nx.Graph:
    """A copy of `graph` whose nodes without a ``role`` get one: the class (or labels), else attributes."""
    graph = graph.copy()
    latent = set(getattr(obj, "latent_names_", None) or [])
    for node, data in graph.nodes(data=True):
        data.setdefault("role", "class" if node in classes else "latent" if node in latent else "feature")
    return graph


def _question_source(obj: Any) -> tuple[Any, list[Hashable], Mapping[Hashable, Sequence[Any]], nx.Graph]:
    """What answers, its variables and states, and the graph drawn (the model's own structure when it has them all)."""
    if isinstance(obj, (Distribution, Mixture)):
        classes = [obj.label] if isinstance(obj, Mixture) and obj.label is not None else []
        return obj, list(obj.variables), obj.states, _roles(obj.graph, obj, classes)
    distribution = getattr(obj, "distribution", None)
    if not (callable(distribution) and callable(getattr(obj, "query", None))):
        raise TypeError(
            "draw_inference draws a model with a distribution (a fitted classifier or density, a "
            f"DiscreteBayesianNetwork, a DiscreteMarkovNetwork) or a Distribution; got {type(obj).__name__}."
        )
    answered = distribution()  # a NotFittedError for a model not fitted
    variables = list(answered.variables)
    labels = getattr(obj, "label_names_", None)
    classes = list(labels) if labels is not None else [getattr(obj, "class_name_", None)]
    graph = None
    if getattr(obj, "structure_", None) is not None:
        structure = as_graph(obj)
        if set(structure.nodes) == set(variables):
            graph = structure
    elif isinstance(getattr(obj, "graph", None), nx.Graph) and set(obj.graph.nodes) == set(variables):
        graph = obj.graph
    if graph is None:  # the model's structure leaves some out (the class of a hyperforest): its distribution's
        graph = answered.graph
    return obj, variables, answered.states, _roles(graph, obj, classes)


def _is_soft(value: Any, states: Sequence[Any]) -> bool:
    if isinstance(value, Mapping) or isinstance(value, (list, np.ndarray)):
        return True
    return isinstance(value, tuple) and not any(value == s for s in states if isinstance(s, tuple))


def _evidence_marks(evidence: Any, variables: Sequence[Hashable], states) -> dict[Hashable, str]:
    """``{variable: "hard" or "soft"}`` for the variables `evidence` names (by name or by its text)."""
    if evidence is None:
        return {}
    if not isinstance(evidence, Mapping):
        raise TypeError(
            f"`evidence` must be a dict of variable -> state (or likelihoods), got {type(evidence).__name__}; "
            "draw_inference draws one evidence set."
        )
    by_text = {str(v): v for v in variables}
    marks = {}
    for key, value in evidence.items():
        name = key if key in states else by_text.get(str(key))
        if name is not None:
            marks[name] = "soft" if _is_soft(value, states[name]) else "hard"
    return marks


def _as_marginals(answer: Any, variables: Sequence[Hashable]) -> dict[Hashable, np.ndarray]:
    if not isinstance(answer, Mapping):
        answer = {variables[0]: answer}
    return {v: np.asarray(answer[v], dtype=np.float64) for v in variables}


def _change(posterior: np.ndarray, prior: np.ndarray, measure: str) -> float:
    if measure == "kl":
        kept = posterior > 0
        with np.errstate(divide="ignore"):
            return float(np.sum(posterior[kept] * (np.log(posterior[kept]) - np.log(prior[kept]))))
    return float(np.max(np.abs(posterior - prior)))


def _short(text: str, length: int) -> str:
    return text if len(text) <= length else text[: max(length - 1, 1)] + "…"


def _percent(p: float) -> str:
    return f"{100 * p:.1f}%" if p < 0.9995 else "100%"


# ---------------------------------------------------------------------------------------------
# Cards


class _Card:
    """What one node's card shows: its title, rows of (state label, probability, observed?), extra mass."""

    def __init__(self, title, rows, more, mark, change):
        self.title = title
        self.rows = rows  # [(label, probability, prior or None, observed)]
        self.more = more  # (label, probability) of the states left out, or None
        self.mark = mark  # None, "hard", "soft"
        self.change = change  # float or None

    @property
    def lines(self) -> int:
        return 1 + len(self.rows) + (self.more is not None)


def _cards(nodes, titles, states, posteriors, priors, marks, changes, max_states, max_label_length):
    cards = {}
    for node, title in zip(nodes, titles):
        p = posteriors[node]
        prior = priors.get(node)
        shown = list(range(len(p)))
        more = None
        if len(p) > max_states:  # the most probable, in their order; the rest summed on one line
            kept = sorted(np.argsort(-p, kind="stable")[: max_states - 1].tolist())
            left = [k for k in shown if k not in set(kept)]
            more = (f"+{len(left)} more", float(p[left].sum()))
            shown = kept
        observed = int(np.argmax(p)) if marks.get(node) == "hard" else None
        rows = [
            (
                _short(str(states[node][k]), max_label_length),
                float(p[k]),
                None if prior is None else float(prior[k]),
                k == observed,
            )
            for k in shown
        ]
        cards[node] = _Card(title, rows, more, marks.get(node), changes.get(node))
    return cards


def _card_width(cards) -> tuple[float, float]:
    """The card width and the width of its state-label column, in ems."""
    label = max((len(r[0]) for c in cards.values() for r in c.rows), default=1)
    label = max([label] + [len(c.more[0]) for c in cards.values() if c.more is not None])
    label_w = _CHAR * label
    body = 2 * _PAD + label_w + 2 * _GAP + _BAR + _PERCENT
    title = max(0.66 * len(c.title) + (5.0 if c.change is not None else 0.0) for c in cards.values()) + 2 * _PAD
    return max(body, title), label_w


def _card_height(card) -> float:
    return 1.2 * _PAD + _LINE * card.lines


def _spread(xy: np.ndarray) -> float:
    """How much to stretch `xy` (slot units) so that no two cards (one slot each) overlap."""
    if len(xy) < 2:
        return 1.0
    dx = np.abs(xy[:, None, 0] - xy[None, :, 0]) * _SLOT_X
    dy = np.abs(xy[:, None, 1] - xy[None, :, 1]) * _SLOT_Y
    apart = np.maximum(dx, dy)
    np.fill_diagonal(apart, np.inf)
    return float(max(1.0, 1.05 / max(apart.min(), 1e-9)))


def _row_width(n: int, aspect: float, card: tuple[float, float]) -> int:
    """Cards per row so that `n` cards of `card` (width, height) ems in rows fill a page `aspect` wide."""
    columns = math.sqrt(max(n, 1) * aspect * (_SLOT_Y * card[1]) / (_SLOT_X * card[0]))
    return int(min(max(round(columns), 3), max(n, 1)))


# ---------------------------------------------------------------------------------------------
# The drawing


def _check_options(max_states, max_label_length, change, font_size):
    for value, name, low in ((max_states, "max_states", 2), (max_label_length, "max_label_length", 3)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"`{name}` must be an integer >= {low}, got {value!r}.")
    if change not in CHANGES:
        raise ValueError(f"`change` must be one of {', '.join(map(repr, CHANGES))}, got {change!r}.")
    if font_size is not None and (not isinstance(font_size, numbers.Real) or not font_size > 0):
        raise ValueError(f"`font_size` must be a number > 0, got {font_size!r}.")


def draw_inference(
    model_or_network: Any,
    evidence: Mapping[Hashable, Any] | None = None,
    *,
    ax: Axes | None = None,
    compare_to_prior: bool = False,
    change: str = "max-abs",
    method: str = "auto",
    layout: str | dict[Any, Any] | None = None,
    max_row_width: int | None = None,
    max_states: int = 6,
    max_label_length: int = 12,
    font_size: float | None = None,
    cmap: str | Colormap = "Reds",
    title: str | None = None,
    legend: bool = True,
) -> Axes:
    """Draw a model's structure with each node's posterior as bars: pyAgrum's ``showInference``, in matplotlib.

    Every node is a card: its name on a band coloured by its role (the class orange, attributes
    blue, latents purple, as in :func:`~graphmodels.plotting.draw_network`), then one line per
    state with the posterior ``P(state | evidence)`` as a horizontal bar and a percentage. A
    variable given as hard evidence has a red card and its observed state's bar red; one given
    soft (virtual) evidence an orange, dashed card. With `compare_to_prior`, each bar has a
    black tick at the prior ``P(state)`` and the other cards are coloured by how far their
    posterior moved from the prior (`change`), the darkest the most.

    The posteriors are the model's answers (``model.query(all variables, evidence)``, exact by
    default), so every model with a distribution is drawn: the classifiers (the class a node
    like the others), the densities, the mixtures (ChowLiu with a forest per class, AODE),
    ``DiscreteBayesianNetwork`` (``load_network("alarm")``) and ``DiscreteMarkovNetwork``. The
    layout is :func:`~graphmodels.plotting.draw_network`'s, of the model's ``structure_`` (of
    its distribution's graph when the structure leaves some variables out, as a hyperforest
    classifier's leaves out the class); rows of cards are wrapped to the page's shape.

    Parameters
    ----------
    model_or_network : fitted model, DiscreteBayesianNetwork, DiscreteMarkovNetwork, Distribution or Mixture
    evidence : dict, optional
        One evidence set, as :meth:`~graphmodels.models.queries.Queryable.query` takes it:
        ``{variable: state}``, soft evidence ``{variable: {state: likelihood}}``.
    ax : matplotlib.axes.Axes, optional
        Where to draw (the cards' font is fitted to it); a new figure sized to the cards is
        made if omitted.
    compare_to_prior : bool, default=False
        Mark each state's prior on its bar and colour the cards by the change from the prior.
    change : {"max-abs", "kl"}, default="max-abs"
        The change that colours the cards: ``max_x |P(x | e) - P(x)|``, or the Kullback-Leibler
        divergence ``KL(P(. | e) || P(.))`` in nats; written in each card's band.
    method : str, default="auto"
        The inference method (see :meth:`~graphmodels.inference.Distribution.query`).
    layout : str or dict, optional
        As for :func:`~graphmodels.plotting.draw_network`: a layout name or node -> ``(x, y)``;
        cards are spread apart as much as needed not to overlap.
    max_row_width : int, optional
        Cards per row of the layered layout (default: to fill a page of the figure's shape).
    max_states : int, default=6
        A variable with more states shows its ``max_states - 1`` most probable (in state order)
        and one line with the others' total.
    max_label_length : int, default=12
        State labels are cut to this many characters (names to twice as many).
    font_size : float, optional
        Points; by default 7.5 in a new figure (less if the figure would pass 20 x 15 inches),
        fitted to `ax` when given.
    cmap : str or Colormap, default="Reds"
        The colours of the change from the prior (its lighter two thirds are used).
    title : str, optional
        Default: ``"<Model>: posteriors given <evidence>"``.
    legend : bool, default=True

    Returns
    -------
    matplotlib.axes.Axes
        `ax`, or the axes of the new figure (one Axes, as every drawing of
        :mod:`graphmodels.plotting` returns). Each card is a ``FancyBboxPatch`` with gid
        ``"card"``, ``"card:evidence"`` or ``"card:soft-evidence"``, in the order of the graph's
        nodes; each state's bar a ``Rectangle`` with gid ``"posterior"`` (its width the
        probability times the length of the grey ``"posterior-scale"`` bar behind it), in the
        order of the nodes and of their states shown (a last ``"posterior-rest"`` bar for the
        states left out); with `compare_to_prior` each bar's prior a ``Line2D`` with gid
        ``"prior"`` in the same order; the arcs ``FancyArrowPatch`` es with gid ``"edge"``.

    Raises
    ------
    TypeError
        For an object without a distribution, or evidence that is not one dict.
    ValueError
        For evidence the model does not know or of probability zero (from ``query``), a bad
        `max_states`, `max_label_length`, `change` or `font_size`.
    NotFittedError
        For a model that is not fitted.

    See Also
    --------
    draw_posterior : the posterior of a few variables as bars.
    draw_network : the structure alone.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> tan = gm.TAN().fit(X, y)
    >>> ax = draw_inference(tan, {"safety": "low"}, compare_to_prior=True)
    >>> [p.get_gid() for p in ax.patches if p.get_gid().startswith("card")][-1]
    'card:evidence'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _check_options(max_states, max_label_length, change, font_size)
    if not isinstance(compare_to_prior, (bool, np.bool_)):
        raise TypeError(f"`compare_to_prior` must be True or False, got {compare_to_prior!r}.")
    asker, variables, states, graph = _question_source(model_or_network)
    marks = _evidence_marks(evidence, variables, states)
    posteriors = _as_marginals(asker.query(variables, evidence, method=method), variables)
    priors = _as_marginals(asker.query(variables, method=method), variables) if compare_to_prior else {}
    changes = {v: _change(posteriors[v], priors[v], change) for v in priors if v not in marks}
    nodes = list(graph.nodes)
    titles = format_labels(nodes, 2 * max_label_length, line_length=10**6)
    cards = _cards(nodes, titles, states, posteriors, priors, marks, changes, max_states, max_label_length)
    card_w, label_w = _card_width(cards)
    card_h = max(_card_height(c) for c in cards.values())

    # Positions: draw_network's layout, its layered rows as many cards wide as fill the page.
    if ax is not None:
        box = ax.get_position()
        fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
        aspect = box.width * fig_w / (box.height * fig_h)
    else:
        aspect = 1.45
    directed = graph.is_directed()
    width = max_row_width
    if width is None and directed and (layout is None or layout == "layered"):
        width = _row_width(len(nodes), aspect, (card_w, card_h))
    if graph.number_of_nodes() < LARGE_GRAPH and layout is None and directed:
        layout = "layered"
    pos = drawing_positions(graph, layout, max_row_width=width, ax=ax, page_aspect=aspect)
    xy = np.array([pos[n] for n in nodes], dtype=float).reshape(-1, 2)
    xy = xy * _spread(xy)

    # Points per unit of the layout and the font: the font fixes the cards, the cards the spacing.
    span = np.ptp(xy, axis=0) if len(xy) else np.zeros(2)
    handles = _legend_handles(marks, compare_to_prior, changes, change, cmap) if legend else []
    title_ems = 1.25 * 1.45 if title != "" else 0.0

    def top_room(f, width_pt):  # ems above the cards: the title and the legend's rows
        rows = _legend_columns(handles, width_pt, f)[1] if handles else 0
        return title_ems + 0.9 * 1.45 * rows + 0.3

    def needed(f, width_pt=None):  # points per unit of the layout and the axes size (points) at font size f
        per_x, per_y = _SLOT_X * card_w * f, _SLOT_Y * card_h * f
        w_pt = span[0] * per_x + 1.15 * card_w * f
        top = top_room(f, w_pt if width_pt is None else width_pt)
        return per_x, per_y, w_pt, span[1] * per_y + (1.1 * card_h + top) * f

    if ax is None:
        import matplotlib.pyplot as plt

        font = 7.5 if font_size is None else float(font_size)
        _, _, w_pt, h_pt = needed(font)
        if font_size is None:
            fit = min(_MAX_FIGURE[0] * 72 / w_pt, _MAX_FIGURE[1] * 72 / h_pt, 1.0)
            font = max(font * fit, 4.5)
        per_x, per_y, w_pt, h_pt = needed(font)
        figure = plt.figure(figsize=(w_pt / 72, h_pt / 72))
        ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
        ax_w, ax_h = w_pt, h_pt
    else:
        box = ax.get_position()
        fig_w, fig_h = ax.figure.get_size_inches()  # type: ignore[union-attr]
        ax_w, ax_h = box.width * fig_w * 72, box.height * fig_h * 72
        if font_size is None:
            _, _, w1, h1 = needed(1.0)
            font = float(np.clip(min(ax_w / w1, ax_h / h1), 3.0, 10.0))
        else:
            font = float(font_size)
        per_x, per_y, w_pt, h_pt = needed(font, ax_w)
        # The axes may be larger than needed: spread the cards over it.
        room = top_room(font, ax_w)
        if span[0] > 0:
            per_x *= max(1.0, (ax_w - 1.15 * card_w * font) / (span[0] * per_x))
        if span[1] > 0:
            per_y *= max(1.0, (ax_h - (1.1 * card_h + room) * font) / (span[1] * per_y))

    ax.set_axis_off()
    x0 = xy[:, 0].min() if len(xy) else 0.0
    y0 = xy[:, 1].min() if len(xy) else 0.0
    centre_x = (x0 + (xy[:, 0].max() if len(xy) else 0.0)) / 2
    low_y = y0 - 0.55 * card_h * font / per_y
    ax.set_xlim(centre_x - ax_w / 2 / per_x, centre_x + ax_w / 2 / per_x)
    ax.set_ylim(low_y, low_y + ax_h / per_y)
    if title is None:
        given = given_text(evidence)
        name = getattr(model_or_network, "name", None) if not hasattr(model_or_network, "fit") else None
        if not isinstance(name, str) or name in ("", "unknown"):  # a BIF file's network is often "unknown"
            name = type(model_or_network).__name__
        title = f"{name}: posteriors given {given}" if given else f"{name}: prior marginals (no evidence)"
    if title:
        ax.text(0.01, 0.995, title, transform=ax.transAxes, ha="left", va="top", fontsize=font * 1.25, gid="title")
    if not nodes:
        return ax

    em_x, em_y = font / per_x, font / per_y  # one em in data units
    _draw_cards(ax, nodes, xy, cards, graph, card_w, label_w, em_x, em_y, font, changes, change, cmap)
    halves = {n: (card_w * font / 2, _card_height(cards[n]) * font / 2) for n in nodes}
    _draw_arcs(ax, graph, nodes, xy, halves, per_x, per_y, card_h * font)
    if handles:
        columns, _ = _legend_columns(handles, ax_w, font)
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(0.0, 1.0 - title_ems * font / ax_h),
            ncol=columns,
            fontsize=0.9 * font,
            frameon=False,
            handlelength=1.6,
            borderaxespad=0.2,
            columnspacing=1.4,
        )
    return ax


def _change_colors(changes, cmap):
    cmap = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    top = max(changes.values(), default=0.0)
    return {v: cmap(0.03 + 0.42 * (c / top if top > 0 else 0.0)) for v, c in changes.items()}, top


def _draw_cards(ax, nodes, xy, cards, graph, card_w, label_w, em_x, em_y, font, changes, measure, cmap):
    colors, _ = _change_colors(changes, cmap) if changes else ({}, 0.0)
    for node, (x, y) in zip(nodes, xy):
        card = cards[node]
        height = _card_height(card)
        left, top = x - card_w * em_x / 2, y + height * em_y / 2
        fill = EVIDENCE_FILL if card.mark == "hard" else SOFT_FILL if card.mark == "soft" else colors.get(node, "white")
        edge = OBSERVED_COLOR if card.mark == "hard" else "#e07a1f" if card.mark == "soft" else _EDGE
        patch = FancyBboxPatch(
            (left, top - height * em_y),
            card_w * em_x,
            height * em_y,
            boxstyle=f"round,pad=0,rounding_size={0.35 * min(em_x, em_y)}",
            facecolor=fill,
            edgecolor=edge,
            linewidth=1.6 if card.mark else 0.8,
            linestyle="--" if card.mark == "soft" else "-",
            zorder=2,
            gid={"hard": "card:evidence", "soft": "card:soft-evidence"}.get(card.mark or "", "card"),
        )
        ax.add_artist(patch)
        band_h = (0.6 * _PAD + _LINE) * em_y
        role = _role(graph.nodes[node])
        band = Rectangle(
            (left, top - band_h), card_w * em_x, band_h, facecolor=ROLE_COLORS[role], linewidth=0, zorder=2.1
        )
        band.set_gid("title-band")
        ax.add_artist(band)
        band.set_clip_path(patch)
        ax.text(
            left + _PAD * em_x,
            top - band_h / 2,
            card.title,
            ha="left",
            va="center",
            fontsize=font,
            fontweight="bold",
            zorder=3,
            gid="card-title",
        )
        if card.change is not None:
            ax.text(
                left + (card_w - _PAD) * em_x,
                top - band_h / 2,
                f"{'Δ' if measure == 'max-abs' else 'KL'} {card.change:.2f}",
                ha="right",
                va="center",
                fontsize=0.85 * font,
                zorder=3,
                gid="change",
            )
        bar_x = left + (_PAD + label_w + _GAP) * em_x
        lines = [(label, p, prior, observed, "posterior") for label, p, prior, observed in card.rows]
        if card.more is not None:
            lines.append((card.more[0], card.more[1], None, False, "posterior-rest"))
        for i, (label, p, prior, observed, gid) in enumerate(lines):
            centre = top - (0.6 * _PAD + _LINE * (1.5 + i)) * em_y
            thickness = 0.62 * _LINE * em_y
            ax.add_artist(
                Rectangle(
                    (bar_x, centre - thickness / 2),
                    _BAR * em_x,
                    thickness,
                    facecolor=_SCALE_COLOR,
                    linewidth=0,
                    zorder=2.2,
                    gid="posterior-scale",
                )
            )
            color = OBSERVED_COLOR if observed else ("#8d8d8d" if gid == "posterior-rest" else BAR_COLOR)
            ax.add_artist(
                Rectangle(
                    (bar_x, centre - thickness / 2),
                    p * _BAR * em_x,
                    thickness,
                    facecolor=color,
                    linewidth=0,
                    zorder=2.3,
                    gid=gid,
                )
            )
            if prior is not None:
                ax.add_artist(
                    Line2D(
                        [bar_x + prior * _BAR * em_x] * 2,
                        [centre - 0.42 * _LINE * em_y, centre + 0.42 * _LINE * em_y],
                        color="black",
                        linewidth=1.1,
                        zorder=2.4,
                        gid="prior",
                    )
                )
            ax.text(
                bar_x - _GAP * em_x, centre, label, ha="right", va="center", fontsize=0.9 * font, zorder=3, gid="state"
            )
            ax.text(
                bar_x + (_BAR + _GAP) * em_x,
                centre,
                _percent(p),
                ha="left",
                va="center",
                fontsize=0.9 * font,
                fontweight="bold" if observed else "normal",
                zorder=3,
                gid="probability",
            )


def _border(direction: np.ndarray, half: tuple[float, float]) -> float:
    """Distance from a card's centre to its border along `direction` (points), the card `half` (w, h) wide."""
    dx, dy = abs(float(direction[0])), abs(float(direction[1]))
    length = math.hypot(dx, dy)
    if length == 0:
        return 0.0
    reach = min(half[0] / dx if dx > 0 else math.inf, half[1] / dy if dy > 0 else math.inf)
    return reach * length


def _draw_arcs(ax, graph, nodes, xy, halves, per_x, per_y, card_h_pt):
    """The arcs, each ending at its cards' borders (computed here: matplotlib's clipping to a patch bisects)."""
    index = {n: i for i, n in enumerate(nodes)}
    screen = xy * [per_x, per_y]  # points
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    bounds = ((x0 * per_x, x1 * per_x), (y0 * per_y, y1 * per_y))
    directed = graph.is_directed()
    for u, v, data in graph.edges(data=True):
        if u == v:
            continue
        a, b = screen[index[u]], screen[index[v]]
        others = np.delete(screen, [index[u], index[v]], axis=0)
        rad = _bend(a, b, others, 0.5 * card_h_pt, bounds)
        # arc3's control point: the curve leaves `a` towards it and reaches `b` from it.
        control = (a + b) / 2 + rad * np.array([b[1] - a[1], -(b[0] - a[0])])
        kind = _kind(data)
        arc = FancyArrowPatch(
            tuple(xy[index[u]]),
            tuple(xy[index[v]]),
            arrowstyle="-|>" if directed else "-",
            mutation_scale=9,
            shrinkA=_border(control - a, halves[u]) + 1.0,
            shrinkB=_border(b - control, halves[v]) + 1.0,
            linewidth=0.9 if kind in DASHED_KINDS else 1.3,
            linestyle="--" if kind in DASHED_KINDS else "-",
            color=KIND_COLORS.get(kind, KIND_COLORS[None]),
            alpha=0.6 if kind in DASHED_KINDS else 0.85,
            connectionstyle=f"arc3,rad={rad}",
            zorder=1,
            gid="edge",
        )
        arc.set_in_layout(False)
        ax.add_artist(arc)


def _legend_handles(marks, compare_to_prior, changes, change, cmap):
    handles = [Patch(facecolor=BAR_COLOR, label="posterior P(state | evidence)")]
    if "hard" in marks.values():
        handles.append(
            Patch(facecolor=EVIDENCE_FILL, edgecolor=OBSERVED_COLOR, label="evidence (the observed state red)")
        )
    if "soft" in marks.values():
        handles.append(Patch(facecolor=SOFT_FILL, edgecolor="#e07a1f", linestyle="--", label="soft evidence"))
    if compare_to_prior:
        handles.append(Line2D([], [], color="black", marker="|", linestyle="", markersize=8, label="prior P(state)"))
        _, top = _change_colors(changes, cmap) if changes else ({}, 0.0)
        what = "max |posterior - prior|" if change == "max-abs" else "KL(posterior || prior), nats"
        darkest = matplotlib.colormaps[cmap](0.45) if isinstance(cmap, str) else cmap(0.45)
        handles.append(Patch(facecolor=darkest, edgecolor=_EDGE, label=f"card colour: {what} (darkest {top:.3g})"))
    return handles


def _legend_columns(handles, width_pt, font):
    """Legend columns that fit `width_pt` (each column as wide as the widest entry), and the rows they make."""
    widest = max(len(h.get_label()) for h in handles) * 0.56 + 1.6 + 0.8 + 1.4  # ems of the legend's font
    columns = int(max(1, min(len(handles), width_pt // (widest * 0.9 * font))))
    return columns, math.ceil(len(handles) / columns)


# ---------------------------------------------------------------------------------------------
# A query's answer as bars


def posterior_tables(answer: Any) -> list[tuple[str, list[Any], np.ndarray]]:
    """``(heading, labels, probabilities)`` of each table of a query's answer.

    A Series (one variable), a dict of them (several), a joint DataFrame (a ``probability``
    column, indexed by the states), or a :class:`~graphmodels.inference.QueryTrace` (its answer).
    """
    import pandas as pd

    answer = getattr(answer, "answer", answer)  # a QueryTrace
    if isinstance(answer, pd.Series):
        return [(str(answer.name) if answer.name is not None else "", list(answer.index), answer.to_numpy(float))]
    if isinstance(answer, pd.DataFrame):
        if "probability" not in answer.columns:
            raise ValueError(
                "draw_posterior draws one evidence set: a joint has a `probability` column; for a batch of "
                "evidence sets draw one row, e.g. draw_posterior(answer.iloc[0])."
            )
        labels = [", ".join(map(str, k)) if isinstance(k, tuple) else k for k in answer.index]
        return [(", ".join(map(str, answer.index.names)), labels, answer["probability"].to_numpy(float))]
    if isinstance(answer, Mapping):
        tables = []
        for name, series in answer.items():
            if not isinstance(series, pd.Series):
                raise TypeError(
                    f"The answer for {name!r} is a {type(series).__name__}, not a Series of one evidence set."
                )
            tables.append((str(name), list(series.index), series.to_numpy(float)))
        return tables
    raise TypeError(
        f"Expected a query's answer (a Series, a dict of Series or a joint DataFrame), got {type(answer).__name__}."
    )


def draw_posterior(
    answer: Any,
    *,
    prior: Any = None,
    ax: Axes | None = None,
    max_bars: int = 40,
    title: str | None = None,
) -> Axes:
    """Draw a query's answer as horizontal bars, one per state, a block per variable.

    Parameters
    ----------
    answer : Series, dict of Series, joint DataFrame or QueryTrace
        What :meth:`~graphmodels.models.queries.Queryable.query` returns for one evidence set.
    prior : same as `answer`, optional
        The answer without evidence: each bar gets a black tick at its prior.
    ax : matplotlib.axes.Axes, optional
    max_bars : int, default=40
        A table with more states (a joint of several variables) shows its `max_bars` most
        probable, in order, and says how many it left out.
    title : str, optional
        Default: the question, ``P(class | safety=low)`` (from the answer's ``evidence``).

    Returns
    -------
    matplotlib.axes.Axes
        The bars are ``Rectangle`` s with gid ``"posterior"``, top to bottom in the order of
        the tables and their states; the priors ``Line2D`` s with gid ``"prior"`` in the same order.

    Raises
    ------
    TypeError, ValueError
        For something that is not the answer of one evidence set, or a `prior` of another shape.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> tan = gm.TAN().fit(X, y)
    >>> answer = tan.query("class", {"safety": "low"})
    >>> ax = draw_posterior(answer, prior=tan.query("class"))
    >>> [round(float(p.get_width()), 3) for p in ax.patches if p.get_gid() == "posterior"]
    [0.001, 0.001, 0.998, 0.001]
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if isinstance(max_bars, bool) or not isinstance(max_bars, numbers.Integral) or max_bars < 1:
        raise ValueError(f"`max_bars` must be an integer >= 1, got {max_bars!r}.")
    tables = posterior_tables(answer)
    priors = posterior_tables(prior) if prior is not None else None
    if priors is not None and [(h, list(map(str, s))) for h, s, _ in priors] != [
        (h, list(map(str, s))) for h, s, _ in tables
    ]:
        raise ValueError("`prior` must answer the same variables, with the same states, as `answer`.")
    rows = []  # (y, label, probability, prior, heading)
    y = 0.0
    headings = []
    for t, (heading, labels, values) in enumerate(tables):
        order = list(range(len(values)))
        left = 0
        if len(order) > max_bars:
            order = sorted(np.argsort(-values, kind="stable")[:max_bars].tolist())
            left = len(values) - max_bars
        if len(tables) > 1 or left:
            headings.append((y, heading + (f"  ({left} less probable states not shown)" if left else "")))
            y -= 1.0
        for k in order:
            rows.append((y, str(labels[k]), float(values[k]), None if priors is None else float(priors[t][2][k])))
            y -= 1.0
        y -= 0.4
    if ax is None:
        import matplotlib.pyplot as plt

        longest = max((len(r[1]) for r in rows), default=4)
        _, ax = plt.subplots(figsize=(min(4.5 + 0.07 * longest, 10.0), 0.8 + 0.24 * (-y)), layout="constrained")
    ys = [r[0] for r in rows]
    bars = ax.barh(ys, [r[2] for r in rows], height=0.7, color=BAR_COLOR, zorder=2)
    for bar in bars:
        bar.set_gid("posterior")
    ax.barh(ys, [1.0] * len(rows), height=0.7, color=_SCALE_COLOR, zorder=1)
    for yy, _, p, prior_p in rows:
        ax.text(1.02, yy, f"{p:.4f}", va="center", ha="left", fontsize=8, zorder=3, gid="probability")
        if prior_p is not None:
            ax.add_artist(
                Line2D([prior_p, prior_p], [yy - 0.42, yy + 0.42], color="black", linewidth=1.3, zorder=3, gid="prior")
            )
    for yy, text in headings:
        ax.text(
            -0.02, yy, text, transform=ax.get_yaxis_transform(), ha="right", va="center", fontweight="bold", fontsize=9
        )
    ax.set_yticks(ys, [r[1] for r in rows])
    ax.set_xlim(0, 1.16)
    ax.set_ylim(y + 0.2, 0.6)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("probability")
    if title is None:
        names = [h for h, _, _ in tables]
        given = given_text(getattr(getattr(answer, "answer", answer), "evidence", None))
        title = f"P({', '.join(names)} | {given})" if given else f"P({', '.join(names)})"
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    if priors is not None:
        ax.legend(
            handles=[
                Patch(facecolor=BAR_COLOR, label="posterior"),
                Line2D([], [], color="black", marker="|", linestyle="", markersize=9, label="prior"),
            ],
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=2,
            fontsize=8,
            frameon=False,
        )
    return ax
