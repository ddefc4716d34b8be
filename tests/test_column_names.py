"""Any hashable column names and labels, over every registered model: fit, predict, save and load.

Column names are the variables' names in every structure, so a model must not
mistake an integer name for a column position, a tuple name for a sequence of
variables, or ``1`` for ``"1"``; persistence must give back exactly the names
and labels it was given.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model

from graphmodels.learners.trees import canonical_order
from graphmodels.models import load_model, registered_models

MODELS = registered_models()

#: Column names of the four attributes, by case.
NAMES = {
    "permuted-ints": [2, 0, 3, 1],
    "numpy-ints": [np.int64(7), np.int64(0), np.int32(1), np.int16(2)],
    "tuples": [("a", 1), ("b", 0), ("c",), ("d", "x")],
    "int-and-str": [1, "1", "b", 0],
    "bools-and-float": [True, False, "x", 0.5],
    "strings": ["#", " spaced ", "é✓", "10"],
}


def _kind(name):
    return next(kind for kind in ("classifier", "density", "multilabel") if name in registered_models(kind))


def _data(names, seed=0, n_rows=150):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = (a + rng.integers(0, 2, n_rows)) % 3
    c = rng.integers(0, 2, n_rows)
    d = (b + c + rng.integers(0, 2, n_rows)) % 4
    X = pd.DataFrame({"a": a.astype(str), "b": b, "c": np.where(c == 1, "yes", "no"), "d": d})
    X.columns = pd.Index(names, tupleize_cols=False, dtype=object)
    y = pd.Series(np.where((a + c) % 2 == 0, "10", "2"), name="label")
    Y = pd.DataFrame({"L1": y.to_numpy(), "L2": np.where(b > 0, "on", "off")})
    return X, y, Y


def _fit(model, kind, X, y, Y):
    if kind == "classifier":
        return model.fit(X, y)
    if kind == "density":
        return model.fit(X)
    return model.fit(X, Y)


def _predict(model, kind, X):
    return model.score_samples(X) if kind == "density" else model.predict_proba(X)


def _assert_same(a, b, **tolerance):
    if isinstance(a, list):
        assert len(a) == len(b)
        for ta, tb in zip(a, b):
            np.testing.assert_allclose(ta, tb, **tolerance)
    else:
        np.testing.assert_allclose(a, b, **tolerance)


@pytest.mark.parametrize("case", sorted(NAMES))
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_renaming_the_columns_changes_no_prediction(model_name, case):
    # Names renamed to strings that sort the same way (ties are broken by name order).
    # On the data of the save-and-load test below (mixed states, missing cells, labels of every
    # kind): the model fitted with the case's names is that test's, fitted once for both.
    kind = _kind(model_name)
    X, y, Y = _label_data(case)
    order = canonical_order(list(X.columns))
    plain = X.set_axis([f"v{order.index(c)}" for c in X.columns], axis=1)
    model = _fitted_on_label_data(model_name, case)
    reference = _fit(_seeded(model_name), kind, plain, y, Y)
    _assert_same(_predict(model, kind, X), _predict(reference, kind, plain), rtol=1e-10)


@pytest.mark.parametrize("column", [None, float("nan")])
def test_a_missing_column_name_is_refused_by_name(column):
    X, y, _ = _data(["a", "b", "c", "d"])
    X.columns = pd.Index(["a", column, "c", "d"], dtype=object)
    cls = MODELS["tan"]
    with pytest.raises(ValueError, match=r"Column 1 of `X` has no name.*X\.columns"):
        cls().fit(X, y)


def test_the_target_left_in_x_is_refused_by_name():
    X, y, _ = _data(["a", "b", "c", "d"])
    with pytest.raises(
        ValueError, match=r"Column 'label' of `X` is the target `y` itself.*X.drop\(columns=\['label'\]\)"
    ):
        MODELS["nb"]().fit(X.assign(label=y), y)


@pytest.mark.parametrize(
    "columns, y_name, class_name",
    [
        (["a", "b", "label", "d"], "label", "class"),  # y made from a column, named as it: the class is "class"
        (["a", "label", "class", "d"], "label", "__class__"),
        (["a", "class", "c", "d"], None, "__class__"),  # y without a name: "class", or "__class__" if taken
        (["a", "class", "__class__", "label"], "label", None),  # every name taken: an error naming them
        (["a", "class", "__class__", "d"], None, None),
    ],
)
def test_the_class_takes_the_first_name_no_column_has(columns, y_name, class_name):
    X, y, _ = _data(columns)
    model = MODELS["nb"]()
    if class_name is None:
        with pytest.raises(ValueError, match=r"`X` has columns (.*)?'class', '__class__'.*Rename the target"):
            model.fit(X, y.rename(y_name))
        return
    model.fit(X, y.rename(y_name))
    assert model.class_name_ == class_name
    assert list(model.structure_.nodes)[-1] == class_name or class_name in model.structure_


#: Class labels (two classes, chosen by a 0/1 code) and label columns, paired with a case of names.
LABELS = {
    "permuted-ints": (["1", "10"], [("L", 1), 10]),
    "numpy-ints": ([np.int64(3), np.int64(-1)], ["lab#", 5]),
    "tuples": ([("a", 1), ("b",)], [("L", 1), ("L", 2)]),
    "int-and-str": ([1, "1"], [3, "3"]),
    "bools-and-float": ([True, False], [("t", True), 2.5]),
    "strings": (["é", " spaced "], ["##", "  "]),
    "multiindex": (["2", "10"], [("Y", "a"), ("Y", "b")]),
}


def _label_data(case, seed=0, n_rows=150):
    names = NAMES.get(case, [("A", "x"), ("A", 1), ("B", "x"), ("B", 2)])
    X, _, _ = _data(names, seed, n_rows)
    if case == "multiindex":
        X.columns = pd.MultiIndex.from_tuples(names)
    rng = np.random.default_rng(seed + 1)
    # States of every kind in one column: ints, int-looking strings, tuples, floats; NaN cells.
    mixed = np.empty(n_rows, dtype=object)
    mixed[:] = [[1, "1", (0, "a"), 2.5][k] for k in rng.integers(0, 4, n_rows)]
    X[X.columns[2]] = mixed
    X[X.columns[3]] = np.where(rng.random(n_rows) < 0.1, np.nan, [0.1, 0.25, 3.0, 7.5][0]) + np.asarray(
        X[X.columns[3]], dtype=float
    )
    labels, label_names = LABELS[case]
    code = (np.asarray(X[X.columns[1]]) + rng.integers(0, 2, n_rows)) % 2
    y = np.empty(n_rows, dtype=object)
    y[:] = [labels[k] for k in code]
    Y = pd.DataFrame({0: y, 1: np.where(X[X.columns[1]].to_numpy() > 0, "on", "off")})
    Y.columns = pd.Index(label_names, tupleize_cols=False, dtype=object)
    return X, pd.Series(y, name="class"), Y


@functools.cache
def _fitted_on_label_data(model_name, case):
    """``quick_model(model_name)`` fitted on ``_label_data(case)``, once for the file (the tests only read it)."""
    return _fit(_seeded(model_name), _kind(model_name), *_label_data(case))


def _seeded(model_name):
    """``quick_model(model_name)``, with ``random_state=0`` where it draws (HNB's inner folds): two fits agree."""
    model = quick_model(model_name)
    return model.set_params(random_state=0) if "random_state" in model.get_params() else model


def _typed(values):
    """Values with their types: 1, 1.0, True and '1' are different labels (a numpy scalar is saved
    as the Python scalar it equals, ``np.int64(3)`` as ``3``)."""
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    return [(type(v).__name__, _typed(v) if isinstance(v, tuple) else v) for v in values]


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_tuple_names_states_and_labels_are_single_values(model_name):
    # pandas reads a list of tuples as the rows of a MultiIndex (and fails on tuples of
    # different lengths); a tuple name, state or label is one value.
    kind = _kind(model_name)
    X, y, Y = _label_data("tuples")
    states = np.empty(len(X), dtype=object)
    states[:] = [[("p", 1), ("q",), (2, 3)][k % 3] for k in range(len(X))]
    X[X.columns[0]] = states
    model = _fit(quick_model(model_name), kind, X, y, Y)
    new = X.iloc[:5].copy()
    new.iloc[0, 0] = ("never", "seen")
    if kind == "density":
        assert np.isfinite(model.score_samples(new)).all()
        sample = model.sample(50, random_state=0)
        assert list(sample.columns) == list(X.columns)
        assert set(sample[X.columns[0]]) <= {("p", 1), ("q",), (2, 3)}
        return
    proba = model.predict_proba(new)
    predicted = model.predict(new)
    if kind == "classifier":
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert set(predicted) <= {("a", 1), ("b",)}
    else:
        assert {tuple(row) for row in predicted[:, :1]} <= {(("a", 1),), (("b",),)}
        assert model.score(X, Y) > 0.4


@pytest.mark.parametrize("case", sorted(LABELS))
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_any_hashable_names_and_labels_survive_save_and_load(model_name, case, tmp_path):
    kind = _kind(model_name)
    X, y, Y = _label_data(case)
    model = _fitted_on_label_data(model_name, case)
    new = X.iloc[:20].copy()
    new[X.columns[0]] = "never seen"
    with pytest.warns(UserWarning, match="never seen in fit"):
        expected_new = _predict(model, kind, new)
    for extension in (".json", ".npz"):  # one fit, both formats
        path = tmp_path / f"model{extension}"
        model.save(path)
        loaded = load_model(path)
        assert type(loaded) is MODELS[model_name]
        _assert_same(_predict(loaded, kind, X), _predict(model, kind, X), rtol=0, atol=0)
        with pytest.warns(UserWarning, match="never seen in fit"):
            _assert_same(_predict(loaded, kind, new), expected_new, rtol=0, atol=0)
        if kind == "density":
            pd.testing.assert_frame_equal(loaded.sample(5, random_state=0), model.sample(5, random_state=0))
        else:
            predicted, again = model.predict(X), loaded.predict(X)
            assert again.dtype == predicted.dtype
            assert _typed(again.ravel()) == _typed(predicted.ravel())
        if kind == "classifier":
            assert _typed(loaded.classes_) == _typed(model.classes_)
        if kind == "multilabel":
            assert _typed(loaded.label_names_) == _typed(model.label_names_)
            assert [_typed(c) for c in loaded.classes_] == [_typed(c) for c in model.classes_]
        encoder = getattr(loaded, "encoder_", None)
        if encoder is not None:
            assert _typed(encoder.columns_) == _typed(model.encoder_.columns_)
            assert [_typed(v) for v in encoder.levels_] == [_typed(v) for v in model.encoder_.levels_]


def test_version_1_files_with_tuple_names_still_load(tmp_path):
    # Version 1 wrote the encoder's names and levels untagged: JSON turned tuples into lists.
    X, y, _ = _label_data("tuples")
    model = MODELS["nb"]().fit(X, y)
    model.save(tmp_path / "model.json")
    document = json.loads((tmp_path / "model.json").read_text(encoding="utf-8"))
    state = model.encoder_.to_dict()
    document["version"] = 1
    document["fitted"]["encoder_"] = {"__encoder__": json.loads(json.dumps(state))}
    assert document["fitted"]["encoder_"]["__encoder__"]["columns"][0] == ["a", 1]
    (tmp_path / "old.json").write_text(json.dumps(document), encoding="utf-8")
    loaded = load_model(tmp_path / "old.json")
    assert loaded.encoder_.columns_ == model.encoder_.columns_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
