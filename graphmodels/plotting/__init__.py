"""Drawing of structures with matplotlib, and export to GraphML and Graphviz DOT."""

from .export import to_dot, to_graphml
from .hyperforests import draw_hyperforest, draw_junction_tree
from .latent_trees import draw_latent_tree, latent_tree_layout
from .multidimensional import draw_multidimensional, multidimensional_layout
from .network import draw_network, network_layout
from .regions import draw_interactions, draw_kikuchi_path, draw_region_graph

__all__ = [
    "draw_network",
    "network_layout",
    "draw_hyperforest",
    "draw_junction_tree",
    "draw_interactions",
    "draw_region_graph",
    "draw_kikuchi_path",
    "draw_latent_tree",
    "latent_tree_layout",
    "draw_multidimensional",
    "multidimensional_layout",
    "to_graphml",
    "to_dot",
]
