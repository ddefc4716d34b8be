"""Multi-dimensional Bayesian network classifiers: one network over all labels and attributes.

A multi-dimensional Bayesian network classifier (MDBNC) is a Bayesian network
over the class variables ``C_1..C_m`` and the attributes in which no arc
enters a class from an attribute (van der Gaag & de Waal, 2006; Bielza, Li &
Larrañaga, 2011; Mauá's notes, section 5). Its structure is one
``nx.DiGraph`` whose arcs carry their kind -- ``"class-class"`` (the class
subgraph), ``"class-feature"`` (the bridge) and ``"feature-feature"`` (the
feature subgraph); see :mod:`graphmodels.structures.multidimensional`.

* :class:`MultiDimensionalNaiveBayes`: empty class and feature subgraphs;
  each attribute's class parents chosen by BIC or BDeu.
* :class:`MultiDimensionalTAN`: a class forest and a feature forest as well.
* :class:`MultiDimensionalAODE`: the ensemble of Antonucci et al. (2013):
  one MDBNC per class, whose class subgraph is a naive Bayes rooted at that
  class (the *superparent*), all sharing the bridge; averaged.

Prediction is each label's marginal MAP value: ``argmax_c P(C_j = c | x)``,
the sum over every other label done exactly by a junction tree over the
class variables (:func:`graphmodels.inference.log_marginals`), with the
attribute CPTs plugged in as evidence factors -- never by enumerating the
``prod r_j`` label vectors. Attribute values unseen in training are summed
out exactly: the attribute becomes one more variable of the junction tree.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._special import logsumexp
from .._validation import Interval, Options
from ..data.encoding import TableEncoder
from ..inference.likelihoods import log_marginals
from ..learners.multidimensional import (
    multidimensional_structure,
    superparent_class_arcs,
)
from ..stats.counting import DEFAULT_MAX_CELLS, CountingEngine
from ..stats.scores import FAMILY_SCORES
from ..structures.multidimensional import feature_variables, multidimensional_classifier
from . import _fitted
from .augmented import _log
from .base import _warn_identifier_columns, _warn_unseen_values
from .export import multidimensional_network
from .multilabel import BaseMultiLabelClassifier
from .queries import Queryable, families_distribution
from .registry import register_model
from .tables import ConditionalTables

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork

__all__ = ["MultiDimensionalNaiveBayes", "MultiDimensionalTAN", "MultiDimensionalAODE"]

_POOLINGS = ("linear", "logarithmic")

#: Cells of the per-row evidence factors built at once in prediction (rows x summed CPT sizes).
_EVIDENCE_CELLS = 4_000_000


def _normalize(joint):
    """Rows of `joint` (log values) normalized; rows of probability 0 under every value become uniform.

    Returns the normalized table and the mask of those rows (only maximum-likelihood
    estimates, with no prior, can give them).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        norm = logsumexp(joint, axis=1, keepdims=True)
    impossible = ~np.isfinite(norm[:, 0])
    if impossible.any():
        joint = joint.copy()
        joint[impossible] = 0.0
        norm[impossible] = np.log(joint.shape[1])
    return joint - norm, impossible


def _warn_impossible(impossible):
    if impossible.any():
        warnings.warn(
            f"{int(impossible.sum())} rows have probability 0 under every label vector "
            "(a combination never seen in training, with no prior); they get the uniform "
            "distribution. Use a Dirichlet or BDeu estimator to avoid this.",
            UserWarning,
            stacklevel=5,
        )


def _acyclic(entry, n_variables, arcs):
    """Raise when the `arcs` among `n_variables` variables have a cycle."""
    graph = nx.DiGraph(arcs)
    graph.add_nodes_from(range(n_variables))
    if not nx.is_directed_acyclic_graph(graph):
        raise _fitted.FittedStateError(entry, "has a cycle: the labels' parents must form a DAG.")


