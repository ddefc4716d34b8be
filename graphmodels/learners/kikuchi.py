"""Kikuchi-Bayes structure search (Jakulin & Rish): stepwise forward selection
of class-containing regions under the parsimonious prior.

A model is a set of initial regions, each a set of attributes plus the class;
its Kikuchi approximation :math:`\\Phi(x, y) = \\prod_R P(v_R)^{c_R}` over the
cluster-variation region graph gives the class posterior
:math:`P(y | x) = \\Phi(x, y) / \\sum_{y'} \\Phi(x, y')` (Lemma 1). Every
region of such a model contains the class, so the whole region graph does.

The search keeps, for every distinct training row ``x``, the array
``log Phi(x, .)`` over the classes. Adding a region ``S`` changes only the
counting numbers of the regions inside ``S`` (all others keep their
supersets), so a candidate is scored by adding ``sum_T dc_T log P(v_T)`` over
at most ``2^(|S|-1)`` sub-regions ``T`` of ``S`` to that array — the trick of
Caruana et al. (2004) the paper uses for its one-level lookahead — and all
candidates of one size are scored together in batched numpy arrays.

Candidates are scored exactly in the order of a concavity bound and only while
the bound can still beat the best exact score, so the result is the exhaustive
search's. On wide data (pools of candidates too many to keep their score
changes, :class:`_WidePool`) the bound's slope and the exact score come from
each candidate's cell table rather than from its rows.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, overload

import numpy as np

from .._special import expit
from .._trace import new_trace, traced

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.counting import CountingEngine

__all__ = ["kikuchi_bayes_path", "parsimonious_log_prior", "DEFAULT_PRIOR_STRENGTH"]

#: Default ``prior_strength`` (vartheta of eq. 4): the best of 0.25, 0.5, 1, 2,
#: 4, 8 by average rank of kBMA's log-loss under 5-fold cross-validation on the
#: 23 shared UCI sets of the paper's Table 1 (benchmarks/bench_kikuchi_bayes.py
#: --prior-strength-grid; 2 is a close second). The paper does not give its value.
#: Those folds are the first replication of the Table 1 folds, so the choice
#: saw part of the data that Table 1 evaluates on (a mild optimism there).
DEFAULT_PRIOR_STRENGTH = 4.0

# Bytes of per-row log-probability arrays kept between candidates.
_CACHE_BYTES = 512 * 2**20
# Elements of one (candidates, rows[, classes]) block scored at once.
_BLOCK_ELEMENTS = 2**21
# Bytes of cached score deltas of one pool of candidates.
_POOL_BYTES = 512 * 2**20
# Pools this small (candidates x rows x classes) are scored directly, without the bound.
_DIRECT_ELEMENTS = 16384
# Most (row, attribute subset) entries of a wide pool's subset tallies (see _WidePool._subset_plan).
_SUBSET_ENTRIES = 2**23
# Largest stack of one-hot Gram matrices (states of the first attribute x columns x columns,
# float64) of a pool's Gram slopes (see _GramSlopes).
_GRAM_STACK_BYTES = 64 * 2**20
# Wide pools of two or three attributes take their bound slopes from one-hot Gram products
# (_GramSlopes); off: the group-by-group tallies (the reference).
_USE_GRAM_SLOPES = True
# Candidate pools with at least this many (candidates x rows x class columns) cached score-change
# entries take their bound slopes from one-hot Gram products (_GramSlopes) rather than a product
# with every cached delta (a pass over all of them at every stage).
_GRAM_POOL_ELEMENTS = 2**24
# Most runs of attributes of as many states for the Gram slopes' sums over each attribute's columns
# by strided slices (see _GramSlopes._block_sums); more: by gathered rows.
_SUM_RUNS = 16
# Base of two classes' counts packed in one single-precision product (see _GramSlopes._tables): a
# square (its root exact), above the rows, and times the rows below 2**24.
_PACKED_BASE = 4096
# Candidates ordered by their bound at first (all of them once more are scored).
_LEADING = 1024
# A first attribute's candidates take the Gram rows of a cover of their pairs when its columns are
# fewer than this share of the later attributes' columns, else the whole block (see
# _GramSlopes.candidate_slopes), which anchors every candidate of it at this stage: on mixed-pairwise
# an eighth halves the candidates given fresh slopes over the path against a quarter (283 against
# 522 thousand), for a sixth less time in them (measured; a sixteenth: more time).
_COVER_SHARE = 8
# A pool of pairs takes the fresh slopes of at most this share of its candidates from their cached
# deltas (more: from the Gram products of all).
_FEW_DELTAS = 4
# Pools of pairs are bounded at anchors when their Gram products' columns squared are at least this
# many times their candidates (see _CandidatePool._anchored).
_ANCHORED_PAIRS = 10
# Three-attribute pools are bounded at anchors when their Gram products have at least this many
# columns an attribute (see _WidePool._anchored).
_ANCHORED_COLUMNS = 1.5
# Nats the latest anchor's linear bound of the log-likelihood may lie above it before a pass computes
# every candidate's slope (measured on the generated wide sets: 4-28 nats when 0.02-15% of the
# candidates reached the best, 33-117 when nearly all did).
_WHOLE_PASS_GAP = 30.0
# Candidates scored exactly to estimate the best before the anchored bounds are tightened.
_ESTIMATING = 64
# Log-posterior differences below this are ties, broken by attribute names.
_TIE_TOLERANCE = 1e-9


def parsimonious_log_prior(df: float, n: float) -> float:
    """Log of the parsimonious structure prior, eq. (6) of Jakulin & Rish.

    :math:`\\log P(M) = -n \\, df / (n - df - 1)`: Akaike's information
    criterion with the small-sample correction. Models with ``df >= n - 1``
    have prior probability zero (``-inf``), not a division error.

    Parameters
    ----------
    df : float
        Degrees of freedom of the model (eq. 5, or eq. 7 for a classifier).
    n : float
        Number of training instances (sum of weights).

    Returns
    -------
    float

    Examples
    --------
    >>> parsimonious_log_prior(1, 100)
    -1.0204081632653061
    >>> parsimonious_log_prior(99, 100)
    -inf
    """
    if df >= n - 1:
        return -math.inf
    return -n * df / (n - df - 1)


@functools.cache
def _bits(mask):
    """Attribute indices in a region mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


@functools.cache
def _submasks(mask):
    """All submasks of `mask` (0 and `mask` included), largest first."""
    out = [0]
    for bit in _bits(mask):
        out += [m | (1 << bit) for m in out]
    return tuple(sorted(out, key=lambda m: -len(_bits(m))))


@functools.cache
def _subsets_up_to(mask, k):
    """Every set of 1 to `k` attributes of region `mask`, as ascending tuples."""
    bits = _bits(mask)
    return tuple(itertools.chain.from_iterable(itertools.combinations(bits, size) for size in range(1, k + 1)))


@functools.cache
def _containing_submasks(mask):
    """For each proper submask ``t`` of `mask`, largest first: ``(t, submasks of mask containing t)``."""
    subs = _submasks(mask)
    return tuple((t, tuple(u for u in subs if u & t == t)) for t in subs[1:])


class _RegionSearch:
    """Training rows and region tables of one search.

    Log-probability arrays over (rows, classes) live in an "evaluation
    space": for two classes only the difference ``log P(., y=1) - log P(., y=0)``
    matters to the class posterior, so arrays are (rows,); otherwise they
    are (rows, classes).
    """

    def __init__(self, engine, class_position, attributes, prior_strength):
        self.engine = engine
        self.attributes = list(attributes)
        self.cards = np.array([int(engine.cardinalities[p]) for p in self.attributes], dtype=np.int64)
        self._card_list = [int(r) for r in self.cards]
        self.n_classes = int(engine.cardinalities[class_position])
        self.prior_strength = float(prior_strength)
        columns = self.attributes + [class_position]
        codes, weights = engine.rows(columns)
        if codes.size and codes.min() < 0:
            bad = engine.names[columns[int(np.flatnonzero((codes < 0).any(axis=0))[0])]]
            raise ValueError(
                f"Variable {bad!r} has unknown (-1) codes in the training data; Kikuchi-Bayes "
                "needs every training cell observed (missing values are a state of their own)."
            )
        x, y = codes[:, :-1], codes[:, -1]
        # One row per distinct attribute vector, with its class weights: the
        # conditional likelihood only needs log Phi(x, .) once per distinct x.
        if x.shape[1] and len(x):
            unique, inverse = np.unique(x, axis=0, return_inverse=True)
        else:
            unique, inverse = np.zeros((min(len(x), 1), x.shape[1]), dtype=np.int64), np.zeros(len(y), dtype=np.int64)
        self.x = np.ascontiguousarray(unique, dtype=np.int64)
        m = self.n_classes
        self.class_weights = np.bincount(inverse.ravel() * m + y, weights=weights, minlength=len(unique) * m).reshape(
            len(unique), m
        )
        self.row_weights = self.class_weights.sum(axis=1)
        self.total = float(weights.sum())
        self.binary = m == 2
        self._class_weights_t = [np.ascontiguousarray(self.class_weights[:, c]) for c in range(m)]
        self._columns = np.ascontiguousarray(self.x.T)  # (attributes, rows)
        # Rows, classes and weights of the nonzero class weights, row by row.
        self._entries = (*np.nonzero(self.class_weights), self.class_weights[self.class_weights != 0])
        self._entry_per_row = bool(np.array_equal(self._entries[0], np.arange(len(unique))))
        self._unit_entries = bool((self._entries[2] == 1).all())
        self._log_rows = {}
        self._log_tables = {}
        self._cached_bytes = 0
        self._products = {}
        self._keys = {}  # attribute tuples' keys of the pools' look-ups (_VectorChanges._keyed)
        # each attribute's most common state among the distinct rows (the anchor of the tallies)
        self.common = np.array([np.bincount(self._columns[a], minlength=c).argmax() for a, c in enumerate(self.cards)])

    # --------------------------------------------------------------- tables
    def product(self, mask):
        """Number of joint states of the attributes of `mask` (a Python int)."""
        value = self._products.get(mask)
        if value is None:
            value = math.prod(self._card_list[b] for b in _bits(mask))
            self._products[mask] = value
        return value

    def cells(self, mask):
        return self.product(mask) * self.n_classes

    def class_df(self, mask):
        """Conditional degrees of freedom (eq. 7) of one region: (|Y| - 1) prod |X_a|."""
        return (self.n_classes - 1) * self.product(mask)

    def to_eval(self, log_p):
        """Log-probabilities (..., rows, classes) in evaluation space."""
        return log_p[..., 1] - log_p[..., 0] if self.binary else log_p

    def log_rows(self, mask):
        """``log P(x_R, y)`` of every distinct row, in evaluation space (cached)."""
        rows = self._log_rows.get(mask)
        if rows is None:
            rows = self.batch_log_rows([mask])[0]
            if self._cached_bytes + rows.nbytes <= _CACHE_BYTES:
                self._log_rows[mask] = rows
                self._cached_bytes += rows.nbytes
        return rows

    def batch_log_rows(self, masks, out=None):
        """``log P(x_S, y)`` of same-size regions, evaluation space: (len(masks), rows[, classes]),
        into `out` if given (the same values)."""
        bits = np.array([_bits(s) for s in masks], dtype=np.int64).reshape(len(masks), -1)
        code, cells = self.region_codes(bits)
        log_p = self.log_tables(code, cells)[1]
        return log_p[code] if out is None else np.take(log_p, code, axis=0, out=out, mode="clip")

    def log_table(self, mask):
        """``log P(v_R, y)`` of every cell of a region, evaluation space: (cells[, classes]) (cached).

        Cells in mixed radix over the region's attributes, the first most significant.
        """
        table = self._log_tables.get(mask)
        if table is None:
            code, cells = self.region_codes(np.array([_bits(mask)], dtype=np.int64).reshape(1, -1))
            table = self._log_tables[mask] = self.log_tables(code, cells)[1]
        return table

    def region_codes(self, bits):
        """Cells of every distinct row in same-size regions, each region's cells numbered after those
        of the regions before it: (regions, rows), and each region's number of cells.

        Parameters
        ----------
        bits : ndarray of int, shape (regions, attributes)
            Attribute indices of each region, ascending.
        """
        cells = self.cards[bits].prod(axis=1)
        if bits.shape[1]:
            code = self._columns[bits[:, 0]]  # (a copy)
        else:
            code = np.zeros((len(bits), len(self.x)), dtype=np.int64)
        for k in range(1, bits.shape[1]):
            code *= self.cards[bits[:, k]][:, None]
            code += self._columns[bits[:, k]]
        code += (np.cumsum(cells) - cells)[:, None]
        return code, cells

    def log_tables(self, code, cells):
        """Class weights of the regions' cells, (cells of all regions, classes), and ``log P(cell, y)``
        in evaluation space, from the cells `code` (regions, rows) of :meth:`region_codes`.

        One ``bincount`` over the rows' nonzero class weights; each cell sums its rows in row order,
        whatever the regions scored with it, so a region's table is the same in every batch.
        """
        m = self.n_classes
        rows, classes, weights = self._entries
        total = int(cells.sum())
        index = code * m if self._entry_per_row else code[:, rows] * m
        index += classes
        if self._unit_entries:  # the same integers as the weighted sums of ones, counted faster
            counts = np.bincount(index.ravel(), minlength=total * m).astype(np.float64)
        else:
            counts = np.bincount(index.ravel(), weights=np.tile(weights, len(code)), minlength=total * m)
        counts = counts.reshape(total, m)
        theta = self.prior_strength
        # Eq. (4): alpha = vartheta / (cells of the region, class included); the same vartheta
        # everywhere, so overlapping submodels agree.
        alpha = np.repeat(theta / (cells * m), cells)
        log_p = np.log(counts + alpha[:, None])
        if self.binary:
            return counts, log_p[:, 1] - log_p[:, 0]  # the normalizer cancels
        return counts, log_p - math.log(self.total + theta)

    # ------------------------------------------------------------ likelihood
    def gradient(self, scores):
        """Gradient of :meth:`conditional_log_likelihood` at `scores` (same shape)."""
        if self.binary:
            return self._class_weights_t[1] - self.row_weights * expit(scores)
        soft = np.exp(scores - _log_sum_exp_last(scores)[..., None])
        return self.class_weights - self.row_weights[:, None] * soft

    def conditional_log_likelihood(self, scores):
        """Eq. (8): sum over training rows of ``log P(y | x)``, for one or a batch of score arrays."""
        if self.binary:
            # log P(y=1|x) = -softplus(-z), log P(y=0|x) = -softplus(z), z = score difference.
            return _dot(scores, self._class_weights_t[1]) - _dot(np.logaddexp(0.0, scores), self.row_weights)
        norm = _log_sum_exp_last(scores)
        return _dot(scores, self.class_weights) - _dot(norm, self.row_weights)


class _StageScores:
    """The model's scores at one stage, set up to score candidates from their cell tables.

    A candidate whose score change is ``D[cell(i)]`` (a table over its cells, in evaluation
    space) has ``CLL(s + d) = sum_i w_i . (s_i + d_i) - sum_i W_i LSE(s_i + d_i)`` (eq. 8). The
    fit term is ``sum_cells counts . D``; with ``E_i = exp(s_i - max s_i)``, computed once per
    stage, and ``X = exp(D - max_y D)`` per cell, ``LSE(s_i + d_i) = max s_i + max_y D[cell(i)]
    + log(E_i . X[cell(i)])``: per row one gather, a dot over the classes and a log, instead of
    forming ``s + d`` and its log-sum-exp.
    """

    def __init__(self, search, scores):
        self.search = search
        full = np.column_stack([np.zeros(len(scores)), scores]) if search.binary else scores
        top = full.max(axis=1)
        self.exp = [np.exp(full[:, c] - top) for c in range(full.shape[1])]
        fit = _dot(scores, search._class_weights_t[1] if search.binary else search.class_weights)
        self.constant = float(fit - _dot(top, search.row_weights))

    def log_likelihoods(self, code, counts, tables, cells):
        """CLL of candidates with score changes `tables` (cells of all candidates[, classes]; their
        class weights `counts`) on the rows' cells `code` (candidates, rows), `cells` per candidate.

        Rounding aside, ``search.conditional_log_likelihood(scores + tables[code])``; NaN for a
        candidate whose rows' sums underflow (classes more than ~700 nats apart both ways).
        """
        search = self.search
        full = np.column_stack([np.zeros(len(tables)), tables]) if search.binary else tables
        top = full.max(axis=1)
        fit = np.add.reduceat((counts * full).sum(axis=1) - counts.sum(axis=1) * top, np.cumsum(cells) - cells)
        total = None
        for c, column in enumerate(self.exp):
            term = np.exp(full[:, c] - top)[code]
            term *= column
            total = term if total is None else np.add(total, term, out=total)
        with np.errstate(divide="ignore"):
            norm = _dot(np.log(total), search.row_weights)
        # an underflow (0 or a subnormal) would lose digits: rescored by the rows
        norm[~(total.min(axis=1) > 1e-290)] = np.nan
        return self.constant + fit - norm


