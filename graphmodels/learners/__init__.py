"""Structure learners: from sufficient statistics to networkx graphs."""

from .hyperforests import HYPERFOREST_ALGORITHMS, max_hyperforest
from .trees import SPANNING_TREE_ALGORITHMS, chow_liu_tree, fan_structure, fan_threshold, tan_structure

__all__ = [
    "max_hyperforest",
    "HYPERFOREST_ALGORITHMS",
   "chow_liu_tree", "tan_structure", "fan_structure", "fan_threshold", "SPANNING_TREE_ALGORITHMS"]
