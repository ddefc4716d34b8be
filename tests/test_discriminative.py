"""Discriminative parameters on Bayesian-network classifier structures (Zaidi et al. 2017; Roos et al. 2005)."""

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import (
    Discriminative,
    conditional_log_likelihood,
    family_indicators,
    fit_discriminative_tables,
    get_estimator,
)
from graphmodels.estimators.discriminative import _inner_folds, _merge_duplicates, _Problem, _start, lbfgs


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.6, (a + y) % 3, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    d = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    X = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(str)
    return X, pd.Series(np.array(["x", "y", "z"])[y], name="class")


def _train_cll(model, X, y):
    proba = model.predict_proba(X)
    column = {label: i for i, label in enumerate(model.classes_)}
    return float(np.log(proba[np.arange(len(y)), [column[v] for v in y]]).sum())


# ----------------------------------------------------------------------------- building blocks
def test_family_indicators_by_hand():
    index = [np.array([[0, 1], [1, 0], [-1, 1]]), np.array([[2], [0], [1]])]
    design = family_indicators(index, [(2, 2), (3,)]).toarray()
    expected = np.array(
        [
            [0, 1, 0, 0, 0, 0, 1],
            [0, 0, 1, 0, 1, 0, 0],
            [0, 0, 0, 0, 0, 1, 0],  # the unseen parent leaves the row out of the first family
        ],
        dtype=float,
    )
    np.testing.assert_array_equal(design, expected)


def test_conditional_log_likelihood_by_hand():
    scores = np.log([[0.2, 0.6], [0.3, 0.1]])
    got = conditional_log_likelihood(scores, [1, 0], [2.0, 1.0])
    assert got == pytest.approx(2 * np.log(0.6 / 0.8) + np.log(0.3 / 0.4))


@pytest.mark.parametrize("form", ["log-linear", "weights"])
@pytest.mark.parametrize("center", ["generative", "zero"])
def test_gradient_matches_finite_differences(form, center):
    rng = np.random.default_rng(1)
    n, n_classes = 40, 3
    index = [rng.integers(0, 2, (n, 2)), rng.integers(0, 3, (n, 1))]
    design = family_indicators(index, [(2, 2), (3,)])
    log_prior = np.log([0.5, 0.3, 0.2])
    log_entries = np.log(rng.dirichlet(np.ones(2), size=(7, n_classes))[..., 0])
    problem = _Problem(
        design, rng.integers(0, n_classes, n), rng.random(n) + 0.5, n_classes, form, log_prior, log_entries, 0.7, center
    )
    v = rng.normal(size=n_classes + 7 * n_classes)
    _, gradient = problem(v)
    step = 1e-6
    numeric = np.array([(problem(v + step * e)[0] - problem(v - step * e)[0]) / (2 * step) for e in np.eye(len(v))])
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-8)


# ----------------------------------------------------------------------------- equivalences
def test_log_linear_naive_bayes_is_logistic_regression_on_one_hot():
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder

    X, y = _frame()
    penalty = 2.0
    model = gm.NaiveBayes(
        estimator=Discriminative(form="log-linear", center="zero", penalty=penalty, generative="laplace", tol=1e-8)
    ).fit(X, y)
    one_hot = OneHotEncoder().fit_transform(X)
    reference = LogisticRegression(C=1.0 / penalty, tol=1e-10, max_iter=10_000).fit(one_hot, y)
    ours = _train_cll(model, X, y)
    theirs = float(np.log(reference.predict_proba(one_hot)[np.arange(len(y)), pd.factorize(y, sort=True)[0]]).sum())
    assert ours == pytest.approx(theirs, abs=1e-3)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(one_hot), atol=1e-4)


@pytest.mark.parametrize("form", ["log-linear", "weights"])
@pytest.mark.parametrize("make", [gm.NaiveBayes, gm.TAN, lambda **kw: gm.KDB(k=2, **kw), gm.ChowLiu])
def test_conditional_likelihood_never_below_the_generative_start(form, make):
    X, y = _frame(seed=2)
    generative = make(estimator="laplace").fit(X, y)
    estimator = Discriminative(form=form, penalty=0.5, generative="laplace", center="generative")
    discriminative = make(estimator=estimator).fit(X, y)
    assert _train_cll(discriminative, X, y) >= _train_cll(generative, X, y) - 1e-6


