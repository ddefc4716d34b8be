"""``representation="auto"``: ChowLiu and HyperforestClassifier pick one structure per class or one
shared by the classes by the held-out log-loss of their class probabilities: leave-one-out of the
tables where the classes have many rows, inner cross-validation of the whole fit where they have few."""

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
@pytest.mark.parametrize("data", ["car", "monk1", "tic-tac-toe"])
def test_auto_is_the_representation_with_the_lower_leave_one_out_log_loss(model_class, data):
    X, y = _xy(data)
    auto = model_class().fit(X, y)
    table = auto.representation_selection_
    assert table["representation"].tolist() == ["free", "shared"]
    assert (table["scored_by"] == "leave-one-out").all()  # many rows per class
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
    # The choice depends on the data: car prefers one shared structure, monk1 one per class.
    assert gm.HyperforestClassifier().fit(*_xy("car")).representation_ == "shared"
    assert gm.HyperforestClassifier().fit(*_xy("monk1")).representation_ == "free"
    assert gm.ChowLiu().fit(*_xy("car")).representation_ == "shared"
    assert gm.ChowLiu().fit(*_xy("monk1")).representation_ == "free"


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


# ------------------------------------------------------------ classes with few rows: inner cross-validation
def _few_rows_per_class(n=24, seed=0):
    """Three classes of 8 rows, 6 attributes: too few rows per class to trust leave-one-out of the tables."""
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b", "c"], n // 3)
    X = pd.DataFrame(rng.integers(0, 3, (n, 6)).astype(str), columns=[f"x{j}" for j in range(6)])
    X["x1"] = np.where(y == "a", X["x0"], X["x1"])  # a dependency within one class
    return X, pd.Series(y, name="class")


def test_stratified_folds_deal_each_class_across_the_folds():
    from graphmodels.models.base import stratified_folds

    # By hand: class 0's rows shuffled to (2, 1, 0)... dealt 0, 1, 0; class 1's continue the deal: 1, 0.
    y = np.array([0, 0, 0, 1, 1])
    folds = stratified_folds(y, 2)
    assert sorted(folds[y == 0].tolist()) == [0, 0, 1] and sorted(folds[y == 1].tolist()) == [0, 1]
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, 103)
    folds = stratified_folds(y, 10)
    sizes = np.bincount(folds, minlength=10)
    assert sizes.max() - sizes.min() <= 1  # the deal runs on from class to class
    for label in range(4):
        per_fold = np.bincount(folds[y == label], minlength=10)
        assert per_fold.max() - per_fold.min() <= 1
    np.testing.assert_array_equal(stratified_folds(y, 10), folds)  # the fixed seed: the same folds


@pytest.mark.parametrize("model_class", MODELS, ids=_name)
def test_few_rows_per_class_are_scored_by_refitting_the_structure_without_each_fold(model_class, monkeypatch):
    from graphmodels.models import base
    from graphmodels.models.base import stratified_folds

    monkeypatch.setattr(base, "REPRESENTATION_FOLDS", 3)  # fewer refits by hand; the same code
    REPRESENTATION_FOLDS = 3
    X, y = _few_rows_per_class()
    auto = model_class(discretizer=None).fit(X, y)
    table = auto.representation_selection_.set_index("representation")
    assert (table["scored_by"] == f"{REPRESENTATION_FOLDS}-fold cross-validated").all()
    codes = np.searchsorted(auto.classes_, y)
    folds = stratified_folds(codes, REPRESENTATION_FOLDS)
    losses = {}
    for kind in ("free", "shared"):
        kept = model_class(representation=kind, discretizer=None).fit(X, y).estimator_
        # By hand: each fold's rows weigh 0 in a refit (structure and tables, with the prior kept on all
        # rows), and are then scored; the states and classes stay those of all the rows.
        log_posterior, wrong = np.empty(len(y)), np.empty(len(y), bool)
        for fold in range(REPRESENTATION_FOLDS):
            held = folds == fold
            refit = model_class(representation=kind, estimator=kept, discretizer=None)
            refit.fit(X, y, sample_weight=(~held).astype(float))
            log_proba = refit.predict_log_proba(X[held])
            log_posterior[held] = log_proba[np.arange(held.sum()), codes[held]]
            wrong[held] = np.argmax(log_proba, axis=1) != codes[held]
        losses[kind] = -np.maximum(log_posterior, np.log(1e-15))
        assert table.loc[kind, "log_loss"] == pytest.approx(losses[kind].mean(), rel=1e-9)
        assert table.loc[kind, "error"] == pytest.approx(wrong.mean())
    # The standard error of the rows' paired differences, by the textbook formula.
    difference = losses["free"] - losses["shared"]
    standard_error = difference.std(ddof=1) / np.sqrt(len(difference))
    assert table.loc["free", "standard_error"] == pytest.approx(standard_error, rel=1e-9)
    assert np.isnan(table.loc["shared", "standard_error"])
    # One standard error: the per-class structures only when they are better by more than it.
    better = difference.mean() + standard_error < 0
    assert auto.representation_ == ("free" if better else "shared")


