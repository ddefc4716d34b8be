"""Tree and forest structure learners: Chow-Liu, TAN and FAN.

Each learner takes sufficient statistics (a
:class:`~graphmodels.stats.CountingEngine`, or a DataFrame that is counted on
the spot) and returns a new networkx graph. Spanning trees come from
networkx's own Kruskal and Prim implementations.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from collections.abc import Hashable, Iterable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal, overload

import networkx as nx
import numpy as np

from .._trace import Trace, new_trace, root_rows, traced
from ..stats.information import as_engine, pairwise_mutual_information
from ..stats.scores import check_equivalent_sample_size, pairwise_bdeu_gain
from ..structures.forests import augmented_naive_bayes, orient_forest
from ._common import class_information, feature_positions, tie_safe

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.counting import CountingEngine

__all__ = [
    "chow_liu_tree",
    "tan_structure",
    "fan_structure",
    "fan_threshold",
    "SPANNING_TREE_ALGORITHMS",
    "TREE_CRITERIA",
    "DEFAULT_TREE_ESS",
]

#: Spanning-tree algorithms, passed on to :func:`networkx.maximum_spanning_tree`.
SPANNING_TREE_ALGORITHMS = ("kruskal", "prim")
#: Edge weights of :func:`chow_liu_tree`: mutual information, its MDL penalty, the BDeu Bayes factor.
TREE_CRITERIA = ("ml", "mdl", "bdeu")
#: Default equivalent sample size of ``criterion="bdeu"``: ChowLiu's default, chosen by evidence
#: (benchmarks/bench_defaults_structure.py --family chow-liu).
DEFAULT_TREE_ESS = 4.0


def _check_algorithm(algorithm):
    if algorithm not in SPANNING_TREE_ALGORITHMS:
        raise ValueError(f"Unknown spanning-tree algorithm {algorithm!r}; valid: {list(SPANNING_TREE_ALGORITHMS)}.")


def canonical_order(names: Iterable[Hashable]) -> list[Hashable]:
    """Names sorted by their text (then type), independent of column order."""
    return sorted(names, key=lambda name: (str(name), type(name).__name__))


def _weighted_graph(engine, positions, weights, *, keep=None):
    """Complete graph over `positions` with ``weight`` = off-diagonal `weights`.

    Nodes and edges are added in :func:`canonical_order`, which is the
    order networkx's Kruskal (stable sort) and Prim use to break ties.
    """
    index = {engine.names[p]: i for i, p in enumerate(positions)}
    order = canonical_order(index)
    graph = nx.Graph()
    for name in order:
        p = positions[index[name]]
        graph.add_node(name, role="feature", cardinality=int(engine.cardinalities[p]))
    for a, u in enumerate(order):
        for v in order[a + 1 :]:
            i, j = index[u], index[v]
            if keep is None or keep[i, j]:
                graph.add_edge(u, v, weight=tie_safe(weights[i, j]))
    return graph


def _names(engine, positions):
    return [engine.names[p] for p in positions]


# ----------------------------------------------------------------------------- traced spanning trees
def _spanning_tree(graph: nx.Graph, weight: str, algorithm: str, record: Trace | None, **values: Any) -> nx.Graph:
    """``nx.maximum_spanning_tree(graph, weight, algorithm)``; with a `record`, each step recorded too.

    Not tracing, this is networkx's call and nothing else. Tracing, Kruskal
    goes over the candidate edges itself, in networkx's order (the edges of
    ``graph.edges(data=True)`` stably sorted by decreasing weight, as
    ``kruskal_mst_edges`` sorts them) with a union-find, so that the rejected
    edges can be recorded; it accepts exactly the edges networkx accepts.
    Prim goes over its frontier as networkx's ``prim_mst_edges`` does, recording the edges it
    pops and discards as rejected.
    The tree is assembled as ``maximum_spanning_tree`` assembles it.
    """
    if record is None:
        return nx.maximum_spanning_tree(graph, weight=weight, algorithm=algorithm)
    if algorithm == "kruskal":
        edges = _traced_kruskal(graph, weight, record, values)
    else:
        edges = _traced_prim(graph, weight, record, values)
    tree = graph.__class__()
    tree.graph.update(graph.graph)
    tree.add_nodes_from(graph.nodes.items())
    tree.add_edges_from(edges)
    return tree


def _traced_kruskal(graph, weight, record, values):
    candidates = sorted(
        ((d.get(weight, 1), u, v, d) for u, v, d in graph.edges(data=True)), key=itemgetter(0), reverse=True
    )
    subtrees = nx.utils.UnionFind()
    accepted, rejected = [], []
    for w, u, v, d in candidates:
        if subtrees[u] != subtrees[v]:
            subtrees.union(u, v)
            accepted.append((u, v, d))
            record.add("accept", (u, v), float(w), "joins two trees", cycle=None, **values)
        else:
            rejected.append(record.add("reject", (u, v), float(w), "", **values))
    _name_cycles(graph, accepted, rejected)
    return accepted


def _name_cycles(graph, accepted, rejected):
    """Give each rejected edge's trace row the cycle it would close, and say so in its reason.

    Forests only grow, so the path joining a rejected edge's ends when it was rejected is
    their path in the final forest (paths in a forest are unique): Kruskal and Prim alike.
    """
    if not rejected:
        return
    path = _forest_paths(graph, accepted)
    for row in rejected:
        cycle = path(*row["item"])
        row["cycle"] = cycle
        row["reason"] = f"closes a cycle of {len(cycle)} edges"


def _forest_paths(graph, edges):
    """``path(u, v)``: the nodes from `u` to `v` in the forest of `edges` (u and v connected)."""
    forest = nx.Graph()
    forest.add_nodes_from(graph)
    forest.add_edges_from((u, v) for u, v, _ in edges)
    parent, depth = {}, {}  # in the BFS tree of each component
    for root in forest:
        if root in depth:
            continue
        depth[root] = 0
        for a, b in nx.bfs_edges(forest, root):
            parent[b], depth[b] = a, depth[a] + 1

    def path(u, v):
        up, down = [u], [v]
        while depth[up[-1]] > depth[down[-1]]:
            up.append(parent[up[-1]])
        while depth[down[-1]] > depth[up[-1]]:
            down.append(parent[down[-1]])
        while up[-1] != down[-1]:
            up.append(parent[up[-1]])
            down.append(parent[down[-1]])
        return tuple(up + down[-2::-1])

    return path


def _traced_prim(graph, weight, record, values):
    """Prim's steps, by networkx's ``prim_mst_edges`` (maximum) written out to record the rejected edges.

    The same start vertices (``set(graph).pop()``), the same frontier heap and
    tie-breaking counter, so the same accepted edges as networkx's generator
    (tested); an edge popped from the frontier whose far end joined the tree
    since it was pushed is recorded as ``"reject"`` with the cycle it would
    close in the tree.
    """
    nodes = set(graph)
    counter = itertools.count()
    edges, rejected = [], []
    while nodes:
        u = nodes.pop()
        record.add("start", u, math.nan, "Prim grows a tree from here", cycle=None, **values)
        visited = {u}
        frontier: list[Any] = []
        for v, d in graph.adj[u].items():
            heapq.heappush(frontier, (-d.get(weight, 1), next(counter), u, v, d))
        while nodes and frontier:
            w, _, a, b, d = heapq.heappop(frontier)
            if b in visited or b not in nodes:
                if b in visited:
                    rejected.append(record.add("reject", (a, b), float(-w), "", **values))
                continue
            edges.append((a, b, d))
            record.add("accept", (a, b), float(-w), "heaviest edge leaving the tree", cycle=None, **values)
            visited.add(b)
            nodes.discard(b)
            for c, d2 in graph.adj[b].items():
                if c not in visited:
                    heapq.heappush(frontier, (-d2.get(weight, 1), next(counter), b, c, d2))
    _name_cycles(graph, edges, rejected)
    return edges


def _dropped_pairs(record, engine, positions, weights, keep, reason, scores=None, **columns):
    """One ``"drop"`` step per pair left out of the candidate graph, by decreasing score (ties: canonical order)."""
    index = {engine.names[p]: i for i, p in enumerate(positions)}
    order = canonical_order(index)
    scores = weights if scores is None else scores
    pairs = [(u, v) for a, u in enumerate(order) for v in order[a + 1 :] if not keep[index[u], index[v]]]
    pairs.sort(key=lambda e: -tie_safe(scores[index[e[0]], index[e[1]]]))
    for u, v in pairs:
        i, j = index[u], index[v]
        extra = {name: float(column[i, j]) for name, column in columns.items()}
        record.add("drop", (u, v), tie_safe(scores[i, j]), reason, cycle=None, **extra)


@overload
def chow_liu_tree(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    stratum: tuple[Hashable, int] | None = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[False] = ...,
) -> nx.Graph: ...


@overload
def chow_liu_tree(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    stratum: tuple[Hashable, int] | None = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[True],
) -> tuple[nx.Graph, pd.DataFrame]: ...


@overload
def chow_liu_tree(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    stratum: tuple[Hashable, int] | None = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: bool = ...,
) -> nx.Graph | tuple[nx.Graph, pd.DataFrame]: ...


def chow_liu_tree(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
    stratum: tuple[Hashable, int] | None = None,
    criterion: str = "ml",
    equivalent_sample_size: float = DEFAULT_TREE_ESS,
    trace: bool = False,
) -> nx.Graph | tuple[nx.Graph, pd.DataFrame]:
    """Maximum spanning tree of the pairwise mutual information (Chow & Liu).

    The tree-shaped distribution closest in KL divergence to the empirical
    one is the maximum-weight spanning tree with weights ``I(X_i; X_j)`` [1]_.
    With ``criterion="mdl"`` each weight pays Liang & Srebro's MDL penalty
    ``(r_i - 1)(r_j - 1) log(m) / (2m)`` (``m`` rows) and only edges of
    positive weight are kept: the maximum-weight spanning *forest*, the
    tree-width-1 MDL hyperforest [2]_. With ``criterion="bdeu"`` the weight
    of an edge is its BDeu log Bayes factor per row,
    ``(BDeu(X_j | X_i) - BDeu(X_j)) / m`` (:func:`~graphmodels.stats.pairwise_bdeu_gain`,
    the same in both directions), and the maximum spanning forest of the
    positive weights is the tree network of highest BDeu marginal
    likelihood [3]_.

    Parameters
    ----------
    data : CountingEngine or DataFrame
        Sufficient statistics.
    variables : sequence, optional
        Defaults to all variables.
    algorithm : {"kruskal", "prim"}, default="kruskal"
    stratum : (variable, state code), optional
        Learn from the rows where ``variable`` has that state only (e.g. the
        rows of one class), from the engine's pairwise tables given that
        variable: one counting pass serves every stratum.
    criterion : {"ml", "mdl", "bdeu"}, default="ml"
        ``"ml"``: Chow & Liu's spanning tree. ``"mdl"``: the spanning forest
        of the MDL weights; ``"bdeu"``: of the BDeu weights (``m`` is the
        stratum's rows when `stratum` is given).
    equivalent_sample_size : float, default=4.0
        The BDeu prior's equivalent sample size, for ``criterion="bdeu"``:
        a larger one keeps more edges (the prior flattens toward a uniform
        table, so the data's dependences weigh more, Silander et al. [4]_).
        Pairs with no mutual information in the rows (e.g. a column
        constant there) are never linked.
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    tree : nx.Graph
        An undirected spanning tree (a forest for ``"mdl"`` and ``"bdeu"``);
        nodes carry ``role="feature"`` and ``cardinality``, edges ``weight``
        = mutual information in nats (minus the penalty for ``"mdl"``; the
        log Bayes factor per row for ``"bdeu"``).
    trace : DataFrame
        Only with ``trace=True``: one row per step, in order. ``step``
        (int); ``action``: ``"drop"`` (``"mdl"`` and ``"bdeu"``: a pair whose weight
        is not positive, left out before the search, listed first),
        ``"accept"`` or ``"reject"`` (Kruskal: every candidate edge, by
        decreasing weight, in networkx's order; a rejected edge would close a
        cycle of the forest built so far) and ``"start"`` (Prim: the vertex a tree grows from; Prim
        lists the accepted edges in the order it adds them, and no
        rejections); ``item``: the edge ``(u, v)`` (a vertex for
        ``"start"``); ``score``: the edge's weight; ``reason``: why;
        ``cycle``: for a rejected edge ``(u, v)``, the cycle it would close,
        as the tuple of nodes of the forest's path from ``u`` to ``v`` at
        that step (None otherwise). The accepted edges are exactly the
        tree's.

    Raises
    ------
    ValueError
        For an unknown `algorithm`.
    TypeError
        For a `trace` that is not a bool.

    See Also
    --------
    graphmodels.structures.orient_forest : direct it from a root.

    References
    ----------
    .. [1] Chow, C. K., & Liu, C. N. (1968). Approximating discrete
           probability distributions with dependence trees. *IEEE
           Transactions on Information Theory*, 14(3), 462-467.
    .. [2] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. MIT CSAIL technical report,
           section 2.3 (MDL weights).
    .. [3] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical
           data. *Machine Learning*, 20(3), 197-243.
    .. [4] Silander, T., Kontkanen, P., & Myllymäki, P. (2007). On
           sensitivity of the MAP Bayesian network structure to the
           equivalent sample size parameter. *UAI 2007*, 360-367.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 0, 1, 1, 1], "c": [0, 0, 1, 0, 0]})
    >>> sorted(tuple(sorted(e)) for e in chow_liu_tree(frame).edges())
    [('a', 'b'), ('a', 'c')]
    >>> tree, steps = chow_liu_tree(frame, trace=True)
    >>> steps[["action", "item"]].to_records(index=False).tolist()
    [('accept', ('a', 'b')), ('accept', ('a', 'c')), ('reject', ('b', 'c'))]
    >>> steps["cycle"].iloc[-1]
    ('b', 'a', 'c')
    """
    _check_algorithm(algorithm)
    if criterion not in TREE_CRITERIA:
        raise ValueError(f"Unknown criterion {criterion!r}; valid: {list(TREE_CRITERIA)}.")
    if criterion == "bdeu":
        check_equivalent_sample_size(equivalent_sample_size)
    record = new_trace(trace, "chow_liu_tree", "cycle")
    tree = _chow_liu_tree(data, variables, algorithm, stratum, criterion, record, equivalent_sample_size)
    return traced(tree, record)


def _per_stratum(engine, weigh, names, stratified, *key):
    """``weigh(engine, names, **stratified)`` for every stratum, kept in the engine's cache.

    A multinet asks for one stratum's matrix per class: all of them come from one call.
    """
    cache_key = ("chow_liu_weights", getattr(weigh, "func", weigh).__name__, tuple(names), stratified["given"], *key)
    cached = engine._cache.get(cache_key)
    if cached is None:
        cached = np.asarray(weigh(engine, names, **stratified))
        cached.flags.writeable = False  # shared by every class's search
        engine._cache[cache_key] = cached
    return cached


def _chow_liu_tree(data, variables, algorithm, stratum, criterion, record, equivalent_sample_size=DEFAULT_TREE_ESS):
    """:func:`chow_liu_tree` (arguments checked), recording into `record` (a Trace or None)."""
    engine = as_engine(data)
    if stratum is None:
        positions = feature_positions(engine, variables)
        names = _names(engine, positions)
        weights = pairwise_mutual_information(engine, names)
        rows = float(engine.total)
        stratified: dict[str, Any] = {}
    else:
        variable, state = stratum
        given = engine.position(variable)
        positions = feature_positions(engine, variables, exclude=given)
        names = _names(engine, positions)
        stratified = {"given": engine.names[given], "per_stratum": True}
        weights = _per_stratum(engine, pairwise_mutual_information, names, stratified)[int(state)]
        rows = float(np.asarray(engine.counts([engine.names[given]]))[int(state)])
    keep = None
    if criterion == "bdeu":
        bdeu = functools.partial(pairwise_bdeu_gain, equivalent_sample_size=equivalent_sample_size)
        if stratum is None:
            gains = bdeu(engine, names)
        else:
            gains = _per_stratum(engine, bdeu, names, stratified, equivalent_sample_size)[int(stratum[1])]
        # Only pairs that share information in these rows: BDeu spreads its prior over every state,
        # also states these rows never take, and then favours an edge at a column that is constant
        # here (a known artefact of BDeu with unobserved states, Ueno 2010), which fits nothing.
        informative = np.round(weights, 12) > 0
        # The log Bayes factor per row, in the units of the other criteria's weights.
        weights = gains / rows if rows > 0 else np.zeros_like(gains)
        keep = informative & (np.round(weights, 12) > 0)
        if record is not None:
            _dropped_pairs(record, engine, positions, weights, informative, "no information between them in these rows")
            _dropped_pairs(
                record,
                engine,
                positions,
                weights,
                keep | ~informative,
                "BDeu Bayes factor <= 1: the data favour no edge",
            )
    if criterion == "mdl":
        free = np.asarray([engine.cardinalities[p] for p in positions], dtype=np.float64) - 1.0
        penalty = math.log(rows) / (2.0 * rows) if rows > 1 else 0.0
        weights = weights - penalty * np.outer(free, free)
        # Rounded as the spanning tree's weights are: a weight that is 0 in exact arithmetic is not kept.
        keep = np.round(weights, 12) > 0
        if record is not None:
            _dropped_pairs(record, engine, positions, weights, keep, "MDL weight <= 0: not worth its parameters")
    complete = _weighted_graph(engine, positions, weights, keep=keep)
    return _spanning_tree(complete, "weight", algorithm, record)


def _augmented(engine, class_pos, positions, forest, record=None):
    class_name = engine.names[class_pos]
    class_info = class_information(engine, positions, class_pos)
    directed = orient_forest(forest, root_key=class_info.__getitem__)
    if record is not None:
        root_rows(record, directed, class_info, "highest I(X; C) of its tree: the arcs point away from it")
    cards = {engine.names[p]: engine.cardinalities[p] for p in positions + (class_pos,)}
    graph = augmented_naive_bayes(
        class_name,
        [engine.names[p] for p in positions],
        directed,
        cardinalities=cards,
        class_weights=class_info,
    )
    return graph


@overload
def tan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: Literal[False] = ...,
) -> nx.DiGraph: ...


@overload
def tan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: Literal[True],
) -> tuple[nx.DiGraph, pd.DataFrame]: ...


@overload
def tan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: bool = ...,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]: ...


def tan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Tree-augmented naive Bayes structure (Friedman, Geiger & Goldszmidt).

    A maximum spanning tree over the attributes with weights
    ``I(X_i; X_j | C)``, directed away from a root, plus an arc from the class
    to every attribute [1]_. This maximizes the log-likelihood among all
    augmented naive Bayes networks whose attributes have at most one
    attribute parent. The root is the attribute with the highest
    ``I(X; C)``, so the result does not depend on column order.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    class_variable : name
    features : sequence, optional
        Defaults to every variable but the class.
    algorithm : {"kruskal", "prim"}, default="kruskal"
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    structure : nx.DiGraph
        Class node ``role="class"``; arcs ``kind="class"`` (weight
        ``I(X; C)``) and ``kind="augmenting"`` (weight ``I(X_i; X_j | C)``).
    trace : DataFrame
        Only with ``trace=True``: the spanning-tree steps as
        :func:`chow_liu_tree` records them (``score`` = ``I(X_i; X_j | C)``),
        then one ``"root"`` step per tree: ``item`` the attribute the arcs
        point away from, ``score`` its ``I(X; C)``. The accepted edges,
        directed away from the roots, are the augmenting arcs.

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. *Machine Learning*, 29(2-3), 131-163.
    """
    _check_algorithm(algorithm)
    record = new_trace(trace, "tan_structure", "cycle")
    engine = as_engine(data)
    class_pos = engine.position(class_variable)
    positions = feature_positions(engine, features, exclude=class_pos)
    weights = pairwise_mutual_information(engine, _names(engine, positions), given=engine.names[class_pos])
    complete = _weighted_graph(engine, positions, weights)
    tree = _spanning_tree(complete, "weight", algorithm, record)
    return traced(_augmented(engine, class_pos, positions, tree, record), record)


