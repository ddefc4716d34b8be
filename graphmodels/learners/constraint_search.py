"""Constraint-based structure search: PC-stable, and max-min hill climbing (MMPC + hill climbing).

PC (Spirtes, Glymour & Scheines 2000) removes the edge between two variables as soon as some
set of their neighbours makes them independent, trying conditioning sets of size 0, 1, 2, ...;
PC-stable (Colombo & Maathuis 2014) fixes each node's neighbours at the start of each size, so
that the skeleton does not depend on the order of the variables. Unshielded triples
``a - c - b`` whose separating set lacks ``c`` become v-structures, and Meek's rules orient
what else the v-structures compel: the result is a CPDAG.

The tests come from the counting engine in batches: for a node ``x`` and a conditioning set
``S``, one table ``N[S, x, y]`` for every candidate neighbour ``y`` at once
(:meth:`~graphmodels.stats.CountingEngine.one_way_counts` given ``S + [x]``), the tests of size
0 from the block matrix of all pairwise tables; each batch is one pass over the rows, of a Dask
DataFrame too. The tests are those of :mod:`graphmodels.stats.independence` (G2, X2 or mutual
information, degrees of freedom adjusted for empty cells as R bnlearn does).

Max-min hill climbing (Tsamardinos, Brown & Aliferis 2006) learns each variable's candidate
parents and children by MMPC, then runs :func:`~graphmodels.learners.hill_climbing` with only
those arcs allowed.

References
----------
.. [1] Spirtes, P., Glymour, C., & Scheines, R. (2000). *Causation, Prediction, and Search*
       (2nd ed.). MIT Press.
.. [2] Colombo, D., & Maathuis, M. H. (2014). Order-independent constraint-based causal
       structure learning. *Journal of Machine Learning Research*, 15, 3741-3782.
.. [3] Meek, C. (1995). Causal inference and causal explanation with background knowledge. In
       *Proceedings of UAI*, 403-410.
.. [4] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing
       Bayesian network structure learning algorithm. *Machine Learning*, 65(1), 31-78.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import networkx as nx
import numpy as np

from .._trace import new_trace, traced
from .._validation import Boolean, Interval, Options, validate_params
from ..stats.counting import CountingEngine
from ..stats.independence import CI_TESTS, independence_test_counts
from ..stats.information import as_engine
from ..structures.dags import _PDAG
from ..structures.knowledge import Knowledge, expert_knowledge
from .score_search import distinct_rows, fetch_tables, hill_climbing

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CITests", "mmhc", "mmpc", "pc_stable"]

CONSTRAINT_CONSTRAINTS: dict[str, list[Any]] = {
    "test": [Options(list(CI_TESTS))],
    "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
    "max_cond_size": [Interval(numbers.Integral, 0, None), None],
    "adjusted_df": [Boolean()],
    "trace": [Boolean()],
}


class CITests:
    """Conditional independence tests of one variable against many, from batched tables.

    Parameters
    ----------
    engine : CountingEngine
    test : {"g2", "chi2", "mi"}, default="g2"
    adjusted_df : bool, default=True
        See :func:`~graphmodels.stats.independence_test_counts`.
    oracle : callable, optional
        ``oracle(x, y, given) -> bool`` (positions) instead of data: a p-value of 1 when it
        says independent, 0 otherwise (for checks against d-separation in a known DAG).

    Attributes
    ----------
    n_tests : int
        Tests done.
    n_passes : int
        Batches of tables counted (passes over the rows).
    """

    def __init__(
        self,
        engine: CountingEngine | None,
        test: str = "g2",
        *,
        adjusted_df: bool = True,
        oracle: Callable[[int, int, tuple[int, ...]], bool] | None = None,
        n_variables: int | None = None,
    ) -> None:
        self.engine = engine
        self.test = test
        self.adjusted_df = adjusted_df
        self.oracle = oracle
        self.n = int(engine.n_variables if engine is not None else n_variables)  # type: ignore[arg-type]
        self.cards = None if engine is None else np.asarray(engine.cardinalities, dtype=np.int64)
        self.n_tests = 0
        self.n_passes = 0
        self._pairs: Any = None

    def p_values(self, requests: Sequence[tuple[int, tuple[int, ...], Sequence[int]]]) -> list[np.ndarray]:
        """For each ``(x, given, ys)``: the p-value of ``x _||_ y | given`` for every ``y`` of ``ys``.

        All the tables of the batch are counted in one pass.
        """
        self.n_tests += sum(len(ys) for _, _, ys in requests)
        if self.oracle is not None:
            return [np.array([1.0 if self.oracle(x, y, given) else 0.0 for y in ys]) for x, given, ys in requests]
        assert self.engine is not None and self.cards is not None
        engine, cards = self.engine, self.cards
        results: list[np.ndarray | None] = [None] * len(requests)
        batch, where = [], []
        for k, (x, given, ys) in enumerate(requests):
            if not given:
                if self._pairs is None:
                    self._pairs = engine.pairwise_counts(engine.names)
                    self.n_passes += 1
                out = np.empty(len(ys))
                groups: dict[int, list[int]] = {}
                for j, y in enumerate(ys):
                    groups.setdefault(int(cards[y]), []).append(j)
                for members in groups.values():
                    tables = np.stack([self._pairs.block(x, ys[j])[0][None] for j in members])
                    out[members] = self._p(tables)
                results[k] = out
                continue
            cells = math.prod(int(cards[p]) for p in (*given, x)) * int(cards[list(ys)].sum())
            if cells > engine.max_cells:  # too large: no evidence of independence is sought
                results[k] = np.zeros(len(ys))
                continue
            batch.append(("one-way", (*given, x)))
            where.append(k)
        if batch:
            self.n_passes += 1
            for k, table in zip(where, fetch_tables(engine, batch)):
                x, given, ys = requests[k]
                results[k] = self._test_strata(table, x, given, ys)
        return [np.asarray(r) for r in results]

    def _p(self, tables):
        result = independence_test_counts(tables, self.test, adjusted_df=self.adjusted_df)
        return np.atleast_1d(np.asarray(result.p_value, dtype=np.float64))

    def _test_strata(self, table, x, given, ys):
        """p-values from the (strata of given + x, K) one-way table of every other variable."""
        assert self.cards is not None
        others = [u for u in range(self.n) if u not in (*given, x)]
        offsets = dict(zip(others, np.concatenate([[0], np.cumsum(self.cards[others])])[:-1].tolist()))
        q = math.prod(int(self.cards[p]) for p in given)
        r_x = int(self.cards[x])
        out = np.empty(len(ys))
        groups: dict[int, list[int]] = {}
        for k, y in enumerate(ys):
            groups.setdefault(int(self.cards[y]), []).append(k)
        for r_y, members in groups.items():
            columns = np.concatenate([np.arange(offsets[ys[k]], offsets[ys[k]] + r_y) for k in members])
            block = table[:, columns].reshape(q, r_x, len(members), r_y)
            out[members] = self._p(np.transpose(block, (2, 0, 1, 3)))
        return out


def _check(owner, params):
    validate_params(owner, params, {k: CONSTRAINT_CONSTRAINTS[k] for k in params})


def _knowledge(engine_names, required, forbidden, tiers, root):
    return expert_knowledge(engine_names, required=required, forbidden=forbidden, tiers=tiers, root=root)


def _skeleton(tests: CITests, knowledge: Knowledge, alpha: float, max_cond_size, names, record):
    """PC-stable's adjacency search: neighbour sets, separating sets and each edge's largest p-value."""
    n = tests.n
    allowed = knowledge.allowed_matrix()
    required = knowledge.required_matrix()
    joinable = allowed | allowed.T
    keep = required | required.T
    adjacent = [set(np.flatnonzero(joinable[x]).tolist()) for x in range(n)]
    separating: dict[frozenset[int], tuple[int, ...]] = {}
    largest_p = np.zeros((n, n))
    level = 0
    while max_cond_size is None or level <= max_cond_size:
        frozen = [sorted(a) for a in adjacent]  # the neighbours at the start of the level (stable)
        if all(len(a) - 1 < level for a in frozen):
            break
        requests = []
        for x in range(n):
            for given in itertools.combinations(frozen[x], level):
                ys = [y for y in frozen[x] if y not in given and y in adjacent[x] and not keep[x, y]]
                if ys:
                    requests.append((x, given, ys))
        # Batches of a few hundred tables: each batch one pass, the removals between batches
        # sparing the tests of edges already gone.
        for start in range(0, len(requests), 256):
            chunk = [(x, given, [y for y in ys if y in adjacent[x]]) for x, given, ys in requests[start : start + 256]]
            chunk = [c for c in chunk if c[2]]
            for (x, given, ys), p in zip(chunk, tests.p_values(chunk)):
                for y, value in zip(ys, p.tolist()):
                    if y not in adjacent[x]:
                        continue
                    largest_p[x, y] = largest_p[y, x] = max(largest_p[x, y], value)
                    if value > alpha:
                        adjacent[x].discard(y)
                        adjacent[y].discard(x)
                        separating[frozenset((x, y))] = tuple(given)
                        if record is not None:
                            record.add(
                                "remove",
                                (names[x], names[y]),
                                value,
                                f"independent given {[names[g] for g in given]}" if given else "independent",
                                given=tuple(names[g] for g in given),
                                level=level,
                            )
        level += 1
    return adjacent, separating, largest_p


def _orient(adjacent, separating, knowledge: Knowledge, names, record):
    """The CPDAG: required arcs and knowledge first, then v-structures, then Meek's rules 1-4."""
    n = len(adjacent)
    pdag = _PDAG(list(range(n)))
    for x in range(n):
        for y in adjacent[x]:
            if x < y:
                pdag.neighbours[x].add(y)
                pdag.neighbours[y].add(x)
    allowed = knowledge.allowed_matrix()
    required = knowledge.required_matrix()
    for x in range(n):
        for y in sorted(cast("set[int]", pdag.neighbours[x])):
            if required[x, y] or (allowed[x, y] and not allowed[y, x]):
                pdag.orient(x, y)
                if record is not None:
                    record.add("orient", (names[x], names[y]), math.nan, "expert knowledge")
    # v-structures: every unshielded triple a - c - b with c outside sepset(a, b); conflicting
    # orientations of one edge leave it undirected (order-independent).
    wanted: dict[tuple[int, int], set[tuple[int, int, int]]] = {}
    for c in range(n):
        around = sorted(adjacent[c])
        for a, b in itertools.combinations(around, 2):
            pair = frozenset((a, b))
            # A pair never tested (kept apart by expert knowledge) has no separating set to read.
            if b in adjacent[a] or pair not in separating or c in separating[pair]:
                continue
            for u in (a, b):
                wanted.setdefault((u, c), set()).add((a, c, b))
    for (u, c), triples in sorted(wanted.items()):
        if (c, u) in wanted:
            continue  # both orientations wanted: a conflict, left undirected
        if c in pdag.neighbours[u]:
            pdag.orient(u, c)
            if record is not None:
                a, c_, b = min(triples)
                record.add(
                    "orient", (names[u], names[c]), math.nan, f"v-structure {names[a]} -> {names[c_]} <- {names[b]}"
                )
    before = {(u, v) for v in range(n) for u in pdag.parents[v]}
    pdag.close(rules=4)
    if record is not None:
        for v in range(n):
            for u in sorted(cast("set[int]", pdag.parents[v])):
                if (u, v) not in before:
                    record.add("orient", (names[u], names[v]), math.nan, "Meek's rules")
    return pdag