class _Model:
    """A Kikuchi model during the search: counting numbers over attribute masks."""

    def __init__(self, search):
        self.search = search
        self.counting = {0: 1}  # the class alone
        self.maximal = [0]
        self.scores = np.array(search.log_rows(0), dtype=np.float64, copy=True)
        self.df = search.class_df(0)
        self._closure_cache = {}
        self._pool_tables = {}  # the candidate pools' keyed tables of this model (_model_tables)

    def closure(self, mask):
        """Smallest region of the intersection closure containing `mask`, or None if uncovered."""
        try:
            return self._closure_cache[mask]
        except KeyError:
            pass
        meet = None
        for region in self.maximal:
            if region & mask == mask:
                meet = region if meet is None else meet & region
        self._closure_cache[mask] = meet
        return meet

    def changes(self, region):
        """Counting-number changes ``{mask: dc}`` from adding the uncovered region `region`.

        Only sub-regions ``T`` of `region` change (every other region keeps
        its supersets). From ``sum_{U >= T} c_U = 1`` before and after,
        ``c'_T = sum_{U in Q, T <= U <= region} c_U - sum_{U in Q', T < U <= region} c'_U``
        with ``c'_region = 1``, where ``Q`` is the old closure and ``Q'`` the
        new one; a sub-region is in ``Q'`` when it equals `region`
        intersected with the smallest old region containing it.
        """
        counting = self.counting
        closure = self._closure_cache
        new = {region: 1}
        for t, above in _containing_submasks(region):
            cl = closure[t] if t in closure else self.closure(t)
            if cl is None or cl & region != t:
                continue
            new[t] = sum([counting.get(u, 0) - new.get(u, 0) for u in above])
        return {t: c - counting.get(t, 0) for t, c in new.items() if c != counting.get(t, 0)}

    def add(self, region, changes, delta_scores):
        for t, dc in changes.items():
            c = self.counting.get(t, 0) + dc
            if c:
                self.counting[t] = c
            else:
                self.counting.pop(t, None)
        self.maximal = [r for r in self.maximal if r & region != r] + [region]
        self._closure_cache = {}
        self._pool_tables = {}
        self.scores += delta_scores
        self.df += sum(dc * self.search.class_df(t) for t, dc in changes.items())


class _VectorChanges:
    """Counting-number changes of many candidates at once, as (candidates, patterns) arrays (bit ``i`` of
    a pattern: the candidate's ``i``-th attribute is in the sub-region); for pools with ``search``,
    ``model``, ``k``, ``combos`` (each candidate's attributes) and ``_patterns`` (the patterns,
    largest first)."""

    search: _RegionSearch
    model: _Model
    k: int
    combos: np.ndarray
    _patterns: list[int]

    def _positions(self, pattern):
        return [i for i in range(self.k) if pattern >> i & 1]

    def _mask(self, b, pattern=None):
        row = self.combos[b]
        return sum(1 << int(row[i]) for i in (range(self.k) if pattern is None else self._positions(pattern)))

    def _model_tables(self):
        """Counting numbers of the model's regions of up to k attributes, and the number of its
        regions holding each set of up to k attributes, as sorted keys and values (:meth:`_keyed`);
        made once per model and k (the pools of every size share them)."""
        model, k = self.model, self.k
        cached = model._pool_tables.get(k)
        if cached is not None:
            return cached
        counting_keys, counting_values = self._keyed(
            (_bits(mask), c) for mask, c in model.counting.items() if len(_bits(mask)) <= k
        )
        holding = collections.Counter()
        for region in model.maximal:
            holding.update(_subsets_up_to(region, k))
        holding_keys, holding_values = self._keyed(holding.items())
        model._pool_tables[k] = (counting_keys, counting_values, holding_keys, holding_values)
        return model._pool_tables[k]

    def _general_changes(self, combos, tables=None):
        """Counting-number changes (candidates, patterns) of adding the candidates `combos`, vectorized
        :meth:`_Model.changes`: a sub-region ``T`` joins the new closure when some region covers it and
        no attribute of the candidate outside ``T`` lies in every region covering it, that is when
        ``count(T) > 0`` and ``count(T + {i}) != count(T)`` for each such attribute ``i``, with
        ``count(U)`` the number of the model's regions holding ``U`` (looked up, not counted per
        region and candidate)."""
        model, k = self.model, self.k
        n = len(combos)
        full = (1 << k) - 1
        base = len(self.search.attributes) + 1
        counting_keys, counting_values, holding_keys, holding_values = tables or self._model_tables()
        # (each pattern's key from that of its pattern without its highest bit, whose attribute is
        # the last of the key's digits)
        narrow = base**k < 2**31
        keys = np.zeros((full + 1, n), dtype=np.int32 if narrow else np.int64)
        shifted = np.ascontiguousarray(combos.T, dtype=keys.dtype) + 1
        for q in range(1, full + 1):
            high = q.bit_length() - 1
            np.multiply(shifted[high], base ** (bin(q).count("1") - 1), out=keys[q])
            keys[q] += keys[q ^ (1 << high)]
        # (counts of regions and counting numbers: small integers)
        counts = np.empty((full + 1, n), dtype=np.int32)
        counting = np.empty((full, n), dtype=np.int32)
        # sub-regions of up to two attributes (keys below base**2) looked up in dense tables, the
        # others searched in the sorted keys
        small = [q for q in range(full + 1) if bin(q).count("1") <= 2]
        large = [q for q in range(full + 1) if bin(q).count("1") > 2]
        for out, (sorted_keys, values), patterns in (
            (counts, (holding_keys, holding_values), range(full + 1)),
            (counting, (counting_keys, counting_values), range(full)),
        ):
            dense = np.zeros(base * base, dtype=out.dtype)
            below = (sorted_keys >= 0) & (sorted_keys < base * base)
            dense[sorted_keys[below]] = values[below]
            for q in patterns:
                if q in small:  # (keys of up to two attributes: below base**2)
                    np.take(dense, keys[q], out=out[q], mode="clip")
            rest = [q for q in large if q in patterns]
            if rest:
                out[rest] = self._look_up(sorted_keys, values, keys[rest])
        counts[0] = len(model.maximal)  # every region holds the empty set
        new = np.zeros((full + 1, n), dtype=np.int32)
        new[full] = 1
        changes = np.zeros((full + 1, n), dtype=np.int32)  # (patterns, candidates): returned transposed
        changes[full] = 1
        value = np.empty(n, dtype=np.int32)
        joins = np.empty(n, dtype=bool)
        for q in self._patterns[1:]:
            np.greater(counts[q], 0, out=joins)
            for i in range(k):
                if not q >> i & 1:
                    joins &= counts[q | 1 << i] != counts[q]
            value[:] = 0
            for u in range(q, full + 1):
                if u & q == q:
                    if u != full:
                        value += counting[u]
                    if u != q:
                        value -= new[u]
            np.multiply(value, joins, out=new[q])
            np.subtract(new[q], counting[q], out=changes[q])
            changes[q] *= joins
        return changes.T

    def _keyed(self, items):
        """Sorted keys (as :meth:`_general_changes` forms them) of ``(attributes, value)`` items, and values."""
        base = len(self.search.attributes) + 1
        known = self.search._keys  # each attribute tuple's key, made once per search
        keys, values = [], []
        for bits, value in items:
            key = known.get(bits)
            if key is None:
                key = known[bits] = sum((b + 1) * base**i for i, b in enumerate(bits))
            keys.append(key)
            values.append(value)
        if not keys:
            return np.array([-1], dtype=np.int64), np.zeros(1, dtype=np.int64)
        keys_array = np.array(keys, dtype=np.int64)
        order = np.argsort(keys_array, kind="stable")  # (keys distinct: the order of sorted pairs)
        return keys_array[order], np.array(values, dtype=np.int64)[order]

    @staticmethod
    def _look_up(keys, values, wanted):
        """``values`` of the `wanted` keys (any shape), 0 where absent."""
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, values[at], 0)


class _AnchoredBounds:
    """Bounds of a pool's candidates at the scores of earlier stages (see :meth:`_anchored_slopes`),
    for pools with ``search``, ``model``, ``combos``, ``_change_rows`` (their changes over sub-region
    patterns), ``_gram`` (a :class:`_GramSlopes`) and the ``_anchor_*`` attributes (None at first)."""

    search: _RegionSearch
    model: _Model
    combos: np.ndarray
    _change_rows: np.ndarray
    _gram: Any
    _anchors: list[tuple[np.ndarray, np.ndarray, float]]
    _anchor_products: list[dict[int, float]]
    _anchor_of: Any
    _anchor_own: Any
    _anchor_slopes: Any
    _anchor_moved: Any

    def _anchor(self, which, own, gradient, current, slopes=None):
        """Record the own slopes `own` of the candidates `which` at the model's current scores (and
        their whole `slopes`, if known)."""
        scores = self.model.scores
        if not self._anchors or not np.array_equal(self._anchors[-1][0], scores):
            self._anchors.append((scores.copy(), gradient.copy(), current))
            self._anchor_products.append({})  # its sub-region products (_add_subregion_slopes)
        if self._anchor_of is None:
            n = len(self.combos)
            self._anchor_of = np.zeros(n, dtype=np.int32)
            self._anchor_own, self._anchor_slopes = np.zeros(n), np.zeros(n)
            self._anchor_moved = np.ones(n, dtype=bool)
        self._anchor_of[which] = len(self._anchors) - 1
        self._anchor_own[which] = own
        if slopes is None:
            self._anchor_moved[which] = True
        else:
            self._anchor_slopes[which] = slopes
            self._anchor_moved[which] = False

    def _columns_of(self, gradient):
        return [gradient] if self.search.binary else [gradient[:, c] for c in range(gradient.shape[1] - 1)]

    def _gap(self, current):
        """How far the latest anchor's linear bound of the model's log-likelihood now lies above it,
        ``CLL(s0) + g0 . (s - s0) - CLL(s)`` (nats): roughly what the bounds from it are looser by."""
        anchor_scores, anchor_gradient, anchor_current = self._anchors[-1]
        return anchor_current - current + float(_dot(self.model.scores - anchor_scores, anchor_gradient))

    def _anchored_slopes(self, which, gradient, current):
        """Upper bounds of ``CLL(s + d) - CLL(s)`` of the candidates `which` without a Gram product
        (after the first pass), and which of them are looser than the bound ``g . d``.

        The conditional log-likelihood is concave in the scores, so at the scores ``s0`` of any
        earlier stage (a candidate's anchor, with gradient ``g0``), ``CLL(s + d) <= CLL(s0) + g0 .
        (s - s0) + g0 . d``. A candidate's own term of ``g0 . d`` (its cell table's, the costly
        products) is kept from the stage of its anchor; only its sub-region terms, which change with
        the model, are computed again (shared, cheap). At the first pass, and when the latest anchor's
        bound of the log-likelihood lies `_WHOLE_PASS_GAP` or more above it (the bounds would reach
        the best for nearly every candidate), every candidate's slope is computed and anchored.
        """
        search = self.search
        scores = self.model.scores
        if self._anchor_of is None or self._gap(current) >= _WHOLE_PASS_GAP:
            own = self._gram.slopes(self._columns_of(gradient), gradient)
            self._anchor(np.arange(len(self.combos)), own, gradient, current)
        anchors = self._anchor_of[which]
        moved = which[self._anchor_moved[which]]
        if len(moved):  # the sub-region terms of changes made since their anchors
            moved_anchors = self._anchor_of[moved]
            for q in np.flatnonzero(np.bincount(moved_anchors)):
                part = moved[moved_anchors == q]
                self._anchor_slopes[part] = _add_subregion_slopes(
                    self._anchor_own[part],
                    search,
                    self.combos[part],
                    self._change_rows[part],
                    self._anchors[q][1],
                    self._anchor_products[q],
                )
            self._anchor_moved[moved] = False
        # per anchor: what its bounds lie above its slopes (0 at this stage: the bound g . d itself)
        offsets = np.zeros(len(self._anchors))
        same = np.zeros(len(self._anchors), dtype=bool)
        for q in np.flatnonzero(np.bincount(anchors)):
            anchor_scores, anchor_gradient, anchor_current = self._anchors[q]
            if np.array_equal(anchor_scores, scores):
                same[q] = True
            else:
                step = scores - anchor_scores
                # the rounding of the product and of the two log-likelihoods, allowed for
                rounding = (step.size + 64) * 2.0**-52 * float(_dot(np.abs(step), np.abs(anchor_gradient)))
                rounding += 2.0**-50 * (abs(anchor_current) + abs(current))
                offsets[q] = anchor_current - current + float(_dot(step, anchor_gradient)) + rounding
        return self._anchor_slopes[which] + offsets[anchors], ~same[anchors]


