"""Bad input, over every registered model: a ValueError or TypeError that names the user's column or
parameter and says how to fix it, never a KeyError, an IndexError or a bare numpy or pandas error.

Records are tables: a list of dicts, a dict of columns and a dict of one row's values are read as
pandas reads them, at fit and at predict.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model

from graphmodels.models import NotFittedError, registered_models

MODELS = registered_models()
CLASSIFIERS = registered_models("classifier")
N_ROWS = 60


def _kind(name):
    return next(kind for kind in ("classifier", "density", "multilabel") if name in registered_models(kind))


def _data(seed=0, n_rows=N_ROWS):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n_rows)
    size = rng.integers(0, 3, n_rows)
    X = pd.DataFrame({"colour": colour, "size": size})
    y = pd.Series(np.where((size > 0) ^ (colour == "red"), "yes", "no"), name="label")
    Y = pd.DataFrame({"rain": y.to_numpy(), "wind": np.where(size == 2, "gale", "calm")})
    return X, y, Y


def _fit(model, kind, X, y, Y, **kwargs):
    if kind == "classifier":
        return model.fit(X, y, **kwargs)
    if kind == "density":
        return model.fit(X, **kwargs)
    return model.fit(X, Y, **kwargs)


def _predict(model, kind, X):
    return model.score_samples(X) if kind == "density" else model.predict_proba(X)


def _cells(values):
    out = np.empty(N_ROWS, dtype=object)
    for i in range(N_ROWS):
        out[i] = values[i % len(values)]
    return out


def _with(X, column, values):
    X = X.copy()
    X[column] = _cells(values)
    return X


def _with_y(y, value, at=3):
    out = np.empty(len(y), dtype=object)
    for i, label in enumerate(y):
        out[i] = value if i == at else label
    return pd.Series(out, name=y.name)


#: Bad training input: name -> (how to make X, y and fit's keyword arguments from good ones, message).
BAD_FIT = {
    "list-cells": (lambda X, y: (_with(X, "colour", [[1, 2]]), y, {}), r"Column 'colour' of `X`.*\.map\(tuple\)"),
    "dict-cells": (
        lambda X, y: (_with(X, "size", [{"a": 1}]), y, {}),
        r"Column 'size' of `X` holds a dict.*map\(str\)",
    ),
    "set-cells": (lambda X, y: (_with(X, "colour", [{1}, "red"]), y, {}), r"Column 'colour'.*map\(frozenset\)"),
    "unhashable-labels": (lambda X, y: (X, _with_y(y, [1, 2]), {}), r"`y` holds a list \(\[1, 2\]\) at row 3"),
    "dict-labels": (lambda X, y: (X, _with_y(y, {"a": 1}), {}), r"`y` holds a dict"),
    "2-d-labels": (lambda X, y: (X, np.column_stack([y, y]), {}), r"`y` must be 1-dimensional.*multi-label model"),
    "label-frame": (lambda X, y: (X, pd.DataFrame({"a": y, "b": y}), {}), r"`y` must be one column.*multi-label"),
    "rows-of-labels": (lambda X, y: (X, [[v, v] for v in y], {}), r"`y` must be 1-dimensional.*rows of 2 labels"),
    "no-column": (lambda X, y: (X[[]], y, {}), r"`X` has 0 feature"),
    "missing-label": (lambda X, y: (X, _with_y(y, np.nan), {}), r"`y` has 1 missing labels; drop those rows"),
    "none-label": (lambda X, y: (X, _with_y(y, None), {}), r"`y` has 1 missing labels"),
    "infinite-label": (lambda X, y: (X, np.r_[np.inf, np.ones(N_ROWS - 1)], {}), r"`y` contains 1 infinite"),
    "labels-too-short": (lambda X, y: (X, y[:-1], {}), r"`X` has 60 rows but `y` has 59"),
    "unnamed-column": (lambda X, y: (X.set_axis(["colour", None], axis=1), y, {}), r"Column 1 of `X` has no name"),
    "duplicate-columns": (lambda X, y: (X.set_axis(["a", "a"], axis=1), y, {}), r"`X` has duplicate column names"),
    "negative-weight": (
        lambda X, y: (X, y, {"sample_weight": -np.ones(N_ROWS)}),
        r"`sample_weight` must be finite and non-negative, got -1.0 at row 0",
    ),
    "nan-weight": (
        lambda X, y: (X, y, {"sample_weight": np.r_[np.ones(5), np.nan, np.ones(N_ROWS - 6)]}),
        r"`sample_weight` must be finite and non-negative, got nan at row 5",
    ),
    "weights-too-short": (
        lambda X, y: (X, y, {"sample_weight": np.ones(N_ROWS - 1)}),
        r"`sample_weight` must have shape \(60,\), one weight per row of `X`, got \(59,\)",
    ),
    "text-weights": (lambda X, y: (X, y, {"sample_weight": ["heavy"] * N_ROWS}), r"`sample_weight` must be numbers"),
    "zero-weights": (lambda X, y: (X, y, {"sample_weight": np.zeros(N_ROWS)}), r"`sample_weight` sums to zero"),
    "x-is-a-path": (lambda X, y: ("data.csv", y, {}), r"`X` must be a DataFrame or a 2-D array, got str"),
    "x-is-1-d": (lambda X, y: (list(X["colour"]), y, {}), r"`X` must be 2-dimensional.*reshape\(-1, 1\)"),
}

#: Bad input to a fitted model: name -> (how to make X from the training X, message).
BAD_PREDICT = {
    "renamed-column": (lambda X: X.rename(columns={"size": "Size"}), r"missing columns \['size'\].*\['Size'\]"),
    "extra-column": (lambda X: X.assign(weight=1), r"unexpected columns \['weight'\]"),
    "missing-column": (lambda X: X[["colour"]], r"missing columns \['size'\]"),
    "record-with-a-typo": (lambda X: [{"colour": "red", "sise": 1}], r"missing columns \['size'\].*\['sise'\]"),
    "list-cells": (lambda X: _with(X, "colour", [["red"]]), r"Column 'colour' of `X` holds a list"),
    "wrong-width-array": (lambda X: np.zeros((3, 5)), r"X has 5 features.*expecting 2.*\['colour', 'size'\]"),
    "one-row-as-a-series": (lambda X: X.iloc[0], r"got a Series.*X\.iloc\[\[i\]\]"),
    "none": (lambda X: None, r"`X` must be a DataFrame or a 2-D array, got NoneType"),
}


@pytest.mark.parametrize("case", sorted(BAD_FIT))
@pytest.mark.parametrize("model_name", sorted(CLASSIFIERS))
def test_bad_training_input_names_the_column_or_parameter(model_name, case):
    make, message = BAD_FIT[case]
    X, y, _ = _data()
    X, y, kwargs = make(X, y)
    model = CLASSIFIERS[model_name]()
    with pytest.raises((ValueError, TypeError), match=message):
        model.fit(X, y, **kwargs)
    assert not model.__sklearn_is_fitted__()


@pytest.fixture(scope="module")
def fitted_once():
    """Each model fitted on ``_data()`` at its first use, shared by the cases that only predict on bad input."""
    return {}


@pytest.mark.parametrize("case", sorted(BAD_PREDICT))
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_bad_input_at_predict_names_the_column(model_name, case, fitted_once):
    make, message = BAD_PREDICT[case]
    kind = _kind(model_name)
    X, y, Y = _data()
    if model_name not in fitted_once:
        fitted_once[model_name] = _fit(quick_model(model_name), kind, X, y, Y)
    model = fitted_once[model_name]
    with pytest.raises((ValueError, TypeError), match=message):
        _predict(model, kind, make(X))


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_unfitted_model_says_to_fit_first(model_name):
    X, _, _ = _data()
    with pytest.raises(NotFittedError, match=r"not fitted yet; call `fit` first"):
        _predict(MODELS[model_name](), _kind(model_name), X)


@pytest.mark.parametrize("case", ["list-cells", "set-cells", "negative-weight", "text-weights", "unnamed-column"])
@pytest.mark.parametrize("model_name", sorted(set(MODELS) - set(CLASSIFIERS)))
def test_bad_training_input_of_densities_and_multilabel_models(model_name, case):
    make, message = BAD_FIT[case]
    kind = _kind(model_name)
    X, y, Y = _data()
    X, _, kwargs = make(X, y)
    with pytest.raises((ValueError, TypeError), match=message):
        _fit(MODELS[model_name](), kind, X, y, Y, **kwargs)


def test_unhashable_label_of_a_multilabel_model_names_the_label_column():
    X, _, Y = _data()
    Y["wind"] = _cells([["gale"], ["calm"]])
    with pytest.raises(TypeError, match=r"`Y\['wind'\]` holds a list.*Y\['wind'\] = Y\['wind'\]\.map\(tuple\)"):
        MODELS["binary-relevance"]().fit(X, Y)


def test_a_column_of_one_label_per_row_is_read_as_the_labels():
    X, y, _ = _data()
    model = CLASSIFIERS["nb"]().fit(X, [[v] for v in y])
    np.testing.assert_array_equal(model.predict_proba(X), CLASSIFIERS["nb"]().fit(X, y).predict_proba(X))


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_records_are_tables_at_fit_and_at_predict(model_name, fitted_once):
    kind = _kind(model_name)
    X, y, Y = _data()
    if model_name not in fitted_once:
        fitted_once[model_name] = _fit(quick_model(model_name), kind, X, y, Y)
    model = fitted_once[model_name]
    expected = _predict(model, kind, X.head(4))
    records = [dict(reversed(list(row.items()))) for row in X.head(4).to_dict("records")]  # key order is free
    for table in (records, X.head(4).to_dict("list")):
        got = _predict(model, kind, table)
        for a, b in zip(np.atleast_1d(got) if kind != "multilabel" else got, expected):
            np.testing.assert_array_equal(a, b)
    one_row = _predict(model, kind, {"size": int(X["size"].iloc[0]), "colour": X["colour"].iloc[0]})
    first = [table[:1] for table in expected] if kind == "multilabel" else expected[:1]
    for a, b in zip(one_row if kind == "multilabel" else [one_row], first if kind == "multilabel" else [first]):
        # one row against a batch of four: BLAS may sum in another order (an ulp), never more
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    from_records = _fit(quick_model(model_name), kind, X.to_dict("records"), y, Y)
    if kind != "density":
        assert list(from_records.feature_names_in_) == ["colour", "size"]
    np.testing.assert_allclose(
        np.concatenate([np.ravel(a) for a in np.atleast_1d(_predict(from_records, kind, X))]),
        np.concatenate([np.ravel(a) for a in np.atleast_1d(_predict(model, kind, X))]),
        rtol=1e-12,
    )


def test_a_record_missing_a_key_has_a_missing_cell():
    X, y, _ = _data()
    model = CLASSIFIERS["nb"]().fit(X, y)
    partial = model.predict_proba([{"colour": "red"}, {"colour": "red", "size": 1}])
    only_colour = CLASSIFIERS["nb"]().fit(X[["colour"]], y).predict_proba(pd.DataFrame({"colour": ["red"]}))
    np.testing.assert_allclose(partial[0], only_colour[0], rtol=1e-12)  # the missing cell is summed out
    with pytest.raises(ValueError, match=r"`X` is a dict of columns of different lengths \(\{'colour': 2, 'size': 1\}"):
        model.predict({"colour": ["red", "blue"], "size": [1]})
