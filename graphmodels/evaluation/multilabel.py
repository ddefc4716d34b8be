"""Multi-label (multi-dimensional) cross-validation.

:func:`cross_validate_multilabel` runs every model on the same shuffled
k-fold splits, with the discretizer fitted on each training fold only, and
:func:`summarize_multilabel` gives per-model means and standard deviations.
The metrics are in :mod:`graphmodels.evaluation.metrics`, the model-selection
meta-estimator in :mod:`graphmodels.models.model_selection`; both are still
importable from here.

References
----------
.. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes of
       MAC6916, section 8 (cross-validation on the same partitioning for
       every classifier).
.. [2] Tsoumakas, G., & Katakis, I. (2007). Multi-label classification: an
       overview. *International Journal of Data Warehousing and Mining*,
       3(3), 1-13.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.discretize import MDLDiscretizer
from ..data.encoding import as_frame
from ..models.model_selection import MultiLabelModelSelection, shuffled_folds  # noqa: F401 (re-exported)
from ..models.multilabel import as_label_frame
from .compare import clone, make_discretizer
from .metrics import exact_match, hamming_accuracy, jaccard_accuracy, per_label_log_loss

# MultiLabelModelSelection and the four metrics stay importable from here, as before they moved
# beside the other metrics and models.
__all__ = ["cross_validate_multilabel", "summarize_multilabel"]

#: Metric columns of :func:`cross_validate_multilabel`, in order.
_METRICS = ("hamming_accuracy", "exact_match", "jaccard_accuracy", "mean_label_log_loss")


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
    models: dict[str, Any],
    X: pd.DataFrame | ArrayLike,
    Y: pd.DataFrame | ArrayLike,
    *,
    n_splits: int = 5,
    n_repeats: int = 1,
    discretizer: str | Any | None = "equal-frequency",
    positive: Hashable = 1,
    random_state: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
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
    for repeat, fold, train, test in shuffled_folds(n_rows, n_splits, n_repeats, random_state):
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


def summarize_multilabel(results: pd.DataFrame) -> pd.DataFrame:
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
