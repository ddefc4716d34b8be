"""Augmented naive Bayes classifiers: naive Bayes, TAN, FAN, and the
class-conditional Chow-Liu classifier.

All four are forest-structured given the class: each attribute has the class
and at most one other attribute as parents (the Chow-Liu classifier learns a
different forest for each class). They share one fitting routine (a family
table per attribute from the counting engine, turned into a CPT by the
estimator) and one likelihood routine
(:func:`~graphmodels.inference.forest_log_likelihood`).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._memory import check_cells, describe_variables
from .._trace import Trace, root_rows
from .._validation import Interval, Options
from ..estimators.selection import class_prior_cells, family_cells
from ..inference.likelihoods import forest_log_likelihood
from ..learners.trees import (
    DEFAULT_TREE_ESS,
    SPANNING_TREE_ALGORITHMS,
    TREE_CRITERIA,
    _chow_liu_tree,
    fan_structure,
    tan_structure,
    tie_safe,
)
from ..stats.counting import DEFAULT_MAX_CELLS
from ..stats.information import entropy_of_counts
from ..structures.forests import augmented_naive_bayes, feature_parents, orient_forest
from . import _fitted
from .base import BaseClassifier
from .export import class_conditional_networks, class_network
from .queries import Queryable
from .registry import register_model
from .tables import ConditionalTables, column_states

if TYPE_CHECKING:
    from collections.abc import Hashable

    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork
    from ..stats.counting import CountingEngine

__all__ = ["NaiveBayes", "TAN", "FAN", "ChowLiu"]


def _log(table):
    with np.errstate(divide="ignore"):
        return np.log(table)


def family_log_tables(
    engine: CountingEngine,
    parents: Sequence[int] | np.ndarray,
    estimator: Estimator,
    class_position: int | None = None,
) -> list[np.ndarray]:
    """Log CPTs ``log P(x_j | [class,] x_parent)`` of every variable.

    Parameters
    ----------
    engine : CountingEngine
    parents : sequence of int
        Parent position of each variable in ``range(len(parents))`` (-1 for none).
    estimator : Estimator
    class_position : int, optional
        If given, the class is an extra parent of every variable: the
        tables get a leading class axis.

    Returns
    -------
    list of ndarray, each of shape (n_classes or 1, r_parent or 1, r_j)
    """
    return _log_each(estimator.conditionals(_family_count_tables(engine, parents, class_position)))


def _log_each(tables):
    """The log of each of a list of fresh tables, in place: no second copy of a model's tables at once."""
    with np.errstate(divide="ignore"):
        return [np.log(table, out=table) for table in tables]


def _family_count_tables(engine, parents, class_position):
    """Every attribute's family table, kept in the engine's cache: an estimator selection reads them once per candidate."""
    key = ("family-tables", tuple(int(p) for p in parents), class_position)
    cache = getattr(engine, "_cache", {})
    if key not in cache:
        cache[key] = [_family_counts(engine, int(p), j, class_position) for j, p in enumerate(parents)]
    return cache[key]


def _family_counts(engine, parent, child, class_position):
    """The (n_classes or 1, r_parent or 1, r_child) table of one attribute's family."""
    family = ([] if class_position is None else [class_position]) + ([parent] if parent >= 0 else []) + [child]
    counts = np.asarray(engine.counts([engine.names[k] for k in family]))
    if class_position is None:
        counts = counts[None]
    if parent < 0:
        counts = counts[:, None, :]
    return counts


def _forest_tables(entry, tables, parents, cards, n_strata, model):
    """Check the tables of a forest of parents: ``log P(x_j | stratum, x_parent)``, shape (n_strata, r_parent or 1, r_j)."""
    for j, table in enumerate(_fitted.sequence(entry, tables, len(cards))):
        shape = (n_strata, cards[parents[j]] if parents[j] >= 0 else 1, cards[j])
        _fitted.log_table(f"{entry}[{j}]", table, shape, probabilities=model._tables_are_probabilities())


#: The rule of a spanning-tree `algorithm` hyperparameter.
TREE_ALGORITHM_CONSTRAINTS = {"algorithm": [Options(list(SPANNING_TREE_ALGORITHMS))]}


