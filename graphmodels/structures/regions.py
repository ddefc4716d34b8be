"""Region graphs of the cluster variation method (CVM), as networkx digraphs.

A region is a set of variables. The CVM starts from a set of initial regions,
closes it under intersection, and gives every region a counting number

.. math:: c_R = 1 - \\sum_{T \\supsetneq R} c_T,

so that each variable (and each region) is counted exactly once. The Kikuchi
approximation of a joint distribution is then
:math:`\\prod_R P(v_R)^{c_R}` (Jakulin & Rish, eq. 1).

A region graph here is an ``nx.DiGraph`` whose nodes are the regions
(frozensets of variable names) with attributes ``counting_number`` and
``size``, and whose edges go from each region to its maximal sub-regions (the
Hasse diagram of inclusion among the regions kept).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

import networkx as nx

from .._trace import new_trace, traced

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "cluster_variation_regions",
    "counting_numbers_are_valid",
    "degrees_of_freedom",
    "initial_regions",
    "intersection_closure",
    "region_graph",
]


def _as_regions(initial_regions):
    if isinstance(initial_regions, (str, bytes)) or not isinstance(initial_regions, Iterable):
        raise TypeError(
            "`initial_regions` must be an iterable of regions (each an iterable of variable "
            f"names), got {type(initial_regions).__name__}."
        )
    regions = []
    for region in initial_regions:
        if isinstance(region, (str, bytes)) or not isinstance(region, Iterable):
            raise TypeError(
                f"Each region must be an iterable of variable names, got {region!r}; "
                "write a one-variable region as ('a',)."
            )
        region = frozenset(region)
        if not region:
            raise ValueError("A region must hold at least one variable; got an empty region.")
        regions.append(region)
    return regions


def _maximal(regions):
    """The distinct regions that are not strict subsets of another one, in first-seen order."""
    unique = list(dict.fromkeys(regions))
    return [r for r in unique if not any(r < other for other in unique)]


def intersection_closure(regions: Iterable[Iterable[Hashable]]) -> set[frozenset]:
    """All non-empty intersections of one or more of `regions`.

    Every intersection of a sub-family is reached by intersecting a member of
    the closure with one of the maximal regions, so each round intersects only
    the regions found in the previous round with the maximal ones (this also
    finds the nested intersections the printed Algorithm 1 would visit in an
    order-dependent way).

    Parameters
    ----------
    regions : iterable of iterables of variable names

    Returns
    -------
    set of frozenset

    Examples
    --------
    >>> sorted(map(sorted, intersection_closure([("a", "b"), ("b", "c")])))
    [['a', 'b'], ['b'], ['b', 'c']]
    """
    maximal = _maximal(_as_regions(regions))
    closure = set(maximal)
    frontier = list(maximal)
    while frontier:
        found = []
        for region in frontier:
            for other in maximal:
                meet = region & other
                if meet and meet not in closure:
                    closure.add(meet)
                    found.append(meet)
        frontier = found
    return closure


@overload
def cluster_variation_regions(
    initial_regions: Iterable[Iterable[Hashable]], *, trace: Literal[False] = ...
) -> nx.DiGraph: ...


@overload
def cluster_variation_regions(
    initial_regions: Iterable[Iterable[Hashable]], *, trace: Literal[True]
) -> tuple[nx.DiGraph, pd.DataFrame]: ...


@overload
def cluster_variation_regions(
    initial_regions: Iterable[Iterable[Hashable]], *, trace: bool = ...
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]: ...


def cluster_variation_regions(
    initial_regions: Iterable[Iterable[Hashable]], *, trace: bool = False
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Region graph of the cluster variation method (Algorithm 1 of [1]_).

    Redundant initial regions (subsets of others) are dropped; the maximal
    ones get counting number 1; every intersection of regions, intersections
    of intersections and so on get :math:`c_R = 1 - \\sum_{T \\supsetneq R}
    c_T` (Kikuchi, 1951; Yedidia et al., 2004). Regions with ``c_R = 0`` are
    left out.

    Two traps of the printed pseudo-code are avoided: its loop condition
    ``|R_{k-1}| > 2`` would skip the intersection of exactly two regions, and
    computing counting numbers level by level would make them depend on the
    order in which nested intersections are found. Here the whole closure is
    built first and counting numbers are assigned from the largest regions
    down, so each region sees all of its supersets.

    Parameters
    ----------
    initial_regions : iterable of iterables of hashable variable names
        The interactions (initial regions). Order does not matter.
    trace : bool, default=False
        Also return the steps of the construction (see Returns).

    Returns
    -------
    graph : networkx.DiGraph
        Nodes are the regions (frozensets) with attributes
        ``counting_number`` (int) and ``size``; edges go from a region to
        each of its maximal sub-regions among the nodes.
    trace : DataFrame
        Only with ``trace=True``: one row per step, ``item`` a region
        (frozenset), ``level`` the level of Algorithm 1 it belongs to. Level
        0: ``"initial"`` (an initial region kept, counting number 1) or
        ``"redundant"`` (inside another initial region: dropped), in the
        order given. Level ``k >= 1``: ``"intersection"``, each region first
        found by intersecting a region of level ``k - 1`` with an initial
        region (``meet_of``: those two). Then the counting numbers, from
        the largest regions down: ``"accept"`` (the region is kept with
        ``counting_number`` = ``score`` = ``1 -`` the sum of its strict
        supersets' numbers) or ``"reject"`` (that number is 0: left out).
        The accepted regions with their counting numbers are the graph's
        nodes.

    Raises
    ------
    TypeError
        If a region is not an iterable of names (a bare string is refused),
        or `trace` is not a bool.
    ValueError
        If a region is empty.

    See Also
    --------
    counting_numbers_are_valid, degrees_of_freedom

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report, Algorithm 1 and eq. (1).
    .. [2] Yedidia, J. S., Freeman, W. T., & Weiss, Y. (2004). Constructing
           free energy approximations and generalized belief propagation
           algorithms. MERL TR2004-040.

    Examples
    --------
    >>> graph = cluster_variation_regions([("A", "B"), ("B", "C")])
    >>> sorted((sorted(r), c) for r, c in graph.nodes(data="counting_number"))
    [(['A', 'B'], 1), (['B'], -1), (['B', 'C'], 1)]
    >>> sorted((sorted(u), sorted(v)) for u, v in graph.edges)
    [(['A', 'B'], ['B']), (['B', 'C'], ['B'])]
    >>> graph, steps = cluster_variation_regions([("A", "B"), ("B", "C"), ("B",)], trace=True)
    >>> for action, region, level in steps[["action", "item", "level"]].values:
    ...     print(action, "".join(sorted(region)), level)
    initial AB 0
    initial BC 0
    redundant B 0
    intersection B 1
    accept AB 0
    accept BC 0
    accept B 1
    """
    record = new_trace(trace, "cluster_variation_regions", "level", "counting_number", "meet_of", integers=["level"])
    if record is None:
        closure = intersection_closure(initial_regions)
    else:
        closure, levels = _traced_closure(initial_regions, record)
    counting: dict[frozenset, int] = {}
    # Largest first: every strict superset of a region is larger, so its
    # counting number is final when the region is reached.
    by_size = sorted(closure, key=lambda r: (-len(r), sorted(map(repr, r))))
    for region in by_size:
        counting[region] = 1 - sum(c for other, c in counting.items() if region < other)
        if record is not None:
            c = counting[region]
            record.add(
                "accept" if c else "reject",
                region,
                float(c),
                "c_R = 1 - (sum of the counting numbers of its strict supersets)" + ("" if c else " = 0: left out"),
                level=levels[region],
                counting_number=c,
            )
    return traced(region_graph({r: c for r, c in counting.items() if c != 0}), record)


