"""How stable is a learned structure? Refits on resamples and the frequency of each arc.

:func:`edge_stability` refits a model on bootstrap resamples (or half-samples, or the training
sets of cross-validation) and counts how often each arc, edge, hyperedge or region comes back:
Friedman, Goldszmidt & Wyner's bootstrap confidence in features of a Bayesian network, R
bnlearn's ``boot.strength``. The result
(:class:`~graphmodels.structures.EdgeStability`) holds the union graph with each item's
frequency, the consensus structure at a threshold, and each resample's structure;
:func:`graphmodels.plotting.draw_stability` draws it.

A resample of the rows is a vector of frequency weights over the original rows (a bootstrap
resample is a multinomial draw: row i drawn w_i times), so the rows are encoded and cut into
bins once, and each refit counts the same codes with that resample's weights
(``reuse_counts=True``); duplicate rows are counted once with their summed weights.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import Boolean, Interval, Options, Predicate, validate_params
from ..data.encoding import MISSING_LABEL, as_frame
from ..data.weights import check_sample_weight
from ..estimators.parameters import Dirichlet
from ..estimators.selection import MAX_SELECTION_ROWS
from ..models.augmented import FAN, TAN, NaiveBayes
from ..models.base import (
    RANDOM_STATE_CONSTRAINTS,
    BaseClassifier,
    BaseDensity,
    clone_model,
    training_counts,
)
from ..models.bn_classifier import BNClassifier
from ..models.hierarchical_nb import HierarchicalNaiveBayes
from ..models.kdb import KDB
from ..models.selective_kdb import SelectiveKDB
from ..stats.counting import CountingEngine
from ..structures.comparison import EdgeStability, structure_frequencies, structure_of
from .splits import RepeatedStratifiedKFold

if TYPE_CHECKING:
    from ..models.base import BaseModel

__all__ = ["edge_stability", "RESAMPLING_METHODS"]


# ---------------------------------------------------------------------------- resampling weights
def _integer_weights(sample_weight, method):
    rounded = np.round(sample_weight)
    if not np.allclose(sample_weight, rounded, rtol=0, atol=1e-9):
        raise ValueError(
            f"method={method!r} draws rows without replacement, which needs integer `sample_weight` "
            "(a weight of 2 is two rows); use method='bootstrap' or 'cv' with fractional weights."
        )
    return rounded.astype(np.int64)


def _bootstrap(n_rows, n_resamples, rng, sample_weight, strata, n_splits):
    """Bootstrap resamples: n draws with replacement (of the rows a frequency weight stands for)."""
    if sample_weight is None:
        for _ in range(n_resamples):
            yield np.bincount(rng.integers(0, n_rows, n_rows), minlength=n_rows).astype(np.float64)
        return
    total = float(sample_weight.sum())
    size = max(1, round(total))
    p = sample_weight / total
    for _ in range(n_resamples):
        yield np.bincount(rng.choice(n_rows, size, p=p), minlength=n_rows).astype(np.float64)


def _subsample(n_rows, n_resamples, rng, sample_weight, strata, n_splits):
    """Half-samples: half of the rows (of the rows the weights stand for) drawn without replacement."""
    if sample_weight is None:
        size = max(1, n_rows // 2)
        for _ in range(n_resamples):
            weights = np.zeros(n_rows)
            weights[rng.choice(n_rows, size, replace=False)] = 1.0
            yield weights
        return
    counts = _integer_weights(sample_weight, "subsample")
    size = max(1, int(counts.sum()) // 2)
    for _ in range(n_resamples):
        yield rng.multivariate_hypergeometric(counts, size).astype(np.float64)


def _cross_validation(n_rows, n_resamples, rng, sample_weight, strata, n_splits):
    """Training sets of repeated (stratified, for a classifier) `n_splits`-fold cross-validation."""
    splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=math.ceil(n_resamples / n_splits), random_state=rng)
    for k, (train, _) in enumerate(splitter.split(None, strata)):
        if k == n_resamples:
            return
        weights = np.zeros(n_rows)
        weights[train] = 1.0 if sample_weight is None else sample_weight[train]
        yield weights


#: Resampling methods of :func:`edge_stability`: name -> generator of weight vectors over the rows.
RESAMPLING_METHODS: dict[str, Callable[..., Iterator[np.ndarray]]] = {
    "bootstrap": _bootstrap,
    "subsample": _subsample,
    "cv": _cross_validation,
}


def _check_threshold(value):
    if value == "auto":
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 <= value <= 1


_CONSTRAINTS: dict[str, list[Any]] = {
    "n_resamples": [Interval(numbers.Integral, 1, None)],
    "method": [
        Options(list(RESAMPLING_METHODS)),
        Predicate(
            lambda value: not isinstance(value, (str, bytes)) and np.ndim(value) == 2,
            "an array of resample weights of shape (n_resamples, n_rows)",
        ),
    ],
    "n_splits": [Interval(numbers.Integral, 2, None)],
    "random_state": RANDOM_STATE_CONSTRAINTS,
    "threshold": [Predicate(_check_threshold, "a number in [0, 1] or 'auto'")],
    "reuse_counts": [Boolean()],
}


# ---------------------------------------------------------------------------- refits
def _check_estimator(estimator, y):
    if isinstance(estimator, type):
        raise TypeError(
            f"`estimator` must be a model instance, got the class {estimator.__name__}; write {estimator.__name__}()."
        )
    if not isinstance(estimator, (BaseClassifier, BaseDensity)):
        hint = (
            " A multi-label model has one structure per label: pass a single-label model instead."
            if getattr(estimator, "_model_kind", None) == "multilabel"
            else ""
        )
        raise TypeError(
            "edge_stability needs a graphmodels classifier or density estimator (a model whose `structure_` is "
            f"one graph or hyperforest), got {type(estimator).__name__}.{hint}"
        )
    if isinstance(estimator, BaseClassifier) and y is None:
        raise ValueError(f"{type(estimator).__name__} is a classifier: pass the class labels `y`.")
    if isinstance(estimator, BaseDensity) and y is not None:
        raise ValueError(
            f"{type(estimator).__name__} is a density estimator, which learns from `X` alone: pass y=None."
        )


def _categorical_frame(frame, encoder):
    """`frame` with every column a Categorical of the levels `encoder` found in the whole of it.

    A resample then keeps every state (with count 0 when absent), as the shared encoding does,
    so that refitting it and counting it with weights see the same variables.
    """
    columns = {}
    for column, levels in zip(encoder.columns_, encoder.levels_):
        categories = [level for level in levels if level != MISSING_LABEL]
        columns[column] = pd.Categorical(frame[column], categories=categories)
    return pd.DataFrame(columns, index=frame.index)


#: Models whose structure search looks at rows, not only at counts, so that a row of weight 2 is
#: not two rows: refitted on the resampled rows (rows repeated as drawn) when the condition on the
#: number of rows holds, with the reason.
ROW_REFITS = {
    BNClassifier: (
        lambda n_rows: True,
        "it chooses its structure by cross-validation over the rows",
    ),
    HierarchicalNaiveBayes: (
        lambda n_rows: True,
        "its search scores each candidate latent variable by cross-validation over the rows",
    ),
    SelectiveKDB: (
        lambda n_rows: n_rows > MAX_SELECTION_ROWS,
        "beyond 2,000 rows it selects its attributes by leave-one-out on a sample of the rows",
    ),
}


#: Models that learn their structure from the counts before, and apart from, their tables (not a
#: subclass: selective KDB chooses its attributes by the tables' leave-one-out scores). A refit is
#: kept for its structure only, so theirs fit tables by a fixed Dirichlet(1) rather than by the
#: model's estimator, whose default leave-one-out selection among nine candidates was four fifths
#: of a TAN refit: the same structures, several times faster.
STRUCTURE_BEFORE_TABLES = (NaiveBayes, TAN, FAN, KDB)


def _refits_on_rows(estimator, n_rows):
    return any(isinstance(estimator, cls) and condition(n_rows) for cls, (condition, _) in ROW_REFITS.items())


class _Refits:
    """Fits of one model on resample weights: through shared codes, or on the resampled rows."""

    def __init__(self, estimator, frame, y, sample_weight, reuse_counts):
        self.estimator = estimator
        self.reuse_counts = reuse_counts and not _refits_on_rows(estimator, len(frame))
        reuse_counts = self.reuse_counts
        full = clone_model(estimator)
        full.fit(frame, y, sample_weight=sample_weight)  # checks the model; fits its discretizer on every row
        binner = getattr(full, "discretizer_", None)
        self.frame = binner.transform(frame) if binner is not None else frame
        with warnings.catch_warnings():
            # Identifier-looking columns were warned about by the fit above.
            warnings.simplefilter("ignore", UserWarning)
            counts = training_counts(self.frame, y, missing=full.missing_encoding, max_cells=full.max_cells)
        self.counts = counts
        if type(estimator) in STRUCTURE_BEFORE_TABLES:
            self.estimator = clone_model(estimator).set_params(estimator=Dirichlet(1.0))
        self.row_labels = None if y is None else np.asarray(y, dtype=object)
        if reuse_counts:
            codes, _ = counts.engine.rows()
            self.unique, inverse = np.unique(codes, axis=0, return_inverse=True)
            self.inverse = np.asarray(inverse).reshape(-1)
        else:
            self.categorical = _categorical_frame(self.frame, counts.encoder)
            self.labels = None if y is None else pd.Series(np.asarray(y, dtype=object), name=getattr(y, "name", None))
            params = estimator.get_params(deep=False)
            self.params = {"discretizer": None} if "discretizer" in params else {}

    def fit(self, weights: np.ndarray) -> Any:
        model = clone_model(self.estimator)
        if self.reuse_counts:
            engine = self.counts.engine
            summed = np.bincount(self.inverse, weights=weights, minlength=len(self.unique))
            kept = summed > 0
            resample = CountingEngine(
                self.unique[kept],
                engine.cardinalities,
                names=engine.names,
                sample_weight=summed[kept],
                max_cells=engine.max_cells,
            )
            return model.fit_counts(dataclasses.replace(self.counts, engine=resample))
        model.set_params(**self.params)
        rounded = np.round(weights)
        if np.array_equal(weights, rounded):  # repeat each row as often as it was drawn
            rows, row_weights = np.repeat(np.arange(len(weights)), rounded.astype(np.int64)), None
        else:
            rows = np.flatnonzero(weights > 0)
            row_weights = weights[rows]
        X = self.categorical.iloc[rows]
        if self.labels is None:
            return model.fit(X, sample_weight=row_weights)
        return model.fit(X, self.labels.iloc[rows], sample_weight=row_weights)

    def structure(self, weights: np.ndarray) -> Any:
        """The refit's structure as compared (:func:`structure_of`), the refit itself not kept.

        One hyperforest per class: a dict keyed by class label holding the classes that the
        resample's rows have. Fitted from shared counts, the refit also learns a structure
        for a class without rows (from zero counts); fitted on the rows, it knows no such
        class. Both ways give the same dict.
        """
        structure = structure_of(self.fit(weights))
        if isinstance(structure, dict) and self.row_labels is not None:
            present = set(self.row_labels[weights > 0])
            structure = {label: forest for label, forest in structure.items() if label in present}
        return structure


def edge_stability(
    estimator: BaseModel,
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike | None = None,
    *,
    n_resamples: int = 100,
    method: str | ArrayLike = "bootstrap",
    n_splits: int = 5,
    random_state: int | np.random.Generator | None = None,
    threshold: float | str = 0.5,
    sample_weight: ArrayLike | None = None,
    reuse_counts: bool = True,
) -> EdgeStability:
    """Refit a model on resamples of the rows and count how often each arc comes back.

    Friedman, Goldszmidt & Wyner's bootstrap [1]_ (R bnlearn's ``boot.strength``) for every
    model of the library with a structure: each of `n_resamples` resamples of the rows is fitted
    with a fresh copy of `estimator` (same hyperparameters), and every arc, edge, hyperedge or
    region of the refitted structures gets its frequency, the fraction of the refits that have
    it. Frequent items are the ones the data support; the consensus at a threshold
    (:meth:`~graphmodels.structures.EdgeStability.consensus`, Scutari & Nagarajan [2]_) keeps
    them.

    Parameters
    ----------
    estimator : classifier or density model
        A graphmodels model whose ``structure_`` is one structure (every registered classifier
        and density estimator; see :data:`~graphmodels.structures.STRUCTURE_KINDS` for how each
        kind of structure is counted). Not fitted or changed itself. A hyperforest classifier
        with one hyperforest per class (``representation="free"``, or ``"auto"`` when it chose them; a
        refit that chose one shared hyperforest counts its hyperedges) is counted by
        the hyperedges of its classes pooled: a hyperedge is present in a refit when it lies
        inside a hyperedge of some class's hyperforest. ``structures`` keeps each refit's
        hyperforests as a dict of class label -> Hyperforest, of the classes the resample
        holds; :meth:`~graphmodels.structures.EdgeStability.class_frequencies` gives the
        frequencies within one class.
    X : DataFrame or 2-D array-like of shape (n_rows, n_features)
    y : 1-D array-like of shape (n_rows,), optional
        Class labels for a classifier; None for a density estimator.
    n_resamples : int, default=100
        Number of refits.
    method : {"bootstrap", "subsample", "cv"} or array-like, default="bootstrap"
        ``"bootstrap"``: n rows drawn with replacement; ``"subsample"``: half of the rows,
        without replacement; ``"cv"``: the training sets of `n_splits`-fold cross-validation,
        stratified by class for a classifier, repeated with fresh shuffles until there are
        `n_resamples` of them (the first `n_resamples` folds). Or the resamples themselves,
        an array of shape (n_resamples, n_rows): row k holds the frequency weights of the
        k-th resample (how many times each row is in it; 0/1 for a subset); `n_resamples`,
        `random_state` and `sample_weight` then do not apply.
    n_splits : int, default=5
        Folds of ``method="cv"``.
    random_state : None, int or numpy Generator
        Seed of the resamples; the same seed gives the same resamples, whatever `reuse_counts`.
    threshold : float or "auto", default=0.5
        Default threshold of the consensus and of the drawing's highlight; ``"auto"``
        estimates it from the frequencies (see
        :func:`~graphmodels.structures.structure_frequencies`).
    sample_weight : array-like of shape (n_rows,), optional
        Frequency weights: a row of weight 2 is two rows. A bootstrap resample draws
        ``round(sum(sample_weight))`` rows with probabilities proportional to the weights (for
        integer weights, exactly a bootstrap of the repeated rows); a half-sample draws half of
        the repeated rows (integer weights only); a fold keeps its rows' weights.
    reuse_counts : bool, default=True
        Encode the rows once and fit each resample from weighted counts of the same codes
        (duplicate rows counted once). False refits each model on the resampled rows
        themselves (rows repeated as drawn), the naive way: slower, and only there to check
        and to time the shared counting (``benchmarks/bench_stability.py``). A
        :class:`~graphmodels.HierarchicalNaiveBayes` or :class:`~graphmodels.BNClassifier`,
        whose search cross-validates over the rows (so that a weight of 2 is not two rows), is
        always refitted on the rows, and a
        :class:`~graphmodels.SelectiveKDB` beyond 2,000 rows, whose selection scores a sample of
        the rows.

    Returns
    -------
    EdgeStability
        The union graph with each item's ``frequency`` (and ``direction`` for arcs), the
        frequencies as a Series and a table, the consensus, and each refit's structure
        (``structures``).

    Raises
    ------
    TypeError
        If `estimator` is not a graphmodels classifier or density estimator (a multi-label
        model, another library's model, a class).
    ValueError
        For a classifier without `y` or a density with `y`; `n_resamples` < 1, a `threshold`
        outside [0, 1], an unknown `method`, `n_splits` < 2 (these four as
        :class:`~graphmodels._validation.InvalidParameterError`); fractional `sample_weight`
        with ``method="subsample"``; and whatever the model's own ``fit`` refuses.

    See Also
    --------
    graphmodels.structures.structure_frequencies : the same frequencies for given structures.
    graphmodels.structures.structure_difference : the exact difference of two structures.
    graphmodels.plotting.draw_stability : the drawing.

    Notes
    -----
    **Discretization.** Numeric columns are cut once, by the model's ``discretizer`` fitted on
    all the rows (with `sample_weight`), and every refit sees the same bins: the frequencies
    measure the stability of the structure given the bins, not of the bins. Both values of
    `reuse_counts` do this, so that they fit the same data.

    **Exactness of the shared counting.** A resample's weighted counts of the shared codes are
    the counts of its repeated rows, and every state of every column is kept (with count 0 when
    a resample lacks it) on both paths (the naive refits see Categorical columns of all the
    states), so both give the same structures (tested for every registered model). Two cases
    can still differ, as they would with ``fit`` itself: a class absent from a resample (a refit
    on the resampled rows has one class fewer), and a column whose missing cells are all absent
    (its "missing" state too). Only the structures are kept: the parameters of the refits may
    differ where an estimator chooses itself on a subsample of the rows (``"bdeu-auto"`` beyond
    2,000 rows). Naive Bayes, TAN, FAN and KDB (:data:`STRUCTURE_BEFORE_TABLES`) learn their
    structure from the counts before, and apart from, their tables: their refits fit tables by a
    fixed Dirichlet(1), not by the model's estimator (the default leave-one-out selection was four
    fifths of a TAN refit), with the same structures.

    References
    ----------
    .. [1] Friedman, N., Goldszmidt, M., & Wyner, A. (1999). Data analysis with Bayesian
           networks: a bootstrap approach. In *Proceedings of the 15th Conference on
           Uncertainty in Artificial Intelligence (UAI)*, 196-205.
    .. [2] Scutari, M., & Nagarajan, R. (2013). Identifying significant edges in graphical
           models of molecular networks. *Artificial Intelligence in Medicine*, 57(3), 207-217.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> result = edge_stability(gm.TAN(), X, y, n_resamples=20, random_state=0)
    >>> result
    EdgeStability(kind='arcs', n_resamples=20, items=17, consensus=11 at threshold=0.5, method='bootstrap')
    >>> augmenting = result.table[result.table["source"] != "class"]  # the six class arcs are always there
    >>> augmenting[["source", "target", "frequency"]].head(5).to_numpy().tolist()
    [['buying', 'maint', 1.0], ['safety', 'persons', 1.0], ['safety', 'lug_boot', 1.0], ['safety', 'buying', 0.8], ['lug_boot', 'doors', 0.75]]
    >>> sorted(result.consensus(0.9).edges - result.consensus(0.5).edges)
    []
    >>> sorted(result.consensus(0.5).edges - result.consensus(0.9).edges)
    [('lug_boot', 'doors'), ('safety', 'buying')]
    """
    validate_params(
        "edge_stability",
        {
            "n_resamples": n_resamples,
            "method": method,
            "n_splits": n_splits,
            "random_state": random_state,
            "threshold": threshold,
            "reuse_counts": reuse_counts,
        },
        _CONSTRAINTS,
    )
    _check_estimator(estimator, y)
    frame = as_frame(X)
    n_rows = frame.shape[0]
    if n_rows == 0:
        raise ValueError("`X` has 0 rows; at least one row is needed to fit.")
    weights = None if sample_weight is None else check_sample_weight(sample_weight, n_rows, positive_total=True)
    labels = None if y is None else np.asarray(y, dtype=object)
    if labels is not None and len(labels) != n_rows:
        raise ValueError(f"`X` has {n_rows} rows but `y` has {len(labels)} labels.")
    if isinstance(method, str):
        rng = np.random.default_rng(random_state)
        strata = np.zeros(n_rows, dtype=np.int64) if labels is None else labels
        resamples = RESAMPLING_METHODS[method](n_rows, n_resamples, rng, weights, strata, n_splits)
        name = method
    else:
        if weights is not None:
            raise ValueError("Pass either `sample_weight` or resamples as weights in `method`, not both.")
        given = np.asarray(method, dtype=float)
        if given.shape[1] != n_rows or not np.isfinite(given).all() or (given < 0).any():
            raise ValueError(
                f"Resamples given as weights must be non-negative numbers of shape (n_resamples, {n_rows}), "
                f"one weight per row of `X`; got shape {given.shape}."
            )
        if not (given.sum(axis=1) > 0).all():
            raise ValueError(f"Resample {int(np.flatnonzero(given.sum(axis=1) <= 0)[0])} has weights summing to zero.")
        resamples, name = iter(given), "given"
    refits = _Refits(estimator, frame, y, weights, reuse_counts)
    structures = [refits.structure(resample) for resample in resamples]
    return structure_frequencies(structures, threshold=threshold, method=name, class_name=refits.counts.class_name)
