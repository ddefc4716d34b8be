"""Maximum-weight hyperforests: bounded tree-width Markov network structures.

Finding the maximum-likelihood (or minimum description length) Markov
network of tree-width at most k is finding a maximum-weight hyperforest of
width k for the hyperedge weights of :mod:`graphmodels.stats.hyperedges`
(NP-hard for k >= 2). Two greedy algorithms of Liang & Srebro (section 3):

* ``"global"``: Kruskal-like; hyperedges in decreasing order of weight,
  each added with its subsets when the result stays acyclic and the added
  weight is positive.
* ``"incremental"`` (Malvestuto, 1991): Prim-like; from a start hyperedge,
  repeatedly attach the outside node v to the (not necessarily maximal)
  hyperedge h' of the forest that maximizes the weight gained by
  ``h' + {v}`` and its new subsets, or start a new tree when no gain is
  positive. Acyclicity holds by construction: the additions are a Graham
  reduction in reverse. With backtracking, each of the heaviest
  `n_starts` hyperedges is tried as the start and the heaviest forest kept.

References
----------
.. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
       bounded tree-width Markov networks. MIT CSAIL technical report.
.. [2] Malvestuto, F. M. (1991). Approximating discrete probability
       distributions with decomposable models. *IEEE Transactions on
       Systems, Man and Cybernetics*, 21(5), 1287-1294.
.. [3] Srebro, N. (2000). Maximum likelihood Markov networks: an
       algorithmic approach. Master's thesis, MIT.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from .._trace import new_trace, traced
from ..stats.hyperedges import HyperedgeWeights
from ..structures.hyperforests import Hyperforest

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["max_hyperforest", "HYPERFOREST_ALGORITHMS"]

# Gains at or below this are no gain: float noise must not grow a hyperedge.
_TOLERANCE = 1e-12


@overload
def max_hyperforest(
    weights: HyperedgeWeights | Mapping[Any, float],
    k: int,
    *,
    algorithm: str = ...,
    n_starts: int = ...,
    nodes: Sequence[Hashable] | None = ...,
    node_attributes: Mapping[Any, Mapping[str, Any]] | None = ...,
    trace: Literal[False] = ...,
) -> Hyperforest: ...


@overload
def max_hyperforest(
    weights: HyperedgeWeights | Mapping[Any, float],
    k: int,
    *,
    algorithm: str = ...,
    n_starts: int = ...,
    nodes: Sequence[Hashable] | None = ...,
    node_attributes: Mapping[Any, Mapping[str, Any]] | None = ...,
    trace: Literal[True],
) -> tuple[Hyperforest, pd.DataFrame]: ...


@overload
def max_hyperforest(
    weights: HyperedgeWeights | Mapping[Any, float],
    k: int,
    *,
    algorithm: str = ...,
    n_starts: int = ...,
    nodes: Sequence[Hashable] | None = ...,
    node_attributes: Mapping[Any, Mapping[str, Any]] | None = ...,
    trace: bool = ...,
) -> Hyperforest | tuple[Hyperforest, pd.DataFrame]: ...


def max_hyperforest(
    weights: HyperedgeWeights | Mapping[Any, float],
    k: int,
    *,
    algorithm: str = "incremental",
    n_starts: int = 100,
    nodes: Sequence[Hashable] | None = None,
    node_attributes: Mapping[Any, Mapping[str, Any]] | None = None,
    trace: bool = False,
) -> Hyperforest | tuple[Hyperforest, pd.DataFrame]:
    """A heavy hyperforest of width at most `k` (greedy, as Liang & Srebro).

    Parameters
    ----------
    weights : HyperedgeWeights or mapping
        Weights of the candidate hyperedges of up to k + 1 nodes (see
        :func:`~graphmodels.stats.hyperedge_weights`); a plain mapping
        ``hyperedge -> weight`` (absent hyperedges weigh 0) needs `nodes`
        unless every node appears in it.
    k : int
        Width (tree-width of the Markov network), >= 0. k = 0 gives
        isolated nodes, k = 1 a maximum spanning forest.
    algorithm : {"incremental", "global"}, default="incremental"
    n_starts : int, default=100
        Incremental algorithm: the number of heaviest hyperedges tried as
        the start (backtracking); 1 tries only the heaviest. The forest
        grown from no start hyperedge is always tried as well.
    nodes : sequence, optional
        Nodes, for a mapping of weights.
    node_attributes : dict, optional
        Passed to :class:`~graphmodels.structures.Hyperforest`.
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    forest : Hyperforest
        Its ``graph``-level weight is available as ``forest.weight(weights)``.
    trace : DataFrame
        Only with ``trace=True``: one row per step; ``item`` is a
        hyperedge (a frozenset of node names).

        ``"incremental"``: the runs one after the other, each opened by a
        ``"run"`` step (``run`` = 0 for the run from no start hyperedge,
        then 1, 2, ... for the heaviest hyperedges; ``item`` the start
        hyperedge or None; ``score`` the closure weight of the forest the
        run grew). Within a run: ``"add"`` (the start hyperedge), then in
        order ``"attach"`` (the outside node of highest gain joins the
        forest: ``item`` = ``base`` + the node, ``base`` the hyperedge of
        the forest it attaches to, ``score`` the gain) or ``"new tree"``
        (no gain is positive: ``item`` the node alone, ``score`` the best
        gain). Last, a ``"best"`` step names the winning run (``run``,
        ``item`` its start, ``score`` its weight; the first of equal
        weights wins). Replaying the winning run's ``"add"``,
        ``"attach"`` and ``"new tree"`` steps gives the forest.

        ``"global"``: every candidate hyperedge taken, by decreasing weight
        (``score``): ``"accept"`` (added with its subsets) or ``"reject"``
        (``reason``: already in the forest, no positive gain, or the forest
        would not stay acyclic); ``gain`` the weight of its subsets not yet
        in the forest. A ``"stop"`` step ends a search that filled a
        k-tree. The accepted hyperedges, added in order, give the forest.

    Raises
    ------
    ValueError
        For an unknown algorithm, a negative k, or weights that stop below
        size k + 1.
    TypeError
        For a `trace` that is not a bool.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. Section 3.
    .. [2] Malvestuto, F. M. (1991). Approximating discrete probability
           distributions with decomposable models.

    Examples
    --------
    >>> w = {("a", "b"): 1.0, ("b", "c"): 2.0, ("a", "c"): 0.5, ("a", "b", "c"): 0.1}
    >>> sorted(sorted(h) for h in max_hyperforest(w, 1).maximal_hyperedges)
    [['a', 'b'], ['b', 'c']]
    >>> sorted(sorted(h) for h in max_hyperforest(w, 2).maximal_hyperedges)
    [['a', 'b', 'c']]
    """
    record = new_trace(trace, "max_hyperforest", "run", "base", "gain", integers=["run"])
    return traced(_max_hyperforest(weights, k, algorithm, n_starts, nodes, node_attributes, record), record)


def _max_hyperforest(weights, k, algorithm, n_starts, nodes, node_attributes, record):
    """:func:`max_hyperforest`, recording into `record` (a Trace or None)."""
    if algorithm not in HYPERFOREST_ALGORITHMS:
        raise ValueError(f"Unknown algorithm {algorithm!r}; valid: {sorted(HYPERFOREST_ALGORITHMS)}.")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0:
        raise ValueError(f"`k` must be a non-negative integer, got {k!r}.")
    if not isinstance(n_starts, (int, np.integer)) or n_starts < 1:
        raise ValueError(f"`n_starts` must be a positive integer, got {n_starts!r}.")
    if not isinstance(weights, HyperedgeWeights):
        if nodes is None:
            nodes = list(dict.fromkeys(v for h in weights for v in sorted(h, key=str)))
        largest = max((len(frozenset(h)) for h in weights), default=1)
        weights = HyperedgeWeights.from_mapping(weights, nodes, max_size=max(k + 1, largest))
    n = len(weights.nodes)
    k = min(int(k), max(n - 1, 0))
    if weights.max_size < k + 1:
        raise ValueError(
            f"Width k={k} needs weights of hyperedges of up to {k + 1} nodes; they stop at {weights.max_size}."
        )
    if k == 0 or n < 2:
        return Hyperforest([], weights.nodes, node_attributes=node_attributes)
    maximal = HYPERFOREST_ALGORITHMS[algorithm](weights, k, n_starts, record)
    return Hyperforest([[weights.nodes[i] for i in h] for h in maximal], weights.nodes, node_attributes=node_attributes)


# ----------------------------------------------------------------------------- incremental
def _incremental(weights, k, n_starts, record=None):
    n = len(weights.nodes)
    gains = [weights.gains(s) for s in range(k + 1)]  # gains[s][rank(b), v]
    binomial = weights.binomial_table()
    best, best_weight = None, -math.inf
    best_run = 0
    names = weights.nodes
    starts = [None] + _heaviest(weights, k, n_starts)
    if record is None:
        totals = _grow_all(weights, gains, k, n, starts)
        if totals is not None:
            # As below: a run wins when heavier than the best so far by more than the tolerance.
            # Only the winner's hyperedges are needed: the reference loop regrows that one run.
            for run, total in enumerate(totals.tolist()):
                if total > best_weight + _TOLERANCE:
                    best_weight, best_run = total, run
            return _grow(weights, gains, binomial, k, n, starts[best_run])[0]
    for run, start in enumerate(starts):
        row = None
        if record is not None:
            item = None if start is None else frozenset(names[i] for i in start)
            reason = "no start hyperedge" if start is None else f"start: heavy hyperedge {run} (backtracking)"
            row = record.add("run", item, math.nan, reason, run=run)
        maximal, total = _grow(weights, gains, binomial, k, n, start, record, run)
        if row is not None:
            row["score"] = total
        if total > best_weight + _TOLERANCE:
            best, best_weight, best_run = maximal, total, run
    if record is not None:
        start_item = next(r["item"] for r in record.rows if r["action"] == "run" and r["run"] == best_run)
        record.add("best", start_item, best_weight, "the heaviest forest of all runs", run=best_run)
    return best


def _heaviest(weights, k, count):
    """The `count` heaviest hyperedges of 2 .. k + 1 nodes (ties: smaller, then colex order)."""
    sizes = [weights.weights_of_size(s) for s in range(2, k + 2)]
    w = np.concatenate([w for _, w in sizes])
    count = min(count, len(w))
    picked = np.argpartition(-w, count - 1)[:count] if count < len(w) else np.arange(len(w))
    picked = picked[np.lexsort((picked, -w[picked]))]
    offsets = np.cumsum([0] + [len(c) for c, _ in sizes])
    result = []
    for index in picked:
        size = int(np.searchsorted(offsets, index, side="right")) - 1
        result.append(tuple(int(v) for v in sizes[size][0][index - offsets[size]]))
    return result


def _rank(binomial, combo):
    """Colex rank of a sorted tuple of positions (pure Python: called in the inner loop)."""
    return sum(binomial[c][i] for i, c in enumerate(combo, 1))


def _grow(weights, gains, binomial, k, n, start, record=None, run=0):
    """One run of the incremental algorithm; returns (maximal hyperedges, closure weight)."""
    inside = np.zeros(n, dtype=bool)
    best_gain = np.full(n, -np.inf)
    best_base = np.zeros(n, dtype=np.int64)  # index into `bases` of each node's attachment point
    bases = []
    maximal = []
    closure = weights.closure
    total = 0.0

    def offer(candidates):
        """Update the best attachment of every outside node with new bases."""
        for base in candidates:
            row = gains[len(base)][_rank(binomial, base)]
            better = row > best_gain
            better &= ~inside
            if better.any():
                best_gain[better] = row[better]
                best_base[better] = len(bases)
                bases.append(base)

    def add(members, new_nodes):
        nonlocal total
        inside[list(new_nodes)] = True
        best_gain[list(new_nodes)] = -np.inf
        total += closure[len(members)][_rank(binomial, members)]
        covered = set(members)
        maximal[:] = [h for h in maximal if not covered.issuperset(h)]
        maximal.append(members)
        # New attachment points: subsets of the hyperedge holding a new node
        # (the others were offered when they entered the forest).
        fresh = set(new_nodes)
        offer(
            c
            for s in range(1, min(len(members), k) + 1)
            for c in itertools.combinations(members, s)
            if not fresh.isdisjoint(c)
        )

    names = weights.nodes
    offer([()])
    if start is not None:
        add(tuple(sorted(start)), start)
        if record is not None:
            record.add("add", frozenset(names[i] for i in start), math.nan, "the run's start hyperedge", run=run)
    while not inside.all():
        v = int(np.argmax(np.where(inside, -np.inf, best_gain)))
        if best_gain[v] > _TOLERANCE:
            base = bases[best_base[v]]
            if record is not None:
                record.add(
                    "attach",
                    frozenset(names[i] for i in base + (v,)),
                    float(best_gain[v]),
                    "the outside node of highest gain joins the forest",
                    run=run,
                    base=frozenset(names[i] for i in base),
                )
            # Z(base + v) - Z(base): the new hyperedges are exactly those holding v.
            total -= closure[len(base)][_rank(binomial, base)]
            add(tuple(sorted(base + (v,))), (v,))
        else:
            if record is not None:
                record.add(
                    "new tree",
                    frozenset([names[v]]),
                    float(best_gain[v]),
                    "no positive gain left: the node starts a tree of its own",
                    run=run,
                )
            # No positive gain anywhere: v starts a tree of its own.
            total += closure[1][v]
            inside[v] = True
            best_gain[v] = -np.inf
            maximal.append((v,))
            offer([(v,)])
    return maximal, float(total)


def _grow_all(weights, gains, k, n, starts):
    """The closure weights :func:`_grow` gives from each start, all runs at once (None: use it).

    The runs advance in lockstep, one node each per step, on arrays of shape (runs, n): each
    node's best gain and attachment point (a base, as a row of the pool of every subset of up
    to k nodes). Each step offers the same bases in the same order as :func:`_grow`, and makes
    the same sums in the same order, so the totals are the same to the bit.
    """
    if any(np.isnan(g).any() for g in gains):
        return None  # NaN's comparisons are left to the reference loop
    # Bases (subsets of 0..k nodes) by a pool index: colex order by size, the sizes one after
    # the other, as the closure weights concatenated.
    sizes = np.array([math.comb(n, s) for s in range(k + 2)])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    closure = np.concatenate(weights.closure[: k + 2])
    pool_nodes = np.full((offsets[k + 1], max(k, 1)), n, dtype=np.int64)  # padded with n (sorts last)
    pool_size = np.repeat(np.arange(k + 1), sizes[: k + 1])
    for s in range(1, k + 1):
        pool_nodes[offsets[s] : offsets[s + 1], :s] = weights.weights_of_size(s)[0]
    # C(c, i) for c < n; the row of n (the padding, which sorts last) adds nothing to a rank.
    binomial = np.array(weights.binomial_table(), dtype=np.int64)
    binomial[n] = 0

    def rank(combos):
        """Colex ranks of (rows of) sorted positions, padded with n past each one's size."""
        return binomial[combos, np.arange(1, combos.shape[-1] + 1)].sum(axis=-1)

    runs = len(starts)
    all_runs = np.arange(runs)
    inside = np.zeros((runs, n), dtype=bool)
    best_gain = np.repeat(gains[0][:1], runs, axis=0)  # offered the empty base first; -inf inside
    best_base = np.zeros((runs, n), dtype=np.int64)
    total = np.zeros(runs)

    def offer(block, candidates):
        """Offer each run of `block` its candidate bases one by one, as :func:`_grow`.

        `candidates`: in order, ``(size, colex ranks, valid)``, one base of `size` nodes per run
        (`valid`: None, or False for a run that has no such base).
        """
        outside = ~inside[block]
        gain_now, base_now = best_gain[block], best_base[block]
        for size, ranks, valid in candidates:
            row = gains[size][ranks]
            better = row > gain_now
            better &= outside
            if valid is not None:
                better &= valid[:, None]
            np.copyto(gain_now, row, where=better)
            np.copyto(base_now, offsets[size] + ranks[:, None], where=better)
        if not isinstance(block, slice):  # copies, not views
            best_gain[block], best_base[block] = gain_now, base_now

    # The start hyperedges, by size: all their subsets of 1..k nodes, in itertools' order.
    for m in range(2, k + 2):
        ids = np.array([r for r, start in enumerate(starts) if start is not None and len(start) == m], dtype=np.int64)
        if not len(ids):
            continue
        members = np.sort(np.array([starts[r] for r in ids], dtype=np.int64), axis=1)
        inside[ids[:, None], members] = True
        best_gain[ids[:, None], members] = -np.inf
        total[ids] += closure[offsets[m] + rank(members)]
        patterns = [p for s in range(1, min(m, k) + 1) for p in itertools.combinations(range(m), s)]
        offer(ids, [(len(p), rank(members[:, list(p)]), None) for p in patterns])

    # A step's new bases: the new node and a subset of 0 .. k - 1 of its base's k (sorted) slots,
    # gathered from the columns (slots, node, padding). By size, then in itertools' order of the
    # slots: that is the scalar loop's order (by size, then lexicographic), as adding the same
    # node to subsets keeps their lexicographic order.
    patterns = [p for s in range(k) for p in itertools.combinations(range(k), s)]
    picks = np.array([[*p, k] + [k + 1] * (k - 1 - len(p)) for p in patterns])  # (patterns, k)
    pattern_sizes = [len(p) + 1 for p in patterns]
    pattern_last = np.array([p[-1] if p else -1 for p in patterns])  # the base must fill this slot
    padding = np.full((runs, 1), n)
    remaining = n - inside.sum(axis=1)
    for step in range(int(remaining.max(initial=0))):
        # Every run until the shortest ends (a slice: views, not copies), then the unfinished ones.
        block = slice(None) if step < remaining.min() else all_runs[remaining > step]
        ids = all_runs[block]
        gain_now = best_gain[block]
        v = gain_now.argmax(axis=1)  # inside nodes hold -inf
        attach = gain_now[np.arange(len(ids)), v] > _TOLERANCE
        # A new tree is an attachment to the empty base (pool row 0), minus nothing.
        base = np.where(attach, best_base[ids, v], 0)
        total[block] -= np.where(attach, closure[base], 0.0)
        columns = np.concatenate([pool_nodes[base], v[:, None], padding[: len(ids)]], axis=1)
        base_size = pool_size[base]
        total[block] += closure[offsets[base_size + 1] + rank(np.sort(columns[:, : k + 1], axis=1))]
        inside[ids, v] = True
        best_gain[ids, v] = -np.inf
        new_bases = rank(np.sort(columns[:, picks], axis=2))  # (runs, patterns); junk where not valid
        valid = base_size[:, None] > pattern_last
        new_bases[~valid] = 0
        offer(block, [(size, new_bases[:, j], valid[:, j]) for j, size in enumerate(pattern_sizes)])
    return total


