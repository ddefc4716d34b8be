"""Numeric columns with default settings: the models' ``discretizer=`` (issue 14).

Every classifier and density cuts numeric columns with many distinct values
inside ``fit`` (MDL for a classifier, equal-frequency bins for a density),
keeps the cut points, applies them at prediction, saves and loads them;
``discretizer=None`` keeps every value as a state.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model
from sklearn.model_selection import StratifiedKFold

import graphmodels as gm
from graphmodels._validation import InvalidParameterError
from graphmodels.data import DISCRETIZERS, EqualFrequencyDiscretizer, MDLDiscretizer
from graphmodels.evaluation import cross_validate
from graphmodels.models import registered_models


def _split(name):
    frame = gm.datasets.load(name)
    return frame.drop(columns="class"), frame["class"]


def _cv_accuracy(make_model, X, y, *, by_hand=False):
    """Mean test accuracy over StratifiedKFold(5, shuffle=True, random_state=0)."""
    scores = []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        X_train, X_test, y_train = X.iloc[train], X.iloc[test], y.iloc[train]
        if by_hand:
            binner = DISCRETIZERS["mdl"]().fit(X_train, y_train)
            X_train, X_test = binner.transform(X_train), binner.transform(X_test)
        model = make_model().fit(X_train, y_train)
        scores.append(model.score(X_test, y.iloc[test]))
    return float(np.mean(scores))


# ---------------------------------------------------------------- the quoted examples


@pytest.mark.parametrize("name, at_least", [("iris", 0.9), ("pima", 0.7)])
@pytest.mark.parametrize("model", [gm.TAN, gm.NaiveBayes])
def test_default_settings_learn_from_numeric_columns(name, at_least, model):
    X, y = _split(name)
    if name == "pima":  # six integer columns (ages, counts), cut as numbers: the default says so
        with pytest.warns(gm.data.IntegerColumnsCutWarning, match="'preg', 'plas', 'pres', 'skin', 'insu'"):
            default = _cv_accuracy(model, X, y)
    else:
        default = _cv_accuracy(model, X, y)
    by_hand = _cv_accuracy(lambda: model(discretizer=None), X, y, by_hand=True)
    # Before issue 14 TAN() scored 0.29 on iris and 0.41 on pima (every float a state).
    assert default >= at_least
    assert abs(default - by_hand) <= 0.01


def test_discretizer_none_keeps_every_value_as_a_state():
    X, y = _split("iris")
    model = gm.TAN(discretizer=None).fit(X, y)
    assert model.discretizer_ is None
    assert list(model.encoder_.levels_[0]) == sorted(X.iloc[:, 0].unique())
    # A float never seen in fit is summed out: every such row gets the class prior.
    unseen = X.iloc[:3] + 0.0123
    with pytest.warns(UserWarning, match="never seen in fit"):
        proba = model.predict_proba(unseen)
    assert np.allclose(proba, proba[0])


def test_default_equals_the_model_on_data_cut_by_hand():
    X, y = _split("iris")
    model = gm.TAN().fit(X, y)
    binner = DISCRETIZERS["mdl"]().fit(X, y)
    by_hand = gm.TAN(discretizer=None).fit(binner.transform(X), y)
    assert isinstance(model.discretizer_, MDLDiscretizer)
    assert list(model.discretizer_.cut_points_) == list(X.columns)
    for column in X.columns:
        assert np.array_equal(model.discretizer_.cut_points_[column], binner.cut_points_[column])
    assert np.allclose(model.predict_proba(X), by_hand.predict_proba(binner.transform(X)))
    assert np.array_equal(model.discretizer_.cut_points_["petal length"], [2.45, 4.75])


def test_density_default_is_equal_frequency_bins():
    X, _ = _split("iris")
    model = gm.ChowLiuTree().fit(X)
    assert isinstance(model.discretizer_, EqualFrequencyDiscretizer)
    assert all(len(cuts) == 4 for cuts in model.discretizer_.cut_points_.values())
    grid = pd.DataFrame(list(itertools.product(*model.encoder_.levels_)), columns=X.columns)
    # The grid holds interval labels; the discretizer leaves text that is no number as it is.
    assert np.isclose(np.exp(model.score_samples(grid)).sum(), 1.0)
    assert np.all(np.isfinite(model.score_samples(X)))


def test_only_numeric_columns_with_many_values_are_cut():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "score": rng.normal(y * 2.0, 1.0),  # many values: cut
            "rating": rng.integers(1, 6, n),  # 5 values: a state each
            "colour": rng.choice(["red", "blue"], n),
            "flag": rng.integers(0, 2, n).astype(bool),
        }
    )
    model = gm.NaiveBayes().fit(X, y)
    assert list(model.discretizer_.cut_points_) == ["score"]
    assert model.encoder_.levels_[1] == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------- integer columns (issue 26)


def _parity(n=300, seed=0):
    """A class that is the parity of an integer code 0-29 (10% noise), beside a float measurement."""
    rng = np.random.default_rng(seed)
    code = rng.integers(0, 30, n)
    X = pd.DataFrame({"code": code, "weight": rng.normal(size=n)})
    return X, np.where(rng.random(n) < 0.9, code % 2, 1 - code % 2)


def test_categorical_keeps_integer_codes_as_categories():
    X, y = _parity()
    model = gm.NaiveBayes(categorical=["code"]).fit(X, y)
    assert model.discretizer_.binned_columns_ == ["weight"]  # the float column is still cut
    assert model.encoder_.levels_[0] == list(range(30))
    assert model.score(X, y) > 0.85
    # The pandas category dtype is never cut either, and gives the same model.
    as_category = gm.NaiveBayes().fit(X.astype({"code": "category"}), y)
    np.testing.assert_allclose(as_category.predict_proba(X.astype({"code": "category"})), model.predict_proba(X))
    with pytest.warns(gm.data.IntegerColumnsCutWarning):
        assert gm.NaiveBayes().fit(X, y).score(X, y) < 0.7  # the parity is lost in intervals


@pytest.mark.parametrize("missing_cell", [False, True])
def test_cutting_an_integer_column_by_default_warns_naming_it(missing_cell):
    X, y = _parity()
    if missing_cell:  # a missing cell makes the codes floats (as read_csv does): still whole numbers
        X["code"] = X["code"].astype(float).where(X.index != 3)
    with pytest.warns(
        gm.data.IntegerColumnsCutWarning,
        match=r"TAN: discretizer='auto' cut the integer column\(s\) 'code' into intervals.*"
        r"TAN\(categorical=\['code'\]\).*'category' dtype.*discretizer='mdl'",
    ) as record:
        gm.TAN().fit(X, y)
    assert len(record) == 1 and record[0].filename == __file__  # points at the caller's fit
    # A choice made explicitly warns nothing: a named discretizer, or categorical=.
    for explicit in ({"discretizer": "mdl"}, {"categorical": ["code"]}):
        with warnings.catch_warnings():
            warnings.simplefilter("error", gm.data.IntegerColumnsCutWarning)
            gm.TAN(**explicit).fit(X, y)


def test_a_density_and_a_multidimensional_model_warn_and_keep_categorical_columns():
    X, y = _parity()
    with pytest.warns(gm.data.IntegerColumnsCutWarning, match="ChowLiuTree: .* 'code'.*'equal-frequency'"):
        gm.ChowLiuTree().fit(X)
    Y = pd.DataFrame({"parity": y, "sign": (X["weight"] > 0).astype(int)})
    with pytest.warns(gm.data.IntegerColumnsCutWarning, match="MultiDimensionalTAN: .* 'code'"):
        gm.models.MultiDimensionalTAN().fit(X, Y)
    model = gm.models.MultiDimensionalTAN(categorical=["code"]).fit(X, Y)
    assert model.discretizer_.binned_columns_ == ["weight"]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_categorical_is_saved_with_the_model(tmp_path, suffix):
    X, y = _parity()
    X.columns = ["code", ("w", 1)]
    model = gm.TAN(categorical=["code"]).fit(X, y)
    model.save(tmp_path / f"m{suffix}")
    loaded = gm.load_model(tmp_path / f"m{suffix}")
    assert loaded.get_params()["categorical"] == ["code"]
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert gm.models.clone_model(loaded).get_params()["categorical"] == ["code"]


@pytest.mark.parametrize(
    "categorical, error, match",
    [
        (["code", "nope"], ValueError, r"`categorical` names columns that are not in X: \['nope'\]"),
        ("code", InvalidParameterError, r"`categorical` must be None or a list of column names.*\['code'\]"),
        ([["a"]], InvalidParameterError, "is not a name"),
    ],
)
def test_bad_categorical_names_the_parameter(categorical, error, match):
    X, y = _parity(40)
    with pytest.raises(error, match=match):
        gm.NaiveBayes(categorical=categorical).fit(X, y)


# ---------------------------------------------------------------- prediction


def test_text_at_prediction_for_numbers_at_fit_is_read_as_numbers():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.integers(0, 4, 80), "b": rng.choice(list("xyz"), 80)})
    y = (X["a"] > 1).map({True: "high", False: "low"})
    model = gm.TAN().fit(X, y)
    expected = model.predict_proba(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "never seen" warning: 1, 1.0 and "1" are one state
        assert np.allclose(model.predict_proba(X.astype({"a": str})), expected)
        assert np.allclose(model.predict_proba(X.astype({"a": float})), expected)
        assert np.allclose(model.predict_proba(X.astype({"a": float}).astype({"a": str})), expected)


def test_binned_column_given_as_text_is_binned_the_same():
    X, y = _split("iris")
    model = gm.KDB().fit(X, y)
    as_text = X.astype(str)
    assert np.allclose(model.predict_proba(as_text), model.predict_proba(X))


def test_prediction_warns_naming_a_column_whose_values_were_never_seen():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"city": rng.choice(["rome", "oslo"], 60), "size": rng.choice(["s", "m"], 60)})
    y = rng.integers(0, 2, 60)
    model = gm.NaiveBayes().fit(X, y)
    recoded = X.assign(city=X["city"].map({"rome": 1, "oslo": 2}))
    with pytest.warns(UserWarning, match=r"60 of 60 values of column 'city' were never seen"):
        model.predict_proba(recoded)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one new value among many known ones: no warning
        model.predict_proba(pd.concat([X, X.iloc[:1].assign(city="paris")]))


def test_identifier_like_columns_warn_at_fit():
    X, y = _split("iris")
    with pytest.warns(UserWarning, match=r"'row id' has 150 distinct values in 150 rows"):
        gm.NaiveBayes().fit(X.assign(**{"row id": [f"r{i}" for i in range(150)]}), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gm.NaiveBayes().fit(X, y)


# ---------------------------------------------------------------- fitted state, persistence


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_cut_points_are_saved_and_loaded(tmp_path, suffix):
    X, y = _split("iris")
    model = gm.TAN().fit(X, y)
    path = tmp_path / f"tan{suffix}"
    model.save(path)
    loaded = gm.load_model(path)
    for column, cuts in model.discretizer_.cut_points_.items():
        assert np.array_equal(loaded.discretizer_.cut_points_[column], cuts)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.discretizer == "auto"


def test_discretizer_instance_is_cloned_and_persisted(tmp_path):
    X, y = _split("iris")
    binner = EqualFrequencyDiscretizer(n_bins=3)
    model = gm.NaiveBayes(discretizer=binner).fit(X, y)
    assert not hasattr(binner, "cut_points_")  # the caller's object is never fitted
    assert all(len(c) == 2 for c in model.discretizer_.cut_points_.values())
    model.save(tmp_path / "nb.json")
    loaded = gm.load_model(tmp_path / "nb.json")
    assert loaded.discretizer.get_params() == binner.get_params()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_nothing_to_cut_leaves_no_discretizer():
    frame = gm.datasets.load("car")
    model = gm.TAN().fit(frame.drop(columns="class"), frame["class"])
    assert model.discretizer_ is None


@pytest.mark.parametrize("value", ["quantiles", 5, object()])
def test_invalid_discretizer_names_the_parameter(value):
    X, y = _split("iris")
    with pytest.raises(InvalidParameterError, match="`discretizer` must be"):
        gm.TAN(discretizer=value).fit(X, y)


def test_every_single_table_model_takes_a_discretizer():
    for kind in ("classifier", "density"):
        for name, cls in registered_models(kind).items():
            model = cls()
            assert model.get_params()["discretizer"] == "auto", name
            assert model.get_params()["categorical"] is None, name
    for name in ("md-nb", "md-tan", "md-aode"):
        assert registered_models("multilabel")[name]().get_params()["discretizer"] == "auto"
        assert registered_models("multilabel")[name]().get_params()["categorical"] is None


@pytest.mark.parametrize("name", list(registered_models("classifier")))
def test_every_classifier_learns_from_raw_iris(name):
    X, y = _split("iris")
    cls = registered_models("classifier")[name]
    params = {"random_state": 0} if "random_state" in cls().get_params() else {}
    model = quick_model(name, **params).fit(X, y)
    assert model.discretizer_ is not None
    assert model.score(X, y) > 0.9


def test_multidimensional_models_cut_numeric_columns():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"u": rng.normal(size=200), "v": rng.normal(size=200)})
    Y = pd.DataFrame({"a": (X["u"] > 0).astype(int), "b": (X["v"] > 0.5).astype(int)})
    model = gm.models.MultiDimensionalTAN().fit(X, Y)
    assert set(model.discretizer_.cut_points_) == {"u", "v"}
    assert (model.predict(X) == Y.to_numpy()).mean() > 0.8
    with pytest.warns(UserWarning, match="'u' has 200 distinct values"):
        assert gm.models.MultiDimensionalTAN(discretizer=None).fit(X, Y).discretizer_ is None


# ---------------------------------------------------------------- cross-validation


class _RecordingDiscretizer(MDLDiscretizer):
    """An MDL discretizer that records how many rows each fit saw."""

    fits: list[int] = []

    def fit(self, X, y, sample_weight=None):
        type(self).fits.append(len(X))
        return super().fit(X, y, sample_weight=sample_weight)


def test_cross_validation_fits_the_discretizer_on_training_folds_only():
    X, y = _split("iris")
    _RecordingDiscretizer.fits = []
    folds = cross_validate(gm.NaiveBayes(discretizer=_RecordingDiscretizer()), X, y, cv=StratifiedKFold(5))
    assert _RecordingDiscretizer.fits == list(folds["n_train"])
    assert all(n == 120 for n in _RecordingDiscretizer.fits)


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize("discretizer", [MDLDiscretizer(), EqualFrequencyDiscretizer(n_bins=4, min_distinct=2)])
def test_integer_weights_give_the_cut_points_of_repeated_rows(discretizer):
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"x": rng.normal(size=60)})
    y = (X["x"] + rng.normal(scale=0.5, size=60) > 0).astype(int)
    weights = rng.integers(0, 4, 60)
    repeated = np.repeat(np.arange(60), weights)
    weighted = type(discretizer)(**discretizer.get_params()).fit(X, y, sample_weight=weights)
    expanded = type(discretizer)(**discretizer.get_params()).fit(X.iloc[repeated], y.iloc[repeated])
    assert np.allclose(weighted.cut_points_["x"], expanded.cut_points_["x"])


def test_hierarchical_nb_states_read_as_intervals():
    from graphmodels.plotting.latent_trees import state_lines

    X, y = _split("iris")
    model = gm.HierarchicalNaiveBayes(random_state=0).fit(X, y)
    latents = [n for n, data in model.structure_.nodes(data=True) if data.get("role") == "latent"]
    assert latents
    lines = state_lines(model.structure_, latents[0])
    assert any(" in (" in line and "]" in line for line in lines)


def test_drawing_writes_the_cut_points_under_the_names():
    import matplotlib

    matplotlib.use("Agg")
    from graphmodels.plotting import draw_network

    X, y = _split("iris")
    model = gm.TAN().fit(X, y)
    texts = [t.get_text() for t in draw_network(model, show_cut_points=True).texts]
    assert "petal\nlength\n2.45 | 4.75" in texts
    plain = [t.get_text() for t in draw_network(model).texts]
    assert "petal\nlength" in plain and not any("|" in t for t in plain)
    legend = [t.get_text() for t in draw_network(model, show_cut_points=True).get_legend().get_texts()]
    assert "a | b: cut points" in legend


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_cut_points_of_tuple_and_integer_column_names_round_trip(tmp_path, suffix):
    rng = np.random.default_rng(5)
    X = pd.DataFrame({("a", 1): rng.normal(size=200), 7: rng.normal(size=200), "#x y": rng.choice(["p", "q"], 200)})
    y = np.where(X[("a", 1)] > 0, "1", "10")
    model = gm.TAN().fit(X, y)
    assert list(model.discretizer_.cut_points_) == [("a", 1), 7]
    model.save(tmp_path / f"m{suffix}")
    loaded = gm.load_model(tmp_path / f"m{suffix}")
    assert list(loaded.discretizer_.cut_points_) == [("a", 1), 7]
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