@pytest.mark.parametrize("form", ["log-linear", "weights"])
def test_a_strong_penalty_gives_back_the_generative_classifier(form):
    X, y = _frame(seed=3)
    generative = gm.TAN(estimator="laplace").fit(X, y)
    model = gm.TAN(estimator=Discriminative(form=form, penalty=1e9, generative="laplace", center="generative")).fit(
        X, y
    )
    np.testing.assert_allclose(model.predict_proba(X), generative.predict_proba(X), atol=1e-5)


def test_the_structure_is_unchanged():
    X, y = _frame(seed=4)
    generative = gm.TAN().fit(X, y)
    model = gm.TAN(estimator="discriminative").fit(X, y)
    assert sorted(model.structure_.edges) == sorted(generative.structure_.edges)
    assert [t.shape for t in model.log_tables_] == [t.shape for t in generative.log_tables_]


# ----------------------------------------------------------------------------- the fitted model
def test_automatic_penalty_is_chosen_on_the_grid_and_reproducible():
    X, y = _frame(seed=5)
    estimator = Discriminative(penalty_grid=(0.1, 1.0, 10.0))
    first = gm.TAN(estimator=estimator).fit(X, y)
    second = gm.TAN(estimator=estimator).fit(X, y)
    scores = first.penalty_selection_
    assert scores["candidate"].tolist() == ["discriminative"] * 3 + ["generative"]
    assert sorted(scores["penalty"].dropna()) == [0.1, 1.0, 10.0]
    refits = scores[scores["candidate"] == "discriminative"]
    best = refits.loc[refits["log_loss"].idxmin()]
    generative = scores.loc[scores["candidate"] == "generative", "log_loss"].item()
    # The one-standard-error rule: a refit must beat the generative tables by more than its SE.
    if best["log_loss"] + best["standard_error"] < generative:
        assert first.penalty_ == best["penalty"]
    else:
        assert first.penalty_ is None
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    assert first.estimator_ == estimator
    assert first.generative_estimator_ in estimator.generative.candidates


def test_discriminative_beats_generative_where_the_independence_assumption_fails():
    # y = a XOR b: naive Bayes cannot see it; a TAN with the arc a-b can, and its
    # conditional fit gets the probabilities much sharper than its smoothed counts.
    rng = np.random.default_rng(6)
    a, b = rng.integers(0, 2, 600), rng.integers(0, 2, 600)
    y = np.where(rng.random(600) < 0.95, a ^ b, 1 - (a ^ b))
    X = pd.DataFrame({"a": a, "b": b, "noise": rng.integers(0, 4, 600)})
    train, test = slice(0, 400), slice(400, None)

    def log_loss(model):
        proba = model.predict_proba(X[test])
        return -np.log(proba[np.arange(200), y[test]]).mean()

    generative = gm.NaiveBayes().fit(X[train], y[train])
    discriminative = gm.KDB(k=1, estimator="discriminative").fit(X[train], y[train])
    assert log_loss(discriminative) < log_loss(generative) - 0.3


