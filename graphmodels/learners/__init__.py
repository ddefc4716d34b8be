"""Structure learners: from sufficient statistics to networkx graphs."""

from .constraint_search import CITests, mmhc, mmpc, pc_stable
from .hierarchical_nb import (
    LatentVariable,
    collapse_gain,
    collapse_states,
    hierarchical_naive_bayes_search,
    pair_significance,
)
from .hyperforests import HYPERFOREST_ALGORITHMS, max_hyperforest
from .kdb import kdb_ranking, kdb_structure, kdb_substructure
from .kikuchi import kikuchi_bayes_path, parsimonious_log_prior
from .multidimensional import (
    bridge_and_feature_forest,
    bridge_parent_sets,
    class_forest,
    multidimensional_structure,
    superparent_class_arcs,
)
from .score_search import (
    SEARCH_SCORES,
    FamilyScores,
    StructureScore,
    exact_search,
    hill_climbing,
    score_structure,
    tabu_search,
)
from .trees import (
    DEFAULT_TREE_ESS,
    SPANNING_TREE_ALGORITHMS,
    TREE_CRITERIA,
    chow_liu_tree,
    fan_structure,
    fan_threshold,
    tan_structure,
)

__all__ = [
    "CITests",
    "mmhc",
    "mmpc",
    "pc_stable",
    "SEARCH_SCORES",
    "FamilyScores",
    "StructureScore",
    "exact_search",
    "hill_climbing",
    "score_structure",
    "tabu_search",
    "bridge_and_feature_forest",
    "bridge_parent_sets",
    "class_forest",
    "multidimensional_structure",
    "superparent_class_arcs",
    "LatentVariable",
    "collapse_gain",
    "collapse_states",
    "hierarchical_naive_bayes_search",
    "pair_significance",
    "kikuchi_bayes_path",
    "parsimonious_log_prior",
    "max_hyperforest",
    "HYPERFOREST_ALGORITHMS",
    "chow_liu_tree",
    "tan_structure",
    "fan_structure",
    "fan_threshold",
    "kdb_structure",
    "kdb_ranking",
    "kdb_substructure",
    "SPANNING_TREE_ALGORITHMS",
    "TREE_CRITERIA",
    "DEFAULT_TREE_ESS",
]
