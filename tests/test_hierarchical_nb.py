"""Hierarchical naive Bayes (Langseth & Nielsen): latent trees, collapsing, search, model."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import graphmodels as gm
from graphmodels.data.datasets import load, train_test_rows
from graphmodels.learners import collapse_gain, collapse_states, hierarchical_naive_bayes_search, pair_significance
from graphmodels.stats import CountingEngine, conditional_mutual_information
from graphmodels.structures import add_latent, class_children, is_latent_tree, latent_nodes, naive_bayes_tree


# ----------------------------------------------------------------- structures
def test_latent_tree_building_and_checks():
    tree = naive_bayes_tree("C", ["a", "b", "c"], {"C": 2, "a": 2, "b": 2, "c": 3})
    assert is_latent_tree(tree)
    deeper = add_latent(tree, "L1", ["a", "b"], [[(0, 0), (1, 1)], [(0, 1)]])
    deeper = add_latent(deeper, "L2", ["L1", "c"], [[(0, 0), (0, 1)], [(1, 2)]])
    assert is_latent_tree(deeper)
    assert class_children(deeper) == ["L2"] and latent_nodes(deeper) == ["L1", "L2"]
    assert deeper.nodes["L1"]["cardinality"] == 2 and deeper.nodes["L1"]["role"] == "latent"
    assert sorted(deeper.successors("L2")) == ["L1", "c"]
    assert tree.has_edge("C", "a")  # the input is not modified
    with pytest.raises(ValueError, match="not a child of the class"):
        add_latent(deeper, "L3", ["a", "c"], [[(0, 0)]])
    with pytest.raises(ValueError, match="already exists"):
        add_latent(tree, "a", ["b", "c"], [[(0, 0)]])
    with pytest.raises(ValueError, match="two states"):
        add_latent(tree, "L", ["a", "b"], [[(0, 0)], [(0, 0)]])
    broken = deeper.copy()
    broken.add_edge("a", "c")
    assert not is_latent_tree(broken)


# ------------------------------------------------------------------ collapsing
def _class_log_likelihood(counts):
    """sum over cases of log P(c | l) with ML estimates, from (states, classes) counts."""
    counts = np.asarray(counts, dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.nansum(np.where(counts > 0, counts * np.log(counts / totals), 0.0)))


@pytest.mark.parametrize("seed", range(10))
def test_collapse_gain_is_parameters_saved_minus_class_likelihood_lost(seed):
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 5))
    counts = rng.integers(0, 12, size=(5, n_classes)).astype(float)
    n = counts.sum() + 40
    for i, j in [(0, 1), (2, 4), (1, 3)]:
        merged = np.delete(counts, j, axis=0)
        merged[i if i < j else i - 1] = counts[i] + counts[j]
        expected = 0.5 * math.log(n) * n_classes - (_class_log_likelihood(counts) - _class_log_likelihood(merged))
        assert collapse_gain(counts[i], counts[j], n) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(6))
def test_collapse_gain_is_the_exact_predictive_mdl_difference_with_one_latent(seed):
    # With the latent as the class's only child, P(c | a) = P(c | l) (the
    # latent is a function of the attributes), so Delta_L is exactly
    # MDL_p(H) - MDL_p(H') with |Theta| = (|C| - 1) + |C| (|L| - 1).
    rng = np.random.default_rng(seed)
    n_classes = 3
    labels = rng.integers(0, 4, size=300)  # latent state of each case (4 states)
    y = (labels + rng.integers(0, 2, size=300)) % n_classes
    n = len(y)

    def mdl_p(state_of_case, n_states):
        counts = np.zeros((n_states, n_classes))
        np.add.at(counts, (state_of_case, y), 1)
        p = counts / counts.sum(axis=1, keepdims=True)
        log_lik = np.log(p[state_of_case, y]).sum()
        params = (n_classes - 1) + n_classes * (n_states - 1)
        return 0.5 * math.log(n) * params - log_lik

    counts = np.zeros((4, n_classes))
    np.add.at(counts, (labels, y), 1)
    for i, j in [(0, 1), (1, 3), (0, 2)]:
        merged_labels = np.where(labels == j, i, labels)
        merged_labels = np.unique(merged_labels, return_inverse=True)[1]
        direct = mdl_p(labels, 4) - mdl_p(merged_labels, 3)
        assert collapse_gain(counts[i], counts[j], n) == pytest.approx(direct)


def test_collapse_gain_is_only_an_approximation_with_other_children():
    # With another child of the class, P(c | a) depends on it too: the
    # locally decomposable formula no longer equals the MDL_p difference.
    rng = np.random.default_rng(0)
    n, n_classes = 400, 2
    latent = rng.integers(0, 3, n)
    other = rng.integers(0, 2, n)
    y = ((latent == 0) ^ (other == 1) ^ (rng.random(n) < 0.2)).astype(int)

    def nb_log_lik(children):
        prior = np.bincount(y, minlength=2) / n
        log_joint = np.tile(np.log(prior), (n, 1))
        for x in children:
            r = x.max() + 1
            counts = np.zeros((2, r))
            np.add.at(counts, (y, x), 1)
            log_joint += np.log(counts / counts.sum(axis=1, keepdims=True))[:, x].T
        post = log_joint - np.logaddexp(log_joint[:, 0], log_joint[:, 1])[:, None]
        return post[np.arange(n), y].sum()

    counts = np.zeros((3, 2))
    np.add.at(counts, (latent, y), 1)
    merged = np.where(latent == 2, 1, latent)
    direct = 0.5 * math.log(n) * n_classes - (nb_log_lik([latent, other]) - nb_log_lik([merged, other]))
    approx = collapse_gain(counts[1], counts[2], n)
    assert abs(direct - approx) > 1e-3


def test_collapse_states_on_xor_and_identical_distributions():
    xor = np.array([[20, 0], [0, 20], [0, 20], [20, 0]])
    assert collapse_states(xor, 80).tolist() == [0, 1, 1, 0]
    # Unseen configurations get -1; identical class distributions merge.
    counts = np.array([[5, 5], [0, 0], [10, 10], [30, 0]])
    state_of = collapse_states(counts, 60)
    assert state_of[1] == -1
    assert state_of[0] == state_of[2] != state_of[3]


@pytest.mark.parametrize("seed", range(8))
def test_collapsed_states_are_a_local_optimum(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 15, size=(9, 3)).astype(float)
    counts[rng.random(9) < 0.2] = 0
    n = counts.sum()
    state_of = collapse_states(counts, n)
    present = counts.sum(axis=1) > 0
    assert (state_of[~present] == -1).all() and (state_of[present] >= 0).all()
    k = state_of.max() + 1
    grouped = np.zeros((k, 3))
    np.add.at(grouped, state_of[present], counts[present])
    for i in range(k):
        for j in range(i + 1, k):
            assert collapse_gain(grouped[i], grouped[j], n) <= 0


# ---------------------------------------------------------------- pair choice
def test_pair_significance_is_the_chi_square_tail_of_2n_cmi():
    rng = np.random.default_rng(1)
    n = 500
    c = rng.integers(0, 2, n)
    a = (c + rng.integers(0, 2, n)) % 3
    b = np.where(rng.random(n) < 0.7, a % 2, rng.integers(0, 2, n))
    d = rng.integers(0, 4, n)
    engine = CountingEngine(np.column_stack([a, b, d, c]), [3, 2, 4, 2], names=["a", "b", "d", "c"])
    table = pair_significance(engine, ["a", "b", "d"], "c")
    for (x, rx), (z, rz), (i, j) in [(("a", 3), ("b", 2), (0, 1)), (("a", 3), ("d", 4), (0, 2))]:
        cmi = conditional_mutual_information(engine, x, z, "c")
        expected = stats.chi2.logsf(2 * n * cmi, 2 * (rx - 1) * (rz - 1))
        assert table[i, j] == pytest.approx(expected) and table[j, i] == pytest.approx(expected)
    assert np.isinf(np.diag(table)).all()
    assert np.argmin(table[0, 1:]) == 0  # a and b are the dependent pair


# --------------------------------------------------------------------- search
def test_monk1_first_latent_joins_a1_and_a2_and_beats_naive_bayes():
    # monk1: class = (a1 == a2) or (a5 == 1); UCI training rows, test on the rest.
    data = load("monk1")
    n_train = train_test_rows("monk1")
    X, y = data.drop(columns="class"), data["class"]
    model = gm.HierarchicalNaiveBayes().fit(X.iloc[:n_train], y.iloc[:n_train])
    first = model.latents_[0]
    assert set(first.children) == {"attr1", "attr2"}
    assert is_latent_tree(model.structure_)
    nb = gm.NaiveBayes().fit(X.iloc[:n_train], y.iloc[:n_train])
    hnb_accuracy = model.score(X.iloc[n_train:], y.iloc[n_train:])
    nb_accuracy = nb.score(X.iloc[n_train:], y.iloc[n_train:])
    assert hnb_accuracy >= nb_accuracy + 0.2
    assert hnb_accuracy > 0.95
    # The wrapper score rises at every accepted step.
    scores = model.history_["score"].to_numpy()
    assert (np.diff(scores) > 0).all()


def test_search_stops_on_independent_attributes_and_respects_max_latents():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(300, 4))
    y = (x[:, 0] + rng.integers(0, 2, 300)) % 2
    engine = CountingEngine(np.column_stack([x, y]), [3, 3, 3, 3, 2], names=["a", "b", "c", "d", "y"])
    latents, history = hierarchical_naive_bayes_search(engine, "y", random_state=0)
    assert len(history) == len(latents) + 1
    assert len(latents) <= 1
    data = load("monk1")
    X, yy = data.drop(columns="class"), data["class"]
    assert len(gm.HierarchicalNaiveBayes(max_latents=1).fit(X, yy).latents_) == 1
    assert len(gm.HierarchicalNaiveBayes(max_latents=0).fit(X, yy).latents_) == 0


# ---------------------------------------------------------------------- model
def _monk_like(seed, n=400):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.integers(0, 3, n).astype(str) for i in range(5)})
    y = np.where((X["x0"] == X["x1"]) | (X["x3"] == "2"), "yes", "no")
    flip = rng.random(n) < 0.05
    y = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    return X, pd.Series(y, name="target")


def _children_frame(model, X):
    """The class's children of a fitted model as a DataFrame of labels (latents by state)."""
    codes = model.encoder_.transform(X)
    values = model._all_codes(codes)
    frame = {}
    for child in model.children_:
        v = values[child]
        if child in model.encoder_.columns_:
            frame[child] = X[child].to_numpy()
        else:
            frame[child] = np.where(v >= 0, v.astype(str), "unseen")
    return pd.DataFrame(frame)