# ----------------------------------------------------------------------------- global
def _global(weights, k, n_starts, record=None):
    n = len(weights.nodes)
    sizes = [weights.weights_of_size(s) for s in range(2, k + 2)]
    combos = [tuple(int(v) for v in c) for positions, _ in sizes for c in positions]
    w = np.concatenate([w for _, w in sizes])
    order = np.lexsort((np.arange(len(w)), -w))
    forest = Hyperforest([], range(n))
    lookup = {}
    for size in range(2, k + 2):
        positions, values = weights.weights_of_size(size)
        lookup.update({frozenset(c): float(x) for c, x in zip(map(tuple, positions), values)})
    full = n - k  # a k-tree over n nodes has n - k maximal hyperedges: nothing more fits
    names = weights.nodes
    for index in order:
        h = frozenset(combos[index])
        if h in forest:
            if record is not None:
                _global_step(record, names, h, w[index], "reject", "already in the forest (a subset of an added one)")
            continue
        # Singletons are in every forest; the gain is the weight of the new subsets.
        gain = sum(lookup[g] for g in _subsets_of(h) if len(g) > 1 and g not in forest)
        if gain <= _TOLERANCE:
            if record is not None:
                _global_step(record, names, h, w[index], "reject", "no positive gain", gain)
            continue
        if forest.would_remain_acyclic(h):
            forest.add(h)
            if record is not None:
                _global_step(record, names, h, w[index], "accept", "positive gain, the forest stays acyclic", gain)
            maximal = forest.maximal_hyperedges
            if len(maximal) == full and all(len(m) == k + 1 for m in maximal):
                if record is not None:
                    record.add("stop", None, math.nan, f"the forest is a k-tree: no hyperedge of up to {k + 1} fits")
                break
        elif record is not None:
            _global_step(record, names, h, w[index], "reject", "the forest would not stay acyclic", gain)
    return [tuple(sorted(h)) for h in forest.maximal_hyperedges]


def _global_step(record, names, h, weight, action, reason, gain=math.nan):
    record.add(action, frozenset(names[i] for i in h), float(weight), reason, gain=float(gain))


def _subsets_of(h):
    items = sorted(h)
    return [frozenset(c) for s in range(1, len(items) + 1) for c in itertools.combinations(items, s)]


#: The maximum-hyperforest algorithms by name.
HYPERFOREST_ALGORITHMS = {"incremental": _incremental, "global": _global}
