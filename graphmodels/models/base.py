"""Base classes of fitted models: the model contract, written once.

In the manner of scikit-learn's ``_BaseNB``: a classifier implements
``_fit(engine)`` and ``_joint_log_likelihood(codes)`` (``log P(x, y)``); this
module turns that into ``fit``, ``predict``, ``predict_proba`` and
``predict_log_proba`` (normalized with log-sum-exp, so nothing underflows).

The contract every model follows (checked for every registered model by
``tests/test_model_contract.py``; CONTRIBUTING.md explains it):

* ``__init__`` takes keyword-only hyperparameters and only stores them;
  their rules are declared once in ``_parameter_constraints`` and checked by
  :func:`graphmodels._validation.validate_params` at ``fit``, which never
  sets fitted state;
* the parameter prior is ``estimator=`` (a name, a dict or an
  :class:`~graphmodels.estimators.Estimator`), resolved into ``estimator_``;
* numeric columns are handled by ``discretizer=`` (default ``"auto"``: cut
  points fitted inside ``fit``, kept in ``discretizer_``, applied at
  prediction; ``None`` keeps every column categorical); ``categorical=`` names
  the columns never cut, whatever their type (integer codes of categories),
  and a pandas ``category`` column is never cut. When ``"auto"`` cuts a column
  of whole numbers it says so (:class:`~graphmodels.data.IntegerColumnsCutWarning`,
  naming the columns and both ways out);
* ``max_cells`` is the largest table (product of cardinalities, or any
  array over candidates or parameters) the model may allocate, in float64
  cells: a table the model needs beyond it raises
  :class:`~graphmodels.stats.TableTooLargeError` (a ``ValueError`` and a
  ``MemoryError``) before it is allocated, its message naming the model,
  the columns, the size in cells and bytes, and what would make it fit
  (``max_cells`` of at least that size, a smaller ``k``, ``n``,
  ``treewidth`` or ``max_parents``, or coarser bins); a structure search
  leaves out candidates beyond it;
* fitted attributes end in ``_`` and exist only after a successful ``fit``
  (a failed fit leaves the model unfitted); an unfitted model raises
  :class:`NotFittedError`;
* one object is fitted by one thread at a time: ``fit`` on an object that
  another thread is fitting raises ``RuntimeError`` at once (the other fit
  goes on unharmed); fit copies (:func:`clone_model`) to fit in parallel;
* ``structure_`` is one structure (a networkx graph, or a
  :class:`~graphmodels.structures.Hyperforest` with networkx views); per-class
  or per-member structures go to a plural attribute (``structures_``);
* classifiers have ``classes_``, ``n_features_in_`` and, for string column
  names, ``feature_names_in_``; every model has ``n_rows_``, the number of
  training rows (rows of `X`, whatever their weights); randomness comes from ``random_state``
  (default None);
* ``get_params``/``set_params``/:func:`clone_model` and ``save``/
  :func:`~graphmodels.models.load_model` round-trip;
* in a notebook a model displays itself (``_repr_html_``): its parameters,
  and once fitted a summary and its structure as inline SVG (see
  :mod:`graphmodels.models.display`);
* a model whose fit searches for its structure takes ``trace=False``; with
  ``trace=True`` the fitted model also has ``trace_``, a DataFrame with one
  row per step of the search (the learner's trace: ``step``, ``action``,
  ``item``, ``score``, ``reason`` and the learner's own columns; a ``class``
  or ``part`` column first when the model runs several searches). Without
  it there is no ``trace_``; it is saved and loaded with the model.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import numbers
import os
import sys
import threading
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import networkx as nx
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._special import logsumexp
from .._validation import Boolean, InstanceOf, Interval, Options, Predicate, validate_params
from ..data.discretize import (
    DISCRETIZERS,
    EqualFrequencyDiscretizer,
    IntegerColumnsCutWarning,
    MDLDiscretizer,
    _for_model,
    make_discretizer,
)
from ..data.encoding import (
    MISSING_LABEL,
    UNKNOWN,
    LabelEncoder,
    TableEncoder,
    _has_column_names,
    as_frame,
    is_dask_collection,
)
from ..data.weights import check_sample_weight
from ..estimators.discriminative import Discriminative, fit_discriminative_tables
from ..estimators.parameters import Estimator, MaximumLikelihood, get_estimator
from ..estimators.selection import (
    MAX_SELECTION_ROWS,
    LeaveOneOutScorer,
    LeaveOneOutSelection,
    RememberedPseudoCounts,
    leave_one_out_scores,
)
from ..stats.counting import DEFAULT_MAX_CELLS, CountingEngine, InMemoryRowsRequired, TableTooLargeError
from ..structures.hyperforests import Hyperforest
from . import _fitted

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "BaseModel",
    "BaseClassifier",
    "BaseDensity",
    "CLASS_NODE",
    "NotFittedError",
    "TrainingCounts",
    "clone_model",
    "training_counts",
]

#: Name of the class node when `y` has no usable name of its own.
CLASS_NODE = "class"

#: Rules shared by many models' hyperparameters (see ``_parameter_constraints``).
ESTIMATOR_CONSTRAINT = Predicate(get_estimator, "a name of graphmodels.estimators.ESTIMATORS, a dict or an Estimator")
MAX_CELLS_CONSTRAINT = Interval(numbers.Integral, 1, None)
MISSING_CONSTRAINT = Options(["value", "error"])
#: How training_counts may encode missing cells (the encoder's policies).
COUNTS_MISSING_CONSTRAINT = Options(["value", "error", "unobserved"])
DISCRETIZER_CONSTRAINTS = [
    None,
    Options(["auto", *DISCRETIZERS], ignore_case=True),
    InstanceOf(EqualFrequencyDiscretizer, MDLDiscretizer),
]
CATEGORICAL_CONSTRAINTS = [
    None,
    Predicate(lambda value: _column_names(value, "categorical"), "a list of column names"),
]
RANDOM_STATE_CONSTRAINTS = [
    None,
    Interval(numbers.Integral, 0, None),
    Predicate(lambda value: isinstance(value, np.random.Generator), "a numpy Generator"),
]


@dataclass(frozen=True)
class TrainingCounts:
    """Encoded training rows and their counting engine, shareable by many models.

    Built by :func:`training_counts`; :meth:`BaseClassifier.fit_counts` (or
    :meth:`BaseDensity.fit_counts`) fits a model from it, so that models
    learned from the same rows share one engine and its caches (the
    evaluation protocols fit every method of a trial this way).

    Attributes
    ----------
    engine : CountingEngine
        Over the encoded attributes, then the class (last, named `class_name`) if any.
    encoder : TableEncoder
        The fitted encoding of the attributes.
    classes : ndarray or None
        Class labels in code order (None for a density's rows).
    class_name : hashable or None
        Name of the class variable in the engine.
    feature_names_in : ndarray or None
        Column names, when `X` was a DataFrame with string column names.
    missing : {"value", "error"}
        How missing cells were encoded.
    shape : tuple of int
        ``(n_rows, n_features)`` of `X`.
    discretizer : MDLDiscretizer, EqualFrequencyDiscretizer or None
        The discretizer fitted on these rows, when it binned at least one
        column (the models fitted from these counts apply it at prediction).
    integer_columns_cut : tuple
        The columns of whole numbers (an integer type, or floats that are all
        whole) that the discretizer cut into intervals: codes of categories
        are often integers (a model's ``fit`` warns about them).
    """

    engine: CountingEngine
    encoder: TableEncoder
    classes: np.ndarray | None
    class_name: Hashable | None
    feature_names_in: np.ndarray | None
    missing: str
    shape: tuple[int, ...]
    discretizer: Any = None
    integer_columns_cut: tuple[Hashable, ...] = ()

    @property
    def n_features(self) -> int:
        """Number of attributes (columns of `X`)."""
        return len(self.encoder.columns_)


#: Leave-one-out scores this close (relative) are a tie: the first listed wins, so that the same
#: data counted another way (weighted rows or repeated ones) cannot flip a choice by rounding.
TIE_RTOL = 1e-9


#: Below this many training rows per class (on average over the classes), "auto" representations are
#: scored by inner cross-validation of the whole fit, not by leaving rows out of the tables alone.
#: A structure learned on a class's few rows fits the very rows left out (the edges that row
#: made look strong are kept), so the leave-one-out log-loss of the per-class structures is
#: flattered most where each class has fewest rows (see ``benchmarks/RESULTS.md``,
#: ``defaults-chow-liu-small``).
SMALL_CLASS_ROWS = 100

#: Folds of that inner cross-validation.
REPRESENTATION_FOLDS = 5

#: The floor of a held-out probability, as in scikit-learn's log_loss.
_CLIP = 1e-15


def stratified_folds(y: ArrayLike, n_folds: int, *, seed: int = 0) -> np.ndarray:
    """The fold (0 .. n_folds - 1) of each row: each class's rows shuffled with `seed`, then dealt in turn.

    Dealing continues from class to class, so that the folds' sizes differ by
    at most one row and a class of fewer rows than folds lands in different
    folds from the class before it. The same class codes in the same order
    give the same folds.

    Parameters
    ----------
    y : array-like of int, shape (n_rows,)
    n_folds : int
    seed : int, default=0

    Returns
    -------
    ndarray of int64, shape (n_rows,)

    Examples
    --------
    >>> stratified_folds([0, 0, 0, 1, 1], 2).tolist()
    [1, 0, 0, 0, 1]
    """
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    folds = np.empty(len(y), dtype=np.int64)
    dealt = 0
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        rows = rows[rng.permutation(len(rows))]
        folds[rows] = (dealt + np.arange(len(rows))) % n_folds
        dealt += len(rows)
    return folds


def _rows_as_units(engine):
    """The engine's rows and weights, each row of integer weight w repeated w times (weight 1 each).

    Fractional weights are kept as they are (then a row is one unit of its weight), and so are
    integer weights that sum past 10^5 (and past the number of rows).
    """
    codes, weights = engine.rows()
    # Bounded: weights summing past 10^5 units (or past the rows, if more) are kept as weights.
    if np.array_equal(weights, np.round(weights)) and weights.sum() <= max(len(weights), 100_000):
        repeats = weights.astype(np.int64)
        return np.repeat(codes, repeats, axis=0), np.ones(int(repeats.sum()))
    return codes, weights


def _weighted_mean(values, weights):
    """The mean of `values` weighted by `weights`; NaN when the weights sum to 0."""
    total = float(np.sum(weights))
    return float(np.dot(values, weights) / total) if total > 0 else float("nan")


def _standard_error(differences, weights):
    """The standard error of the weighted mean of `differences` (effective size ``(sum w)^2 / sum w^2``).

    NaN for fewer than two rows of positive weight.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if int((weights > 0).sum()) < 2:
        return float("nan")
    mean = _weighted_mean(differences, weights)
    variance = _weighted_mean((differences - mean) ** 2, weights)
    effective = weights.sum() ** 2 / (weights**2).sum()
    return float(np.sqrt(variance * effective / (effective - 1) / effective))


def _lowest(values):
    """The index of the lowest value; of values within :data:`TIE_RTOL` of it, the first (NaN: the first NaN)."""
    values = np.asarray(values, dtype=np.float64)
    if np.isnan(values).any():
        return int(np.argmin(values))
    low = values.min()
    return int(np.flatnonzero(values <= low + TIE_RTOL * max(1.0, abs(low)))[0])


#: Float64 arrays the size of the parameter vector that the discriminative fit's L-BFGS
#: (``estimators.discriminative.lbfgs``) holds: its ``2 m`` stored (step, gradient change) pairs with
#: ``m = 10``, and the point, gradient, direction, trial point and trial gradient.
_LBFGS_ARRAYS = 25


def training_counts(
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike | None = None,
    *,
    sample_weight: ArrayLike | None = None,
    missing: str = "value",
    max_cells: int = DEFAULT_MAX_CELLS,
    discretizer: Any = None,
    categorical: Sequence[Hashable] | None = None,
) -> TrainingCounts:
    """Encode training rows (and their classes) once, for one or many models.

    Parameters
    ----------
    X : DataFrame or 2-D array-like of shape (n_rows, n_features), or a Dask DataFrame
        Discrete attributes. A ``dask.dataframe.DataFrame`` stays on its
        cluster: one pass learns the states, and the counting engine is a
        :class:`~graphmodels.stats.DaskCountingEngine`.
    y : 1-D array-like of shape (n_rows,), optional
        Class labels (omit for a density estimator). With a Dask `X`: a Dask
        Series partitioned as `X`, or the name of a column of `X`.
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative frequency weights (not with a Dask `X`).
    missing : {"value", "error", "unobserved"}, default="value"
        Missing cells as a state of their own, refused, or coded ``-1`` (unobserved: each
        table counts the rows where its variables are observed; not with a Dask `X`).
    max_cells : int, default=10_000_000
        Largest table the counting engine may allocate, and the MDL discretizer's
        class counts unless it has a ``max_cells`` of its own.
    discretizer : None, str or discretizer, default=None
        Cut numeric columns first: a name of
        :data:`~graphmodels.data.DISCRETIZERS` or an unfitted
        :class:`~graphmodels.data.MDLDiscretizer` /
        :class:`~graphmodels.data.EqualFrequencyDiscretizer` (fitted here, on
        these rows and their `sample_weight` only). None keeps every column as
        it is.
    categorical : list of column names, optional
        Columns the discretizer never cuts, whatever their type (a pandas
        ``category`` column is never cut either).

    Returns
    -------
    TrainingCounts

    Warns
    -----
    UserWarning
        For a column that looks like an identifier (distinct values in more
        than half of at least 20 rows): a model memorises it.

    Raises
    ------
    ValueError
        For no rows, rows and labels of different lengths, or weights that
        sum to zero.
    TypeError
        For a Dask `X` with in-memory `y` or `sample_weight`, or the reverse.
    InvalidParameterError
        For a `missing` or `max_cells` outside its rule.

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("car")
    >>> counts = training_counts(frame.drop(columns="class"), frame["class"])
    >>> nb = gm.NaiveBayes().fit_counts(counts)
    >>> tan = gm.TAN().fit_counts(counts)  # the same engine, its caches shared
    >>> list(tan.classes_) == list(nb.classes_)
    True
    """
    validate_params(
        "training_counts",
        {"missing": missing, "max_cells": max_cells, "categorical": categorical},
        {
            "missing": [COUNTS_MISSING_CONSTRAINT],
            "max_cells": [MAX_CELLS_CONSTRAINT],
            "categorical": CATEGORICAL_CONSTRAINTS,
        },
    )
    if is_dask_collection(X):
        if missing == "unobserved":
            raise ValueError(
                "missing='unobserved' (missing cells left out of each table, or filled in by EM) needs the rows in "
                "memory; a Dask DataFrame takes missing='value' or 'error'. Compute it first (X.compute())."
            )
        return _dask_training_counts(X, y, sample_weight, missing, max_cells, discretizer, categorical)
    if is_dask_collection(y):
        raise TypeError("`y` is a Dask Series but `X` is not a Dask DataFrame; give both as Dask or both in memory.")
    frame = as_frame(X)
    if frame.shape[0] == 0:
        raise ValueError("`X` has 0 rows; at least one row is needed to fit.")
    # Labels and weights are checked before the discretizer, which needs both.
    labels = y_codes = None
    if y is not None:
        labels = LabelEncoder().fit(y)
        y_codes = labels.transform(y)
        if len(y_codes) != frame.shape[0]:
            raise ValueError(f"`X` has {frame.shape[0]} rows but `y` has {len(y_codes)} labels.")
        _refuse_the_target_in_x(frame, y)
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, frame.shape[0])
    cut_frame, binner = fit_discretizer(
        discretizer, frame, y_codes, sample_weight, max_cells=max_cells, categorical=categorical
    )
    integer_columns_cut = _integer_columns(frame, [] if binner is None else binner.binned_columns_)
    frame = cut_frame
    encoder = TableEncoder(missing=missing)
    codes = encoder.fit_transform(frame)
    _warn_identifier_columns(encoder, frame.shape[0])
    names = list(frame.columns)
    feature_names = (
        np.asarray(names, dtype=object) if _has_column_names(X) and all(isinstance(c, str) for c in names) else None
    )
    if y is None:
        engine = CountingEngine(
            codes, encoder.cardinalities_, names=names, sample_weight=sample_weight, max_cells=max_cells
        )
        classes = class_name = None
    else:
        assert labels is not None and y_codes is not None
        classes = labels.classes_
        class_name = _class_name(names, getattr(y, "name", None))
        table = np.empty((codes.shape[0], codes.shape[1] + 1), dtype=encoder.code_dtype(len(classes)))
        table[:, :-1] = codes
        table[:, -1] = y_codes
        engine = CountingEngine(
            table,
            list(encoder.cardinalities_) + [len(classes)],
            names=names + [class_name],
            sample_weight=sample_weight,
            max_cells=max_cells,
        )
    if engine.total <= 0:
        raise ValueError("`sample_weight` sums to zero; give at least one row a positive weight.")
    return TrainingCounts(
        engine, encoder, classes, class_name, feature_names, missing, tuple(frame.shape), binner, integer_columns_cut
    )


#: Name of the class node when `y` has no name and an attribute is called :data:`CLASS_NODE`.
SPARE_CLASS_NODE = "__class__"


def _class_name(names, name):
    """The class variable's name: `y`'s own name, else ``"class"``, else ``"__class__"``: the first no attribute has.

    Raises
    ------
    ValueError
        Naming the columns, when attributes hold every name the class could take.
    """
    candidates = ([] if name is None else [name]) + [CLASS_NODE, SPARE_CLASS_NODE]
    for candidate in candidates:
        if candidate not in names:
            return candidate
    taken = ", ".join(map(repr, dict.fromkeys(candidates)))
    raise ValueError(
        f"The class variable needs a name that no column of `X` has, and `X` has columns {taken}: the names it "
        f"takes (`y`'s own name, then {CLASS_NODE!r}, then {SPARE_CLASS_NODE!r}). Rename the target "
        f"(y = pd.Series(y, name='label')) or one of those columns."
    )


def _refuse_the_target_in_x(frame, y):
    """A ValueError when `X` holds `y` itself: a column with `y`'s name and the same values (the target left in `X`)."""
    name = getattr(y, "name", None)
    if name is None or name not in frame.columns:
        return
    try:
        same = bool(np.all(frame[name].to_numpy(dtype=object) == np.asarray(y, dtype=object)))
    except (TypeError, ValueError):  # cells that do not compare
        return
    if same:
        raise ValueError(
            f"Column {name!r} of `X` is the target `y` itself (the same name and values): a model would learn the "
            f"class from it. Drop it from X (X.drop(columns=[{name!r}]))."
        )


def _dask_training_counts(X, y, sample_weight, missing, max_cells, discretizer, categorical):
    """:func:`training_counts` of a Dask DataFrame: one pass learns the states, the engine counts on the workers."""
    from ..stats.dask_counting import dask_training_data

    if sample_weight is not None:
        raise TypeError(
            "`sample_weight` is not supported with a Dask DataFrame `X`; repeat the rows, or fit in memory."
        )
    data = dask_training_data(
        X,
        y,
        missing=missing,
        max_cells=max_cells,
        discretizer=discretizer,
        categorical=categorical,
        class_name=_class_name,
    )
    _warn_identifier_columns(data.encoder, data.n_rows)
    names = data.columns
    feature_names = np.asarray(names, dtype=object) if all(isinstance(c, str) for c in names) else None
    return TrainingCounts(
        data.engine,
        data.encoder,
        data.classes,
        data.class_name,
        feature_names,
        missing,
        (data.n_rows, len(names)),
        data.discretizer,
        data.integer_columns_cut,
    )


def fit_discretizer(
    discretizer: Any,
    frame: pd.DataFrame,
    labels: Any,
    sample_weight: Any,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    categorical: Sequence[Hashable] | None = None,
) -> tuple[pd.DataFrame, Any]:
    """Fit a fresh copy of `discretizer` on `frame` and cut it; the one place models discretize.

    Parameters
    ----------
    discretizer : None, str or discretizer
        A name of :data:`~graphmodels.data.DISCRETIZERS`, an
        :class:`~graphmodels.data.MDLDiscretizer` or
        :class:`~graphmodels.data.EqualFrequencyDiscretizer` (never fitted
        itself: a copy is), or None.
    frame : DataFrame
    labels : array-like of shape (n_rows,) or None
        Class codes, needed by the supervised (MDL) discretizer.
    sample_weight : ndarray or None
    max_cells : int, default=10_000_000
        The model's ``max_cells``: the limit of an MDL discretizer's class counts
        (distinct values x classes of a column) unless it has its own.
    categorical : list of column names, optional
        Columns never cut, whatever their type.

    Returns
    -------
    frame : DataFrame
        `frame` with its numeric columns cut (itself when nothing was cut).
    fitted : discretizer or None
        None when no column was cut (the model then keeps no discretizer).

    Raises
    ------
    ValueError
        For a name of `categorical` that is not a column of `frame`.
    """
    kept = _check_categorical(categorical, frame.columns)
    binner = make_discretizer(discretizer)
    if binner is None:
        return frame, None
    if not isinstance(binner, (EqualFrequencyDiscretizer, MDLDiscretizer)):
        raise TypeError(
            "`discretizer` must be a name of graphmodels.data.DISCRETIZERS, an MDLDiscretizer or an "
            f"EqualFrequencyDiscretizer, got {type(binner).__name__}; use a Pipeline for other transformers."
        )
    binner = _for_model(binner, max_cells)  # never refit the caller's object
    # The discretizer sees only the columns it may cut; transform passes the others through.
    candidates = frame.drop(columns=kept) if kept else frame
    if isinstance(binner, MDLDiscretizer):
        if labels is None:
            raise ValueError("An MDLDiscretizer needs class labels: pass `y`, or use 'equal-frequency'.")
        binner.fit(candidates, labels, sample_weight=sample_weight)
    else:
        binner.fit(candidates, sample_weight=sample_weight)
    if not binner.cut_points_:
        return frame, None
    return binner.transform(frame), binner


def _column_names(value, name):
    """True for a list (or tuple, set) of hashable column names; a TypeError saying what is wrong otherwise."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset, pd.Index, np.ndarray)):
        raise TypeError(f"`{name}` must be a list of column names (categorical=[{value!r}]), got {value!r}.")
    for item in value:
        if not isinstance(item, Hashable):
            raise TypeError(f"`{name}` must be a list of column names; {item!r} is not a name.")
    return True


def _check_categorical(categorical, columns):
    """The names of `categorical` as a list, each a column of `columns` (a ValueError naming those that are not)."""
    if categorical is None:
        return []
    _column_names(categorical, "categorical")
    present = set(columns)
    unknown = [name for name in categorical if name not in present]
    if unknown:
        raise ValueError(
            f"`categorical` names columns that are not in X: {unknown[:5]}; the columns are {list(columns)[:10]}."
        )
    return list(dict.fromkeys(categorical))


def _integer_columns(frame, columns):
    """The columns of `columns` that hold whole numbers: an integer type, or floats that are all whole.

    A column of integer codes with a missing cell arrives as floats (pandas' ``read_csv``), so
    whole floats count.
    """
    found = []
    for column in columns:
        series = frame[column]
        if series.dtype.kind in "iu":
            found.append(column)
        elif series.dtype.kind == "f":
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            values = values[np.isfinite(values)]
            if values.size and np.array_equal(values, np.round(values)):
                found.append(column)
    return tuple(found)


#: A column with distinct values in more than this share of the rows looks like an identifier.
IDENTIFIER_SHARE = 0.5
#: ... when it has at least this many distinct values (small tables are left alone).
IDENTIFIER_MIN_DISTINCT = 20


def _warn_identifier_columns(encoder, n_rows):
    """Warn about columns with a distinct value in (almost) every row: a model memorises them."""
    suspects = []
    for column, levels, has_missing in zip(encoder.columns_, encoder.levels_, encoder.has_missing_state_):
        distinct = len(levels) - int(has_missing)
        if distinct >= IDENTIFIER_MIN_DISTINCT and distinct > IDENTIFIER_SHARE * n_rows:
            suspects.append((column, distinct, levels))
    if not suspects:
        return
    parts = []
    for column, distinct, levels in suspects[:5]:
        numeric = all(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in levels if v != MISSING_LABEL)
        hint = " (numbers: cut them with discretizer='auto' or 'equal-frequency')" if numeric else ""
        parts.append(f"{column!r} has {distinct} distinct values in {n_rows} rows{hint}")
    warnings.warn(
        "Column(s) that look like identifiers: "
        + "; ".join(parts)
        + ". A model memorises such a column and learns nothing that carries over to new rows; "
        "drop it (X.drop(columns=[...])) unless its values recur.",
        UserWarning,
        stacklevel=3,
    )


#: The models being fitted (by ``id``): the thread fitting each and how deeply its fits nest.
_FITS_IN_PROGRESS: dict[int, tuple[int, int]] = {}
_FITS_LOCK = threading.Lock()

#: Each model class's hyperparameter names (BaseModel._param_names), by (class, its __init__).
_PARAM_NAMES: dict[tuple[type, Any], tuple[str, ...]] = {}


@contextlib.contextmanager
def _fitting_thread(model):
    """Hold `model` for the calling thread while it fits; raise ``RuntimeError`` if another thread holds it.

    Kept outside the model (no lock in its ``__dict__``), so that a model still copies and
    saves as plain data. A thread's nested fits of one object (``fit`` calling ``fit_counts``)
    are one fit.
    """
    key, thread = id(model), threading.get_ident()
    with _FITS_LOCK:
        owner, depth = _FITS_IN_PROGRESS.get(key, (thread, 0))
        if owner != thread:
            raise RuntimeError(
                f"This {type(model).__name__} instance is being fitted in another thread; one model object is "
                "fitted by one thread at a time. To fit in parallel, give each thread its own copy "
                "(graphmodels.models.clone_model(model))."
            )
        _FITS_IN_PROGRESS[key] = (thread, depth + 1)
    try:
        yield
    finally:
        with _FITS_LOCK:
            if depth == 0:
                del _FITS_IN_PROGRESS[key]
            else:
                _FITS_IN_PROGRESS[key] = (thread, depth)


class BaseModel:
    """Hyperparameters, validation, fitted state and persistence of every model.

    ``__init__`` of a subclass only stores its keyword-only arguments. A
    subclass declares the rules of its hyperparameters in
    ``_parameter_constraints`` (merged with its bases'); cross-parameter
    rules go in ``_check_params``, which must not set attributes.
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "estimator": [ESTIMATOR_CONSTRAINT],
        "discretizer": DISCRETIZER_CONSTRAINTS,
        "categorical": CATEGORICAL_CONSTRAINTS,
        "missing": [MISSING_CONSTRAINT],
        "max_cells": [MAX_CELLS_CONSTRAINT],
        "random_state": RANDOM_STATE_CONSTRAINTS,
        # Models with a structure search: record its steps in ``trace_``.
        "trace": [Boolean()],
    }

    #: Private fitted attributes (not ending in ``_``) cleared with the public ones.
    _private_fitted_attributes: tuple[str, ...] = ()

    #: The public fitted attributes a fit of this class may set, merged with its bases' (see
    #: :meth:`_declared_fitted_attributes`): the only names :func:`~graphmodels.models.load_model`
    #: accepts in a file's fitted entries, so a file cannot replace a method or a property.
    _fitted_attributes: tuple[str, ...] = ()

    #: What ``discretizer="auto"`` means for this kind of model (a name of ``DISCRETIZERS``):
    #: unsupervised equal-frequency bins, unless a classifier says otherwise.
    _auto_discretizer = "equal-frequency"

    # Declared for type checkers only (annotations create no class attributes): the
    # hyperparameters most models store in ``__init__``, and the fitted state ``fit`` sets.
    estimator: Any
    missing: str
    max_cells: int
    estimator_: Estimator
    encoder_: TableEncoder
    n_rows_: int
    n_features_in_: int
    feature_names_in_: np.ndarray

    @classmethod
    def _param_names(cls):
        # Read from the signature once per class: clone, get_params and set_params ask on every
        # inner-fold fit, and inspect.signature took 2% of BNClassifier's fit on the small sets.
        key = (cls, cls.__init__)
        names = _PARAM_NAMES.get(key)
        if names is None:
            signature = inspect.signature(cls.__init__)
            names = _PARAM_NAMES[key] = tuple(
                sorted(
                    name
                    for name, p in signature.parameters.items()
                    if name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
                )
            )
        return list(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Hyperparameters as a dict (scikit-learn protocol).

        Parameters
        ----------
        deep : bool, default=True
            Also return the hyperparameters of nested models, as ``name__key``.

        Returns
        -------
        params : dict
            Hyperparameter name -> value.
        """
        params = {}
        for name in self._param_names():
            value = getattr(self, name)
            params[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params().items():
                    params[f"{name}__{key}"] = sub
        return params

    def set_params(self, **params: Any) -> Self:
        """Set hyperparameters; unknown names raise ``ValueError``.

        Parameters
        ----------
        **params
            Hyperparameter name -> new value (``name__key`` for a nested model's).

        Returns
        -------
        self
        """
        valid = self._param_names()
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for {type(self).__name__}; valid: {valid}.")
            if sub:
                getattr(self, name).set_params(**{sub: value})
            else:
                setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        changed = [
            f"{name}={getattr(self, name)!r}"
            for name in self._param_names()
            if defaults[name].default is inspect.Parameter.empty
            or not _same(getattr(self, name), defaults[name].default)
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def _repr_html_(self) -> str:
        """The notebook display: the parameters, and once fitted a summary and the structure as inline SVG.

        Built by :func:`graphmodels.models.display.model_html` (see there
        what it shows, and why there is no ``_repr_svg_``); it never raises.
        """
        from .display import model_html

        return model_html(self)

    # ------------------------------------------------------------ validation
    @classmethod
    def _constraints(cls):
        merged = {}
        for klass in reversed(cls.__mro__):
            merged.update(vars(klass).get("_parameter_constraints", {}))
        names = set(cls._param_names())
        return {name: rules for name, rules in merged.items() if name in names}

    def _validate_params(self):
        """Check every hyperparameter against its declared rules, then the cross-parameter rules."""
        validate_params(type(self).__name__, self.get_params(deep=False), self._constraints())
        self._check_params()

    def _check_params(self):
        """Rules that involve several hyperparameters (subclasses extend; must not set attributes)."""

    # ------------------------------------------------------------ fitted state
    @classmethod
    @functools.cache
    def _declared_fitted_attributes(cls) -> frozenset[str]:
        """Every public fitted attribute a fit of this class may set.

        The ``_fitted_attributes`` of the class and its bases, and those the shared
        machinery sets: ``trace_`` for a model with a ``trace`` hyperparameter,
        ``estimator_selection_`` for one that selects its estimator by leave-one-out,
        ``generative_estimator_``, ``penalty_`` and ``penalty_selection_`` for one
        fitted discriminatively. ``tests/test_model_contract.py`` checks that every
        registered model's fits set no other.
        """
        names = {name for klass in cls.__mro__ for name in vars(klass).get("_fitted_attributes", ())}
        if "trace" in cls._param_names():
            names.add("trace_")
        if cls._selects_estimator:
            names.add("estimator_selection_")
        if cls._fits_discriminative:
            names.update(("generative_estimator_", "penalty_", "penalty_selection_"))
        return frozenset(names)

    def _validate_fitted_state(self) -> None:
        """Check the fitted state that prediction reads; a model read from a file calls it.

        Raises :class:`~graphmodels.models._fitted.FittedStateError` naming the
        attribute. Each model family extends it (calling ``super()`` first) with the
        checks of its own tables: their type, shape (from the encoder's levels, the
        classes and the parents), finite log-probabilities, distributions that sum
        to 1 and parent indices in range.
        """
        state = vars(self)
        if "encoder_" in state:
            encoder = _fitted.instance("encoder_", self.encoder_, TableEncoder, "a TableEncoder")
            n_columns = len(_fitted.sequence("encoder_.columns_", encoder.columns_))
            _fitted.sequence("encoder_.levels_", encoder.levels_, n_columns)
            _fitted.sequence("encoder_.has_missing_state_", encoder.has_missing_state_, n_columns)
        if "estimator_" in state and not isinstance(self.estimator_, BaseModel):  # LabelPowerset's is a model
            _fitted.instance("estimator_", self.estimator_, Estimator, "an Estimator")
        if state.get("discretizer_") is not None:
            discretizer = _fitted.instance(
                "discretizer_", self.discretizer_, (EqualFrequencyDiscretizer, MDLDiscretizer), "a discretizer or None"
            )
            for name, cuts in getattr(discretizer, "cut_points_", {}).items():
                cuts = _fitted.array(f"discretizer_.cut_points_[{name!r}]", cuts, kind="f", ndim=1)
                if not (np.isfinite(cuts).all() and (np.diff(cuts) >= 0).all()):
                    raise _fitted.FittedStateError(
                        f"discretizer_.cut_points_[{name!r}]", "is not finite cut points in order."
                    )
        if "structure_" in state:
            _fitted.instance(
                "structure_", state["structure_"], (nx.Graph, Hyperforest), "a networkx graph or a Hyperforest"
            )
        if "n_rows_" in state:
            _fitted.instance("n_rows_", self.n_rows_, numbers.Integral, "an integer")
        if "n_features_in_" in state:
            _fitted.instance("n_features_in_", self.n_features_in_, numbers.Integral, "an integer")
            n_columns = len(self._fitted_columns())
            if self.n_features_in_ != n_columns:
                raise _fitted.FittedStateError(
                    "n_features_in_", f"is {self.n_features_in_}, but the model has {n_columns} columns."
                )
            if "feature_names_in_" in state:
                _fitted.array("feature_names_in_", self.feature_names_in_, kind="OU", shape=(n_columns,))

    def _fitted_columns(self) -> list[Hashable]:
        """The fitted model's columns (a multi-label model's that keeps no encoder says otherwise)."""
        return list(self.encoder_.columns_)

    def _validated_cardinalities(self) -> list[int]:
        """The number of states of each column, from ``encoder_`` (checked by :meth:`_validate_fitted_state`)."""
        return [
            len(_fitted.sequence(f"encoder_.levels_[{j}]", levels)) for j, levels in enumerate(self.encoder_.levels_)
        ]

    def _tables_are_probabilities(self) -> bool:
        """False when the tables are log-potentials (a discriminative fit), not log-probabilities."""
        return not isinstance(getattr(self, "estimator_", None), Discriminative)

    @property
    def missing_encoding(self) -> str:
        """How :func:`training_counts` encodes missing cells for this model: its ``missing``.

        A model whose ``missing`` is not an encoding of the cells themselves (a Bayesian
        network's ``"em"``) reads them as ``"unobserved"``.
        """
        return self.missing

    def _fitted_attribute_names(self):
        return [name for name in vars(self) if name.endswith("_") and not name.startswith("_")]

    def _reset_fitted_state(self):
        for name in self._fitted_attribute_names() + list(self._private_fitted_attributes):
            self.__dict__.pop(name, None)
        self.__dict__.pop("_distribution_cache", None)  # the inference layer's view of the fit

    @contextlib.contextmanager
    def _fitting(self):
        """Clear the previous fit; if fitting fails, leave the model unfitted (not half fitted).

        A :class:`~graphmodels.stats.TableTooLargeError` gets the model's name in front of its message.
        One object is fitted by one thread at a time: a ``fit`` started while another thread fits
        the same object raises ``RuntimeError`` at once, and leaves that other fit alone (a fit
        writes its state into the object step by step, so two at once would mix their states).
        """
        with _fitting_thread(self):
            self._reset_fitted_state()
            try:
                yield
            except TableTooLargeError as error:
                self._reset_fitted_state()
                raise error.for_model(type(self).__name__) from None
            except BaseException:
                self._reset_fitted_state()
                raise

    #: Whether ``estimator=`` may be a :class:`~graphmodels.estimators.LeaveOneOutSelection`: the
    #: model implements ``_fit_tables(engine, estimator)`` and ``_training_families(engine, codes, estimator)``.
    _selects_estimator = False

    def _resolve_estimator(self):
        """Set ``estimator_`` from the ``estimator`` hyperparameter (models that have one)."""
        if "estimator" in self._param_names():
            self.estimator_ = get_estimator(self.estimator)
            if isinstance(self.estimator_, LeaveOneOutSelection) and not self._selects_estimator:
                raise ValueError(
                    f"`estimator`: {type(self).__name__} cannot choose its estimator by leave-one-out "
                    "(LeaveOneOutSelection needs a likelihood that is a sum over family tables: NaiveBayes, "
                    "TAN, FAN, ChowLiu, KDB, HyperforestClassifier, HierarchicalNaiveBayes); pass one estimator, such as 'bdeu-auto'."
                )
            if isinstance(self.estimator_, Discriminative) and not self._fits_discriminative:
                raise ValueError(
                    f"`estimator`: {type(self).__name__} cannot fit its tables discriminatively (Discriminative "
                    "needs a Bayesian network or multinet over the class: NaiveBayes, TAN, FAN, ChowLiu, KDB, "
                    "SelectiveKDB); pass a generative estimator, such as 'leave-one-out'."
                )

    #: Whether ``estimator=`` may be a :class:`~graphmodels.estimators.Discriminative`: the model keeps
    #: ``class_log_prior_`` and family tables (``log_tables_`` with a leading class axis, or its own
    #: ``_family_tables``) and implements ``_family_index(codes)``.
    _fits_discriminative = False

    def _fit_discriminative_tables(self, engine, discriminative):
        """Fit generatively with ``discriminative.generative``, then refit the tables to the conditional likelihood.

        Sets ``estimator_`` to `discriminative`, ``generative_estimator_`` to
        the generative estimator used (the chosen candidate after a
        selection), ``penalty_`` (None when ``penalty="auto"`` kept the
        generative tables) and, for ``penalty="auto"``, ``penalty_selection_``.
        """
        if engine.distributed:
            raise InMemoryRowsRequired(
                'estimator="discriminative" refits the tables by L-BFGS over every training row, which a Dask '
                "DataFrame keeps on its workers. Pass a generative estimator (the default 'leave-one-out', or "
                "'bdeu-auto'), or fit on in-memory data (X.compute())."
            )
        self.estimator_ = discriminative.generative
        self._fit_selected_tables(engine)
        self._refit_discriminatively(engine, discriminative)

    def _refit_discriminatively(self, engine, discriminative):
        """Refit the generative tables just fitted (``estimator_`` the estimator that gave them) to the conditional likelihood.

        The second half of :meth:`_fit_discriminative_tables`: a copy of a
        model fitted generatively on the same engine, refitted here, equals a
        fit with `discriminative` (:class:`~graphmodels.BNClassifier` refits
        its chosen structure so, without learning it again).
        """
        generative = self.estimator_
        tables, owners = self._family_tables()
        # The parameter vector is the fit's table: max_cells bounds it as it bounds every table
        # (L-BFGS holds _LBFGS_ARRAYS arrays of its size), checked before the rows are read.
        n_parameters = len(self.class_log_prior_) + sum(int(np.size(table)) for table in tables)
        engine.check_cells(
            n_parameters,
            what=f"parameter vector of the discriminative fit (the class prior and {len(tables)} family tables, "
            f"the largest of {max((int(np.size(t)) for t in tables), default=0):,} cells; L-BFGS holds "
            f"{_LBFGS_ARRAYS} arrays of its size, {_LBFGS_ARRAYS * 8 * n_parameters / 2**20:,.0f} MiB)",
            fix="fit smaller tables (fewer parents, coarser bins) or pass a generative estimator",
        )
        codes, weights = engine.rows()
        fit = fit_discriminative_tables(
            self.class_log_prior_,
            tables,
            self._family_index(codes[:, :-1]),
            codes[:, -1],
            weights,
            discriminative,
            generative,
            table_classes=owners,
        )
        self.class_log_prior_ = fit.class_log_prior
        self._set_family_tables(fit.log_tables)
        self.estimator_ = discriminative
        self.generative_estimator_ = generative
        self.penalty_ = fit.penalty
        if fit.penalty_selection is not None:
            self.penalty_selection_ = fit.penalty_selection

    def _family_index(self, codes):
        """Each row's (parents..., child) states in every table of :meth:`_family_tables`, in order."""
        raise NotImplementedError

    def _family_tables(self):
        """The log tables as one list, and the class each enters (None: every class; a multinet's own)."""
        return self.log_tables_, None

    def _set_family_tables(self, tables):
        self.log_tables_ = tables

    def _refit_tables(self, engine, estimator):
        """Fit this fitted structure's tables again, on `engine`'s counts, with the generative `estimator`.

        The structure stays as fitted (a selection chooses its prior again): :class:`~graphmodels.BNClassifier`'s
        inner folds from 1,000 rows fit so the structure learned on every row.
        """
        self.estimator_ = get_estimator(estimator)
        try:
            self._fit_selected_tables(engine)
        except TableTooLargeError as error:  # named by its model, as a fit's refusal is
            raise error.for_model(type(self).__name__) from None

    def _fit_selected_tables(self, engine):
        """Fit the tables with ``estimator_``; a LeaveOneOutSelection first picks its best candidate.

        Sets ``estimator_`` to the estimator used and, after a selection,
        ``estimator_selection_`` (candidate, leave-one-out log-loss and error).
        """
        selection = self.estimator_
        if isinstance(selection, Discriminative):
            self._fit_discriminative_tables(engine, selection)
            return
        if not isinstance(selection, LeaveOneOutSelection):
            self._fit_tables(engine, selection)
            return
        # At most MAX_SELECTION_ROWS rows, drawn with a fixed seed: the same rows give the same
        # choice, whatever random_state is, and a Dask engine gathers the same sample from its partitions.
        codes, weights = engine.sample_rows(MAX_SELECTION_ROWS, seed=0)
        scores = []
        keys: dict[tuple[Any, ...], Any] = {}  # each table's digest once, for every candidate
        remembered = [RememberedPseudoCounts(candidate, keys) for candidate in selection.candidates]
        if self._families_read_tables:
            self._fit_tables(engine, remembered[0])
        # The tables and each row's cells do not depend on the candidate: only its pseudo-counts.
        # Zero pseudo-counts, one array per distinct table (a multinet's classes share their tables).
        cells = self._training_families(engine, codes, RememberedPseudoCounts(MaximumLikelihood(), keys))
        scorer = LeaveOneOutScorer(cells, codes[:, -1], weights)
        class_counts = engine.counts([engine.names[-1]])
        # Tables of many parents hold far more cells than the scored rows read: each candidate is
        # scored from the counts at the rows' cells, and only the chosen one's tables are fitted.
        from_counts = self._families_lead_with_the_class and scorer.joint_is_cheaper_than_tables(len(class_counts))
        kept, kept_fit = -1, {}
        for candidate in remembered:
            candidate.remember(cells)
            pseudo_counts = [candidate.pseudo_counts(f.counts, conditional=f.conditional) for f in cells]
            if from_counts:
                with np.errstate(divide="ignore"):
                    scores.append(scorer.score_from_counts(pseudo_counts, np.log(candidate.joint(class_counts))))
            else:
                self._fit_tables(engine, candidate)
                scores.append(scorer.score(self._joint_log_likelihood(codes[:, :-1]), pseudo_counts))
            if not from_counts and _lowest([log_loss for log_loss, _ in scores]) == len(scores) - 1:
                # The best candidate so far keeps its fitted tables (every _fit_tables assigns new
                # arrays): no refit of the winner, and at most two candidates' tables in memory.
                kept, kept_fit = len(scores) - 1, dict(vars(self))
        best = _lowest([log_loss for log_loss, _ in scores])
        if best == kept:
            self._restore(kept_fit)
        else:  # scored from the counts, or an earlier candidate within the tie tolerance of a later best
            self._fit_tables(engine, remembered[best])
        self.estimator_ = selection.candidates[best]
        self.estimator_selection_ = pd.DataFrame(
            {
                "candidate": [repr(c) for c in selection.candidates],
                "log_loss": [log_loss for log_loss, _ in scores],
                "error": [error for _, error in scores],
            }
        )

    def _fit_best_representation(self, engine, learners, simplest):
        """Fit each representation's structure and tables; keep the one best on rows it was not fitted to.

        `learners` maps a representation's name to a function of the engine
        that learns that structure (setting ``representation_``); `simplest`
        names the one with the fewest parameters. Each is fitted from the same
        starting state with the generative estimator and scored by the
        log-loss of its class probabilities on rows left out:

        * each training row left out of the tables (:meth:`_leave_one_out_score`,
          exact from the counts); the lowest wins (ties, within a relative
          :data:`TIE_RTOL`: the first listed);
        * where the classes have few rows
          (:meth:`_scores_representations_by_cross_validation`), each fold of
          an inner cross-validation left out of the structure and the tables
          (:meth:`_cross_validated_losses`). An estimate on so few rows is
          noisy, so `simplest` is kept unless another representation's
          log-loss is lower by more than one standard error of the rows'
          paired differences (the one-standard-error rule of Breiman et al.
          [1]_, Hastie et al. [2]_ section 7.10).

        ``representation_selection_`` holds every score, how it was measured
        and, for cross-validation, that standard error. A discriminative
        estimator then refits the winner's tables.

        References
        ----------
        .. [1] Breiman, L., Friedman, J. H., Olshen, R. A., & Stone, C. J.
               (1984). *Classification and Regression Trees*, section 3.4.3.
        .. [2] Hastie, T., Tibshirani, R., & Friedman, J. (2009). *The
               Elements of Statistical Learning*, 2nd ed., section 7.10.
        """
        chosen = self.estimator_
        generative = chosen.generative if isinstance(chosen, Discriminative) else chosen
        names = list(learners)
        start = dict(vars(self))
        scores, fitted = [], []
        for learn in learners.values():
            self._restore(start)
            self.estimator_ = generative
            learn(engine)
            self._fit_selected_tables(engine)
            scores.append(self._leave_one_out_score(engine))
            fitted.append(dict(vars(self)))
        scored_by, errors = "leave-one-out", [np.nan] * len(names)
        if self._scores_representations_by_cross_validation(engine):
            losses = [
                self._cross_validated_losses(engine, learn, state) for learn, state in zip(learners.values(), fitted)
            ]
            scores = [
                (_weighted_mean(loss, weights), _weighted_mean(wrong, weights)) for loss, wrong, weights in losses
            ]
            base = names.index(simplest)
            errors = [
                np.nan if i == base else _standard_error(loss - losses[base][0], weights)
                for i, (loss, _, weights) in enumerate(losses)
            ]
            best = _lowest([log_loss for log_loss, _ in scores])
            if not scores[best][0] + errors[best] < scores[base][0]:  # NaN (no rows) also keeps the simplest
                best = base
            scored_by = f"{REPRESENTATION_FOLDS}-fold cross-validated"
        else:
            best = _lowest([log_loss for log_loss, _ in scores])
        self._restore(fitted[best])
        self.representation_selection_ = pd.DataFrame(
            {
                "representation": names,
                "log_loss": [log_loss for log_loss, _ in scores],
                "error": [error for _, error in scores],
                "scored_by": scored_by,
                "standard_error": errors,
            }
        )
        if generative is not chosen:
            self.estimator_ = chosen
            self._fit_selected_tables(engine)

    def _scores_representations_by_cross_validation(self, engine):
        """Whether the classes have so few rows that leaving a row out of the tables alone flatters a structure.

        True when the training rows (their weight) per class, on average over
        the classes seen, are fewer than :data:`SMALL_CLASS_ROWS` and the rows
        are in memory.
        """
        if engine.distributed:
            return False
        class_counts = np.asarray(engine.counts([engine.names[-1]]), dtype=np.float64)
        seen = int((class_counts > 0).sum())
        return seen > 0 and float(class_counts.sum()) / seen < SMALL_CLASS_ROWS

    def _cross_validated_losses(self, engine, learn, state):
        """Each training row's log-loss and error under one representation refitted without the row's fold.

        The training rows are cut into :data:`REPRESENTATION_FOLDS` folds
        (:func:`stratified_folds`; a row of integer weight w counts as w rows,
        so that weights equal repeated rows); for each fold, `learn` relearns
        the structure and the tables are refitted on the other folds with the
        estimator the representation kept on all rows (`state`, a snapshot of
        its fit, restored at the end), and the fold's rows are scored.

        Returns
        -------
        log_loss : ndarray of shape (n_units,)
            ``-log P(y_i | x_i)`` in nats, each probability clipped at 1e-15.
        wrong : ndarray of shape (n_units,)
            1.0 where the most probable class is not the row's own.
        weights : ndarray of shape (n_units,)
        """
        codes, weights = _rows_as_units(engine)
        y = codes[:, -1]
        folds = stratified_folds(y, REPRESENTATION_FOLDS)
        log_posterior = np.zeros(len(y))
        wrong = np.zeros(len(y))
        for fold in range(REPRESENTATION_FOLDS):
            held = folds == fold
            if not held.any():
                continue
            kept = ~held
            if not kept.any():  # one row (or one weighted unit): nothing to refit on, so no evidence
                self._restore(state)
                return np.full(len(y), np.nan), np.full(len(y), np.nan), weights
            part = CountingEngine(
                codes[kept],
                engine.cardinalities,
                names=engine.names,
                sample_weight=weights[kept],
                max_cells=engine.max_cells,
            )
            self._restore(state)
            estimator = self.estimator_
            learn(part)
            self._fit_tables(part, estimator)
            joint = self._joint_log_likelihood(codes[held, :-1])
            with np.errstate(invalid="ignore", divide="ignore"):
                log_posterior[held] = joint[np.arange(len(joint)), y[held]] - logsumexp(joint, axis=1)
            wrong[held] = np.argmax(joint, axis=1) != y[held]
        self._restore(state)
        log_posterior = np.where(np.isnan(log_posterior), -np.inf, log_posterior)
        return -np.maximum(log_posterior, np.log(_CLIP)), wrong, weights

    def _restore(self, state):
        """Put back a snapshot ``dict(vars(self))``: its attributes, and none set since."""
        vars(self).clear()
        vars(self).update(state)

    def _leave_one_out_score(self, engine):
        """Leave-one-out (log-loss, error) of the fitted generative tables: the selection's, when one ran."""
        if "estimator_selection_" in vars(self):
            table = self.estimator_selection_
            best = int(np.argmin(table["log_loss"].to_numpy()))
            return float(table["log_loss"].iloc[best]), float(table["error"].iloc[best])
        codes, weights = engine.sample_rows(MAX_SELECTION_ROWS, seed=0)
        families = self._training_families(engine, codes, self.estimator_)
        return leave_one_out_scores(self._joint_log_likelihood(codes[:, :-1]), codes[:, -1], weights, families)

    def _fit_tables(self, engine, estimator):
        raise NotImplementedError

    #: True for a model whose ``_training_families`` reads what ``_fit_tables`` sets (a junction forest's order).
    _families_read_tables = False

    #: True for a model whose every attribute family is one table with the class as its first axis,
    #: read by every row, and whose ``_joint_log_likelihood`` of a complete row is the class log-prior
    #: plus each family's log-probability at the row's cell: a leave-one-out selection may then score
    #: its candidates without fitting their tables (:meth:`LeaveOneOutScorer.joint_log_likelihood`).
    _families_lead_with_the_class = False

    def _training_families(self, engine, codes, estimator):
        raise NotImplementedError

    def _fit_engine(self, engine):
        """``self._fit(engine)``; a fit that needs rows a Dask engine does not give says so, naming the model."""
        try:
            self._fit(engine)  # type: ignore[attr-defined]  # each model kind declares _fit
        except InMemoryRowsRequired as error:
            raise InMemoryRowsRequired(
                f"{type(self).__name__} cannot be fitted from a Dask DataFrame: {error}"
            ) from None

    def _lazy(self, X, method, n_columns, dtype):
        """`method` applied to each partition of the Dask DataFrame `X`: a lazy dask array."""
        self._check_fitted()
        from ..stats.dask_counting import lazy_rows

        return lazy_rows(X, method, n_columns, dtype)

    def _new_discretizer(self):
        """The ``discretizer`` hyperparameter with ``"auto"`` resolved (:func:`fit_discretizer` copies it)."""
        value = getattr(self, "discretizer", None)
        if isinstance(value, str) and value.lower() == "auto":
            return self._auto_discretizer
        return value

    def _warn_integer_columns_cut(self, columns, stacklevel=3):
        """Say that ``discretizer="auto"`` cut `columns` of whole numbers, and how to keep them as categories.

        `stacklevel` 3 points at the caller of the ``fit`` that calls this.
        """
        value = getattr(self, "discretizer", None)
        if not columns or not (isinstance(value, str) and value.lower() == "auto"):
            return
        owner, names = type(self).__name__, list(columns)
        shown = ", ".join(map(repr, names[:5])) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        warnings.warn(
            f"{owner}: discretizer='auto' cut the integer column(s) {shown} into intervals, as numbers. If they "
            f"are codes of categories, keep them as categories: {owner}(categorical={names!r}), or the pandas "
            f"'category' dtype (X[col].astype('category')). To cut them without this warning, pass "
            f"discretizer={self._auto_discretizer!r}.",
            IntegerColumnsCutWarning,
            stacklevel=stacklevel,
        )

    def _is_fitted(self):
        return "encoder_" in vars(self)

    def __sklearn_is_fitted__(self):
        return self._is_fitted()

    def _check_fitted(self):
        if not self._is_fitted():
            raise _not_fitted_error(type(self).__name__)

    def _encode_new(self, X):
        self._check_fitted()
        owner = type(self).__name__
        frame = self.encoder_.align(X, owner=owner)
        if len(frame) == 0:
            return np.zeros((0, len(self.encoder_.columns_)), dtype=np.int64)
        discretizer = getattr(self, "discretizer_", None)
        if discretizer is not None:
            frame = discretizer.transform(frame)
        codes = self.encoder_.transform(frame, owner=owner)
        _warn_unseen_values(codes, frame, self.encoder_, owner)
        return codes

    def _set_training_attributes(self, counts):
        """``encoder_``, ``n_rows_``, ``n_features_in_`` and ``feature_names_in_`` from shared training counts."""
        if counts.n_features == 0 and not getattr(self, "_allow_no_features", False):
            raise ValueError(f"`X` has 0 feature(s) (shape={counts.shape}) while a minimum of 1 is required.")
        if counts.missing != self.missing_encoding:
            raise ValueError(
                f"The training counts were encoded with missing={counts.missing!r} but "
                f"{type(self).__name__} (missing={self.missing!r}) reads them encoded with "
                f"missing={self.missing_encoding!r}."
            )
        self.encoder_ = counts.encoder
        self.discretizer_ = counts.discretizer
        self.n_rows_ = int(counts.shape[0])
        self.n_features_in_ = counts.n_features
        if counts.feature_names_in is not None:
            self.feature_names_in_ = counts.feature_names_in

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save the fitted model as JSON (``.json``) or NPZ (``.npz``); never pickle.

        The write is atomic (a temporary file beside `path`, flushed, then moved
        onto it): a failed save leaves the previous file at `path` as it was.

        Parameters
        ----------
        path : str or path-like
            Ends in ``.json`` or ``.npz``.

        See Also
        --------
        graphmodels.models.load_model
        """
        from .persistence import save_model

        save_model(self, path)

    def __sklearn_tags__(self):
        # Only scikit-learn calls this, so importing it here keeps the core free of it.
        from sklearn.utils import InputTags, Tags, TargetTags

        tags = Tags(
            estimator_type=getattr(self, "_estimator_type", None),
            target_tags=TargetTags(required=isinstance(self, BaseClassifier)),
            input_tags=InputTags(allow_nan=True, categorical=True, string=True),
        )
        if isinstance(self, BaseClassifier):
            from sklearn.utils import ClassifierTags

            tags.classifier_tags = ClassifierTags()
        return tags


def _warn_unseen_values(codes, frame, encoder, owner):
    """Warn, naming the column, when most of a column's values were never seen in fit.

    Such cells are summed out one by one, which is right for a rare new value
    and wrong for a column whose coding changed (text at prediction for
    numbers at fit, say): then the model silently ignores the column.
    """
    unknown = (codes == UNKNOWN).sum(axis=0)
    for j in np.flatnonzero(unknown > 0):
        column = encoder.columns_[j]
        series = frame[column]
        unseen = (codes[:, j] == UNKNOWN) & ~pd.isna(series).to_numpy()
        observed = int((~pd.isna(series)).sum())
        if not unseen.any() or unseen.sum() <= 0.5 * observed:
            continue
        examples = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in pd.unique(series[unseen])[:3])
        fitted = [v for v in encoder.levels_[j] if v != MISSING_LABEL][:3]
        warnings.warn(
            f"{owner}: {int(unseen.sum())} of {observed} values of column {column!r} were never seen in fit "
            f"(e.g. {examples}; fit saw e.g. {', '.join(map(repr, fitted))}); they are treated as unobserved. "
            "Check that the column has the same type and coding as in the training data.",
            UserWarning,
            stacklevel=4,
        )


def _same(a, b):
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return a is b


_Model = TypeVar("_Model")


def clone_model(model: _Model) -> _Model:
    """An unfitted copy of `model` with the same hyperparameters (scikit-learn's ``clone``
    without importing scikit-learn; nested estimators are cloned too).

    Parameters
    ----------
    model : estimator
        A graphmodels model or any object with ``get_params``.

    Returns
    -------
    model
        A new, unfitted instance of the same class.

    Raises
    ------
    TypeError
        If `model` has no ``get_params``.
    """
    if not hasattr(model, "get_params"):
        raise TypeError(f"Expected a graphmodels or scikit-learn estimator, got {type(model).__name__}.")
    params = {
        name: clone_model(value) if hasattr(value, "get_params") and not isinstance(value, type) else value
        for name, value in model.get_params(deep=False).items()
    }
    return type(model)(**params)


class NotFittedError(ValueError, AttributeError):
    """A model was used before `fit` (a ValueError and an AttributeError, like scikit-learn's)."""


def _not_fitted_error(name):
    message = f"This {name} instance is not fitted yet; call `fit` first."
    # When scikit-learn is in use, raise a class that is both ours and its own, so
    # that its tools and ours recognize it; scikit-learn is never imported here.
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is not None:
        return _with_sklearn_class(sklearn_exceptions.NotFittedError)(message)
    return NotFittedError(message)


@functools.cache
def _with_sklearn_class(sklearn_not_fitted):
    return type("NotFittedError", (NotFittedError, sklearn_not_fitted), {"__module__": __name__})


class BaseClassifier(BaseModel):
    """A classifier over discrete attributes: ``fit(X, y)``, ``predict*``, ``score``.

    Subclasses implement ``_fit(engine)``, where the engine counts the
    encoded attributes plus the class (last variable, named
    ``self.class_name_``), and ``_joint_log_likelihood(codes)`` returning
    ``log P(x, y)`` of shape (n_rows, n_classes).
    """

    _estimator_type = "classifier"
    #: The registry's kind of model (see :func:`~graphmodels.models.register_model`).
    _model_kind = "classifier"
    #: Supervised cut points (Fayyad & Irani's MDL) for a classifier's numeric columns.
    _auto_discretizer = "mdl"

    classes_: np.ndarray
    class_name_: Hashable

    _fitted_attributes: tuple[str, ...] = (
        "encoder_", "discretizer_", "n_rows_", "n_features_in_", "feature_names_in_", "estimator_",
        "classes_", "class_name_",
    )  # fmt: skip

    if TYPE_CHECKING:
        # What subclasses implement (see the class docstring); declared for type checkers only.
        def _fit(self, engine: CountingEngine) -> Any: ...

    def _validate_fitted_state(self) -> None:
        """The common checks, then ``classes_``: a 1-D array, as long as ``class_log_prior_`` when there is one."""
        super()._validate_fitted_state()
        classes = _fitted.array("classes_", self.classes_, kind="biufUSOMm", ndim=1)
        if len(classes) == 0:
            raise _fitted.FittedStateError("classes_", "is empty: a fitted classifier has at least one class.")
        if "class_log_prior_" in vars(self):
            _fitted.log_table(
                "class_log_prior_",
                self.class_log_prior_,
                (len(classes),),
                probabilities=self._tables_are_probabilities(),
            )

    def fit(self, X: pd.DataFrame | ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Learn the structure and the parameters from `X` and `y`.

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_features)
            Attributes: strings, categoricals, booleans, integers or floats.
            Numeric columns with many distinct values are cut into intervals
            by the model's ``discretizer`` (see its class); every other value
            is a state. Missing cells are a state of their own
            (``missing="value"``). A Dask DataFrame is counted on its cluster
            (:class:`~graphmodels.stats.DaskCountingEngine`), with the same
            result as its computed rows, for the models that fit from counts.
        y : 1-D array-like of shape (n_rows,)
            Class labels, any hashable values; with a Dask `X`, a Dask Series
            partitioned as `X` or the name of a column of `X`.
        sample_weight : array-like of shape (n_rows,), optional
            Non-negative frequency weights: a weight of 2 counts a row twice.
            Their sum is the sample size N wherever N matters (priors, FAN's
            MDL threshold, AODE's frequency limit), so do not rescale them.

        Returns
        -------
        self
        """
        self._validate_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        with self._fitting():
            counts = training_counts(
                X,
                y,
                sample_weight=sample_weight,
                missing=self.missing_encoding,
                max_cells=self.max_cells,
                discretizer=self._new_discretizer(),
                categorical=getattr(self, "categorical", None),
            )
            self._warn_integer_columns_cut(counts.integer_columns_cut)
            self.fit_counts(counts)
        return self

    def fit_counts(self, counts: TrainingCounts) -> Self:
        """Learn from training rows already encoded and counted by :func:`training_counts`.

        Models fitted from the same :class:`TrainingCounts` share its counting
        engine and the engine's caches; the result is the same as
        ``fit(X, y)`` on those rows (the engine's `max_cells` applies, and the
        counts' discretization, not the model's ``discretizer``).

        Parameters
        ----------
        counts : TrainingCounts
            Built with a class (``training_counts(X, y, ...)``) and the same
            `missing` as this model.

        Returns
        -------
        self
        """
        if not isinstance(counts, TrainingCounts):
            raise TypeError(f"`counts` must be a TrainingCounts (see training_counts), got {type(counts).__name__}.")
        if counts.classes is None:
            raise ValueError("`counts` has no class variable: build it with training_counts(X, y).")
        self._validate_params()
        with self._fitting():
            self._set_training_attributes(counts)
            self.classes_ = counts.classes
            self.class_name_ = counts.class_name
            self._resolve_estimator()
            self._fit_training_counts(counts)
        return self

    def _fit_training_counts(self, counts: TrainingCounts) -> None:
        """Fit from checked counts: their engine (a model that refits on subsets of the rows needs the rows too)."""
        self._fit_engine(counts.engine)

    @property
    def n_classes_(self) -> int:
        """Number of classes."""
        return len(self.classes_)

    def joint_log_likelihood(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """``log P(x, y)`` for every row and class, shape (n_rows, n_classes)."""
        if is_dask_collection(X):
            return self._lazy(X, self.joint_log_likelihood, self.n_classes_, np.float64)
        return self._joint_log_likelihood(self._encode_new(X))

    def _joint_log_likelihood(self, codes):
        """``log P(x, y)`` of encoded rows, shape (n_rows, n_classes) (subclasses implement)."""
        raise NotImplementedError(
            f"{type(self).__name__} does not define a joint distribution P(x, y); "
            "predict_log_proba gives the class posterior."
        )

    def _class_log_scores(self, codes):
        """``log P(x, y)`` up to a term constant in y: what prediction normalizes.

        The joint by default; a model without a normalized joint (Kikuchi-Bayes)
        overrides this instead of `_joint_log_likelihood`.
        """
        return self._joint_log_likelihood(codes)

    def explain(self, X: pd.DataFrame | ArrayLike) -> pd.DataFrame:
        """Each row's log-odds (or each class's log-probability) split exactly into the model's terms.

        The model's score of a class is a sum of terms (its families, regions, hyperedges or
        latent variables; see :mod:`graphmodels.models.explanations` for each model), so the
        prediction of a row is their sum: this returns them.

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_features)
            Rows to explain, as for :meth:`predict_proba`.

        Returns
        -------
        DataFrame
            One row per row of `X` (its index). Two classes: ``<prior>`` (the model's prior
            log-odds) and one column per term, the terms' contributions to the log-odds of
            ``classes_[1]`` against ``classes_[0]``; a row sums to that log-odds exactly (to
            rounding). More classes: one block per class (MultiIndex ``(class, term)``):
            ``<prior>`` (``log P(class)``), each term minus its mean over the classes (a term
            that is the same for every class tells nothing), and ``<normalizer>``; a block sums
            to ``log P(class | x)``. ``<unobserved>``, only when some row needs it, holds what
            the model's sum over a state never seen adds beyond the terms it could read.

        See Also
        --------
        graphmodels.shapley_values : each attribute's Shapley value, by marginalization.
        graphmodels.plotting.draw_waterfall : a row's terms as a waterfall.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("voting", return_X_y=True)
        >>> tan = gm.TAN().fit(X, y)
        >>> terms = tan.explain(X.head(2))
        >>> log_odds = np.diff(tan.predict_log_proba(X.head(2)), axis=1)[:, 0]
        >>> bool(np.allclose(terms.sum(axis=1), log_odds, atol=1e-10))
        True
        """
        from .explanations import explain

        return explain(self, X)

    def _explanation_terms(self, codes):
        """The class scores of encoded rows split into terms (an ``ExplanationTerms``).

        By default the chain rule over the columns (``graphmodels.models.explanations``); each
        model family overrides it with its own units.
        """
        from .explanations import chain_rule_terms

        return chain_rule_terms(self, codes)

    def predict_log_proba(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Log of the class posterior, shape (n_rows, n_classes), columns in ``classes_`` order.

        On a Dask DataFrame: a lazy dask array, computed partition by partition (as are
        :meth:`predict_proba`, :meth:`predict` and :meth:`joint_log_likelihood`).
        """
        if is_dask_collection(X):
            return self._lazy(X, self.predict_log_proba, self.n_classes_, np.float64)
        joint = self._class_log_scores(self._encode_new(X))
        with np.errstate(divide="ignore"):
            norm = logsumexp(joint, axis=1, keepdims=True)
        impossible = ~np.isfinite(norm[:, 0])
        if impossible.any():
            # Only maximum-likelihood estimates (no prior) give every class
            # probability 0; say so and fall back to the uniform distribution.
            warnings.warn(
                f"{int(impossible.sum())} rows have probability 0 under every class "
                "(a combination never seen in training, with no prior); they get the "
                "uniform distribution. Use a Dirichlet or BDeu estimator to avoid this.",
                UserWarning,
                stacklevel=2,
            )
            joint = joint.copy()
            joint[impossible] = 0.0
            norm[impossible] = np.log(joint.shape[1])
        return joint - norm

    def predict_proba(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Class posterior probabilities, shape (n_rows, n_classes); rows sum to 1."""
        if is_dask_collection(X):
            return self._lazy(X, self.predict_proba, self.n_classes_, np.float64)
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Most probable class of each row (ties: the first in ``classes_``)."""
        if is_dask_collection(X):
            return self._lazy(X, self.predict, None, self.classes_.dtype)
        log_proba = self.predict_log_proba(X)
        return self.classes_[np.argmax(log_proba, axis=1)]

    def score(self, X: pd.DataFrame | ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Accuracy of :meth:`predict` on `X`, `y`."""
        predicted = self.predict(X)
        truth = np.asarray(y, dtype=object if self.classes_.dtype == object else None)
        correct = (predicted == truth).astype(float)
        # numpy's stub wants a numeric array-like for `weights`; ArrayLike is wider.
        return float(np.average(correct, weights=sample_weight))  # type: ignore[arg-type]


class BaseDensity(BaseModel):
    """A density estimator over discrete variables: ``fit(X)``, ``score_samples``, ``sample``.

    Subclasses implement ``_fit(engine)``, ``_log_likelihood(codes)`` of shape
    (n_rows,) and ``_sample_codes(n, rng)``.
    """

    _estimator_type = "density_estimator"
    _model_kind = "density"

    _fitted_attributes: tuple[str, ...] = (
        "encoder_",
        "discretizer_",
        "n_rows_",
        "n_features_in_",
        "feature_names_in_",
        "estimator_",
    )

    if TYPE_CHECKING:
        # What subclasses implement (see the class docstring); declared for type checkers only.
        def _fit(self, engine: CountingEngine) -> Any: ...

        def _log_likelihood(self, codes: np.ndarray) -> np.ndarray: ...

        def _sample_codes(self, n: int, rng: np.random.Generator) -> np.ndarray: ...

    def fit(self, X: pd.DataFrame | ArrayLike, y: Any = None, sample_weight: ArrayLike | None = None) -> Self:
        """Learn the structure and parameters from the rows of `X` (`y` is ignored)."""
        self._validate_params()
        with self._fitting():
            counts = training_counts(
                X,
                sample_weight=sample_weight,
                missing=self.missing_encoding,
                max_cells=self.max_cells,
                discretizer=self._new_discretizer(),
                categorical=getattr(self, "categorical", None),
            )
            self._warn_integer_columns_cut(counts.integer_columns_cut)
            self.fit_counts(counts)
        return self

    def fit_counts(self, counts: TrainingCounts) -> Self:
        """Learn from rows already encoded and counted by :func:`training_counts` (without a class).

        Parameters
        ----------
        counts : TrainingCounts

        Returns
        -------
        self
        """
        if not isinstance(counts, TrainingCounts):
            raise TypeError(f"`counts` must be a TrainingCounts (see training_counts), got {type(counts).__name__}.")
        if counts.classes is not None:
            raise ValueError("`counts` has a class variable; a density is fitted from training_counts(X).")
        self._validate_params()
        with self._fitting():
            self._set_training_attributes(counts)
            self._resolve_estimator()
            self._fit_engine(counts.engine)
        return self

    def score_samples(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Log-likelihood ``log P(x)`` of each row (nats), shape (n_rows,).

        Cells with states unseen in training are summed out. On a Dask DataFrame: a
        lazy dask array, computed partition by partition.
        """
        if is_dask_collection(X):
            return self._lazy(X, self.score_samples, None, np.float64)
        return self._log_likelihood(self._encode_new(X))

    def score(self, X: pd.DataFrame | ArrayLike, y: Any = None) -> float:
        """Total log-likelihood of the rows of `X` (nats), as scikit-learn's ``KernelDensity``."""
        return float(np.sum(self.score_samples(X)))

    def sample(
        self,
        n_samples: int = 1,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Any = None,
    ) -> pd.DataFrame:
        """Draw rows from the fitted distribution, as a DataFrame with the training labels.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : None, int or numpy Generator
            Seed for reproducible draws.
        evidence : mapping, optional
            Sample from the distribution given this evidence (``{column: state}``, or soft
            evidence), exactly, through the junction tree of :meth:`distribution`.

        Returns
        -------
        DataFrame of shape (n_samples, n_features)
        """
        self._check_fitted()
        validate_params(
            f"{type(self).__name__}.sample",
            {"n_samples": n_samples, "random_state": random_state},
            {"n_samples": [Interval(numbers.Integral, 0, None)], "random_state": RANDOM_STATE_CONSTRAINTS},
        )
        if evidence is not None:
            return self.distribution().sample(n_samples, self._model_evidence(evidence), random_state=random_state)  # type: ignore[attr-defined]
        rng = np.random.default_rng(random_state)
        codes = self._sample_codes(int(n_samples), rng)
        columns = {}
        for j, labels in enumerate(self.encoder_.levels_):
            levels = np.empty(len(labels), dtype=object)
            for k, level in enumerate(labels):  # one by one: a tuple state is one cell
                levels[k] = level
            columns[j] = levels[codes[:, j]]
        return pd.DataFrame(columns, index=range(len(codes))).set_axis(_column_index(self.encoder_.columns_), axis=1)


def _column_index(names):
    """The columns of a frame: a MultiIndex for tuples of one length (as fitted from one), else flat."""
    lengths = {len(name) if isinstance(name, tuple) else -1 for name in names}
    tuples = len(lengths) == 1 and lengths.pop() > 0
    return pd.Index(list(names), tupleize_cols=tuples)
