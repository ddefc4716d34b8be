"""Step records of the structure searches ("learning traces"), written once.

A learner called with ``trace=True`` builds a :class:`Trace`, adds one row per
step of its search and returns ``trace.frame()`` (a pandas DataFrame) beside
its structure; with ``trace=False`` it holds ``None`` instead, and every
recording statement of a hot loop sits behind ``if record is not None:``, so
that a search that is not traced does no work for the trace at all.

Every trace has the columns ``step`` (int, from 0, in the order the search
took the steps), ``action`` (str: ``"accept"``, ``"reject"``, ...), ``item``
(what the step is about: an edge tuple, a hyperedge or region frozenset, a
pair of latent children), ``score`` (float: the weight, gain or score the
search compared; NaN where a step has none) and ``reason`` (str), then the
learner's own columns (documented in each learner's docstring).

This module imports nothing of the package: every layer may use it (the
region graphs of ``structures`` as well as the ``learners`` and ``models``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BASE_COLUMNS", "Trace", "combine_traces", "new_trace", "root_rows", "traced"]

#: The columns every trace starts with.
BASE_COLUMNS = ("step", "action", "item", "score", "reason")

#: Cell types of a column made boolean, or float (None becoming NaN).
_BOOLEANS = {bool, np.bool_}
_NUMBERS = {int, float, np.int64, np.int32, np.float64, np.float32}


class Trace:
    """Rows of one search, each a dict; :meth:`frame` makes the DataFrame.

    Parameters
    ----------
    *columns : str
        The learner's own columns, after :data:`BASE_COLUMNS`.
    integers : iterable of str, optional
        Those of `columns` that hold integers or nothing (pandas' nullable
        ``Int64``, rather than floats with NaN).
    leading : iterable of str, optional
        Columns that come right after ``step`` (``class`` for a model that
        runs one search per class).
    """

    __slots__ = ("rows", "columns", "integers")

    def __init__(self, *columns: str, integers: Iterable[str] = (), leading: Iterable[str] = ()) -> None:
        self.rows: list[dict[str, Any]] = []
        first = tuple(leading)
        self.columns = ("step", *first, *BASE_COLUMNS[1:]) + tuple(
            c for c in columns if c not in BASE_COLUMNS and c not in first
        )
        self.integers = tuple(integers)

    def label(self, start: int, **values: Any) -> None:
        """Set `values` on the rows from `start` on (the rows a search added: its class, say)."""
        for row in self.rows[start:]:
            row.update(values)

    def __len__(self) -> int:
        return len(self.rows)

    def add(
        self, action: str, item: Any = None, score: float = math.nan, reason: str = "", **values: Any
    ) -> dict[str, Any]:
        """Append one step; returns its row, which the caller may still complete (a score known later)."""
        row = {"step": len(self.rows), "action": action, "item": item, "score": score, "reason": reason, **values}
        self.rows.append(row)
        return row

    def extend(self, frame: pd.DataFrame, **values: Any) -> None:
        """Append the rows of another trace (renumbered), with `values` as extra columns."""
        names = [str(c) for c in frame.columns]
        # Column by column (DataFrame.to_dict("records") is several times slower).
        columns = [frame[c].tolist() for c in frame.columns]
        for cells in zip(*columns):
            row = dict(zip(names, cells))
            row.update(values)
            row["step"] = len(self.rows)
            self.rows.append(row)
        self.columns += tuple(c for c in names + list(values) if c not in self.columns)
        self.integers += tuple(c for c in names if str(frame[c].dtype) == "Int64" and c not in self.integers)

    def frame(self) -> pd.DataFrame:
        """The steps as a DataFrame: one row per step, the columns in their declared order."""
        import pandas as pd

        columns = list(self.columns) + sorted({k for row in self.rows for k in row} - set(self.columns), key=str)
        data: dict[str, Any] = {}
        for name in columns:
            values = [row.get(name) for row in self.rows]
            if name == "step":
                data[name] = np.arange(len(values), dtype=np.int64)
            elif name == "score":
                data[name] = np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
            elif name in self.integers:
                data[name] = pd.array(values, dtype="Int64")
            elif name in ("action", "reason"):
                data[name] = np.array(["" if v is None else str(v) for v in values], dtype=object)
            elif (kinds := {type(v) for v in values}) and kinds <= _BOOLEANS:
                data[name] = np.array(values, dtype=bool)
            elif kinds and kinds <= _NUMBERS | {type(None)} and kinds != {type(None)}:
                data[name] = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
            else:
                column = np.empty(len(values), dtype=object)
                column[:] = values  # element by element: a tuple stays one cell
                data[name] = column
        return pd.DataFrame(data, columns=columns)


def new_trace(trace: Any, owner: str, *columns: str, integers: Iterable[str] = ()) -> Trace | None:
    """A :class:`Trace` when `trace` is True, None when False; anything else is refused.

    Raises
    ------
    TypeError
        For a `trace` that is not a bool, naming `owner`.
    """
    if not isinstance(trace, (bool, np.bool_)):
        raise TypeError(f"`trace` must be True or False, got {trace!r} ({owner}).")
    return Trace(*columns, integers=integers) if trace else None


def traced(result: Any, record: Trace | None) -> Any:
    """`result` alone when not tracing; ``(result, frame)`` (or `result` + ``(frame,)`` for a tuple) when tracing."""
    if record is None:
        return result
    if isinstance(result, tuple):
        return (*result, record.frame())
    return result, record.frame()


def root_rows(record: Trace, directed: Any, key: Mapping[Hashable, float], reason: str, **values: Any) -> None:
    """One ``"root"`` step per tree of an oriented forest (the nodes marked ``root=True`` by ``orient_forest``).

    ``score`` is the node's `key` (the quantity the root maximizes).
    """
    for node, is_root in directed.nodes(data="root"):
        if is_root:
            record.add("root", node, float(key[node]), reason, **values)


def combine_traces(parts: Sequence[tuple[pd.DataFrame, Mapping[str, Any]]]) -> pd.DataFrame:
    """One trace from several, each with constant extra columns (``{"class": label}``); steps renumbered.

    The extra columns come right after ``step``.
    """
    record = Trace()
    extra: list[str] = []
    for frame, values in parts:
        record.extend(frame, **values)
        extra += [name for name in values if name not in extra]
    frame = record.frame()
    ordered = ["step", *extra, *[c for c in frame.columns if c != "step" and c not in extra]]
    return frame[ordered]
