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
from .multidimensional import (
    ARC_KINDS,
    arc_kind,
    bridge_subgraph,
    class_subgraph,
    class_variables,
    feature_subgraph,
    feature_variables,
    is_multidimensional_classifier,
    multidimensional_classifier,
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
    "ARC_KINDS",
    "arc_kind",
    "bridge_subgraph",
    "class_subgraph",
    "class_variables",
    "feature_subgraph",
    "feature_variables",
    "is_multidimensional_classifier",
    "multidimensional_classifier",
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