def _cpdag_graph(pdag, engine_names, cards, largest_p):
    graph = nx.DiGraph(cpdag=True)
    for v, name in enumerate(engine_names):
        graph.add_node(name, **({} if cards is None else {"cardinality": int(cards[v])}), role="feature")
    for v in range(len(engine_names)):
        for u in sorted(pdag.parents[v]):
            graph.add_edge(engine_names[u], engine_names[v], p_value=float(largest_p[u, v]))
        for u in sorted(pdag.neighbours[v]):
            graph.add_edge(engine_names[u], engine_names[v], p_value=float(largest_p[u, v]))
    return graph


def pc_stable(
    data: CountingEngine | pd.DataFrame,
    *,
    test: str = "g2",
    alpha: float = 0.05,
    max_cond_size: int | None = None,
    adjusted_df: bool = True,
    required: Any = None,
    forbidden: Any = None,
    tiers: Sequence[Sequence[Hashable]] | None = None,
    root: Any = None,
    oracle: Callable[[Hashable, Hashable, set[Hashable]], bool] | None = None,
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """The PC-stable algorithm: the CPDAG of the conditional independences the data show.

    Starting from the complete graph, the edge ``x - y`` is removed when some set ``S`` of
    ``x``'s (or ``y``'s) neighbours, of size 0, 1, 2, ..., makes them independent (p-value >
    `alpha`); each node's neighbours are fixed at the start of each size, which makes the
    skeleton independent of the order of the variables (Colombo & Maathuis [2]_). Then the
    unshielded triples ``a - c - b`` with ``c`` outside the separating set of ``a`` and ``b``
    become v-structures ``a -> c <- b`` (an edge two v-structures orient both ways stays
    undirected), and Meek's rules [3]_ orient what they compel.

    Parameters
    ----------
    data : CountingEngine or DataFrame
        Not read when `oracle` is given (pass the variables' names as the columns of an empty
        DataFrame).
    test : {"g2", "chi2", "mi"}, default="g2"
        See :mod:`graphmodels.stats.independence`.
    alpha : float, default=0.05
        Significance level: a p-value above it counts as independence.
    max_cond_size : int, optional
        The largest conditioning set tried (no limit by default).
    adjusted_df : bool, default=True
        Degrees of freedom adjusted for empty cells (R bnlearn's ``"mi-adf"``).
    required, forbidden, tiers, root
        Expert knowledge (:func:`~graphmodels.structures.expert_knowledge`): two variables no
        arc may join are never adjacent; a required arc is never removed and oriented as
        required, as is an edge that only one direction is allowed; Meek's rule 4 then
        propagates them. ``max_parents`` does not apply to a constraint-based search.
    oracle : callable, optional
        ``oracle(x, y, given)`` (names; ``given`` a set) -> True when independent, instead of
        data: with d-separation in a DAG (:func:`~graphmodels.inference.d_separated`) PC
        returns that DAG's CPDAG exactly.
    trace : bool, default=False
        Also return the steps.

    Returns
    -------
    cpdag : nx.DiGraph
        Undirected edges as pairs of arcs (graph attribute ``cpdag=True``); each arc's
        ``p_value`` is the largest p-value its edge had in a test (the weakest evidence it
        survived, R bnlearn's ``arc.strength`` by test).
    trace : DataFrame
        Only with ``trace=True``: a ``"remove"`` step per edge removed (``score`` its p-value,
        ``given`` the separating set, ``level`` its size), then an ``"orient"`` step per arc
        oriented (``reason``: expert knowledge, the v-structure, or Meek's rules).

    Raises
    ------
    ValueError
        For contradictory expert knowledge, or bad parameters.

    See Also
    --------
    graphmodels.structures.pdag_to_dag : a DAG of the CPDAG's class.
    hill_climbing : the score-based search.

    References
    ----------
    .. [1] Spirtes, P., Glymour, C., & Scheines, R. (2000). *Causation, Prediction, and
           Search* (2nd ed.). MIT Press.
    .. [2] Colombo, D., & Maathuis, M. H. (2014). Order-independent constraint-based causal
           structure learning. *Journal of Machine Learning Research*, 15, 3741-3782.
    .. [3] Meek, C. (1995). Causal inference and causal explanation with background
           knowledge. In *Proceedings of UAI*, 403-410.

    Examples
    --------
    >>> import networkx as nx, pandas as pd
    >>> from graphmodels.inference import d_separated
    >>> truth = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
    >>> learned = pc_stable(pd.DataFrame(columns=list("abcd")), oracle=lambda x, y, s: d_separated(truth, x, y, s))
    >>> sorted(learned.edges)  # the collider and the arc it compels
    [('a', 'c'), ('b', 'c'), ('c', 'd')]
    """
    _check(
        "pc_stable",
        {"test": test, "alpha": alpha, "max_cond_size": max_cond_size, "adjusted_df": adjusted_df, "trace": trace},
    )
    record = new_trace(trace, "pc_stable", "given", "level", integers=("level",))
    if oracle is not None:
        names = list(data.names) if isinstance(data, CountingEngine) else list(data.columns)  # type: ignore[union-attr]
        engine = None
        tests = CITests(
            None,
            test,
            oracle=lambda x, y, given: bool(oracle(names[x], names[y], {names[g] for g in given})),
            n_variables=len(names),
        )
        cards = None
    else:
        engine = distinct_rows(as_engine(data))
        names = list(engine.names)
        tests = CITests(engine, test, adjusted_df=adjusted_df)
        cards = engine.cardinalities
    knowledge = _knowledge(names, required, forbidden, tiers, root)
    adjacent, separating, largest_p = _skeleton(tests, knowledge, float(alpha), max_cond_size, names, record)
    pdag = _orient(adjacent, separating, knowledge, names, record)
    graph = _cpdag_graph(pdag, names, cards, largest_p)
    graph.graph.update(n_tests=tests.n_tests)
    return traced(graph, record)


def mmpc(
    data: CountingEngine | pd.DataFrame,
    *,
    test: str = "g2",
    alpha: float = 0.05,
    max_cond_size: int | None = None,
    adjusted_df: bool = True,
) -> nx.Graph:
    """Max-min parents and children: each variable's candidate neighbours (Tsamardinos et al. [1]_).

    For each target ``t``, the forward phase adds the variable whose minimum association with
    ``t`` over the subsets of the current candidates is largest (its largest p-value
    smallest), while that association is significant; the backward phase removes a candidate
    some subset of the others makes independent of ``t``. A pair stays joined only when each
    is a candidate of the other.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    test, alpha, max_cond_size, adjusted_df
        As for :func:`pc_stable`; `max_cond_size` bounds the subsets tried.

    Returns
    -------
    nx.Graph
        The skeleton.

    References
    ----------
    .. [1] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing
           Bayesian network structure learning algorithm. *Machine Learning*, 65(1), 31-78.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 1000)
    >>> b = a ^ (rng.random(1000) < 0.1)
    >>> c = b ^ (rng.random(1000) < 0.1)
    >>> sorted(mmpc(pd.DataFrame({"a": a, "b": b, "c": c})).edges)  # a and c are independent given b
    [('a', 'b'), ('b', 'c')]
    """
    _check("mmpc", {"test": test, "alpha": alpha, "max_cond_size": max_cond_size, "adjusted_df": adjusted_df})
    engine = distinct_rows(as_engine(data))
    tests = CITests(engine, test, adjusted_df=adjusted_df)
    candidates = _mmpc_all(tests, float(alpha), max_cond_size)
    names = engine.names
    graph = nx.Graph()
    for v, name in enumerate(names):
        graph.add_node(name, cardinality=int(engine.cardinalities[v]), role="feature")
    for x in range(len(names)):
        for y in candidates[x]:
            if x < y and x in candidates[y]:
                graph.add_edge(names[x], names[y])
    return graph


def _subsets(members, max_size):
    limit = len(members) if max_size is None else min(len(members), int(max_size))
    for size in range(limit + 1):
        yield from itertools.combinations(members, size)


def _mmpc_all(tests: CITests, alpha: float, max_cond_size) -> list[set[int]]:
    n = tests.n
    result = []
    for t in range(n):
        cpc: list[int] = []
        # worst[y]: the largest p-value of t _||_ y given a subset of cpc tried so far (min association).
        worst = np.zeros(n)
        worst[t] = math.inf
        tried: set[tuple[int, ...]] = set()
        while True:
            open_ = [y for y in range(n) if y != t and y not in cpc and worst[y] <= alpha]
            if not open_:
                break
            new_sets = [s for s in _subsets(cpc, max_cond_size) if s not in tried]
            tried.update(new_sets)
            if new_sets:
                for p in tests.p_values([(t, s, open_) for s in new_sets]):
                    worst[open_] = np.maximum(worst[open_], p)
            best = min(open_, key=lambda y: (worst[y], y))
            if worst[best] > alpha:
                break
            cpc.append(best)
        # backward: drop a candidate that a subset of the others separates from t
        for y in list(cpc):
            others = [z for z in cpc if z != y]
            for given in _subsets(others, max_cond_size):
                if tests.p_values([(t, given, [y])])[0][0] > alpha:
                    cpc.remove(y)
                    break
        result.append(set(cpc))
    return result


def mmhc(
    data: CountingEngine | pd.DataFrame,
    *,
    test: str = "g2",
    alpha: float = 0.05,
    max_cond_size: int | None = None,
    adjusted_df: bool = True,
    score: str = "bdeu",
    equivalent_sample_size: float = 1.0,
    max_parents: int | Mapping[Hashable, int] | None = None,
    required: Any = None,
    forbidden: Any = None,
    tiers: Sequence[Sequence[Hashable]] | None = None,
    root: Any = None,
    tabu: int = 0,
    random_state: int | np.random.Generator | None = None,
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Max-min hill climbing: hill climbing over the arcs of the MMPC skeleton (Tsamardinos et al. [1]_).

    Parameters
    ----------
    data : CountingEngine or DataFrame
    test, alpha, max_cond_size, adjusted_df
        Of the MMPC phase (:func:`mmpc`).
    score, equivalent_sample_size, max_parents, required, forbidden, tiers, root, tabu, random_state, trace
        Of the hill-climbing phase (:func:`~graphmodels.learners.hill_climbing`); a required
        arc is allowed even when MMPC did not find its pair.

    Returns
    -------
    nx.DiGraph, or (nx.DiGraph, DataFrame) with ``trace=True``
        As :func:`~graphmodels.learners.hill_climbing`'s; graph attribute ``skeleton``: the
        number of MMPC edges.

    References
    ----------
    .. [1] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing
           Bayesian network structure learning algorithm. *Machine Learning*, 65(1), 31-78.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 1000)
    >>> b = a ^ (rng.random(1000) < 0.1)
    >>> frame = pd.DataFrame({"a": a, "b": b, "c": b ^ (rng.random(1000) < 0.1)})
    >>> sorted(tuple(sorted(e)) for e in mmhc(frame, score="bic").edges)
    [('a', 'b'), ('b', 'c')]
    """
    engine = as_engine(data)
    skeleton = mmpc(engine, test=test, alpha=alpha, max_cond_size=max_cond_size, adjusted_df=adjusted_df)
    required_arcs = [] if required is None else list(required.edges if isinstance(required, nx.Graph) else required)
    linked = {frozenset(e) for e in skeleton.edges} | {frozenset(a) for a in required_arcs}
    excluded = [(u, v) for u in engine.names for v in engine.names if u != v and frozenset((u, v)) not in linked]
    given_forbidden = (
        [] if forbidden is None else list(forbidden.edges if isinstance(forbidden, nx.Graph) else forbidden)
    )
    result = hill_climbing(
        engine,
        score=score,
        equivalent_sample_size=equivalent_sample_size,
        max_parents=max_parents,
        required=required,
        forbidden=list(dict.fromkeys([tuple(a) for a in given_forbidden] + excluded)),
        tiers=tiers,
        root=root,
        tabu=tabu,
        random_state=random_state,
        trace=trace,
    )
    dag = result[0] if isinstance(result, tuple) else result
    dag.graph["skeleton"] = skeleton.number_of_edges()
    return result
