"""Evaluation metrics, in nats where they are logarithmic.

Single-label: :func:`log_loss`, :func:`error_rate`, :func:`mean_log_likelihood`.

Multi-label (multi-dimensional): the class is a vector of labels ``C_1..C_m``; the true labels
are a table with one column per label and a prediction is a label matrix of the same shape
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

References
----------
.. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes of
       MAC6916, section 5 (multidimensional classifiers; accuracy measures
       that take class correlations into account).
.. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification: an
       overview. *International Journal of Data Warehousing and Mining*,
       3(3), 1-13.
.. [3] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
       classification with Bayesian networks. *International Journal of
       Approximate Reasoning*, 52(6), 705-727.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.encoding import as_frame
from ..data.weights import check_sample_weight

__all__ = [
    "log_loss",
    "error_rate",
    "mean_log_likelihood",
    "true_class_index",
    "hamming_accuracy",
    "exact_match",
    "jaccard_accuracy",
    "per_label_log_loss",
]


# ----------------------------------------------------------------------------------------------
# single-label
# ----------------------------------------------------------------------------------------------
def true_class_index(y: ArrayLike, classes: Iterable[Hashable]) -> np.ndarray:
    """Column of each row's true class in a ``predict_proba`` matrix.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        True labels.
    classes : sequence
        The column labels (``model.classes_``).

    Returns
    -------
    ndarray of shape (n_rows,), int
        Position of each label in `classes`.

    Raises
    ------
    ValueError
        If a label of `y` is not among `classes`.
    """
    index = pd.Index(list(classes))
    # pandas-stubs before 3.0 type get_indexer's target as an Index only (any array-like works).
    positions = index.get_indexer(list(np.asarray(y, dtype=object)))  # type: ignore[arg-type]
    if (positions < 0).any():
        unknown = pd.unique(np.asarray(y, dtype=object)[positions < 0])[:5].tolist()
        raise ValueError(f"Labels {unknown} are not among the model's classes.")
    return positions


def log_loss(y: ArrayLike, log_proba: ArrayLike, classes: Iterable[Hashable], *, eps: float | None = None) -> float:
    """Mean negative log-probability of the true class (nats per instance).

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        True labels.
    log_proba : ndarray of shape (n_rows, n_classes)
        ``predict_log_proba`` output (log space).
    classes : sequence
        The column labels of `log_proba` (``model.classes_``). A true label
        the model never saw gets probability 0.
    eps : float in (0, 1), optional
        Clip each row's probability of its true class to at least `eps`
        before taking the log, as scikit-learn's ``log_loss`` does (its
        long-standing default is ``1e-15``), so that every row costs at most
        ``-log(eps)`` nats (34.5 for ``1e-15``) and the mean stays finite.
        By default nothing is clipped: a true label that is not among
        `classes`, or has probability 0, makes the loss infinite.
        :func:`~graphmodels.evaluation.cross_validate` scores each fold with
        ``eps=1e-15``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If `eps` is not in (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> round(log_loss(["a", "b"], np.log([[0.5, 0.5], [0.25, 0.75]]), ["a", "b"]), 6)
    0.490415
    >>> log_loss(["c"], np.log([[0.5, 0.5]]), ["a", "b"])  # "c" has probability 0
    inf
    >>> round(log_loss(["c"], np.log([[0.5, 0.5]]), ["a", "b"], eps=1e-15), 4)  # -log(1e-15)
    34.5388
    """
    if eps is not None and not 0 < eps < 1:
        raise ValueError(f"`eps` must be in (0, 1) or None, got {eps!r}.")
    log_proba = np.asarray(log_proba, dtype=float)
    labels = np.asarray(y, dtype=object)
    known = np.isin(labels, np.asarray(list(classes), dtype=object))
    losses = np.full(len(labels), np.inf)
    if known.any():
        columns = true_class_index(labels[known], classes)
        losses[known] = -log_proba[np.flatnonzero(known), columns]
    if eps is not None:
        losses = np.minimum(losses, -np.log(eps))
    return float(np.mean(losses))


def error_rate(y: ArrayLike, predicted: ArrayLike) -> float:
    """Fraction of rows whose predicted label differs from the true one.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        True labels.
    predicted : array-like of shape (n_rows,)
        Predicted labels.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the shapes differ.

    Examples
    --------
    >>> error_rate(["a", "b", "b"], ["a", "a", "b"])
    0.3333333333333333
    """
    truth = np.asarray(y, dtype=object)
    guess = np.asarray(predicted, dtype=object)
    if truth.shape != guess.shape:
        raise ValueError(f"`y` has shape {truth.shape} but `predicted` has {guess.shape}.")
    return float(np.mean(truth != guess))


def mean_log_likelihood(log_likelihoods: ArrayLike) -> float:
    """Mean test log-likelihood per instance (nats) from ``score_samples`` output.

    Parameters
    ----------
    log_likelihoods : array-like of shape (n_rows,)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For no rows.
    """
    values = np.asarray(log_likelihoods, dtype=float)
    if values.size == 0:
        raise ValueError("No rows to average.")
    return float(values.mean())


# ----------------------------------------------------------------------------------------------
# multi-label: input checks
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
    return None if sample_weight is None else check_sample_weight(sample_weight, n_rows, positive_total=True)


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
# multi-label
# ----------------------------------------------------------------------------------------------
def hamming_accuracy(
    Y: pd.DataFrame | ArrayLike, predicted: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
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


def exact_match(Y: pd.DataFrame | ArrayLike, predicted: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
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


def jaccard_accuracy(
    Y: pd.DataFrame | ArrayLike,
    predicted: ArrayLike,
    *,
    positive: Hashable = 1,
    sample_weight: ArrayLike | None = None,
) -> float:
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


def per_label_log_loss(
    Y: pd.DataFrame | ArrayLike,
    proba_list: Sequence[ArrayLike],
    classes_list: Sequence[Iterable[Hashable]],
    *,
    sample_weight: ArrayLike | None = None,
) -> np.ndarray:
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
