"""The counting engine over a Dask DataFrame: the same tables, counted partition by partition.

Counts are sums over rows, so the tables of a table split into partitions are the
sums of the partitions' tables. :class:`DaskCountingEngine` answers every query of
:class:`~graphmodels.stats.CountingEngine` (``counts``, ``one_way_counts``,
``pairwise_counts``, ``map_reduce``, ``stratum``, ``sample_rows``) by running the
in-memory engine's own counting on each partition, on the workers of the Dask
cluster, and adding the partitions' tables up by a tree reduction. Nothing
gathers the rows: a task holds one partition, and what travels between tasks
and to the client are tables. The tables are those of the in-memory engine on
the same rows (cell for cell: counts are integers, summed exactly in float64).

The states of each column are learned in one pass before any counting
(:func:`dask_training_data`): the union of the partitions' distinct values,
sorted and coded exactly as :class:`~graphmodels.data.TableEncoder` sorts and
codes the whole column, so codes, and so tables, agree with a fit on the
computed frame. The same pass collects the counts per distinct value that a
discretizer needs.

Dask is an optional dependency (``pip install 'graphmodels[dask]'``): this module
imports it only inside the functions that run a Dask computation, and the rest
of graphmodels never imports it; a Dask DataFrame is recognised by its type's
module (``graphmodels.data.encoding.is_dask_collection``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.discretize import EqualFrequencyDiscretizer, MDLDiscretizer, _for_model, _is_numeric, make_discretizer
from ..data.encoding import LabelEncoder, TableEncoder, is_dask_collection
from .counting import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_MAX_CELLS,
    CountingEngine,
    InMemoryRowsRequired,
    OneWayCounts,
    TableTooLargeError,
)

__all__ = ["DaskCountingEngine", "DaskTrainingData", "dask_training_data", "lazy_rows"]

#: Partition results added up by one task of the tree reduction.
SPLIT_EVERY = 8

#: Why a fit that reads rows cannot run on a Dask engine, and what to do.
ROWS_NEEDED = (
    "its fit reads the training rows themselves (a search or an estimator over rows, not over tables), and a "
    "Dask DataFrame keeps its rows on the workers. Fit it on in-memory data (X.compute()), or use a count-based "
    "model: NaiveBayes, TAN, FAN, ChowLiu, KDB, AODE, AnDE, HyperforestClassifier, ChowLiuTree, HyperforestDensity."
)

#: The Dask extra, for error messages.
INSTALL_HINT = "pip install 'graphmodels[dask]'"


def _require_dask():
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError as error:  # pragma: no cover - the tests run with dask installed
        raise ImportError(f"Fitting from a Dask DataFrame needs dask[dataframe]: {INSTALL_HINT}.") from error


# ---------------------------------------------------------------------------------- the reduction
def _add(a, b):
    """Element-wise sum of two partition results (arrays, or lists of arrays)."""
    if isinstance(a, list):
        return [_add(x, y) for x, y in zip(a, b)]
    return a + b


def _sum_wrapped(*parts):
    """One node of the tree: the sum of a few wrapped partition results, wrapped again."""
    total = parts[0].iloc[0]
    for part in parts[1:]:
        total = _add(total, part.iloc[0])
    return _wrap(total)


def _wrap(value):
    """A result in a one-cell object Series: what a Dask DataFrame's map_partitions may return."""
    out = pd.Series([None], dtype=object)
    out.iloc[0] = value
    return out


