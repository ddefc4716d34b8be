"""Encoding of tables into integer codes with per-variable state labels.

Every learner and estimator in graphmodels works on integer codes: column ``j``
of a coded table holds values in ``0 .. cardinality[j] - 1``. This module turns
pandas DataFrames (strings, categoricals, integers, floats, missing cells) and
numpy arrays into such codes, remembering the state labels so that a fitted
model can encode new rows the same way and report results with the original
labels.

Unseen states
-------------
A state never seen in training (including a missing cell when no cell of that
column was missing in training) is encoded as :data:`UNKNOWN` (``-1``). A
column that held numbers in training is read as numbers when it arrives as
text, so ``1``, ``1.0`` and ``"1"`` are the same state. Models
treat such a cell as unobserved: the variable is marginalized out of that row's
likelihood, exactly as if the value had not been recorded.
"""

from __future__ import annotations

import datetime
import functools
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = [
    "UNKNOWN",
    "MISSING_LABEL",
    "TableEncoder",
    "LabelEncoder",
    "as_frame",
]

#: Code of a state not seen in training; models marginalize such cells out.
UNKNOWN = -1

#: Label of the explicit state that stands for a missing cell.
MISSING_LABEL = "<missing>"

_MISSING_POLICIES = ("value", "error", "unobserved")


def is_dask_collection(obj: Any) -> bool:
    """True for a Dask collection (a ``dask.dataframe`` DataFrame or Series, a ``dask.array``).

    Told by the module of its type, so that graphmodels never imports Dask to ask.
    """
    return type(obj).__module__.split(".")[0] == "dask"


def as_frame(X: pd.DataFrame | ArrayLike, *, name: str = "X") -> pd.DataFrame:
    """Return `X` as a DataFrame, keeping a DataFrame's columns and index.

    Parameters
    ----------
    X : DataFrame, 2-D array-like, list of dicts or dict
        The table. A numpy array gets integer column names ``0 .. p-1``.
        Records are read as pandas reads them: a list of dicts is one row per
        dict (a key missing from a dict is a missing cell), a dict of
        sequences is one column per key, and a dict of single values is one
        row.
    name : str
        How to call `X` in error messages.

    Returns
    -------
    DataFrame

    Raises
    ------
    TypeError
        If `X` is not table-like (a scalar, a string, None) or is a Dask
        collection (whose rows are not in memory).
    ValueError
        If `X` is not two-dimensional (a Series, a 1-D or 3-D array), its
        columns (a dict of sequences) have different lengths, or it has
        duplicate or missing column names.

    Examples
    --------
    >>> as_frame([{"colour": "red", "size": 1}, {"colour": "blue"}]).to_dict("list")
    {'colour': ['red', 'blue'], 'size': [1.0, nan]}
    >>> as_frame({"colour": "red", "size": 1}).shape
    (1, 2)
    """
    if is_dask_collection(X):
        raise TypeError(
            f"`{name}` is a Dask collection ({type(X).__name__}), and this needs the rows in memory. The count-based "
            "models fit from a Dask DataFrame and predict on one (model.fit(X, y), model.predict_proba(X)); for "
            f"anything else compute it first ({name}.compute())."
        )
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"Sparse input is not supported for `{name}`: graphmodels reads categorical "
            "tables; pass a DataFrame or a dense array (X.toarray())."
        )
    if isinstance(X, pd.DataFrame):
        frame = X
    elif isinstance(X, pd.Series):
        raise ValueError(
            f"`{name}` must be 2-dimensional (rows x columns), got a Series; use series.to_frame() for a single "
            "column, or series.to_frame().T (or X.iloc[[i]] rather than X.iloc[i]) for a single row."
        )
    elif isinstance(X, Mapping):
        frame = _frame_of_mapping(X, name)
    elif isinstance(X, (list, tuple)) and _is_records(X):
        frame = pd.DataFrame([dict(row) for row in X])
    elif isinstance(X, (str, bytes, numbers.Number)) or X is None:
        raise TypeError(f"`{name}` must be a DataFrame or a 2-D array, got {type(X).__name__}.")
    else:
        array = np.asarray(X, dtype=object if _has_strings(X) else None)
        if array.ndim != 2:
            raise ValueError(
                f"`{name}` must be 2-dimensional (rows x columns), got an array of "
                f"shape {array.shape}. Reshape your data: array.reshape(-1, 1) for a "
                "single column, array.reshape(1, -1) for a single row."
            )
        frame = pd.DataFrame(array)
    if frame.columns.has_duplicates:
        duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
        raise ValueError(f"`{name}` has duplicate column names: {duplicated}.")
    _check_column_names(frame.columns, name)
    return frame


