"""Score-based structure search of Bayesian networks over all variables: hill climbing, tabu, exact.

A decomposable score is a sum of one term per family (a variable and its parents), computed
from the family's contingency table by the formulas of :mod:`graphmodels.stats.scores` (BDeu,
K2, BIC, AIC, the log-likelihood). A search move (add, delete or reverse an arc) changes one or
two families, so the search keeps every family's score and rescores only the changed ones:

* :class:`FamilyScores` caches the score of each family it has seen, and scores a child's
  every possible extra parent from **one** table of the counting engine,
  ``N[parents, child, u]`` for all ``u`` at once
  (:meth:`~graphmodels.stats.CountingEngine.one_way_counts` given the family), the empty
  families of a start from the block matrix of all pairwise tables; a batch of tables is one
  pass over the rows, of a Dask DataFrame too
  (:meth:`~graphmodels.stats.CountingEngine.map_reduce`);
* :func:`hill_climbing` keeps the gain of every move in three n x n matrices, picks the best
  valid move with numpy (cycles ruled out by a reachability matrix), and refreshes only the
  columns of the changed children. A tabu list and random restarts with perturbation are R
  bnlearn's ``tabu`` and ``hc(restart=, perturb=)``; :func:`tabu_search` is the tabu variant;
* :func:`exact_search` finds the best DAG of up to 16 variables by dynamic programming over
  subsets (Silander & Myllymaki 2006);
* :func:`score_structure` scores a given DAG, family by family.

Every search takes the same expert knowledge (:func:`~graphmodels.structures.expert_knowledge`:
required and forbidden arcs, tiers, roots, ``max_parents``). A cell coded ``-1`` (unobserved)
drops the row from the tables that read its variable: each family is scored on the rows where
it is observed (available-case analysis, R bnlearn's default for incomplete data), its score
scaled to all the rows (Balov's node-average likelihood [6]_), so that no family gains parents
by losing rows.

References
----------
.. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning Bayesian networks: the
       combination of knowledge and statistical data. *Machine Learning*, 20(3), 197-243.
.. [2] Russell, S., & Norvig, P. (2009). *Artificial Intelligence: A Modern Approach* (3rd ed.).
       Section 4.1 (hill climbing, random restarts).
.. [3] Glover, F. (1989). Tabu search, part I. *ORSA Journal on Computing*, 1(3), 190-206.
.. [4] Scutari, M. (2010). Learning Bayesian networks with the bnlearn R package. *Journal of
       Statistical Software*, 35(3), 1-22.
.. [5] Silander, T., & Myllymaki, P. (2006). A simple approach for finding the globally optimal
       Bayesian network structure. In *Proceedings of UAI*, 445-452.
.. [6] Balov, N. (2013). Consistent model selection of discrete Bayesian networks from incomplete
       data. *Electronic Journal of Statistics*, 7, 1047-1077.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections import deque
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._trace import new_trace, traced
from .._validation import Boolean, Interval, Options, Predicate, validate_params
from ..stats.counting import CountingEngine, unique_rows
from ..stats.information import as_engine
from ..stats.scores import FAMILY_SCORES, check_equivalent_sample_size, family_score, log_likelihood_family_score
from ..structures.knowledge import Knowledge, expert_knowledge

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SEARCH_SCORES",
    "FamilyScores",
    "StructureScore",
    "exact_search",
    "hill_climbing",
    "score_structure",
    "tabu_search",
]

#: The decomposable scores the searches maximize (:data:`graphmodels.stats.FAMILY_SCORES`).
SEARCH_SCORES = FAMILY_SCORES

#: Most variables of :func:`exact_search` (2**16 parent sets per variable).
EXACT_MAX_VARIABLES = 16

#: Smallest gain a hill-climbing move must bring (below it, a move only reorders equal scores).
MIN_GAIN = 1e-9


def _random_state(value: Any) -> bool:
    return value is None or isinstance(value, (numbers.Integral, np.random.Generator)) and not isinstance(value, bool)


SEARCH_CONSTRAINTS: dict[str, list[Any]] = {
    "score": [Options(list(SEARCH_SCORES))],
    "equivalent_sample_size": [Interval(numbers.Real, 0, None, closed="neither")],
    "tabu": [Interval(numbers.Integral, 0, None)],
    "max_tabu_iter": [Interval(numbers.Integral, 0, None), None],
    "restarts": [Interval(numbers.Integral, 0, None)],
    "perturb": [Interval(numbers.Integral, 1, None)],
    "max_iter": [Interval(numbers.Integral, 0, None), None],
    "random_state": [Predicate(_random_state, "None, an int or a numpy Generator")],
    "trace": [Boolean()],
}


# ---------------------------------------------------------------------------------- tables
def _tables(engine: CountingEngine, requests: Sequence[tuple[str, tuple[int, ...]]]) -> list[np.ndarray]:
    """The tables of `requests` on one engine: ``("counts", family)`` or ``("one-way", given)``."""
    names = engine.names
    out = []
    for kind, positions in requests:
        if kind == "counts":
            out.append(np.array(engine.counts([names[p] for p in positions]), dtype=np.float64))
        else:
            out.append(np.array(engine.one_way_counts(given=[names[p] for p in positions], cache=False).table))
    return out


def fetch_tables(engine: CountingEngine, requests: Sequence[tuple[str, tuple[int, ...]]]) -> list[np.ndarray]:
    """The tables of `requests`, all in one pass over the rows (one distributed pass on Dask).

    Parameters
    ----------
    engine : CountingEngine
    requests : sequence of (kind, positions)
        ``("counts", positions)``: the table of those variables in that order;
        ``("one-way", given)``: :meth:`~graphmodels.stats.CountingEngine.one_way_counts` of every
        other variable per joint configuration of ``given``, shape (n_strata, sum of states).

    Returns
    -------
    list of ndarray
    """
    if not requests:
        return []
    if engine.distributed:
        return list(engine.map_reduce(functools.partial(_tables, requests=list(requests))))
    return _tables(engine, requests)


# ---------------------------------------------------------------------------------- family scores
class FamilyScores:
    """Cached decomposable scores of families (a child and its parents) from a counting engine.

    Parameters
    ----------
    engine : CountingEngine
    score : {"bdeu", "k2", "bic", "aic", "log-likelihood"}, default="bdeu"
    equivalent_sample_size : float, default=1.0
        BDeu's prior equivalent sample size.

    Attributes
    ----------
    n_tables : int
        Tables requested from the engine so far (each family table, or each batched table of a
        child's extra parents), for tests and benchmarks.
    n_passes : int
        Batches requested: passes over the rows.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1] * 5, "b": [0, 0, 1, 1] * 5, "c": [0, 1] * 10})
    >>> scores = FamilyScores(as_engine(frame), "bic")
    >>> bool(scores.family(1, (0,)) > scores.family(1, ()))  # b is a copy of a
    True
    """

    def __init__(self, engine: CountingEngine, score: str = "bdeu", equivalent_sample_size: float = 1.0) -> None:
        if score not in SEARCH_SCORES:
            raise ValueError(f"`score` must be one of {list(SEARCH_SCORES)}, got {score!r}.")
        self.engine = engine
        self.score = score
        self.equivalent_sample_size = check_equivalent_sample_size(equivalent_sample_size)
        self.cards = np.asarray(engine.cardinalities, dtype=np.int64)
        self.n = int(engine.n_variables)
        self._cache: dict[tuple[int, frozenset[int]], float] = {}
        self.n_tables = 0
        self.n_passes = 0
        self.rescale = bool(engine.has_unknown)
        self.total = float(engine.total)

    def _score(self, table: np.ndarray) -> np.ndarray:
        """Scores of family tables of shape (..., q, r).

        With unobserved cells a family is counted on the rows that observe it, fewer for a
        larger family: its score is scaled to the number of rows (the log-likelihood per
        observed row, times the rows), or a family would gain parents by losing rows: Balov's
        node-average likelihood (Balov 2013), with BIC's penalty R bnlearn's ``pnal`` score, times the rows.
        """
        if not self.rescale:
            return np.asarray(family_score(table, self.score, equivalent_sample_size=self.equivalent_sample_size))
        table = np.asarray(table, dtype=np.float64)
        observed = table.sum(axis=(-2, -1))
        factor = np.where(observed > 0, self.total / np.where(observed > 0, observed, 1.0), 0.0)
        if self.score in ("bic", "aic", "log-likelihood"):
            q, r = table.shape[-2], table.shape[-1]
            penalty = {"bic": math.log(max(self.total, 1.0)) / 2.0, "aic": 1.0, "log-likelihood": 0.0}[self.score]
            return np.asarray(log_likelihood_family_score(table)) * factor - penalty * q * (r - 1)
        return np.asarray(family_score(table, self.score, equivalent_sample_size=self.equivalent_sample_size)) * factor

    def _fetch(self, requests):
        if not requests:
            return []
        self.n_tables += len(requests)
        self.n_passes += 1
        return fetch_tables(self.engine, requests)

    def _family_table(self, table: np.ndarray, n_parents: int) -> np.ndarray:
        """A table over (parents..., child) as (q, r)."""
        r = table.shape[-1]
        return np.asarray(table).reshape(-1, r)

    def known(self, child: int, parents: Sequence[int] | frozenset[int]) -> bool:
        """Whether the family's score is cached."""
        return (int(child), frozenset(parents)) in self._cache

    def family(self, child: int, parents: Sequence[int] | frozenset[int]) -> float:
        """The score of `child` given `parents` (positions)."""
        return self.families([(child, parents)])[0]

    def fits(self, child: int, parents: Sequence[int] | frozenset[int]) -> bool:
        """Whether the family's table fits the engine's ``max_cells``."""
        cells = int(self.cards[int(child)]) * math.prod(int(self.cards[p]) for p in parents)
        return cells <= self.engine.max_cells

    def families(self, families: Sequence[tuple[int, Sequence[int] | frozenset[int]]]) -> list[float]:
        """The scores of several families; the uncached ones counted in one batch.

        A family whose table would pass the engine's ``max_cells`` scores ``-inf``: a search
        leaves it out, as the model contract asks of searches that propose candidates.
        """
        keys = [(int(child), frozenset(int(p) for p in parents)) for child, parents in families]
        missing = []
        for key in dict.fromkeys(keys):
            if key not in self._cache:
                if self.fits(key[0], key[1]):
                    missing.append(key)
                else:
                    self._cache[key] = -math.inf
        tables = self._fetch([("counts", (*sorted(parents), child)) for child, parents in missing])
        for key, table in zip(missing, tables):
            self._cache[key] = float(self._score(self._family_table(table, len(key[1]))))
        return [self._cache[key] for key in keys]

    def additions(self, families: Sequence[tuple[int, Sequence[int] | frozenset[int]]]) -> list[np.ndarray]:
        """For each ``(child, parents)``: the score with each other variable as an extra parent.

        One table per child (``N[parents, child, u]`` for every ``u``), all in one batch;
        the scores of the new families are cached.

        Returns
        -------
        list of ndarray of shape (n_variables,)
            Entry ``u``: the score of ``child`` given ``parents + [u]``; NaN for the child
            itself and its parents, ``-inf`` for a family over the engine's ``max_cells``.
        """
        requests, plans = [], []
        for child, parents in families:
            child = int(child)
            given = (*sorted(int(p) for p in parents), child)
            others = [u for u in range(self.n) if u not in given]
            cells = math.prod(int(self.cards[p]) for p in given)
            width = int(self.cards[others].sum()) if others else 0
            if cells * width <= self.engine.max_cells:
                plans.append(("batched", child, given, others))
                requests.append(("one-way", given))
            else:  # too large at once: each extra parent alone, those that fit
                plans.append(("single", child, given, others))
        tables = iter(self._fetch(requests))
        results = []
        for kind, child, given, others in plans:
            result = np.full(self.n, np.nan)
            parents = frozenset(given[:-1])
            if kind == "single":
                scores = self.families([(child, parents | {u}) for u in others])
                result[others] = scores
                results.append(result)
                continue
            table = next(tables)  # (q * r, K): the strata are (parents..., child), child fastest
            self._score_extensions(table, child, given, others, result)
            results.append(result)
        return results

    def _score_extensions(self, table, child, given, others, result):
        q = math.prod(int(self.cards[p]) for p in given[:-1])
        r = int(self.cards[child])
        cards = self.cards[others]
        offsets = np.concatenate([[0], np.cumsum(cards)])
        parents = frozenset(given[:-1])
        for c in np.unique(cards):
            members = [k for k in range(len(others)) if cards[k] == c]
            columns = np.concatenate([np.arange(offsets[k], offsets[k] + c) for k in members])
            block = table[:, columns].reshape(q, r, len(members), int(c))
            families = np.transpose(block, (2, 0, 3, 1)).reshape(len(members), q * int(c), r)
            scores = self._score(families)
            for k, value in zip(members, np.atleast_1d(scores)):
                u = others[k]
                result[u] = float(value)
                self._cache.setdefault((child, parents | {u}), float(value))

    def empty_additions(self) -> None:
        """Score every family of one parent, and every empty family, from the pairwise tables (one batch)."""
        pairs = self.engine.pairwise_counts(self.engine.names)
        self.n_tables += 1
        self.n_passes += 1
        table = pairs.table[0]
        offsets = np.asarray(pairs.offsets)
        cards = self.cards
        for v in range(self.n):
            diagonal = np.diagonal(pairs.block(v, v), axis1=1, axis2=2)[0]
            self._cache.setdefault((v, frozenset()), float(self._score(diagonal[None, :])))
        # All pairs of the same cardinalities scored as one batch of (r_u, r_v) tables.
        for a in np.unique(cards):
            for b in np.unique(cards):
                us = np.flatnonzero(cards == a)
                vs = np.flatnonzero(cards == b)
                grid_parent, grid_child = np.meshgrid(us, vs, indexing="ij")
                keep = grid_parent != grid_child
                parent_of, child_of = grid_parent[keep], grid_child[keep]
                if not len(parent_of):
                    continue
                rows = offsets[parent_of][:, None] + np.arange(a)  # (m, a)
                columns = offsets[child_of][:, None] + np.arange(b)  # (m, b)
                families = table[rows[:, :, None], columns[:, None, :]]  # (m, a, b): the parent on rows
                scores = np.atleast_1d(self._score(families))
                for parent, child, value in zip(parent_of.tolist(), child_of.tolist(), scores.tolist()):
                    self._cache.setdefault((child, frozenset((parent,))), value)


