"""Model selection for multi-label classifiers: :class:`MultiLabelModelSelection`.

It chooses among candidate models by cross-validation on the training rows, on the plain
shuffled k-fold of :func:`shuffled_folds`, which
:func:`graphmodels.evaluation.cross_validate_multilabel` deals its folds with too.

References
----------
.. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes of
       MAC6916, section 8 (cross-validation on the same partitioning for
       every classifier).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import Interval, Options, Predicate
from .base import clone_model
from .multilabel import BaseMultiLabelClassifier

__all__ = ["MultiLabelModelSelection", "shuffled_folds"]


def shuffled_folds(
    n_rows: int, n_splits: int, n_repeats: int, random_state: int | np.random.Generator | None
) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """Yield ``(repeat, fold, train, test)``: plain shuffled k-fold, fold sizes within one row.

    Parameters
    ----------
    n_rows : int
    n_splits : int
        Number of folds, 2 <= n_splits <= n_rows (not checked here).
    n_repeats : int
        Number of repetitions, each with a fresh shuffle.
    random_state : None, int or numpy Generator
        Seed of the shuffles; the same seed gives the same folds.

    Yields
    ------
    repeat, fold : int
    train, test : ndarray of int
        Sorted row positions.

    Examples
    --------
    >>> [test.tolist() for _, _, _, test in shuffled_folds(5, 2, 1, random_state=0)]
    [[1, 2, 3], [0, 4]]
    """
    rng = np.random.default_rng(random_state)
    for repeat in range(n_repeats):
        fold_of = np.empty(n_rows, dtype=np.int64)
        fold_of[rng.permutation(n_rows)] = np.arange(n_rows) % n_splits
        for fold in range(n_splits):
            yield repeat, fold, np.flatnonzero(fold_of != fold), np.flatnonzero(fold_of == fold)


def _label_hits(Y, predicted):
    """Boolean matrix of the label cells of `predicted` equal to those of the label frame `Y`."""
    return np.asarray(Y.to_numpy(dtype=object) == np.asarray(predicted, dtype=object), dtype=bool)


def _hamming_accuracy(Y, predicted):
    """:func:`graphmodels.evaluation.hamming_accuracy` of a checked label frame, unweighted."""
    return float(_label_hits(Y, predicted).mean(axis=1).mean())


def _exact_match(Y, predicted):
    """:func:`graphmodels.evaluation.exact_match` of a checked label frame, unweighted."""
    return float(_label_hits(Y, predicted).all(axis=1).astype(float).mean())


#: Selection scores by name. The public metrics live in graphmodels.evaluation, a layer above
#: the models; these two are the same computations on the labels fit() has already checked.
_SELECTION_SCORES = {"hamming_accuracy": _hamming_accuracy, "exact_match": _exact_match}


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
        Unfitted models, by name (required: the default None is refused at fit).
    n_splits : int, default=5
    scoring : {"hamming_accuracy", "exact_match"}, default="hamming_accuracy"
    random_state : None, int or Generator, default=None
        Seeds the shuffled folds; pass an int for a reproducible choice.

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

    def __init__(
        self,
        *,
        candidates: dict[str, Any] | None = None,
        n_splits: int = 5,
        scoring: str = "hamming_accuracy",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.candidates = candidates
        self.n_splits = n_splits
        self.scoring = scoring
        self.random_state = random_state

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        # The candidates dict is a hyperparameter as a whole (no nested keys).
        return {name: getattr(self, name) for name in self._param_names()}

    _parameter_constraints = {
        "candidates": [
            Predicate(
                lambda value: isinstance(value, dict) and bool(value), "a non-empty dict of name -> multi-label model"
            )
        ],
        "n_splits": [Interval(numbers.Integral, 2, None)],
        "scoring": [Options(list(_SELECTION_SCORES))],
    }

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        if len(frame) < 2:
            raise ValueError(f"MultiLabelModelSelection needs at least 2 rows to cross-validate, got {len(frame)}.")
        labels = pd.DataFrame(
            {name: np.asarray(self.classes_[j])[label_codes[:, j]] for j, name in enumerate(self.label_names_)}
        )
        score = _SELECTION_SCORES[self.scoring]
        scores = {name: [] for name in self.candidates}
        folds = shuffled_folds(len(frame), min(self.n_splits, len(frame)), 1, self.random_state)
        for _, _, train, test in folds:
            weights = None if sample_weight is None else sample_weight[train]
            for name, candidate in self.candidates.items():
                model = clone_model(candidate).fit(frame.iloc[train], labels.iloc[train], sample_weight=weights)
                scores[name].append(score(labels.iloc[test], model.predict(frame.iloc[test])))
        self.cv_scores_ = pd.DataFrame(
            {"mean": [np.mean(s) for s in scores.values()], "std": [np.std(s) for s in scores.values()]},
            index=pd.Index(list(scores), name="candidate"),
        )
        self.best_name_ = str(self.cv_scores_["mean"].idxmax())
        self.best_estimator_ = clone_model(self.candidates[self.best_name_]).fit(
            frame, labels, sample_weight=sample_weight
        )

    def _marginal_log_proba(self, frame):
        return self.best_estimator_.predict_log_proba(frame)

    def predict(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """The chosen model's prediction (its own rule: marginal or joint mode)."""
        return self.best_estimator_.predict(self._new_frame(X))
