"""The k-dependence Bayesian classifier structure (Sahami, 1996).

Every attribute has the class and at most `k` other attributes as parents:
``k = 0`` is naive Bayes, ``k = 1`` an attribute forest as in TAN, and larger
`k` lets each attribute depend on several others.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import networkx as nx

from .._trace import new_trace
from .._validation import Interval, validate_params
from ..stats.information import as_engine, pairwise_mutual_information
from ..structures.forests import augmented_naive_bayes, class_node
from ._common import class_information, feature_positions, tie_safe
from .trees import canonical_order

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.counting import CountingEngine

__all__ = ["kdb_ranking", "kdb_structure", "kdb_substructure"]

#: Rules of `k` and the conditional-information threshold, shared by the learner and the model.
KDB_PARAMETER_CONSTRAINTS = {
    "k": [Interval(numbers.Integral, 0, None)],
    "min_conditional_mutual_information": [Interval(numbers.Real, 0, None)],
}


@overload
def kdb_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: Literal[False] = ...,
) -> nx.DiGraph: ...


@overload
def kdb_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: Literal[True],
) -> tuple[nx.DiGraph, pd.DataFrame]: ...


@overload
def kdb_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: bool = ...,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]: ...


def kdb_structure(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    k: int = 1,
    min_conditional_mutual_information: float = 0.0,
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """k-dependence Bayesian classifier structure (Sahami's KDB).

    Sahami's greedy algorithm [1]_:

    1. Order the attributes by ``I(X_i; C)``, highest first (ties broken by
       name, as :func:`~graphmodels.learners.tan_structure` does, so column
       order never matters).
    2. Take them in that order; each one gets the class as a parent, plus
       the (up to) `k` attributes placed before it with the highest
       ``I(X_i; X_j | C)``, counting only those whose information exceeds
       `min_conditional_mutual_information` (Sahami's threshold
       :math:`\\theta`). Ties are broken by name.

    Every parent comes earlier in the order, so the result is acyclic.
    ``k=0`` gives naive Bayes; with ``k=1`` each attribute has at most one
    attribute parent (a forest, as in TAN, though chosen greedily rather
    than by a maximum spanning tree).

    Parameters
    ----------
    data : CountingEngine or DataFrame
        Sufficient statistics (a DataFrame is counted on the spot).
    class_variable : name
    features : sequence, optional
        Defaults to every variable but the class.
    k : int, default=1
        Largest number of attribute parents of an attribute, ``>= 0``.
    min_conditional_mutual_information : float, default=0.0
        An attribute is a parent only if its conditional mutual information
        (nats) with the child given the class exceeds this, ``>= 0``. The
        default keeps out only attributes conditionally independent of
        the child in the data.
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    structure : nx.DiGraph
        A new graph. Class node ``role="class"``, attribute nodes
        ``role="feature"``, both with ``cardinality``; arcs ``kind="class"``
        from the class to every attribute (``weight`` = ``I(X_i; C)``) and
        ``kind="augmenting"`` between attributes (``weight`` =
        ``I(X_i; X_j | C)``), all in nats.
    trace : DataFrame
        Only with ``trace=True``: one row per step. First an ``"order"``
        step per attribute, in the order of the search (``item`` the
        attribute, ``score`` its ``I(X_i; C)``, ``rank`` its place from 0);
        then, for each attribute in that order, every attribute placed
        before it as a candidate parent, by decreasing ``I(X_i; X_j | C)``
        (``score``; ties by name): ``"accept"`` (it became a parent) or
        ``"reject"``, with the ``reason`` (the attribute already has `k`
        parents, the family table would exceed ``max_cells``, or the
        information does not exceed `min_conditional_mutual_information`;
        those last come after the others). ``item`` is the arc
        ``(parent, child)``; ``child`` the attribute whose parents are
        chosen. The accepted arcs are exactly the augmenting arcs, each
        attribute's in the order it took them.

    Raises
    ------
    ValueError
        For a `k` that is not an integer >= 0, or a negative threshold
        (:class:`~graphmodels._validation.InvalidParameterError`).
    TypeError
        For a `trace` that is not a bool.

    See Also
    --------
    tan_structure : the maximum-likelihood structure with one attribute parent.
    graphmodels.models.KDB : the classifier.

    Notes
    -----
    All information values come from the counting engine in one batch:
    ``I(X_i; X_j | C)`` for every pair from
    :func:`~graphmodels.stats.pairwise_mutual_information` (one pass over
    the rows), ``I(X_i; C)`` from the same class-conditional tables. They
    are rounded to 1e-12 before comparison (see
    :func:`~graphmodels.learners.trees.tie_safe`).

    A candidate parent whose family table (class, parents, child) would
    exceed the engine's ``max_cells`` is left out, as in every structure
    search of the library; the next best candidate is taken instead.

    References
    ----------
    .. [1] Sahami, M. (1996). Learning limited dependence Bayesian
           classifiers. In *Proceedings of KDD-96*, 335-338.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.9, c, 1 - c)  # close to the class
    >>> b = np.where(rng.random(500) < 0.8, a, 1 - a)  # follows a
    >>> d = np.where(rng.random(500) < 0.7, a ^ b, rng.integers(0, 2, 500))  # follows a and b
    >>> frame = pd.DataFrame({"a": a, "b": b, "d": d, "class": c})
    >>> graph = kdb_structure(frame, "class", k=2)
    >>> sorted((u, v) for u, v, kind in graph.edges(data="kind") if kind == "augmenting")
    [('a', 'b'), ('a', 'd'), ('b', 'd')]
    >>> sorted((u, v) for u, v, kind in kdb_structure(frame, "class", k=1).edges(data="kind") if kind == "augmenting")
    [('a', 'b'), ('b', 'd')]
    """
    result = _kdb_search("kdb_structure", data, class_variable, features, k, min_conditional_mutual_information, trace)
    return (result[0], result[3]) if trace else result[0]


@overload
def kdb_ranking(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: Literal[False] = ...,
) -> tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]]]: ...


@overload
def kdb_ranking(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: Literal[True],
) -> tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]], pd.DataFrame]: ...


@overload
def kdb_ranking(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    min_conditional_mutual_information: float = ...,
    trace: bool = ...,
) -> (
    tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]]]
    | tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]], pd.DataFrame]
): ...


def kdb_ranking(
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None = None,
    *,
    k: int = 1,
    min_conditional_mutual_information: float = 0.0,
    trace: bool = False,
) -> (
    tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]]]
    | tuple[nx.DiGraph, list[Hashable], dict[Hashable, list[Hashable]], pd.DataFrame]
):
    """Sahami's KDB structure together with the order in which it was built.

    The structure is :func:`kdb_structure`'s; the order of the attributes
    (decreasing ``I(X_i; C)``) and the order in which each attribute took
    its parents (decreasing ``I(X_i; X_j | C)``) are what Selective KDB [1]_
    needs: the structure with ``k' <= k`` attribute parents is the one
    whose every attribute keeps the first ``k'`` parents of its list
    (Sahami's parents are nested, the ``max_cells`` guard included), and a
    model over the first ``s`` attributes of the order is closed under
    parenthood, as every parent comes earlier in it
    (:func:`kdb_substructure`).

    Parameters
    ----------
    data : CountingEngine or DataFrame
        Sufficient statistics (a DataFrame is counted on the spot).
    class_variable : name
    features : sequence, optional
        Defaults to every variable but the class.
    k : int, default=1
        Largest number of attribute parents of an attribute, ``>= 0``.
    min_conditional_mutual_information : float, default=0.0
        Sahami's threshold, as in :func:`kdb_structure`.
    trace : bool, default=False
        Also return the steps of the search, as :func:`kdb_structure` does.

    Returns
    -------
    structure : nx.DiGraph
        Exactly ``kdb_structure(data, class_variable, features, k=k, ...)``.
    order : list
        The attributes by decreasing ``I(X_i; C)`` (ties by name).
    parents : dict
        Attribute -> list of its attribute parents, the one of highest
        ``I(X_i; X_j | C)`` first (at most `k`).
    trace : DataFrame
        Only with ``trace=True``: :func:`kdb_structure`'s trace.

    Raises
    ------
    ValueError
        For a `k` that is not an integer >= 0, or a negative threshold.

    See Also
    --------
    kdb_structure : the structure alone.
    kdb_substructure : the structure of fewer parents and attributes.
    graphmodels.models.SelectiveKDB : the classifier that selects among them.

    References
    ----------
    .. [1] Martinez, A. M., Webb, G. I., Chen, S., & Zaidi, N. A. (2016).
           Scalable learning of Bayesian network classifiers. *Journal of
           Machine Learning Research*, 17(44), 1-35.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.9, c, 1 - c)
    >>> b = np.where(rng.random(500) < 0.8, a, 1 - a)
    >>> d = np.where(rng.random(500) < 0.7, a ^ b, rng.integers(0, 2, 500))
    >>> frame = pd.DataFrame({"a": a, "b": b, "d": d, "class": c})
    >>> structure, order, parents = kdb_ranking(frame, "class", k=2)
    >>> order, parents["d"]
    (['a', 'b', 'd'], ['b', 'a'])
    """
    result = _kdb_search("kdb_ranking", data, class_variable, features, k, min_conditional_mutual_information, trace)
    return result if trace else result[:3]


def kdb_substructure(
    structure: nx.DiGraph,
    order: Sequence[Hashable],
    parents: Mapping[Hashable, Sequence[Hashable]],
    *,
    k: int,
    n_attributes: int,
) -> nx.DiGraph:
    """The KDB structure over the first `n_attributes` of `order`, each with its first `k` parents.

    Parameters
    ----------
    structure : nx.DiGraph
        A structure of :func:`kdb_ranking` (or :func:`kdb_structure`); its
        node and arc attributes are copied.
    order : sequence
        The attributes in the order of :func:`kdb_ranking`.
    parents : mapping
        Attribute -> its parents, best first, as :func:`kdb_ranking` gives
        them; every parent comes earlier in `order` than its child.
    k : int
        Attribute parents kept per attribute, ``>= 0``.
    n_attributes : int
        Attributes kept, ``0 <= n_attributes <= len(order)``.

    Returns
    -------
    nx.DiGraph
        A new graph: the class node, the kept attributes (the others are
        absent), an arc from the class to each of them and the augmenting
        arcs from each one's first `k` parents.

    Raises
    ------
    ValueError
        For a `k` or `n_attributes` out of range, or a parent that does not
        come before its child in `order`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.9, c, 1 - c)
    >>> b = np.where(rng.random(500) < 0.8, a, 1 - a)
    >>> d = np.where(rng.random(500) < 0.7, a ^ b, rng.integers(0, 2, 500))
    >>> frame = pd.DataFrame({"a": a, "b": b, "d": d, "class": c})
    >>> small = kdb_substructure(*kdb_ranking(frame, "class", k=2), k=1, n_attributes=3)
    >>> sorted((u, v) for u, v, kind in small.edges(data="kind") if kind == "augmenting")
    [('a', 'b'), ('b', 'd')]
    >>> sorted(kdb_substructure(*kdb_ranking(frame, "class", k=2), k=2, n_attributes=2))
    ['a', 'b', 'class']
    """
    validate_params(
        "kdb_substructure",
        {"k": k, "n_attributes": n_attributes},
        {
            "k": [Interval(numbers.Integral, 0, None)],
            "n_attributes": [Interval(numbers.Integral, 0, len(order), closed="both")],
        },
    )
    kept = list(order[:n_attributes])
    rank = {name: i for i, name in enumerate(order)}
    class_name = class_node(structure)
    graph = nx.DiGraph()
    graph.add_node(class_name, **structure.nodes[class_name])
    for name in kept:
        graph.add_node(name, **structure.nodes[name])
    for name in kept:
        graph.add_edge(class_name, name, **structure.edges[class_name, name])
    for name in kept:
        for parent in list(parents.get(name, ()))[:k]:
            if rank.get(parent, len(order)) >= rank[name]:
                raise ValueError(f"The parent {parent!r} of {name!r} must come before it in `order`.")
            graph.add_edge(parent, name, **structure.edges[parent, name])
    return graph


def _kdb_search(
    caller: str,
    data: CountingEngine | pd.DataFrame,
    class_variable: Hashable,
    features: Iterable[Hashable] | None,
    k: int,
    min_conditional_mutual_information: float,
    trace: bool = False,
) -> tuple[Any, ...]:
    """Sahami's search: ``(structure, order, parents)``, and the trace frame with `trace`.

    `caller` names the function in errors.
    """
    validate_params(
        caller,
        {"k": k, "min_conditional_mutual_information": min_conditional_mutual_information},
        KDB_PARAMETER_CONSTRAINTS,
    )
    record = new_trace(trace, caller, "child", "rank", integers=["rank"])
    engine = as_engine(data)
    class_pos = engine.position(class_variable)
    positions = feature_positions(engine, features, exclude=class_pos)
    class_name = engine.names[class_pos]
    names = [engine.names[p] for p in positions]
    cards = {engine.names[p]: int(engine.cardinalities[p]) for p in positions + (class_pos,)}
    # The (X_i, C) tables in one pass; with k > 0 every I(X_i; X_j | C) too, from
    # one batch of class-conditional pairwise tables (which also hold the former).
    if k > 0 and len(names) > 1:
        information = pairwise_mutual_information(engine, names, given=class_name)
    elif names:
        engine.one_way_counts(names, given=class_name)
    class_info = class_information(engine, positions, class_pos)
    # Ties broken by name: the rank of each name in the canonical order.
    by_name = {name: rank for rank, name in enumerate(canonical_order(names))}
    order = sorted(names, key=lambda name: (-class_info[name], by_name[name]))
    if record is not None:
        for rank, name in enumerate(order):
            record.add("order", name, class_info[name], "ordered by decreasing I(X; C)", child=None, rank=rank)
    arcs = nx.DiGraph()
    arcs.add_nodes_from(order)
    parents: dict[Hashable, list[Hashable]] = {name: [] for name in order}
    if k > 0 and len(names) > 1:
        index = {name: i for i, name in enumerate(names)}
        threshold = float(min_conditional_mutual_information)
        for placed, child in enumerate(order):
            weight = {other: tie_safe(information[index[child], index[other]]) for other in order[:placed]}
            candidates = sorted(
                (other for other in weight if weight[other] > threshold),
                key=lambda other: (-weight[other], by_name[other]),
            )
            cells = cards[class_name] * cards[child]
            for other in candidates:
                if len(parents[child]) == k:
                    if record is None:
                        break
                    record.add(
                        "reject", (other, child), weight[other], f"{child!r} already has k={k} parents", child=child
                    )
                    continue
                if cells * cards[other] > engine.max_cells:
                    if record is not None:
                        record.add(
                            "reject",
                            (other, child),
                            weight[other],
                            f"the family table would have {cells * cards[other]} cells > max_cells",
                            child=child,
                        )
                    continue  # its family table would be too large: the next best instead
                cells *= cards[other]
                arcs.add_edge(other, child, weight=weight[other])
                parents[child].append(other)
                if record is not None:
                    record.add(
                        "accept",
                        (other, child),
                        weight[other],
                        f"parent {len(parents[child])} of at most {k}: highest I(X_i; X_j | C) left",
                        child=child,
                    )
            if record is not None:
                for other in sorted(
                    (other for other in weight if weight[other] <= threshold),
                    key=lambda other: (-weight[other], by_name[other]),
                ):
                    record.add(
                        "reject",
                        (other, child),
                        weight[other],
                        f"I(X_i; X_j | C) does not exceed min_conditional_mutual_information={threshold:g}",
                        child=child,
                    )
    structure = augmented_naive_bayes(class_name, names, arcs, cardinalities=cards, class_weights=class_info)
    if record is None:
        return structure, order, parents
    return structure, order, parents, record.frame()
