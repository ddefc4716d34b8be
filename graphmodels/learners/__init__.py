"""Structure learners: from sufficient statistics to networkx graphs."""

from .trees import SPANNING_TREE_ALGORITHMS, chow_liu_tree, fan_structure, fan_threshold, tan_structure

__all__ = ["chow_liu_tree", "tan_structure", "fan_structure", "fan_threshold", "SPANNING_TREE_ALGORITHMS"]
