"""Questions asked of a fitted model: ``query``, ``map_query``, ``sample``, through its distribution.

Every model that defines a distribution over its variables mixes in :class:`Queryable` and
says, in ``_build_distribution``, what that distribution is -- as an
:class:`~graphmodels.inference.Distribution` (a product of factors) or an
:class:`~graphmodels.inference.Mixture` -- once; the inference layer answers every question.

=========================================  ==========================================================
model                                      its distribution
=========================================  ==========================================================
NaiveBayes, TAN, FAN, KDB, SelectiveKDB,   one Bayesian network: ``P(y) prod_i P(x_i | y, parents)``
ChowLiuTree, the multi-dimensional         (with ``estimator="discriminative"`` the tables are
classifiers (shared structure)             log-potentials: the Markov network ``P(y, x) ∝ exp(score)``)
ChowLiu (one forest per class)             a mixture over the class of one forest per class
AODE, AnDE, MultiDimensionalAODE           the average of the members' joints (a mixture whose
                                           component, the member, is hidden)
HierarchicalNaiveBayes                     its Bayesian network with the latent variables
HyperforestClassifier, HyperforestDensity  the Markov network of clique potentials (exact, Z = 1)
KikuchiBayes                               the product of region tables raised to their counting
                                           numbers, normalized by exact elimination
DiscreteBayesianNetwork, DiscreteMarkov-   themselves
Network
=========================================  ==========================================================

Variables are named as the model's columns and its class (``class_name_``); states are its own
labels (``encoder_.levels_``, interval labels for a cut column, ``classes_``). A number given as
evidence for a cut column is cut as the model cuts it at prediction. Evidence on a column the
model does not read (an attribute SelectiveKDB left out) is ignored, as ``predict_proba``
ignores it.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..estimators.discriminative import Discriminative
from ..inference import Distribution, Factor, Mixture
from ..networks.questions import (
    NetworkQueries as _NetworkQueries,  # not NetworkQueries: that name is a deprecated alias here
)

__all__ = [
    "Queryable",
    "families_distribution",
    "markov_distribution",
    "network_distribution",
]


def _labels(levels: Any) -> list[Any]:
    return [v.item() if isinstance(v, np.generic) else v for v in levels]


def families_distribution(
    families: Mapping[Hashable, Any],
    states: Mapping[Hashable, Any],
    *,
    variables: list[Hashable] | None = None,
    generative: bool = True,
    name: str | None = None,
    max_cells: int = 10_000_000,
) -> Distribution:
    """A distribution from directed families: ``{node: (parents, log table)}`` (or a function giving it).

    ``log table`` has shape ``(*parent cardinalities, r_node)``. With `generative` the tables
    are conditional distributions and the result knows its children (a Bayesian network: forward
    sampling and likelihood weighting work); otherwise they are log-potentials.
    """
    factors = []
    children = []
    for node, entry in families.items():
        parents, table = entry() if callable(entry) else entry
        scope = (*parents, node)
        factors.append(Factor(scope, np.asarray(table, dtype=np.float64), [_labels(states[v]) for v in scope]))
        children.append(node)
    return Distribution(
        factors, variables=variables, children=children if generative else None, name=name, max_cells=max_cells
    )


class Queryable(_NetworkQueries):
    """``query``, ``map_query`` and ``sample`` on a fitted model, asked of its distribution.

    A subclass implements ``_build_distribution()``; the result is built on first use, kept
    until the model is fitted again, and available as :meth:`distribution`.
    """

    if False:  # pragma: no cover - for type checkers; the model classes define these

        def _check_fitted(self) -> None: ...

    def _build_distribution(self) -> Distribution | Mixture:
        families, states, _ = self._conditional_tables()  # type: ignore[attr-defined]
        estimator = getattr(self, "estimator_", None)
        return families_distribution(
            families,
            states,
            variables=self._query_variables(list(families)),
            generative=not isinstance(estimator, Discriminative),
            name=type(self).__name__,
            max_cells=getattr(self, "max_cells", 10_000_000),
        )

    def _query_variables(self, present: list[Hashable]) -> list[Hashable]:
        """The variables in reading order: the class (or labels), then the columns, then the rest."""
        order: list[Hashable] = []
        labels = getattr(self, "label_names_", None)
        if labels is not None:
            order.extend(labels)
        elif getattr(self, "class_name_", None) is not None:
            order.append(self.class_name_)  # type: ignore[attr-defined]
        order.extend(self.encoder_.columns_)  # type: ignore[attr-defined]
        ranked = [v for v in order if v in present]
        return ranked + [v for v in present if v not in ranked]

    def distribution(self) -> Distribution | Mixture:
        """The model's distribution, which :meth:`query`, :meth:`map_query` and :meth:`sample` ask.

        Returns
        -------
        Distribution or Mixture
            Built on first use and kept until the next ``fit`` (see
            :mod:`graphmodels.models.queries` for what each model's is).
        """
        self._check_fitted()
        return super().distribution()

    # -- evidence in the model's terms ---------------------------------------------------------

    def _cut(self, name: Hashable, value: Any) -> Any:
        """A number given for a cut column, as the interval label the model's discretizer gives it."""
        discretizer = getattr(self, "discretizer_", None)
        cuts = getattr(discretizer, "cut_points_", {}).get(name) if discretizer is not None else None
        if cuts is None or isinstance(value, (bool, np.bool_, str)) or not isinstance(value, numbers.Real):
            return value
        if np.isnan(float(value)):
            return value
        from ..data.discretize import _bin_labels

        return _bin_labels(cuts)[int(np.searchsorted(cuts, float(value), side="left"))]

    def _model_evidence(self, evidence: Any) -> Any:
        if evidence is None:
            return None
        variables = self.distribution().variables
        known = set()
        for v in variables:
            try:
                known.add(v)
            except TypeError:
                pass
        read = set(getattr(getattr(self, "encoder_", None), "columns_", []))
        if isinstance(evidence, pd.DataFrame):
            kept = [c for c in evidence.columns if c in known or c not in read]
            frame = evidence[kept].copy()
            for c in kept:
                if c in known and getattr(getattr(self, "discretizer_", None), "cut_points_", {}).get(c) is not None:
                    frame[c] = [self._cut(c, value) for value in frame[c].to_numpy(dtype=object)]
            return frame
        if not isinstance(evidence, Mapping):
            raise TypeError(
                f"`evidence` must be a dict of variable -> state (or likelihoods) or a DataFrame, got {type(evidence).__name__}."
            )
        return {k: self._cut(k, v) for k, v in evidence.items() if k in known or k not in read}

    # -- the questions -----------------------------------------------------------------------------

    def query(
        self,
        variables: Any,
        evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None,
        *,
        joint: bool = False,
        method: str = "auto",
        **options: Any,
    ) -> Any:
        """The posterior of `variables` given `evidence`, from the fitted distribution.

        Parameters
        ----------
        variables : hashable or sequence of hashable
            Columns, the class (``class_name_``), label names or latent variables.
        evidence : mapping or DataFrame, optional
            ``{name: state}``; soft evidence ``{name: {state: likelihood}}``; or a DataFrame
            with one evidence set per row (missing cells unobserved). A number for a cut
            column is cut as at prediction.
        joint : bool, default=False
            The joint of `variables` instead of each one's marginal.
        method : {"auto", "junction-tree", "variable-elimination", "loopy", "gbp", "likelihood-weighting"}
            ``"auto"`` is exact.
        **options
            Passed to an approximate method (``damping``, ``max_iter``, ``tol``,
            ``n_samples``, ``random_state``); ``trace=True`` returns the answer with every
            message passed to reach it (a :class:`~graphmodels.inference.QueryTrace`, which
            :func:`graphmodels.plotting.animate` plays; not for a mixture: ChowLiu with one
            forest per class, AODE, AnDE).

        Returns
        -------
        pandas.Series, dict or DataFrame
            See :meth:`graphmodels.inference.Distribution.query`: one evidence set is answered
            with pandas objects that display in a notebook as tables with bars.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> tan = gm.TAN().fit(X, y)
        >>> tan.query("class", evidence={"safety": "low"}).round(3).to_dict()
        {'acc': 0.001, 'good': 0.001, 'unacc': 0.998, 'vgood': 0.001}
        """
        return self.distribution().query(
            variables, self._model_evidence(evidence), joint=joint, method=method, **options
        )

    def sample(
        self,
        n_samples: int = 1,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.DataFrame:
        """Samples of every variable from the fitted distribution, given `evidence` (exact).

        Returns
        -------
        DataFrame
            One row per sample, one column per variable, states by the model's labels.
        """
        if evidence is None and hasattr(self, "_sample_codes"):  # a density's own (forward) sampler
            from .base import BaseDensity

            return BaseDensity.sample(self, n_samples, random_state)  # type: ignore[arg-type]
        return self.distribution().sample(n_samples, self._model_evidence(evidence), random_state=random_state)


def _renaming(model: Any, network_variables: list[str]) -> dict[str, Hashable]:
    """The model's own name of each variable of an exported network (exported names are ``str`` of them)."""
    names: list[Hashable] = []
    labels = getattr(model, "label_names_", None)
    if labels is not None:
        names.extend(labels)
    elif getattr(model, "class_name_", None) is not None:
        names.append(model.class_name_)
    names.extend(model.encoder_.columns_)
    by_text = {name if isinstance(name, str) else str(name): name for name in names}
    return {v: by_text.get(v, v) for v in network_variables}


def _model_states(model: Any) -> dict[Hashable, list[Any]]:
    from .tables import column_states

    return {name: _labels(levels) for name, levels in column_states(model).items()} | (
        {name: _labels(levels) for name, levels in zip(model.label_names_, model.classes_)}
        if getattr(model, "label_names_", None) is not None
        else {}
    )


def network_distribution(model: Any, network: Any, *, generative: bool = True) -> Distribution:
    """A model's exported :class:`DiscreteBayesianNetwork` as a distribution in the model's names and labels."""
    rename = _renaming(model, network.variables)
    states = _model_states(model)
    factors = []
    for v in network.variables:
        scope = (*network.parents[v], v)
        labels = [states.get(rename[u], network.states[u]) for u in scope]
        with np.errstate(divide="ignore"):
            factors.append(Factor([rename[u] for u in scope], np.log(network.cpts[v]), labels))
    return Distribution(
        factors,
        variables=[rename[v] for v in network.variables],
        children=[rename[v] for v in network.variables] if generative else None,
        name=type(model).__name__,
        max_cells=getattr(model, "max_cells", 10_000_000),
    )


def markov_distribution(model: Any, network: Any, *, region_graph: Any = None) -> Distribution:
    """A model's exported :class:`DiscreteMarkovNetwork` as a distribution in the model's names and labels."""
    rename = _renaming(model, network.variables)
    states = _model_states(model)
    factors = []
    for scope, table in network.factors:
        with np.errstate(divide="ignore"):
            factors.append(Factor([rename[u] for u in scope], np.log(table), [states[rename[u]] for u in scope]))
    variables = [rename[v] for v in network.variables]
    return Distribution(
        factors,
        variables=variables,
        states={v: states[v] for v in variables},
        name=type(model).__name__,
        max_cells=getattr(model, "max_cells", 10_000_000),
        region_graph=region_graph,
    )


def __getattr__(name: str) -> Any:
    if name == "NetworkQueries":  # moved with the networks
        from .. import networks
        from .._deprecation import moved

        return moved(__name__, name, networks)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
