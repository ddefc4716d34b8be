"""Fitted models: scikit-learn style classifiers and density estimators."""

from .ande import AnDE
from .aode import AODE
from .augmented import FAN, TAN, ChowLiu, NaiveBayes
from .base import BaseClassifier, BaseDensity, BaseModel, NotFittedError, TrainingCounts, clone_model, training_counts
from .bayesnet import DiscreteBayesianNetwork
from .bif import load_network, read_bif, write_bif
from .bn_classifier import BNClassifier
from .density import ChowLiuTree
from .hierarchical_nb import HierarchicalNaiveBayes
from .hyperforest import HyperforestClassifier, HyperforestDensity
from .kdb import KDB
from .kikuchi import KikuchiBayes
from .label_transformations import BinaryRelevance, ClassifierChain, LabelPowerset
from .markovnet import DiscreteMarkovNetwork
from .model_selection import MultiLabelModelSelection
from .multidimensional import MultiDimensionalAODE, MultiDimensionalNaiveBayes, MultiDimensionalTAN
from .multilabel import BaseMultiLabelClassifier
from .persistence import ModelFileError, load, load_model
from .registry import make_model, model_class, register_model, registered_models
from .selective_kdb import SelectiveKDB
from .uai import read_uai, write_uai
from .xmlbif import read_xmlbif, write_xmlbif

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
    "HyperforestDensity",
    "HyperforestClassifier",
    "KikuchiBayes",
    "HierarchicalNaiveBayes",
    "MultiDimensionalNaiveBayes",
    "MultiDimensionalTAN",
    "MultiDimensionalAODE",
    "DiscreteBayesianNetwork",
    "DiscreteMarkovNetwork",
    "read_bif",
    "write_bif",
    "read_xmlbif",
    "write_xmlbif",
    "read_uai",
    "write_uai",
    "load_network",
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
]