class _CandidatePool(_VectorChanges, _AnchoredBounds):
    """All regions of one size, with their counting-number changes and score deltas.

    A candidate's changes depend only on the model restricted to its own
    attributes, so after a region is added only the candidates sharing an
    attribute with it (or all, if the class-only closure changed) are
    recomputed, and their cached score deltas are corrected by the moved
    sub-region terms rather than recounted. Deltas are computed only for
    candidates the prior allows (``df < n - 1``), when first needed.
    """

    def __init__(self, search, model, n_in_region, max_cells):
        self.search, self.model = search, model
        n_attributes = len(search.attributes)
        covered = set()
        for region in model.maximal:
            bits = _bits(region)
            if len(bits) >= n_in_region:
                covered.update(sum(1 << b for b in c) for c in itertools.combinations(bits, n_in_region))
        masks = []
        for combo in itertools.combinations(range(n_attributes), n_in_region):
            mask = sum(1 << b for b in combo)
            if mask not in covered and search.cells(mask) <= max_cells:
                masks.append(mask)
        self.masks = masks
        self.k = n_in_region
        self.active = np.ones(len(masks), dtype=bool)
        self.root = model.closure(0)
        n_rows = len(search.x)
        self.shape = (n_rows,) if search.binary else (n_rows, search.n_classes)
        width = math.prod(self.shape)
        self.block = max(1, _BLOCK_ELEMENTS // max(1, width))
        # np.empty does not touch memory: rows of candidates never scored cost nothing. Pools whose
        # deltas would not fit in _POOL_BYTES are _WidePool's.
        self.deltas = np.empty((len(masks),) + self.shape)
        self.has_delta = np.zeros(len(masks), dtype=bool)
        self.changes = [None] * len(masks)
        # the same changes over sub-region patterns (bit i: the candidate's i-th attribute), as a _WidePool's
        self.pattern_changes = np.zeros((len(masks), 1 << n_in_region), dtype=np.int32)
        self.delta_dfs = np.zeros(len(masks))
        self._holding = None
        self._pattern_masks = {}  # each candidate's sub-region masks, once its changes are made
        self._gram = None  # a _GramSlopes when it applies (False when not), made at the first bound
        self.combos = np.array([_bits(mask) for mask in masks], dtype=np.int64).reshape(len(masks), n_in_region)
        self._common = search.common
        self._patterns = sorted(range(1 << n_in_region), key=lambda q: -bin(q).count("1"))
        # the patterns in the order of the sub-regions of _Model.changes (the region first)
        self._change_order = [q for q in _submasks((1 << n_in_region) - 1)]
        self._change_rows = self.pattern_changes
        # anchored bounds (see _AnchoredBounds), for large pools of pairs
        self._anchor_of = self._anchor_own = self._anchor_slopes = self._anchor_moved = None
        self._anchors = []
        self._anchor_products = []
        self._refresh(range(len(masks)))

    def _refresh(self, which):
        """Recompute the changes of the candidates `which`, correcting their cached deltas.

        The changes of all of them at once (:meth:`_VectorChanges._general_changes`); a change dict,
        in the order of :meth:`_Model.changes`, only for those whose changes differ.
        """
        search, model, k = self.search, self.model, self.k
        which = np.asarray(which, dtype=np.int64)
        if not len(which):
            return
        full = (1 << k) - 1
        # A candidate sharing no attribute with the model has no covered sub-region but the class
        # alone (the root's closure lies inside the model's attributes): {S: +1, class: -1}.
        touched = 0
        for region in model.maximal:
            touched |= region
        member = np.zeros(len(search.attributes), dtype=bool)
        member[list(_bits(touched))] = True
        hit = member[self.combos[which]].any(axis=1)
        rows = np.zeros((len(which), full + 1), dtype=np.int64)
        rows[~hit, full] = 1
        rows[~hit, 0] = -1
        general = np.flatnonzero(hit)
        if len(general):
            tables = self._model_tables()
            chunk = max(1, _BLOCK_ELEMENTS // (8 << k))
            for start in range(0, len(general), chunk):
                part = general[start : start + chunk]
                rows[part] = self._general_changes(self.combos[which[part]], tables)
        differ = np.flatnonzero((rows != self.pattern_changes[which]).any(axis=1))
        changed = which[differ]
        self.delta_dfs[changed] = _delta_dfs(search, self.combos[changed], rows[differ])
        self.pattern_changes[changed] = rows[differ]
        if self._anchor_moved is not None:
            self._anchor_moved[changed] = True
        corrected, moved = [], []
        order = self._change_order
        for b, row in zip(changed.tolist(), rows[differ].tolist()):
            masks = self._pattern_masks.get(b)
            if masks is None:  # the candidate's sub-region of each pattern (:meth:`_mask` of each)
                bits = [1 << a for a in self.combos[b].tolist()]
                masks = [0] * (full + 1)
                for q in range(1, full + 1):  # a pattern's mask: that of its lower bits, and its lowest
                    masks[q] = masks[q & (q - 1)] | bits[(q & -q).bit_length() - 1]
                self._pattern_masks[b] = masks
            change = {masks[q]: row[q] for q in order if row[q]}
            old = self.changes[b]
            self.changes[b] = change
            if self.has_delta[b]:
                corrected.append(b)
                moved.append({t: change.get(t, 0) - old.get(t, 0) for t in change.keys() | old.keys()})
        for start in range(0, len(corrected), self.block):
            chunk = corrected[start : start + self.block]
            terms = self._subregion_terms(chunk, moved[start : start + self.block])
            if terms is not None:
                self.deltas[chunk] += terms

    def _subregion_terms(self, which, changes):
        """``sum_{T != S} dc_T log P(x_T, y)`` for candidates `which` with change dicts
        `changes`, as one sparse (candidates x sub-regions) product; None if all zero."""
        search = self.search
        rows, cols, values, subs = [], [], [], {}
        masks = self.masks
        for i, (b, change) in enumerate(zip(which, changes)):
            own = masks[b]
            for t, dc in change.items():
                if dc and t != own:
                    rows.append(i)
                    cols.append(subs.setdefault(t, len(subs)))
                    values.append(dc)
        if not subs:
            return None
        stacked = np.stack([search.log_rows(t) for t in subs]).reshape(len(subs), -1)
        if len(which) * len(subs) <= 4096:  # small: a dense product avoids scipy's overhead
            weights = np.zeros((len(which), len(subs)))
            weights[rows, cols] = values
        else:
            from scipy import sparse

            weights = sparse.csr_matrix((values, (rows, cols)), shape=(len(which), len(subs)))
        return (weights @ stacked).reshape((len(which),) + self.shape)

    def _deltas(self, which, out=None):
        """Score changes ``sum_T dc_T log P(x_T, y)`` of the candidates `which`, computed afresh (into
        `out` if given)."""
        which = list(which)
        deltas = self.search.batch_log_rows([self.masks[b] for b in which], out)
        terms = self._subregion_terms(which, [self.changes[b] for b in which])
        if terms is not None:
            deltas += terms
        return deltas

    def _ensure_deltas(self, which):
        which = np.asarray(which, dtype=np.int64)
        missing = which[~self.has_delta[which]]
        for start in range(0, len(missing), self.block):
            chunk = missing[start : start + self.block]
            low, high = int(chunk[0]), int(chunk[-1]) + 1
            if high - low == len(chunk):  # consecutive (the first pass): made in place, not copied
                self._deltas(chunk, out=self.deltas[low:high])
            else:
                self.deltas[chunk] = self._deltas(chunk)
            self.has_delta[chunk] = True

    def update(self, added):
        """Account for the region `added` joining the model."""
        if self._holding is None:  # the candidates holding each attribute (ascending)
            flat = self.combos.ravel()
            order = np.argsort(flat, kind="stable")
            starts = np.searchsorted(flat[order], np.arange(len(self.search.attributes) + 1))
            self._holding = {
                bit: order[starts[bit] : starts[bit + 1]] // self.k
                for bit in range(len(self.search.attributes))
                if starts[bit + 1] > starts[bit]
            }
        # only candidates sharing an attribute with `added` can fall inside it or change
        near = [self._holding[bit] for bit in _bits(added) if bit in self._holding]
        near = np.unique(np.concatenate(near)) if near else np.zeros(0, dtype=np.int64)
        near = near[self.active[near]]
        member = np.zeros(len(self.search.attributes), dtype=bool)
        member[list(_bits(added))] = True
        self.active[near[member[self.combos[near]].all(axis=1)]] = False  # now inside a region of the model
        root = self.model.closure(0)
        if root != self.root:
            self.root = root
            stale = np.flatnonzero(self.active)
        else:
            stale = near[self.active[near]]  # ascending, as a scan of every candidate
        self._refresh(stale)

    def best(self, n, floor=None):
        """The best candidate as ``(mask, changes, log_likelihood, df)``, or None.

        With cached deltas, candidates are scored exactly in the order of an
        upper bound and only while the bound can still beat the best exact
        score: the conditional log-likelihood is concave in the scores, so
        ``CLL(s + d) <= CLL(s) + grad CLL(s) . d`` (one matrix-vector product
        for all candidates). The result is the exhaustive search's. With a
        `floor`, when no candidate's log posterior exceeds it, the result is
        only some candidate below it, or None (see :func:`_best_in_pool`).
        """
        screen = self._screened_log_likelihoods if self.search.binary else None
        anchored = (self._ensured_anchored_slopes, self._fresh_slopes) if self._anchored() else None
        found = _best_in_pool(self, n, self._log_likelihoods, self._slopes, floor, screen, anchored)
        if found is None:
            return None
        b, log_likelihood, df = found
        return self.masks[b], self.changes[b], log_likelihood, df

    def _log_likelihoods(self, which):
        self._ensure_deltas(which)
        return self.search.conditional_log_likelihood(self.deltas[which] + self.model.scores)

    def _anchored(self):
        """Whether the bounds come from anchors (:class:`_AnchoredBounds`): a large pool of pairs whose
        Gram slopes keep their anchored tables and whose Gram product is costly (its columns squared
        at least `_ANCHORED_PAIRS` times the candidates: 2-5 states on 200 columns, not 2 or 3; the
        bounds of each candidate at every stage cost more than the product below that, measured)."""
        if self.k != 2:
            return False
        if self._gram is None:
            large = len(self.masks) * math.prod(self.shape) >= _GRAM_POOL_ELEMENTS
            self._gram = (large and _GramSlopes.of(self)) or False
        if not self._gram or not self._gram.keep_phi:
            return False
        return self._gram.rows_major.shape[1] ** 2 >= _ANCHORED_PAIRS * len(self.masks)

    def _ensured_anchored_slopes(self, which, gradient, current):
        """:meth:`_AnchoredBounds._anchored_slopes`, every usable candidate's delta made first (as
        :meth:`_slopes` does: their rounding depends on when they are made)."""
        self._ensure_deltas(which)
        return self._anchored_slopes(which, gradient, current)

    def _fresh_slopes(self, which, gradient, current):
        """``g . d`` of the candidates `which`: the products with their cached deltas when they are a
        few, else every candidate's from the Gram products (:meth:`_slopes`); anchored at this stage."""
        search = self.search
        if len(which) > len(self.masks) // _FEW_DELTAS:
            columns = self._columns_of(gradient)
            everyone = np.arange(len(self.masks))
            own = self._gram.slopes(columns, gradient)
            products = {}
            slopes = _add_subregion_slopes(own.copy(), search, self.combos, self.pattern_changes, gradient, products)
            self._anchor(everyone, own, gradient, current, slopes)
            self._anchor_products[-1].update(products)  # (this stage's anchor)
            return slopes[which]
        # in chunks gathered within the cache (a megabyte), each read once
        chunk = max(1, 2**17 // max(1, math.prod(self.shape)))
        slopes = np.concatenate(
            [_dot(self.deltas[which[i : i + chunk]], gradient) for i in range(0, len(which), chunk)]
        )
        # the own term: the product less the sub-region terms (their rounding far below the tolerance
        # of the bound, as the products' own)
        products = {}
        terms = _add_subregion_slopes(
            np.zeros(len(which)), search, self.combos[which], self.pattern_changes[which], gradient, products
        )
        self._anchor(which, slopes - terms, gradient, current, slopes)
        self._anchor_products[-1].update(products)  # (this stage's anchor)
        return slopes

    def _screened_log_likelihoods(self, which):
        """The conditional log-likelihoods of the candidates `which` (two classes) by a faster
        softplus than :meth:`_RegionSearch.conditional_log_likelihood`'s ``logaddexp`` (a quarter
        of the time), and a bound on their difference from its values.

        Both sums are of the same per-row terms, each within a few units in the last place of the
        exact softplus; their rounding is at most (rows + 64) 2**-52 of the sum of the terms'
        magnitudes: allowed for a hundred times over.
        """
        self._ensure_deltas(which)
        search = self.search
        scores = self.deltas[which] + self.model.scores
        softplus = np.abs(scores)
        np.negative(softplus, out=softplus)
        np.exp(softplus, out=softplus)
        np.log1p(softplus, out=softplus)
        softplus += np.maximum(scores, 0.0)
        total = _dot(softplus, search.row_weights)
        fit = _dot(scores, search._class_weights_t[1])
        errors = (len(search.row_weights) + 64) * 2.0**-46 * (total + np.abs(fit) + 1.0)
        return fit - total, errors

    def _slopes(self, usable, gradient):
        """``grad CLL . d`` of the candidates `usable`: from one-hot Gram products and the sub-region
        terms on a large pool (:class:`_GramSlopes`, an upper bound of the product with the cached
        deltas up to their rounding), else from the cached deltas."""
        # Every usable candidate's delta, as before the Gram slopes: cached deltas are corrected as the
        # model grows, and their rounding (so the exact scores) depends on when they were made.
        self._ensure_deltas(usable)
        if self._gram is None:
            large = len(self.masks) * math.prod(self.shape) >= _GRAM_POOL_ELEMENTS
            self._gram = (large and _GramSlopes.of(self)) or False
        if self._gram:
            search = self.search
            columns = [gradient] if search.binary else [gradient[:, c] for c in range(gradient.shape[1] - 1)]
            slopes = self._gram.slopes(columns, gradient)[usable]
            return _add_subregion_slopes(slopes, search, self.combos[usable], self.pattern_changes[usable], gradient)
        if 2 * len(usable) >= len(self.masks) and self.has_delta.all():
            return _dot(self.deltas, gradient)[usable]
        return np.concatenate(
            [_dot(self.deltas[usable[i : i + self.block]], gradient) for i in range(0, len(usable), self.block)]
        )

    def delta(self, mask):
        b = self.masks.index(mask)
        if self.has_delta[b]:
            return self.deltas[b].copy()
        return self._deltas([b])[0]


def _pattern(mask, t):
    """Sub-region `t` of region `mask` as a pattern: bit ``i`` set when `mask`'s ``i``-th attribute is in `t`."""
    return sum(1 << i for i, bit in enumerate(_bits(mask)) if t >> bit & 1)


def _add_subregion_slopes(slopes, search, combos, changes, gradient, shared=None):
    """`slopes` plus ``sum_T dc_T g . log P(x_T, y)`` over the proper sub-regions ``T`` of each
    candidate (attribute indices `combos`, counting-number changes `changes` over sub-region
    patterns), each distinct sub-region's product computed once (kept in `shared`, a dict of this
    `gradient`'s products, if given)."""
    full = changes.shape[1] - 1
    changes = np.asfortranarray(changes)  # each pattern's column contiguous
    if shared is None:
        shared = {}  # g . log P(x_T, y) of each sub-region T, over all patterns, by its key
    base = len(search.attributes) + 1
    if base ** combos.shape[1] >= 2**62:  # (keys past 64 bits: by the rows of attributes)
        return _add_subregion_slopes_by_rows(slopes, search, combos, changes, gradient, shared)
    for q in range(full):
        dc = changes[:, q]
        moved = np.flatnonzero(dc)
        if len(moved) == 0:
            continue
        # each sub-region's key: its attributes plus one as the digits (base attributes + 1), one
        # column gathered at a time
        keys = np.zeros(len(moved), dtype=np.int64)
        size = 0
        for i, p in enumerate(i for i in range(combos.shape[1]) if q >> i & 1):
            keys += (combos[moved, p] + 1) * base**i
            size = i + 1
        if base**size <= 1 << 24:  # distinct keys by a table of them (no sort)
            present = np.zeros(base**size, dtype=bool)
            present[keys] = True
            distinct = np.flatnonzero(present)
            inverse = (np.cumsum(present) - 1)[keys]
        else:
            distinct, inverse = np.unique(keys, return_inverse=True)
        terms = np.empty(len(distinct))
        for j, key in enumerate(distinct.tolist()):
            value = shared.get(key)
            if value is None:
                mask = 0
                while key:
                    key, digit = divmod(key, base)
                    mask |= 1 << (digit - 1)
                value = shared[int(distinct[j])] = float(_dot(search.log_rows(mask), gradient))
            terms[j] = value
        slopes[moved] += dc[moved] * terms[inverse.ravel()]
    return slopes


def _add_subregion_slopes_by_rows(slopes, search, combos, changes, gradient, shared):
    """:func:`_add_subregion_slopes` for candidates of many attributes (`shared` keyed by mask)."""
    for q in range(changes.shape[1] - 1):
        dc = changes[:, q]
        moved = np.flatnonzero(dc)
        if len(moved) == 0:
            continue
        positions = [i for i in range(combos.shape[1]) if q >> i & 1]
        subregions, inverse = _unique_rows(combos[moved][:, positions], len(search.attributes))
        masks = [sum(1 << int(a) for a in attrs) for attrs in subregions]
        for mask in masks:
            if mask not in shared:
                shared[mask] = float(_dot(search.log_rows(mask), gradient))
        terms = np.array([shared[mask] for mask in masks])
        slopes[moved] += dc[moved] * terms[inverse.ravel()]
    return slopes


def _delta_dfs(search, combos, changes):
    """Change of the conditional degrees of freedom (eq. 7) from adding each candidate (attribute
    indices `combos`, counting-number changes `changes` over sub-region patterns): ``sum_T dc_T
    (classes - 1) prod_{a in T} |X_a|``, exact integers."""
    k = combos.shape[1]
    cards = search.cards[combos.T]  # (attributes, candidates)
    product = np.ones((1 << k, len(combos)), dtype=np.int64)  # joint states of each pattern
    for q in range(1, 1 << k):
        low = (q & -q).bit_length() - 1
        np.multiply(product[q & (q - 1)], cards[low], out=product[q])
    total = np.zeros(len(combos), dtype=np.int64)
    for q in range(1 << k):
        product[q] *= changes[:, q]
        total += product[q]
    return total * (search.n_classes - 1)


def _weighted_gram(rows_major, first, rows, weights, single=None, double=True, end=None):
    """The upper triangle of ``X^T diag(weights) X`` (the lower one zero, Fortran-ordered) for the rows
    `rows` (None: all) of ``X = rows_major[:, first:end]``: BLAS's symmetric rank-k updates of the
    rows of positive and of negative weight scaled by the weights' square roots (a third less time
    than the general product, measured).

    `rows_major` holds zeros and ones, in any dtype (bytes: an eighth of the reads of the rows
    gathered). With `single` (default: a single-precision `rows_major`) the product is in single
    precision (twice as fast), for weights whose products it holds exactly (0 and 1 with fewer than
    2**24 rows: integer counts); the result is double precision unless `double` is False (the
    same integers, half the bytes). Other weights in single precision: see
    :meth:`_GramSlopes._state_allowance` for the rounding.
    """
    from scipy.linalg.blas import dsyrk, ssyrk

    if single is None:
        single = rows_major.dtype == np.float32
    dtype = np.float32 if single else np.float64
    syrk = ssyrk if single else dsyrk
    width = len(range(rows_major.shape[1])[first:end])
    unit = bool(((weights == 0) | (weights == 1)).all())  # counts: no scaling
    root = None if unit else np.sqrt(np.abs(weights)).astype(dtype)
    out = None
    for sign, chosen in ((1.0, weights > 0), (-1.0, weights < 0)):
        if chosen.any():
            picked = np.flatnonzero(chosen) if rows is None else rows[chosen]
            block = rows_major[picked, first:end]  # whole rows: contiguous reads (a copy)
            if block.dtype != dtype:
                block = block.astype(dtype)
            if root is not None:  # (in place: a fifth faster than the product of mixed types)
                block *= root[chosen][:, None]
            # (rows, columns) C-ordered: its transpose is the Fortran-ordered matrix syrk reads
            # without a copy (trans=0: block.T @ block)
            out = syrk(sign, block.T, trans=0, c=out, beta=0.0 if out is None else 1.0, overwrite_c=True)
    if out is None:
        return np.zeros((width, width), order="F", dtype=np.float64 if double else dtype)
    return out.astype(np.float64) if single and double else out


def _lexicographic_rank(combos, n):
    """Rank of each row of `combos` (ascending attribute indices) among all ``len(row)``-subsets of
    ``range(n)`` in :func:`itertools.combinations` order."""
    k = combos.shape[1]
    binomial = np.array([[math.comb(m, j) for j in range(k + 1)] for m in range(n + 1)], dtype=np.int64)
    rank = np.zeros(len(combos), dtype=np.int64)
    previous = np.full(len(combos), -1, dtype=np.int64)
    for i in range(k):
        # the subsets with this prefix and an i-th attribute between the previous one and this one
        rank += binomial[n - previous - 1, k - i] - binomial[n - combos[:, i], k - i]
        previous = combos[:, i]
    return rank


def _unique_rows(rows, n):
    """``np.unique(rows, axis=0, return_inverse=True)`` for rows of attribute indices below `n`: by
    one integer key per row, without sorting rows of a wide pool (a lookup table when small)."""
    keys = np.zeros(len(rows), dtype=np.int64)
    for column in rows.T:
        keys = keys * n + column
    if n ** rows.shape[1] <= 1 << 24:
        present = np.zeros(n ** rows.shape[1], dtype=bool)
        present[keys] = True
        distinct = np.flatnonzero(present)
        rank = np.cumsum(present) - 1
        inverse = rank[keys]
    else:
        distinct, inverse = np.unique(keys, return_inverse=True)
    out = np.empty((len(distinct), rows.shape[1]), dtype=rows.dtype)
    for i in range(rows.shape[1] - 1, -1, -1):
        out[:, i] = distinct % n
        distinct = distinct // n
    return out, inverse


def _combinations(n, k):
    """All ``k``-subsets of ``range(n)``, one per row of an int array, in
    :func:`itertools.combinations` order (lexicographic)."""
    out = np.arange(n, dtype=np.int64)[:, None] if k else np.zeros((1, 0), dtype=np.int64)
    for _ in range(k - 1):
        last = out[:, -1]
        counts = n - 1 - last  # values that can follow each row's last
        rows = np.repeat(np.arange(len(out)), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        following = np.arange(len(rows)) - starts + np.repeat(last + 1, counts)
        out = np.column_stack([out[rows], following])
    return out


@functools.cache
def _projection(cards, pattern):
    """For each cell of a region with attributes of `cards` states (mixed radix, the first most
    significant), its cell in the sub-region of the attributes in bit-pattern `pattern`."""
    states = np.indices(cards).reshape(len(cards), -1)
    positions = [i for i in range(len(cards)) if pattern >> i & 1]
    if not positions:
        return np.zeros(states.shape[1], dtype=np.int64)
    return np.ravel_multi_index(states[positions], [cards[i] for i in positions])


class _GroupCells(NamedTuple):
    """Cells of one group of a :class:`_WidePool` (candidates sharing all attributes but the last)."""

    codes: np.ndarray  # cell of each (last attribute, row outside its common state)
    picks: Any  # which of the pool's sparse rows those are (a slice or an index array)
    prefix_code: np.ndarray  # (rows,) joint state of the shared attributes
    prefix_states: int
    widths: np.ndarray  # states of each last attribute
    offsets: np.ndarray  # first column of each last attribute
    width: int
    common: np.ndarray  # column of each last attribute's common state


class _WidePool(_VectorChanges, _AnchoredBounds):
    """All regions of one size, as arrays, for pools too large to cache score deltas.

    Candidates are the rows of an (candidates, attributes) array of attribute
    indices, in :func:`itertools.combinations` order, and their counting-number
    changes an (candidates, 2**attributes) array over sub-region patterns
    (bit ``i`` of a pattern: the candidate's ``i``-th attribute is in the
    sub-region), so no Python object is built per candidate.

    :meth:`best` bounds every candidate by ``CLL(s) + g . d`` (``g`` the
    gradient of the conditional log-likelihood at the model's scores, ``d``
    the candidate's score change) without forming ``d``: ``d`` is
    ``sum_T dc_T log P(x_T, y)`` over sub-regions ``T``, and
    ``g . log P(x_T, y) = sum_cells G_T(cell) log P_T(cell)`` with ``G_T``
    the gradient summed over the rows of each cell of ``T``. The candidate's
    own term needs its cell table (candidates sharing all attributes but the
    last are counted together, see :meth:`_cells`); the terms of its proper
    sub-regions (only regions the model covers have ``dc_T != 0``) are computed
    once per pass and shared. Then candidates are scored exactly in the order
    of their bound, as in :class:`_CandidatePool`, each from its table of score
    changes over its own cells (:class:`_StageScores`), not from rows of deltas.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.
    """

    def __init__(self, search, model, n_in_region, max_cells):
        self.search, self.model = search, model
        n_attributes = len(search.attributes)
        combos = _combinations(n_attributes, n_in_region)
        # Float products: no integer overflow; those above 2**53 exceed any max_cells anyway.
        cells = search.cards[combos].astype(np.float64).prod(axis=1) * search.n_classes
        keep = cells <= max_cells
        for region in model.maximal:
            if len(_bits(region)) >= n_in_region:
                keep &= ~self._membership(region)[combos].all(axis=1)
        self.combos = combos[keep]
        n_candidates, k = self.combos.shape
        self.k = k
        self.active = np.ones(n_candidates, dtype=bool)
        self.stale = np.ones(n_candidates, dtype=bool)  # changes to recompute
        self.changes = np.zeros((n_candidates, 1 << k), dtype=np.int32)
        self._change_rows = self.changes  # (the same array, changed in place)
        self.delta_dfs = np.zeros(n_candidates)
        self.root = model.closure(0)
        # Candidates holding each attribute: after a region is added, only those sharing one change.
        flat = self.combos.ravel()
        # (attribute indices of 16 bits sorted by radix: the same stable order, a third of the time)
        order = np.argsort(flat.astype(np.int16) if n_attributes < 2**15 else flat, kind="stable")
        counts = np.bincount(self.combos.ravel(), minlength=n_attributes)
        self._holding = np.split((order // k).astype(np.int32), np.cumsum(counts)[:-1])
        # Patterns, largest first (as _containing_submasks).
        self._patterns = sorted(range(1 << k), key=lambda q: -bin(q).count("1"))
        self._groups()
        n_rows = len(search.x)
        self.shape = (n_rows,) if search.binary else (n_rows, search.n_classes)
        self.block = max(1, _BLOCK_ELEMENTS // max(1, math.prod(self.shape)))
        # Log tables of the candidates' own cells are fixed for the whole search: kept, in single
        # precision, if they fit (the bound then allows for their rounding, see _own_slopes).
        self._keep_tables = self._n_cells * (search.n_classes - 1) * 4 <= _POOL_BYTES
        self._tables = [None] * len(self._group_starts)
        self._largest_log_p = self._largest_reference = 0.0
        self._last = None
        self._stage = None
        self._plan = self._subset_plan()
        self._gram = None  # a _GramSlopes when it applies (False when not), made at the first bound
        self._phi = None
        # Class weights and log tables of the candidates' own cells, fixed for the search: kept once
        # scored, up to a quarter of the pool budget (candidates near the top are scored exactly
        # stage after stage).
        self._own, self._own_bytes = {}, 0
        # Anchored bounds (three attributes, Gram slopes): each candidate's own slope at the stage it
        # was last computed (its anchor), its whole slope there with the sub-region terms of its
        # current changes (unless `_anchor_moved`), and each anchor's scores, gradient and
        # log-likelihood.
        self._anchor_of = self._anchor_own = self._anchor_slopes = self._anchor_moved = None
        self._anchors = []
        self._anchor_products = []

    def _membership(self, mask):
        member = np.zeros(len(self.search.attributes), dtype=bool)
        member[list(_bits(mask))] = True
        return member

    # ------------------------------------------------------------- changes
    def update(self, added):
        """Account for the region `added` joining the model."""
        bits = _bits(added)
        if len(bits) >= self.k:
            # A candidate inside `added` holds its first attribute among those of `added`.
            first = np.concatenate([self._holding[b] for b in bits])
            first = first[np.isin(self.combos[first, 0], bits)]
            inside = first[self._membership(added)[self.combos[first]].all(axis=1)]
            self.active[inside] = False
        root = self.model.closure(0)
        if root != self.root:
            self.root = root
            self.stale[:] = True
        else:
            for bit in bits:
                self.stale[self._holding[bit]] = True

    def _refresh(self):
        """Recompute the counting-number changes of stale active candidates (see :meth:`_Model.changes`)."""
        which = np.flatnonzero(self.stale & self.active)
        self.stale[:] = False
        if len(which) == 0:
            return
        model, k = self.model, self.k
        full = (1 << k) - 1
        touched = 0
        for region in model.maximal:
            touched |= region
        # A candidate sharing no attribute with the model: {S: +1, class: -1}.
        combos = self.combos[which]
        member = self._membership(touched)
        hit = member[combos[:, 0]]
        for column in range(1, k):
            hit |= member[combos[:, column]]
        rows = np.zeros((len(which), full + 1), dtype=self.changes.dtype)
        rows[~hit, full] = 1
        rows[~hit, 0] = -1
        # (patterns x candidates) arrays of a chunk; the model's keyed tables made once
        chunk = max(1, _BLOCK_ELEMENTS // (8 << k))
        general = np.flatnonzero(hit)
        tables = self._model_tables() if len(general) else None
        for start in range(0, len(general), chunk):
            part = general[start : start + chunk]
            rows[part] = self._general_changes(combos[part], tables)
        # only the candidates whose changes differ: their degrees of freedom, and their sub-region
        # terms at their anchors to compute again (rows compared as whole 8-byte words where they fit)
        old = self.changes[which]
        if rows.dtype.itemsize * rows.shape[1] % 8 == 0:
            unequal = rows.view(np.int64) != old.view(np.int64)
        else:
            unequal = rows != old
        differ = unequal[:, 0].copy()
        for column in range(1, unequal.shape[1]):
            differ |= unequal[:, column]
        if differ.all():  # (the first refresh: every candidate, none gathered again)
            changed = which
            if len(which) == len(self.changes):
                which = slice(None)
            self.changes[which] = rows
            self.delta_dfs[which] = _delta_dfs(self.search, combos, rows)
        else:
            changed = which[differ]
            rows = rows[differ]
            self.changes[changed] = rows
            self.delta_dfs[changed] = _delta_dfs(self.search, combos[differ], rows)
        if self._anchor_of is not None:
            self._anchor_moved[changed] = True

    def _changes_dict(self, b):
        return {self._mask(b, q): int(dc) for q, dc in enumerate(self.changes[b]) if dc}

    # --------------------------------------------------------------- slopes
    def _groups(self):
        """Candidates sharing all attributes but the last, contiguous in combination order."""
        combos, k = self.combos, self.k
        n = len(combos)
        if k > 1 and n:
            new_prefix = np.any(combos[1:, :-1] != combos[:-1, :-1], axis=1)
            starts = np.concatenate([[0], np.flatnonzero(new_prefix) + 1])
        else:
            starts = np.zeros(min(n, 1), dtype=np.int64)
        self._group_starts = starts
        self._group_ends = np.append(starts[1:], n)
        self._group_of = np.repeat(np.arange(len(starts)), self._group_ends - starts)
        self._n_cells = int(self.search.cards[combos].prod(axis=1).sum()) if n else 0
        search = self.search
        x = search.x
        # Attribute a's states are numbered from _state_offsets[a] in one run over all attributes.
        self._state_offsets = np.cumsum(search.cards) - search.cards
        # The rows of each attribute outside its most common state, attribute after attribute: the
        # common state's cells are the prefix's totals minus the other cells, so its rows are
        # never counted (a half to three quarters of the rows for binary attributes).
        self._common = search.common
        attribute, rows = np.nonzero((x != self._common).T)
        self._sparse_rows = rows
        self._sparse_codes = self._state_offsets[attribute] + x[rows, attribute]
        self._sparse_starts = np.concatenate([[0], np.cumsum(np.bincount(attribute, minlength=x.shape[1]))])
        self._sparse_class_weights = [w[rows] for w in search._class_weights_t]

    def _cells(self, j):
        """Where group `j`'s rows fall: the cells, in the group's (prefix states, sum of the last
        attributes' states) table, of the rows outside each last attribute's common state, and
        the table's layout."""
        search = self.search
        start, end = self._group_starts[j], self._group_ends[j]
        prefix = self.combos[start, :-1]
        prefix_code = np.zeros(len(search.x), dtype=np.int64)
        for a in prefix:
            prefix_code *= search.cards[a]
            prefix_code += search._columns[a]  # contiguous, not a strided column of x
        prefix_states = int(np.prod(search.cards[prefix])) if len(prefix) else 1
        lasts = self.combos[start:end, -1]
        first, last = int(lasts[0]), int(lasts[-1])
        widths = search.cards[lasts]
        offsets = np.cumsum(widths) - widths
        width = int(widths.sum())
        # Per row, not per (attribute, row): the prefix's first column in the group's table.
        row_start = prefix_code * width
        if last - first == len(lasts) - 1:  # consecutive attributes: one run of the sparse rows
            picks = slice(self._sparse_starts[first], self._sparse_starts[last + 1])
            row_start -= self._state_offsets[first]
            codes = row_start[self._sparse_rows[picks]]
            codes += self._sparse_codes[picks]
        else:
            counts = self._sparse_starts[lasts + 1] - self._sparse_starts[lasts]
            picks = np.concatenate([np.arange(self._sparse_starts[a], self._sparse_starts[a + 1]) for a in lasts])
            local = self._sparse_codes[picks] + np.repeat(offsets - self._state_offsets[lasts], counts)
            codes = row_start[self._sparse_rows[picks]] + local
        return _GroupCells(
            codes, picks, prefix_code, prefix_states, widths, offsets, width, offsets + self._common[lasts]
        )

    def _tally(self, cells, sparse_weights, weights):
        """Sums of the row weights over the group's cells, (prefix states, width)."""
        table = np.bincount(
            cells.codes, weights=sparse_weights[cells.picks], minlength=cells.prefix_states * cells.width
        )
        table = table.reshape(cells.prefix_states, cells.width)
        totals = np.bincount(cells.prefix_code, weights=weights, minlength=cells.prefix_states)
        # the common states' columns are still zero
        table[:, cells.common] = totals[:, None] - np.add.reduceat(table, cells.offsets, axis=1)
        return table

    def _log_table(self, cells):
        """``log P(cell, y) - log P(cell, y_last)`` of one group's cells for every class ``y`` but the
        last, (classes - 1, cells); and ``max |log P(cell, y_last)|``.

        The gradient's class columns sum to zero on every row (eq. 8's softmax), so
        ``sum_y G_y log P_y = sum_{y < last} G_y (log P_y - log P_last)``: one bincount fewer per
        group, and the normalizer cancels. For two classes this is the evaluation space.
        """
        search = self.search
        # Eq. (4): alpha = vartheta / (cells of the region, class included), per candidate's columns.
        alpha = np.repeat(search.prior_strength / (cells.prefix_states * cells.widths * search.n_classes), cells.widths)
        log_p = [
            np.log(np.maximum(self._tally(cells, sparse, weights), 0.0) + alpha).ravel()
            for sparse, weights in zip(self._sparse_class_weights, search._class_weights_t)
        ]
        if search.binary:
            return (log_p[1] - log_p[0])[None, :], 0.0
        reference = log_p[-1]
        largest = float(np.abs(reference - math.log(search.total + search.prior_strength)).max())
        return np.stack([values - reference for values in log_p[:-1]]), largest

    def _own_slopes(self, which, gradient):
        """``g . log P(x_S, y)`` of the candidates `which` (sorted), from their cell tables."""
        search = self.search
        columns = [gradient] if search.binary else [gradient[:, c] for c in range(gradient.shape[1] - 1)]
        if self._plan is not None:
            return self._subset_slopes(columns, gradient)[which]
        if self._gram is None:
            self._gram = _GramSlopes.of(self) or False
        if self._gram:
            return self._gram.slopes(columns, gradient)[which]
        sparse_columns = [column[self._sparse_rows] for column in columns]
        out = np.empty(len(self.combos))
        for j in np.unique(self._group_of[which]):
            cells = self._cells(j)
            table = self._tables[j]
            if table is None:
                table, largest = self._log_table(cells)
                self._largest_reference = max(self._largest_reference, largest)
                if self._keep_tables:
                    table = table.astype(np.float32)
                    self._tables[j] = table
                    self._largest_log_p = max(self._largest_log_p, float(np.abs(table).max()))
            total = np.zeros(cells.prefix_states * cells.width)
            for column, sparse, log_p in zip(columns, sparse_columns, table):
                total += self._tally(cells, sparse, column).ravel() * log_p
            per_column = total.reshape(cells.prefix_states, cells.width).sum(axis=0)
            out[self._group_starts[j] : self._group_ends[j]] = np.add.reduceat(per_column, cells.offsets)
        # Single-precision tables move each entry by at most 2**-24 of it, so each slope by at most
        # 2**-24 max|table| sum|g|; and the gradient's rows sum to zero only up to rounding.
        # Both allowed for, the bound stays an upper bound.
        rounding = 2.0**-24 * self._largest_log_p * sum(float(np.abs(column).sum()) for column in columns)
        if not search.binary:
            rounding += self._largest_reference * float(np.abs(gradient.sum(axis=1)).sum())
        return out[which] + rounding

    def _subset_plan(self):
        """Where each row falls in the tallies of every attribute subset of up to ``k`` attributes,
        counting only rows outside the common state of every attribute of the subset; None when
        those entries (``sum_rows C(attributes outside their common state, j)``) would be many.

        Per size ``j``: the entries' flat index in a (attributes,)*j + (states - 1,)*j array
        (attributes ascending, each state numbered without the common one), their rows, and the
        array's size.
        """
        search, k = self.search, self.k
        n_attributes = len(search.attributes)
        others = int(search.cards.max()) - 1
        per_row = np.bincount(self._sparse_rows, minlength=len(search.x))
        rows_holding = np.bincount(per_row)  # rows with n attributes outside their common state
        entries = sum(int(r) * math.comb(n, j) for n, r in enumerate(rows_holding) for j in range(1, k + 1))
        if not len(self.combos) or entries > _SUBSET_ENTRIES or (n_attributes * max(others, 1)) ** k > _SUBSET_ENTRIES:
            return None
        attribute = np.repeat(np.arange(n_attributes), np.diff(self._sparse_starts))
        state = search.x[self._sparse_rows, attribute]
        state = state - (state > self._common[attribute])  # the common state skipped
        order = np.lexsort((attribute, self._sparse_rows))  # row after row, attributes ascending
        attribute, state = attribute[order], state[order]
        first = np.cumsum(per_row) - per_row
        plan = []
        for j in range(1, k + 1):
            index, rows = [], []
            for n in np.unique(per_row[per_row >= j]):
                holding = np.flatnonzero(per_row == n)
                at = first[holding][:, None, None] + _combinations(int(n), j)[None]  # (rows, subsets, j)
                key = np.zeros(at.shape[:2], dtype=np.int64)
                for t in range(j):
                    key = key * n_attributes + attribute[at[..., t]]
                for t in range(j):
                    key = key * others + state[at[..., t]]
                index.append(key.ravel())
                rows.append(np.repeat(holding, at.shape[1]))
            none = [np.zeros(0, dtype=np.int64)]  # no row has j attributes outside their common states
            plan.append((np.concatenate(index or none), np.concatenate(rows or none), (n_attributes * others) ** j))
        return plan

    def _subset_tallies(self, column):
        """Sums of `column` (rows,) over all rows, then over the cells of every subset of up to ``k``
        attributes outside their common states (the layout of :meth:`_subset_plan`), one array."""
        parts = [np.array([column.sum()])]
        parts += [np.bincount(index, weights=column[rows], minlength=size) for index, rows, size in self._plan]
        return np.concatenate(parts)

    def _anchored_tables(self):
        """Each candidate's log table as an anchored sum over its attribute subsets (differences
        from the common states along every attribute), (classes - 1, cells of all candidates), and
        where each cell's term sits in :meth:`_subset_tallies`, (cells of all candidates,).

        ``log P(s) = sum_{U <= attributes of s outside their common state} phi_U(s_U)``, so
        ``sum_rows g log P(cell) = sum_U sum_{s_U} phi_U(s_U) G_U(s_U)`` with ``G_U`` the sums of
        ``g`` over the rows with ``s_U``: the tallies of rows outside the common states only.
        """
        search, k = self.search, self.k
        n_attributes = len(search.attributes)
        others = int(search.cards.max()) - 1
        sizes = [1] + [size for _, _, size in self._plan]
        starts = np.cumsum(sizes) - sizes
        phi, where = [], []
        for j in range(len(self._group_starts)):
            cells = self._cells(j)
            table, largest = self._log_table(cells)
            self._largest_reference = max(self._largest_reference, largest)
            table = table.reshape(len(table), cells.prefix_states, cells.width)
            for i, b in enumerate(range(self._group_starts[j], self._group_ends[j])):
                combo = self.combos[b]
                cards = tuple(int(c) for c in search.cards[combo])
                t = table[:, :, cells.offsets[i] : cells.offsets[i] + cards[-1]].reshape((len(table),) + cards)
                common = self._common[combo]
                for axis in range(k):
                    anchor = np.take(t, [common[axis]], axis=1 + axis)
                    t = t - anchor
                    t[(slice(None),) * (1 + axis) + (common[axis],)] = anchor.squeeze(1 + axis)
                phi.append(t.reshape(len(table), -1))
                states = np.indices(cards).reshape(k, -1)
                outside = states != common[:, None]
                size = outside.sum(axis=0)
                key_a = np.zeros(states.shape[1], dtype=np.int64)
                key_s = np.zeros(states.shape[1], dtype=np.int64)
                for t_ in range(k):
                    skipped = states[t_] - (states[t_] > common[t_])
                    key_a = np.where(outside[t_], key_a * n_attributes + combo[t_], key_a)
                    key_s = np.where(outside[t_], key_s * others + skipped, key_s)
                where.append(starts[size] + key_a * others**size + key_s)
        return np.concatenate(phi, axis=1), np.concatenate(where)

    def _subset_slopes(self, columns, gradient):
        """``g . log P(x_S, y)`` of every candidate from the subset tallies (see :meth:`_anchored_tables`)."""
        if self._phi is None:
            self._phi = self._anchored_tables()
            self._cell_starts = np.concatenate([[0], np.cumsum(self.search.cards[self.combos].prod(axis=1))[:-1]])
            self._largest_phi = float(np.abs(self._phi[0]).max())
        phi, where = self._phi
        total = np.zeros(len(where))
        for column, values in zip(columns, phi):
            total += values * self._subset_tallies(column)[where]
        out = np.add.reduceat(total, self._cell_starts)
        # The anchored sums add and cancel up to 2**k terms of each cell in double precision: an
        # allowance far above their rounding; and the gradient's rows sum to zero only up to rounding.
        scale = sum(float(np.abs(column).sum()) for column in columns)
        rounding = 2.0**-40 * self._largest_phi * scale * len(where) / max(1, len(self.combos))
        if not self.search.binary:
            rounding += self._largest_reference * float(np.abs(gradient.sum(axis=1)).sum())
        return out + rounding

    def _slopes(self, which, gradient):
        """``g . d`` of the candidates `which`: own cell-table terms plus shared sub-region terms."""
        slopes = self._own_slopes(which, gradient)
        return _add_subregion_slopes(slopes, self.search, self.combos[which], self.changes[which], gradient)

    def _anchored(self):
        """Whether the bounds come from anchors (:meth:`_anchored_slopes`): three attributes whose Gram
        slopes keep their anchored tables, with at least `_ANCHORED_COLUMNS` columns an attribute (on
        binary attributes a whole pass costs less than the anchored bounds, measured)."""
        if self.k != 3 or self._plan is not None:
            return False
        if self._gram is None:
            self._gram = _GramSlopes.of(self) or False
        if not self._gram or not self._gram.keep_phi:
            return False
        return self._gram.rows_major.shape[1] >= _ANCHORED_COLUMNS * len(self._gram.cards)

    def _fresh_slopes(self, which, gradient, current):
        """``g . d`` of the candidates `which` (:meth:`_slopes`), their own terms from the Gram rows they
        need only; anchored at this stage."""
        own, others, their_own = self._gram.candidate_slopes(self._columns_of(gradient), gradient, self.combos[which])
        products = {}
        slopes = _add_subregion_slopes(
            own.copy(), self.search, self.combos[which], self.changes[which], gradient, products
        )
        self._anchor(others, their_own, gradient, current)
        self._anchor(which, own, gradient, current, slopes)
        self._anchor_products[-1].update(products)  # (this stage's anchor)
        return slopes

    # -------------------------------------------------------------- scoring
    def _deltas(self, which):
        """Score changes ``sum_T dc_T log P(x_T, y)`` of the candidates `which`, (candidates, rows[, classes])."""
        search = self.search
        deltas = search.batch_log_rows([self._mask(b) for b in which])
        for i, b in enumerate(which):
            for dc, q in self._moved(b):
                deltas[i] += dc * search.log_rows(self._mask(b, q))
        return deltas

    def _moved(self, b):
        """``(dc, pattern)`` of candidate `b`'s proper sub-regions whose counting numbers change."""
        return [(int(dc), q) for q, dc in enumerate(self.changes[b, :-1]) if dc]

    def _log_likelihoods(self, which):
        """Conditional log-likelihoods of the candidates `which` from their cell tables (see
        :class:`_StageScores`): ``D = sum_T dc_T log P_T`` over the candidate's cells, the sum
        :meth:`_deltas` forms per row, in the same order (so the same values)."""
        search = self.search
        if self._stage is None:
            self._stage = _StageScores(search, self.model.scores)
        combos = self.combos[which]
        code, cells = search.region_codes(combos)
        own = [self._own.get(b) for b in which]
        missing = [i for i, entry in enumerate(own) if entry is None]
        if missing:
            # their cells numbered after one another's, not after those of all `which`
            ends = np.cumsum(cells[missing])
            renumber = ends - cells[missing] - (np.cumsum(cells) - cells)[missing]
            counts, tables = search.log_tables(code[missing] + renumber[:, None], cells[missing])
            for i, start, end in zip(missing, ends - cells[missing], ends):
                own[i] = (counts[start:end], tables[start:end])
                if self._own_bytes <= _POOL_BYTES // 4:
                    self._own[which[i]] = own[i]
                    self._own_bytes += counts[start:end].nbytes + tables[start:end].nbytes
        counts = np.concatenate([entry[0] for entry in own])
        tables = []
        for i, b in enumerate(which):
            cards = tuple(int(c) for c in search.cards[combos[i]])
            table = own[i][1]
            for dc, q in self._moved(b):
                table = table + dc * search.log_table(self._mask(b, q))[_projection(cards, q)]
            tables.append(table)
        out = self._stage.log_likelihoods(code, counts, np.concatenate(tables), cells)
        for i in np.flatnonzero(np.isnan(out)):
            out[i] = search.conditional_log_likelihood(self._deltas([which[i]])[0] + self.model.scores)
        return out

    def best(self, n, floor=None):
        """The best candidate as ``(mask, changes, log_likelihood, df)``, or None (see
        :meth:`_CandidatePool.best`; the same bound, computed from cell tables)."""
        self._refresh()
        self._stage = None
        anchored = (self._anchored_slopes, self._fresh_slopes) if self._anchored() else None
        found = _best_in_pool(self, n, self._log_likelihoods, self._slopes, floor, anchored=anchored)
        if found is None:
            return None
        b, log_likelihood, df = found
        self._last = b
        return self._mask(b), self._changes_dict(b), log_likelihood, df

    def delta(self, mask):
        b = self._last
        if b is None or self._mask(b) != mask:
            raise ValueError(f"region {mask} was not the last best candidate of this pool.")
        return self._deltas([b])[0]


class _GramSlopes:
    """The bound slopes ``g . log P(x_S, y)`` of every candidate of a pool of two or three attributes,
    from one-hot Gram products instead of one tally per group of candidates.

    For a candidate ``S = {a, b, c}``, ``sum_rows g log P_S(cell) = sum_cells G_S(cell) log P_S(cell)``
    with ``G_S`` the sums of ``g`` over the rows of each cell; for every ``b < c`` at once, the rows
    in state ``i`` of ``a`` give them as the weighted Gram matrix ``X_i^T diag(g) X_i`` of the
    one-hot columns ``X`` of the attributes after ``a`` (block ``(b, c)``: the ``(b, c)`` table in
    ``a = i``); pairs are one such product over all rows.

    Anchored at each attribute's most common state, as :meth:`_WidePool._anchored_tables`: each
    candidate's log table is written, once per search, as ``phi`` over the cells where every
    attribute is either in another state or summed over (``*``), ``sum_cells G log P = sum phi .
    G*``, and those sums ``G*`` are the products of the rows outside ``a``'s common state (``a =
    *``: all rows, one product shared by every ``a``) with the other states' columns and a column
    of ones (``*``): a third of the rows and half the columns fewer for ternary attributes. The
    candidates' class-weight tables come from the same products (the common states' counts as
    the marginal minus the others').

    ``phi`` is kept in the layout of the Gram matrices (transposed: C-ordered, the entries of
    ``b < c`` below the diagonal), so that a bound pass is, per first attribute, one product per
    other state and elementwise products with ``phi`` summed over the states, then summed over
    each attribute's columns: no gather of packed entries. Per first attribute and class column,
    ``phi`` is four arrays with a leading axis over the states of ``a``: ``(xc, xb)`` both other
    states (reduced columns x reduced columns), ``(c, xb)`` with ``c = *`` (attributes x reduced
    columns), ``(xc, b)`` with ``b = *`` (reduced columns x attributes) and ``(c, b)`` both ``*``
    (attributes x attributes), zero outside ``b < c``.
    """

    def __init__(self, pool, keep_phi):
        # scipy's BLAS loaded before one_blas_thread first looks for the libraries to limit (else its
        # first products run on every core's thread, and spin)
        import scipy.linalg.blas  # noqa: F401

        search = pool.search
        self.search, self.k = search, pool.k
        n = len(search.cards)
        x = search.x
        self.order = self.product_order(search, self.k)
        cards = search.cards[self.order]
        self.n, self.cards, self.common = n, cards, search.common[self.order]
        self.reduced_offsets = np.concatenate([[0], np.cumsum(cards - 1)])
        x = x[:, self.order]
        outside = x != self.common
        rank = x - (x > self.common)
        # the other states' one-hot columns, attribute after attribute, then one column of ones; row
        # by row, so that the rows of a state are gathered by contiguous reads
        self.rows_major = np.zeros((len(x), int(self.reduced_offsets[-1]) + 1))
        rows, attributes = np.nonzero(outside)
        self.rows_major[rows, self.reduced_offsets[attributes] + rank[rows, attributes]] = 1.0
        self.rows_major[:, -1] = 1.0
        self.rows_major_bytes = self.rows_major.astype(np.uint8)  # the same, gathered at an eighth of the reads
        # and column by column: a few columns of many rows gathered by contiguous reads
        self.columns_major_bytes = np.ascontiguousarray(self.rows_major_bytes.T)
        self.attribute_of = np.repeat(np.arange(n), cards - 1)  # each reduced column's attribute
        self.unit = bool((cards == 2).all())  # one reduced column per attribute: no sums over columns
        # the rows in each state of each attribute (the first attributes of three)
        self.state_rows = {}
        if self.k == 3:
            for a in range(n):
                self.state_rows[a] = [np.flatnonzero(x[:, a] == s) for s in range(int(cards[a]))]
        self.keep_phi = keep_phi
        # The products of a first attribute's other states (pairs: of all rows) with the gradient in
        # single precision (see _state_allowance): where the cells' distinct rows are at most their
        # class weights' sums (every nonzero weight at least 1), fewer than 2**20 rows.
        self.single_states = bool(self.k in (2, 3) and len(x) < 2**20 and (search._entries[2] >= 1).all())
        self._kappa = None  # per class column and candidate (products' order): see _state_allowance
        self._phi = None
        self._offsets_plans = {}
        self._runs_cache = {}
        self._bands_cache = {}
        self._pairs_cache = {}
        self._scale = 0.0  # largest |phi|, for the rounding allowance
        self._largest_reference = 0.0
        # most terms of one candidate's slope: its cells (the largest cardinalities' product)
        self._terms = math.prod(sorted((int(c) for c in cards), reverse=True)[: self.k])
        # each candidate's place among all k-sets of the products' order, lexicographic (None: they are
        # all there, in that order)
        position = np.empty(n, dtype=np.int64)
        position[self.order] = np.arange(n)
        same = (self.order == np.arange(n)).all() and len(pool.combos) == math.comb(n, self.k)
        self._place = None if same else _lexicographic_rank(np.sort(position[pool.combos], axis=1), n)
        # the pool's index of each candidate in the products' order (-1: not in the pool)
        self._pool_index = np.full(math.comb(n, self.k), -1, dtype=np.int64)
        self._pool_index[slice(None) if self._place is None else self._place] = np.arange(len(pool.combos))

    @staticmethod
    def product_order(search, k):
        """The attributes in the order of the products. Three-attribute candidates are grouped by their
        first attribute, whose products cost (rows outside its common state) x (columns after it)^2:
        those with fewer such rows per column of their own come first (a fifth fewer operations for
        2-5 states; the same order for equal cardinalities). Each candidate is then the sorted
        positions of its attributes."""
        if k != 3:
            return np.arange(len(search.cards))
        outside_rows = (search.x != search.common).sum(axis=0).astype(np.float64)
        own_columns = (search.cards - 1).astype(np.float64)
        ratio = np.full(len(own_columns), np.inf)  # one-state attributes: no product, no column
        np.divide(outside_rows, own_columns, out=ratio, where=own_columns > 0)
        return np.argsort(ratio, kind="stable")

    @staticmethod
    def phi_bytes(search, k):
        """Bytes of the anchored tables of every k-set (single precision, per class column but one)."""
        cards = search.cards[_GramSlopes.product_order(search, k)]
        reduced = np.concatenate([[0], np.cumsum((cards - 1)[::-1])])[::-1]  # reduced columns from each start
        n = len(cards)
        if k == 2:
            per_start = [(int(reduced[0]) + n) ** 2]
        else:
            per_start = [int(cards[a]) * (int(reduced[a + 1]) + n - a - 1) ** 2 for a in range(n - 2)]
        return 4 * (search.n_classes - 1) * sum(per_start)

    @classmethod
    def of(cls, pool):
        """The Gram slopes of `pool`, or None where they do not apply (the group tallies then)."""
        search, k = pool.search, pool.k
        if not _USE_GRAM_SLOPES or k not in (2, 3) or not len(pool.combos):
            return None
        columns = int(search.cards.sum())
        states = int(search.cards.max()) if k == 3 else 1
        if states * columns * columns * 8 > _GRAM_STACK_BYTES:
            return None
        # Every k attributes are laid out, also those the pool left out (covered, or past max_cells):
        # their anchored tables (single precision, one column fewer than the classes) kept if within
        # the pool's budget, else made at every pass.
        return cls(pool, keep_phi=cls.phi_bytes(search, k) <= _POOL_BYTES)

    # ------------------------------------------------------------ layout
    def _starts(self):
        """First attributes (three-attribute candidates) or the single layout (pairs): the start of
        their later attributes, their number of states, and their first candidate."""
        if self.k == 2:
            return [(None, 0, 1, 0)]
        out, first = [], 0
        for a in range(self.n - 2):
            out.append((a, a + 1, int(self.cards[a]), first))
            first += math.comb(self.n - a - 1, 2)
        return out

    def _runs(self, start):
        """Runs of consecutive attributes from `start` on with as many reduced columns each: (first
        attribute, end, first column, columns each), numbered from `start`'s (cached)."""
        runs = self._runs_cache.get(start)
        if runs is None:
            bounds = self.reduced_offsets[start:] - self.reduced_offsets[start]
            widths = np.diff(bounds)
            edges = [0, *(np.flatnonzero(np.diff(widths)) + 1).tolist(), len(widths)]
            runs = [(lo, hi, int(bounds[lo]), int(widths[lo])) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]
            self._runs_cache[start] = runs
        return runs

    def _block_sums(self, values, start, axis):
        """`values` summed over the reduced columns of each attribute from `start` on, along `axis`
        (0 or 1), each attribute's columns added in order."""
        if self.unit:
            return values
        bounds = self.reduced_offsets[start:] - self.reduced_offsets[start]
        shape = list(values.shape)
        shape[axis] = len(bounds) - 1
        if values.shape[axis] == 0:
            return np.zeros(shape)
        runs = self._runs(start)
        if len(runs) <= _SUM_RUNS:  # per run of attributes of as many columns: strided slices added
            out = np.empty(shape)
            index = [slice(None)] * values.ndim
            target = [slice(None)] * values.ndim
            for lo, hi, column, width in runs:
                target[axis] = slice(lo, hi)
                if width == 0:  # attributes of one state: no reduced column
                    out[tuple(target)] = 0.0
                    continue
                end = column + (hi - lo) * width
                index[axis] = slice(column, end, width)
                part = out[tuple(target)]
                part[...] = values[tuple(index)]
                for offset in range(1, width):
                    index[axis] = slice(column + offset, end, width)
                    part += values[tuple(index)]
            return out
        if axis == 1:  # along rows: numpy's segment sums (contiguous)
            out = np.add.reduceat(values, np.minimum(bounds[:-1], values.shape[1] - 1), axis=1)
            out[:, bounds[1:] == bounds[:-1]] = 0.0  # attributes of one state: no reduced column
            return out
        # across rows: each attribute's first, second, ... row added to its sum (whole rows at once;
        # numpy's segment sums across rows are slower)
        plan = self._offsets_plans.get(start)
        if plan is None:
            widths = np.diff(bounds)
            plan = [(np.flatnonzero(widths > o), bounds[:-1][widths > o] + o) for o in range(int(widths.max()))]
            self._offsets_plans[start] = plan
        out = np.zeros(shape)
        for attributes, rows in plan:
            out[attributes] += values[rows]
        return out

    # ------------------------------------------------------------ products
    def _gram(self, weights, start, rows=None, counts=False):
        """``[R, 1]^T diag(w) [R, 1]`` of the reduced columns from `start` and the ones over the rows
        `rows` (None: all), transposed: C-ordered, the lower triangle (see :func:`_weighted_gram`).
        With `counts` (`weights` of 0 and 1), in single precision: the same integers (kept in single
        precision: exact while below 2**24, as every sum and difference of them :meth:`_full_counts`
        forms)."""
        first = int(self.reduced_offsets[start])
        weights = weights if rows is None else weights[rows]
        return _weighted_gram(self.rows_major_bytes, first, rows, weights, single=counts, double=not counts).T

    def _grams(self, weights, start, a, whole):
        """Of each state of `a` (None: all rows; the common state: all rows, the slices of `whole`, the
        transposed product over all rows from the first column): the transposed Gram matrix of the
        reduced columns from `start` (see :meth:`_gram`; its lower triangle read), and its ones row
        and total (each column's weight and the state's), as three lists.

        A state's ones row and total are entries of `whole` (the products with the state's own
        column), in double precision; with :attr:`single_states`, its reduced columns' product is
        in single precision (twice as fast; its rounding allowed for by :meth:`_state_allowance`).
        """
        first = int(self.reduced_offsets[start])
        if isinstance(whole, tuple):  # pairs: (the reduced columns' product, ones row, total)
            return [whole[0]], [whole[1]], [whole[2]]
        if a is None:
            return [whole[first:-1, first:-1]], [whole[-1, first:-1]], [whole[-1, -1]]
        common = int(self.common[a])
        grams, ones, totals = [], [], []
        for state, rows in enumerate(self.state_rows[a]):
            if state == common:
                grams.append(whole[first:-1, first:-1])
                ones.append(whole[-1, first:-1])
                totals.append(whole[-1, -1])
            elif self.single_states:
                own = int(self.reduced_offsets[a]) + state - (state > common)  # the state's column
                grams.append(
                    _weighted_gram(
                        self.rows_major_bytes, first, rows, weights[rows], single=True, double=False, end=-1
                    ).T
                )
                ones.append(whole[first:-1, own])
                totals.append(whole[-1, own])
            else:
                gram = self._gram(weights, start, rows)
                grams.append(gram[:-1, :-1])
                ones.append(gram[-1, :-1])
                totals.append(gram[-1, -1])
        return grams, ones, totals

    # ------------------------------------------------------------ tables
    def _tables(self):
        """Each first attribute's anchored log tables: per class column, the four arrays of phi.

        The (xc, xb) tables, the large ones, are made band after band of rows (every state, class
        and step of a band while it is in the cache), the three smaller arrays whole."""
        from .._threads import one_blas_thread

        search = self.search
        m, theta = search.n_classes, search.prior_strength
        per_class = search._class_weights_t
        binary = search.binary
        reference = math.log(search.total + theta)
        phi = []
        if self.single_states:
            self._kappa = np.zeros((1 if binary else m - 1, math.comb(self.n, self.k)))
        # class weights of 0 and 1 (distinct rows): counts multiplied exactly in single precision
        single = len(search.x) < 2**24 and all(bool(((w == 0) | (w == 1)).all()) for w in per_class)
        # Two classes, one a row, fewer than 4096 rows: both classes' counts in one product of the
        # weights 1 and 4096 (square roots 1 and 64, every product and sum an exact integer below
        # 2**24), ``n0 + 4096 n1`` with ``n0 < 4096``: half the products and count sums.
        packed = None
        if single and binary and search._entry_per_row and len(search.x) < _PACKED_BASE:
            packed = per_class[0] + _PACKED_BASE * per_class[1]

        def class_counts(start, rows=None):
            """Per class, :meth:`_full_counts` of the rows `rows` (None: all) from `start` on."""
            if packed is None:
                return [self._full_counts(self._gram(w, start, rows, counts=single), start) for w in per_class]
            zeros, ones = [], []
            for values in self._full_counts(self._gram(packed, start, rows, counts=True), start):
                one = values * (1.0 / _PACKED_BASE)  # (exact: a power of 2; two arrays made, not four)
                np.floor(one, out=one)
                zero = one * -_PACKED_BASE
                zero += values
                zeros.append(zero)
                ones.append(one)
            return [tuple(zeros), tuple(ones)]

        with one_blas_thread():
            # every pair's counts over all rows, per class: those in a first attribute's common state
            # are these less those in its other states (the counts are linear in the Gram matrix)
            wholes = class_counts(0)
            for a, start, states, first_candidate in self._starts():
                first = int(self.reduced_offsets[start])
                attr = self.attribute_of[first:] - start
                cards = self.cards[start:].astype(np.float64)
                alpha_cc = theta / (states * m * cards[:, None] * cards[None, :])  # (c, b)
                alphas = [alpha_cc[:, attr], alpha_cc[attr, :], alpha_cc]
                width, n_later = len(attr), len(cards)
                common = 0 if a is None else int(self.common[a])
                others = [s for s in range(states) if s != common]
                # per class: the (xc, xb) counts of all rows and of a's other states, and the three
                # smaller (states, ...) arrays of count + alpha, then (but the two classes' odds,
                # whose log is taken once) of their logs
                reduced, smalls = [], []
                state_counts = {state: class_counts(start, self.state_rows[a][state]) for state in others}
                for c, whole in enumerate(wholes):
                    by_state = {}
                    parts = [
                        np.empty((states, n_later, width)),
                        np.empty((states, width, n_later)),
                        np.empty((states, n_later, n_later)),
                    ]
                    for state in others:
                        counts = state_counts[state][c]
                        by_state[state] = counts[0]
                        for part, values in zip(parts, counts[1:]):
                            part[state] = values
                    # a's common state: all rows less its other states
                    for part, values in zip(
                        parts, (whole[1][start:, first:], whole[2][first:, start:], whole[3][start:, start:])
                    ):
                        part[common] = values
                        for state in others:
                            part[common] -= part[state]
                    for part, alpha in zip(parts, alphas):
                        if not single:  # (differences of exact integers are never negative)
                            np.maximum(part, 0.0, out=part)
                        part += alpha
                        if not binary:
                            np.log(part, out=part)
                    reduced.append((whole[0][first:, first:], by_state))
                    smalls.append(parts)
                if binary:  # log((n1 + alpha) / (n0 + alpha)): one log, not two
                    for one, zero in zip(smalls[1], smalls[0]):
                        one /= zero
                        np.log(one, out=one)
                    tables = [smalls[1]]
                else:
                    tables = [[value - last for value, last in zip(values, smalls[-1])] for values in smalls[:-1]]
                    for last in smalls[-1]:
                        largest = max(float(last.max()) - reference, reference - float(last.min()))
                        self._largest_reference = max(self._largest_reference, largest)
                # phi of the smaller arrays (see _anchor), and what the (xc, xb) tables are anchored by
                anchored = []
                for cr, rc, cc in tables:
                    if a is not None:
                        for state in others:
                            for values in (cr, rc, cc):
                                values[state] -= values[common]
                    by_b = rc.copy()  # (xc, b) along a only
                    self._repeat_columns(cr, cc, start, 2, np.subtract)
                    self._repeat_columns(rc, cc, start, 1, np.subtract)
                    for values in (cr, rc, cc):
                        self._scale = max(self._scale, float(values.max()), -float(values.min()))
                    anchored.append((np.zeros((states, width, width), dtype=np.float32), by_b, cr))
                kappas = self._reduced_phi(a, start, states, reduced, anchored, single, alpha_cc, attr)
                if self._kappa is not None:  # each candidate's sum over its cells (see _state_allowance)
                    n_later = self.n - start
                    for kappa, values in zip(self._kappa, kappas):
                        sums = self._block_sums(self._block_sums(values, start, axis=0), start, axis=1)
                        # up by more than the single-precision rounding of these sums of nonnegative
                        # values (at most a candidate's cells' terms, and a few operations each)
                        kappa[first_candidate : first_candidate + math.comb(n_later, 2)] = np.take(
                            sums, self._pairs_at(n_later)
                        ) * (1.0 + (self._terms + 16) * 2.0**-23)
                phi.append(
                    [
                        [rr, cr.astype(np.float32), rc.astype(np.float32), cc.astype(np.float32)]
                        for (rr, _, _), (cr, rc, cc) in zip(anchored, tables)
                    ]
                )
        return phi

    def _reduced_phi(self, a, start, states, reduced, anchored, single, alpha_cc, attr):
        """The (xc, xb) entries of phi (see :meth:`_anchor`) of one first attribute, band after band,
        into the single-precision arrays of `anchored` (with each class column's ``(xc, b)`` and
        ``(c, xb)`` tables to anchor them by); with :attr:`single_states`, per class column the
        (xc, xb) matrix of ``sum_{other states} |phi| N (N + 5)``, ``N`` the sum of the class weights
        of the cell's rows (see :meth:`_state_allowance`), else None."""
        binary = self.search.binary
        reference = math.log(self.search.total + self.search.prior_strength)
        common = 0 if a is None else int(self.common[a])
        others = [s for s in range(states) if s != common]
        bounds = self.reduced_offsets[start:] - self.reduced_offsets[start]
        widths = np.diff(bounds)
        kappas = None
        if self.single_states:
            kappas = [np.zeros((int(bounds[-1]),) * 2, dtype=np.float32) for _ in anchored]
        for low, high in self._bands(start):
            begin, end = self._attributes_below(bounds, low), self._attributes_below(bounds, high)
            alpha = alpha_cc[attr[low:high]][:, attr[:high]]
            logs = []
            for whole, by_state in reduced:
                band = np.empty((states, high - low, high))
                for state in others:
                    if single:  # count + alpha at once (exact integers: never negative)
                        np.add(by_state[state][low:high, :high], alpha, out=band[state])
                    else:
                        band[state] = by_state[state][low:high, :high]
                mine = band[common]  # a's common state: all rows less its other states
                mine[...] = whole[low:high, :high]
                for state in others:
                    mine -= by_state[state][low:high, :high]
                if single:
                    mine += alpha
                else:
                    np.maximum(band, 0.0, out=band)
                    band += alpha
                if not binary:
                    np.log(band, out=band)
                logs.append(band)
            # Entries outside b < c within the band (the diagonal blocks): finite (counts of at least
            # zero), they only reach the sums of pairs b >= c, never read.
            if binary:
                logs[1] /= logs[0]
                np.log(logs[1], out=logs[1])
                tables = [logs[1]]
            else:
                tables = [values - logs[-1] for values in logs[:-1]]
                largest = max(float(logs[-1].max()) - reference, reference - float(logs[-1].min()))
                self._largest_reference = max(self._largest_reference, largest)
            for table, (out, by_b, by_c) in zip(tables, anchored):
                for state in others:  # along a, then b (the columns) and c (the rows)
                    table[state] -= table[common]
                table -= np.repeat(by_b[:, low:high, :end], widths[:end], axis=2)
                table -= np.repeat(by_c[:, begin:end, :high], widths[begin:end], axis=1)
                self._scale = max(self._scale, float(table.max()), -float(table.min()))
                out[:, low:high, :high] = table
            if kappas is not None:  # (in single precision: rounded up in _tables)
                term = np.empty((high - low, high), dtype=np.float32)
                steps = np.float32(states + 2)  # the roundings of the products with phi (_block_totals)
                for state in range(states):
                    rows = None
                    for whole, by_state in reduced:
                        part = (whole if state == common else by_state[state])[low:high, :high]
                        if rows is None:
                            rows = part.astype(np.float32)
                        else:
                            np.add(rows, part, out=rows, casting="unsafe")
                    if state == common and self.k == 3:  # the product over all rows: double precision
                        rows *= steps
                    else:
                        rows *= rows + (np.float32(5.0) + steps)
                    for kappa, (out, _, _) in zip(kappas, anchored):
                        np.abs(out[state, low:high, :high], out=term)
                        term *= rows
                        kappa[low:high, :high] += term
        return kappas

    def _full_counts(self, gram, start):
        """The counts of every cell of each pair ``b < c`` from a transposed Gram matrix of the reduced
        columns from `start` (:meth:`_gram`): ``(xc, xb)``, ``(c's common, xb)``, ``(xc, b's
        common)`` and both common, as the four arrays of phi (a common state's count is its
        attribute's marginal, the ones, minus its other states')."""
        reduced = gram[:-1, :-1]  # (xc, xb): the lower triangle (the upper one zero)
        ones = gram[-1, :-1]  # each reduced column's rows
        total = gram[-1, -1]
        # The whole symmetric matrix summed over each attribute's rows holds at (c, xb) the sums over
        # c's columns (xc) of the lower triangle where b < c, and where c < b those over c's columns
        # (xb) of row xc = xb's transposed: one block sum for both. (Every entry is a count, also in
        # the diagonal blocks, never read: the diagonal once.)
        symmetric = reduced + reduced.T
        symmetric.flat[:: len(symmetric) + 1] = reduced.diagonal()
        sums = self._block_sums(symmetric, start, axis=0)
        by_b = np.ascontiguousarray(sums.T)  # (xc, b): xc with b outside its common state
        both = self._block_sums(by_b, start, axis=0)  # (c, b)
        marginal = self._block_sums(ones, start, axis=0)  # (attributes,): rows outside the common state
        return (
            reduced,
            ones[None, :] - sums,
            ones[:, None] - by_b,
            total - marginal[:, None] - marginal[None, :] + both,
        )

    def _repeat_columns(self, target, source, start, axis, ufunc):
        """``ufunc(target, source)`` in place, each entry of `source` along `axis` (an attribute from
        `start` on) repeated over that attribute's reduced columns."""
        widths = np.diff(self.reduced_offsets[start:])
        ufunc(target, np.repeat(source, widths, axis=axis), out=target)

    @staticmethod
    def _attributes_below(bounds, column):
        """How many attributes (reduced columns from `bounds`) end at or before `column`."""
        return int(np.searchsorted(bounds[1:], column, side="right"))

    def _bands(self, start):
        """``(low, high)`` of the bands of rows of the (width, width) lower triangle of the reduced
        columns from `start`, each computed up to its end (:meth:`_block_totals`); whole attributes
        (cached)."""
        bands = self._bands_cache.get(start)
        if bands is None:
            bounds = self.reduced_offsets[start:] - self.reduced_offsets[start]
            width = int(bounds[-1])
            ends = np.linspace(0, width, 9 if width > 128 else 5 if width > 64 else 2).astype(int)
            ends = np.unique(bounds[np.searchsorted(bounds, ends)])  # at the next attribute's first column
            bands = self._bands_cache[start] = list(zip(ends[:-1].tolist(), ends[1:].tolist()))
        return bands

    def _pairs_at(self, n_later):
        """Flat indices into an (n_later, n_later) (c, b) matrix of its pairs ``b < c`` in combination
        order: ``total.T[np.triu_indices(n_later, 1)]`` is ``np.take(total, ...)`` (cached)."""
        at = self._pairs_cache.get(n_later)
        if at is None:
            b, c = np.triu_indices(n_later, 1)
            at = self._pairs_cache[n_later] = c * n_later + b
        return at

    # ------------------------------------------------------------ slopes
    def _phi_tables(self):
        """The anchored tables (made once if kept, else at every call)."""
        if self._phi is not None:
            return self._phi
        phi = self._tables()
        if self.keep_phi:
            self._phi = phi
        return phi

    def slopes(self, columns, gradient):
        """``g . log P(x_S, y)`` of every candidate (the pool's order), with a rounding allowance."""
        from .._threads import one_blas_thread

        phi = self._phi_tables()
        out = np.empty(math.comb(self.n, self.k))
        with one_blas_thread():
            if self.k == 2 and self.single_states:  # the reduced columns' product in single precision
                wholes = [
                    (
                        _weighted_gram(self.rows_major_bytes, 0, None, column, single=True, double=False, end=-1).T,
                        self.rows_major[:, :-1].T @ column,
                        float(column.sum()),
                    )
                    for column in columns
                ]
            else:
                wholes = [self._gram(column, 0) for column in columns]
            for (a, start, _, first), tables in zip(self._starts(), phi):
                total = self._block_totals(a, start, tables, columns, wholes)
                n_later = self.n - start
                out[first : first + math.comb(n_later, 2)] = np.take(total, self._pairs_at(n_later))
        if self._kappa is not None:
            out += self._state_allowance(columns)
        return (out if self._place is None else out[self._place]) + self._allowance(columns, gradient)

    def _state_allowance(self, columns):
        """What each candidate's slope (the products' order) is raised by for the single-precision
        products of its first attribute's other states (:meth:`_grams`; pairs: of all rows).

        Each entry of such a product is a sum over the distinct rows of one cell (a state of the
        first attribute and one of each later attribute) of ``g``, as squares of single-precision
        square roots: ``N`` nonzero terms at most (``N`` the sum of the cell's class weights, each
        nonzero weight at least 1; zero terms add exactly), each within ``3u`` of its ``|g|``
        (``u = 2**-24``: the root's rounding, squared, and the product's), added along at most
        ``N - 1`` roundings and one more for the rows of either sign, so within ``gamma_{N+5} sum
        |g| <= (N + 5) u / (1 - (rows + 5) u) N max|g|`` of the sum (Higham, *Accuracy and Stability
        of Numerical Algorithms*, 2002, sec. 3.1), any order of the additions; and the underflow of a
        term by less than 2**-125 (below the normal range). Their products with phi, and those of
        the common state's entries (double precision, over all rows), are single precision too,
        summed over the ``S`` states: each term moves by at most ``(S + 2) u`` of ``|phi| N
        max|g|`` (its rounding to single precision, the product's and the sums'). Weighted by the
        candidate's ``|phi|``, the slope moves by at most ``sum_{other states} |phi| N (N + 5 + S +
        2) + sum_{common} |phi| N (S + 2)`` (the tables' kappa) times that factor and ``max |g|``
        (and ``2**-100``): allowed for, the bound stays an upper bound. Pairs: their one product
        over all rows in single precision (its ones row and total in double precision), so
        ``sum |phi| N (N + 5 + 3)``.
        """
        unit = 2.0**-24
        factor = unit / (1.0 - (len(self.search.x) + 5) * unit)
        out = 0.0
        for column, kappa in zip(columns, self._kappa):
            out = out + kappa * (factor * float(np.abs(column).max()) + 2.0**-100)
        return out

    def _allowance(self, columns, gradient):
        """What the slopes are raised by: their rounding, whatever the order of the sums.

        Single-precision anchored tables move each slope by at most 2**-24 max|phi| sum|G*|, and
        each row enters at most 2**k of the sums G* a candidate's slope weighs; the products
        (float64 sums of at most the rows' terms) and the sums of their products with phi (at most
        a candidate's cells' terms) round by less than (rows + cells) 2**-53 of that; and the
        gradient's rows sum to zero only up to rounding. All allowed for, the bound stays an upper
        bound.
        """
        scale = sum(float(np.abs(column).sum()) for column in columns)
        relative = 2.0**-24 + (len(self.search.x) + self._terms + 64) * 2.0**-52
        rounding = relative * 2**self.k * self._scale * scale
        if not self.search.binary:
            rounding += self._largest_reference * float(np.abs(gradient.sum(axis=1)).sum())
        return rounding

    def _block_totals(self, a, start, tables, columns, wholes):
        """The slopes of the candidates of first attribute `a` (pairs: a None), as a (c, b) matrix of
        the attributes from `start` on (entries b < c)."""
        n_later = self.n - start
        total = np.zeros((n_later, n_later))
        # with the states' products in single precision, their products with phi too (and their sum
        # over the states; the rounding allowed for by _state_allowance), else double precision
        dtype = np.float64 if self._kappa is None else np.float32
        for column, whole, (rr, cr, rc, cc) in zip(columns, wholes, tables):
            products = np.zeros(rr.shape[1:], dtype=dtype)
            # phi is zero above the diagonal blocks: rows in a few bands, each up to its end
            bands = self._bands(start)
            grams, ones, totals = self._grams(column, start, a, whole)
            # band after band (its sums stay in the cache over the states)
            scratch = np.empty(products.shape, dtype=dtype)
            for low, high in bands:
                target, term = products[low:high, :high], scratch[low:high, :high]
                for state, gram in enumerate(grams):
                    np.multiply(
                        rr[state, low:high, :high], gram[low:high, :high], out=term, dtype=dtype, casting="same_kind"
                    )
                    target += term
            # the terms of the ones column (a state's rows of each column, and all of them) for all
            # states at once
            ones = np.stack(ones)
            by_b = np.einsum("scx,sx->cx", cr, ones)
            by_c = np.einsum("sxc,sx->xc", rc, ones)
            total += np.einsum("scb,s->cb", cc, np.array(totals))
            # (c, xb) terms added before the sums over b's columns
            by_b += self._block_sums(products, start, axis=0)
            total += self._block_sums(by_b, start, axis=1) + self._block_sums(by_c, start, axis=0)
        return total

    def candidate_slopes(self, columns, gradient, combos):
        """:meth:`slopes` of the candidates of three attributes `combos` (attribute indices) only, with
        the same allowance; and those of every other candidate of the pool computed on the way (the
        pool's indices, and their slopes).

        Per first attribute (in the products' order), the Gram entries the candidates need are those
        of a few attributes' columns with all later columns: the rows of a greedy cover of the
        candidates' pairs of later attributes, one general product per other state of the first
        attribute (the common state's entries are the products over all rows, shared); a first
        attribute whose cover is more than half its later columns takes its whole block.
        """
        from .._threads import one_blas_thread

        phi = self._phi_tables()
        position = np.empty(self.n, dtype=np.int64)
        position[self.order] = np.arange(self.n)
        positions = np.sort(position[combos], axis=1)
        out = np.empty(len(combos))
        if not len(combos):
            return out, np.zeros(0, dtype=np.int64), out
        # the single-precision products' allowance of each candidate (the products' order)
        state_allowance = self._state_allowance(columns) if self._kappa is not None else None
        by_first = np.argsort(positions[:, 0], kind="stable")
        firsts, begins = np.unique(positions[by_first, 0], return_index=True)
        ends = np.append(begins[1:], len(by_first))
        first_ranks = [first for _, _, _, first in self._starts()]
        starts = self._starts()
        whole_blocks = []
        with one_blas_thread():
            wholes = [self._gram(column, 0) for column in columns]
            for a, begin, end in zip(firsts, begins, ends):
                members = by_first[begin:end]
                _, start, _, _ = starts[a]
                later = positions[members, 1:] - start  # (b, c), b < c
                width = int(self.reduced_offsets[-1] - self.reduced_offsets[start])
                covered = _greedy_cover(later, np.maximum(self.cards[start:] - 1, 1), width // _COVER_SHARE)
                if covered is None:  # the whole block, every candidate of it returned
                    total = self._block_totals(a, start, phi[a], columns, wholes)
                    out[members] = total[later[:, 1], later[:, 0]]
                    n_later = self.n - start
                    ranks = first_ranks[a] + np.arange(math.comb(n_later, 2))
                    indices = self._pool_index[ranks]
                    known = indices >= 0
                    values = np.take(total, self._pairs_at(n_later)[known])
                    if state_allowance is not None:
                        values += state_allowance[ranks[known]]
                    whole_blocks.append((indices[known], values))
                else:
                    out[members] = self._covered_slopes(a, start, phi[a], columns, wholes, later, *covered)
        if state_allowance is not None:  # (also those of the covered slopes, from double-precision products)
            out += state_allowance[_lexicographic_rank(positions, self.n)]
        allowance = self._allowance(columns, gradient)
        if whole_blocks:
            indices = np.concatenate([block[0] for block in whole_blocks])
            values = np.concatenate([block[1] for block in whole_blocks]) + allowance
        else:
            indices, values = np.zeros(0, dtype=np.int64), np.zeros(0)
        return out + allowance, indices, values

    def _covered_slopes(self, a, start, tables, columns, wholes, later, cover, on_b):
        """The slopes of the candidates ``(a, b, c)`` (`later`: the local ``(b, c)``) from the Gram
        rows of the cover's columns (`on_b`: whether each candidate's cover attribute is its ``b``)."""
        first = int(self.reduced_offsets[start])
        offsets = self.reduced_offsets[start:] - first  # each later attribute's reduced columns
        width = int(offsets[-1])
        widest = max(1, int((self.cards[start:] - 1).max()))
        b, c = later[:, 0], later[:, 1]
        steps = np.arange(widest)
        # each candidate's (xc, xb) entries, padded to the widest attribute (`valid`)
        xb = offsets[b][:, None] + steps[None, :]
        xc = offsets[c][:, None] + steps[None, :]
        valid_b = steps[None, :] < (offsets[b + 1] - offsets[b])[:, None]
        valid_c = steps[None, :] < (offsets[c + 1] - offsets[c])[:, None]
        xb = np.where(valid_b, xb, 0)
        xc = np.where(valid_c, xc, 0)
        valid = valid_c[:, :, None] & valid_b[:, None, :]
        # the cover's columns as the rows of the products, the column of ones last
        cover_columns = np.append(_columns_of_attributes(offsets, cover), width)
        row_of = np.full(width + 1, -1, dtype=np.int64)
        row_of[cover_columns] = np.arange(len(cover_columns))
        # the products' columns: only those of the candidates' attributes (the cover's partners, a
        # quarter of the later columns on wide data), the ones last
        attributes = np.unique(later)
        used = np.append(_columns_of_attributes(offsets, attributes), width)
        column_of = np.zeros(width + 1, dtype=np.int64)  # (0 for the padding, weighed by zero)
        column_of[used] = np.arange(len(used))
        # entry (xc, xb) from the cover's rows: (row of xb, column xc) or (row of xc, column xb)
        product_rows = np.where(on_b[:, None, None], row_of[xb][:, None, :], row_of[xc][:, :, None])
        product_columns = np.where(on_b[:, None, None], column_of[xc][:, :, None], column_of[xb][:, None, :])
        # flat indices (the padding's entries finite, weighed by zero)
        product_at = np.where(valid, product_rows, 0) * len(used) + product_columns
        cover_used = column_of[cover_columns]
        local_b, local_c = column_of[xb], column_of[xc]  # each candidate's columns among `used`
        size = wholes[0].shape[1]  # the products over all rows: every column, the ones last
        whole_at = (first + xc[:, :, None]) * size + (first + xb[:, None, :])
        table_at = xc[:, :, None] * width + xb[:, None, :]
        weight, weight_b, weight_c = valid.astype(np.float64), valid_b.astype(np.float64), valid_c.astype(np.float64)
        n_later = len(offsets) - 1
        cr_at = c[:, None] * width + xb  # flat indices of (c, xb), (xc, b) and (c, b)
        rc_at = xc * n_later + b[:, None]
        cc_at = c * n_later + b
        common = int(self.common[a])
        out = np.zeros(len(later))
        for state, rows in enumerate(self.state_rows[a]):
            if state == common:
                block = None
            else:
                block = np.ascontiguousarray(self.columns_major_bytes[first + used][:, rows].T, dtype=np.float64)
            for column, whole, (rr, cr, rc, cc) in zip(columns, wholes, tables):
                if block is None:  # all rows: the shared product (lower triangle: c after b)
                    gram = np.take(whole, whole_at)
                    ones, total = whole[-1, first:-1], whole[-1, -1]
                    at_b, at_c = xb, xc
                else:
                    scaled = block[:, cover_used] * column[rows][:, None]
                    product = scaled.T @ block
                    gram = np.take(product, product_at)
                    ones, total = product[-1, :-1], product[-1, -1]
                    at_b, at_c = local_b, local_c
                gram *= np.take(rr[state], table_at)
                gram *= weight
                value = gram.sum(axis=(1, 2))
                by_b = np.take(ones, at_b)  # (double precision: the tables' entries multiplied into it)
                by_b *= np.take(cr[state], cr_at)
                by_b *= weight_b
                value += by_b.sum(axis=1)
                by_c = np.take(ones, at_c)
                by_c *= np.take(rc[state], rc_at)
                by_c *= weight_c
                value += by_c.sum(axis=1)
                value += np.take(cc[state], cc_at) * total
                out += value
        return out


def _columns_of_attributes(offsets, attributes):
    """The columns of the `attributes` (ascending), attribute ``u``'s from ``offsets[u]`` to
    ``offsets[u + 1]``, in order: ``np.concatenate([np.arange(offsets[u], offsets[u + 1]) for u in
    attributes])`` without a loop."""
    widths = offsets[attributes + 1] - offsets[attributes]
    return np.repeat(offsets[attributes] - (np.cumsum(widths) - widths), widths) + np.arange(int(widths.sum()))


def _greedy_cover(pairs, widths, limit):
    """Attributes covering every pair of `pairs` (an (m, 2) array of attributes, each of `widths`
    columns): each pair's attribute of more pairs (ties: the first), and whether it is the pair's
    first; None when the cover's columns would reach `limit`."""
    degrees = np.bincount(pairs.ravel(), minlength=len(widths))
    # every cover has at least m / (most pairs of one attribute) attributes
    if -(-len(pairs) // int(degrees.max())) * int(widths.min()) >= limit:
        return None
    rank = np.empty(len(widths), dtype=np.int64)
    rank[np.argsort(-degrees, kind="stable")] = np.arange(len(widths))
    on_first = rank[pairs[:, 0]] < rank[pairs[:, 1]]
    cover = np.flatnonzero(np.bincount(np.where(on_first, pairs[:, 0], pairs[:, 1]), minlength=len(widths)))
    if int(widths[cover].sum()) >= limit:
        return None
    return cover, on_first


@overload
def kikuchi_bayes_path(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    max_region_size: int = ...,
    prior_strength: float = ...,
    continue_past_map: bool = ...,
    max_log_posterior_drop: float = ...,
    max_steps: int | None = ...,
    max_cells: int | None = ...,
    trace: Literal[False] = ...,
) -> list[dict[str, Any]]: ...


@overload
def kikuchi_bayes_path(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    max_region_size: int = ...,
    prior_strength: float = ...,
    continue_past_map: bool = ...,
    max_log_posterior_drop: float = ...,
    max_steps: int | None = ...,
    max_cells: int | None = ...,
    trace: Literal[True],
) -> tuple[list[dict[str, Any]], pd.DataFrame]: ...


@overload
def kikuchi_bayes_path(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    max_region_size: int = ...,
    prior_strength: float = ...,
    continue_past_map: bool = ...,
    max_log_posterior_drop: float = ...,
    max_steps: int | None = ...,
    max_cells: int | None = ...,
    trace: bool = ...,
) -> list[dict[str, Any]] | tuple[list[dict[str, Any]], pd.DataFrame]: ...


def kikuchi_bayes_path(
    engine: CountingEngine,
    class_variable: Hashable | None = None,
    *,
    max_region_size: int = 4,
    prior_strength: float = DEFAULT_PRIOR_STRENGTH,
    continue_past_map: bool = True,
    max_log_posterior_drop: float = 50.0,
    max_steps: int | None = None,
    max_cells: int | None = None,
    trace: bool = False,
) -> list[dict[str, Any]] | tuple[list[dict[str, Any]], pd.DataFrame]:
    """Greedy Kikuchi-Bayes structure search with one-level lookahead (section 7 of [1]_).

    Regions are sets of attributes plus the class. The search starts from the
    class alone. At each step every region of the current size (number of
    variables, class included) that is not inside a region of the model is
    scored, and the one with the highest log posterior (the parsimonious log
    prior of eq. 6 on the conditional degrees of freedom of eq. 7, plus the
    conditional log-likelihood of eq. 8 under the consistent Dirichlet prior
    of eq. 4) is added if it raises the log posterior. When no region of size
    ``k`` does, the search moves to size ``k + 1`` (stepwise forward selection,
    Jobson 1992), up to `max_region_size`.

    The ascent ends at the maximum a posteriori (MAP) model of the path.
    With `continue_past_map`, the path then goes on from size 2 again,
    adding the region of highest posterior while it raises the conditional
    likelihood, as the paper does to integrate over the stage of the path
    (rarely, a later stage reaches a higher posterior; the MAP is the best
    stage of the whole path). It stops when
    the likelihood no longer rises, when a region would make the prior zero
    (``df >= n - 1``), or when the log posterior falls more than
    `max_log_posterior_drop` below the best one, where a stage's weight in
    the model average is below ``exp(-max_log_posterior_drop)``.

    Parameters
    ----------
    engine : CountingEngine
        Counts of the attributes and the class (no unknown cells).
    class_variable : name, optional
        The class; defaults to the last variable of the engine.
    max_region_size : int, default=4
        Largest region, class included (the paper's k <= 4).
    prior_strength : float, default=DEFAULT_PRIOR_STRENGTH (4.0)
        ``vartheta`` of eq. (4), > 0: the number of uniformly distributed
        pseudo-instances added to every submodel.
    continue_past_map : bool, default=True
        Go on past the MAP model while the likelihood rises.
    max_log_posterior_drop : float, default=50.0
        Stop past the MAP once a stage's log posterior is this far below the best.
    max_steps : int, optional
        Most regions to add.
    max_cells : int, optional
        Skip candidate regions whose table would be larger; defaults to the
        engine's ``max_cells``.
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    path : list of dict
        One entry per stage, the class-only model first, with keys
        ``region`` (frozenset of names, class included; the class alone for
        stage 0), ``phase`` (``"start"``, ``"ascent"`` or ``"beyond MAP"``),
        ``counting_numbers`` (dict frozenset -> int: the region graph of the
        stage), ``df`` (eq. 7), ``log_prior``, ``log_likelihood`` (eq. 8, nats)
        and ``log_posterior``.
    trace : DataFrame
        Only with ``trace=True``: the path and what it turned down, one row
        per step. ``"start"`` (stage 0, the class alone); ``"accept"`` (a
        region added: a stage of the path); ``"reject"`` (the best region of
        the current size was not added, so the search moves to the next
        size; ``item`` None when no region of that size was left to score);
        ``"phase"`` (the ascent reached its end and the path goes on past
        the MAP from size 2); ``"stop"`` (`max_steps` reached); last,
        ``"map"`` (``item`` the region of the stage of highest log
        posterior, ``stage`` that stage). ``item`` is a region (frozenset
        of names, class included), ``score`` the log posterior; the columns
        ``phase``, ``size`` (variables in the candidates scored, class
        included), ``stage`` (the stage a region became, for
        ``"start"``/``"accept"``/``"map"``), ``df``, ``log_prior`` and
        ``log_likelihood`` are those of the stage or of the rejected
        candidate. The accepted regions up to the MAP stage are the MAP
        model's initial regions (with the class-only region of stage 0).

    Raises
    ------
    ValueError
        For bad parameters or training cells coded -1.
    TypeError
        For a `trace` that is not a bool.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.
    .. [2] Caruana, R., Niculescu, A., Crew, G., & Ksikes, A. (2004). Ensemble
           selection from libraries of models. *ICML*.

    Examples
    --------
    >>> import numpy as np
    >>> from graphmodels.stats import CountingEngine
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 2, size=(400, 3))
    >>> y = x[:, 0] ^ x[:, 1]
    >>> engine = CountingEngine(np.column_stack([x, y]), [2, 2, 2, 2], names=["a", "b", "c", "y"])
    >>> path = kikuchi_bayes_path(engine, "y", max_region_size=3)
    >>> [(sorted(step["region"]), step["phase"]) for step in path]  # doctest: +NORMALIZE_WHITESPACE
    [(['y'], 'start'), (['a', 'y'], 'ascent'), (['a', 'b', 'y'], 'ascent'),
     (['b', 'c', 'y'], 'beyond MAP'), (['a', 'c', 'y'], 'beyond MAP')]
    >>> max(path, key=lambda step: step["log_posterior"])["region"] == {"a", "b", "y"}
    True
    """
    class_position = engine.n_variables - 1 if class_variable is None else engine.position(class_variable)
    if isinstance(max_region_size, bool) or not isinstance(max_region_size, (int, np.integer)) or max_region_size < 1:
        raise ValueError(f"`max_region_size` must be an integer >= 1, got {max_region_size!r}.")
    if (
        isinstance(prior_strength, bool)
        or not isinstance(prior_strength, (int, float, np.number))
        or not (np.isfinite(prior_strength) and prior_strength > 0)
    ):
        raise ValueError(f"`prior_strength` must be a finite number > 0, got {prior_strength!r}.")
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 0
    ):
        raise ValueError(f"`max_steps` must be None or an integer >= 0, got {max_steps!r}.")
    if not max_log_posterior_drop > 0:
        raise ValueError(f"`max_log_posterior_drop` must be > 0, got {max_log_posterior_drop!r}.")
    max_cells = engine.max_cells if max_cells is None else max_cells
    if isinstance(max_cells, bool) or not isinstance(max_cells, (int, np.integer)) or max_cells < 1:
        raise ValueError(f"`max_cells` must be a positive integer, got {max_cells!r}.")
    record = new_trace(
        trace,
        "kikuchi_bayes_path",
        "phase",
        "size",
        "stage",
        "df",
        "log_prior",
        "log_likelihood",
        integers=["size", "stage", "df"],
    )

    # Attributes in name order, so ties go the same way whatever the column order.
    attributes = sorted(
        (p for p in range(engine.n_variables) if p != class_position),
        key=lambda p: (str(engine.names[p]), type(engine.names[p]).__name__),
    )
    search = _RegionSearch(engine, class_position, attributes, float(prior_strength))
    model = _Model(search)
    n = search.total
    names = [engine.names[p] for p in attributes]
    class_name = engine.names[class_position]

    named = {}

    def region_names(mask):
        if mask not in named:
            named[mask] = frozenset([class_name] + [names[b] for b in _bits(mask)])
        return named[mask]

    def stage(mask, phase, log_likelihood):
        log_prior = parsimonious_log_prior(model.df, n)
        path.append(
            {
                "region": region_names(mask),
                "phase": phase,
                "counting_numbers": {region_names(t): c for t, c in model.counting.items()},
                "df": int(model.df),
                "log_prior": float(log_prior),
                "log_likelihood": float(log_likelihood),
                "log_posterior": float(log_prior + log_likelihood),
            }
        )
        if record is not None:
            step = path[-1]
            record.add(
                "start" if mask == 0 else "accept",
                step["region"],
                step["log_posterior"],
                "the class alone"
                if mask == 0
                else "raises the " + ("log posterior" if phase == "ascent" else "likelihood"),
                phase=phase,
                size=len(step["region"]),
                stage=len(path) - 1,
                df=step["df"],
                log_prior=step["log_prior"],
                log_likelihood=step["log_likelihood"],
            )

    def finish():
        if record is not None:
            best_stage = max(range(len(path)), key=lambda i: (path[i]["log_posterior"], -i))
            step = path[best_stage]
            record.add(
                "map",
                step["region"],
                step["log_posterior"],
                "the stage of highest log posterior: the MAP model",
                phase=step["phase"],
                size=len(step["region"]),
                stage=best_stage,
                df=step["df"],
                log_prior=step["log_prior"],
                log_likelihood=step["log_likelihood"],
            )
        return traced(path, record)

    path: list[dict[str, Any]] = []
    stage(0, "start", float(search.conditional_log_likelihood(model.scores)))
    if max_region_size < 2 or not attributes:
        return finish()
    best = path[0]["log_posterior"]
    phase = "ascent"
    size = 2
    # Pools persist across sizes and phases; each catches up with the regions
    # added since it was last used.
    pools: dict[int, tuple[_CandidatePool | _WidePool, int]] = {}
    added: list[int] = []

    def pool_of(size):
        if size in pools:
            pool, synced = pools[size]
            for mask in added[synced:]:
                pool.update(mask)
        else:
            k = size - 1
            fits = math.comb(len(attributes), k) * len(search.x) * (1 if search.binary else search.n_classes) * 8
            pool_class = _CandidatePool if fits <= _POOL_BYTES else _WidePool
            pool = pool_class(search, model, k, max_cells)
        pools[size] = (pool, len(added))
        return pool

    while max_steps is None or len(path) - 1 < max_steps:
        pool = pool_of(size)
        current = path[-1]
        # Without a trace, a size's best region matters only if it can be added: no region scoring
        # at or below what acceptance needs is scored exactly (the choice is the same).
        floor = None
        if record is None:
            if phase == "ascent":
                floor = current["log_posterior"] + _TIE_TOLERANCE * max(1.0, abs(current["log_posterior"]))
            else:
                floor = best - max_log_posterior_drop
        choice = pool.best(n, floor)
        accept = False
        if choice is not None:
            mask, changes, cand_ll, cand_df = choice
            cand_post = parsimonious_log_prior(cand_df, n) + cand_ll
            # Strict improvements only: a region over single-state attributes
            # changes nothing but rounding.
            if phase == "ascent":
                accept = _improves(cand_post, current["log_posterior"])
            else:
                accept = _improves(cand_ll, current["log_likelihood"]) and cand_post > best - max_log_posterior_drop
        if accept:
            model.add(mask, changes, pool.delta(mask))
            added.append(mask)
            stage(mask, phase, cand_ll)
            best = max(best, path[-1]["log_posterior"])
            continue
        if record is not None:
            _record_rejection(record, choice, region_names, phase, size, n, current, max_log_posterior_drop)
        size += 1
        if size > min(max_region_size, len(attributes) + 1):
            if phase == "beyond MAP" or not continue_past_map:
                break
            phase, size = "beyond MAP", 2
            if record is not None:
                record.add("phase", None, reason="the ascent ends (the MAP); the path goes on from size 2", phase=phase)
    else:
        if record is not None:
            record.add("stop", None, reason=f"max_steps={max_steps} regions added", phase=phase)
    return finish()


def _best_in_pool(pool, n, log_likelihoods_of, slopes_of, floor=None, screen_of=None, anchored=None):
    """The best candidate of a pool as ``(index, log_likelihood, df)``, or None; both pools' search.

    Candidates are scored exactly (``log_likelihoods_of(indices)``: their conditional
    log-likelihoods) in the order of an upper bound and only while the bound can still beat the
    best exact score: the conditional log-likelihood is concave in the scores, so ``CLL(s + d) <=
    CLL(s) + grad CLL(s) . d`` (``slopes_of(indices, gradient)``: the products). The result is
    the exhaustive search's. Small pools are scored directly.

    With a `floor` (a log posterior no candidate at or below which can be accepted), candidates
    whose bound is below it (less a tolerance) are not scored either: when the best exceeds the
    floor it is the same candidate; else the result is a candidate below the floor, or None.

    With `screen_of` (``screen_of(indices)``: faster log-likelihoods and bounds on their
    differences from ``log_likelihoods_of``'s), candidates are scored by it, the search pruned by
    the lowest values the exact ones can have, and only the candidates that can be tied with the
    best are scored exactly: the same choice and value.

    With `anchored` (``(staged_of, fresh_of)``: ``staged_of(indices, gradient, current)`` gives
    upper bounds of ``CLL(s + d) - CLL(s)`` and which of them are looser than the slopes,
    ``fresh_of(indices, gradient, current)`` the slopes), the leading candidates by those bounds
    are scored exactly first, and only the candidates whose looser bound reaches the best of them
    (or the floor) get the slopes: every bound stays an upper bound, so the same choice.
    """
    search, model = pool.search, pool.model
    all_dfs = model.df + pool.delta_dfs
    # df >= n - 1: prior zero, never accepted.
    usable = np.flatnonzero(pool.active & (all_dfs < n - 1))
    if len(usable) == 0:
        return None
    dfs = all_dfs[usable]
    log_priors = -n * dfs / (n - dfs - 1)
    posts = np.full(len(usable), -np.inf)
    log_likelihoods = np.full(len(usable), -np.inf)
    scored = np.zeros(len(usable), dtype=bool)  # (by `score` or `screen`: not scored again in bound order)

    def score(positions):
        log_likelihoods[positions] = log_likelihoods_of(usable[positions])
        posts[positions] = log_priors[positions] + log_likelihoods[positions]
        scored[positions] = True

    if len(usable) * math.prod(pool.shape) <= _DIRECT_ELEMENTS:
        for start in range(0, len(usable), pool.block):
            score(np.arange(start, min(start + pool.block, len(usable))))
    else:
        current = float(search.conditional_log_likelihood(model.scores))
        gradient = search.gradient(model.scores)
        # Below the floor by twice the tie tolerance: every candidate tied with a best above it is scored.
        lowest = -np.inf if floor is None else floor - 2 * _TIE_TOLERANCE * max(1.0, abs(floor))
        errors = np.zeros(len(usable))

        def screen(positions):  # posts: the lowest the exact log posteriors can be
            values, errors[positions] = screen_of(usable[positions])
            posts[positions] = log_priors[positions] + values - errors[positions]
            scored[positions] = True

        if anchored is None:
            bounds = log_priors + current + slopes_of(usable, gradient)
        else:
            staged_of, fresh_of = anchored
            slopes, stale = staged_of(usable, gradient, current)
            bounds = log_priors + current + slopes
            if stale.any():
                (score if screen_of is None else screen)(_leading_order(bounds, _ESTIMATING)[:_ESTIMATING])
                estimate = max(float(posts.max()), lowest)
                reach = bounds + _TIE_TOLERANCE * np.maximum(1.0, np.abs(bounds))
                reach = stale & (reach >= estimate - _TIE_TOLERANCE * max(1.0, abs(estimate)))
                refresh = np.flatnonzero(reach)
                if len(refresh):
                    fresh = log_priors[refresh] + current + fresh_of(usable[refresh], gradient, current)
                    bounds[refresh] = np.minimum(bounds[refresh], fresh)
        if screen_of is None:
            _score_in_bound_order(bounds, posts, score, lowest, scored=scored)
        else:
            _score_in_bound_order(bounds, posts, screen, lowest, scored=scored)
            top = posts.max()
            if np.isfinite(top):  # every candidate that can be within the tolerance of the best
                near = np.flatnonzero(posts + 2 * errors >= top - _TIE_TOLERANCE * max(1.0, abs(top)))
                posts[:] = -np.inf
                score(near)
        if not np.isfinite(posts).any():
            return None
    i = _first_at_top(posts)
    b = int(usable[i])
    return b, float(log_likelihoods[i]), int(all_dfs[b])


def _score_in_bound_order(bounds, posts, score, lowest=-np.inf, step=16, scored=None):
    """Score candidates exactly in decreasing order of their upper `bounds`, `step` at a time,
    until no bound left can beat the best exact log posterior in `posts` (which `score` fills)
    nor reach `lowest`; those `scored` already (a mask) are not scored again.

    Both pools' searches share it: the bound is exact (concavity), so the best candidate is
    always scored; the rounding slack keeps a tie at the top from being pruned.
    """
    bounds = bounds + _TIE_TOLERANCE * np.maximum(1.0, np.abs(bounds))
    order = _leading_order(bounds, _LEADING)
    start = 0
    top = posts.max()  # the best exact log posterior so far (only `score` changes `posts`)
    while start < len(bounds):
        if start == len(order):  # past the leading candidates: all of them, in the same order
            order = np.argsort(-bounds, kind="stable")
        if bounds[order[start]] < lowest:
            break
        if start and bounds[order[start]] < top - _TIE_TOLERANCE * max(1.0, abs(top)):
            break
        batch = order[start : start + step]
        if scored is None:
            score(batch)
        elif not scored[batch].all():
            score(batch[~scored[batch]])
        top = max(top, posts[batch].max())
        start += step


def _leading_order(bounds, count):
    """The first (at least) `count` of ``np.argsort(-bounds, kind="stable")``, all the candidates
    tied with the last of them included: the same order, without sorting a whole wide pool when
    only its top is scored."""
    if len(bounds) <= count:
        return np.argsort(-bounds, kind="stable")
    threshold = np.partition(bounds, len(bounds) - count)[len(bounds) - count]
    leading = np.flatnonzero(bounds >= threshold)  # ascending: ties keep the stable order
    return leading[np.argsort(-bounds[leading], kind="stable")]


def _first_at_top(posts):
    """The first (in attribute-name order) of the candidates tied at the top of `posts`."""
    top = posts.max()
    return int(np.flatnonzero(posts >= top - _TIE_TOLERANCE * max(1.0, abs(top)))[0])


def _record_rejection(record, choice, region_names, phase, size, n, current, max_drop):
    """The trace step of a size whose best region was not added (or had none)."""
    if choice is None:
        record.add(
            "reject",
            None,
            reason=f"no region of {size} variables left to score (covered, too large, or df >= n - 1)",
            phase=phase,
            size=size,
        )
        return
    mask, _, cand_ll, cand_df = choice
    log_prior = parsimonious_log_prior(cand_df, n)
    post = log_prior + cand_ll
    if phase == "ascent":
        reason = "the best region does not raise the log posterior: next size"
    elif not _improves(cand_ll, current["log_likelihood"]):
        reason = "the best region does not raise the likelihood: next size"
    else:
        reason = f"the log posterior would fall more than {max_drop:g} below the best: next size"
    record.add(
        "reject",
        region_names(mask),
        post,
        reason,
        phase=phase,
        size=size,
        df=int(cand_df),
        log_prior=log_prior,
        log_likelihood=cand_ll,
    )


def _improves(new, old):
    return new > old + _TIE_TOLERANCE * max(1.0, abs(old))


def _dot(a, b):
    """`a`'s trailing axes (those of `b`) contracted with `b`: ``a @ b`` for flattened trailing axes.

    By :func:`numpy.einsum`'s own loop, not BLAS: on a busy machine a multithreaded BLAS product
    of this size waits for a second core (8-12 ms instead of 0.02-0.2 ms with the other core taken).
    """
    lead = a.shape[: a.ndim - b.ndim]
    return np.einsum("...i,i->...", a.reshape(*lead, -1), b.ravel())


def _log_sum_exp_last(scores):
    """``log(sum(exp(scores), axis=-1))``, stable; unrolled over a short last axis
    (numpy reductions over a small inner axis are slow)."""
    m = scores.shape[-1]
    if m > 8:
        top = scores.max(axis=-1)
        return np.log(np.exp(scores - top[..., None]).sum(axis=-1)) + top
    top = scores[..., 0].copy()
    for c in range(1, m):
        np.maximum(top, scores[..., c], out=top)
    total = np.exp(scores[..., 0] - top)
    for c in range(1, m):
        total += np.exp(scores[..., c] - top)
    return np.log(total) + top
