"""Multi-label tables: split the label columns from the attributes, read a CSV.

A multi-label (multi-dimensional) data set has one column per label
``C_1..C_m`` next to the attributes ``A_1..A_n``. The MULAN-derived sets of the
project (``emotions``) carry their labels last, with names prefixed
``label_``; :func:`read_multilabel` reads such a file and :func:`split_labels`
splits any in-memory table, by a name prefix or by an explicit list.

Values are kept as they are: 0/1 integer labels stay integers, strings stay
strings, and the attribute columns keep their types and order.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from typing import IO

import pandas as pd

__all__ = ["split_labels", "read_multilabel"]

#: Name prefix of the label columns in the project's multi-label files.
DEFAULT_PREFIX = "label_"


def _label_list(labels):
    """`labels` as a list of column names (a single name becomes a list of one)."""
    if isinstance(labels, (str, bytes)) or not pd.api.types.is_list_like(labels):
        return [labels]
    return list(labels)


def split_labels(
    table: pd.DataFrame, *, labels: Sequence[Hashable] | Hashable | None = None, prefix: str | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a table into attributes `X` and the label table `Y`.

    Exactly one of `labels` and `prefix` chooses the label columns.

    Parameters
    ----------
    table : DataFrame of shape (n_rows, n_attributes + n_labels)
        Attributes and labels side by side; column names must be unique.
    labels : list of column names, or one column name, optional
        The label columns, by name (any hashable names: spaces, ``#`` and
        non-ASCII characters are fine). `Y` has them in this order.
    prefix : str, optional
        Every column whose name is a string starting with `prefix` is a
        label. `Y` has them in table order.

    Returns
    -------
    X : DataFrame of shape (n_rows, n_attributes)
        The other columns, in table order, with the table's index.
    Y : DataFrame of shape (n_rows, n_labels)
        The label columns with their values unchanged, with the table's index.

    Raises
    ------
    TypeError
        If `table` is not a DataFrame or `prefix` is not a string.
    ValueError
        If both or neither of `labels` and `prefix` are given; if `labels`
        is empty, repeats a name or names columns the table does not have; if
        no column starts with `prefix`; if no attribute column is left; if the
        table has duplicate column names.

    See Also
    --------
    read_multilabel : read a CSV file and split it.

    References
    ----------
    .. [1] Tsoumakas, G., Spyromitros-Xioufis, E., Vilcek, J., & Vlahavas, I.
           (2011). MULAN: A Java library for multi-label learning. *Journal of
           Machine Learning Research*, 12, 2411-2414. (The file format whose
           label columns are named in a separate list.)

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> table = pd.DataFrame({
    ...     "tempo": rng.normal(120, 10, size=4).round(1),
    ...     "label_happy": [1, 0, 0, 1],
    ...     "mode": ["major", "minor", "minor", "major"],
    ...     "label_sad": [0, 1, 1, 0],
    ... })
    >>> X, Y = split_labels(table, prefix="label_")
    >>> list(X.columns), list(Y.columns)
    (['tempo', 'mode'], ['label_happy', 'label_sad'])
    >>> Y.to_numpy().tolist()
    [[1, 0], [0, 1], [0, 1], [1, 0]]
    >>> X, Y = split_labels(table, labels=["label_sad", "mode"])
    >>> list(X.columns), list(Y.columns)
    (['tempo', 'label_happy'], ['label_sad', 'mode'])
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"`table` must be a pandas DataFrame, got {type(table).__name__}.")
    if (labels is None) == (prefix is None):
        got = "both" if labels is not None else "neither"
        raise ValueError(f"Give exactly one of `labels` (column names) and `prefix` (a name prefix); got {got}.")
    if table.columns.has_duplicates:
        duplicated = table.columns[table.columns.duplicated()].unique().tolist()
        raise ValueError(f"`table` has duplicate column names: {duplicated[:10]}.")
    columns = list(table.columns)
    if prefix is not None:
        if not isinstance(prefix, str):
            raise TypeError(f"`prefix` must be a string, got {type(prefix).__name__} {prefix!r}.")
        chosen = [c for c in columns if isinstance(c, str) and c.startswith(prefix)]
        if not chosen:
            raise ValueError(f"No column name starts with prefix {prefix!r}; columns are {columns[:20]}.")
    else:
        chosen = _label_list(labels)
        if not chosen:
            raise ValueError("`labels` is empty; name at least one label column.")
        seen, repeated = set(), []
        for name in chosen:
            if name in seen:
                repeated.append(name)
            seen.add(name)
        if repeated:
            raise ValueError(f"`labels` names column(s) {repeated[:10]} more than once.")
        unknown = [name for name in chosen if name not in table.columns]
        if unknown:
            raise ValueError(f"Unknown label column(s) {unknown[:10]}; columns are {columns[:20]}.")
    chosen_set = set(chosen)
    attributes = [c for c in columns if c not in chosen_set]
    if not attributes:
        raise ValueError(f"No attribute column is left: all {len(columns)} column(s) were chosen as labels.")
    return table[attributes], table[chosen]


def read_multilabel(
    path: str | os.PathLike[str] | IO[str] | IO[bytes] | pd.DataFrame,
    *,
    labels: Sequence[Hashable] | Hashable | None = None,
    prefix: str | None = DEFAULT_PREFIX,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a multi-label CSV file (gzip or not) as attributes `X` and labels `Y`.

    Parameters
    ----------
    path : str, path-like, file-like or DataFrame
        A CSV file with a header row, read by :func:`pandas.read_csv`
        (compression inferred from the name, e.g. ``.csv.gz``); only empty
        cells are missing, as in the bundled data sets. A DataFrame is split
        as it is.
    labels : list of column names, or one column name, optional
        The label columns, by name. When given, `prefix` is not used.
    prefix : str, default ``"label_"``
        The label columns' name prefix (used when `labels` is None).

    Returns
    -------
    X : DataFrame of shape (n_rows, n_attributes)
    Y : DataFrame of shape (n_rows, n_labels)
        See :func:`split_labels`.

    Raises
    ------
    ValueError
        If `labels` and a prefix other than the default are both given, or as
        :func:`split_labels`.

    See Also
    --------
    split_labels

    Notes
    -----
    The project's copy of MULAN's ``emotions`` (593 rows, 72 numeric
    attributes, 6 binary labels named ``label_*``) is not bundled, as it has
    no clear licence; point `path` at your own copy.

    Examples
    --------
    >>> import io
    >>> text = "x,colour,label_a,label_b\\n0.5,red,1,0\\n1.5,blue,0,0\\n"
    >>> X, Y = read_multilabel(io.StringIO(text))
    >>> list(X.columns), list(Y.columns), Y.dtypes.tolist()
    (['x', 'colour'], ['label_a', 'label_b'], [dtype('int64'), dtype('int64')])
    >>> X, Y = read_multilabel(io.StringIO(text), labels=["label_b"])
    >>> list(X.columns), Y.to_numpy().tolist()
    (['x', 'colour', 'label_a'], [[0], [0]])
    """
    if labels is not None:
        if prefix is not None and prefix != DEFAULT_PREFIX:
            raise ValueError(f"Give `labels` or `prefix`, not both; got labels={labels!r} and prefix={prefix!r}.")
        prefix = None
    if isinstance(path, pd.DataFrame):
        table = path
    else:
        if not (isinstance(path, (str, os.PathLike)) or hasattr(path, "read")):
            raise TypeError(f"`path` must be a file path, a file object or a DataFrame, got {type(path).__name__}.")
        table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return split_labels(table, labels=labels, prefix=prefix)