class _AugmentedNaiveBayes(BaseClassifier, ConditionalTables, Queryable):
    """Shared fit and likelihood of the shared-structure models."""

    _parameter_constraints = TREE_ALGORITHM_CONSTRAINTS

    _fitted_attributes: tuple[str, ...] = ("structure_", "feature_parents_", "class_log_prior_", "log_tables_")

    def _validate_fitted_state(self):
        """The classifier's checks, then a forest of parents and each attribute's table ``(C, r_parent or 1, r_j)``."""
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        parents = _fitted.parent_map("feature_parents_", self.feature_parents_, len(cards))
        _forest_tables("log_tables_", self.log_tables_, parents, cards, len(self.classes_), self)

    def _learn_structure(self, engine):
        raise NotImplementedError

    def _fit(self, engine):
        # Every (class, attribute) table in one pass; later queries read the cache.
        engine.one_way_counts(engine.names[:-1], given=engine.names[-1])
        self.structure_ = self._learn_structure(engine)
        parents = feature_parents(self.structure_)
        position = {name: i for i, name in enumerate(engine.names)}
        self.feature_parents_ = np.array(
            [position[parents[name][0]] if parents[name] else -1 for name in engine.names[:-1]],
            dtype=np.int64,
        )
        self._fit_selected_tables(engine)

    _selects_estimator = True
    _families_lead_with_the_class = True

    def _fit_tables(self, engine, estimator):
        class_pos = engine.n_variables - 1
        self.class_log_prior_ = _log(estimator.joint(engine.counts([engine.names[class_pos]])))
        self.log_tables_ = family_log_tables(engine, self.feature_parents_, estimator, class_pos)

    def _training_families(self, engine, codes, estimator):
        y = codes[:, -1]
        families = [class_prior_cells(engine, y, estimator)]
        tables = _family_count_tables(engine, self.feature_parents_, engine.n_variables - 1)
        for j, (p, counts) in enumerate(zip(self.feature_parents_, tables)):
            parent = codes[:, p] if p >= 0 else 0
            families.append(family_cells(counts, estimator, (y, parent, codes[:, j])))
        return families

    _fits_discriminative = True

    def _family_index(self, codes):
        """Each row's (parent, child) states in every attribute's table (parent 0 for a root)."""
        return [
            np.column_stack([codes[:, p] if p >= 0 else np.zeros(len(codes), np.int64), codes[:, j]])
            for j, p in enumerate(self.feature_parents_)
        ]

    def _joint_log_likelihood(self, codes):
        joint = forest_log_likelihood(codes, self.feature_parents_, self.log_tables_)
        return joint + self.class_log_prior_

    def _explanation_terms(self, codes):
        """One term per attribute family: ``log P(x_j | y, x_parent)`` (see :meth:`explain`)."""
        from .explanations import ExplanationTerms, family_terms

        families = [((int(q),) if q >= 0 else (), j) for j, q in enumerate(self.feature_parents_)]
        tables = [t if q >= 0 else t[:, 0, :] for q, t in zip(self.feature_parents_, self.log_tables_)]
        terms, complete = family_terms(codes, families, tables)
        return ExplanationTerms(list(self.encoder_.columns_), self.class_log_prior_, terms, complete)

    def _forest_coalition_scores(self, codes, *, local_order=False):
        """``log P(y, x_S)`` of every coalition (for :func:`~graphmodels.shapley_values`), over the forest."""
        from .explanations import forest_coalition_scores

        return forest_coalition_scores(
            codes, self.feature_parents_, self.log_tables_, self.class_log_prior_, local_order=local_order
        )

    def _conditional_tables(self):
        """For :meth:`cpd`: the class prior, and each attribute's table given the class and its parent."""
        columns = list(self.encoder_.columns_)
        families = {self.class_name_: ((), self.class_log_prior_)}
        for name, parent, table in zip(columns, self.feature_parents_, self.log_tables_):
            if parent >= 0:
                families[name] = ((self.class_name_, columns[parent]), table)
            else:
                families[name] = ((self.class_name_,), table[:, 0, :])
        return families, column_states(self), {}

    def to_bayesian_network(self) -> DiscreteBayesianNetwork:
        """The fitted model as one :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        Its variables are the class (named ``class_name_``, states
        ``classes_``) and the attributes (named as the columns, states
        ``encoder_.levels_``: the discretizer's interval labels for a cut
        column, ``"<missing>"`` for missing cells), written as strings; its
        arcs are those of ``structure_``; its CPTs ``P(y)`` and ``P(x_i | y,
        x_parent)`` are ``class_log_prior_`` and ``log_tables_``. The
        network's posterior of the class given the attributes is
        :meth:`predict_proba`'s, also with unobserved attributes (summed out).

        Returns
        -------
        DiscreteBayesianNetwork
            Variables: the class, then the attributes in column order; the
            codes of ``encoder_`` are the network's codes.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two variables' names print alike (``0`` and ``"0"``).

        See Also
        --------
        graphmodels.io.write_bif : write the network in BIF.
        graphmodels.models.export.class_network : the construction, and how
            tables fitted with ``estimator="discriminative"`` become CPTs.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("iris", return_X_y=True)
        >>> model = gm.TAN().fit(X, y)
        >>> bn = model.to_bayesian_network()
        >>> bn.states["petal length"]
        ['(-inf, 2.45]', '(2.45, 4.75]', '(4.75, inf)']
        >>> codes = model.encoder_.transform(model.discretizer_.transform(X.head(1)))
        >>> joint = np.array([bn.log_likelihood_codes(np.hstack([[[c]], codes]))[0] for c in range(3)])
        >>> np.allclose(np.exp(joint - np.logaddexp.reduce(joint)), model.predict_proba(X.head(1)))
        True
        """
        self._check_fitted()
        parents = [(int(p),) if p >= 0 else () for p in self.feature_parents_]
        tables = [table if family else table[:, 0] for family, table in zip(parents, self.log_tables_)]
        return class_network(self, range(len(parents)), parents, tables, self.class_log_prior_)


