"""Discrete Markov networks given by their factors (what a UAI ``MARKOV`` file holds)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike

from ..inference.likelihoods import log_marginals
from .questions import NetworkQueries

__all__ = ["DiscreteMarkovNetwork"]


class DiscreteMarkovNetwork(NetworkQueries):
    """A Markov network over discrete variables, given by its factors.

    The distribution is the normalized product of the factors,
    ``P(x) = prod_f phi_f(x_scope(f)) / Z`` with ``Z = sum_x prod_f phi_f(x_scope(f))``.
    The class holds the factors as given (a plain container, as :func:`read_uai` returns for a
    ``MARKOV`` file) and computes ``Z`` exactly, by a junction tree, when asked.

    Parameters
    ----------
    cardinalities : dict of str to int
        Number of states of every variable; the key order is the order of :attr:`variables`.
        States are codes ``0 .. r - 1``.
    factors : sequence of (sequence of str, array_like)
        Each factor's scope (variable names, no repeats; empty for a constant) and its table of
        shape ``(r_scope[0], r_scope[1], ...)``: finite numbers >= 0, axes in scope order.
    name : str, optional

    Attributes
    ----------
    variables : list of str
    cardinalities : dict of str to int
    factors : list of (tuple of str, ndarray)
        Read-only float64 tables.
    name : str or None

    Raises
    ------
    ValueError
        If a scope names an unknown variable or repeats one, a table has the wrong shape, or
        an entry is negative or not finite; if a cardinality is not a positive integer.
    TypeError
        If `cardinalities` is not a dict or a scope is a string.

    See Also
    --------
    graphmodels.io.read_uai, graphmodels.io.write_uai,
    graphmodels.networks.DiscreteBayesianNetwork

    Examples
    --------
    >>> import numpy as np
    >>> mn = DiscreteMarkovNetwork({"a": 2, "b": 2}, [(("a", "b"), [[1.0, 2.0], [3.0, 4.0]])])
    >>> round(float(np.exp(mn.log_partition())), 6)
    10.0
    >>> np.exp(mn.log_likelihood_codes([[1, 0]])).round(6)  # 3 / 10
    array([0.3])
    """

    name: str | None
    variables: list[str]
    cardinalities: dict[str, int]
    factors: list[tuple[tuple[str, ...], np.ndarray]]

    def __init__(
        self,
        cardinalities: dict[str, int],
        factors: Iterable[tuple[Sequence[str], ArrayLike]],
        *,
        name: str | None = None,
    ) -> None:
        if not isinstance(cardinalities, dict):
            raise TypeError(
                f"`cardinalities` must be a dict keyed by variable name, got {type(cardinalities).__name__}."
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be a string or None, got {type(name).__name__}.")
        self.name = name
        self.variables = list(cardinalities)
        self.cardinalities = {}
        for v, r in cardinalities.items():
            if isinstance(r, bool) or not isinstance(r, (numbers.Integral, np.integer)) or r < 1:
                raise ValueError(f"the cardinality of {v!r} must be an integer >= 1, got {r!r}.")
            self.cardinalities[v] = int(r)
        self.factors = []
        for k, factor in enumerate(factors):
            scope, table = factor
            if isinstance(scope, str):
                raise TypeError(f"the scope of factor {k} must be a sequence of names, got the string {scope!r}.")
            scope = tuple(scope)
            unknown = [v for v in scope if v not in self.cardinalities]
            if unknown:
                raise ValueError(f"factor {k} names {unknown[0]!r}, which is not a variable.")
            if len(set(scope)) != len(scope):
                raise ValueError(f"the scope of factor {k} repeats a variable: {scope}.")
            try:
                array = np.array(table, dtype=np.float64)
            except (TypeError, ValueError) as error:
                raise TypeError(f"the table of factor {k} must be an array of numbers: {error}") from None
            shape = tuple(self.cardinalities[v] for v in scope)
            if array.shape != shape:
                raise ValueError(f"the table of factor {k} over {scope} must have shape {shape}, got {array.shape}.")
            if not np.all(np.isfinite(array)) or np.any(array < 0):
                raise ValueError(f"the table of factor {k} over {scope} must hold finite numbers >= 0.")
            array.setflags(write=False)
            self.factors.append((scope, array))

    def __repr__(self):
        name = f"{self.name!r}, " if self.name is not None else ""
        return f"DiscreteMarkovNetwork({name}{len(self.variables)} variables, {len(self.factors)} factors)"

    def _repr_html_(self) -> str:
        """The notebook display: the variables, the size of the tables and the graph as inline SVG.

        Bounded (a graph of more than 300 nodes is summarised, not drawn) and
        never raising, as a model's display.
        """
        from .._display import network_html

        return network_html(self)

    @property
    def graph(self) -> nx.Graph:
        """A new ``nx.Graph``: an edge between every two variables that share a factor.

        Nodes carry ``cardinality`` and ``role="feature"``.
        """
        graph = nx.Graph(name=self.name) if self.name is not None else nx.Graph()
        for v in self.variables:
            graph.add_node(v, cardinality=self.cardinalities[v], role="feature")
        for scope, _ in self.factors:
            graph.add_edges_from((a, b) for i, a in enumerate(scope) for b in scope[i + 1 :])
        return graph

    def _log_factors(self):
        position = {v: j for j, v in enumerate(self.variables)}
        with np.errstate(divide="ignore"):
            return [(tuple(position[v] for v in scope), np.log(table)[None]) for scope, table in self.factors]

    def log_partition(self, *, max_cells: int = 10_000_000) -> float:
        """``log Z``, the log of the sum of the product of the factors over all configurations.

        Exact, by a junction tree of the factors' scopes (see
        :func:`graphmodels.inference.log_marginals`), never by enumeration.

        Parameters
        ----------
        max_cells : int, default=10_000_000
            The largest clique table of the junction tree allowed.

        Returns
        -------
        float
            ``-inf`` when every configuration has product 0.

        Raises
        ------
        ValueError
            If a clique of the junction tree would exceed `max_cells` states.
        """
        if not self.variables:
            return float(np.log(math.prod(float(t) for _, t in self.factors)))
        cards = [self.cardinalities[v] for v in self.variables]
        _, log_z = log_marginals(self._log_factors(), cards, 1, max_cells=max_cells, names=self.variables, fix="")
        return float(log_z[0])

    def log_likelihood_codes(self, codes: ArrayLike, *, max_cells: int = 10_000_000) -> np.ndarray:
        """Normalized log-probability ``log P(x)`` of rows of state codes.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_variables)
            Columns in :attr:`variables` order, codes in ``0 .. r - 1``.
        max_cells : int, default=10_000_000
            Passed to :meth:`log_partition`.

        Returns
        -------
        log_p : ndarray of shape (n_rows,)
            ``-inf`` for rows of probability 0.

        Raises
        ------
        ValueError
            If `codes` has the wrong shape or a code is out of range.
        """
        array = np.asarray(codes)
        if array.ndim != 2 or array.shape[1] != len(self.variables):
            raise ValueError(f"`codes` must have shape (n_rows, {len(self.variables)}), got {array.shape}.")
        if array.size and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"`codes` must be integers, got dtype {array.dtype}.")
        cards = np.array([self.cardinalities[v] for v in self.variables], dtype=np.int64)
        bad = (array < 0) | (array >= cards)
        if np.any(bad):
            i, j = (int(k) for k in np.argwhere(bad)[0])
            raise ValueError(
                f"code {array[i, j]} of variable {self.variables[j]!r} (row {i}) is outside 0..{cards[j] - 1}."
            )
        total = np.zeros(array.shape[0])
        for scope, log_table in self._log_factors():
            total += log_table[0][tuple(array[:, p] for p in scope)]
        return total - self.log_partition(max_cells=max_cells)

    def _build_distribution(self) -> Any:
        """The factors as a distribution; states are the codes ``0 .. r - 1``."""
        from ..inference import Distribution, Factor

        factors = []
        for scope, table in self.factors:
            with np.errstate(divide="ignore"):
                factors.append(Factor(scope, np.log(table), [list(range(self.cardinalities[v])) for v in scope]))
        states: dict[Hashable, list[int]] = {v: list(range(r)) for v, r in self.cardinalities.items()}
        return Distribution(factors, variables=self.variables, states=states, name=self.name)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serializable description: ``name``, ``cardinalities`` and ``factors``.

        Returns
        -------
        data : dict
            ``factors`` is a list of ``[scope, nested list table]`` pairs.
        """
        return {
            "name": self.name,
            "cardinalities": dict(self.cardinalities),
            "factors": [[list(scope), table.tolist()] for scope, table in self.factors],
        }
