"""Bounded tree-width Markov networks: maximum-weight hyperforest models (Liang & Srebro).

A method is a triple f-R-k: score f (ML or MDL hyperedge weights), model
representation R and tree-width k.

* J (``representation="joint"``): one Markov network over the attributes
  and the class, ``P(y, z)``.
* C_s (``"shared"``): ``P(y) P_y(z)`` with one structure for every class,
  learned from the class weights averaged with P(y).
* C_f (``"free"``): ``P(y) P_y(z)`` with one structure per class.

k = 0 gives naive Bayes (C_s, C_f) or the majority class (J); ML-C_f-1 is
the class-conditional Chow-Liu classifier and ML-C_s-1 is TAN.

Parameters are the hyperedge marginals, smoothed by the estimator (by
default each table's empirical-Bayes BDeu; the paper's pseudo-count 0.001
per cell is ``estimator="liang-srebro"``). To keep the model normalized the
smoothing is applied consistently: each clique of the rooted junction forest holds the
smoothed conditional ``P(residual | separator)`` of its own smoothed table,
i.e. the separator marginal divided out is the marginal of the same
smoothed table. The product then sums to one exactly.

References
----------
.. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
       bounded tree-width Markov networks. MIT CSAIL technical report.
.. [2] Malvestuto, F. M. (1991). Approximating discrete probability
       distributions with decomposable models. *IEEE Transactions on
       Systems, Man and Cybernetics*, 21(5), 1287-1294.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx
import numpy as np
import pandas as pd

from .._trace import Trace
from .._validation import Interval, Options
from ..estimators.parameters import Dirichlet, Estimator
from ..estimators.selection import LeaveOneOutSelection, class_prior_cells, family_cells
from ..inference.likelihoods import clique_tree_log_likelihood, clique_tree_sample
from ..learners.hyperforests import HYPERFOREST_ALGORITHMS, _max_hyperforest
from ..learners.trees import canonical_order
from ..stats.counting import DEFAULT_MAX_CELLS
from ..stats.hyperedges import SCORES, hyperedge_weights
from ..structures.hyperforests import Hyperforest
from . import _fitted
from .base import BaseClassifier, BaseDensity
from .export import classifier_markov_network, clique_network
from .queries import Queryable, markov_distribution
from .registry import register_model
from .tables import clique_potentials, column_states, find_variables, potential_frame

if TYPE_CHECKING:
    from ..networks import DiscreteMarkovNetwork
    from ..stats.counting import CountingEngine
    from ..stats.hyperedges import HyperedgeWeights

__all__ = ["HyperforestDensity", "HyperforestClassifier", "REPRESENTATIONS", "clique_log_tables"]

#: Model representations of Liang & Srebro and the names they accept, and "auto" (C_s or C_f, chosen in fit).
REPRESENTATIONS = {
    "auto": "auto",
    "joint": "joint",
    "j": "joint",
    "shared": "shared",
    "cs": "shared",
    "free": "free",
    "cf": "free",
}


def clique_log_tables(
    engine: CountingEngine,
    forest: Hyperforest,
    estimator: Estimator | float,
    *,
    given: Hashable | None = None,
    root_key: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """Parameters of a hyperforest: the rooted junction forest and its log conditionals.

    Parameters
    ----------
    engine : CountingEngine
    forest : Hyperforest
        Over variables of `engine` (by name).
    estimator : Estimator or float
        Turns each clique's table into ``P(residual | stratum, separator)``
        (its :meth:`~graphmodels.estimators.Estimator.conditional`, with the
        residual variables as one child axis and the class axis, when given,
        among the parents), or a root clique of a density into its joint
        (:meth:`~graphmodels.estimators.Estimator.joint`); a number is the
        pseudo-count of a symmetric Dirichlet.
    given : name, optional
        A stratum variable (the class): tables get a leading axis over its
        states, each the conditional within that stratum.
    root_key : callable, optional
        Passed to :meth:`Hyperforest.clique_order`.

    Returns
    -------
    network : dict
        ``cliques`` (tuples of engine positions, separator first, parents
        first), ``parents`` (int array, -1 for roots) and ``log_tables``
        (arrays of shape ``(n_strata, r_1, ..., r_|c|)`` holding
        ``log P(residual | separator)``).
    """
    if not isinstance(estimator, Estimator):
        estimator = Dirichlet(estimator)
    order = forest.clique_order(root_key)
    cliques: list[tuple[int, ...]] = []
    parents: list[int] = []
    tables: list[np.ndarray | None] = []  # None: a conditional family's, estimated after the loop
    # Each clique's conditional family, estimated together after the loop: an adaptive estimator
    # searches every table's hyperparameter in one batch (Estimator.conditionals), as the other
    # models' tables are, not once per clique (per-clique searches were most of a fit on few rows).
    families: dict[int, tuple[np.ndarray, tuple[int, ...]]] = {}
    for clique, separator in order:
        positions = tuple(engine.position(v) for v in clique)
        parent = -1
        if separator:
            # Any earlier clique holding the separator is a valid junction-tree
            # parent (running intersection order); take the latest.
            parent = next(i for i in reversed(range(len(cliques))) if separator <= set(order[i][0]))
        # By name: an integer column name is not a position.
        variables = [engine.names[p] for p in positions] + ([] if given is None else [given])
        counts = np.asarray(engine.counts(variables), dtype=np.float64)
        if given is not None:
            counts = np.moveaxis(counts, -1, 0)
        else:
            counts = counts[None]
        n_separator = len(separator)
        if given is None and n_separator == 0:
            # A root clique of a density: its joint distribution.
            conditional = estimator.joint(counts[0])[None]
        else:
            # P(residual | stratum, separator): the residual variables as one
            # child axis, for the estimator's conditional (a separator state
            # never seen gets the estimator's fallback rather than 0/0).
            families[len(cliques)] = (counts.reshape(counts.shape[: 1 + n_separator] + (-1,)), counts.shape)
            conditional = None
        tables.append(conditional)
        cliques.append(positions)
        parents.append(parent)
    estimated = dict(zip(families, estimator.conditionals([family for family, _ in families.values()])))
    with np.errstate(divide="ignore"):
        # C order, as a loaded model holds it, so that a saved model predicts bit for bit the same.
        log_tables = [
            np.ascontiguousarray(np.log(estimated[i].reshape(families[i][1]) if table is None else table))
            for i, table in enumerate(tables)
        ]
    return {"cliques": cliques, "parents": np.asarray(parents, dtype=np.int64), "log_tables": log_tables}


def _check_network(entry, network, cards, n_strata):
    """Check a rooted junction forest as :func:`clique_log_tables` makes it, over variables of `cards` states.

    Each clique holds distinct variables, its separator with its parent first; a parent comes
    before its children; each table has shape ``(n_strata, r_1, ..., r_|c|)`` and is a
    distribution over the clique's residual variables for each stratum and separator state.
    """
    _fitted.instance(entry, network, dict, "a dict")
    missing = {"cliques", "parents", "log_tables"} - set(network)
    if missing:
        raise _fitted.FittedStateError(entry, f"has no {sorted(missing)} entries.")
    cliques = _fitted.sequence(f"{entry}['cliques']", network["cliques"])
    n_cliques = len(cliques)
    parents = _fitted.integers(f"{entry}['parents']", network["parents"], low=-1, high=n_cliques, shape=(n_cliques,))
    tables = _fitted.sequence(f"{entry}['log_tables']", network["log_tables"], n_cliques)
    for i, (clique, parent, table) in enumerate(zip(cliques, parents.tolist(), tables)):
        clique = _fitted.positions(f"{entry}['cliques'][{i}]", clique, len(cards))
        if parent >= i:
            raise _fitted.FittedStateError(
                f"{entry}['parents']", f"gives clique {i} the parent {parent}, not an earlier one."
            )
        shared = set(clique) & set(cliques[parent]) if parent >= 0 else set()
        if set(clique[: len(shared)]) != shared:
            raise _fitted.FittedStateError(
                f"{entry}['cliques'][{i}]",
                "does not start with its separator (the variables it shares with its parent).",
            )
        _fitted.log_table(
            f"{entry}['log_tables'][{i}]",
            table,
            (n_strata, *(cards[v] for v in clique)),
            axes=range(1 + len(shared), 1 + len(clique)),
        )


def _network_log_likelihood(codes, network):
    return clique_tree_log_likelihood(codes, network["cliques"], network["parents"], network["log_tables"])


_HYPERFOREST_CONSTRAINTS: dict[str, list[Any]] = {
    "treewidth": [Interval(numbers.Integral, 0, None)],
    "criterion": [Options(list(SCORES))],
    "algorithm": [Options(sorted(HYPERFOREST_ALGORITHMS))],
    "n_starts": [Interval(numbers.Integral, 1, None)],
    "pseudo_count": [Options(["deprecated"]), Interval(numbers.Real, 0, None)],
}


def _resolve_hyperforest_estimator(model):
    """``estimator_``, from the deprecated `pseudo_count` when that is given."""
    if isinstance(model.pseudo_count, str):
        return BaseClassifier._resolve_estimator(model)
    warnings.warn("`pseudo_count` is deprecated; use `estimator=Dirichlet(pseudo_count)`.", FutureWarning, stacklevel=4)
    model.estimator_ = Dirichlet(float(model.pseudo_count))


def _node_attributes(engine, names, class_name=None):
    return {
        name: {"role": "class" if name == class_name else "feature", "cardinality": engine.cardinality(name)}
        for name in names
    }


def _learn(engine, names, model, *, given=None, per_stratum=False, class_name=None):
    # Weights computed and ties broken in an order fixed by the names, so the
    # structure does not depend on the order of the columns.
    names = canonical_order(names)
    weights = hyperedge_weights(
        engine, names, k=model.treewidth, score=model.criterion, given=given, per_stratum=per_stratum
    )
    attributes = _node_attributes(engine, names, class_name)
    # Traced, `model.trace_` gets the search's steps (one search per class for the free structure).
    record = None
    if model.trace:
        record = Trace("run", "base", "gain", integers=["run"], leading=["class"] if per_stratum else [])

    def learn(w):
        return _max_hyperforest(w, model.treewidth, model.algorithm, model.n_starts, None, attributes, record)

    if per_stratum:
        result = []
        for w, label in zip(weights, model.classes_):
            first = 0 if record is None else len(record)
            result.append(learn(w))
            if record is not None:
                record.label(first, **{"class": label})
    else:
        result = learn(weights)
    if record is not None:
        model.trace_ = record.frame()
    return result, weights


class _CliquePotentials(Queryable):
    """``potential(clique)``: a clique's marginal as a tidy table (the hyperforest models' mixin)."""

    if TYPE_CHECKING:
        encoder_: Any
        classes_: Any
        class_name_: Hashable

        def _check_fitted(self) -> None: ...

        def _clique_networks(self) -> list[tuple[Any, dict[str, Any]]]: ...

    @property
    def cpd(self) -> Callable[[Hashable], pd.DataFrame]:
        """Not available: a hyperforest model has clique tables, not conditional ones; see :meth:`potential`.

        The model is a Markov network over cliques (its maximal hyperedges), not
        directed families each with a table given its parents, so ``model.cpd``
        raises an ``AttributeError`` that says so and points to
        :meth:`potential` (``hasattr(model, "cpd")`` is False, as for any model
        without conditional tables).
        """
        raise AttributeError(
            f"{type(self).__name__} has no cpd(): it is a Markov network over cliques (its maximal hyperedges), not "
            "directed families with a conditional table each; read a clique's table with model.potential(clique) "
            "(a name that is not a clique gets the list of cliques), or the whole network with "
            "model.to_markov_network()."
        )

    def _build_distribution(self):
        """The Markov network of :meth:`to_markov_network` (clique conditionals: its partition function is 1)."""
        return markov_distribution(self, self.to_markov_network())  # type: ignore[attr-defined]

    def potential(self, clique: Hashable | tuple[Hashable, ...] | frozenset[Hashable]) -> pd.DataFrame:
        """The marginal distribution of one clique of the fitted model, as a tidy DataFrame.

        Parameters
        ----------
        clique : name or iterable of names
            The variables of a clique of the junction forest (a maximal
            hyperedge; a variable alone if it is its own clique), in any order.

        Returns
        -------
        DataFrame of shape (n_configurations, n_variables + 1)
            One column per variable (in column order, the class last for the
            joint representation), their state labels, and ``probability``,
            the model's marginal ``P(x_c)`` (it sums to 1). For the shared
            and free representations, whose cliques are over the attributes
            within each class, the class comes first and ``probability`` is
            ``P(x_c | y)``, summing to 1 within each class; with ``"free"``,
            only the classes whose structure has that clique appear.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `clique` is not a clique of the model, listing the cliques.

        Notes
        -----
        The model keeps, for each clique of its rooted junction forest, the
        conditional ``P(residual | separator)``; the clique's marginal is
        that times the separator's marginal, summed down from its parent
        clique's (:func:`~graphmodels.models.tables.clique_marginals`): the
        model's own marginal, the one a brute-force sum of its joint gives.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> a, b = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
        >>> model = HyperforestDensity(treewidth=2).fit(pd.DataFrame({"a": a, "b": b, "c": a ^ b}))
        >>> table = model.potential(("c", "a", "b"))
        >>> list(table.columns), round(float(table["probability"].sum()), 12)
        (['a', 'b', 'c', 'probability'], 1.0)
        """
        self._check_fitted()
        names = list(self.encoder_.columns_)
        if hasattr(self, "classes_"):
            names.append(self.class_name_)
        states = column_states(self)
        wanted = find_variables(clique, names)
        found, valid = [], {}
        for label, network in self._clique_networks():
            potentials = clique_potentials(network, names)
            valid.update({key: tuple(names[p] for p in positions) for key, (positions, _) in potentials.items()})
            if wanted in potentials:
                found.append((label, *potentials[wanted]))
        if not found:
            raise ValueError(
                f"{type(self).__name__}.potential: {clique!r} is not a clique of the model; "
                f"cliques: {sorted(valid.values(), key=lambda c: (-len(c), [names.index(v) for v in c]))}."
            )
        frames = []
        for label, positions, table in found:
            variables = [(names[p], states[names[p]]) for p in positions]
            if label is _EVERY_CLASS:
                frames.append(potential_frame([(self.class_name_, self.classes_), *variables], table))
            else:
                frame = potential_frame(variables, table[0])
                if label is not None:
                    frame.insert(0, self.class_name_, [label] * len(frame))
                frames.append(frame)
        return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


#: The strata of a shared-representation network: one table per class.
_EVERY_CLASS = object()


@register_model("hyperforest-density")
class HyperforestDensity(_CliquePotentials, BaseDensity):
    """Density estimate by a Markov network of tree-width at most k (Liang & Srebro).

    The structure is a maximum-weight hyperforest for ML or MDL hyperedge
    weights, found by the incremental (Malvestuto) or global greedy
    algorithm; the parameters are the smoothed hyperedge marginals.
    ``treewidth=1, criterion="ml"`` is the Chow-Liu tree.

    Parameters
    ----------
    treewidth : int, default=1
        k: hyperedges have at most k + 1 variables.
    criterion : {"ml", "mdl"}, default="ml"
        The structure score (the paper's "scoring metric" f): maximum
        likelihood, or minimum description length. Named ``criterion``
        because ``score`` is the scikit-learn method ``score(X)``.
    algorithm : {"incremental", "global"}, default="incremental"
    n_starts : int, default=100
        Backtracking of the incremental algorithm: start hyperedges tried.
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator of the clique tables, see
        :func:`graphmodels.estimators.get_estimator`. The default,
        :class:`~graphmodels.estimators.EmpiricalBayesBDeu`, gives each table
        the BDeu equivalent sample size that maximises its marginal
        likelihood; it was chosen by cross-validated log-loss over the shared
        UCI sets (``benchmarks/bench_defaults.py``). Liang & Srebro's
        pseudo-count 0.001 is ``"liang-srebro"`` (their tables pass it).
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states: fitted inside ``fit`` on the
        training rows only, kept in ``discretizer_`` and applied at
        prediction. ``"auto"`` cuts each numeric column with at least 10
        distinct values into 5 equal-frequency bins (unsupervised); ``None``
        keeps every value as a state. See :mod:`graphmodels.data.discretize`.
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals, whatever their
        type: integer codes of categories, say. A pandas ``category`` column
        is never cut either. When ``discretizer="auto"`` cuts a column of whole
        numbers, ``fit`` warns (:class:`~graphmodels.data.IntegerColumnsCutWarning`).
    missing : {"value", "error"}, default="value"
    max_cells : int, default=10_000_000
        Largest table (in float64 cells, 8 bytes each) the model may allocate; a fit that needs
        a larger one raises :class:`~graphmodels.stats.TableTooLargeError` before allocating it,
        naming the columns and the value of `max_cells` at which it fits.
    pseudo_count : float, optional
        Deprecated alias of ``estimator=Dirichlet(pseudo_count)``.

    Attributes
    ----------
    structure_ : Hyperforest
        Over the column names; nodes carry ``cardinality``.
    weights_ : HyperedgeWeights
        The candidate weights the structure was chosen by (not saved).
    network_ : dict
        The rooted junction forest: ``cliques`` (column positions),
        ``parents`` and ``log_tables``.
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search as
        :func:`~graphmodels.learners.max_hyperforest` records them (for the
        incremental algorithm, every run of the backtracking and the one
        that won).

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks.
    .. [2] Srebro, N. (2000). Maximum likelihood Markov networks: an
           algorithmic approach. Master's thesis, MIT.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    >>> frame = pd.DataFrame({"a": a, "b": b, "c": a ^ b})
    >>> model = HyperforestDensity(treewidth=2).fit(frame)
    >>> sorted(sorted(h) for h in model.structure_.maximal_hyperedges)
    [['a', 'b', 'c']]
    >>> model.sample(2, random_state=0).shape
    (2, 3)
    """

    def __init__(
        self,
        *,
        treewidth: int = 1,
        criterion: str = "ml",
        algorithm: str = "incremental",
        n_starts: int = 100,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
        pseudo_count: float | Literal["deprecated"] = "deprecated",
    ) -> None:
        self.treewidth = treewidth
        self.criterion = criterion
        self.algorithm = algorithm
        self.n_starts = n_starts
        self.trace = trace
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells
        self.pseudo_count = pseudo_count

    _parameter_constraints = _HYPERFOREST_CONSTRAINTS
    _private_fitted_attributes = ("_weights",)
    _fitted_attributes: tuple[str, ...] = ("structure_", "network_")

    def _validate_fitted_state(self):
        """The common checks, then the junction forest of ``network_`` over the columns."""
        super()._validate_fitted_state()
        _fitted.instance("structure_", self.structure_, Hyperforest, "a Hyperforest")
        _check_network("network_", self.network_, self._validated_cardinalities(), 1)

    def _resolve_estimator(self):
        _resolve_hyperforest_estimator(self)

    def _fit(self, engine):
        self.structure_, weights = _learn(engine, engine.names, self)
        self._weights = weights
        self.network_ = clique_log_tables(engine, self.structure_, self.estimator_)

    @property
    def weights_(self) -> HyperedgeWeights:
        """Candidate hyperedge weights the structure was chosen by (not saved with the model)."""
        return _fitted_weights(self)

    def _log_likelihood(self, codes):
        return _network_log_likelihood(codes, self.network_)[:, 0]

    def _clique_networks(self):
        return [(None, self.network_)]

    def to_markov_network(self) -> DiscreteMarkovNetwork:
        """The fitted density as one :class:`~graphmodels.networks.DiscreteMarkovNetwork`.

        One factor per clique of the junction forest (``network_``): the
        clique's conditional ``P(residual | separator)``, its joint for a root
        clique, that is the clique potential divided by the separator's. Their
        product is the density, so the network's partition function is 1 and
        its normalized log-probability of a row is :meth:`score_samples`'s.

        Returns
        -------
        DiscreteMarkovNetwork
            Variables: the columns in order, named as the columns (``str`` of
            a name that is not a string), with the cardinalities of
            ``encoder_``, whose codes are the network's (the states are
            ``encoder_.levels_``: the discretizer's interval labels for a cut
            column, ``"<missing>"`` for missing cells).

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two columns' names print alike (``0`` and ``"0"``).

        See Also
        --------
        graphmodels.io.write_uai : write the network as a UAI ``MARKOV`` file.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("iris", return_X_y=True)
        >>> model = HyperforestDensity(treewidth=2).fit(X.assign(species=y))
        >>> mn = model.to_markov_network()
        >>> [len(scope) for scope, _ in mn.factors]
        [3, 3, 3]
        >>> codes = model.encoder_.transform(model.discretizer_.transform(X.assign(species=y).head(3)))
        >>> np.allclose(mn.log_likelihood_codes(codes), model.score_samples(X.assign(species=y).head(3)))
        True
        """
        self._check_fitted()
        return clique_network(self, self.network_["cliques"], self.network_["log_tables"])

    def _sample_codes(self, n, rng):
        return clique_tree_sample(
            self.network_["cliques"],
            self.network_["parents"],
            self.network_["log_tables"],
            n,
            len(self.encoder_.columns_),
            rng,
        )


@register_model("hyperforest")
class HyperforestClassifier(_CliquePotentials, BaseClassifier):
    """Classifier from bounded tree-width Markov networks (Liang & Srebro): argmax_y P(y, z).

    Parameters
    ----------
    treewidth : int, default=2
        k: hyperforests have at most k + 1 variables per hyperedge.
    criterion : {"ml", "mdl"}, default="mdl"
        The structure score f (``score`` is the scikit-learn method).
    representation : {"auto", "joint", "shared", "free"}, default="auto"
        J, C_s or C_f (also accepted: ``"J"``, ``"Cs"``, ``"Cf"``): one
        hyperforest over the attributes and the class, one shared by the
        classes (the class in every hyperedge), or one per class. The
        paper's best classifier overall is MDL-C_s-3, its best density
        MDL-C_f-3. ``"auto"`` fits C_s and C_f and keeps the one whose class
        probabilities have the lower log-loss on training rows left out, as
        :class:`~graphmodels.ChowLiu` does: each row left out of the tables
        (exact from the counts; the structures are not refitted) where the
        classes average at least 100 training rows, a 5-fold inner
        cross-validation of the whole fit where they have fewer (C_f kept
        only when better by more than one standard error); the scores are
        ``representation_selection_``. The default, auto at tree-width 2,
        had a lower mean cross-validated log-loss and error than MDL-C_f-2
        and MDL-C_s-2 alone and than TAN over the shared UCI sets
        (``benchmarks/bench_defaults_structure.py --family hyperforest``):
        per-class hyperforests win where the classes' dependencies differ,
        the shared one where a class has too few rows for its own. It costs
        the C_s fit on top of C_f's (one structure search per class).
    algorithm : {"incremental", "global"}, default="incremental"
    n_starts : int, default=100
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="leave-one-out"
        Parameter estimator of the clique tables, see
        :func:`graphmodels.estimators.get_estimator`. The default,
        :class:`~graphmodels.estimators.LeaveOneOutSelection`, keeps the
        prior whose class probabilities are best when each training row is
        left out (exact, from the counts); the choice is ``estimator_``, the
        scores ``estimator_selection_``. It was chosen by cross-validated
        log-loss over the shared UCI sets (``benchmarks/bench_defaults.py``).
        The joint representation's tables do not all hold the class, so
        there it uses the selection's first candidate
        (:class:`~graphmodels.estimators.EmpiricalBayesBDeu` by default).
        Liang & Srebro's pseudo-count 0.001 is ``"liang-srebro"`` (their
        tables pass it).
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states: fitted inside ``fit`` on the
        training rows only, kept in ``discretizer_`` and applied at
        prediction. ``"auto"`` cuts each numeric column with more than 10
        distinct values at Fayyad & Irani's MDL cut points (supervised);
        ``None`` keeps every value as a state. See
        :mod:`graphmodels.data.discretize`.
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals, whatever their
        type: integer codes of categories, say. A pandas ``category`` column
        is never cut either. When ``discretizer="auto"`` cuts a column of whole
        numbers, ``fit`` warns (:class:`~graphmodels.data.IntegerColumnsCutWarning`).
    missing : {"value", "error"}, default="value"
    max_cells : int, default=10_000_000
        Largest table (in float64 cells, 8 bytes each) the model may allocate; a fit that needs
        a larger one raises :class:`~graphmodels.stats.TableTooLargeError` before allocating it,
        naming the columns and the value of `max_cells` at which it fits.
    pseudo_count : float, optional
        Deprecated alias of ``estimator=Dirichlet(pseudo_count)``.

    Attributes
    ----------
    classes_ : ndarray
    representation_ : {"joint", "shared", "free"}
        The representation fitted, its name normalized.
    representation_selection_ : DataFrame
        Only with ``representation="auto"``: the held-out log-loss and error
        of C_f (``"free"``) and C_s (``"shared"``), ``scored_by`` and
        ``standard_error`` as for :class:`~graphmodels.ChowLiu`.
    structure_ : Hyperforest or nx.Graph
        J: over the attributes and the class (role ``"class"``); C_s: over
        the attributes; C_f: an ``nx.Graph``, the union of the per-class
        Markov networks (primal graphs), each edge with ``classes``, the
        class labels whose structure has it.
    structures_ : list of Hyperforest
        C_f only: the structure of each class, in ``classes_`` order.
    networks_ : list of dict
        Rooted junction forests (see :func:`clique_log_tables`): one for J
        and C_s (C_s tables have a leading class axis), one per class for C_f.
    class_log_prior_ : ndarray of shape (n_classes,)
        ``log P(y)`` (C_s, C_f).
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search as
        :func:`~graphmodels.learners.max_hyperforest` records them; for
        C_f, each class's search in turn, its label in the ``class``
        column.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. Section 4.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(200, 3)), columns=["a", "b", "c"])
    >>> y = X["a"] ^ X["b"]
    >>> model = HyperforestClassifier(treewidth=2, representation="joint").fit(X, y)
    >>> float(model.score(X, y))
    1.0
    """

    def __init__(
        self,
        *,
        treewidth: int = 2,
        criterion: str = "mdl",
        representation: str = "auto",
        algorithm: str = "incremental",
        n_starts: int = 100,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
        pseudo_count: float | Literal["deprecated"] = "deprecated",
    ) -> None:
        self.treewidth = treewidth
        self.criterion = criterion
        self.representation = representation
        self.algorithm = algorithm
        self.n_starts = n_starts
        self.trace = trace
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells
        self.pseudo_count = pseudo_count

    _parameter_constraints = {
        **_HYPERFOREST_CONSTRAINTS,
        "representation": [Options(["auto", "joint", "shared", "free", "J", "Cs", "Cf"], ignore_case=True)],
    }
    _private_fitted_attributes = ("_weights",)

    def _resolve_estimator(self):
        _resolve_hyperforest_estimator(self)

    _selects_estimator = True

    _fitted_attributes: tuple[str, ...] = (
        "representation_", "structures_", "structure_", "class_log_prior_", "networks_", "representation_selection_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then each junction forest: one over the columns and the class (joint), one
        with a stratum per class (shared) or one per class (free)."""
        super()._validate_fitted_state()
        cards, n_classes = self._validated_cardinalities(), len(self.classes_)
        layouts = {"joint": (1, cards + [n_classes], 1), "shared": (1, cards, n_classes), "free": (n_classes, cards, 1)}
        if self.representation_ not in layouts:
            raise _fitted.FittedStateError(
                "representation_", f"is {self.representation_!r}, not one of {list(layouts)}."
            )
        n_networks, variables, n_strata = layouts[self.representation_]
        for c, network in enumerate(_fitted.sequence("networks_", self.networks_, n_networks)):
            _check_network(f"networks_[{c}]", network, variables, n_strata)
        if self.representation_ == "free":
            for c, forest in enumerate(_fitted.sequence("structures_", self.structures_, n_classes)):
                _fitted.instance(f"structures_[{c}]", forest, Hyperforest, "a Hyperforest")

    def _fit(self, engine):
        kind = REPRESENTATIONS[str(self.representation).lower()]
        if kind == "auto":
            learners = {name: functools.partial(self._learn_structure, kind=name) for name in ("free", "shared")}
            self._fit_best_representation(engine, learners, simplest="shared")
            return
        if kind == "joint" and isinstance(self.estimator_, LeaveOneOutSelection):
            # Its tables do not all hold the class (leaving a row out would change every
            # class's column): the selection's first candidate, as documented.
            self.estimator_ = self.estimator_.candidates[0]
        self._learn_structure(engine, kind)
        self._fit_selected_tables(engine)

    def _learn_structure(self, engine, kind):
        """The structure of one representation: J, C_s or C_f."""
        names = engine.names
        class_name, features = names[-1], names[:-1]
        self.representation_ = kind
        if kind == "joint":
            self.structure_, self._weights = _learn(engine, names, self, class_name=class_name)
        elif kind == "shared":
            self.structure_, self._weights = _learn(engine, features, self, given=class_name)
        else:
            self.structures_, self._weights = _learn(engine, features, self, given=class_name, per_stratum=True)
            self.structure_ = _union_of_primal_graphs(self.structures_, self.classes_)

    def _clique_networks(self):
        """``(class label, None for the joint, _EVERY_CLASS for shared strata; network)`` for :meth:`potential`."""
        if self.representation_ == "joint":
            return [(None, self.networks_[0])]
        if self.representation_ == "shared":
            return [(_EVERY_CLASS, self.networks_[0])]
        return list(zip(self.classes_, self.networks_))

    def _class_forests(self):
        """``(class code or None, forest)``: the shared structure for every class, or each class's own."""
        if self.representation_ == "free":
            return list(enumerate(self.structures_))
        return [(None, self.structure_)]

    def _fit_tables(self, engine, estimator):
        class_name = engine.names[-1]
        class_counts = np.asarray(engine.counts([class_name]), dtype=np.float64)
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(estimator.joint(class_counts))
        if self.representation_ == "joint":
            self.networks_ = [clique_log_tables(engine, self.structure_, estimator)]
            return
        networks = [
            (c, clique_log_tables(engine, forest, estimator, given=class_name)) for c, forest in self._class_forests()
        ]
        self.networks_ = [network if c is None else _select_stratum(network, c) for c, network in networks]

    _families_read_tables = True

    def _training_families(self, engine, codes, estimator):
        names, y = engine.names, codes[:, -1]
        families = [class_prior_cells(engine, y, estimator)]
        for (c, _), network in zip(self._class_forests(), self.networks_):
            rows = np.arange(len(y)) if c is None else np.flatnonzero(y == c)
            cliques, parents = network["cliques"], network["parents"]
            for clique, parent in zip(cliques, parents):
                # As clique_log_tables hands it to the estimator: (class, separator..., residual flattened).
                n_separator = len(set(clique) & set(cliques[parent])) if parent >= 0 else 0
                counts = np.moveaxis(np.asarray(engine.counts([names[p] for p in clique] + [names[-1]])), -1, 0)
                family = counts.reshape(counts.shape[: 1 + n_separator] + (-1,))
                residual = np.ravel_multi_index(
                    tuple(codes[rows, p] for p in clique[n_separator:]), counts.shape[1 + n_separator :]
                )
                index = (y[rows], *(codes[rows, p] for p in clique[:n_separator]), residual)
                families.append(family_cells(family, estimator, index, rows=None if c is None else rows))
        return families

    @property
    def weights_(self) -> HyperedgeWeights | list[HyperedgeWeights]:
        """Candidate hyperedge weights the structure was chosen by (a list for C_f; not saved)."""
        return _fitted_weights(self)

    def _joint_log_likelihood(self, codes):
        n_classes = len(self.classes_)
        kind = self.representation_
        if kind == "joint":
            network = self.networks_[0]
            result = np.empty((codes.shape[0], n_classes))
            full = np.empty((codes.shape[0], codes.shape[1] + 1), dtype=np.int64)
            full[:, :-1] = codes
            for y in range(n_classes):
                full[:, -1] = y
                result[:, y] = _network_log_likelihood(full, network)[:, 0]
            return result
        if kind == "shared":
            return _network_log_likelihood(codes, self.networks_[0]) + self.class_log_prior_[None, :]
        return (
            np.column_stack([_network_log_likelihood(codes, network)[:, 0] for network in self.networks_])
            + self.class_log_prior_[None, :]
        )

    def _explanation_terms(self, codes):
        """One term per hyperedge (clique of the junction forest): ``log P(residual | separator)``.

        Named ``{a, b}`` by its attributes; with ``"free"`` a clique of some classes only is 0 in
        the others. In the joint representation the class is inside the cliques: ``<prior>`` is
        the model's ``log P(y)``, taken out of the first clique that holds the class.
        """
        from .explanations import ExplanationTerms, region_name

        n, p = codes.shape
        n_classes = len(self.classes_)
        columns = list(self.encoder_.columns_)
        complete = ~(codes < 0).any(axis=1)
        keys: dict[frozenset[int], int] = {}
        names: list[Hashable] = []
        entries = []  # (clique's term column, class or None for every class, clique, table)
        for c, network in enumerate(self.networks_):
            owner = c if self.representation_ == "free" else None
            for clique, table in zip(network["cliques"], network["log_tables"]):
                attributes = frozenset(v for v in clique if v < p)
                if attributes not in keys:
                    keys[attributes] = len(names)
                    names.append(region_name([columns[v] for v in sorted(attributes)]))
                entries.append((keys[attributes], owner, clique, table))
        terms = np.zeros((n, n_classes, len(names)))
        intercept = self.class_log_prior_
        if self.representation_ == "joint":
            intercept = np.asarray(self._class_log_scores(np.full((1, p), -1, dtype=np.int64)))[0]
        taken = False
        for k, owner, clique, table in entries:
            attributes = [v for v in clique if v < p]
            rows = np.flatnonzero(~(codes[:, attributes] < 0).any(axis=1))  # the clique fully observed
            known = codes[rows]
            if self.representation_ == "joint":
                for y in range(n_classes):
                    full = np.column_stack([known, np.full(len(rows), y)])
                    cell = np.ravel_multi_index(tuple(full[:, v] for v in clique), table.shape[1:])
                    terms[rows, y, k] += table.reshape(-1)[cell]
                if not taken and p in clique:
                    terms[rows, :, k] -= intercept  # the class prior, shown apart
                    taken = True
                continue
            cell = np.ravel_multi_index(tuple(known[:, v] for v in clique), table.shape[1:])
            values = table.reshape(table.shape[0], -1)[:, cell].T  # (rows, strata)
            if owner is None:
                terms[rows, :, k] += values
            else:
                terms[rows, owner, k] += values[:, 0]
        # A clique with an unseen state is summed out with its neighbours: those rows get <unobserved>.
        return ExplanationTerms(names, intercept, terms, complete)

    def to_markov_network(self) -> DiscreteMarkovNetwork:
        """The fitted classifier as one :class:`~graphmodels.networks.DiscreteMarkovNetwork` over ``(y, x)``.

        Every representation is one normalized Markov network over the class
        and the attributes, whose product is the model's joint ``P(y, x)``:

        * ``"joint"``: one factor per clique of the junction forest of
          ``networks_[0]`` (over attributes and the class), its conditional
          ``P(residual | separator)`` (its joint for a root clique), as
          :meth:`HyperforestDensity.to_markov_network`;
        * ``"shared"``: the factor ``P(y)``, then one factor per clique,
          over the clique and the class: ``P(residual | y, separator)``;
        * ``"free"``: the factor ``P(y)``, then, class by class, one factor
          per clique of that class's forest (``structures_[c]``), over the
          clique and the class: class ``c``'s conditional ``P_c(residual |
          separator)`` where ``y = c`` and 1 for the other classes, so that
          each class's factors act in that class only.

        The partition function is 1 (``log_partition()`` is 0 to rounding),
        the network's normalized probability of ``(y, x)`` is the model's
        joint, and its conditional of the class
        given the attributes is :meth:`predict_proba`, also with unobserved
        attributes (summed out, as the model does).

        Returns
        -------
        DiscreteMarkovNetwork
            Variables: the class (named ``class_name_``, ``len(classes_)``
            states in ``classes_`` order), then the attributes in column
            order (named as the columns, ``str`` of a name that is not a
            string, with the cardinalities of ``encoder_``, whose codes are
            the network's: the states are ``encoder_.levels_``, the
            discretizer's interval labels for a cut column, ``"<missing>"``
            for missing cells).

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two variables' names print alike (``0`` and ``"0"``).

        See Also
        --------
        graphmodels.io.write_uai : write the network as a UAI ``MARKOV`` file.
        graphmodels.models.export.classifier_markov_network : the construction.

        Notes
        -----
        For ``"free"`` the class joins every factor, so the network's graph
        is the union of the classes' Markov networks with the class linked
        to every attribute: a multinet written as one network. Its per-class
        distribution ``P(x | y = c)`` is the network with the class fixed at
        ``c``.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = gm.HyperforestClassifier(representation="free").fit(X, y)
        >>> mn = model.to_markov_network()
        >>> mn.variables[0], round(mn.log_partition(), 9)
        ('class', 0.0)
        >>> codes = model.encoder_.transform(X.head(1))
        >>> joint = mn.log_likelihood_codes(np.hstack([np.arange(4)[:, None], np.repeat(codes, 4, axis=0)]))
        >>> np.allclose(np.exp(joint - np.logaddexp.reduce(joint)), model.predict_proba(X.head(1)))
        True
        """
        self._check_fitted()
        n_classes, class_position = len(self.classes_), len(self.encoder_.columns_)
        factors: list[tuple[tuple[int, ...], np.ndarray]] = []
        if self.representation_ == "joint":
            network = self.networks_[0]
            factors.extend(
                (tuple(clique), table[0]) for clique, table in zip(network["cliques"], network["log_tables"])
            )
            return classifier_markov_network(self, factors)
        factors.append(((class_position,), self.class_log_prior_))
        if self.representation_ == "shared":
            network = self.networks_[0]
            for clique, table in zip(network["cliques"], network["log_tables"]):
                factors.append(((*clique, class_position), np.moveaxis(table, 0, -1)))
            return classifier_markov_network(self, factors)
        for c, network in enumerate(self.networks_):
            for clique, table in zip(network["cliques"], network["log_tables"]):
                gated = np.zeros((*table.shape[1:], n_classes))  # log 1 for the other classes
                gated[..., c] = table[0]
                factors.append(((*clique, class_position), gated))
        return classifier_markov_network(self, factors)


def _fitted_weights(model):
    model._check_fitted()
    if not hasattr(model, "_weights"):
        raise AttributeError("`weights_` is not saved with a model; refit it to see the candidate weights.")
    return model._weights


def _union_of_primal_graphs(forests, classes):
    """One nx.Graph over the attributes: every class's Markov network edges, each with the classes that have it."""
    union = nx.Graph()
    for label, forest in zip(classes, forests):
        primal = forest.primal_graph()
        union.add_nodes_from(primal.nodes(data=True))
        for u, v in primal.edges:
            if union.has_edge(u, v):
                union.edges[u, v]["classes"].append(label)
            else:
                union.add_edge(u, v, classes=[label])
    return union


def _select_stratum(network, y):
    return {**network, "log_tables": [table[y : y + 1] for table in network["log_tables"]]}