@pytest.mark.filterwarnings("ignore:.*never seen in fit")
@pytest.mark.parametrize("make", [gm.TAN, lambda **kw: gm.KDB(k=2, **kw), gm.FAN, gm.ChowLiu])
def test_unseen_states_at_predict_give_finite_normalized_probabilities(make):
    X, y = _frame(seed=7)
    model = make(estimator=Discriminative(penalty=1.0)).fit(X, y)
    new = X.head(6).copy()
    new.loc[new.index[0], "a"] = "never"
    new.loc[new.index[1], ["b", "d"]] = "never"
    new.loc[new.index[2], :] = "never"
    proba = model.predict_proba(new)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Unseen cells are summed out of the Markov network P(y, x) ~ exp(score): by brute
    # force, a row with nothing known gets the class marginal over every configuration.
    import itertools

    tables = model.log_tables_[0] if isinstance(model.log_tables_[0], list) else model.log_tables_  # a multinet
    cardinalities = [table.shape[-1] for table in tables]
    every = np.array(list(itertools.product(*(range(r) for r in cardinalities))))
    marginal = np.logaddexp.reduce(model._joint_log_likelihood(every), axis=0)
    np.testing.assert_allclose(proba[2], np.exp(marginal - np.logaddexp.reduce(marginal)), rtol=1e-9)
    # ... and a row with one unseen cell, the marginal over that attribute's states.
    known = model._encode_new(new.iloc[[0]])[0]
    column = list(X.columns).index("a")
    filled = np.repeat(known[None], cardinalities[column], axis=0)
    filled[:, column] = np.arange(cardinalities[column])
    marginal = np.logaddexp.reduce(model._joint_log_likelihood(filled), axis=0)
    np.testing.assert_allclose(proba[0], np.exp(marginal - np.logaddexp.reduce(marginal)), rtol=1e-9)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_save_and_load_give_the_same_probabilities(tmp_path, suffix):
    X, y = _frame(seed=8)
    model = gm.KDB(k=2, estimator=Discriminative(form="weights", penalty_grid=(1.0, 100.0))).fit(X, y)
    path = tmp_path / f"model{suffix}"
    model.save(path)
    loaded = gm.load_model(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.estimator_ == model.estimator_
    assert loaded.penalty_ == model.penalty_


def test_drawing_is_the_structure():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    X, y = _frame(seed=9)
    model = gm.TAN(estimator="discriminative").fit(X, y)
    from graphmodels.plotting import draw_network

    ax = draw_network(model)
    generative_ax = draw_network(gm.TAN().fit(X, y))
    assert len(ax.patches) == len(generative_ax.patches) > 0  # the same arcs are drawn
    plt.close("all")


# ----------------------------------------------------------------------------- the estimator object
def test_resolved_by_name_and_by_description():
    estimator = Discriminative(form="weights", penalty=3.0, generative="bdeu(5)", center="zero")
    assert get_estimator("discriminative") == Discriminative()
    assert get_estimator(estimator.to_dict()) == estimator
    assert estimator.generative == get_estimator("bdeu(5)")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"form": "elr"}, "form"),
        ({"penalty": -1}, "penalty"),
        ({"penalty": "cv"}, "penalty"),
        ({"penalty_grid": []}, "penalty_grid"),
        ({"center": "one"}, "center"),
        ({"n_folds": 1}, "n_folds"),
        ({"n_folds": "three"}, "n_folds"),
        ({"n_folds": True}, "n_folds"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": 0}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"generative": "discriminative"}, "generative"),
    ],
)
def test_bad_settings_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        Discriminative(**kwargs)


def test_models_without_one_network_refuse_it():
    X, y = _frame()
    with pytest.raises(ValueError, match="`estimator`.*AODE"):
        gm.AODE(estimator="discriminative").fit(X, y)


def test_it_estimates_no_table_on_its_own():
    with pytest.raises(TypeError, match="NaiveBayes, TAN, FAN, ChowLiu, KDB or SelectiveKDB"):
        Discriminative().conditional(np.ones((2, 2)))


def test_the_weights_form_needs_a_smoothing_generative_estimator():
    X, y = _frame()
    X.loc[X.index[:5], "a"] = "rare"  # a state seen with one class only: probability 0 under the MLE
    with pytest.raises(ValueError, match="smoothing `generative`"):
        gm.TAN(estimator=Discriminative(form="weights", generative="mle", penalty=1.0)).fit(X, y)


def test_fit_discriminative_tables_keeps_the_table_shapes():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 50)
    index = [rng.integers(0, 3, (50, 2))]
    tables = [np.log(np.full((2, 3, 3), 1 / 3))]
    fit = fit_discriminative_tables(np.log([0.5, 0.5]), tables, index, y, None, Discriminative(penalty=1.0))
    assert fit.log_tables[0].shape == (2, 3, 3)
    assert fit.penalty == 1.0 and fit.penalty_selection is None


def test_selective_kdb_refits_its_chosen_sub_model():
    X, y = _frame(seed=11)
    X["noise"] = np.random.default_rng(11).integers(0, 6, len(X)).astype(str)
    generative = gm.SelectiveKDB(estimator="laplace").fit(X, y)
    estimator = Discriminative(penalty=1.0, generative="laplace", center="generative")
    model = gm.SelectiveKDB(estimator=estimator).fit(X, y)
    # The (k, attributes) choice is the generative one; only the tables change.
    assert model.k_ == generative.k_
    assert model.selected_features_.tolist() == generative.selected_features_.tolist()
    assert [t.shape for t in model.log_tables_] == [t.shape for t in generative.log_tables_]
    assert _train_cll(model, X, y) >= _train_cll(generative, X, y) - 1e-6
    assert not np.allclose(model.predict_proba(X), generative.predict_proba(X))