def fan_threshold(n_classes: int, cardinality_i: int, cardinality_j: int, n_samples: float) -> float:
    """Hamine & Helman's threshold ``T_R = |C|(|X_i|-1)(|X_j|-1) log N / (2N)``.

    An augmenting arc lowers the MDL score iff its conditional mutual
    information (in nats) exceeds this value (eq. 8 of [1]_).

    Parameters
    ----------
    n_classes : int
        ``|C|``.
    cardinality_i, cardinality_j : int
        ``|X_i|`` and ``|X_j|``.
    n_samples : float
        ``N``, the number of training rows (sum of weights).

    Returns
    -------
    float
        ``inf`` when ``n_samples <= 1``.

    References
    ----------
    .. [1] Hamine, V., & Helman, P. (2004). Learning optimal augmented Bayes
           networks. arXiv:cs/0509055.

    Examples
    --------
    >>> round(fan_threshold(2, 3, 3, 100), 6)  # 2 * 2 * 2 * log(100) / 200
    0.184207
    """
    if n_samples <= 1:
        return math.inf
    return n_classes * (cardinality_i - 1) * (cardinality_j - 1) * math.log(n_samples) / (2 * n_samples)


@overload
def fan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: Literal[False] = ...,
) -> nx.DiGraph: ...


@overload
def fan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: Literal[True],
) -> tuple[nx.DiGraph, pd.DataFrame]: ...


