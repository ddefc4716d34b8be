"""Classifiers and density estimators: exact small cases, invariants, edge cases."""

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import BDeu, Dirichlet, MaximumLikelihood
from graphmodels.learners import chow_liu_tree
from graphmodels.stats import CountingEngine

CLASSIFIERS = [gm.NaiveBayes, gm.TAN, gm.FAN, gm.ChowLiu, gm.AODE]


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_probabilities_are_normalized_and_consistent(model_class, random_table):
    rng = np.random.default_rng(0)
    X, y = random_table(rng)
    model = model_class().fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X), atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    assert list(model.classes_) == ["c0", "c1", "c2"]
    assert 0.0 <= model.score(X, y) <= 1.0


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_log_proba_does_not_underflow_with_many_attributes(model_class):
    # 300 attributes: P(x | y) underflows float64 long before, the posterior must not.
    rng = np.random.default_rng(1)
    y = rng.integers(2, size=60)
    X = pd.DataFrame({f"a{j}": np.where(rng.random(60) < 0.8, y, 1 - y) for j in range(300)})
    # ChowLiu: its own path, one tree per class ("auto" keeps TAN's shared tree here, which the TAN
    # case covers, after an inner cross-validation that cost seconds).
    params = {"representation": "free"} if model_class is gm.ChowLiu else {}
    model = (
        model_class(estimator="laplace", **params).fit(X, y)
        if model_class is not gm.AODE
        else model_class(estimator="laplace", frequency_threshold=0).fit(X.iloc[:, :40], y)
    )
    data = X if model_class is not gm.AODE else X.iloc[:, :40]
    log_proba = model.predict_log_proba(data)
    assert np.all(np.isfinite(log_proba))
    np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)


def test_naive_bayes_hand_computed():
    # Counts: class a: x = u, u, v ; class b: x = v. Laplace (pseudo-count 1):
    # P(a) = (3+1)/(4+2) = 2/3, P(b) = 1/3; P(u|a) = 3/5, P(v|a) = 2/5; P(u|b) = 1/3, P(v|b) = 2/3.
    # P(a | u) = (2/3 * 3/5) / (2/3 * 3/5 + 1/3 * 1/3) = (2/5) / (2/5 + 1/9) = 18/23.
    X = pd.DataFrame({"x": ["u", "u", "v", "v"]})
    y = ["a", "a", "a", "b"]
    model = gm.NaiveBayes(estimator="laplace").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(pd.DataFrame({"x": ["u"]}))[0], [18 / 23, 5 / 23])
    # BDeu(ess=1): class prior alpha = 1/2, family (class, x) alpha = 1/4.
    # P(a) = 3.5/5, P(b) = 1.5/5; P(u|a) = 2.25/3.5, P(u|b) = 0.25/1.5.
    model = gm.NaiveBayes(estimator=BDeu(1.0)).fit(X, y)
    pa, pb = 3.5 / 5 * 2.25 / 3.5, 1.5 / 5 * 0.25 / 1.5
    np.testing.assert_allclose(model.predict_proba(pd.DataFrame({"x": ["u"]}))[0], [pa / (pa + pb), pb / (pa + pb)])


def _brute_force_joint(X, y, parent_of, estimator, n_eval):
    """log P(x, y) of the first `n_eval` rows under an augmented naive Bayes net, from counts of equal values.

    Each count is a sum of elementwise comparisons over the rows (numpy arrays: pandas' row
    filters cost a second per test for the same numbers).
    """
    columns = {c: X[c].to_numpy() for c in X.columns}
    labels = np.asarray(list(y))
    classes = sorted(set(y))
    levels = {c: sorted(X[c].unique()) for c in X.columns}
    out = np.zeros((n_eval, len(classes)))
    prior = estimator.joint(np.array([(labels == c).sum() for c in classes], float))
    for r in range(n_eval):
        for k, c in enumerate(classes):
            total = np.log(prior[k])
            for col in X.columns:
                parent = parent_of.get(col)
                rows = labels == c
                if parent is not None:
                    rows = rows & (columns[parent] == columns[parent][r])
                    n_parent_states = len(levels[parent])
                else:
                    n_parent_states = 1
                table = np.array([[(columns[col][rows] == v).sum() for v in levels[col]]], float)
                # The estimator sees the whole family table; reproduce its pseudo-count.
                shape = (len(classes), n_parent_states, len(levels[col]))
                alpha = estimator.pseudo_count(shape if parent is not None else shape[::2])
                p = (table[0] + alpha) / (table[0].sum() + alpha * len(levels[col]))
                total += np.log(p[levels[col].index(columns[col][r])])
            out[r, k] = total
    return out