def distinct_rows(engine: CountingEngine) -> CountingEngine:
    """The engine's rows counted once each, with the number of times they occur as weights.

    A search counts a table per move: over fewer rows, each count is faster and the tables are
    the same. Returns `engine` itself when the rows are few, distributed, or mostly distinct.
    """
    if engine.distributed or engine.n_rows < 1000:
        return engine
    codes, weights = engine.rows()
    unique, summed, _ = unique_rows(codes, engine.cardinalities, weights)
    if len(unique) > 0.8 * len(codes):
        return engine
    compact = CountingEngine(
        np.asfortranarray(unique),  # column-major, as the encoder's codes (read a few columns at a time)
        engine.cardinalities,
        names=engine.names,
        sample_weight=summed,
        max_cells=engine.max_cells,
    )
    if hasattr(engine, "levels"):
        compact.levels = engine.levels
    return compact


# ---------------------------------------------------------------------------------- scoring a DAG
@dataclass(frozen=True)
class StructureScore:
    """The score of a DAG and its families (made by :func:`score_structure`).

    Attributes
    ----------
    total : float
        The network's score: the sum of the families'.
    families : pandas.DataFrame
        One row per variable: ``node``, ``parents`` (a tuple), ``score``, ``parameters``
        (free parameters of its table, ``q (r - 1)``).
    score : str
        The score's name.
    """

    total: float
    families: pd.DataFrame
    score: str

    def __float__(self) -> float:
        return self.total

    def __repr__(self) -> str:
        return f"StructureScore({self.score}={self.total:.6g}, {len(self.families)} families)"


