"""Structure types and their checks, as networkx graphs."""

from .forests import (
    augmented_naive_bayes,
    class_node,
    feature_parents,
    is_augmented_naive_bayes,
    orient_forest,
)

__all__ = [
    "augmented_naive_bayes",
    "class_node",
    "feature_parents",
    "is_augmented_naive_bayes",
    "orient_forest",
]
