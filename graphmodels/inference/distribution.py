"""The question API: a distribution given by factors (or a mixture of such), asked by name.

Every model that defines a distribution hands the inference layer a :class:`Distribution` --
a product of :class:`~graphmodels.inference.factors.Factor` s over named variables -- or a
:class:`Mixture` of them (a Chow-Liu multinet is a mixture over the class of one forest per
class; an AnDE ensemble is the average of its members' joints). Both answer the same questions:

- :meth:`Distribution.query`: posterior marginals, or the joint of a few variables, given hard
  evidence by state name, soft (virtual) evidence as likelihoods, or a DataFrame of evidence
  sets (one question per row, answered in one vectorized pass);
- :meth:`Distribution.map_query`: the most probable joint state of some or all variables;
- :meth:`Distribution.sample`: samples given evidence, exact through the junction tree or
  approximate by likelihood weighting;
- :meth:`Distribution.probability`: the probability of the evidence.

``method="auto"`` is exact: a junction tree compiled once and kept, whose messages are reused
across questions while the evidence on their side is unchanged; a joint of variables that no
clique holds goes to variable elimination. The approximate methods are ``"loopy"`` (loopy
belief propagation on the factor graph) and ``"gbp"`` (generalized belief propagation on a
region graph); an exact method whose largest clique would pass ``max_cells`` fails at once,
naming the induced width and these two.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .._memory import DEFAULT_MAX_CELLS
from .._special import logsumexp
from .elimination import eliminate, maximize
from .evidence import likelihoods
from .factors import Factor
from .junction_tree import JunctionTree, _batch_size
from .results import JointPosterior, Posterior, Posteriors, QueryTrace

__all__ = ["Distribution", "Mixture", "MostProbableState", "METHODS"]

#: The inference methods of :meth:`Distribution.query`.
METHODS = ("auto", "junction-tree", "variable-elimination", "loopy", "gbp", "likelihood-weighting")


class MostProbableState:
    """The answer of :meth:`Distribution.map_query`.

    Attributes
    ----------
    states : dict
        The most probable state of each asked variable (a DataFrame, one row per evidence set,
        for batched evidence).
    probability : float or ndarray
        ``P(states | evidence)``.
    log_probability : float or ndarray
        Its natural log.
    """

    def __init__(self, states: Any, log_probability: Any) -> None:
        self.states = states
        self.log_probability = log_probability
        self.probability = np.exp(log_probability)

    def __repr__(self) -> str:
        if isinstance(self.states, pd.DataFrame):
            return f"MostProbableState({len(self.states)} evidence sets)"
        return f"MostProbableState(states={self.states!r}, probability={float(self.probability):.6g})"

    def _repr_html_(self) -> str:
        from .._display import format_value, render, safe_html

        def build() -> str:
            if isinstance(self.states, pd.DataFrame):
                return render(repr(self), [("states", f"{len(self.states)} rows: see .states")])
            rows = [(format_value(k), format_value(v)) for k, v in self.states.items()]
            return render("most probable state", [*rows, ("probability", f"{float(self.probability):.6g}")])

        return safe_html(self, build)

    def __iter__(self):  # ``states, probability = model.map_query()``
        yield self.states
        yield self.probability


class _Questions:
    """What :class:`Distribution` and :class:`Mixture` share: names, states and result tables."""

    variables: list[Hashable]
    states: dict[Hashable, list[Any]]

    def _positions(self, variables: Any) -> list[int]:
        from .evidence import _variable_index

        if variables is None:
            return list(range(len(self.variables)))
        if isinstance(variables, (str, bytes)) or not isinstance(variables, Iterable):
            variables = [variables]
        positions = [_variable_index(self.variables, self._index, v) for v in variables]
        if len(set(positions)) != len(positions):
            raise ValueError(f"A variable is asked twice: {list(variables)}.")
        if not positions:
            raise ValueError("`variables` is empty: name at least one variable.")
        return positions

    @property
    def _index(self) -> dict[Hashable, int]:
        index = self.__dict__.get("_index_cache")
        if index is None:
            index = {}
            for k, v in enumerate(self.variables):
                try:
                    index[v] = k
                except TypeError:
                    pass
            self.__dict__["_index_cache"] = index
        return index

    def _state_labels(self, name: Hashable) -> pd.Index:
        """The states of `name` as a pandas Index (built once: pandas' constructors cost more than a query)."""
        cache = self.__dict__.setdefault("_state_label_cache", {})
        labels = cache.get(name)
        if labels is None:
            labels = cache[name] = pd.Index(self.states[name], dtype=object, name=name)
        return labels

    def _state_lists(self) -> list[list[Any]]:
        return [self.states[v] for v in self.variables]

    def _evidence(self, evidence):
        table, n_rows = likelihoods(evidence, self.variables, self._state_lists())
        rows = evidence.index if isinstance(evidence, pd.DataFrame) else None
        return table, n_rows, rows

    def _marginal_result(self, positions, marginals, rows, evidence=None):
        """A Posterior per variable (a Posteriors of them for several); DataFrames for batched evidence."""
        if isinstance(evidence, Mapping):
            evidence = dict(evidence)  # the answer's title: the evidence as asked, whatever the caller does next
        results = {}
        for k in positions:
            name = self.variables[k]
            values = marginals[k]
            labels = self._state_labels(name)
            if rows is None:
                series = Posterior(np.asarray(values).reshape(-1), index=labels, name=name, copy=False)
                series.evidence = evidence
                results[name] = series
            else:
                frame = pd.DataFrame(np.asarray(values).reshape(len(rows), -1), index=rows, columns=labels)
                results[name] = frame
        if len(positions) == 1:
            return results[self.variables[positions[0]]]
        if rows is None:
            several = Posteriors(results)
            several.evidence = evidence
            return several
        return results

    def _joint_result(self, positions, joint, rows, evidence=None):
        names = [self.variables[k] for k in positions]
        index = pd.MultiIndex.from_product([self.states[n] for n in names], names=names)
        if rows is None:
            answer = JointPosterior({"probability": np.asarray(joint).reshape(-1)}, index=index)
            answer.evidence = dict(evidence) if isinstance(evidence, Mapping) else evidence
            return answer
        return pd.DataFrame(np.asarray(joint).reshape(len(rows), -1), index=rows, columns=index)

    def _state_result(self, positions, states, log_probability, rows):
        names = [self.variables[k] for k in positions]
        if rows is None:
            chosen = {n: self.states[n][int(s)] for n, s in zip(names, np.asarray(states).reshape(-1))}
            return MostProbableState(chosen, float(log_probability))
        frame = pd.DataFrame(
            {n: [self.states[n][int(s)] for s in states[:, j]] for j, n in enumerate(names)}, index=rows
        )
        return MostProbableState(frame, np.asarray(log_probability))


def _impossible(log_evidence: np.ndarray, rows) -> None:
    bad = ~np.isfinite(np.asarray(log_evidence).reshape(-1))
    if bad.any():
        if rows is None:
            raise ValueError("The evidence has probability zero under the model: no posterior exists.")
        listed = ", ".join(map(repr, list(rows[bad])[:10])) + (", ..." if bad.sum() > 10 else "")
        raise ValueError(f"The evidence of {int(bad.sum())} row(s) has probability zero under the model: {listed}.")


class Distribution(_Questions):
    """A discrete distribution proportional to a product of named factors.

    Parameters
    ----------
    factors : sequence of Factor
        The distribution is ``prod_f f / Z``; a factor's states must agree with every other
        factor over the same variable.
    variables : sequence of hashable, optional
        The variables and their order (default: as the factors first name them). A variable
        in no factor is uniform.
    states : mapping, optional
        The states of variables in no factor.
    children : sequence, optional
        For a Bayesian network, the child of each factor (its conditional probability table
        ``P(child | the others)``): enables forward sampling, likelihood weighting and the
        DAG of :attr:`graph`.
    max_cells : int, default=10_000_000
        The largest clique or elimination table of the exact methods.
    heuristic : {"min-fill", "min-weight", "min-degree"}
        The elimination order of the exact methods.
    region_graph : nx.DiGraph, optional
        A region graph for ``method="gbp"`` (frozenset regions with ``counting_number``); by
        default the cluster variation method's graph of the factors' scopes.

    Examples
    --------
    >>> rain = Factor.from_values(["rain"], [0.8, 0.2], [["no", "yes"]])
    >>> wet = Factor.from_values(["rain", "wet"], [[0.9, 0.1], [0.2, 0.8]], [["no", "yes"], ["no", "yes"]])
    >>> d = Distribution([rain, wet], children=["rain", "wet"])
    >>> d.query("rain", evidence={"wet": "yes"}).round(4).to_dict()
    {'no': 0.3333, 'yes': 0.6667}
    >>> d.map_query().states
    {'rain': 'no', 'wet': 'no'}
    """

    def __init__(
        self,
        factors: Sequence[Factor],
        *,
        variables: Sequence[Hashable] | None = None,
        states: Mapping[Hashable, Sequence[Any]] | None = None,
        children: Sequence[Hashable] | None = None,
        max_cells: int = DEFAULT_MAX_CELLS,
        heuristic: str = "min-fill",
        region_graph: nx.DiGraph | None = None,
        name: str | None = None,
    ) -> None:
        factors = list(factors)
        known: dict[Hashable, list[Any]] = {}
        order: list[Hashable] = [] if variables is None else list(variables)
        for factor in factors:
            if not isinstance(factor, Factor):
                raise TypeError(f"`factors` must hold Factor objects, got {type(factor).__name__}.")
            for v, s in zip(factor.variables, factor.states):
                if v in known:
                    if known[v] != list(s):
                        raise ValueError(f"Two factors list different states of {v!r}: {known[v]} and {list(s)}.")
                else:
                    known[v] = list(s)
                if variables is None and v not in order:
                    order.append(v)
        for v, given in (states or {}).items():
            if v not in known:
                known[v] = list(given)
            if variables is None and v not in order:
                order.append(v)
        missing = [v for v in order if v not in known]
        if missing:
            raise ValueError(f"No factor or `states` entry gives the states of {missing}.")
        extra = [v for v in known if v not in order]
        if extra:
            raise ValueError(f"Factors mention variables not in `variables`: {extra}.")
        self.variables = order
        self.states = {v: known[v] for v in order}
        self.factors = factors
        if children is not None:
            children = list(children)
            if len(children) != len(factors):
                raise ValueError(f"`children` must name one child per factor ({len(factors)}), got {len(children)}.")
        self.children = children
        self.max_cells = max_cells
        self.heuristic = heuristic
        self.region_graph = region_graph
        self.name = name
        index = self._index
        self._cards = [len(self.states[v]) for v in order]
        self._factors = [(tuple(index[v] for v in f.variables), f.log_values) for f in factors]
        self._tree: JunctionTree | None = None
        self._log_partition: float | None = None

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"Distribution({label}{len(self.variables)} variables, {len(self.factors)} factors)"

    # -- structure ---------------------------------------------------------------------------

    @property
    def graph(self) -> nx.Graph:
        """The DAG of a Bayesian network (``children`` given), else the interaction graph."""
        if self.children is not None:
            dag = nx.DiGraph()
            dag.add_nodes_from(self.variables)
            for factor, child in zip(self.factors, self.children):
                dag.add_edges_from((parent, child) for parent in factor.variables if parent != child)
            return dag
        return self.interaction_graph

    @property
    def interaction_graph(self) -> nx.Graph:
        """Variables joined when some factor holds both (the moral graph of a Bayesian network)."""
        graph = nx.Graph()
        graph.add_nodes_from(self.variables)
        for factor in self.factors:
            scope = factor.variables
            graph.add_edges_from((a, b) for i, a in enumerate(scope) for b in scope[i + 1 :])
        for v in self.variables:
            graph.nodes[v]["cardinality"] = len(self.states[v])
        return graph

    @property
    def factor_graph(self) -> nx.Graph:
        """The factor graph of loopy belief propagation: each factor joined to its variables.

        Variables are nodes with ``kind="variable"`` (and ``cardinality``); each factor is a
        node with ``kind="factor"`` (and ``size``): the frozenset of its variables, or the pair
        ``(frozenset, k)`` for the k-th factor when several share a scope.
        """
        return self._factor_graph()[0]

    def junction_tree(self) -> JunctionTree:
        """The junction tree of the exact methods, compiled on first use and kept."""
        if self._tree is None:
            self._tree = JunctionTree(
                self._factors, self._cards, heuristic=self.heuristic, max_cells=self.max_cells, names=self.variables
            )
        return self._tree

    def _eliminate(self, keep, table):
        """Variable elimination on this distribution's factors (see :func:`~graphmodels.inference.eliminate`)."""
        return eliminate(
            self._factors,
            self._cards,
            keep,
            table,
            heuristic=self.heuristic,
            max_cells=self.max_cells,
            names=self.variables,
        )

    def _maximize(self, positions, table):
        """Marginal MAP on this distribution's factors (see :func:`~graphmodels.inference.maximize`)."""
        return maximize(
            self._factors,
            self._cards,
            positions,
            table,
            heuristic=self.heuristic,
            max_cells=self.max_cells,
            names=self.variables,
        )

    def log_partition(self) -> float:
        """``log Z``: the log of the sum of the factors' product over every state."""
        if self._log_partition is None:
            _, log_z = self.junction_tree().marginals([], {})
            self._log_partition = float(log_z)
        return self._log_partition

    # -- questions -----------------------------------------------------------------------------

    def probability(self, evidence: Mapping[Hashable, Any] | pd.DataFrame, *, log: bool = False) -> Any:
        """``P(evidence)`` (a likelihood-weighted probability for soft evidence); one per row of a DataFrame."""
        table, n_rows, rows = self._evidence(evidence)
        _, log_e = self.junction_tree().marginals([], table)
        value = np.asarray(log_e) - self.log_partition()
        if rows is not None:
            return pd.Series(value if log else np.exp(value), index=rows)
        return float(value) if log else float(np.exp(value))

    def _log_marginals(self, positions, table, method, options, trace):
        """Normalized marginals of `positions` and ``log Z(evidence)``, by `method`."""
        if method in ("auto", "junction-tree"):
            return self.junction_tree().marginals(positions, table, trace=trace)
        if method == "variable-elimination":
            result = {}
            log_e = None
            for k in positions:
                values, log_e, _ = self._eliminate((k,), table)
                result[k] = values
            if log_e is None:
                _, log_e, _ = self._eliminate((), table)
            return result, log_e
        if _batch_size(table) is not None:
            raise ValueError(f'method="{method}" answers one evidence set at a time; pass a dict, not a DataFrame.')
        if method == "loopy":
            from .belief_propagation import loopy_belief_propagation

            result = loopy_belief_propagation(self._factors, self._cards, table, trace=trace, **options)
            self.last_run = result
            return {k: result.marginals[k] for k in positions}, np.asarray(0.0)
        if method == "gbp":
            from .generalized_bp import generalized_belief_propagation

            regions = self._gbp_regions()
            result = generalized_belief_propagation(self._factors, self._cards, regions, table, trace=trace, **options)
            self.last_run = result
            return {k: result.marginals[k] for k in positions}, np.asarray(0.0)
        if method == "likelihood-weighting":
            from .sampling import likelihood_weighting

            result = likelihood_weighting(self, positions, table, **options)
            self.last_run = result
            return result.marginals, np.asarray(0.0)
        raise ValueError(f"`method` must be one of {', '.join(map(repr, METHODS))}, got {method!r}.")

    def _gbp_regions(self):
        from .generalized_bp import region_graph_of_scopes

        if self.region_graph is not None:
            index = self._index
            graph = nx.relabel_nodes(self.region_graph, {r: frozenset(index[v] for v in r) for r in self.region_graph})
            covered = set().union(*graph.nodes) if len(graph) else set()
            for v in range(len(self._cards)):  # a variable in no region: a region of its own
                if v not in covered:
                    graph.add_node(frozenset([v]), counting_number=1)
            return graph
        return region_graph_of_scopes([scope for scope, _ in self._factors], len(self._cards))

    def query(
        self,
        variables: Any,
        evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None,
        *,
        joint: bool = False,
        method: str = "auto",
        trace: list | None = None,
        **options: Any,
    ) -> Any:
        """The posterior of `variables` given `evidence`.

        Parameters
        ----------
        variables : hashable or sequence of hashable
            One variable or several.
        evidence : mapping or DataFrame, optional
            ``{variable: state}``; soft evidence ``{variable: {state: likelihood}}``; or a
            DataFrame with one evidence set per row (missing cells unobserved).
        joint : bool, default=False
            The joint of `variables` instead of each one's marginal.
        method : {"auto", "junction-tree", "variable-elimination", "loopy", "gbp", "likelihood-weighting"}
            ``"auto"`` is exact (the junction tree; variable elimination for a joint that no
            clique holds). The last three are approximate.
        trace : bool or list, optional
            ``True``: return a :class:`~graphmodels.inference.results.QueryTrace`, the answer
            with every message passed to reach it (the junction tree's messages towards the
            cliques asked about, all computed afresh: its cache is neither used nor changed;
            every message of every sweep of loopy BP or GBP), for one evidence set and
            marginals. A list: the messages computed are appended to it as
            :class:`~graphmodels.inference.Message` s (messages the junction tree reuses are
            not computed again, so not appended).
        **options
            For the approximate methods: ``damping``, ``max_iter``, ``tol`` (loopy, GBP),
            ``n_samples``, ``random_state`` (likelihood weighting).

        Returns
        -------
        Posterior, Posteriors, JointPosterior, DataFrame or QueryTrace
            One variable: a :class:`~graphmodels.inference.results.Posterior`, a pandas Series
            indexed by its states. Several: a dict of such Series (a ``Posteriors``), or with
            ``joint=True`` a DataFrame indexed by the states of all (a MultiIndex) with a
            ``probability`` column (a ``JointPosterior``); these display in a notebook as
            tables with bars. With a DataFrame of evidence, one row per evidence set: a plain
            DataFrame whose columns are the states (a dict of them for several variables).
            With ``trace=True``, a ``QueryTrace`` holding the answer.

        Raises
        ------
        ValueError
            For an unknown variable, state or method, evidence of probability zero, or an
            approximate method with a batch of evidence; ``trace=True`` with a batch of
            evidence, a joint, or a method that passes no messages.
        TableTooLargeError
            When the exact method's largest table would pass ``max_cells``.
        """
        positions = self._positions(variables)
        table, n_rows, rows = self._evidence(evidence)
        if method not in METHODS:
            raise ValueError(f"`method` must be one of {', '.join(map(repr, METHODS))}, got {method!r}.")
        if trace is False:
            trace = None
        if trace is True:
            return self._traced_query(positions, table, n_rows, joint, method, options, evidence)
        if trace is not None and not isinstance(trace, list):
            raise TypeError(f"`trace` must be True, False, None or a list, got {type(trace).__name__}.")
        if joint and len(positions) > 1:
            if method not in ("auto", "junction-tree", "variable-elimination"):
                raise ValueError(f'A joint query is exact: use method="auto", not {method!r}.')
            values, log_e = self._joint(positions, table, method)
            _impossible(log_e, rows)
            return self._joint_result(positions, values, rows, evidence)
        marginals, log_e = self._log_marginals(positions, table, method, options, trace)
        _impossible(log_e, rows)
        return self._marginal_result(positions, marginals, rows, evidence)

    def _traced_query(self, positions, table, n_rows, joint, method, options, evidence) -> QueryTrace:
        """The answer of a marginal query with every message passed to reach it (see :meth:`query`)."""
        if n_rows is not None:
            raise ValueError("trace=True follows one evidence set: pass a dict, not a DataFrame.")
        if joint and len(positions) > 1:
            raise ValueError("trace=True traces marginals: ask with joint=False.")
        if method not in ("auto", "junction-tree", "loopy", "gbp"):
            raise ValueError(
                f'trace=True records the messages of the junction tree, loopy BP and GBP; method="{method}" '
                'passes none: use method="auto", "loopy" or "gbp".'
            )
        messages: list = []
        if method in ("auto", "junction-tree"):
            tree = self.junction_tree()
            kept, tree._cache = tree._cache, {}  # every message of the answer, computed afresh
            try:
                marginals, log_e = tree.marginals(positions, table, trace=messages)
            finally:
                tree._cache = kept
            _impossible(log_e, None)
            graph = tree.graph
            nodes = [frozenset(self.variables[v] for v in clique) for clique in tree.cliques]
            targets = [nodes[tree.home[k]] for k in positions]
            sources = [nodes[m.source] for m in messages]
            receivers = [nodes[m.target] for m in messages]
            name, run = "junction tree", None
        else:
            marginals, _ = self._log_marginals(positions, table, method, options, messages)
            run = self.last_run
            if method == "loopy":
                graph, factor_nodes = self._factor_graph()
                sources = [factor_nodes[m.source] for m in messages]
                receivers = [self.variables[m.target] for m in messages]
                targets = [self.variables[k] for k in positions]
                name = "loopy belief propagation"
            else:
                regions = list(self._gbp_regions())
                named = [frozenset(self.variables[v] for v in r) for r in regions]
                graph = nx.relabel_nodes(self._gbp_regions(), dict(zip(regions, named)))
                sources = [named[m.source] for m in messages]
                receivers = [named[m.target] for m in messages]
                targets = [
                    named[min((j for j, r in enumerate(regions) if k in r), key=lambda j: (len(regions[j]), j))]
                    for k in positions
                ]
                name = "generalized belief propagation"
        from .results import message_frame, message_table

        rows = []
        for step, (message, source, target) in enumerate(zip(messages, sources, receivers)):
            names = [self.variables[v] for v in message.separator]
            rows.append(
                {
                    "step": step,
                    "iteration": message.iteration,
                    "kind": "sum" if message.iteration is None else message.kind.split()[0],
                    "source": source,
                    "target": target,
                    "separator": tuple(names),
                    "table": message_table(message.values, names, self.states),
                }
            )
        answer = self._marginal_result(positions, marginals, None, evidence)
        return QueryTrace(answer, message_frame(rows), graph, name, targets, evidence, run)

    def _factor_graph(self) -> tuple[nx.Graph, list[Any]]:
        """The factor graph of loopy BP, and the node of each factor (its scope; ``(scope, k)`` when shared)."""
        scopes = [frozenset(self.variables[v] for v in scope) for scope, _ in self._factors]
        shared = {s for s in scopes if scopes.count(s) > 1}
        factor_nodes: list[Any] = [(s, k) if s in shared else s for k, s in enumerate(scopes)]
        graph = nx.Graph()
        for v in self.variables:
            graph.add_node(v, kind="variable", cardinality=len(self.states[v]))
        for (scope, _), node in zip(self._factors, factor_nodes):
            graph.add_node(node, kind="factor", size=len(scope))
            graph.add_edges_from((node, self.variables[v]) for v in scope)
        return graph, factor_nodes

    def _joint(self, positions, table, method):
        tree = self.junction_tree() if method != "variable-elimination" else None
        if tree is not None:
            holder = next((c for c, clique in enumerate(tree.cliques) if set(positions) <= set(clique)), None)
            if holder is not None:
                beliefs = tree.beliefs(table, [holder])
                values, log_e = beliefs[holder]
                clique = tree.cliques[holder]
                from ._tables import combine

                joint = combine([(values, clique)], tuple(positions), batched=[values.ndim > len(clique)])
                return joint, log_e
        values, log_e, _ = self._eliminate(positions, table)
        return values, log_e

    def map_query(
        self, variables: Any = None, evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None
    ) -> MostProbableState:
        """The most probable joint state of `variables` given `evidence`, and its probability.

        With ``variables=None`` it is the most probable explanation (MPE) of every unobserved
        variable, by max-product on the junction tree; for a subset it is the marginal MAP,
        ``argmax_{x_V} sum_{x_rest} P(x_V, x_rest | evidence)``, by variable elimination with
        the summed variables eliminated first. Ties go to the first state.

        Returns
        -------
        MostProbableState
            ``states`` (a dict; a DataFrame for batched evidence) and ``probability``,
            ``P(states | evidence)``; it unpacks as ``states, probability``.
        """
        table, n_rows, rows = self._evidence(evidence)
        if variables is None:
            tree = self.junction_tree()
            states, log_value = tree.mpe(table)
            _, log_e = tree.marginals([], table)
            positions = [
                k
                for k in range(len(self.variables))
                if k not in table or table[k].ndim == 2 or (table[k] > 0).sum() > 1
            ]
            _impossible(log_e, rows)
            chosen = states[..., positions]
            return self._state_result(positions, chosen, np.asarray(log_value) - np.asarray(log_e), rows)
        positions = self._positions(variables)
        states, log_value, log_e, _ = self._maximize(positions, table)
        _impossible(log_e, rows)
        return self._state_result(positions, states, np.asarray(log_value) - np.asarray(log_e), rows)

    def sample(
        self,
        n_samples: int,
        evidence: Mapping[Hashable, Any] | None = None,
        *,
        random_state: Any = None,
        method: str = "exact",
    ) -> pd.DataFrame:
        """Samples of every variable given `evidence`.

        Parameters
        ----------
        n_samples : int
        evidence : mapping, optional
            One evidence set (hard or soft).
        random_state : int, Generator or None
        method : {"exact", "likelihood-weighting"}
            ``"exact"`` draws from ``P(x | evidence)`` through the calibrated junction tree;
            ``"likelihood-weighting"`` (Bayesian networks) samples the unobserved variables
            forward from their conditional tables with the evidence clamped and returns each
            sample's weight in a ``weight`` column (Fung & Chang 1990).

        Returns
        -------
        DataFrame
            One row per sample, one column per variable (states by name).
        """
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
            raise ValueError(f"`n_samples` must be an integer >= 0, got {n_samples!r}.")
        if isinstance(evidence, pd.DataFrame):
            raise ValueError("`sample` takes one evidence set (a dict), not a DataFrame.")
        table, _, _ = self._evidence(evidence)
        if method == "exact":
            codes = self.junction_tree().sample(int(n_samples), table, random_state=random_state)
            return self._decode(codes)
        if method == "likelihood-weighting":
            from .sampling import weighted_samples

            codes, weights = weighted_samples(self, int(n_samples), table, random_state=random_state)
            frame = self._decode(codes)
            frame["weight"] = weights
            return frame
        raise ValueError(f"`method` must be 'exact' or 'likelihood-weighting', got {method!r}.")

    def _decode(self, codes: np.ndarray) -> pd.DataFrame:
        """Codes to a frame of state labels (object columns, one cell per label: tuple states stay whole)."""
        columns = {}
        for k, v in enumerate(self.variables):
            labels = np.empty(len(self.states[v]), dtype=object)
            for j, label in enumerate(self.states[v]):
                labels[j] = label
            columns[v] = labels[codes[:, k]]
        return pd.DataFrame(columns, index=range(len(codes)))


class Mixture(_Questions):
    """A mixture of distributions over the same variables, the component label a variable or hidden.

    ``P(label = c, x) = w_c P_c(x)``: the Chow-Liu multinet (one forest per class, the class the
    label) and the AnDE ensemble (the average of its members' joints, the member hidden) are
    mixtures.

    Parameters
    ----------
    components : sequence of Distribution
        Over the same variables and states.
    weights : array-like
        Non-negative mixing weights (normalized here).
    label : hashable, optional
        The name of the component label as a variable (queryable, and usable as evidence);
        None for a hidden component.
    labels : sequence, optional
        The label's states, one per component (default ``0 .. m - 1``).
    normalized : bool, default=True
        Whether ``P(label = c, x) = w_c P_c(x)`` with each component normalized (a mixture of
        distributions), or ``∝ w_c prod f_c(x)`` with the components' unnormalized products
        (a model of log-potentials, such as a discriminatively fitted multinet).
    """

    def __init__(
        self,
        components: Sequence[Distribution],
        weights: Any,
        *,
        label: Hashable | None = None,
        labels: Sequence[Any] | None = None,
        normalized: bool = True,
        name: str | None = None,
    ) -> None:
        components = list(components)
        if not components:
            raise ValueError("A mixture needs at least one component.")
        weights = np.asarray(weights, dtype=np.float64)
        if (
            weights.shape != (len(components),)
            or (weights < 0).any()
            or not np.isfinite(weights).all()
            or weights.sum() <= 0
        ):
            raise ValueError(f"`weights` must be {len(components)} non-negative finite numbers, not all 0.")
        first = components[0]
        for c in components[1:]:
            if c.variables != first.variables or c.states != first.states:
                raise ValueError("The components of a mixture must have the same variables and states.")
        self.components = components
        with np.errstate(divide="ignore"):
            self.log_weights = np.log(weights / weights.sum())
        self.label = label
        self.labels = list(range(len(components))) if labels is None else list(labels)
        if len(self.labels) != len(components):
            raise ValueError(f"`labels` must name each of the {len(components)} components.")
        inner = list(first.variables)
        if label is not None and label in inner:
            raise ValueError(f"The label {label!r} is also a variable of the components.")
        self.variables = ([label] if label is not None else []) + inner
        self.states = ({label: self.labels} if label is not None else {}) | dict(first.states)
        self.normalized = normalized
        self.name = name

    def __repr__(self) -> str:
        what = f"label {self.label!r}" if self.label is not None else "hidden label"
        return f"Mixture({len(self.components)} components, {what}, {len(self.variables)} variables)"

    @property
    def graph(self) -> nx.Graph:
        """The mixture's Markov network: the components' interaction graphs, the label joined to every variable.

        A hidden label couples every pair of variables (summing it out joins them all): the
        graph is then complete.
        """
        graph = nx.Graph()
        graph.add_nodes_from(self.variables)
        inner = self.variables[self._offset :]
        if self.label is None and len(self.components) > 1:
            graph.add_edges_from((a, b) for i, a in enumerate(inner) for b in inner[i + 1 :])
        for component in self.components:
            graph.add_edges_from(component.interaction_graph.edges)
        if self.label is not None:
            graph.add_edges_from((self.label, v) for v in inner)
        return graph

    def _log_offsets(self) -> list[float]:
        """What turns ``log w_c + log Z_c(evidence)`` into ``log P(component c, evidence)``."""
        if self.normalized:
            return [-c.log_partition() for c in self.components]
        total = float(logsumexp(self.log_weights + np.array([c.log_partition() for c in self.components])))
        return [-total] * len(self.components)

    @property
    def _offset(self) -> int:
        return 1 if self.label is not None else 0

    def _split(self, table):
        """The label's likelihood (log, per component) and the components' evidence."""
        offset = self._offset
        inner = {k - offset: v for k, v in table.items() if k >= offset}
        log_w = self.log_weights
        if offset and 0 in table:
            with np.errstate(divide="ignore"):
                log_w = log_w + np.log(table[0])  # (m,) or (n, m)
        return log_w, inner

    def _component_marginals(self, positions, table, method, options):
        log_w, inner = self._split(table)
        inner_positions = [k - self._offset for k in positions if k >= self._offset]
        results = []
        log_es = []
        for c, offset in zip(self.components, self._log_offsets()):
            marginals, log_e = c._log_marginals(inner_positions, inner, method, options, None)
            results.append(marginals)
            log_es.append(np.asarray(log_e) + offset)
        log_post = np.stack(log_es, axis=-1) + log_w  # (..., m)
        log_total = logsumexp(log_post, axis=-1)
        with np.errstate(invalid="ignore"):
            posterior = np.exp(log_post - np.asarray(log_total)[..., None])
        posterior = np.where(np.isfinite(log_post), posterior, 0.0)
        return results, posterior, log_total, inner_positions

    def probability(self, evidence: Mapping[Hashable, Any] | pd.DataFrame, *, log: bool = False) -> Any:
        """``P(evidence)``; one per row of a DataFrame."""
        table, _, rows = self._evidence(evidence)
        _, _, log_total, _ = self._component_marginals([], table, "auto", {})
        value = np.asarray(log_total)
        if rows is not None:
            return pd.Series(value if log else np.exp(value), index=rows)
        return float(value) if log else float(np.exp(value))

    def query(
        self,
        variables: Any,
        evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None,
        *,
        joint: bool = False,
        method: str = "auto",
        trace: Any = None,
        **options: Any,
    ) -> Any:
        """The posterior of `variables` given `evidence` (see :meth:`Distribution.query`).

        Each component answers with its own posterior and the probability it gives the
        evidence; the mixture's posterior weighs the components' answers by
        ``P(component | evidence)``. A mixture passes no messages of its own: ``trace`` is
        asked of a component (``mixture.components[k].query(..., trace=True)``).
        """
        if trace is not None and trace is not False:
            raise ValueError(
                f"A mixture of {len(self.components)} distributions answers from its components' messages: "
                "trace one component, e.g. model.distribution().components[0].query(variables, evidence, trace=True)."
            )
        positions = self._positions(variables)
        table, _, rows = self._evidence(evidence)
        if method not in METHODS:
            raise ValueError(f"`method` must be one of {', '.join(map(repr, METHODS))}, got {method!r}.")
        if joint and len(positions) > 1:
            return self._joint_query(positions, table, rows, method, evidence)
        results, posterior, log_total, _ = self._component_marginals(positions, table, method, options)
        _impossible(log_total, rows)
        marginals = {}
        for k in positions:
            if self._offset and k == 0:
                marginals[k] = posterior
            else:
                stacked = np.stack([r[k - self._offset] * np.ones_like(posterior[..., :1]) for r in results], axis=-2)
                marginals[k] = np.einsum("...m,...mr->...r", posterior, stacked)
        return self._marginal_result(positions, marginals, rows, evidence)

    def _joint_query(self, positions, table, rows, method, evidence=None):
        log_w, inner = self._split(table)
        inner_positions = [k - self._offset for k in positions if k >= self._offset]
        joints = []
        log_es = []
        for c, offset in zip(self.components, self._log_offsets()):
            if inner_positions:
                values, log_e = c._joint(inner_positions, inner, method)
            else:
                _, log_e = c.junction_tree().marginals([], inner)
                values = np.ones(np.shape(log_e))
            joints.append(values)
            log_es.append(np.asarray(log_e) + offset)
        log_post = np.stack(log_es, axis=-1) + log_w
        log_total = logsumexp(log_post, axis=-1)
        _impossible(log_total, rows)
        posterior = np.where(np.isfinite(log_post), np.exp(log_post - np.asarray(log_total)[..., None]), 0.0)
        batch_shape = posterior.shape[:-1]
        inner_shape = tuple(len(self.states[self.variables[k + self._offset]]) for k in inner_positions)
        stacked = np.stack([np.broadcast_to(j, batch_shape + inner_shape) for j in joints], axis=len(batch_shape))
        weighted = stacked * posterior.reshape(posterior.shape + (1,) * len(inner_shape))
        lead = len(batch_shape)
        if self._offset and 0 in positions:  # the label's axis where the label is asked
            axes = [lead if k == 0 else lead + 1 + inner_positions.index(k - self._offset) for k in positions]
            joint = np.transpose(weighted, list(range(lead)) + axes)
        else:
            joint = weighted.sum(axis=lead)
        return self._joint_result(positions, joint, rows, evidence)

    def map_query(
        self, variables: Any = None, evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None
    ) -> MostProbableState:
        """The most probable joint state (see :meth:`Distribution.map_query`).

        With the label among the variables (or ``variables=None`` and a named label), it is the
        best component's own most probable state, weighed by its weight: exact. Over a hidden
        label, the state maximizes the *mixture's* joint of `variables`, built by variable
        elimination in each component (bounded by ``max_cells``).
        """
        positions = self._positions(variables)
        table, _, rows = self._evidence(evidence)
        log_w, inner = self._split(table)
        inner_positions = [k - self._offset for k in positions if k >= self._offset]
        if self._offset and 0 in positions:
            log_es = []
            candidates = []
            for c, offset in zip(self.components, self._log_offsets()):
                if inner_positions:
                    states, log_value, log_e, _ = c._maximize(inner_positions, inner)
                else:
                    _, log_e = c.junction_tree().marginals([], inner)
                    log_value = log_e
                    states = np.zeros(np.shape(log_e) + (0,), dtype=np.intp)
                candidates.append((states, np.asarray(log_value) + offset))
                log_es.append(np.asarray(log_e) + offset)
            scores = np.stack([value for _, value in candidates], axis=-1) + log_w
            log_total = logsumexp(np.stack(log_es, axis=-1) + log_w, axis=-1)
            _impossible(log_total, rows)
            best = scores.argmax(axis=-1)
            top = np.take_along_axis(scores, np.asarray(best)[..., None], axis=-1)[..., 0]
            stacked = np.stack([s for s, _ in candidates], axis=-2)  # (..., m, k)
            chosen_inner = np.take_along_axis(stacked, np.asarray(best)[..., None, None], axis=-2)[..., 0, :]
            columns = []
            for k in positions:
                columns.append(best if k == 0 else chosen_inner[..., inner_positions.index(k - self._offset)])
            return self._state_result(positions, np.stack(columns, axis=-1), top - log_total, rows)
        # Hidden label (or label not asked): the mixture's joint of the variables, maximized.
        joint = self._joint_query(positions, table, rows, "auto")
        values = joint.to_numpy()
        if rows is None:
            values = values.reshape(-1)
            best = int(values.argmax())
            cell = np.unravel_index(best, [len(self.states[self.variables[k]]) for k in positions])
            with np.errstate(divide="ignore"):
                return self._state_result(positions, np.asarray(cell), float(np.log(values[best])), None)
        best = values.argmax(axis=1)
        codes = np.stack(np.unravel_index(best, [len(self.states[self.variables[k]]) for k in positions]), axis=-1)
        with np.errstate(divide="ignore"):
            return self._state_result(positions, codes, np.log(values[np.arange(len(best)), best]), rows)

    def sample(
        self, n_samples: int, evidence: Mapping[Hashable, Any] | None = None, *, random_state: Any = None
    ) -> pd.DataFrame:
        """Exact samples given `evidence`: a component by its posterior, then a sample of it."""
        if isinstance(evidence, pd.DataFrame):
            raise ValueError("`sample` takes one evidence set (a dict), not a DataFrame.")
        rng = np.random.default_rng(random_state)
        table, _, _ = self._evidence(evidence)
        _, posterior, log_total, _ = self._component_marginals([], table, "auto", {})
        _impossible(log_total, None)
        counts = rng.multinomial(int(n_samples), posterior / posterior.sum())
        _, inner = self._split(table)
        parts = []
        for c, (component, count) in enumerate(zip(self.components, counts)):
            if count == 0:
                continue
            part = (
                component.sample(int(count), None, random_state=rng)
                if not inner
                else component._decode(component.junction_tree().sample(int(count), inner, random_state=rng))
            )
            if self.label is not None:
                part.insert(0, self.label, [self.labels[c]] * int(count))
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=self.variables)
        order = rng.permutation(len(frame))
        return frame.iloc[order].reset_index(drop=True)[self.variables]
