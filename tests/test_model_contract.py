"""The model contract (graphmodels.models.base), checked over every registered model.

A new model joins the registry with ``@register_model`` and is checked here
with no further test code: keyword-only constructor storing its arguments,
declared parameter rules, fitted state only after a successful fit, a clear
not-fitted error, one structure in ``structure_``, get/set_params/clone and
save/load round trips.
"""

from __future__ import annotations

import copy
import functools
import inspect
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model

import graphmodels as gm
from graphmodels._validation import InvalidParameterError
from graphmodels.estimators import LeaveOneOutSelection, get_estimator
from graphmodels.models import ModelFileError, NotFittedError, clone_model, load_model, registered_models
from graphmodels.structures import Hyperforest

MODELS = registered_models()


def _data(seed=0, n_rows=120):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = (a + rng.integers(0, 2, n_rows)) % 3
    c = rng.integers(0, 2, n_rows)
    X = pd.DataFrame({"a col": a.astype(str), "b#": b.astype(str), "c": np.where(c == 1, "yes", "no")})
    y = pd.Series(np.where((a + c) % 2 == 0, "10", "2"), name="label")
    Y = pd.DataFrame({"L1": y.to_numpy(), "L2": np.where(b > 0, "on", "off")})
    return X, y, Y


def _fit(model, kind, X, y, Y):
    if kind == "classifier":
        return model.fit(X, y)
    if kind == "density":
        return model.fit(X)
    return model.fit(X, Y)


def _kind(name):
    return next(kind for kind in ("classifier", "density", "multilabel") if name in registered_models(kind))


def _predict(model, kind, X):
    return model.score_samples(X) if kind == "density" else model.predict_proba(X)


@functools.cache
def _fitted(name):
    """``quick_model(name)`` fitted on ``_data()``, once for the file.

    The tests that only read a fitted model (its attributes, a clone, save and load, the
    predictions a traced fit must equal, fit_counts) share it; a test that changes a
    model changes a deep copy.
    """
    return _fit(quick_model(name), _kind(name), *_data())


def _fitted_names(model):
    return sorted(name for name in vars(model) if name.endswith("_") and not name.startswith("__"))


@pytest.fixture(params=sorted(MODELS), ids=sorted(MODELS))
def entry(request):
    name = request.param
    return name, MODELS[name], _kind(name)


def test_registry_holds_every_public_model():
    public = {
        obj
        for obj in vars(gm.models).values()
        if isinstance(obj, type)
        and issubclass(obj, gm.models.BaseModel)
        and not inspect.isabstract(obj)
        and obj.__name__ in gm.models.__all__
        and not obj.__name__.startswith("Base")
    }
    # MultiLabelModelSelection (moved here from graphmodels.evaluation) is a model-selection wrapper,
    # as scikit-learn's GridSearchCV: its hyperparameter is a dict of models, it has no default, no
    # prior of its own and is not saved, so it stays out of the registry, as it was before the move.
    # Its random_state defaults to None like every model's.
    assert public - {gm.models.MultiLabelModelSelection} == set(MODELS.values())
    assert gm.models.MultiLabelModelSelection().random_state is None
    assert set(gm.models.CLASSIFIERS.values()) <= set(MODELS.values())


def test_constructor_is_keyword_only_and_only_stores(entry):
    name, cls, _ = entry
    parameters = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    assert all(p.kind is p.KEYWORD_ONLY for p in parameters), name
    model = cls()
    for p in parameters:
        assert getattr(model, p.name) is p.default, p.name
    assert _fitted_names(model) == []
    if "random_state" in model.get_params():
        assert model.random_state is None


def test_prior_is_called_estimator(entry):
    name, cls, kind = entry
    params = cls().get_params()
    if name in ("binary-relevance", "label-powerset", "classifier-chain"):
        assert "base" in params  # the base classifier carries the prior
    else:
        assert "estimator" in params and "max_cells" in params, name
    for old in ("pseudo_count", "prior_strength"):
        if old in params:
            assert params[old] == "deprecated"


def test_every_declared_rule_refuses_a_wrong_value_and_names_the_parameter(entry):
    name, cls, kind = entry
    X, y, Y = _data()
    for parameter in cls._constraints():
        model = cls(**{parameter: object()})
        with pytest.raises(InvalidParameterError, match=f"`{parameter}`"):
            _fit(model, kind, X, y, Y)
        assert _fitted_names(model) == [], parameter


def test_validation_sets_no_state(entry):
    _, cls, _ = entry
    model = cls()
    before = dict(vars(model))
    model._validate_params()
    assert vars(model) == before