def test_auto_keeps_the_generative_tables_when_they_predict_best():
    # Pure noise over many states and few rows: an almost unpenalized refit memorises
    # the training rows and is far worse held out than the smoothed counts.
    rng = np.random.default_rng(12)
    X = pd.DataFrame({"a": rng.integers(0, 8, 60), "b": rng.integers(0, 8, 60)}).astype(str)
    y = np.array([0, 1] * 30)
    model = gm.NaiveBayes(estimator=Discriminative(penalty_grid=(1e-6,), generative="laplace")).fit(X, y)
    generative = gm.NaiveBayes(estimator="laplace").fit(X, y)
    assert model.penalty_ is None
    np.testing.assert_allclose(model.predict_proba(X), generative.predict_proba(X))
    assert model.penalty_selection_.set_index("candidate")["log_loss"].idxmin() == "generative"


def test_a_multinet_class_table_moves_only_its_own_class_score():
    # Chow-Liu: one tree per class. A refitted table of class c enters c's score only, so
    # the class structures and the per-class table shapes stay, and the multinet's
    # likelihood is the log-linear score with every other class's tables left out.
    X, y = _frame(seed=13)
    generative = gm.ChowLiu(estimator="laplace").fit(X, y)
    model = gm.ChowLiu(estimator=Discriminative(penalty=0.3, generative="laplace")).fit(X, y)
    np.testing.assert_array_equal(model.feature_parents_, generative.feature_parents_)
    assert [[t.shape for t in per] for per in model.log_tables_] == [
        [t.shape for t in per] for per in generative.log_tables_
    ]
    codes = model._encode_new(X)
    for c, per_class in enumerate(model.log_tables_):
        score = model.class_log_prior_[c] + sum(
            table[0, codes[:, p] if p >= 0 else 0, codes[:, j]]
            for j, (p, table) in enumerate(zip(model.feature_parents_[c], per_class))
        )
        np.testing.assert_allclose(model._joint_log_likelihood(codes)[:, c], score)


def test_one_standard_error_rule_by_hand():
    # The paired per-row differences of the selection table: recompute the decision.
    X, y = _frame(seed=14, n=200)
    model = gm.TAN(estimator=Discriminative(penalty_grid=(0.01, 1.0))).fit(X, y)
    scores = model.penalty_selection_
    assert (scores.loc[scores["candidate"] == "discriminative", "standard_error"] > 0).all()
    assert np.isnan(scores.loc[scores["candidate"] == "generative", "standard_error"]).all()


def test_a_clear_gain_is_kept_and_no_gain_is_not():
    # Five copies of one noisy attribute: naive Bayes counts its evidence five times and is
    # badly overconfident; the refit (logistic regression) is far better than one SE.
    rng = np.random.default_rng(15)
    y = rng.integers(0, 2, 800)
    a = np.where(rng.random(800) < 0.8, y, 1 - y)
    copies = pd.DataFrame({f"a{i}": a for i in range(5)})
    assert gm.NaiveBayes(estimator="discriminative").fit(copies, y).penalty_ is not None
    # y = a XOR b: the TAN arc a -> b already holds the whole rule, so no refit beats its
    # tables by more than one SE and the generative tables are kept.
    a, b = rng.integers(0, 2, 800), rng.integers(0, 2, 800)
    xor = np.where(rng.random(800) < 0.98, a ^ b, 1 - (a ^ b))
    assert gm.TAN(estimator="discriminative").fit(pd.DataFrame({"a": a, "b": b}), xor).penalty_ is None


# ----------------------------------------------------------------------------- the optimizer and the path
def _random_problem(seed, n=200, penalty=0.5, duplicates=False):
    rng = np.random.default_rng(seed)
    index = [rng.integers(0, 2, (n, 2)), rng.integers(0, 3, (n, 1))]
    y = rng.integers(0, 3, n)
    if duplicates:  # every row three times
        index, y = [np.repeat(cells, 3, axis=0) for cells in index], np.repeat(y, 3)
    design = family_indicators(index, [(2, 2), (3,)])
    log_entries = np.log(rng.dirichlet(np.ones(2), size=(7, 3))[..., 0])
    weights = rng.random(len(y)) + 0.5
    return _Problem(design, y, weights, 3, "log-linear", np.log([0.5, 0.3, 0.2]), log_entries, penalty, "zero")


