"""Selective KDB (Martinez, Webb, Chen & Zaidi, 2016): a KDB sub-model chosen by leave-one-out.

One KDB structure is learned with the largest `k`
(:func:`~graphmodels.learners.kdb_ranking`); every sub-model that keeps the
first ``s`` attributes of its order and the first ``k'`` parents of each is
then scored by exact leave-one-out on the counts, all at once, and the best
one is fitted.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._special import log_sum_exp_last
from .._trace import Trace
from .._validation import Interval, Options, Predicate
from ..estimators.discriminative import Discriminative
from ..estimators.parameters import (
    CONDITIONALS_BATCH_CELLS,
    Estimator,
    _divided_or_uniform,
    batches_of_cells,
    get_estimator,
)
from ..estimators.selection import (
    MAX_SELECTION_ROWS,
    LeaveOneOutSelection,
    _conditional_change,
    class_prior_cells,
    leave_one_out_correction,
)
from ..learners.kdb import kdb_ranking, kdb_substructure
from ..stats.counting import DEFAULT_MAX_CELLS
from . import _fitted
from .kdb import KDB
from .registry import register_model

if TYPE_CHECKING:
    from collections.abc import Hashable

    from ..stats.counting import CountingEngine

__all__ = ["SelectiveKDB"]

#: The floor of a held-out probability in the log-loss, as in scikit-learn's log_loss.
_CLIP = 1e-15


def _log_loss(log_posterior, predicted, weights):
    return -(weights * np.maximum(log_posterior, np.log(_CLIP))).sum(axis=-1) / weights.sum()


def _rmse(log_posterior, predicted, weights):
    return np.sqrt((weights * (1.0 - np.exp(log_posterior)) ** 2).sum(axis=-1) / weights.sum())


def _zero_one(log_posterior, predicted, weights):
    return (weights * ~predicted).sum(axis=-1) / weights.sum()


#: Leave-one-out losses of (k, number of attributes) sub-models, by name: each takes the
#: held-out log-probability of every scored row's own class, whether the row's own class is
#: the most probable one (ties: the first class), and the rows' weights (rows on the last axis;
#: one loss per sub-model of the leading axes).
_LOSSES = {"log-loss": _log_loss, "rmse": _rmse, "zero-one": _zero_one}

#: What the selection may change: both k and the number of attributes, one of them, or nothing.
_SELECTIONS = ("both", "attributes", "k", "none")


#: The estimator that scores the (k, number of attributes) grid when ``estimator`` is a
#: LeaveOneOutSelection (see the class docstring for the evidence).
GRID_ESTIMATOR = "laplace"


def _check_grid_estimator(value):
    """None, or one estimator defined by pseudo-counts (get_estimator's own error names a bad one)."""
    return value is None or not isinstance(get_estimator(value), (LeaveOneOutSelection, Discriminative))


def _log(table):
    with np.errstate(divide="ignore"):
        return np.log(table)


@register_model("skdb")
class SelectiveKDB(KDB):
    """Selective k-dependence Bayesian classifier (SKDB; Martinez et al., 2016).

    A KDB [2]_ whose `k` and whose attributes are chosen by leave-one-out
    cross-validation on the training counts, as in Martinez et al. [1]_:

    1. learn Sahami's KDB structure with ``k = max_k``
       (:func:`~graphmodels.learners.kdb_ranking`): attributes ordered by
       ``I(X_i; C)``, each taking up to `max_k` earlier ones by decreasing
       ``I(X_i; X_j | C)``, leaving out a parent whose family table would
       exceed `max_cells`. Sahami's parents are nested: the KDB with
       ``k' < max_k`` keeps the first ``k'`` parents of each attribute;
    2. score every sub-model ``(k', s)``, ``k'`` in ``0 .. max_k`` and ``s``
       in ``0 .. n_features`` (the first ``s`` attributes of the order, each
       with its first ``k'`` parents), by the class probabilities of every
       training row under the sub-model fitted without that row, and keep
       the one of lowest `loss` (ties: fewer attributes, then smaller
       ``k'``). Dropped attributes do not enter the likelihood.

    The structure is learned once, on all rows; leave-one-out re-estimates
    only the tables, exactly and without refitting (see Notes).

    Parameters
    ----------
    max_k : int, default=5
        Largest number of attribute parents of an attribute, ``>= 0``; the
        selection tries every ``k'`` from 0 (naive Bayes) to it, each
        larger one at the cost of one more table per attribute that has
        that many parents.
    min_conditional_mutual_information : float, default=0.0
        Sahami's threshold :math:`\\theta`, as in :class:`KDB`.
    loss : {"log-loss", "rmse", "zero-one"}, default="log-loss"
        The leave-one-out loss minimized: the mean of ``-log P(y_i | x_i)``
        (nats, probabilities clipped at 1e-15); the root mean squared error
        of the probability of the row's own class, ``sqrt(mean (1 - P(y_i |
        x_i))**2)``, which is what the implementation of [1]_ minimizes; or
        the error rate (ties are frequent, and go to the smaller model).
        Log-loss is the loss of the library's other leave-one-out choices
        (:class:`~graphmodels.estimators.LeaveOneOutSelection`); in 5-fold
        cross-validation on the 15 bundled classification sets with at
        least 5 rows per class, it and RMSE gave about the same mean
        held-out log-loss (0.297 and 0.296 nats); log-loss was lower on 6
        sets, higher on 4.
    select : {"both", "attributes", "k", "none"}, default="both"
        What is selected: ``k'`` and the attributes (SKDB as in [1]_), only
        the attributes (``k' = max_k``), only ``k'`` (every attribute), or
        nothing (``KDB(k=max_k)``, with the grid still scored).
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="leave-one-out"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`.
        A single estimator both scores the ``(k', s)`` grid and fits the
        final tables. A :class:`~graphmodels.estimators.LeaveOneOutSelection`
        (the default, as for :class:`KDB`) is not one prior: the grid is
        scored with Laplace's estimator (``"laplace"``, a pseudo-count of 1
        per cell), then the selection chooses the prior of the chosen
        sub-model's tables among its candidates, as in :class:`KDB`
        (``estimator_``, ``estimator_selection_``). This default had the
        best average rank of every candidate in
        ``benchmarks/bench_defaults.py --quick``. Scoring the grid with
        Laplace rather than empirical-Bayes BDeu gave lower held-out
        log-loss on 8 of the 15 bundled sets above (higher on 3): empirical
        Bayes smooths the table of an uninformative attribute toward the
        uniform, so that keeping it costs almost nothing and whether it is
        dropped is nearly a coin toss.
    grid_estimator : str, dict or Estimator, optional
        The estimator that scores the ``(k', s)`` grid, when it is not
        the one above: one prior defined by pseudo-counts (not a selection,
        not discriminative). With the default (None) it is `estimator`, or
        Laplace's under a selection. ``estimator=BDeu(5),
        grid_estimator="laplace"`` fits the sub-model a selection that
        chose ``BDeu(5)`` fits, without scoring the prior again
        (:class:`~graphmodels.BNClassifier`'s inner folds).
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states, as in :class:`KDB`.
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals, whatever their
        type: integer codes of categories, say. A pandas ``category`` column
        is never cut either. When ``discretizer="auto"`` cuts a column of whole
        numbers, ``fit`` warns (:class:`~graphmodels.data.IntegerColumnsCutWarning`).
    missing : {"value", "error"}, default="value"
        Missing cells as a state of their own, or refused.
    max_cells : int, default=10_000_000
        Largest table the model may allocate: a candidate parent whose
        family table would exceed it is left out of the structure, and
        summing out unseen cells whose cliques would exceed it raises
        :class:`~graphmodels.stats.TableTooLargeError` (a ``ValueError``) naming `max_k`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    k_ : int
        The chosen ``k'``.
    selected_features_ : ndarray of shape (n_selected,)
        Names of the kept attributes, in the order of the columns of `X`
        (positions for an `X` without column names). The likelihood reads
        these columns only.
    support_ : ndarray of bool, shape (n_features,)
        Which columns of `X` are kept.
    feature_order_ : ndarray of shape (n_features,)
        Every attribute by decreasing ``I(X_i; C)``: the sub-model with
        ``n_attributes = s`` keeps the first ``s``.
    selection_scores_ : DataFrame
        One row per sub-model: ``k``, ``n_attributes`` and its leave-one-out
        ``loss`` (the chosen one is the lowest among those `select` allows).
    structure_ : nx.DiGraph
        The chosen sub-model: the class node (``role="class"``) with an arc
        to every kept attribute (``kind="class"``, ``weight`` =
        ``I(X_i; C)``) and the arcs between them (``kind="augmenting"``,
        ``weight`` = ``I(X_i; X_j | C)``). Dropped attributes are absent.
    feature_parents_ : list of tuple of int
        For each kept attribute (in the order of ``selected_features_``),
        the positions in ``selected_features_`` of its attribute parents
        (its first ``k_`` by conditional mutual information), in the order
        of ``feature_order_`` as in :class:`KDB`.
    class_log_prior_ : ndarray of shape (n_classes,)
    log_tables_ : list of ndarray
        ``log_tables_[i]`` has shape ``(n_classes, r_parent_1, ...,
        r_parent_m, r_i)`` and holds ``log P(x_i | y, x_parents)`` of the
        i-th kept attribute.
    estimator_ : Estimator
        The estimator of the final tables.
    encoder_ : TableEncoder
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when `X` had string column names.
    trace_ : DataFrame
        Only with ``trace=True``: the steps of Sahami's search with
        ``k = max_k`` as :func:`~graphmodels.learners.kdb_ranking` records
        them, then a ``"select"`` step: ``item`` the chosen ``(k_,
        n_attributes)``, ``score`` its leave-one-out loss. The chosen
        sub-model keeps the first ``n_attributes`` of the ``"order"`` steps,
        each with its first ``k_`` accepted parents.

    See Also
    --------
    KDB : one `k`, every attribute.
    graphmodels.learners.kdb_ranking : the structure and its nesting.
    graphmodels.learners.kdb_substructure : the structure of a sub-model.

    Notes
    -----
    For an estimator defined by pseudo-counts, a family's table without
    training row ``i`` differs from the table on all rows in the row's own
    cell only (:mod:`graphmodels.estimators.selection`), so ``log P_{-i}(x_i,
    y_i)`` is ``log P(x_i, y_i)`` plus one correction per family, and the
    other classes' columns change at most by a term common to every class,
    which the posterior cancels. Both the log-likelihood and the corrections
    are sums over the attributes: for each ``k'`` one cumulative sum along
    the attribute order gives the held-out class probabilities of every
    prefix ``s`` at once. Each of the ``(max_k + 1) x (n_features + 1)``
    sub-models costs one addition and one log-sum-exp over the scored rows,
    and each attribute needs one table per distinct number of parents; under
    an estimator of one pseudo-count per table, a table whose parents have
    more configurations than there are rows is counted at the configurations
    the rows hold only. Beyond 2,000 training rows a fixed-seed sample of 2,000 is scored, as
    :class:`~graphmodels.estimators.LeaveOneOutSelection` does; the tables
    always use every row.

    An adaptive estimator (``"bdeu-auto"``) picks its hyperparameters from
    all rows; only the counts are left out. Martinez et al. learn the
    structure and score the sub-models in two passes over the data (three
    with the final tables); here the counts are held in memory and every
    table comes from the counting engine.

    References
    ----------
    .. [1] Martinez, A. M., Webb, G. I., Chen, S., & Zaidi, N. A. (2016).
           Scalable learning of Bayesian network classifiers. *Journal of
           Machine Learning Research*, 17(44), 1-35.
    .. [2] Sahami, M. (1996). Learning limited dependence Bayesian
           classifiers. In *Proceedings of KDD-96*, 335-338.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.8, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.9, a ^ y, rng.integers(0, 2, 400))  # mostly a XOR y
    >>> X = pd.DataFrame({"a": a, "b": b, "noise": rng.integers(0, 4, 400)})
    >>> model = SelectiveKDB(max_k=2, estimator="laplace").fit(X, y)
    >>> model.k_, model.selected_features_.tolist()
    (1, ['a', 'b'])
    >>> model.selection_scores_.columns.tolist()
    ['k', 'n_attributes', 'loss']
    >>> round(model.score(X, y), 2)
    0.97
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "max_k": [Interval(numbers.Integral, 0, None)],
        "min_conditional_mutual_information": [Interval(numbers.Real, 0, None)],
        "loss": [Options(list(_LOSSES))],
        "select": [Options(list(_SELECTIONS))],
        "grid_estimator": [Predicate(_check_grid_estimator, "None or one estimator defined by pseudo-counts")],
    }

    def __init__(
        self,
        *,
        max_k: int = 5,
        min_conditional_mutual_information: float = 0.0,
        loss: str = "log-loss",
        select: str = "both",
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        grid_estimator: str | dict[str, Any] | Estimator | None = None,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.max_k = max_k
        self.min_conditional_mutual_information = min_conditional_mutual_information
        self.loss = loss
        self.select = select
        self.trace = trace
        self.estimator = estimator
        self.grid_estimator = grid_estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _fitted_attributes: tuple[str, ...] = (
        "k_",
        "support_",
        "selected_features_",
        "feature_order_",
        "selection_scores_",
    )

    def _validate_fitted_state(self):
        """``support_`` (one boolean per column) first: KDB's checks read the kept columns from it."""
        _fitted.array("support_", self.support_, kind="b", shape=(len(self.encoder_.columns_),))
        super()._validate_fitted_state()

    def _fit(self, engine):
        class_name = engine.names[-1]
        features = list(engine.names[:-1])
        kwargs = dict(k=self.max_k, min_conditional_mutual_information=self.min_conditional_mutual_information)
        if self.trace:
            full, order, parents, steps = kdb_ranking(engine, class_name, features, trace=True, **kwargs)
        else:
            full, order, parents = kdb_ranking(engine, class_name, features, **kwargs)
        estimator = self.estimator_
        if isinstance(estimator, Discriminative):
            estimator = estimator.generative
        if isinstance(estimator, LeaveOneOutSelection):
            estimator = get_estimator(GRID_ESTIMATOR)
        if self.grid_estimator is not None:
            estimator = get_estimator(self.grid_estimator)
        losses = _leave_one_out_grid(engine, order, parents, estimator, max_k=self.max_k, loss=self.loss)
        k, n_attributes = _best(losses, self.select)
        if self.trace:
            record = Trace()
            record.extend(steps)
            reason = f"the lowest leave-one-out {self.loss} of the sub-models (select={self.select!r})"
            record.add("select", (k, n_attributes), float(losses[k, n_attributes]), reason)
            self.trace_ = record.frame()
        kept = set(order[:n_attributes])
        self.k_ = k
        self.support_ = np.array([name in kept for name in features], dtype=bool)
        self.selected_features_ = _names([name for name in features if name in kept])
        self.feature_order_ = _names(order)
        grid_k, grid_s = np.meshgrid(np.arange(self.max_k + 1), np.arange(len(order) + 1), indexing="ij")
        self.selection_scores_ = pd.DataFrame(
            {"k": grid_k.ravel(), "n_attributes": grid_s.ravel(), "loss": losses.ravel()}
        )
        self.structure_ = kdb_substructure(full, order, parents, k=k, n_attributes=n_attributes)
        position = {name: i for i, name in enumerate(self.selected_features_.tolist())}
        self.feature_parents_ = [
            tuple(position[p] for p in _in_order(parents[name][:k], order)) for name in self.selected_features_.tolist()
        ]
        self._fit_selected_tables(engine)

    # The (k, s) grid is scored generatively (with a Discriminative estimator's generative one);
    # the chosen sub-model's tables may then be refitted to the conditional likelihood.
    _fits_discriminative = True

    def _family_index(self, codes):
        return super()._family_index(np.asarray(codes)[:, self._kept_columns()])

    def _same_sub_model(self, other: SelectiveKDB) -> bool:
        """Whether fitted `other` chose the same ``k`` and attributes."""
        return bool(self.k_ == other.k_ and np.array_equal(self.support_, other.support_))

    def _refit_prior(self, engine: CountingEngine, estimator: Any) -> None:
        """Refit the tables of the sub-model already chosen with `estimator` (a selection chooses again).

        Equal to a fit with ``estimator=estimator`` when the fit chose this sub-model: the
        ``(k, s)`` grid is scored with Laplace's prior under a selection, as with
        ``grid_estimator="laplace"`` (:class:`~graphmodels.BNClassifier`'s inner folds).
        """
        self.set_params(estimator=estimator, grid_estimator=None)
        self._refit_tables(engine, estimator)

    def _kept_columns(self):
        return np.flatnonzero(self.support_)

    def _family_counts(self, engine, child):
        """The (n_classes, r_parent_1, ..., r_child) table of the `child`-th kept attribute's family."""
        names = [engine.names[j] for j in self._kept_columns()]
        return engine.counts([engine.names[-1], *(names[p] for p in self.feature_parents_[child]), names[child]])

    def _training_families(self, engine, codes, estimator):
        codes = np.asarray(codes)
        kept = np.column_stack([codes[:, self._kept_columns()], codes[:, -1]])
        return super()._training_families(engine, kept, estimator)

    def _joint_log_likelihood(self, codes):
        codes = np.asarray(codes)
        if not self.feature_parents_:
            return np.broadcast_to(self.class_log_prior_, (codes.shape[0], len(self.class_log_prior_))).copy()
        return super()._joint_log_likelihood(codes[:, self._kept_columns()])


def _in_order(parents: list[Hashable], order: list[Hashable]) -> list[Hashable]:
    """`parents` in the order of `order`: the axes of a family table as :class:`KDB` lays them out.

    The order of the axes matters to an estimator that backs off one parent at a time
    (:class:`~graphmodels.estimators.HierarchicalDirichlet` drops the last one first).
    """
    rank = {name: i for i, name in enumerate(order)}
    return sorted(parents, key=rank.__getitem__)


def _names(names: list[Hashable]) -> np.ndarray:
    """An object array of names, one per cell (a tuple name stays one cell)."""
    out = np.empty(len(names), dtype=object)
    for i, name in enumerate(names):
        out[i] = name
    return out


def _best(losses: np.ndarray, select: str) -> tuple[int, int]:
    """The allowed ``(k, n_attributes)`` of lowest loss; ties: fewer attributes, then smaller k."""
    max_k, n_features = losses.shape[0] - 1, losses.shape[1] - 1
    ks = range(max_k + 1) if select in ("both", "k") else [max_k]
    sizes = range(n_features + 1) if select in ("both", "attributes") else [n_features]
    candidates = [(s, k) for s in sizes for k in ks]
    best = min(candidates, key=lambda cell: (losses[cell[1], cell[0]], cell))
    return best[1], best[0]


#: Cells (families x scored rows x classes) of the held-out terms worked out in one batch: the
#: attributes are scored in blocks of about this size, each block's tables normalized in one pass.
GRID_BATCH_CELLS = 1 << 20


def _leave_one_out_grid(
    engine: CountingEngine,
    order: list[Hashable],
    parents: dict[Hashable, list[Hashable]],
    estimator: Estimator,
    *,
    max_k: int,
    loss: str = "log-loss",
    batch_cells: int = GRID_BATCH_CELLS,
) -> np.ndarray:
    """Leave-one-out loss of every nested KDB sub-model, from the counts (no refit).

    Parameters
    ----------
    engine : CountingEngine
        Over the attributes and the class (the last variable).
    order : list
        The attributes in the order of :func:`~graphmodels.learners.kdb_ranking`.
    parents : dict
        Each attribute's parents, best first (their first ``k`` are its
        parents in the sub-model with ``k``).
    estimator : Estimator
        One estimator defined by pseudo-counts (not a selection).
    max_k : int
        Largest number of attribute parents scored.
    loss : {"log-loss", "rmse", "zero-one"}, default="log-loss"
    batch_cells : int, default=GRID_BATCH_CELLS
        Held-out terms worked out at once (blocks of attributes); the result
        does not depend on it.

    Returns
    -------
    ndarray of shape (max_k + 1, len(order) + 1)
        ``[k, s]``: the loss of the sub-model over the first ``s`` attributes
        of `order`, each with its first ``k`` parents, every scored training
        row's class probabilities computed from the tables without that row.
        At most :data:`~graphmodels.estimators.selection.MAX_SELECTION_ROWS`
        rows are scored (a fixed-seed sample beyond it).
    """
    score = _LOSSES[loss]
    codes, weights = engine.rows()
    if len(codes) > MAX_SELECTION_ROWS:
        # The rows LeaveOneOutSelection scores: a fixed seed, so the same rows give the same choice.
        keep = np.sort(np.random.default_rng(0).choice(len(codes), MAX_SELECTION_ROWS, replace=False))
        codes, weights = codes[keep], weights[keep]
    class_name = engine.names[-1]
    position = {name: j for j, name in enumerate(engine.names)}
    y = codes[:, -1]
    rows = np.arange(len(y))
    n_classes = engine.cardinality(class_name)
    held_out = np.minimum(np.asarray(weights, dtype=np.float64), 1.0)  # what leaving a row out removes

    def held_out_losses(joints):
        """The loss of each running log-likelihood of `joints` (..., rows, classes)."""
        with np.errstate(invalid="ignore"):
            log_posterior = joints[..., rows, y] - log_sum_exp_last(joints)
        log_posterior = np.where(np.isnan(log_posterior), -np.inf, log_posterior)
        predicted = np.argmax(joints, axis=-1) == y if score is _zero_one else None  # only the error rate reads it
        return score(log_posterior, predicted, weights)

    prior = class_prior_cells(engine, y, estimator)
    start = np.broadcast_to(_log(estimator.joint(prior.counts)), (len(y), n_classes)).copy()
    start[rows, y] += leave_one_out_correction(prior, weights)
    families, family_of = _nested_families(order, parents, max_k)
    losses = np.empty((max_k + 1, len(order) + 1))
    losses[:, 0] = held_out_losses(start)
    # Each k's running log-likelihood, each row's own class column held out: the attributes are added
    # one at a time (a cumulative sum along the order), so every prefix s is a sub-model.
    joints = np.repeat(start[None], max_k + 1, axis=0)
    sizes = [len(np.unique(family_of[:, s])) * len(y) * n_classes for s in range(len(order))]
    for block in batches_of_cells(range(len(order)), sizes, limit=batch_cells):
        first, last = int(family_of[:, block[0]].min()), int(family_of[:, block[-1]].max()) + 1
        family_codes = [[codes[:, position[name]] for name in family] for family in families[first:last]]
        at_cells, at_totals = _smoothed_at_rows(engine, families[first:last], estimator, family_codes)
        states = np.array([engine.cardinality(family[-1]) for family in families[first:last]])
        terms = _held_out_terms(at_cells, at_totals, states, y, held_out)
        running = np.empty((len(block), len(y), n_classes))
        for k in range(max_k + 1):
            # A cumulative sum along the order, one whole-array addition per attribute (np.cumsum along
            # the first axis walks the rows x classes cells one by one, several times slower).
            for step, family in enumerate(family_of[k, block] - first):
                np.add(running[step - 1] if step else joints[k], terms[family], out=running[step])
            losses[k, block[0] + 1 : block[-1] + 2] = held_out_losses(running)
            joints[k] = running[-1]
    return losses


def _nested_families(order, parents, max_k):
    """The families the grid scores, ``[*attribute parents, child]``, and each ``(k, s)``'s family.

    Returns ``(families, family_of)``: ``family_of[k, s]`` is the position in `families` of the
    ``s``-th attribute of `order` with its first ``k`` parents. An attribute with fewer than ``k``
    parents has one family for several ``k``; the families of an attribute are consecutive.
    """
    families: list[list[Hashable]] = []
    family_of = np.empty((max_k + 1, len(order)), dtype=np.int64)
    for s, child in enumerate(order):
        first_of_size: dict[int, int] = {}
        for k in range(max_k + 1):
            members = _in_order(parents[child][:k], order)
            if len(members) not in first_of_size:
                first_of_size[len(members)] = len(families)
                families.append([*members, child])
            family_of[k, s] = first_of_size[len(members)]
    return families, family_of


def _smoothed_at_rows(engine, families, estimator, family_codes):
    """Each family's smoothed counts at the scored rows' cells, and at their parent configurations summed.

    The family table is ``(class, parents..., child)``, smoothed by `estimator` as
    :meth:`~graphmodels.estimators.Estimator.conditional` smooths it. Under an estimator of one
    pseudo-count per table, a family whose parents have more configurations than there are rows
    is read at the configurations some row holds only
    (:meth:`~graphmodels.stats.CountingEngine.occupied_counts`: a five-parent table on a hundred
    rows is mostly empty); the other families are read from whole tables, a batch at a time (an
    adaptive estimator searches their pseudo-counts together). Either way each value is the whole
    table's, bit for bit.

    Parameters
    ----------
    engine : CountingEngine
        The class is its last variable.
    families : list of list
        Each family's attribute parents and child.
    estimator : Estimator
    family_codes : list of list of ndarray
        For each family, the scored rows' codes of its parents and child.

    Returns
    -------
    at_cells, at_totals : ndarray of shape (n_families, n_classes, n_rows)
        The smoothed count of each row's cell under every class, and the sum of the smoothed counts
        of its parent configuration under every class.
    """
    class_name = engine.names[-1]
    n_classes, n_rows = engine.cardinality(class_name), len(family_codes[0][-1])
    at_cells, at_totals = np.empty((2, len(families), n_classes, n_rows))
    one_pseudo_count = type(estimator).pseudo_counts is Estimator.pseudo_counts
    whole = []  # the families read from whole tables
    for i, ((*parents, child), index) in enumerate(zip(families, family_codes)):
        shape = (n_classes, *(engine.cardinality(name) for name in (*parents, child)))
        if not (one_pseudo_count and parents and math.prod(shape[1:-1]) > engine.n_rows):
            whole.append(i)
            continue
        configurations, counts = engine.occupied_counts(parents, [class_name, child])
        smoothed = counts + estimator.pseudo_count(shape)  # (held configurations, classes, states)
        held = np.searchsorted(configurations, np.ravel_multi_index(tuple(index[:-1]), shape[1:-1]))
        at_cells[i] = smoothed[held, :, index[-1]].T
        at_totals[i] = smoothed.sum(axis=-1)[held].T
    tables = {i: engine.counts([class_name, *families[i]]) for i in whole}
    for batch in batches_of_cells(whole, [tables[i].size for i in whole], limit=CONDITIONALS_BATCH_CELLS):
        for i, pseudo in zip(batch, estimator.pseudo_counts_of_tables([tables[i] for i in batch])):
            smoothed = tables[i] + pseudo
            cells = np.ravel_multi_index(tuple(family_codes[i]), tables[i].shape[1:])
            # np.take along an axis: a fraction of the cost of fancy indexing [:, cells].
            np.take(smoothed.reshape(n_classes, -1), cells, axis=1, out=at_cells[i])
            configurations = cells // tables[i].shape[-1]
            np.take(smoothed.sum(axis=-1).reshape(n_classes, -1), configurations, axis=1, out=at_totals[i])
    return at_cells, at_totals


def _held_out_terms(at_cells, at_totals, states, y, held_out):
    """Each scored row's ``log P(child | parents, c)`` in each family for every class c, its own class left out.

    Every family's values are normalized at once, each as :meth:`Estimator.conditional`
    normalizes it, and the row's own class column corrected by
    :func:`~graphmodels.estimators.selection.leave_one_out_correction`'s formula.

    Parameters
    ----------
    at_cells, at_totals : ndarray of shape (n_families, n_classes, n_rows)
        As :func:`_smoothed_at_rows` gives them.
    states : ndarray of shape (n_families,)
        Each family's child states.
    y : ndarray of shape (n_rows,)
        The scored rows' classes.
    held_out : ndarray of shape (n_rows,)
        What leaving each row out removes from its cells.

    Returns
    -------
    ndarray of shape (n_families, n_rows, n_classes)
    """
    n_families, _, n_rows = at_cells.shape
    rows = np.arange(n_rows)
    # As Estimator.conditional: uniform where a configuration has no counts and no pseudo-counts.
    with np.errstate(divide="ignore"):
        terms = np.log(_divided_or_uniform(at_cells, at_totals, 1.0 / states[:, None, None])).transpose(0, 2, 1)
    own = (slice(None), y, rows)
    change = _conditional_change(
        at_cells[own].reshape(-1), at_totals[own].reshape(-1), np.tile(held_out, n_families), np.repeat(states, n_rows)
    )
    terms[:, rows, y] += change.reshape(n_families, n_rows)
    return terms
