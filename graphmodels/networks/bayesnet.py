"""Discrete Bayesian networks with given conditional probability tables."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .questions import NetworkQueries
from .tables import conditional_frame, find_node

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DiscreteBayesianNetwork"]

#: Largest allowed gap between the sum of a conditional distribution and 1.
SUM_TOLERANCE = 1e-6
#: Gap below which a sum counts as exactly 1 (rounding), so the row is not rescaled.
_EXACT = 1e-12


class DiscreteBayesianNetwork(NetworkQueries):
    """A Bayesian network over discrete variables, with its CPTs given.

    The joint distribution factorizes as
    ``P(x) = prod_j P(x_j | x_parents(j))`` over a directed acyclic graph.
    Each variable's conditional probability table (CPT) is an array with one
    axis per parent, in the order of ``parents[variable]``, and the child's
    states on the last axis.

    Parameters
    ----------
    parents : dict of str to sequence of str
        Ordered parents of every variable; roots map to ``()``. The key order
        is the order of :attr:`variables`.
    states : dict of str to list of str
        State labels of every variable, in code order.
    cpts : dict of str to array_like
        CPT of every variable, of shape ``(r_parent1, ..., r_parentK, r_child)``
        where ``r_v = len(states[v])``. Every conditional distribution (a slice
        along the last axis) must sum to 1 within ``atol``; it is then
        renormalized (a distribution whose sum is 1 up to 1e-12 is kept as given,
        others are divided by their sum).
    name : str, optional
        Name of the network.
    atol : float, default=1e-6
        Tolerance of the check that each conditional distribution sums to 1.

    Attributes
    ----------
    variables : list of str
        Variable names, in the order of `parents`.
    parents : dict of str to tuple of str
    states : dict of str to list of str
    cpts : dict of str to ndarray
        Read-only, renormalized CPTs of shape ``(r_parent1, ..., r_parentK, r_child)``.
    cardinalities : dict of str to int
    name : str or None

    Raises
    ------
    ValueError
        If a variable lacks states or a CPT, a parent is not a variable, a CPT
        has the wrong shape, negative or non-finite entries, a conditional
        distribution does not sum to 1, or the graph has a cycle.
    TypeError
        If the arguments are not dictionaries or a state label is not a string.

    See Also
    --------
    graphmodels.io.read_bif, graphmodels.io.load_network

    Notes
    -----
    Forward (ancestral) sampling [2]_ draws each variable in topological order
    by the inverse CDF of its CPT row, chosen per sample from the parents'
    codes; it is vectorized over rows.

    References
    ----------
    .. [1] Pearl, J. (1988). *Probabilistic Reasoning in Intelligent Systems:
           Networks of Plausible Inference*. Morgan Kaufmann.
    .. [2] Henrion, M. (1988). Propagating uncertainty in Bayesian networks by
           probabilistic logic sampling. In *Uncertainty in Artificial
           Intelligence 2*, 149-163. North-Holland.

    Examples
    --------
    >>> import numpy as np
    >>> bn = DiscreteBayesianNetwork(
    ...     parents={"rain": (), "wet": ("rain",)},
    ...     states={"rain": ["no", "yes"], "wet": ["no", "yes"]},
    ...     cpts={"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
    ... )
    >>> frame = pd.DataFrame({"rain": ["yes"], "wet": ["yes"]})
    >>> np.exp(bn.log_likelihood(frame)).round(6)  # 0.2 * 0.8
    array([0.16])
    >>> bn.sample(3, random_state=0).shape
    (3, 2)
    """

    name: str | None
    variables: list[str]
    cardinalities: dict[str, int]

    def __init__(
        self,
        parents: dict[str, Any],
        states: dict[str, Any],
        cpts: dict[str, Any],
        *,
        name: str | None = None,
        atol: float = SUM_TOLERANCE,
    ) -> None:
        for arg, value in (("parents", parents), ("states", states), ("cpts", cpts)):
            if not isinstance(value, dict):
                raise TypeError(f"`{arg}` must be a dict keyed by variable name, got {type(value).__name__}.")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be a string or None, got {type(name).__name__}.")
        if not (isinstance(atol, numbers.Real) and atol >= 0):
            raise ValueError(f"`atol` must be a number >= 0, got {atol!r}.")
        self.name = name
        self.variables = list(parents)
        known = set(self.variables)
        for arg, value in (("states", states), ("cpts", cpts)):
            missing = [v for v in self.variables if v not in value]
            if missing:
                raise ValueError(f"variable {missing[0]!r} has no entry in `{arg}`.")
            extra = [v for v in value if v not in known]
            if extra:
                raise ValueError(f"`{arg}` names {extra[0]!r}, which is not a key of `parents`.")

        self.states: dict[str, list[str]] = {}
        for v in self.variables:
            labels = states[v]
            if isinstance(labels, str) or not hasattr(labels, "__iter__"):
                raise TypeError(f"states of {v!r} must be a list of strings, got {labels!r}.")
            labels = list(labels)
            bad = [s for s in labels if not isinstance(s, str)]
            if bad:
                raise TypeError(f"states of {v!r} must be strings, got {bad[0]!r}.")
            if not labels:
                raise ValueError(f"variable {v!r} has no states.")
            if len(set(labels)) != len(labels):
                duplicate = next(s for s in labels if labels.count(s) > 1)
                raise ValueError(f"variable {v!r} lists the state {duplicate!r} twice.")
            self.states[v] = labels
        self.cardinalities = {v: len(self.states[v]) for v in self.variables}

        self.parents: dict[str, tuple[str, ...]] = {}
        for v in self.variables:
            ps = parents[v]
            if isinstance(ps, str):
                raise TypeError(f"parents of {v!r} must be a sequence of names, got the string {ps!r}.")
            ps = tuple(ps)
            for p in ps:
                if p not in known:
                    raise ValueError(f"parent {p!r} of {v!r} is not a variable.")
            if len(set(ps)) != len(ps):
                raise ValueError(f"parents of {v!r} repeat a variable: {ps}.")
            self.parents[v] = ps
        self._check_acyclic()

        self.cpts: dict[str, np.ndarray] = {}
        for v in self.variables:
            self.cpts[v] = self._check_cpt(v, cpts[v], atol)
        self._prepare()

    # ------------------------------------------------------------------ checks
    def _check_acyclic(self):
        graph = nx.DiGraph()
        graph.add_nodes_from(self.variables)
        graph.add_edges_from((p, v) for v in self.variables for p in self.parents[v])
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            return
        path = " -> ".join([u for u, _ in cycle] + [cycle[0][0]])
        raise ValueError(f"the graph must be acyclic, but variable {cycle[0][0]!r} lies on the cycle {path}.")

    def _check_cpt(self, v, table, atol):
        shape = tuple(self.cardinalities[p] for p in self.parents[v]) + (self.cardinalities[v],)
        try:
            array = np.array(table, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"CPT of {v!r} must be an array of numbers: {error}") from None
        if array.shape != shape:
            raise ValueError(
                f"CPT of {v!r} must have shape {shape} (parents {self.parents[v]}, then {v!r}), got {array.shape}."
            )
        if not np.all(np.isfinite(array)):
            raise ValueError(f"CPT of {v!r} has non-finite entries.")
        if np.any(array < 0):
            raise ValueError(f"CPT of {v!r} has negative entries, e.g. {float(array[array < 0].flat[0])!r}.")
        sums = array.sum(axis=-1)
        bad = np.abs(sums - 1.0) > atol
        if np.any(bad):
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            config = ", ".join(f"{p}={self.states[p][i]}" for p, i in zip(self.parents[v], index))
            where = f" given {config}" if config else ""
            raise ValueError(
                f"the distribution of {v!r}{where} sums to {float(sums[index])!r}, not 1 (tolerance {atol})."
            )
        # Rows already summing to 1 up to rounding keep the given values; the others are
        # divided by their sum.  This makes the step idempotent, so a round trip through
        # text gives the same numbers back.
        off = np.abs(sums - 1.0) > _EXACT
        if np.any(off):
            array[off] /= sums[off][:, None]
        array.setflags(write=False)
        return array

    def _prepare(self):
        """Flat per-variable tables used by sampling and scoring."""
        position = {v: j for j, v in enumerate(self.variables)}
        self._position = position
        self._cards = np.array([self.cardinalities[v] for v in self.variables], dtype=np.int64)
        self._parent_positions = [
            np.array([position[p] for p in self.parents[v]], dtype=np.int64) for v in self.variables
        ]
        self._flat = [self.cpts[v].reshape(-1, self.cardinalities[v]) for v in self.variables]
        with np.errstate(divide="ignore"):
            self._log_flat = [np.log(t) for t in self._flat]
        self._cumulative = [np.cumsum(t, axis=1) for t in self._flat]
        order = self.topological_order()
        self._order = [position[v] for v in order]

    # ------------------------------------------------------------- structure
    @property
    def graph(self) -> nx.DiGraph:
        """A new ``nx.DiGraph`` with edges parent -> child.

        Nodes carry ``cardinality``, ``states`` and ``role="feature"``.
        """
        graph = nx.DiGraph(name=self.name) if self.name is not None else nx.DiGraph()
        for v in self.variables:
            graph.add_node(v, cardinality=self.cardinalities[v], states=list(self.states[v]), role="feature")
        for v in self.variables:
            for p in self.parents[v]:
                graph.add_edge(p, v)
        return graph

    @property
    def n_edges(self) -> int:
        """Number of arcs."""
        return sum(len(ps) for ps in self.parents.values())

    def topological_order(self) -> list[str]:
        """Variables ordered so that parents come before children.

        Ties are broken by the order of :attr:`variables`, so the result is
        deterministic.

        Returns
        -------
        order : list of str
        """
        position = {v: j for j, v in enumerate(self.variables)}
        graph = nx.DiGraph()
        graph.add_nodes_from(self.variables)
        graph.add_edges_from((p, v) for v in self.variables for p in self.parents[v])
        return list(nx.lexicographical_topological_sort(graph, key=position.__getitem__))

    def __repr__(self):
        name = f"{self.name!r}, " if self.name is not None else ""
        return f"DiscreteBayesianNetwork({name}{len(self.variables)} variables, {self.n_edges} arcs)"

    def _repr_html_(self) -> str:
        """The notebook display: the variables, the size of the tables and the graph as inline SVG.

        Bounded (a graph of more than 300 nodes is summarised, not drawn) and
        never raising, as a model's display.
        """
        from .._display import network_html

        return network_html(self)

    # ------------------------------------------------------------- indexing
    def _config_index(self, codes, j):
        """Row of the flat CPT of variable `j` for every sample, shape (n,)."""
        pp = self._parent_positions[j]
        if len(pp) == 0:
            return np.zeros(codes.shape[0], dtype=np.int64)
        return np.ravel_multi_index(tuple(codes[:, pp].T), tuple(self._cards[pp]))

    # -------------------------------------------------------------- sampling
    def sample_codes(self, n_samples: int, random_state: int | np.random.Generator | None = None) -> np.ndarray:
        """Forward-sample integer state codes.

        Parameters
        ----------
        n_samples : int
        random_state : None, int or numpy.random.Generator
            Seed for reproducible draws; one uniform per row and variable,
            drawn in topological order.

        Returns
        -------
        codes : ndarray of shape (n_samples, n_variables), dtype int64
            Codes index ``states[v]``; columns in :attr:`variables` order.

        Examples
        --------
        >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.0, 1.0]})
        >>> bn.sample_codes(4, random_state=0).ravel().tolist()
        [1, 1, 1, 1]
        """
        if isinstance(n_samples, bool) or not isinstance(n_samples, (numbers.Integral, np.integer)) or n_samples < 0:
            raise ValueError(f"`n_samples` must be a non-negative integer, got {n_samples!r}.")
        n = int(n_samples)
        rng = np.random.default_rng(random_state)
        codes = np.zeros((n, len(self.variables)), dtype=np.int64)
        for j in self._order:
            cumulative = self._cumulative[j][self._config_index(codes, j)]  # (n, r_j)
            u = rng.random(n) * cumulative[:, -1]
            drawn = (u[:, None] >= cumulative).sum(axis=1)
            codes[:, j] = np.minimum(drawn, self._cards[j] - 1)
        return codes

    def sample(
        self, n_samples: int = 1, random_state: int | np.random.Generator | None = None, *, evidence: Any = None
    ) -> pd.DataFrame:
        """Forward-sample rows as state labels (given `evidence`: exact samples through the junction tree).

        Parameters
        ----------
        n_samples : int
        random_state : None, int or numpy.random.Generator
        evidence : mapping, optional
            ``{variable: state}`` (or soft evidence): sample ``P(x | evidence)`` exactly, by
            :meth:`~graphmodels.inference.Distribution.sample`.

        Returns
        -------
        frame : pandas.DataFrame of shape (n_samples, n_variables)
            Columns :attr:`variables`; cells are state labels (str).

        Examples
        --------
        >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [1.0, 0.0]})
        >>> bn.sample(2, random_state=1)["a"].tolist()
        ['x', 'x']
        """
        if evidence is not None:
            return self.distribution().sample(n_samples, evidence, random_state=random_state)
        codes = self.sample_codes(n_samples, random_state)
        return self.decode(codes)

    def _build_distribution(self) -> Any:
        from ..inference import Distribution, Factor

        factors = []
        for v in self.variables:
            scope = (*self.parents[v], v)
            with np.errstate(divide="ignore"):
                factors.append(Factor(scope, np.log(self.cpts[v]), [self.states[u] for u in scope]))
        return Distribution(factors, variables=self.variables, children=self.variables, name=self.name)

    def decode(self, codes: ArrayLike) -> pd.DataFrame:
        """State labels of integer codes, as a DataFrame with columns :attr:`variables`.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_variables)
            Columns in :attr:`variables` order.

        Returns
        -------
        frame : pandas.DataFrame of shape (n_rows, n_variables)
        """
        codes = self._check_codes(codes)
        columns = {}
        for j, v in enumerate(self.variables):
            labels = np.empty(len(self.states[v]), dtype=object)
            labels[:] = self.states[v]
            columns[v] = labels[codes[:, j]]
        return pd.DataFrame(columns, columns=self.variables)

    # ---------------------------------------------------------------- scoring
    def encode(self, X: pd.DataFrame) -> np.ndarray:
        """Integer codes of a DataFrame of state labels.

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_rows, n_variables)
            One column per variable, by name, in any order.

        Returns
        -------
        codes : ndarray of shape (n_rows, n_variables), dtype int64
            Columns in :attr:`variables` order.

        Raises
        ------
        TypeError
            If `X` is not a DataFrame.
        ValueError
            If a column is missing or extra, a cell is missing, or a label is
            not a state of its variable.
        """
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"`X` must be a pandas DataFrame of state labels, got {type(X).__name__}.")
        columns = list(X.columns)
        if len(set(columns)) != len(columns):
            raise ValueError("`X` has duplicate column names.")
        extra = [c for c in columns if c not in self._position]
        if extra:
            raise ValueError(f"`X` has column {extra[0]!r}, which is not a variable of the network.")
        missing = [v for v in self.variables if v not in X.columns]
        if missing:
            raise ValueError(f"`X` has no column for variable {missing[0]!r}.")
        codes = np.empty((len(X), len(self.variables)), dtype=np.int64)
        for j, v in enumerate(self.variables):
            column = X[v]
            # pandas-stubs before 3.0 type get_indexer's target as an Index only (any array-like works).
            col_codes = pd.Index(self.states[v]).get_indexer(column.to_numpy(dtype=object))  # type: ignore[arg-type]
            bad = col_codes < 0
            if np.any(bad):
                label = column[bad].iloc[0]
                if pd.isna(label):
                    raise ValueError(f"column {v!r} has a missing value at row {int(np.argmax(bad))}.")
                raise ValueError(f"variable {v!r} has no state {label!r}; expected one of {self.states[v]}.")
            codes[:, j] = col_codes
        return codes

    def _check_codes(self, codes: ArrayLike) -> np.ndarray:
        array = np.asarray(codes)
        if array.ndim != 2 or array.shape[1] != len(self.variables):
            raise ValueError(f"`codes` must have shape (n_rows, {len(self.variables)}), got {array.shape}.")
        if array.size and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"`codes` must be integers, got dtype {array.dtype}.")
        array = array.astype(np.int64, copy=False)
        bad = (array < 0) | (array >= self._cards)
        if np.any(bad):
            i, j = (int(k) for k in np.argwhere(bad)[0])
            raise ValueError(
                f"code {array[i, j]} of variable {self.variables[j]!r} (row {i}) is outside 0..{self._cards[j] - 1}."
            )
        return array

    def log_likelihood_codes(self, codes: ArrayLike) -> np.ndarray:
        """Log-probability of rows of integer codes.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_variables)
            Columns in :attr:`variables` order.

        Returns
        -------
        log_p : ndarray of shape (n_rows,)
            ``log P(x)`` in nats; ``-inf`` for impossible rows.
        """
        codes = self._check_codes(codes)
        total = np.zeros(codes.shape[0])
        for j in range(len(self.variables)):
            total += self._log_flat[j][self._config_index(codes, j), codes[:, j]]
        return total

    def log_likelihood(self, X: pd.DataFrame) -> np.ndarray:
        """Log-probability of rows of state labels.

        Parameters
        ----------
        X : pandas.DataFrame of shape (n_rows, n_variables)
            One column per variable, by name, in any order.

        Returns
        -------
        log_p : ndarray of shape (n_rows,)
            ``log P(x)`` in nats; ``-inf`` for impossible rows.

        Raises
        ------
        ValueError
            See :meth:`encode`.
        """
        return self.log_likelihood_codes(self.encode(X))

    def entropy(
        self, n_samples: int = 100_000, random_state: int | np.random.Generator | None = 0
    ) -> tuple[float, float]:
        """Monte Carlo estimate of the joint entropy ``H(X) = -E[log P(X)]``.

        Parameters
        ----------
        n_samples : int, default=100_000
        random_state : None, int or numpy.random.Generator, default=0

        Returns
        -------
        estimate : float
            Mean of ``-log P(x)`` over forward samples, in nats.
        standard_error : float
            Standard deviation of ``-log P(x)`` divided by ``sqrt(n_samples)``.

        Examples
        --------
        >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.5, 0.5]})
        >>> estimate, se = bn.entropy(1000)
        >>> round(estimate, 6), round(se, 12)  # log 2 for every sample of a uniform variable
        (0.693147, 0.0)
        """
        if isinstance(n_samples, bool) or not isinstance(n_samples, (numbers.Integral, np.integer)) or n_samples < 1:
            raise ValueError(f"`n_samples` must be a positive integer, got {n_samples!r}.")
        surprise = -self.log_likelihood_codes(self.sample_codes(n_samples, random_state))
        error = float(np.std(surprise, ddof=1) / math.sqrt(n_samples)) if n_samples > 1 else float("nan")
        return float(np.mean(surprise)), error

    def cpd(self, variable: str) -> pd.DataFrame:
        """The CPT of `variable` as a DataFrame: one row per parent configuration, one column per state.

        Parameters
        ----------
        variable : str
            A name of :attr:`variables`.

        Returns
        -------
        DataFrame of shape (n_parent_configurations, n_states)
            ``P(variable | parents)``, rows summing to 1; the index is a
            MultiIndex named by the parents in ``parents[variable]`` order
            (the first varies slowest) for two or more, a flat Index named by
            the parent for one, the single label ``"probability"`` for a
            root; the columns are the variable's states (named `variable`).

        Raises
        ------
        ValueError
            For a name that is not a variable, listing the variables.

        See Also
        --------
        graphmodels.networks.conditional_frame

        Examples
        --------
        >>> bn = DiscreteBayesianNetwork(
        ...     parents={"rain": (), "wet": ("rain",)},
        ...     states={"rain": ["no", "yes"], "wet": ["no", "yes"]},
        ...     cpts={"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
        ... )
        >>> table = bn.cpd("wet")
        >>> table.index.name, table.loc["yes"].tolist()
        ('rain', [0.2, 0.8])
        """
        name = find_node(variable, self.variables)
        if not isinstance(name, str):
            raise ValueError(f"{variable!r} is not a variable of the network; variables: {self.variables}.")
        parents = [(p, self.states[p]) for p in self.parents[name]]
        return conditional_frame(name, self.states[name], parents, self.cpts[name])

    # ---------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serializable description of the network.

        Returns
        -------
        data : dict
            Keys ``name``, ``variables``, ``states``, ``parents`` (lists) and
            ``cpts`` (nested lists of shape ``(r_parent1, ..., r_child)``).

        Examples
        --------
        >>> import json
        >>> bn = DiscreteBayesianNetwork({"a": ()}, {"a": ["x", "y"]}, {"a": [0.25, 0.75]})
        >>> json.dumps(bn.to_dict()["cpts"])
        '{"a": [0.25, 0.75]}'
        """
        return {
            "name": self.name,
            "variables": list(self.variables),
            "states": {v: list(self.states[v]) for v in self.variables},
            "parents": {v: list(self.parents[v]) for v in self.variables},
            "cpts": {v: self.cpts[v].tolist() for v in self.variables},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a network from :meth:`to_dict` output.

        Parameters
        ----------
        data : dict

        Returns
        -------
        network : DiscreteBayesianNetwork
        """
        if not isinstance(data, dict):
            raise TypeError(f"`data` must be a dict, got {type(data).__name__}.")
        missing = [k for k in ("variables", "states", "parents", "cpts") if k not in data]
        if missing:
            raise ValueError(f"`data` has no {missing[0]!r} entry.")
        variables = list(data["variables"])
        unknown = [v for v in data["parents"] if v not in set(variables)]
        if unknown:
            raise ValueError(f"`data['parents']` names {unknown[0]!r}, which is not in `data['variables']`.")
        parents = {v: tuple(data["parents"].get(v, ())) for v in variables}
        return cls(parents, dict(data["states"]), dict(data["cpts"]), name=data.get("name"))