def test_lbfgs_reaches_scipys_minimum():
    from scipy.optimize import minimize

    problem = _random_problem(seed=20, penalty=0.1)
    start = np.zeros(3 + 7 * 3)
    ours = lbfgs(problem, start, max_iter=1000, gtol=1e-10, ftol=0.0)
    options = {"gtol": 1e-10, "ftol": 0.0, "maxiter": 1000}
    theirs = minimize(problem, start, jac=True, method="L-BFGS-B", options=options).x
    assert problem(ours)[0] == pytest.approx(problem(theirs)[0], abs=1e-12)
    assert np.abs(problem(ours)[1]).max() <= 1e-8
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_the_start_is_the_generative_classifier_with_each_cell_centred():
    # Shifting a cell's entries equally over the classes moves every class's score of a row alike:
    # the same probabilities, a smaller penalty, and the same optimum.
    problem = _random_problem(seed=22, penalty=2.0)
    raw = np.concatenate([problem.log_prior, problem.log_entries.ravel()])
    start = _start("log-linear", problem.log_prior, problem.log_entries, "zero")
    np.testing.assert_allclose(start[3:].reshape(-1, 3).mean(axis=1), 0.0, atol=1e-12)

    def probabilities(v):
        scores = problem.scores(v)
        return np.exp(scores - np.log(np.exp(scores).sum(axis=1, keepdims=True)))

    np.testing.assert_allclose(probabilities(start), probabilities(raw), rtol=1e-12)
    assert problem(start)[0] < problem(raw)[0]
    from_raw = lbfgs(problem, raw, gtol=1e-9, ftol=0.0)
    np.testing.assert_allclose(lbfgs(problem, start, gtol=1e-9, ftol=0.0), from_raw, atol=1e-6)
    # Neither the weights form nor a multinet's class-owned entries are shifted; an infinite entry is kept.
    assert np.array_equal(
        _start("log-linear", problem.log_prior, problem.log_entries, "zero", mask=np.ones((7, 3))), raw
    )
    assert np.array_equal(_start("log-linear", problem.log_prior, problem.log_entries, "generative"), raw)
    with_zero = problem.log_entries.copy()
    with_zero[0, 0] = -np.inf
    assert np.array_equal(_start("log-linear", problem.log_prior, with_zero, "zero")[3:6], with_zero[0])


def test_lbfgs_on_an_ill_conditioned_quadratic_by_hand():
    # f(x) = sum_i scale_i (x_i - i)^2 has its minimum at x_i = i whatever the scales.
    scale = np.logspace(0, 4, 6)
    target = np.arange(6.0)
    x = lbfgs(lambda v: (float(scale @ (v - target) ** 2), 2 * scale * (v - target)), np.zeros(6), gtol=1e-9, ftol=0.0)
    np.testing.assert_allclose(x, target, atol=1e-8)


def test_lbfgs_stops_at_once_at_the_minimum_and_after_max_iter():
    calls = []

    def bowl(v):
        calls.append(v.copy())
        return float(v @ v), 2 * v

    np.testing.assert_array_equal(lbfgs(bowl, np.zeros(3)), np.zeros(3))
    assert len(calls) == 1  # the gradient is 0 at the start: no step
    calls.clear()
    lbfgs(bowl, np.ones(3), max_iter=1)
    assert len(calls) == 2  # the start and one accepted step


def test_merged_duplicate_rows_give_the_same_objective_and_gradient():
    problem = _random_problem(seed=21, n=60, duplicates=True)
    design, y, weights = _merge_duplicates(problem.design, problem.y, problem.weights)
    assert design.shape[0] <= 60 < problem.design.shape[0]
    assert weights.sum() == pytest.approx(problem.weights.sum())
    merged = _Problem(design, y, weights, 3, "log-linear", problem.log_prior, problem.log_entries, 0.5, "zero")
    v = np.random.default_rng(21).normal(size=3 + 7 * 3)
    value, grad = problem(v)
    merged_value, merged_grad = merged(v)
    assert merged_value == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(merged_grad, grad, rtol=1e-10, atol=1e-14)


def test_distinct_rows_are_not_merged():
    design = family_indicators([np.array([[0], [1], [0]])], [(2,)])
    y = np.array([0, 0, 1])  # rows 0 and 2: the same cell, another class
    merged = _merge_duplicates(design, y, np.ones(3))
    assert merged[0] is design and merged[1] is y


