"""Parameter estimators: from count tables to probability tables."""

from .parameters import (
    ESTIMATORS,
    LIANG_SREBRO_PSEUDO_COUNT,
    BDeu,
    Dirichlet,
    EmpiricalBayesBDeu,
    Estimator,
    MarginalSmoothing,
    MaximumLikelihood,
    bdeu_log_marginal_likelihood,
    get_estimator,
)

__all__ = [
    "Estimator",
    "MaximumLikelihood",
    "Dirichlet",
    "BDeu",
    "MarginalSmoothing",
    "EmpiricalBayesBDeu",
    "bdeu_log_marginal_likelihood",
    "get_estimator",
    "ESTIMATORS",
    "LIANG_SREBRO_PSEUDO_COUNT",
]
