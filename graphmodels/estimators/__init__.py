"""Parameter estimators: from count tables to probability tables."""

from .discriminative import (
    Discriminative,
    DiscriminativeFit,
    conditional_log_likelihood,
    family_indicators,
    fit_discriminative_tables,
)
from .hierarchical import HierarchicalDirichlet, dirichlet_multinomial_log_likelihood
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
    maximise_on_log_grid,
    maximise_on_log_grids,
)
from .selection import (
    DEFAULT_SELECTION_CANDIDATES,
    FamilyCells,
    LeaveOneOutSelection,
    RememberedPseudoCounts,
    class_prior_cells,
    family_cells,
    leave_one_out_correction,
    leave_one_out_scores,
)

__all__ = [
    "Estimator",
    "MaximumLikelihood",
    "Dirichlet",
    "BDeu",
    "MarginalSmoothing",
    "EmpiricalBayesBDeu",
    "HierarchicalDirichlet",
    "LeaveOneOutSelection",
    "Discriminative",
    "DiscriminativeFit",
    "family_indicators",
    "conditional_log_likelihood",
    "fit_discriminative_tables",
    "RememberedPseudoCounts",
    "DEFAULT_SELECTION_CANDIDATES",
    "FamilyCells",
    "class_prior_cells",
    "family_cells",
    "leave_one_out_correction",
    "leave_one_out_scores",
    "bdeu_log_marginal_likelihood",
    "dirichlet_multinomial_log_likelihood",
    "maximise_on_log_grid",
    "maximise_on_log_grids",
    "get_estimator",
    "ESTIMATORS",
    "LIANG_SREBRO_PSEUDO_COUNT",
]