@pytest.mark.parametrize("model_class", [gm.NaiveBayes, gm.TAN, gm.FAN])
@pytest.mark.parametrize("estimator", [Dirichlet(1.0), BDeu(2.0), Dirichlet(0.001)])
def test_augmented_models_match_brute_force_counts(model_class, estimator, random_table):
    rng = np.random.default_rng(2)
    X, y = random_table(rng, n_rows=80, cards=(2, 3, 2, 3))
    model = model_class(estimator=estimator).fit(X, y)
    parent_of = {v: u for u, v, kind in model.structure_.edges(data="kind") if kind == "augmenting"}
    expected = _brute_force_joint(X, y, parent_of, estimator, 15)
    np.testing.assert_allclose(model.joint_log_likelihood(X.iloc[:15]), expected, rtol=1e-10)


def test_tan_structure_is_a_tree_and_fan_a_subforest(random_table):
    rng = np.random.default_rng(3)
    X, y = random_table(rng, n_rows=500, cards=(3, 3, 3, 3, 3, 3))
    tan = gm.TAN().fit(X, y).structure_
    fan = gm.FAN().fit(X, y).structure_

    def aug(g):
        return {frozenset(e) for e, k in zip(g.edges, [d for *_, d in g.edges(data="kind")]) if k == "augmenting"}

    assert len(aug(tan)) == X.shape[1] - 1
    assert aug(fan) <= aug(tan)
    assert all(tan.has_edge("label", c) for c in X.columns)


def test_fan_without_strong_pairs_is_naive_bayes():
    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(2, size=n)
    X = pd.DataFrame({f"x{j}": np.where(rng.random(n) < 0.7, y, rng.integers(2, size=n)) for j in range(5)})
    fan = gm.FAN().fit(X, y)
    nb = gm.NaiveBayes().fit(X, y)
    assert not [e for e in fan.structure_.edges(data="kind") if e[2] == "augmenting"]
    np.testing.assert_allclose(fan.predict_proba(X), nb.predict_proba(X))


@pytest.mark.parametrize("criterion, options", [("ml", {}), ("mdl", {}), ("bdeu", {"equivalent_sample_size": 4.0})])
def test_chow_liu_classifier_has_one_chow_liu_tree_per_class(random_table, criterion, options):
    rng = np.random.default_rng(5)
    X, y = random_table(rng, n_rows=400)
    model = gm.ChowLiu(criterion=criterion, **options).fit(X, y)
    assert len(model.structures_) == len(model.classes_)
    for label, tree in zip(model.classes_, model.structures_):
        rows = (y == label).to_numpy()
        assert all(X[rows][c].nunique() == X[c].nunique() for c in X)  # the same states within the class
        expected = chow_liu_tree(X[rows], criterion=criterion, **options)
        got = tree.to_undirected()
        assert {frozenset(e) for e in got.edges} == {frozenset(e) for e in expected.edges}
    if criterion == "ml":
        assert all(nx.is_tree(tree.to_undirected()) for tree in model.structures_)


def test_aode_matches_formula(random_table):
    # P(y, x) = 1/|S| sum_i P(y, x_i) prod_{j != i} P(x_j | y, x_i), MLE, threshold 0.
    rng = np.random.default_rng(6)
    X, y = random_table(rng, n_rows=120, cards=(2, 3, 2))
    model = gm.AODE(estimator=MaximumLikelihood(), frequency_threshold=0).fit(X, y)
    data = X.copy()
    data["y"] = y.to_numpy()
    n = len(data)
    expected = np.zeros((10, 3))
    for r in range(10):
        row = X.iloc[r]
        for k, c in enumerate(model.classes_):
            terms = []
            for i in X.columns:
                sub = data[(data["y"] == c) & (data[i] == row[i])]
                value = len(sub) / n
                for j in X.columns:
                    if j != i:
                        value *= (sub[j] == row[j]).sum() / len(sub) if len(sub) else 0.0
                terms.append(value)
            expected[r, k] = np.mean(terms)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(model.joint_log_likelihood(X.iloc[:10]), np.log(expected), rtol=1e-10)


