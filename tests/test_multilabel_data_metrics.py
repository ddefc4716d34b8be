"""Multi-label data loading, metrics and the cross-validation runner.

Metric values on the 3 x 3 examples are worked out by hand in the comments;
the runner is exercised with a tiny counting model written here, so these
tests do not depend on the multi-label models of the library.
"""

import math

import numpy as np
import pandas as pd
import pytest

from graphmodels.data import read_multilabel, split_labels
from graphmodels.evaluation import (
    cross_validate_multilabel,
    exact_match,
    hamming_accuracy,
    jaccard_accuracy,
    log_loss,
    per_label_log_loss,
    summarize_multilabel,
)
from graphmodels.models.multilabel import BaseMultiLabelClassifier

# ----------------------------------------------------------------------------------------------
# hand-computed 3 x 3 example
# ----------------------------------------------------------------------------------------------
# row 0: true {0, 2}, predicted {0, 1, 2}: 2 of 3 cells right, Jaccard 2/3
# row 1: true {1, 2}, predicted {1}:       2 of 3 cells right, Jaccard 1/2
# row 2: true {},     predicted {}:        3 of 3 cells right, Jaccard 1 (both empty)
Y3 = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0]])
P3 = np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0]])


def test_hand_computed_3x3():
    assert hamming_accuracy(Y3, P3) == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)  # 7/9
    assert exact_match(Y3, P3) == pytest.approx(1 / 3)
    assert jaccard_accuracy(Y3, P3) == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)  # 13/18


def test_hand_computed_3x3_weighted():
    w = [1, 2, 3]
    # Hamming (1 * 2/3 + 2 * 2/3 + 3 * 1) / 6 = 5/6; exact 3/6; Jaccard (2/3 + 1 + 3) / 6 = 7/9
    assert hamming_accuracy(Y3, P3, sample_weight=w) == pytest.approx(5 / 6)
    assert exact_match(Y3, P3, sample_weight=w) == pytest.approx(1 / 2)
    assert jaccard_accuracy(Y3, P3, sample_weight=w) == pytest.approx(7 / 9)


@pytest.mark.parametrize("metric", [hamming_accuracy, exact_match, jaccard_accuracy])
def test_weights_are_duplicated_rows_and_zero_drops_a_row(metric):
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, size=(12, 4))
    P = rng.integers(0, 2, size=(12, 4))
    w = rng.integers(0, 4, size=12)
    w[0] = 0
    repeated = np.repeat(np.arange(12), w)
    assert metric(Y, P, sample_weight=w) == pytest.approx(metric(Y[repeated], P[repeated]))
    assert metric(Y, P, sample_weight=np.ones(12)) == pytest.approx(metric(Y, P))


def test_non_binary_labels_of_any_type():
    Y = pd.DataFrame({"genre": ["a", "b", "c"], "mood": ["x", "y", "x"], "stars": [0, 1, 2]})
    P = np.array([["a", "y", 0], ["b", "y", 1], ["a", "x", 1]], dtype=object)
    # row 0: 2/3 right, row 1: 3/3, row 2: 1/3 (only "x")
    assert hamming_accuracy(Y, P) == pytest.approx(2 / 3)
    assert exact_match(Y, P) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="'genre'.*besides positive=1"):
        jaccard_accuracy(Y, P)


def test_metrics_invariant_to_permuting_rows_and_labels():
    rng = np.random.default_rng(1)
    Y = rng.integers(0, 2, size=(20, 5))
    P = rng.integers(0, 2, size=(20, 5))
    rows, cols = rng.permutation(20), rng.permutation(5)
    for metric in (hamming_accuracy, exact_match, jaccard_accuracy):
        assert metric(Y[rows][:, cols], P[rows][:, cols]) == pytest.approx(metric(Y, P))


@pytest.mark.parametrize(
    "truth, guess, positive",
    [
        (Y3 == 1, P3 == 1, 1),
        (Y3 == 1, P3 == 1, True),
        (Y3.astype(float), P3.astype(float), 1),
        (np.where(Y3 == 1, "yes", "no"), np.where(P3 == 1, "yes", "no"), "yes"),
        (pd.DataFrame(Y3, columns=["a b", "#", "é"]), P3, 1),
    ],
)
def test_jaccard_positive_value(truth, guess, positive):
    assert jaccard_accuracy(truth, guess, positive=positive) == pytest.approx(13 / 18)


