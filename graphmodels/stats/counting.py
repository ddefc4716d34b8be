"""The counting engine: every contingency table graphmodels needs.

Counts are sums over rows, so the engine reads the data in row chunks and adds
the chunk tables up. Memory stays bounded by the chunk size and the table
size, never by the number of rows, and another backend (for instance one that
counts the partitions of a Dask DataFrame) only has to yield chunks: see
:meth:`CountingEngine.iter_chunks`. Learners and estimators only ever see the
engine's tables, never the raw rows.

:class:`~graphmodels.stats.DaskCountingEngine` (``graphmodels.stats.dask_counting``)
answers the same queries over the partitions of a Dask DataFrame: it runs this
engine's own counting on each partition and adds the tables up, so that every
count-based model fits from a Dask DataFrame with the same tables.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from typing_extensions import Self

from .._memory import DEFAULT_MAX_CELLS, TableTooLargeError, check_cells, describe_variables
from .._threads import one_blas_thread
from ..data.encoding import TableEncoder
from ..data.weights import check_sample_weight as _check_sample_weight

__all__ = [
    "CountingEngine",
    "PairwiseCounts",
    "OneWayCounts",
    "TableTooLargeError",
    "InMemoryRowsRequired",
    "DEFAULT_MAX_CELLS",
]

#: Rows per chunk; float32 one-hot products are exact up to 2**24 per cell.
DEFAULT_CHUNK_SIZE = 1 << 16

#: Most cells of the index block of one chunk of a batched one-way table (32 MiB).
_ONE_WAY_INDEX_CELLS = 1 << 22

#: Most cells (rows x variables) of an engine whose weights it keeps tiled for its batched one-way tables (32 MiB).
_TILED_WEIGHT_CELLS = 1 << 22


#: Cells of one chunk's one-hot matrix (64 MB of float32).
_ONE_HOT_CELLS = 1 << 24

#: Most cells of the one-hot matrix of every row an engine keeps for refine_pairwise_counts (16 MB).
_KEPT_ONE_HOT_CELLS = 1 << 22


class InMemoryRowsRequired(TypeError):
    """A fit needs the rows themselves, not only their tables, and the engine keeps them elsewhere (Dask)."""


@dataclass(frozen=True)
class PairwiseCounts:
    """All two-way tables of a set of variables, as one block matrix.

    Attributes
    ----------
    variables : tuple of int
        The variables, in block order.
    cardinalities : ndarray of shape (n_variables,)
    offsets : ndarray of shape (n_variables + 1,)
        Block ``i`` spans rows/columns ``offsets[i]:offsets[i+1]``.
    table : ndarray of shape (n_strata, K, K)
        ``table[s, offsets[i] + a, offsets[j] + b]`` is the (weighted) number
        of rows of stratum ``s`` with ``X_i = a`` and ``X_j = b``, where
        ``K = sum(cardinalities)``. There is one stratum (the whole data)
        without conditioning, else one per state of the conditioning variable.
        Diagonal blocks hold the one-way counts on their diagonals.
    integer : bool, default=False
        Whether the counts are whole numbers of rows (no sample weights), so
        that sums of them are exact.
    """

    variables: tuple[int, ...]
    cardinalities: np.ndarray
    offsets: np.ndarray
    table: np.ndarray
    integer: bool = False

    def block(self, i: int, j: int) -> np.ndarray:
        """The table of the ``i``-th and ``j``-th variables (positions), shape (n_strata, r_i, r_j)."""
        o = self.offsets
        return self.table[:, o[i] : o[i + 1], o[j] : o[j + 1]]


@dataclass(frozen=True)
class OneWayCounts:
    """The one-way tables of a set of variables, side by side.

    ``table[s, offsets[i] + a]`` is the (weighted) number of rows of stratum
    ``s`` with ``X_i = a``.
    """

    variables: tuple[int, ...]
    cardinalities: np.ndarray
    offsets: np.ndarray
    table: np.ndarray

    def block(self, i: int) -> np.ndarray:
        """The table of the ``i``-th variable (position in `variables`), shape (n_strata, r_i)."""
        return self.table[:, self.offsets[i] : self.offsets[i + 1]]


class CountingEngine:
    """Cached, chunked contingency tables over the columns of a coded table.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_variables)
        Integer codes, column ``j`` in ``0 .. cardinalities[j] - 1``. A code
        of ``-1`` (unknown) drops the row from every table that involves
        that variable.
    cardinalities : sequence of int, length n_variables
        Number of states of each variable (states with zero count included).
    names : sequence, optional
        Variable names; queries may use names or positions. Defaults to
        ``0 .. n_variables - 1``.
    sample_weight : ndarray of shape (n_rows,), optional
        Non-negative row weights; counts become sums of weights.
    max_cells : int, default=10_000_000
        Largest table (in cells) the engine will allocate; a larger request
        raises :class:`TableTooLargeError` naming the variables, before any
        allocation.
    chunk_size : int, default=65536
        Rows counted at a time.

    See Also
    --------
    graphmodels.stats.entropy, graphmodels.stats.mutual_information

    Examples
    --------
    >>> import numpy as np
    >>> engine = CountingEngine(np.array([[0, 1], [1, 1], [1, 0]]), [2, 2], names=["a", "b"])
    >>> engine.counts(["a", "b"]).tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    >>> engine.counts(["b"]).tolist()
    [1.0, 2.0]
    """

    #: State labels of each variable, set by :meth:`from_frame` (absent otherwise).
    levels: list[list[Any]]

    def __init__(
        self,
        codes: ArrayLike,
        cardinalities: ArrayLike,
        *,
        names: Sequence[Hashable] | None = None,
        sample_weight: ArrayLike | None = None,
        max_cells: int = DEFAULT_MAX_CELLS,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        codes = np.asarray(codes)
        if codes.ndim != 2:
            raise ValueError(f"`codes` must be 2-dimensional, got shape {codes.shape}.")
        if codes.dtype.kind not in "iu":
            raise TypeError(f"`codes` must hold integers, got dtype {codes.dtype}.")
        cardinalities = np.asarray(cardinalities, dtype=np.int64)
        if cardinalities.shape != (codes.shape[1],):
            raise ValueError(
                f"`cardinalities` must have one entry per column ({codes.shape[1]}), "
                f"got {cardinalities.shape[0] if cardinalities.ndim else 'a scalar'}."
            )
        if (cardinalities < 1).any():
            raise ValueError("Every cardinality must be >= 1.")
        if codes.size and (codes.max(axis=0) >= cardinalities).any():
            bad = int(np.flatnonzero(codes.max(axis=0) >= cardinalities)[0])
            raise ValueError(
                f"Column {bad} has code {int(codes[:, bad].max())} but cardinality {int(cardinalities[bad])}."
            )
        if codes.size and codes.min() < -1:
            raise ValueError("Codes must be >= -1 (-1 marks an unknown cell).")
        names = list(range(codes.shape[1])) if names is None else list(names)
        if len(names) != codes.shape[1]:
            raise ValueError(f"`names` has {len(names)} entries for {codes.shape[1]} columns.")
        if len(set(names)) != len(names):
            raise ValueError("`names` must be unique.")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, codes.shape[0])
        if int(max_cells) < 1:
            raise ValueError(f"`max_cells` must be >= 1, got {max_cells}.")
        if int(chunk_size) < 1:
            raise ValueError(f"`chunk_size` must be >= 1, got {chunk_size}.")
        self._codes = codes
        self.cardinalities = cardinalities
        self.names = names
        self._position = {name: i for i, name in enumerate(names)}
        self._weights = sample_weight
        self.max_cells = int(max_cells)
        self.chunk_size = int(chunk_size)
        self._has_unknown = bool(codes.size and codes.min() < 0)
        self._cache: dict[Any, Any] = {}
        self._tiled: dict[tuple[int, int], np.ndarray] = {}
        self._kept_one_hot: tuple[tuple[int, ...], np.ndarray] | None = None

    # ------------------------------------------------------------------ basics
    @classmethod
    def from_frame(cls, frame: pd.DataFrame | ArrayLike, *, missing: str = "value", **kwargs: Any) -> Self:
        """Encode a DataFrame (see :class:`~graphmodels.data.TableEncoder`) and count it."""
        encoder = TableEncoder(missing=missing)
        codes = encoder.fit_transform(frame)  # each column hashed once
        engine = cls(codes, encoder.cardinalities_, names=encoder.columns_, **kwargs)
        engine.levels = encoder.levels_
        return engine

    @property
    def n_variables(self) -> int:
        """Number of variables (columns)."""
        return len(self.names)

    @property
    def n_rows(self) -> int:
        """Number of rows of data."""
        return self._codes.shape[0]

    @property
    def has_unknown(self) -> bool:
        """True when some cell is coded -1 (unknown), so tables may count different rows."""
        return self._has_unknown

    @property
    def total(self) -> float:
        """Total weight: the number of rows, or the sum of the sample weights."""
        if self._weights is None:
            return float(self.n_rows)
        return float(self._weights.sum())

    def position(self, variable: Hashable) -> int:
        """Column position of a variable given by name or, if not a name, by position."""
        # Names come first; an integer that is not a name is a position.
        try:
            if variable in self._position:
                return self._position[variable]
        except TypeError:
            pass
        if isinstance(variable, (int, np.integer)) and not isinstance(variable, bool):
            if 0 <= variable < self.n_variables:
                return int(variable)
        raise KeyError(f"Unknown variable {variable!r}; known variables: {self.names[:20]}.")

    def positions(self, variables: Hashable | Iterable[Hashable]) -> tuple[int, ...]:
        """Positions of a sequence of variables (a single name, even a tuple, is one variable)."""
        if isinstance(variables, (str, bytes)) or not np.iterable(variables) or self._is_name(variables):
            # One variable (a name or a position), whatever its type: mypy cannot narrow the union here.
            return (self.position(variables),)  # type: ignore[arg-type]
        return tuple(self.position(v) for v in variables)

    def _is_name(self, variable):
        """True when `variable` is one of the names (a tuple name is a name, not a sequence)."""
        try:
            return isinstance(variable, tuple) and variable in self._position
        except TypeError:  # a tuple holding something unhashable
            return False

    def cardinality(self, variable: Hashable) -> int:
        """Number of states of one variable."""
        return int(self.cardinalities[self.position(variable)])

    def check_table_size(
        self, positions: Sequence[int], *, n_tables: int = 1, what: str = "table", fix: str | None = None
    ) -> int:
        """The cells of the table over `positions` (times `n_tables`), checked against ``max_cells``.

        Call it before allocating the table. `fix` says what besides a larger
        ``max_cells`` would make it fit (``"lower k="``); by default, fewer states.

        Raises
        ------
        TableTooLargeError
            If the table would exceed ``max_cells``; the message names the
            variables and their numbers of states.
        """
        cells = math.prod(int(self.cardinalities[p]) for p in positions) * n_tables
        described = describe_variables([self.names[p] for p in positions], self.cardinalities[list(positions)])
        return self.check_cells(cells, what=f"{what} over {described}", fix=fix)

    def check_cells(self, cells: int, *, what: str, fix: str | None = None) -> int:
        """:func:`graphmodels._memory.check_cells` with this engine's ``max_cells`` (before allocating `cells`)."""
        if fix is None:
            return check_cells(cells, self.max_cells, what=what)
        return check_cells(cells, self.max_cells, what=what, fix=fix)

    def iter_chunks(
        self, positions: Iterable[int] | None = None, *, chunk_size: int | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        """Yield ``(codes, weights)`` row chunks; ``weights`` is None when unweighted.

        Codes are stored in the smallest integer type; chunks come as int64
        so that index arithmetic cannot overflow.

        This is the only place that touches the rows: another backend
        overrides it to count partitions that never sit in one array.
        """
        columns = slice(None) if positions is None else list(positions)
        step = self.chunk_size if chunk_size is None else max(1, min(int(chunk_size), self.chunk_size))
        for start in range(0, self.n_rows, step):
            stop = start + step
            weights = None if self._weights is None else self._weights[start:stop]
            # Slice the rows first: selecting columns of the whole array would
            # copy every row at once and defeat the chunking.
            yield self._codes[start:stop, columns].astype(np.int64), weights

    def rows(self, positions: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """All rows at once: ``(codes, weights)``, int64 codes of shape (n_rows, n_columns)
        and float64 weights of shape (n_rows,) (ones when unweighted).

        For learners that need the rows themselves (wrappers, per-row scores);
        built on :meth:`iter_chunks`.
        """
        width = self.n_variables if positions is None else len(list(positions))
        codes, weights = [], []
        for chunk, w in self.iter_chunks(positions):
            codes.append(chunk)
            weights.append(np.ones(len(chunk)) if w is None else w)
        if not codes:
            return np.zeros((0, width), dtype=np.int64), np.zeros(0)
        return np.concatenate(codes), np.concatenate(weights)

    def sample_rows(self, max_rows: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """At most `max_rows` rows: all of them, or a sample drawn without replacement with `seed`.

        The sample is the rows at ``np.sort(np.random.default_rng(seed).choice(n_rows,
        max_rows, replace=False))``, so every backend draws the same rows from the same data.

        Returns
        -------
        codes : ndarray of shape (n_sampled, n_variables), int64
        weights : ndarray of shape (n_sampled,), float64 (ones when unweighted)
        """
        if self.n_rows <= max_rows:
            return self.rows()
        keep = np.sort(np.random.default_rng(seed).choice(self.n_rows, int(max_rows), replace=False))
        weights = np.ones(len(keep)) if self._weights is None else self._weights[keep]
        return self._codes[keep].astype(np.int64), weights

    #: Whether the rows live outside this process (another backend, such as
    #: :class:`~graphmodels.stats.DaskCountingEngine`): then each query is a pass
    #: over the data, and :meth:`rows` is not available.
    distributed = False

    def map_reduce(self, function: Any) -> Any:
        """``function(engine)`` summed over the parts of the rows; here the rows are one part.

        `function` takes an in-memory :class:`CountingEngine` and returns an
        array (or a list of arrays) of a shape that does not depend on the rows;
        a backend whose rows are split into partitions calls it on an engine per
        partition and adds the results up (element by element for a list).
        Counts are sums over rows, so both give the same tables.
        """
        return function(self)

    # ------------------------------------------------------------------ tables
    def counts(self, variables: Hashable | Sequence[Hashable]) -> np.ndarray:
        """Contingency table of `variables`, in the order given.

        Parameters
        ----------
        variables : sequence of names or positions (or a single one)

        Returns
        -------
        table : ndarray of shape ``(r_1, ..., r_k)``, float64, read-only
            Weighted counts; an empty sequence gives the total as a 0-d array.
        """
        positions = self.positions(variables)
        if len(set(positions)) != len(positions):
            raise ValueError(f"Variables repeat in the query {[self.names[p] for p in positions]}.")
        order = tuple(sorted(positions))
        table = self._cache.get(order)
        if table is None:
            table = self._from_batched(order)
            if table is None:
                table = self._count(order)
            table.flags.writeable = False
            self._cache[order] = table
        if order != positions:
            table = np.transpose(table, [order.index(p) for p in positions])
        return table

    def occupied_counts(
        self, given: Sequence[Hashable], variables: Sequence[Hashable]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The table of `variables` in each configuration of `given` that some counted row holds.

        ``counts([*given, *variables])`` without the configurations of `given` that no row
        holds: for many configurations and few rows (a family of five parents on a hundred
        rows), its cost grows with the rows, not with the table. Each cell is summed as
        :meth:`counts` sums it, so the values are the table's, bit for bit.

        Parameters
        ----------
        given : sequence of names or positions
            May be empty (one configuration, held by every row).
        variables : sequence of names or positions

        Returns
        -------
        configurations : ndarray of int64, shape (n_held,)
            The held configurations, sorted, each as its flat index in the table of `given`
            (``np.ravel_multi_index`` of the states, the last variable fastest).
        table : ndarray of shape (n_held, r_1, ..., r_k)
            ``table[u]`` is the table of `variables` over the rows in configuration
            ``configurations[u]``.
        """
        given_positions = self.positions(given) if len(given) else ()
        positions = self.positions(variables)
        every = (*given_positions, *positions)
        if len(set(every)) != len(every):
            raise ValueError(f"Variables repeat in the query {[self.names[p] for p in every]}.")
        shape = tuple(int(self.cardinalities[p]) for p in positions)
        given_strides = _strides([int(self.cardinalities[p]) for p in given_positions])
        strides = _strides(shape)
        keys, cells, chunk_weights = [], [], []
        for codes, weights in self.iter_chunks(every):
            if self._has_unknown:
                keep = (codes >= 0).all(axis=1)
                codes, weights = codes[keep], None if weights is None else weights[keep]
            keys.append(codes[:, : len(given_positions)] @ given_strides)
            cells.append(codes[:, len(given_positions) :] @ strides)
            chunk_weights.append(weights)
        configurations = np.unique(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
        n_states = math.prod(shape)
        n_cells = self.check_cells(len(configurations) * n_states, what="table of the held configurations")
        flat = np.zeros(n_cells)
        for key, cell, weights in zip(keys, cells, chunk_weights):
            index = np.searchsorted(configurations, key) * n_states + cell
            flat += np.bincount(index, weights=weights, minlength=n_cells)
        return configurations, flat.reshape(len(configurations), *shape)

    def _count(self, positions):
        shape = tuple(int(self.cardinalities[p]) for p in positions)
        n_cells = self.check_table_size(positions)
        if not positions:
            return np.array(self.total)
        flat = np.zeros(n_cells, dtype=np.float64)
        strides = _strides(shape)
        for codes, weights in self.iter_chunks(positions):
            index = codes @ strides if len(positions) > 1 else codes[:, 0].astype(np.int64)
            if self._has_unknown:
                keep = (codes >= 0).all(axis=1)
                index = index[keep]
                weights = None if weights is None else weights[keep]
            flat += np.bincount(index, weights=weights, minlength=n_cells)
        # Read-only to its root: a cached table never changes, so a view of it names it (selection's digests).
        flat.flags.writeable = False
        return flat.reshape(shape)

    def _from_batched(self, order):
        """Answer a query of one to three variables from cached batched tables.

        The one-way tables (:meth:`one_way_counts`) and the pairwise block
        matrices (:meth:`pairwise_counts`) already hold every table of one
        variable, of a variable with the conditioning variable(s), of two
        variables and of two variables with the conditioning variable(s).
        Only used without unknown codes, where every block counts the same rows.
        """
        if self._has_unknown or not order:
            return None
        for key, value in self._cache.items():
            if not (isinstance(key, tuple) and key and key[0] in ("pairs", "one-way")):
                continue
            _, positions, given = key
            if isinstance(given, tuple):
                table = _from_joint_strata(key[0], positions, given, value, order, self.cardinalities)
                if table is not None:
                    return table
                continue
            if len(order) > 3:
                continue
            rest = [p for p in order if p != given]
            strata = given is not None and given in order
            if not rest or len(rest) > 2 or not set(rest) <= set(positions) or len(rest) + strata != len(order):
                continue
            if key[0] == "one-way" and len(rest) != 1:
                continue
            index = [positions.index(p) for p in rest]
            if key[0] == "one-way":
                table = value.block(index[0])  # (strata, r)
            elif len(rest) == 1:
                block = value.block(index[0], index[0])
                table = np.diagonal(block, axis1=1, axis2=2)
            else:
                table = value.block(index[0], index[1])
            if not strata:
                table = table.sum(axis=0)
                return np.array(table, dtype=np.float64)
            # Put the stratum axis where the conditioning variable sorts.
            table = np.moveaxis(table, 0, order.index(given))
            return np.array(table, dtype=np.float64)
        return None

    def _batch_layout(self, kind, variables, given):
        """Cache key, positions, conditioning positions, cardinalities, block offsets, strata.

        `given` is None, one variable, or a sequence of variables whose joint
        configurations are the strata (mixed radix, the last fastest).
        """
        if given is None:
            given_positions = ()
        elif isinstance(given, (list, tuple)) and not self._is_name(given):
            given_positions = self.positions(given)
            if len(set(given_positions)) != len(given_positions):
                raise ValueError(f"The conditioning variables repeat: {list(given)}.")
        else:
            given_positions = (self.position(given),)
        if variables is None:
            positions = tuple(p for p in range(self.n_variables) if p not in given_positions)
        else:
            positions = self.positions(variables)
        overlap = [self.names[p] for p in given_positions if p in positions]
        if overlap:
            raise ValueError(f"The conditioning variable {overlap[0]!r} is also among the variables.")
        cards = self.cardinalities[list(positions)]
        offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        n_strata = math.prod(int(self.cardinalities[p]) for p in given_positions)
        # One conditioning variable keeps its plain position in the key, which
        # _from_batched reads; a joint stratum is keyed by the tuple.
        given_key = (
            None if not given_positions else (given_positions[0] if len(given_positions) == 1 else given_positions)
        )
        return (kind, positions, given_key), positions, given_positions, cards, offsets, n_strata

    def _strata(self, codes, given_positions):
        """Stratum index of each row from its last ``len(given_positions)`` columns (-1 if any is unknown)."""
        tail = codes[:, codes.shape[1] - len(given_positions) :]
        strata = tail[:, 0].astype(np.int64)
        for k in range(1, len(given_positions)):  # column by column: numpy's integer matmul is slow
            strata *= int(self.cardinalities[given_positions[k]])
            strata += tail[:, k]
        if self._has_unknown:
            strata[(tail < 0).any(axis=1)] = -1
        return strata

    def one_way_counts(
        self,
        variables: Iterable[Hashable] | None = None,
        *,
        given: Hashable | Sequence[Hashable] | None = None,
        cache: bool = True,
    ) -> OneWayCounts:
        """The table of every variable (per state of `given`) in one pass.

        Parameters
        ----------
        variables : sequence, optional
            Defaults to every variable except `given`.
        given : name or position, or a sequence of them, optional
            The strata: the states of one variable, or the joint
            configurations of several (mixed radix, the last fastest).
        cache : bool, default=True
            Keep the table for the next identical query. A search that asks once per
            conditioning set (the structure searches of
            :mod:`graphmodels.learners.score_search`) passes False, so that the
            engine does not hold every table it ever counted.

        Returns
        -------
        OneWayCounts
            ``block(i)`` is the (n_strata, r_i) table of the ``i``-th variable.
        """
        key, positions, given_positions, cards, offsets, n_strata = self._batch_layout("one-way", variables, given)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        width = int(offsets[-1])
        self.check_cells(
            width * n_strata,
            what=f"one-way tables of {len(positions)} variables"
            f"{'' if not given_positions else f' given {[self.names[p] for p in given_positions]}'} "
            f"(the variables with the most states: {self._widest(positions + given_positions)})",
        )
        table = self._one_way_table(positions, given_positions, offsets, n_strata)
        table.flags.writeable = False
        result = OneWayCounts(positions, cards, offsets, table)
        if cache:
            self._cache[key] = result
        return result

    def pairwise_counts(
        self, variables: Iterable[Hashable] | None = None, *, given: Hashable | Sequence[Hashable] | None = None
    ) -> PairwiseCounts:
        """All two-way tables of `variables` at once, optionally per state of `given`.

        One one-hot matrix per row chunk (and per stratum) multiplied by its
        own transpose gives every pairwise table in one product.

        Parameters
        ----------
        variables : sequence, optional
            Defaults to every variable except `given`.
        given : name or position, or a sequence of them, optional
            A conditioning variable (typically the class): one block matrix
            per state; several: one per joint configuration.

        Returns
        -------
        PairwiseCounts
        """
        key, positions, given_positions, cards, offsets, n_strata = self._batch_layout("pairs", variables, given)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        width = int(offsets[-1])
        self.check_cells(
            width * width * n_strata,
            what=f"pairwise tables of {len(positions)} variables ({width} states in all"
            f"{'' if not given_positions else f', {n_strata} strata of {[self.names[p] for p in given_positions]}'}; "
            f"the variables with the most states: {self._widest(positions)})",
        )
        table = self._pairwise_table(positions, given_positions, offsets, n_strata)
        table.flags.writeable = False
        result = PairwiseCounts(positions, cards, offsets, table, integer=self._weights is None)
        self._cache[key] = result
        return result

    def refine_pairwise_counts(
        self, counts: PairwiseCounts, given: Sequence[Hashable], variable: Hashable
    ) -> PairwiseCounts:
        """The pairwise tables given ``[*given, variable]``, from `counts`, the same tables given `given`.

        The table of a stratum of `given` is the sum of its tables at each state of `variable`:
        the rows of the stratum's most frequent state of `variable` are not counted, their
        tables are `counts`' minus the other states' (exact: whole numbers). A search that grows
        conditioning sets one variable at a time (the class-parent sets of
        :func:`~graphmodels.learners.bridge_and_feature_forest`) so counts only the rows of the
        other states. With sample weights, unknown codes or rows held elsewhere (Dask) the
        tables are counted as :meth:`pairwise_counts` counts them. Not cached.

        Parameters
        ----------
        counts : PairwiseCounts
            :meth:`pairwise_counts` ``(variables, given=given)``, or this method's result. Its
            table may be float32 (whole numbers below 2**24 are exact in float32): the refined
            table is then float32 too, half the memory, when the rows are unweighted, known and
            fewer than 2**24; else float64.
        given : sequence of names or positions
            The conditioning variables of `counts`, in their order (possibly empty).
        variable : name or position
            The conditioning variable to add, last (its state varies fastest in the strata).

        Returns
        -------
        PairwiseCounts
            As :meth:`pairwise_counts` ``(counts.variables, given=[*given, variable])``.
        """
        given_positions = self.positions(list(given))
        position = self.position(variable)
        positions = tuple(counts.variables)
        conditioning = given_positions + (position,)
        if len(set(conditioning)) != len(conditioning):
            raise ValueError(f"The conditioning variables repeat: {[self.names[p] for p in conditioning]}.")
        if set(conditioning) & set(positions):
            raise ValueError(f"The variable {self.names[position]!r} is among the variables of `counts`.")
        n_parent_strata = math.prod(int(self.cardinalities[p]) for p in given_positions)
        offsets = counts.offsets
        width = int(offsets[-1])
        if counts.table.shape != (n_parent_strata, width, width):
            raise ValueError(
                f"`counts` has tables of shape {counts.table.shape}, not those of its variables given "
                f"{[self.names[p] for p in given_positions]} ({(n_parent_strata, width, width)})."
            )
        r = int(self.cardinalities[position])
        n_strata = n_parent_strata * r
        self.check_cells(
            width * width * n_strata,
            what=f"pairwise tables of {len(positions)} variables ({width} states in all, {n_strata} strata of "
            f"{[self.names[p] for p in conditioning]}; the variables with the most states: {self._widest(positions)})",
        )
        if self._has_unknown or self._weights is not None or type(self).iter_chunks is not CountingEngine.iter_chunks:
            table = self._pairwise_table(positions, conditioning, offsets, n_strata)
        else:
            table = self._refined_pairwise_table(counts.table, positions, given_positions, position, offsets)
        table.flags.writeable = False
        return PairwiseCounts(positions, counts.cardinalities, offsets, table, integer=self._weights is None)

    def _refined_pairwise_table(self, parent, positions, given_positions, position, offsets):
        """:meth:`refine_pairwise_counts` on unweighted rows held in memory with no unknown cell.

        In each stratum of `given`, the rows of the most frequent state of `variable` are left
        out of the products.
        """
        width = int(offsets[-1])
        cards = self.cardinalities
        r = int(cards[position])
        n_parent = len(parent)
        dtype = parent.dtype if parent.dtype == np.float32 and self.n_rows <= 1 << 24 else np.float64
        table = np.empty((n_parent, r, width, width), dtype=dtype)
        tables = table.reshape(-1, width, width)
        # each stratum's most frequent state of `variable` (from the codes of every row)
        codes = self._codes
        parent_strata = np.zeros(self.n_rows, dtype=np.intp)
        for g in given_positions:  # mixed radix, the last fastest
            parent_strata *= int(cards[g])
            parent_strata += codes[:, g]
        strata = parent_strata * r + codes[:, position]
        common = np.argmax(np.bincount(strata, minlength=n_parent * r).reshape(n_parent, r), axis=1)
        rows = np.flatnonzero(codes[:, position] != common[parent_strata])
        strata = strata[rows]
        written = np.zeros(len(tables), dtype=bool)  # a chunk's gram is written, the next ones' added
        rows_per_chunk = max(1, min(self.chunk_size, _ONE_HOT_CELLS // max(width, 1)))
        with one_blas_thread():
            for start in range(0, self.n_rows, rows_per_chunk):
                chunk = slice(*np.searchsorted(rows, [start, start + rows_per_chunk]))
                one_hot, bounds = self._one_hot_by_stratum(positions, offsets, rows[chunk], strata[chunk], len(tables))
                for s in np.flatnonzero(np.diff(bounds)):
                    block = one_hot[bounds[s] : bounds[s + 1]]
                    if written[s]:
                        tables[s] += block.T @ block
                    elif dtype == np.float32:
                        np.matmul(block.T, block, out=tables[s])
                    else:
                        tables[s] = block.T @ block
                    written[s] = True
        written[np.arange(n_parent) * r + common] = True  # set below
        tables[~written] = 0.0  # no row
        # the most frequent state's tables: the stratum's minus the other states' (whole numbers: exact)
        for s, c in enumerate(common):
            others = [v for v in range(r) if v != c]
            if not others:
                table[s, c] = parent[s]
                continue
            np.subtract(parent[s], table[s, others[0]], out=table[s, c])
            for v in others[1:]:
                table[s, c] -= table[s, v]
        return tables

    def _one_hot_by_stratum(self, positions, offsets, rows, strata, n_strata):
        """The float32 one-hot rows of `positions` at `rows`, grouped by stratum, and the groups' bounds.

        A stable sort of the small stratum codes (a radix sort) groups the rows; the one-hot
        matrix of every row is kept for the next query on the same variables when small.
        """
        small = strata.astype(np.uint8 if n_strata <= 256 else np.uint16 if n_strata <= 65536 else np.int64)
        rows = rows[np.argsort(small, kind="stable")]
        bounds = np.concatenate([[0], np.cumsum(np.bincount(strata, minlength=n_strata))])
        width = int(offsets[-1])
        if self.n_rows * width > _KEPT_ONE_HOT_CELLS:
            return _one_hot(self._codes, rows, positions, offsets), bounds
        kept = self._kept_one_hot
        if kept is None or kept[0] != positions:
            kept = self._kept_one_hot = (positions, _one_hot(self._codes, np.arange(self.n_rows), positions, offsets))
        return kept[1][rows], bounds

    def _one_way_table(self, positions, given_positions, offsets, n_strata):
        """The (n_strata, sum of cardinalities) table of :meth:`one_way_counts`, counted over the rows."""
        width = int(offsets[-1])
        flat = np.zeros(width * n_strata)
        if not self._has_unknown and type(self).iter_chunks is CountingEngine.iter_chunks:
            return self._one_way_table_in_memory(positions, given_positions, offsets, flat)
        columns = list(positions) + list(given_positions)
        for codes, weights in self.iter_chunks(columns):
            # In place where possible: this kernel runs once per move of a structure search.
            index = codes[:, : len(positions)] + offsets[:-1]
            if given_positions:
                strata = self._strata(codes, given_positions)
                index += (strata * width)[:, None]
            if self._has_unknown:
                keep = codes[:, : len(positions)] >= 0
                if given_positions:
                    keep &= (strata >= 0)[:, None]
                w = None if weights is None else np.broadcast_to(weights[:, None], index.shape)[keep]
                index = index[keep]
            elif index.flags.f_contiguous:  # a chunk of selected columns comes column by column: no copy
                index = index.T.reshape(-1)
                w = None if weights is None else np.tile(weights, len(positions))
            else:
                index = index.reshape(-1)
                w = None if weights is None else np.repeat(weights, len(positions))
            flat += np.bincount(index, weights=w, minlength=flat.size)
        return flat.reshape(n_strata, width)

    def _one_way_table_in_memory(self, positions, given_positions, offsets, flat):
        """:meth:`_one_way_table` on rows held in memory with no unknown cell.

        Reads the codes where they are (a column of column-major codes is contiguous) and
        writes each variable's indices, its stratum and offset added, into one index block in
        a single pass per column: a structure search asks one such table per move.
        """
        width = int(offsets[-1])
        cards = self.cardinalities
        step = max(1, min(self.chunk_size, _ONE_WAY_INDEX_CELLS // max(len(positions), 1)))
        for start in range(0, self.n_rows, step):
            codes = self._codes[start : start + step]
            base = np.zeros(len(codes), dtype=np.intp)
            for g in given_positions:  # the stratum, mixed radix, the last fastest
                base *= int(cards[g])
                base += codes[:, g]
            base *= width
            index = np.empty((len(positions), len(codes)), dtype=np.intp)
            for k, p in enumerate(positions):
                np.add(codes[:, p], base, out=index[k])
                index[k] += int(offsets[k])
            w = None if self._weights is None else self._tiled_weights(start, len(codes), len(positions))
            flat += np.bincount(index.reshape(-1), weights=w, minlength=flat.size)
        return flat.reshape(-1, width)

    def _tiled_weights(self, start, n_rows, copies):
        """``np.tile`` of the weights of rows ``start .. start + n_rows``, `copies` times, kept for the next query.

        A structure search asks a batched one-way table per move, with one copy of the weights
        per variable: the copies for every variable are made once per chunk of this engine's own
        rows (when all of them fit in :data:`_TILED_WEIGHT_CELLS`) and each query reads a prefix.
        """
        weights = self._weights[start : start + n_rows]
        if self.n_rows * self.n_variables > _TILED_WEIGHT_CELLS:
            return np.tile(weights, copies)
        tiled = self._tiled.get((start, n_rows))
        if tiled is None:
            tiled = self._tiled[(start, n_rows)] = np.tile(weights, self.n_variables)
        return tiled[: copies * n_rows]

    def _pairwise_table(self, positions, given_positions, offsets, n_strata):
        """The (n_strata, K, K) block matrix of :meth:`pairwise_counts`, counted over the rows."""
        width = int(offsets[-1])
        table = np.zeros((n_strata, width, width), dtype=np.float64)
        columns = list(positions) + list(given_positions)
        g = len(given_positions)
        # The one-hot matrix of a chunk has `width` columns: bound its cells too.
        rows_per_chunk = max(1, _ONE_HOT_CELLS // max(width, 1))
        # One BLAS thread: a chunk's product is small, and on a busy machine OpenBLAS's threads
        # wait for each other (see graphmodels/_threads.py).
        with one_blas_thread():
            for codes, weights in self.iter_chunks(columns, chunk_size=rows_per_chunk):
                if not g:
                    table[0] += _one_hot_gram(codes, offsets, width, weights)
                    continue
                strata = self._strata(codes, given_positions)
                if weights is None and not self._has_unknown:
                    _add_stratum_grams(table, codes[:, :-g], strata, offsets, width)
                    continue
                # An unknown stratum variable drops the row; an unknown feature only
                # drops it from the blocks of that feature (see _one_hot_gram).
                for s in np.unique(strata[strata >= 0]):
                    mask = strata == s
                    w = None if weights is None else weights[mask]
                    table[s] += _one_hot_gram(codes[mask, :-g], offsets, width, w)
        return table

    def _widest(self, positions):
        """The (at most five) variables with the most states, by name, for a table-size error."""
        widest = sorted(positions, key=lambda p: -int(self.cardinalities[p]))[:5]
        return ", ".join(f"{self.names[p]!r} ({int(self.cardinalities[p])} states)" for p in widest)

    def stratum(self, variable: Hashable, state: int) -> CountingEngine:
        """A new engine that counts only the rows where `variable` == `state`.

        Used for class-conditional structures (one tree per class). The
        rows are not copied; the stratum is a 0/1 weight on each row.
        """
        position = self.position(variable)
        if not 0 <= int(state) < int(self.cardinalities[position]):
            raise ValueError(
                f"State {state!r} is out of range for {variable!r} ({int(self.cardinalities[position])} states)."
            )
        mask = (self._codes[:, position] == int(state)).astype(np.float64)
        weights = mask if self._weights is None else mask * self._weights
        engine = CountingEngine(
            self._codes,
            self.cardinalities,
            names=self.names,
            sample_weight=weights,
            max_cells=self.max_cells,
            chunk_size=self.chunk_size,
        )
        if hasattr(self, "levels"):
            engine.levels = self.levels
        return engine

    def clear_cache(self) -> None:
        """Forget every cached table."""
        self._cache.clear()
        self._kept_one_hot = None

    def to_frame(self, variables: Hashable | Sequence[Hashable]) -> pd.DataFrame:
        """The table of `variables` as a tidy DataFrame with a ``count`` column."""
        positions = self.positions(variables)
        table = self.counts([self.names[p] for p in positions])  # names: an integer name is not a position
        levels = getattr(self, "levels", None)
        axes = [levels[p] if levels is not None else list(range(int(self.cardinalities[p]))) for p in positions]
        index = pd.MultiIndex.from_product(axes, names=[self.names[p] for p in positions])
        return pd.DataFrame({"count": table.ravel()}, index=index).reset_index()


def _strides(shape: Sequence[int]) -> np.ndarray:
    """The mixed-radix strides of a table of this shape (the last axis fastest), as int64."""
    strides = np.ones(len(shape), dtype=np.int64)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


def unique_rows(
    codes: np.ndarray, cardinalities: ArrayLike, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of a code table (``-1`` allowed), each with its summed weight.

    Columns are packed into a few int64 keys (mixed radix) and sorted by ``np.lexsort``, much
    faster than ``np.unique(axis=0)``, which compares rows as raw bytes.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_columns)
        Codes in ``-1 .. cardinalities[j] - 1``.
    cardinalities : array_like of shape (n_columns,)
    weights : ndarray of shape (n_rows,), optional
        Ones by default.

    Returns
    -------
    unique : ndarray of shape (n_unique, n_columns)
        The distinct rows, in the order of their keys.
    summed : ndarray of shape (n_unique,)
        The weight of each (its number of rows when unweighted).
    inverse : ndarray of shape (n_rows,)
        The distinct row of each row.

    Examples
    --------
    >>> unique, summed, inverse = unique_rows(np.array([[1, 0], [0, -1], [1, 0]]), [2, 2])
    >>> unique.tolist(), summed.tolist(), inverse.tolist()
    ([[0, -1], [1, 0]], [1.0, 2.0], [1, 0, 1])
    """
    codes = np.asarray(codes)
    n = len(codes)
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    if n == 0:
        return codes.copy(), np.zeros(0), np.zeros(0, dtype=np.int64)
    keys, key, size = [], np.zeros(n, dtype=np.int64), 1
    for j, r in enumerate(np.asarray(cardinalities, dtype=np.int64) + 1):
        if size * int(r) >= 1 << 62:
            keys.append(key)
            key, size = np.zeros(n, dtype=np.int64), 1
        key = key * int(r) + (codes[:, j].astype(np.int64) + 1)
        size *= int(r)
    keys.append(key)
    order = np.lexsort(keys[::-1])
    ordered = np.stack([k[order] for k in keys])
    starts = np.concatenate([[True], (np.diff(ordered, axis=1) != 0).any(axis=0)])
    group = np.cumsum(starts) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = group
    summed = np.bincount(group, weights=weights[order], minlength=int(group[-1]) + 1)
    return codes[order[starts]], summed, inverse


def _from_joint_strata(kind, positions, given, value, order, cardinalities):
    """The table of `order` (sorted positions) from a batched table per joint stratum of `given`, or None."""
    if not set(given) <= set(order):
        return None
    rest = [p for p in order if p not in given]
    if not rest or not set(rest) <= set(positions) or len(rest) > (1 if kind == "one-way" else 2):
        return None
    index = [positions.index(p) for p in rest]
    if kind == "one-way":
        table = value.block(index[0])
    elif len(rest) == 1:
        table = np.diagonal(value.block(index[0], index[0]), axis1=1, axis2=2)
    else:
        table = value.block(index[0], index[1])
    axes = list(given) + rest
    table = table.reshape([int(cardinalities[p]) for p in axes])
    return np.array(np.transpose(table, [axes.index(p) for p in order]), dtype=np.float64)


def _one_hot_gram(codes, offsets, width, weights):
    """``O.T @ diag(w) @ O`` for the one-hot matrix ``O`` of `codes`."""
    n = codes.shape[0]
    if n == 0:
        return 0.0
    # float32 is exact for integer counts up to 2**24: every product and partial sum of a cell is
    # then an integer below 2**24, whatever the order of summation. That holds for no weights (a
    # chunk's row count) and for integer weights summing to at most 2**24 (a bootstrap resample
    # as weights, edge_stability), which float64 would count twice as slowly for the same result.
    exact = n <= 1 << 24 if weights is None else _small_integers(weights)
    dtype = np.float32 if exact else np.float64
    one_hot = np.zeros((n, width), dtype=dtype)
    # Flat positions of the ones, row-major; an unknown code (-1) leaves its
    # variable's block of the row empty, so the row drops out of exactly the
    # tables involving that variable.
    flat = np.arange(0, n * width, width)[:, None] + (codes + offsets[:-1])
    known = codes >= 0
    one_hot.reshape(-1)[flat[known] if not known.all() else flat.ravel()] = 1
    if weights is None:
        return (one_hot.T @ one_hot).astype(np.float64)
    return (one_hot.T @ (one_hot * weights.astype(dtype)[:, None])).astype(np.float64)


def _add_stratum_grams(table, codes, strata, offsets, width):
    """Add ``O_s.T @ O_s`` to ``table[s]`` for the one-hot rows ``O_s`` of each stratum ``s`` (unweighted
    rows, no unknown code): one one-hot matrix for all strata, its rows grouped by stratum (a stable
    sort of small integers, a radix sort), then one product per stratum over contiguous rows.

    The same integer counts as :func:`_one_hot_gram` stratum by stratum: float32 sums of 0/1 below
    2**24 are exact in any order.
    """
    n = codes.shape[0]
    if n == 0:
        return
    one_hot = np.zeros((n, width), dtype=np.float32)
    one_hot.reshape(-1)[(np.arange(0, n * width, width)[:, None] + (codes + offsets[:-1])).ravel()] = 1
    n_strata = table.shape[0]
    small = strata.astype(np.uint8 if n_strata <= 256 else np.uint16 if n_strata <= 65536 else np.int64)
    one_hot = one_hot[np.argsort(small, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(strata, minlength=n_strata))])
    for s in np.flatnonzero(np.diff(bounds)):
        block = one_hot[bounds[s] : bounds[s + 1]]
        table[s] += (block.T @ block).astype(np.float64)


def _one_hot(codes, rows, positions, offsets):
    """The float32 one-hot matrix of the columns `positions` of `codes` at `rows` (no unknown code):
    row ``k`` has a one at ``offsets[j] + codes[rows[k], positions[j]]`` for each ``j``."""
    width = int(offsets[-1])
    n = len(rows)
    one_hot = np.zeros((n, width), dtype=np.float32)
    starts = np.arange(0, n * width, width)
    index = np.empty((len(positions), n), dtype=np.intp)
    for k, p in enumerate(positions):  # a column of column-major codes is contiguous
        np.add(codes[rows, p], starts, out=index[k])
        index[k] += int(offsets[k])
    one_hot.reshape(-1)[index.reshape(-1)] = 1
    return one_hot


def _small_integers(weights):
    """Whether `weights` are whole numbers summing to at most 2**24 (exact in float32 sums)."""
    return bool(weights.sum() <= 1 << 24 and np.array_equal(weights, np.floor(weights)))