def test_aode_frequency_threshold_falls_back_to_naive_bayes(random_table):
    rng = np.random.default_rng(7)
    X, y = random_table(rng, n_rows=50)
    aode = gm.AODE(frequency_threshold=10_000).fit(X, y)
    nb = gm.NaiveBayes(estimator=aode.estimator_).fit(X, y)
    np.testing.assert_allclose(aode.predict_proba(X), nb.predict_proba(X))
    with pytest.raises(ValueError, match="frequency"):
        gm.AODE(frequency="sometimes").fit(X, y)


@pytest.mark.parametrize("model_class", [gm.NaiveBayes, gm.TAN, gm.FAN, gm.ChowLiu])
@pytest.mark.unseen_values
def test_unseen_state_is_marginalized_exactly(model_class, random_table):
    # A cell with a state never seen in training is summed out: the joint of the
    # row equals the sum of the joints over every known state of that column.
    rng = np.random.default_rng(8)
    X, y = random_table(rng, n_rows=200, cards=(2, 3, 3, 2))
    model = model_class().fit(X, y)
    row = X.iloc[[0]].copy()
    levels = model.encoder_.levels_[1]
    completed = pd.concat([row.assign(x1=level) for level in levels], ignore_index=True)
    expected = np.logaddexp.reduce(model.joint_log_likelihood(completed), axis=0)
    unseen = row.assign(x1="never seen")
    np.testing.assert_allclose(model.joint_log_likelihood(unseen)[0], expected, rtol=1e-10)
    # Two unseen cells, one of them a parent in the tree.
    unseen2 = row.assign(x1="??", x2="??")
    grid = pd.concat([row.assign(x1=a, x2=b) for a in levels for b in model.encoder_.levels_[2]], ignore_index=True)
    np.testing.assert_allclose(
        model.joint_log_likelihood(unseen2)[0], np.logaddexp.reduce(model.joint_log_likelihood(grid), axis=0)
    )


