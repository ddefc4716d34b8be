"""Kikuchi-Bayes classifier (Jakulin & Rish): class-containing regions combined
by the Kikuchi approximation, selected under a parsimonious prior, and
averaged over the stages of the greedy path (kBMA) or taken at the MAP
stage (kMAP)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._special import logsumexp
from .._trace import combine_traces
from .._validation import Boolean, Interval, Options
from ..estimators.parameters import BDeu, get_estimator
from ..learners.kikuchi import DEFAULT_PRIOR_STRENGTH, kikuchi_bayes_path
from ..stats.counting import DEFAULT_MAX_CELLS
from ..structures.regions import cluster_variation_regions, region_graph
from . import _fitted
from .base import ESTIMATOR_CONSTRAINT, BaseClassifier
from .export import classifier_markov_network
from .queries import Queryable, markov_distribution
from .registry import register_model
from .tables import column_states, find_variables, potential_frame

if TYPE_CHECKING:
    import networkx as nx

    from ..networks import DiscreteMarkovNetwork

__all__ = ["KikuchiBayes", "DEFAULT_PRIOR_STRENGTH"]

_ROW_BLOCK = 65536

#: The consistent prior of eq. (4) with vartheta = 4 (an immutable default).
DEFAULT_ESTIMATOR = BDeu(DEFAULT_PRIOR_STRENGTH)


@register_model("kikuchi-bayes")
class KikuchiBayes(BaseClassifier, Queryable):
    """Kikuchi-Bayes: a Markov network classifier over class-containing regions.

    The structure is a set of regions (sets of attributes plus the class)
    found by stepwise forward selection under the parsimonious prior
    (:func:`~graphmodels.learners.kikuchi_bayes_path`). Each region's
    submodel :math:`P(v_R)` has the consistent symmetric Dirichlet prior of
    eq. (4), ``alpha = vartheta / cells`` (BDeu with equivalent sample
    size vartheta spread over the region's table), so that overlapping
    submodels agree on their shared marginals. The cluster variation method
    turns the regions into a region graph with counting numbers ``c_R``, and
    the class posterior is, by Lemma 1,
    :math:`P(y | x) \\propto \\prod_R P(x_R, y)^{c_R}`, computed in log space.

    With ``averaging=True`` (kBMA) predictions average the posteriors of
    every stage of the path, weighted by prior x likelihood; with
    ``averaging=False`` (kMAP) only the maximum a posteriori stage predicts.

    Parameters
    ----------
    max_region_size : int, default=4
        Largest region, class included (the paper's k <= 4).
    averaging : bool, default=True
        Bayesian model averaging over the stages of the path (kBMA) or the
        MAP stage alone (kMAP).
    estimator : "bdeu", dict, BDeu or None, default=None
        The consistent prior of eq. (4); None is ``BDeu(4.0)``. Its equivalent sample size is
        ``vartheta``, the uniformly spread pseudo-instances added to every
        submodel (the name ``"bdeu"`` means ``BDeu(1.0)``). Only BDeu keeps
        overlapping submodels consistent, so other estimators are refused.
        The paper does not state vartheta; 4 won a 5-fold cross-validation
        over 0.25 ... 8 on the 23 shared UCI sets of its Table 1 (see
        ``benchmarks/RESULTS.md``).
    continue_past_map : bool, default=True
        Follow the path past the MAP model while the training likelihood
        rises (those stages enter the average).
    max_log_posterior_drop : float, default=50.0
        Stop past the MAP once a stage's log posterior is this much below the
        best (its weight would be below ``exp(-50)``).
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
        Missing cells are a value of their own, as in the paper.
    max_cells : int, default=10_000_000
        Largest table the model may allocate: candidate regions with larger
        tables are left out of the search.
    prior_strength : float, optional
        Deprecated alias of ``estimator=BDeu(prior_strength)``; will be removed.

    Attributes
    ----------
    path_ : pandas.DataFrame
        One row per stage of the path (stage 0 is the class alone): ``region``
        added (tuple of names, class last), ``size``, ``phase``, ``df``
        (eq. 7), ``log_prior`` (eq. 6), ``log_likelihood`` (eq. 8, nats),
        ``log_posterior`` and the model-averaging ``weight``.
    map_step_ : int
        Row of `path_` with the highest log posterior.
    trace_ : pandas.DataFrame
        Only with ``trace=True``: the steps of the search (``part`` =
        ``"search"``), as :func:`~graphmodels.learners.kikuchi_bayes_path`
        records them (each region added, the best region of each size that
        was not, the MAP), then the construction of the MAP model's region
        graph from its regions by Algorithm 1 (``part`` = ``"regions"``), as
        :func:`~graphmodels.structures.cluster_variation_regions` records it
        (its accepted regions and counting numbers are ``structure_``).
    structure_ : networkx.DiGraph
        Region graph of the MAP model: frozenset regions with
        ``counting_number``; edges to maximal sub-regions.
    stage_counting_numbers_ : list of dict
        Counting numbers (region tuple -> int) of every stage.
    region_log_tables_ : dict
        ``log P(v_R)`` of each region used in prediction, indexed by the
        attribute codes then the class; each attribute axis has one extra
        last slot holding the marginal over that attribute, used for states
        unseen in training (a consistent prior makes that the submodel of
        the smaller region).

    Notes
    -----
    An attribute value not seen in training (code -1) is summed out of every
    region containing it, which under the consistent prior gives exactly the
    submodel of the region without that attribute.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.
    .. [2] Yedidia, J. S., Freeman, W. T., & Weiss, Y. (2004). Constructing
           free energy approximations and generalized belief propagation
           algorithms. MERL TR2004-040.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(300, 3)), columns=["a", "b", "c"])
    >>> y = X["a"] ^ X["b"]
    >>> model = KikuchiBayes(max_region_size=3).fit(X, y)
    >>> model.interactions_
    [('a', 'b', 'class')]
    >>> float(model.score(X, y))
    1.0
    """

    _parameter_constraints = {
        "estimator": [None, ESTIMATOR_CONSTRAINT],
        "max_region_size": [Interval(numbers.Integral, 1, None)],
        "averaging": [Boolean()],
        "continue_past_map": [Boolean()],
        "max_log_posterior_drop": [Interval(numbers.Real, 0, None, closed="neither")],
        "prior_strength": [Options(["deprecated"]), Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        max_region_size: int = 4,
        averaging: bool = True,
        estimator: str | dict[str, Any] | BDeu | None = None,
        continue_past_map: bool = True,
        max_log_posterior_drop: float = 50.0,
        trace: bool = False,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
        prior_strength: float | Literal["deprecated"] = "deprecated",
    ) -> None:
        self.max_region_size = max_region_size
        self.averaging = averaging
        self.estimator = estimator
        self.continue_past_map = continue_past_map
        self.max_log_posterior_drop = max_log_posterior_drop
        self.trace = trace
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells
        self.prior_strength = prior_strength

    def _check_params(self):
        if self.estimator is not None and not isinstance(get_estimator(self.estimator), BDeu):
            raise ValueError(
                f"`estimator` of KikuchiBayes must be BDeu (the consistent prior of eq. 4), got {self.estimator!r}."
            )

    def _resolve_estimator(self):
        if isinstance(self.prior_strength, str):
            self.estimator_ = DEFAULT_ESTIMATOR if self.estimator is None else get_estimator(self.estimator)
            return
        warnings.warn(
            "`prior_strength` is deprecated; use `estimator=BDeu(prior_strength)`.", FutureWarning, stacklevel=4
        )
        self.estimator_ = BDeu(float(self.prior_strength))

    _fitted_attributes: tuple[str, ...] = (
        "path_", "map_step_", "stage_counting_numbers_", "structure_", "region_log_tables_", "n_features_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then the path's weights and stages, and every region's table.

        A region's table is ``log P(v_R)`` over its attributes (each with one more
        slot: the marginal over it) and the class: the table without those slots is
        one distribution, and each slot holds the sum over its axis.
        """
        super()._validate_fitted_state()
        columns = list(self.encoder_.columns_)
        cards = dict(zip(columns, self._validated_cardinalities()))
        if self.n_features_ != len(columns):
            raise _fitted.FittedStateError(
                "n_features_", f"is {self.n_features_!r}, but the model has {len(columns)} columns."
            )
        path = _fitted.instance("path_", self.path_, pd.DataFrame, "a DataFrame")
        weights = path["weight"].to_numpy(dtype=np.float64)
        if not (np.isfinite(weights).all() and (weights >= 0).all() and weights.sum() > 0):
            raise _fitted.FittedStateError("path_", "has a 'weight' column that is not finite non-negative weights.")
        stages = _fitted.sequence("stage_counting_numbers_", self.stage_counting_numbers_, len(path))
        _fitted.instance("map_step_", self.map_step_, numbers.Integral, "an integer")
        if not 0 <= self.map_step_ < len(stages):
            raise _fitted.FittedStateError(
                "map_step_", f"is {self.map_step_}, not a row of path_ (0..{len(stages) - 1})."
            )
        tables = _fitted.instance("region_log_tables_", self.region_log_tables_, dict, "a dict")
        n_classes = len(self.classes_)
        for region, table in tables.items():
            entry = f"region_log_tables_[{region!r}]"
            _fitted.sequence(entry, region)
            attributes = region[:-1]
            if not region or region[-1] != self.class_name_ or len(set(region)) != len(region):
                raise _fitted.FittedStateError(entry, "is not a region: distinct columns, then the class.")
            for name in attributes:
                if name not in cards:
                    raise _fitted.FittedStateError(entry, f"names {name!r}, which is not a column.")
            shape = (*(cards[name] + 1 for name in attributes), n_classes)
            table = _fitted.log_table(entry, table, shape, axes=())
            inner = table[(slice(0, -1),) * len(attributes)]
            _fitted.log_table(entry, inner, inner.shape, axes=range(inner.ndim))
            with np.errstate(under="ignore"):
                slots = _with_marginal_slots(np.exp(inner), len(attributes))
            if not np.allclose(np.exp(table), slots, rtol=0, atol=_fitted.TOLERANCE):
                raise _fitted.FittedStateError(entry, "has marginal slots that are not the sums over their axes.")
        for stage in self._prediction_stages():
            missing = (
                _fitted.instance(f"stage_counting_numbers_[{stage}]", stages[stage], dict, "a dict").keys() - tables
            )
            if missing:
                raise _fitted.FittedStateError(
                    "region_log_tables_", f"has no table of the region {next(iter(missing))!r} of stage {stage}."
                )

    def _fit(self, engine):
        features = engine.names[:-1]
        order = {name: i for i, name in enumerate(engine.names)}
        kwargs = dict(
            max_region_size=self.max_region_size,
            prior_strength=self.estimator_.equivalent_sample_size,
            continue_past_map=self.continue_past_map,
            max_log_posterior_drop=self.max_log_posterior_drop,
            max_cells=self.max_cells,
        )
        if self.trace:
            path, steps = kikuchi_bayes_path(engine, self.class_name_, trace=True, **kwargs)
        else:
            path = kikuchi_bayes_path(engine, self.class_name_, **kwargs)

        def as_tuple(region):
            return tuple(sorted(region, key=order.__getitem__))

        log_post = np.array([step["log_posterior"] for step in path])
        if np.isfinite(log_post).any():
            weights = np.exp(log_post - log_post.max())
            weights /= weights.sum()
        else:
            # Fewer training instances than classes: even the class-only model
            # has prior zero (df >= n - 1). Predict with the class-only model.
            weights = np.zeros(len(log_post))
            weights[0] = 1.0
        self.path_ = pd.DataFrame(
            {
                "region": [as_tuple(step["region"]) for step in path],
                "size": [len(step["region"]) for step in path],
                "phase": [step["phase"] for step in path],
                "df": [step["df"] for step in path],
                "log_prior": [step["log_prior"] for step in path],
                "log_likelihood": [step["log_likelihood"] for step in path],
                "log_posterior": log_post,
                "weight": weights,
            }
        )
        self.map_step_ = int(np.argmax(weights))
        self.stage_counting_numbers_ = [
            {as_tuple(region): int(c) for region, c in step["counting_numbers"].items()} for step in path
        ]
        self.structure_ = self.region_graph(self.map_step_)
        if self.trace:
            # Algorithm 1 on the regions of the MAP stage: the same region graph, step by step.
            _, regions = cluster_variation_regions([step["region"] for step in path[: self.map_step_ + 1]], trace=True)
            self.trace_ = combine_traces([(steps, {"part": "search"}), (regions, {"part": "regions"})])
        theta = float(self.estimator_.equivalent_sample_size)
        tables = {}
        for stage in self._prediction_stages():
            for region in self.stage_counting_numbers_[stage]:
                if region not in tables:
                    counts = np.asarray(engine.counts(list(region)), dtype=np.float64)
                    # Eq. (4): the consistent prior, alpha = vartheta / cells (BDeu's joint).
                    joint = (counts + theta / counts.size) / (counts.sum() + theta)
                    tables[region] = np.log(_with_marginal_slots(joint, len(region) - 1))
        self.region_log_tables_ = tables
        self.n_features_ = len(features)
        return self

    def _prediction_stages(self):
        if self.averaging:
            return [int(s) for s in np.flatnonzero(self.path_["weight"].to_numpy() > 0)]
        return [self.map_step_]

    def region_graph(self, step: int | None = None) -> nx.DiGraph:
        """Region graph (``nx.DiGraph``) of one stage of the path; the MAP stage by default.

        Nodes are frozensets of names with ``counting_number`` and ``size``.

        Parameters
        ----------
        step : int, optional
            A row of `path_`; by default `map_step_`.

        Returns
        -------
        nx.DiGraph

        Raises
        ------
        ValueError
            If `step` is not a row of `path_`.
        """
        self._check_fitted()
        step = self.map_step_ if step is None else int(step)
        if not 0 <= step < len(self.stage_counting_numbers_):
            raise ValueError(f"`step` must be in 0..{len(self.stage_counting_numbers_) - 1}, got {step}.")
        return region_graph(self.stage_counting_numbers_[step])

    def _build_distribution(self):
        """The MAP stage's Kikuchi product, normalized by exact elimination; ``method="gbp"`` uses its region graph.

        The product of region tables raised to their counting numbers is normalized over
        every variable here (exactly, by a junction tree), so its posterior of the class given
        the attributes is kMAP's :meth:`predict_proba`; kBMA averages the stages' posteriors,
        which no single distribution gives. ``method="gbp"`` runs generalized belief
        propagation on ``structure_`` (the cluster variation method's region graph) with the
        region tables raised to their counting numbers as factors: an approximation of the same
        normalized product, which on these region graphs (every region holds the class) can
        settle on a poor stationary point; the exact default is cheap, as the regions are small.
        """
        return markov_distribution(self, self.to_markov_network(), region_graph=self.structure_)

    def to_markov_network(self, stage: int | None = None) -> DiscreteMarkovNetwork:
        """One stage's Kikuchi approximation as a :class:`~graphmodels.networks.DiscreteMarkovNetwork`.

        The model scores a row by ``prod_R P(x_R, y)^{c_R}`` over the regions
        ``R`` of a stage of its path with their counting numbers ``c_R``
        (Lemma 1 of Jakulin & Rish, 2006). That product is a Markov network
        over the class and the attributes with one factor per region of
        nonzero counting number, the region's smoothed joint
        (``potential(region)``) raised to ``c_R``. Negative counting numbers give factors with negative
        exponents; every table is > 0 (the prior of eq. 4 leaves no zero
        cell).

        The product is not a normalized joint distribution (the Kikuchi
        approximation is normalized over the class only): the network's
        normalized ``P(y, x)`` is not the data's, and its partition function
        is not 1. Its conditional ``P(y | x)`` is exactly the model's
        posterior at that stage; with ``averaging=False`` (kMAP) that of the
        default stage, ``map_step_``, is :meth:`predict_proba`. With
        ``averaging=True`` (kBMA) :meth:`predict_proba` is the average of the
        stages' posteriors weighted by ``path_["weight"]``: the network of
        each stage of positive weight gives one term.

        Parameters
        ----------
        stage : int, optional
            A row of ``path_``; by default ``map_step_``. Its regions'
            tables must have been kept: those of ``map_step_`` always, with
            ``averaging=True`` those of every stage of positive weight.

        Returns
        -------
        DiscreteMarkovNetwork
            Variables: the class (named ``class_name_``, ``len(classes_)``
            states in ``classes_`` order), then every attribute in column
            order (named as the columns, ``str`` of a name that is not a
            string, with the cardinalities of ``encoder_``, whose codes are
            the network's; attributes in no region have no factor). Factors:
            the regions of ``stage_counting_numbers_[stage]`` of nonzero
            counting number, in that order, each over its attributes in
            column order and then the class.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `stage` is not a row of ``path_``, or the model did not keep
            the tables of its regions; if two variables' names print alike.

        See Also
        --------
        graphmodels.io.write_uai : write the network as a UAI ``MARKOV`` file.
        region_graph : the region graph of a stage, with its counting numbers.

        Notes
        -----
        An attribute value unseen in training (code -1) is taken out of each
        region's table separately (the region's marginal, the submodel of
        the smaller region), not summed out of the product: the network's
        conditional with that attribute summed out is not the model's
        posterior for such a row. With every attribute observed it is.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame(rng.integers(0, 2, size=(300, 3)), columns=["a", "b", "c"])
        >>> model = KikuchiBayes(max_region_size=3, averaging=False).fit(X, X["a"] ^ X["b"])
        >>> mn = model.to_markov_network()
        >>> mn.variables, [scope for scope, _ in mn.factors]
        (['class', 'a', 'b', 'c'], [('a', 'b', 'class')])
        >>> codes = model.encoder_.transform(X.head(1))
        >>> joint = mn.log_likelihood_codes(np.hstack([[[0], [1]], np.repeat(codes, 2, axis=0)]))
        >>> np.allclose(np.exp(joint - np.logaddexp.reduce(joint)), model.predict_proba(X.head(1)))
        True
        """
        self._check_fitted()
        stage = self.map_step_ if stage is None else stage
        n_stages = len(self.stage_counting_numbers_)
        if isinstance(stage, bool) or not isinstance(stage, numbers.Integral) or not 0 <= int(stage) < n_stages:
            raise ValueError(f"`stage` must be a row of path_, an integer in 0..{n_stages - 1}, got {stage!r}.")
        stage = int(stage)
        position = {name: j for j, name in enumerate(self.encoder_.columns_)}
        position[self.class_name_] = len(self.encoder_.columns_)
        factors = []
        for region, counting_number in self.stage_counting_numbers_[stage].items():
            if counting_number == 0:
                continue
            if region not in self.region_log_tables_:
                kept = self._prediction_stages()
                raise ValueError(
                    f"KikuchiBayes.to_markov_network: the tables of stage {stage} were not kept (region {region!r}); "
                    f"this model keeps those of the stages it predicts with, {kept}"
                    + (
                        " (refit with averaging=True to keep every stage of positive weight)."
                        if not self.averaging
                        else "."
                    )
                )
            table = self.region_log_tables_[region][(slice(0, -1),) * (len(region) - 1)]  # no marginal slots
            factors.append((tuple(position[v] for v in region), counting_number * table))
        return classifier_markov_network(self, factors)

    @property
    def interactions_(self) -> list[tuple[Hashable, ...]]:
        """The MAP model's initial regions (tuples of names, class last), in the order added."""
        self._check_fitted()
        regions = set(map(frozenset, self.stage_counting_numbers_[self.map_step_]))
        maximal = {r for r in regions if not any(r < other for other in regions)}
        added = [tuple(r) for r in self.path_["region"].iloc[: self.map_step_ + 1]]
        return [r for r in added if frozenset(r) in maximal]

    @property
    def cpd(self) -> Callable[[Hashable], pd.DataFrame]:
        """Not available: Kikuchi-Bayes has region tables, not conditional ones; see :meth:`potential`.

        The model multiplies region tables raised to counting numbers (a Markov
        network), not directed families each with a table given its parents, so
        ``model.cpd`` raises an ``AttributeError`` that says so and points to
        :meth:`potential` (``hasattr(model, "cpd")`` is False).
        """
        raise AttributeError(
            "KikuchiBayes has no cpd(): it multiplies region tables raised to counting numbers (a Markov network), "
            "not directed families with a conditional table each; read a region's table with "
            "model.potential(region) (a name that is not a region gets the list of regions), or the whole "
            "network with model.to_markov_network()."
        )

    def potential(self, region: Hashable | tuple[Hashable, ...] | frozenset[Hashable]) -> pd.DataFrame:
        """The submodel ``P(v_R)`` of one region, as a tidy DataFrame.

        Parameters
        ----------
        region : iterable of names
            A region used in prediction (a key of ``region_log_tables_``: the
            MAP model's regions, and with ``averaging=True`` those of every
            stage averaged), in any order; the class is part of every region.

        Returns
        -------
        DataFrame of shape (n_configurations, len(region) + 1)
            One column per variable (the attributes in column order, then
            the class) and ``probability``: the region's smoothed joint of
            eq. (4), ``(N[v_R] + vartheta / cells) / (N + vartheta)``, which
            sums to 1.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If `region` is not a region of the model, listing the regions.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame(rng.integers(0, 2, size=(300, 3)), columns=["a", "b", "c"])
        >>> model = KikuchiBayes(max_region_size=3).fit(X, X["a"] ^ X["b"])
        >>> table = model.potential(["class", "b", "a"])
        >>> list(table.columns), round(float(table["probability"].sum()), 12)
        (['a', 'b', 'class', 'probability'], 1.0)
        """
        self._check_fitted()
        names = list(self.encoder_.columns_) + [self.class_name_]
        wanted = find_variables(region, names)
        regions = {frozenset(key): key for key in self.region_log_tables_}
        if wanted not in regions:
            raise ValueError(
                f"KikuchiBayes.potential: {region!r} is not a region of the model; regions: {list(regions.values())}."
            )
        key = regions[wanted]
        table = np.exp(self.region_log_tables_[key][(slice(0, -1),) * (len(key) - 1)])  # without the marginal slots
        states = column_states(self)
        return potential_frame([(name, states[name]) for name in key], table)

    def _class_log_scores(self, codes):
        # The Kikuchi approximation is normalized over the class only: there is
        # no joint P(x, y), so prediction normalizes the log posterior itself.
        out = np.empty((codes.shape[0], len(self.classes_)))
        for start in range(0, codes.shape[0], _ROW_BLOCK):
            out[start : start + _ROW_BLOCK] = self._log_posterior(codes[start : start + _ROW_BLOCK])
        return out

    def _explanation_terms(self, codes):
        """One term per region with attributes: ``c_R (log P(x_R, y) - log P_R(y))``, named ``{a, b}``.

        The class-only parts ``c_R log P_R(y)`` of every region add up to ``<prior>``. kMAP's score
        is the sum of its stage's terms; kBMA averages the stages' posteriors, so each region's term
        is weighed by each stage's share of that average (per row and class), and
        ``<averaging>`` holds the rest.
        """
        from .explanations import AVERAGING, ExplanationTerms, region_name

        n = codes.shape[0]
        position = {name: j for j, name in enumerate(self.encoder_.columns_)}
        stages = self._prediction_stages()
        regions = [r for r in dict.fromkeys(r for s in stages for r in self.stage_counting_numbers_[s]) if len(r) > 1]
        value, empty = {}, {}
        for region in regions:
            table = self.region_log_tables_[region]
            value[region] = table[tuple(codes[:, position[a]] for a in region[:-1])]  # (n, C); -1: the margin
            empty[region] = table[(-1,) * (len(region) - 1)]  # (C,): the region's own P(y)
        names = [region_name(region[:-1]) for region in regions]
        n_classes = len(self.classes_)

        def stage_parts(stage):
            numbers = self.stage_counting_numbers_[stage]
            terms = np.zeros((n, n_classes, len(regions)))
            intercept = np.zeros(n_classes)
            for region, c in numbers.items():
                table = self.region_log_tables_[region]
                if len(region) == 1:
                    intercept += c * table
                    continue
                intercept += c * empty[region]
                terms[:, :, regions.index(region)] = c * (value[region] - empty[region])
            return intercept, terms

        if not self.averaging:
            intercept, terms = stage_parts(stages[-1])
            return ExplanationTerms(names, intercept, terms)
        weights = self.path_["weight"].to_numpy()
        parts = [stage_parts(s) for s in stages]
        scores = np.stack([i + t.sum(axis=2) for i, t in parts], axis=2)  # (n, C, stages): log phi_s
        log_post = scores - logsumexp(scores, axis=1, keepdims=True) + np.log(weights[stages])
        share = np.exp(log_post - logsumexp(log_post, axis=2, keepdims=True))  # each stage's share, per (row, class)
        terms = np.einsum("ncs,snct->nct", share, np.stack([t for _, t in parts]))
        hidden = np.full((1, codes.shape[1]), -1, dtype=np.int64)
        intercept = np.asarray(self._class_log_scores(hidden), dtype=np.float64)[0]
        averaging = self._class_log_scores(codes) - intercept - terms.sum(axis=2)
        return ExplanationTerms([*names, AVERAGING], intercept, np.concatenate([terms, averaging[:, :, None]], axis=2))

    def _log_posterior(self, codes):
        """log P(y | x) (kMAP) or log of the stage-averaged P(y | x) (kBMA), shape (n, n_classes)."""
        position = {name: j for j, name in enumerate(self.encoder_.columns_)}
        rows = {}

        def region_rows(region):
            if region not in rows:
                index = tuple(codes[:, position[a]] for a in region[:-1])
                rows[region] = self.region_log_tables_[region][index]
            return rows[region]

        stages = self._prediction_stages()
        weights = self.path_["weight"].to_numpy()
        log_phi = np.zeros((codes.shape[0], len(self.classes_)))
        previous = {}
        mixture = []
        for stage in range(stages[-1] + 1):
            current = self.stage_counting_numbers_[stage]
            if stage in stages:
                # In the stages' own order, not a set's: the sum's rounding must not follow the hash seed.
                for region in dict.fromkeys([*current, *previous]):
                    dc = current.get(region, 0) - previous.get(region, 0)
                    if dc:
                        log_phi += dc * region_rows(region)
                previous = current
                posterior = log_phi - logsumexp(log_phi, axis=1, keepdims=True)
                mixture.append(posterior + (np.log(weights[stage]) if self.averaging else 0.0))
        if not self.averaging:
            return mixture[-1]
        return logsumexp(np.stack(mixture), axis=0) - logsumexp(np.log(weights[stages]))


def _with_marginal_slots(table, n_attributes):
    """Append to each of the first `n_attributes` axes one slot holding the sum over that axis.

    Indexing the result with code -1 (an unseen state) picks the marginal,
    so the state is summed out of the region.
    """
    for axis in range(n_attributes):
        table = np.concatenate([table, table.sum(axis=axis, keepdims=True)], axis=axis)
    return table