def _tree_sum(frame, function, split_every=SPLIT_EVERY, combine=_sum_wrapped):
    """``function(partition)`` on every partition of `frame`, combined by a tree of `combine` tasks."""
    import dask
    from dask import delayed

    parts = frame.map_partitions(lambda part: _wrap(function(part)), meta=pd.Series([], dtype=object)).to_delayed()
    if not parts:
        raise ValueError("The Dask DataFrame has no partitions.")
    while len(parts) > 1:
        parts = [delayed(combine, pure=True)(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    (result,) = dask.compute(parts[0])
    return result.iloc[0]


# ---------------------------------------------------------------------------------- encoding spec
@dataclass(frozen=True)
class _Spec:
    """How a worker turns a partition into codes: the fitted encoders, shipped with each task."""

    columns: list[Hashable]
    encoder: TableEncoder
    discretizer: Any
    class_column: Hashable | None
    labels: LabelEncoder | None
    cardinalities: np.ndarray
    names: list[Hashable]
    max_cells: int
    chunk_size: int

    def codes(self, part: pd.DataFrame) -> np.ndarray:
        features = part[self.columns]
        if self.discretizer is not None:
            features = self.discretizer.transform(features)
        codes = self.encoder.transform(features)
        if self.class_column is None:
            return codes
        assert self.labels is not None
        table = np.empty((codes.shape[0], codes.shape[1] + 1), dtype=self.encoder.code_dtype(len(self.labels.classes_)))
        table[:, :-1] = codes
        table[:, -1] = self.labels.transform(part[self.class_column])
        return table

    def engine(self, part: pd.DataFrame, row_filter: tuple[tuple[int, int], ...]) -> CountingEngine:
        codes = self.codes(part)
        weights = None
        for position, state in row_filter:
            mask = (codes[:, position] == state).astype(np.float64)
            weights = mask if weights is None else weights * mask
        return CountingEngine(
            codes,
            self.cardinalities,
            names=self.names,
            sample_weight=weights,
            max_cells=self.max_cells,
            chunk_size=self.chunk_size,
        )


def _on_partition(part, spec, row_filter, function):
    return function(spec.engine(part, row_filter))


def _call(method, *args):
    """``engine.<method>(*args)``: a picklable query for :meth:`DaskCountingEngine.map_reduce`."""
    return lambda engine: getattr(engine, method)(*args)


# ---------------------------------------------------------------------------------- the engine
class DaskCountingEngine(CountingEngine):
    """The queries of :class:`~graphmodels.stats.CountingEngine` over the partitions of a Dask DataFrame.

    Built by :func:`dask_training_data` (which the models' ``fit`` calls when
    `X` is a Dask DataFrame); each query that is not in the cache is one
    distributed pass over the partitions: every partition is encoded on a
    worker, counted there by an in-memory :class:`CountingEngine`, and the
    partitions' tables are added up by a tree reduction (``split_every``
    tables per task). The tables equal those of the in-memory engine on the
    same rows; the same table-size guard (`max_cells`) runs on the client
    before any task starts.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        The attribute columns (and the class column, when there is one).
    spec : object
        The fitted encoding (built by :func:`dask_training_data`).
    n_rows : int
        Number of rows of `frame`.
    seeded : dict, optional
        Tables already known from the pass that learned the states (the
        class counts), by cache key.
    split_every : int, default=8
        Partition tables added up by one task of the reduction.

    Attributes
    ----------
    partition_rows : ndarray of shape (n_partitions,)
        Rows of each partition, in order.

    Notes
    -----
    A query is a pass over the data: when `frame` is read from files, each
    pass reads them again. ``X.persist()`` before ``fit`` keeps the
    partitions in the cluster's memory instead, when they fit there.

    :meth:`rows` and :meth:`iter_chunks`, which return the rows themselves,
    raise :class:`InMemoryRowsRequired`; :meth:`sample_rows` gathers at most
    the rows asked for (the same sample as the in-memory engine's).
    """

    distributed = True

    def __init__(
        self,
        frame: Any,
        spec: Any,
        *,
        n_rows: int,
        partition_rows: Sequence[int] | np.ndarray,
        seeded: dict[Any, np.ndarray] | None = None,
        split_every: int = SPLIT_EVERY,
        row_filter: tuple[tuple[int, int], ...] = (),
        total: float | None = None,
    ) -> None:
        self._frame = frame
        self._spec = spec
        self.cardinalities = np.asarray(spec.cardinalities, dtype=np.int64)
        self.names = list(spec.names)
        self._position = {name: i for i, name in enumerate(self.names)}
        self._weights = None
        self.max_cells = int(spec.max_cells)
        self.chunk_size = int(spec.chunk_size)
        self._has_unknown = False  # training rows are coded from their own states: no -1
        self._cache = dict(seeded or {})
        self._n_rows = int(n_rows)
        self.partition_rows = np.asarray(partition_rows, dtype=np.int64)
        self.split_every = int(split_every)
        self._row_filter = tuple(row_filter)
        self._total = float(n_rows) if total is None else float(total)

    @property
    def n_rows(self) -> int:
        """Number of rows of the Dask DataFrame."""
        return self._n_rows

    @property
    def total(self) -> float:
        """Total weight: the number of rows (of the stratum, for :meth:`stratum`)."""
        return self._total

    def map_reduce(self, function: Callable[[CountingEngine], Any]) -> Any:
        """``function(engine)`` on an in-memory engine per partition, summed by a tree reduction.

        One distributed pass; `function` runs on the workers (it is pickled with
        cloudpickle) and returns an array, or a list of arrays, whose shape does
        not depend on the rows.
        """
        function = functools.partial(_on_partition, spec=self._spec, row_filter=self._row_filter, function=function)
        return _tree_sum(self._frame, function, self.split_every)

    # The three counting kernels of CountingEngine, each one distributed pass.
    def _count(self, positions):
        self.check_table_size(positions)
        if not positions:
            return np.array(self.total)
        return np.asarray(self.map_reduce(_call("_count", positions)), dtype=np.float64)

    def _one_way_table(self, positions, given_positions, offsets, n_strata):
        return self.map_reduce(_call("_one_way_table", positions, given_positions, offsets, n_strata))

    def _pairwise_table(self, positions, given_positions, offsets, n_strata):
        return self.map_reduce(_call("_pairwise_table", positions, given_positions, offsets, n_strata))

    def iter_chunks(self, positions=None, *, chunk_size=None):
        """Not available: the rows stay on the workers (see :meth:`map_reduce`)."""
        raise InMemoryRowsRequired(ROWS_NEEDED)

    def rows(self, positions=None):
        """Not available: the rows stay on the workers (see :meth:`sample_rows`)."""
        raise InMemoryRowsRequired(ROWS_NEEDED)

    def sample_rows(self, max_rows: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The rows :meth:`CountingEngine.sample_rows` draws (the same ones), gathered from the partitions.

        One pass; only the drawn rows (at most `max_rows`) reach the client.
        """
        if self._row_filter:
            raise InMemoryRowsRequired("A stratum of a Dask engine does not sample rows.")
        if self.n_rows <= max_rows:
            keep = np.arange(self.n_rows)
        else:
            keep = np.sort(np.random.default_rng(seed).choice(self.n_rows, int(max_rows), replace=False))
        starts = np.concatenate([[0], np.cumsum(self.partition_rows)])
        bounds = np.searchsorted(keep, starts)
        # Each partition's drawn rows (positions within it), picked inside the partition's own task.
        local = [keep[bounds[i] : bounds[i + 1]] - starts[i] for i in range(len(self.partition_rows))]
        function = functools.partial(_pick_rows, spec=self._spec, local=local)
        picked = self._frame.map_partitions(function, meta=pd.Series([], dtype=object)).to_delayed()
        import dask

        chunks = [chunk.iloc[0] for chunk in dask.compute(picked)[0]]
        if not chunks:
            return np.zeros((0, len(self.names)), dtype=np.int64), np.zeros(0)
        codes = np.concatenate(chunks).astype(np.int64)
        return codes, np.ones(len(codes))

    def stratum(self, variable: Hashable, state: int) -> CountingEngine:
        """A new engine counting only the rows where `variable` == `state` (a 0/1 weight per row)."""
        position = self.position(variable)
        if not 0 <= int(state) < int(self.cardinalities[position]):
            raise ValueError(
                f"State {state!r} is out of range for {variable!r} ({int(self.cardinalities[position])} states)."
            )
        return DaskCountingEngine(
            self._frame,
            self._spec,
            n_rows=self.n_rows,
            partition_rows=self.partition_rows,
            split_every=self.split_every,
            row_filter=self._row_filter + ((position, int(state)),),
            total=float(np.asarray(self.counts([self.names[position]]))[int(state)]),
        )


def _pick_rows(part, spec, local, partition_info=None):
    """The codes of the drawn rows of partition ``partition_info["number"]``, wrapped."""
    assert partition_info is not None
    return _wrap(spec.codes(part.iloc[local[partition_info["number"]]]))


# ---------------------------------------------------------------------------------- the states pass
def _column_summary(series, numeric_counts, labels, limit):
    """What one partition says about one column: its distinct values, missing cells, categories,
    the weight of each (value, class) pair (``"joint"``, missing values included: the one-way
    tables given the class, once the states are known), and for a numeric column a discretizer
    may cut, the same weights over the non-missing values as floats (``"value_counts"``).

    `labels` is ``(codes, values)`` of the partition's class labels (``pd.factorize``), or None.
    """
    codes, label_values = labels if labels is not None else (np.zeros(len(series), dtype=np.intp), [None])
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iu" and len(series):
        summary = _integer_summary(series.to_numpy(), numeric_counts, codes, label_values, labels is not None)
        if summary is not None:
            return summary
    summary: dict[str, Any] = {"missing": int(series.isna().sum())}
    if isinstance(series.dtype, pd.CategoricalDtype):
        summary["categories"] = list(series.cat.categories)
    values = pd.unique(series.dropna())
    if len(values) > limit:
        summary["too_many"] = True
        return summary
    summary["values"] = list(values)
    known = codes >= 0
    pairs = pd.DataFrame({"value": series.to_numpy(dtype=object)[known], "label": codes[known]})
    joint = pairs.groupby(["value", "label"], dropna=False, sort=False).size()
    summary["joint"] = _relabel(joint, label_values)
    if numeric_counts:
        floats = series.to_numpy(dtype=np.float64, na_value=np.nan)
        present = ~np.isnan(floats) & known
        keys = pd.DataFrame({"value": floats[present]})
        if labels is not None:
            keys["label"] = np.asarray(label_values, dtype=object)[codes[present]]
        summary["value_counts"] = keys.groupby(list(keys.columns), sort=False).size()
    return summary


def _relabel(counts, label_values):
    """`counts` indexed by (value, label code) re-indexed by (value, label)."""
    values = counts.index.get_level_values(0)
    labels = np.asarray(label_values, dtype=object)[counts.index.get_level_values(1).to_numpy(dtype=np.intp)]
    index = pd.MultiIndex.from_arrays([values, labels], names=["value", "label"])
    return pd.Series(counts.to_numpy(), index=index)


#: Widest range of an integer column counted by one bincount in the states pass.
_INTEGER_RANGE = 1 << 16


def _integer_summary(array, numeric_counts, codes, label_values, has_labels):
    """:func:`_column_summary` of a numpy integer column by one bincount (None for a wide range)."""
    low, high = int(array.min()), int(array.max())
    if high - low >= _INTEGER_RANGE:
        return None
    shifted = array.astype(np.int64) - low
    known = codes >= 0
    k = len(label_values)
    counts = np.bincount(shifted[known] * k + codes[known], minlength=(high - low + 1) * k).reshape(-1, k)
    values = np.flatnonzero(counts.sum(axis=1)) + low
    cells = np.nonzero(counts)
    labels = np.asarray(label_values, dtype=object)[cells[1]]
    summary = {
        "missing": 0,
        "values": list(array.dtype.type(values)),
        "joint": pd.Series(
            counts[cells],
            index=pd.MultiIndex.from_arrays([array.dtype.type(cells[0] + low), labels], names=["value", "label"]),
        ),
    }
    if numeric_counts:
        floats = (cells[0] + low).astype(np.float64)
        if has_labels:
            index = pd.MultiIndex.from_arrays([floats, labels], names=["value", "label"])
        else:
            index = pd.Index(floats, name="value")
        summary["value_counts"] = pd.Series(counts[cells], index=index)
    return summary


def _union(first, second):
    """The values of `first`, then those of `second` not in it, in order."""
    seen = set(first)
    return list(first) + [value for value in second if value not in seen]


def _partition_summary(part, columns, numeric, class_column, limit):
    labels = None if class_column is None else pd.factorize(part[class_column])
    return {
        "n_rows": [len(part)],
        "columns": [_column_summary(part[c], c in numeric, labels, limit) for c in columns],
        "classes": None if class_column is None else part[class_column].value_counts(sort=False, dropna=False),
    }


def _merge_summaries(*parts, limit):
    """Combine partition summaries (in partition order); a task of the states pass's tree."""
    first = parts[0].iloc[0]
    merged = {"n_rows": list(first["n_rows"]), "columns": [dict(c) for c in first["columns"]]}
    classes = [first["classes"]]
    for part in parts[1:]:
        other = part.iloc[0]
        merged["n_rows"].extend(other["n_rows"])
        classes.append(other["classes"])
        for column, summary in zip(merged["columns"], other["columns"]):
            column["missing"] += summary["missing"]
            if "categories" in column or "categories" in summary:
                mine, theirs = column.get("categories"), summary.get("categories")
                if mine is None or theirs is None:
                    column["mixed_categories"] = True  # categorical in some partitions only
                column["categories"] = _union(mine or [], theirs or [])
            column["mixed_categories"] = column.get("mixed_categories") or summary.get("mixed_categories")
            if column.get("too_many") or summary.get("too_many"):
                column["too_many"] = True
                for key in ("values", "value_counts", "joint"):
                    column.pop(key, None)
                continue
            column["values"] = _union(column["values"], summary["values"])
            for key in ("value_counts", "joint"):
                if key in column:
                    counts = pd.concat([column[key], summary[key]])
                    levels = list(range(counts.index.nlevels))
                    column[key] = counts.groupby(level=levels, sort=False, dropna=False).sum()
            if len(column["values"]) > limit:
                column["too_many"] = True
                for key in ("values", "value_counts", "joint"):
                    column.pop(key, None)
    merged["classes"] = (
        None if classes[0] is None else pd.concat(classes).groupby(level=0, sort=False, dropna=False).sum()
    )
    return _wrap(merged)


@dataclass(frozen=True)
class DaskTrainingData:
    """What :func:`dask_training_data` learns: the encoders, the engine and the shape.

    Attributes
    ----------
    engine : DaskCountingEngine
    encoder : TableEncoder
        The states of the attributes, as fitted on the computed frame.
    discretizer : MDLDiscretizer, EqualFrequencyDiscretizer or None
    classes : ndarray or None
    class_name : hashable or None
    columns : list
        The attribute columns.
    n_rows : int
    integer_columns_cut : tuple
        The columns of whole numbers (an integer type, or floats whose distinct
        values are all whole) that the discretizer cut.
    """

    engine: DaskCountingEngine
    encoder: TableEncoder
    discretizer: Any
    classes: np.ndarray | None
    class_name: Hashable | None
    columns: list[Hashable]
    n_rows: int
    integer_columns_cut: tuple[Hashable, ...] = ()


#: Name of the class column added to a Dask frame when `y` is a Dask Series.
_CLASS_COLUMN = "__graphmodels_class__"


def dask_training_data(
    X: Any,
    y: Any = None,
    *,
    missing: str = "value",
    max_cells: int = DEFAULT_MAX_CELLS,
    discretizer: Any = None,
    categorical: Sequence[Hashable] | None = None,
    class_name: Callable[[list[Hashable], Any], Hashable] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    split_every: int = SPLIT_EVERY,
) -> DaskTrainingData:
    """Learn the states of a Dask DataFrame in one pass and return a counting engine over it.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
        The attributes (and, when `y` names one of its columns, the class).
    y : None, column name of `X` or dask.dataframe.Series
        The class labels: a column of `X`, or a Dask Series partitioned as
        `X` (for instance ``frame["class"]`` beside ``frame.drop(columns="class")``).
    missing : {"value", "error"}
    max_cells : int
        The engine's table-size guard; also the largest number of distinct
        values a column may have (in one partition or in all).
    discretizer : None, str or discretizer
        As for :func:`graphmodels.models.training_counts`; fitted from the
        exact weight of each distinct (value, class) pair, so the cut points
        are those of a fit on the computed frame (for equal-frequency bins,
        while there are at most 10,000,000 rows: see Notes).
    categorical : list of column names, optional
        Columns the discretizer never cuts (checked by the caller: each a column of `X`).
    class_name : callable, optional
        ``class_name(attribute_names, y_name)``: the name of the class variable.

    Returns
    -------
    DaskTrainingData

    Raises
    ------
    TypeError
        If `y` is neither a column of `X` nor a Dask Series.
    ValueError
        For no rows, missing labels, missing cells with ``missing="error"``,
        or a column with more distinct values than `max_cells` (numeric
        columns: discretize them first, with ``dask.dataframe``'s quantiles).

    Notes
    -----
    The equal-frequency discretizer's quantiles are those of the repeated
    distinct values while there are at most 10,000,000 rows, as in memory;
    above that both backends take weighted quantiles of the distinct values,
    the in-memory one from all rows: the cut points may then differ by one
    distinct value.
    """
    _require_dask()
    if not is_dask_collection(X) or not hasattr(X, "columns"):
        raise TypeError(f"`X` must be a dask.dataframe.DataFrame, got {type(X).__name__}.")
    frame = X
    class_column: Hashable | None = None
    y_name: Hashable | None = None
    if y is not None:
        if is_dask_collection(y):
            if getattr(y, "ndim", 1) != 1:
                raise TypeError("`y` must be one column of labels (a dask Series or a column name), got a DataFrame.")
            y_name = getattr(y, "name", None)
            # Dask aligns `y` to `X` by index; a `y` cut into other partitions would be joined row by
            # row to another layout (missing labels, extra rows), so the partitions must match.
            frame = X.assign(**{_CLASS_COLUMN: y}) if y.npartitions == X.npartitions else None
            if frame is None or frame.npartitions != X.npartitions:
                raise ValueError(
                    f"`y` must be partitioned as `X` ({X.npartitions} partitions, got {y.npartitions}), for "
                    "instance frame['class'] beside frame.drop(columns='class'); or pass the name of a column of `X`."
                )
            class_column = _CLASS_COLUMN
        elif isinstance(y, Hashable) and not isinstance(y, (bool, np.ndarray)) and y in list(X.columns):
            class_column = y
            y_name = y
        else:
            raise TypeError(
                "With a Dask DataFrame `X`, `y` must be a dask Series partitioned as `X` or the name of a "
                f"column of `X`, got {type(y).__name__}."
            )
    columns = [c for c in frame.columns if c != class_column]
    meta = frame._meta
    binner = make_discretizer(discretizer)
    if binner is not None and not isinstance(binner, (EqualFrequencyDiscretizer, MDLDiscretizer)):
        raise TypeError(
            "`discretizer` must be a name of graphmodels.data.DISCRETIZERS, an MDLDiscretizer or an "
            f"EqualFrequencyDiscretizer, got {type(binner).__name__}."
        )
    if isinstance(binner, MDLDiscretizer) and class_column is None:
        raise ValueError("An MDLDiscretizer needs class labels: pass `y`, or use 'equal-frequency'.")
    kept = set() if categorical is None else set(categorical)
    unknown = [name for name in kept if name not in set(columns)]
    if unknown:
        raise ValueError(
            f"`categorical` names columns that are not in X: {unknown[:5]}; the columns are {columns[:10]}."
        )
    numeric = set() if binner is None else {c for c in columns if _is_numeric(meta[c]) and c not in kept}
    limit = int(max_cells)

    summary = _tree_sum(
        frame,
        functools.partial(_partition_summary, columns=columns, numeric=numeric, class_column=class_column, limit=limit),
        split_every,
        combine=functools.partial(_merge_summaries, limit=limit),
    )
    n_rows = int(sum(summary["n_rows"]))
    if n_rows == 0:
        raise ValueError("`X` has 0 rows; at least one row is needed to fit.")
    for column, column_summary in zip(columns, summary["columns"]):
        if column_summary.get("too_many"):
            hint = (
                " Cut it first (for instance at dask.dataframe's approximate quantiles, X[col].quantile([...]))"
                if _is_numeric(meta[column])
                else " Merge rare states first"
            )
            raise TableTooLargeError(
                f"Column {column!r} has more than max_cells={limit:,} distinct values; a Dask fit learns every "
                f"column's states (and a discretizer's counts per distinct value) before counting.{hint}, or drop it.",
                limit=limit,
            )
        if missing == "error" and column_summary["missing"]:
            raise ValueError(
                f"Column {column!r} has {column_summary['missing']} missing cells and "
                "missing='error'; use missing='value' to treat them as a state."
            )

    labels = classes = None
    class_counts = None
    if class_column is not None:
        counts = summary["classes"]
        if counts.index.isna().any():
            raise ValueError(f"`y` has {int(counts[counts.index.isna()].sum())} missing labels; drop those rows first.")
        labels = LabelEncoder().fit(pd.Series(list(counts.index), dtype=meta[class_column].dtype))
        classes = labels.classes_
        class_counts = np.zeros(len(classes))
        class_counts[labels.transform(pd.Series(list(counts.index), dtype=meta[class_column].dtype))] = (
            counts.to_numpy()
        )

    # The discretizer sees the columns it may cut, as in memory (categorical ones left out).
    seen = [c for c in columns if c not in kept]
    fitted = _fit_discretizer(
        binner, seen, [s for c, s in zip(columns, summary["columns"]) if c not in kept], meta, labels, limit
    )
    encoder = _fit_encoder(columns, summary["columns"], meta, fitted, missing)
    names = list(columns)
    if class_column is None:
        cards = list(encoder.cardinalities_)
    else:
        assert classes is not None
        name = y_name if class_name is None else class_name(names, y_name)
        names = names + [name]
        cards = list(encoder.cardinalities_) + [len(classes)]
    spec = _Spec(
        columns=list(columns),
        encoder=encoder,
        discretizer=fitted,
        class_column=class_column,
        labels=labels,
        cardinalities=np.asarray(cards, dtype=np.int64),
        names=names,
        max_cells=int(max_cells),
        chunk_size=int(chunk_size),
    )
    seeded: dict[Any, Any] = {}
    if class_counts is not None:
        table = np.asarray(class_counts, dtype=np.float64)
        table.flags.writeable = False
        seeded[(len(names) - 1,)] = table
    one_way = _one_way_from_summaries(columns, summary["columns"], meta, spec, n_rows)
    if one_way is not None:
        # The tables one_way_counts(given=class) would count in a pass: already counted by the states pass.
        seeded[("one-way", one_way.variables, None if class_column is None else len(names) - 1)] = one_way
    engine = DaskCountingEngine(
        frame, spec, n_rows=n_rows, partition_rows=summary["n_rows"], seeded=seeded, split_every=split_every
    )
    cut = [] if fitted is None else fitted.binned_columns_
    integer_columns_cut = tuple(
        column
        for column, summary in zip(columns, summary["columns"])
        if column in cut
        and (
            meta[column].dtype.kind in "iu"
            or all(float(value).is_integer() for value in summary.get("values", [0.5]) if value == value)
        )
    )
    return DaskTrainingData(
        engine,
        encoder,
        fitted,
        classes,
        None if class_column is None else names[-1],
        list(columns),
        n_rows,
        integer_columns_cut,
    )


def _one_way_from_summaries(columns, summaries, meta, spec, n_rows):
    """The one-way tables of every attribute (per class), from the states pass's (value, class) weights.

    Each distinct value is coded as a partition's cells are (discretizer, then encoder), so the
    table is the one a pass would count; None when a column has no weights (too many values) or
    a value does not code (then the pass counts it).
    """
    if not columns or any("joint" not in summary for summary in summaries):
        return None
    joints = [summary["joint"] for summary in summaries]
    length = max(len(joint) for joint in joints)
    cells = {}
    for column, summary, joint in zip(columns, summaries, joints):
        categories = summary.get("categories") if not summary.get("mixed_categories") else None
        series = _column_series(list(joint.index.get_level_values(0)), meta[column].dtype, categories)
        cells[column] = series.iloc[np.resize(np.arange(len(series)), length)].reset_index(drop=True)
    small = pd.DataFrame(cells)
    if spec.discretizer is not None:
        small = spec.discretizer.transform(small)
    codes = spec.encoder.transform(small)
    cards = np.asarray(spec.encoder.cardinalities_, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
    n_strata = 1 if spec.labels is None else len(spec.labels.classes_)
    table = np.zeros((n_strata, int(offsets[-1])))
    for j, joint in enumerate(joints):
        column_codes = codes[: len(joint), j].astype(np.int64)
        if (column_codes < 0).any():
            return None
        if spec.labels is None:
            strata = np.zeros(len(joint), dtype=np.int64)
        else:
            strata = spec.labels.transform(pd.Series(list(joint.index.get_level_values(1)), dtype=object))
        np.add.at(table, (strata, offsets[j] + column_codes), joint.to_numpy(dtype=np.float64))
    if not np.all(np.add.reduceat(table.sum(axis=0), offsets[:-1]) == n_rows):  # every row once per column
        return None
    table.flags.writeable = False
    return OneWayCounts(tuple(range(len(columns))), cards, offsets, table)


def _column_series(values, dtype, categories=None):
    """`values` (missing ones included) as a column of `dtype`, as a partition holds them."""
    if categories is not None:
        return pd.Series(pd.Categorical(values, categories=categories))
    try:
        return pd.Series(values, dtype=dtype)
    except (TypeError, ValueError):
        return pd.Series(values, dtype=object)


def _distinct_series(values, dtype, has_missing, categories=None):
    """A short column holding each distinct value once (and a missing cell), with the column's dtype."""
    if categories is not None:
        return pd.Series(pd.Categorical(list(values) + ([None] if has_missing else []), categories=categories))
    cells = list(values) + ([None] if has_missing else [])
    try:
        return pd.Series(cells, dtype=dtype)
    except (TypeError, ValueError):
        return pd.Series(cells, dtype=object)


def _fit_discretizer(binner, columns, summaries, meta, labels, max_cells):
    """Fit `binner` column by column from the weight of each distinct (value, class) pair."""
    if binner is None:
        return None
    binner = _for_model(binner, max_cells)
    cut_points = {}
    for column, summary in zip(columns, summaries):
        counts = summary.get("value_counts")
        if counts is None or not len(counts):
            continue
        index = counts.index.to_frame(index=False)
        values = index["value"].to_numpy(dtype=np.float64)
        weights = counts.to_numpy(dtype=np.float64)
        one = _for_model(binner, max_cells)
        part = pd.DataFrame({column: values})
        if isinstance(binner, MDLDiscretizer):
            one.fit(part, labels.transform(pd.Series(list(index["label"]))), sample_weight=weights)
        else:
            one.fit(part, sample_weight=weights)
        if column in one.cut_points_:
            cut_points[column] = one.cut_points_[column]
    if not cut_points:
        return None
    binner.feature_names_in_ = np.asarray(columns, dtype=object)
    binner.n_features_in_ = len(columns)
    binner.binned_columns_ = list(cut_points)
    binner.cut_points_ = cut_points
    if isinstance(binner, MDLDiscretizer):
        binner.classes_ = np.arange(len(labels.classes_))
    return binner


def _fit_encoder(columns, summaries, meta, discretizer, missing):
    """The TableEncoder a fit on the computed frame learns, from each column's distinct values."""
    series = {}
    for column, summary in zip(columns, summaries):
        categories = None
        if "categories" in summary and not summary.get("mixed_categories"):
            categories = summary["categories"]
        series[column] = _distinct_series(summary["values"], meta[column].dtype, summary["missing"] > 0, categories)
    length = max([len(s) for s in series.values()] + [1])
    # Every column repeats its distinct values up to one length: the set of values is what counts.
    small = pd.DataFrame(
        {
            c: s.iloc[np.resize(np.arange(len(s)), length)].reset_index(drop=True) if len(s) else s
            for c, s in series.items()
        }
    )
    if discretizer is not None:
        small = discretizer.transform(small)
    return TableEncoder(missing=missing).fit(small)


# ---------------------------------------------------------------------------------- predictions
def lazy_rows(X: Any, function: Callable[[pd.DataFrame], np.ndarray], n_columns: int | None, dtype: Any) -> Any:
    """``function`` applied to each partition of `X`, as a lazy dask array.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
    function : callable
        Takes a pandas partition and returns an array of one row (or value) per row.
    n_columns : int or None
        Width of the result (None: one value per row).
    dtype : dtype of the result

    Returns
    -------
    dask.array.Array of shape (n_rows,) or (n_rows, n_columns)
        Computed partition by partition; chunk lengths unknown until computed.
    """
    _require_dask()
    if not is_dask_collection(X) or not hasattr(X, "map_partitions"):
        raise TypeError(f"Expected a dask.dataframe.DataFrame, got {type(X).__name__}.")
    if n_columns is None:

        def as_series(part):
            return pd.Series(function(part), index=part.index, dtype=dtype)

        return X.map_partitions(as_series, meta=pd.Series([], dtype=dtype)).to_dask_array()

    def as_table(part):
        return pd.DataFrame(np.asarray(function(part), dtype=dtype), index=part.index, columns=range(n_columns))

    meta = pd.DataFrame(np.empty((0, n_columns), dtype=dtype), columns=range(n_columns))
    return X.map_partitions(as_table, meta=meta).to_dask_array()
