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

__all__ = [
    "Hyperforest",
    "gyo_reduction",
    "hyperforest_width",
    "is_acyclic",
    "is_hyperforest",
    "random_hypertree",
    "subsets",
    "augmented_naive_bayes",
    "class_node",
    "feature_parents",
    "is_augmented_naive_bayes",
    "orient_forest",
]