def test_the_simplest_representation_is_kept_within_one_standard_error(monkeypatch):
    from graphmodels.models import base

    X, y = _few_rows_per_class(seed=3)
    # Scores forced: free lower by 0.1 with rows whose paired differences give a standard error of
    # 0.2 (kept: shared), then of 0.05 (kept: free).
    n = len(y)
    for spread, expected in ((0.2, "shared"), (0.05, "free")):
        noise = np.where(np.arange(n) % 2 == 0, 1.0, -1.0) * spread * np.sqrt(n - 1)
        forced = {"free": 1.0 + noise, "shared": np.full(n, 1.1)}

        def losses(self, engine, learn, state, forced=forced):
            self._restore(state)
            return forced[self.representation_], np.zeros(n), np.ones(n)

        monkeypatch.setattr(base.BaseModel, "_cross_validated_losses", losses)
        model = gm.ChowLiu(discretizer=None).fit(X, y)
        table = model.representation_selection_.set_index("representation")
        assert table.loc["free", "standard_error"] == pytest.approx(spread)
        assert table.loc["free", "log_loss"] == pytest.approx(1.0) and table.loc["shared", "log_loss"] == pytest.approx(
            1.1
        )
        assert model.representation_ == expected


def test_integer_weights_choose_as_repeated_rows_do():
    X, y = _few_rows_per_class(seed=1)
    weights = np.random.default_rng(2).integers(1, 4, len(y))
    repeated = np.repeat(np.arange(len(y)), weights)
    weighted = gm.ChowLiu(discretizer=None).fit(X, y, sample_weight=weights)
    expanded = gm.ChowLiu(discretizer=None).fit(X.iloc[repeated], y.iloc[repeated])
    # A row of weight w is w rows dealt into the folds, as its w copies are.
    pd.testing.assert_frame_equal(weighted.representation_selection_, expanded.representation_selection_)
    np.testing.assert_allclose(weighted.predict_proba(X), expanded.predict_proba(X), rtol=1e-10)


def _tiny_wide(seed, n_train=30, n_test=2000, n_features=50, n_classes=3):
    """Rows of one random tree shared by three classes (TAN's model), each table 70% shared, 30% the class's own.

    30 training rows for 50 attributes: a per-class tree is chosen on 10 rows. 2,000 fresh rows to test on.
    """
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    y = rng.permutation(np.arange(n) % n_classes)
    X = np.zeros((n, n_features), dtype=np.int64)
    order = rng.permutation(n_features)
    for i, j in enumerate(order):
        parent = order[rng.integers(0, i)] if i else None
        r_parent = 1 if parent is None else 3
        table = 0.7 * rng.dirichlet(np.full(3, 0.5), size=(1, r_parent))
        table = table + 0.3 * rng.dirichlet(np.full(3, 0.5), size=(n_classes, r_parent))
        probabilities = table[y, 0 if parent is None else X[:, parent]]
        X[:, j] = (rng.random(n)[:, None] > np.cumsum(probabilities, axis=1)).sum(axis=1)
    X = pd.DataFrame(X.astype(str), columns=[f"x{j}" for j in range(n_features)])
    y = pd.Series(np.array(["a", "b", "c"])[y], name="class")
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


@pytest.mark.parametrize("seed", [1, 2])
def test_on_tiny_wide_data_chow_liu_is_no_worse_than_tan(seed):
    # Ten rows per class: each class's tree fits its own rows so well that leaving a row out of the
    # tables alone scored the per-class trees near 0 nats (they were kept, and lost ~2 nats per
    # test row against TAN). Refitting the trees without each fold sees the overfit; within one
    # standard error of it, TAN's shared tree is kept.
    X, y, X_test, y_test = _tiny_wide(seed)
    chow_liu, tan = gm.ChowLiu().fit(X, y), gm.TAN().fit(X, y)

    def log_loss(model):
        proba = model.predict_proba(X_test)[np.arange(len(y_test)), np.searchsorted(model.classes_, y_test)]
        return -np.mean(np.log(np.clip(proba, 1e-15, 1)))

    assert log_loss(chow_liu) <= log_loss(tan) + 1e-9
    assert chow_liu.representation_selection_["scored_by"].str.endswith("cross-validated").all()