def test_unfitted_model_raises_not_fitted(entry):
    name, cls, kind = entry
    X, _, _ = _data()
    with pytest.raises(NotFittedError, match="not fitted"):
        _predict(cls(), kind, X)
    with pytest.raises(AttributeError):  # scikit-learn's NotFittedError is an AttributeError too
        _predict(cls(), kind, X)


def test_fitted_attributes(entry):
    name, cls, kind = entry
    X, y, Y = _data()
    model = _fitted(name)
    assert model.n_features_in_ == 3
    assert list(model.feature_names_in_) == list(X.columns)
    if kind == "classifier":
        assert list(model.classes_) == ["10", "2"]
        proba = model.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    elif kind == "multilabel":
        assert [list(c) for c in model.classes_] == [["10", "2"], ["off", "on"]]
    if "estimator" in model.get_params() and "estimator_" in vars(model):
        expected = get_estimator(model.estimator if model.estimator is not None else model.estimator_)
        if isinstance(expected, LeaveOneOutSelection):
            # The selection resolves to one of its candidates (the first for a joint hyperforest).
            assert model.estimator_ in expected.candidates
            if hasattr(model, "estimator_selection_"):
                chosen = model.estimator_selection_["log_loss"].idxmin()
                assert model.estimator_ == expected.candidates[chosen]
        else:
            assert model.estimator_ == expected
    if hasattr(model, "structure_"):
        assert isinstance(model.structure_, (nx.Graph, Hyperforest)), type(model.structure_)
    if hasattr(model, "structures_"):
        assert all(isinstance(s, (nx.Graph, Hyperforest)) for s in model.structures_)
    if name not in ("binary-relevance", "label-powerset", "classifier-chain"):
        assert hasattr(model, "structure_"), name


def test_failed_fit_leaves_the_model_unfitted(entry):
    name, cls, kind = entry
    X, y, Y = _data()
    model = copy.deepcopy(_fitted(name))
    with pytest.raises(ValueError):
        _fit(model, kind, X.iloc[:0], y.iloc[:0], Y.iloc[:0])
    assert _fitted_names(model) == []
    with pytest.raises(NotFittedError):
        _predict(model, kind, X)


def test_refit_replaces_the_fitted_state(entry):
    name, cls, kind = entry
    X, y, Y = _data(seed=1)
    X2, y2, Y2 = _data(seed=2)
    twice = _fit(_fit(quick_model(name), kind, X, y, Y), kind, X2, y2, Y2)
    once = _fit(quick_model(name), kind, X2, y2, Y2)
    assert _fitted_names(twice) == _fitted_names(once)
    _assert_same_predictions(twice, once, kind, X)


def _assert_same_predictions(a, b, kind, X):
    pa, pb = _predict(a, kind, X), _predict(b, kind, X)
    if isinstance(pa, list):
        for ta, tb in zip(pa, pb):
            np.testing.assert_allclose(ta, tb, rtol=1e-12)
    else:
        np.testing.assert_allclose(pa, pb, rtol=1e-12)


def test_params_round_trip(entry):
    _, cls, _ = entry
    model = cls()
    copy = clone_model(model)
    assert type(copy) is cls and copy is not model
    assert copy.get_params(deep=False).keys() == model.get_params(deep=False).keys()
    assert repr(copy) == repr(model) == f"{cls.__name__}()"
    model.set_params(**model.get_params(deep=False))
    with pytest.raises(ValueError, match="Invalid parameter"):
        model.set_params(no_such_parameter=1)


def test_clone_of_a_fitted_model_is_unfitted(entry):
    name, cls, kind = entry
    copy = clone_model(_fitted(name))
    assert _fitted_names(copy) == []


@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_save_load_round_trip(entry, tmp_path, extension):
    name, cls, kind = entry
    X, _, _ = _data()
    model = _fitted(name)
    # load_model accepts only the declared fitted attributes: every one a fit sets must be declared.
    assert set(_fitted_names(model)) <= cls._declared_fitted_attributes()
    path = tmp_path / f"model{extension}"
    model.save(path)
    again = load_model(path)
    assert type(again) is cls
    _assert_same_predictions(again, model, kind, X)
    # Each model's _validate_fitted_state reads its tables: one NaN in the first is refused, by name.
    broken = copy.deepcopy(model)
    name, table = _first_log_table(broken)
    table.flat[0] = np.nan
    broken.save(path)
    with pytest.raises(ModelFileError, match=rf"{re.escape(name)}.*` holds NaN"):
        load_model(path)