def test_jaccard_one_sided_columns_and_all_empty():
    # A column that is always negative (or always positive) is still binary.
    assert jaccard_accuracy(np.zeros((3, 2), int), np.zeros((3, 2), int)) == 1.0
    assert jaccard_accuracy([[1, 1]], [[0, 1]]) == pytest.approx(1 / 2)


def test_jaccard_errors():
    with pytest.raises(ValueError, match=r"values \['no', 'yes'\] besides positive=1"):
        jaccard_accuracy(np.where(Y3 == 1, "yes", "no"), np.where(P3 == 1, "yes", "no"))
    with pytest.raises(ValueError, match="at most one negative"):
        jaccard_accuracy([[0, 1], [2, 1]], [[0, 1], [0, 1]])
    with pytest.raises(TypeError, match="`positive` must be a single label value"):
        jaccard_accuracy(Y3, P3, positive=[1])


@pytest.mark.parametrize("metric", [hamming_accuracy, exact_match, jaccard_accuracy])
def test_metric_input_errors(metric):
    with pytest.raises(ValueError, match=r"`predicted` must have the shape of `Y` \(3, 3\).*got \(3, 2\)"):
        metric(Y3, P3[:, :2])
    with pytest.raises(ValueError, match="`Y` must be 2-dimensional"):
        metric(Y3[:, 0], P3[:, 0])
    with pytest.raises(ValueError, match="`Y` must be 2-dimensional"):
        metric(pd.Series([0, 1, 0]), P3)
    with pytest.raises(ValueError, match="Label column 'b' of `Y` has 1 missing"):
        metric(pd.DataFrame({"a": [0, 1, 0], "b": [1, None, 0], "c": [0, 0, 0]}), P3)
    with pytest.raises(
        ValueError, match=r"`sample_weight` must have shape \(3,\), one weight per row of `X`, got \(2,\)"
    ):
        metric(Y3, P3, sample_weight=[1, 1])
    with pytest.raises(ValueError, match="`sample_weight` must be finite and non-negative"):
        metric(Y3, P3, sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="`sample_weight` sums to 0"):
        metric(Y3, P3, sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="0 rows"):
        metric(np.zeros((0, 3)), np.zeros((0, 3)))


# ----------------------------------------------------------------------------------------------
# per-label log-loss
# ----------------------------------------------------------------------------------------------
def _log_loss_case():
    Y = pd.DataFrame({"a": [1, 0, 0], "b": ["x", "y", "z"], "c": [0, 1, 1]})
    proba = [
        np.array([[0.2, 0.8], [0.5, 0.5], [0.9, 0.1]]),
        np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]]),  # "z" never seen: probability 0
        np.array([[1.0, 0.0], [0.25, 0.75], [0.0, 1.0]]),
    ]
    classes = [[0, 1], ["x", "y"], [0, 1]]
    return Y, proba, classes


def test_per_label_log_loss_hand_computed():
    Y, proba, classes = _log_loss_case()
    losses = per_label_log_loss(Y, proba, classes)
    assert losses.shape == (3,)
    assert losses[0] == pytest.approx(-(math.log(0.8) + math.log(0.5) + math.log(0.9)) / 3)
    assert losses[1] == math.inf  # a true value absent from the classes
    assert losses[2] == pytest.approx(-(math.log(1.0) + math.log(0.75) + math.log(1.0)) / 3)
    for j in range(3):  # the single-label log-loss of each label
        with np.errstate(divide="ignore"):
            assert losses[j] == pytest.approx(log_loss(Y.iloc[:, j], np.log(proba[j]), classes[j]))


def test_per_label_log_loss_weighted():
    Y, proba, classes = _log_loss_case()
    losses = per_label_log_loss(Y, proba, classes, sample_weight=[2, 1, 0])
    # label a: (2 * -log .8 + 1 * -log .5) / 3; label b: row 2 (the unseen "z") has weight 0
    assert losses[0] == pytest.approx(-(2 * math.log(0.8) + math.log(0.5)) / 3)
    assert losses[1] == pytest.approx(-(2 * math.log(0.6) + math.log(0.7)) / 3)
    assert losses[2] == pytest.approx(-math.log(0.75) / 3)
    same = per_label_log_loss(Y, proba, classes, sample_weight=[1, 1, 1])
    np.testing.assert_allclose(same, per_label_log_loss(Y, proba, classes))


