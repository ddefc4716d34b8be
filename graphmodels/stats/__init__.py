"""The counting engine and the information measures computed from it."""

from .counting import (
    DEFAULT_MAX_CELLS,
    CountingEngine,
    InMemoryRowsRequired,
    OneWayCounts,
    PairwiseCounts,
    TableTooLargeError,
)
from .dask_counting import DaskCountingEngine
from .hyperedges import HyperedgeWeights, SubsetEntropies, hyperedge_weights, subset_entropies
from .independence import CI_TESTS, IndependenceTest, independence_test, independence_test_counts
from .information import (
    as_engine,
    conditional_mutual_information,
    entropy,
    entropy_of_counts,
    mutual_information,
    pairwise_mutual_information,
)
from .interactions import (
    adjust_p_values,
    information_graph,
    interaction_distances,
    interaction_graph,
    interaction_information,
    pairwise_interaction_information,
    triple_interaction_information,
)
from .scores import (
    FAMILY_SCORES,
    aic_family_score,
    bdeu_family_score,
    bic_family_score,
    family_score,
    k2_family_score,
    log_likelihood_family_score,
    pairwise_bdeu_gain,
)

__all__ = [
    "FAMILY_SCORES",
    "family_score",
    "bic_family_score",
    "bdeu_family_score",
    "aic_family_score",
    "k2_family_score",
    "log_likelihood_family_score",
    "pairwise_bdeu_gain",
    "CI_TESTS",
    "IndependenceTest",
    "independence_test",
    "independence_test_counts",
    "HyperedgeWeights",
    "SubsetEntropies",
    "hyperedge_weights",
    "subset_entropies",
    "CountingEngine",
    "PairwiseCounts",
    "OneWayCounts",
    "TableTooLargeError",
    "InMemoryRowsRequired",
    "DaskCountingEngine",
    "DEFAULT_MAX_CELLS",
    "as_engine",
    "entropy",
    "entropy_of_counts",
    "mutual_information",
    "conditional_mutual_information",
    "pairwise_mutual_information",
    "interaction_information",
    "pairwise_interaction_information",
    "triple_interaction_information",
    "interaction_graph",
    "interaction_distances",
    "information_graph",
    "adjust_p_values",
]
