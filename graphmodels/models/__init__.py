"""Fitted models: scikit-learn style classifiers and density estimators."""

from .aode import AODE
from .augmented import FAN, TAN, ChowLiu, NaiveBayes
from .base import BaseClassifier, BaseDensity, BaseModel, clone_model
from .bayesnet import DiscreteBayesianNetwork
from .bif import load_network, read_bif, write_bif
from .density import ChowLiuTree
from .hierarchical_nb import HierarchicalNaiveBayes
from .hyperforest import HyperforestClassifier, HyperforestDensity
from .kikuchi import KikuchiBayes
from .label_transformations import BinaryRelevance, ClassifierChain, LabelPowerset
from .multidimensional import MultiDimensionalAODE, MultiDimensionalNaiveBayes, MultiDimensionalTAN
from .multilabel import BaseMultiLabelClassifier
from .persistence import load, register_model

for _cls in (
    NaiveBayes,
    TAN,
    FAN,
    ChowLiu,
    AODE,
    ChowLiuTree,
    HyperforestDensity,
    HyperforestClassifier,
    KikuchiBayes,
    HierarchicalNaiveBayes,
    MultiDimensionalNaiveBayes,
    MultiDimensionalTAN,
    MultiDimensionalAODE,
):
    register_model(_cls)
for _cls in (BinaryRelevance, LabelPowerset, ClassifierChain):
    register_model(_cls)

#: Classifiers by the short names the command line and `compare` use.
CLASSIFIERS = {
    "nb": NaiveBayes,
    "tan": TAN,
    "fan": FAN,
    "chow-liu": ChowLiu,
    "aode": AODE,
    "hyperforest": HyperforestClassifier,
    "kikuchi-bayes": KikuchiBayes,
    "hnb": HierarchicalNaiveBayes,
}

__all__ = [
    "NaiveBayes",
    "TAN",
    "FAN",
    "ChowLiu",
    "AODE",
    "ChowLiuTree",
    "HyperforestDensity",
    "HyperforestClassifier",
    "KikuchiBayes",
    "HierarchicalNaiveBayes",
    "MultiDimensionalNaiveBayes",
    "MultiDimensionalTAN",
    "MultiDimensionalAODE",
    "DiscreteBayesianNetwork",
    "read_bif",
    "write_bif",
    "load_network",
    "BaseModel",
    "BaseClassifier",
    "BaseDensity",
    "BaseMultiLabelClassifier",
    "BinaryRelevance",
    "LabelPowerset",
    "ClassifierChain",
    "CLASSIFIERS",
    "load",
    "register_model",
]