def _traced_closure(initial_regions, record):
    """:func:`intersection_closure`, recording Algorithm 1's levels; returns (closure, level of each region)."""
    given = list(dict.fromkeys(_as_regions(initial_regions)))
    maximal = _maximal(given)
    for region in given:
        if region in maximal:
            record.add("initial", region, math.nan, "an initial region: counting number 1", level=0)
        else:
            outer = next(other for other in maximal if region < other)
            record.add("redundant", region, math.nan, f"inside the initial region {sorted(outer, key=str)}", level=0)
    levels = dict.fromkeys(maximal, 0)
    frontier = list(maximal)
    level = 0
    while frontier:
        level += 1
        found = []
        for region in frontier:
            for other in maximal:
                meet = region & other
                if meet and meet not in levels:
                    levels[meet] = level
                    found.append(meet)
                    record.add(
                        "intersection",
                        meet,
                        math.nan,
                        f"the intersection of a level-{level - 1} region and an initial region",
                        level=level,
                        meet_of=(region, other),
                    )
        frontier = found
    return set(levels), levels


def region_graph(counting_numbers: Mapping[Any, int]) -> nx.DiGraph:
    """Build the region digraph of a mapping region -> counting number.

    Parameters
    ----------
    counting_numbers : mapping of iterable of names to int

    Returns
    -------
    networkx.DiGraph
        As :func:`cluster_variation_regions` returns it (no check that the
        numbers are the CVM's; see :func:`counting_numbers_are_valid`).
    """
    if not isinstance(counting_numbers, Mapping):
        raise TypeError(f"`counting_numbers` must be a mapping, got {type(counting_numbers).__name__}.")
    regions = {frozenset(r): int(c) for r, c in counting_numbers.items()}
    graph = nx.DiGraph()
    order = sorted(regions, key=lambda r: (-len(r), sorted(map(repr, r))))
    for region in order:
        graph.add_node(region, counting_number=regions[region], size=len(region))
    for region in order:
        below = [other for other in order if other < region]
        for sub in below:
            if not any(sub < mid < region for mid in below):
                graph.add_edge(region, sub)
    return graph


