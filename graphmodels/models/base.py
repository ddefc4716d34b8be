"""Base classes of fitted models: parameters, input checks, prediction, persistence.

Written once here, in the manner of scikit-learn's ``_BaseNB``: a classifier
implements ``_fit(engine)`` and ``_joint_log_likelihood(codes)``; this module
turns that into ``predict``, ``predict_proba`` and ``predict_log_proba``
(normalized with log-sum-exp, so nothing underflows).
"""

from __future__ import annotations

import inspect
import sys
import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from ..data.encoding import LabelEncoder, TableEncoder, as_frame
from ..stats.counting import CountingEngine

__all__ = ["BaseModel", "BaseClassifier", "BaseDensity", "CLASS_NODE", "NotFittedError", "clone_model"]

#: Name of the class node when `y` has no usable name of its own.
CLASS_NODE = "class"


class BaseModel:
    """Hyperparameters, ``get_params``/``set_params`` and persistence.

    ``__init__`` of a subclass only stores its keyword-only arguments.
    """

    # Fitted attributes saved by `save` (beyond the encoder and structure).
    _fitted_attributes: tuple = ()

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(
            name
            for name, p in signature.parameters.items()
            if name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        )

    def get_params(self, deep=True):
        """Hyperparameters as a dict (scikit-learn protocol)."""
        params = {}
        for name in self._param_names():
            value = getattr(self, name)
            params[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params().items():
                    params[f"{name}__{key}"] = sub
        return params

    def set_params(self, **params):
        """Set hyperparameters; unknown names raise ``ValueError``."""
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

    def _check_fitted(self):
        if not hasattr(self, "encoder_"):
            raise _not_fitted_error(type(self).__name__)

    def _encode_new(self, X):
        self._check_fitted()
        frame = self.encoder_.align(X, owner=type(self).__name__)
        if len(frame) == 0:
            return np.zeros((0, len(self.encoder_.columns_)), dtype=np.int64)
        return self.encoder_.transform(frame, owner=type(self).__name__)

    def _check_common_params(self):
        if not isinstance(self.max_cells, (int, np.integer)) or self.max_cells < 1:
            raise ValueError(f"`max_cells` must be a positive integer, got {self.max_cells!r}.")

    def _encode_training(self, X):
        frame = as_frame(X)
        if frame.shape[0] == 0:
            raise ValueError("`X` has 0 rows; at least one row is needed to fit.")
        if frame.shape[1] == 0 and not getattr(self, "_allow_no_features", False):
            raise ValueError(f"`X` has 0 feature(s) (shape={frame.shape}) while a minimum of 1 is required.")
        self.encoder_ = TableEncoder(missing=self.missing)
        codes = self.encoder_.fit_transform(frame)
        self.n_features_in_ = frame.shape[1]
        names = list(frame.columns)
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in names):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return frame, codes

    def save(self, path):
        """Save the fitted model as JSON (``.json``) or NPZ (``.npz``); never pickle.

        See Also
        --------
        graphmodels.models.load
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


def _same(a, b):
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return a is b


def clone_model(model):
    """An unfitted copy of `model` with the same hyperparameters (scikit-learn's ``clone``
    without importing scikit-learn; nested estimators are cloned too)."""
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
    # When scikit-learn is in use, raise its own class so its tools recognize it;
    # it is never imported here.
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is not None:
        return sklearn_exceptions.NotFittedError(message)
    return NotFittedError(message)


class BaseClassifier(BaseModel):
    """A classifier over discrete attributes: ``fit(X, y)``, ``predict*``, ``score``.

    Subclasses implement ``_fit(engine)``, where the engine counts the
    encoded attributes plus the class (last variable, named
    ``self.class_name_``), and ``_joint_log_likelihood(codes)`` returning
    ``log P(x, y)`` of shape (n_rows, n_classes).
    """

    _estimator_type = "classifier"

    def fit(self, X, y, sample_weight=None):
        """Learn the structure and the parameters from `X` and `y`.

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_features)
            Discrete attributes: strings, categoricals, integers, or floats
            with few distinct values (discretize continuous ones first).
            Missing cells are a state of their own (``missing="value"``).
        y : 1-D array-like of shape (n_rows,)
            Class labels, any hashable values.
        sample_weight : array-like of shape (n_rows,), optional
            Non-negative frequency weights: a weight of 2 counts a row twice.
            Their sum is the sample size N wherever N matters (priors, FAN's
            MDL threshold, AODE's frequency limit), so do not rescale them.

        Returns
        -------
        self
        """
        engine = self._training_engine(X, y, sample_weight)
        self._fit(engine)
        return self

    def _training_engine(self, X, y, sample_weight=None):
        """Check parameters, encode `X` and `y` (setting ``encoder_``, ``classes_``,
        ``class_name_``) and return the counting engine `_fit` learns from.

        Evaluation runners that fit many models on the same rows build the
        engine once and share it (with its caches) through `_fit`.
        """
        self._check_common_params()
        self._check_params()
        frame, codes = self._encode_training(X)
        labels = LabelEncoder().fit(y)
        y_codes = labels.transform(y)
        if len(y_codes) != codes.shape[0]:
            raise ValueError(f"`X` has {codes.shape[0]} rows but `y` has {len(y_codes)} labels.")
        self.classes_ = labels.classes_
        name = getattr(y, "name", None)
        features = list(frame.columns)
        self.class_name_ = (
            name
            if name is not None and name not in features
            else (CLASS_NODE if CLASS_NODE not in features else "__class__")
        )
        table = np.empty((codes.shape[0], codes.shape[1] + 1), dtype=self.encoder_.code_dtype(len(self.classes_)))
        table[:, :-1] = codes
        table[:, -1] = y_codes
        engine = CountingEngine(
            table,
            list(self.encoder_.cardinalities_) + [len(self.classes_)],
            names=features + [self.class_name_],
            sample_weight=sample_weight,
            max_cells=self.max_cells,
        )
        if engine.total <= 0:
            raise ValueError("The sample weights sum to zero.")
        return engine

    def _check_params(self):
        """Validate hyperparameters (subclasses extend)."""

    @property
    def n_classes_(self):
        return len(self.classes_)

    def joint_log_likelihood(self, X):
        """``log P(x, y)`` for every row and class, shape (n_rows, n_classes)."""
        return self._joint_log_likelihood(self._encode_new(X))

    def predict_log_proba(self, X):
        """Log of the class posterior, shape (n_rows, n_classes), columns in ``classes_`` order."""
        joint = self.joint_log_likelihood(X)
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

    def predict_proba(self, X):
        """Class posterior probabilities, shape (n_rows, n_classes); rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each row (ties: the first in ``classes_``)."""
        log_proba = self.predict_log_proba(X)
        return self.classes_[np.argmax(log_proba, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of :meth:`predict` on `X`, `y`."""
        predicted = self.predict(X)
        truth = np.asarray(y, dtype=object if self.classes_.dtype == object else None)
        correct = (predicted == truth).astype(float)
        return float(np.average(correct, weights=sample_weight))


class BaseDensity(BaseModel):
    """A density estimator over discrete variables: ``fit(X)``, ``score_samples``, ``sample``.

    Subclasses implement ``_fit(engine)``, ``_log_likelihood(codes)`` of shape
    (n_rows,) and ``_sample_codes(n, rng)``.
    """

    _estimator_type = "density_estimator"

    def fit(self, X, y=None, sample_weight=None):
        """Learn the structure and parameters from the rows of `X` (`y` is ignored)."""
        self._check_common_params()
        self._check_params()
        frame, codes = self._encode_training(X)
        engine = CountingEngine(
            codes,
            self.encoder_.cardinalities_,
            names=list(frame.columns),
            sample_weight=sample_weight,
            max_cells=self.max_cells,
        )
        self._fit(engine)
        return self

    def _check_params(self):
        """Validate hyperparameters (subclasses extend)."""

    def score_samples(self, X):
        """Log-likelihood ``log P(x)`` of each row (nats), shape (n_rows,).

        Cells with states unseen in training are summed out.
        """
        return self._log_likelihood(self._encode_new(X))

    def score(self, X, y=None):
        """Total log-likelihood of the rows of `X` (nats), as scikit-learn's ``KernelDensity``."""
        return float(np.sum(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        """Draw rows from the fitted distribution, as a DataFrame with the training labels.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : None, int or numpy Generator
            Seed for reproducible draws.
        """
        self._check_fitted()
        if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
            raise ValueError(f"`n_samples` must be a non-negative integer, got {n_samples!r}.")
        rng = np.random.default_rng(random_state)
        codes = self._sample_codes(int(n_samples), rng)
        columns = {}
        for j, column in enumerate(self.encoder_.columns_):
            levels = np.empty(len(self.encoder_.levels_[j]), dtype=object)
            levels[:] = self.encoder_.levels_[j]
            columns[column] = levels[codes[:, j]]
        return pd.DataFrame(columns, columns=self.encoder_.columns_)
