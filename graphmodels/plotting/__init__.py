"""Drawing of structures with matplotlib, and export to GraphML and Graphviz DOT."""

from .export import to_dot, to_graphml
from .hyperforests import draw_hyperforest, draw_junction_tree
from .network import draw_network, network_layout

__all__ = ["draw_network", "network_layout", "draw_hyperforest", "draw_junction_tree", "to_graphml", "to_dot"]