def test_predictions_are_naive_bayes_over_the_class_children():
    X, y = _monk_like(0)
    model = gm.HierarchicalNaiveBayes().fit(X, y)
    assert model.latents_, "the planted pair should give a latent"
    nb = gm.NaiveBayes(estimator=model.estimator_).fit(_children_frame(model, X), y)
    np.testing.assert_allclose(model.predict_proba(X), nb.predict_proba(_children_frame(model, X)), atol=1e-12)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X))


def test_leave_one_out_selection_without_latents_is_naive_bayes():
    # With no latent the model is naive Bayes over the attributes: the selection sees the same
    # tables and rows as NaiveBayes's, so it keeps the same candidate and the same probabilities.
    X, y = _monk_like(1, n=200)
    hnb = gm.HierarchicalNaiveBayes(estimator="leave-one-out", max_latents=0).fit(X, y)
    nb = gm.NaiveBayes(estimator="leave-one-out").fit(X, y)
    assert hnb.estimator_ == nb.estimator_
    pd.testing.assert_frame_equal(hnb.estimator_selection_, nb.estimator_selection_)
    np.testing.assert_allclose(hnb.predict_proba(X), nb.predict_proba(X), rtol=1e-12)


def test_default_without_latents_is_default_naive_bayes():
    # HNB's default prior is chosen by the same evidence as NaiveBayes's (issue 26): with no latent
    # the default model is the default naive Bayes (the default was EmpiricalBayesBDeu, NB's not).
    X, y = _monk_like(1, n=200)
    hnb = gm.HierarchicalNaiveBayes(max_latents=0).fit(X, y)
    np.testing.assert_allclose(hnb.predict_proba(X), gm.NaiveBayes().fit(X, y).predict_proba(X), rtol=1e-12)


