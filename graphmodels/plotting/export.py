"""Export of structures to GraphML and Graphviz DOT.

Both writers take a networkx graph or a fitted model (its ``structure_``),
work on a copy and never change the caller's graph. Neither needs Graphviz or
pydot: the DOT text is written here, GraphML by :func:`networkx.write_graphml`.

Names and text values may hold any character; those XML 1.0 cannot hold (the
control characters but tab, newline and carriage return, lone surrogates,
U+FFFE and U+FFFF) are written as their Python escape (``"\\x1b"``,
``"\\ud800"``), in both formats, so that every file written reads back (with
:func:`networkx.read_graphml`, pydot or Graphviz): see :func:`xml_safe`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import math
import numbers
import os
import re
from typing import IO, TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._files import write_bytes, write_text
from ._common import DASHED_KINDS, KIND_COLORS, ROLE_COLORS, _json_item, as_graph

if TYPE_CHECKING:
    from ..models.base import BaseModel
    from ..structures.hyperforests import Hyperforest

__all__ = ["to_graphml", "to_dot"]

#: The characters XML 1.0 cannot hold (its ``Char`` production), even as ``&#...;`` references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_safe(text: str) -> str:
    r"""`text` with each character XML 1.0 cannot hold written as its Python escape.

    Those are the control characters but tab, newline and carriage return (U+0000 to
    U+001F), lone surrogates (U+D800 to U+DFFF, which no UTF-8 file can hold either), U+FFFE
    and U+FFFF. Every other character, Unicode included, is kept.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    References
    ----------
    .. [1] W3C (2008). Extensible Markup Language (XML) 1.0 (Fifth Edition), section 2.2,
           Characters. https://www.w3.org/TR/xml/#charsets

    Examples
    --------
    >>> print(xml_safe("\x1b[31mred\x00"), xml_safe("é<&>"), xml_safe("\ud800"))
    \x1b[31mred\x00 é<&> \ud800
    """
    return _NOT_XML.sub(_escape, text)


def string_ids(graph: nx.Graph) -> dict[Any, str]:
    """A distinct string for every node, one that XML and DOT can hold.

    String nodes keep their name. Any other node gets ``str(node)``, or
    ``repr(node)`` if that is taken, with a ``#k`` suffix if that is taken too.
    Characters XML cannot hold are escaped (:func:`xml_safe`); a name that
    then equals another gets a ``#k`` suffix too.

    Parameters
    ----------
    graph : nx.Graph

    Returns
    -------
    dict
        Node -> str, in graph order.

    Examples
    --------
    >>> string_ids(nx.Graph([(1, "1"), (2.5, "b")]))
    {1: '1#2', '1': '1', 2.5: '2.5', 'b': 'b'}
    """
    ids = {node: node for node in graph.nodes if isinstance(node, str) and not _NOT_XML.search(node)}
    used = set(ids.values())
    for node in graph.nodes:
        if node in ids and isinstance(node, str):
            continue
        name = xml_safe(str(node))
        if name in used and not isinstance(node, str):
            name = xml_safe(repr(node))
        candidate, k = name, 2
        while candidate in used:
            candidate, k = f"{name}#{k}", k + 1
        used.add(candidate)
        ids[node] = candidate
    return {node: ids[node] for node in graph.nodes}


# ---------------------------------------------------------------------------
# GraphML


def _graphml_value(value):
    """A value GraphML can store: bool, int, float or str (which XML can hold, see :func:`xml_safe`)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool):
        return "None" if value is None else value
    if isinstance(value, str):
        return xml_safe(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (set, frozenset)):
        items = sorted((_json_item(v) for v in value), key=lambda v: (type(v).__name__, str(v)))
        return xml_safe(json.dumps(items, ensure_ascii=False))
    if isinstance(value, (list, tuple, np.ndarray)):
        return xml_safe(json.dumps([_json_item(v) for v in value], ensure_ascii=False))
    if isinstance(value, dict):
        return xml_safe(json.dumps({str(k): _json_item(v) for k, v in value.items()}, ensure_ascii=False))
    return xml_safe(str(value))


