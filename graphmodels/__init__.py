"""graphmodels: learn discrete probabilistic graphical models from data and draw them.

Layers, each importing only from the ones before it::

    data -> stats -> structures -> learners / estimators -> inference -> networks -> models
        -> evaluation / plotting / io -> reporting -> cli

The most used names are re-exported here.
"""

from . import (
    _display,
    data,
    datasets,
    estimators,
    evaluation,
    inference,
    io,
    learners,
    models,
    networks,
    stats,
    structures,
)
from .models import (
    AODE,
    FAN,
    KDB,
    TAN,
    AnDE,
    BayesianNetwork,
    BinaryRelevance,
    BNClassifier,
    ChowLiu,
    ChowLiuTree,
    ClassifierChain,
    HierarchicalNaiveBayes,
    HyperforestClassifier,
    HyperforestDensity,
    KikuchiBayes,
    LabelPowerset,
    NaiveBayes,
    SelectiveKDB,
    load_model,
    shapley_values,
)
from .reporting import report
from .stats import interaction_graph, interaction_information

__version__ = "0.1.0"

__all__ = [
    "data",
    "datasets",
    "evaluation",
    "plotting",
    "estimators",
    "learners",
    "inference",
    "networks",
    "models",  # gm.io too, but not in __all__: `from graphmodels import *` must not hide the standard io
    "stats",
    "structures",
    "BNClassifier",
    "NaiveBayes",
    "TAN",
    "FAN",
    "ChowLiu",
    "AODE",
    "AnDE",
    "KDB",
    "SelectiveKDB",
    "ChowLiuTree",
    "BayesianNetwork",
    "HyperforestClassifier",
    "KikuchiBayes",
    "HierarchicalNaiveBayes",
    "HyperforestDensity",
    "BinaryRelevance",
    "LabelPowerset",
    "ClassifierChain",
    "load_model",
    "shapley_values",
    "interaction_information",
    "interaction_graph",
    "reporting",
    "report",
    "__version__",
]


def _draw_svg(graph_or_model, **options):
    # The drawing of every notebook display (models and hyperforests show themselves through
    # graphmodels._display, which cannot import the plotting layer above them): matplotlib is
    # imported on the first display, not by `import graphmodels`.
    from .plotting.svg import draw_svg

    return draw_svg(graph_or_model, **options)


_display.set_svg_drawer(_draw_svg)


def __getattr__(name):
    if name == "load":
        # Deprecated: `gm.load` read like `gm.datasets.load` (data); models load with `gm.load_model`.
        from .models.persistence import load

        return load
    # matplotlib is imported only when drawing is asked for.
    if name == "plotting":
        import importlib

        return importlib.import_module(".plotting", __name__)
    raise AttributeError(f"module 'graphmodels' has no attribute {name!r}")