def test_per_label_log_loss_probability_zero_of_the_truth_is_inf():
    losses = per_label_log_loss([[0], [1]], [np.array([[0.0, 1.0], [0.5, 0.5]])], [[0, 1]])
    assert losses.tolist() == [math.inf]


def test_per_label_log_loss_errors():
    Y, proba, classes = _log_loss_case()
    with pytest.raises(ValueError, match="`Y` has 3 label.*`proba_list` has 2 table"):
        per_label_log_loss(Y, proba[:2], classes[:2])
    with pytest.raises(ValueError, match="`classes_list` 2 class list"):
        per_label_log_loss(Y, proba, classes[:2])
    with pytest.raises(ValueError, match=r"`proba_list\[1\]` \(label 'b'\) must have shape \(3, 3\)"):
        per_label_log_loss(Y, proba, [[0, 1], ["x", "y", "z"], [0, 1]])
    with pytest.raises(ValueError, match=r"`proba_list\[0\]` .* outside \[0, 1\]"):
        per_label_log_loss(Y, [-proba[0], proba[1], proba[2]], classes)
    with pytest.raises(ValueError, match="one 2-D array"):
        per_label_log_loss(Y, proba[0], classes)
    with pytest.raises(ValueError, match="`sample_weight` must have shape"):
        per_label_log_loss(Y, proba, classes, sample_weight=[1, 1])


# ----------------------------------------------------------------------------------------------
# split_labels / read_multilabel
# ----------------------------------------------------------------------------------------------
def _odd_table():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "#id": np.arange(5),
            "label_# hits": rng.integers(0, 2, size=5),
            "tempo (bpm)": rng.normal(120, 10, size=5),
            "ünïcode attr": list("abcab"),
            "label_é": rng.integers(0, 2, size=5),
            "label_ space": ["yes", "no", "no", "yes", "NA"],
        },
        index=[10, 11, 12, 13, 14],
    )


def test_split_labels_by_prefix_keeps_order_values_and_index():
    table = _odd_table()
    X, Y = split_labels(table, prefix="label_")
    assert list(X.columns) == ["#id", "tempo (bpm)", "ünïcode attr"]
    assert list(Y.columns) == ["label_# hits", "label_é", "label_ space"]
    pd.testing.assert_frame_equal(Y, table[["label_# hits", "label_é", "label_ space"]])
    pd.testing.assert_frame_equal(X, table[["#id", "tempo (bpm)", "ünïcode attr"]])
    assert Y["label_é"].dtype == table["label_é"].dtype  # 0/1 ints stay ints


def test_split_labels_by_list():
    table = _odd_table()
    X, Y = split_labels(table, labels=["ünïcode attr", "#id"])
    assert list(Y.columns) == ["ünïcode attr", "#id"]  # in the order given
    assert list(X.columns) == ["label_# hits", "tempo (bpm)", "label_é", "label_ space"]
    X, Y = split_labels(table, labels="label_é")  # one name
    assert list(Y.columns) == ["label_é"] and X.shape == (5, 5)


def test_split_labels_integer_column_names():
    table = pd.DataFrame(np.arange(12).reshape(3, 4))
    X, Y = split_labels(table, labels=[3, 1])
    assert list(X.columns) == [0, 2] and list(Y.columns) == [3, 1]
    with pytest.raises(ValueError, match="No column name starts with prefix 'label_'"):
        split_labels(table, prefix="label_")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({}, ValueError, "exactly one of `labels`.*and `prefix`.*got neither"),
        ({"labels": ["label_é"], "prefix": "label_"}, ValueError, "got both"),
        ({"prefix": "lbl_"}, ValueError, r"No column name starts with prefix 'lbl_'; columns are \['#id'"),
        ({"labels": ["label_é", "nope", "ghost"]}, ValueError, r"Unknown label column\(s\) \['nope', 'ghost'\]"),
        ({"labels": []}, ValueError, "`labels` is empty"),
        ({"labels": ["label_é", "label_é"]}, ValueError, "more than once"),
        ({"prefix": ""}, ValueError, "No attribute column is left"),
        ({"prefix": 3}, TypeError, "`prefix` must be a string"),
    ],
)
def test_split_labels_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        split_labels(_odd_table(), **kwargs)


