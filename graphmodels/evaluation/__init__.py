"""Cross-validation, metrics, comparison tables and the stability of learned structures."""

# Still importable from here; its home (and its place in the API reference) is graphmodels.models.
from ..models.model_selection import MultiLabelModelSelection
from .compare import (
    DISCRETIZERS,
    Comparison,
    ModelFailedWarning,
    clone,
    compare,
    cross_validate,
    evaluate_density,
    failure_reason,
    make_discretizer,
)
from .metrics import (
    error_rate,
    exact_match,
    hamming_accuracy,
    jaccard_accuracy,
    log_loss,
    mean_log_likelihood,
    per_label_log_loss,
)
from .multilabel import cross_validate_multilabel, summarize_multilabel
from .protocols import LIANG_SREBRO_METHODS, liang_srebro_protocol, method_name, parse_method
from .splits import RepeatedRandomSplit, RepeatedStratifiedKFold
from .stability import RESAMPLING_METHODS, edge_stability

__all__ = [
    "compare",
    "cross_validate",
    "evaluate_density",
    "Comparison",
    "ModelFailedWarning",
    "failure_reason",
    "clone",
    "make_discretizer",
    "DISCRETIZERS",
    "edge_stability",
    "RESAMPLING_METHODS",
    "log_loss",
    "error_rate",
    "mean_log_likelihood",
    "hamming_accuracy",
    "exact_match",
    "jaccard_accuracy",
    "per_label_log_loss",
    "cross_validate_multilabel",
    "summarize_multilabel",
    "RepeatedStratifiedKFold",
    "RepeatedRandomSplit",
    "LIANG_SREBRO_METHODS",
    "liang_srebro_protocol",
    "method_name",
    "parse_method",
]
