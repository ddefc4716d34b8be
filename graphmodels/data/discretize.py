"""Discretizers for the numeric columns of mixed tables.

Both discretizers are transformers in the scikit-learn style (without depending on
scikit-learn): ``__init__`` only stores keyword-only hyperparameters, :meth:`fit` learns cut
points from training data only and returns ``self``, fitted attributes end in ``_``, and
:meth:`transform` applies the learned cut points to any table with the same columns.  Fitting
inside each training fold therefore never leaks information from the test fold.

Only numeric columns are binned (``bool`` columns count as non-numeric); strings, categoricals,
booleans and numeric columns with too few distinct values pass through unchanged.  Missing
cells stay missing.  A binned column becomes an ordered :class:`pandas.Categorical` whose
categories are interval labels such as ``"(-inf, 2.45]"``, ``"(2.45, 4.75]"`` and
``"(4.75, inf)"``; every bin is a category even when no row falls into it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._memory import DEFAULT_MAX_CELLS, check_cells
from .._special import xlogy
from .weights import check_sample_weight

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "DISCRETIZERS",
    "EqualFrequencyDiscretizer",
    "IntegerColumnsCutWarning",
    "MDLDiscretizer",
    "is_interval_label",
    "make_discretizer",
]


class IntegerColumnsCutWarning(UserWarning):
    """A model's default discretizer (``discretizer="auto"``) cut columns of whole numbers into intervals.

    Integers are often codes of categories (a region, a product, a code 1-30 whose parity
    matters), which intervals garble. The message names the columns and the two ways out:
    ``categorical=[...]`` (or the pandas ``category`` dtype) keeps them as categories; an
    explicit ``discretizer=`` cuts them without the warning.
    """


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
class _ParamsMixin:
    """``get_params`` / ``set_params`` / ``repr`` from the keyword-only ``__init__`` arguments."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the hyperparameters of this transformer.

        Parameters
        ----------
        deep : bool, default=True
            Accepted for scikit-learn compatibility; these transformers have no nested
            estimators, so it changes nothing.

        Returns
        -------
        params : dict
            Hyperparameter name -> value.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Self:
        """Set hyperparameters and return ``self``.

        Parameters
        ----------
        **params
            Hyperparameter name -> new value.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If a name is not a hyperparameter of this transformer.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; expected one of {valid}, got {name!r}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def _as_frame(X: pd.DataFrame | np.ndarray) -> pd.DataFrame:
    """Return ``X`` as a DataFrame (a 2-D array gets integer column names)."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, expected ndim 2, got ndim {X.ndim}.")
        return pd.DataFrame(X)
    raise TypeError(f"X must be a pandas DataFrame or a 2-D numpy array, got {type(X).__name__}.")


def _is_numeric(col):
    """True for real numeric, non-boolean columns (categoricals, strings and complex numbers are not).

    Complex numbers have no order to cut along: they are states like any other hashable value
    (cast to float64 they would lose their imaginary parts, and ``1+1j`` and ``1+2j`` merge).
    """
    dtype = col.dtype
    return (
        pd.api.types.is_numeric_dtype(dtype)
        and not pd.api.types.is_bool_dtype(dtype)
        and not pd.api.types.is_complex_dtype(dtype)
    )


def _to_float(col):
    """Values of a numeric column as float64 with NaN for missing cells."""
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