@register_model("nb")
class NaiveBayes(_AugmentedNaiveBayes):
    """Naive Bayes over discrete attributes.

    ``P(y, x) = P(y) prod_i P(x_i | y)``; prediction normalizes with
    log-sum-exp, so the posterior never underflows [1]_. A cell with a state
    unseen in training drops out of the product (it is marginalized).

    Parameters
    ----------
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
        Largest table the counting engine may allocate.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    structure_ : nx.DiGraph
        Class node (``role="class"``) with an arc to every attribute.
    class_log_prior_ : ndarray of shape (n_classes,)
    log_tables_ : list of ndarray of shape (n_classes, 1, r_j)
    encoder_ : TableEncoder
    n_features_in_ : int

    References
    ----------
    .. [1] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 2.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"outlook": ["sun", "sun", "rain", "rain"], "wind": ["no", "yes", "no", "yes"]})
    >>> model = NaiveBayes().fit(X, ["play", "stay", "play", "stay"])
    >>> model.predict(pd.DataFrame({"outlook": ["sun"], "wind": ["yes"]})).tolist()
    ['stay']
    """

    def __init__(
        self,
        *,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    #: Its two-class log-odds is a sum of one term per attribute, observed or summed out, so
    #: graphmodels.shapley_values takes each attribute's value from its singleton coalition.
    _additive_log_odds = True

    def _learn_structure(self, engine):
        names = engine.names
        cards = dict(zip(names, engine.cardinalities))
        return augmented_naive_bayes(names[-1], names[:-1], cardinalities=cards)


@register_model("tan")
class TAN(_AugmentedNaiveBayes):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt, 1997).

    The structure comes from :func:`~graphmodels.learners.tan_structure`; each
    attribute's CPT ``P(x_i | y, x_parent)`` from the estimator. With
    ``estimator=BDeu(alpha)`` the parameters follow the likelihood-equivalent
    prior of Mauá's lecture notes, section 3 [2]_.

    Parameters
    ----------
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
    algorithm : {"kruskal", "prim"}, default="kruskal"
        Spanning-tree algorithm (networkx's).
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
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

    Attributes
    ----------
    classes_, structure_, class_log_prior_, log_tables_, encoder_
        As :class:`NaiveBayes`; ``log_tables_[i]`` has shape
        (n_classes, r_parent, r_i).
    feature_parents_ : ndarray of shape (n_features,)
        Position of each attribute's attribute parent, -1 for the root.
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search, as
        :func:`~graphmodels.learners.tan_structure` records them (every
        candidate edge with its ``I(X_i; X_j | C)``, accepted or rejected
        with the cycle it would close, then the root of each tree).

    References
    ----------
    .. [1] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian network
           classifiers. *Machine Learning*, 29(2-3), 131-163.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, section 3.
    """

    def __init__(
        self,
        *,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        algorithm: str = "kruskal",
        trace: bool = False,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.estimator = estimator
        self.algorithm = algorithm
        self.trace = trace
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    def _learn_structure(self, engine):
        if self.trace:
            structure, self.trace_ = tan_structure(
                engine, engine.names[-1], engine.names[:-1], algorithm=self.algorithm, trace=True
            )
            return structure
        return tan_structure(engine, engine.names[-1], engine.names[:-1], algorithm=self.algorithm)


@register_model("fan")
class FAN(TAN):
    """MDL-optimal forest-augmented naive Bayes (Hamine & Helman, 2004).

    Like :class:`TAN`, but augmenting arcs whose conditional mutual
    information does not pay for their extra parameters under MDL are left
    out, so the attributes form a forest; see
    :func:`~graphmodels.learners.fan_structure`.

    Parameters
    ----------
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
    algorithm : {"kruskal", "prim"}, default="kruskal"
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
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

    Attributes
    ----------
    trace_ : DataFrame
        Only with ``trace=True``: the steps of the search, as
        :func:`~graphmodels.learners.fan_structure` records them (the pairs
        dropped by their MDL threshold, the components of the others, the
        spanning-tree steps in each, the roots).

    References
    ----------
    .. [1] Hamine, V., & Helman, P. (2004). Learning optimal augmented Bayes
           networks. arXiv:cs/0509055.
    """

    def _learn_structure(self, engine):
        if self.trace:
            structure, self.trace_ = fan_structure(
                engine, engine.names[-1], engine.names[:-1], algorithm=self.algorithm, trace=True
            )
            return structure
        return fan_structure(engine, engine.names[-1], engine.names[:-1], algorithm=self.algorithm)


@register_model("chow-liu")
class ChowLiu(BaseClassifier, ConditionalTables, Queryable):
    """Class-conditional Chow-Liu trees (or forests): one structure per class.

    ``P(y, x) = P(y) P_y(x)`` where each ``P_y`` is the Chow-Liu tree [1]_ of
    the rows of class ``y`` (``criterion="ml"``: the ML-C_f-1 model of Liang &
    Srebro [2]_, free structure, tree-width 1), its MDL forest
    (``criterion="mdl"``: MDL-C_f-1), or by default its forest of highest
    BDeu marginal likelihood (``criterion="bdeu"``). By default
    (``representation="auto"``) the model keeps these per-class forests only
    when they predict the class better, on training rows they were not
    fitted to, than one tree shared by the classes (Friedman et al.'s TAN
    tree [4]_, Liang & Srebro's C_s-1 against C_f-1).

    Parameters
    ----------
    estimator : str, dict or Estimator, default="leave-one-out"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`
        (the default: the prior with the best leave-one-out log-loss among
        :class:`~graphmodels.estimators.LeaveOneOutSelection`'s candidates,
        as for TAN; the choice is ``estimator_``). A class's table of an
        attribute given its parent is the slice for that class of the table
        given the class and that parent, estimated as a whole: the
        pseudo-counts draw on every class's rows (an empirical-Bayes sample
        size, the back-off to ``P(x_j | y)`` then ``P(x_j)``) as TAN's do, so
        with the same tree in every class the model is TAN (with the MDL
        forests this lowered the mean cross-validated log-loss over the shared
        UCI sets from 0.351 to 0.344).
    representation : {"auto", "free", "shared"}, default="auto"
        ``"free"``: each class's own tree or forest, by `criterion` (a
        Bayesian multinet). ``"shared"``: the tree of :class:`TAN` (the
        maximum spanning tree of the conditional mutual information given the
        class) in every class; the model is then TAN. ``"auto"``: both are
        fitted and scored by the log-loss of their class probabilities on
        training rows left out; the scores are ``representation_selection_``.
        Where the classes average at least 100 training rows, each row is
        left out of the tables (exact from the counts, as the estimator's
        selection; the structures are not refitted) and the lower score wins.
        Where they have fewer, that score flatters the per-class trees: each
        is learned on its class's few rows, and a row left out of the tables
        keeps the edges it made look strong (on 30 rows of 50 attributes,
        per-class trees scored near 0 nats and lost 2 nats per row to TAN on
        new rows). There the structures are relearned in a 5-fold inner
        cross-validation (each fold's rows left out of the structure and the
        tables, refitted with the prior each representation kept), and the
        per-class trees are kept only when their log-loss is lower by more
        than one standard error of the rows' paired differences (the
        one-standard-error rule: an estimate on so few rows is noisy, and
        the shared tree is the simpler model). Per-class forests win where
        the classes' dependencies differ (letter, tic-tac-toe, zoo), the
        shared tree where a class has too few rows to learn its own (car,
        the numeric sets). ``"auto"`` had a lower mean cross-validated
        log-loss than both and than TAN over the shared UCI sets and over
        generated small, wide sets (``benchmarks/bench_defaults_structure.py
        --family representation``); it costs one TAN fit more, and with
        small classes ten refits on the folds.
    criterion : {"bdeu", "mdl", "ml"}, default="bdeu"
        The per-class structures' edge criterion.
        ``"ml"``: each class's Chow-Liu spanning tree (Chow & Liu's
        algorithm). ``"mdl"``: each class's maximum spanning forest of the
        MDL-penalized mutual information (Liang & Srebro's MDL-C_f-1): an edge
        is kept only when its information pays for its parameters in that
        class's rows. ``"bdeu"``: each class's maximum spanning forest of the
        edges' BDeu log Bayes factors (Heckerman et al. [3]_), the forest of
        highest marginal likelihood: an edge is kept when the class's rows
        favour it under the BDeu prior. The default, with
        ``equivalent_sample_size=4``, had the best average rank of the
        three criteria, of sample sizes 0.5 to 16 and of TAN over the shared
        UCI sets, and a lower mean cross-validated log-loss than the MDL
        forests and TAN (sample size 2 is 0.002 lower still, with a worse
        rank; ``benchmarks/bench_defaults_structure.py --family chow-liu``).
    equivalent_sample_size : float, default=4.0
        The BDeu prior's equivalent sample size, for ``criterion="bdeu"``:
        a larger one keeps more edges (see
        :func:`~graphmodels.learners.chow_liu_tree`). Pairs with no mutual
        information in a class's rows (e.g. a column constant in the class)
        are never linked in that class.
    algorithm : {"kruskal", "prim"}, default="kruskal"
    trace : bool, default=False
        Record the steps of the structure searches in ``trace_``.
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

    Attributes
    ----------
    structure_ : nx.DiGraph
        For drawing: the class node with an arc to every attribute, and the
        union of the class trees' arcs, with ``kind="augmenting"`` and a
        ``classes`` list naming the classes whose tree has that arc. Two
        classes may orient an edge differently, so this union need not be a
        DAG; each class's own tree is in `structures_`.
    structures_ : list of nx.DiGraph
        Each class's oriented tree, in ``classes_`` order (the same tree in
        every class for the shared representation).
    representation_ : {"free", "shared"}
        The representation fitted.
    representation_selection_ : DataFrame
        Only with ``representation="auto"``: each representation's
        held-out ``log_loss`` and ``error``, how they were measured
        (``scored_by``: ``"leave-one-out"`` or ``"5-fold cross-validated"``)
        and, for cross-validation, the ``standard_error`` of the rows' paired
        differences from the shared tree's losses.
    feature_parents_ : ndarray of shape (n_classes, n_features)
    log_tables_ : list (per class) of lists of ndarray (1, r_parent, r_j)
    trace_ : DataFrame
        Only with ``trace=True``: for each class in turn (its label in the
        ``class`` column), the steps of its spanning tree or forest as
        :func:`~graphmodels.learners.chow_liu_tree` records them, then a
        ``"root"`` step per tree (``score`` the root's entropy within the
        class, the highest of its tree). For the shared representation, the
        steps of TAN's search (:func:`~graphmodels.learners.tan_structure`,
        no ``class`` column); with ``"auto"``, the trace of the representation
        kept.

    References
    ----------
    .. [1] Chow, C. K., & Liu, C. N. (1968). Approximating discrete
           probability distributions with dependence trees. *IEEE
           Transactions on Information Theory*, 14(3), 462-467.
    .. [2] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. MIT CSAIL technical report.
    .. [3] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning
           Bayesian networks: the combination of knowledge and statistical
           data. *Machine Learning*, 20(3), 197-243.
    .. [4] Friedman, N., Geiger, D., & Goldszmidt, M. (1997). Bayesian
           network classifiers. *Machine Learning*, 29(2-3), 131-163.
    """

    def __init__(
        self,
        *,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        representation: str = "auto",
        criterion: str = "bdeu",
        equivalent_sample_size: float = DEFAULT_TREE_ESS,
        algorithm: str = "kruskal",
        trace: bool = False,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.estimator = estimator
        self.representation = representation
        self.criterion = criterion
        self.equivalent_sample_size = equivalent_sample_size
        self.algorithm = algorithm
        self.trace = trace
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    #: What a file saved before `representation` existed was fitted with (see persistence).
    _params_of_older_files = {"representation": "free"}
    _fitted_of_older_files = {"representation_": "free"}

    _fitted_attributes: tuple[str, ...] = (
        "structures_", "structure_", "feature_parents_", "representation_", "class_log_prior_", "log_tables_",
        "representation_selection_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then each class's forest of parents and its tables ``(1, r_parent or 1, r_j)``."""
        super()._validate_fitted_state()
        if self.representation_ not in ("free", "shared"):
            raise _fitted.FittedStateError("representation_", f"is {self.representation_!r}, not 'free' or 'shared'.")
        cards = self._validated_cardinalities()
        n_classes = len(self.classes_)
        parents = _fitted.array("feature_parents_", self.feature_parents_, kind="iu", shape=(n_classes, len(cards)))
        _fitted.sequence("structures_", self.structures_, n_classes)
        for c, per_class in enumerate(_fitted.sequence("log_tables_", self.log_tables_, n_classes)):
            row = _fitted.parent_map(f"feature_parents_[{c}]", parents[c], len(cards))
            _forest_tables(f"log_tables_[{c}]", per_class, row, cards, 1, self)

    _parameter_constraints = {
        **TREE_ALGORITHM_CONSTRAINTS,
        "representation": [Options(["auto", "free", "shared"], ignore_case=True)],
        "criterion": [Options(list(TREE_CRITERIA))],
        "equivalent_sample_size": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def _fit(self, engine):
        learners = {"free": self._learn_class_trees, "shared": self._learn_shared_tree}
        representation = str(self.representation).lower()
        if representation == "auto":
            self._fit_best_representation(engine, learners, simplest="shared")
            return
        learners[representation](engine)
        self._fit_selected_tables(engine)

    @staticmethod
    def _count_pairs(engine):
        """Every class-conditional one-way and pairwise table in one pass (kept in the engine's cache).

        The learners and the CPTs then read their blocks, on the training rows and on each inner
        fold's (a per-class structure's selection refits on those).
        """
        features, class_name = engine.names[:-1], engine.names[-1]
        engine.one_way_counts(features, given=class_name)
        if len(features) > 1:
            engine.pairwise_counts(features, given=class_name)

    def _learn_class_trees(self, engine):
        """Each class's own tree or forest (``representation="free"``)."""
        self._count_pairs(engine)
        features, class_name = engine.names[:-1], engine.names[-1]
        trees = []
        # One record for every class's search (each row labelled with its class), one DataFrame at the end.
        record = Trace("cycle", leading=["class"]) if self.trace else None
        for c, label in enumerate(self.classes_):
            if len(features) > 1:
                first = 0 if record is None else len(record)
                tree = _chow_liu_tree(
                    engine,
                    features,
                    self.algorithm,
                    (class_name, c),
                    self.criterion,
                    record,
                    self.equivalent_sample_size,
                )
                entropies = {n: tie_safe(entropy_of_counts(engine.counts([class_name, n])[c])) for n in features}
                oriented = orient_forest(tree, root_key=entropies.__getitem__)
                if record is not None:
                    reason = "highest entropy of its tree in the class: the arcs point away from it"
                    root_rows(record, oriented, entropies, reason)
                    record.label(first, **{"class": label})
            else:
                oriented = nx.DiGraph()
                oriented.add_nodes_from(features)
            trees.append(oriented)
        if record is not None:
            self.trace_ = record.frame()
        self._set_class_trees(engine, trees, "free")

    def _learn_shared_tree(self, engine):
        """TAN's tree in every class (``representation="shared"``): the model is then :class:`TAN`."""
        self._count_pairs(engine)
        features, class_name = engine.names[:-1], engine.names[-1]
        if self.trace:
            structure, self.trace_ = tan_structure(engine, class_name, features, algorithm=self.algorithm, trace=True)
        else:
            structure = tan_structure(engine, class_name, features, algorithm=self.algorithm)
        tree = nx.DiGraph()
        tree.add_nodes_from(features)
        tree.add_edges_from((u, v, d) for u, v, d in structure.edges(data=True) if u != class_name)
        self._set_class_trees(engine, [tree.copy() for _ in self.classes_], "shared")

    def _set_class_trees(self, engine, trees, representation):
        """``structures_``, their union ``structure_`` and ``feature_parents_`` from each class's oriented tree."""
        features = engine.names[:-1]
        position = {name: i for i, name in enumerate(features)}
        cards = dict(zip(engine.names, engine.cardinalities))
        structure = augmented_naive_bayes(engine.names[-1], features, cardinalities=cards)
        parents_per_class = []
        for label, oriented in zip(self.classes_, trees):
            parents = np.full(len(features), -1, dtype=np.int64)
            for u, v, data in oriented.edges(data=True):
                parents[position[v]] = position[u]
                if structure.has_edge(u, v):
                    structure.edges[u, v]["classes"].append(_label_key(label))
                else:
                    structure.add_edge(
                        u, v, kind="augmenting", weight=data.get("weight", 0.0), classes=[_label_key(label)]
                    )
            parents_per_class.append(parents)
        self.structures_ = trees
        self.structure_ = structure
        self.feature_parents_ = np.array(parents_per_class).reshape(len(self.classes_), len(features))
        self.representation_ = representation

    _selects_estimator = True

    def _family_counts(self, engine, parent, child):
        """The (n_classes, r_parent or 1, r_child) table of one attribute's family over every class.

        A class's table is this table's slice for that class: estimated as a
        whole, its pseudo-counts (an empirical-Bayes sample size, the
        hierarchical back-off to ``P(x_j | y)`` then ``P(x_j)``) draw on every
        class's rows, as TAN's tables do, not on the class's rows alone.
        """
        features = engine.names[:-1]
        family = [engine.names[-1]] + ([features[parent]] if parent >= 0 else []) + [features[child]]
        counts = np.asarray(engine.counts(family))
        return counts if parent >= 0 else counts[:, None, :]

    def _fit_tables(self, engine, estimator):
        self.class_log_prior_ = _log(estimator.joint(engine.counts([engine.names[-1]])))
        # Classes whose trees give an attribute the same parent share its family table.
        families = list(dict.fromkeys((int(p), j) for parents in self.feature_parents_ for j, p in enumerate(parents)))
        log_tables = _log_each(estimator.conditionals([self._family_counts(engine, p, j) for p, j in families]))
        tables = dict(zip(families, log_tables))
        self.log_tables_ = [
            [tables[int(p), j][c][None].copy() for j, p in enumerate(parents)]  # not views of every class's table
            for c, parents in enumerate(self.feature_parents_)
        ]

    _fits_discriminative = True

    def _family_tables(self):
        """Every class's tables in one list, each entering its own class's score only."""
        tables = [table for per_class in self.log_tables_ for table in per_class]
        owners = [c for c, per_class in enumerate(self.log_tables_) for _ in per_class]
        return tables, owners

    def _set_family_tables(self, tables):
        p = self.feature_parents_.shape[1]
        self.log_tables_ = [list(tables[c * p : (c + 1) * p]) for c in range(len(self.feature_parents_))]

    def _family_index(self, codes):
        """Each row's (parent, child) states in every class's tables, class by class."""
        zeros = np.zeros(len(codes), np.int64)
        return [
            np.column_stack([codes[:, p] if p >= 0 else zeros, codes[:, j]])
            for parents in self.feature_parents_
            for j, p in enumerate(parents)
        ]

    def _training_families(self, engine, codes, estimator):
        y = codes[:, -1]
        families = [class_prior_cells(engine, y, estimator)]
        for c, parents in enumerate(self.feature_parents_):
            rows = np.flatnonzero(y == c)
            for j, p in enumerate(parents):
                counts = self._family_counts(engine, int(p), j)
                parent = codes[rows, p] if p >= 0 else 0
                families.append(family_cells(counts, estimator, (c, parent, codes[rows, j]), rows=rows))
        return families

    def _joint_log_likelihood(self, codes):
        columns = [
            forest_log_likelihood(codes, parents, tables)[:, 0]
            for parents, tables in zip(self.feature_parents_, self.log_tables_)
        ]
        return np.column_stack(columns) + self.class_log_prior_

    def _explanation_terms(self, codes):
        """One term per attribute family, each class with its own tree (see :meth:`explain`)."""
        from .explanations import ExplanationTerms, family_terms

        n, p = codes.shape
        terms = np.zeros((n, len(self.classes_), p))
        complete = np.ones(n, dtype=bool)
        for c, (parents, tables) in enumerate(zip(self.feature_parents_, self.log_tables_)):
            families = [((int(q),) if q >= 0 else (), j) for j, q in enumerate(parents)]
            own = [t if q >= 0 else t[:, 0, :] for q, t in zip(parents, tables)]
            class_terms, class_complete = family_terms(codes, families, own)
            terms[:, c, :] = class_terms[:, 0, :]
            complete &= class_complete
        return ExplanationTerms(list(self.encoder_.columns_), self.class_log_prior_, terms, complete)

    def _forest_coalition_scores(self, codes, *, local_order=False):
        """``log P(y, x_S)`` of every coalition (for :func:`~graphmodels.shapley_values`), class by class.

        The classes' trees differ, so each class's coalitions come in attribute order.
        """
        from .explanations import forest_coalition_scores

        scores = np.concatenate(
            [
                forest_coalition_scores(codes, parents, tables, self.class_log_prior_[c : c + 1])
                for c, (parents, tables) in enumerate(zip(self.feature_parents_, self.log_tables_))
            ],
            axis=2,
        )
        return (scores, list(range(codes.shape[1]))) if local_order else scores

    def _conditional_tables(self):
        """For :meth:`cpd`: the class prior, and each attribute's table given the class and its parents.

        An attribute's parents are all those it has in some class's tree; its
        table, built on request, holds each class's own table broadcast over
        the parents that class's tree does not link it to.
        """
        families = {self.class_name_: ((), self.class_log_prior_)}
        for j, name in enumerate(self.encoder_.columns_):
            families[name] = functools.partial(self._multinet_family, j)
        return families, column_states(self), {}

    def _build_distribution(self):
        """One forest per class: a mixture over the class (shared tree: one network, as TAN's)."""
        from ..estimators.discriminative import Discriminative
        from ..inference import Distribution, Factor, Mixture
        from .queries import _labels

        if getattr(self, "representation_", "free") == "shared":
            return Queryable._build_distribution(self)
        generative = not isinstance(self.estimator_, Discriminative)
        columns = list(self.encoder_.columns_)
        states = {name: _labels(levels) for name, levels in zip(columns, self.encoder_.levels_)}
        components = []
        for c in range(len(self.classes_)):
            factors = []
            for j, name in enumerate(columns):
                table = np.asarray(self.log_tables_[c][j][0], dtype=np.float64)  # (r_parent or 1, r)
                parent = int(self.feature_parents_[c, j])
                if parent >= 0:
                    factors.append(Factor((columns[parent], name), table, [states[columns[parent]], states[name]]))
                else:
                    factors.append(Factor((name,), table[0], [states[name]]))
            components.append(
                Distribution(
                    factors,
                    variables=columns,
                    children=columns if generative else None,
                    name=f"ChowLiu, class {self.classes_[c]!r}",
                    max_cells=self.max_cells,
                )
            )
        return Mixture(
            components,
            np.exp(self.class_log_prior_ - self.class_log_prior_.max()),
            label=self.class_name_,
            labels=_labels(self.classes_),
            normalized=generative,
            name="ChowLiu",
        )

    def _multinet_family(self, j):
        columns = list(self.encoder_.columns_)
        parents = sorted({int(p) for p in self.feature_parents_[:, j] if p >= 0})
        cards = [int(self.encoder_.cardinalities_[p]) for p in parents]
        n_classes, r = len(self.classes_), int(self.encoder_.cardinalities_[j])
        check_cells(
            n_classes * math.prod(cards) * r,
            self.max_cells,
            what=f"ChowLiu.cpd table of {columns[j]!r} ({r} states) given the class ({n_classes} states) and its "
            f"parents in every class's tree ({describe_variables([columns[p] for p in parents], cards)})",
            fix="read log_tables_[class][j] for one class's table",
        )
        table = np.empty((n_classes, *cards, r))
        for c in range(n_classes):
            own = self.log_tables_[c][j][0]  # (r_parent or 1, r)
            parent = int(self.feature_parents_[c, j])
            shape = [1] * len(cards) + [r]
            if parent >= 0:
                shape[parents.index(parent)] = cards[parents.index(parent)]
                own = own.reshape(shape)
            else:
                own = own[0].reshape(shape)
            table[c] = np.broadcast_to(own, (*cards, r))
        return (self.class_name_, *(columns[p] for p in parents)), table

    def to_bayesian_networks(self) -> tuple[np.ndarray, dict[Hashable, DiscreteBayesianNetwork]]:
        """The fitted multinet: the class prior and one Bayesian network per class.

        The model is ``P(y, x) = P(y) P_y(x)`` with a tree (or forest) of its
        own for each class, so it is not one Bayesian network (the classes'
        trees may orient an edge both ways), but each ``P_y`` is one: a
        :class:`~graphmodels.networks.DiscreteBayesianNetwork` over the
        attributes whose arcs are ``structures_[c]`` and whose CPTs are
        ``log_tables_[c]``. With the prior, ``P(y = c) P_c(x)`` normalized
        over the classes is :meth:`predict_proba`, also with unobserved
        attributes (summed out of each class's network).

        Returns
        -------
        class_prior : ndarray of shape (n_classes,)
            ``P(y)`` in ``classes_`` order: ``exp(class_log_prior_)``, or, for
            ``estimator="discriminative"``, the prior with each class's
            normalizer folded in (see Notes).
        networks : dict
            Each class label (an entry of ``classes_``; a numpy scalar as
            the Python scalar) to the network ``P(x | y = c)``. Its
            variables are the attributes in column order, named as the
            columns (``str`` of a name that is not a string), their states
            ``encoder_.levels_`` as strings (the discretizer's interval
            labels for a cut column, ``"<missing>"`` for missing cells): the
            codes of ``encoder_`` are the network's codes.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two columns' names print alike (``0`` and ``"0"``).

        See Also
        --------
        graphmodels.models.export.class_conditional_networks : the construction.
        graphmodels.io.write_bif : write one class's network in BIF.

        Notes
        -----
        With ``estimator="discriminative"`` the tables are unnormalized
        log-potentials; each class's forest is turned into CPTs with the same
        product up to a constant ``Z_c``, and ``Z_c`` moves into the prior:
        ``P(y = c) ∝ exp(class_log_prior_[c]) Z_c``. The product ``P(y)
        P_y(x)`` is then the model's joint exactly.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = gm.ChowLiu().fit(X, y)
        >>> prior, networks = model.to_bayesian_networks()
        >>> sorted(networks["good"].graph.edges) == sorted(model.structures_[1].edges)
        True
        >>> codes = model.encoder_.transform(X.head(1))
        >>> joint = np.log(prior) + [networks[c].log_likelihood_codes(codes)[0] for c in model.classes_]
        >>> np.allclose(np.exp(joint - np.logaddexp.reduce(joint)), model.predict_proba(X.head(1)))
        True
        """
        self._check_fitted()
        tables = [[table[0] for table in per_class] for per_class in self.log_tables_]
        return class_conditional_networks(self, self.feature_parents_, tables, self.class_log_prior_)

    @property
    def to_bayesian_network(self) -> Callable[[], DiscreteBayesianNetwork]:
        """The fitted model as one Bayesian network, when it kept one tree for every class.

        A Chow-Liu classifier that kept TAN's shared tree (``representation_ ==
        "shared"``, as ``"auto"`` chooses on car) is :class:`TAN`, and
        ``model.to_bayesian_network()`` gives the same network as TAN's
        (:meth:`TAN.to_bayesian_network`): the class, then the attributes in
        column order, with the class and the attribute's parent in the shared
        tree as parents; its CPT of an attribute stacks each class's table
        ``log_tables_[c][j]``. So it exports as TAN does (``write_bif``,
        ``write_xmlbif``, ``write_uai``, ``to_pgmpy``, ``to_pyagrum``).

        One that kept a tree per class (``representation_ == "free"``) is a
        Bayesian multinet, not one network: ``model.to_bayesian_network``
        raises an ``AttributeError`` that says so (``hasattr(model,
        "to_bayesian_network")`` is False) and :meth:`to_bayesian_networks`
        gives its class prior and each class's network.

        Returns
        -------
        callable
            ``model.to_bayesian_network()`` returns a
            :class:`~graphmodels.networks.DiscreteBayesianNetwork` (see
            :meth:`TAN.to_bayesian_network`); before `fit` it raises
            ``NotFittedError``.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = gm.ChowLiu().fit(X, y)
        >>> model.representation_
        'shared'
        >>> model.to_bayesian_network().parents["maint"]
        ('class', 'buying')
        """
        if getattr(self, "representation_", None) == "free":
            raise AttributeError(
                "This ChowLiu kept one tree per class (representation_='free'): a Bayesian multinet, not one "
                "Bayesian network, so it has no to_bayesian_network(); export each class's network of "
                "model.to_bayesian_networks(), or fit ChowLiu(representation='shared') (TAN's tree) for one network."
            )
        return self._shared_tree_network

    def _shared_tree_network(self) -> DiscreteBayesianNetwork:
        """:attr:`to_bayesian_network` of a model with one tree for every class: TAN's network."""
        self._check_fitted()
        parents = [(int(p),) if p >= 0 else () for p in self.feature_parents_[0]]
        tables = [np.concatenate([per_class[j] for per_class in self.log_tables_]) for j in range(len(parents))]
        tables = [table if family else table[:, 0] for family, table in zip(parents, tables)]
        return class_network(self, range(len(parents)), parents, tables, self.class_log_prior_)


def _label_key(label):
    return label.item() if isinstance(label, np.generic) else label
