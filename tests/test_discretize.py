"""Tests for graphmodels.data.discretize."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

from graphmodels.data.discretize import (
    EqualFrequencyDiscretizer,
    MDLDiscretizer,
    _bin_labels,
)


# ----------------------------------------------------------------------------------------------
# equal-frequency: exact tiny cases
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n_bins, expected",
    [
        # values 1..10, linear-interpolated quantiles at i / n_bins: position 9 * q
        (2, [5.5]),
        (4, [3.25, 5.5, 7.75]),
        (5, [2.8, 4.6, 6.4, 8.2]),
    ],
)
def test_equal_frequency_known_quantiles(n_bins, expected):
    X = pd.DataFrame({"x": np.arange(1, 11)})
    disc = EqualFrequencyDiscretizer(n_bins=n_bins).fit(X)
    np.testing.assert_allclose(disc.cut_points_["x"], expected)
    Xt = disc.transform(X)
    counts = Xt["x"].value_counts(sort=False).to_numpy()
    # 10 distinct values in n_bins equal-frequency bins
    if 10 % n_bins == 0:
        np.testing.assert_array_equal(counts, np.full(n_bins, 10 // n_bins))


def test_equal_frequency_labels_and_categories():
    X = pd.DataFrame({"x": np.arange(1, 11)})
    Xt = EqualFrequencyDiscretizer(n_bins=5).fit_transform(X)
    assert isinstance(Xt["x"].dtype, pd.CategoricalDtype)
    assert Xt["x"].cat.ordered
    assert list(Xt["x"].cat.categories) == [
        "(-inf, 2.8]",
        "(2.8, 4.6]",
        "(4.6, 6.4]",
        "(6.4, 8.2]",
        "(8.2, inf)",
    ]
    # right-closed: 2 -> first bin, 3 -> second
    assert Xt["x"].tolist()[:4] == ["(-inf, 2.8]", "(-inf, 2.8]", "(2.8, 4.6]", "(2.8, 4.6]"]


def test_equal_frequency_ties_give_fewer_bins():
    # 50 zeros then 1..50: quantiles 0.2, 0.4 are 0; 0.6 -> 10.4; 0.8 -> 30.2
    x = np.concatenate([np.zeros(50), np.arange(1, 51)])
    disc = EqualFrequencyDiscretizer(n_bins=5, min_distinct=2).fit(pd.DataFrame({"x": x}))
    np.testing.assert_allclose(disc.cut_points_["x"], [0.0, 10.4, 30.2])
    assert len(disc.transform(pd.DataFrame({"x": x}))["x"].cat.categories) == 4


def test_equal_frequency_cut_at_maximum_is_dropped():
    # nine ones and a zero: every quantile is 1 = the maximum -> no useful cut, single bin
    X = pd.DataFrame({"x": [0.0] + [1.0] * 9})
    disc = EqualFrequencyDiscretizer(n_bins=5, min_distinct=2).fit(X)
    assert disc.cut_points_["x"].size == 0
    assert list(disc.transform(X)["x"].cat.categories) == ["(-inf, inf)"]


@pytest.mark.parametrize("min_distinct, binned", [(10, True), (11, False)])
def test_equal_frequency_min_distinct_is_at_least(min_distinct, binned):
    X = pd.DataFrame({"x": np.arange(10)})
    disc = EqualFrequencyDiscretizer(min_distinct=min_distinct).fit(X)
    assert (disc.binned_columns_ == ["x"]) is binned


def test_bin_labels_format_and_collisions():
    assert _bin_labels(np.array([1 / 3, 2.5])) == [
        "(-inf, 0.333333]",
        "(0.333333, 2.5]",
        "(2.5, inf)",
    ]
    assert _bin_labels(np.array([])) == ["(-inf, inf)"]
    # equal at 6 significant digits -> more digits until labels differ
    labels = _bin_labels(np.array([1.0000001, 1.0000002]))
    assert len(set(labels)) == 3
    assert labels[1] == "(1.0000001, 1.0000002]"


# ----------------------------------------------------------------------------------------------
# MDL: exact tiny cases, checked by hand
# ----------------------------------------------------------------------------------------------
def test_mdl_perfect_split_at_midpoint():
    # S = 4 rows, classes a a | b b, Ent(S) = 1 bit.  Cut between 1.0 and 2.0 -> midpoint 1.5,
    # E = 0, Gain = 1.  k = 2, k1 = k2 = 1:
    # Delta = log2(3^2 - 2) - (2*1 - 0 - 0) = log2(7) - 2 = 0.807
    # threshold = (log2(3) + 0.807) / 4 = (1.585 + 0.807) / 4 = 0.598 < 1 -> accepted.
    # Both halves are pure (no boundary point inside), so recursion stops.
    X = pd.DataFrame({"x": [0.5, 1.0, 2.0, 3.5]})
    y = ["a", "a", "b", "b"]
    disc = MDLDiscretizer().fit(X, y)
    np.testing.assert_array_equal(disc.cut_points_["x"], [1.5])
    assert disc.transform(X)["x"].tolist() == ["(-inf, 1.5]"] * 2 + ["(1.5, inf)"] * 2


def test_mdl_rejects_alternating_classes():
    # x = 1, 2, 3, 4 with classes a b a b, Ent(S) = 1.  Best cut 1.5 (tied with 3.5):
    # E = 3/4 * Ent(b, a, b) = 0.75 * 0.9183 = 0.6887, Gain = 0.3113.
    # k = 2, k1 = 1, k2 = 2: Delta = log2(7) - (2*1 - 1*0 - 2*0.9183) = 2.807 - 0.163 = 2.644
    # threshold = (log2(3) + 2.644) / 4 = (1.585 + 2.644) / 4 = 1.057 > 0.3113 -> rejected.
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    disc = MDLDiscretizer().fit(X, ["a", "b", "a", "b"])
    assert disc.binned_columns_ == ["x"]
    assert disc.cut_points_["x"].size == 0
    Xt = disc.transform(X)
    assert list(Xt["x"].cat.categories) == ["(-inf, inf)"]
    assert (Xt["x"] == "(-inf, inf)").all()


def test_mdl_pure_noise_gives_no_cut():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=40)})
    y = rng.choice(["a", "b"], size=40)
    disc = MDLDiscretizer().fit(X, y)
    assert disc.cut_points_["x"].size == 0


def test_mdl_single_class_gives_no_cut():
    X = pd.DataFrame({"x": np.arange(20.0)})
    assert MDLDiscretizer().fit(X, np.zeros(20)).cut_points_["x"].size == 0


def _brute_force_mdl(x, y):
    """Recursive Fayyad–Irani with Python loops over every midpoint (reference)."""
    cuts = []

    def ent(labels):
        return entropy(np.unique(labels, return_counts=True)[1], base=2) if len(labels) else 0.0

    def rec(xs, ys):
        n = len(xs)
        values = np.unique(xs)
        best = None
        for a, b in zip(values[:-1], values[1:]):
            t = (a + b) / 2
            left, right = ys[xs <= t], ys[xs > t]
            e = (len(left) * ent(left) + len(right) * ent(right)) / n
            if best is None or e < best[0] - 1e-12:
                best = (e, t, left, right)
        if best is None:
            return
        e, t, left, right = best
        gain = ent(ys) - e
        k, k1, k2 = (len(np.unique(s)) for s in (ys, left, right))
        delta = np.log2(3**k - 2) - (k * ent(ys) - k1 * ent(left) - k2 * ent(right))
        if gain > (np.log2(n - 1) + delta) / n:
            cuts.append(t)
            rec(xs[xs <= t], ys[xs <= t])
            rec(xs[xs > t], ys[xs > t])

    rec(np.asarray(x, float), np.asarray(y))
    return np.sort(cuts)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_mdl_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 120
    x = rng.normal(size=n)
    # class depends on x through two thresholds, with label noise
    y = np.digitize(x, [-0.5, 0.7])
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, 3, flip.sum())
    disc = MDLDiscretizer().fit(pd.DataFrame({"x": x}), y)
    np.testing.assert_allclose(disc.cut_points_["x"], _brute_force_mdl(x, y))
    assert disc.cut_points_["x"].size >= 1


def test_mdl_iris_petal_length():
    # Fayyad & Irani MDL on iris petal length gives cuts 2.45 and 4.75 (as in Weka's
    # supervised Discretize filter on iris).
    from graphmodels.data.datasets import load

    X, y = load("iris", return_X_y=True)
    disc = MDLDiscretizer().fit(X, y)
    cuts = disc.cut_points_["petal length"]
    assert cuts.size == 2
    np.testing.assert_allclose(cuts, [2.45, 4.75], atol=0.1)


# ----------------------------------------------------------------------------------------------
# both: mixed tables, missing cells, train-only fitting, shape and order
# ----------------------------------------------------------------------------------------------
def _mixed_frame(rng, n=60):
    x = rng.normal(size=n)
    x[[3, 10]] = np.nan
    nullable = pd.array(rng.integers(0, 100, size=n), dtype="Int64")
    nullable[5] = pd.NA
    return pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "NA"], size=n),
            "x": x,
            "small_int": rng.integers(0, 3, size=n),
            "cat": pd.Categorical(rng.integers(0, 50, size=n)),
            "flag": rng.random(n) < 0.5,
            "count": nullable,
        },
        index=pd.Index([f"r{i}" for i in range(n)], name="row"),
    )


def _make(kind):
    if kind == "ef":
        return EqualFrequencyDiscretizer(n_bins=3, min_distinct=10)
    return MDLDiscretizer(min_distinct=10)


@pytest.mark.parametrize("kind", ["ef", "mdl"])
def test_mixed_columns_pass_through_and_missing_stays_missing(kind):
    rng = np.random.default_rng(0)
    X = _mixed_frame(rng)
    y = np.where(X["x"].fillna(0) > 0, "pos", "neg")
    disc = _make(kind).fit(X, y)
    Xt = disc.transform(X)
    assert disc.binned_columns_ == ["x", "count"]
    assert list(disc.feature_names_in_) == list(X.columns)
    assert list(Xt.columns) == list(X.columns)
    assert Xt.index.equals(X.index)
    for col in ["colour", "small_int", "cat", "flag"]:
        pd.testing.assert_series_equal(Xt[col], X[col])
    for col in ["x", "count"]:
        assert isinstance(Xt[col].dtype, pd.CategoricalDtype)
        np.testing.assert_array_equal(Xt[col].isna().to_numpy(), X[col].isna().to_numpy())
        assert Xt[col].notna().sum() == X[col].notna().sum()
    # the original is not modified
    assert X["x"].dtype == np.float64


@pytest.mark.parametrize("kind", ["ef", "mdl"])
def test_fit_on_train_only_extremes_go_to_end_bins(kind):
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, size=80)
    y = (x > 5).astype(int)
    disc = _make(kind).fit(pd.DataFrame({"x": x}), y)
    cuts = disc.cut_points_["x"].copy()
    Xt = disc.transform(pd.DataFrame({"x": [-1e6, 1e6, np.nan]}))
    categories = list(Xt["x"].cat.categories)
    assert Xt["x"].iloc[0] == categories[0]
    assert Xt["x"].iloc[1] == categories[-1]
    assert pd.isna(Xt["x"].iloc[2])
    # every bin is a category, even if empty in this table
    assert len(categories) == len(cuts) + 1
    # transform does not refit
    np.testing.assert_array_equal(disc.cut_points_["x"], cuts)


@pytest.mark.parametrize("kind", ["ef", "mdl"])
def test_row_permutation_does_not_change_cuts(kind):
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"x": rng.normal(size=90), "z": rng.exponential(size=90)})
    y = np.digitize(X["x"], [0.0])
    perm = rng.permutation(90)
    a = _make(kind).fit(X, y)
    b = _make(kind).fit(X.iloc[perm], y[perm])
    for col in a.binned_columns_:
        np.testing.assert_allclose(a.cut_points_[col], b.cut_points_[col])


@pytest.mark.parametrize("kind", ["ef", "mdl"])
def test_numpy_input(kind):
    rng = np.random.default_rng(4)
    A = rng.normal(size=(50, 2))
    y = (A[:, 0] > 0).astype(int)
    disc = _make(kind).fit(A, y)
    Xt = disc.transform(A)
    assert isinstance(Xt, pd.DataFrame)
    assert list(Xt.columns) == [0, 1]
    assert disc.binned_columns_ == [0, 1]


def test_get_set_params_roundtrip():
    disc = EqualFrequencyDiscretizer(n_bins=3)
    assert disc.get_params() == {"min_distinct": 10, "n_bins": 3}
    assert disc.set_params(n_bins=4) is disc
    assert disc.n_bins == 4
    assert MDLDiscretizer().get_params() == {"max_cells": None, "min_distinct": 2}
    with pytest.raises(ValueError, match="invalid parameter 'bins'"):
        disc.set_params(bins=3)
    with pytest.raises(TypeError):
        EqualFrequencyDiscretizer(3)  # keyword-only


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["ef", "mdl"])
def test_transform_missing_column(kind):
    X = pd.DataFrame({"a": np.arange(20.0), "b": np.arange(20.0)})
    disc = _make(kind).fit(X, np.arange(20) % 2)
    with pytest.raises(ValueError, match="'b'"):
        disc.transform(X[["a"]])


def test_transform_before_fit():
    with pytest.raises(ValueError, match="not fitted"):
        EqualFrequencyDiscretizer().transform(pd.DataFrame({"a": [1.0]}))


def test_transform_reads_a_binned_column_given_as_text_as_numbers():
    disc = EqualFrequencyDiscretizer(min_distinct=2).fit(pd.DataFrame({"a": np.arange(5.0)}))
    numbers_ = disc.transform(pd.DataFrame({"a": [0.0, 1.0, 4.0, np.nan]}))["a"]
    text = disc.transform(pd.DataFrame({"a": ["0", "1.0", "4", None]}))["a"]
    assert text.tolist()[:3] == numbers_.tolist()[:3] and pd.isna(text.iloc[3])
    # A cell that is no number keeps its value (a model then treats it as a state never seen).
    mixed = disc.transform(pd.DataFrame({"a": ["0", "n/a"]}))["a"]
    assert mixed.tolist() == [numbers_.iloc[0], "n/a"]


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"n_bins": 1}, ValueError, "`n_bins` must be >= 2, got 1"),
        ({"n_bins": 2.5}, TypeError, "`n_bins` must be an integer"),
        ({"min_distinct": 0}, ValueError, "`min_distinct` must be >= 1, got 0"),
    ],
)
def test_equal_frequency_bad_params(params, exc, match):
    with pytest.raises(exc, match=match):
        EqualFrequencyDiscretizer(**params).fit(pd.DataFrame({"a": np.arange(20.0)}))


def test_mdl_requires_y():
    X = pd.DataFrame({"a": np.arange(5.0)})
    with pytest.raises(ValueError, match="`y`"):
        MDLDiscretizer().fit(X, None)
    with pytest.raises(ValueError, match="`y`"):
        MDLDiscretizer().fit_transform(X)


@pytest.mark.parametrize(
    "y, match",
    [
        (["a", None, "b", "a", "b"], "missing labels"),
        (["a", "b"], "expected length 5, got 2"),
    ],
)
def test_mdl_bad_y(y, match):
    with pytest.raises(ValueError, match=match):
        MDLDiscretizer().fit(pd.DataFrame({"a": np.arange(5.0)}), y)


def test_bad_X_type_and_infinite_values():
    with pytest.raises(TypeError, match="DataFrame"):
        EqualFrequencyDiscretizer().fit([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="ndim"):
        EqualFrequencyDiscretizer().fit(np.arange(5.0))
    X = pd.DataFrame({"a": np.append(np.arange(20.0), np.inf)})
    with pytest.raises(ValueError, match="'a' contains infinite"):
        EqualFrequencyDiscretizer().fit(X)


def test_complex_columns_are_states_never_cut():
    import warnings

    import graphmodels as gm

    k = np.arange(120)
    values = (k % 6) + 1j * ((k // 6) % 2)  # 12 states; six real parts, each with two imaginary ones
    X = pd.DataFrame({"z": values, "noise": k % 3})
    y = np.where(values.imag > 0, "up", "down")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing is cast to float
        model = gm.NaiveBayes(discretizer="equal-frequency").fit(X, y)
    assert len(model.encoder_.levels_[0]) == 12
    assert (model.predict(X) == y).all()  # the imaginary part is kept