def _value_kind(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "str"


def _unify(records):
    """Make every attribute name hold one kind of value across `records` (a list of dicts)."""
    kinds = {}
    for data in records:
        for key, value in data.items():
            kinds.setdefault(key, set()).add(_value_kind(value))
    mixed = {key for key, seen in kinds.items() if len(seen) > 1}
    for data in records:
        for key in mixed & data.keys():
            data[key] = str(data[key])


def graphml_ready(graph_or_model: nx.Graph | Hyperforest | BaseModel) -> nx.Graph:
    """A copy of the graph that :func:`networkx.write_graphml` can write.

    Node names become distinct strings (see :func:`string_ids`); every node
    keeps its original name as ``str`` in a ``name`` attribute (unless it has
    one). Attribute values become bool, int, float or str: numpy scalars their
    Python value, lists, tuples, sets and dicts JSON text, ``None`` the string
    ``"None"``. An attribute name holding numbers on some items and text on
    others is written as text everywhere. In names, attribute names and text,
    the characters XML cannot hold are escaped (:func:`xml_safe`).

    Parameters
    ----------
    graph_or_model : nx.Graph or fitted model

    Returns
    -------
    nx.Graph
        Same class as the input graph; the input is not changed.
    """
    graph = as_graph(graph_or_model)
    ids = string_ids(graph)
    out = graph.__class__()
    out.graph.update({xml_safe(str(k)): _graphml_value(v) for k, v in graph.graph.items()})
    node_records = []
    for node, data in graph.nodes(data=True):
        attrs = {xml_safe(str(k)): _graphml_value(v) for k, v in data.items()}
        attrs.setdefault("name", xml_safe(str(node)))
        node_records.append(attrs)
        out.add_node(ids[node], **attrs)
    if graph.is_multigraph():
        edges = [(u, v, data) for u, v, _, data in graph.edges(keys=True, data=True)]
    else:
        edges = list(graph.edges(data=True))
    edge_records = []
    for u, v, data in edges:
        attrs = {xml_safe(str(k)): _graphml_value(val) for k, val in data.items()}
        edge_records.append(attrs)
        out.add_edge(ids[u], ids[v], **attrs)
    _unify([data for _, data in out.nodes(data=True)])
    if graph.is_multigraph():
        _unify([data for _, _, _, data in out.edges(keys=True, data=True)])
    else:
        _unify([data for _, _, data in out.edges(data=True)])
    _unify([out.graph])
    return out


def to_graphml(graph_or_model: nx.Graph | Hyperforest | BaseModel, path: str | os.PathLike[str] | IO[bytes]) -> None:
    """Write a structure to a GraphML file.

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest or fitted model
        A networkx graph or a fitted model, whose ``structure_`` is written.
        A hyperforest is written as its primal graph, its maximal
        hyperedges in the graph attribute ``hyperedges`` (see :func:`as_graph`).
    path : str or path-like or file
        Destination, as accepted by :func:`networkx.write_graphml` (a path ending in ``.gz`` or
        ``.bz2`` is compressed). A path is written atomically: to a temporary file beside it,
        which replaces it only once complete.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.

    See Also
    --------
    graphml_ready : the conversion of names and attributes applied first.
    to_dot : Graphviz text.

    Notes
    -----
    Node ids are strings; a node that was not a string keeps ``str`` of its
    name in the ``name`` attribute. Lists such as ChowLiu's ``classes`` are
    stored as JSON text. Read back with :func:`networkx.read_graphml`.

    Examples
    --------
    >>> import io
    >>> g = nx.DiGraph([(1, "x")])
    >>> g.nodes[1]["role"] = "class"
    >>> buffer = io.BytesIO()
    >>> to_graphml(g, buffer)
    >>> back = nx.read_graphml(io.BytesIO(buffer.getvalue()))
    >>> back.nodes["1"]
    {'role': 'class', 'name': '1'}
    """
    graph = graphml_ready(graph_or_model)
    if hasattr(path, "write"):
        nx.write_graphml(graph, path, infer_numeric_types=True)
        return
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer, infer_numeric_types=True)
    data = buffer.getvalue()
    name = os.fspath(path)
    if name.endswith((".gz", ".gzip")):  # networkx compresses these endings; so do we
        data = gzip.compress(data, mtime=0)
    elif name.endswith(".bz2"):
        data = bz2.compress(data)
    write_bytes(name, data)  # atomic: a failed write keeps the previous file


# ---------------------------------------------------------------------------
# DOT


