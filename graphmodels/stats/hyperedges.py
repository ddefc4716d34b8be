"""Hyperedge weights of bounded tree-width Markov networks, computed in bulk.

The log-likelihood of a Markov network over a hyperforest H is a sum of
hyperedge weights (Liang & Srebro, section 2.2):

    L(H) = sum_{h in H} w_h,   w_h = E[log phi_h(X_h)],
    phi_h = P_h / prod_{h' strictly inside h} phi_h'.

By Moebius inversion ``log phi_h = sum_{g <= h} (-1)^{|h|-|g|} log P_g``,
so ``w_h = -sum_{g <= h} (-1)^{|h|-|g|} H(X_g)``: ``w_{v} = -H(X_v)``,
``w_{uv} = I(X_u; X_v)``, and the weight of a 3-set is the interaction
information. The sum of the weights over every subset of h (the weight of
the hyperforest made of h alone) is the *closure weight*
``Z(h) = -H(X_h)``; this module stores closure weights, from which every
``w_h`` and every gain of the learners follows.

MDL weights (section 2.3) subtract ``N_h log(m) / (2m)`` with
``N_h = NumParams(P_h) - sum_{h' < h} N_h' = prod_{v in h} (r_v - 1)``, so
the MDL closure weight is ``-H(X_h) - (prod r_v - 1) log(m) / (2m)``.

Every entropy of every subset of up to k + 1 variables comes from one
batched counting pass per subset size: for each (s-1)-subset, one
``np.bincount`` counts its extensions by every later variable at once, with
the conditioning variable (the class) as the fastest digit so that
per-class tables come for free.

References
----------
.. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
       bounded tree-width Markov networks. MIT CSAIL technical report.
.. [2] Srebro, N. (2000). Maximum likelihood Markov networks: an
       algorithmic approach. Master's thesis, MIT.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._memory import TableTooLargeError
from .._special import xlogy
from .information import as_engine

if TYPE_CHECKING:
    import pandas as pd

    from .counting import CountingEngine

__all__ = [
    "HyperedgeWeights",
    "SubsetEntropies",
    "subset_entropies",
    "hyperedge_weights",
    "SCORES",
]

#: Scoring metrics of the hyperedge weights.
SCORES = ("ml", "mdl")

# Elements (rows x extensions) handled by one bincount.
_BATCH_ELEMENTS = 1 << 22


class _Colex:
    """Ranks of k-subsets of ``range(n)`` in colexicographic order.

    The rank of ``c_1 < ... < c_s`` is ``sum_i C(c_i, i)``, a bijection onto
    ``0 .. C(n, s) - 1`` that numpy computes for many subsets at once.
    """

    def __init__(self, n, max_size):
        self.n = n
        self.binomial = np.array([[math.comb(c, i) for i in range(max_size + 2)] for c in range(n + 1)], dtype=np.int64)
        self._combos = {}

    def rank(self, combos):
        combos = np.asarray(combos, dtype=np.int64)
        if combos.shape[-1] == 0:
            return np.zeros(combos.shape[:-1], dtype=np.int64)
        i = np.arange(1, combos.shape[-1] + 1)
        return self.binomial[combos, i].sum(axis=-1)

    def combos(self, size):
        """All `size`-subsets as rows of an int array, in colex (rank) order."""
        if size not in self._combos:
            if size == 0:
                combos = np.zeros((1, 0), dtype=np.int64)
            else:
                lex = np.fromiter(
                    itertools.chain.from_iterable(itertools.combinations(range(self.n), size)), dtype=np.int64
                ).reshape(-1, size)
                combos = lex[np.argsort(self.rank(lex), kind="stable")]
            combos.flags.writeable = False
            self._combos[size] = combos
        return self._combos[size]


@functools.lru_cache(maxsize=8)
def _colex(n, max_size):
    """Shared rankers, so that every weights object over n nodes reuses the subset lists."""
    return _Colex(n, max_size)


class SubsetEntropies:
    """Entropies of every subset of up to `max_size` variables, optionally per stratum.

    Attributes
    ----------
    names : list
        Variable names, in position order (position i is ``names[i]``).
    cardinalities : ndarray of shape (n,)
    max_size : int
    joint : list of ndarray
        ``joint[s][rank]`` is ``H(X_h)`` (nats) for the s-subset of colex
        rank ``rank``; ``joint[0] == [0]``.
    given_joint : list of ndarray or None
        ``H(X_h, Y)`` for the conditioning variable Y.
    strata : list of ndarray of shape (C(n, s), r_y) or None
        ``H(X_h | Y = y)``.
    stratum_totals : ndarray of shape (r_y,) or None
    total : float
    """

    def __init__(
        self,
        names: Sequence[Hashable],
        cardinalities: ArrayLike,
        max_size: int,
        joint: list[np.ndarray],
        given_joint: list[np.ndarray] | None,
        strata: list[np.ndarray] | None,
        stratum_totals: np.ndarray | None,
        total: float,
    ) -> None:
        self.names = list(names)
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        self.max_size = max_size
        self.joint = joint
        self.given_joint = given_joint
        self.strata = strata
        self.stratum_totals = stratum_totals
        self.total = total
        self.colex = _colex(len(self.names), max_size)

    def entropy(self, variables: Iterable[Hashable], stratum: int | None = None) -> float:
        """``H(X_h)`` (or ``H(X_h | Y = stratum)``) of a subset of the variables."""
        position = {name: i for i, name in enumerate(self.names)}
        combo = sorted(position[v] for v in variables)
        rank = int(self.colex.rank(np.array(combo)))
        if stratum is None:
            return float(self.joint[len(combo)][rank])
        if self.strata is None:
            raise TypeError("No per-stratum entropies: they were computed without a conditioning variable `given`.")
        return float(self.strata[len(combo)][rank, stratum])


def _check_candidates(n, max_size, max_candidates, max_cells, fix):
    """Raise :class:`TableTooLargeError` when the subsets of 1 .. `max_size` of `n` variables are too many.

    The limit is `max_candidates` when given, else `max_cells` (the engine's, so the model's),
    and the message names that parameter; the count is of candidates, not of cells.
    """
    n_candidates = sum(math.comb(n, s) for s in range(1, max_size + 1))
    if max_candidates is None:
        limit, parameter, why = int(max_cells), "max_cells", " (each holds at least one float64 cell, its entropy)"
    else:
        limit, parameter, why = int(max_candidates), "max_candidates", ""
    if n_candidates <= limit:
        return
    raise TableTooLargeError(
        f"There would be {n_candidates:,} candidate hyperedges of up to {max_size} of {n} variables, more than "
        f"{parameter}={limit:,}{why}; {fix}, or raise {parameter} to at least {n_candidates:,}.",
        cells=n_candidates,
        limit=limit,
        parameter=parameter,
    )


def subset_entropies(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    max_size: int = 2,
    *,
    given: Hashable | None = None,
    max_candidates: int | None = None,
) -> SubsetEntropies:
    """Entropies of all subsets of up to `max_size` variables, in one batched pass per size.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : sequence, optional
        Variables (names or positions); all but `given` by default.
    max_size : int, default=2
    given : name or position, optional
        A conditioning variable (the class): entropies are also computed
        within each of its states, and jointly with it.
    max_candidates : int, optional
        Refuse (:class:`~graphmodels.stats.TableTooLargeError`, a ``ValueError``) to compute more
        subsets than this. By default the engine's ``max_cells`` (the model's) bounds them: each
        candidate holds at least one float64 cell, its entropy.

    Returns
    -------
    SubsetEntropies

    Raises
    ------
    TableTooLargeError
        If the largest table, or an array over the candidates of one size
        (``C(n, s) x max(s, n_classes)`` cells), would exceed the engine's
        ``max_cells``; or if there are more candidates than `max_candidates`
        (the engine's ``max_cells`` by default).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("xxyy"), "c": list("xyxy")})
    >>> result = subset_entropies(frame, max_size=2)
    >>> bool(np.isclose(result.entropy(["a", "b"]), np.log(2)))
    True
    """
    engine = as_engine(data)
    if not isinstance(max_size, (int, np.integer)) or max_size < 1:
        raise ValueError(f"`max_size` must be a positive integer, got {max_size!r}.")
    given_pos = None if given is None else engine.position(given)
    if variables is None:
        positions = [p for p in range(engine.n_variables) if p != given_pos]
    else:
        positions = list(engine.positions(variables))
    if given_pos is not None and given_pos in positions:
        raise ValueError(f"The conditioning variable {engine.names[given_pos]!r} is also in `variables`.")
    if len(set(positions)) != len(positions):
        raise ValueError("`variables` repeat.")
    n = len(positions)
    max_size = int(min(max_size, n)) if n else 1
    fewer = (
        "lower the tree-width (treewidth= of the hyperforest models, k= of hyperedge_weights) or select fewer columns"
    )
    cards = engine.cardinalities[positions].astype(np.int64)
    r_y = 1 if given_pos is None else int(engine.cardinalities[given_pos])
    # The largest arrays over the candidates: the subsets of one size (their members, and one
    # sum per class), and the learners' gains of attaching each node to each subset of the
    # next-to-top size.
    size = max(range(1, max_size + 1), key=lambda s: math.comb(n, s) * max(s, r_y))
    engine.check_cells(
        max(math.comb(n, size) * max(size, r_y), math.comb(n, max_size - 1) * n),
        what=f"arrays over the {math.comb(n, size):,} candidate hyperedges of {size} of {n} variables",
        fix=fewer,
    )
    _check_candidates(n, max_size, max_candidates, engine.max_cells, fewer)
    # Guard the largest table of each size before counting anything.
    for s in range(1, max_size + 1):
        largest = [positions[i] for i in np.argsort(-cards, kind="stable")[:s]]
        engine.check_table_size(largest + ([] if given_pos is None else [given_pos]), what="hyperedge table")

    key = ("subset_entropies", tuple(positions), given_pos)
    cached = engine._cache.get(key)
    if cached is not None and cached.max_size >= max_size:
        return cached
    if given_pos is None:
        derived = _from_conditioned(engine, positions, max_size)
        if derived is not None:
            engine._cache[key] = derived
            return derived

    total = engine.total
    if given_pos is None:
        stratum_totals = np.array([total])
    else:
        stratum_totals = np.asarray(engine.counts([engine.names[given_pos]]), dtype=np.float64)
    colex = _colex(n, max_size)
    given_joint: list[Any] = [None]  # arrays once filled; unused without `given`
    joint, strata = [np.zeros(1)], [np.zeros((1, r_y))]
    if given_pos is not None:
        given_joint[0] = np.array([_entropy_from_sum(xlogy(stratum_totals, stratum_totals).sum(), total)])
    passes = {"max_size": max_size}  # what the counting passes of increasing size share
    for s in range(1, max_size + 1):
        sums, marginal_sums, table_totals = _xlogx_sums(engine, positions, cards, s, given_pos, r_y, passes)
        lex = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), s)), dtype=np.int64).reshape(
            -1, s
        )
        order = np.empty(len(lex), dtype=np.int64)
        order[colex.rank(lex)] = np.arange(len(lex))
        sums, marginal_sums = sums[order], marginal_sums[order]
        if table_totals is None:
            per_stratum = stratum_totals[None, :]
        else:  # unknown cells: each table counts its own rows
            per_stratum = table_totals[order]
        grand = per_stratum.sum(axis=1)
        joint.append(_entropy_from_sum(marginal_sums, grand))
        if given_pos is not None:
            given_joint.append(_entropy_from_sum(sums.sum(axis=1), grand))
        strata.append(_entropy_from_sum(sums, per_stratum))
    result = SubsetEntropies(
        [engine.names[p] for p in positions],
        cards,
        max_size,
        joint,
        None if given_pos is None else given_joint,
        strata if given_pos is not None else None,
        None if given_pos is None else stratum_totals,
        total,
    )
    engine._cache[key] = result
    return result


def _from_conditioned(engine, positions, max_size):
    """Entropies of `positions` assembled from a cached pass conditioned on one of them.

    A pass over the attributes given the class already holds H(h) and
    H(h, class) for every subset h of attributes, which are all the
    entropies of the attributes and the class together (the joint
    representation) - no second pass over the rows.
    """
    conditioned = {
        (frozenset(key[1]), key[2]): value
        for key, value in engine._cache.items()
        if isinstance(key, tuple) and key and key[0] == "subset_entropies" and key[2] is not None
    }
    for i, c in enumerate(positions):
        rest = positions[:i] + positions[i + 1 :]
        source = conditioned.get((frozenset(rest), c))
        if source is None or source.max_size < max_size or source.given_joint is None:
            continue
        n = len(positions)
        colex, rest_colex = _colex(n, max_size), _colex(n - 1, source.max_size)
        # Index of each of our variables in the source's list; the class maps to -1.
        in_source = {engine.position(name): j for j, name in enumerate(source.names)}
        mapping = np.array([-1 if p == c else in_source[p] for p in positions], dtype=np.int64)
        joint = [np.zeros(1)]
        for s in range(1, max_size + 1):
            combos = mapping[colex.combos(s)]
            with_c = (combos < 0).any(axis=1)
            values = np.empty(len(combos))
            ranked = np.sort(combos, axis=1)  # the class (-1) sorts first
            if (~with_c).any():
                values[~with_c] = source.joint[s][rest_colex.rank(ranked[~with_c])]
            if with_c.any():
                values[with_c] = source.given_joint[s - 1][rest_colex.rank(ranked[with_c][:, 1:])]
            joint.append(values)
        return SubsetEntropies(
            [engine.names[p] for p in positions],
            engine.cardinalities[positions],
            max_size,
            joint,
            None,
            None,
            None,
            source.total,
        )
    return None


def _entropy_from_sum(xlogx_sum, total):
    """``log N - sum n log n / N`` with 0 for empty strata, clipped at 0."""
    total = np.asarray(total, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(
            total > 0, np.log(np.where(total > 0, total, 1.0)) - xlogx_sum / np.where(total > 0, total, 1.0), 0.0
        )
    return np.maximum(value, 0.0)


def _xlogx_sums(engine, positions, cards, size, given_pos, r_y, passes=None):
    """``sum n log n`` of every `size`-subset table, per stratum and over strata.

    Returns arrays of shape (C(n, size), r_y) and (C(n, size),), and the
    per-table stratum totals when cells are unknown (else None), in
    lexicographic subset order: the subsets extending each (size-1)-subset
    by every later variable are contiguous, which is how they are counted.
    `passes` (a dict, ``{"max_size": ...}``) carries what the passes of one
    :func:`subset_entropies` share, called in increasing `size`.
    """
    n = len(positions)
    n_tables = math.comb(n, size)
    sums = np.zeros((n_tables, r_y))
    marginal = np.zeros(n_tables)
    if engine.has_unknown:
        # Each table drops only the rows unknown in its own variables (and
        # the given one), so each has its own totals.
        totals = np.zeros((n_tables, r_y))
        for t, combo in enumerate(itertools.combinations(range(n), size)):
            variables = [positions[i] for i in combo] + ([] if given_pos is None else [given_pos])
            # By name: an integer column name is not a position.
            table = np.asarray(engine.counts([engine.names[p] for p in variables])).reshape(-1, r_y)
            sums[t] = xlogy(table, table).sum(axis=0)
            totals[t] = table.sum(axis=0)
            rows = table.sum(axis=1)
            marginal[t] = xlogy(rows, rows).sum()
        return sums, marginal, totals

    columns = list(positions) + ([] if given_pos is None else [given_pos])
    # n log n of integer counts by table lookup (unweighted rows).
    xlogx = _xlogx_lookup(engine)
    if _USE_GRAM and not engine.distributed and xlogx is not None and _gram_fits(cards, size, r_y, engine.n_rows):
        if passes is None:
            kept = None
        elif "gram" not in passes:
            kept = passes["gram"] = _GramCells(engine, columns, cards, r_y, max_size=passes["max_size"])
        else:
            kept = passes["gram"]
        return (*_gram_xlogx_sums(engine, columns, cards, size, r_y, xlogx, kept), None)
    bases = []
    for base in itertools.combinations(range(n), size - 1):
        start = base[-1] + 1 if base else 0
        n_ext = n - start
        if not n_ext:
            continue
        base_cells = r_y * math.prod(int(cards[i]) for i in base)
        widths = base_cells * cards[start:]
        offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
        bases.append((base, start, n_ext, base_cells, offsets, int(widths.sum())))
    tables: Iterable[np.ndarray]
    if engine.distributed:
        # One pass over the partitions counts the tables of every base at once.
        tables = engine.map_reduce(
            functools.partial(_extension_tables, columns=columns, bases=bases, cards=cards, given=given_pos is not None)
        )
    else:
        # In memory, one base at a time: only its tables are held.
        chunks = _chunk_source(engine, columns)
        tables = (_extension_counts(chunks, spec, cards, given_pos is not None) for spec in bases)
    t = 0
    for (_, _, n_ext, _, offsets, _), counts in zip(bases, tables):
        values = xlogx[counts] if (xlogx is not None and counts.dtype.kind == "i") else xlogy(counts, counts)
        starts = offsets // r_y
        sums[t : t + n_ext] = np.add.reduceat(values.reshape(-1, r_y), starts, axis=0)
        if r_y == 1:
            marginal[t : t + n_ext] = sums[t : t + n_ext, 0]
        else:
            rows = _sum_fastest(counts, r_y)
            rows_values = xlogx[rows] if (xlogx is not None and rows.dtype.kind == "i") else xlogy(rows, rows)
            marginal[t : t + n_ext] = np.add.reduceat(rows_values, starts)
        t += n_ext
    return sums, marginal, None


# Counting by one-hot Gram products: on for the in-memory, unweighted case.
_USE_GRAM = True
# Largest float32 Gram stack (base cells x columns x columns) of one base.
_GRAM_ELEMENTS = 1 << 24
# Mean cardinality above which the Gram products cost more than bincounts.
_GRAM_MAX_MEAN_CARD = 8.0


def _gram_fits(cards, size, r_y, n_rows):
    """Whether the one-hot Gram products count the `size`-subset tables (exact, within memory, cheaper)."""
    if size < 2 or len(cards) < size or n_rows >= 1 << 24:  # float32 sums of 0/1 are exact below 2^24
        return False
    if float(np.mean(cards)) > _GRAM_MAX_MEAN_CARD:
        return False
    base_cells = r_y * math.prod(int(c) for c in np.sort(cards)[::-1][: size - 2])
    columns = int(np.sum(cards))
    # The one-hot table (float32) and its per-base reordered copy stay under 512 MiB each.
    return base_cells * columns * columns <= _GRAM_ELEMENTS and n_rows * columns <= 1 << 27


def _gram_xlogx_sums(engine, columns, cards, size, r_y, xlogx, kept=None):
    """``sum n log n`` of every `size`-subset table by one-hot Gram products.

    For each (size-2)-subset base (with the stratum as its fastest digit),
    the rows are grouped by the base's cell, and within each cell the Gram
    matrix ``X^T X`` of the one-hot codes of the later variables counts the
    two-variable extensions (c, d) of the base at once: block (c, d) of the
    Gram matrix of cell j is the count table of ``base + {c, d}`` in cell j.
    Counts are sums of 0/1 products below 2^24, exact in float32; the
    products run on one BLAS thread. Same return values (lexicographic
    subset order) as the bincount path of :func:`_xlogx_sums`.

    With `kept` (a :class:`_GramCells` shared by the passes of one
    :func:`subset_entropies`, passes in increasing size), only the cells of
    the base outside its variables' most common states are multiplied; the
    others follow from the Gram matrices of the smaller bases (see
    :class:`_GramCells`), the same integer counts.
    """
    from .._threads import one_blas_thread

    if kept is None:
        kept = _GramCells(engine, columns, cards, r_y, anchored=False)
    n = len(cards)
    n_tables = math.comb(n, size)
    sums = np.zeros((n_tables, r_y))
    marginal = np.zeros(n_tables)
    offsets = kept.offsets
    # Each base's tables are contiguous in lexicographic subset order, from `first[base]`.
    first, t = {}, 0
    for base in itertools.combinations(range(n), size - 2):
        first[base] = t
        t += math.comb(n - (base[-1] + 1 if base else 0), 2)
    assert t == n_tables
    # Bases by their last variable: they share the later columns (see _GramCells.later).
    bases = sorted(first, key=lambda base: base[-1] if base else -1)
    with one_blas_thread():
        for base in bases:
            start = base[-1] + 1 if base else 0
            n_later = n - start
            if n_later < 2:
                continue
            t = first[base]
            gram = kept.cells(base, keep=size < kept.max_size)
            width = gram.shape[-1]
            counts = gram.astype(np.int64).reshape(-1, r_y, width, width)
            starts = offsets[start:n] - offsets[start]
            upper = np.triu_indices(n_later, k=1)
            n_pairs = len(upper[0])
            per_stratum = xlogx[counts].sum(axis=0)  # (r_y, width, width)
            blocks = np.add.reduceat(np.add.reduceat(per_stratum, starts, axis=2), starts, axis=1)
            sums[t : t + n_pairs] = blocks[:, upper[0], upper[1]].T
            if r_y == 1:
                marginal[t : t + n_pairs] = sums[t : t + n_pairs, 0]
            else:
                pooled = xlogx[counts.sum(axis=1)].sum(axis=0)
                blocks = np.add.reduceat(np.add.reduceat(pooled, starts, axis=1), starts, axis=0)
                marginal[t : t + n_pairs] = blocks[upper]
    return sums, marginal


# Most bytes of Gram matrices a _GramCells keeps for the larger bases of later passes.
_GRAM_KEPT_BYTES = 256 * 2**20
# Multiply only the rows and columns outside the variables' most common states (see _GramCells).
_USE_ANCHORED = True


class _GramCells:
    """Per-cell one-hot Gram matrices of the rows of each base subset, for :func:`_gram_xlogx_sums`.

    ``cells(base)`` is the (cells, width, width) float32 stack of ``X_j^T X_j`` over the one-hot
    columns ``X`` of the variables after the base, one per cell ``j`` of the base's variables and
    the stratum (the stratum fastest, then the base's variables, the first fastest).

    Anchored (the default), the counts at a variable's most common state are that variable's
    marginal count minus those of its other states, along every axis:

    - columns: the products are of the one-hot columns of the other states and a column of ones,
      ``[R, 1]``; the counts of ``X^T X`` follow by ``A^T [R, 1]^T [R, 1] A``, with ``A`` the 0/+-1
      matrix that writes each one-hot column of ``X`` as a column of ``R``, or as the ones minus
      the other states' columns (ternary variables: 2/3 of the columns, 4/9 of the products);
    - cells: the marginal over a variable of the base is the Gram matrix of the base without it,
      restricted to the later columns, kept from the pass before, so only the rows outside the
      common state of every variable of the base are multiplied (on connect-4, 3% of the rows
      for a base of two variables; 44% on uniform ternary data). The Gram matrices of those rows
      are kept for the larger bases of the next passes (up to ``_GRAM_KEPT_BYTES``; past it, and
      for a base whose smaller bases were not kept, every cell is multiplied).

    Counts are integers below 2^24 and every partial sum of these differences lies between 0 and
    the number of rows, so all of it is exact in float32: the same counts, in the same layout, as
    multiplying the full one-hot columns of every cell (``anchored=False``, the reference).
    """

    def __init__(self, engine, columns, cards, r_y, *, anchored=True, max_size=0):
        n = len(cards)
        codes = np.concatenate([np.asarray(c) for c, _ in engine.iter_chunks(columns)], axis=0)
        m = codes.shape[0]
        self.cards = np.asarray(cards, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.cards)])
        self.stratum = codes[:, n].astype(np.int64) if r_y > 1 else np.zeros(m, dtype=np.int64)
        self.r_y = r_y
        self.codes = codes[:, :n].astype(np.int64)
        self.anchored = anchored and _USE_ANCHORED
        self.max_size = max_size
        rows = np.arange(m)
        if not self.anchored:
            self.onehot = np.zeros((m, int(self.offsets[-1])), dtype=np.float32)
            for i in range(n):
                self.onehot[rows, self.offsets[i] + self.codes[:, i]] = 1.0
        else:
            self.common = np.array([np.bincount(self.codes[:, i], minlength=r).argmax() for i, r in enumerate(cards)])
            outside = self.codes != self.common
            self.outside = np.ascontiguousarray(outside.T)  # (variables, rows)
            # each row's state among its variable's other states (the common one skipped)
            self.rank = np.ascontiguousarray((self.codes - (self.codes > self.common)).T)
            # the other states' one-hot columns, variable after variable, then a column of ones
            self.reduced_offsets = np.concatenate([[0], np.cumsum(self.cards - 1)])
            self.onehot = np.zeros((m, int(self.reduced_offsets[-1]) + 1), dtype=np.uint8)  # 0/1: gathered, then float
            for i in range(n):
                self.onehot[rows[outside[:, i]], self.reduced_offsets[i] + self.rank[i, outside[:, i]]] = 1
            self.onehot[:, -1] = 1
        self._kept = {}
        self._kept_bytes = 0
        self._rows = {}
        self._expand = {}
        self._later = (None, None)

    def _multiply(self, rows, code, n_cells, start):
        """Per-cell Gram matrices of the later columns (from variable `start`) of `rows` by cell `code`."""
        # A stable sort of small codes is a radix sort; rows within a cell may come in any order.
        small = code.astype(np.uint8 if n_cells <= 256 else np.uint16 if n_cells <= 65536 else np.int64)
        order = np.argsort(small, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(code, minlength=n_cells))])
        if self.anchored:
            later = np.take(self._later_columns(start), rows[order] if rows is not None else order, axis=0)
            later = later.astype(np.float32)
        else:
            later = self.onehot[rows[order] if rows is not None else order, int(self.offsets[start]) :]
        width = later.shape[1]
        gram = np.zeros((n_cells, width, width), dtype=np.float32)
        for j in range(n_cells):
            lo, hi = bounds[j], bounds[j + 1]
            if hi > lo:
                block = later[lo:hi]
                np.matmul(block.T, block, out=gram[j])
        return gram

    def _later_columns(self, start):
        """The columns of the variables from `start` on, contiguous (the last `start`'s kept): whole
        rows of a contiguous array are gathered by block copies, 2-3 times as fast as a column slice
        of float32 (measured)."""
        if self._later[0] != start:
            self._later = (start, np.ascontiguousarray(self.onehot[:, int(self.reduced_offsets[start]) :]))
        return self._later[1]

    def _expansion(self, start):
        """``A`` of the later variables from `start`: (other states' columns + ones, one-hot columns)."""
        matrix = self._expand.get(start)
        if matrix is None:
            cards, common = self.cards[start:], self.common[start:]
            first = self.offsets[start:-1] - self.offsets[start]
            matrix = np.zeros((int((cards - 1).sum()) + 1, int(cards.sum())), dtype=np.float32)
            row = 0
            for offset, r, c in zip(first, cards, common):
                for state in range(r):
                    if state != c:
                        matrix[row, offset + state] = 1.0
                        matrix[row, offset + c] = -1.0
                        row += 1
            matrix[-1, first + common] = 1.0
            self._expand[start] = matrix
        return matrix

    def cells(self, base, keep=False):
        """Gram matrices of every cell of `base` (a tuple of variable positions, ascending)."""
        start = base[-1] + 1 if base else 0
        r_y = self.r_y
        subsets = list(itertools.chain.from_iterable(itertools.combinations(base, q) for q in range(len(base))))
        anchored = self.anchored and all(b in self._kept for b in subsets)
        if not base or not anchored:
            code = self.stratum.copy()
            stride = r_y
            for i in base:
                code += (self.rank[i] if anchored else self.codes[:, i]) * stride
                stride *= int(self.cards[i])
            gram = self._multiply(None, code, stride, start)
            if not self.anchored:
                return gram
            if not base:
                self._keep(base, gram, keep)
            return self._expanded(gram, start)
        # The rows outside the common state of every variable of the base.
        rows = self._outside_rows(base)
        others = [int(self.cards[i]) - 1 for i in base]
        code = self.stratum[rows].copy()
        stride = r_y
        for i, r in zip(base, others):
            code += self.rank[i, rows] * stride
            stride *= r
        direct = self._multiply(rows, code, stride, start)
        self._keep(base, direct, keep)
        width = direct.shape[-1]
        # full[x_last, ..., x_first, y]: the common state of each variable holds, at first, the
        # marginal over that variable (the Gram matrices of the base without it)
        full = np.empty(tuple(int(self.cards[i]) for i in base[::-1]) + (r_y, width, width), dtype=np.float32)
        for q in range(len(base) + 1):
            for inside in itertools.combinations(range(len(base)), q):  # positions in `base` not marginalized
                sub = tuple(base[p] for p in inside)
                source = direct if q == len(base) else self._kept[sub]
                source = source.reshape(tuple(int(self.cards[i]) - 1 for i in sub[::-1]) + (r_y,) + source.shape[1:])
                cut = source.shape[-1] - width  # the later columns are the last ones
                index = []
                for p in range(len(base) - 1, -1, -1):
                    i = base[p]
                    if p in inside:
                        index.append(np.delete(np.arange(int(self.cards[i])), self.common[i]))
                    else:
                        index.append(int(self.common[i]))
                arrays = [a for a in index if not isinstance(a, int)]
                mesh = iter(np.ix_(*arrays)) if arrays else iter(())
                where = tuple(next(mesh) if not isinstance(a, int) else a for a in index)
                full[where] = source[..., cut:, cut:]
        for axis in range(len(base)):
            i = base[len(base) - 1 - axis]
            common = int(self.common[i])
            rest = np.delete(np.arange(int(self.cards[i])), common)
            at = [slice(None)] * full.ndim
            at[axis] = common
            full[tuple(at)] -= np.take(full, rest, axis=axis).sum(axis=axis)
        return self._expanded(full.reshape(-1, width, width), start)

    def _expanded(self, gram, start):
        """The one-hot Gram matrices ``A^T G A`` of the reduced ones `gram` (cells, width, width)."""
        matrix = self._expansion(start)
        return np.matmul(np.matmul(matrix.T, gram), matrix)

    def _outside_rows(self, base):
        """The rows outside the common state of every variable of `base` (bases by their last variable)."""
        rows = self._rows.get(base[-1])
        if rows is None:
            rows = np.flatnonzero(self.outside[base[-1]])
            self._rows = {base[-1]: rows}
        for i in base[:-1]:
            rows = rows[self.outside[i, rows]]
        return rows

    def _keep(self, base, gram, keep):
        if keep and self._kept_bytes + gram.nbytes <= _GRAM_KEPT_BYTES:
            self._kept[base] = gram
            self._kept_bytes += gram.nbytes


def _extension_counts(chunks, spec, cards, given):
    """Counts of the tables extending one base subset by each later variable, side by side.

    `chunks` yields ``(codes.T, weights)`` with the variables first and, when
    `given`, the conditioning variable last; `spec` is ``(base, start, n_ext,
    base_cells, offsets, n_cells)``. Integer counts without weights.
    """
    base, start, n_ext, base_cells, offsets, n_cells = spec
    n = len(cards)
    counts = None
    for columns_first, weights in chunks():
        n_rows = columns_first.shape[1]
        code = columns_first[n].copy() if given else np.zeros(n_rows, dtype=np.int64)
        stride = base_cells // math.prod(int(cards[i]) for i in base)  # r_y: the stratum is the fastest digit
        for i in base:
            code += columns_first[i] * stride
            stride *= int(cards[i])
        step = max(1, _BATCH_ELEMENTS // max(n_rows, 1))
        for lo in range(0, n_ext, step):
            hi = min(lo + step, n_ext)
            # One preallocated buffer: large temporaries would be fresh
            # pages every time, slower than the arithmetic itself.
            block = _workspace(hi - lo, n_rows)
            np.multiply(columns_first[start + lo : start + hi], base_cells, out=block)
            block += offsets[lo:hi, None]
            block += code[None, :]
            w = None if weights is None else np.tile(weights, hi - lo)
            part = np.bincount(block.ravel(), weights=w, minlength=n_cells)
            counts = part if counts is None else counts + part
    if counts is None:  # no rows (an empty partition)
        counts = np.zeros(n_cells, dtype=np.int64)
    return counts


def _extension_tables(engine, columns, bases, cards, given):
    """:func:`_extension_counts` of every base over one engine's rows (a partition's, for a Dask engine)."""
    chunks = _chunk_source(engine, columns)
    return [_extension_counts(chunks, spec, cards, given) for spec in bases]


#: One buffer per thread: Dask's threaded scheduler counts several partitions at once.
_WORKSPACE = threading.local()


def _workspace(n_columns, n_rows):
    """A reusable int64 buffer of shape (n_columns, n_rows), this thread's own."""
    size = n_columns * n_rows
    buffer = getattr(_WORKSPACE, "buffer", None)
    if buffer is None or buffer.size < size:
        buffer = np.empty(max(size, 1), dtype=np.int64)
        _WORKSPACE.buffer = buffer
    return buffer[:size].reshape(n_columns, n_rows)


def _sum_fastest(counts, r):
    """Sum over the fastest-varying digit of size `r` (strided adds beat a small-axis sum)."""
    out = counts[0::r].copy()
    for i in range(1, r):
        out += counts[i::r]
    return out


def _xlogx_lookup(engine):
    if engine._weights is not None or engine.n_rows > 50_000_000:
        return None
    values = np.arange(engine.n_rows + 1, dtype=np.float64)
    return xlogy(values, values)


def _chunk_source(engine, columns):
    """A callable yielding ``(codes.T, weights)`` row chunks, variables first.

    A single chunk is converted once and reused for every subset.
    """

    def transposed():
        for codes, weights in engine.iter_chunks(columns):
            yield np.ascontiguousarray(codes.T), weights

    if engine.n_rows <= engine.chunk_size:
        chunk = list(transposed())
        return lambda: chunk
    return transposed


class HyperedgeWeights(Mapping[frozenset, float]):
    """Weights of every candidate hyperedge of up to `max_size` nodes.

    A read-only mapping ``frozenset(nodes) -> w_h``; the closure weights
    ``Z(h) = sum_{g <= h} w_g`` (the weight of the hyperforest made of h
    and its subsets) are what is stored, indexed by colex rank.

    Parameters
    ----------
    nodes : sequence
        The nodes (variables), in a fixed order.
    closure : list of ndarray
        ``closure[s]`` holds ``Z(h)`` of every s-subset in colex order of
        node positions, for ``s = 0 .. max_size`` (``closure[0] == [0]``).
    cardinalities : sequence of int, optional
        Node cardinalities, kept for the models.

    See Also
    --------
    hyperedge_weights : ML and MDL weights from data.
    graphmodels.learners.max_hyperforest

    Examples
    --------
    >>> w = HyperedgeWeights.from_mapping({("a", "b"): 2.0, ("b",): -1.0}, nodes=["a", "b"], max_size=2)
    >>> w[frozenset({"a", "b"})], w.closure_weight({"a", "b"})
    (2.0, 1.0)
    """

    def __init__(
        self, nodes: Iterable[Hashable], closure: Sequence[ArrayLike], *, cardinalities: ArrayLike | None = None
    ) -> None:
        self.nodes = tuple(nodes)
        self.max_size = len(closure) - 1
        self._position = {v: i for i, v in enumerate(self.nodes)}
        if len(self._position) != len(self.nodes):
            raise ValueError("`nodes` must be unique.")
        self._colex = _colex(len(self.nodes), self.max_size)
        self.closure = [np.asarray(z, dtype=np.float64) for z in closure]
        for s, z in enumerate(self.closure):
            if z.shape != (math.comb(len(self.nodes), s),):
                raise ValueError(f"closure[{s}] must have C(n, {s}) = {math.comb(len(self.nodes), s)} entries.")
        self.cardinalities = None if cardinalities is None else np.asarray(cardinalities, dtype=np.int64)
        self._weights: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------ construction
    @classmethod
    def from_mapping(
        cls, weights: Mapping[Any, float], nodes: Iterable[Hashable], max_size: int | None = None
    ) -> HyperedgeWeights:
        """Weights from a mapping ``hyperedge -> w_h`` (absent hyperedges weigh 0)."""
        nodes = tuple(nodes)
        keys = [frozenset(h) for h in weights]
        if max_size is None:
            max_size = max((len(h) for h in keys), default=1)
        position = {v: i for i, v in enumerate(nodes)}
        colex = _colex(len(nodes), max_size)
        direct = [np.zeros(math.comb(len(nodes), s)) for s in range(max_size + 1)]
        for h, value in zip(keys, weights.values()):
            if not h or len(h) > max_size:
                raise ValueError(f"Hyperedge {sorted(h, key=str)} is empty or larger than max_size={max_size}.")
            missing = [v for v in h if v not in position]
            if missing:
                raise ValueError(f"Hyperedge uses unknown nodes {missing[:5]}.")
            direct[len(h)][colex.rank(np.array(sorted(position[v] for v in h)))] += float(value)
        # Zeta transform: Z(h) = sum over subsets g of h of w_g.
        closure = [np.zeros(1)]
        for s in range(1, max_size + 1):
            combos = colex.combos(s)
            z = np.zeros(len(combos))
            for sub in range(1, s + 1):
                for picked in itertools.combinations(range(s), sub):
                    z += direct[sub][colex.rank(combos[:, picked])]
            closure.append(z)
        return cls(nodes, closure)

    # ------------------------------------------------------------ lookups
    def _rank(self, hyperedge):
        try:
            combo = sorted(self._position[v] for v in hyperedge)
        except KeyError as error:
            raise KeyError(f"Unknown node {error.args[0]!r} in hyperedge {sorted(hyperedge, key=str)}.") from None
        if not combo or len(combo) > self.max_size:
            raise KeyError(f"No weight for a hyperedge of {len(combo)} nodes (max_size={self.max_size}).")
        return len(combo), int(self._colex.rank(np.array(combo)))

    def closure_weight(self, hyperedge: Iterable[Hashable]) -> float:
        """``Z(h)``: the total weight of `hyperedge` and all its subsets."""
        size, rank = self._rank(frozenset(hyperedge))
        return float(self.closure[size][rank])

    def weights_of_size(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``(combos, w)``: node positions of every `size`-subset (colex order) and its weight."""
        if size not in self._weights:
            combos = self._colex.combos(size)
            # terms[j][i] = C(c_j, i): a subset's colex rank sums its columns' terms at their places.
            terms = [[self._colex.binomial[combos[:, j], i] for i in range(size + 1)] for j in range(size)]
            w = np.zeros(len(combos))
            for sub in range(0, size + 1):
                sign = (-1) ** (size - sub)
                for picked in itertools.combinations(range(size), sub):
                    ranks = np.zeros(len(combos), dtype=np.int64)
                    for place, j in enumerate(picked, 1):
                        ranks += terms[j][place]
                    w += sign * self.closure[sub][ranks]
            self._weights[size] = (combos, w)
        return self._weights[size]

    def __getitem__(self, hyperedge: Iterable[Hashable]) -> float:
        size, rank = self._rank(frozenset(hyperedge))
        return float(self.weights_of_size(size)[1][rank])

    def __iter__(self) -> Iterator[frozenset]:
        for s in range(1, self.max_size + 1):
            for combo in self._colex.combos(s):
                yield frozenset(self.nodes[i] for i in combo)

    def __len__(self) -> int:
        return sum(math.comb(len(self.nodes), s) for s in range(1, self.max_size + 1))

    def __repr__(self) -> str:
        return f"HyperedgeWeights(nodes={len(self.nodes)}, max_size={self.max_size})"

    def gains(self, size: int) -> np.ndarray:
        """Gain of attaching each node to each hyperedge of `size` nodes.

        ``G[rank(b), v] = Z(b + v) - Z(b) - Z({v})``: the weight added by
        the hyperedges that contain v and lie inside ``b + v``, apart from
        ``{v}`` itself (always present). For ML weights this is the mutual
        information ``I(X_v; X_b)``. Entries with v in b are ``-inf``.

        Returns
        -------
        ndarray of shape (C(n, size), n)
        """
        n = len(self.nodes)
        if size + 1 > self.max_size:
            raise ValueError(f"Gains of {size}-sets need weights of size {size + 1}; max_size is {self.max_size}.")
        bases = self._colex.combos(size)
        binomial = self._colex.binomial
        singles = self.closure[1]
        nodes = np.arange(n)
        result = np.full((len(bases), n), -np.inf)
        if not len(self.closure[size + 1]):
            return result  # n <= size: every node is in every base
        # Colex rank of b + {v} from b's sorted c_0 < c_1 < ...: the j elements below v keep
        # their terms C(c_i, i + 1), v adds C(v, j + 1), the others move up: C(c_i, i + 2).
        low = np.zeros((len(bases), size + 1), dtype=np.int64)
        high = np.zeros((len(bases), size + 1), dtype=np.int64)
        if size:
            i = np.arange(size)
            low[:, 1:] = np.cumsum(binomial[bases, i + 1], axis=1)
            high[:, :-1] = np.cumsum(binomial[bases, i + 2][:, ::-1], axis=1)[:, ::-1]
        step = max(1, (1 << 20) // max(n * max(size, 1), 1))  # rows per block: bounded temporaries
        for start in range(0, len(bases), step):
            block = bases[start : start + step]
            rows = np.arange(start, start + len(block))
            below = (block[:, :, None] < nodes).sum(axis=1)  # j, per base and node
            ranks = (
                np.take_along_axis(low[rows], below, axis=1)
                + binomial[nodes, below + 1]
                + np.take_along_axis(high[rows], below, axis=1)
            )
            member = (block[:, :, None] == nodes).any(axis=1)
            np.minimum(ranks, len(self.closure[size + 1]) - 1, out=ranks)  # members: any row, then -inf
            gains = self.closure[size + 1][ranks] - self.closure[size][rows, None] - singles
            result[start : start + len(block)] = np.where(member, -np.inf, gains)
        return result

    def rank(self, combos: ArrayLike) -> np.ndarray:
        """Colex ranks of rows of sorted node positions (for the learners)."""
        return self._colex.rank(combos)

    def binomial_table(self) -> list[list[int]]:
        """``table[c][i] = C(c, i)`` as nested lists: colex ranks in pure Python."""
        return self._colex.binomial.tolist()


@overload
def hyperedge_weights(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    score: str = ...,
    given: Hashable | None = ...,
    per_stratum: Literal[False] = ...,
) -> HyperedgeWeights: ...
@overload
def hyperedge_weights(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = ...,
    *,
    k: int = ...,
    score: str = ...,
    given: Hashable | None = ...,
    per_stratum: bool,
) -> HyperedgeWeights | list[HyperedgeWeights]: ...


def hyperedge_weights(
    data: CountingEngine | pd.DataFrame,
    variables: Iterable[Hashable] | None = None,
    *,
    k: int = 1,
    score: str = "ml",
    given: Hashable | None = None,
    per_stratum: bool = False,
) -> HyperedgeWeights | list[HyperedgeWeights]:
    """ML or MDL weights of every candidate hyperedge of up to k + 1 variables.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : sequence, optional
        Nodes of the hyperforest; every variable but `given` by default.
    k : int, default=1
        Tree-width: hyperedges have at most k + 1 variables.
    score : {"ml", "mdl"}, default="ml"
        ``"ml"``: ``w_h = E[log phi_h]``. ``"mdl"``: ``w_h - N_h log(m)/(2m)``
        with ``N_h = prod_{v in h} (r_v - 1)``.
    given : name or position, optional
        A class variable: weights of the class-conditional models.
    per_stratum : bool, default=False
        With `given`: one :class:`HyperedgeWeights` per class (free
        structure, C_f) instead of their average weighted by P(y) (shared
        structure, C_s). MDL uses each class's own sample size m_y.

    Returns
    -------
    HyperedgeWeights, or a list of them (one per state of `given`)

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. Sections 2.2-2.3 and 4.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("xxyy")})
    >>> w = hyperedge_weights(frame, k=1)
    >>> round(w[frozenset({"a", "b"})] / math.log(2), 6)  # I(a; b) = 1 bit
    1.0
    """
    if score not in SCORES:
        raise ValueError(f"Unknown score {score!r}; valid: {list(SCORES)}.")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0:
        raise ValueError(f"`k` must be a non-negative integer, got {k!r}.")
    if per_stratum and given is None:
        raise ValueError("`per_stratum=True` needs a conditioning variable `given`.")
    engine = as_engine(data)
    entropies = subset_entropies(engine, variables, k + 1, given=given)
    n = len(entropies.names)
    max_size = min(k + 1, max(n, 1))
    cards = entropies.cardinalities
    colex = _colex(n, max_size)
    parameters = [np.zeros(1)] + [
        np.prod(cards[colex.combos(s)], axis=1).astype(np.float64) - 1.0 for s in range(1, max_size + 1)
    ]

    def closure(entropy, m):
        z = [-entropy[s][: len(parameters[s])] for s in range(max_size + 1)]
        if score == "mdl" and m > 0:
            penalty = math.log(m) / (2.0 * m)
            z = [z[s] - penalty * parameters[s] for s in range(max_size + 1)]
        return z

    if given is None:
        return HyperedgeWeights(entropies.names, closure(entropies.joint, entropies.total), cardinalities=cards)
    totals, strata = entropies.stratum_totals, entropies.strata
    assert totals is not None and strata is not None  # computed with `given`
    per_class = [closure([strata[s][:, y] for s in range(max_size + 1)], float(totals[y])) for y in range(len(totals))]
    if per_stratum:
        return [HyperedgeWeights(entropies.names, z, cardinalities=cards) for z in per_class]
    prior = totals / totals.sum()
    averaged = [sum(prior[y] * per_class[y][s] for y in range(len(totals))) for s in range(max_size + 1)]
    return HyperedgeWeights(entropies.names, averaged, cardinalities=cards)
