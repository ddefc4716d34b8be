"""Structure types and their checks, as networkx graphs."""

from .forests import (
    augmented_naive_bayes,
    class_node,
    feature_parents,
    is_augmented_naive_bayes,
    orient_forest,
)
from .hyperforests import (
    Hyperforest,
    gyo_reduction,
    hyperforest_width,
    is_acyclic,
    is_hyperforest,
    random_hypertree,
    subsets,
)
from .regions import (
    cluster_variation_regions,
    counting_numbers_are_valid,
    degrees_of_freedom,
    initial_regions,
    intersection_closure,
    region_graph,
)

__all__ = [
    "Hyperforest",
    "gyo_reduction",
    "hyperforest_width",
    "is_acyclic",
    "is_hyperforest",
    "random_hypertree",
    "subsets",
    "cluster_variation_regions",
    "counting_numbers_are_valid",
    "degrees_of_freedom",
    "initial_regions",
    "intersection_closure",
    "region_graph",
    "augmented_naive_bayes",
    "class_node",
    "feature_parents",
    "is_augmented_naive_bayes",
    "orient_forest",
]
