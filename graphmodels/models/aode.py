"""Averaged one-dependence estimators (AODE)."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._special import logsumexp, xlogy
from .._validation import Interval, Options
from ..inference.likelihoods import forest_log_likelihood
from ..stats.counting import DEFAULT_MAX_CELLS
from ..structures.forests import augmented_naive_bayes, class_node, superparent_network
from . import _fitted
from .augmented import _log, family_log_tables
from .base import BaseClassifier
from .export import superparent_member_network
from .queries import Queryable, network_distribution
from .registry import register_model

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork

__all__ = ["AODE"]

_FREQUENCY_MODES = ("attribute", "attribute-class")

# Rows per block when gathering the (rows, classes, p, p) pair terms.
_BLOCK_CELLS = 4_000_000


def _block_mutual_information(counts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Plug-in ``I(X_S; Y)`` in nats of every block of a table of counts ``N[y, x_S]``.

    `counts` has shape (n_classes, n_configurations); block ``s`` is the
    columns ``starts[s]:starts[s + 1]`` (at least one each), the joint counts
    of one super-parent set with the class. Returns shape (n_blocks,).
    """
    counts = np.asarray(counts, dtype=np.float64)
    heads = np.asarray(starts[:-1], dtype=np.int64)
    values = counts.sum(axis=0)  # N[x_S]
    per_class = np.add.reduceat(counts, heads, axis=1)  # (C, L): N[y], once per block
    totals = np.add.reduceat(values, heads)  # N
    # I = (sum n log n - sum N[x] log N[x] - sum N[y] log N[y] + N log N) / N
    numerator = (
        np.add.reduceat(xlogy(counts, counts).sum(axis=0), heads)
        - np.add.reduceat(xlogy(values, values), heads)
        - xlogy(per_class, per_class).sum(axis=0)
        + xlogy(totals, totals)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        information = np.where(totals > 0, numerator / totals, 0.0)
    return np.maximum(information, 0.0)


def _check_offsets(value, cards):
    """``offsets_``: the first state of each attribute in the stacked states (``[0, *cumsum(cards)]``)."""
    expected = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
    offsets = _fitted.integers("offsets_", value, low=0, high=int(expected[-1]) + 1, shape=expected.shape)
    if not np.array_equal(offsets, expected):
        raise _fitted.FittedStateError(
            "offsets_", f"is {offsets.tolist()}, but the columns' states give {expected.tolist()}."
        )
    return expected


class _SuperParentEnsemble(BaseClassifier, Queryable):
    """What AODE and AnDE share: the structure of one member and the ranking of the super-parent sets.

    A subclass keeps the naive Bayes skeleton in ``structure_`` and says, in
    ``_superparent_tables``, where its super-parent sets and their counts
    ``N[y, x_S]`` are.
    """

    structure_: nx.DiGraph

    def _superparent_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The members' super-parent sets: positions (L, n), counts ``N[y, x_S]`` (C, configurations), offsets (L + 1,)."""
        raise NotImplementedError

    def _member_levels(self) -> list[np.ndarray]:
        """The super-parent sets of every level ``m = 0 .. n``: positions, shape (C(p, m), m)."""
        raise NotImplementedError

    def _member_tables(self, positions: tuple[int, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
        """``log P(y, x_S)`` (n_classes, r_S...) and each other attribute's ``log P(x_k | y, x_S)``."""
        raise NotImplementedError

    def _class_and_features(self) -> tuple[Hashable, list[Hashable]]:
        cls = class_node(self.structure_)
        return cls, [node for node in self.structure_ if node != cls]

    def member_structure(self, superparents: Hashable | Sequence[Hashable]) -> nx.DiGraph:
        """The structure of the member whose super-parents are `superparents`, as a DAG.

        The member ``P(y, x_S) prod_{k not in S} P(x_k | y, x_S)`` of the
        ensemble (Webb, Boughton & Wang, 2005 for AODE [1]_; Webb et al., 2012
        for AnDE [2]_): the class is a parent of every attribute and each
        super-parent a parent of every other attribute, super-parents joined
        in column order (see
        :func:`~graphmodels.structures.superparent_network`). Whether the
        member takes part in a prediction depends on the row (the frequency
        limit); the structure does not.

        Parameters
        ----------
        superparents : column name, or tuple of column names
            As many distinct fitted columns as each member has super-parents
            (``n`` of an :class:`AnDE`, at most the number of attributes; 1
            for :class:`AODE`, where a bare column name also does), in any
            order. ``()`` for ``AnDE(n=0)``, whose one member is naive Bayes.

        Returns
        -------
        nx.DiGraph
            A new graph, built as ``structure_`` is: node ``role`` and
            ``cardinality``, class arcs ``kind="class"``, super-parent arcs
            ``kind="augmenting"``; ``graph["superparents"]`` holds the
            super-parents in column order.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `superparents` names a column the model was not fitted on,
            names one twice, or has the wrong number of names.

        See Also
        --------
        ranked_superparents : the super-parent sets, most informative first.
        graphmodels.plotting.draw_network : draws the most informative members.

        References
        ----------
        .. [1] Webb, G. I., Boughton, J. R., & Wang, Z. (2005). Not so naive
               Bayes: aggregating one-dependence estimators. *Machine
               Learning*, 58(1), 5-24.
        .. [2] Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M., & Salem,
               H. (2012). Learning by extrapolation from marginal to
               full-multivariate probability distributions: decreasingly naive
               Bayesian classification. *Machine Learning*, 86(2), 233-272.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> member = gm.AODE().fit(X, y).member_structure("safety")
        >>> sorted(member.successors("safety"))
        ['buying', 'doors', 'lug_boot', 'maint', 'persons']
        >>> member = gm.AnDE(n=2).fit(X, y).member_structure(("safety", "buying"))
        >>> member.graph["superparents"], sorted(member.predecessors("doors"))
        (('buying', 'safety'), ['buying', 'class', 'safety'])
        """
        self._check_fitted()
        class_variable, features = self._class_and_features()
        size = int(self._superparent_tables()[0].shape[1])
        if isinstance(superparents, (tuple, list)) and not (size == 1 and superparents in features):
            names = tuple(superparents)
        else:
            names = (superparents,)
        if len(names) != size:
            expected = {0: "an empty tuple", 1: "a column name or a tuple of 1"}.get(
                size, f"a tuple of {size} column names"
            )
            raise ValueError(
                f"`superparents` must be {expected}: each member of this {type(self).__name__} has {size} "
                f"super-parent{'s' if size != 1 else ''}, got {superparents!r}."
            )
        cardinalities = {node: c for node, c in self.structure_.nodes(data="cardinality") if c is not None}
        return superparent_network(class_variable, features, names, cardinalities=cardinalities)

    def member_network(self, superparents: Hashable | Sequence[Hashable]) -> DiscreteBayesianNetwork:
        """One member of the ensemble as a :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        The member with super-parents ``S``, ``P(y, x_S) prod_{k not in S}
        P(x_k | y, x_S)``, with the model's fitted tables as CPTs; its arcs
        are those of :meth:`member_structure`. A set of fewer super-parents
        gives a member of the fallback (see :meth:`member_networks`): ``()``
        is the naive Bayes network the model falls back to last.

        Parameters
        ----------
        superparents : column name, or tuple of column names
            At most as many distinct fitted columns as each member has
            super-parents (``n`` of an :class:`AnDE`; 1 for :class:`AODE`,
            where a bare column name also does), in any order.

        Returns
        -------
        DiscreteBayesianNetwork
            Variables: the class (named ``class_name_``, states
            ``classes_``), then every attribute in column order, named as
            the columns (``str`` of a name that is not a string), states
            ``encoder_.levels_`` as strings; the codes of ``encoder_`` are
            the network's codes. The joint ``P(y, x_S)`` is written as the
            CPTs ``P(y)``, then each super-parent given the class and the
            super-parents before it in column order (see
            :func:`~graphmodels.models.export.superparent_member_network`).

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `superparents` names a column the model was not fitted on,
            names one twice, or has too many names; if two variables' names
            print alike.

        See Also
        --------
        member_networks : every member, and how the model combines them.
        graphmodels.io.write_bif : write the network in BIF.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> bn = gm.AODE().fit(X, y).member_network("safety")
        >>> bn.parents["safety"], bn.parents["doors"]
        (('class',), ('class', 'safety'))
        """
        self._check_fitted()
        columns = list(self.encoder_.columns_)
        size = len(self._member_levels()) - 1
        if isinstance(superparents, (tuple, list)) and superparents not in columns:
            names = tuple(superparents)
        else:
            names = (superparents,)
        unknown = [name for name in names if name not in columns]
        if unknown:
            raise ValueError(f"`superparents` must name fitted columns, got {unknown[0]!r} (columns: {columns}).")
        if len(set(names)) != len(names):
            raise ValueError(f"`superparents` names a column twice: {superparents!r}.")
        if len(names) > size:
            raise ValueError(
                f"`superparents` must have at most {size} column name{'s' if size != 1 else ''}: each member of "
                f"this {type(self).__name__} has {size}, got {superparents!r}."
            )
        positions = tuple(sorted(columns.index(name) for name in names))
        log_joint, tables = self._member_tables(positions)
        return superparent_member_network(self, positions, log_joint, tables)

    def _build_distribution(self):
        """The average of the members' joints: a mixture whose component, the member, is hidden.

        Every member of the top level counts, whatever the evidence; :meth:`predict_proba`
        leaves out, row by row, the members whose super-parents are unobserved or rarer than
        ``frequency_threshold``, so the two agree where every member qualifies.
        """
        from ..inference import Mixture

        members = [network_distribution(self, bn) for bn in self.member_networks().values()]
        return Mixture(members, np.ones(len(members)), name=type(self).__name__)

    def member_networks(self, *, fallback: bool = False) -> dict[tuple[Hashable, ...], DiscreteBayesianNetwork]:
        """Every member of the ensemble as a :class:`~graphmodels.networks.DiscreteBayesianNetwork`.

        The model is not one network but an average of networks, one per
        super-parent set; this gives them all, as :meth:`member_network`
        gives one.

        Parameters
        ----------
        fallback : bool, default=False
            Also give the members of the levels below, which the model falls
            back to (``n - 1`` super-parents, down to naive Bayes, ``()``).

        Returns
        -------
        dict
            Each super-parent set (a tuple of column names in column order,
            as :meth:`ranked_superparents` gives them) to its member's
            network: the sets of ``n`` columns in column order of their
            positions (that of ``superparents_`` for :class:`AnDE`), then,
            with `fallback`, those of each level below, from ``n - 1`` down
            to ``()``.

        Raises
        ------
        NotFittedError
            If the model is not fitted.

        See Also
        --------
        member_network, member_structure

        Notes
        -----
        The model's joint of a row ``x`` and a class ``y`` is the average of
        the members' joints ``P_S(y, x)`` over the super-parent sets ``S`` that
        qualify: every super-parent observed (a cell coded as a state unseen
        in training, or missing with ``missing`` other than ``"value"``, is
        unobserved) and its value ``x_S`` counted at least
        ``frequency_threshold`` times in training (``N[x_S]``, the sum over
        the classes of ``superparent_counts_``, or ``N[y, x_S]`` with
        ``frequency="attribute-class"``, so that the sets may differ between
        classes). Where no set qualifies, the row (and class) takes the
        average of the level below, by the same rule, down to naive Bayes.
        The posterior is that average normalized over the classes.

        An unobserved attribute that is not a super-parent is summed out of
        each member (its CPT drops out), as the model does; a member whose
        super-parent is unobserved is left out of the average, which is not
        what summing the super-parent out of that member's network would
        give. For rows with every super-parent observed the average of the
        networks' joints is the model's, to rounding.

        Examples
        --------
        >>> import numpy as np
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = gm.AODE(frequency_threshold=0).fit(X, y)
        >>> members = model.member_networks()
        >>> list(members)[:2]
        [('buying',), ('maint',)]
        >>> codes = model.encoder_.transform(X.head(1))
        >>> joint = np.array(
        ...     [[bn.log_likelihood_codes(np.hstack([[[c]], codes]))[0] for c in range(4)] for bn in members.values()]
        ... )
        >>> average = np.logaddexp.reduce(joint, axis=0)
        >>> np.allclose(np.exp(average - np.logaddexp.reduce(average)), model.predict_proba(X.head(1)))
        True
        """
        self._check_fitted()
        columns = list(self.encoder_.columns_)
        levels = self._member_levels()
        order = [len(levels) - 1, *(range(len(levels) - 2, -1, -1) if fallback else [])]
        networks = {}
        for m in order:
            for subset in levels[m]:
                positions = tuple(int(i) for i in subset)
                log_joint, tables = self._member_tables(positions)
                key = tuple(columns[i] for i in positions)
                networks[key] = superparent_member_network(self, positions, log_joint, tables)
        return networks

    def ranked_superparents(self, max_members: int | None = None) -> list[tuple[Hashable, ...]]:
        """The members' super-parent sets, the most informative about the class first.

        A set ``S`` is ranked by the plug-in mutual information ``I(X_S; C)``
        (nats) of the (weighted) training counts ``N[y, x_S]`` the model
        already keeps for its frequency limit (``superparent_counts_``): one
        pass over those tables, nothing is counted again. Ties keep the order
        of ``superparents_`` (column order). Every set has the same size, so
        their plug-in estimates have comparable bias; the frequency limit is
        not taken into account.

        Parameters
        ----------
        max_members : int, optional
            Return only the first `max_members` sets (``>= 1``); all by default.

        Returns
        -------
        list of tuple
            Column names, each tuple in column order, as
            :meth:`member_structure` takes them (1-tuples for AODE).

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `max_members` is not an integer >= 1 or None.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> gm.AODE().fit(X, y).ranked_superparents(2)
        [('safety',), ('persons',)]
        """
        if max_members is not None and (
            isinstance(max_members, bool) or not isinstance(max_members, numbers.Integral) or max_members < 1
        ):
            raise ValueError(f"`max_members` must be an integer >= 1 or None, got {max_members!r}.")
        self._check_fitted()
        subsets, counts, starts = self._superparent_tables()
        # Rounded, so that sets tied up to floating-point noise keep their order whatever the column order.
        information = np.round(_block_mutual_information(counts, starts), 12)
        order = np.argsort(-information, kind="stable")[:max_members]
        _, features = self._class_and_features()
        return [tuple(features[i] for i in subsets[s]) for s in order.tolist()]


@register_model("aode")
class AODE(_SuperParentEnsemble):
    """Averaged one-dependence estimators (Webb, Boughton & Wang, 2005).

    Every attribute ``i`` in turn is the *superparent* of a one-dependence
    classifier ``P(y, x_i) prod_{j != i} P(x_j | y, x_i)``; the model averages
    those whose superparent value is frequent enough [1]_ [2]_:

    ``P(y, x) = 1/|S| sum_{i in S} P(y, x_i) prod_{j != i} P(x_j | y, x_i)``

    where ``S`` holds the attributes whose value ``x_i`` occurs at least
    `frequency_threshold` times in training (Webb et al.'s ``>= m``; Mauá's
    notes say the tally must *exceed* the threshold, which is
    ``frequency_threshold + 1`` here). When no attribute qualifies the row
    falls back to naive Bayes, as in Webb et al.

    Parameters
    ----------
    frequency_threshold : float, default=30
        The minimum (weighted) count of a superparent value; 30 as in Mauá's
        notes, ``0`` averages all attributes.
    frequency : {"attribute", "attribute-class"}, default="attribute"
        Count the superparent value alone ``N[x_i]`` (Webb et al.), or the
        value with each class ``N[x_i, y]`` (the tally of Mauá's notes,
        section 4), which lets ``S`` differ between classes.
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`.
        The default, :class:`~graphmodels.estimators.EmpiricalBayesBDeu`,
        gives each table the BDeu equivalent sample size that maximises its
        marginal likelihood; it was chosen by cross-validated log-loss over
        the shared UCI sets (``benchmarks/bench_defaults.py``). Paper
        reproductions pass the paper's prior (``"bdeu"``: BDeu(1)).
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
        The naive Bayes skeleton (class to every attribute); every attribute
        is also a superparent of all the others, in its own member:
        :meth:`member_structure` gives one member's DAG, and
        :func:`~graphmodels.plotting.draw_network` without ``ax`` draws the
        members of the most informative superparents.
    superparent_log_joint_ : list of ndarray of shape (n_classes, r_i)
        ``log P(y, x_i)``.
    superparent_counts_ : list of ndarray of shape (n_classes, r_i)
        The (weighted) counts ``N[y, x_i]`` the frequency limit reads (and
        :meth:`ranked_superparents` ranks by).
    pair_log_tables_ : ndarray of shape (n_classes, K, K)
        Block matrix of ``log P(x_j = b | y, x_i = a)`` at
        ``[y, offset_i + a, offset_j + b]``, ``K`` the total number of states.

    See Also
    --------
    AnDE : ``n`` super-parents per member; ``AnDE(n=1)`` is AODE.

    References
    ----------
    .. [1] Webb, G. I., Boughton, J. R., & Wang, Z. (2005). Not so naive
           Bayes: aggregating one-dependence estimators. *Machine Learning*,
           58(1), 5-24.
    .. [2] Mauá, D. D. (2016). *Bayesian Network Classifiers*, lecture notes
           of MAC6916, section 4.
    """

    def __init__(
        self,
        *,
        frequency_threshold: float = 30,
        frequency: str = "attribute",
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.frequency_threshold = frequency_threshold
        self.frequency = frequency
        self.estimator = estimator
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _parameter_constraints = {
        "frequency": [Options(list(_FREQUENCY_MODES))],
        "frequency_threshold": [Interval(numbers.Real, 0, None)],
    }

    _fitted_attributes: tuple[str, ...] = (
        "structure_", "offsets_", "superparent_log_joint_", "superparent_counts_", "pair_log_tables_",
        "class_log_prior_", "nb_log_tables_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then every super-parent's joint and counts, the pair and naive Bayes tables."""
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        n_classes, p = len(self.classes_), len(cards)
        offsets = _check_offsets(self.offsets_, cards)
        joints = _fitted.sequence("superparent_log_joint_", self.superparent_log_joint_, p)
        for i, (joint, counts) in enumerate(
            zip(joints, _fitted.sequence("superparent_counts_", self.superparent_counts_, p))
        ):
            _fitted.log_table(f"superparent_log_joint_[{i}]", joint, (n_classes, cards[i]), axes=(0, 1))
            _fitted.counts(f"superparent_counts_[{i}]", counts, (n_classes, cards[i]))
        width = int(offsets[-1])
        pairs = _fitted.log_table("pair_log_tables_", self.pair_log_tables_, (n_classes, width, width), axes=())
        # Row i's block j is P(x_j | y, x_i) for i != j; the diagonal blocks hold no distribution.
        owner = np.repeat(np.arange(p), cards)  # the attribute of each row of the stacked states
        diagonal = owner[:, None] == np.arange(p)[None, :]
        _fitted.block_distributions("pair_log_tables_", pairs, offsets, skip=diagonal)
        for j, table in enumerate(_fitted.sequence("nb_log_tables_", self.nb_log_tables_, p)):
            _fitted.log_table(f"nb_log_tables_[{j}]", table, (n_classes, 1, cards[j]))

    def _fit(self, engine):
        class_pos = engine.n_variables - 1
        features = engine.names[:-1]
        cards = dict(zip(engine.names, engine.cardinalities))
        self.structure_ = augmented_naive_bayes(engine.names[-1], features, cardinalities=cards)
        names = engine.names
        pairs = engine.pairwise_counts(names[:-1], given=names[-1])
        self.offsets_ = pairs.offsets
        n_classes = int(engine.cardinalities[class_pos])
        width = int(pairs.offsets[-1])
        pair_tables = np.ones((n_classes, width, width))  # the diagonal blocks hold no distribution: log 1 = 0
        p = len(features)
        self.superparent_counts_ = [np.asarray(engine.counts([names[-1], names[i]])) for i in range(p)]  # (C, r_i)
        # One search of an adaptive estimator's hyperparameters for every superparent's table.
        self.superparent_log_joint_ = [_log(joint) for joint in self.estimator_.joints(self.superparent_counts_)]
        # pairs.block(i, j) is (C, r_i, r_j): the family table of x_j given (y, x_i). All of them are
        # estimated in one call: an adaptive estimator searches every table's hyperparameter together.
        families = [(i, j) for i in range(p) for j in range(p) if j != i]
        for (i, j), table in zip(families, self.estimator_.conditionals([pairs.block(i, j) for i, j in families])):
            rows = slice(pairs.offsets[i], pairs.offsets[i + 1])
            pair_tables[:, rows, pairs.offsets[j] : pairs.offsets[j + 1]] = table
        self.pair_log_tables_ = _log(pair_tables)  # one pass, not one per table
        # Naive Bayes fallback for rows without any frequent superparent.
        self.class_log_prior_ = _log(self.estimator_.joint(engine.counts([names[-1]])))
        self.nb_log_tables_ = family_log_tables(engine, [-1] * p, self.estimator_, class_pos)

    def _superparent_tables(self):
        p = len(self.superparent_counts_)
        cards = [counts.shape[1] for counts in self.superparent_counts_]
        starts = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        return np.arange(p).reshape(p, 1), np.concatenate(self.superparent_counts_, axis=1), starts

    def _member_levels(self):
        p = len(self.superparent_counts_)
        return [np.zeros((1, 0), dtype=np.int64), np.arange(p).reshape(p, 1)]

    def _member_tables(self, positions):
        if not positions:  # the naive Bayes fallback
            return self.class_log_prior_, [table[:, 0, :] for table in self.nb_log_tables_]
        (i,) = positions
        offsets = self.offsets_
        rows = slice(offsets[i], offsets[i + 1])
        tables = [
            self.pair_log_tables_[:, rows, offsets[k] : offsets[k + 1]]
            for k in range(len(self.superparent_counts_))
            if k != i
        ]
        return self.superparent_log_joint_[i], tables

    def _frequent(self, codes):
        """Boolean (n_rows, n_classes, p): may attribute i be a superparent for class y?"""
        n, p = codes.shape
        n_classes = len(self.classes_)
        frequent = np.zeros((n, n_classes, p), dtype=bool)
        for i in range(p):
            counts = self.superparent_counts_[i]  # (C, r_i)
            observed = codes[:, i] >= 0
            values = np.where(observed, codes[:, i], 0)
            if self.frequency == "attribute":
                ok = counts.sum(axis=0)[values] >= self.frequency_threshold  # (n,)
                frequent[:, :, i] = (ok & observed)[:, None]
            else:
                ok = counts[:, values].T >= self.frequency_threshold  # (n, C)
                frequent[:, :, i] = ok & observed[:, None]
        return frequent

    def _joint_log_likelihood(self, codes):
        n, p = codes.shape
        n_classes = len(self.classes_)
        result = np.empty((n, n_classes))
        block = max(1, _BLOCK_CELLS // max(1, n_classes * p * p))
        for start in range(0, n, block):
            chunk = codes[start : start + block]
            result[start : start + block] = self._chunk_log_likelihood(chunk)
        return result

    def _explanation_terms(self, codes):
        """One term per attribute, averaged over the members with their share of the row's joint.

        A member's joint ``log P(y, x_i) + sum_k log P(x_k | y, x_i)`` is split into the prior
        ``class_log_prior_``, the super-parent's ``log P(y, x_i) - log P(y)`` and one term per
        other attribute; the model's average of the members' joints is these terms weighed by
        each member's share of it, plus ``<members>`` (see
        :func:`~graphmodels.models.explanations.mixture_terms`). A row without a frequent
        super-parent gets naive Bayes's terms.
        """
        from .explanations import MEMBERS, ExplanationTerms, mixture_terms

        n, p = codes.shape
        n_classes = len(self.classes_)
        terms = np.zeros((n, n_classes, p))
        averaging = np.zeros((n, n_classes))
        prior = self.class_log_prior_
        block = max(1, _BLOCK_CELLS // max(1, n_classes * p * p))
        for start in range(0, n, block):
            chunk = codes[start : start + block]
            observed = chunk >= 0
            index = np.where(observed, chunk, 0) + self.offsets_[:-1]
            pair = self.pair_log_tables_[:, index[:, :, None], index[:, None, :]]  # (C, b, i, j)
            pair = np.where(observed[None, :, None, :], pair, 0.0)
            for i in range(p):
                pair[:, :, i, i] = self.superparent_log_joint_[i][:, index[:, i] - self.offsets_[i]] - prior[:, None]
            member_terms = np.moveaxis(pair, 0, 1)  # (b, C, i, j)
            member_scores = prior[None, :, None] + member_terms.sum(axis=3)
            frequent = self._frequent(chunk)
            _, averaged, members = mixture_terms(member_scores, member_terms, frequent)
            fallback = ~frequent.any(axis=2)
            if fallback.any():
                naive = np.zeros((len(chunk), n_classes, p))
                for j, table in enumerate(self.nb_log_tables_):
                    seen = observed[:, j]
                    naive[seen, :, j] = table[:, 0, chunk[seen, j]].T
                averaged = np.where(fallback[:, :, None], naive, averaged)
                members = np.where(fallback, 0.0, members)
            terms[start : start + block] = averaged
            averaging[start : start + block] = members
        names = [*self.encoder_.columns_, MEMBERS]
        return ExplanationTerms(names, prior, np.concatenate([terms, averaging[:, :, None]], axis=2))

    def _chunk_log_likelihood(self, codes):
        n, p = codes.shape
        observed = codes >= 0
        index = np.where(observed, codes, 0) + self.offsets_[:-1]  # (n, p) global state index
        # terms[c, n, i, j] = log P(x_j | y=c, x_i); unobserved x_j contributes 0 (summed out).
        terms = self.pair_log_tables_[:, index[:, :, None], index[:, None, :]]
        terms = np.where(observed[None, :, None, :], terms, 0.0)
        diagonal = np.arange(p)
        terms[:, :, diagonal, diagonal] = 0.0
        per_parent = terms.sum(axis=3)  # (C, n, p)
        for i in range(p):
            per_parent[:, :, i] += self.superparent_log_joint_[i][:, index[:, i] - self.offsets_[i]]
        per_parent = np.moveaxis(per_parent, 0, 1)  # (n, C, p)
        frequent = self._frequent(codes)
        with np.errstate(divide="ignore", invalid="ignore"):
            averaged = logsumexp(np.where(frequent, per_parent, -np.inf), axis=2) - np.log(frequent.sum(axis=2))
        fallback = ~frequent.any(axis=2)
        if fallback.any():
            naive = forest_log_likelihood(codes, [-1] * p, self.nb_log_tables_) + self.class_log_prior_
            averaged = np.where(fallback, naive, averaged)
        return averaged