def _first_log_table(value, name=None, inside=False):
    """``(attribute, array)``: the first float array under an attribute or key naming a log table, depth first.

    Not ``class_log_prior_``, which every classifier checks alike: a table of the model's own family.
    """
    if isinstance(value, np.ndarray):
        return (name, value) if inside and value.dtype.kind == "f" and value.size else None
    if isinstance(value, gm.models.BaseModel):
        items = sorted((k, v) for k, v in vars(value).items() if k.endswith("_") and k != "class_log_prior_")
    elif isinstance(value, dict):
        items = [(k if isinstance(k, str) else name, v) for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(name, v) for v in value]
    else:
        return None
    for key, item in items:
        found = _first_log_table(item, key, inside or (isinstance(key, str) and "log" in key))
        if found is not None:
            return found
    return None


def test_unfitted_model_cannot_be_saved(entry, tmp_path):
    _, cls, _ = entry
    with pytest.raises(NotFittedError):
        cls().save(tmp_path / "model.json")


#: The models whose fit searches for a structure: each takes ``trace`` (issue 17). The others'
#: structure is fixed by their settings (naive Bayes, AODE / AnDE's members, the label
#: transformations' wrapped classifiers).
TRACED = {
    "tan", "fan", "chow-liu", "chow-liu-tree", "kdb", "skdb", "hnb", "hyperforest", "hyperforest-density",
    "kikuchi-bayes", "md-nb", "md-tan", "md-aode", "bayesian-network",
}  # fmt: skip


def test_models_with_a_structure_search_take_trace(entry):
    name, cls, _ = entry
    assert ("trace" in cls().get_params()) == (name in TRACED), name


@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_trace_is_fitted_only_when_asked_and_changes_nothing_else(entry, tmp_path, extension):
    name, cls, kind = entry
    if name not in TRACED:
        return
    X, y, Y = _data()
    plain = _fitted(name)
    traced = _fit(quick_model(name, trace=True), kind, X, y, Y)
    assert "trace_" not in vars(plain)
    assert _fitted_names(traced) == sorted(_fitted_names(plain) + ["trace_"])
    assert set(_fitted_names(traced)) <= cls._declared_fitted_attributes()
    _assert_same_predictions(traced, plain, kind, X)
    trace = traced.trace_
    assert isinstance(trace, pd.DataFrame) and len(trace) > 0
    assert {"step", "action", "item", "score", "reason"} <= set(trace.columns)
    assert trace["step"].tolist() == list(range(len(trace)))
    path = tmp_path / f"model{extension}"
    traced.save(path)
    pd.testing.assert_frame_equal(load_model(path).trace_, trace)
    assert "trace_" not in vars(clone_model(traced))


def test_fit_counts_equals_fit():
    X, y, _ = _data()
    counts = gm.models.training_counts(X, y)
    for name in registered_models("classifier"):
        shared = quick_model(name).fit_counts(counts)
        alone = _fitted(name)
        np.testing.assert_allclose(shared.predict_proba(X), alone.predict_proba(X), rtol=1e-12, err_msg=name)
    density_counts = gm.models.training_counts(X)
    for name, cls in registered_models("density").items():
        np.testing.assert_allclose(
            cls().fit_counts(density_counts).score_samples(X), cls().fit(X).score_samples(X), err_msg=name
        )
    with pytest.raises(ValueError, match="no class variable"):
        gm.TAN().fit_counts(density_counts)
    with pytest.raises(ValueError, match="has a class variable"):
        gm.ChowLiuTree().fit_counts(counts)
    with pytest.raises(ValueError, match="missing"):
        gm.TAN(missing="error").fit_counts(counts)
    with pytest.raises(TypeError, match="TrainingCounts"):
        gm.TAN().fit_counts(X)


def test_deprecated_names_warn(tmp_path):
    X, y, _ = _data()
    with pytest.warns(FutureWarning, match="prior_strength"):
        old = gm.KikuchiBayes(prior_strength=2.0).fit(X, y)
    new = gm.KikuchiBayes(estimator=gm.estimators.BDeu(2.0)).fit(X, y)
    np.testing.assert_array_equal(old.predict_proba(X), new.predict_proba(X))
    new.save(tmp_path / "model.json")
    with pytest.warns(FutureWarning, match="load_model"):
        again = gm.load(tmp_path / "model.json")
    np.testing.assert_array_equal(again.predict_proba(X), new.predict_proba(X))


def test_not_fitted_error_is_also_scikit_learns_when_it_is_loaded():
    sklearn_exceptions = pytest.importorskip("sklearn.exceptions")
    X, _, _ = _data()
    with pytest.raises(NotFittedError) as caught:
        gm.TAN().predict(X)
    assert isinstance(caught.value, sklearn_exceptions.NotFittedError)
