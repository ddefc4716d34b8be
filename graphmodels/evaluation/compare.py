"""Cross-validated comparison of classifiers on several data sets.

Discretization is fitted on each training fold only, so no information from
the test fold leaks into the bins. ``compare`` returns a tidy table of every
fold, the per-data-set means, and the average ranks of Jakulin & Rish's
Table 1.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Hashable, Iterable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.discretize import DISCRETIZERS, make_discretizer
from ..data.encoding import as_frame
from ..models.base import clone_model
from .metrics import error_rate, log_loss, mean_log_likelihood
from .splits import RepeatedRandomSplit, RepeatedStratifiedKFold

__all__ = ["cross_validate", "evaluate_density", "compare", "Comparison", "clone", "make_discretizer", "DISCRETIZERS"]

#: scikit-learn's name for :func:`graphmodels.models.clone_model` (the same function).
clone = clone_model


def _split_xy(data, class_column):
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        return as_frame(X), pd.Series(np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y)
    if isinstance(data, pd.DataFrame):
        if class_column not in data.columns:
            raise ValueError(f"Class column {class_column!r} not found; columns are {list(data.columns)[:20]}.")
        return data.drop(columns=[class_column]), data[class_column]
    raise TypeError(f"A data set must be a DataFrame with a class column or an (X, y) pair, got {type(data).__name__}.")


def cross_validate(
    model: Any,
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Fit and test `model` on every fold; one row of metrics per fold.

    Parameters
    ----------
    model : classifier
        Cloned for every fold (``type(model)(**model.get_params())``).
    X : DataFrame or 2-D array-like
    y : array-like
    cv : splitter, optional
        Defaults to ``RepeatedStratifiedKFold(n_splits=5, n_repeats=5,
        random_state=random_state)``, the protocol of Jakulin & Rish.
    discretizer : None, str or transformer
        Fitted on each training fold (``"mdl"`` is Fayyad-Irani with the
        training labels, ``"equal-frequency"`` the Liang & Srebro binning).
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter.

    Returns
    -------
    DataFrame
        Columns ``split``, ``n_train``, ``n_test``, ``log_loss`` (nats per
        instance), ``error``, ``fit_time``, ``predict_time`` (seconds).
    """
    X = as_frame(X)
    y = pd.Series(np.asarray(y, dtype=object), index=X.index) if not isinstance(y, pd.Series) else y
    if len(X) != len(y):
        raise ValueError(f"`X` has {len(X)} rows but `y` has {len(y)} labels.")
    cv = cv if cv is not None else RepeatedStratifiedKFold(n_splits=5, n_repeats=5, random_state=random_state)
    rows = []
    for k, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = X.iloc[train], X.iloc[test]
        y_train, y_test = y.iloc[train], y.iloc[test]
        binner = make_discretizer(discretizer)
        if binner is not None:
            binner = clone(binner) if hasattr(binner, "get_params") else binner
            X_train = binner.fit(X_train, y_train).transform(X_train)
            X_test = binner.transform(X_test)
        estimator = clone(model)
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        log_proba = estimator.predict_log_proba(X_test)
        predicted = estimator.classes_[np.argmax(log_proba, axis=1)]
        predict_time = time.perf_counter() - start
        rows.append(
            {
                "split": k,
                "n_train": len(train),
                "n_test": len(test),
                "log_loss": log_loss(y_test, log_proba, estimator.classes_),
                "error": error_rate(y_test, predicted),
                "fit_time": fit_time,
                "predict_time": predict_time,
            }
        )
    return pd.DataFrame(rows)


