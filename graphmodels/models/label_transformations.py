"""Problem-transformation multi-label classifiers: binary relevance, label powerset, classifier chains.

Each turns the multi-label problem (a class that is a vector of labels
``C_1 .. C_m``) into one or more single-label problems solved by a *base*
classifier -- any classifier of this library (:class:`NaiveBayes` by default)
or any scikit-learn-like classifier with ``fit``, ``classes_`` and
``predict_log_proba`` or ``predict_proba``:

* :class:`BinaryRelevance`: one classifier per label, labels independent;
* :class:`LabelPowerset`: the label vector as one class with one value per
  observed combination;
* :class:`ClassifierChain`: ``P(c | x) = prod_j P(c_j | x, c_1 .. c_{j-1})``,
  one classifier per factor, with greedy or exact inference.

These are the simple alternatives Mauá's lecture notes set against
multidimensional Bayesian network classifiers (section 5).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._memory import TableTooLargeError
from .._special import logsumexp
from .._validation import InstanceOf, Interval, Options, Predicate
from . import _fitted
from .augmented import NaiveBayes
from .base import BaseClassifier, clone_model
from .multilabel import BaseMultiLabelClassifier, _object_index
from .registry import register_model

__all__ = ["BinaryRelevance", "LabelPowerset", "ClassifierChain"]

_INFERENCE = ("greedy", "exact")

#: Rows given to a base classifier in one call of exact chain inference.
_ROWS_PER_CALL = 1 << 16

#: Cells (rows x label vectors) of the joint table held at once in exact chain inference.
_JOINT_CELLS = 1 << 22


def _check_base(base):
    """The base classifier, or a TypeError saying what it lacks."""
    if base is None:
        return NaiveBayes()
    if isinstance(base, type):
        raise TypeError(f"`base` must be a classifier instance, got the class {base.__name__}; pass {base.__name__}().")
    if (
        not hasattr(base, "fit")
        or not hasattr(base, "get_params")
        or not (hasattr(base, "predict_log_proba") or hasattr(base, "predict_proba"))
    ):
        raise TypeError(
            "`base` must be a classifier with `fit`, `get_params` and `predict_log_proba` or "
            f"`predict_proba`, got {type(base).__name__}."
        )
    return base


def _fit_base(estimator, frame, y, sample_weight):
    if sample_weight is None:
        return estimator.fit(frame, y)
    return estimator.fit(frame, y, sample_weight=sample_weight)


def _log_proba(estimator, frame, classes):
    """Log posterior of a fitted base classifier, shape (n_rows, len(classes)), columns in `classes` order.

    A class the estimator does not know gets log-probability -inf.
    """
    if hasattr(estimator, "predict_log_proba"):
        table = np.asarray(estimator.predict_log_proba(frame), dtype=float)
    else:
        with np.errstate(divide="ignore"):
            table = np.log(np.asarray(estimator.predict_proba(frame), dtype=float))
    position = _object_index(estimator.classes_).get_indexer(_object_index(classes))
    if len(position) == table.shape[1] and np.array_equal(position, np.arange(len(position))):
        return table
    out = np.full((table.shape[0], len(classes)), -np.inf)
    known = position >= 0
    out[:, known] = table[:, position[known]]
    return out


def _check_member(entry, estimator, n_features, classes=None, what=""):
    """A wrapped classifier read from a file: fitted, on `n_features` columns, with the label's `classes`."""
    _fitted.instance(entry, estimator, BaseClassifier, "a fitted graphmodels classifier")
    if not estimator._is_fitted():
        raise _fitted.FittedStateError(entry, "is not fitted.")
    if estimator.n_features_in_ != n_features:
        raise _fitted.FittedStateError(
            entry, f"has {estimator.n_features_in_} columns, but the model gives it {n_features}."
        )
    if classes is not None:
        _fitted.same_labels(f"{entry}.classes_", estimator.classes_, classes, what)


def _label_column(model, label_codes, j):
    """Label j of the training rows as a Series of its values, named by the label."""
    return pd.Series(np.asarray(model.classes_[j])[label_codes[:, j]], name=model.label_names_[j])


