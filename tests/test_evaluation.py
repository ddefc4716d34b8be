"""Resampling protocols, metrics and the comparison table."""

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.evaluation import (
    RepeatedRandomSplit,
    RepeatedStratifiedKFold,
    compare,
    cross_validate,
    error_rate,
    log_loss,
)


@pytest.mark.parametrize("n_splits,n_repeats", [(5, 1), (3, 4)])
def test_stratified_folds_partition_the_rows_and_keep_class_shares(n_splits, n_repeats):
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], p=[0.6, 0.3, 0.1], size=203)
    splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=1)
    splits = list(splitter.split(None, y))
    assert len(splits) == splitter.get_n_splits() == n_splits * n_repeats
    for r in range(n_repeats):
        tests = [test for _, test in splits[r * n_splits : (r + 1) * n_splits]]
        # Every row is tested exactly once per repetition.
        np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(len(y)))
        for train, test in splits[r * n_splits : (r + 1) * n_splits]:
            assert not set(train) & set(test) and len(train) + len(test) == len(y)
            for label in "abc":
                expected = (y == label).sum() / n_splits
                assert abs((y[test] == label).sum() - expected) <= 1
    again = list(RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=1).split(None, y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


def test_random_split_sizes_and_seed():
    splits = list(RepeatedRandomSplit(test_size=0.1, n_repeats=10, random_state=3).split(np.arange(200)))
    assert len(splits) == 10
    assert all(len(test) == 20 and len(train) == 180 for train, test in splits)
    assert len({tuple(test) for _, test in splits}) == 10
    with pytest.raises(ValueError, match="test_size"):
        RepeatedRandomSplit(test_size=1.5)
    with pytest.raises(ValueError, match="n_splits"):
        RepeatedStratifiedKFold(n_splits=1)


def test_metrics_hand_computed():
    # -(log 0.5 + log 0.75) / 2
    assert log_loss(["a", "b"], np.log([[0.5, 0.5], [0.25, 0.75]]), ["a", "b"]) == pytest.approx(
        -(np.log(0.5) + np.log(0.75)) / 2
    )
    assert log_loss(["z"], np.log([[0.5, 0.5]]), ["a", "b"]) == np.inf
    assert error_rate([1, 2, 3, 4], [1, 2, 0, 0]) == 0.5
    with pytest.raises(ValueError, match="shape"):
        error_rate([1, 2], [1])


class RecordingDiscretizer:
    """Records the rows it is fitted on, to prove test folds never leak."""

    fitted_on = []

    def get_params(self, deep=True):
        return {}

    def fit(self, X, y=None):
        RecordingDiscretizer.fitted_on.append(set(X.index))
        return self

    def transform(self, X):
        return X


def test_discretizer_is_fitted_on_training_folds_only():
    frame = gm.datasets.load("lenses")
    X, y = frame.drop(columns="class"), frame["class"]
    RecordingDiscretizer.fitted_on = []
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    folds = cross_validate(gm.NaiveBayes(), X, y, cv=cv, discretizer=RecordingDiscretizer())
    assert len(RecordingDiscretizer.fitted_on) == 3
    for fitted, (_, test) in zip(RecordingDiscretizer.fitted_on, cv.split(X, y)):
        assert not fitted & set(X.index[test])
    assert set(folds.columns) >= {"log_loss", "error", "fit_time", "predict_time", "n_train", "n_test"}


def test_compare_returns_tidy_results_summary_and_ranks():
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    result = compare(["nb", "tan"], ["lenses", "titanic"], cv=cv, verbose=False)
    assert len(result.results) == 2 * 2 * 6
    assert set(result.summary["model"]) == {"nb", "tan"}
    table = result.table("log_loss")
    assert table.shape == (2, 2)
    # Ranks within each data set are 1 and 2, so their averages add up to 3.
    assert result.ranks["log_loss"].sum() == pytest.approx(3.0)
    means = result.results.groupby(["dataset", "model"])["log_loss"].mean()
    assert table.loc["titanic", "nb"] == pytest.approx(means.loc[("titanic", "nb")])


def test_compare_bad_names_are_clear():
    with pytest.raises(ValueError, match="Unknown model 'xgboost'"):
        compare(["xgboost"], ["lenses"], verbose=False)
    with pytest.raises(ValueError, match="lensez"):
        compare(["nb"], ["lensez"], verbose=False)
    with pytest.raises(ValueError, match="discretizer"):
        cross_validate(gm.NaiveBayes(), pd.DataFrame({"a": [1, 2] * 5}), [0, 1] * 5, discretizer="magic")


def test_compare_progress_can_be_silenced(capsys):
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0)
    compare(["nb"], ["lenses"], cv=cv, verbose=True)
    assert "lenses" in capsys.readouterr().err
    compare(["nb"], ["lenses"], cv=cv, verbose=False)
    assert capsys.readouterr().err == ""


def test_evaluate_density_reports_test_log_likelihood():
    frame = gm.datasets.load("car")
    splitter = RepeatedRandomSplit(test_size=0.1, n_repeats=3, random_state=0)
    folds = gm.evaluation.evaluate_density(gm.ChowLiuTree(), frame, cv=splitter)
    assert len(folds) == 3 and (folds["n_test"] == 173).all()
    # Each split's figure is the mean of score_samples on its test rows.
    train, test = next(splitter.split(frame))
    model = gm.ChowLiuTree().fit(frame.iloc[train])
    assert folds["test_log_likelihood"][0] == pytest.approx(model.score_samples(frame.iloc[test]).mean())
    # Car is a full factorial design over 6 attributes: about log(1728) nats of entropy plus the class.
    assert -9.0 < folds["test_log_likelihood"].mean() < -7.0
