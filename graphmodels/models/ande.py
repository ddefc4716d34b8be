"""Averaged n-dependence estimators (AnDE): A2DE and beyond, AODE's generalisation."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._memory import check_cells, describe_variables
from .._special import logsumexp
from .._validation import Interval, Options
from ..stats.counting import DEFAULT_MAX_CELLS
from ..structures.forests import augmented_naive_bayes
from . import _fitted
from .aode import _FREQUENCY_MODES, _check_offsets, _SuperParentEnsemble
from .augmented import _log
from .registry import register_model

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator

__all__ = ["AnDE"]

# Cells of one (n_classes, rows, n_subsets) block of prediction intermediates.
_BLOCK_CELLS = 2_000_000


@register_model("ande")
class AnDE(_SuperParentEnsemble):
    """Averaged n-dependence estimators (Webb, Boughton, Zheng, Ting & Salem, 2012).

    Every set ``S`` of `n` attributes in turn is the *super-parent* of an
    n-dependence classifier ``P(y, x_S) prod_{k not in S} P(x_k | y, x_S)``;
    the model averages those whose super-parent values ``x_S`` are frequent
    enough [1]_:

    ``P(y, x) = 1/|Q| sum_{S in Q} P(y, x_S) prod_{k not in S} P(x_k | y, x_S)``

    where ``Q`` holds the size-`n` subsets whose joint value ``x_S`` occurs at
    least `frequency_threshold` times in training. When no subset qualifies
    the row falls back to A(n-1)DE, and so on down to naive Bayes (A0DE), as
    in Webb et al. ``n=1`` is :class:`AODE` (the same probabilities with the
    same settings), ``n=0`` is :class:`NaiveBayes`; each step up trades
    variance for less bias and suits more training rows.

    Parameters
    ----------
    n : int, default=2
        Number of super-parents of each member, ``>= 0`` (A2DE by default).
        An `n` above the number of attributes acts as that number.
    frequency_threshold : float, default=30
        The minimum (weighted) count of a super-parent value ``x_S``, as
        :class:`AODE`'s (Webb et al.'s ``m``); ``0`` averages all subsets
        whose values were seen.
    frequency : {"attribute", "attribute-class"}, default="attribute"
        Count the super-parent value alone ``N[x_S]`` (Webb et al.), or with
        each class ``N[x_S, y]`` (as :class:`AODE`'s option), which lets
        ``Q`` differ between classes.
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`,
        applied as :class:`AODE` applies it: ``joint`` to each table
        ``N[y, x_S]`` and ``conditional`` to each family ``N[y, x_S, x_k]``.
        The default, :class:`~graphmodels.estimators.EmpiricalBayesBDeu`, is
        AODE's. Paper reproductions pass the paper's prior explicitly.
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states: fitted inside ``fit`` on the
        training rows only, kept in ``discretizer_`` and applied at
        prediction. ``"auto"`` cuts each numeric column with more than 10
        distinct values at Fayyad & Irani's MDL cut points (supervised);
        ``None`` keeps every value as a state. See
        :mod:`graphmodels.data.discretize`.
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals, whatever their
        type: integer codes of categories, say. A pandas ``category`` column
        is never cut either. When ``discretizer="auto"`` cuts a column of whole
        numbers, ``fit`` warns (:class:`~graphmodels.data.IntegerColumnsCutWarning`).
    missing : {"value", "error"}, default="value"
    max_cells : int, default=10_000_000
        The largest number of cells the model's tables may hold *in all*
        (see Notes); more raises :class:`~graphmodels.stats.TableTooLargeError` (a
        ``ValueError``) before anything is counted.

    Attributes
    ----------
    structure_ : nx.DiGraph
        The naive Bayes skeleton (class to every attribute), as
        :class:`AODE`'s. :meth:`member_structure` gives the DAG of one member
        (with its super-parent arcs), and
        :func:`~graphmodels.plotting.draw_network` without ``ax`` draws the
        members of the most informative super-parent sets
        (:meth:`ranked_superparents`).
    superparents_ : list of ndarray
        ``superparents_[m]`` of shape (C(p, m), m): the attribute positions of
        every size-``m`` subset, ``m = 0 .. min(n, p)`` (the lower levels
        serve the fallback).
    superparent_offsets_ : list of ndarray
        ``superparent_offsets_[m]`` of shape (C(p, m) + 1,): subset ``s`` owns
        the configurations ``[offsets[s], offsets[s + 1])`` of level ``m``,
        its values ``x_S`` in mixed radix (the last attribute fastest).
    superparent_log_joint_ : list of ndarray
        ``superparent_log_joint_[m]`` of shape (n_classes, n_configurations):
        ``log P(y, x_S)``.
    superparent_counts_ : list of ndarray
        Same shapes: the (weighted) counts ``N[y, x_S]`` the frequency limit reads.
    log_tables_ : list of ndarray
        ``log_tables_[m]`` of shape (n_classes, n_configurations, K): ``log
        P(x_k = b | y, x_S)`` at ``[y, configuration of x_S, offsets_[k] +
        b]``, 0 for ``k`` in ``S``; ``K`` the total number of states.
    offsets_ : ndarray of shape (n_features + 1,)
        Attribute ``k``'s states are columns ``offsets_[k]:offsets_[k + 1]``.

    Raises
    ------
    ValueError
        At ``fit``, when the tables would hold more than `max_cells` cells
        in all (the message names `n` and the sizes).

    See Also
    --------
    AODE : ``n=1``.
    NaiveBayes : ``n=0``.
    KDB : one network whose attributes have up to ``k`` attribute parents.

    Notes
    -----
    With ``p`` attributes of ``r_1, ..., r_p`` states (``K`` in all) and
    ``C`` classes, level ``m`` stores one ``(C, prod_{i in S} r_i, K)`` block
    per subset, ``C * K * e_m(r)`` cells where ``e_m`` is the ``m``-th
    elementary symmetric polynomial (``e_1 = K``, ``e_2`` the sum of the
    products of two cardinalities). The guard counts every table the model
    keeps, at every level ``0 .. n`` (the lower ones serve the fallback):
    these, the joint tables and their counts, ``C * (K + 2) * (e_0 + ... +
    e_n)`` cells. For
    ``n=2`` on 20 attributes of 5 states and 2 classes that is about 1.0
    million cells; it grows as ``p**n``.

    Prediction is vectorized over rows, in row blocks that keep the
    ``(C, rows, subsets)`` intermediates near 2 million cells. A cell coded
    as a state unseen in training is unobserved: a subset containing it does
    not qualify as super-parent, and as a child it drops out of every
    product (summed out exactly), as in :class:`AODE`.

    References
    ----------
    .. [1] Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M., & Salem, H.
           (2012). Learning by extrapolation from marginal to
           full-multivariate probability distributions: decreasingly naive
           Bayesian classification. *Machine Learning*, 86(2), 233-272.

    Examples
    --------
    >>> import numpy as np
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> a2de = gm.AnDE(n=2).fit(X, y)
    >>> a2de.classes_.tolist()
    ['acc', 'good', 'unacc', 'vgood']
    >>> a2de.predict_proba(X.iloc[:1]).round(3)
    array([[0.001, 0.002, 0.995, 0.002]])
    >>> round(a2de.score(X, y), 3)  # training accuracy (AODE: 0.935)
    0.968

    ``n=1`` is AODE:

    >>> a1de = gm.AnDE(n=1).fit(X, y)
    >>> bool(np.allclose(a1de.predict_proba(X), gm.AODE().fit(X, y).predict_proba(X)))
    True
    """

    def __init__(
        self,
        *,
        n: int = 2,
        frequency_threshold: float = 30,
        frequency: str = "attribute",
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.n = n
        self.frequency_threshold = frequency_threshold
        self.frequency = frequency
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _parameter_constraints = {
        "n": [Interval(numbers.Integral, 0, None)],
        "frequency": [Options(list(_FREQUENCY_MODES))],
        "frequency_threshold": [Interval(numbers.Real, 0, None)],
    }

    _fitted_attributes: tuple[str, ...] = (
        "structure_", "offsets_", "superparents_", "superparent_offsets_", "superparent_log_joint_",
        "superparent_counts_", "log_tables_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then each level's subsets, their joints and counts, and the children's tables."""
        super()._validate_fitted_state()
        cards = np.asarray(self._validated_cardinalities(), dtype=np.int64)
        n_classes, p = len(self.classes_), len(cards)
        offsets = _check_offsets(self.offsets_, cards)
        n_levels = min(int(self.n), p) + 1
        names = (
            "superparents_",
            "superparent_offsets_",
            "superparent_log_joint_",
            "superparent_counts_",
            "log_tables_",
        )
        levels = zip(*(_fitted.sequence(name, getattr(self, name), n_levels) for name in names))
        for m, (subsets, starts, joint, counts, tables) in enumerate(levels):
            expected = np.array(list(itertools.combinations(range(p), m)), dtype=np.int64).reshape(math.comb(p, m), m)
            if not (isinstance(subsets, np.ndarray) and np.array_equal(subsets, expected)):
                raise _fitted.FittedStateError(
                    f"superparents_[{m}]", f"is not the {len(expected)} subsets of {m} of the {p} attributes, in order."
                )
            layout = np.concatenate([[0], np.cumsum(np.prod(cards[expected], axis=1))]).astype(np.int64)
            starts = _fitted.integers(f"superparent_offsets_[{m}]", starts, low=0, high=int(layout[-1]) + 1)
            if not np.array_equal(starts, layout):
                raise _fitted.FittedStateError(
                    f"superparent_offsets_[{m}]", "does not match the subsets' configurations of the columns' states."
                )
            n_configurations = int(layout[-1])
            joint = _fitted.log_table(f"superparent_log_joint_[{m}]", joint, (n_classes, n_configurations), axes=())
            _fitted.block_distributions(f"superparent_log_joint_[{m}]", joint, layout, joint=True)
            _fitted.counts(f"superparent_counts_[{m}]", counts, (n_classes, n_configurations))
            width = int(offsets[-1])
            tables = _fitted.log_table(f"log_tables_[{m}]", tables, (n_classes, n_configurations, width), axes=())
            # Configuration c's block k is P(x_k | y, x_S) for the subsets S without k.
            subset_of = np.repeat(np.arange(len(expected)), np.diff(layout))  # the subset of each configuration
            in_subset = np.zeros((len(expected), p), dtype=bool)
            np.put_along_axis(in_subset, expected, True, axis=1)
            _fitted.block_distributions(f"log_tables_[{m}]", tables, offsets, skip=in_subset[subset_of])

    def _fit(self, engine):
        names = engine.names
        class_name, features = names[-1], names[:-1]
        p = len(features)
        n_classes = int(engine.cardinalities[-1])
        cards = np.asarray(engine.cardinalities[:-1], dtype=np.int64)
        top = min(int(self.n), p)
        self._check_size(cards, n_classes, top, engine.names[:-1])
        self.structure_ = augmented_naive_bayes(
            class_name, features, cardinalities=dict(zip(names, engine.cardinalities))
        )
        offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        width = int(offsets[-1])
        superparents, config_offsets, log_joints, parent_counts, log_tables = [], [], [], [], []
        for m in range(top + 1):
            subsets = np.array(list(itertools.combinations(range(p), m)), dtype=np.int64).reshape(math.comb(p, m), m)
            starts = np.concatenate([[0], np.cumsum(np.prod(cards[subsets], axis=1))]).astype(np.int64)
            log_joint = np.empty((n_classes, int(starts[-1])))
            counts = np.empty((n_classes, int(starts[-1])))
            tables = np.zeros((n_classes, int(starts[-1]), width))
            joint_tables = []
            for s, subset in enumerate(subsets):
                configurations = slice(starts[s], starts[s + 1])
                parents = [class_name, *(features[i] for i in subset)]
                joint_counts = np.asarray(engine.counts(parents))  # (C, r_S...)
                joint_tables.append(joint_counts)
                counts[:, configurations] = joint_counts.reshape(n_classes, -1)
                in_subset = set(subset.tolist())
                children = [k for k in range(p) if k not in in_subset]
                if not children:
                    continue
                # One pass counts N[y, x_S, x_k] of every child k: strata are (y, x_S), y slowest.
                one_way = engine.one_way_counts([features[k] for k in children], given=parents)
                # The family tables as AODE and naive Bayes hand them to the estimator: (C, r_S..., r_k),
                # and (C, 1, r_k) without super-parents; a subset's children estimated in one call.
                families = [
                    one_way.block(position).reshape(
                        (n_classes, *cards[subset].tolist(), int(cards[k])) if m else (n_classes, 1, int(cards[k]))
                    )
                    for position, k in enumerate(children)
                ]
                for k, conditional in zip(children, self.estimator_.conditionals(families)):
                    block = _log(conditional).reshape(n_classes, -1, int(cards[k]))
                    tables[:, configurations, offsets[k] : offsets[k + 1]] = block
            # Every subset's joint table in one search of an adaptive estimator's hyperparameters.
            for s, joint in enumerate(self.estimator_.joints(joint_tables)):
                log_joint[:, starts[s] : starts[s + 1]] = _log(joint).reshape(n_classes, -1)
            superparents.append(subsets)
            config_offsets.append(starts)
            log_joints.append(log_joint)
            parent_counts.append(counts)
            log_tables.append(tables)
        self.offsets_ = offsets
        self.superparents_ = superparents
        self.superparent_offsets_ = config_offsets
        self.superparent_log_joint_ = log_joints
        self.superparent_counts_ = parent_counts
        self.log_tables_ = log_tables

    def _superparent_tables(self):
        top = len(self.superparents_) - 1  # min(n, p): the members' level; those below serve the fallback
        return self.superparents_[top], self.superparent_counts_[top], self.superparent_offsets_[top]

    def _member_levels(self):
        return self.superparents_

    def _member_tables(self, positions):
        m = len(positions)
        subsets = self.superparents_[m]
        s = int(np.flatnonzero((subsets == np.asarray(positions, dtype=np.int64)).all(axis=1))[0])
        start, end = (int(v) for v in self.superparent_offsets_[m][s : s + 2])
        n_classes = len(self.classes_)
        offsets = self.offsets_
        shape = [int(r) for r in np.diff(offsets)[list(positions)]]
        log_joint = self.superparent_log_joint_[m][:, start:end].reshape(n_classes, *shape)
        chosen = set(positions)
        tables = [
            self.log_tables_[m][:, start:end, offsets[k] : offsets[k + 1]].reshape(n_classes, *shape, -1)
            for k in range(len(offsets) - 1)
            if k not in chosen
        ]
        return log_joint, tables

    def _check_size(self, cards, n_classes, top, names):
        """Raise before counting when the tables of levels ``0 .. top`` exceed ``max_cells`` in all."""
        # Elementary symmetric polynomials e_m(r): the number of joint values of all size-m
        # subsets, exactly (Python integers), without enumerating the subsets.
        symmetric = [1] + [0] * top
        for r in cards.tolist():
            for m in range(top, 0, -1):
                symmetric[m] += symmetric[m - 1] * r
        width = int(cards.sum())
        # Per joint value of a subset: K conditional cells, log P(y, x_S) and N[y, x_S], for each class.
        total = n_classes * (width + 2) * sum(symmetric)
        largest = sorted(range(len(cards)), key=lambda i: -int(cards[i]))[:top]
        block = n_classes * math.prod(int(cards[i]) for i in largest) * width
        check_cells(
            total,
            self.max_cells,
            what=f"tables for n={self.n} (the {math.comb(len(cards), top):,} super-parent subsets of {top} "
            f"of the {len(cards)} attributes have {symmetric[top]:,} joint values, each with a table of {n_classes} "
            f"classes x {width} attribute states, the largest block, over "
            f"{describe_variables([names[i] for i in largest], cards[largest])}, {block:,} cells; plus the levels "
            "below for the fallback)",
            fix=f"lower n (now {self.n}), merge rare states",
        )

    def _joint_log_likelihood(self, codes):
        n_rows, p = codes.shape
        n_classes = len(self.classes_)
        top = len(self.log_tables_) - 1
        n_subsets = len(self.superparents_[top])
        block = max(1, _BLOCK_CELLS // max(1, n_classes * n_subsets + n_subsets * top))
        result = np.empty((n_rows, n_classes))
        for start in range(0, n_rows, block):
            result[start : start + block] = self._level_log_likelihood(codes[start : start + block], top)
        return result

    def _explanation_terms(self, codes):
        """One term per attribute, averaged over the members (and their fallbacks) as :meth:`AODE._explanation_terms`.

        A member's joint ``log P(y, x_S)`` is split into the prior ``log P(y)`` (the level-0
        joint) and ``log P(y, x_S) - log P(y)`` shared equally by its super-parents.
        """
        from .explanations import MEMBERS, ExplanationTerms

        n, p = codes.shape
        n_classes = len(self.classes_)
        top = len(self.log_tables_) - 1
        n_subsets = len(self.superparents_[top])
        block = max(1, _BLOCK_CELLS // max(1, n_classes * n_subsets * (p + 1)))
        terms = np.zeros((n, n_classes, p))
        averaging = np.zeros((n, n_classes))
        for start in range(0, n, block):
            terms[start : start + block], averaging[start : start + block] = self._level_terms(
                codes[start : start + block], top
            )
        prior = self.superparent_log_joint_[0][:, 0]
        names = [*self.encoder_.columns_, MEMBERS]
        return ExplanationTerms(names, prior, np.concatenate([terms, averaging[:, :, None]], axis=2))

    def _level_terms(self, codes, m):
        """The terms of :meth:`_level_log_likelihood`'s average, level by level down the fallback."""
        from .explanations import mixture_terms

        n, p = codes.shape
        subsets = self.superparents_[m]  # (L, m)
        cards = np.diff(self.offsets_)
        observed = codes >= 0
        known = np.where(observed, codes, 0)
        subset_cards = cards[subsets]
        strides = np.ones_like(subset_cards)
        for j in range(m - 2, -1, -1):
            strides[:, j] = strides[:, j + 1] * subset_cards[:, j + 1]
        config = self.superparent_offsets_[m][:-1] + (known[:, subsets] * strides).sum(axis=2)  # (n, L)
        prior = self.superparent_log_joint_[0][:, 0]
        tables = self.log_tables_[m]
        state = known + self.offsets_[:-1]
        member_terms = np.zeros((len(self.classes_), n, len(subsets), p))
        for k in range(p):
            term = tables[:, config, state[:, k, None]]  # log P(x_k | y, x_S), 0 for k in S
            member_terms[:, :, :, k] = np.where(observed[None, :, k, None], term, 0.0)
        if m:
            share = (self.superparent_log_joint_[m][:, config] - prior[:, None, None]) / m  # (C, n, L)
            for position in range(m):
                member_terms[:, np.arange(n)[:, None], np.arange(len(subsets))[None, :], subsets[:, position]] += share
        member_terms = np.moveaxis(member_terms, 0, 1)  # (n, C, L, p)
        member_scores = prior[None, :, None] + member_terms.sum(axis=3)
        parents_seen = observed[:, subsets].all(axis=2)  # (n, L)
        counts = self.superparent_counts_[m]
        if m == 0:
            frequent = np.ones(member_scores.shape, dtype=bool)
        elif self.frequency == "attribute":
            frequent = np.broadcast_to(
                ((counts.sum(axis=0)[config] >= self.frequency_threshold) & parents_seen)[:, None, :],
                member_scores.shape,
            )
        else:
            frequent = np.moveaxis(counts[:, config] >= self.frequency_threshold, 0, 1) & parents_seen[:, None, :]
        _, terms, averaging = mixture_terms(member_scores, member_terms, frequent)
        qualified = frequent.any(axis=2)
        if m == 0 or qualified.all():
            return terms, averaging
        fallback = ~qualified.all(axis=1)
        lower_terms, lower_averaging = self._level_terms(codes[fallback], m - 1)
        terms[fallback] = np.where(qualified[fallback][:, :, None], terms[fallback], lower_terms)
        averaging[fallback] = np.where(qualified[fallback], averaging[fallback], lower_averaging)
        return terms, averaging

    def _level_log_likelihood(self, codes, m):
        """``log P(x, y)`` of A(m)DE, each (row, class) without a qualifying subset from A(m-1)DE."""
        averaged, qualified = self._average(codes, m)
        if m == 0 or qualified.all():
            return averaged
        fallback = ~qualified.all(axis=1)
        lower = self._level_log_likelihood(codes[fallback], m - 1)
        averaged[fallback] = np.where(qualified[fallback], averaged[fallback], lower)
        return averaged

    def _average(self, codes, m):
        """The average over qualifying size-m subsets, (n_rows, n_classes), and where any qualified."""
        n_rows, p = codes.shape
        n_classes = len(self.classes_)
        subsets = self.superparents_[m]  # (L, m)
        cards = np.diff(self.offsets_)
        observed = codes >= 0
        known = np.where(observed, codes, 0)
        # Configuration of each row's x_S for every subset S, in mixed radix (the last fastest).
        subset_cards = cards[subsets]
        strides = np.ones_like(subset_cards)
        for j in range(m - 2, -1, -1):
            strides[:, j] = strides[:, j + 1] * subset_cards[:, j + 1]
        config = self.superparent_offsets_[m][:-1] + (known[:, subsets] * strides).sum(axis=2)  # (n, L)
        parents_seen = observed[:, subsets].all(axis=2)  # (n, L)
        tables = self.log_tables_[m]
        total = self.superparent_log_joint_[m][:, config]  # (C, n, L)
        state = known + self.offsets_[:-1]
        for k in range(p):
            seen = observed[:, k]
            if not seen.any():
                continue
            term = tables[:, config, state[:, k, None]]  # log P(x_k | y, x_S), 0 for k in S
            total += term if seen.all() else np.where(seen[None, :, None], term, 0.0)
        counts = self.superparent_counts_[m]
        if m == 0:
            frequent = np.ones((n_classes, n_rows, 1), dtype=bool)
        elif self.frequency == "attribute":
            frequent = np.broadcast_to(
                ((counts.sum(axis=0)[config] >= self.frequency_threshold) & parents_seen)[None],
                total.shape,
            )
        else:
            frequent = (counts[:, config] >= self.frequency_threshold) & parents_seen[None]
        n_frequent = frequent.sum(axis=2)  # (C, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            averaged = logsumexp(np.where(frequent, total, -np.inf), axis=2) - np.log(n_frequent)
        return averaged.T.copy(), (n_frequent > 0).T
