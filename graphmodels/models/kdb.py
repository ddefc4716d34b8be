"""The k-dependence Bayesian classifier (KDB, Sahami 1996).

Each attribute has the class and at most `k` other attributes as parents
(:func:`~graphmodels.learners.kdb_structure`). The likelihood is one table
lookup per attribute for rows whose every cell was seen in training; a cell
with an unseen state (code -1) is unobserved and summed out exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from ..estimators.selection import class_prior_cells, family_cells
from ..inference.likelihoods import forest_log_likelihood, log_marginals
from ..learners.kdb import KDB_PARAMETER_CONSTRAINTS, kdb_structure
from ..stats.counting import DEFAULT_MAX_CELLS
from ..structures.forests import feature_parents
from . import _fitted
from .augmented import _log, _log_each
from .base import BaseClassifier
from .export import class_network
from .queries import Queryable
from .registry import register_model
from .tables import ConditionalTables, column_states

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork

__all__ = ["KDB"]


@register_model("kdb")
class KDB(BaseClassifier, ConditionalTables, Queryable):
    """k-dependence Bayesian classifier (Sahami, 1996).

    ``P(y, x) = P(y) prod_i P(x_i | y, x_parents(i))`` where every attribute
    has at most `k` attribute parents, chosen greedily by
    :func:`~graphmodels.learners.kdb_structure` [1]_: attributes in order of
    ``I(X_i; C)``, each taking the `k` earlier ones of highest
    ``I(X_i; X_j | C)``. ``k=0`` is :class:`NaiveBayes`; ``k=1`` gives an
    attribute forest, as in :class:`TAN`. Larger `k` models more
    dependence with larger tables (``n_classes * prod r`` cells per family).

    Parameters
    ----------
    k : int, default=1
        Largest number of attribute parents of an attribute, ``>= 0``.
    min_conditional_mutual_information : float, default=0.0
        Sahami's threshold :math:`\\theta`: an attribute is a parent only if
        its conditional mutual information with the child given the class
        (nats) exceeds this.
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="leave-one-out"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`.
        The default, :class:`~graphmodels.estimators.LeaveOneOutSelection`,
        fits the tables with each of several priors (empirical-Bayes BDeu,
        hierarchical Dirichlet, Laplace, BDeu, smoothing toward the marginal)
        and keeps the one whose class probabilities are best when each
        training row is left out (exact, from the counts: no refit); the
        choice is ``estimator_``, the scores ``estimator_selection_``. It was
        chosen by cross-validated log-loss over the shared UCI sets
        (``benchmarks/bench_defaults.py``). Paper reproductions pass the
        paper's prior (``"bdeu"``: BDeu(1)).
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
        Missing cells as a state of their own, or refused.
    max_cells : int, default=10_000_000
        Largest table the model may allocate: a candidate parent whose
        family table would exceed it is left out of the structure, and
        summing out unseen cells whose cliques would exceed it raises
        :class:`~graphmodels.stats.TableTooLargeError` (a ``ValueError``) naming `k`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    structure_ : nx.DiGraph
        Class node (``role="class"``) with an arc to every attribute
        (``kind="class"``, ``weight`` = ``I(X_i; C)``), and the arcs between
        attributes (``kind="augmenting"``, ``weight`` = ``I(X_i; X_j | C)``).
    feature_parents_ : list of tuple of int
        Positions of each attribute's attribute parents (at most `k`).
    class_log_prior_ : ndarray of shape (n_classes,)
    log_tables_ : list of ndarray
        ``log_tables_[i]`` has shape ``(n_classes, r_parent_1, ..., r_parent_m,
        r_i)`` and holds ``log P(x_i | y, x_parents)``, parents in the order of
        ``feature_parents_[i]``.
    encoder_ : TableEncoder
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when `X` had string column names.
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search as
        :func:`~graphmodels.learners.kdb_structure` records them (the order
        of the attributes, then each attribute's candidate parents,
        accepted or rejected with the reason).

    See Also
    --------
    graphmodels.learners.kdb_structure : the structure.
    TAN : one attribute parent, chosen by a maximum spanning tree.

    Notes
    -----
    A cell with a state never seen in training is unobserved: its variable
    is summed out of the joint. When every attribute has at most one
    attribute parent this is the message passing of
    :func:`~graphmodels.inference.forest_log_likelihood`; otherwise
    the rows are grouped by which cells are unseen, and each group's hidden
    variables are summed out on a junction tree
    (:func:`~graphmodels.inference.log_marginals`, exact, all rows of a
    group at once, without enumerating the joint states of every hidden
    variable).

    References
    ----------
    .. [1] Sahami, M. (1996). Learning limited dependence Bayesian
           classifiers. In *Proceedings of KDD-96*, 335-338.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.9, a ^ y, rng.integers(0, 2, 300))  # mostly a XOR y
    >>> X = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 3, 300)})
    >>> model = KDB(k=2, min_conditional_mutual_information=0.05).fit(X, y)
    >>> sorted((u, v) for u, v, kind in model.structure_.edges(data="kind") if kind == "augmenting")
    [('a', 'b')]
    >>> # b alone says nothing of y (it is a XOR y): naive Bayes (k=0) cannot use it.
    >>> round(KDB(k=0).fit(X, y).score(X, y), 2), round(model.score(X, y), 2)
    (0.77, 0.97)
    """

    _parameter_constraints = KDB_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        k: int = 1,
        min_conditional_mutual_information: float = 0.0,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.k = k
        self.min_conditional_mutual_information = min_conditional_mutual_information
        self.trace = trace
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _fitted_attributes: tuple[str, ...] = ("structure_", "feature_parents_", "class_log_prior_", "log_tables_")

    def _validate_fitted_state(self):
        """The classifier's checks, then each kept attribute's parents (acyclic) and table ``(C, r_parents..., r_j)``."""
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        kept = [cards[j] for j in self._kept_columns()]
        families = _fitted.sequence("feature_parents_", self.feature_parents_, len(kept))
        tables = _fitted.sequence("log_tables_", self.log_tables_, len(kept))
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(kept)))
        for j, (family, table) in enumerate(zip(families, tables)):
            family = _fitted.positions(f"feature_parents_[{j}]", family, len(kept), exclude=j)
            graph.add_edges_from((p, j) for p in family)
            shape = (len(self.classes_), *(kept[p] for p in family), kept[j])
            _fitted.log_table(f"log_tables_[{j}]", table, shape, probabilities=self._tables_are_probabilities())
        if not nx.is_directed_acyclic_graph(graph):
            raise _fitted.FittedStateError("feature_parents_", "has a cycle: the attributes' parents must form a DAG.")

    def _fit(self, engine):
        class_name = engine.names[-1]
        features = engine.names[:-1]
        kwargs = dict(k=self.k, min_conditional_mutual_information=self.min_conditional_mutual_information)
        if self.trace:
            self.structure_, self.trace_ = kdb_structure(engine, class_name, features, trace=True, **kwargs)
        else:
            self.structure_ = kdb_structure(engine, class_name, features, **kwargs)
        position = {name: i for i, name in enumerate(features)}
        parents = feature_parents(self.structure_)
        self.feature_parents_ = [tuple(position[p] for p in parents[name]) for name in features]
        self._fit_selected_tables(engine)

    _selects_estimator = True
    _families_lead_with_the_class = True

    def _family_counts(self, engine, child):
        """The (n_classes, r_parent_1, ..., r_child) table of one attribute's family."""
        features = engine.names[:-1]
        return engine.counts([engine.names[-1], *(features[p] for p in self.feature_parents_[child]), features[child]])

    def _fit_tables(self, engine, estimator):
        self.class_log_prior_ = _log(estimator.joint(engine.counts([engine.names[-1]])))
        self.log_tables_ = _log_each(
            estimator.conditionals([self._family_counts(engine, j) for j in range(len(self.feature_parents_))])
        )

    def _training_families(self, engine, codes, estimator):
        y = codes[:, -1]
        families = [class_prior_cells(engine, y, estimator)]
        for j, family in enumerate(self.feature_parents_):
            index = (y, *(codes[:, p] for p in family), codes[:, j])
            families.append(family_cells(self._family_counts(engine, j), estimator, index))
        return families

    _fits_discriminative = True

    def _family_index(self, codes):
        """Each row's (parents..., child) states in every attribute's table."""
        return [codes[:, [*family, j]] for j, family in enumerate(self.feature_parents_)]

    def _conditional_tables(self):
        """For :meth:`cpd`: the class prior, and each kept attribute's table given the class and its parents."""
        columns = list(self.encoder_.columns_)
        kept = [columns[j] for j in self._kept_columns()]
        families = {self.class_name_: ((), self.class_log_prior_)}
        for name, family, table in zip(kept, self.feature_parents_, self.log_tables_):
            families[name] = ((self.class_name_, *(kept[p] for p in family)), table)
        notes = {name: "an attribute the model left out (support_ is False)" for name in columns if name not in kept}
        return families, column_states(self), notes

    def _explanation_terms(self, codes):
        """One term per family of the attributes the model reads (see :meth:`explain`)."""
        from .explanations import ExplanationTerms, family_terms

        kept = self._kept_columns()
        families = [(tuple(family), j) for j, family in enumerate(self.feature_parents_)]
        terms, complete = family_terms(np.asarray(codes)[:, kept], families, self.log_tables_)
        names = [self.encoder_.columns_[j] for j in kept]
        return ExplanationTerms(names, self.class_log_prior_, terms, complete)

    def _forest_coalition_scores(self, codes, *, local_order=False):
        """``log P(y, x_S)`` of every coalition when the attributes form a forest (``k <= 1``), else None."""
        from .explanations import forest_coalition_scores

        if len(self._kept_columns()) != codes.shape[1] or any(len(f) > 1 for f in self.feature_parents_):
            return None
        parents = [family[0] if family else -1 for family in self.feature_parents_]
        tables = [table if table.ndim == 3 else table[:, None, :] for table in self.log_tables_]
        return forest_coalition_scores(codes, parents, tables, self.class_log_prior_, local_order=local_order)

    def _joint_log_likelihood(self, codes):
        codes = np.asarray(codes)
        if all(len(family) <= 1 for family in self.feature_parents_):
            # An attribute forest (k <= 1): the forest routine, with its message passing.
            parents = [family[0] if family else -1 for family in self.feature_parents_]
            tables = [table if table.ndim == 3 else table[:, None, :] for table in self.log_tables_]
            return forest_log_likelihood(codes, parents, tables) + self.class_log_prior_
        n_classes = len(self.class_log_prior_)
        joint = np.broadcast_to(self.class_log_prior_, (codes.shape[0], n_classes)).copy()
        unseen = codes < 0
        for i, (family, table) in enumerate(zip(self.feature_parents_, self.log_tables_)):
            # One lookup per attribute, for the rows that saw its whole family: the
            # flat cell of (parents, x_i) of every such row.
            members = list(family) + [i]
            seen = ~unseen[:, members].any(axis=1)
            rows = codes[:, members][seen]
            cell = np.ravel_multi_index(tuple(rows.T), table.shape[1:])
            joint[seen] += table.reshape(n_classes, -1)[:, cell].T
        partial = np.flatnonzero(unseen.any(axis=1))
        if len(partial):
            # The other factors only join hidden variables that share a family, so the
            # sum over the hidden variables of a row splits into independent sums, one
            # per connected group of them. Rows are grouped by pattern of unseen cells,
            # then by group, so each distinct group is summed out once for all its rows.
            moral = nx.Graph()
            moral.add_nodes_from(range(len(self.feature_parents_)))
            for i, family in enumerate(self.feature_parents_):
                members = list(family) + [i]
                moral.add_edges_from(itertools.combinations(members, 2))
            groups = {}
            patterns, inverse = np.unique(unseen[partial], axis=0, return_inverse=True)
            for g, pattern in enumerate(patterns):
                rows = partial[inverse.ravel() == g]
                for hidden in nx.connected_components(moral.subgraph(np.flatnonzero(pattern).tolist())):
                    groups.setdefault(tuple(sorted(hidden)), []).append(rows)
            for hidden, row_blocks in groups.items():
                rows = np.concatenate(row_blocks)
                joint[rows] += self._sum_out(codes[rows], hidden)
        return joint

    def _sum_out(self, codes, hidden):
        """``log sum_{hidden} prod P(x_i | y, x_parents)`` over the families that hold a hidden variable.

        `hidden` is a connected group of unseen attributes, and every other
        member of those families is observed in `codes`. The class is
        variable 0 and the hidden attributes 1, 2, ... of a factor product;
        each family's table, with the observed cells plugged in, is one
        factor. The class marginal of the product is the result, of shape
        (n_rows, n_classes).
        """
        n_rows, n_classes = codes.shape[0], len(self.class_log_prior_)
        variable = {j: 1 + h for h, j in enumerate(hidden)}
        factors = []
        for i, (family, table) in enumerate(zip(self.feature_parents_, self.log_tables_)):
            members = (*family, i)
            hidden_axes = [a for a, j in enumerate(members) if j in variable]
            if not hidden_axes:
                continue
            known_axes = [a for a, j in enumerate(members) if j not in variable]
            # Observed axes first, then the class, then the hidden ones: indexing
            # the observed axes with the rows' codes gives (rows, class, hidden...).
            moved = np.moveaxis(table, [1 + a for a in known_axes] + [0], range(len(known_axes) + 1))
            picked = moved[tuple(codes[:, members[a]] for a in known_axes)] if known_axes else moved[None]
            factors.append(((0, *(variable[members[a]] for a in hidden_axes)), picked))
        cardinalities = [n_classes] + [self.log_tables_[j].shape[-1] for j in hidden]
        kept = self._kept_columns()
        names = [self.class_name_, *(self.encoder_.columns_[kept[j]] for j in hidden)]
        k = "max_k" if "max_k" in self._param_names() else "k"  # SelectiveKDB's bound is max_k
        marginals, _ = log_marginals(
            factors,
            cardinalities,
            n_rows,
            max_cells=self.max_cells,
            names=names,
            fix=f"lower {k} (now {getattr(self, k)})",
        )
        return marginals[0]

    def _kept_columns(self):
        """Positions of the columns the likelihood reads: every one (SelectiveKDB keeps some)."""
        return np.arange(self.n_features_in_)

    def to_bayesian_network(self) -> DiscreteBayesianNetwork:
        """The fitted model as one :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        Its variables are the class (named ``class_name_``, states
        ``classes_``) and the attributes the likelihood reads (named as the
        columns, states ``encoder_.levels_``: the discretizer's interval
        labels for a cut column, ``"<missing>"`` for missing cells), written
        as strings; its arcs are those of ``structure_``; its CPTs ``P(y)``
        and ``P(x_i | y, x_parents)`` are ``class_log_prior_`` and
        ``log_tables_``, parents in the order of ``feature_parents_``. For
        :class:`SelectiveKDB` these are the kept attributes only
        (``selected_features_``). The network's posterior of the class
        given the attributes is :meth:`predict_proba`'s, also with
        unobserved attributes (summed out).

        Returns
        -------
        DiscreteBayesianNetwork
            Variables: the class, then the attributes in column order.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If the model was fitted with ``estimator="discriminative"`` and
            an attribute's parents do not all lie in one parent's family, so
            that its log-potentials cannot be turned into CPTs of the same
            structure (see :func:`graphmodels.models.export.class_network`),
            or if two variables' names print alike.

        See Also
        --------
        graphmodels.io.write_bif : write the network in BIF.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = KDB(k=2).fit(X, y)
        >>> bn = model.to_bayesian_network()
        >>> sorted(bn.graph.edges) == sorted(model.structure_.edges)
        True
        >>> bn.parents["maint"], bn.cpts["maint"].shape  # P(maint | class, safety, buying)
        (('class', 'safety', 'buying'), (4, 3, 4, 4))
        """
        self._check_fitted()
        return class_network(self, self._kept_columns(), self.feature_parents_, self.log_tables_, self.class_log_prior_)
