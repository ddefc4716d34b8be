"""Saving and loading models as JSON and NPZ."""

import json

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import Dirichlet

# The tree-family classifiers (as in test_models.py); the contract test round-trips every registered model.
CLASSIFIERS = [gm.NaiveBayes, gm.TAN, gm.FAN, gm.ChowLiu, gm.AODE]


@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_classifier_round_trip(tmp_path, model_class, extension, random_table):
    rng = np.random.default_rng(0)
    X, y = random_table(rng)
    X.columns = ["#", "a b", "é", 1, "x"]
    X.iloc[::9, 2] = None
    labels = y.map({"c0": "1", "c1": "10", "c2": "2"})
    model = model_class(estimator=Dirichlet(0.5)).fit(X, labels)
    path = tmp_path / f"model{extension}"
    model.save(path)
    loaded = gm.load_model(path)
    assert type(loaded) is model_class
    assert loaded.get_params() == model.get_params()
    assert loaded.classes_.tolist() == ["1", "10", "2"]
    test = X.assign(x="unseen state")
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert set(loaded.structure_.edges) == set(model.structure_.edges)
    assert dict(loaded.structure_.nodes(data=True)) == dict(model.structure_.nodes(data=True))


def test_integer_labels_and_numpy_input_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.integers(3, size=(50, 3))
    y = rng.integers(2, size=50) * 10
    model = gm.TAN().fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = gm.load_model(tmp_path / "m.json")
    assert loaded.classes_.tolist() == [0, 10] and loaded.classes_.dtype.kind == "i"
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_density_round_trip(tmp_path, random_table):
    rng = np.random.default_rng(2)
    X, _ = random_table(rng)
    model = gm.ChowLiuTree().fit(X)
    model.save(tmp_path / "d.npz")
    loaded = gm.load_model(tmp_path / "d.npz")
    np.testing.assert_array_equal(loaded.score_samples(X), model.score_samples(X))
    pd.testing.assert_frame_equal(loaded.sample(10, random_state=0), model.sample(10, random_state=0))


def test_saved_json_is_plain_data(tmp_path, random_table):
    rng = np.random.default_rng(3)
    X, y = random_table(rng)
    gm.NaiveBayes().fit(X, y).save(tmp_path / "nb.json")
    document = json.loads((tmp_path / "nb.json").read_text())
    assert document["model"] == "NaiveBayes" and document["format"] == "graphmodels"


def test_save_errors(tmp_path, random_table):
    with pytest.raises(ValueError, match="not fitted"):
        gm.NaiveBayes().save(tmp_path / "x.json")
    rng = np.random.default_rng(4)
    X, y = random_table(rng)
    with pytest.raises(ValueError, match=r"\.json"):
        gm.NaiveBayes().fit(X, y).save(tmp_path / "x.pkl")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a saved graphmodels model"):
        gm.load_model(tmp_path / "other.json")
    (tmp_path / "evil.json").write_text('{"format": "graphmodels", "model": "os.system", "params": {}, "fitted": {}}')
    with pytest.raises(ValueError, match="Unknown model"):
        gm.load_model(tmp_path / "evil.json")
