"""Bad input, over every registered model: a ValueError or TypeError that names the user's column or
parameter and says how to fix it, never a KeyError, an IndexError or a bare numpy or pandas error.

Records are tables: a list of dicts, a dict of columns and a dict of one row's values are read as
pandas reads them, at fit and at predict.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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


#: Bad input to a fitted model: name -> (how to make X from the training X, message).
BAD_PREDICT = {
    "renamed-column": (lambda X: X.rename(columns={"size": "Size"}), r"missing columns \['size'\].*\['Size'\]"),
    "extra-column": (lambda X: X.assign(weight=1), r"unexpected columns \['weight'\]"),
    "missing-column": (lambda X: X[["colour"]], r"missing columns \['size'\]"),
    "record-with-a-typo": (lambda X: [{"colour": "red", "sise": 1}], r"missing columns \['size'\].*\['sise'\]"),
    "wrong-width-array": (lambda X: np.zeros((3, 5)), r"X has 5 features.*expecting 2.*\['colour', 'size'\]"),
    "one-row-as-a-series": (lambda X: X.iloc[0], r"got a Series.*X\.iloc\[\[i\]\]"),
    "none": (lambda X: None, r"`X` must be a DataFrame or a 2-D array, got NoneType"),
}


@pytest.mark.parametrize("case", sorted(BAD_PREDICT))
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_bad_input_at_predict_names_the_column(model_name, case):
    make, message = BAD_PREDICT[case]
    kind = _kind(model_name)
    X, y, Y = _data()
    model = _fit(MODELS[model_name](), kind, X, y, Y)
    if kind == "multilabel" and case == "wrong-width-array":
        message = r"`X` has 5 columns but \w+ was fitted with 2"
    with pytest.raises((ValueError, TypeError), match=message):
        _predict(model, kind, make(X))


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_unfitted_model_says_to_fit_first(model_name):
    X, _, _ = _data()
    with pytest.raises(NotFittedError, match=r"not fitted yet; call `fit` first"):
        _predict(MODELS[model_name](), _kind(model_name), X)


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_records_are_tables_at_fit_and_at_predict(model_name):
    kind = _kind(model_name)
    X, y, Y = _data()
    model = _fit(MODELS[model_name](), kind, X, y, Y)
    expected = _predict(model, kind, X.head(4))
    records = [dict(reversed(list(row.items()))) for row in X.head(4).to_dict("records")]  # key order is free
    for table in (records, X.head(4).to_dict("list")):
        got = _predict(model, kind, table)
        for a, b in zip(np.atleast_1d(got) if kind != "multilabel" else got, expected):
            np.testing.assert_array_equal(a, b)
    one_row = _predict(model, kind, {"size": int(X["size"].iloc[0]), "colour": X["colour"].iloc[0]})
    first = [table[:1] for table in expected] if kind == "multilabel" else expected[:1]
    for a, b in zip(one_row if kind == "multilabel" else [one_row], first if kind == "multilabel" else [first]):
        np.testing.assert_array_equal(a, b)
    from_records = _fit(MODELS[model_name](), kind, X.to_dict("records"), y, Y)
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