def dot_quote(text: object) -> str:
    """`text` as a double-quoted DOT string.

    Backslashes and double quotes are escaped; newlines become ``\\n`` (a line
    break in Graphviz labels), carriage returns are dropped. The characters XML
    cannot hold (other control characters, lone surrogates: see :func:`xml_safe`)
    become their Python escape, as in GraphML, so that the file is valid UTF-8
    that Graphviz and pydot read. Any other character, Unicode included, is
    written as is (DOT files are UTF-8).

    Examples
    --------
    >>> print(dot_quote('say "hi"'))
    "say \\"hi\\""
    >>> print(dot_quote("a\\\\b"))
    "a\\\\b"
    """
    text = str(text).replace("\r\n", "\n").replace("\r", "")
    text = xml_safe(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _dot_value(value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return repr(value) if math.isfinite(value) else dot_quote(repr(value))
    graphml = _graphml_value(value)
    return dot_quote(graphml)


def _dot_attributes(data, presentation):
    """``[k=v, ...]`` from the data attributes, then presentation ones not already set."""
    items = [(str(k), v) for k, v in data.items()]
    keys = {k for k, _ in items}
    items += [(k, v) for k, v in presentation.items() if k not in keys]
    if not items:
        return ""
    return " [" + ", ".join(f"{dot_quote(k)}={_dot_value(v)}" for k, v in items) + "]"


def _pen_widths(edges):
    """Graphviz ``penwidth`` per edge: 1 to 4 within each ``kind``, by ``weight``."""
    top = {}
    for _, _, data in edges:
        weight = data.get("weight")
        if isinstance(weight, numbers.Real) and math.isfinite(weight) and weight > 0:
            kind = data.get("kind")
            top[kind] = max(top.get(kind, 0.0), float(weight))
    widths = []
    for _, _, data in edges:
        weight, kind = data.get("weight"), data.get("kind")
        if kind in top and isinstance(weight, numbers.Real) and math.isfinite(weight):
            widths.append(round(1.0 + 3.0 * max(float(weight), 0.0) / top[kind], 2))
        else:
            widths.append(1.0)
    return widths


def to_dot(graph_or_model: nx.Graph | Hyperforest | BaseModel, path: str | os.PathLike[str] | None = None) -> str:
    """Graphviz DOT text of a structure, optionally written to a file.

    Every node and edge attribute (``role``, ``cardinality``, ``weight``,
    ``kind``, ...) is written, followed by presentation attributes that the
    data does not set: nodes are filled with the colour of their ``role``,
    class-to-attribute arcs (``kind="class"``) are dashed and grey, augmenting
    arcs solid and dark, with ``penwidth`` growing with ``weight`` (within
    each kind). The arcs of a multi-dimensional classifier get the colour of
    their subgraph: class-to-class red, class-to-feature (bridge) grey and
    dashed, feature-to-feature dark blue (see ``KIND_COLORS``).

    Parameters
    ----------
    graph_or_model : nx.Graph, Hyperforest or fitted model
        A networkx graph or a fitted model, whose ``structure_`` is written.
        A hyperforest is written as its primal graph, its maximal
        hyperedges in the graph attribute ``hyperedges`` (see :func:`as_graph`).
    path : str or path-like, optional
        If given, the text is also written there (UTF-8), atomically: to a temporary file
        beside it, which replaces it only once complete.

    Returns
    -------
    str
        A ``digraph`` for directed graphs, else a ``graph``.

    Raises
    ------
    TypeError
        If `graph_or_model` is neither a graph nor a fitted model.

    See Also
    --------
    dot_quote : how names and text values are quoted.
    to_graphml

    Notes
    -----
    Every node id is quoted; names that are not strings are written as
    ``str(name)`` (``repr`` if two nodes would clash). Graphviz's ``dot``
    reads ``weight`` as an integer layout weight; lay the file out with a
    copy that renames it if that matters.

    Examples
    --------
    >>> g = nx.DiGraph()
    >>> g.add_node("C", role="class")
    >>> g.add_node('x "1"', role="feature")
    >>> g.add_edge("C", 'x "1"', kind="class", weight=0.5)
    >>> print(to_dot(g), end="")
    digraph {
      node [style=filled, fontname="Helvetica"];
      "C" ["role"="class", "fillcolor"="#f4a261", "penwidth"=2];
      "x \\"1\\"" ["role"="feature", "fillcolor"="#a8dadc"];
      "C" -> "x \\"1\\"" ["kind"="class", "weight"=0.5, "style"="dashed", "color"="#8d8d8d", "penwidth"=4.0];
    }
    """
    graph = as_graph(graph_or_model)
    ids = string_ids(graph)
    directed = graph.is_directed()
    arrow = "->" if directed else "--"
    lines = ["digraph {" if directed else "graph {", '  node [style=filled, fontname="Helvetica"];']
    for key, value in graph.graph.items():
        if isinstance(value, (str, numbers.Number)) and not isinstance(value, bool):
            lines.append(f"  {dot_quote(key)}={_dot_value(value)};")
    for node, data in graph.nodes(data=True):
        role = data.get("role")
        presentation: dict[str, Any] = {"fillcolor": ROLE_COLORS.get(role, ROLE_COLORS["other"])}
        if role == "class":
            presentation["penwidth"] = 2
        lines.append(f"  {dot_quote(ids[node])}{_dot_attributes(data, presentation)};")
    if graph.is_multigraph():
        edges = [(u, v, data) for u, v, _, data in graph.edges(keys=True, data=True)]
    else:
        edges = list(graph.edges(data=True))
    for (u, v, data), width in zip(edges, _pen_widths(edges)):
        kind = data.get("kind")
        presentation = {
            "style": "dashed" if kind in DASHED_KINDS else "solid",
            "color": KIND_COLORS.get(kind, KIND_COLORS[None]),
            "penwidth": width,
        }
        lines.append(f"  {dot_quote(ids[u])} {arrow} {dot_quote(ids[v])}{_dot_attributes(data, presentation)};")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        write_text(path, text, compress=False)  # atomic: a failed write keeps the previous file
    return text
