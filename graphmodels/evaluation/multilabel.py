"""Multi-label (multi-dimensional) metrics and cross-validation.

The class is a vector of labels ``C_1..C_m``; the true labels are a table with
one column per label and a prediction is a label matrix of the same shape
(``model.predict(X)`` of a :class:`~graphmodels.models.multilabel.BaseMultiLabelClassifier`).
Labels may have any number of values of any hashable type, except for
:func:`jaccard_accuracy`, which needs binary labels with a positive value.

* :func:`hamming_accuracy`: fraction of label cells predicted right (1 minus
  the Hamming loss; Bielza et al.'s *mean accuracy*);
* :func:`exact_match`: fraction of rows whose whole label vector is right
  (subset accuracy; Bielza et al.'s *global accuracy*);
* :func:`jaccard_accuracy`: mean over rows of ``|T & P| / |T | P|`` for the
  sets of positive labels (Godbole & Sarawagi's *accuracy*);
* :func:`per_label_log_loss`: each label's log-loss of its marginal posterior.

:func:`cross_validate_multilabel` runs every model on the same shuffled
k-fold splits, with the discretizer fitted on each training fold only, and
:func:`summarize_multilabel` gives per-model means and standard deviations.

References
----------
.. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes of
       MAC6916, section 5 (multidimensional classifiers; accuracy measures
       that take class correlations into account) and section 8
       (cross-validation on the same partitioning for every classifier).
.. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification: an
       overview. *International Journal of Data Warehousing and Mining*,
       3(3), 1-13.
.. [3] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
       classification with Bayesian networks. *International Journal of
       Approximate Reasoning*, 52(6), 705-727.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..data.discretize import MDLDiscretizer
from ..data.encoding import as_frame
from ..models.multilabel import BaseMultiLabelClassifier, as_label_frame
from .compare import clone, make_discretizer
from .metrics import log_loss, true_class_index

__all__ = [
    "MultiLabelModelSelection",
    "hamming_accuracy",
    "exact_match",
    "jaccard_accuracy",
    "per_label_log_loss",
    "cross_validate_multilabel",
    "summarize_multilabel",
]

#: Metric columns of :func:`cross_validate_multilabel`, in order.
_METRICS = ("hamming_accuracy", "exact_match", "jaccard_accuracy", "mean_label_log_loss")


# ----------------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------------
def _truth_array(Y, name="Y"):
    """Label table `Y` as an object array of shape (n_rows, n_labels) and its label names."""
    if isinstance(Y, pd.Series) or (not isinstance(Y, pd.DataFrame) and np.ndim(Y) != 2):
        raise ValueError(
            f"`{name}` must be 2-dimensional (n_rows, n_labels), got "
            f"{'a Series' if isinstance(Y, pd.Series) else f'shape {np.shape(Y)}'}; "
            "for a single label pass a table of one column."
        )
    frame = as_frame(Y, name=name)
    if frame.shape[1] == 0:
        raise ValueError(f"`{name}` has no label column.")
    if frame.shape[0] == 0:
        raise ValueError(f"`{name}` has 0 rows; nothing to score.")
    values = frame.to_numpy(dtype=object)
    missing = pd.isna(values)
    if missing.any():
        j = int(np.flatnonzero(missing.any(axis=0))[0])
        raise ValueError(
            f"Label column {frame.columns[j]!r} of `{name}` has {int(missing[:, j].sum())} "
            "missing value(s); drop those rows first."
        )
    return values, list(frame.columns)


def _predicted_array(predicted, shape):
    """Predictions as an object array of the truth's shape."""
    if isinstance(predicted, pd.Series):
        raise ValueError(f"`predicted` must be 2-dimensional with shape {shape}, got a Series.")
    values = (
        predicted.to_numpy(dtype=object) if isinstance(predicted, pd.DataFrame) else np.asarray(predicted, dtype=object)
    )
    if values.shape != shape:
        raise ValueError(f"`predicted` must have the shape of `Y` {shape} (n_rows, n_labels), got {values.shape}.")
    return values