def test_split_labels_table_errors():
    with pytest.raises(TypeError, match="`table` must be a pandas DataFrame"):
        split_labels(np.zeros((2, 2)), labels=[0])
    table = pd.DataFrame([[1, 2, 3]], columns=["a", "label_x", "a"])
    with pytest.raises(ValueError, match=r"duplicate column names: \['a'\]"):
        split_labels(table, prefix="label_")


def test_read_multilabel_gzip_csv(tmp_path):
    table = _odd_table().reset_index(drop=True)
    path = tmp_path / "odd set.csv.gz"
    table.to_csv(path, index=False, compression="gzip")
    X, Y = read_multilabel(path)
    assert list(Y.columns) == ["label_# hits", "label_é", "label_ space"]
    assert list(X.columns) == ["#id", "tempo (bpm)", "ünïcode attr"]
    assert Y["label_# hits"].dtype == np.int64
    assert Y["label_ space"].tolist() == ["yes", "no", "no", "yes", "NA"]  # "NA" is text, not missing
    np.testing.assert_allclose(X["tempo (bpm)"], table["tempo (bpm)"])
    X2, Y2 = read_multilabel(str(path), labels=["label_é"])
    assert list(Y2.columns) == ["label_é"] and X2.shape == (5, 5)
    X3, Y3_ = read_multilabel(table, prefix="label_")  # a frame is split as it is
    pd.testing.assert_frame_equal(Y3_, Y)


