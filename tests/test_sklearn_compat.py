"""scikit-learn's estimator checks, where they apply to discrete models.

Our classifiers treat every distinct value as a category, so checks that
expect continuous features to generalize to new numbers, or that assume
float-only input, do not apply; those are listed with the reason.
"""

import pytest

pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.data import EqualFrequencyDiscretizer  # noqa: E402

# Checks whose premise does not hold for discrete models.
EXPECTED_FAILURES = {
    "check_supervised_y_2d": "a column vector y is accepted as 1-D without a DataConversionWarning",
    "check_classifiers_regression_target": "any hashable value is a class label, floats included",
    "check_complex_data": "complex numbers are hashable labels and states like any other",
    "check_sample_weight_equivalence_on_dense_data": (
        "a state seen only in zero-weight rows is still a state: it changes the number of cells the prior spreads over"
    ),
}


def _expected(estimator):
    return EXPECTED_FAILURES


@parametrize_with_checks(
    [
        gm.NaiveBayes(),
        gm.TAN(),
        gm.FAN(),
        gm.ChowLiu(),
        gm.AODE(frequency_threshold=0),
        gm.HyperforestClassifier(treewidth=2, representation="joint"),
        gm.HyperforestClassifier(treewidth=2, representation="shared", n_starts=5),
        gm.HyperforestClassifier(treewidth=1, representation="free", criterion="ml"),
        gm.KikuchiBayes(),
        gm.KikuchiBayes(averaging=False, max_region_size=3),
        gm.HierarchicalNaiveBayes(),
    ],
    expected_failed_checks=_expected,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "model",
    [
        gm.NaiveBayes(),
        gm.TAN(),
        gm.AODE(),
        gm.HyperforestClassifier(treewidth=2),
        gm.KikuchiBayes(),
        gm.HierarchicalNaiveBayes(),
    ],
)
def test_works_in_pipelines_and_cross_validation(model):
    frame = gm.datasets.load("iris")
    X, y = frame.drop(columns="class"), frame["class"]
    pipeline = make_pipeline(EqualFrequencyDiscretizer(n_bins=4), clone(model))
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.mean() > 0.85