def _check_weights(sample_weight, n_rows):
    """`sample_weight` as a float array of shape (n_rows,), or None."""
    if sample_weight is None:
        return None
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`sample_weight` must be an array of numbers.") from None
    if weights.shape != (n_rows,):
        raise ValueError(f"`sample_weight` must have shape ({n_rows},), got {weights.shape}.")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("`sample_weight` must be finite and >= 0.")
    if weights.sum() <= 0:
        raise ValueError("`sample_weight` sums to 0; at least one row needs a positive weight.")
    return weights


def _weighted_mean(values, weights):
    """Mean of per-row `values`, weighted; rows of weight 0 are left out (so 0 * inf is 0)."""
    values = np.asarray(values, dtype=float)
    if weights is None:
        return float(values.mean())
    keep = weights > 0
    return float(np.average(values[keep], weights=weights[keep]))


def _correct_cells(Y, predicted):
    truth, _ = _truth_array(Y)
    guess = _predicted_array(predicted, truth.shape)
    return np.asarray(truth == guess, dtype=bool)


# ----------------------------------------------------------------------------------------------
# metrics
# ----------------------------------------------------------------------------------------------
def hamming_accuracy(Y, predicted, *, sample_weight=None):
    """Fraction of label cells predicted correctly (1 - Hamming loss).

    Parameters
    ----------
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
        True labels, one column per label; values of any hashable type.
    predicted : 2-D array-like of shape (n_rows, n_labels)
        Predicted labels, columns in the order of `Y` (``model.predict(X)``).
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative row weights; every label of a row gets its row's weight.

    Returns
    -------
    float
        ``sum_i w_i * (number of labels right in row i) / (m * sum_i w_i)``,
        in [0, 1].

    Raises
    ------
    ValueError
        If `Y` is not 2-D or has missing labels, if the shapes differ, or if
        `sample_weight` has the wrong shape, a negative value or sums to 0.

    See Also
    --------
    exact_match : all labels of a row right.

    Notes
    -----
    Predicting each label's marginal mode maximizes the expected Hamming
    accuracy; the joint mode maximizes the expected exact match [2]_. For
    non-binary labels this is the *mean accuracy* over class variables of
    Bielza et al. [3]_.

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 5.
    .. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification:
           an overview. *International Journal of Data Warehousing and
           Mining*, 3(3), 1-13.
    .. [3] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *International Journal of
           Approximate Reasoning*, 52(6), 705-727.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(4, 3))
    >>> predicted = Y.copy()
    >>> predicted[0, 0] = 1 - predicted[0, 0]
    >>> hamming_accuracy(Y, predicted)  # 11 of 12 cells right
    0.9166666666666666
    """
    correct = _correct_cells(Y, predicted)
    weights = _check_weights(sample_weight, correct.shape[0])
    return _weighted_mean(correct.mean(axis=1), weights)


def exact_match(Y, predicted, *, sample_weight=None):
    """Fraction of rows whose whole label vector is predicted correctly (subset accuracy).

    Parameters
    ----------
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
        True labels.
    predicted : 2-D array-like of shape (n_rows, n_labels)
        Predicted labels, columns in the order of `Y`.
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative row weights.

    Returns
    -------
    float
        In [0, 1]; what ``BaseMultiLabelClassifier.score`` reports.

    Raises
    ------
    ValueError
        As :func:`hamming_accuracy`.

    See Also
    --------
    hamming_accuracy : credit for each label on its own.

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 5.
    .. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification:
           an overview. *International Journal of Data Warehousing and
           Mining*, 3(3), 1-13.
    .. [3] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *International Journal of
           Approximate Reasoning*, 52(6), 705-727. (*Global accuracy*.)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.choice(["low", "mid", "high"], size=(4, 2))
    >>> predicted = Y.copy()
    >>> predicted[0, 0] = "none"
    >>> exact_match(Y, predicted), exact_match(Y, predicted, sample_weight=[3, 1, 1, 1])
    (0.75, 0.5)
    """
    correct = _correct_cells(Y, predicted)
    weights = _check_weights(sample_weight, correct.shape[0])
    return _weighted_mean(correct.all(axis=1), weights)


def _positive_cells(values, positive):
    """Boolean matrix of the cells equal to `positive` (Python ``==``: True == 1 == 1.0)."""
    return np.asarray(values == positive, dtype=bool)


