"""Memory guards: the one check that an array fits its budget, made before it is allocated.

The budget of every model is ``max_cells``, the largest array (in cells, float64: 8 bytes each)
the model may allocate; its default, :data:`DEFAULT_MAX_CELLS`, is 10,000,000 cells (80 MB). A
table whose size is a product of cardinalities (a family, a clique, a hyperedge, a super-parent
block), a block of candidates (hyperedges x their extensions) or a table read from a file is
checked here first; one beyond the budget raises :class:`TableTooLargeError`, which names what
would not fit, its size in cells and bytes, the limit, and what would make it fit: raise
``max_cells`` to at least the size, or lower the parameter that made it large (``n=``, ``k=``,
``treewidth=``, ``max_parents=``), or discretize a column into fewer bins.

The models add their own name to the message (``TAN: The pairwise tables ...``). This module
imports nothing of graphmodels, so that every layer (``data`` included) can use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["DEFAULT_MAX_CELLS", "TableTooLargeError", "check_cells", "describe_variables", "format_bytes"]

#: Default largest number of cells of one array (80 MB of float64).
DEFAULT_MAX_CELLS = 10_000_000

#: Bytes of one cell: tables hold float64.
BYTES_PER_CELL = 8


class TableTooLargeError(ValueError, MemoryError):
    """A table would exceed its cell limit; raised before anything is allocated.

    A :class:`ValueError` (the data or a parameter asks for too much, and the
    message says which) and a :class:`MemoryError` (what it prevents), so that
    either ``except`` catches it.

    Attributes
    ----------
    cells : int or None
        Cells the table would have (or what else `limit` counts: candidate hyperedges,
        label vectors); the limit at which it fits.
    limit : int or None
        The limit it exceeds.
    parameter : str
        The parameter that holds the limit (``"max_cells"``, ``"discretizer.max_cells"``,
        ``"max_candidates"``, ``"max_label_vectors"``).
    model : str or None
        The model whose fit raised it, once the model has added its name.
    """

    def __init__(
        self,
        message: str,
        *,
        cells: int | None = None,
        limit: int | None = None,
        parameter: str = "max_cells",
        model: str | None = None,
    ) -> None:
        super().__init__(message)
        self.cells = cells
        self.limit = limit
        self.parameter = parameter
        self.model = model

    def for_model(self, model: str) -> TableTooLargeError:
        """The same error with ``"{model}: "`` in front of its message (once: an inner model's name stays)."""
        if self.model is not None:
            return self
        error = type(self)(
            f"{model}: {self.args[0] if self.args else ''}",
            cells=self.cells,
            limit=self.limit,
            parameter=self.parameter,
            model=model,
        )
        return error.with_traceback(self.__traceback__)


def format_bytes(n_bytes: int) -> str:
    """``1536`` -> ``"1.5 kB"`` (powers of 1000, as disks and RAM sticks count)."""
    value = float(n_bytes)
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if value < 1000 or unit == "PB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def describe_variables(names: Iterable[Any], cardinalities: Iterable[int]) -> str:
    """``"'a' (4 states), 'b' (6 states)"``: variables by their names, for an error message."""
    return ", ".join(f"{name!r} ({int(r)} states)" for name, r in zip(names, cardinalities, strict=True))


def check_cells(
    cells: int,
    limit: int,
    *,
    what: str,
    fix: str = "merge rare states or discretize more coarsely",
    parameter: str = "max_cells",
) -> int:
    """Raise :class:`TableTooLargeError` when `cells` exceed `limit`; else return `cells`.

    Call it before allocating: the sizes are Python integers, which do not overflow.

    Parameters
    ----------
    cells : int
        Cells of the array about to be allocated.
    limit : int
        The budget (``max_cells``).
    what : str
        What would be allocated, with the variables by name: ``"pairwise tables of ..."``.
    fix : str, optional
        What else would make it fit (lower a parameter, discretize a column...), besides
        raising the limit.
    parameter : str, default="max_cells"
        The name of the limit's parameter.

    Returns
    -------
    int
        `cells`.

    Raises
    ------
    TableTooLargeError
        If ``cells > limit``; the message names `what`, the size in cells and
        bytes, the limit and the value of `parameter` at which it would fit.

    Examples
    --------
    >>> check_cells(12, 100, what="table over 'a' (3 states), 'b' (4 states)")
    12
    >>> try:  # doctest: +NORMALIZE_WHITESPACE
    ...     check_cells(1200, 100, what="table over 'a' (30 states), 'b' (40 states)")
    ... except MemoryError as error:  # a ValueError too
    ...     print(error)
    The table over 'a' (30 states), 'b' (40 states) would have 1,200 cells (9.6 kB), more than max_cells=100;
    merge rare states or discretize more coarsely, or raise max_cells to at least 1,200.
    """
    cells, limit = int(cells), int(limit)
    if cells > limit:
        raise TableTooLargeError(
            f"The {what} would have {cells:,} cells ({format_bytes(cells * BYTES_PER_CELL)}), "
            f"more than {parameter}={limit:,}; {fix + ', or ' if fix else ''}raise {parameter} to at least {cells:,}.",
            cells=cells,
            limit=limit,
            parameter=parameter,
        )
    return cells