def test_the_penalty_path_stops_once_the_held_out_loss_rises():
    # Pure noise: the strongest penalty predicts best, and every weaker one is worse held out.
    rng = np.random.default_rng(22)
    X = pd.DataFrame({f"a{i}": rng.integers(0, 4, 400) for i in range(6)}).astype(str)
    y = rng.integers(0, 2, 400)
    grid = (100.0, 10.0, 1.0, 0.1, 0.01)
    model = gm.NaiveBayes(estimator=Discriminative(penalty_grid=grid, generative="laplace")).fit(X, y)
    refits = model.penalty_selection_.query("candidate == 'discriminative'")
    assert refits["penalty"].tolist() == sorted(grid, reverse=True)
    losses = refits["log_loss"].to_numpy()
    tried = int(np.isfinite(losses).sum())
    assert 2 <= tried < len(grid)  # some weaker penalties were never fitted
    assert np.isnan(losses[tried:]).all() and np.isnan(refits["standard_error"].to_numpy()[tried:]).all()
    # The path went down while it improved and stopped at the first penalty above the best so far.
    assert (np.diff(losses[: tried - 1]) <= 0).all() and losses[tried - 1] > losses[: tried - 1].min()


@pytest.mark.parametrize(
    ("n_folds", "n_rows", "expected"),
    [("auto", 199, 10), ("auto", 200, 3), ("auto", 5_000, 3), ("auto", 7, 7), (5, 3, 3), (4, 1000, 4)],
)
def test_inner_folds(n_folds, n_rows, expected):
    assert _inner_folds(n_folds, n_rows) == expected


def test_auto_folds_are_ten_on_a_small_sample():
    # Below 200 rows, "auto" is the same fit as ten folds asked for by name, and not as three.
    X, y = _frame(n=120, seed=23)
    grid = (10.0, 1.0, 0.1)
    scores = {
        folds: gm.TAN(estimator=Discriminative(penalty_grid=grid, n_folds=folds)).fit(X, y).penalty_selection_
        for folds in ("auto", 10, 3)
    }
    pd.testing.assert_frame_equal(scores["auto"], scores[10])
    assert not scores["auto"]["log_loss"].equals(scores[3]["log_loss"])


def test_new_settings_survive_a_round_trip():
    estimator = Discriminative(n_folds=5, tol=1e-7)
    assert get_estimator(estimator.to_dict()) == estimator
    assert Discriminative().n_folds == "auto"
    assert get_estimator(Discriminative().to_dict()).n_folds == "auto"


def test_inner_folds_refit_the_generative_tables_on_their_own_rows():
    # Naive Bayes has no structure to learn: each inner fold's generative held-out loss must be
    # exactly that of a naive Bayes fitted on the fold's training rows alone. An adaptive prior
    # searched on every row (a hierarchical back-off) would carry the held-out rows into it.
    X, y = _frame(n=150, seed=24)
    estimator = Discriminative(penalty_grid=(1.0,), generative="hierarchical")
    model = gm.NaiveBayes(estimator=estimator).fit(X, y)
    generative = gm.NaiveBayes(estimator="hierarchical").fit(X, y)
    codes = model._encode_new(X)
    labels = np.searchsorted(model.classes_, y.to_numpy())
    index = model._family_index(codes)
    fit = fit_discriminative_tables(generative.class_log_prior_, generative.log_tables_, index, labels, None, estimator)
    held = fit.held_out
    assert held is not None and len(held.rows) == 150 and set(held.folds) == set(range(10))
    for k in range(10):
        train, test = held.rows[held.folds != k], held.rows[held.folds == k]
        alone = gm.NaiveBayes(estimator="hierarchical").fit(X.iloc[train], y.iloc[train])
        proba = alone.predict_proba(X.iloc[test])
        expected = -np.log(proba[np.arange(len(test)), labels[test]])
        np.testing.assert_allclose(held.generative[held.folds == k], expected, rtol=1e-9)


def test_a_clearly_worse_penalty_leaves_the_race_early():
    # Pure noise, 150 rows (ten inner folds): an almost unpenalized refit is far worse than the
    # generative tables on the first folds already, so it is not fitted on all ten.
    rng = np.random.default_rng(25)
    X = pd.DataFrame({f"a{i}": rng.integers(0, 6, 150) for i in range(8)}).astype(str)
    y = rng.integers(0, 2, 150)
    model = gm.NaiveBayes(estimator=Discriminative(penalty_grid=(1e-6,), generative="laplace")).fit(X, y)
    refit = model.penalty_selection_.query("candidate == 'discriminative'").iloc[0]
    assert 3 <= refit["folds"] < 10 and np.isnan(refit["log_loss"])
    assert model.penalty_ is None
    generative = model.penalty_selection_.query("candidate == 'generative'").iloc[0]
    assert generative["folds"] == 10 and np.isfinite(generative["log_loss"])