@pytest.mark.unseen_values
def test_aode_unseen_state_gives_a_distribution(random_table):
    rng = np.random.default_rng(9)
    X, y = random_table(rng)
    model = gm.AODE(frequency_threshold=0).fit(X, y)
    proba = model.predict_proba(X.iloc[:5].assign(x0="unseen"))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Dropping the attribute entirely is what "unseen" means for the other ODEs' products.
    assert np.all(np.isfinite(proba))


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_missing_cells(model_class, random_table):
    rng = np.random.default_rng(10)
    X, y = random_table(rng)
    X.loc[::7, "x1"] = None
    model = model_class().fit(X, y)
    assert "<missing>" in model.encoder_.levels_[1]
    assert np.isfinite(model.predict_log_proba(X)).all()
    with pytest.raises(ValueError, match="x1"):
        model_class(missing="error").fit(X, y)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_single_class_training_set(model_class):
    X = pd.DataFrame({"a": ["u", "v", "u"], "b": ["p", "p", "q"]})
    model = model_class().fit(X, ["only"] * 3)
    np.testing.assert_array_equal(model.predict(X), ["only"] * 3)
    np.testing.assert_allclose(model.predict_proba(X), 1.0)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_constant_column_and_single_column(model_class, random_table):
    rng = np.random.default_rng(11)
    X, y = random_table(rng)
    X["constant"] = "same"
    model = model_class().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    single = model_class().fit(X[["x0"]], y)
    assert single.predict_proba(X[["x0"]]).shape == (len(X), 3)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_bad_input_errors(model_class, random_table):
    rng = np.random.default_rng(12)
    X, y = random_table(rng)
    with pytest.raises(ValueError, match="0 rows"):
        model_class().fit(X.iloc[:0], y.iloc[:0])
    with pytest.raises(ValueError, match="rows"):
        model_class().fit(X, y.iloc[:10])
    with pytest.raises(ValueError, match="missing labels"):
        model_class().fit(X, y.where(y != "c0"))
    model = model_class().fit(X, y)
    with pytest.raises(ValueError, match="x3"):
        model.predict(X.drop(columns=["x3"]))
    with pytest.raises(ValueError, match="extra|unexpected"):
        model.predict(X.assign(surprise=1))
    with pytest.raises(ValueError, match="not fitted"):
        model_class().predict(X)
    with pytest.raises(ValueError, match="estimator"):
        model_class(estimator="magic").fit(X, y)
    with pytest.raises(TypeError):
        model_class().fit("not a table", y)
    assert model.predict(X.iloc[:0]).shape == (0,)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_permuting_rows_and_columns_changes_nothing(model_class, random_table):
    rng = np.random.default_rng(13)
    X, y = random_table(rng, n_rows=400)
    base = model_class().fit(X, y)
    order = rng.permutation(len(X))
    rows = model_class().fit(X.iloc[order], y.iloc[order])
    np.testing.assert_allclose(rows.predict_proba(X), base.predict_proba(X), rtol=1e-9)
    columns = list(reversed(X.columns))
    cols = model_class().fit(X[columns], y)
    np.testing.assert_allclose(cols.predict_proba(X[columns]), base.predict_proba(X), rtol=1e-9)
    # A DataFrame is matched by column name at predict time.
    np.testing.assert_allclose(base.predict_proba(X[columns]), base.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_arbitrary_names_and_integer_looking_labels(model_class, random_table):
    rng = np.random.default_rng(14)
    X, y = random_table(rng)
    X.columns = ["#", "a b", "é", 1, "class"]
    labels = y.map({"c0": "1", "c1": "10", "c2": "2"}).rename(None)
    model = model_class().fit(X, labels)
    assert model.classes_.tolist() == ["1", "10", "2"]
    predicted = model.predict(X)
    assert set(predicted) <= {"1", "10", "2"} and isinstance(predicted[0], str)
    proba = model.predict_proba(X)
    # Columns follow classes_: the column of each row's prediction is the largest.
    index = {c: i for i, c in enumerate(model.classes_)}
    assert all(proba[r, index[p]] == proba[r].max() for r, p in enumerate(predicted))
    # The class node does not clash with the feature called "class".
    assert model.class_name_ != "class" and model.class_name_ in model.structure_


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_numpy_arrays_and_integer_labels(model_class):
    rng = np.random.default_rng(15)
    X = rng.integers(3, size=(100, 4))
    y = (X[:, 0] + rng.integers(2, size=100)) % 3
    model = model_class().fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.predict(X).dtype.kind == "i"
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 4
    with pytest.raises(ValueError, match="columns"):
        model.predict(X[:, :3])


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_sample_weight_equals_repeated_rows(model_class, random_table):
    rng = np.random.default_rng(16)
    X, y = random_table(rng, n_rows=120)
    weights = rng.integers(1, 4, size=len(X))
    repeated = np.repeat(np.arange(len(X)), weights)
    a = model_class().fit(X, y, sample_weight=weights)
    b = model_class().fit(X.iloc[repeated], y.iloc[repeated])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)


def test_table_size_guard_is_a_clear_error():
    X = pd.DataFrame({"wide": np.arange(3000), "also": np.arange(3000) % 2000})
    # The identifier-like columns are warned about first (see test_memory_guards.py), then refused.
    with pytest.warns(UserWarning, match="look like identifiers"), pytest.raises(ValueError, match="max_cells"):
        gm.TAN(max_cells=1_000_000, discretizer=None).fit(X, np.arange(3000) % 2)


# ---------------------------------------------------------------- density


def test_chow_liu_density_sums_to_one_over_all_configurations(random_table):
    rng = np.random.default_rng(18)
    X, _ = random_table(rng, n_rows=200, cards=(2, 3, 2, 3))
    model = gm.ChowLiuTree().fit(X)
    grid = pd.DataFrame(list(itertools.product(*model.encoder_.levels_)), columns=X.columns)
    assert np.isclose(np.exp(model.score_samples(grid)).sum(), 1.0, atol=1e-12)
    assert nx.is_tree(model.structure_.to_undirected())
    assert model.score(X) == pytest.approx(model.score_samples(X).sum())


