"""Data layer: encoding tables into integer codes, discretizers, bundled data sets."""

from . import datasets
from .datasets import list_datasets, load
from .discretize import (
    DISCRETIZERS,
    EqualFrequencyDiscretizer,
    IntegerColumnsCutWarning,
    MDLDiscretizer,
    is_interval_label,
    make_discretizer,
)
from .encoding import MISSING_LABEL, UNKNOWN, LabelEncoder, TableEncoder, as_frame
from .multilabel import read_multilabel, split_labels

__all__ = [
    "datasets",
    "list_datasets",
    "load",
    "EqualFrequencyDiscretizer",
    "MDLDiscretizer",
    "DISCRETIZERS",
    "IntegerColumnsCutWarning",
    "make_discretizer",
    "is_interval_label",
    "TableEncoder",
    "LabelEncoder",
    "as_frame",
    "UNKNOWN",
    "MISSING_LABEL",
    "split_labels",
    "read_multilabel",
]
