"""Evaluation metrics, in nats where they are logarithmic."""

from __future__ import annotations

import numpy as np

__all__ = ["log_loss", "error_rate", "mean_log_likelihood", "true_class_index"]


def true_class_index(y, classes):
    """Column of each row's true class in a ``predict_proba`` matrix.

    Raises
    ------
    ValueError
        If a label of `y` is not among `classes`.
    """
    import pandas as pd

    index = pd.Index(list(classes))
    positions = index.get_indexer(list(np.asarray(y, dtype=object)))
    if (positions < 0).any():
        unknown = pd.unique(np.asarray(y, dtype=object)[positions < 0])[:5].tolist()
        raise ValueError(f"Labels {unknown} are not among the model's classes.")
    return positions


def log_loss(y, log_proba, classes):
    """Mean negative log-probability of the true class (nats per instance).

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        True labels.
    log_proba : ndarray of shape (n_rows, n_classes)
        ``predict_log_proba`` output (log space, so nothing is clipped).
    classes : sequence
        The column labels of `log_proba` (``model.classes_``). A true label
        the model never saw gets probability 0: the loss is infinite.

    Examples
    --------
    >>> import numpy as np
    >>> round(log_loss(["a", "b"], np.log([[0.5, 0.5], [0.25, 0.75]]), ["a", "b"]), 6)
    0.490415
    """
    log_proba = np.asarray(log_proba, dtype=float)
    labels = np.asarray(y, dtype=object)
    known = np.isin(labels, np.asarray(list(classes), dtype=object))
    losses = np.full(len(labels), np.inf)
    if known.any():
        columns = true_class_index(labels[known], classes)
        losses[known] = -log_proba[np.flatnonzero(known), columns]
    return float(np.mean(losses))


def error_rate(y, predicted):
    """Fraction of rows whose predicted label differs from the true one.

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


def mean_log_likelihood(log_likelihoods):
    """Mean test log-likelihood per instance (nats) from ``score_samples`` output."""
    values = np.asarray(log_likelihoods, dtype=float)
    if values.size == 0:
        raise ValueError("No rows to average.")
    return float(values.mean())
