"""Parameter estimators: from count tables to probability tables.

An estimator turns a table of counts into a table of probabilities. For a
conditional probability table (CPT) the child variable is the **last** axis
and the parents are the leading axes; every slice along the last axis sums to
one. Estimators know nothing about structures or rows: models ask the
counting engine for a family's table and hand it here.

References
----------
.. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
       Bayesian networks: the combination of knowledge and statistical data.
       *Machine Learning*, 20(3), 197-243. (BDeu.)
.. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture 10 of
       MAC6916, section 3 (likelihood-equivalent Dirichlet priors for TAN).
.. [3] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded
       tree-width Markov networks. MIT CSAIL technical report, section 6.4
       (pseudo-count 0.001).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Estimator",
    "MaximumLikelihood",
    "Dirichlet",
    "BDeu",
    "get_estimator",
    "ESTIMATORS",
    "LIANG_SREBRO_PSEUDO_COUNT",
]

#: The pseudo-count Liang & Srebro (2004) add to every cell.
LIANG_SREBRO_PSEUDO_COUNT = 0.001


class Estimator:
    """Base class: an estimator adds a pseudo-count to each cell, then normalizes.

    Subclasses define :meth:`pseudo_count` for a table shape. Instances are
    immutable, comparable and JSON-describable (:meth:`to_dict`).
    """

    name = "estimator"

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        """Pseudo-count added to every cell of a table of this shape."""
        raise NotImplementedError

    def conditional(self, counts: ArrayLike) -> np.ndarray:
        """CPT ``P(child | parents)`` from a family table (child on the last axis).

        Parameters
        ----------
        counts : array-like of shape (r_parent_1, ..., r_parent_k, r_child)

        Returns
        -------
        ndarray of the same shape
            Each slice along the last axis sums to 1. A parent configuration
            with no counts and no pseudo-counts gets the uniform distribution.
        """
        counts = _check_counts(counts)
        smoothed = counts + self.pseudo_count(counts.shape)
        totals = smoothed.sum(axis=-1, keepdims=True)
        uniform = 1.0 / counts.shape[-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            table = np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1.0), uniform)
        return table

    def joint(self, counts: ArrayLike) -> np.ndarray:
        """Joint distribution from a table of counts (all cells sum to 1).

        Parameters
        ----------
        counts : array-like of any shape (at least one axis)

        Returns
        -------
        ndarray of the same shape
            All cells sum to 1; uniform when there are no counts and no
            pseudo-counts.
        """
        counts = _check_counts(counts)
        smoothed = counts + self.pseudo_count(counts.shape)
        total = smoothed.sum()
        if total <= 0:
            return np.full(counts.shape, 1.0 / max(counts.size, 1))
        return smoothed / total

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description: ``{"name": ..., <parameters>}``."""
        return {"name": self.name, **self._params()}

    def _params(self) -> dict[str, Any]:
        return {}

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params().items()))))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"


class MaximumLikelihood(Estimator):
    """Relative frequencies, ``n_x / n``.

    Zero counts give zero probabilities, so a test row with a combination
    never seen in training gets likelihood 0 (log-loss infinity). Use a
    Dirichlet prior for prediction.

    Examples
    --------
    >>> MaximumLikelihood().conditional([[1, 3], [0, 0]]).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """

    name = "mle"

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return 0.0


class Dirichlet(Estimator):
    """Symmetric Dirichlet prior: add `pseudo_count` to every cell.

    ``pseudo_count=1`` is Laplace's rule; ``pseudo_count=0.001`` is the
    smoothing of Liang & Srebro (2004) [1]_.

    Parameters
    ----------
    pseudo_count : float, default=1.0
        Must be >= 0.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded
           tree-width Markov networks. MIT CSAIL technical report, section 6.4
           (pseudo-count 0.001).

    Examples
    --------
    >>> Dirichlet(1.0).conditional([[1, 3], [0, 0]]).tolist()
    [[0.3333333333333333, 0.6666666666666666], [0.5, 0.5]]
    """

    name = "dirichlet"

    def __init__(self, pseudo_count: float = 1.0) -> None:
        pseudo_count = _as_float(pseudo_count, "pseudo_count")
        if not np.isfinite(pseudo_count) or pseudo_count < 0:
            raise ValueError(f"`pseudo_count` must be a finite number >= 0, got {pseudo_count}.")
        self.pseudo_count_value = pseudo_count

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return self.pseudo_count_value

    def _params(self) -> dict[str, Any]:
        return {"pseudo_count": self.pseudo_count_value}