def initial_regions(graph: nx.DiGraph) -> list[frozenset]:
    """The maximal regions of a region graph (those no other region contains)."""
    return [region for region in graph if graph.in_degree(region) == 0]


def counting_numbers_are_valid(graph: nx.DiGraph, variables: Iterable[Hashable] | None = None) -> bool:
    """Check that every region and every variable is counted exactly once.

    For each region ``R`` of the graph, the counting numbers of the regions
    containing ``R`` (itself included) must sum to 1, and so must, for each
    variable, those of the regions containing the variable.

    Parameters
    ----------
    graph : networkx.DiGraph
        A region graph with ``counting_number`` node attributes.
    variables : iterable, optional
        Variables to check; defaults to every variable in a region.

    Returns
    -------
    bool
    """
    regions = {frozenset(r): c for r, c in graph.nodes(data="counting_number")}
    if any(c is None for c in regions.values()):
        raise ValueError("Every node of a region graph needs a `counting_number` attribute.")
    variables = set().union(*regions) if variables is None else set(variables)
    for variable in variables:
        if sum(c for r, c in regions.items() if variable in r) != 1:
            return False
    return all(sum(c for other, c in regions.items() if region <= other) == 1 for region in regions)


def degrees_of_freedom(
    graph: nx.DiGraph | Mapping[Any, int],
    cardinalities: Mapping[Any, int],
    given: Iterable[Hashable] = (),
) -> int:
    """Degrees of freedom of the Kikuchi model of a region graph (eqs. 5 and 7 of [1]_).

    Without `given`, eq. (5): :math:`\\sum_R c_R (\\prod_{X \\in R} |X| - 1)`.
    With `given` (the conditioning variables; for a class-predictive model the
    attributes), eq. (7): :math:`\\sum_R c_R (\\prod_{X \\in R} |X| -
    \\prod_{X \\in R \\cap given} |X|)`, as in the paper's example
    :math:`df_{Y|X_i} = |X_i \\times Y| - |X_i|`.

    Parameters
    ----------
    graph : networkx.DiGraph or mapping region -> counting number
    cardinalities : mapping variable -> number of states
    given : iterable of variables, optional

    Returns
    -------
    int

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.

    Examples
    --------
    Naive Bayes over two binary attributes and a 3-valued class, given the
    attributes: ``2 * (3*2 - 2) - 1 * (3 - 1)``

    >>> graph = cluster_variation_regions([("y", "a"), ("y", "b")])
    >>> degrees_of_freedom(graph, {"y": 3, "a": 2, "b": 2}, given=["a", "b"])
    6
    """
    items = graph.nodes(data="counting_number") if isinstance(graph, nx.Graph) else graph.items()
    given = set(given)
    total = 0
    for region, c in items:
        try:
            full = math.prod(int(cardinalities[v]) for v in region)
            conditioning = math.prod(int(cardinalities[v]) for v in region if v in given)
        except KeyError as error:
            raise ValueError(f"No cardinality for variable {error.args[0]!r}.") from None
        # The free parameters of P(R \ given | R & given); without `given` those of P(R).
        total += c * (full - conditioning)
    return int(total)
