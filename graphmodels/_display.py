"""Rich display in notebooks: the HTML shell, written once, and the hook that lends it drawings.

Models (``BaseModel._repr_html_``) and structures (``Hyperforest._repr_html_``)
show a compact summary and their drawing as inline SVG; the drawing belongs
to :mod:`graphmodels.plotting`, which sits above both layers, so neither may
import it. Instead the drawing reaches them through :func:`svg_drawer`: the
façade (``graphmodels/__init__.py``, which may import every layer) registers
a function that imports :func:`graphmodels.plotting.draw_svg` when first
called, so ``import graphmodels`` loads no matplotlib and a model displays
with its drawing without anyone importing the plotting package.

Everything here is plain text: no JavaScript, no style sheet or font
fetched, no ``<script>``; the CSS is scoped by the class ``gm-display``.
Rendering is bounded (a structure with more than :data:`MAX_DRAWN_NODES`
(300) nodes is summarized, not drawn) and never raises: an error shows as a
message inside the block, with the object's ``repr``.

Like ``_special`` and ``_validation``, this module imports nothing of the
package.
"""

from __future__ import annotations

import html
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = [
    "MAX_DRAWN_NODES",
    "LARGE_DRAWING",
    "MAX_LISTED",
    "set_svg_drawer",
    "svg_drawer",
    "render",
    "safe_html",
    "drawing_html",
    "format_value",
    "format_list",
    "plural",
    "representation_scores",
    "representation_scoring",
    "node_count",
    "hyperedge_text",
    "structure_rows",
    "structure_html",
    "strongest_edges",
    "MAX_TABLE_ROWS",
    "probabilities_html",
]

#: Structures with more nodes than this are summarized, not drawn inline (a drawing of more is slow
#: to make and unreadable; draw it with ``graphmodels.plotting.draw_network``). Up to it, a drawing
#: takes well under a second (``benchmarks/bench_display.py``).
MAX_DRAWN_NODES = 300

#: A model's inline drawing of more nodes than this leaves out the class arcs (one from the class to
#: every attribute: on a page of a hundred nodes they cover the others, and they are a third to a
#: half of the drawing's time); ``draw_network(model)`` draws them. A grid of members or classes holds
#: at most this many nodes.
LARGE_DRAWING = 60

#: Most items (classes, columns, hyperedges) listed in one summary cell; the rest are counted.
MAX_LISTED = 8

#: Strongest interactions listed in a summary.
TOP_INTERACTIONS = 5

#: Most rows of one probability table shown (:func:`probabilities_html`); the rest are counted.
MAX_TABLE_ROWS = 40

_CSS = """
.gm-display {font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 13px;
  line-height: 1.4; color: inherit; max-width: 100%; margin: 2px 0;}
.gm-display .gm-title {font-family: Menlo, Consolas, "DejaVu Sans Mono", monospace; font-weight: 600;
  margin: 0 0 4px 0; overflow-wrap: anywhere;}
.gm-display table.gm-table {border-collapse: collapse; margin: 2px 0 6px 0; border: none;}
.gm-display table.gm-table th, .gm-display table.gm-table td {text-align: left; vertical-align: top;
  padding: 1px 14px 1px 0; border: none; background: none;}
.gm-display table.gm-table th {font-weight: 600; white-space: nowrap;}
.gm-display .gm-changed {font-weight: 600;}
.gm-display .gm-note {color: #666; font-style: italic; margin: 2px 0;}
.gm-display .gm-error {color: #a00; margin: 2px 0; white-space: pre-wrap;}
.gm-display details {margin: 2px 0 6px 0;}
.gm-display summary {cursor: pointer;}
.gm-display .gm-drawing svg {max-width: 100%; height: auto;}
.gm-display .gm-tables {display: flex; flex-wrap: wrap; gap: 4px 22px; align-items: flex-start;}
.gm-display table.gm-table td.gm-number {text-align: right; font-variant-numeric: tabular-nums;}
.gm-display .gm-bar {display: inline-block; width: 120px; height: 0.75em; background: #e6e6e6;
  vertical-align: middle;}
.gm-display .gm-bar > div {height: 100%; background: #2a6f97;}
.gm-display .gm-observed .gm-bar > div {background: #c1121f;}
""".strip()

#: The attribute that marks a parameter differing from its default.
_CHANGED = ' class="gm-changed"'