class BDeu(Estimator):
    """Bayesian Dirichlet, likelihood-equivalent and uniform (BDeu).

    The equivalent sample size is spread evenly over the cells of the whole
    family table: ``alpha = equivalent_sample_size / (q * r)`` per cell, with
    ``q`` parent configurations and ``r`` child states [1]_. Markov-equivalent
    structures get the same score, which is what keeps TAN learning a
    maximum spanning tree problem under Bayesian estimates [2]_.

    In a classifier the family of attribute ``X_i`` includes the class, so
    ``BDeu(alpha)`` puts ``alpha / (|C| r_parent r_i)`` in each cell: Mauá's
    class-conditional equivalent sample size ``alpha_c`` is ``alpha / |C|``.

    Parameters
    ----------
    equivalent_sample_size : float, default=1.0
        Must be > 0.

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical data.
           *Machine Learning*, 20(3), 197-243.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture 10 of
           MAC6916, section 3 (likelihood-equivalent Dirichlet priors for TAN).

    Examples
    --------
    >>> BDeu(4.0).conditional([[1, 3], [0, 0]]).tolist()
    [[0.3333333333333333, 0.6666666666666666], [0.5, 0.5]]
    """

    name = "bdeu"

    def __init__(self, equivalent_sample_size: float = 1.0) -> None:
        ess = _as_float(equivalent_sample_size, "equivalent_sample_size")
        if not np.isfinite(ess) or ess <= 0:
            raise ValueError(f"`equivalent_sample_size` must be a finite number > 0, got {ess}.")
        self.equivalent_sample_size = ess

    def pseudo_count(self, shape: tuple[int, ...]) -> float:
        return self.equivalent_sample_size / max(int(np.prod(shape)), 1)

    def _params(self) -> dict[str, Any]:
        return {"equivalent_sample_size": self.equivalent_sample_size}


#: Estimators by name, for ``estimator="..."`` arguments.
ESTIMATORS: dict[str, Callable[..., Estimator]] = {
    "mle": MaximumLikelihood,
    "dirichlet": Dirichlet,
    "laplace": lambda: Dirichlet(1.0),
    "bdeu": BDeu,
    "liang-srebro": lambda: Dirichlet(LIANG_SREBRO_PSEUDO_COUNT),
}


def get_estimator(estimator: Estimator | str | dict[str, Any]) -> Estimator:
    """Resolve an estimator given as an instance, a name or a description dict.

    Parameters
    ----------
    estimator : Estimator, str or dict
        A name from :data:`ESTIMATORS` (``"mle"``, ``"dirichlet"``,
        ``"laplace"``, ``"bdeu"``, ``"liang-srebro"``) or a
        :meth:`Estimator.to_dict` output.

    Returns
    -------
    Estimator

    Raises
    ------
    ValueError
        For an unknown name, listing the valid ones.
    """
    if isinstance(estimator, Estimator):
        return estimator
    if isinstance(estimator, dict):
        params = dict(estimator)
        name = params.pop("name", None)
        factory = ESTIMATORS.get(name)
        if factory is None or name in ("laplace", "liang-srebro"):
            factory = {"mle": MaximumLikelihood, "dirichlet": Dirichlet, "bdeu": BDeu}.get(name)
        if factory is None:
            raise ValueError(f"Unknown estimator {name!r}; valid names: {sorted(ESTIMATORS)}.")
        return factory(**params)
    if isinstance(estimator, str):
        factory = ESTIMATORS.get(estimator.lower())
        if factory is None:
            raise ValueError(f"Unknown estimator {estimator!r}; valid names: {sorted(ESTIMATORS)}.")
        return factory()
    raise TypeError(f"`estimator` must be an Estimator, a name or a dict, got {type(estimator).__name__}.")


def _as_float(value, name):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number, got {value!r}.") from None


def _check_counts(counts: ArrayLike) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim == 0:
        raise ValueError("A count table needs at least one axis.")
    if (counts < 0).any() or not np.all(np.isfinite(counts)):
        raise ValueError("Counts must be finite and non-negative.")
    return counts
