"""The Liang & Srebro UCI protocol runner."""

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.evaluation import LIANG_SREBRO_METHODS, liang_srebro_protocol, method_name, parse_method
from graphmodels.evaluation.protocols import _with_all_values


def test_the_nineteen_triples_and_their_names():
    names = [method_name(*m) for m in LIANG_SREBRO_METHODS]
    assert len(names) == len(set(names)) == 19
    assert names[0] == "ML-Cf-0" and "MDL-Cs-3" in names and "ML-J-0" not in names
    assert all(parse_method(name) == m for name, m in zip(names, LIANG_SREBRO_METHODS))
    with pytest.raises(ValueError, match="MDL-Cs-3"):
        parse_method("MDL-X-3")


def test_protocol_on_car():
    frame = gm.datasets.load("car")
    X, y = frame.drop(columns="class"), frame["class"]
    result = liang_srebro_protocol(X, y, methods=["ML-Cf-1", "ML-Cs-1", "MDL-Cs-2", "ML-J-0"], n_trials=2)
    assert len(result) == 8 and set(result["trial"]) == {0, 1}
    assert np.isfinite(result[["train_loglik", "test_loglik"]].to_numpy()).all()
    assert (result[["train_error", "test_error"]].to_numpy() <= 1).all()
    means = result.groupby("method").mean(numeric_only=True)
    # the majority class (J-0) is the weakest classifier; trees do far better on car
    assert means.loc["ML-J-0", "test_error"] > means.loc["ML-Cs-1", "test_error"] + 0.1
    # the same split and seed give the same numbers; a shared engine gives what a lone fit gives
    again = liang_srebro_protocol(X, y, methods=["ML-Cs-1"], n_trials=2)
    np.testing.assert_allclose(
        again["test_loglik"].to_numpy(), result[result["method"] == "ML-Cs-1"]["test_loglik"].to_numpy()
    )


def test_values_of_the_whole_set_are_kept():
    X = pd.DataFrame({"a": ["x", "y", None, "x"], "b": [1.0, 2.0, 2.0, np.nan]})
    out = _with_all_values(X)
    assert list(out["a"].cat.categories) == ["?", "x", "y"]
    assert list(out["b"].cat.categories) == ["1.0", "2.0", "?"]