def _is_records(X):
    """True for a list (or tuple) of dicts: one record per row."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(row, Mapping) for row in X)


def _has_column_names(X):
    """True when `X` names its columns (a DataFrame, a dict, records), so they are matched by name."""
    return isinstance(X, (pd.DataFrame, Mapping)) or _is_records(X)


def _frame_of_mapping(X, name):
    """A dict of columns (or of the single values of one row) as a DataFrame."""
    if all(not pd.api.types.is_list_like(value) for value in X.values()):
        return pd.DataFrame([dict(X)])  # one record
    try:
        return pd.DataFrame(dict(X))
    except ValueError as error:
        lengths = {key: len(value) if pd.api.types.is_list_like(value) else 1 for key, value in X.items()}
        raise ValueError(
            f"`{name}` is a dict of columns of different lengths ({lengths}); give every column one value per row."
        ) from error


def _check_column_names(columns, name):
    """Refuse a missing column name (None, NaN, NA): it cannot name a variable of a structure."""
    for position, column in enumerate(columns):
        if column is None or column is pd.NA or column is pd.NaT or (isinstance(column, float) and column != column):
            raise ValueError(
                f"Column {position} of `{name}` has no name ({column!r}); graphmodels names every variable "
                f"by its column name. Give every column a name (set `{name}.columns`)."
            )


def _has_strings(X):
    try:
        return np.asarray(X).dtype.kind in "OUS"
    except (ValueError, TypeError):
        return True


def _python_scalar(value):
    """A JSON-friendly Python scalar for a numpy scalar label."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _sort_key(value):
    # Numbers sort by value (exactly: Python compares an int and a float without rounding) and
    # before strings; other types by their text.
    if isinstance(value, (bool, np.bool_)):
        return (0, int(value), "")
    if isinstance(value, numbers.Real):
        return (0, value, "")
    return (1, 0, str(value))


#: Values with an order of their own: numbers and booleans, dates, times and durations, intervals.
_ORDERED_TYPES = (numbers.Real, np.bool_, datetime.date, datetime.timedelta, np.datetime64, np.timedelta64, pd.Interval)


def _natural_order(values):
    """Positions that sort `values` in their natural order, or None when they have none.

    Numbers (and booleans: False, True), timestamps, durations and intervals ascend; text that
    is all interval labels (``"(-inf, 2.45]"``, as a discretizer writes them) ascends by its
    edges. Any other text, or a mix that does not compare, has no natural order.
    """
    positions = range(len(values))
    if all(isinstance(v, _ORDERED_TYPES) for v in values):
        try:
            return sorted(positions, key=lambda k: _sort_key(values[k]) if _is_real(values[k]) else values[k])
        except TypeError:  # timestamps with and without a time zone, dates beside numbers, ...
            return None
    edges = [_interval_edges(v) for v in values]
    if all(e is not None for e in edges):
        return sorted(positions, key=edges.__getitem__)
    return None


def _is_real(value):
    return isinstance(value, (numbers.Real, np.bool_))


def _interval_edges(label):
    """``(left, right)`` of an interval label such as ``"(2.45, 4.75]"``; None for other values."""
    if not (isinstance(label, str) and label[:1] in "([" and label[-1:] in ")]" and label.count(",") == 1):
        return None
    try:
        left, right = (float(edge) for edge in label[1:-1].split(","))
    except ValueError:
        return None
    return (left, right)