# ---------------------------------------------------------------------------- the drawing hook
_svg_drawer: Callable[..., str] | None = None


def set_svg_drawer(drawer: Callable[..., str] | None) -> Callable[..., str] | None:
    """Register ``drawer(obj, **options) -> "<svg ...>"``, used by every display; returns the previous one.

    The façade registers :func:`graphmodels.plotting.draw_svg` (imported on
    first use); None turns the drawings off (the summaries stay).
    """
    global _svg_drawer
    previous, _svg_drawer = _svg_drawer, drawer
    return previous


def svg_drawer() -> Callable[..., str] | None:
    """The registered drawer (see :func:`set_svg_drawer`), or None."""
    return _svg_drawer


# ---------------------------------------------------------------------------- text
def _escape(text: Any) -> str:
    return html.escape(str(text), quote=True)


def format_value(value: Any, digits: int = 4) -> str:
    """A short readable form of a name, label or number (numpy scalars as Python ones)."""
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()
    if isinstance(value, float):
        return format(value, f".{digits}g")
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(sorted(format_value(v) for v in value)) + "}"
    return str(value)


def format_list(values: Sequence[Any] | Iterable[Any], limit: int = MAX_LISTED) -> str:
    """``"a, b, c"``; beyond `limit` items ``"a, b, … (12 more)"``."""
    values = list(values)
    shown = ", ".join(format_value(v) for v in values[:limit])
    if len(values) > limit:
        shown += f", … ({len(values) - limit} more)"
    return shown


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 class"``, ``"2 classes"``, ``"1,024 rows"``: a count and its noun, plural unless the count is 1."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def representation_scores(model: Any) -> str | None:
    """``"free 0.2138, shared 0.1941"``: each representation's held-out log-loss, when "auto" chose one."""
    selection = getattr(model, "representation_selection_", None)
    if selection is None:
        return None
    return ", ".join(f"{row.representation} {row.log_loss:.4f}" for row in selection.itertuples())


def representation_scoring(model: Any) -> str:
    """How "auto" scored the representations: ``"leave-one-out"`` or ``"10-fold cross-validated"``.

    Files saved before the inner cross-validation existed were scored by leave-one-out.
    """
    selection = getattr(model, "representation_selection_", None)
    if selection is None or "scored_by" not in selection or not len(selection):
        return "leave-one-out"
    return str(selection["scored_by"].iloc[0])


# ---------------------------------------------------------------------------- the block
def _cell(value: str | Sequence[str]) -> str:
    if isinstance(value, str):
        return _escape(value)
    return "<br>".join(_escape(line) for line in value)


def render(
    title: str,
    rows: Sequence[tuple[str, str | Sequence[str]]] = (),
    *,
    parameters: Sequence[tuple[str, str, bool]] | None = None,
    parameters_open: bool = False,
    notes: Sequence[str] = (),
    drawing: str = "",
) -> str:
    """The display block: title, summary table, parameters, notes, drawing.

    Parameters
    ----------
    title : str
        Plain text (escaped here), such as the model's ``repr``.
    rows : sequence of (label, value)
        The summary table; a value is a text or a list of lines (escaped here).
    parameters : sequence of (name, value text, changed), optional
        A table of hyperparameters; those differing from the default are bold.
    parameters_open : bool, default=False
        Show the parameters table unfolded (else inside a ``<details>``).
    notes : sequence of str
        Plain-text remarks shown in grey under the table.
    drawing : str
        HTML of the drawing (from :func:`drawing_html`), inserted as it is.

    Returns
    -------
    str
        One ``<div class="gm-display">`` with its scoped ``<style>``.
    """
    parts = [f'<div class="gm-display"><style>{_CSS}</style>', f'<div class="gm-title">{_escape(title)}</div>']
    if rows:
        body = "".join(f"<tr><th>{_escape(label)}</th><td>{_cell(value)}</td></tr>" for label, value in rows)
        parts.append(f'<table class="gm-table">{body}</table>')
    if parameters is not None:
        body = "".join(
            f"<tr><th{_CHANGED if changed else ''}>{_escape(name)}</th><td{_CHANGED if changed else ''}>"
            f"{_escape(value)}</td></tr>"
            for name, value, changed in parameters
        )
        table = f'<table class="gm-table">{body}</table>' if parameters else '<div class="gm-note">no parameters</div>'
        if parameters_open:
            parts.append(table)
        else:
            parts.append(f"<details><summary>parameters ({len(parameters)})</summary>{table}</details>")
    parts.extend(f'<div class="gm-note">{_escape(note)}</div>' for note in notes)
    if drawing:
        parts.append(drawing)
    parts.append("</div>")
    return "".join(parts)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def safe_html(obj: Any, build: Callable[[], str]) -> str:
    """``build()``, or, if it raises, a small block with ``repr(obj)`` and the error message.

    A notebook's display must not raise (IPython would print a traceback and
    fall back to the plain repr); the message is shown instead, in the block.
    """
    try:
        return build()
    except Exception as error:  # noqa: BLE001 - a display shows any failure rather than raising it
        try:
            title = repr(obj)
        except Exception:  # noqa: BLE001 - even the repr may fail on a broken object
            title = object.__repr__(obj)
        return (
            f'<div class="gm-display"><style>{_CSS}</style><div class="gm-title">{_escape(title)}</div>'
            f'<div class="gm-error">could not display: {_escape(_error_text(error))}</div></div>'
        )


