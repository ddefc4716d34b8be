"""Hierarchical naive Bayes classifier with latent variables (Langseth & Nielsen)."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import Interval, Options
from ..estimators.selection import LeaveOneOutSelection, class_prior_cells, family_cells
from ..learners.hierarchical_nb import SCORINGS, LatentVariable, hierarchical_naive_bayes_search
from ..stats.counting import DEFAULT_MAX_CELLS
from ..structures.latent_trees import add_latent, naive_bayes_tree
from . import _fitted
from .base import BaseClassifier
from .export import latent_tree_network
from .queries import Queryable, network_distribution
from .registry import register_model
from .tables import ConditionalTables, column_states

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator
    from ..networks import DiscreteBayesianNetwork

__all__ = ["HierarchicalNaiveBayes"]


@register_model("hnb")
class HierarchicalNaiveBayes(BaseClassifier, ConditionalTables, Queryable):
    """Naive Bayes whose attributes are grouped under latent variables (HNB).

    Learned greedily for classification (Langseth & Nielsen): each step adds
    a latent variable over the most significantly dependent pair of the
    class's children (chi-square test of ``I(X; Y | C)``), with states found
    by collapsing child configurations under predictive MDL, and keeps it if
    the cross-validated accuracy on the training data improves (see
    :func:`~graphmodels.learners.hierarchical_naive_bayes_search`). A latent
    is a deterministic function of its children, so a fitted model is naive
    Bayes over the class's children with latent values computed from the
    attributes, and every latent state reads as a set of child
    configurations (`latent_states_`).

    Parameters
    ----------
    n_folds : int, default=5
        Folds of the wrapper's cross-validation on the training data.
    scoring : {"accuracy", "log_loss"}, default="accuracy"
        The wrapper score (the slides' choice is accuracy).
    n_candidate_pairs : int, default=3
        Most significant pairs tried per step (the slides try one).
    max_latents : int, optional
        Most latent variables.
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    estimator : str, dict or Estimator, default="leave-one-out"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`.
        The default, :class:`~graphmodels.estimators.LeaveOneOutSelection`
        (:class:`NaiveBayes`'s default too), scores the wrapper's naive Bayes
        models with the prior it keeps for naive Bayes over the attributes,
        then selects the final tables' prior by exact leave-one-out log-loss;
        it had the best average rank and the lowest mean log-loss and error
        of HNB's candidates over the shared UCI sets
        (``benchmarks/bench_defaults.py``, RESULTS.md). Paper reproductions
        pass the paper's prior (``"bdeu"``: BDeu(1)).
    random_state : None, int or Generator, default=None
        Seeds the wrapper's folds; pass an int for reproducible structures.
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
    structure_ : networkx.DiGraph
        The latent tree: class at the root, latent nodes (``role="latent"``,
        with ``children`` and ``states``: the child configurations, in
        labels, behind each state), attributes as leaves.
    latents_ : list of LatentVariable
        In the order introduced (a property over ``latent_definitions_``,
        the plain ``(name, children, state table)`` triples that are saved).
    latent_states_ : pandas.DataFrame
        One row per latent state: ``latent``, ``state``, ``children``,
        ``configurations`` (a readable string) and ``n_configurations``.
    history_ : pandas.DataFrame
        The search: per step the latent added, its children, states and the
        wrapper score; step 0 is naive Bayes.
    children_ : list
        The class's children (attributes and latents) of the final model.
    trace_ : pandas.DataFrame
        Only with ``trace=True``: the steps of the search as
        :func:`~graphmodels.learners.hierarchical_naive_bayes_search`
        records them: the pairs tested with their significance and score,
        each latent accepted (or the candidate that was not), and the
        states collapsed with their ``Delta_L`` (configurations as pairs of
        child codes: ``encoder_.levels_`` for an attribute, the state
        number for a latent).

    Notes
    -----
    A test row whose child configuration was never seen in training (or
    whose child is unknown) has an unknown latent value: the latent is summed
    out, which in naive Bayes drops its factor.

    References
    ----------
    .. [1] Langseth, H., & Nielsen, T. D. (2006). Classification using
           hierarchical naive Bayes models. *Machine Learning*, 63(2),
           135-159.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
    >>> y = np.where(X["a"] == X["b"], "same", "different")
    >>> model = HierarchicalNaiveBayes(random_state=0).fit(X, y)
    >>> model.latents_[0].children
    ('a', 'b')
    >>> float(model.score(X, y))
    1.0
    """

    def __init__(
        self,
        *,
        n_folds: int = 5,
        scoring: str = "accuracy",
        n_candidate_pairs: int = 3,
        max_latents: int | None = None,
        trace: bool = False,
        estimator: str | dict[str, Any] | Estimator = "leave-one-out",
        random_state: int | np.random.Generator | None = None,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.n_folds = n_folds
        self.scoring = scoring
        self.n_candidate_pairs = n_candidate_pairs
        self.max_latents = max_latents
        self.trace = trace
        self.estimator = estimator
        self.random_state = random_state
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _parameter_constraints = {
        "n_folds": [Interval(numbers.Integral, 2, None)],
        "scoring": [Options(list(SCORINGS))],
        "n_candidate_pairs": [Interval(numbers.Integral, 1, None)],
        "max_latents": [None, Interval(numbers.Integral, 0, None)],
    }

    _fitted_attributes: tuple[str, ...] = (
        "latent_definitions_", "structure_", "latent_states_", "history_", "children_", "class_log_prior_",
        "child_log_tables_",
    )  # fmt: skip

    def _validate_fitted_state(self):
        """The classifier's checks, then each latent's lookup table and each child of the class's ``(C, r)`` table."""
        super()._validate_fitted_state()
        cards = dict(zip(self.encoder_.columns_, self._validated_cardinalities()))
        for k, definition in enumerate(_fitted.sequence("latent_definitions_", self.latent_definitions_)):
            entry = f"latent_definitions_[{k}]"
            name, children, state_of = _fitted.sequence(entry, definition, 3)
            if name in cards:
                raise _fitted.FittedStateError(entry, f"names the variable {name!r} a second time.")
            for child in _fitted.sequence(f"{entry}[1]", children, 2):
                if child not in cards:
                    raise _fitted.FittedStateError(
                        f"{entry}[1]", f"names {child!r}, which is neither a column nor an earlier latent variable."
                    )
            shape = (cards[children[0]], cards[children[1]])
            table = _fitted.integers(f"{entry}[2]", state_of, low=-1, high=max(1, shape[0] * shape[1]), shape=shape)
            cards[name] = int(table.max()) + 1 if table.size else 0
        children = _fitted.sequence("children_", self.children_)
        for k, (child, table) in enumerate(
            zip(children, _fitted.sequence("child_log_tables_", self.child_log_tables_, len(children)))
        ):
            if child not in cards:
                raise _fitted.FittedStateError(
                    "children_", f"names {child!r}, which is neither a column nor a latent variable."
                )
            _fitted.log_table(f"child_log_tables_[{k}]", table, (len(self.classes_), cards[child]))

    def _fit(self, engine):
        features = engine.names[:-1]
        selection = search_estimator = self.estimator_
        if isinstance(selection, LeaveOneOutSelection):
            # The wrapper scores naive Bayes models: they use the candidate the selection keeps for
            # naive Bayes over the attributes (H_0), NaiveBayes()'s own choice.
            self.latent_definitions_, self.children_ = [], list(features)
            self._fit_selected_tables(engine)
            search_estimator = self.estimator_
        kwargs = dict(
            n_folds=self.n_folds,
            scoring=self.scoring,
            n_candidate_pairs=self.n_candidate_pairs,
            max_latents=self.max_latents,
            estimator=search_estimator,
            random_state=self.random_state,
        )
        if self.trace:
            latents, history, self.trace_ = hierarchical_naive_bayes_search(
                engine, self.class_name_, trace=True, **kwargs
            )
        else:
            latents, history = hierarchical_naive_bayes_search(engine, self.class_name_, **kwargs)
        # Plain data (name, children, state table), so that save/load needs no pickling.
        self.latent_definitions_ = [(latent.name, latent.children, latent.state_of) for latent in latents]
        cards = dict(zip(engine.names, (int(r) for r in engine.cardinalities)))
        labels = {name: list(levels) for name, levels in zip(self.encoder_.columns_, self.encoder_.levels_)}
        tree = naive_bayes_tree(self.class_name_, features, cards)
        rows = []
        for latent in latents:
            configurations = latent.configurations()
            cards[latent.name] = latent.cardinality
            labels[latent.name] = list(range(latent.cardinality))
            states = [
                [tuple(labels[child][v] for child, v in zip(latent.children, config)) for config in state]
                for state in configurations
            ]
            tree = add_latent(tree, latent.name, latent.children, states)
            for s, state in enumerate(states):
                rows.append(
                    {
                        "latent": latent.name,
                        "state": s,
                        "children": latent.children,
                        "configurations": "; ".join(
                            ", ".join(f"{child}={value}" for child, value in zip(latent.children, config))
                            for config in state
                        ),
                        "n_configurations": len(state),
                    }
                )
        self.structure_ = tree
        self.latent_states_ = pd.DataFrame(
            rows, columns=["latent", "state", "children", "configurations", "n_configurations"]
        )
        self.history_ = pd.DataFrame(
            [{k: v for k, v in step.items() if k != "candidates"} for step in history],
            columns=["latent", "children", "cardinality", "score"],
        )
        self.children_ = list(tree.successors(self.class_name_))
        # Parameters: naive Bayes over the class's children, latent values inferred.
        self.estimator_ = selection
        self._fit_selected_tables(engine)
        return self

    _selects_estimator = True

    def _child_count_tables(self, engine):
        """The class counts and each child's (n_classes, 1, r) table given the class, latents inferred.

        Shaped as naive Bayes's tables, so that the same estimator gives the
        same estimates; kept in the engine's cache, as an estimator selection
        reads them once per candidate.
        """
        key = ("hnb-child-tables", tuple((n, c, t.tobytes()) for n, c, t in self.latent_definitions_))
        cache = engine._cache
        if key not in cache:
            table, weights = engine.rows()
            codes = self._all_codes(table)
            y = codes[self.class_name_]
            n_classes = len(self.classes_)
            cards = dict(zip(engine.names, (int(r) for r in engine.cardinalities)))
            cards.update((latent.name, max(latent.cardinality, 1)) for latent in self.latents_)
            tables = []
            for child in self.children_:
                x = codes[child]
                r = cards[child]
                seen = x >= 0
                counts = np.bincount(y[seen] * r + x[seen], weights=weights[seen], minlength=n_classes * r)
                tables.append(counts.reshape(n_classes, 1, r))
            cache[key] = tables
        return cache[key]

    def _fit_tables(self, engine, estimator):
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(estimator.joint(engine.counts([engine.names[-1]])))
            tables = estimator.conditionals(self._child_count_tables(engine))
            self.child_log_tables_ = [np.log(table[:, 0, :]) for table in tables]

    def _training_families(self, engine, codes, estimator):
        y = codes[:, -1]
        families = [class_prior_cells(engine, y, estimator)]
        values = self._all_codes(codes)
        for child, counts in zip(self.children_, self._child_count_tables(engine)):
            rows = np.flatnonzero(values[child] >= 0)  # an unknown child drops out of the row's product
            families.append(family_cells(counts, estimator, (y[rows], 0, values[child][rows]), rows=rows))
        return families

    @property
    def latents_(self) -> list[LatentVariable]:
        """The latent variables (:class:`~graphmodels.learners.LatentVariable`), in the order introduced."""
        self._check_fitted()
        return [LatentVariable(name, children, table) for name, children, table in self.latent_definitions_]

    def _all_codes(self, table):
        """Codes of every attribute, latent (and the class, if present) by name."""
        names = list(self.encoder_.columns_)
        codes = {name: table[:, j] for j, name in enumerate(names)}
        if table.shape[1] > len(names):
            codes[self.class_name_] = table[:, len(names)]
        for latent in self.latents_:
            first, second = latent.children
            codes[latent.name] = latent.codes(codes[first], codes[second])
        return codes

    def _conditional_tables(self):
        """For :meth:`cpd`: the class prior and the table of each child of the class (attribute or latent).

        A latent's states are its codes ``0 .. k-1`` (``latent_states_`` says
        which child configurations each stands for); an attribute under a
        latent has no table (the latent is a function of its children).
        """
        states = column_states(self)
        families = {self.class_name_: ((), self.class_log_prior_)}
        for child, table in zip(self.children_, self.child_log_tables_):
            states.setdefault(child, list(range(table.shape[1])))
            families[child] = ((self.class_name_,), table)
        notes = {
            child: f"a child of the latent variable {name!r}, which is a function of its children: no table of its own"
            for name, children, _ in self.latent_definitions_
            for child in children
        }
        return families, states, notes

    def _build_distribution(self):
        """The network of :meth:`to_bayesian_network`: the class, the attributes and the latent variables."""
        return network_distribution(self, self.to_bayesian_network())

    def _explanation_terms(self, codes):
        """One term per child of the class: an attribute, or a latent variable for the attributes under it."""
        from .explanations import ExplanationTerms

        values = self._all_codes(np.asarray(codes, dtype=np.int64))
        terms = np.zeros((codes.shape[0], len(self.classes_), len(self.children_)))
        for k, (child, table) in enumerate(zip(self.children_, self.child_log_tables_)):
            x = values[child]
            known = x >= 0
            terms[known, :, k] = table[:, x[known]].T
        return ExplanationTerms(list(self.children_), self.class_log_prior_, terms)

    def _joint_log_likelihood(self, codes):
        values = self._all_codes(np.asarray(codes, dtype=np.int64))
        out = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        for child, table in zip(self.children_, self.child_log_tables_):
            x = values[child]
            known = x >= 0
            out[known] += table[:, x[known]].T
        return out

    def to_bayesian_network(self) -> DiscreteBayesianNetwork:
        """The fitted model as one :class:`~graphmodels.networks.DiscreteBayesianNetwork`, latents included.

        Its variables are the class (named ``class_name_``, states
        ``classes_``), the attributes (named as the columns, states
        ``encoder_.levels_`` written as strings) and the latent variables
        (states ``"0"``, ``"1"``, ... as in ``latent_states_``). The class's
        children keep their CPTs ``P(child | y)``; each latent ``L`` over
        ``(A, B)`` gets ``P(A | L)`` and ``P(B | L, A)``, uniform over the
        child configurations each latent state stands for (the model does
        not estimate them, and they leave the class posterior unchanged), so
        the network has one arc ``A -> B`` per latent besides the arcs of
        ``structure_``. The network's posterior of the class given the
        attributes, the latents summed out, is :meth:`predict_proba`'s; see
        :func:`graphmodels.models.export.latent_tree_network` for child
        configurations never seen in training, and for the one case where
        the two differ (an attribute under a latent with a state never seen
        in training).

        Returns
        -------
        DiscreteBayesianNetwork
            Variables: the class, the attributes in column order, then the
            latents in the order introduced.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            If two variables' names print alike (``0`` and ``"0"``).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
        >>> y = np.where(X["a"] == X["b"], "same", "different")
        >>> model = HierarchicalNaiveBayes(random_state=0).fit(X, y)
        >>> bn = model.to_bayesian_network()
        >>> bn.parents["L1"], bn.parents["a"], bn.parents["b"]
        (('class',), ('L1',), ('L1', 'a'))
        >>> model.latent_states_["configurations"].tolist()
        ['a=0, b=0; a=1, b=1', 'a=0, b=1; a=1, b=0']
        >>> bn.cpts["b"][:, 0].tolist()  # P(b | L1, a=0): state 0 of L1 is "a == b"
        [[1.0, 0.0], [0.0, 1.0]]
        """
        self._check_fitted()
        return latent_tree_network(
            self, self.class_log_prior_, self.children_, self.child_log_tables_, self.latent_definitions_
        )