def _dag_positions(dag: nx.DiGraph, engine: CountingEngine, what: str = "dag") -> list[frozenset[int]]:
    """Each variable's parents, as positions of the engine, from a DAG over its variables."""
    if not isinstance(dag, nx.DiGraph):
        raise TypeError(f"`{what}` must be an nx.DiGraph, got {type(dag).__name__}.")
    names = list(engine.names)
    unknown = [v for v in dag.nodes if v not in set(names)]
    if unknown:
        raise ValueError(f"`{what}` has the node {unknown[0]!r}, which is not a variable of the data ({names[:10]}).")
    if not nx.is_directed_acyclic_graph(dag):
        cycle = nx.find_cycle(dag)
        raise ValueError(f"`{what}` must be acyclic; it has the cycle {' -> '.join(str(u) for u, _ in cycle)}.")
    index = {v: i for i, v in enumerate(names)}
    parents: list[set[int]] = [set() for _ in names]
    for u, v in dag.edges:
        parents[index[v]].add(index[u])
    return [frozenset(p) for p in parents]


def score_structure(
    dag: nx.DiGraph,
    data: CountingEngine | pd.DataFrame,
    *,
    score: str = "bdeu",
    equivalent_sample_size: float = 1.0,
) -> StructureScore:
    """The decomposable score of a DAG on data, with each family's share.

    Parameters
    ----------
    dag : nx.DiGraph
        Over some or all of the data's variables (a variable the DAG leaves out is scored
        without parents).
    data : CountingEngine or DataFrame
    score : {"bdeu", "k2", "bic", "aic", "log-likelihood"}, default="bdeu"
        BDeu and K2 are log marginal likelihoods (Heckerman, Geiger & Chickering [1]_; Cooper
        & Herskovits [2]_), BIC and AIC penalized log-likelihoods, all in nats.
    equivalent_sample_size : float, default=1.0
        BDeu's.

    Returns
    -------
    StructureScore
        ``total`` and the ``families`` table; ``float(result)`` is the total.

    Raises
    ------
    ValueError
        For a node that is not a variable, a cycle, or an unknown score.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning Bayesian networks:
           the combination of knowledge and statistical data. *Machine Learning*, 20, 197-243.
    .. [2] Cooper, G. F., & Herskovits, E. (1992). A Bayesian method for the induction of
           probabilistic networks from data. *Machine Learning*, 9(4), 309-347.

    Examples
    --------
    >>> import pandas as pd, networkx as nx
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1] * 5, "b": [0, 0, 1, 1] * 5, "c": [0, 1] * 10})
    >>> result = score_structure(nx.DiGraph([("a", "b")]), frame, score="bic")
    >>> result.families[["node", "parents", "parameters"]].to_numpy().tolist()
    [['a', (), 1], ['b', ('a',), 2], ['c', (), 1]]
    >>> float(result) > float(score_structure(nx.DiGraph(), frame, score="bic"))
    True
    """
    import pandas as pd

    validate_params(
        "score_structure",
        {"score": score, "equivalent_sample_size": equivalent_sample_size},
        {k: SEARCH_CONSTRAINTS[k] for k in ("score", "equivalent_sample_size")},
    )
    engine = as_engine(data)
    parents = _dag_positions(dag, engine)
    scorer = FamilyScores(engine, score, equivalent_sample_size)
    values = scorer.families(list(enumerate(parents)))
    names = engine.names
    cards = engine.cardinalities
    families = pd.DataFrame(
        {
            "node": list(names),
            "parents": [tuple(names[p] for p in sorted(ps)) for ps in parents],
            "score": values,
            "parameters": [math.prod(int(cards[p]) for p in ps) * (int(cards[v]) - 1) for v, ps in enumerate(parents)],
        }
    )
    return StructureScore(float(np.sum(values)), families, score)