def _binary_check(truth, guess, positive, names):
    """Raise unless each label column holds `positive` and at most one other value."""
    for j, name in enumerate(names):
        values = pd.unique(np.concatenate([truth[:, j], guess[:, j]]))
        others = [v.item() if isinstance(v, np.generic) else v for v in values if not v == positive]
        if len(others) > 1:
            shown = sorted(others, key=repr)[:5]
            raise ValueError(
                f"Label column {name!r} has values {shown} besides positive={positive!r}; "
                "jaccard_accuracy needs binary labels: the positive value and at most one "
                "negative one. Pass `positive=` or use hamming_accuracy for non-binary labels."
            )


def jaccard_accuracy(Y, predicted, *, positive=1, sample_weight=None):
    """Mean over rows of ``|T & P| / |T | P|``, the Jaccard index of true and predicted label sets.

    ``T`` is the set of labels whose true value is `positive` and ``P`` the
    set predicted positive. A row where both are empty scores 1.

    Parameters
    ----------
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
        True binary labels (0/1, booleans, or any two values one of which is
        `positive`).
    predicted : 2-D array-like of shape (n_rows, n_labels)
        Predicted labels, columns in the order of `Y`.
    positive : hashable, default=1
        The value that marks a label as present. Compared with ``==``, so the
        default also matches ``True`` and ``1.0``.
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative row weights.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        If a label column (true and predicted values together) has values
        other than `positive` and one negative value; otherwise as
        :func:`hamming_accuracy`.
    TypeError
        If `positive` is not a single value.

    See Also
    --------
    hamming_accuracy, exact_match

    Notes
    -----
    This is the *accuracy* of Godbole & Sarawagi (2004) in Tsoumakas &
    Katakis' overview [2]_; it lies between the exact match and (for sparse
    label sets) the Hamming accuracy.

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 5.
    .. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification:
           an overview. *International Journal of Data Warehousing and
           Mining*, 3(3), 1-13.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1]])
    >>> predicted = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 1]])
    >>> jaccard_accuracy(Y, predicted)  # (1/2 + 1 + 1/3) / 3
    0.611111111111111
    >>> jaccard_accuracy(Y == 1, predicted == 1, positive=True)
    0.611111111111111
    """
    if isinstance(positive, (list, tuple, set, dict, np.ndarray, pd.Series, pd.Index)):
        raise TypeError(f"`positive` must be a single label value, got {type(positive).__name__} {positive!r}.")
    truth, names = _truth_array(Y)
    guess = _predicted_array(predicted, truth.shape)
    weights = _check_weights(sample_weight, truth.shape[0])
    _binary_check(truth, guess, positive, names)
    true_pos = _positive_cells(truth, positive)
    pred_pos = _positive_cells(guess, positive)
    inter = (true_pos & pred_pos).sum(axis=1)
    union = (true_pos | pred_pos).sum(axis=1)
    scores = np.ones(truth.shape[0])
    nonempty = union > 0
    scores[nonempty] = inter[nonempty] / union[nonempty]
    return _weighted_mean(scores, weights)


