"""Inference: ask a distribution questions -- exact by elimination and junction trees, approximate by
(generalized) belief propagation and sampling.

The layer sits between the estimators and the models: every model that defines a distribution
builds a :class:`Distribution` (a product of :class:`Factor` s over named variables) or a
:class:`Mixture` of them, and its ``query``, ``map_query`` and ``sample`` ask it.

=========================================  ==========================================================
``Factor``                                 a log-table over named variables with their states
``Distribution``, ``Mixture``              the question API (query, map_query, sample, probability)
``Posterior``, ``Posteriors``,             what a query answers: pandas objects that display as
``JointPosterior``, ``QueryTrace``         tables with bars; with ``trace=True``, the messages too
``JunctionTree``                           compiled once; lazy, incremental (batched) evidence; MPE;
                                           exact conditional sampling
``eliminate``, ``maximize``                variable elimination: joints, marginal MAP
``elimination_order``, ``induced_width``   min-fill / min-weight / min-degree orders
``loopy_belief_propagation``               sum-product on factor graphs, damped, with a report
``generalized_belief_propagation``         parent-to-child GBP on region graphs
``likelihood_weighting``                   approximate posteriors of Bayesian networks
``forest_log_likelihood``,                 the models' row likelihoods (forests, rooted clique trees),
``clique_tree_log_likelihood``,            unobserved cells summed out; marginals of per-row factor
``log_marginals``                          products
``d_separated``, ``active_trails``,        what the structure alone says (d-separation, separation,
``markov_blanket``, ``separated``          Markov blankets)
=========================================  ==========================================================
"""

from .belief_propagation import ApproximateResult, loopy_belief_propagation
from .distribution import METHODS, Distribution, Mixture, MostProbableState
from .elimination import eliminate, maximize
from .evidence import likelihoods
from .factors import Factor, factor_product
from .generalized_bp import generalized_belief_propagation, region_graph_of_scopes
from .junction_tree import JunctionTree, Message
from .likelihoods import (
    brute_force_log_marginals,
    clique_tree_log_likelihood,
    clique_tree_sample,
    forest_log_likelihood,
    junction_tree_of_scopes,
    log_marginals,
    topological_order,
)
from .orders import HEURISTICS, EliminationOrder, elimination_order, greedy_elimination, induced_width
from .results import JointPosterior, Posterior, Posteriors, QueryTrace
from .sampling import likelihood_weighting, weighted_samples
from .separation import (
    active_trail_nodes,
    active_trails,
    d_separated,
    independent,
    markov_blanket,
    minimal_d_separator,
    separated,
)

__all__ = [
    "ApproximateResult",
    "Distribution",
    "EliminationOrder",
    "Factor",
    "HEURISTICS",
    "JointPosterior",
    "JunctionTree",
    "METHODS",
    "Message",
    "Mixture",
    "MostProbableState",
    "Posterior",
    "Posteriors",
    "QueryTrace",
    "eliminate",
    "elimination_order",
    "factor_product",
    "generalized_belief_propagation",
    "greedy_elimination",
    "induced_width",
    "likelihood_weighting",
    "likelihoods",
    "loopy_belief_propagation",
    "maximize",
    "region_graph_of_scopes",
    "weighted_samples",
    "active_trail_nodes",
    "brute_force_log_marginals",
    "clique_tree_log_likelihood",
    "clique_tree_sample",
    "forest_log_likelihood",
    "junction_tree_of_scopes",
    "log_marginals",
    "topological_order",
    "active_trails",
    "d_separated",
    "independent",
    "markov_blanket",
    "minimal_d_separator",
    "separated",
]