# ---------------------------------------------------------------------------------- the search state
def _closure(adjacency: np.ndarray, order: list[int]) -> np.ndarray:
    """``reach[a, b]``: a directed path of one or more arcs from a to b (children before parents)."""
    n = len(adjacency)
    reach = np.zeros((n, n), dtype=bool)
    for a in reversed(order):
        children = np.flatnonzero(adjacency[a])
        if len(children):
            reach[a] = adjacency[a] | reach[children].any(axis=0)
    return reach


class _Search:
    """The state of a hill climb: the DAG, each family's score and every move's gain."""

    def __init__(self, scorer: FamilyScores, knowledge: Knowledge, start: list[frozenset[int]]) -> None:
        n = scorer.n
        self.scorer = scorer
        self.n = n
        self.allowed = knowledge.allowed_matrix()
        self.required = knowledge.required_matrix()
        self.limits = knowledge.parent_limits()
        self.adjacency = np.zeros((n, n), dtype=bool)
        for v, ps in enumerate(start):
            for u in ps:
                self.adjacency[u, v] = True
        self.local = np.zeros(n)
        self.add_gain = np.full((n, n), -np.inf)
        self.delete_gain = np.full((n, n), -np.inf)
        self.refresh(list(range(n)))
        self.update_reach()

    def parents(self, v: int) -> frozenset[int]:
        return frozenset(np.flatnonzero(self.adjacency[:, v]).tolist())

    @property
    def total(self) -> float:
        return float(self.local.sum())

    def arcs(self) -> frozenset[tuple[int, int]]:
        return frozenset(zip(*map(lambda a: a.tolist(), np.nonzero(self.adjacency))))

    def update_reach(self) -> None:
        order = list(nx.topological_sort(nx.DiGraph(list(zip(*np.nonzero(self.adjacency))))))
        order = [int(v) for v in order] + [v for v in range(self.n) if v not in set(order)]
        self.reach = _closure(self.adjacency, order)

    def refresh(self, children: list[int]) -> None:
        """Rescore the families of `children` and the gains of the moves that change them."""
        scorer, n = self.scorer, self.n
        families = [(v, self.parents(v)) for v in children]

        def extended(v, ps):
            return all(scorer.known(v, ps | {u}) for u in range(n) if u != v and u not in ps)

        # A fresh start's empty families: every extension from the pairwise tables (one batch).
        if sum(1 for v, ps in families if not ps and not extended(v, ps)) > 1 and self.n > 1:
            scorer.empty_additions()
        unscored = [(v, ps) for v, ps in families if not extended(v, ps)]
        extensions = dict(zip([v for v, _ in unscored], scorer.additions(unscored)))  # one batch
        deletions = [(v, ps - {u}) for v, ps in families for u in ps]
        scorer.families(families + deletions)  # one batch, of those not yet known
        for v, ps in families:
            self.local[v] = scorer.family(v, ps)
            candidates = extensions.get(v)
            if candidates is None:
                candidates = np.full(n, np.nan)
                others = [u for u in range(n) if u != v and u not in ps]
                candidates[others] = scorer.families([(v, ps | {u}) for u in others])
            self.add_gain[:, v] = np.where(np.isnan(candidates), -np.inf, candidates - self.local[v])
            self.delete_gain[:, v] = -np.inf
            for u in ps:
                self.delete_gain[u, v] = scorer.family(v, ps - {u}) - self.local[v]

    def gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The gain of every valid add, delete and reverse move (``-inf`` where invalid)."""
        a = self.adjacency
        n_parents = a.sum(axis=0)
        below = n_parents < self.limits
        add_ok = ~a & ~a.T & self.allowed & below[None, :] & ~self.reach.T
        add = np.where(add_ok, self.add_gain, -np.inf)
        delete = np.where(a & ~self.required, self.delete_gain, -np.inf)
        # Reversing u -> v makes a cycle when another child of u reaches v: checked arc by arc
        # (a few per variable), not by an n x n product, which BLAS threads slow down on a busy machine.
        other_path = np.zeros_like(a)
        us, vs = np.nonzero(a)
        if len(us):
            other_path[us, vs] = (a[us] & self.reach[:, vs].T).any(axis=1)
        reverse_ok = a & ~self.required & self.allowed.T & below[:, None] & ~other_path
        reverse = np.where(reverse_ok, self.delete_gain + self.add_gain.T, -np.inf)
        return add, delete, reverse

    def apply(self, kind: str, u: int, v: int) -> None:
        if kind == "add":
            self.adjacency[u, v] = True
            # Everything that reaches u (and u) now reaches v and all v reaches.
            sources = self.reach[:, u].copy()
            sources[u] = True
            targets = self.reach[v].copy()
            targets[v] = True
            self.reach[np.ix_(sources, targets)] = True
            self.refresh([v])
        elif kind == "delete":
            self.adjacency[u, v] = False
            self.update_reach()
            self.refresh([v])
        else:
            self.adjacency[u, v] = False
            self.adjacency[v, u] = True
            self.update_reach()
            self.refresh([v, u])

    def random_move(self, rng: np.random.Generator) -> tuple[str, int, int] | None:
        """A valid move chosen at random (a kind with valid moves, then one of its moves)."""
        moves = self.gains()
        kinds = [(name, np.argwhere(np.isfinite(g))) for name, g in zip(("add", "delete", "reverse"), moves)]
        kinds = [(name, cells) for name, cells in kinds if len(cells)]
        if not kinds:
            return None
        name, cells = kinds[int(rng.integers(len(kinds)))]
        u, v = cells[int(rng.integers(len(cells)))]
        return name, int(u), int(v)


_KINDS = ("add", "delete", "reverse")


def _after(arcs: frozenset[tuple[int, int]], kind: str, u: int, v: int) -> frozenset[tuple[int, int]]:
    """The arcs after a move."""
    if kind == "add":
        return arcs | {(u, v)}
    if kind == "delete":
        return arcs - {(u, v)}
    return (arcs - {(u, v)}) | {(v, u)}


def _best_move(
    gains: tuple[np.ndarray, np.ndarray, np.ndarray],
    arcs: frozenset[tuple[int, int]] | None = None,
    tabu: Any = (),
) -> tuple[str, int, int, float] | None:
    """The valid move of largest gain (ties: add, delete, reverse, then the first cell) that
    does not lead to a network of the tabu list."""
    stacked = np.stack(gains).reshape(-1)
    size = gains[0].size
    width = gains[0].shape[1]
    if not tabu:
        k = int(np.argmax(stacked))
        if not np.isfinite(stacked[k]):
            return None
        kind, cell = divmod(k, size)
        return (_KINDS[kind], *divmod(cell, width), float(stacked[k]))
    finite = np.flatnonzero(np.isfinite(stacked))
    order = finite[np.argsort(-stacked[finite], kind="stable")]
    for k in order.tolist():
        kind, cell = divmod(k, size)
        u, v = divmod(cell, width)
        if _after(arcs, _KINDS[kind], u, v) not in tabu:  # type: ignore[arg-type]
            return (_KINDS[kind], u, v, float(stacked[k]))
    return None


def _start_parents(start, engine, knowledge):
    n = engine.n_variables
    if start is None:
        parents = [set() for _ in range(n)]
    else:
        parents = [set(ps) for ps in _dag_positions(start, engine, "start")]
    index = {v: i for i, v in enumerate(engine.names)}
    for u, v in knowledge.required:
        parents[index[v]].add(index[u])
    graph = nx.DiGraph()
    graph.add_nodes_from(engine.names)
    graph.add_edges_from((engine.names[u], engine.names[v]) for v, ps in enumerate(parents) for u in ps)
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("The start DAG with the required arcs added has a cycle; change `start` or `required`.")
    knowledge.check(graph, "the start DAG (with the required arcs)")
    return [frozenset(ps) for ps in parents]


def _check_search(owner, params, engine):
    validate_params(owner, params, {k: SEARCH_CONSTRAINTS[k] for k in params if k in SEARCH_CONSTRAINTS})
    if engine.n_variables == 0:
        raise ValueError("The data have no variables to learn a structure over.")


def _result_graph(engine, state, scorer, score_name):
    names = engine.names
    dag = nx.DiGraph(score=state.total, criterion=score_name)
    for v, name in enumerate(names):
        dag.add_node(name, cardinality=int(engine.cardinalities[v]), role="feature")
    for u, v in sorted(state.arcs()):
        # The arc's strength: how much the score drops without it (R bnlearn's arc.strength by score).
        dag.add_edge(names[u], names[v], weight=float(-state.delete_gain[u, v]))
    return dag


def hill_climbing(
    data: CountingEngine | pd.DataFrame,
    *,
    score: str = "bdeu",
    equivalent_sample_size: float = 1.0,
    start: nx.DiGraph | None = None,
    max_parents: int | Mapping[Hashable, int] | None = None,
    required: Any = None,
    forbidden: Any = None,
    tiers: Sequence[Sequence[Hashable]] | None = None,
    root: Any = None,
    tabu: int = 0,
    max_tabu_iter: int | None = None,
    restarts: int = 0,
    perturb: int = 1,
    max_iter: int | None = None,
    random_state: int | np.random.Generator | None = None,
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Greedy hill climbing over DAGs (add, delete or reverse one arc), with tabu and restarts.

    From `start` (the empty graph by default, with the `required` arcs), the move of largest
    score gain is taken while one gains; with ``tabu > 0`` the search then goes on through
    the best moves that do not undo one of the last `tabu` moves, even downhill, until
    `max_tabu_iter` moves in a row have not improved the best network (Glover's tabu search
    [3]_, R bnlearn's ``tabu``); with ``restarts > 0`` the best network so far is perturbed
    by `perturb` random moves and climbed again, `restarts` times (bnlearn's
    ``hc(restart=, perturb=)``). The best network found is returned. Every family score is
    computed once and kept; a move rescores only the families it changes, each child's
    possible extra parents from one batched table of the counting engine (see the module).

    Parameters
    ----------
    data : CountingEngine or DataFrame
        The engine of a Dask DataFrame works too: each batch of tables is one pass.
    score : {"bdeu", "k2", "bic", "aic", "log-likelihood"}, default="bdeu"
        The decomposable score maximized (:func:`score_structure`).
    equivalent_sample_size : float, default=1.0
        BDeu's.
    start : nx.DiGraph, optional
        The DAG to start from (over the data's variables).
    max_parents : int or dict, optional
        The most parents of every node (or of the nodes a dict names).
    required, forbidden : list of (parent, child) pairs, optional
        Arcs the network must have, and must not have.
    tiers : sequence of sequences of nodes, optional
        No arc from a later tier into an earlier one.
    root : node or list of nodes, optional
        Nodes without parents.
    tabu : int, default=0
        Length of the tabu list (0: plain hill climbing).
    max_tabu_iter : int, optional
        Moves without improvement before the tabu search stops; defaults to `tabu`.
    restarts : int, default=0
        Random restarts.
    perturb : int, default=1
        Random moves of each restart.
    max_iter : int, optional
        The most moves in all (no limit by default).
    random_state : None, int or numpy Generator
        For the perturbations.
    trace : bool, default=False
        Also return the steps.

    Returns
    -------
    dag : nx.DiGraph
        Nodes with ``cardinality``; each arc's ``weight`` is its strength, the score lost
        without it; graph attributes ``score`` (the network's) and ``criterion``.
    trace : DataFrame
        Only with ``trace=True``: one row per step. ``action`` is ``"start"`` (``arcs``: the
        start's arcs), ``"add"``, ``"delete"`` or ``"reverse"`` (``item``: the arc as it was,
        ``score``: the move's gain), ``"restore"`` (back to the best network, ``arcs``) or
        ``"stop"``; ``total`` is the network's score after the step, ``restart`` the climb's
        number and ``phase`` one of ``"climb"``, ``"tabu"`` and ``"perturb"``. Replaying
        the moves from the start rebuilds the network.

    Raises
    ------
    ValueError
        For expert knowledge that contradicts itself or the start DAG, a start DAG with a
        cycle or unknown nodes, and bad parameters
        (:class:`~graphmodels._validation.InvalidParameterError`).

    See Also
    --------
    tabu_search, exact_search, score_structure
    graphmodels.learners.pc_stable : the constraint-based search.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning Bayesian networks:
           the combination of knowledge and statistical data. *Machine Learning*, 20, 197-243.
    .. [2] Scutari, M. (2010). Learning Bayesian networks with the bnlearn R package.
           *Journal of Statistical Software*, 35(3), 1-22.
    .. [3] Glover, F. (1989). Tabu search, part I. *ORSA Journal on Computing*, 1(3), 190-206.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = a ^ (rng.random(500) < 0.1)
    >>> c = b ^ (rng.random(500) < 0.1)
    >>> dag = hill_climbing(pd.DataFrame({"a": a, "b": b, "c": c}), score="bic")
    >>> sorted(tuple(sorted(e)) for e in dag.edges)  # the chain a - b - c, in some orientation
    [('a', 'b'), ('b', 'c')]
    """
    engine = as_engine(data)
    _check_search(
        "hill_climbing",
        {
            "score": score,
            "equivalent_sample_size": equivalent_sample_size,
            "tabu": tabu,
            "max_tabu_iter": max_tabu_iter,
            "restarts": restarts,
            "perturb": perturb,
            "max_iter": max_iter,
            "random_state": random_state,
            "trace": trace,
        },
        engine,
    )
    knowledge = expert_knowledge(
        engine.names, required=required, forbidden=forbidden, tiers=tiers, root=root, max_parents=max_parents
    )
    scorer = FamilyScores(distinct_rows(engine), score, equivalent_sample_size)
    record = new_trace(trace, "hill_climbing", "total", "restart", "phase", "arcs", integers=("restart",))
    dag = _climb(
        engine, scorer, knowledge, start, tabu, max_tabu_iter, restarts, perturb, max_iter, random_state, record
    )
    return traced(dag, record)