@overload
def fan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    algorithm: str = ...,
    trace: bool = ...,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]: ...


def fan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """MDL-optimal forest-augmented naive Bayes (Hamine & Helman).

    1. Weight every attribute pair by ``I(X_i; X_j | C)`` (nats).
    2. Drop the pairs whose weight does not exceed
       :func:`fan_threshold` ``T_R`` (an arc at exactly ``T_R`` leaves the MDL
       score unchanged; it is dropped, for the simpler of two optimal models).
    3. Maximum spanning tree on each remaining connected component, with
       the MDL gains ``I(X_i; X_j | C) - T_R`` as weights (the same tree as
       with the information alone when all attributes have the same number
       of states).
    4. Root each tree at its attribute of highest ``I(X; C)``; the class is a
       parent of every attribute.

    The result minimizes the MDL score of eq. (5) of [1]_ over all augmented
    naive Bayes networks whose attributes have at most one attribute parent.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    class_variable : name
    features : sequence, optional
    algorithm : {"kruskal", "prim"}, default="kruskal"
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    structure : nx.DiGraph
        As :func:`tan_structure`; augmenting arcs also carry ``threshold``.
    trace : DataFrame
        Only with ``trace=True``, the steps in the paper's order. First a
        ``"drop"`` step per pair whose information does not exceed its
        threshold (step 2); then a ``"component"`` step per connected
        component of the pairs kept (step 3; ``item`` the frozenset of its
        attributes, ``threshold`` its ``T_R`` when all its pairs share one,
        else NaN with the range in ``reason``); then the spanning-tree steps
        as :func:`chow_liu_tree` records them (step 4, networkx's Kruskal or
        Prim over all components at once, which is Kruskal on each
        component), each with its ``component`` (the index of its
        ``"component"`` step); then the ``"root"`` steps as in
        :func:`tan_structure`. ``score`` is the MDL gain
        ``I(X_i; X_j | C) - T_R`` the spanning tree maximizes, beside the
        columns ``information`` (``I(X_i; X_j | C)``) and ``threshold``
        (``T_R``), and ``cycle``. The accepted edges, directed away from the
        roots, are the augmenting arcs.

    Notes
    -----
    The paper's step 4 runs Kruskal on the information ``I(X_i; X_j | C)``
    itself. Its optimality argument holds when every arc has the same
    threshold, that is when all attributes have the same number of states.
    ``T_R`` depends on the two attributes' cardinalities, so in general the
    spanning tree of each component must maximize the summed gain
    ``I - T_R`` (the MDL score change of eq. 7 divided by ``N``); with equal
    cardinalities the two trees coincide. A brute-force search over all
    forests confirms the optimum in the tests.

    References
    ----------
    .. [1] Hamine, V., & Helman, P. (2004). Learning optimal augmented Bayes
           networks. arXiv:cs/0509055.
    """
    _check_algorithm(algorithm)
    record = new_trace(trace, "fan_structure", "component", "information", "threshold", "cycle", integers=["component"])
    engine = as_engine(data)
    class_pos = engine.position(class_variable)
    positions = feature_positions(engine, features, exclude=class_pos)
    weights = pairwise_mutual_information(engine, _names(engine, positions), given=engine.names[class_pos])
    cards = engine.cardinalities[list(positions)].astype(float)
    n_classes = int(engine.cardinalities[class_pos])
    n = engine.total
    thresholds = (
        np.array([[fan_threshold(n_classes, ci, cj, n) for cj in cards] for ci in cards])
        if len(cards)
        else np.zeros((0, 0))
    )
    keep = weights > thresholds
    graph = _weighted_graph(engine, positions, weights, keep=keep)
    for u, v in graph.edges:
        i, j = positions.index(engine.position(u)), positions.index(engine.position(v))
        graph.edges[u, v]["threshold"] = float(thresholds[i, j])
        # The MDL gain of the arc, N * (I - T_R): thresholds differ between
        # pairs of different cardinalities, so the optimal forest maximizes
        # the summed gain, not the summed information.
        graph.edges[u, v]["_gain"] = tie_safe(weights[i, j] - thresholds[i, j])
    if record is not None:
        component_of = _fan_components(record, engine, positions, weights, thresholds, keep, graph)
    forest = _spanning_tree(graph, "_gain", algorithm, record)
    if record is not None:
        _fan_tree_columns(record, graph, component_of)
    for _, _, attributes in forest.edges(data=True):
        del attributes["_gain"]
    return traced(_augmented(engine, class_pos, positions, forest, record), record)


