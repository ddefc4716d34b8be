"""Questions asked of a network: the independences its structure implies, and posteriors.

:class:`StructureQuestions` answers from the graph alone (d-separation in a DAG, separation in a
Markov network) and :class:`NetworkQueries` adds ``query`` and ``map_query``; both ask the
inference layer. :class:`~graphmodels.networks.DiscreteBayesianNetwork` and
:class:`~graphmodels.networks.DiscreteMarkovNetwork` mix in :class:`NetworkQueries`; the fitted
models mix in :class:`StructureQuestions` through :class:`graphmodels.models.queries.Queryable`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..inference import Distribution, Mixture, MostProbableState

__all__ = ["NetworkQueries", "StructureQuestions"]


class StructureQuestions:
    """Independence questions the structure answers alone: asked of ``self.distribution().graph``.

    The graph is the Bayesian network's DAG when the model's tables are conditional
    distributions (d-separation), and its Markov network otherwise (separation): the
    discriminative models, the hyperforest models, Kikuchi-Bayes and the mixtures.
    """

    def independent(self, x: Any, y: Any, given: Any = None) -> bool:
        """Whether the structure makes `x` and `y` independent given `given` (d-separation or separation).

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> nb = gm.NaiveBayes().fit(X, y)
        >>> nb.independent("safety", "buying"), nb.independent("safety", "buying", given="class")
        (False, True)
        """
        from ..inference.separation import independent

        return independent(self.distribution().graph, x, y, given)  # type: ignore[attr-defined]

    def d_separated(self, x: Any, y: Any, given: Any = None) -> bool:
        """Whether `given` d-separates `x` from `y` in the model's DAG (a ``TypeError`` for a Markov network)."""
        from ..inference.separation import d_separated

        return d_separated(self.distribution().graph, x, y, given)  # type: ignore[attr-defined]

    def markov_blanket(self, node: Hashable) -> set[Hashable]:
        """The variables that make `node` independent of all the others."""
        from ..inference.separation import markov_blanket

        return markov_blanket(self.distribution().graph, node)  # type: ignore[attr-defined]

    def active_trails(
        self, x: Hashable, y: Hashable, given: Any = None, *, max_trails: int = 100
    ) -> list[list[Hashable]]:
        """The active trails from `x` to `y` given `given` in the model's DAG, shortest first."""
        from ..inference.separation import active_trails

        graph = self.distribution().graph  # type: ignore[attr-defined]
        if not graph.is_directed():
            raise TypeError(
                f"{type(self).__name__} is a Markov network here: trails are active in a DAG; use `independent`."
            )
        return active_trails(graph, x, y, given, max_trails=max_trails)


class NetworkQueries(StructureQuestions):
    """``query``, ``map_query``, ``sample`` and :meth:`distribution`, asked of ``_build_distribution()``.

    A given network uses it as it is (no fit, no encoder, evidence in its own names and
    states); the fitted models' :class:`graphmodels.models.queries.Queryable` extends it with
    their fit check and evidence in the model's terms (cut columns, left-out attributes).
    """

    def _build_distribution(self) -> Distribution | Mixture:  # pragma: no cover - each subclass defines it
        raise NotImplementedError

    def _model_evidence(self, evidence: Any) -> Any:
        return evidence  # a given network's names and states are its own

    def distribution(self) -> Distribution | Mixture:
        """The distribution :meth:`query`, :meth:`map_query` and :meth:`sample` ask (built once)."""
        cached = self.__dict__.get("_distribution_cache")
        if cached is None:
            cached = self.__dict__["_distribution_cache"] = self._build_distribution()
        return cached

    def query(
        self,
        variables: Any,
        evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None,
        *,
        joint: bool = False,
        method: str = "auto",
        **options: Any,
    ) -> Any:
        """The posterior of `variables` given `evidence` (see :meth:`graphmodels.inference.Distribution.query`)."""
        return self.distribution().query(
            variables, self._model_evidence(evidence), joint=joint, method=method, **options
        )

    def map_query(
        self, variables: Any = None, evidence: Mapping[Hashable, Any] | pd.DataFrame | None = None
    ) -> MostProbableState:
        """The most probable joint state of `variables` (all unobserved ones when None) given `evidence`.

        Returns
        -------
        MostProbableState
            ``states`` and ``probability`` (``P(states | evidence)``); it unpacks as a pair.
        """
        return self.distribution().map_query(variables, self._model_evidence(evidence))

    def sample(
        self,
        n_samples: int = 1,
        random_state: int | np.random.Generator | None = None,
        *,
        evidence: Mapping[Hashable, Any] | None = None,
    ) -> pd.DataFrame:
        """Exact samples of every variable from the distribution, given `evidence`."""
        return self.distribution().sample(n_samples, self._model_evidence(evidence), random_state=random_state)
