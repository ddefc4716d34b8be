"""Choosing a classifier's estimator by leave-one-out conditional log-likelihood, from the counts.

For an estimator defined by pseudo-counts (every estimator here, see
:meth:`Estimator.pseudo_counts`), the estimate of a family's table without
training row ``i`` is exact arithmetic on the counts: the row's own cell
loses its weight, ``(N_cell - w_i + a_cell) / (N_pa - w_i + A_pa)``, and no
other cell changes. The class posterior of row ``i`` under the model fitted
without it therefore costs one gather per family, and the leave-one-out
log-loss of a candidate estimator costs about one prediction on the training
rows, with no refit. :class:`LeaveOneOutSelection` uses it to pick, inside a
classifier's ``fit``, the candidate whose held-out class probabilities are
best; the structure, learned once, is shared by every candidate.

The hyperparameters an adaptive estimator picks from the data (an
empirical-Bayes sample size, a smoothing toward the marginal) are held at
their values on all rows: only the counts are left out.

References
----------
.. [1] Martinez, A. M., Webb, G. I., Chen, S., & Zaidi, N. A. (2016).
       Scalable learning of Bayesian network classifiers. *Journal of Machine
       Learning Research*, 17(44), 1-35 (leave-one-out cross-validation of a
       Bayesian network classifier from its counts, without refitting).
.. [2] Kohavi, R. (1995). A study of cross-validation and bootstrap for
       accuracy estimation and model selection. *IJCAI*, 1137-1145.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._special import log_sum_exp_rows
from .parameters import ESTIMATORS, Estimator, _divided_or_uniform, get_estimator, segment_starts

if TYPE_CHECKING:
    from ..stats.counting import CountingEngine

__all__ = [
    "DEFAULT_SELECTION_CANDIDATES",
    "FamilyCells",
    "LeaveOneOutScorer",
    "LeaveOneOutSelection",
    "RememberedPseudoCounts",
    "class_prior_cells",
    "family_cells",
    "leave_one_out_correction",
    "leave_one_out_scores",
]

#: The candidates of ``LeaveOneOutSelection()``: fixed priors of several strengths and kinds, and the adaptive ones.
DEFAULT_SELECTION_CANDIDATES = (
    "bdeu-auto",
    "hierarchical",
    "laplace",
    "dirichlet(0.5)",
    "bdeu(5)",
    "bdeu(50)",
    "marginal-smoothing(1)",
    "marginal-smoothing(5)",
    "marginal-smoothing(20)",
)

#: Rows scored at most (a fixed-seed sample of the training rows beyond it): the choice, not the fit, reads them.
MAX_SELECTION_ROWS = 2000

#: The floor of a held-out probability, as in scikit-learn's log_loss.
_CLIP = 1e-15


@dataclass(frozen=True)
class FamilyCells:
    """One family table and the cell each scored training row falls in (for its own class).

    Attributes
    ----------
    counts : ndarray
        The family's count table (child on the last axis; for ``joint``, the
        whole table is one distribution).
    pseudo_counts : ndarray
        The estimator's pseudo-counts for that table (same shape).
    cells : ndarray of int
        For each row in `rows`, the flat index of its cell in `counts`.
    rows : ndarray of int or None
        The scored rows this family applies to (None: all of them), such as
        the rows of one class for a per-class table.
    conditional : bool
        Normalized along the last axis (a CPT whose parent configurations
        hold the class, so that leaving a row out changes only its own
        class's column), or over the whole table (the class prior: its
        normalizer is common to every class column).
    """

    counts: np.ndarray
    pseudo_counts: np.ndarray
    cells: np.ndarray
    rows: np.ndarray | None = None
    conditional: bool = True


def family_cells(
    counts: ArrayLike,
    estimator: Estimator,
    index: Sequence[ArrayLike],
    *,
    rows: ArrayLike | None = None,
    conditional: bool = True,
) -> FamilyCells:
    """A :class:`FamilyCells` from a family table, its estimator and each row's index along every axis.

    Parameters
    ----------
    counts : array-like
        The table, shaped exactly as the model hands it to the estimator.
    estimator : Estimator
    index : sequence of arrays (or ints, for an axis of size 1), one per axis of `counts`
        Each scored row's state on that axis.
    rows : array-like of int, optional
        The scored rows the family applies to (default: every one).
    conditional : bool, default=True

    Returns
    -------
    FamilyCells
    """
    counts = np.asarray(counts, dtype=np.float64)
    axes = [np.atleast_1d(np.asarray(i, dtype=np.int64)) for i in index]
    n = len(np.asarray(rows)) if rows is not None else max((len(a) for a in axes), default=1)
    cells = np.ravel_multi_index(tuple(np.broadcast_to(a, (n,)) for a in axes), counts.shape)
    return FamilyCells(
        counts=counts,
        pseudo_counts=estimator.pseudo_counts(counts, conditional=conditional),
        cells=np.asarray(cells, dtype=np.int64),
        rows=None if rows is None else np.asarray(rows, dtype=np.int64),
        conditional=conditional,
    )


def class_prior_cells(engine: CountingEngine, y: ArrayLike, estimator: Estimator) -> FamilyCells:
    """The class prior's table and each scored row's cell (the class is the engine's last variable).

    Parameters
    ----------
    engine : CountingEngine
    y : array-like of int, shape (n_rows,)
        Class codes of the scored rows.
    estimator : Estimator

    Returns
    -------
    FamilyCells
    """
    return family_cells(engine.counts([engine.names[-1]]), estimator, (y,), conditional=False)


def table_key(counts: ArrayLike) -> tuple[tuple[int, ...], bytes]:
    """A table's identity by content: its shape and a 128-bit digest of its float64 counts.

    Equal tables get equal keys (a multinet's classes read one table), and a key
    holds 16 bytes, not a copy of the table.
    """
    table = np.ascontiguousarray(counts, dtype=np.float64)
    return table.shape, hashlib.blake2b(table.tobytes(), digest_size=16).digest()


def _identity(counts):
    """The object a table's digest is kept with, and a key that names the table while that object lives.

    A table is itself; a view of a read-only array (the counting engine hands out its cached tables
    so, transposed to the order asked for: a new view at every call) is that array and the view's
    place in it, so that asking again finds the digest without hashing the table again.
    """
    root = counts
    while isinstance(root, np.ndarray) and root.base is not None:
        root = root.base
    if root is counts or not isinstance(root, np.ndarray) or root.flags.writeable:
        return counts, (id(counts),)
    interface = counts.__array_interface__
    return root, (id(root), interface["data"][0], counts.shape, counts.strides, counts.dtype.str)


def leave_one_out_correction(family: FamilyCells, weights: ArrayLike) -> np.ndarray:
    """``log theta_without_row - log theta`` at each row's cell of one family.

    Parameters
    ----------
    family : FamilyCells
    weights : array-like of shape (n_rows_of_family,)
        The weight each row carries in the counts (1 for an unweighted row).
        A weight stands for that many rows, each left out on its own: one
        unit is removed (all of a weight below 1).

    Returns
    -------
    ndarray of shape (n_rows_of_family,)
        The change of the row's own class column of ``log P(x, y)``; for a
        joint table (the class prior) without the change of its normalizer,
        which every class column shares. ``-inf`` where the row was the only
        support of a cell the estimator gives no pseudo-count (maximum
        likelihood).
    """
    counts = np.asarray(family.counts, dtype=np.float64)
    smoothed = counts + family.pseudo_counts
    cells = np.asarray(family.cells, dtype=np.int64)
    # A frequency weight w stands for w rows, each left out on its own: one unit goes
    # (all of a fractional weight below 1), so weights equal repeated rows.
    w = np.minimum(np.asarray(weights, dtype=np.float64), 1.0)
    cell = smoothed.reshape(-1)[cells]
    if not family.conditional:
        # One distribution over the class: its normalizer loses w_i in every class
        # column alike, and a term common to all columns cancels in the posterior.
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.maximum(cell - w, 0.0)) - np.log(cell)
    # The row's parent configuration is its cell's index over the child's states: no broadcast copy.
    total = smoothed.sum(axis=-1).reshape(-1)[cells // counts.shape[-1]]
    return _conditional_change(cell, total, w, counts.shape[-1])


def _conditional_change(cell, total, w, n_states):
    """``log theta_without_row - log theta`` of a CPT cell from its smoothed count and its configuration's total."""
    # One log of the ratio (cell - w) / cell * total / (total - w), not four: this is the
    # selection's innermost loop.
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.log(np.maximum(cell - w, 0.0) * total / (cell * (total - w)))
    empty = np.flatnonzero(total - w <= 0)
    if empty.size:
        # A parent configuration with no support left: the estimator's fallback, uniform.
        states = np.broadcast_to(n_states, np.shape(cell))[empty]
        change[empty] = -np.log(states) - np.log(cell[empty] / total[empty])
    return change


def leave_one_out_scores(
    joint_log_likelihood: ArrayLike, y: ArrayLike, weights: ArrayLike, families: Sequence[FamilyCells]
) -> tuple[float, float]:
    """Leave-one-out log-loss and error of a classifier from its training-row likelihoods and families.

    Parameters
    ----------
    joint_log_likelihood : array-like of shape (n_rows, n_classes)
        ``log P(x_i, c)`` of the scored training rows under the model fitted
        on all rows.
    y : array-like of int, shape (n_rows,)
        Class codes of the scored rows.
    weights : array-like of shape (n_rows,)
        Their weights.
    families : sequence of FamilyCells
        Every table the row's own class column reads (the class prior
        included), with the row's cell in each.

    Returns
    -------
    log_loss : float
        Weighted mean of ``-log P_{-i}(y_i | x_i)`` in nats, each probability
        clipped at 1e-15.
    error : float
        Weighted rate of rows whose most probable class without them is not
        their own.
    """
    return LeaveOneOutScorer(families, y, weights).score(joint_log_likelihood, [f.pseudo_counts for f in families])


class LeaveOneOutScorer:
    """:func:`leave_one_out_scores` of many candidates that share the families' tables and cells.

    Everything but the pseudo-counts is laid out once: the conditional
    families' distinct tables end to end (each parent configuration a run of
    its child's states, so one ``reduceat`` gives every configuration's
    total) and every scored row's cell in them, so that a candidate costs one
    vectorized pass. Families with equal tables (a multinet's classes each
    read their slice of one table over every class) share one copy, as they
    share its pseudo-counts.

    Parameters
    ----------
    families : sequence of FamilyCells
        Their ``pseudo_counts`` are not read (the candidates bring theirs).
    y : array-like of int, shape (n_rows,)
    weights : array-like of shape (n_rows,)
    """

    def __init__(self, families: Sequence[FamilyCells], y: ArrayLike, weights: ArrayLike) -> None:
        self.families = list(families)
        self.y = np.asarray(y, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)
        n_rows = len(self.y)
        self._conditional = [i for i, f in enumerate(self.families) if f.conditional]
        conditional = [self.families[i] for i in self._conditional]
        if not conditional:
            return
        # Each distinct table once (by shape and a digest of its counts), and the table of each family.
        distinct: dict[tuple[tuple[int, ...], bytes], int] = {}
        table_of = np.empty(len(conditional), dtype=np.int64)
        self._first_family: list[int] = []  # per distinct table: the position (in families) of its first family
        for k, (i, f) in enumerate(zip(self._conditional, conditional)):
            key = table_key(f.counts)
            if key not in distinct:
                distinct[key] = len(self._first_family)
                self._first_family.append(i)
            table_of[k] = distinct[key]
        tables = [self.families[i].counts for i in self._first_family]
        states = np.array([t.shape[-1] for t in tables], dtype=np.int64)
        sizes = np.array([t.size for t in tables], dtype=np.int64)
        runs = np.repeat(states, sizes // states)
        self._counts = np.concatenate([np.asarray(t, np.float64).reshape(-1) for t in tables])
        self._run_starts = segment_starts(runs)
        cell_offsets, config_offsets = segment_starts(sizes), segment_starts(sizes // states)
        lengths = np.array([len(f.cells) for f in conditional], dtype=np.int64)
        cells = np.concatenate([f.cells for f in conditional])
        self._states = np.repeat(states[table_of], lengths)
        self._configs = cells // self._states + np.repeat(config_offsets[table_of], lengths)
        self._cells = cells + np.repeat(cell_offsets[table_of], lengths)
        # Each table's leading axis and the cells of one of its values: the cells of a row's other
        # classes, when the class leads every table (joint_log_likelihood).
        leading = np.array([t.shape[0] if t.ndim else 1 for t in tables], dtype=np.int64)
        self._leading = leading
        self._class_strides = np.repeat((sizes // np.maximum(leading, 1))[table_of], lengths)
        w = np.minimum(self.weights, 1.0)
        if all(f.rows is None for f in conditional):
            self._rows = None
            self._w = np.tile(w, len(conditional))
        else:
            self._rows = np.concatenate([np.arange(n_rows) if f.rows is None else f.rows for f in conditional])
            self._w = w[self._rows]

    def class_leads(self, n_classes: int) -> bool:
        """Whether every conditional family's table has the class as its first axis and reads every scored row.

        Then :meth:`joint_log_likelihood` can give ``log P(x_i, c)`` from the counts alone.
        """
        return bool(self._conditional) and self._rows is None and bool((self._leading == n_classes).all())

    def joint_is_cheaper_than_tables(self, n_classes: int) -> bool:
        """Whether :meth:`joint_log_likelihood` reads fewer cells than normalizing the tables would.

        It gathers every scored row's cell of every class in every family; normalizing
        touches every cell of every table, most of them empty in a table of many parents.
        """
        return self.class_leads(n_classes) and n_classes * len(self._cells) < len(self._counts)

    def _smoothed(self, pseudo_counts):
        """The distinct tables' counts plus the candidate's pseudo-counts, end to end, and every configuration's total."""
        extra = np.concatenate([np.asarray(pseudo_counts[i], np.float64).reshape(-1) for i in self._first_family])
        smoothed = self._counts + extra
        return smoothed, np.add.reduceat(smoothed, self._run_starts)

    def score_from_counts(self, pseudo_counts: Sequence[np.ndarray], class_log_prior: ArrayLike) -> tuple[float, float]:
        """:meth:`score` of a candidate whose ``log P(x_i, c)`` is :meth:`joint_log_likelihood`'s (its tables unfitted)."""
        smoothed = self._smoothed(pseudo_counts)
        return self._score(self.joint_log_likelihood(pseudo_counts, class_log_prior, smoothed), pseudo_counts, smoothed)

    def joint_log_likelihood(
        self, pseudo_counts: Sequence[np.ndarray], class_log_prior: ArrayLike, _smoothed: Any = None
    ) -> np.ndarray:
        """``log P(x_i, c)`` of every scored row and class under the tables a candidate would fit, without them.

        Each family's ``log((N_cell + a_cell) / sum_child (N + a))`` is read at the row's
        cell for each class (uniform where a configuration has no mass, as
        :meth:`Estimator.conditional`), so that a candidate is scored without normalizing
        its tables: for models whose families all lead with the class
        (:meth:`class_leads`). Equal to the fitted model's ``_joint_log_likelihood`` up to
        the rounding of the sums.

        Parameters
        ----------
        pseudo_counts : sequence of ndarray
            The candidate's, one per family (as for :meth:`score`).
        class_log_prior : array-like of shape (n_classes,)
            The candidate's ``log P(c)``.

        Returns
        -------
        ndarray of shape (n_rows, n_classes)
        """
        prior = np.asarray(class_log_prior, dtype=np.float64)
        if not self.class_leads(len(prior)):
            raise ValueError("joint_log_likelihood needs families whose tables lead with the class, over every row.")
        smoothed, totals = self._smoothed(pseudo_counts) if _smoothed is None else _smoothed
        n_rows, n_families = len(self.y), len(self._conditional)
        own = np.tile(self.y, n_families)
        uniform = 1.0 / self._states
        joint = np.empty((n_rows, len(prior)))
        for c in range(len(prior)):
            shift = (c - own) * self._class_strides  # from the row's own class's cell to class c's
            cells = self._cells + shift
            configurations = self._configs + shift // self._states
            with np.errstate(divide="ignore"):
                values = np.log(_divided_or_uniform(smoothed[cells], totals[configurations], uniform))
            joint[:, c] = prior[c] + values.reshape(n_families, n_rows).sum(axis=0)
        return joint

    def score(self, joint_log_likelihood: ArrayLike, pseudo_counts: Sequence[np.ndarray]) -> tuple[float, float]:
        """Leave-one-out (log-loss, error) of one candidate: its ``log P(x_i, c)`` and each family's pseudo-counts."""
        return self._score(
            joint_log_likelihood, pseudo_counts, self._smoothed(pseudo_counts) if self._conditional else None
        )

    def _score(self, joint_log_likelihood, pseudo_counts, smoothed_and_totals):
        jll = np.array(joint_log_likelihood, dtype=np.float64)
        y, w = self.y, self.weights
        correction = np.zeros(len(y))
        if self._conditional:
            smoothed, totals = smoothed_and_totals
            change = _conditional_change(smoothed[self._cells], totals[self._configs], self._w, self._states)
            if self._rows is None:
                correction += change.reshape(len(self._conditional), len(y)).sum(axis=0)
            else:
                correction += np.bincount(self._rows, weights=change, minlength=len(y))
        for family, pseudo in zip(self.families, pseudo_counts):
            if not family.conditional:
                rows = slice(None) if family.rows is None else family.rows
                joint = FamilyCells(family.counts, pseudo, family.cells, family.rows, False)
                correction[rows] += leave_one_out_correction(joint, w[rows])
        index = np.arange(len(y))
        jll[index, y] += correction
        with np.errstate(invalid="ignore"):
            log_posterior = jll[index, y] - log_sum_exp_rows(jll)
        log_posterior = np.where(np.isnan(log_posterior), -np.inf, log_posterior)
        total = w.sum()
        if total <= 0:  # every scored row weighs 0: no evidence either way
            return float("nan"), float("nan")
        log_loss = float(-(w * np.maximum(log_posterior, np.log(_CLIP))).sum() / total)
        error = float((w * (np.argmax(jll, axis=1) != y)).sum() / total)
        return log_loss, error


class LeaveOneOutSelection(Estimator):
    """The candidate estimator with the best leave-one-out log-loss, chosen inside ``fit``.

    A classifier given this estimator learns its structure once, then fits
    its tables with each candidate and scores the class probabilities of
    every training row as if that row had been left out (exact for the
    counts, see :mod:`graphmodels.estimators.selection`), and keeps the
    candidate with the lowest mean log-loss (ties, within a relative 1e-9: the first listed). The
    fitted model's ``estimator_`` is the chosen candidate and
    ``estimator_selection_`` a DataFrame of every candidate's leave-one-out
    log-loss and error. Beyond 2,000 training rows a fixed-seed sample of
    2,000 is scored (the tables always use every row).

    Supported by the classifiers whose log-likelihood is a sum over family
    tables: :class:`~graphmodels.NaiveBayes`, :class:`~graphmodels.TAN`,
    :class:`~graphmodels.FAN`, :class:`~graphmodels.ChowLiu`,
    :class:`~graphmodels.KDB`, :class:`~graphmodels.HyperforestClassifier`
    and :class:`~graphmodels.HierarchicalNaiveBayes` (naive Bayes over the
    class's children, the latents' values inferred); the others raise
    ``ValueError`` at ``fit``.

    Parameters
    ----------
    candidates : sequence of estimators, names or dicts, optional
        Default: :data:`DEFAULT_SELECTION_CANDIDATES` (empirical-Bayes BDeu,
        hierarchical Dirichlet, Laplace, Dirichlet 0.5, BDeu 5 and 50, and
        Friedman et al.'s smoothing toward the marginal with N0 = 1, 5, 20).

    References
    ----------
    .. [1] Martinez, A. M., Webb, G. I., Chen, S., & Zaidi, N. A. (2016).
           Scalable learning of Bayesian network classifiers. *Journal of
           Machine Learning Research*, 17(44), 1-35.

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("car")
    >>> X, y = frame.drop(columns="class"), frame["class"]
    >>> model = gm.TAN(estimator=LeaveOneOutSelection(["laplace", "bdeu(50)"])).fit(X, y)
    >>> model.estimator_selection_.columns.tolist()
    ['candidate', 'log_loss', 'error']
    >>> model.estimator_ in (get_estimator("laplace"), get_estimator("bdeu(50)"))
    True
    """

    name = "leave-one-out"

    def __init__(self, candidates: Sequence[Estimator | str | dict[str, Any]] | None = None) -> None:
        if candidates is None:
            candidates = DEFAULT_SELECTION_CANDIDATES
        if isinstance(candidates, (str, dict, Estimator)):
            raise TypeError(
                f"`candidates` must be a sequence of estimators, got a single {type(candidates).__name__}; "
                "wrap it in a list."
            )
        resolved = tuple(get_estimator(c) for c in candidates)
        if not resolved:
            raise ValueError("`candidates` must name at least one estimator.")
        if any(isinstance(c, LeaveOneOutSelection) for c in resolved):
            raise ValueError("`candidates` cannot hold another LeaveOneOutSelection.")
        self.candidates = resolved

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        raise TypeError(
            "LeaveOneOutSelection chooses an estimator inside a classifier's fit; it estimates no table "
            "itself. Pass it as `estimator=` to NaiveBayes, TAN, FAN, ChowLiu, KDB, HyperforestClassifier or "
            "HierarchicalNaiveBayes."
        )

    def _params(self) -> dict[str, Any]:
        return {"candidates": [c.to_dict() for c in self.candidates]}

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.candidates))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(candidates={[_short_name(c) for c in self.candidates]!r})"


class RememberedPseudoCounts(Estimator):
    """A candidate whose pseudo-counts are worked out once per table, for one selection.

    During a selection each table is handed to a candidate twice (for its
    estimate and for the leave-one-out scores); an adaptive candidate (an
    empirical-Bayes search) would repeat its search each time. This wrapper
    keeps the answers, keyed by the table's contents (:func:`table_key`), and
    :meth:`remember` works out every table's in one batch.

    Parameters
    ----------
    estimator : Estimator
    keys : dict, optional
        The digests of the tables seen so far, shared by the candidates of one selection: a
        table is hashed once, not once per candidate (a 12-state family of selective KDB with
        five parents holds millions of cells; hashed for each of nine candidates, that took
        two fifths of its fit on mushroom).
    """

    def __init__(self, estimator: Estimator, keys: dict[tuple[Any, ...], Any] | None = None) -> None:
        self.estimator = estimator
        self.name = estimator.name
        self._memory: dict[tuple[bool, tuple[tuple[int, ...], bytes]], np.ndarray] = {}
        # The same tables come back for every candidate (the engine caches them): their keys by
        # identity (:func:`_identity`), each entry holding its table so that the id cannot be reused meanwhile.
        self._keys: dict[tuple[Any, ...], tuple[Any, tuple[tuple[int, ...], bytes]]] = {} if keys is None else keys

    def _key(self, counts, conditional):
        owner, identity = _identity(counts)
        entry = self._keys.get(identity)
        if entry is None or entry[0] is not owner:
            entry = self._keys[identity] = (owner, table_key(counts))
        return conditional, entry[1]

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        key = self._key(counts, conditional)
        if key not in self._memory:
            self._memory[key] = self.estimator.pseudo_counts(counts, conditional=conditional)
        return self._memory[key]

    def remember(self, families: Sequence[FamilyCells]) -> None:
        """Work out the pseudo-counts of every family's table in one batch (an adaptive search: one for all)."""
        for conditional in (True, False):
            missing = {}
            for family in families:
                key = self._key(family.counts, conditional)
                if family.conditional == conditional and key not in self._memory:
                    missing[key] = family.counts
            tables = self.estimator.pseudo_counts_of_tables(list(missing.values()), conditional=conditional)
            self._memory.update(zip(missing, tables))

    def _params(self) -> dict[str, Any]:
        return self.estimator._params()


def _short_name(estimator):
    params = list(estimator._params().values())
    return estimator.name if not params else f"{estimator.name}({', '.join(f'{p:g}' for p in params)})"


# Registered here rather than in parameters.py, which this module builds on.
ESTIMATORS["leave-one-out"] = LeaveOneOutSelection