def test_chow_liu_density_mle_matches_tree_factorization(random_table):
    # MLE: P(x) = prod P(x_v) prod_{uv in tree} P(x_u, x_v) / (P(x_u) P(x_v)).
    rng = np.random.default_rng(19)
    X, _ = random_table(rng, n_rows=300, cards=(2, 3, 2))
    model = gm.ChowLiuTree(estimator="mle").fit(X)
    engine = CountingEngine.from_frame(X)
    n = len(X)
    codes = model.encoder_.transform(X)
    expected = np.zeros(len(X))
    for j, name in enumerate(X.columns):
        expected += np.log(engine.counts([name])[codes[:, j]] / n)
    for u, v in model.structure_.edges:
        i, j = list(X.columns).index(u), list(X.columns).index(v)
        joint = engine.counts([u, v])[codes[:, i], codes[:, j]] / n
        expected += np.log(joint / (engine.counts([u])[codes[:, i]] / n) / (engine.counts([v])[codes[:, j]] / n))
    np.testing.assert_allclose(model.score_samples(X), expected, rtol=1e-10)


def test_chow_liu_density_sampling_is_reproducible_and_faithful(random_table):
    rng = np.random.default_rng(20)
    X, _ = random_table(rng, n_rows=500, cards=(2, 3, 2))
    model = gm.ChowLiuTree().fit(X)
    a = model.sample(20_000, random_state=1)
    b = model.sample(20_000, random_state=1)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(model.sample(20_000, random_state=2))
    # Empirical frequencies of the samples approach the model's probabilities.
    grid = pd.DataFrame(list(itertools.product(*model.encoder_.levels_)), columns=X.columns)
    probabilities = np.exp(model.score_samples(grid))
    frequencies = a.value_counts(normalize=True)
    observed = np.array([frequencies.get(tuple(row), 0.0) for row in grid.itertuples(index=False)])
    assert np.abs(observed - probabilities).max() < 0.02
    with pytest.raises(ValueError, match="n_samples"):
        model.sample(-1)


