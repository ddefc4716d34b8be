"""Parameter estimators: from count tables to probability tables."""

from .parameters import (
    ESTIMATORS,
    LIANG_SREBRO_PSEUDO_COUNT,
    BDeu,
    Dirichlet,
    Estimator,
    MaximumLikelihood,
    get_estimator,
)

__all__ = [
    "Estimator",
    "MaximumLikelihood",
    "Dirichlet",
    "BDeu",
    "get_estimator",
    "ESTIMATORS",
    "LIANG_SREBRO_PSEUDO_COUNT",
]