def _grouped_logsumexp(joint, codes, n_values):
    """``out[:, v] = logsumexp(joint[:, codes == v])``, shape (n_rows, n_values); -inf for an empty group."""
    out = np.full((joint.shape[0], n_values), -np.inf)
    for value in range(n_values):
        members = codes == value
        if members.any():
            out[:, value] = logsumexp(joint[:, members], axis=1)
    return out


@register_model("binary-relevance")
class BinaryRelevance(BaseMultiLabelClassifier):
    """Binary relevance: one independent classifier per label.

    Label ``C_j`` is learned from the attributes alone by a clone of `base`,
    ignoring the other labels: ``P(c | x)`` is taken to be
    ``prod_j P(c_j | x)``. This is the decomposition into unidimensional
    problems of Mauá's lecture notes, section 5 [1]_; the name is that of the
    multi-label literature [2]_ (labels need not be binary here: each may take
    any number of values). :meth:`predict` gives each label's mode, which
    minimizes the Hamming loss but ignores correlations between labels.

    Parameters
    ----------
    base : classifier, default=None
        Unfitted single-label classifier cloned once per label; None means
        ``NaiveBayes()``. Any classifier of this library, or any
        scikit-learn-like classifier with ``fit``, ``get_params``, ``classes_``
        and ``predict_log_proba`` or ``predict_proba``.

    Attributes
    ----------
    estimators_ : list of classifiers
        ``estimators_[j]`` is the fitted clone for label ``label_names_[j]``,
        trained on `X` and that label's values (its ``classes_`` are
        ``classes_[j]``).
    label_names_ : list
        Names of the label columns of `Y`.
    classes_ : list of ndarray
        ``classes_[j]``: the values of label j, in ``predict_proba`` column order.
    n_features_in_ : int

    See Also
    --------
    LabelPowerset : the label vector as one class.
    ClassifierChain : labels conditioned on the previous ones.

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
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"sky": rng.choice(["clear", "cloudy"], 200), "wind": rng.choice(["calm", "gale"], 200)})
    >>> Y = pd.DataFrame({"rain": np.where(X["sky"] == "cloudy", "yes", "no"),
    ...                   "sail": np.where(X["wind"] == "gale", "no", "yes")})
    >>> model = BinaryRelevance().fit(X, Y)
    >>> model.predict(pd.DataFrame({"sky": ["cloudy"], "wind": ["calm"]})).tolist()
    [['yes', 'yes']]
    >>> [p.shape for p in model.predict_proba(X)]
    [(200, 2), (200, 2)]
    """

    def __init__(self, *, base: Any = None) -> None:
        self.base = base

    _parameter_constraints = {"base": [Predicate(_check_base, "a classifier instance or None")]}

    _fitted_attributes: tuple[str, ...] = ("estimators_",)

    def _validate_fitted_state(self):
        """The multi-label checks, then one fitted classifier per label, on the columns, with the label's values."""
        super()._validate_fitted_state()
        estimators = _fitted.sequence("estimators_", self.estimators_, len(self.label_names_))
        for j, estimator in enumerate(estimators):
            _check_member(f"estimators_[{j}]", estimator, self.n_features_in_, self.classes_[j], f"classes_[{j}]")

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        template = _check_base(self.base)
        self.estimators_ = [
            _fit_base(clone_model(template), frame, _label_column(self, label_codes, j), sample_weight)
            for j in range(self.n_labels_)
        ]

    def _marginal_log_proba(self, frame):
        return [_log_proba(estimator, frame, self.classes_[j]) for j, estimator in enumerate(self.estimators_)]