def evaluate_density(
    model: Any,
    X: pd.DataFrame | ArrayLike,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Test log-likelihood of a density estimator on repeated splits.

    Parameters
    ----------
    model : density estimator
        Has ``fit(X)`` and ``score_samples(X)``; cloned for every split.
    X : DataFrame or 2-D array-like
    cv : splitter, optional
        Defaults to ``RepeatedRandomSplit(test_size=0.1, n_repeats=10)``,
        the 90/10 protocol of Liang & Srebro (2004).
    discretizer : None, str or transformer
        Fitted on each training split (unsupervised ones only).
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter.

    Returns
    -------
    DataFrame
        Columns ``split``, ``n_train``, ``n_test``, ``test_log_likelihood``
        (mean nats per instance), ``fit_time``, ``predict_time``.
    """
    X = as_frame(X)
    cv = cv if cv is not None else RepeatedRandomSplit(test_size=0.1, n_repeats=10, random_state=random_state)
    rows = []
    for k, (train, test) in enumerate(cv.split(X)):
        X_train, X_test = X.iloc[train], X.iloc[test]
        binner = make_discretizer(discretizer)
        if binner is not None:
            binner = clone(binner) if hasattr(binner, "get_params") else binner
            X_train = binner.fit(X_train).transform(X_train)
            X_test = binner.transform(X_test)
        estimator = clone(model)
        start = time.perf_counter()
        estimator.fit(X_train)
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        scores = estimator.score_samples(X_test)
        rows.append(
            {
                "split": k,
                "n_train": len(train),
                "n_test": len(test),
                "test_log_likelihood": mean_log_likelihood(scores),
                "fit_time": fit_time,
                "predict_time": time.perf_counter() - start,
            }
        )
    return pd.DataFrame(rows)


class Comparison(NamedTuple):
    """Result of :func:`compare`.

    Attributes
    ----------
    results : DataFrame
        One row per data set, model and split (tidy).
    summary : DataFrame
        Mean and standard deviation per data set and model, with the rank
        of each model within its data set by log-loss and by error.
    ranks : DataFrame
        Average rank of each model over the data sets (1 is best), by
        log-loss and by error, as at the foot of Jakulin & Rish's Table 1.
    """

    results: pd.DataFrame
    summary: pd.DataFrame
    ranks: pd.DataFrame

    def table(self, metric: str = "log_loss") -> pd.DataFrame:
        """Wide table: one row per data set, one column per model, of a metric's mean.

        Parameters
        ----------
        metric : str, default="log_loss"
            A column of `summary` (``"log_loss"``, ``"error"``, ``"fit_time"``, ...).

        Returns
        -------
        DataFrame
        """
        return self.summary.pivot(index="dataset", columns="model", values=metric)


def _resolve_models(models: Any) -> dict[Any, Any]:
    from ..models import CLASSIFIERS

    if isinstance(models, dict):
        return dict(models)
    resolved = {}
    for item in models:
        if isinstance(item, str):
            key = item.lower()
            if key not in CLASSIFIERS:
                raise ValueError(f"Unknown model {item!r}; valid names: {sorted(CLASSIFIERS)}.")
            resolved[item] = CLASSIFIERS[key]()
        else:
            resolved[type(item).__name__] = item
    return resolved


def _resolve_datasets(datasets, class_column):
    from ..data import datasets as bundled

    if isinstance(datasets, (str, pd.DataFrame)):
        datasets = [datasets]
    if isinstance(datasets, dict):
        items = datasets.items()
    else:
        items = []
        for i, item in enumerate(datasets):
            if isinstance(item, str):
                items.append((item, bundled.load(item)))
            else:
                items.append((f"data{i}", item))
    return {name: _split_xy(data, class_column) for name, data in items}


def compare(
    models: dict[str, Any] | Iterable[Any],
    datasets: dict[str, Any] | Iterable[Any] | str | pd.DataFrame,
    *,
    cv: Any = None,
    discretizer: str | Any | None = None,
    class_column: Hashable = "class",
    random_state: int | np.random.Generator | None = 0,
    verbose: bool = True,
) -> Comparison:
    """Cross-validate every model on every data set, as Table 1 of Jakulin & Rish.

    Parameters
    ----------
    models : dict of name -> classifier, or list of names / classifiers
        Names are those of :data:`graphmodels.models.CLASSIFIERS`
        (``"nb"``, ``"tan"``, ``"fan"``, ``"chow-liu"``, ``"aode"``).
    datasets : dict of name -> data, or list of bundled names / data
        Each data set is a DataFrame with a `class_column`, or an ``(X, y)``
        pair; a single name or DataFrame is one data set.
    cv : splitter, optional
        Defaults to 5 x 5 stratified cross-validation.
    discretizer : None, str or transformer
        Fitted within each training fold.
    class_column : hashable, default="class"
    random_state : None, int or numpy Generator, default=0
        Seed of the default splitter: every model sees the same folds.
    verbose : bool, default=True
        Print one progress line per data set and model to stderr.

    Returns
    -------
    Comparison
        ``(results, summary, ranks)``.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM research report, Table 1.
    """
    models = _resolve_models(models)
    data = _resolve_datasets(datasets, class_column)
    if not models:
        raise ValueError("`models` is empty.")
    frames = []
    total = len(models) * len(data)
    step = 0
    for data_name, (X, y) in data.items():
        for model_name, model in models.items():
            step += 1
            start = time.perf_counter()
            folds = cross_validate(model, X, y, cv=cv, discretizer=discretizer, random_state=random_state)
            folds.insert(0, "model", model_name)
            folds.insert(0, "dataset", data_name)
            frames.append(folds)
            if verbose:
                print(
                    f"[{step}/{total}] {data_name:<20} {model_name:<10} "
                    f"log-loss {folds['log_loss'].mean():.3f}  error {folds['error'].mean():.3f}  "
                    f"({time.perf_counter() - start:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    results = pd.concat(frames, ignore_index=True)
    summary = _summarize(results)
    ranks = (
        summary.groupby("model", sort=False)[["rank_log_loss", "rank_error"]]
        .mean()
        .rename(columns={"rank_log_loss": "log_loss", "rank_error": "error"})
    )
    return Comparison(results, summary, ranks)


def _summarize(results):
    grouped = results.groupby(["dataset", "model"], sort=False)
    summary = grouped.agg(
        log_loss=("log_loss", "mean"),
        log_loss_std=("log_loss", "std"),
        error=("error", "mean"),
        error_std=("error", "std"),
        fit_time=("fit_time", "mean"),
        predict_time=("predict_time", "mean"),
    ).reset_index()
    for metric in ("log_loss", "error"):
        summary[f"rank_{metric}"] = summary.groupby("dataset", sort=False)[metric].rank(method="average")
    return summary
