"""Tree and forest structure learners: Chow-Liu, TAN and FAN.

Each learner takes sufficient statistics (a
:class:`~graphmodels.stats.CountingEngine`, or a DataFrame that is counted on
the spot) and returns a new networkx graph. Spanning trees come from
networkx's own Kruskal and Prim implementations.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from ..stats.information import as_engine, pairwise_mutual_information
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
]

#: Spanning-tree algorithms, passed on to :func:`networkx.maximum_spanning_tree`.
SPANNING_TREE_ALGORITHMS = ("kruskal", "prim")


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


def chow_liu_tree(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
    stratum: tuple[Hashable, int] | None = None,
    criterion: str = "ml",
) -> nx.Graph:
    """Maximum spanning tree of the pairwise mutual information (Chow & Liu).

    The tree-shaped distribution closest in KL divergence to the empirical
    one is the maximum-weight spanning tree with weights ``I(X_i; X_j)`` [1]_.
    With ``criterion="mdl"`` each weight pays Liang & Srebro's MDL penalty
    ``(r_i - 1)(r_j - 1) log(m) / (2m)`` (``m`` rows) and only edges of
    positive weight are kept: the maximum-weight spanning *forest*, the
    tree-width-1 MDL hyperforest [2]_.

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
    criterion : {"ml", "mdl"}, default="ml"
        ``"ml"``: Chow & Liu's spanning tree. ``"mdl"``: the spanning forest
        of the MDL weights (``m`` is the stratum's rows when `stratum` is
        given).

    Returns
    -------
    nx.Graph
        An undirected spanning tree (a forest for ``"mdl"``); nodes carry
        ``role="feature"`` and ``cardinality``, edges ``weight`` = mutual
        information in nats (minus the penalty for ``"mdl"``).

    Raises
    ------
    ValueError
        For an unknown `algorithm`.

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

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1, 0], "b": [0, 0, 1, 1, 1], "c": [0, 0, 1, 0, 0]})
    >>> sorted(tuple(sorted(e)) for e in chow_liu_tree(frame).edges())
    [('a', 'b'), ('a', 'c')]
    """
    _check_algorithm(algorithm)
    if criterion not in ("ml", "mdl"):
        raise ValueError(f"Unknown criterion {criterion!r}; valid: ['ml', 'mdl'].")
    engine = as_engine(data)
    if stratum is None:
        positions = feature_positions(engine, variables)
        weights = pairwise_mutual_information(engine, _names(engine, positions))
        rows = float(engine.total)
    else:
        variable, state = stratum
        given = engine.position(variable)
        positions = feature_positions(engine, variables, exclude=given)
        per_state = pairwise_mutual_information(
            engine, _names(engine, positions), given=engine.names[given], per_stratum=True
        )
        weights = per_state[int(state)]
        rows = float(np.asarray(engine.counts([engine.names[given]]))[int(state)])
    keep = None
    if criterion == "mdl":
        free = np.asarray([engine.cardinalities[p] for p in positions], dtype=np.float64) - 1.0
        penalty = math.log(rows) / (2.0 * rows) if rows > 1 else 0.0
        weights = weights - penalty * np.outer(free, free)
        keep = weights > 0
    complete = _weighted_graph(engine, positions, weights, keep=keep)
    return nx.maximum_spanning_tree(complete, weight="weight", algorithm=algorithm)


def _augmented(engine, class_pos, positions, forest):
    class_name = engine.names[class_pos]
    class_info = class_information(engine, positions, class_pos)
    directed = orient_forest(forest, root_key=class_info.__getitem__)
    cards = {engine.names[p]: engine.cardinalities[p] for p in positions + (class_pos,)}
    graph = augmented_naive_bayes(
        class_name,
        [engine.names[p] for p in positions],
        directed,
        cardinalities=cards,
        class_weights=class_info,
    )
    return graph


def tan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
) -> nx.DiGraph:
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

    Returns
    -------
    nx.DiGraph
        Class node ``role="class"``; arcs ``kind="class"`` (weight
        ``I(X; C)``) and ``kind="augmenting"`` (weight ``I(X_i; X_j | C)``).

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. *Machine Learning*, 29(2-3), 131-163.
    """
    _check_algorithm(algorithm)
    engine = as_engine(data)
    class_pos = engine.position(class_variable)
    positions = feature_positions(engine, features, exclude=class_pos)
    weights = pairwise_mutual_information(engine, _names(engine, positions), given=engine.names[class_pos])
    complete = _weighted_graph(engine, positions, weights)
    tree = nx.maximum_spanning_tree(complete, weight="weight", algorithm=algorithm)
    return _augmented(engine, class_pos, positions, tree)


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


def fan_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    algorithm: str = "kruskal",
) -> nx.DiGraph:
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

    Returns
    -------
    nx.DiGraph
        As :func:`tan_structure`; augmenting arcs also carry ``threshold``.

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
    forest = nx.maximum_spanning_tree(graph, weight="_gain", algorithm=algorithm)
    for _, _, attributes in forest.edges(data=True):
        del attributes["_gain"]
    return _augmented(engine, class_pos, positions, forest)