def test_leave_one_out_selection_scores_the_final_model_with_its_latents():
    X, y = _monk_like(0)
    model = gm.HierarchicalNaiveBayes(estimator="leave-one-out", random_state=0).fit(X, y)
    assert model.latents_
    # The final model is naive Bayes over the class's children: its selection is NaiveBayes's over
    # those children (latents as columns), the same scores and the same choice.
    nb = gm.NaiveBayes(estimator="leave-one-out").fit(_children_frame(model, X), y)
    columns = ["log_loss", "error"]
    np.testing.assert_allclose(model.estimator_selection_[columns], nb.estimator_selection_[columns], rtol=1e-10)
    assert model.estimator_ == nb.estimator_
    np.testing.assert_allclose(model.predict_proba(X), nb.predict_proba(_children_frame(model, X)), rtol=1e-10)


@pytest.mark.unseen_values
def test_unseen_child_configurations_sum_the_latent_out():
    X, y = _monk_like(1)
    model = gm.HierarchicalNaiveBayes().fit(X, y)
    latent = model.latents_[0]
    first, second = latent.children
    test = X.iloc[:10].copy()
    test[first] = "new value"
    codes = model.encoder_.transform(test)
    values = model._all_codes(codes)
    assert (values[latent.name] == -1).all()
    # By hand: naive Bayes without the factors of the unknown latent (and of any latent above it).
    expected = np.tile(model.class_log_prior_, (10, 1))
    for child, table in zip(model.children_, model.child_log_tables_):
        v = values[child]
        expected[v >= 0] += table[:, v[v >= 0]].T
    expected = np.exp(expected - np.logaddexp.reduce(expected, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(test), expected)


def test_latent_states_table_is_readable_and_partitions_the_configurations():
    X, y = _monk_like(2)
    model = gm.HierarchicalNaiveBayes().fit(X, y)
    table = model.latent_states_
    assert list(table.columns) == ["latent", "state", "children", "configurations", "n_configurations"]
    for latent in model.latents_:
        rows = table[table["latent"] == latent.name]
        assert len(rows) == latent.cardinality
        node = model.structure_.nodes[latent.name]
        assert node["cardinality"] == latent.cardinality
        assert sum(rows["n_configurations"]) == int((latent.state_of >= 0).sum())
        first_state = node["states"][0]
        child = latent.children[0]
        assert f"{child}={first_state[0][0]}" in rows["configurations"].iloc[0]


@pytest.mark.parametrize("extension", ["json", "npz"])
def test_save_and_load(tmp_path, extension):
    X, y = _monk_like(3)
    X.columns = ["# a", "b c", "ü", "1", "10"]
    y = y.map({"yes": "10", "no": "2"})
    model = gm.HierarchicalNaiveBayes().fit(X, y)
    path = tmp_path / f"hnb.{extension}"
    model.save(path)
    loaded = gm.load_model(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert [latent.children for latent in loaded.latents_] == [latent.children for latent in model.latents_]
    assert list(loaded.classes_) == ["10", "2"]


def test_same_seed_same_model_and_log_loss_scoring():
    X, y = _monk_like(4)
    a = gm.HierarchicalNaiveBayes(random_state=5).fit(X, y)
    b = gm.HierarchicalNaiveBayes(random_state=5).fit(X, y)
    pd.testing.assert_frame_equal(a.latent_states_, b.latent_states_)
    c = gm.HierarchicalNaiveBayes(scoring="log_loss").fit(X, y)
    assert c.history_["score"].iloc[0] < 0  # mean log-likelihood


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"scoring": "auc"}, ValueError),
        ({"n_folds": 1}, ValueError),
        ({"n_candidate_pairs": 0}, ValueError),
        ({"max_latents": -1}, ValueError),
        ({"estimator": "nope"}, ValueError),
    ],
)
def test_parameters_are_checked(kwargs, error):
    X, y = _monk_like(0, n=60)
    with pytest.raises(error, match=next(iter(kwargs))):
        gm.HierarchicalNaiveBayes(**kwargs).fit(X, y)


