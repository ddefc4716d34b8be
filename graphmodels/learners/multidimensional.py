"""Structure learners of multi-dimensional Bayesian network classifiers (MDBNCs).

An MDBNC over class variables ``C_1..C_m`` and attributes ``A_1..A_n`` has a
class subgraph, a bridge subgraph (class-to-feature arcs) and a feature
subgraph (van der Gaag & de Waal, 2006; Bielza, Li & Larrañaga, 2011). With
a decomposable score (BIC or BDeu, :mod:`graphmodels.stats.scores`) each part
is learned exactly for its family of graphs:

* :func:`class_forest`: the class subgraph as the maximum-score spanning
  forest of the classes (Chow-Liu with a score-equivalent penalty: only arcs
  that raise the score; the classes' marginal is the class subgraph's alone,
  so this is exact);
* :func:`bridge_parent_sets`: each attribute's set of class parents, the best
  of all sets of at most `max_parents` classes -- the features being
  conditionally independent given the classes, each attribute is scored on
  its own, which is the linear-time learning of the multi-dimensional AODE
  (Antonucci et al., 2013; Mauá's notes, section 6);
* :func:`bridge_and_feature_forest`: the bridge and a feature forest
  together, exactly: the maximum-weight branching (Edmonds) of the gains of
  one attribute parent, each attribute re-choosing its class parents for it.

Counts come from the counting engine in one batched pass per set of class
parents (``one_way_counts``/``pairwise_counts`` with ``given=[...]``);
:func:`bridge_and_feature_forest` visits the sets depth first, each set's
pairwise tables refined from its prefix's (``refine_pairwise_counts``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import networkx as nx
import numpy as np

from .._special import gammaln, xlogy
from .._trace import combine_traces, new_trace, root_rows, traced
from ..stats.counting import OneWayCounts, PairwiseCounts
from ..stats.scores import FAMILY_SCORES, check_equivalent_sample_size, family_score
from ..structures.forests import orient_forest
from ..structures.multidimensional import multidimensional_classifier
from .trees import _spanning_tree

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.counting import CountingEngine

__all__ = [
    "class_forest",
    "bridge_parent_sets",
    "bridge_and_feature_forest",
    "multidimensional_structure",
    "superparent_class_arcs",
    "MAX_PARENT_SET_CANDIDATES",
]

#: Most candidate class-parent sets :func:`bridge_parent_sets` will score.
MAX_PARENT_SET_CANDIDATES = 100_000


def _check_criterion(criterion, equivalent_sample_size):
    if criterion not in FAMILY_SCORES:
        raise ValueError(f"`criterion` must be one of {list(FAMILY_SCORES)}, got {criterion!r}.")
    check_equivalent_sample_size(equivalent_sample_size)


def _score(counts, criterion, ess, n):
    return float(family_score(counts, criterion, equivalent_sample_size=ess, sample_size=n))


@overload
def class_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    *,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[False] = ...,
) -> list[tuple[Hashable, Hashable, float]]: ...


@overload
def class_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    *,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[True],
) -> tuple[list[tuple[Hashable, Hashable, float]], pd.DataFrame]: ...


@overload
def class_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    *,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: bool = ...,
) -> list[tuple[Hashable, Hashable, float]] | tuple[list[tuple[Hashable, Hashable, float]], pd.DataFrame]: ...


def class_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    *,
    criterion: str = "bic",
    equivalent_sample_size: float = 1.0,
    trace: bool = False,
) -> list[tuple[Hashable, Hashable, float]] | tuple[list[tuple[Hashable, Hashable, float]], pd.DataFrame]:
    """The class subgraph: a maximum-score spanning forest over the class variables.

    The weight of a pair is the score gain of making one class the parent of
    the other (the same both ways: BIC and BDeu are score-equivalent); the
    maximum spanning tree of those weights (networkx Kruskal) keeps only
    pairs whose gain is positive, so the result is a forest -- a tree when
    every class is related. Without a penalty this is Chow & Liu's tree, the
    class subgraph of van der Gaag & de Waal's multi-dimensional TAN.

    Parameters
    ----------
    engine : CountingEngine
        Counts of the classes (and anything else).
    classes : sequence
        Class variable names.
    criterion : {"bic", "aic", "bdeu"}, default="bic"
    equivalent_sample_size : float, default=1.0
        BDeu's.
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    arcs : list of (parent, child, gain)
        Arcs directed away from each tree's first class in `classes`.
    trace : DataFrame
        Only with ``trace=True``: a ``"drop"`` step per pair of classes
        whose gain is not positive (never a candidate), then Kruskal's
        steps as :func:`~graphmodels.learners.chow_liu_tree` records them
        (``"accept"``/``"reject"``, ``score`` the gain, ``cycle``), then a
        ``"root"`` step per tree (its first class in `classes`). The
        accepted edges directed away from the roots are `arcs`.

    References
    ----------
    .. [1] van der Gaag, L. C., & de Waal, P. R. (2006). Multi-dimensional
           Bayesian network classifiers. *Proceedings of PGM 2006*, 107-114.
    .. [2] Chow, C. K., & Liu, C. N. (1968). Approximating discrete
           probability distributions with dependence trees. *IEEE Trans.
           Information Theory*, 14(3), 462-467.
    """
    _check_criterion(criterion, equivalent_sample_size)
    record = new_trace(trace, "class_forest", "cycle")
    classes = list(classes)
    n = engine.total
    alone = {c: _score(engine.counts([c]), criterion, equivalent_sample_size, n) for c in classes}
    weights = nx.Graph()
    weights.add_nodes_from(classes)
    dropped = []
    for a, b in itertools.combinations(classes, 2):
        gain = _score(engine.counts([a, b]), criterion, equivalent_sample_size, n) - alone[b]
        if gain > 1e-9 * max(1.0, abs(alone[b])):
            weights.add_edge(a, b, weight=gain)
        elif record is not None:
            dropped.append((gain, a, b))
    if record is not None:
        for gain, a, b in sorted(dropped, key=lambda d: -d[0]):
            record.add("drop", (a, b), gain, "no score gain: never a candidate", cycle=None)
    forest = _spanning_tree(weights, "weight", "kruskal", record)
    order = {c: i for i, c in enumerate(classes)}
    oriented = orient_forest(forest, root_key=lambda c: -order[c])
    if record is not None:
        root_rows(record, oriented, {c: -order[c] for c in classes}, "the first class of its tree in `classes`")
    return traced([(u, v, d["weight"]) for u, v, d in oriented.edges(data=True)], record)


def _parent_set_candidates(classes, max_parents, required=()):
    required = tuple(required)
    free = [c for c in classes if c not in required]
    room = max_parents - len(required)
    if room < 0:
        raise ValueError(f"`max_parents`={max_parents} is smaller than the {len(required)} required parent(s).")
    total = sum(math.comb(len(free), k) for k in range(min(room, len(free)) + 1))
    if total > MAX_PARENT_SET_CANDIDATES:
        raise ValueError(
            f"`max_parents`={max_parents} over {len(classes)} classes gives {total:,} candidate parent sets, "
            f"more than {MAX_PARENT_SET_CANDIDATES:,}; lower `max_parents`."
        )
    position = {c: i for i, c in enumerate(classes)}
    for k in range(min(room, len(free)) + 1):
        for extra in itertools.combinations(free, k):
            yield tuple(sorted(required + extra, key=position.__getitem__))


@overload
def bridge_parent_sets(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    required: Sequence[Hashable] = ...,
    trace: Literal[False] = ...,
) -> dict[Hashable, tuple[tuple[Hashable, ...], float]]: ...


@overload
def bridge_parent_sets(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    required: Sequence[Hashable] = ...,
    trace: Literal[True],
) -> tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], pd.DataFrame]: ...


@overload
def bridge_parent_sets(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    required: Sequence[Hashable] = ...,
    trace: bool = ...,
) -> (
    dict[Hashable, tuple[tuple[Hashable, ...], float]]
    | tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], pd.DataFrame]
): ...


def bridge_parent_sets(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = 2,
    criterion: str = "bic",
    equivalent_sample_size: float = 1.0,
    required: Sequence[Hashable] = (),
    trace: bool = False,
) -> dict[Hashable, tuple[tuple[Hashable, ...], float]] | tuple[dict[Hashable, Any], pd.DataFrame]:
    """The bridge subgraph: each attribute's best set of at most `max_parents` class parents.

    With the attributes conditionally independent given the classes, the
    score decomposes over attributes, and each attribute's parent set is the
    exact argmax over every set of at most `max_parents` classes -- linear in
    the number of attributes, as Antonucci et al. (2013) note. All attributes
    are scored against one candidate set at a time from one batched counting
    pass. An empty set leaves the attribute out of the model (feature
    selection). Ties go to the smaller set, then to the earlier classes.

    Parameters
    ----------
    engine : CountingEngine
    classes, features : sequence
        Variable names.
    max_parents : int, default=2
        The bound on the number of class parents of an attribute.
    criterion : {"bic", "aic", "bdeu"}, default="bic"
    equivalent_sample_size : float, default=1.0
    required : sequence, optional
        Classes every attribute must have as parents (counted in the bound).
    trace : bool, default=False
        Also return the choices (see Returns).

    Returns
    -------
    parent_sets : dict
        Attribute -> ``(parents, gain)``: a tuple of class names in `classes`
        order, and the score gain over no parent.
    trace : DataFrame
        Only with ``trace=True``: one ``"accept"`` step per attribute, in
        `features` order: ``item`` the attribute, ``parents`` its class
        parents (an empty tuple leaves it out of the model), ``score`` the
        gain, ``reason`` how many candidate sets were scored.

    Raises
    ------
    ValueError
        For a bound below 0 or below ``len(required)``, or more candidate
        sets than :data:`MAX_PARENT_SET_CANDIDATES`.

    References
    ----------
    .. [1] Antonucci, A., Corani, G., Mauá, D. D., & Gabaglio, S. (2013). An
           ensemble of Bayesian networks for multilabel classification.
           *Proceedings of IJCAI 2013*, 1220-1225.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 6.
    """
    _check_criterion(criterion, equivalent_sample_size)
    if not isinstance(max_parents, (int, np.integer)) or max_parents < 0:
        raise ValueError(f"`max_parents` must be a non-negative integer, got {max_parents!r}.")
    record = new_trace(trace, "bridge_parent_sets", "parents")
    classes, features = list(classes), list(features)
    n = engine.total
    best: dict[Hashable, tuple[Any, float]] = {f: (None, -np.inf) for f in features}
    empty_score = {}
    n_sets = 0
    for parents in _parent_set_candidates(classes, int(max_parents), required):
        n_sets += 1
        if parents:
            tables = engine.one_way_counts(features, given=list(parents))
            blocks = [tables.block(i) for i in range(len(features))]
        else:
            blocks = [engine.counts([f])[None, :] for f in features]
        for f, block in zip(features, blocks):
            score = _score(block, criterion, equivalent_sample_size, n)
            if not parents:
                empty_score[f] = score
            # Strictly better only: smaller and earlier sets come first and keep ties.
            if score > best[f][1] + 1e-9 * max(1.0, abs(score)):
                best[f] = (parents, score)
    baseline = {
        f: empty_score[f]
        if f in empty_score
        else _score(engine.counts([f])[None, :], criterion, equivalent_sample_size, n)
        for f in features
    }
    chosen = {f: (best[f][0], best[f][1] - baseline[f]) for f in features}
    if record is not None:
        for f in features:
            parents, gain = chosen[f]
            _bridge_step(record, f, parents, gain, f"the best of {n_sets} class-parent sets")
    return traced(chosen, record)


def _bridge_step(record, feature, parents, gain, reason):
    if not parents:
        reason += "; no class parent: the attribute is left out"
    record.add("accept", feature, float(gain), reason, parents=tuple(parents))


def _scores_with_each_parent(pairs, i, criterion, ess, n):
    """``score(X_i | stratum variables, X_j)`` for every j at once, from a pairwise block matrix.

    Column block i of ``pairs.table`` (strata, K, r_i) holds the family table of
    every candidate attribute parent j in its row block; the sums within each
    row block come from one ``np.add.reduceat``. Entry i itself is -inf.
    """
    offsets = pairs.offsets
    cards = np.asarray(pairs.cardinalities, dtype=np.int64)
    column = pairs.table[:, :, offsets[i] : offsets[i + 1]]  # (q, K, r_i)
    q, r = column.shape[0], column.shape[2]
    totals = column.sum(axis=2)  # (q, K)
    if criterion in ("bic", "aic"):
        cells = xlogy(column, column).sum(axis=2) - xlogy(totals, totals)
        per_parent = np.add.reduceat(cells.sum(axis=0), offsets[:-1])
        per_parameter = (np.log(n) / 2.0 if n > 0 else 0.0) if criterion == "bic" else 1.0
        scores = per_parent - per_parameter * q * cards * (r - 1)
    else:
        a_parent = np.repeat(ess / (q * cards), cards)  # per column of the K axis
        a_cell = a_parent / r
        per_row = gammaln(a_parent) - gammaln(a_parent + totals)
        per_row = per_row + (gammaln(a_cell[None, :, None] + column) - gammaln(a_cell)[None, :, None]).sum(axis=2)
        scores = np.add.reduceat(per_row.sum(axis=0), offsets[:-1])
    scores[i] = -np.inf
    return scores


def _bdeu_cells(counts, a_index, a_values, whole=False):
    """``gammaln(a + counts) - gammaln(a)`` elementwise, ``a = a_values[a_index]`` (broadcast to `counts`).

    Integral counts (the usual case) are looked up in one table per distinct
    ``a`` -- the same values scipy gives, without one ``gammaln`` per cell.
    `whole`: the counts are known to be whole numbers >= 0 (not checked).
    """
    top = float(counts.max()) if counts.size else 0.0
    if counts.size and top <= 4 * counts.size + 1024 and (whole or counts.min() >= 0):
        size = len(a_values) * (int(top) + 1)
        integral = counts.astype(np.int32 if size < 2**31 else np.int64)
        if whole or (integral == counts).all():
            steps = np.arange(int(top) + 1, dtype=float)
            lookup = (gammaln(a_values[:, None] + steps[None, :]) - gammaln(a_values)[:, None]).ravel()
            integral += (a_index * (int(top) + 1)).astype(integral.dtype)
            return lookup[integral]
    a = a_values[a_index]
    return gammaln(a + counts) - gammaln(a)


#: States per row band of :func:`_whole_bdeu_cells`' upper triangle: bands of about 1/8 of the states
#: count about 9/16 of the cells at a few numpy calls per band.
_BANDS = 8


def _strata_sum(values):
    """``values.sum(axis=0)`` of a (strata, h, w) array, adding the strata one after the other.

    numpy adds along the first axis one stratum after the other into each cell unless there
    is a single cell, which it adds pairwise: that case goes through ``cumsum``.
    """
    if values.shape[1] * values.shape[2] == 1:
        return np.cumsum(values, axis=0)[-1]
    return values.sum(axis=0)


def _whole_bdeu_cells(table, top, offsets, card_index, a_values):
    """``_bdeu_cells(table, a_index, a_values, whole=True).sum(axis=0)`` for symmetric whole counts.

    `table` is a (strata, K, K) pairwise table of complete whole counts (each stratum's table
    symmetric, counts at most `top`); block ``j`` of the K axis spans ``offsets[j]:offsets[j+1]``
    and has cardinality number ``card_index[j]`` of ``D``; the cell of row block ``j`` and
    column block ``i`` has ``a = a_values[card_index[j] * D + card_index[i]]``. The result is
    the same, bit for bit: each cell adds the same looked-up terms over the strata in the same
    order. Only the upper triangle is looked up, by row bands over runs of blocks of equal
    cardinality (callers order the blocks by cardinality): a cell's mirror has the same count,
    and the same term unless its ``a``, computed the other way round, differs in the last bit
    (then it is looked up again, from the same indices).
    """
    n_distinct = int(round(math.sqrt(len(a_values))))
    steps = np.arange(top + 1, dtype=float)
    lookup = gammaln(a_values[:, None] + steps[None, :]) - gammaln(a_values)[:, None]  # (D * D, top + 1)
    width = int(offsets[-1])
    cells = np.empty((width, width))
    # runs of consecutive blocks of one cardinality: (first block, end block, cardinality number)
    breaks = [int(b) for b in np.flatnonzero(np.diff(card_index)) + 1]
    runs = [(b, e, int(card_index[b])) for b, e in zip([0, *breaks], [*breaks, len(card_index)])]
    band_width = max(1, width // _BANDS)
    for r, (first, end, d) in enumerate(runs):
        run_end = int(offsets[end])
        later = [(int(offsets[b]), int(offsets[e]), d2) for b, e, d2 in runs[r + 1 :]]
        k = first
        while k < end:  # a row band: whole blocks, about band_width states
            m = k + 1
            while m < end and offsets[m] - offsets[k] < band_width:
                m += 1
            lo, hi = int(offsets[k]), int(offsets[m])
            for column_start, column_end, d2 in [(lo, run_end, d), *later]:
                part = table[:, lo:hi, column_start:column_end].astype(np.intp)  # contiguous: faster lookups
                upper = _strata_sum(lookup[d * n_distinct + d2][part])
                cells[lo:hi, column_start:column_end] = upper
                if a_values[d * n_distinct + d2] != a_values[d2 * n_distinct + d]:
                    upper = _strata_sum(lookup[d2 * n_distinct + d][part])
                cells[column_start:column_end, lo:hi] = upper.T
            k = m
    return cells


def _pair_scores(pairs, criterion, ess, n, complete=False):
    """``score(X_i | stratum variables, X_j)`` for every pair at once: a (p, p) matrix ``[j, i]``.

    The same family scores as :func:`_scores_with_each_parent` for every
    column ``i``, from one pass over the pairwise block matrix (sums within
    blocks by ``np.add.reduceat``); the diagonal is -inf. With `complete`
    (no unknown codes) integer counts, a parent state's total over any child
    block is its one-way count, on the diagonal.
    """
    offsets = pairs.offsets
    starts = offsets[:-1]
    cards = np.asarray(pairs.cardinalities, dtype=np.int64)
    table = pairs.table  # (q, K, K): rows the parent j's states, columns the child i's
    q = table.shape[0]
    whole = criterion not in ("bic", "aic") and complete and pairs.integer
    if table.dtype != np.float64 and not whole:  # only whole counts are only looked up
        table = table.astype(np.float64)
    if whole:
        # every child block's row sums are the parent state's count, exactly: (q, K, 1)
        totals = np.diagonal(table, axis1=1, axis2=2)[:, :, None]
    else:
        totals = np.add.reduceat(table, starts, axis=2)  # (q, K, p)
    if criterion in ("bic", "aic"):
        cells = np.add.reduceat(xlogy(table, table), starts, axis=2) - xlogy(totals, totals)
        per_pair = np.add.reduceat(cells.sum(axis=0), starts, axis=0)
        per_parameter = (np.log(n) / 2.0 if n > 0 else 0.0) if criterion == "bic" else 1.0
        scores = per_pair - per_parameter * q * cards[:, None] * (cards[None, :] - 1)
    else:
        block_of = np.repeat(np.arange(len(cards)), cards)
        distinct, index = np.unique(cards, return_inverse=True)
        # a_cell of row k (parent block j) and column l (child block i): a_parent[k] / r_i
        a_values = ((ess / (q * distinct))[:, None] / distinct[None, :]).ravel()
        a_index = (index[block_of][:, None] * len(distinct) + index[block_of][None, :])[None, :, :]
        top = int(totals.max()) if whole and totals.size else 0
        if whole and top <= 4 * table.size + 1024:  # _bdeu_cells' bound on its lookup
            cells = _whole_bdeu_cells(table, top, offsets, index, a_values)
        else:
            cells = _bdeu_cells(table, a_index, a_values, whole=pairs.integer).sum(axis=0)  # (K, K)
        cells = np.add.reduceat(np.add.reduceat(cells, starts, axis=1), starts, axis=0)
        # gammaln(a_parent) - gammaln(a_parent + totals) with a_parent = ess / (q r_j) on the rows of
        # parent j, looked up like the cells' terms (one value per distinct cardinality): the same
        # values, negated exactly
        per_row = -_bdeu_cells(totals, index[block_of][None, :, None], ess / (q * distinct), whole=pairs.integer)
        per_row = np.broadcast_to(per_row.sum(axis=0), (len(block_of), len(cards)))  # (K, p)
        scores = np.add.reduceat(per_row, starts, axis=0) + cells
    scores[np.diag_indices_from(scores)] = -np.inf
    return scores


def _alone_scores(one, criterion, ess, n):
    """``score(X_i | stratum variables)`` for every variable of a :class:`OneWayCounts` at once."""
    offsets = one.offsets
    starts = offsets[:-1]
    cards = np.asarray(one.cardinalities, dtype=np.int64)
    table = one.table  # (q, K)
    q = table.shape[0]
    totals = np.add.reduceat(table, starts, axis=1)  # (q, p)
    if criterion in ("bic", "aic"):
        log_likelihood = np.add.reduceat(xlogy(table, table).sum(axis=0), starts) - xlogy(totals, totals).sum(axis=0)
        if criterion == "aic":
            return log_likelihood - q * (cards - 1)
        penalty = (np.log(n) / 2.0 if n > 0 else 0.0) * q * (cards - 1)
        return log_likelihood - penalty
    a_parent = ess / q
    distinct, index = np.unique(cards, return_inverse=True)  # one lookup per cardinality
    a_values = a_parent / distinct.astype(float)
    a_index = np.repeat(index, cards)[None, :]
    cells = np.add.reduceat(_bdeu_cells(table, a_index, a_values).sum(axis=0), starts)
    return (gammaln(a_parent) - gammaln(a_parent + totals)).sum(axis=0) + cells


def _class_parent_set_scores(engine, classes, features, max_parents, criterion, ess):
    """``(parents, (alone, with_parent))`` for every set of at most `max_parents` classes, depth first.

    `alone` is :func:`_alone_scores`', `with_parent` :func:`_pair_scores`' (None for fewer than
    two features). Each set's pairwise tables are its prefix's refined by its last class
    (:meth:`~graphmodels.stats.CountingEngine.refine_pairwise_counts`, which counts only the
    rows away from that class's most frequent state), one set of tables held per depth. With
    complete whole counts the one-way tables are the pairwise tables' diagonals.
    """
    n = engine.total
    if len(features) < 2:
        for parents in _parent_set_candidates(classes, max_parents):
            one = engine.one_way_counts(features, given=list(parents) if parents else None)
            yield parents, (_alone_scores(one, criterion, ess, n), None)
        return
    complete = not engine.has_unknown
    # the attributes by cardinality (the scores are the same: every pair's cells and sums stay
    # the same), for _whole_bdeu_cells' runs of equal cardinality
    order = np.argsort([engine.cardinality(f) for f in features], kind="stable")
    ordered = [features[i] for i in order]

    def scores(pairs, parents):
        if complete and pairs.integer:
            diagonal = np.diagonal(pairs.table, axis1=1, axis2=2).astype(np.float64)
            one = OneWayCounts(pairs.variables, pairs.cardinalities, pairs.offsets, diagonal)
        else:
            one = engine.one_way_counts(ordered, given=list(parents) if parents else None)
        alone = np.empty(len(features))
        alone[order] = _alone_scores(one, criterion, ess, n)
        with_parent = np.empty((len(features), len(features)))
        with_parent[np.ix_(order, order)] = _pair_scores(pairs, criterion, ess, n, complete=complete)
        return alone, with_parent

    def visit(parents, pairs, start):
        yield parents, scores(pairs, parents)
        if len(parents) < max_parents:
            for k in range(start, len(classes)):
                refined = engine.refine_pairwise_counts(pairs, parents, classes[k])
                yield from visit((*parents, classes[k]), refined, k + 1)

    root = engine.pairwise_counts(ordered)
    if complete and root.integer and engine.n_rows <= 1 << 24:  # whole numbers, exact in float32: half the memory
        root = PairwiseCounts(root.variables, root.cardinalities, root.offsets, root.table.astype(np.float32), True)
    yield from visit((), root, 0)


@overload
def bridge_and_feature_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[False] = ...,
) -> tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], list[tuple[Hashable, Hashable, float]]]: ...


@overload
def bridge_and_feature_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[True],
) -> tuple[
    dict[Hashable, tuple[tuple[Hashable, ...], float]], list[tuple[Hashable, Hashable, float]], pd.DataFrame
]: ...


@overload
def bridge_and_feature_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: bool = ...,
) -> (
    tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], list[tuple[Hashable, Hashable, float]]]
    | tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], list[tuple[Hashable, Hashable, float]], pd.DataFrame]
): ...


def bridge_and_feature_forest(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    max_parents: int = 2,
    criterion: str = "bic",
    equivalent_sample_size: float = 1.0,
    trace: bool = False,
) -> (
    tuple[dict[Hashable, tuple[tuple[Hashable, ...], float]], list[tuple[Hashable, Hashable, float]]]
    | tuple[dict[Hashable, Any], list[tuple[Hashable, Hashable, float]], pd.DataFrame]
):
    """The bridge and the feature forest together: the exact best of their family.

    Each attribute gets at most `max_parents` class parents and at most one
    attribute parent, the attribute arcs forming a forest. The score
    decomposes over attributes, so for a fixed forest each attribute takes
    its best class-parent set given its attribute parent; hence the best
    structure is the maximum-weight branching (Edmonds' algorithm, networkx)
    of the gains ``best_S score(i | S, j) - best_S score(i | S)``, with each
    attribute's class parents the best set given the chosen arc. Learning
    the bridge first and the attribute arcs after it instead would keep
    class parents that only stand in for a missing attribute parent.

    All ``(j, i)`` pairs are scored against one candidate class-parent set
    at a time from one pairwise block matrix per set. The sets are counted
    depth first, each set's tables refined from those of the set without its
    last class, which counts only the rows away from that class's most
    frequent state in each stratum
    (:meth:`~graphmodels.stats.CountingEngine.refine_pairwise_counts`); the
    candidates are then compared in their order (smaller sets first), so
    that ties go as before.

    Parameters
    ----------
    engine : CountingEngine
    classes, features : sequence
    max_parents : int, default=2
    criterion : {"bic", "aic", "bdeu"}, default="bic"
    equivalent_sample_size : float, default=1.0
    trace : bool, default=False
        Also return the steps (see Returns).

    Returns
    -------
    bridge : dict
        Attribute -> ``(class parents, gain over no parent at all)``.
    arcs : list of (parent, child, gain)
        The attribute arcs; gain = the score added by the arc (and the class
        parents it lets the child change).
    trace : DataFrame
        Only with ``trace=True``: every candidate attribute arc of positive
        gain, by decreasing gain (``score``; ``item`` the arc ``(parent,
        child)``, ``parents`` the child's class parents with it):
        ``"accept"`` if the maximum branching (networkx's Edmonds, whose
        inner steps are not recorded) keeps it, else ``"reject"``; then an
        ``"accept"`` step per attribute with its class parents (``item`` the
        attribute, ``parents``, ``score`` its gain over no parent at all),
        as in :func:`bridge_parent_sets`. The accepted arcs are `arcs`.

    References
    ----------
    .. [1] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *International Journal of
           Approximate Reasoning*, 52(6), 705-727.
    .. [2] Edmonds, J. (1967). Optimum branchings. *Journal of Research of
           the National Bureau of Standards*, 71B, 233-240.
    """
    _check_criterion(criterion, equivalent_sample_size)
    if not isinstance(max_parents, (int, np.integer)) or max_parents < 0:
        raise ValueError(f"`max_parents` must be a non-negative integer, got {max_parents!r}.")
    record = new_trace(trace, "bridge_and_feature_forest", "parents")
    classes, features = list(classes), list(features)
    p = len(features)
    best_alone = np.full(p, -np.inf)
    set_alone: list[tuple[Hashable, ...]] = [()] * p
    best_with = np.full((p, p), -np.inf)  # [parent j, child i]
    set_with = np.empty((p, p), dtype=object)
    empty = np.zeros(p)
    candidates = list(_parent_set_candidates(classes, int(max_parents)))
    scored = dict(
        _class_parent_set_scores(engine, classes, features, int(max_parents), criterion, equivalent_sample_size)
    )
    index_with = np.zeros((p, p), dtype=np.int64)  # [parent j, child i] -> candidate set
    for c, parents in enumerate(candidates):
        alone, with_parent = scored.pop(parents)
        if not parents:
            empty = alone.copy()
        # Strictly better only: smaller and earlier sets come first and keep ties.
        better = alone > best_alone + 1e-9 * np.maximum(1.0, np.abs(alone))
        best_alone[better] = alone[better]
        for i in np.flatnonzero(better):
            set_alone[i] = parents
        if with_parent is None:
            continue
        tolerance = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(with_parent), with_parent, 0.0)))
        better = with_parent > best_with + tolerance
        best_with[better] = with_parent[better]
        index_with[better] = c
    for j, i in zip(*np.nonzero(np.isfinite(best_with))):
        set_with[j, i] = candidates[index_with[j, i]]
    gains = nx.DiGraph()
    gains.add_nodes_from(range(p))
    for j, i in zip(*np.nonzero(np.isfinite(best_with))):
        gain = best_with[j, i] - best_alone[i]
        if gain > 1e-9 * max(1.0, abs(best_alone[i])):
            gains.add_edge(int(j), int(i), weight=float(gain))
    branching = nx.maximum_branching(gains, attr="weight")
    bridge = {features[i]: (set_alone[i], best_alone[i] - empty[i]) for i in range(p)}
    arcs = []
    for j, i in sorted(branching.edges, key=lambda e: (e[1], e[0])):
        bridge[features[i]] = (set_with[j, i], best_with[j, i] - empty[i])
        arcs.append((features[j], features[i], gains.edges[j, i]["weight"]))
    if record is not None:
        for j, i, gain in sorted(gains.edges(data="weight"), key=lambda e: (-e[2], e[1], e[0])):
            kept = branching.has_edge(j, i)
            record.add(
                "accept" if kept else "reject",
                (features[j], features[i]),
                float(gain),
                "in the maximum branching" if kept else "not in the maximum branching",
                parents=tuple(set_with[j, i]),
            )
        for f in features:
            _bridge_step(record, f, bridge[f][0], bridge[f][1], "the best class parents given its attribute parent")
    return traced((bridge, arcs), record)


def superparent_class_arcs(
    classes: Sequence[Hashable], superparent: Hashable
) -> list[tuple[Hashable, Hashable, float]]:
    """The naive-Bayes class subgraph of a multi-dimensional AODE member: ``superparent -> every other class``."""
    classes = list(classes)
    if superparent not in classes:
        raise ValueError(f"The superparent {superparent!r} is not a class.")
    return [(superparent, c, 0.0) for c in classes if c != superparent]


@overload
def multidimensional_structure(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    class_subgraph: str = ...,
    feature_subgraph: str = ...,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[False] = ...,
) -> nx.DiGraph: ...


@overload
def multidimensional_structure(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    class_subgraph: str = ...,
    feature_subgraph: str = ...,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: Literal[True],
) -> tuple[nx.DiGraph, pd.DataFrame]: ...


@overload
def multidimensional_structure(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    class_subgraph: str = ...,
    feature_subgraph: str = ...,
    max_parents: int = ...,
    criterion: str = ...,
    equivalent_sample_size: float = ...,
    trace: bool = ...,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]: ...


def multidimensional_structure(
    engine: CountingEngine,
    classes: Sequence[Hashable],
    features: Sequence[Hashable],
    *,
    class_subgraph: str = "forest",
    feature_subgraph: str = "empty",
    max_parents: int = 2,
    criterion: str = "bic",
    equivalent_sample_size: float = 1.0,
    trace: bool = False,
) -> nx.DiGraph | tuple[nx.DiGraph, pd.DataFrame]:
    """Learn an MDBNC: class subgraph, bridge, feature subgraph, in that order.

    Parameters
    ----------
    engine : CountingEngine
    classes, features : sequence
    class_subgraph : {"empty", "forest"}, default="forest"
        No class arcs (multi-dimensional naive Bayes) or :func:`class_forest`.
    feature_subgraph : {"empty", "forest"}, default="empty"
        No attribute arcs, or an attribute forest learned with the bridge
        (:func:`bridge_and_feature_forest`).
    max_parents : int, default=2
        Bound on the class parents of an attribute (:func:`bridge_parent_sets`).
    criterion : {"bic", "aic", "bdeu"}, default="bic"
    equivalent_sample_size : float, default=1.0
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    structure : nx.DiGraph
        See :func:`~graphmodels.structures.multidimensional_classifier`;
        each arc's ``weight`` is its score gain.
    trace : DataFrame
        Only with ``trace=True``: the traces of the parts, one after the
        other, with a ``part`` column: ``"class"`` (:func:`class_forest`'s,
        with ``class_subgraph="forest"``), then with
        ``feature_subgraph="forest"`` :func:`bridge_and_feature_forest`'s
        (its arcs as ``"feature"``, its class-parent choices as
        ``"bridge"``), else :func:`bridge_parent_sets`'s (``"bridge"``).
        The accepted class edges directed away from the ``"root"`` steps,
        an arc from every class in ``parents`` to its ``"bridge"``
        attribute and the accepted ``"feature"`` arcs are the structure's
        arcs.
    """
    for name, value in (("class_subgraph", class_subgraph), ("feature_subgraph", feature_subgraph)):
        if value not in ("empty", "forest"):
            raise ValueError(f"`{name}` must be 'empty' or 'forest', got {value!r}.")
    new_trace(trace, "multidimensional_structure")  # checks the flag
    kwargs: dict[str, Any] = dict(criterion=criterion, equivalent_sample_size=equivalent_sample_size, trace=trace)
    arcs = []
    parts = []
    if class_subgraph == "forest":
        result = class_forest(engine, classes, **kwargs)
        if trace:
            result, steps = result
            parts.append((steps, {"part": "class"}))
        arcs += result
    if feature_subgraph == "forest":
        result = bridge_and_feature_forest(engine, classes, features, max_parents=max_parents, **kwargs)
        if trace:
            *result, steps = result
            n_arcs = len(steps) - len(features)  # the arcs' steps, then one per attribute
            parts += [(steps.iloc[:n_arcs], {"part": "feature"}), (steps.iloc[n_arcs:], {"part": "bridge"})]
        bridge, feature_arcs = result
    else:
        result = bridge_parent_sets(engine, classes, features, max_parents=max_parents, **kwargs)
        if trace:
            result, steps = result
            parts.append((steps, {"part": "bridge"}))
        bridge, feature_arcs = result, []
    for f in features:
        parents, gain = bridge[f]
        share = gain / len(parents) if parents else 0.0
        arcs += [(c, f, share) for c in parents]
    arcs += feature_arcs
    cards = dict(zip(engine.names, (int(r) for r in engine.cardinalities)))
    graph = multidimensional_classifier(
        classes, features, [(u, v, {"weight": w}) for u, v, w in arcs], cardinalities=cards
    )
    for f in features:
        graph.nodes[f]["parent_set_gain"] = bridge[f][1]
    return (graph, combine_traces(parts)) if trace else graph