@register_model("label-powerset")
class LabelPowerset(BaseMultiLabelClassifier):
    """Label powerset: every observed combination of label values is one class.

    A clone of `base` learns the joint label vector as a single class whose
    values are the distinct combinations seen in training, so correlations
    between labels are kept. This is the "combined class labels" approach of
    Mauá's lecture notes, section 5 [1]_, named as in Tsoumakas & Katakis [2]_.
    :meth:`predict` returns the combination of highest posterior (the joint
    mode, which minimizes the subset 0/1 loss); :meth:`predict_proba` returns
    each label's marginal, the sum of the posterior over the combinations
    holding each value.

    A combination never seen in training cannot be predicted, and the number
    of classes grows with the number of distinct combinations: intended for
    few labels.

    Parameters
    ----------
    base : classifier, default=None
        Unfitted single-label classifier; None means ``NaiveBayes()``. Any
        classifier of this library, or any scikit-learn-like classifier with
        ``fit``, ``get_params``, ``classes_`` and ``predict_log_proba`` or
        ``predict_proba``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted base, trained on integer class codes: its class ``k`` is the
        combination in row ``k`` of ``label_sets_``.
    label_sets_ : DataFrame of shape (n_label_sets, n_labels)
        The observed combinations, one per row in the base's class order,
        columns ``label_names_``.
    label_set_codes_ : ndarray of shape (n_label_sets, n_labels), int64
        The same combinations as codes into ``classes_[j]``.
    label_names_ : list
    classes_ : list of ndarray
    n_features_in_ : int

    See Also
    --------
    BinaryRelevance : one classifier per label.
    ClassifierChain : the joint posterior as a product of conditionals.

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
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"sky": rng.choice(["clear", "cloudy"], 200)})
    >>> rain = np.where(X["sky"] == "cloudy", "yes", "no")
    >>> Y = pd.DataFrame({"rain": rain, "umbrella": rain})
    >>> model = LabelPowerset().fit(X, Y)
    >>> model.label_sets_.to_numpy().tolist()
    [['no', 'no'], ['yes', 'yes']]
    >>> model.predict(pd.DataFrame({"sky": ["cloudy"]})).tolist()
    [['yes', 'yes']]
    >>> model.predict_joint_proba(X).shape
    (200, 2)
    """

    def __init__(self, *, base: Any = None) -> None:
        self.base = base

    _parameter_constraints = {"base": [Predicate(_check_base, "a classifier instance or None")]}

    _fitted_attributes: tuple[str, ...] = ("estimator_", "label_set_codes_", "label_sets_")

    def _validate_fitted_state(self):
        """The multi-label checks, then the fitted base (a class per label set) and each set's codes in range."""
        super()._validate_fitted_state()
        _check_member("estimator_", self.estimator_, self.n_features_in_)
        n_sets, n_labels = len(self.estimator_.classes_), len(self.label_names_)
        codes = _fitted.array("label_set_codes_", self.label_set_codes_, kind="iu", shape=(n_sets, n_labels))
        for j, values in enumerate(self.classes_):
            _fitted.integers(f"label_set_codes_[:, {j}]", codes[:, j], low=0, high=len(values))
        _fitted.instance("label_sets_", self.label_sets_, pd.DataFrame, "a DataFrame")

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        sets, class_codes = np.unique(label_codes, axis=0, return_inverse=True)
        estimator = clone_model(_check_base(self.base))
        _fit_base(estimator, frame, pd.Series(class_codes.reshape(-1), name="label_set"), sample_weight)
        self.estimator_ = estimator
        self.label_set_codes_ = sets[np.asarray(estimator.classes_, dtype=np.int64)]
        self.label_sets_ = pd.DataFrame(
            {
                name: np.asarray(self.classes_[j])[self.label_set_codes_[:, j]]
                for j, name in enumerate(self.label_names_)
            }
        )

    def _joint_log_proba(self, frame):
        return _log_proba(self.estimator_, frame, self.estimator_.classes_)

    def predict_joint_log_proba(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Log posterior of every observed label combination, shape (n_rows, n_label_sets).

        Column ``k`` is the combination in row ``k`` of ``label_sets_``.
        """
        return self._joint_log_proba(self._new_frame(X))

    def predict_joint_proba(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Posterior of every observed label combination, shape (n_rows, n_label_sets); rows sum to 1.

        Column ``k`` is the combination in row ``k`` of ``label_sets_``.
        """
        return np.exp(self.predict_joint_log_proba(X))

    def _marginal_log_proba(self, frame):
        joint = self._joint_log_proba(frame)
        return [
            _grouped_logsumexp(joint, self.label_set_codes_[:, j], len(self.classes_[j])) for j in range(self.n_labels_)
        ]

    def predict(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """The most probable observed combination of each row, shape (n_rows, n_labels).

        The joint mode (ties: the first row of ``label_sets_``); it minimizes
        the subset 0/1 loss among the combinations seen in training.
        """
        best = np.argmax(self.predict_joint_log_proba(X), axis=1)
        return self._labels_from_codes(self.label_set_codes_[best])


@register_model("classifier-chain")
class ClassifierChain(BaseMultiLabelClassifier):
    """Probabilistic classifier chain (Dembczynski, Cheng & Hüllermeier, 2010).

    The joint posterior is factorized by the chain rule along an order of the
    labels, ``P(c | x) = prod_j P(c_j | x, c_1 .. c_{j-1})`` [1]_ [2]_, and
    factor ``j`` is a clone of `base` fitted on `X` plus the labels before it
    in the chain, added as categorical columns named by the label names.

    Two inferences:

    * ``"greedy"``: the chain of Mauá's notes [2]_; each label is predicted
      in chain order, feeding the predicted values to the next classifier.
      :meth:`predict_proba` then returns, for each label, the conditional
      ``P(c_j | x, ĉ_1 .. ĉ_{j-1})`` given the *predicted* previous labels
      along that greedy path -- these are **not** the marginals ``P(c_j | x)``.
    * ``"exact"``: the posterior of every label vector is computed,
      classifier ``j`` being evaluated once for each prefix
      ``c_1 .. c_{j-1}`` on all rows at once. :meth:`predict` returns the
      joint mode ``argmax_c P(c | x)``, Bayes-optimal for the subset 0/1 loss
      [1]_, and :meth:`predict_proba` the exact marginals ``P(c_j | x)``.
      The cost grows with the number of label vectors (the product of the
      labels' cardinalities), which may not exceed `max_label_vectors`.

    Parameters
    ----------
    base : classifier, default=None
        Unfitted single-label classifier cloned once per label; None means
        ``NaiveBayes()``. Any classifier of this library, or any
        scikit-learn-like classifier with ``fit``, ``get_params``, ``classes_``
        and ``predict_log_proba`` or ``predict_proba`` that accepts the added
        categorical label columns.
    order : None, list of label names or "random", default=None
        Chain order: the columns' order of `Y`, a permutation of its column
        names, or a random permutation drawn from `random_state`.
    inference : {"greedy", "exact"}, default="greedy"
    max_label_vectors : int, default=4096
        Largest number of label vectors exact inference enumerates.
    random_state : None, int or numpy Generator, default=None
        Seed of ``order="random"``.

    Attributes
    ----------
    order_ : list
        The label names in chain order.
    estimators_ : list of classifiers
        ``estimators_[k]`` predicts label ``order_[k]`` from `X` and the
        columns ``order_[:k]``.
    label_names_ : list
    classes_ : list of ndarray
    n_features_in_ : int

    Raises
    ------
    ValueError
        At fit, for an `order` that is not a permutation of the labels, and
        at fit or prediction with ``inference="exact"`` when the number of
        label vectors exceeds `max_label_vectors`.

    See Also
    --------
    BinaryRelevance : one independent classifier per label.
    LabelPowerset : the label vector as one class.

    Notes
    -----
    Exact inference holds ``log P(c | x)`` for every label vector of a block
    of rows at a time, so its memory is bounded whatever the number of rows.
    The marginals and the joint mode of exact inference do not depend on the
    chain order when the conditionals are exact; with fitted classifiers they
    do, a little.

    References
    ----------
    .. [1] Dembczynski, K., Cheng, W., & Hüllermeier, E. (2010). Bayes optimal
           multilabel classification via probabilistic classifier chains.
           In *Proceedings of the 27th International Conference on Machine
           Learning* (ICML), 279-286.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 5.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"sky": rng.choice(["clear", "cloudy"], 300)})
    >>> rain = np.where(rng.random(300) < np.where(X["sky"] == "cloudy", 0.8, 0.1), "yes", "no")
    >>> umbrella = np.where(rng.random(300) < np.where(rain == "yes", 0.9, 0.2), "yes", "no")
    >>> Y = pd.DataFrame({"rain": rain, "umbrella": umbrella})
    >>> model = ClassifierChain(inference="exact").fit(X, Y)
    >>> model.order_
    ['rain', 'umbrella']
    >>> model.predict(pd.DataFrame({"sky": ["cloudy", "clear"]})).tolist()
    [['yes', 'yes'], ['no', 'no']]
    >>> marginals = model.predict_proba(X)
    >>> bool(np.allclose(marginals[1].sum(axis=1), 1.0))
    True
    >>> all_vectors = pd.DataFrame({"rain": ["no", "no", "yes", "yes"], "umbrella": ["no", "yes", "no", "yes"]})
    >>> joint = model.joint_log_proba(pd.concat([X.head(1)] * 4), all_vectors)
    >>> round(float(np.exp(joint).sum()), 6)
    1.0
    """

    def __init__(
        self,
        *,
        base: Any = None,
        order: Literal["random"] | Sequence[Hashable] | np.ndarray | None = None,
        inference: str = "greedy",
        max_label_vectors: int = 4096,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.base = base
        self.order = order
        self.inference = inference
        self.max_label_vectors = max_label_vectors
        self.random_state = random_state

    _parameter_constraints = {
        "base": [Predicate(_check_base, "a classifier instance or None")],
        "inference": [Options(list(_INFERENCE))],
        "max_label_vectors": [Interval(numbers.Integral, 1, None)],
        "order": [None, Options(["random"]), InstanceOf(list, tuple, np.ndarray, name="list of label names")],
    }

    def _resolve_order(self):
        """Positions in ``label_names_`` of the labels in chain order."""
        m = self.n_labels_
        if self.order is None:
            return list(range(m))
        if isinstance(self.order, str):
            return [int(j) for j in np.random.default_rng(self.random_state).permutation(m)]
        names = list(self.order.tolist() if isinstance(self.order, np.ndarray) else self.order)
        position = {name: j for j, name in enumerate(self.label_names_)}
        unknown = [name for name in names if name not in position]
        duplicated = sorted({repr(name) for name in names if names.count(name) > 1})
        missing = [name for name in self.label_names_ if name not in names]
        if unknown or duplicated or missing:
            problems = []
            if unknown:
                problems.append(f"unknown labels {unknown[:5]}")
            if duplicated:
                problems.append(f"repeated labels [{', '.join(duplicated[:5])}]")
            if missing:
                problems.append(f"missing labels {missing[:5]}")
            raise ValueError(
                f"`order` must be a permutation of the label names {self.label_names_[:10]}: "
                + ", ".join(problems)
                + "."
            )
        return [position[name] for name in names]

    def _positions(self):
        position = {name: j for j, name in enumerate(self.label_names_)}
        return [position[name] for name in self.order_]

    def _n_label_vectors(self):
        return math.prod(len(values) for values in self.classes_)

    def _check_label_vectors(self):
        n_vectors = self._n_label_vectors()
        if n_vectors > self.max_label_vectors:
            raise TableTooLargeError(
                f"Exact inference would enumerate {n_vectors} label vectors (the product of the labels' "
                f"cardinalities {[len(v) for v in self.classes_]}), more than `max_label_vectors`="
                f"{self.max_label_vectors}; raise `max_label_vectors` or use inference='greedy'.",
                cells=n_vectors,
                limit=self.max_label_vectors,
                parameter="max_label_vectors",
            )

    _fitted_attributes: tuple[str, ...] = ("order_", "estimators_")

    def _validate_fitted_state(self):
        """The multi-label checks, then the order (the labels, each once) and a classifier per link of the chain.

        The k-th classifier reads the columns and the k labels before it in ``order_``.
        """
        super()._validate_fitted_state()
        order = _fitted.sequence("order_", self.order_, len(self.label_names_))
        position = {name: j for j, name in enumerate(self.label_names_)}
        if sorted(position.get(name, -1) for name in order) != list(range(len(position))):
            raise _fitted.FittedStateError("order_", f"is {list(order)[:10]!r}, not an order of the label names.")
        estimators = _fitted.sequence("estimators_", self.estimators_, len(order))
        for k, (name, estimator) in enumerate(zip(order, estimators)):
            j = position[name]
            _check_member(f"estimators_[{k}]", estimator, self.n_features_in_ + k, self.classes_[j], f"classes_[{j}]")

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        positions = self._resolve_order()
        if self.inference == "exact":
            self._check_label_vectors()
        template = _check_base(self.base)
        self.order_ = [self.label_names_[j] for j in positions]
        estimators = []
        for k, j in enumerate(positions):
            features = self._chain_frame(frame, None, label_codes[:, positions[:k]], positions[:k])
            estimators.append(
                _fit_base(clone_model(template), features, _label_column(self, label_codes, j), sample_weight)
            )
        self.estimators_ = estimators

    def _chain_frame(self, frame, rows, prefix_codes, prefix_positions):
        """Rows `rows` of `frame` (all if None) with the labels `prefix_positions` as categorical columns.

        ``prefix_codes`` has shape (n_selected_rows, len(prefix_positions)), codes into ``classes_``.
        """
        part = frame if rows is None else frame.iloc[rows]
        part = part.reset_index(drop=True)
        if not prefix_positions:
            return part
        labels = pd.DataFrame(
            {
                self.label_names_[j]: pd.Categorical.from_codes(prefix_codes[:, k], categories=self.classes_[j])
                for k, j in enumerate(prefix_positions)
            }
        )
        return pd.concat([part, labels], axis=1)

    def _greedy(self, frame):
        """Greedy path: label codes (n_rows, n_labels) and the conditionals along it, both in label order."""
        positions = self._positions()
        chain_codes = np.empty((frame.shape[0], self.n_labels_), dtype=np.int64)
        tables = [None] * self.n_labels_
        for k, j in enumerate(positions):
            features = self._chain_frame(frame, None, chain_codes[:, :k], positions[:k])
            tables[j] = _log_proba(self.estimators_[k], features, self.classes_[j])
            chain_codes[:, k] = np.argmax(tables[j], axis=1)
        codes = np.empty_like(chain_codes)
        codes[:, positions] = chain_codes
        return codes, tables

    def _exact_blocks(self, frame):
        """Yield ``(rows, joint)`` per block of rows: ``joint[i, c_1, .., c_m] = log P(c | x_i)``,
        label axes in chain order."""
        self._check_label_vectors()
        positions = self._positions()
        cards = [len(self.classes_[j]) for j in positions]
        n_rows = frame.shape[0]
        block_rows = max(1, _JOINT_CELLS // self._n_label_vectors())
        for start in range(0, n_rows, block_rows):
            rows = np.arange(start, min(start + block_rows, n_rows))
            r = len(rows)
            joint = np.zeros((r, 1))
            prefixes = np.zeros((1, 0), dtype=np.int64)  # all label prefixes, mixed radix, first label slowest
            for k, j in enumerate(positions):
                n_prefixes = prefixes.shape[0]
                conditional = np.empty((r, n_prefixes, cards[k]))
                per_call = max(1, _ROWS_PER_CALL // r)
                for first in range(0, n_prefixes, per_call):
                    batch = prefixes[first : first + per_call]
                    b = batch.shape[0]
                    features = self._chain_frame(frame, np.tile(rows, b), np.repeat(batch, r, axis=0), positions[:k])
                    table = _log_proba(self.estimators_[k], features, self.classes_[j])
                    conditional[:, first : first + b, :] = table.reshape(b, r, cards[k]).transpose(1, 0, 2)
                joint = (joint[:, :, None] + conditional).reshape(r, n_prefixes * cards[k])
                prefixes = np.column_stack(
                    [
                        np.repeat(prefixes, cards[k], axis=0),
                        np.tile(np.arange(cards[k], dtype=np.int64), n_prefixes),
                    ]
                )
            yield rows, joint.reshape([r] + cards)

    def _exact_marginals(self, frame):
        positions = self._positions()
        out = [np.empty((frame.shape[0], len(values))) for values in self.classes_]
        for rows, joint in self._exact_blocks(frame):
            axes = tuple(range(1, joint.ndim))
            total = logsumexp(joint, axis=axes)
            for k, j in enumerate(positions):
                other = tuple(a for a in axes if a != k + 1)
                table = logsumexp(joint, axis=other) if other else joint
                out[j][rows] = table - total[:, None]
        return out

    def _exact_mode(self, frame):
        positions = self._positions()
        codes = np.empty((frame.shape[0], self.n_labels_), dtype=np.int64)
        for rows, joint in self._exact_blocks(frame):
            best = np.argmax(joint.reshape(len(rows), -1), axis=1)
            chain_codes = np.unravel_index(best, joint.shape[1:])
            for k, j in enumerate(positions):
                codes[rows, j] = chain_codes[k]
        return codes

    def _marginal_log_proba(self, frame):
        if self.inference == "exact":
            return self._exact_marginals(frame)
        return self._greedy(frame)[1]

    def predict_log_proba(self, X: pd.DataFrame | ArrayLike) -> list[np.ndarray]:
        """Log posterior of each label: a list of (n_rows, len(classes_[j])) arrays, in ``label_names_`` order.

        With ``inference="exact"`` the exact marginals ``log P(c_j | x)``; with
        ``"greedy"`` the conditionals ``log P(c_j | x, ĉ_1 .. ĉ_{j-1})`` along
        the greedy path, which are not marginals.
        """
        return super().predict_log_proba(X)

    def predict_proba(self, X: pd.DataFrame | ArrayLike) -> list[np.ndarray]:
        """Posterior of each label: a list of (n_rows, len(classes_[j])) arrays; rows sum to 1.

        With ``inference="exact"`` the exact marginals ``P(c_j | x)``; with
        ``"greedy"`` the conditionals ``P(c_j | x, ĉ_1 .. ĉ_{j-1})`` along the
        greedy path, which are not marginals.
        """
        return super().predict_proba(X)

    def predict(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Label matrix of shape (n_rows, n_labels), columns in ``label_names_`` order.

        ``inference="exact"``: the joint mode ``argmax_c P(c | x)`` (ties: the
        first vector in chain order); ``"greedy"``: each label's most probable
        value given the previous predicted ones.
        """
        frame = self._new_frame(X)
        codes = self._exact_mode(frame) if self.inference == "exact" else self._greedy(frame)[0]
        return self._labels_from_codes(codes)

    def joint_log_proba(self, X: pd.DataFrame | ArrayLike, Y: pd.DataFrame | ArrayLike) -> np.ndarray:
        """``log P(y | x)`` of given label vectors under the chain, shape (n_rows,).

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_features)
        Y : DataFrame or 2-D array-like of shape (n_rows, n_labels)
            One label vector per row; a DataFrame's columns are matched to
            ``label_names_`` by name, an array's by position.

        Returns
        -------
        ndarray of shape (n_rows,)
            ``sum_j log P(y_j | x, y_1 .. y_{j-1})`` in chain order.

        Raises
        ------
        ValueError
            If `Y` lacks a label column, has more, or holds a value not seen in fit.
        """
        frame = self._new_frame(X)
        codes = self._label_codes(self._aligned_labels(Y), frame.shape[0])
        positions = self._positions()
        total = np.zeros(frame.shape[0])
        rows = np.arange(frame.shape[0])
        for k, j in enumerate(positions):
            features = self._chain_frame(frame, None, codes[:, positions[:k]], positions[:k])
            total += _log_proba(self.estimators_[k], features, self.classes_[j])[rows, codes[:, j]]
        return total

    def _aligned_labels(self, Y):
        """A DataFrame `Y` with its columns put in ``label_names_`` order (by name)."""
        if not isinstance(Y, pd.DataFrame) or list(Y.columns) == list(self.label_names_):
            return Y
        columns = list(Y.columns)
        missing = [name for name in self.label_names_ if name not in columns]
        extra = [name for name in columns if name not in self.label_names_]
        if missing or extra:
            parts = ([f"missing label(s) {missing[:5]}"] if missing else []) + (
                [f"unexpected column(s) {extra[:5]}"] if extra else []
            )
            raise ValueError(
                f"`Y` does not match the fitted labels {self.label_names_[:10]}: " + " and ".join(parts) + "."
            )
        return Y[self.label_names_]