def test_read_multilabel_errors(tmp_path):
    path = tmp_path / "plain.csv"
    pd.DataFrame({"x": [1, 2], "y": [0, 1]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="No column name starts with prefix 'label_'"):
        read_multilabel(path)
    with pytest.raises(ValueError, match="not both"):
        read_multilabel(path, labels=["y"], prefix="lab")
    with pytest.raises(TypeError, match="`path` must be"):
        read_multilabel(42)
    X, Y = read_multilabel(path, labels=["y"])
    assert list(Y.columns) == ["y"]


# ----------------------------------------------------------------------------------------------
# cross-validation runner
# ----------------------------------------------------------------------------------------------
class CountingModel(BaseMultiLabelClassifier):
    """Each label's smoothed frequencies given the first attribute's value.

    A tiny stand-in for a multi-label model; `log` (shared by clones)
    records the training index seen by every fit.
    """

    def __init__(self, *, alpha=1.0, log=None):
        self.alpha = alpha
        self.log = log

    def _fit_multilabel(self, frame, label_codes, sample_weight):
        key = frame.iloc[:, 0].astype(str).to_numpy()
        self.levels_, codes = np.unique(key, return_inverse=True)
        n_levels = len(self.levels_)
        self.tables_ = []
        for j, classes in enumerate(self.classes_):
            counts = np.zeros((n_levels + 1, len(classes)))  # last row: unseen levels
            np.add.at(counts, (codes, label_codes[:, j]), 1.0)
            counts[-1] = counts[:-1].sum(axis=0)
            counts += self.alpha
            self.tables_.append(np.log(counts / counts.sum(axis=1, keepdims=True)))
        if self.log is not None:
            self.log.append(frame.index.to_numpy().copy())

    def _marginal_log_proba(self, frame):
        key = frame.iloc[:, 0].astype(str).to_numpy()
        position = np.minimum(np.searchsorted(self.levels_, key), len(self.levels_) - 1)
        rows = np.where(self.levels_[position] == key, position, len(self.levels_))
        return [table[rows] for table in self.tables_]


class RecordingDiscretizer:
    """Binarizes numeric columns at their training medians; records the rows it sees."""

    def __init__(self, *, log=None):
        self.log = log

    def get_params(self, deep=True):
        return {"log": self.log}

    def fit(self, X, y=None):
        assert y is None, "a multi-label discretizer must be fitted without labels"
        self.log.append(("fit", X.index.to_numpy().copy()))
        self.median_ = X.median()
        return self

    def transform(self, X):
        self.log.append(("transform", X.index.to_numpy().copy()))
        return (X > self.median_).astype(int)


def _multilabel_data(n=60, seed=0, non_binary=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x 0": rng.normal(size=n), "x#1": rng.normal(size=n)}, index=rng.permutation(1000)[:n] + 5000)
    Y = pd.DataFrame(
        {
            "label_a": (X["x 0"] > 0).astype(int),
            "label_é": (X["x 0"] + rng.normal(0, 0.5, size=n) > 0.3).astype(int),
            "label_c": rng.integers(0, 2, size=n),
        },
        index=X.index,
    )
    if non_binary:
        Y["label_c"] = rng.choice(["lo", "mid", "hi"], size=n)
    return X, Y


def test_cv_discretizer_fitted_on_training_rows_only_and_folds_partition_rows():
    X, Y = _multilabel_data()
    disc_log, model_log = [], []
    models = {"a1": CountingModel(alpha=1.0, log=model_log), "a05": CountingModel(alpha=0.5, log=model_log)}
    n_splits, n_repeats = 4, 3
    results = cross_validate_multilabel(
        models,
        X,
        Y,
        n_splits=n_splits,
        n_repeats=n_repeats,
        discretizer=RecordingDiscretizer(log=disc_log),
        random_state=7,
    )
    assert len(results) == n_splits * n_repeats * len(models)
    assert list(results[["repeat", "fold"]].drop_duplicates().itertuples(index=False, name=None)) == [
        (r, k) for r in range(n_repeats) for k in range(n_splits)
    ]
    # Per fold the discretizer is fitted once on the training rows, then transforms train and test.
    assert [kind for kind, _ in disc_log] == ["fit", "transform", "transform"] * (n_splits * n_repeats)
    all_rows = set(X.index)
    for r in range(n_repeats):
        test_union = []
        for k in range(n_splits):
            i = r * n_splits + k
            (_, fitted), (_, train), (_, test) = disc_log[3 * i : 3 * i + 3]
            np.testing.assert_array_equal(fitted, train)
            assert set(train).isdisjoint(test) and set(train) | set(test) == all_rows
            # both models were fitted on exactly those training rows
            np.testing.assert_array_equal(model_log[2 * i], train)
            np.testing.assert_array_equal(model_log[2 * i + 1], train)
            assert results.loc[results["repeat"].eq(r) & results["fold"].eq(k), "n_test"].eq(len(test)).all()
            test_union.extend(test)
        # every row in exactly one test fold per repeat; fold sizes within one row
        assert sorted(test_union) == sorted(all_rows)
    assert set(results["n_test"]) == {15}


def test_cv_metrics_match_a_manual_fold():
    X, Y = _multilabel_data(seed=3)
    log = []
    results = cross_validate_multilabel(
        {"m": CountingModel()}, X, Y, n_splits=3, discretizer=RecordingDiscretizer(log=log), random_state=1
    )
    _, train, test = (entry[1] for entry in log[:3])
    binner = RecordingDiscretizer(log=[]).fit(X.loc[train])
    model = CountingModel().fit(binner.transform(X.loc[train]), Y.loc[train])
    X_test = binner.transform(X.loc[test])
    predicted, proba = model.predict(X_test), model.predict_proba(X_test)
    row = results.iloc[0]
    assert row["hamming_accuracy"] == pytest.approx(hamming_accuracy(Y.loc[test], predicted))
    assert row["exact_match"] == pytest.approx(exact_match(Y.loc[test], predicted))
    assert row["jaccard_accuracy"] == pytest.approx(jaccard_accuracy(Y.loc[test], predicted))
    assert row["mean_label_log_loss"] == pytest.approx(per_label_log_loss(Y.loc[test], proba, model.classes_).mean())
    assert row["exact_match"] == pytest.approx(model.score(X_test, Y.loc[test]))


def test_cv_reproducible_with_random_state():
    X, Y = _multilabel_data()
    models = {"m": CountingModel()}
    timing = ["fit_time", "predict_time"]
    first = cross_validate_multilabel(models, X, Y, n_splits=3, n_repeats=2, random_state=5).drop(columns=timing)
    again = cross_validate_multilabel(models, X, Y, n_splits=3, n_repeats=2, random_state=5).drop(columns=timing)
    pd.testing.assert_frame_equal(first, again)
    logs = {}
    for seed in (5, 6):
        logs[seed] = []
        cross_validate_multilabel(
            models, X, Y, n_splits=3, discretizer=RecordingDiscretizer(log=logs[seed]), random_state=seed
        )
    assert any(set(a[1]) != set(b[1]) for a, b in zip(logs[5], logs[6]))


def test_cv_default_discretizer_and_columns():
    X, Y = _multilabel_data()
    results = cross_validate_multilabel({"m": CountingModel()}, X, Y, n_splits=5)
    assert list(results.columns) == [
        "model",
        "repeat",
        "fold",
        "n_train",
        "n_test",
        "hamming_accuracy",
        "exact_match",
        "jaccard_accuracy",
        "mean_label_log_loss",
        "fit_time",
        "predict_time",
    ]
    assert results.notna().all().all()
    assert ((results["hamming_accuracy"] >= results["exact_match"]) & (results["fit_time"] >= 0)).all()
    # label_a is x 0 > 0: five equal-frequency bins of x 0 predict it well
    assert results["hamming_accuracy"].mean() > 0.6


def test_cv_non_binary_labels_leave_jaccard_out():
    X, Y = _multilabel_data(non_binary=True)
    results = cross_validate_multilabel({"m": CountingModel()}, X.to_numpy(), Y, n_splits=3)
    assert "jaccard_accuracy" not in results.columns
    assert results.notna().all().all()
    summary = summarize_multilabel(results)
    assert "jaccard_accuracy" not in summary.columns


def test_cv_arrays_for_X_and_Y():
    X, Y = _multilabel_data()
    from_arrays = cross_validate_multilabel({"m": CountingModel()}, X.to_numpy(), Y.to_numpy(), n_splits=3)
    from_frames = cross_validate_multilabel({"m": CountingModel()}, X, Y, n_splits=3)
    timing = ["fit_time", "predict_time"]
    pd.testing.assert_frame_equal(from_arrays.drop(columns=timing), from_frames.drop(columns=timing))


def test_summarize_multilabel():
    X, Y = _multilabel_data()
    models = {"b": CountingModel(alpha=2.0), "a": CountingModel()}
    results = cross_validate_multilabel(models, X, Y, n_splits=3, n_repeats=2)
    summary = summarize_multilabel(results)
    assert list(summary.index) == ["b", "a"]
    assert summary["n_folds"].tolist() == [6, 6]
    for metric in ("hamming_accuracy", "exact_match", "jaccard_accuracy", "mean_label_log_loss"):
        for name in models:
            values = results.loc[results["model"] == name, metric]
            assert summary.loc[name, metric] == pytest.approx(values.mean())
            assert summary.loc[name, f"{metric}_std"] == pytest.approx(values.std())
    single = summarize_multilabel(results[(results["repeat"] == 0) & (results["fold"] == 0)])
    assert single["exact_match_std"].isna().all()
    with pytest.raises(ValueError, match="'model' column"):
        summarize_multilabel(results.drop(columns="model"))
    with pytest.raises(ValueError, match="none of the metric columns"):
        summarize_multilabel(results[["model", "fit_time"]])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"models": [CountingModel()]}, TypeError, "`models` must be a dict"),
        ({"models": {}}, ValueError, "`models` is empty"),
        ({"models": {"x": object()}}, TypeError, r"`models\['x'\]` must be a multi-label model"),
        ({"n_splits": 1}, ValueError, "`n_splits` must be >= 2, got 1"),
        ({"n_splits": 2.5}, TypeError, "`n_splits` must be an integer"),
        ({"n_repeats": 0}, ValueError, "`n_repeats` must be >= 1"),
        ({"n_splits": 61}, ValueError, "Cannot split 60 rows into n_splits=61"),
        ({"discretizer": "mdl"}, ValueError, "supervised"),
        ({"discretizer": "nope"}, ValueError, "Unknown discretizer 'nope'"),
        ({"Y": np.zeros((59, 2))}, ValueError, "`X` has 60 rows but `Y` has 59"),
        ({"Y": np.zeros(60)}, ValueError, "2-dimensional"),
    ],
)
def test_cv_errors(kwargs, error, message):
    X, Y = _multilabel_data()
    arguments = {"models": {"m": CountingModel()}, "X": X, "Y": Y, **kwargs}
    with pytest.raises(error, match=message):
        cross_validate_multilabel(arguments.pop("models"), arguments.pop("X"), arguments.pop("Y"), **arguments)


