"""Paper protocols: the UCI experiments of Liang & Srebro (section 6.4).

Each method is a triple f-R-k (criterion, representation, tree-width). For
every data set: numeric columns with at least 10 distinct values are cut
into 5 equal-frequency intervals (a preprocessing step on the whole set, as
in the paper), missing cells are a value of their own, every hyperedge
table gets a pseudo-count of 0.001, and each trial splits the rows at
random 90/10. Values are those of the whole data set (a value missing
from a training split keeps its pseudo-count). Four figures per method and trial: mean log-likelihood
``log P(y, z)`` per row on the training and test rows, and the error of
``argmax_y P(y, z)`` on both.

All methods of a trial share one counting engine, so the candidate
weights of every subset are counted once (the ML and MDL weights and the
smaller tree-widths reuse the same entropies).

References
----------
.. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
       bounded tree-width Markov networks. Section 6.4, Tables 4-6.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.discretize import EqualFrequencyDiscretizer
from ..data.encoding import as_frame
from ..models.base import training_counts
from ..models.hyperforest import HyperforestClassifier
from .splits import RepeatedRandomSplit

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator

__all__ = ["LIANG_SREBRO_METHODS", "method_name", "parse_method", "liang_srebro_protocol"]

_SHORT = {"joint": "J", "shared": "Cs", "free": "Cf"}
_LONG = {"J": "joint", "CS": "shared", "CF": "free"}

#: The 19 method triples of Liang & Srebro's Table 6: (criterion, representation, k).
LIANG_SREBRO_METHODS = (
    [("ml", "free", k) for k in range(4)]
    + [("ml", "shared", k) for k in range(1, 4)]
    + [("ml", "joint", k) for k in range(1, 4)]
    + [("mdl", "joint", k) for k in range(1, 4)]
    + [("mdl", "shared", k) for k in range(1, 4)]
    + [("mdl", "free", k) for k in range(1, 4)]
)


#: The value that stands for a missing cell: an ordinary value, as in the paper.
MISSING_VALUE = "?"


def _with_all_values(X: pd.DataFrame) -> pd.DataFrame:
    """Every column as a categorical over the values of the whole data set.

    The paper smooths "each possible configuration", the values being
    those of the data set; so a value absent from a training split is still
    a value (with a pseudo-count), not an unobserved cell to sum out.
    Missing cells become the ordinary value ``"?"``.
    """
    columns = {}
    for name in X.columns:
        column = X[name]
        values = column.astype(object).where(column.notna(), MISSING_VALUE).astype(str)
        columns[name] = pd.Categorical(values, categories=sorted(values.unique()))
    return pd.DataFrame(columns, index=X.index)


def method_name(criterion: str, representation: str, k: int) -> str:
    """The paper's name of a triple, e.g. ``("mdl", "shared", 3) -> "MDL-Cs-3"``.

    Parameters
    ----------
    criterion : {"ml", "mdl"}
    representation : {"joint", "shared", "free"}
    k : int
        Tree-width.

    Returns
    -------
    str
    """
    return f"{criterion.upper()}-{_SHORT[representation]}-{k}"


def parse_method(name: str) -> tuple[str, str, int]:
    """Inverse of :func:`method_name`: ``"MDL-Cs-3" -> ("mdl", "shared", 3)``.

    Parameters
    ----------
    name : str
        ``CRITERION-REPRESENTATION-K``, representation one of J, Cs, Cf (any case).

    Returns
    -------
    criterion, representation, k : str, str, int

    Raises
    ------
    ValueError
        If `name` is not of that form.
    """
    try:
        criterion, representation, k = name.split("-")
        return criterion.lower(), _LONG[representation.upper()], int(k)
    except (ValueError, KeyError):
        raise ValueError(f"Not a method name like 'MDL-Cs-3': {name!r}.") from None


def liang_srebro_protocol(
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike,
    *,
    methods: Sequence[tuple[str, str, int] | str] | None = None,
    n_trials: int = 50,
    test_size: float = 0.1,
    random_state: int | np.random.Generator | None = 0,
    discretize: bool = True,
    estimator: str | dict[str, Any] | Estimator = "liang-srebro",
    n_starts: int = 100,
    algorithm: str = "incremental",
    verbose: bool = False,
) -> pd.DataFrame:
    """Run the 90/10 random-split protocol of Liang & Srebro on one data set.

    Parameters
    ----------
    X : DataFrame or 2-D array-like of shape (n_rows, n_attributes)
    y : array-like of shape (n_rows,)
    methods : sequence of (criterion, representation, k) or names, optional
        Default: the 19 triples of :data:`LIANG_SREBRO_METHODS`.
    n_trials : int, default=50
        Random splits (the paper: 50; 10 for connect4).
    test_size : float, default=0.1
    random_state : None, int or numpy Generator, default=0
        Seed of the splits.
    discretize : bool, default=True
        Cut numeric columns with >= 10 distinct values into 5
        equal-frequency bins, on the whole set before splitting.
    estimator : str, dict or Estimator, default="liang-srebro"
        The parameter prior: the paper's pseudo-count 0.001 per cell.
    n_starts : int, default=100
    algorithm : {"incremental", "global"}, default="incremental"
    verbose : bool, default=False
        Print one line per trial to stderr.

    Returns
    -------
    DataFrame
        One row per (trial, method): ``trial``, ``method``, ``criterion``,
        ``representation``, ``k``, ``train_loglik``, ``test_loglik`` (mean
        nats per row of ``log P(y, z)``), ``train_error``, ``test_error``
        and ``fit_seconds``.

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("car")
    >>> X, y = frame.drop(columns="class"), frame["class"]
    >>> result = liang_srebro_protocol(X, y, methods=["MDL-Cs-1"], n_trials=2)
    >>> result[["method", "test_error"]].shape
    (2, 2)
    """
    frame: pd.DataFrame = as_frame(X).reset_index(drop=True)
    target = pd.Series(np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y).reset_index(drop=True)
    if len(frame) != len(target):
        raise ValueError(f"`X` has {len(frame)} rows but `y` has {len(target)} labels.")
    triples = [
        parse_method(m) if isinstance(m, str) else cast("tuple[str, str, int]", tuple(m))
        for m in (methods or LIANG_SREBRO_METHODS)
    ]
    # Largest tree-width first, class-conditional before joint: the entropies
    # of that first pass are cached and serve every other method.
    order = sorted(range(len(triples)), key=lambda i: (-triples[i][2], triples[i][1] == "joint"))
    if discretize:
        frame = EqualFrequencyDiscretizer(n_bins=5, min_distinct=10).fit_transform(frame)
    frame = _with_all_values(frame)
    rows = []
    splitter = RepeatedRandomSplit(test_size=test_size, n_repeats=n_trials, random_state=random_state)
    for trial, (train, test) in enumerate(splitter.split(frame)):
        start = time.perf_counter()
        X_train, y_train = frame.iloc[train], target.iloc[train]
        X_test, y_test = frame.iloc[test], target.iloc[test]
        counts = None  # encoded and counted once per trial, shared by every method
        for i in order:
            criterion, representation, k = triples[i]
            model = HyperforestClassifier(
                treewidth=k,
                criterion=criterion,
                representation=representation,
                estimator=estimator,
                n_starts=n_starts,
                algorithm=algorithm,
            )
            tic = time.perf_counter()
            if counts is None:
                counts = training_counts(X_train, y_train, missing=model.missing_encoding, max_cells=model.max_cells)
            model.fit_counts(counts)
            fitted = time.perf_counter() - tic
            record = {
                "trial": trial,
                "method": method_name(criterion, representation, k),
                "criterion": criterion,
                "representation": representation,
                "k": k,
                "fit_seconds": fitted,
            }
            for part, (features, labels) in {"train": (X_train, y_train), "test": (X_test, y_test)}.items():
                joint = model.joint_log_likelihood(features)
                # A class absent from the training rows (possible for rare
                # classes) counts as an error and is left out of the likelihood.
                truth = pd.Index(list(model.classes_)).get_indexer(list(np.asarray(labels, dtype=object)))
                known = truth >= 0
                record[f"{part}_loglik"] = float(joint[np.flatnonzero(known), truth[known]].mean())
                predicted = np.argmax(joint, axis=1)
                record[f"{part}_error"] = float(np.mean(predicted != truth))
            rows.append(record)
        if verbose:
            print(f"  trial {trial + 1}/{n_trials}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)
