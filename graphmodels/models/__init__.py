"""Fitted models: scikit-learn style classifiers and density estimators."""

from typing import Any

from .._files import FileTooLargeError
from .ande import AnDE
from .aode import AODE
from .augmented import FAN, TAN, ChowLiu, NaiveBayes
from .base import BaseClassifier, BaseDensity, BaseModel, NotFittedError, TrainingCounts, clone_model, training_counts
from .bayesian_network import BayesianNetwork
from .bn_classifier import BNClassifier
from .density import ChowLiuTree
from .explanations import shapley_values
from .hierarchical_nb import HierarchicalNaiveBayes
from .hyperforest import HyperforestClassifier, HyperforestDensity
from .kdb import KDB
from .kikuchi import KikuchiBayes
from .label_transformations import BinaryRelevance, ClassifierChain, LabelPowerset
from .model_selection import MultiLabelModelSelection
from .multidimensional import MultiDimensionalAODE, MultiDimensionalNaiveBayes, MultiDimensionalTAN
from .multilabel import BaseMultiLabelClassifier
from .persistence import ModelFileError, load, load_model
from .registry import make_model, model_class, register_model, registered_models
from .selective_kdb import SelectiveKDB

#: Single-label classifiers by the short names the command line and `compare` use
#: (a view of the registry, in registration order).
CLASSIFIERS = registered_models("classifier")

__all__ = [
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
    "HyperforestDensity",
    "HyperforestClassifier",
    "KikuchiBayes",
    "HierarchicalNaiveBayes",
    "MultiDimensionalNaiveBayes",
    "MultiDimensionalTAN",
    "MultiDimensionalAODE",
    "FileTooLargeError",
    "BaseModel",
    "BaseClassifier",
    "BaseDensity",
    "BaseMultiLabelClassifier",
    "BinaryRelevance",
    "LabelPowerset",
    "ClassifierChain",
    "MultiLabelModelSelection",
    "CLASSIFIERS",
    "load",
    "load_model",
    "ModelFileError",
    "register_model",
    "registered_models",
    "model_class",
    "make_model",
    "NotFittedError",
    "TrainingCounts",
    "training_counts",
    "clone_model",
    "shapley_values",
]


#: Names that moved to another layer: old name -> the layer that has it now (the alias warns).
_MOVED = {
    "DiscreteBayesianNetwork": "networks",
    "DiscreteMarkovNetwork": "networks",
    "read_bif": "io",
    "write_bif": "io",
    "read_xmlbif": "io",
    "write_xmlbif": "io",
    "read_uai": "io",
    "write_uai": "io",
    "load_network": "io",
}


def __getattr__(name: str) -> Any:
    if name not in _MOVED:  # imports nothing: a probe such as inspect.unwrap's must not change a namespace
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .._deprecation import moved, no_attribute

    if _MOVED.get(name) == "networks":
        from .. import networks

        return moved(__name__, name, networks)
    if _MOVED.get(name) == "io":
        from .. import io

        return moved(__name__, name, io)
    raise no_attribute(__name__, name)