def _check_int_param(value, name, minimum):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{name}` must be an integer, got {type(value).__name__} {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value}.")


def _weighted_quantiles(values, weights, probs):
    """Quantiles of `values` repeated `weights` times (exact for integer weights).

    Integer weights are expanded, so the cut points equal those of the repeated rows
    (linear interpolation, as ``numpy.quantile``); other weights use the inverse of the
    weighted empirical distribution function.
    """
    if np.all(weights == np.round(weights)) and weights.sum() <= 10_000_000:
        return np.quantile(np.repeat(values, weights.astype(np.int64)), probs)
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    positions = np.searchsorted(cumulative, probs * cumulative[-1], side="left")
    return values[order][np.minimum(positions, len(values) - 1)]


def _format_cut(x, digits):
    return format(float(x), f".{digits}g")


def _bin_labels(cuts):
    """Interval labels ``(-inf, c1]``, ``(c1, c2]``, ..., ``(ck, inf)`` for sorted cuts.

    Cut points are written with ``format(x, '.6g')``; if two cut points would get the same
    label, more significant digits are used (up to 17) until all labels differ.
    """
    if len(cuts) == 0:
        return ["(-inf, inf)"]
    for digits in range(6, 18):
        txt = [_format_cut(c, digits) for c in cuts]
        if len(set(txt)) == len(txt):
            break
    edges = ["-inf", *txt]
    labels = [f"({edges[i]}, {edges[i + 1]}]" for i in range(len(txt))]
    labels.append(f"({txt[-1]}, inf)")
    return labels


def _apply_cuts(values, cuts, index, name):
    """Bin float ``values`` by sorted ``cuts`` into an ordered categorical Series.

    A value ``v`` goes to bin ``i`` when ``cuts[i-1] < v <= cuts[i]``; missing stays missing.
    """
    codes = np.searchsorted(cuts, values, side="left")
    codes = np.where(np.isnan(values), -1, codes)
    cat = pd.Categorical.from_codes(codes, categories=_bin_labels(cuts), ordered=True)
    return pd.Series(cat, index=index, name=name)


def _apply_cuts_to_text(col, cuts, name):
    """Bin a column of text or mixed objects: numbers by `cuts`, other cells kept as they are."""
    numbers_ = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    binned = _apply_cuts(numbers_, cuts, col.index, name)
    unparsed = np.isnan(numbers_) & ~pd.isna(col).to_numpy()
    if not unparsed.any():
        return binned
    out = binned.astype(object)
    out[unparsed] = col[unparsed]
    return out


def is_interval_label(value: Any) -> bool:
    """True for a bin label written by the discretizers, such as ``"(2.45, 4.75]"``."""
    return isinstance(value, str) and value.startswith("(") and value.endswith(("]", ")")) and value.count(",") == 1


class _BaseDiscretizer(_ParamsMixin):
    """Shared ``fit`` scaffolding and ``transform`` for the discretizers."""

    fit: Callable[..., Any]  # defined by each discretizer

    def _validate_params(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _fit_column(self, values, y_codes, weights, name=None):  # pragma: no cover - overridden
        raise NotImplementedError

    def _fit_frame(self, X, y_codes, sample_weight=None):
        self._validate_params()
        X = _as_frame(X)
        if X.columns.has_duplicates:
            dup = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"X has duplicated column names {dup}; expected unique names.")
        weights = None if sample_weight is None else check_sample_weight(sample_weight, len(X))
        keep = None if weights is None else weights > 0  # a row of weight 0 is not in the sample
        cut_points = {}
        for name in X.columns:
            col = X[name]
            if not _is_numeric(col):
                continue
            values = _to_float(col)
            if np.isinf(values).any():
                raise ValueError(f"column {name!r} contains infinite values; expected finite numbers or missing cells.")
            column_weights, column_codes = weights, y_codes
            if keep is not None:
                values, column_weights = values[keep], weights[keep]
                column_codes = None if y_codes is None else y_codes[keep]
            observed = values[~np.isnan(values)]
            if np.unique(observed).size < self.min_distinct:
                continue
            cuts = self._fit_column(values, column_codes, column_weights, name)
            cut_points[name] = np.asarray(cuts, dtype=np.float64)
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = X.shape[1]
        self.binned_columns_ = list(cut_points)
        self.cut_points_ = cut_points
        return self

    def transform(self, X: pd.DataFrame | np.ndarray) -> pd.DataFrame:
        """Bin the numeric columns learned in :meth:`fit`; pass the others through.

        Parameters
        ----------
        X : pandas.DataFrame or numpy.ndarray of shape (n_rows, n_columns)
            Table with (at least) the columns seen in :meth:`fit`.  A 2-D array gets integer
            column names ``0, 1, ...``.  Extra columns pass through unchanged.

        Returns
        -------
        Xt : pandas.DataFrame of shape (n_rows, n_columns)
            New table, same columns in the same order and same index; each binned column
            is an ordered categorical of interval labels.  Values below or above the
            training range fall into the first or last bin; missing cells stay missing.

        Raises
        ------
        ValueError
            If the transformer is not fitted or a fitted column is missing from ``X``.

        Notes
        -----
        A binned column that arrives as text (or mixed objects) is read as numbers first,
        so ``1``, ``1.0`` and ``"1"`` fall into the same bin; a cell that is not a number
        (``"n/a"``) keeps its value, which a model then treats as a state never seen in fit.
        """
        if not hasattr(self, "cut_points_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call `fit` before `transform`.")
        X = _as_frame(X)
        missing = [c for c in self.feature_names_in_ if c not in X.columns]
        if missing:
            raise ValueError(f"column {missing[0]!r} seen in fit is missing from X (missing columns: {missing}).")
        out = X.copy()
        for name, cuts in self.cut_points_.items():
            col = X[name]
            if _is_numeric(col):
                out[name] = _apply_cuts(_to_float(col), cuts, X.index, name)
            else:
                out[name] = _apply_cuts_to_text(col, cuts, name)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain-data description: class, hyperparameters and (when fitted) the cut points.

        Column names are kept as they are (any hashable); :mod:`graphmodels.models.persistence`
        writes them as JSON.
        """
        state: dict[str, Any] = {"class": type(self).__name__, "params": self.get_params()}
        if hasattr(self, "cut_points_"):
            state["cut_points"] = [[name, [float(c) for c in cuts]] for name, cuts in self.cut_points_.items()]
            state["feature_names_in"] = list(self.feature_names_in_)
            if hasattr(self, "classes_"):
                state["classes"] = list(self.classes_)
        return state

    @staticmethod
    def from_dict(state: dict[str, Any]) -> _BaseDiscretizer:
        """Rebuild a discretizer (fitted when `state` has cut points) from :meth:`to_dict` output.

        Raises
        ------
        ValueError
            For an unknown discretizer class.
        """
        classes = {cls.__name__: cls for cls in (EqualFrequencyDiscretizer, MDLDiscretizer)}
        cls = classes.get(state.get("class"))  # type: ignore[arg-type]
        if cls is None:
            raise ValueError(f"Unknown discretizer {state.get('class')!r}; known: {sorted(classes)}.")
        discretizer: Any = cls(**state["params"])
        if "cut_points" in state:
            cut_points = {name: np.asarray(cuts, dtype=np.float64) for name, cuts in state["cut_points"]}
            names = list(state["feature_names_in"])
            discretizer.cut_points_ = cut_points
            discretizer.binned_columns_ = list(cut_points)
            discretizer.feature_names_in_ = np.empty(len(names), dtype=object)
            discretizer.feature_names_in_[:] = names
            discretizer.n_features_in_ = len(names)
            if "classes" in state:
                discretizer.classes_ = np.asarray(state["classes"])
        return discretizer

    def fit_transform(self, X: pd.DataFrame | np.ndarray, y: ArrayLike | None = None) -> pd.DataFrame:
        """Fit to ``X`` (and ``y``) and return the transformed ``X``.

        Parameters
        ----------
        X : pandas.DataFrame or numpy.ndarray of shape (n_rows, n_columns)
            Training table.
        y : array-like of shape (n_rows,), optional
            Class labels (required by :class:`MDLDiscretizer`).

        Returns
        -------
        Xt : pandas.DataFrame of shape (n_rows, n_columns)
            See :meth:`transform`.
        """
        return self.fit(X, y).transform(X)


# ----------------------------------------------------------------------------------------------
# equal-frequency
# ----------------------------------------------------------------------------------------------
class EqualFrequencyDiscretizer(_BaseDiscretizer):
    """Unsupervised equal-frequency binning of numeric columns.

    The protocol of Liang & Srebro [1]_: a numeric column with at least ``min_distinct``
    distinct non-missing training values is cut into ``n_bins`` bins holding about the same
    number of training rows; other columns pass through unchanged.

    Parameters
    ----------
    n_bins : int, default=5
        Number of bins (>= 2).  Fewer bins result when tied values make quantiles coincide.
    min_distinct : int, default=10
        Only numeric columns with at least this many distinct non-missing values are binned
        (>= 1).  Note that the data-set manifest of this project counts a column as numeric
        when it has *more than* 10 distinct values; use ``min_distinct=11`` for that rule.

    Attributes
    ----------
    cut_points_ : dict
        Binned column name -> 1-D float array of sorted, distinct cut points, shape
        (n_bins_column - 1,).
    binned_columns_ : list
        Names of the binned columns, in table order.
    feature_names_in_ : numpy.ndarray of shape (n_columns,)
        Column names seen in :meth:`fit`.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.

    See Also
    --------
    MDLDiscretizer : supervised, entropy-based cut points.

    Notes
    -----
    Cut points are the ``i / n_bins`` quantiles (``i = 1, ..., n_bins - 1``) of the training
    values, with linear interpolation (``numpy.quantile``'s default, as in
    ``pandas.qcut``).  Duplicate cut points are removed, and so is a cut point equal to the
    training maximum (its last bin would hold no training row).  Bins are right-closed:
    ``(c_{i-1}, c_i]``.  Missing cells are ignored in fit and stay missing in transform.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with bounded tree-width
       Markov networks. MIT CSAIL Technical Report MIT-CSAIL-TR-2004-081.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": np.arange(1.0, 11.0), "colour": list("rgbrgbrgbr")})
    >>> disc = EqualFrequencyDiscretizer(n_bins=5).fit(X)
    >>> disc.cut_points_["x"]
    array([2.8, 4.6, 6.4, 8.2])
    >>> Xt = disc.transform(pd.DataFrame({"x": [0.0, 5.0, 99.0], "colour": ["r", "g", "b"]}))
    >>> Xt["x"].tolist(), Xt["colour"].tolist()
    (['(-inf, 2.8]', '(4.6, 6.4]', '(8.2, inf)'], ['r', 'g', 'b'])
    >>> Xt = disc.transform(pd.DataFrame({"x": rng.normal(5, 3, size=4), "colour": "r"}))
    >>> list(Xt["x"].cat.categories)
    ['(-inf, 2.8]', '(2.8, 4.6]', '(4.6, 6.4]', '(6.4, 8.2]', '(8.2, inf)']
    """

    def __init__(self, *, n_bins: int = 5, min_distinct: int = 10) -> None:
        self.n_bins = n_bins
        self.min_distinct = min_distinct

    def _validate_params(self):
        _check_int_param(self.n_bins, "n_bins", 2)
        _check_int_param(self.min_distinct, "min_distinct", 1)

    def fit(
        self, X: pd.DataFrame | np.ndarray, y: ArrayLike | None = None, sample_weight: ArrayLike | None = None
    ) -> EqualFrequencyDiscretizer:
        """Learn equal-frequency cut points from training data.

        Parameters
        ----------
        X : pandas.DataFrame or numpy.ndarray of shape (n_rows, n_columns)
            Training table; mixed column types are allowed.
        y : None or array-like of shape (n_rows,), optional
            Ignored; present for API consistency (a pipeline passes the labels).
        sample_weight : array-like of shape (n_rows,), optional
            Non-negative frequency weights: integer weights give the cut points of the
            repeated rows; a row of weight 0 is left out.

        Returns
        -------
        self : EqualFrequencyDiscretizer
            Fitted transformer.

        Raises
        ------
        ValueError
            If ``n_bins < 2``, ``min_distinct < 1``, or a numeric column holds infinities.
        TypeError
            If ``X`` is not a DataFrame or 2-D array, or a hyperparameter is not an integer.
        """
        return self._fit_frame(X, None, sample_weight)

    def _fit_column(self, values, y_codes, weights, name=None):
        present = ~np.isnan(values)
        observed = values[present]
        probs = np.arange(1, self.n_bins) / self.n_bins
        quantiles = (
            np.quantile(observed, probs) if weights is None else _weighted_quantiles(observed, weights[present], probs)
        )
        cuts = np.unique(quantiles)
        return cuts[cuts < observed.max()]


# ----------------------------------------------------------------------------------------------
# Fayyad & Irani MDL
# ----------------------------------------------------------------------------------------------
def _entropy_rows(counts):
    """Entropy in bits of each row of a count matrix of shape (n, n_classes)."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, counts / np.where(n > 0, n, 1), 0.0)
    return -xlogy(p, p).sum(axis=-1) / np.log(2)


def _mdl_cut_points(
    values,
    y_codes,
    n_classes,
    weights=None,
    *,
    max_cells=DEFAULT_MAX_CELLS,
    name=None,
    parameter="max_cells",
    unsupervised="EqualFrequencyDiscretizer",
):
    """Fayyad–Irani recursive MDL cut points for one column (missing values dropped).

    Parameters
    ----------
    values : numpy.ndarray of shape (n,)
        Float values, NaN for missing.
    y_codes : numpy.ndarray of shape (n,)
        Integer class codes in ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.
    weights : numpy.ndarray of shape (n,), optional
        Frequency weights (a row of weight 2 counts twice).
    max_cells : int, default=10_000_000
        Largest (n_distinct, n_classes) table of class counts.
    name : hashable, optional
        The column's name, for the error message.
    parameter, unsupervised : str, optional
        What the error message calls the limit and the unsupervised alternative (a model's
        fit names its own parameters: see :func:`_for_model`).

    Returns
    -------
    cuts : numpy.ndarray
        Sorted accepted cut points (midpoints between adjacent distinct values).
    """
    keep = ~np.isnan(values)
    values, y_codes = values[keep], y_codes[keep]
    weights = None if weights is None else weights[keep]
    uniq, inv = np.unique(values, return_inverse=True)
    check_cells(
        uniq.size * n_classes,
        max_cells,
        what=f"MDL discretizer's class counts of column {name!r} ({uniq.size:,} distinct values x {n_classes:,} classes)",
        fix=f"cut column {name!r} without the classes ({unsupervised}) or merge classes",
        parameter=parameter,
    )
    # class counts per distinct value, shape (n_distinct, n_classes)
    counts = np.bincount(inv * n_classes + y_codes, weights=weights, minlength=uniq.size * n_classes).reshape(
        uniq.size, n_classes
    )
    cuts = []
    stack = [(0, uniq.size)]  # half-open ranges of distinct-value indices
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        seg = counts[lo:hi]
        total = seg.sum(axis=0)
        n = total.sum()
        left = np.cumsum(seg, axis=0)[:-1]  # counts left of the cut after value lo + j
        right = total - left
        # boundary points: adjacent values unless both hold one and the same single class
        nz = seg > 0
        pure = nz.sum(axis=1) == 1
        same = pure[:-1] & pure[1:] & (seg[:-1].argmax(axis=1) == seg[1:].argmax(axis=1))
        candidates = np.flatnonzero(~same)
        if candidates.size == 0:
            continue
        n_left = left[candidates].sum(axis=1)
        n_right = n - n_left
        e_left = _entropy_rows(left[candidates])
        e_right = _entropy_rows(right[candidates])
        cond = (n_left * e_left + n_right * e_right) / n
        best = int(np.argmin(cond))
        j = int(candidates[best])
        ent = _entropy_rows(total)
        gain = ent - cond[best]
        k = int((total > 0).sum())
        k1 = int((left[j] > 0).sum())
        k2 = int((right[j] > 0).sum())
        # log2(3^k - 2); 3.0**k overflows a float beyond k = 646 classes, where 3^k - 2 is 3^k to
        # many more digits than a float holds.
        log_choices = np.log2(3.0**k - 2) if k <= 600 else k * np.log2(3.0)
        delta = log_choices - (k * ent - k1 * e_left[best] - k2 * e_right[best])
        if gain > (np.log2(n - 1) + delta) / n:
            cuts.append((uniq[lo + j] + uniq[lo + j + 1]) / 2.0)
            stack.append((lo, lo + j + 1))
            stack.append((lo + j + 1, hi))
    return np.sort(np.asarray(cuts, dtype=np.float64))


class MDLDiscretizer(_BaseDiscretizer):
    """Supervised entropy-based discretization with the MDL stopping rule of Fayyad & Irani.

    Each numeric column is split recursively [1]_: among the boundary points of the sorted
    training values, take the cut ``T`` minimizing the class-information entropy

    .. math:: E(A, T; S) = \\frac{|S_1|}{|S|} \\mathrm{Ent}(S_1)
              + \\frac{|S_2|}{|S|} \\mathrm{Ent}(S_2),

    accept it iff

    .. math:: \\mathrm{Gain}(A, T; S) > \\frac{\\log_2(N - 1)}{N} + \\frac{\\Delta(A, T; S)}{N},
              \\quad \\Delta = \\log_2(3^k - 2) - [k\\,\\mathrm{Ent}(S)
              - k_1 \\mathrm{Ent}(S_1) - k_2 \\mathrm{Ent}(S_2)],

    where ``N = |S|`` and ``k, k1, k2`` are the numbers of classes present in ``S, S1, S2``,
    and recurse on both halves.  Entropies are in bits.

    Parameters
    ----------
    min_distinct : int, default=2
        Only numeric columns with at least this many distinct non-missing training values
        are discretized (>= 1); others pass through unchanged.
    max_cells : int or None, default=None
        Largest table of class counts per distinct value (distinct values x classes) of one
        column, in float64 cells; a larger one raises
        :class:`~graphmodels.stats.TableTooLargeError` naming the column, before it is
        allocated. None: the ``max_cells`` of the model that fits it (``discretizer=``), so
        that raising the model's ``max_cells`` lets it fit; 10,000,000 on its own.

    Attributes
    ----------
    cut_points_ : dict
        Binned column name -> 1-D float array of sorted cut points (possibly empty).
    binned_columns_ : list
        Names of the binned columns, in table order.
    feature_names_in_ : numpy.ndarray of shape (n_columns,)
        Column names seen in :meth:`fit`.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    classes_ : numpy.ndarray of shape (n_classes,)
        Class labels seen in :meth:`fit`.

    See Also
    --------
    EqualFrequencyDiscretizer : unsupervised equal-frequency bins.

    Notes
    -----
    Candidate cuts are the midpoints between adjacent distinct values that are *boundary
    points*: all of them except those between two values whose rows all carry one and the
    same class (Fayyad & Irani prove the entropy minimum is never there).  Ties in the
    minimum go to the smallest cut.  The search over cuts is vectorized with cumulative
    class counts over the sorted distinct values.

    Rows whose value is missing are ignored when fitting that column and stay missing.
    A column where no cut is accepted becomes a single bin ``"(-inf, inf)"``, as in Weka
    and Orange: the column is then constant (useless to a classifier) but still present.

    References
    ----------
    .. [1] Fayyad, U. M., & Irani, K. B. (1993). Multi-interval discretization of
       continuous-valued attributes for classification learning. In *Proceedings of the
       13th International Joint Conference on Artificial Intelligence (IJCAI)*,
       pp. 1022-1027.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.uniform(0, 1, 30), rng.uniform(2, 3, 30)])
    >>> y = np.repeat(["a", "b"], 30)
    >>> X = pd.DataFrame({"x": x, "noise": rng.normal(size=60)})
    >>> disc = MDLDiscretizer().fit(X, y)
    >>> len(disc.cut_points_["x"]), bool(1 < disc.cut_points_["x"][0] < 2)
    (1, True)
    >>> disc.cut_points_["noise"]
    array([], dtype=float64)
    >>> disc.transform(X)["noise"].cat.categories.tolist()
    ['(-inf, inf)']
    """

    #: The limit when ``max_cells`` is None, and how the guard's message names the limit and the
    #: unsupervised alternative; :func:`_for_model` sets them to the model's.
    _default_max_cells = DEFAULT_MAX_CELLS
    _limit_name = "max_cells"
    _unsupervised = "EqualFrequencyDiscretizer"

    def __init__(self, *, min_distinct: int = 2, max_cells: int | None = None) -> None:
        self.min_distinct = min_distinct
        self.max_cells = max_cells

    def _validate_params(self):
        _check_int_param(self.min_distinct, "min_distinct", 1)
        if self.max_cells is not None:
            _check_int_param(self.max_cells, "max_cells", 1)

    def fit(self, X: pd.DataFrame | np.ndarray, y: ArrayLike, sample_weight: ArrayLike | None = None) -> MDLDiscretizer:
        """Learn Fayyad–Irani MDL cut points from training data.

        Parameters
        ----------
        X : pandas.DataFrame or numpy.ndarray of shape (n_rows, n_columns)
            Training table; mixed column types are allowed.
        y : array-like of shape (n_rows,)
            Class labels, aligned with the rows of ``X`` by position; no missing labels.
        sample_weight : array-like of shape (n_rows,), optional
            Non-negative frequency weights: the class counts (and ``N``) are weighted, so
            integer weights give the cut points of the repeated rows.

        Returns
        -------
        self : MDLDiscretizer
            Fitted transformer.

        Raises
        ------
        ValueError
            If ``y`` is None, has missing labels, or its length differs from ``X``'s rows;
            if ``min_distinct < 1``; or if a numeric column holds infinities.
        TableTooLargeError
            If a column's distinct values x classes exceed `max_cells` (a ValueError too).
        """
        if y is None:
            raise ValueError("MDLDiscretizer is supervised: `y` (class labels) is required, got None.")
        X = _as_frame(X)
        y_arr = np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y.to_numpy()
        if y_arr.ndim != 1:
            raise ValueError(f"`y` must be 1-dimensional, got shape {y_arr.shape}.")
        if len(y_arr) != len(X):
            raise ValueError(f"`y` must have one label per row of X: expected length {len(X)}, got {len(y_arr)}.")
        if pd.isna(y_arr).any():
            raise ValueError(f"`y` has {int(pd.isna(y_arr).sum())} missing labels; expected none.")
        codes, classes = pd.factorize(y_arr, sort=True)
        self._n_classes = len(classes)
        self._fit_frame(X, codes.astype(np.intp), sample_weight)
        self.classes_ = np.asarray(classes)
        del self._n_classes
        return self

    def _fit_column(self, values, y_codes, weights, name=None):
        return _mdl_cut_points(
            values,
            y_codes,
            self._n_classes,
            weights,
            max_cells=self._default_max_cells if self.max_cells is None else self.max_cells,
            name=name,
            parameter=self._limit_name,
            unsupervised=self._unsupervised,
        )


# ----------------------------------------------------------------------------------------------
# discretizers by name
# ----------------------------------------------------------------------------------------------
#: Discretizers by name, for ``discretizer="..."`` arguments. ``"mdl"`` bins only numeric
#: columns with more than 10 distinct values, so integer-coded nominal attributes (monk's
#: a1..a6, zoo's legs) stay nominal; ``"equal-frequency"`` cuts numeric columns with at least
#: 10 distinct values into 5 bins.
DISCRETIZERS: dict[str, Callable[[], Any]] = {
    "mdl": lambda: MDLDiscretizer(min_distinct=11),
    "fayyad-irani": lambda: MDLDiscretizer(min_distinct=11),
    "equal-frequency": lambda: EqualFrequencyDiscretizer(n_bins=5, min_distinct=10),
}


def _for_model(discretizer: _BaseDiscretizer, max_cells: int) -> _BaseDiscretizer:
    """An unfitted copy of `discretizer` for the fit of a model whose budget is `max_cells`.

    An :class:`MDLDiscretizer` without a ``max_cells`` of its own takes the model's, so that
    raising the model's ``max_cells`` is what lets its class counts fit; one with its own limit
    keeps it. Either way, its error message names the parameter that works in the model:
    ``max_cells``, or ``discretizer.max_cells``, and ``discretizer='equal-frequency'``.

    Parameters
    ----------
    discretizer : MDLDiscretizer or EqualFrequencyDiscretizer
        Never changed itself, nor fitted: a copy is made from its parameters.
    max_cells : int
        The model's ``max_cells``.

    Returns
    -------
    MDLDiscretizer or EqualFrequencyDiscretizer
        A new, unfitted discretizer with the same parameters.

    Examples
    --------
    >>> mdl = _for_model(MDLDiscretizer(min_distinct=11), 10**8)
    >>> mdl.get_params()
    {'max_cells': None, 'min_distinct': 11}
    >>> mdl._default_max_cells
    100000000
    """
    copy = type(discretizer)(**discretizer.get_params())
    if isinstance(copy, MDLDiscretizer):
        if copy.max_cells is None:
            copy._default_max_cells = int(max_cells)
        else:
            copy._limit_name = "discretizer.max_cells"
        copy._unsupervised = "discretizer='equal-frequency'"
    return copy


def make_discretizer(discretizer: str | Any | None) -> Any:
    """Resolve ``None``, a name from :data:`DISCRETIZERS`, or a transformer.

    Parameters
    ----------
    discretizer : None, str or transformer
        A name of :data:`DISCRETIZERS` (any case), or an object with ``fit``
        and ``transform``.

    Returns
    -------
    transformer or None
        A new discretizer for a name; the transformer itself; None for None.

    Raises
    ------
    ValueError
        For an unknown name.
    TypeError
        For an object without ``fit`` and ``transform``.
    """
    if discretizer is None:
        return None
    if isinstance(discretizer, str):
        factory = DISCRETIZERS.get(discretizer.lower())
        if factory is None:
            raise ValueError(f"Unknown discretizer {discretizer!r}; valid: {sorted(DISCRETIZERS)} or None.")
        return factory()
    if not (hasattr(discretizer, "fit") and hasattr(discretizer, "transform")):
        raise TypeError(f"`discretizer` must be a name or a transformer, got {type(discretizer).__name__}.")
    return discretizer