def test_model_selection_picks_the_best_cross_validated_candidate_and_refits_it():
    from graphmodels.models import BinaryRelevance, MultiDimensionalNaiveBayes, MultiLabelModelSelection, NaiveBayes

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"x": rng.integers(0, 3, 200).astype(str), "z": rng.integers(0, 2, 200).astype(str)})
    Y = pd.DataFrame({"a": (X["x"] == "1").astype(int), "b": (X["z"] == "1").astype(int) ^ (rng.random(200) < 0.1)})
    candidates = {"md": MultiDimensionalNaiveBayes(max_parents=0), "br": BinaryRelevance(base=NaiveBayes())}
    search = MultiLabelModelSelection(candidates=candidates, n_splits=4, random_state=1).fit(X, Y)
    # An attribute-free model (no class parents) cannot beat binary relevance here.
    assert search.best_name_ == "br"
    assert search.cv_scores_.loc["br", "mean"] > search.cv_scores_.loc["md", "mean"]
    direct = BinaryRelevance(base=NaiveBayes()).fit(X, Y)
    assert (search.predict(X) == direct.predict(X)).all()
    assert hamming_accuracy(Y, search.predict(X)) == hamming_accuracy(Y, direct.predict(X))
    with pytest.raises(ValueError, match="candidates"):
        MultiLabelModelSelection(candidates={}).fit(X, Y)
    with pytest.raises(ValueError, match="scoring"):
        MultiLabelModelSelection(candidates=candidates, scoring="f1").fit(X, Y)