def drawing_html(
    obj: Any,
    n_nodes: int,
    *,
    max_nodes: int = MAX_DRAWN_NODES,
    draw: Callable[..., str] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """The drawing of `obj` as inline SVG, bounded, and the notes to show instead of or beside it.

    Parameters
    ----------
    obj : graph, hyperforest or fitted model
        Passed to `draw`.
    n_nodes : int
        The nodes the drawing would show (all members' for a grid).
    max_nodes : int, default=MAX_DRAWN_NODES
        Above this, nothing is drawn and a note says so.
    draw : callable, optional
        ``draw(obj, **options) -> "<svg ...>"``; the registered drawer by default.
    options : dict, optional
        Drawing options.

    Returns
    -------
    html : str
        ``<div class="gm-drawing"><svg ...></div>``, or ``""``.
    notes : list of str
        Why there is no drawing (too large, no drawer, the drawing failed).
    """
    draw = svg_drawer() if draw is None else draw
    if n_nodes == 0:
        return "", ["empty structure: nothing to draw"]
    if n_nodes > max_nodes:
        return "", [
            f"structure too large to draw inline: {n_nodes} nodes (more than {max_nodes}); "
            "draw it with graphmodels.plotting.draw_network"
        ]
    if draw is None:
        return "", ["no drawing: no SVG drawer is registered"]
    try:
        svg = draw(obj, **(options or {}))
    except Exception as error:  # noqa: BLE001 - the summary is shown without its drawing
        return "", [f"could not draw the structure: {_error_text(error)}"]
    return f'<div class="gm-drawing">{svg}</div>', []


# ---------------------------------------------------------------------------- probabilities
def _bar(probability: float) -> str:
    width = min(max(float(probability), 0.0), 1.0) * 100 if probability == probability else 0.0
    return f'<div class="gm-bar"><div style="width: {width:.1f}%"></div></div>'


def probabilities_html(
    title: str,
    tables: Sequence[tuple[str, Sequence[tuple[Any, float]], str | None]],
    *,
    rows: Sequence[tuple[str, str | Sequence[str]]] = (),
    notes: Sequence[str] = (),
) -> str:
    """Probability tables with a bar beside each number, side by side: the display of a query's answer.

    Plain HTML and CSS (each bar a ``<div>`` as wide as its probability): no script, no image.

    Parameters
    ----------
    title : str
        Plain text, such as ``"P(class | safety=low)"``.
    tables : sequence of (heading, [(label, probability), ...], observed)
        One table per variable (or joint); `observed`, when not None, is the label of an
        observed state, whose row is marked (its bar red) and the table headed "observed".
        A table longer than :data:`MAX_TABLE_ROWS` shows its first rows and counts the rest.
    rows : sequence of (label, value), optional
        A summary table above the probabilities (as :func:`render` takes it).
    notes : sequence of str, optional
        Plain-text remarks under the tables.

    Returns
    -------
    str
        One ``<div class="gm-display">`` block.

    Examples
    --------
    >>> html = probabilities_html("P(rain | wet=yes)", [("rain", [("no", 0.25), ("yes", 0.75)], None)])
    >>> 'style="width: 75.0%"' in html and "<script" not in html
    True
    """
    parts = []
    for heading, entries, observed in tables:
        entries = list(entries)
        head = _escape(heading) + (" (observed)" if observed is not None else "")
        body = [f'<tr><th colspan="3">{head}</th></tr>']
        for label, probability in entries[:MAX_TABLE_ROWS]:
            marked = observed is not None and format_value(label) == format_value(observed)
            mark = ' class="gm-observed"' if marked else ""
            body.append(
                f"<tr{mark}><td>{_escape(format_value(label))}</td>"
                f'<td class="gm-number">{float(probability):.4f}</td><td>{_bar(float(probability))}</td></tr>'
            )
        if len(entries) > MAX_TABLE_ROWS:
            rest = sum(float(p) for _, p in entries[MAX_TABLE_ROWS:])
            body.append(
                f'<tr><td colspan="3" class="gm-note">… {len(entries) - MAX_TABLE_ROWS:,} more rows '
                f"(together {rest:.4f})</td></tr>"
            )
        parts.append(f'<table class="gm-table">{"".join(body)}</table>')
    remarks = "".join(f'<div class="gm-note">{_escape(note)}</div>' for note in notes)
    block = render(title, rows)  # ends with the block's closing </div>
    return block[: -len("</div>")] + f'<div class="gm-tables">{"".join(parts)}</div>{remarks}</div>'


# ---------------------------------------------------------------------------- structures
def _is_hyperforest(obj: Any) -> bool:
    # Duck-typed: graphmodels.structures.Hyperforest imports this module, not the other way round.
    return hasattr(obj, "maximal_hyperedges") and hasattr(obj, "width") and hasattr(obj, "nodes")


def _counts_text(counter: Counter[Any], names: dict[Any, str]) -> str:
    """``"1 class, 6 attributes"``: the keys of `names` first, in its order, then the others by count."""
    keys = [k for k in names if k in counter] + [k for k, _ in counter.most_common() if k not in names]
    return ", ".join(f"{counter[k]} {names.get(k, str(k))}" for k in keys if k is not None)


_ROLE_NAMES = {"class": "class", "feature": "attributes", "latent": "latent"}


def node_count(obj: Any) -> int:
    """Nodes of a graph or hyperforest (0 for anything else)."""
    if _is_hyperforest(obj):
        return len(obj.nodes)
    number = getattr(obj, "number_of_nodes", None)
    return int(number()) if callable(number) else 0


def strongest_edges(graph: Any, top: int = TOP_INTERACTIONS) -> list[str]:
    """The `top` edges of highest numeric ``weight``, as ``"a → b: 0.123"`` (``—`` if undirected)."""
    edges = getattr(graph, "edges", None)
    if edges is None or _is_hyperforest(graph):
        return []
    weighted = [
        (float(w), u, v)
        for u, v, w in edges(data="weight")
        if isinstance(w, numbers.Real) and not isinstance(w, bool) and w == w
    ]
    weighted.sort(key=lambda item: -item[0])
    arrow = "→" if graph.is_directed() else "—"
    return [f"{format_value(u)} {arrow} {format_value(v)}: {w:.4g}" for w, u, v in weighted[:top]]


def hyperedge_text(forest: Any, hyperedge: Iterable[Any]) -> str:
    """``"{a, b, c}"``, the variables in the order of ``forest.nodes``."""
    order = {v: i for i, v in enumerate(forest.nodes)}
    return "{" + ", ".join(format_value(v) for v in sorted(hyperedge, key=lambda v: order.get(v, len(order)))) + "}"


def structure_rows(structure: Any) -> list[tuple[str, str | list[str]]]:
    """Summary rows of a networkx graph or a hyperforest: its kind and size, its strongest edges.

    A region graph (frozenset nodes with ``counting_number``) counts its
    regions, a junction tree (frozenset nodes with ``kind="clique"``) its
    cliques; a graph with roles counts classes, attributes and latents; a
    directed graph counts its arcs by ``kind``; a hyperforest gives its
    width and maximal hyperedges.
    """
    if _is_hyperforest(structure):
        joined = [h for h in structure.maximal_hyperedges if len(h) > 1]  # largest first, then in node order
        return [
            (
                "structure",
                f"hyperforest of width {structure.width}: {plural(len(structure.nodes), 'variable')}, "
                f"{plural(len(joined), 'maximal hyperedge')} of 2 or more",
            ),
            ("hyperedges", format_list(hyperedge_text(structure, h) for h in joined) or "none (independent variables)"),
        ]
    if not hasattr(structure, "nodes") or not hasattr(structure, "is_directed"):
        return [("structure", type(structure).__name__)]
    nodes = list(structure.nodes(data=True))
    n_edges = structure.number_of_edges()
    directed = structure.is_directed()
    if nodes and all(isinstance(n, frozenset) and "counting_number" in d for n, d in nodes):
        nonzero = sum(1 for _, d in nodes if d["counting_number"] != 0)
        largest = max(len(n) for n, _ in nodes)
        text = (
            f"region graph: {len(nodes)} regions ({nonzero} with a non-zero counting number), "
            f"largest region {largest} variables, {n_edges} edges"
        )
        return [("structure", text)]
    if nodes and not directed and all(isinstance(n, frozenset) and d.get("kind") == "clique" for n, d in nodes):
        largest = max(len(n) for n, _ in nodes)
        text = f"junction tree: {len(nodes)} cliques (the largest of {largest} variables), {n_edges} separators"
        return [("structure", text)]
    roles = Counter(d.get("role") for _, d in nodes)
    kind = "directed graph" if directed else "undirected graph"
    text = f"{kind}: {len(nodes)} nodes"
    if any(role is not None for role in roles):
        text += f" ({_counts_text(roles, _ROLE_NAMES)})"
    text += f", {n_edges} {'arcs' if directed else 'edges'}"
    kinds = Counter(k for _, _, k in structure.edges(data="kind"))
    if any(k is not None for k in kinds):
        text += f" ({_counts_text(kinds, {})})"
    rows: list[tuple[str, str | list[str]]] = [("structure", text)]
    strongest = strongest_edges(structure)
    if strongest:
        rows.append(("strongest interactions", strongest))
    return rows


def structure_html(
    structure: Any,
    *,
    title: str | None = None,
    max_nodes: int = MAX_DRAWN_NODES,
    draw: Callable[..., str] | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """The display of a networkx graph or hyperforest: its summary and drawing; never raises.

    Parameters
    ----------
    structure : nx.Graph or Hyperforest
    title : str, optional
        Default: the type's name and, for a graph, its ``name``.
    max_nodes : int, default=MAX_DRAWN_NODES
    draw : callable, optional
        ``draw(structure, **options)`` returning SVG text; the registered drawer by default.
    options : dict, optional
        Drawing options (those of ``graphmodels.plotting.draw_network``).

    Returns
    -------
    str
    """

    def build() -> str:
        heading = title
        if heading is None:
            heading = type(structure).__name__
            name = getattr(structure, "graph", {}).get("name") if hasattr(structure, "graph") else None
            if name:
                heading += f" {name!r}"
        drawing, notes = drawing_html(structure, node_count(structure), max_nodes=max_nodes, draw=draw, options=options)
        return render(heading, structure_rows(structure), notes=notes, drawing=drawing)

    return safe_html(structure, build)


# ---------------------------------------------------------------------------- networks
def network_html(network: Any) -> str:
    """The display of a ``DiscreteBayesianNetwork`` or ``DiscreteMarkovNetwork``.

    The variables (with their number of states), the arcs or factors, the
    number of free parameters or table cells, and the graph drawn as inline
    SVG (bounded as a model's drawing). Never raises: see :func:`safe_html`.
    """

    def build() -> str:
        graph = network.graph
        cards = [int(network.cardinalities[v]) for v in network.variables]
        rows: list[tuple[str, str | list[str]]] = [
            ("variables", f"{len(cards)}: " + format_list(network.variables)),
            ("states", f"{min(cards, default=0)} to {max(cards, default=0)} per variable"),
        ]
        if hasattr(network, "cpts"):
            free = sum(int(t.size // t.shape[-1] * (t.shape[-1] - 1)) for t in network.cpts.values())
            widest = max(network.variables, key=lambda v: len(network.parents[v]), default=None)
            rows.append(("arcs", f"{graph.number_of_edges():,}"))
            rows.append(("free parameters", f"{free:,}"))
            if widest is not None and network.parents[widest]:
                rows.append(("most parents", f"{widest} ({len(network.parents[widest])})"))
        else:
            cells = sum(int(table.size) for _, table in network.factors)
            rows.append(("factors", f"{len(network.factors):,} ({cells:,} cells)"))
            rows.append(("edges", f"{graph.number_of_edges():,}"))
        drawing, notes = drawing_html(graph, graph.number_of_nodes())
        return render(repr(network), rows, notes=notes, drawing=drawing)

    return safe_html(network, build)
