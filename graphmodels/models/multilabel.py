"""Base of the multi-label (multi-dimensional) classifiers: a class that is a vector of labels.

``fit(X, Y)`` takes one column per label in `Y` (a DataFrame, or a 2-D array
whose labels are then named ``label_0 .. label_{m-1}``); each label may have any number of
values of any hashable type. Written once here, in the manner of
scikit-learn's multi-output estimators:

* ``predict_log_proba(X)`` / ``predict_proba(X)``: a list with one array per
  label, of shape (n_rows, n_values_j), columns in ``classes_[j]`` order --
  each label's *marginal* posterior ``P(C_j = c | x)``;
* ``predict(X)``: the label matrix of shape (n_rows, n_labels), columns in
  ``label_names_`` order; by default each label's marginal mode (which
  minimizes the Hamming loss); models that can find the joint mode say so;
* ``score(X, Y)``: exact-match accuracy, as scikit-learn's multi-output
  classifiers (Hamming accuracy is :func:`graphmodels.evaluation.hamming_accuracy`).

Subclasses implement ``_fit_multilabel(frame, label_codes, sample_weight)``
and ``_marginal_log_proba(frame)``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._memory import DEFAULT_MAX_CELLS
from ..data.encoding import LabelEncoder, _has_column_names, align_columns, as_frame
from ..data.weights import check_sample_weight
from . import _fitted
from .base import BaseModel, _integer_columns, fit_discretizer

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["BaseMultiLabelClassifier", "as_label_frame", "encode_labels"]


def as_label_frame(Y: pd.DataFrame | ArrayLike, *, n_rows: int | None = None, name: str = "Y") -> pd.DataFrame:
    """`Y` as a DataFrame with one column per label.

    Parameters
    ----------
    Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
    n_rows : int, optional
        The number of rows `Y` must have (those of `X`).
    name : str, default="Y"
        The argument's name, for the error messages.

    Returns
    -------
    DataFrame of shape (n_rows, n_labels)

    Raises
    ------
    ValueError
        If `Y` is one-dimensional (use a single-label classifier), has no
        column, a missing label, or the wrong number of rows.
    """
    if isinstance(Y, pd.Series) or (not _has_column_names(Y) and np.ndim(Y) == 1):
        raise ValueError(
            f"`{name}` must be 2-dimensional, one column per label; got a 1-D sequence. "
            "For a single label use a classifier such as NaiveBayes, or pass Y.to_frame()."
        )
    frame = as_frame(Y, name=name)
    if frame.shape[1] == 0:
        raise ValueError(f"`{name}` has no label column.")
    if n_rows is not None and frame.shape[0] != n_rows:
        raise ValueError(f"`X` has {n_rows} rows but `{name}` has {frame.shape[0]}.")
    for column in frame.columns:
        missing = int(frame[column].isna().sum())
        if missing:
            raise ValueError(
                f"Label column {column!r} of `{name}` has {missing} missing value(s); drop those rows first."
            )
    return frame


def encode_labels(frame: pd.DataFrame) -> tuple[list[np.ndarray], np.ndarray]:
    """Sorted values of each label and the integer codes of `frame`.

    Parameters
    ----------
    frame : DataFrame of shape (n_rows, n_labels)
        One column per label, as :func:`as_label_frame` returns.

    Returns
    -------
    classes : list of ndarray
        ``classes[j]`` are label j's values in :class:`LabelEncoder` order.
    codes : ndarray of shape (n_rows, n_labels), int64
    """
    classes, codes = [], np.empty(frame.shape, dtype=np.int64)
    for j, column in enumerate(frame.columns):
        encoder = LabelEncoder(name=f"Y[{column!r}]").fit(frame[column])
        classes.append(encoder.classes_)
        codes[:, j] = encoder.transform(frame[column])
    return classes, codes


def _objects(values):
    """A 1-D object array of `values`, one cell each (numpy would split tuples into a second axis)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def _object_index(values):
    """A flat Index of labels: tuple labels stay labels (pandas would build a MultiIndex of them)."""
    return pd.Index(_objects(values), dtype=object, tupleize_cols=False)