def _learn_column(series):
    """The levels of a column (see :class:`TableEncoder` for their order) and its codes (-1 where missing)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        levels = [_python_scalar(v) for v in series.cat.categories]
        return levels, series.cat.codes.to_numpy().astype(np.int64)
    if series.dtype.kind in "iuf":
        levels = sorted(_python_scalar(v) for v in pd.unique(series.dropna()))
        codes = _numeric_codes(series, levels)
        if codes is not None:
            return levels, codes
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    uniques = [_python_scalar(v) for v in uniques]
    order = _natural_order(uniques)
    if order is None:  # first appearance, as factorize found them
        return uniques, codes.astype(np.int64)
    rank = np.empty(len(uniques) + 1, dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    rank[-1] = -1  # factorize's -1 (missing) stays -1
    return [uniques[k] for k in order], rank[codes]


def _naming_unhashable_cells(method):
    """Turn pandas' bare "unhashable type" TypeError into one naming the column and the fix."""

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        try:
            return method(self, X, *args, **kwargs)
        except TypeError as error:
            if "unhashable" not in str(error):
                raise
            frame = as_frame(X)
            columns = {c: frame[c].to_numpy() for c in frame.columns if frame[c].dtype == object}
            raise _unhashable_error(columns, "X", error) from None

    return wrapper