class _MultiDimensionalClassifier(BaseMultiLabelClassifier, ConditionalTables, Queryable):
    """Fit (structure, then CPTs) and exact per-label marginals of one or more MDBNCs.

    Fitted parameters, shared by the three models (members: one network, or
    one per superparent for the ensemble):

    * ``class_parents_[k][j]``: tuple of the class positions that are
      parents of label j in member k; ``class_log_tables_[k][j]`` of shape
      ``(*parent cardinalities, r_j)``;
    * ``feature_class_parents_[i]``: class positions of attribute i's
      parents; ``feature_parents_[i]``: its attribute parent (-1 for none);
      ``feature_log_tables_[i]`` of shape ``(*class parents, [r_parent,] r_i)``.
    """

    _parameter_constraints = {
        "criterion": [Options(list(FAMILY_SCORES))],
        "max_parents": [Interval(numbers.Integral, 0, None)],
        "equivalent_sample_size": [Interval(numbers.Real, 0, None, closed="neither")],
        "pooling": [Options(list(_POOLINGS))],
    }

    _fitted_attributes: tuple[str, ...] = (
        "discretizer_", "estimator_", "encoder_", "structure_", "class_parents_", "class_log_tables_",
        "feature_class_parents_", "feature_log_tables_", "feature_parents_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The multi-label checks, then each member's label parents (acyclic) and tables, and the attributes' tables.

        A label's table is ``(r_label_parents..., r_label)``; an attribute's
        ``(r_label_parents..., [r_attribute_parent,] r_attribute)``.
        """
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        if len(cards) != len(self.feature_columns_):
            raise _fitted.FittedStateError(
                "encoder_", f"has {len(cards)} columns, but feature_columns_ has {len(self.feature_columns_)}."
            )
        label_cards = [len(values) for values in self.classes_]
        n_labels = len(label_cards)
        members = _fitted.sequence("class_parents_", self.class_parents_)
        if not members:
            raise _fitted.FittedStateError("class_parents_", "is empty: the model has at least one member.")
        member_tables = _fitted.sequence("class_log_tables_", self.class_log_tables_, len(members))
        for k, (parents, tables) in enumerate(zip(members, member_tables)):
            _fitted.sequence(f"class_parents_[{k}]", parents, n_labels)
            _fitted.sequence(f"class_log_tables_[{k}]", tables, n_labels)
            arcs = []
            for j, (family, table) in enumerate(zip(parents, tables)):
                family = _fitted.positions(f"class_parents_[{k}][{j}]", family, n_labels, exclude=j)
                arcs += [(p, j) for p in family]
                shape = (*(label_cards[p] for p in family), label_cards[j])
                _fitted.log_table(f"class_log_tables_[{k}][{j}]", table, shape)
            _acyclic(f"class_parents_[{k}]", n_labels, arcs)
        feature_parents = _fitted.parent_map("feature_parents_", self.feature_parents_, len(cards))
        label_parents = _fitted.sequence("feature_class_parents_", self.feature_class_parents_, len(cards))
        tables = _fitted.sequence("feature_log_tables_", self.feature_log_tables_, len(cards))
        for i, (family, table) in enumerate(zip(label_parents, tables)):
            family = _fitted.positions(f"feature_class_parents_[{i}]", family, n_labels)
            parent = [cards[feature_parents[i]]] if feature_parents[i] >= 0 else []
            _fitted.log_table(
                f"feature_log_tables_[{i}]", table, (*(label_cards[p] for p in family), *parent, cards[i])
            )

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        self.encoder_ = TableEncoder(missing=self.missing)
        codes = self.encoder_.fit_transform(frame)
        _warn_identifier_columns(self.encoder_, len(frame))
        features = list(frame.columns)
        table = np.concatenate([codes.astype(np.int64), label_codes], axis=1)
        cards = list(self.encoder_.cardinalities_) + [len(c) for c in self.classes_]
        engine = CountingEngine(
            table, cards, names=features + self.label_names_, sample_weight=sample_weight, max_cells=self.max_cells
        )
        if engine.total <= 0:
            raise ValueError("`sample_weight` sums to zero; give at least one row a positive weight.")
        members = self._learn_structures(engine, features)
        self._fit_parameters(engine, members)

    def _learn_structures(self, engine, features):
        """The MDBNC of each member (a list of nx.DiGraph); sets ``structure_``."""
        raise NotImplementedError

    def _structure(self, engine, features, class_subgraph, feature_subgraph):
        """:func:`multidimensional_structure` with the model's settings; sets ``trace_`` when tracing."""
        kwargs = dict(
            class_subgraph=class_subgraph,
            feature_subgraph=feature_subgraph,
            max_parents=self.max_parents,
            criterion=self.criterion,
            equivalent_sample_size=self.equivalent_sample_size,
        )
        if not self.trace:
            return multidimensional_structure(engine, self.label_names_, features, **kwargs)
        structure, self.trace_ = multidimensional_structure(engine, self.label_names_, features, trace=True, **kwargs)
        return structure

    def _fit_parameters(self, engine, members):
        classes = self.label_names_
        features = feature_variables(members[0])
        position = {name: j for j, name in enumerate(classes)}
        fposition = {name: i for i, name in enumerate(features)}
        estimator = self.estimator_
        self.class_parents_, self.class_log_tables_ = [], []
        for graph in members:
            parents, tables = [], []
            for c in classes:
                pa = tuple(sorted(position[p] for p in graph.predecessors(c)))
                counts = np.asarray(engine.counts([classes[p] for p in pa] + [c]))
                parents.append(pa)
                tables.append(_log(estimator.conditional(counts)))
            self.class_parents_.append(parents)
            self.class_log_tables_.append(tables)
        shared = members[0]
        self.feature_class_parents_, self.feature_log_tables_ = [], []
        self.feature_parents_ = np.full(len(features), -1, dtype=np.int64)
        for i, f in enumerate(features):
            preds = list(shared.predecessors(f))
            pa_classes = tuple(sorted(position[p] for p in preds if p in position))
            pa_features = [fposition[p] for p in preds if p in fposition]
            if len(pa_features) > 1:
                raise ValueError(f"Attribute {f!r} has {len(pa_features)} attribute parents; at most one is supported.")
            if pa_features:
                self.feature_parents_[i] = pa_features[0]
            family = [classes[p] for p in pa_classes] + [features[p] for p in pa_features] + [f]
            counts = np.asarray(engine.counts(family))
            self.feature_class_parents_.append(pa_classes)
            self.feature_log_tables_.append(_log(estimator.conditional(counts)))

    def _conditional_tables(self):
        """For :meth:`cpd`: each label's table given its label parents, each attribute's given its parents.

        An attribute's parents are its labels, then its attribute parent. An
        ensemble (MultiDimensionalAODE) has one table per label and member:
        its labels have none of their own.
        """
        labels, features = self.label_names_, list(self.encoder_.columns_)
        states = dict(zip(features, self.encoder_.levels_))
        states.update(zip(labels, self.classes_))
        families, notes = {}, {}
        for j, label in enumerate(labels):
            if len(self.class_parents_) == 1:
                families[label] = (tuple(labels[p] for p in self.class_parents_[0][j]), self.class_log_tables_[0][j])
            else:
                notes[label] = (
                    f"one table per member of the ensemble: class_log_tables_[k][{j}], k < {len(self.class_parents_)}"
                )
        for i, name in enumerate(features):
            parents = tuple(labels[p] for p in self.feature_class_parents_[i])
            if self.feature_parents_[i] >= 0:
                parents += (features[self.feature_parents_[i]],)
            families[name] = (parents, self.feature_log_tables_[i])
        return families, states, notes

    # ------------------------------------------------------------ inference
    def _member_log_marginals(self, codes):
        """Per member, per label: ``log P_k(C_j = c, x)`` of every row, shape (n_rows, r_j)."""
        n_rows, m = codes.shape[0], self.n_labels_
        class_cards = [len(c) for c in self.classes_]
        feature_cards = list(self.encoder_.cardinalities_)
        out = [[np.empty((n_rows, r)) for r in class_cards] for _ in self.class_log_tables_]
        unknown = codes < 0
        patterns, inverse = np.unique(unknown, axis=0, return_inverse=True)
        # The evidence factors hold (rows, *scope) cells each: bound them by blocks of rows.
        cells_per_row = sum(int(table.size) for table in self.feature_log_tables_)
        block = max(1, _EVIDENCE_CELLS // max(cells_per_row, 1))
        for p, pattern in enumerate(patterns):
            hidden = np.flatnonzero(pattern)
            variable = {int(i): m + t for t, i in enumerate(hidden)}
            cards = class_cards + [feature_cards[i] for i in hidden]
            pattern_rows = np.flatnonzero(inverse.ravel() == p)
            for start in range(0, len(pattern_rows), block):
                rows = pattern_rows[start : start + block]
                evidence = self._evidence_factors(codes[rows], variable)
                for k, (parents, tables) in enumerate(zip(self.class_parents_, self.class_log_tables_)):
                    prior = [(pa + (j,), table[None]) for j, (pa, table) in enumerate(zip(parents, tables))]
                    marginals, _ = log_marginals(
                        evidence + prior,
                        cards,
                        len(rows),
                        max_cells=self.max_cells,
                        names=[*self.label_names_, *(self.encoder_.columns_[i] for i in hidden)],
                        fix=f"lower max_parents (now {self.max_parents})",
                    )
                    for j in range(m):
                        out[k][j][rows] = marginals[j]
        return out

    def _evidence_factors(self, codes, hidden):
        """The attribute CPTs with the observed values plugged in, summed per scope.

        `hidden` maps the positions of unobserved attributes to their variable
        index (after the classes); their axes stay in the factor.
        """
        by_scope = {}
        for i, (pa_classes, table) in enumerate(zip(self.feature_class_parents_, self.feature_log_tables_)):
            axes_vars = list(pa_classes)
            features = ([int(self.feature_parents_[i])] if self.feature_parents_[i] >= 0 else []) + [i]
            observed_axes, observed_codes, scope = [], [], list(pa_classes)
            for offset, f in enumerate(features):
                axis = len(axes_vars) + offset
                if f in hidden:
                    scope.append(hidden[f])
                else:
                    observed_axes.append(axis)
                    observed_codes.append(codes[:, f])
            if observed_axes:
                moved = np.moveaxis(table, observed_axes, list(range(len(observed_axes))))
                factor = moved[tuple(observed_codes)]  # (n, *unobserved axes)
            else:
                factor = table[None]
            key = tuple(scope)
            if key in by_scope:
                by_scope[key] = by_scope[key] + factor
            else:
                by_scope[key] = factor
        return list(by_scope.items())

    def _marginal_log_proba(self, frame):
        codes = self._encode_new(frame)
        if codes.shape[0] == 0:
            return [np.zeros((0, len(c))) for c in self.classes_]
        members = self._member_log_marginals(codes)
        return self._pool(members)

    def _pool(self, members):
        out, impossible = [], False
        for j in range(self.n_labels_):
            table, bad = _normalize(members[0][j])
            out.append(table)
            impossible = impossible | bad
        _warn_impossible(np.asarray(impossible))
        return out

    def _encode_new(self, X):
        owner = type(self).__name__
        frame = self.encoder_.align(X, owner=owner)
        codes = self.encoder_.transform(frame, owner=owner)
        _warn_unseen_values(codes, frame, self.encoder_, owner)
        return codes


@register_model("md-nb")
class MultiDimensionalNaiveBayes(_MultiDimensionalClassifier):
    """Multi-dimensional naive Bayes: labels independent a priori, attributes independent given them.

    The MDBNC with empty class and feature subgraphs (Mauá's notes,
    section 5; van der Gaag & de Waal, 2006): each attribute's class
    parents (the bridge) are the best set of at most `max_parents` labels by
    BIC or BDeu (:func:`~graphmodels.learners.bridge_parent_sets`; an
    attribute with no parent is dropped). The labels, independent a priori,
    are d-connected through their common children, so the model is strictly
    more expressive than binary relevance with naive Bayes. Each label's
    posterior is summed exactly over the others (junction tree).

    Parameters
    ----------
    max_parents : int, default=2
        Most class parents of an attribute.
    criterion : {"bdeu", "bic", "aic", "k2", "log-likelihood"}, default="bdeu"
        The structure score (:mod:`graphmodels.stats.scores`).
    equivalent_sample_size : float, default=1.0
        BDeu's, when ``criterion="bdeu"``.
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator of every CPT (:func:`graphmodels.estimators.get_estimator`).
        The default, :class:`~graphmodels.estimators.EmpiricalBayesBDeu`,
        gives each table the BDeu equivalent sample size that maximises its
        marginal likelihood (chosen by ``benchmarks/bench_defaults.py`` and
        ``bench_defaults_multilabel.py``); Mauá's table is reproduced with
        ``"bdeu"``.
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
        Largest count table, and largest junction-tree clique, allowed.

    Attributes
    ----------
    structure_ : nx.DiGraph
        The MDBNC; edges carry ``kind`` and ``weight`` (score gain).
    label_names_, classes_, n_labels_, encoder_
    class_parents_, class_log_tables_, feature_class_parents_, feature_parents_, feature_log_tables_
        The CPTs (see the module notes of :mod:`graphmodels.models.multidimensional`).
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search as
        :func:`~graphmodels.learners.multidimensional_structure` records
        them (the class forest, the bridge choices and the feature
        branching, each in its ``part``).

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 5.
    .. [2] van der Gaag, L. C., & de Waal, P. R. (2006). Multi-dimensional
           Bayesian network classifiers. *Proceedings of PGM 2006*, 107-114.
    .. [3] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *International Journal of
           Approximate Reasoning*, 52(6), 705-727.

    Examples
    --------
    >>> from graphmodels.networks import random_multidimensional_network
    >>> network, _ = random_multidimensional_network(3, 6, random_state=0)
    >>> data = network.sample(500, random_state=1)
    >>> model = MultiDimensionalNaiveBayes().fit(data.filter(like="A"), data.filter(like="C"))
    >>> model.predict(data.filter(like="A").head(2)).shape
    (2, 3)
    """

    _class_subgraph = "empty"
    _feature_subgraph = "empty"

    def __init__(
        self,
        *,
        max_parents: int = 2,
        criterion: str = "bdeu",
        equivalent_sample_size: float = 1.0,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.max_parents = max_parents
        self.criterion = criterion
        self.equivalent_sample_size = equivalent_sample_size
        self.trace = trace
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    def _learn_structures(self, engine, features):
        self.structure_ = self._structure(engine, features, self._class_subgraph, self._feature_subgraph)
        return [self.structure_]

    def to_bayesian_network(self) -> DiscreteBayesianNetwork:
        """The fitted MDBNC as one :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        Its variables are the labels (named as the columns of `Y`, states
        ``classes_[j]``) and the attributes (named as the columns of `X`,
        states ``encoder_.levels_``: the discretizer's interval labels for a
        cut column, ``"<missing>"`` for missing cells), written as strings;
        its arcs are those of ``structure_`` and its CPTs
        ``class_log_tables_`` and ``feature_log_tables_`` (class parents
        first, then the attribute parent). Each label's posterior given the
        attributes, the other labels summed out, is :meth:`predict_proba`'s,
        also with unobserved attributes (summed out).
        (:class:`MultiDimensionalAODE` averages one network per label and
        has no such method.)

        Returns
        -------
        DiscreteBayesianNetwork
            Variables: the labels in ``label_names_`` order, then the
            attributes in column order.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two variables' names print alike (``0`` and ``"0"``).

        Examples
        --------
        >>> from graphmodels.networks import random_multidimensional_network
        >>> network, _ = random_multidimensional_network(3, 6, random_state=0)
        >>> data = network.sample(500, random_state=1)
        >>> model = MultiDimensionalNaiveBayes().fit(data.filter(like="A"), data.filter(like="C"))
        >>> bn = model.to_bayesian_network()
        >>> sorted(bn.graph.edges) == sorted(model.structure_.edges)
        True
        >>> bn.variables[:3]  # the labels first
        ['C0', 'C1', 'C2']
        """
        self._check_fitted()
        return multidimensional_network(
            self,
            self.class_parents_[0],
            self.class_log_tables_[0],
            self.feature_class_parents_,
            self.feature_parents_,
            self.feature_log_tables_,
        )


@register_model("md-tan")
class MultiDimensionalTAN(MultiDimensionalNaiveBayes):
    """Multi-dimensional tree-augmented naive Bayes: tree-shaped class and feature subgraphs.

    The class subgraph is the maximum-score spanning forest of the labels
    (Chow-Liu under BIC/BDeu, :func:`~graphmodels.learners.class_forest`),
    the bridge as in :class:`MultiDimensionalNaiveBayes`, and, given the
    bridge, the feature subgraph is the maximum branching of the score gains
    of one attribute parent (:func:`~graphmodels.learners.bridge_and_feature_forest`).
    Only arcs that raise the score are kept, so both subgraphs are forests
    (trees when every variable is related) -- the multi-dimensional TAN of
    van der Gaag & de Waal (2006) and Mauá's notes, section 5, learned with a
    penalized score as in Bielza et al. (2011).

    Parameters
    ----------
    max_parents, criterion, equivalent_sample_size, trace, estimator, missing, max_cells
        As :class:`MultiDimensionalNaiveBayes`.

    Attributes
    ----------
    trace_ : DataFrame
        Only with ``trace=True``: as :class:`MultiDimensionalNaiveBayes`'s,
        with the class forest (``part="class"``) and the feature branching
        (``part="feature"``) steps too.

    References
    ----------
    .. [1] van der Gaag, L. C., & de Waal, P. R. (2006). Multi-dimensional
           Bayesian network classifiers. *Proceedings of PGM 2006*, 107-114.
    .. [2] Bielza, C., Li, G., & Larrañaga, P. (2011). Multi-dimensional
           classification with Bayesian networks. *IJAR*, 52(6), 705-727.
    .. [3] Mauá, D. D. (2016). *Bayesian Network Classifiers*, section 5.
    """

    _class_subgraph = "forest"
    _feature_subgraph = "forest"


@register_model("md-aode")
class MultiDimensionalAODE(_MultiDimensionalClassifier):
    """Multi-dimensional averaged one-dependence classifier (Antonucci et al., 2013).

    An ensemble of m MDBNCs, one per label: in the k-th, the class subgraph
    is a naive Bayes with label ``C_k`` as the superparent (``C_k -> C_l``
    for every other label) and the feature subgraph is empty; all share the
    bridge, each attribute's class parents being its best set of at most
    `max_parents` labels by BIC or BDeu -- learned once, in time linear in
    the number of attributes. Following Mauá's notes (section 6) the
    ensemble is the average of the members' joints,

    ``P(c, x) = [1/m sum_k P(c_k) prod_{l != k} P(c_l | c_k)] prod_i P(x_i | pa(x_i))``,

    and each label's prediction is its marginal MAP value
    ``argmax_{c_j} sum_{c_l, l != j} P(c, x)``, summed exactly by a junction
    tree per member (the class graph of a member, with the bridge's
    evidence factors, can have a large tree-width: a tree decomposition is
    used, not the enumeration of all label vectors). ``pooling="logarithmic"``
    pools the members' marginal posteriors geometrically instead, as
    Antonucci et al. do.

    Parameters
    ----------
    max_parents : int, default=2
        Bound on the class parents of an attribute.
    criterion : {"bdeu", "bic", "aic", "k2", "log-likelihood"}, default="bdeu"
    equivalent_sample_size : float, default=1.0
    trace : bool, default=False
        Record the steps of the structure search (the shared bridge) in ``trace_``.
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator of every CPT (:func:`graphmodels.estimators.get_estimator`).
        The default, :class:`~graphmodels.estimators.EmpiricalBayesBDeu`,
        gives each table the BDeu equivalent sample size that maximises its
        marginal likelihood (chosen by ``benchmarks/bench_defaults.py`` and
        ``bench_defaults_multilabel.py``); Mauá's table is reproduced with
        ``"bdeu"``.
    pooling : {"linear", "logarithmic"}, default="linear"
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

    Attributes
    ----------
    structure_ : nx.DiGraph
        The shared part: labels, attributes and the bridge (no class arcs).
    member_structures_ : list of nx.DiGraph
        The MDBNC of each superparent, in ``label_names_`` order.
    trace_ : DataFrame
        Only with ``trace=True``: the bridge's choices as
        :func:`~graphmodels.learners.multidimensional_structure` records
        them (the members' class subgraphs are fixed: no search).
    class_parents_, class_log_tables_
        One list per member.

    References
    ----------
    .. [1] Antonucci, A., Corani, G., Mauá, D. D., & Gabaglio, S. (2013). An
           ensemble of Bayesian networks for multilabel classification.
           *Proceedings of IJCAI 2013*, 1220-1225.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 6.
    """

    def __init__(
        self,
        *,
        max_parents: int = 2,
        criterion: str = "bdeu",
        equivalent_sample_size: float = 1.0,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        pooling: str = "linear",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.max_parents = max_parents
        self.criterion = criterion
        self.equivalent_sample_size = equivalent_sample_size
        self.trace = trace
        self.estimator = estimator
        self.pooling = pooling
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _fitted_attributes: tuple[str, ...] = ("member_structures_",)

    def _build_distribution(self):
        """The average of the members' joints (Mauá's ensemble): a mixture whose member is hidden."""
        from ..inference import Mixture

        families, states, _ = self._conditional_tables()
        labels = self.label_names_
        members = []
        for k in range(len(self.class_parents_)):
            own = {
                label: (tuple(labels[p] for p in self.class_parents_[k][j]), self.class_log_tables_[k][j])
                for j, label in enumerate(labels)
            }
            members.append(
                families_distribution(
                    own | families,
                    states,
                    variables=self._query_variables(list(own) + list(families)),
                    name=f"MultiDimensionalAODE member {labels[k]!r}",
                    max_cells=self.max_cells,
                )
            )
        return Mixture(members, np.ones(len(members)), name="MultiDimensionalAODE")

    def _learn_structures(self, engine, features):
        classes = self.label_names_
        self.structure_ = self._structure(engine, features, "empty", "empty")
        bridge_arcs = list(self.structure_.edges(data=True))
        cards = dict(self.structure_.nodes(data="cardinality"))
        self.member_structures_ = []
        for k in classes:
            star = [(u, v, {"weight": w}) for u, v, w in superparent_class_arcs(classes, k)]
            member = multidimensional_classifier(classes, features, star + bridge_arcs, cardinalities=cards)
            member.graph["superparent"] = k
            self.member_structures_.append(member)
        return self.member_structures_

    def _pool(self, members):
        out, impossible = [], False
        m = len(members)
        for j in range(self.n_labels_):
            stacked = np.stack([member[j] for member in members])  # (members, rows, r_j)
            with np.errstate(divide="ignore", invalid="ignore"):
                if self.pooling == "linear":
                    pooled = logsumexp(stacked, axis=0) - np.log(m)
                else:
                    # A member under which the row is impossible has no posterior: uniform.
                    posteriors = [_normalize(table) for table in stacked]
                    impossible = impossible | np.logical_and.reduce([bad for _, bad in posteriors])
                    pooled = np.mean([table for table, _ in posteriors], axis=0)
            table, bad = _normalize(pooled)
            out.append(table)
            impossible = impossible | bad
        _warn_impossible(np.asarray(impossible))
        return out