def per_label_log_loss(Y, proba_list, classes_list, *, sample_weight=None):
    """Each label's mean negative log-probability of its true value (nats per row).

    Parameters
    ----------
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
        True labels.
    proba_list : list of ndarray
        ``proba_list[j]`` of shape (n_rows, len(classes_list[j])): label j's
        marginal posterior (``model.predict_proba(X)``).
    classes_list : list of sequences
        ``classes_list[j]`` are the columns of ``proba_list[j]``
        (``model.classes_``).
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative row weights.

    Returns
    -------
    ndarray of shape (n_labels,)
        Label j's log-loss in nats: ``inf`` when a true value is not among
        ``classes_list[j]`` (probability 0) or gets probability 0.

    Raises
    ------
    ValueError
        If the numbers of labels, probability tables and class lists differ,
        if a table's shape is not (n_rows, len(classes_list[j])), if it has
        values outside [0, 1], or as :func:`hamming_accuracy`.

    See Also
    --------
    graphmodels.evaluation.log_loss : the single-label log-loss used per label.

    Notes
    -----
    Each label is scored by its own marginal posterior, so label
    correlations go unscored: the sum over labels is the log-loss of the
    product of the marginals, not of the joint posterior
    ``P(C_1..C_m | x)``. Without `sample_weight` each entry is
    :func:`graphmodels.evaluation.log_loss` of that label.

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, sections 5 and 11 (hold-out log-likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, "a"], [0, "b"]], dtype=object)
    >>> proba = [np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[1.0, 0.0], [0.5, 0.5]])]
    >>> per_label_log_loss(Y, proba, [[0, 1], ["a", "b"]]).round(6)  # -log(.75 * .5) / 2, -log(.5) / 2
    array([0.490415, 0.346574])
    """
    truth, names = _truth_array(Y)
    n_rows, n_labels = truth.shape
    weights = _check_weights(sample_weight, n_rows)
    if isinstance(proba_list, np.ndarray) and proba_list.ndim == 2:
        raise ValueError("`proba_list` must be a list of one (n_rows, n_classes) array per label, got one 2-D array.")
    proba_list, classes_list = list(proba_list), list(classes_list)
    if len(proba_list) != n_labels or len(classes_list) != n_labels:
        raise ValueError(
            f"`Y` has {n_labels} label(s) but `proba_list` has {len(proba_list)} table(s) "
            f"and `classes_list` {len(classes_list)} class list(s)."
        )
    losses = np.empty(n_labels)
    for j in range(n_labels):
        classes = list(classes_list[j])
        proba = np.asarray(proba_list[j], dtype=float)
        if proba.shape != (n_rows, len(classes)):
            raise ValueError(
                f"`proba_list[{j}]` (label {names[j]!r}) must have shape ({n_rows}, {len(classes)}) "
                f"(n_rows, len(classes_list[{j}])), got {proba.shape}."
            )
        if not np.all((proba >= 0) & (proba <= 1 + 1e-9)):
            raise ValueError(f"`proba_list[{j}]` (label {names[j]!r}) has values outside [0, 1].")
        with np.errstate(divide="ignore"):
            log_proba = np.log(proba)
        if weights is None:
            losses[j] = log_loss(truth[:, j], log_proba, classes)
        else:
            known = np.isin(truth[:, j], np.asarray(classes, dtype=object))
            per_row = np.full(n_rows, np.inf)
            rows = np.flatnonzero(known)
            per_row[rows] = -log_proba[rows, true_class_index(truth[rows, j], classes)]
            losses[j] = _weighted_mean(per_row, weights)
    return losses


# ----------------------------------------------------------------------------------------------
# cross-validation
# ----------------------------------------------------------------------------------------------
def _shuffled_folds(n_rows, n_splits, n_repeats, random_state):
    """Yield ``(repeat, fold, train, test)``: plain shuffled k-fold, fold sizes within one row."""
    rng = np.random.default_rng(random_state)
    for repeat in range(n_repeats):
        fold_of = np.empty(n_rows, dtype=np.int64)
        fold_of[rng.permutation(n_rows)] = np.arange(n_rows) % n_splits
        for fold in range(n_splits):
            yield repeat, fold, np.flatnonzero(fold_of != fold), np.flatnonzero(fold_of == fold)