def test_model_selection_refuses_a_single_row_clearly():
    from graphmodels.models import BinaryRelevance, MultiLabelModelSelection

    X, Y = pd.DataFrame({"x": ["a"]}), pd.DataFrame({"a": [1], "b": [0]})
    with pytest.raises(ValueError, match="at least 2 rows to cross-validate, got 1"):
        MultiLabelModelSelection(candidates={"br": BinaryRelevance()}).fit(X, Y)


@pytest.mark.parametrize("scoring, metric", [("hamming_accuracy", hamming_accuracy), ("exact_match", exact_match)])
def test_model_selection_scores_are_the_evaluation_metrics_on_the_runners_folds(scoring, metric):
    # The model (graphmodels.models) cannot import the metrics (graphmodels.evaluation, a layer
    # above): its own scorers must give the very same figures on the very same folds.
    from graphmodels.models import BinaryRelevance, MultiDimensionalNaiveBayes, MultiLabelModelSelection, NaiveBayes
    from graphmodels.models.base import clone_model
    from graphmodels.models.model_selection import shuffled_folds

    X, Y = _multilabel_data(n=80, seed=2, non_binary=True)
    X = X.apply(lambda column: pd.qcut(column, 3, labels=False)).astype(str)
    candidates = {"md": MultiDimensionalNaiveBayes(), "br": BinaryRelevance(base=NaiveBayes())}
    search = MultiLabelModelSelection(candidates=candidates, n_splits=4, scoring=scoring, random_state=3).fit(X, Y)
    for name, candidate in candidates.items():
        scores = [
            metric(
                Y.iloc[test],
                clone_model(candidate).fit(X.iloc[train], Y.iloc[train]).predict(X.iloc[test]),
            )
            for _, _, train, test in shuffled_folds(len(X), 4, 1, random_state=3)
        ]
        assert search.cv_scores_.loc[name, "mean"] == np.mean(scores)
        assert search.cv_scores_.loc[name, "std"] == np.std(scores)


def test_multilabel_names_stay_importable_where_they_were():
    import graphmodels.evaluation as evaluation
    import graphmodels.evaluation.multilabel as runner
    import graphmodels.models as models
    from graphmodels.evaluation import metrics
    from graphmodels.models import model_selection

    assert evaluation.MultiLabelModelSelection is runner.MultiLabelModelSelection is models.MultiLabelModelSelection
    assert models.MultiLabelModelSelection is model_selection.MultiLabelModelSelection
    for name in ("hamming_accuracy", "exact_match", "jaccard_accuracy", "per_label_log_loss"):
        assert getattr(evaluation, name) is getattr(runner, name) is getattr(metrics, name)
    for name in ("cross_validate_multilabel", "summarize_multilabel"):
        assert getattr(evaluation, name) is getattr(runner, name)


def test_model_selection_is_not_a_registered_model(tmp_path):
    # As before the move: its candidates (a dict of models) are not saved, so neither is it.
    from graphmodels.models import BinaryRelevance, MultiLabelModelSelection

    X = pd.DataFrame({"x": ["a", "b"] * 5})
    Y = pd.DataFrame({"a": [1, 0] * 5, "b": [0, 1] * 5})
    search = MultiLabelModelSelection(candidates={"br": BinaryRelevance()}, n_splits=2).fit(X, Y)
    with pytest.raises(TypeError, match="not a registered graphmodels model"):
        search.save(tmp_path / "search.json")