def _fan_components(record, engine, positions, weights, thresholds, keep, graph):
    """FAN's steps 2 and 3: the pairs dropped by their threshold, then the components of the rest.

    Returns the index of each attribute's component.
    """
    _dropped_pairs(
        record,
        engine,
        positions,
        weights,
        keep,
        "I(X_i; X_j | C) <= T_R: the arc does not lower the MDL score",
        scores=weights - thresholds,
        information=weights,
        threshold=thresholds,
    )
    component_of = {}
    for index, members in enumerate(sorted(nx.connected_components(graph), key=lambda c: canonical_order(c)[0])):
        values = {graph.edges[e]["threshold"] for e in graph.subgraph(members).edges}
        if len(values) == 1:
            (threshold,) = values
            reason = f"T_R = {threshold:.6g} for every pair of the component"
        elif values:
            threshold = math.nan
            reason = f"T_R from {min(values):.6g} to {max(values):.6g} (the cardinalities differ)"
        else:
            threshold = math.nan
            reason = "no pair above its threshold: the attribute stays alone"
        record.add("component", frozenset(members), math.nan, reason, component=index, threshold=threshold)
        component_of.update(dict.fromkeys(members, index))
    return component_of


def _fan_tree_columns(record, graph, component_of):
    """The component, information and threshold of every spanning-tree step of FAN."""
    for row in record.rows:
        if row["action"] in ("accept", "reject"):
            u, v = row["item"]
            row["component"] = component_of[u]
            row["information"] = graph.edges[u, v]["weight"]
            row["threshold"] = graph.edges[u, v]["threshold"]
        elif row["action"] == "start":
            row["component"] = component_of[row["item"]]