def _label_matrix(columns, n_rows):
    """Stack per-label arrays into one (n_rows, n_labels) matrix; object dtype unless all agree."""
    dtypes = {c.dtype for c in columns}
    out = np.empty((n_rows, len(columns)), dtype=dtypes.pop() if len(dtypes) == 1 else object)
    for j, column in enumerate(columns):
        out[:, j] = column
    return out


class BaseMultiLabelClassifier(BaseModel):
    """``fit(X, Y)``, per-label ``predict_proba``, label-matrix ``predict``, exact-match ``score``.

    Fitted attributes common to every multi-label model:

    * ``label_names_``: list of the label columns' names;
    * ``classes_``: list of ndarray, the values of each label;
    * ``n_labels_``, ``n_rows_`` (training rows), ``n_features_in_`` (and ``feature_names_in_`` for
      string columns).
    """

    _estimator_type = "classifier"
    _model_kind = "multilabel"

    label_names_: list[Hashable]
    classes_: list[np.ndarray]
    feature_columns_: list[Hashable]

    _fitted_attributes: tuple[str, ...] = (
        "label_names_", "classes_", "n_rows_", "n_features_in_", "feature_columns_", "feature_names_in_",
    )  # fmt: skip

    if TYPE_CHECKING:
        # What subclasses implement (see the module docstring); declared for type checkers only.
        def _fit_multilabel(
            self, frame: pd.DataFrame, label_codes: np.ndarray, sample_weight: np.ndarray | None
        ) -> None: ...

        def _marginal_log_proba(self, frame: pd.DataFrame) -> list[np.ndarray]: ...

    def fit(
        self, X: pd.DataFrame | ArrayLike, Y: pd.DataFrame | ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Self:
        """Learn from attributes `X` and the label table `Y`.

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_features)
            Discrete attributes (discretize continuous ones first).
        Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
            One column per label; values of any hashable type.
        sample_weight : array-like of shape (n_rows,), optional
            Non-negative frequency weights.

        Returns
        -------
        self
        """
        self._validate_params()
        self._reset_fitted_state()  # a fit that fails on its input leaves no earlier fit behind
        frame = as_frame(X)
        if frame.shape[0] == 0:
            raise ValueError("`X` has 0 rows; at least one row is needed to fit.")
        labels = as_label_frame(Y, n_rows=frame.shape[0])
        if not _has_column_names(Y):
            # An array's columns would be 0..m-1, the same names as an array X's.
            labels.columns = [f"label_{j}" for j in range(labels.shape[1])]
        clash = [c for c in labels.columns if c in frame.columns]
        if clash:
            raise ValueError(f"Label column(s) {clash[:5]} are also columns of `X`; rename them.")
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, frame.shape[0])
        with self._fitting():
            self.label_names_ = list(labels.columns)
            self.classes_, codes = encode_labels(labels)
            frame = self._fit_discretizer(frame, codes, sample_weight)
            self.n_rows_ = int(frame.shape[0])
            self.n_features_in_ = frame.shape[1]
            self.feature_columns_ = list(frame.columns)
            if _has_column_names(X) and all(isinstance(c, str) for c in frame.columns):
                self.feature_names_in_ = np.asarray(list(frame.columns), dtype=object)
            self._resolve_estimator()
            self._fit_multilabel(frame, codes, sample_weight)
        return self

    def _fit_discretizer(self, frame, label_codes, sample_weight):
        """Cut the numeric columns of `frame` by the ``discretizer`` hyperparameter (models that have one).

        Sets ``discretizer_`` (None when nothing was cut). A supervised (MDL)
        discretizer sees each row's combination of labels as its class.
        """
        if "discretizer" not in self._param_names():
            return frame
        # The label combination of each row is its class for a supervised (MDL) discretizer.
        joint = np.unique(label_codes, axis=0, return_inverse=True)[1].reshape(-1)
        cut, self.discretizer_ = fit_discretizer(
            self._new_discretizer(),
            frame,
            joint,
            sample_weight,
            max_cells=getattr(self, "max_cells", DEFAULT_MAX_CELLS),
            categorical=getattr(self, "categorical", None),
        )
        binned = [] if self.discretizer_ is None else self.discretizer_.binned_columns_
        self._warn_integer_columns_cut(_integer_columns(frame, binned), stacklevel=4)
        return cut

    def _is_fitted(self):
        return "label_names_" in vars(self)

    def _fitted_columns(self):
        return _fitted.sequence("feature_columns_", self.feature_columns_)

    def _validate_fitted_state(self) -> None:
        """The common checks, then the labels: one non-empty 1-D array of values in ``classes_`` per label name."""
        super()._validate_fitted_state()
        names = _fitted.sequence("label_names_", self.label_names_)
        if not names:
            raise _fitted.FittedStateError("label_names_", "is empty: a fitted multi-label model has a label.")
        for j, values in enumerate(_fitted.sequence("classes_", self.classes_, len(names))):
            if len(_fitted.array(f"classes_[{j}]", values, kind="biufUSOMm", ndim=1)) == 0:
                raise _fitted.FittedStateError(f"classes_[{j}]", "is empty: a label has at least one value.")

    @property
    def n_labels_(self) -> int:
        """Number of labels."""
        return len(self.label_names_)

    def _new_frame(self, X):
        frame = self._aligned_frame(X)
        discretizer = getattr(self, "discretizer_", None)
        return frame if discretizer is None else discretizer.transform(frame)

    def _aligned_frame(self, X):
        """`X` with exactly the fitted columns, in order (by name, or by position for an array)."""
        self._check_fitted()
        return align_columns(X, self.feature_columns_, owner=type(self).__name__)

    def predict_log_proba(self, X: pd.DataFrame | ArrayLike) -> list[np.ndarray]:
        """Log marginal posterior of each label: a list of (n_rows, len(classes_[j])) arrays."""
        return self._marginal_log_proba(self._new_frame(X))

    def predict_proba(self, X: pd.DataFrame | ArrayLike) -> list[np.ndarray]:
        """Marginal posterior of each label: a list of (n_rows, len(classes_[j])) arrays; rows sum to 1."""
        return [np.exp(table) for table in self.predict_log_proba(X)]

    def predict(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Label matrix of shape (n_rows, n_labels): each label's marginal mode."""
        log_proba = self.predict_log_proba(X)
        codes = np.empty((log_proba[0].shape[0], self.n_labels_), dtype=np.int64)
        for j, table in enumerate(log_proba):
            codes[:, j] = np.argmax(table, axis=1)
        return self._labels_from_codes(codes)

    def _labels_from_codes(self, codes):
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, self.n_labels_)
        return _label_matrix([np.asarray(self.classes_[j])[codes[:, j]] for j in range(self.n_labels_)], codes.shape[0])

    def _label_codes(self, Y, n_rows):
        """Codes of a label table against the fitted ``classes_`` (unknown values raise)."""
        labels = as_label_frame(Y, n_rows=n_rows)
        if labels.shape[1] != self.n_labels_:
            raise ValueError(f"`Y` has {labels.shape[1]} label columns but the model has {self.n_labels_}.")
        codes = np.empty(labels.shape, dtype=np.int64)
        for j in range(self.n_labels_):
            values = _objects(labels.iloc[:, j].tolist())
            codes[:, j] = _object_index(self.classes_[j]).get_indexer(_object_index(values))
            if (codes[:, j] < 0).any():
                unknown = list(dict.fromkeys(values[codes[:, j] < 0]))[:5]
                raise ValueError(f"Label {self.label_names_[j]!r} has values {unknown} not seen in fit.")
        return codes

    def score(
        self, X: pd.DataFrame | ArrayLike, Y: pd.DataFrame | ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Exact-match (subset) accuracy of :meth:`predict`, as scikit-learn's multi-output classifiers."""
        predicted = self.predict(X)
        truth = as_label_frame(Y, n_rows=predicted.shape[0]).to_numpy(dtype=object)
        correct = np.all(predicted.astype(object) == truth, axis=1).astype(float)
        # numpy's stub wants a numeric array-like for `weights`; ArrayLike is wider.
        return float(np.average(correct, weights=sample_weight))  # type: ignore[arg-type]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags
