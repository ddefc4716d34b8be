import json
import re

import networkx as nx
import numpy as np
import pytest

import graphmodels as gm
from graphmodels.plotting import to_dot, to_graphml
from graphmodels.plotting.export import dot_quote, graphml_ready, string_ids
from graphmodels.structures import augmented_naive_bayes

ODD_NAMES = ["#", "a b", "é", 1, 'say "hi"', "back\\slash", "two\nlines", "node", "->"]


def _odd_graph():
    g = augmented_naive_bayes(
        "class",
        ODD_NAMES,
        [("a b", "é"), (1, "#")],
        cardinalities={"class": 2, **{n: 3 for n in ODD_NAMES}},
        class_weights={n: 0.1 * i for i, n in enumerate(ODD_NAMES)},
    )
    g.edges["a b", "é"]["weight"] = np.float64(0.25)
    g.edges["a b", "é"]["classes"] = ["yes", "no"]
    g.edges[1, "#"]["classes"] = ("no",)
    g.nodes["é"]["states"] = frozenset({"x", "y"})
    g.nodes["#"]["missing"] = None
    g.nodes[1]["cardinality"] = np.int64(4)
    return g


def _snapshot(g):
    return (
        [(n, dict(d)) for n, d in g.nodes(data=True)],
        [(u, v, dict(d)) for u, v, d in g.edges(data=True)],
        dict(g.graph),
    )


# --------------------------------------------------------------------------- DOT


def test_dot_quote_escapes():
    assert dot_quote("plain") == '"plain"'
    assert dot_quote('a"b') == '"a\\"b"'
    assert dot_quote("a\\b") == '"a\\\\b"'
    assert dot_quote("a\nb") == '"a\\nb"'
    assert dot_quote("é") == '"é"'
    assert dot_quote(1) == '"1"'


def _unquote(token):
    # Inverse of dot_quote for what it writes.
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", '"': '"', "\\": "\\"}.get(m.group(1), "\\" + m.group(1)), body)


QUOTED = r'"(?:[^"\\]|\\.)*"'


def test_dot_quotes_every_node_and_parses_back():
    g = _odd_graph()
    text = to_dot(g)
    assert text.startswith("digraph {") and text.rstrip().endswith("}")
    node_lines = [line for line in text.splitlines() if re.match(rf"^  {QUOTED} \[", line)]
    names = [_unquote(re.match(rf"^  ({QUOTED})", line).group(1)) for line in node_lines]
    assert names == [str(n) for n in g.nodes]
    edge_lines = [line for line in text.splitlines() if re.match(rf"^  {QUOTED} -> {QUOTED}", line)]
    assert len(edge_lines) == g.number_of_edges()
    pairs = {
        tuple(_unquote(t) for t in re.match(rf"^  ({QUOTED}) -> ({QUOTED})", line).groups()) for line in edge_lines
    }
    assert pairs == {(str(u), str(v)) for u, v in g.edges}
    # No raw newline inside a statement.
    assert all(line.endswith(("{", "}", ";")) for line in text.splitlines())


def test_dot_attributes_and_styles():
    g = _odd_graph()
    text = to_dot(g)
    assert '"class" ["role"="class", "cardinality"=2' in text
    expected = '"a b" -> "é" ["kind"="augmenting", "weight"=0.25, "classes"="[\\"yes\\", \\"no\\"]", "style"="solid"'
    assert expected in text
    class_arc = next(line for line in text.splitlines() if line.startswith('  "class" -> "#"'))
    assert '"style"="dashed"' in class_arc and '"kind"="class"' in class_arc
    assert '"cardinality"=4' in text  # numpy integer written as a number


def test_dot_undirected_and_file(tmp_path):
    g = nx.Graph([("a", "b")], weight=1.0)
    g.edges["a", "b"]["weight"] = 0.5
    path = tmp_path / "g.dot"
    text = to_dot(g, path)
    assert text.startswith("graph {") and '"a" -- "b"' in text
    assert path.read_text(encoding="utf-8") == text


def test_dot_from_model():
    frame = gm.datasets.load("car")
    model = gm.TAN().fit(frame.drop(columns="class"), frame["class"])
    text = to_dot(model)
    assert text.count(" -> ") == model.structure_.number_of_edges()
    assert text.count('"kind"="augmenting"') == len(model.structure_.nodes) - 2


@pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")  # pydot 4 on pyparsing 3.3: not ours
def test_dot_parses_with_pydot(tmp_path):
    pydot = pytest.importorskip("pydot", reason="pydot reads the DOT files back")
    g = _odd_graph()
    (parsed,) = pydot.graph_from_dot_data(to_dot(g))
    assert len(parsed.get_edges()) == g.number_of_edges()
    # Names with characters XML cannot hold (see test_dot_of_hostile_names_...): the file reads back.
    hostile = _hostile_graph()
    to_dot(hostile, tmp_path / "hostile.dot")
    (parsed,) = pydot.graph_from_dot_file(tmp_path / "hostile.dot", encoding="utf-8")
    assert len(parsed.get_edges()) == hostile.number_of_edges()
    nodes = {node.get_name() for node in parsed.get_nodes()} - {"node"}
    assert len(nodes) == hostile.number_of_nodes()


def test_string_ids_distinct():
    g = nx.Graph()
    g.add_nodes_from([1, "1", (1, 2), "a"])
    ids = string_ids(g)
    assert len(set(ids.values())) == 4 and ids["1"] == "1" and ids["a"] == "a" and ids[(1, 2)] == "(1, 2)"
    assert list(ids) == list(g.nodes)


# ----------------------------------------------------------------------- GraphML


def test_graphml_round_trip(tmp_path):
    g = _odd_graph()
    path = tmp_path / "g.graphml"
    to_graphml(g, path)
    back = nx.read_graphml(path)
    assert isinstance(back, nx.DiGraph)
    assert set(back.nodes) == {str(n) for n in g.nodes}
    assert back.number_of_edges() == g.number_of_edges()
    for node, data in g.nodes(data=True):
        got = back.nodes[str(node)]
        assert got["name"] == str(node)
        assert got["role"] == data["role"]
        assert got["cardinality"] == int(data["cardinality"])
    for u, v, data in g.edges(data=True):
        got = back.edges[str(u), str(v)]
        assert got["kind"] == data["kind"]
        if "weight" in data:
            assert got["weight"] == pytest.approx(float(data["weight"]))
        else:
            assert "weight" not in got
    assert json.loads(back.edges["a b", "é"]["classes"]) == ["yes", "no"]
    assert json.loads(back.edges["1", "#"]["classes"]) == ["no"]
    assert json.loads(back.nodes["é"]["states"]) == ["x", "y"]
    assert back.nodes["#"]["missing"] == "None"
    assert back.nodes["two\nlines"]["name"] == "two\nlines"


def test_graphml_from_models(tmp_path):
    frame = gm.datasets.load("tic-tac-toe")
    X, y = frame.drop(columns="class"), frame["class"]
    for model in (gm.ChowLiu().fit(X, y), gm.FAN().fit(X, y), gm.ChowLiuTree().fit(frame)):
        path = tmp_path / "m.graphml"
        to_graphml(model, path)
        back = nx.read_graphml(path)
        assert back.number_of_edges() == model.structure_.number_of_edges()
        assert {n: d["role"] for n, d in back.nodes(data=True)} == dict(model.structure_.nodes(data="role"))


def test_graphml_undirected_and_mixed_types(tmp_path):
    g = nx.Graph()
    g.add_edge("a", "b", weight=1)
    g.add_edge("b", "c", weight=0.5)
    g.add_edge("c", "d", weight=None)
    ready = graphml_ready(g)
    assert {type(w) for _, _, w in ready.edges(data="weight")} == {str}
    path = tmp_path / "u.graphml"
    to_graphml(g, path)
    back = nx.read_graphml(path)
    assert not back.is_directed() and back.number_of_edges() == 3


def test_exports_do_not_mutate(tmp_path):
    g = _odd_graph()
    before = _snapshot(g)
    to_dot(g)
    to_graphml(g, tmp_path / "g.graphml")
    graphml_ready(g)
    after = _snapshot(g)
    assert [n for n, _ in after[0]] == [n for n, _ in before[0]]
    assert repr(after) == repr(before)


@pytest.mark.parametrize("export", [to_dot, lambda x: to_graphml(x, "never.graphml")])
def test_exports_reject_non_graph(export):
    with pytest.raises(TypeError, match="networkx graph"):
        export({"a": ["b"]})
    with pytest.raises(gm.models.NotFittedError, match="NaiveBayes instance is not fitted"):
        export(gm.NaiveBayes())


# --------------------------------------------------------------- hostile names (issue 26)

# Characters XML 1.0 cannot hold (NUL, ESC, a lone surrogate, U+FFFE) and legal ones that must
# round-trip as they are (newline, tab, markup, Unicode, a literal backslash).
HOSTILE = ["\x00", "\x1b[31m", "a\nb", "\ud800", '<&>"', "é漢🙂", "\\x00", "tab\tx", "\ufffe"]
ESCAPED = {"\x00": "\\x00", "\x1b[31m": "\\x1b[31m", "\ud800": "\\ud800", "\ufffe": "\\ufffe"}


def _hostile_graph():
    g = nx.DiGraph(title="\x07bell")
    g.add_node("class", role="class")
    for i, name in enumerate(HOSTILE):
        g.add_node(name, role="feature", label=name, states=[name, "ok"], **{f"key\x01{i}": i})
        g.add_edge("class", name, kind="class", note=name)
    return g


def test_graphml_of_hostile_names_reads_back_with_networkx(tmp_path):
    g = _hostile_graph()
    path = tmp_path / "hostile.graphml"
    to_graphml(g, path)
    back = nx.read_graphml(path)
    assert back.number_of_nodes() == g.number_of_nodes() and back.number_of_edges() == g.number_of_edges()
    ids = string_ids(g)
    # A name XML can hold is kept exactly; the others are escaped, and "\x00" then meets the
    # literal backslash name "\\x00", so it takes a "#2" suffix to stay distinct.
    assert ids == {"class": "class", **{n: ESCAPED.get(n, n) for n in HOSTILE}, "\x00": "\\x00#2"}
    assert set(back.nodes) == set(ids.values())
    for name in HOSTILE:
        data = back.nodes[ids[name]]
        assert data["label"] == data["name"] == ESCAPED.get(name, name)
        assert json.loads(data["states"]) == [name, "ok"]  # JSON text keeps them, as \\u escapes
        assert back.edges["class", ids[name]]["note"] == ESCAPED.get(name, name)
    assert back.nodes[ids["\x1b[31m"]]["key\\x011"] == 1
    assert back.graph["title"] == "\\x07bell"


def test_dot_of_hostile_names_is_utf8_and_parses_back(tmp_path):
    g = _hostile_graph()
    path = tmp_path / "hostile.dot"
    text = to_dot(g, path)
    assert path.read_bytes().decode("utf-8") == text
    assert not re.search("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]", text)
    node_lines = [line for line in text.splitlines() if re.match(rf"^  {QUOTED} \[", line)]
    names = [_unquote(re.match(rf"^  ({QUOTED})", line).group(1)) for line in node_lines]
    assert names == list(string_ids(g).values())
    assert '"note"="a\\nb"' in text and '"label"="\\\\x00"' in text
