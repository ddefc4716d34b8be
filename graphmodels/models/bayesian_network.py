"""A Bayesian network over all the variables: structure learned (or given), parameters fitted, queried."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._trace import combine_traces
from .._validation import InstanceOf, Interval, Options, Predicate
from ..learners.constraint_search import mmhc, pc_stable
from ..learners.score_search import SEARCH_SCORES, exact_search, hill_climbing
from ..stats.counting import DEFAULT_MAX_CELLS, CountingEngine
from ..stats.independence import CI_TESTS
from ..structures.dags import cpdag, pdag_to_dag
from ..structures.knowledge import expert_knowledge
from . import _fitted
from .base import BaseDensity
from .em import _slots_tree, completions, expectation_maximization, network_log_likelihood
from .queries import Queryable
from .registry import register_model
from .tables import ConditionalTables, column_states

if TYPE_CHECKING:
    import pandas as pd

    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork

__all__ = ["BayesianNetwork", "STRUCTURE_SEARCHES", "MISSING_POLICIES"]

#: The structure searches of :class:`BayesianNetwork` (or a given ``nx.DiGraph``).
STRUCTURE_SEARCHES = ("hill-climb", "tabu", "pc", "mmhc", "exact")

#: What :class:`BayesianNetwork` does with missing cells.
MISSING_POLICIES = ("value", "error", "available-case", "em", "structural-em")

#: Completions drawn per incomplete row by each round of structural EM.
SEM_COMPLETIONS = 4

#: Rounds of structural EM at most (each: completions, a search, EM).
SEM_MAX_ROUNDS = 10


def _arcs_or_none(value: Any) -> bool:
    if value is None or isinstance(value, nx.Graph):
        return True
    if isinstance(value, (str, bytes)):
        return False
    try:
        return all(not isinstance(arc, (str, bytes)) and len(arc) == 2 for arc in value)
    except TypeError:
        return False


def _node_or_nodes(value: Any) -> bool:
    """A column name (a string, number or tuple) or a list of them."""
    if value is None or isinstance(value, (str, bytes, numbers.Number, tuple)):
        return True
    return isinstance(value, (list, set, frozenset)) and all(
        isinstance(v, (str, bytes, numbers.Number, tuple)) for v in value
    )


def _latent_spec(value: Any) -> bool:
    return value is None or (
        isinstance(value, Mapping)
        and all(isinstance(r, numbers.Integral) and not isinstance(r, bool) and int(r) >= 2 for r in value.values())
    )


@register_model("bayesian-network")
class BayesianNetwork(BaseDensity, ConditionalTables, Queryable):
    """A Bayesian network over all the variables, its DAG learned from the data or given.

    The joint distribution ``P(x) = prod_v P(x_v | parents(v))`` over every column: the DAG is
    found by a structure search of :mod:`graphmodels.learners` (score-based hill climbing or
    tabu search, PC-stable, max-min hill climbing, exact search) or given as an
    ``nx.DiGraph`` (then only the parameters are fitted, as pgmpy's ``fit``); the conditional
    tables come from the estimator. Expert knowledge (required and forbidden arcs, tiers, a
    root, ``max_parents``) constrains every search. Missing cells are a state, an error, left
    out of each table (available-case), or filled in by EM, with latent variables too.

    Parameters
    ----------
    structure : {"hill-climb", "tabu", "pc", "mmhc", "exact"} or nx.DiGraph, default="hill-climb"
        ``"hill-climb"``: greedy hill climbing (:func:`~graphmodels.learners.hill_climbing`),
        with `restarts`; ``"tabu"``: tabu search with a tabu list of `tabu` networks;
        ``"pc"``: PC-stable (:func:`~graphmodels.learners.pc_stable`), its CPDAG extended to
        a DAG of the class; ``"mmhc"``: hill climbing over the MMPC skeleton; ``"exact"``: the
        best DAG by dynamic programming (at most 16 variables). A DAG over the columns (and
        the `latent` variables) is used as it is.
    criterion : {"bic", "bdeu", "k2", "aic", "log-likelihood"}, default="bic"
        The score of the score-based searches. BIC is the default: on samples of ALARM
        (``benchmarks/bench_bn_learning.py``, RESULTS.md) hill climbing with BIC came closer
        to the true equivalence class than with BDeu at 1,000 and 20,000 rows (BDeu at 5,000).
        PC-stable came closest of all there.
    equivalent_sample_size : float, default=1.0
        BDeu's prior equivalent sample size (for ``criterion="bdeu"``).
    test : {"g2", "chi2", "mi"}, default="g2"
        The conditional independence test of ``"pc"`` and ``"mmhc"``.
    alpha : float, default=0.05
        Their significance level.
    max_parents : int or dict, optional
        The most parents of every node (or of the nodes a dict names). Not for ``"pc"``.
    required, forbidden : list of (parent, child) pairs, optional
        Arcs every learned network has, and none has (R bnlearn's whitelist and blacklist).
    tiers : list of lists of columns, optional
        A temporal order: no arc from a later tier into an earlier one.
    root : column or list of columns, optional
        Variables without parents.
    tabu : int, default=10
        The tabu list of ``structure="tabu"``: the last networks visited, never revisited.
    restarts : int, default=0
        Random restarts of the score-based searches, each from the best network perturbed by
        `perturb` random moves.
    perturb : int, default=1
    latent : dict, optional
        Latent variables, never observed: ``{name: number of states}``, nodes of a given
        `structure` (a latent class model is ``Z -> every column`` with ``latent={"Z": k}``).
        Their tables are fitted by EM from random starts (`n_init`).
    estimator : str, dict or Estimator, default="bdeu-auto"
        The conditional tables' estimator (and EM's M-step), see
        :func:`graphmodels.estimators.get_estimator`.
    missing : {"value", "error", "available-case", "em", "structural-em"}, default="value"
        Missing cells: ``"value"`` a state of their own; ``"error"`` refused;
        ``"available-case"`` left out of each table (every family counted on the rows that
        observe it: the search's scores, as R bnlearn does, and the parameters);
        ``"em"``: the search on available-case counts, then the parameters by EM;
        ``"structural-em"``: Friedman's structural EM (score-based searches), the rows'
        missing cells completed by samples from the current network between searches.
        With the last three a missing cell at prediction is summed out.
    em_max_iter : int, default=100
        Iterations of EM at most.
    em_tol : float, default=1e-6
        EM stops when the log-likelihood improves by less than ``em_tol`` times its size.
    n_init : int, default=1
        Random starts of EM with latent variables; the best log-likelihood wins.
    trace : bool, default=False
        Record the search's steps in ``trace_`` (``animate`` replays a score-based search).
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states (see :class:`~graphmodels.ChowLiuTree`).
    categorical : list of column names, optional
        Columns never cut.
    max_cells : int, default=10_000_000
        Largest table the model may allocate (a search leaves out larger families).
    random_state : None, int or numpy Generator
        Restarts, EM's random starts and structural EM's completions.

    Attributes
    ----------
    structure_ : nx.DiGraph
        The DAG over the columns (and latent variables): nodes with ``cardinality`` and
        ``role`` (``"feature"`` or ``"latent"``); arcs with ``weight`` (a score-based
        search: the score lost without the arc) or ``p_value`` (PC: the weakest evidence
        the edge survived); graph attribute ``score`` for a score-based search.
    cpdag_ : nx.DiGraph
        The equivalence class of ``structure_`` (PC's own output for ``"pc"``): undirected
        edges as pairs of arcs. Compare it with the truth by
        ``structure_difference(..., cpdag=True)``.
    parents_ : list of tuple of int
        The parents of each variable (positions: the columns, then the latent variables).
    log_tables_ : list of ndarray
        ``log P(x_v | parents)``, shape ``(*parent cardinalities, r_v)``.
    latent_names_ : list
        The latent variables, after the columns.
    latent_cardinalities_ : list of int
    em_trace_ : DataFrame
        Only when EM ran: one row per iteration (``iteration``, ``start``,
        ``log_likelihood``, ``change``, ``seconds``; ``round`` for structural EM).
    trace_ : DataFrame
        Only with ``trace=True``.

    See Also
    --------
    graphmodels.learners.hill_climbing, graphmodels.learners.pc_stable
    graphmodels.evaluation.edge_stability : arc strengths over bootstrap refits.

    References
    ----------
    .. [1] Scutari, M. (2010). Learning Bayesian networks with the bnlearn R package. *Journal
           of Statistical Software*, 35(3), 1-22.
    .. [2] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
           Techniques*. MIT Press. Chapters 17-19.
    .. [3] Friedman, N. (1997). Learning belief networks in the presence of missing values and
           hidden variables. In *Proceedings of ICML*, 125-133.

    Examples
    --------
    >>> import graphmodels as gm
    >>> alarm = gm.io.load_network("alarm")
    >>> X = alarm.sample(2000, random_state=0)
    >>> model = BayesianNetwork().fit(X)
    >>> diff = gm.structures.structure_difference(model, alarm.graph, cpdag=True)
    >>> diff.hamming < 40
    True
    >>> model.query("HYPOVOLEMIA", evidence={"CVP": "HIGH"}).round(2).to_dict()  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        structure: str | nx.DiGraph = "hill-climb",
        criterion: str = "bic",
        equivalent_sample_size: float = 1.0,
        test: str = "g2",
        alpha: float = 0.05,
        max_parents: int | Mapping[Hashable, int] | None = None,
        required: Any = None,
        forbidden: Any = None,
        tiers: Sequence[Sequence[Hashable]] | None = None,
        root: Any = None,
        tabu: int = 10,
        restarts: int = 0,
        perturb: int = 1,
        latent: Mapping[Hashable, int] | None = None,
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        missing: str = "value",
        em_max_iter: int = 100,
        em_tol: float = 1e-6,
        n_init: int = 1,
        trace: bool = False,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        max_cells: int = DEFAULT_MAX_CELLS,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.structure = structure
        self.criterion = criterion
        self.equivalent_sample_size = equivalent_sample_size
        self.test = test
        self.alpha = alpha
        self.max_parents = max_parents
        self.required = required
        self.forbidden = forbidden
        self.tiers = tiers
        self.root = root
        self.tabu = tabu
        self.restarts = restarts
        self.perturb = perturb
        self.latent = latent
        self.estimator = estimator
        self.missing = missing
        self.em_max_iter = em_max_iter
        self.em_tol = em_tol
        self.n_init = n_init
        self.trace = trace
        self.discretizer = discretizer
        self.categorical = categorical
        self.max_cells = max_cells
        self.random_state = random_state

    _parameter_constraints: dict[str, list[Any]] = {
        "structure": [Options(list(STRUCTURE_SEARCHES)), InstanceOf(nx.DiGraph)],
        "criterion": [Options(list(SEARCH_SCORES))],
        "equivalent_sample_size": [Interval(numbers.Real, 0, None, closed="neither")],
        "test": [Options(list(CI_TESTS))],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_parents": [None, Interval(numbers.Integral, 0, None), InstanceOf(dict)],
        "required": [Predicate(_arcs_or_none, "None, a list of (parent, child) pairs or an nx.DiGraph")],
        "forbidden": [Predicate(_arcs_or_none, "None, a list of (parent, child) pairs or an nx.DiGraph")],
        "tiers": [None, InstanceOf(list, tuple)],
        "root": [Predicate(_node_or_nodes, "None, a column name or a list of column names")],
        "tabu": [Interval(numbers.Integral, 0, None)],
        "restarts": [Interval(numbers.Integral, 0, None)],
        "perturb": [Interval(numbers.Integral, 1, None)],
        "latent": [Predicate(_latent_spec, "None or a dict of name -> number of states (>= 2)")],
        "missing": [Options(list(MISSING_POLICIES))],
        "em_max_iter": [Interval(numbers.Integral, 0, None)],
        "em_tol": [Interval(numbers.Real, 0, None)],
        "n_init": [Interval(numbers.Integral, 1, None)],
    }

    _fitted_attributes: tuple[str, ...] = (
        "structure_",
        "cpdag_",
        "parents_",
        "log_tables_",
        "latent_names_",
        "latent_cardinalities_",
        "em_trace_",
    )

    _private_fitted_attributes: tuple[str, ...] = ("_likelihood_tree",)

    @property
    def missing_encoding(self) -> str:
        """``"unobserved"`` (cells coded -1) for ``missing="available-case"``, ``"em"`` and ``"structural-em"``."""
        return "unobserved" if self.missing in ("available-case", "em", "structural-em") else self.missing

    def _check_params(self) -> None:
        search = not isinstance(self.structure, nx.DiGraph)
        if self.latent and search:
            raise ValueError(
                "`latent` variables need a given `structure` (an nx.DiGraph naming them); the searches learn "
                "over the columns only."
            )
        if self.missing == "structural-em" and self.structure not in ("hill-climb", "tabu"):
            raise ValueError(
                f"missing='structural-em' runs a score-based search (structure='hill-climb' or 'tabu'), "
                f"got structure={self.structure!r}; use missing='em' for the parameters of a given DAG."
            )
        if self.structure == "pc" and self.max_parents is not None:
            raise ValueError("`max_parents` bounds a score-based search; structure='pc' takes no `max_parents`.")

    # ------------------------------------------------------------------ fit
    def _knowledge(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "forbidden": self.forbidden,
            "tiers": self.tiers,
            "root": self.root,
        }

    def _search(self, engine: CountingEngine, start: nx.DiGraph | None = None, record: bool = False):
        structure = self.structure
        common: dict[str, Any] = {"max_parents": self.max_parents, **self._knowledge()}
        scores: dict[str, Any] = {"score": self.criterion, "equivalent_sample_size": self.equivalent_sample_size}
        if structure in ("hill-climb", "tabu"):
            return hill_climbing(
                engine,
                **scores,
                **common,
                start=start,
                tabu=self.tabu if structure == "tabu" else 0,
                restarts=self.restarts,
                perturb=self.perturb,
                random_state=self.random_state,
                trace=record,
            )
        if structure == "mmhc":
            return mmhc(
                engine,
                test=self.test,
                alpha=self.alpha,
                **scores,
                **common,
                random_state=self.random_state,
                trace=record,
            )
        if structure == "exact":
            dag = exact_search(engine, **scores, **common)
            return (dag, None) if record else dag
        learned = pc_stable(engine, test=self.test, alpha=self.alpha, **self._knowledge(), trace=record)
        return learned

    def _given_structure(self, names: list[Hashable], latent: dict[Hashable, int]) -> nx.DiGraph:
        given = self.structure
        assert isinstance(given, nx.DiGraph)
        known = set(names) | set(latent)
        unknown = [v for v in given.nodes if v not in known]
        if unknown:
            raise ValueError(
                f"`structure` has the node {unknown[0]!r}, which is neither a column of X nor a `latent` variable; "
                f"the columns are {names[:10]}."
            )
        missing_latent = [v for v in latent if v not in given]
        if missing_latent:
            raise ValueError(f"The latent variable {missing_latent[0]!r} is not a node of `structure`.")
        clash = [v for v in latent if v in set(names)]
        if clash:
            raise ValueError(f"The latent variable {clash[0]!r} has the name of a column.")
        if not nx.is_directed_acyclic_graph(given):
            cycle = nx.find_cycle(given)
            raise ValueError(f"`structure` must be acyclic; it has the cycle {' -> '.join(str(u) for u, _ in cycle)}.")
        dag = nx.DiGraph()
        dag.add_nodes_from(names)
        dag.add_nodes_from(latent)
        dag.add_edges_from(given.edges(data=True))
        knowledge = self._knowledge()
        if any(value is not None for value in knowledge.values()) or self.max_parents is not None:
            expert_knowledge(list(dag.nodes), **knowledge, max_parents=self.max_parents).check(dag, "`structure`")
        return dag

    def _fit(self, engine: CountingEngine) -> None:
        names = list(engine.names)
        latent = dict(self.latent or {})
        self.latent_names_ = list(latent)
        self.latent_cardinalities_ = [int(r) for r in latent.values()]
        variables = names + list(latent)
        cards = [int(r) for r in engine.cardinalities] + self.latent_cardinalities_
        traces: list[tuple[pd.DataFrame, dict[str, Any]]] = []
        learned_cpdag = None
        if isinstance(self.structure, nx.DiGraph):
            dag = self._given_structure(names, latent)
        else:
            result = self._search(engine, record=self.trace)
            learned, frame = result if isinstance(result, tuple) else (result, None)
            if frame is not None:
                traces.append((frame, {}))
            if self.structure == "pc":
                learned_cpdag = learned
                dag = _extension(learned)
            else:
                dag = learned
        position = {v: i for i, v in enumerate(variables)}
        em_needed = bool(latent) or (self.missing in ("em", "structural-em") and engine.has_unknown)
        if self.missing == "structural-em" and engine.has_unknown:
            dag, em_result, rounds = self._structural_em(engine, dag, cards, traces)
        elif em_needed:
            em_result = self._em(engine, dag, variables, cards, position)
            rounds = None
        else:
            em_result, rounds = None, None
        self.parents_ = [tuple(sorted(position[u] for u in dag.predecessors(v))) for v in variables]
        if em_result is not None:
            self.log_tables_ = em_result.log_tables
            trace = em_result.trace if rounds is None else rounds
            self.em_trace_ = trace
        else:
            self.log_tables_ = self._count_tables(engine, variables)
        self.structure_ = self._decorated(dag, variables, cards, latent)
        self.cpdag_ = learned_cpdag if learned_cpdag is not None else cpdag(self.structure_)
        if self.trace and traces:
            self.trace_ = traces[0][0] if len(traces) == 1 else combine_traces(traces)

    def _decorated(self, dag, variables, cards, latent):
        structure = nx.DiGraph(**dag.graph)
        for v, r in zip(variables, cards):
            structure.add_node(v, cardinality=int(r), role="latent" if v in latent else "feature")
        structure.add_edges_from(dag.edges(data=True))
        return structure

    def _count_tables(self, engine, variables):
        names = engine.names
        tables = [np.array(engine.counts([names[p] for p in (*ps, v)])) for v, ps in enumerate(self.parents_)]
        return _log_tables(self.estimator_.conditionals(tables))

    def _em(self, engine, dag, variables, cards, position, initial=None):
        codes, weights = engine.rows()
        parents = [tuple(sorted(position[u] for u in dag.predecessors(v))) for v in variables]
        n_columns = len(engine.names)
        random_families = [v for v, ps in enumerate(parents) if v >= n_columns or any(p >= n_columns for p in ps)]
        return expectation_maximization(
            parents,
            cards,
            codes,
            weights,
            self.estimator_,
            names=variables,
            initial=initial,
            random_families=random_families,
            max_iter=self.em_max_iter,
            tol=self.em_tol,
            n_init=self.n_init,
            random_state=self.random_state,
            max_cells=self.max_cells,
        )

    def _structural_em(self, engine, dag, cards, traces):
        """Friedman's structural EM: complete by sampling, search from the current DAG, refit by EM."""
        import pandas as pd

        names = list(engine.names)
        position = {v: i for i, v in enumerate(names)}
        rng = np.random.default_rng(self.random_state)
        codes, weights = engine.rows()
        history = []
        result = self._em(engine, dag, names, cards, position)
        history.append(result.trace.assign(round=0))
        for round_ in range(1, SEM_MAX_ROUNDS + 1):
            parents = [tuple(sorted(position[u] for u in dag.predecessors(v))) for v in names]
            tree = _slots_tree(parents, cards, self.max_cells, names)
            filled, filled_weights = completions(
                tree, result.log_tables, codes, weights, len(names), per_row=SEM_COMPLETIONS, random_state=rng
            )
            completed = CountingEngine(
                filled, cards, names=names, sample_weight=filled_weights, max_cells=self.max_cells
            )
            searched = self._search(completed, start=dag, record=self.trace)
            new, frame = searched if isinstance(searched, tuple) else (searched, None)
            if frame is not None:
                traces.append((frame, {"round": round_}))
            if set(new.edges) == set(dag.edges):
                break
            dag = new
            result = self._em(engine, dag, names, cards, position)
            history.append(result.trace.assign(round=round_))
        return dag, result, pd.concat(history, ignore_index=True)

    # ------------------------------------------------------------------ fitted state
    def _validate_fitted_state(self) -> None:
        """The common checks, then a DAG of parents over the columns and latent variables, and each table."""
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        latent = _fitted.sequence("latent_cardinalities_", self.latent_cardinalities_)
        names = _fitted.sequence("latent_names_", self.latent_names_, len(latent))
        del names
        for k, r in enumerate(latent):
            if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 1:
                raise _fitted.FittedStateError(f"latent_cardinalities_[{k}]", f"is {r!r}, not a number of states.")
        cards = cards + [int(r) for r in latent]
        n = len(cards)
        parents = _fitted.sequence("parents_", self.parents_, n)
        families = [_fitted.positions(f"parents_[{v}]", ps, n, exclude=v) for v, ps in enumerate(parents)]
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((p, v) for v, ps in enumerate(families) for p in ps)
        if not nx.is_directed_acyclic_graph(graph):
            raise _fitted.FittedStateError("parents_", "has a cycle: not the parents of a DAG.")
        tables = _fitted.sequence("log_tables_", self.log_tables_, n)
        for v, (ps, table) in enumerate(zip(families, tables)):
            _fitted.log_table(f"log_tables_[{v}]", table, [cards[p] for p in ps] + [cards[v]])
        _fitted.instance("structure_", self.structure_, nx.DiGraph, "an nx.DiGraph")

    # ------------------------------------------------------------------ questions
    def _all_cardinalities(self) -> list[int]:
        return [len(levels) for levels in self.encoder_.levels_] + list(self.latent_cardinalities_)

    def _likelihood_tree(self):
        tree = self.__dict__.get("_likelihood_tree")
        if tree is None:
            tree = self.__dict__["_likelihood_tree"] = _slots_tree(
                self.parents_, self._all_cardinalities(), self.max_cells, None
            )
        return tree

    def _log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        codes = np.asarray(codes, dtype=np.int64)
        cards = self._all_cardinalities()
        complete = not self.latent_names_ and (codes >= 0).all()
        return network_log_likelihood(
            self.parents_,
            self.log_tables_,
            cards,
            codes,
            tree=None if complete else self._likelihood_tree(),
            max_cells=self.max_cells,
        )

    def _sample_codes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        n_variables = len(self.parents_)
        codes = np.zeros((n, n_variables), dtype=np.int64)
        for v in _order(self.parents_):
            ps = self.parents_[v]
            table = np.exp(self.log_tables_[v])
            rows = table[tuple(codes[:, p] for p in ps)] if ps else np.broadcast_to(table, (n, table.shape[-1]))
            cumulative = np.cumsum(rows, axis=1)
            draws = rng.random(n)[:, None] * cumulative[:, -1:]
            codes[:, v] = np.minimum((draws >= cumulative).sum(axis=1), rows.shape[1] - 1)
        return codes[:, : len(self.encoder_.columns_)]

    def _variable_names(self) -> list[Hashable]:
        return list(self.encoder_.columns_) + list(self.latent_names_)

    def _conditional_tables(self):
        """Every variable's parents (names, in table order) and log table; latent states are 0, 1, ..."""
        names = self._variable_names()
        families = {
            names[v]: (tuple(names[p] for p in ps), table)
            for v, (ps, table) in enumerate(zip(self.parents_, self.log_tables_))
        }
        states = column_states(self)
        for name, r in zip(self.latent_names_, self.latent_cardinalities_):
            states[name] = list(range(int(r)))
        return families, states, {}

    def to_bayesian_network(self) -> DiscreteBayesianNetwork:
        """The fitted network as a :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        Variables named as the columns (and latent variables), ``str`` of a name that is not
        a string; states are the encoder's labels written as strings, in code order (a latent
        variable's ``"0"``, ``"1"``, ...). Write it with ``write_bif``, ``write_xmlbif``,
        ``write_uai``, or hand it to pgmpy or pyAgrum (:mod:`graphmodels.io`).

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"rain": list("nnyy") * 5, "wet": list("nyyy") * 5})
        >>> bn = BayesianNetwork(structure=nx.DiGraph([("rain", "wet")])).fit(frame).to_bayesian_network()
        >>> bn.parents["wet"], bn.states["rain"]
        (('rain',), ['n', 'y'])
        """
        from ..networks import DiscreteBayesianNetwork
        from .export import _variable_names, state_names

        self._check_fitted()
        owner = type(self).__name__
        names = _variable_names(self._variable_names(), owner)
        _, states, _ = self._conditional_tables()
        labels = list(states.values())
        parents = {names[v]: tuple(names[p] for p in ps) for v, ps in enumerate(self.parents_)}
        return DiscreteBayesianNetwork(
            parents,
            {names[v]: state_names(labels[v]) for v in range(len(names))},
            {names[v]: np.exp(table) for v, table in enumerate(self.log_tables_)},
            name=owner,
        )


def _log_tables(tables):
    with np.errstate(divide="ignore"):
        return [np.log(t) for t in tables]


def _order(parents: Sequence[Sequence[int]]) -> list[int]:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(parents)))
    graph.add_edges_from((p, v) for v, ps in enumerate(parents) for p in ps)
    return list(nx.lexicographical_topological_sort(graph))


def _extension(learned: nx.DiGraph) -> nx.DiGraph:
    """A DAG of PC's CPDAG: its consistent extension, or (when the CPDAG has none, as errors in the
    tests can cause) its arcs strongest first without those closing a cycle, then each undirected
    edge oriented along the order so far."""
    try:
        return pdag_to_dag(learned)
    except ValueError:
        pass
    dag = nx.DiGraph()
    dag.add_nodes_from(learned.nodes(data=True))
    arcs = [(u, v, d) for u, v, d in learned.edges(data=True) if not learned.has_edge(v, u)]
    for u, v, d in sorted(arcs, key=lambda arc: arc[2].get("p_value", 0.0)):
        if not nx.has_path(dag, v, u):
            dag.add_edge(u, v, **d)
    for u, v, d in learned.edges(data=True):
        if learned.has_edge(v, u) and not dag.has_edge(u, v) and not dag.has_edge(v, u):
            if nx.has_path(dag, v, u):
                dag.add_edge(v, u, **d)
            else:
                dag.add_edge(u, v, **d)
    return dag