def test_pairs_whose_tail_probability_underflows_are_ranked_first():
    # 2 N I is so large that log P(Z > 2 N I) is -inf for two pairs: they must
    # still be candidates, the stronger first.
    from graphmodels.learners.hierarchical_nb import _ranked_pairs

    rng = np.random.default_rng(0)
    n = 20000
    c = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    b = a.copy()  # b = a: the strongest dependence
    d = np.where(rng.random(n) < 0.9, a, rng.integers(0, 3, n))  # strong, weaker
    e = rng.integers(0, 3, n)
    engine = CountingEngine(np.column_stack([a, b, d, e, c]), [3] * 4 + [2])
    assert np.isneginf(pair_significance(engine, [0, 1, 2, 3], 4)[0, 1])
    ranked = _ranked_pairs(engine, [0, 1, 2, 3], 4)
    assert ranked[0][:2] == (0, 1)
    assert {ranked[1][:2], ranked[2][:2]} == {(0, 2), (1, 2)}


def test_missing_values_are_a_state_of_their_own_in_latent_configurations():
    X, y = _monk_like(5)
    X = X.astype(object)
    X.loc[X.index[:40], "x0"] = None  # missing cells: a state of their own
    model = gm.HierarchicalNaiveBayes().fit(X, y)
    assert is_latent_tree(model.structure_)
    assert model.latent_states_["configurations"].str.contains("x0=<missing>").any()
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_a_table_too_large_is_named_by_the_users_columns():
    # The search counts pairs on an engine of its own; its size error named variables 0, 1, 2.
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"colour": rng.integers(0, 20, 300).astype(str), "size": rng.integers(0, 20, 300)})
    X["weight kg"] = rng.integers(0, 20, 300)
    y = pd.Series(rng.integers(0, 3, 300), name="kind")
    with pytest.raises(ValueError, match=r"strata of \['kind'\].*'colour' \(20 states\), 'size' \(20 states\)"):
        gm.HierarchicalNaiveBayes(max_cells=5000, discretizer=None).fit(X, y)
