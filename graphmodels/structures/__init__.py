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
from .latent_trees import add_latent, class_children, is_latent_tree, latent_nodes, naive_bayes_tree
from .regions import (
    cluster_variation_regions,
    counting_numbers_are_valid,
    degrees_of_freedom,
    initial_regions,
    intersection_closure,
    region_graph,
)

__all__ = [
    "add_latent",
    "class_children",
    "is_latent_tree",
    "latent_nodes",
    "naive_bayes_tree",
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