def _climb(engine, scorer, knowledge, start, tabu, max_tabu_iter, restarts, perturb, max_iter, random_state, record):
    """The search of :func:`hill_climbing` with its arguments checked; returns the DAG."""
    names = engine.names
    state = _Search(scorer, knowledge, _start_parents(start, engine, knowledge))
    rng = np.random.default_rng(random_state)
    budget = math.inf if max_iter is None else int(max_iter)
    patience = int(tabu if max_tabu_iter is None else max_tabu_iter)
    moves = 0

    def arcs_of(arcs):
        return tuple((names[u], names[v]) for u, v in sorted(arcs))

    if record is not None:
        record.add(
            "start", None, state.total, "", total=state.total, restart=0, phase="climb", arcs=arcs_of(state.arcs())
        )

    def step(kind, u, v, gain, climb, phase):
        state.apply(kind, u, v)
        if record is not None:
            record.add(kind, (names[u], names[v]), gain, "", total=state.total, restart=climb, phase=phase)

    best_total, best_arcs = state.total, state.arcs()
    stop_reason = "no move improves the score"
    for climb in range(int(restarts) + 1):
        if climb > 0:  # perturb the best network found so far
            _back_to_best(state, best_arcs, record, arcs_of, restart=climb, phase="perturb")
            for _ in range(int(perturb)):
                move = state.random_move(rng)
                if move is None:
                    break
                kind, u, v = move
                gain = state.gains()[("add", "delete", "reverse").index(kind)][u, v]
                step(kind, u, v, float(gain), climb, "perturb")
        # The tabu list: the last `tabu` networks visited (as R bnlearn keeps it), never revisited.
        recent: deque[frozenset[tuple[int, int]]] = deque([state.arcs()], maxlen=max(int(tabu), 1))
        since_best = 0
        local_best = state.total
        while moves < budget:
            move = _best_move(state.gains(), state.arcs(), set(recent) if tabu else ())
            if move is None:
                stop_reason = "no valid move"
                break
            kind, u, v, gain = move
            if gain <= MIN_GAIN:
                if not tabu or since_best >= patience:
                    stop_reason = (
                        "no move improves the score" if not tabu else f"{patience} tabu moves without improvement"
                    )
                    break
                phase = "tabu"
            else:
                phase = "climb" if not tabu or since_best == 0 else "tabu"
            step(kind, u, v, gain, climb, phase)
            moves += 1
            if tabu:
                recent.append(state.arcs())
            if state.total > local_best + MIN_GAIN:
                local_best = state.total
                since_best = 0
            else:
                since_best += 1
            if state.total > best_total + MIN_GAIN:
                best_total, best_arcs = state.total, state.arcs()
        else:
            stop_reason = f"max_iter={max_iter} moves"
        if state.total > best_total + MIN_GAIN:
            best_total, best_arcs = state.total, state.arcs()
        if moves >= budget:
            break
    _back_to_best(state, best_arcs, record, arcs_of, restart=climb, phase="climb")
    if record is not None:
        record.add("stop", None, state.total, stop_reason, total=state.total, restart=climb, phase="climb")
    return _result_graph(engine, state, scorer, scorer.score)