class TableEncoder:
    """Learn the states of each column of a table and encode tables as codes.

    Parameters
    ----------
    missing : {"value", "error", "unobserved"}, default="value"
        What to do with missing cells (NaN, None, NA). ``"value"`` makes them
        an explicit extra state labelled :data:`MISSING_LABEL` in every column
        where training had missing cells, as in the protocols of Jakulin &
        Rish (2006) and Liang & Srebro (2004). ``"error"`` raises a
        ``ValueError`` naming the column. ``"unobserved"`` codes them ``-1``,
        as a state never seen: the counting engine leaves the row out of every
        table that reads the column (available-case counts), and a model that
        can (``BayesianNetwork(missing="em")``) fills them in by EM.

    Attributes
    ----------
    columns_ : list
        Column names seen in `fit`, in order.
    levels_ : list of list
        For each column, its state labels, in the order described below;
        code ``k`` stands for ``levels_[j][k]``.
    cardinalities_ : ndarray of shape (n_columns,)
        Number of states of each column.

    Notes
    -----
    **Order of the states.** Every table of a model (``cpd``, ``potential``,
    the notebook display) lists a variable's states in the order of
    ``levels_``, which is the data's own order:

    * a pandas categorical column: its categories, in their order (an
      ordered categorical's order; every category, even one no row holds);
    * numbers ascending, booleans ``False, True``, timestamps and durations
      ascending, intervals (``pd.Interval`` or a discretizer's labels such as
      ``"(-inf, 2.45]"``) by their edges;
    * anything else (text, or values of types that do not compare): the
      order of first appearance in the rows, so ``low, med, high, vhigh``
      stays in that order when the data lists ``low`` first. To fix another
      order, give the column as an ordered categorical.

    The missing state (:data:`MISSING_LABEL`) comes last. The order is a
    labelling only: a model's predictions do not depend on it. The class is
    the exception: its states are a classifier's ``classes_``, sorted as
    scikit-learn sorts them (:class:`LabelEncoder`), the order of the
    columns of ``predict_proba``.

    **Exact states.** Numbers are compared exactly: integers as integers of
    the column's own type (int64, uint64, pandas' nullable ``Int64``) and
    timestamps to the nanosecond, so an identifier 2**53 + 1 never takes the
    state of 2**53. A state met by `transform` that was not seen by `fit` is
    coded :data:`UNKNOWN` (``-1``); models marginalize such cells out.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = TableEncoder().fit(pd.DataFrame({"a": ["x", "y", None], "b": [1, 2, 2]}))
    >>> enc.levels_
    [['x', 'y', '<missing>'], [1, 2]]
    >>> enc.transform(pd.DataFrame({"a": ["y", "z"], "b": [2, 1]})).tolist()
    [[1, 1], [-1, 0]]
    >>> TableEncoder().fit(pd.DataFrame({"size": ["med", "low", "high", "low"], "n": [10, 2, 1, 2]})).levels_
    [['med', 'low', 'high'], [1, 2, 10]]
    """

    def __init__(self, *, missing: str = "value") -> None:
        self.missing = missing

    @_naming_unhashable_cells
    def fit(self, X: pd.DataFrame | ArrayLike) -> TableEncoder:
        """Learn the state labels of every column of `X`.

        See :meth:`fit_transform` to get the codes of `X` in the same pass.

        Parameters
        ----------
        X : DataFrame or 2-D array-like of shape (n_rows, n_columns)

        Returns
        -------
        self : TableEncoder
        """
        self._fit(X)
        del self._fit_codes
        return self

    def _fit(self, X):
        if self.missing not in _MISSING_POLICIES:
            raise ValueError(f"`missing` must be one of {list(_MISSING_POLICIES)}, got {self.missing!r}.")
        frame = as_frame(X)
        self.columns_ = list(frame.columns)
        self.levels_ = []
        self.has_missing_state_ = []
        self._fit_codes = []
        for column in self.columns_:
            series = frame[column]
            if series.ndim != 1:
                raise ValueError(f"Column {column!r} is not one-dimensional.")
            levels, codes = _learn_column(series)
            missing = codes < 0
            has_missing = bool(missing.any())
            if has_missing and self.missing == "error":
                raise ValueError(
                    f"Column {column!r} has {int(missing.sum())} missing cells and "
                    "missing='error'; use missing='value' to treat them as a state."
                )
            if has_missing and self.missing == "unobserved":
                has_missing = False  # the cells stay -1: not a state, not observed
            if has_missing:
                codes[missing] = len(levels)
                levels.append(MISSING_LABEL)
            self.levels_.append(levels)
            self.has_missing_state_.append(has_missing)
            self._fit_codes.append(codes)
        self.cardinalities_ = np.array([len(levels) for levels in self.levels_], dtype=np.int64)
        return self

    @_naming_unhashable_cells
    def transform(self, X: pd.DataFrame | ArrayLike, *, owner: str = "TableEncoder") -> np.ndarray:
        """Encode `X` into integer codes; unseen states become ``-1``.

        Parameters
        ----------
        X : DataFrame or 2-D array-like
            A DataFrame is matched to the fitted columns by name (so column
            order does not matter and extra columns are refused); an array
            must have the fitted number of columns, in order.
        owner : str, default="TableEncoder"
            How to call the fitted object in error messages (a model passes
            its own class name).

        Returns
        -------
        codes : ndarray of shape (n_rows, n_columns)
            The smallest signed integer type that holds every code
            (int8 up to 127 states), to keep the counting passes light.
        """
        frame = self.align(X, owner=owner)
        # Column-major: counting reads a few columns at a time (see fit_transform).
        codes = np.empty((len(frame), len(self.columns_)), dtype=self.code_dtype(), order="F")
        for j, column in enumerate(self.columns_):
            codes[:, j] = self._encode_column(frame[column], j)
        return codes

    def code_dtype(self, extra_states: int = 0) -> np.dtype:
        """Smallest signed integer dtype holding every code (and ``extra_states``)."""
        largest = max([int(c) for c in self.cardinalities_] + [int(extra_states), 1])
        return np.min_scalar_type(-largest) if largest < 2**31 else np.dtype(np.int64)

    @_naming_unhashable_cells
    def fit_transform(self, X: pd.DataFrame | ArrayLike) -> np.ndarray:
        """Fit to `X` and return its codes, hashing each column once."""
        self._fit(X)
        codes = np.empty(
            (len(self._fit_codes[0]) if self._fit_codes else len(as_frame(X)), len(self.columns_)),
            dtype=self.code_dtype(),
            # Column-major, as the counting engine reads it: a table is over a few columns, and
            # a batched one-way count lays out one variable after another.
            order="F",
        )
        for j, column_codes in enumerate(self._fit_codes):
            codes[:, j] = column_codes
        del self._fit_codes
        return codes

    def align(self, X: pd.DataFrame | ArrayLike, *, name: str = "X", owner: str = "TableEncoder") -> pd.DataFrame:
        """Return `X` as a DataFrame with exactly the fitted columns, in order.

        Parameters
        ----------
        X : DataFrame, 2-D array-like, list of dicts or dict
            A DataFrame (or records, see :func:`as_frame`) is matched to the
            fitted columns by name; an array (or a DataFrame with default
            ``0 .. p-1`` column names) must have the fitted number of columns,
            in order.
        name : str, default="X"
            How to call `X` in error messages.
        owner : str, default="TableEncoder"
            How to call the fitted object in error messages.

        Returns
        -------
        DataFrame of shape (n_rows, n_columns)

        Raises
        ------
        ValueError
            Naming the missing or unexpected columns.
        """
        return align_columns(X, self.columns_, name=name, owner=owner)

    def _encode_column(self, series, j):
        levels = self.levels_[j]
        observed = levels[:-1] if self.has_missing_state_[j] else levels
        if isinstance(series.dtype, pd.CategoricalDtype):
            # Map the few categories, then gather by the categorical's own codes.
            mapping = pd.Index(observed, dtype=object, tupleize_cols=False).get_indexer(
                series.cat.categories.astype(object)
            )
            mapping = np.append(mapping, UNKNOWN).astype(np.int64)  # code -1 (missing) -> last entry
            codes = mapping[series.cat.codes.to_numpy()]
        else:
            numeric_levels = functools.partial(self._numeric_levels, j)
            codes = _numeric_codes(series, observed, numeric_levels)
            if codes is None and series.dtype.kind in "OSU" and _all_numbers(observed):
                # Numbers at fit, text (or mixed objects) now: 1, 1.0 and "1" are one state.
                codes = _numeric_codes(pd.to_numeric(series, errors="coerce"), observed, numeric_levels)
        if codes is None:
            # get_indexer gives -1 for unseen states (pd.Categorical with unknown
            # values is deprecated and will raise in pandas 4).
            codes = self._observed_index(j, observed).get_indexer(series).astype(np.int64)
        negative = np.flatnonzero(codes < 0)
        isna = np.zeros(len(codes), dtype=bool)
        if len(negative):
            isna[negative] = pd.isna(series.iloc[negative]).to_numpy()
        if isna.any():
            if self.missing == "error" and not self.has_missing_state_[j]:
                raise ValueError(f"Column {self.columns_[j]!r} has missing cells and missing='error'.")
            codes[isna] = len(levels) - 1 if self.has_missing_state_[j] else UNKNOWN
        return codes

    def _observed_index(self, j: int, observed: list[Any]) -> pd.Index:
        """Column `j`'s fitted states (`observed`) as a pandas Index, built once per fitted state.

        Encoding a few rows cost more in building this Index (and its hash table) at every call
        than in looking the rows up: the Index is kept, for the list of levels it was built from.
        """
        cache: dict[int, tuple[list[Any], int, pd.Index]] = self.__dict__.setdefault("_observed_indexes", {})
        entry = cache.get(j)
        if entry is None or entry[0] is not self.levels_[j] or entry[1] != len(observed):
            entry = cache[j] = (self.levels_[j], len(observed), pd.Index(observed, dtype=object, tupleize_cols=False))
        return entry[2]

    def _numeric_levels(self, j: int, observed: list[Any], dtype: np.dtype) -> Any:
        """:func:`_numeric_levels` of column `j`'s fitted states for `dtype`, worked out once per fitted state."""
        cache: dict[tuple[int, np.dtype], tuple[list[Any], int, Any]] = self.__dict__.setdefault(
            "_numeric_level_keys", {}
        )
        entry = cache.get((j, dtype))
        if entry is None or entry[0] is not self.levels_[j] or entry[1] != len(observed):
            entry = cache[j, dtype] = (self.levels_[j], len(observed), _numeric_levels(observed, dtype))
        return entry[2]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description of the fitted encoder."""
        return {
            "missing": self.missing,
            "columns": [_python_scalar(c) for c in self.columns_],
            "levels": [[_python_scalar(v) for v in levels] for levels in self.levels_],
            "has_missing_state": list(self.has_missing_state_),
        }

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> TableEncoder:
        """Rebuild a fitted encoder from :meth:`to_dict` output."""
        encoder = cls(missing=state["missing"])
        encoder.columns_ = list(state["columns"])
        encoder.levels_ = [list(levels) for levels in state["levels"]]
        encoder.has_missing_state_ = list(state["has_missing_state"])
        encoder.cardinalities_ = np.array([len(v) for v in encoder.levels_], dtype=np.int64)
        return encoder


def _all_numbers(levels):
    """True when every level is a (non-boolean) number."""
    return bool(levels) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in levels
    )


def _numeric_codes(values, observed, numeric_levels=None):
    """Codes of a numeric column against numeric levels, compared exactly; None when either is not numeric.

    Integers are compared as integers of the column's own type (int64, uint64, nullable
    ``Int64``) and floats as floats, never through a rounding conversion: 2**53 + 1 is not
    the state 2**53, nor 2**64 - 2 the state 2**64 - 1. A level the column's type cannot
    hold (1.5 for integers, 2**53 + 1 for floats) matches no cell. `numeric_levels`, when
    given, is :func:`_numeric_levels` of `observed` (an encoder keeps them between calls).
    """
    if not isinstance(values, pd.Series) or values.dtype.kind not in "iuf":
        return None
    if values.dtype.kind in "iu":
        dtype = np.dtype(getattr(values.dtype, "numpy_dtype", values.dtype))
    else:
        dtype = np.dtype(np.float64)
    levels = (numeric_levels or _numeric_levels)(observed, dtype)
    if levels is None:
        return None
    keys, positions, low, high = levels
    array = values.to_numpy(dtype=dtype, na_value=0 if dtype.kind in "iu" else np.nan)
    codes = np.full(len(array), UNKNOWN, dtype=np.int64)
    if len(keys):
        if dtype.kind in "iu" and high - low < 1 << 20:
            # Integer states in a narrow range: a lookup table indexed by value, no search at all.
            lookup = np.full(high - low + 1, UNKNOWN, dtype=np.int64)
            lookup[(keys - keys[0]).astype(np.int64)] = positions
            inside = (array >= keys[0]) & (array <= keys[-1])
            codes[inside] = lookup[(array[inside] - keys[0]).astype(np.int64)]
        else:
            found = np.clip(np.searchsorted(keys, array), 0, len(keys) - 1)
            match = keys[found] == array
            codes[match] = positions[found[match]]
    if values.hasnans:
        codes[values.isna().to_numpy()] = UNKNOWN
    return codes


def _numeric_levels(observed, dtype):
    """``(keys, positions, low, high)``: the levels `dtype` can hold as sorted keys of that type, their positions.

    None when a level is not a number. Integers (`dtype` of kind ``i`` or ``u``) keep the
    integral levels within the type's range, each the integer it equals; floats every level
    a float equals. ``low`` and ``high`` are the smallest and largest key as Python numbers.
    """
    if not _all_numbers(observed):
        return None
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # An integral float level (a float column at fit) is the integer it equals, exactly.
        keyed = [
            (int(level), k) for k, level in enumerate(observed) if not isinstance(level, float) or level.is_integer()
        ]
        keyed = [(key, k) for key, k in keyed if info.min <= key <= info.max]
    else:
        keyed = [(key, k) for k, level in enumerate(observed) if (key := _as_float(level)) is not None]
    keyed.sort()
    keys = np.array([key for key, _ in keyed], dtype=dtype)
    positions = np.array([k for _, k in keyed], dtype=np.int64)
    return keys, positions, (keyed[0][0] if keyed else None), (keyed[-1][0] if keyed else None)


def _as_float(level):
    """The float equal to the number `level`, or None when no float is (2**53 + 1, 10**400)."""
    try:
        key = float(level)
    except OverflowError:
        return None
    return key if key == level else None


def align_columns(
    X: pd.DataFrame | ArrayLike, columns: list[Any], *, name: str = "X", owner: str = "the model"
) -> pd.DataFrame:
    """`X` as a DataFrame with exactly `columns`, in order: by name, or by position for an array.

    Parameters
    ----------
    X : DataFrame or 2-D array-like
        A DataFrame with column names is matched to `columns` by name (order
        does not matter); an array, or a DataFrame with default ``0 .. p-1``
        names, must have ``len(columns)`` columns, in order.
    columns : list
        The fitted column names.
    name, owner : str
        How to call `X` and the fitted object in error messages.

    Returns
    -------
    DataFrame of shape (n_rows, len(columns))

    Raises
    ------
    ValueError
        Naming the missing or unexpected columns, or the expected width.
    """
    frame = as_frame(X, name=name)
    if not _has_column_names(X) or _is_positional(frame.columns, columns):
        if frame.shape[1] != len(columns):
            raise ValueError(
                f"{name} has {frame.shape[1]} features, but {owner} is expecting "
                f"{len(columns)} features as input (columns {list(columns)[:10]})."
            )
        return frame.set_axis(columns, axis=1)
    present, fitted = set(frame.columns), set(columns)
    missing = [c for c in columns if c not in present]
    extra = [c for c in frame.columns if c not in fitted]
    if missing or extra:
        parts = ([f"missing columns {missing}"] if missing else []) + ([f"unexpected columns {extra}"] if extra else [])
        raise ValueError(f"`{name}` does not match the fitted columns: " + " and ".join(parts) + ".")
    return frame[columns]


def _is_positional(columns, fitted_columns):
    """True when both column sets are the default 0..p-1 integer labels."""

    def positional(cols):
        return all(isinstance(c, (int, np.integer)) for c in cols) and list(cols) == list(range(len(cols)))

    return positional(list(columns)) and positional(list(fitted_columns))


class LabelEncoder:
    """Encode class labels as the integers ``0`` to ``n_classes - 1``, in sorted order.

    The sorted unique labels become ``classes_`` (as ``numpy.unique`` sorts
    them), so ``predict_proba`` columns follow ``classes_`` whatever the
    labels look like: strings such as ``'1', '10', '2'`` stay strings and keep
    their (lexicographic) order.

    Parameters
    ----------
    name : str, default="y"
        How to call the labels in error messages (a multi-label model names
        each label column, ``"Y['rain']"``).

    Examples
    --------
    >>> enc = LabelEncoder().fit(["2", "10", "1", "2"])
    >>> enc.classes_.tolist()
    ['1', '10', '2']
    >>> enc.transform(["10", "2"]).tolist()
    [1, 2]
    """

    def __init__(self, *, name: str = "y") -> None:
        self.name = name

    def fit(self, y: ArrayLike) -> LabelEncoder:
        """Learn the sorted unique labels of `y`."""
        values = _label_array(y, self.name)
        try:
            self.classes_ = np.unique(values) if values.dtype != object else _unique_objects(values)
        except TypeError as error:
            raise _unhashable_error({self.name: values}, self.name, error) from None
        return self

    def transform(self, y: ArrayLike) -> np.ndarray:
        """Codes of the labels in `y`; unknown labels raise ``ValueError``."""
        values = _label_array(y, self.name)
        index = pd.Index(self.classes_, tupleize_cols=False)  # a tuple label is one label
        try:
            codes = index.get_indexer(values)
        except TypeError as error:
            raise _unhashable_error({self.name: values}, self.name, error) from None
        if (codes < 0).any():
            unknown = pd.unique(values[codes < 0])[:5].tolist()
            raise ValueError(f"`{self.name}` contains labels not seen in fit: {unknown}.")
        return codes.astype(np.int64)

    def fit_transform(self, y: ArrayLike) -> np.ndarray:
        """Fit to `y` and return its codes."""
        return self.fit(y).transform(y)


def _label_array(y, name="y"):
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(
                f"`{name}` must be one column of labels, got a DataFrame with {y.shape[1]} columns. {_MULTILABEL_HINT}"
            )
        y = y.iloc[:, 0]
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    if isinstance(y, (str, bytes)) or np.isscalar(y):
        raise TypeError(f"`{name}` must be a 1-D sequence of labels, got {type(y).__name__}.")
    if isinstance(y, pd.Series):
        if isinstance(y.dtype, pd.CategoricalDtype):
            y = y.astype(object)
        missing = y.isna().to_numpy()
        values = y.to_numpy(dtype=object if y.dtype.kind not in "biuf" else None)
    else:
        if not isinstance(y, np.ndarray) and not hasattr(y, "__array__"):
            # A list: let pandas infer the type, which keeps 1 and "1" apart
            # (numpy would turn both into the string "1").
            y = list(y)
            if y and all(isinstance(v, (list, np.ndarray)) for v in y) and len({len(v) for v in y}) == 1:
                # Rows of labels: a column of one label is read as the labels themselves.
                if len(y[0]) != 1:
                    raise ValueError(
                        f"`{name}` must be 1-dimensional (one label per row), got rows of {len(y[0])} labels. "
                        + _MULTILABEL_HINT
                    )
                y = [v[0] for v in y]
            inferred = pd.Series(y, dtype=object).infer_objects()
            y = inferred.to_numpy(dtype=inferred.dtype if inferred.dtype.kind in "biuf" else object)
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values.ravel()
        missing = pd.isna(values) if values.dtype.kind in "fOc" else np.zeros(len(values), bool)
    if values.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-dimensional (one label per row), got shape {values.shape}. {_MULTILABEL_HINT}"
        )
    if np.any(missing):
        raise ValueError(f"`{name}` has {int(np.sum(missing))} missing labels; drop those rows first.")
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        raise ValueError(
            f"`{name}` contains {int(np.sum(~np.isfinite(values)))} infinite labels; drop those rows first."
        )
    if values.dtype.kind in "U":
        values = values.astype(object)
    return values


def _unique_objects(values):
    labels = sorted(pd.unique(values).tolist(), key=_sort_key)
    out = np.empty(len(labels), dtype=object)
    for k, label in enumerate(labels):  # one by one: a tuple label is one cell
        out[k] = label
    return out


_MULTILABEL_HINT = (
    "For several labels per row use a multi-label model (BinaryRelevance, ClassifierChain, LabelPowerset, "
    "MultiDimensionalTAN, ...) with fit(X, Y)."
)

#: How to make the cells of a column hashable, by the type of an unhashable cell.
_HASHABLE_FIX = {list: "tuple", set: "frozenset", np.ndarray: "tuple"}


def _unhashable_error(columns, name, error):
    """A TypeError naming the first column (of a dict of columns) with an unhashable cell, and the fix."""
    for column, values in columns.items():
        for row, cell in enumerate(values):
            try:
                hash(cell)
            except TypeError:
                fix = next((f for kind, f in _HASHABLE_FIX.items() if isinstance(cell, kind)), "str")
                where = f"`{name}`" if name == column else f"Column {column!r} of `{name}`"
                target = name if name == column else f"{name}[{column!r}]"
                shown = repr(cell) if len(repr(cell)) <= 40 else repr(cell)[:37] + "..."
                return TypeError(
                    f"{where} holds a {type(cell).__name__} ({shown}) at row {row}; every cell must be a single "
                    f"hashable value (a string, number, bool or tuple). Convert it, e.g. "
                    f"{target} = {target}.map({fix})."
                )
    return error
