"""``representation="auto"``: ChowLiu and HyperforestClassifier pick one structure per class or one
shared by the classes by the leave-one-out log-loss of their class probabilities."""

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import get_estimator, leave_one_out_scores
from graphmodels.estimators.selection import MAX_SELECTION_ROWS
from graphmodels.models.base import training_counts

MODELS = [gm.ChowLiu, gm.HyperforestClassifier]


def _xy(name):
    frame = gm.datasets.load(name)
    return frame.drop(columns="class"), frame["class"]


def _name(model_class):
    return model_class.__name__


@pytest.mark.parametrize("model_class", MODELS, ids=_name)
@pytest.mark.parametrize("data", ["car", "glass", "tic-tac-toe"])
def test_auto_is_the_representation_with_the_lower_leave_one_out_log_loss(model_class, data):
    X, y = _xy(data)
    auto = model_class().fit(X, y)
    table = auto.representation_selection_
    assert table["representation"].tolist() == ["free", "shared"]
    direct = {kind: model_class(representation=kind).fit(X, y) for kind in ("free", "shared")}
    for kind, model in direct.items():
        # Each score is that representation's own estimator selection: its best candidate's.
        score = table.set_index("representation").loc[kind]
        assert score["log_loss"] == pytest.approx(model.estimator_selection_["log_loss"].min(), rel=1e-12)
    best = table["representation"].iloc[int(np.argmin(table["log_loss"]))]
    assert auto.representation_ == best
    # The fitted model is the winner's, as if fitted with that representation.
    np.testing.assert_allclose(auto.predict_proba(X), direct[best].predict_proba(X), rtol=1e-12, atol=1e-15)
    assert auto.estimator_ == direct[best].estimator_
    ours, theirs = auto.structure_, direct[best].structure_
    if isinstance(ours, gm.structures.Hyperforest):
        assert ours.maximal_hyperedges == theirs.maximal_hyperedges
    else:
        assert set(ours.edges) == set(theirs.edges)
    # A free fit has per-class structures; a shared one has none left over from the other fit.
    assert ("structures_" in vars(auto)) == ("structures_" in vars(direct[best]))


def test_the_choice_differs_between_data_sets():
    # The choice depends on the data: car prefers one shared structure, glass one per class.
    assert gm.HyperforestClassifier().fit(*_xy("car")).representation_ == "shared"
    assert gm.HyperforestClassifier().fit(*_xy("glass")).representation_ == "free"
    assert gm.ChowLiu().fit(*_xy("car")).representation_ == "shared"
    assert gm.ChowLiu().fit(*_xy("glass")).representation_ == "free"


@pytest.mark.parametrize("model_class", MODELS, ids=_name)
def test_auto_with_a_fixed_estimator_scores_its_tables_by_leave_one_out(model_class):
    X, y = _xy("monk2")
    auto = model_class(estimator="laplace").fit(X, y)
    assert "estimator_selection_" not in vars(auto)
    counts = training_counts(X, y)
    engine = counts.engine
    codes, weights = engine.sample_rows(MAX_SELECTION_ROWS, seed=0)
    for kind in ("free", "shared"):
        model = model_class(estimator="laplace", representation=kind).fit(X, y)
        families = model._training_families(engine, codes, get_estimator("laplace"))
        expected = leave_one_out_scores(model._joint_log_likelihood(codes[:, :-1]), codes[:, -1], weights, families)
        row = auto.representation_selection_.set_index("representation").loc[kind]
        assert (row["log_loss"], row["error"]) == pytest.approx(expected, rel=1e-12)


def test_auto_with_a_discriminative_estimator_chooses_generatively_then_refits():
    model_class = gm.ChowLiu  # the hyperforest classifier's tables are fitted generatively only
    X, y = _xy("car")
    generative = model_class().fit(X, y)
    model = model_class(estimator="discriminative").fit(X, y)
    assert model.representation_ == generative.representation_
    pd.testing.assert_frame_equal(model.representation_selection_, generative.representation_selection_)
    assert model.estimator_.name == "discriminative"
    direct = model_class(estimator="discriminative", representation=model.representation_).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_shared_chow_liu_is_tan():
    X, y = _xy("tic-tac-toe")
    shared = gm.ChowLiu(representation="shared").fit(X, y)
    tan = gm.TAN().fit(X, y)
    np.testing.assert_allclose(shared.predict_proba(X), tan.predict_proba(X), rtol=1e-12)
    augmenting = {(u, v) for u, v, d in tan.structure_.edges(data=True) if d.get("kind") == "augmenting"}
    for tree in shared.structures_:
        assert set(tree.edges) == augmenting


@pytest.mark.parametrize("model_class", MODELS, ids=_name)
def test_auto_round_trips_and_bad_values_are_named(model_class, tmp_path):
    X, y = _xy("car")
    model = model_class().fit(X, y)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = gm.load_model(path)
    assert loaded.representation_ == model.representation_
    pd.testing.assert_frame_equal(loaded.representation_selection_, model.representation_selection_)
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))
    with pytest.raises(ValueError, match="representation"):
        model_class(representation="both").fit(X, y)


def test_a_chow_liu_file_saved_before_representation_existed_loads_as_per_class(tmp_path):
    import json

    X, y = _xy("glass")
    model = gm.ChowLiu(representation="free").fit(X, y)
    path = tmp_path / "model.json"
    model.save(path)
    document = json.loads(path.read_text())
    # What a file of the version before `representation` holds: neither the parameter nor the attribute.
    params = document["params"]["__dict__"]
    params.remove(["representation", "free"])
    del document["fitted"]["representation_"]
    path.write_text(json.dumps(document))
    loaded = gm.load_model(path)
    assert loaded.get_params()["representation"] == "free" and loaded.representation_ == "free"
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))
    # A clone refits what was saved (per class), not today's default.
    from sklearn.base import clone

    assert clone(loaded).fit(X, y).representation_ == "free"


def test_representation_names_ignore_case():
    X, y = _xy("car")
    assert gm.ChowLiu(representation="Free").fit(X, y).representation_ == "free"
    assert gm.HyperforestClassifier(representation="SHARED", n_starts=2).fit(X, y).representation_ == "shared"


def test_class_frequencies_with_shared_refits_check_the_label():
    X, y = _xy("tic-tac-toe")
    mixed = gm.evaluation.edge_stability(gm.HyperforestClassifier(n_starts=2), X, y, n_resamples=6, random_state=0)
    kinds = {type(s).__name__ for s in mixed.structures}
    assert kinds == {"dict", "Hyperforest"}  # "auto" kept per-class structures in some refits, one shared in others
    result = mixed.class_frequencies("positive")
    assert result.n_resamples == len(mixed.structures)  # a shared hyperforest is every class's
    with pytest.raises(ValueError, match="No structure has a hyperforest of class 'no-such-class'"):
        mixed.class_frequencies("no-such-class")
    shared = gm.evaluation.edge_stability(
        gm.HyperforestClassifier(representation="shared", n_starts=2), X, y, n_resamples=2, random_state=0
    )
    with pytest.raises(TypeError, match="every structure here is one hyperforest shared by the classes"):
        shared.class_frequencies("positive")