@pytest.mark.unseen_values
def test_chow_liu_density_unseen_state_is_marginalized(random_table):
    rng = np.random.default_rng(21)
    X, _ = random_table(rng, n_rows=200, cards=(2, 3, 2))
    model = gm.ChowLiuTree().fit(X)
    row = X.iloc[[0]]
    grid = pd.concat([row.assign(x1=level) for level in model.encoder_.levels_[1]], ignore_index=True)
    expected = np.logaddexp.reduce(model.score_samples(grid))
    assert model.score_samples(row.assign(x1="new"))[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("model_class", CLASSIFIERS)
def test_column_order_does_not_matter_with_tied_weights(model_class):
    # Tic-tac-toe's 36 conditional informations take only 9 distinct values:
    # ties must be broken by name, not by column order or float noise.
    frame = gm.datasets.load("tic-tac-toe")
    X, y = frame.drop(columns="class"), frame["class"]
    reordered = list(X.columns[::-1])
    a = model_class().fit(X, y)
    b = model_class().fit(X[reordered], y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)
    assert set(a.structure_.edges) == set(b.structure_.edges)


def test_all_classes_impossible_gives_uniform_with_a_warning():
    # With maximum-likelihood estimates, (a=y, b=p) has probability 0 under both classes.
    X = pd.DataFrame({"a": list("xxyy"), "b": list("pqqq")})
    model = gm.NaiveBayes(estimator="mle").fit(X, list("AABB"))
    with pytest.warns(UserWarning, match="probability 0 under every class"):
        proba = model.predict_proba(pd.DataFrame({"a": ["y"], "b": ["p"]}))
    np.testing.assert_allclose(proba, [[0.5, 0.5]])


def test_mixed_label_types_stay_apart():
    X = pd.DataFrame({"a": list("xyxy")})
    model = gm.NaiveBayes().fit(X, [1, "1", 1, "1"])
    assert len(model.classes_) == 2


def test_empty_prediction_still_checks_columns(random_table):
    rng = np.random.default_rng(22)
    X, y = random_table(rng)
    model = gm.TAN().fit(X, y)
    with pytest.raises(ValueError, match="x0"):
        model.predict_proba(X.iloc[:0].drop(columns=["x0"]))


@pytest.mark.unseen_values
def test_unseen_states_in_many_rows_use_bounded_memory():
    import tracemalloc

    rng = np.random.default_rng(23)
    n = 3000
    b = rng.integers(100, size=n)
    X = pd.DataFrame({"a": (b + rng.integers(3, size=n)) % 100, "b": b, "d": rng.integers(3, size=n)})
    model = gm.TAN(discretizer="mdl").fit(X, rng.integers(2, size=n))  # a and b cut as numbers, on purpose
    test = X.assign(d=99)  # every row has an unseen state
    tracemalloc.start()
    model.predict_proba(test)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 300 * 2**20


@pytest.mark.parametrize("name", ["car", "monk1", "tic-tac-toe"])
def test_chow_liu_mdl_forests_are_the_mdl_free_hyperforests_of_width_1(name):
    # Two implementations of Liang & Srebro's MDL-C_f-1 structure: ChowLiu's per-class MDL
    # spanning forests and the hyperforest learner's free representation at tree-width 1.
    frame = gm.datasets.load(name)
    X, y = frame.drop(columns="class"), frame["class"]
    chow_liu = gm.ChowLiu(criterion="mdl", representation="free").fit(X, y)
    forest = gm.HyperforestClassifier(representation="free", criterion="mdl", treewidth=1).fit(X, y)
    from graphmodels.stats import CountingEngine, mutual_information

    for label, tree, hyperforest in zip(chow_liu.classes_, chow_liu.structures_, forest.structures_):
        rows = X[y == label]
        engine, m = CountingEngine.from_frame(rows), len(rows)

        def mdl_weight(u, v, engine=engine, m=m):
            free = (X[u].nunique() - 1) * (X[v].nunique() - 1)
            return mutual_information(engine, u, v) - free * math.log(m) / (2 * m)

        ours = [tuple(e) for e in tree.to_undirected().edges]
        theirs = [tuple(e) for e in hyperforest.primal_graph().edges]
        # Equal total weight (tic-tac-toe's symmetric squares tie, and the two break ties apart).
        assert len(ours) == len(theirs)
        assert sum(mdl_weight(*e) for e in ours) == pytest.approx(sum(mdl_weight(*e) for e in theirs), abs=1e-9)


@pytest.mark.parametrize(
    "estimator", ["hierarchical", "bdeu-auto", "bdeu(5)", "marginal-smoothing(5)", "leave-one-out"]
)
def test_chow_liu_with_tan_trees_in_every_class_is_tan(estimator):
    # When every class's tree is TAN's tree, oriented alike, the multinet is TAN: each class's table
    # is the slice of the family table over the class, smoothed with every class's rows as TAN's is
    # (per-class tables backed off to P_y(x_j) alone, or BDeu spread over one class, would differ).
    rng = np.random.default_rng(11)
    n = 600
    y = rng.integers(2, size=n)
    a = np.where(rng.random(n) < 0.8, 2 * y + rng.integers(2, size=n), rng.integers(4, size=n))
    b = np.where(rng.random(n) < 0.85, (a >= 2).astype(int), rng.integers(2, size=n))
    X = pd.DataFrame({"a": a, "b": b})
    tan = gm.TAN(estimator=estimator).fit(X, y)
    chow_liu = gm.ChowLiu(criterion="ml", estimator=estimator).fit(X, y)
    assert [sorted(tree.edges) for tree in chow_liu.structures_] == [[("a", "b")]] * 2
    assert ("a", "b") in tan.structure_.edges
    assert chow_liu.estimator_ == tan.estimator_
    np.testing.assert_allclose(chow_liu.predict_proba(X), tan.predict_proba(X), rtol=1e-12)


def test_a_fit_while_another_thread_fits_the_same_object_is_refused(monkeypatch):
    # Thread "first" is held inside its fit; a second fit of the same object, from this thread,
    # must refuse at once and leave the first fit to finish as if alone.
    import threading

    from graphmodels.models import base as base_module

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], 60), "b": rng.choice(["u", "v", "w"], 60)})
    y = np.where(X["a"] == "x", "yes", "no")
    expected = gm.TAN().fit(X, y).predict_proba(X)
    model = gm.TAN()
    inside, release = threading.Barrier(2, timeout=10), threading.Event()
    counts = base_module.training_counts

    def held_counts(*args, **kwargs):
        if threading.current_thread().name == "first":
            inside.wait()
            release.wait(timeout=10)
        return counts(*args, **kwargs)

    monkeypatch.setattr(base_module, "training_counts", held_counts)
    first = threading.Thread(target=model.fit, args=(X, y), name="first")
    first.start()
    inside.wait()
    try:
        with pytest.raises(RuntimeError, match="TAN instance is being fitted in another thread.*clone_model"):
            model.fit(X, y)
    finally:
        release.set()
        first.join(timeout=10)
    np.testing.assert_allclose(model.predict_proba(X), expected)
    model.fit(X, y)  # once the first fit is over, the object fits again
