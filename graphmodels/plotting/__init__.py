"""Drawing of structures with matplotlib, and export to GraphML and Graphviz DOT.

Layers inside the package: ``_common`` (colours, labels, layouts, geometry; draws
nothing) <- one module per drawing (``network``, ``hyperforests``, ``latent_trees``,
``multidimensional``, ``interactions``, ``interaction_graph``, ``region_graph``, ``kikuchi_path``,
``stability``, ``posteriors``) and
``export`` <- ``dispatch`` (:func:`draw_network`, which picks a drawing by type),
``separation`` (:func:`draw_d_separation`, on :func:`draw_graph`'s drawing),
``message_passing`` (a traced query's messages replayed), ``animation`` (:func:`animate`, a
learning trace or a query's messages replayed through the drawings) and ``explanations`` (a row's
terms as a waterfall and on the model's structure) <- ``svg``
(drawings as inline SVG text, for notebooks and HTML pages) <- ``notebook`` (:func:`show`: the
notebook display of any structure or model).

**What a drawing returns.** Every drawing function (:func:`draw_network` and each ``draw_*``) returns one
:class:`matplotlib.axes.Axes`, whatever it draws and whatever the data: the `ax` it was
given, else the axes of the new figure it made. A drawing of several panels (the members of
AODE and AnDE, the classes of a Chow-Liu or hyperforest classifier with one structure per
class, the labels of binary relevance and classifier chains, all drawn without `ax`) returns
its first panel; ``ax.figure.axes`` holds every panel in the order drawn, so
``ax = draw_network(model); ax.figure.savefig("model.png")`` works for every model, as
matplotlib's and scikit-learn's displays do. :func:`animate` returns a matplotlib
``FuncAnimation``, :func:`draw_svg` and :func:`figure_svg` SVG text, :func:`show` a
:class:`NotebookDisplay`.
"""

from ._common import grid_layout, network_layout
from .animation import animate, animation_widget
from .dispatch import draw_network
from .explanations import draw_contribution_summary, draw_contributions, draw_waterfall
from .export import to_dot, to_graphml
from .hyperforests import draw_factor_graph, draw_hyperforest, draw_junction_tree
from .interaction_graph import draw_information, draw_interaction_dendrogram, draw_interaction_graph
from .interactions import draw_interactions
from .kikuchi_path import draw_kikuchi_path
from .latent_trees import draw_latent_tree, latent_tree_layout
from .multidimensional import draw_multidimensional, multidimensional_layout
from .network import draw_graph
from .notebook import NotebookDisplay, show
from .posteriors import draw_inference, draw_posterior
from .region_graph import draw_region_graph
from .separation import draw_d_separation
from .stability import draw_stability, draw_structure_difference
from .svg import draw_svg, figure_svg

__all__ = [
    "draw_network",
    "draw_graph",
    "network_layout",
    "grid_layout",
    "draw_hyperforest",
    "draw_junction_tree",
    "draw_factor_graph",
    "draw_interactions",
    "draw_interaction_graph",
    "draw_interaction_dendrogram",
    "draw_information",
    "draw_waterfall",
    "draw_contributions",
    "draw_contribution_summary",
    "draw_region_graph",
    "draw_kikuchi_path",
    "draw_latent_tree",
    "latent_tree_layout",
    "draw_multidimensional",
    "draw_stability",
    "draw_structure_difference",
    "draw_inference",
    "draw_posterior",
    "draw_d_separation",
    "multidimensional_layout",
    "animate",
    "animation_widget",
    "to_graphml",
    "to_dot",
    "draw_svg",
    "figure_svg",
    "show",
    "NotebookDisplay",
]