def _check_count(value, name, minimum):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{name}` must be an integer, got {type(value).__name__} {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value}.")


def _unsupervised_discretizer(discretizer):
    """A fresh unsupervised discretizer for one fold, or None."""
    if isinstance(discretizer, str) and discretizer.lower() in ("mdl", "fayyad-irani"):
        raise ValueError(
            f"`discretizer` {discretizer!r} is supervised (it needs a single class); multi-label "
            "cross-validation fits the discretizer without labels: use 'equal-frequency', an "
            "unsupervised transformer, or None."
        )
    binner = make_discretizer(discretizer)
    if isinstance(binner, MDLDiscretizer):
        raise ValueError(
            "`discretizer` is an MDLDiscretizer, which needs a single class; use "
            "'equal-frequency', an unsupervised transformer, or None."
        )
    if binner is not None and hasattr(binner, "get_params"):
        binner = clone(binner)
    return binner


def _all_binary(labels, positive):
    """True when every label column holds `positive` and at most one other value."""
    for column in labels.columns:
        values = pd.unique(labels[column].to_numpy(dtype=object))
        if len([v for v in values if not v == positive]) > 1:
            return False
    return True


def cross_validate_multilabel(
    models, X, Y, *, n_splits=5, n_repeats=1, discretizer="equal-frequency", positive=1, random_state=0
):
    """Cross-validate multi-label models on the same shuffled k-fold splits.

    For every repetition the rows are shuffled and dealt into `n_splits`
    folds; for every fold the discretizer is fitted on the training rows only
    (without the labels) and applied to both parts, then every model is
    cloned, fitted on the training part and scored on the test part.

    Parameters
    ----------
    models : dict of str -> multi-label classifier
        Unfitted models with ``fit(X, Y)``, ``predict`` and
        ``predict_proba`` as :class:`~graphmodels.models.multilabel.BaseMultiLabelClassifier`;
        each is cloned for every fold.
    X : DataFrame or 2-D array-like of shape (n_rows, n_features)
        Attributes, numeric ones binned per fold by `discretizer`.
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
        One column per label (an array's labels are named ``label_0 ..
        label_{m-1}``).
    n_splits : int, default=5
        Number of folds (>= 2, at most n_rows).
    n_repeats : int, default=1
        Number of repetitions, each with a fresh shuffle.
    discretizer : None, str or transformer, default="equal-frequency"
        ``"equal-frequency"`` (5 bins of numeric columns with at least 10
        distinct values), an unsupervised transformer with ``fit(X)`` and
        ``transform(X)`` (cloned per fold when it has ``get_params``), or
        None. Supervised ``"mdl"`` is refused: there is no single class.
    positive : hashable, default=1
        The present value of binary labels, for ``jaccard_accuracy``.
    random_state : None, int or numpy Generator, default=0
        Seed of the shuffles; the same seed gives the same folds.

    Returns
    -------
    DataFrame
        One row per (repeat, fold, model) with columns ``model``, ``repeat``,
        ``fold``, ``n_train``, ``n_test``, ``hamming_accuracy``,
        ``exact_match``, ``jaccard_accuracy`` (only when every label of `Y`
        is binary with `positive` as one value, otherwise the column is
        left out), ``mean_label_log_loss`` (nats, the mean over labels of
        :func:`per_label_log_loss`; ``inf`` when a test value never occurs
        in its training fold), ``fit_time`` and ``predict_time`` (seconds
        for ``predict`` and ``predict_proba`` together).

    Raises
    ------
    TypeError
        If `models` is not a dict of estimators, or `n_splits` / `n_repeats`
        is not an integer.
    ValueError
        If `models` is empty, `X` and `Y` differ in rows, there are fewer
        rows than folds, or the discretizer is supervised.

    See Also
    --------
    summarize_multilabel : per-model means and standard deviations.
    graphmodels.evaluation.cross_validate : the single-label runner.

    Notes
    -----
    Folds are plain shuffled k-fold, not stratified: stratifying on the
    joint label vector fails when many label combinations occur once or
    twice (``emotions`` has 27 combinations of its 6 labels, several of them
    rare), and label-wise iterative stratification is not implemented.
    Fold sizes differ by at most one row.

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, sections 5 and 8 (every classifier evaluated on the
           same partitioning).
    .. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification:
           an overview. *International Journal of Data Warehousing and
           Mining*, 3(3), 1-13.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from graphmodels.models.multilabel import BaseMultiLabelClassifier
    >>> class Prior(BaseMultiLabelClassifier):  # each label's training frequencies
    ...     def __init__(self):
    ...         pass
    ...     def _fit_multilabel(self, frame, label_codes, sample_weight):
    ...         self.log_prior_ = [np.log(np.bincount(label_codes[:, j], minlength=len(c)) / len(frame))
    ...                            for j, c in enumerate(self.classes_)]
    ...     def _marginal_log_proba(self, frame):
    ...         return [np.tile(p, (len(frame), 1)) for p in self.log_prior_]
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": rng.normal(size=40)})
    >>> Y = pd.DataFrame({"a": (X["x"] > 0).astype(int), "b": rng.integers(0, 2, size=40)})
    >>> results = cross_validate_multilabel({"prior": Prior()}, X, Y, n_splits=4, random_state=0)
    >>> results[["model", "repeat", "fold", "n_train", "n_test"]].head(2)
       model  repeat  fold  n_train  n_test
    0  prior       0     0       30      10
    1  prior       0     1       30      10
    >>> list(summarize_multilabel(results).columns[:4])
    ['hamming_accuracy', 'hamming_accuracy_std', 'exact_match', 'exact_match_std']
    """
    if not isinstance(models, dict):
        raise TypeError(f"`models` must be a dict of name -> multi-label model, got {type(models).__name__}.")
    if not models:
        raise ValueError("`models` is empty; give at least one name -> model pair.")
    for name, model in models.items():
        if not all(hasattr(model, attr) for attr in ("fit", "predict", "predict_proba", "get_params")):
            raise TypeError(
                f"`models[{name!r}]` must be a multi-label model with fit, predict, predict_proba "
                f"and get_params, got {type(model).__name__}."
            )
    _check_count(n_splits, "n_splits", 2)
    _check_count(n_repeats, "n_repeats", 1)
    X = as_frame(X)
    labels = as_label_frame(Y, n_rows=X.shape[0])
    if not isinstance(Y, pd.DataFrame):
        # An array's labels would be named 0..m-1, as an array X's columns are.
        labels.columns = [f"label_{j}" for j in range(labels.shape[1])]
    n_rows = X.shape[0]
    if n_rows < n_splits:
        raise ValueError(f"Cannot split {n_rows} rows into n_splits={n_splits} folds.")
    _unsupervised_discretizer(discretizer)  # fail before any fitting
    with_jaccard = _all_binary(labels, positive)
    rows = []
    for repeat, fold, train, test in _shuffled_folds(n_rows, n_splits, n_repeats, random_state):
        X_train, X_test = X.iloc[train], X.iloc[test]
        Y_train, Y_test = labels.iloc[train], labels.iloc[test]
        binner = _unsupervised_discretizer(discretizer)
        if binner is not None:
            binner.fit(X_train)
            X_train, X_test = binner.transform(X_train), binner.transform(X_test)
        for name, model in models.items():
            estimator = clone(model)
            start = time.perf_counter()
            estimator.fit(X_train, Y_train)
            fit_time = time.perf_counter() - start
            start = time.perf_counter()
            predicted = estimator.predict(X_test)
            proba = estimator.predict_proba(X_test)
            predict_time = time.perf_counter() - start
            row = {
                "model": name,
                "repeat": repeat,
                "fold": fold,
                "n_train": len(train),
                "n_test": len(test),
                "hamming_accuracy": hamming_accuracy(Y_test, predicted),
                "exact_match": exact_match(Y_test, predicted),
            }
            if with_jaccard:
                row["jaccard_accuracy"] = jaccard_accuracy(Y_test, predicted, positive=positive)
            row["mean_label_log_loss"] = float(np.mean(per_label_log_loss(Y_test, proba, estimator.classes_)))
            row["fit_time"] = fit_time
            row["predict_time"] = predict_time
            rows.append(row)
    return pd.DataFrame(rows)


def summarize_multilabel(results):
    """Per-model means and standard deviations of :func:`cross_validate_multilabel` results.

    Parameters
    ----------
    results : DataFrame
        The tidy table of :func:`cross_validate_multilabel` (a ``model``
        column and any of its metric and time columns).

    Returns
    -------
    DataFrame
        Indexed by model, in order of first appearance; for each metric
        present, ``<metric>`` (mean over folds and repeats) and
        ``<metric>_std`` (sample standard deviation, NaN for a single fold),
        then ``fit_time`` and ``predict_time`` means and ``n_folds``.

    Raises
    ------
    ValueError
        If `results` has no ``model`` column or no metric column.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"model": ["a", "a", "b", "b"], "exact_match": [0.5, 0.7, 0.2, 0.2],
    ...                         "fit_time": [0.1, 0.3, 0.2, 0.2]})
    >>> summarize_multilabel(results).round(4)  # doctest: +NORMALIZE_WHITESPACE
           exact_match  exact_match_std  fit_time  n_folds
    model
    a              0.6           0.1414       0.2        2
    b              0.2           0.0000       0.2        2
    """
    if not isinstance(results, pd.DataFrame) or "model" not in results.columns:
        raise ValueError("`results` must be a DataFrame with a 'model' column (cross_validate_multilabel output).")
    metrics = [m for m in _METRICS if m in results.columns]
    if not metrics:
        raise ValueError(f"`results` has none of the metric columns {list(_METRICS)}.")
    grouped = results.groupby("model", sort=False)
    spec = {}
    for metric in metrics:
        spec[metric] = (metric, "mean")
        spec[f"{metric}_std"] = (metric, "std")
    for column in ("fit_time", "predict_time"):
        if column in results.columns:
            spec[column] = (column, "mean")
    spec["n_folds"] = ("model", "size")
    return grouped.agg(**spec)


# ----------------------------------------------------------------------------------------------
# model selection
# ----------------------------------------------------------------------------------------------
_SELECTION_SCORES = {"hamming_accuracy": hamming_accuracy, "exact_match": exact_match}


class MultiLabelModelSelection(BaseMultiLabelClassifier):
    """Pick one of several multi-label models by cross-validation on the training data, then refit it.

    A meta-estimator (scikit-learn's ``GridSearchCV`` for multi-label models):
    each candidate is cloned and scored on the same shuffled `n_splits`
    folds of the rows given to :meth:`fit`; the best mean score wins (ties:
    the first candidate) and is refitted on all of them. Inside an outer
    cross-validation this is nested cross-validation: the test fold never
    takes part in the choice.

    Parameters
    ----------
    candidates : dict of str -> multi-label classifier
        Unfitted models, by name.
    n_splits : int, default=5
    scoring : {"hamming_accuracy", "exact_match"}, default="hamming_accuracy"
    random_state : int, default=0

    Attributes
    ----------
    best_name_ : str
    best_estimator_ : multi-label classifier
        The winner, fitted on all the training rows.
    cv_scores_ : DataFrame
        Mean and standard deviation of each candidate's score.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from graphmodels.models import BinaryRelevance, MultiDimensionalNaiveBayes
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": rng.integers(0, 3, 120).astype(str)})
    >>> Y = pd.DataFrame({"a": (X["x"] == "1").astype(int), "b": rng.integers(0, 2, 120)})
    >>> search = MultiLabelModelSelection(candidates={"br": BinaryRelevance(), "md": MultiDimensionalNaiveBayes()})
    >>> search.fit(X, Y).best_name_ in ("br", "md")
    True
    """

    def __init__(self, *, candidates=None, n_splits=5, scoring="hamming_accuracy", random_state=0):
        self.candidates = candidates
        self.n_splits = n_splits
        self.scoring = scoring
        self.random_state = random_state

    def get_params(self, deep=True):
        # The candidates dict is a hyperparameter as a whole (no nested keys).
        return {name: getattr(self, name) for name in self._param_names()}

    def _check_params(self):
        if not isinstance(self.candidates, dict) or not self.candidates:
            raise ValueError("`candidates` must be a non-empty dict of name -> multi-label model.")
        if self.scoring not in _SELECTION_SCORES:
            raise ValueError(f"`scoring` must be one of {list(_SELECTION_SCORES)}, got {self.scoring!r}.")
        _check_count(self.n_splits, "n_splits", 2)

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        if len(frame) < 2:
            raise ValueError(f"MultiLabelModelSelection needs at least 2 rows to cross-validate, got {len(frame)}.")
        labels = pd.DataFrame(
            {name: np.asarray(self.classes_[j])[label_codes[:, j]] for j, name in enumerate(self.label_names_)}
        )
        score = _SELECTION_SCORES[self.scoring]
        scores = {name: [] for name in self.candidates}
        folds = _shuffled_folds(len(frame), min(self.n_splits, len(frame)), 1, self.random_state)
        for _, _, train, test in folds:
            weights = None if sample_weight is None else sample_weight[train]
            for name, candidate in self.candidates.items():
                model = clone(candidate).fit(frame.iloc[train], labels.iloc[train], sample_weight=weights)
                scores[name].append(score(labels.iloc[test], model.predict(frame.iloc[test])))
        self.cv_scores_ = pd.DataFrame(
            {"mean": [np.mean(s) for s in scores.values()], "std": [np.std(s) for s in scores.values()]},
            index=pd.Index(list(scores), name="candidate"),
        )
        self.best_name_ = str(self.cv_scores_["mean"].idxmax())
        self.best_estimator_ = clone(self.candidates[self.best_name_]).fit(frame, labels, sample_weight=sample_weight)

    def _marginal_log_proba(self, frame):
        return self.best_estimator_.predict_log_proba(frame)

    def predict(self, X):
        """The chosen model's prediction (its own rule: marginal or joint mode)."""
        return self.best_estimator_.predict(self._new_frame(X))