def _back_to_best(state: _Search, best_arcs, record, arcs_of, *, restart: int, phase: str) -> None:
    """Return the search to the best network found, recording the step, when it has moved away from it."""
    if state.arcs() == best_arcs:
        return
    _restore(state, best_arcs)
    if record is not None:
        record.add(
            "restore",
            None,
            state.total,
            "back to the best network",
            total=state.total,
            restart=restart,
            phase=phase,
            arcs=arcs_of(best_arcs),
        )


def _restore(state: _Search, arcs: frozenset[tuple[int, int]]) -> None:
    target = np.zeros_like(state.adjacency)
    for u, v in arcs:
        target[u, v] = True
    changed = np.flatnonzero((target != state.adjacency).any(axis=0)).tolist()
    state.adjacency = target
    state.update_reach()
    state.refresh(changed)


def tabu_search(
    data: CountingEngine | pd.DataFrame, *, tabu: int = 10, max_tabu_iter: int | None = None, **options: Any
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Tabu search over DAGs: :func:`hill_climbing` with a tabu list of `tabu` moves (R bnlearn's ``tabu``).

    Parameters
    ----------
    data : CountingEngine or DataFrame
    tabu : int, default=10
        Length of the tabu list: a move that undoes one of the last `tabu` moves is not taken.
    max_tabu_iter : int, optional
        Moves without improving the best network before stopping; defaults to `tabu`.
    **options
        The other arguments of :func:`hill_climbing`.

    Returns
    -------
    nx.DiGraph, or (nx.DiGraph, DataFrame) with ``trace=True``

    References
    ----------
    .. [1] Glover, F. (1989). Tabu search, part I. *ORSA Journal on Computing*, 1(3), 190-206.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 300)
    >>> frame = pd.DataFrame({"a": a, "b": a ^ (rng.random(300) < 0.2)})
    >>> tabu_search(frame).number_of_edges()
    1
    """
    return hill_climbing(data, tabu=tabu, max_tabu_iter=max_tabu_iter, **options)


# ---------------------------------------------------------------------------------- exact search
def exact_search(
    data: CountingEngine | pd.DataFrame,
    *,
    score: str = "bdeu",
    equivalent_sample_size: float = 1.0,
    max_parents: int | Mapping[Hashable, int] | None = None,
    required: Any = None,
    forbidden: Any = None,
    tiers: Sequence[Sequence[Hashable]] | None = None,
    root: Any = None,
) -> nx.DiGraph:
    """The DAG of highest score, by dynamic programming over subsets (Silander & Myllymaki [1]_).

    Every parent set of every variable is scored (up to `max_parents` parents), the best
    parent set within each candidate set is found by one pass over the subsets, and the best
    network by choosing, for each set of variables, its best sink. Time and memory grow as
    ``n 2^n``: at most 16 variables.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    score : {"bdeu", "k2", "bic", "aic", "log-likelihood"}, default="bdeu"
    equivalent_sample_size : float, default=1.0
    max_parents : int or dict, optional
    required, forbidden, tiers, root
        Expert knowledge, as for :func:`hill_climbing`.

    Returns
    -------
    nx.DiGraph
        As :func:`hill_climbing`'s. Ties go to the first network in a fixed order.

    Raises
    ------
    ValueError
        For more than 16 variables, or contradictory knowledge.

    References
    ----------
    .. [1] Silander, T., & Myllymaki, P. (2006). A simple approach for finding the globally
           optimal Bayesian network structure. In *Proceedings of UAI*, 445-452.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> a = rng.integers(0, 2, 400)
    >>> frame = pd.DataFrame({"a": a, "b": a ^ (rng.random(400) < 0.1), "c": rng.integers(0, 2, 400)})
    >>> [tuple(sorted(arc)) for arc in exact_search(frame, score="bic").edges]  # either orientation: a tie
    [('a', 'b')]
    """
    engine = as_engine(data)
    _check_search("exact_search", {"score": score, "equivalent_sample_size": equivalent_sample_size}, engine)
    n = engine.n_variables
    if n > EXACT_MAX_VARIABLES:
        raise ValueError(
            f"exact_search finds the best DAG of at most {EXACT_MAX_VARIABLES} variables, got {n}; "
            "use hill_climbing or tabu_search."
        )
    knowledge = expert_knowledge(
        engine.names, required=required, forbidden=forbidden, tiers=tiers, root=root, max_parents=max_parents
    )
    scorer = FamilyScores(distinct_rows(engine), score, equivalent_sample_size)
    allowed = knowledge.allowed_matrix()
    required_matrix = knowledge.required_matrix()
    limits = knowledge.parent_limits()
    size = 1 << n
    masks = np.arange(size)
    popcount = np.array([bin(m).count("1") for m in range(size)])
    best_in = np.empty((n, size))
    best_set = np.empty((n, size), dtype=np.int64)
    for v in range(n):
        candidates = sum(1 << u for u in range(n) if allowed[u, v])
        needed = sum(1 << u for u in range(n) if required_matrix[u, v])
        usable = [
            int(m)
            for m in masks
            if not m & ~candidates and m & needed == needed and popcount[m] <= limits[v] and not m >> v & 1
        ]
        local = np.full(size, -np.inf)
        values = scorer.families([(v, [u for u in range(n) if m >> u & 1]) for m in usable])
        local[usable] = values
        # best_in[v, C]: the best parent set of v inside C (a max over subsets, one bit at a time).
        best, where = local.copy(), masks.copy()
        for b in range(n):
            has = (masks >> b & 1).astype(bool)
            without = masks[has] ^ (1 << b)
            better = best[without] > best[has]
            idx = np.flatnonzero(has)[better]
            best[idx] = best[without[better]]
            where[idx] = where[without[better]]
        best_in[v], best_set[v] = best, where
    # best network over each set W of variables: its best sink s with parents inside W - {s}.
    network = np.full(size, -np.inf)
    network[0] = 0.0
    sink = np.full(size, -1, dtype=np.int64)
    for w in range(1, size):
        for s in range(n):
            if w >> s & 1:
                rest = w ^ (1 << s)
                value = network[rest] + best_in[s, rest]
                if value > network[w] + 1e-12:
                    network[w], sink[w] = value, s
    if not np.isfinite(network[size - 1]):
        raise ValueError("No DAG satisfies the expert knowledge.")
    parents: list[frozenset[int]] = [frozenset()] * n
    w = size - 1
    while w:
        s = int(sink[w])
        rest = w ^ (1 << s)
        m = int(best_set[s, rest])
        parents[s] = frozenset(u for u in range(n) if m >> u & 1)
        w = rest
    state = _Search(scorer, knowledge, parents)
    return _result_graph(engine, state, scorer, score)
