"""shapley_values: exact Shapley values by marginalization (issue 30).

Against a brute-force enumeration whose coalition values come from another code path, the
inference layer's ``model.query(class, evidence=...)``; the Shapley axioms (efficiency,
symmetry, null player); naive Bayes's additive game; the dynamic programme over the trees
against the masked scores; the sampling estimate against the exact values and its error.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.models.explanations import _coalition_scores, _exact_shapley, forest_coalition_scores


def _data(seed=0, n_rows=200, p=4):
    rng = np.random.default_rng(seed)
    columns = {}
    previous = rng.integers(0, 2, n_rows)
    y = previous.copy()
    for j in range(p):
        noise = rng.integers(0, 3, n_rows)
        columns[f"x{j}"] = np.where(rng.random(n_rows) < 0.5, previous % 3, noise).astype(str)
        previous = columns[f"x{j}"].astype(int)
    return pd.DataFrame(columns), pd.Series(np.where(y == 1, "pos", "neg"), name="label")


def _brute_force(model, row, target):
    """Shapley values of one row, each coalition's value from the inference layer (junction tree)."""
    columns = list(row.index)
    p = len(columns)

    def value(coalition):
        evidence = {columns[j]: row[columns[j]] for j in coalition}
        posterior = model.query(target, evidence=evidence)
        return float(np.log(posterior[model.classes_[1]]) - np.log(posterior[model.classes_[0]]))

    values = {s: value(s) for k in range(p + 1) for s in itertools.combinations(range(p), k)}
    phi = np.zeros(p)
    for j in range(p):
        for s, v in values.items():
            if j in s:
                continue
            k = len(s)
            weight = math.factorial(k) * math.factorial(p - k - 1) / math.factorial(p)
            phi[j] += weight * (values[tuple(sorted((*s, j)))] - v)
    return phi, values[()]


@pytest.mark.parametrize("model", [gm.TAN(), gm.KDB(k=2), gm.AnDE(n=0)], ids=repr)
def test_exact_values_equal_brute_force_from_the_inference_layer(model):
    X, y = _data()
    model.fit(X, y)
    values = gm.shapley_values(model, X.head(3))
    for row in range(3):
        phi, base = _brute_force(model, X.iloc[row], "label")
        assert values.iloc[row]["<prior>"] == pytest.approx(base, abs=1e-9)
        assert np.allclose(values.iloc[row][X.columns].to_numpy(dtype=float), phi, atol=1e-9)


@pytest.mark.parametrize("model", [gm.TAN(), gm.AODE(), gm.KikuchiBayes(max_region_size=3)], ids=repr)
def test_efficiency_the_values_sum_to_the_models_log_odds(model):
    X, y = _data(1)
    model.fit(X, y)
    values = gm.shapley_values(model, X.head(20))
    log_proba = model.predict_log_proba(X.head(20))
    assert np.allclose(values.sum(axis=1), log_proba[:, 1] - log_proba[:, 0], atol=1e-10)


def test_one_block_per_class_each_summing_to_the_log_probability(random_table):
    X, y = random_table(np.random.default_rng(0), n_rows=150, cards=(2, 3, 2))
    model = gm.TAN().fit(X, y)
    values = gm.shapley_values(model, X.head(10))
    log_proba = model.predict_log_proba(X.head(10))
    for k, label in enumerate(model.classes_):
        assert np.allclose(values[label].sum(axis=1), log_proba[:, k], atol=1e-10)
        assert np.allclose(values[label]["<prior>"], np.log(np.exp(model.class_log_prior_[k])), atol=1e-10)


def test_pyagrums_conditional_shapley_values_on_the_same_tan():
    # pyAgrum plays the same game (a coalition's value: the posterior logit with the others
    # unobserved), by one junction-tree query per coalition on the exported network.
    explain = pytest.importorskip("pyagrum.explain")
    from graphmodels.io import to_pyagrum

    X, y = _data(7, p=4)
    model = gm.TAN().fit(X, y)
    ours = gm.shapley_values(model, X.head(3))
    explainer = explain.ConditionalShapValues(to_pyagrum(model), "label", logit=True)
    assert explainer.baseline[1] == pytest.approx(ours["<prior>"].iloc[0], abs=1e-10)
    for i in range(3):
        theirs = explainer.compute(X.iloc[i].astype(str))[1]  # the logit of classes_[1]
        assert np.allclose([theirs[c] for c in X.columns], ours.iloc[i][X.columns].to_numpy(dtype=float), atol=1e-10)


def test_symmetry_and_null_player():
    X, y = _data(2, p=2)
    X["copy"] = X["x0"]  # exchangeable with x0 in naive Bayes
    X["constant"] = "k"  # changes no prediction
    model = gm.NaiveBayes(estimator="laplace").fit(X, y)
    values = gm.shapley_values(model, X.head(8))
    assert np.allclose(values["x0"], values["copy"], atol=1e-12)
    assert np.allclose(values["constant"], 0.0, atol=1e-12)


def test_naive_bayes_game_is_additive_so_its_values_are_its_terms():
    X, y = _data(3)
    model = gm.NaiveBayes().fit(X, y)
    assert np.allclose(gm.shapley_values(model, X.head(10)), model.explain(X.head(10)), atol=1e-12)


@pytest.mark.parametrize("estimator", ["leave-one-out", "discriminative"])
def test_two_class_naive_bayes_values_come_from_the_singletons_exactly(estimator):
    # Additive: v(S) = v({}) + sum_{j in S} (v({j}) - v({})), also when summing an attribute out
    # of discriminative tables is a class-dependent constant (then the values are not the terms).
    X, y = _data(8, p=6)
    model = gm.NaiveBayes(estimator=estimator).fit(X, y)
    values = gm.shapley_values(model, X.head(4))
    phi, base = _exact_shapley(model, np.asarray(model._encode_new(X.head(4)), dtype=np.int64))
    assert np.allclose(values.to_numpy(), np.column_stack([base[:, 0], phi[:, 0, :]]), atol=1e-10)
    # Beyond max_exact: still exact (no sampling), and the terms for generative tables.
    wide = pd.concat([X, X.add_prefix("copy_"), X.add_prefix("again_")], axis=1)  # 18 attributes
    model = gm.NaiveBayes().fit(wide, y)
    values = gm.shapley_values(model, wide.head(3))
    assert values.attrs["method"] == "exact"
    assert np.allclose(values, model.explain(wide.head(3)), atol=1e-10)


@pytest.mark.parametrize(
    "model", [gm.TAN(), gm.ChowLiu(representation="free"), gm.TAN(estimator="discriminative")], ids=repr
)
def test_tree_programme_equals_the_masked_scores(model):
    X, y = _data(4, p=5)
    model.fit(X, y)
    codes = model._encode_new(X.head(6)).astype(np.int64)
    codes[0, 1] = -1  # a state never seen: observed and unobserved agree
    fast = model._forest_coalition_scores(codes)
    p = codes.shape[1]
    bits = ((np.arange(2**p)[:, None] >> np.arange(p)) & 1).astype(bool)
    slow = np.stack([model._class_log_scores(np.where(bits, row, -1)) for row in codes])
    assert np.allclose(fast, slow, atol=1e-10)
    scores, order = _coalition_scores(model, codes)
    assert sorted(order) == list(range(p))


def test_forest_programme_on_a_hand_made_chain():
    # y -> a -> b (a's parent the class only; b's parent a): P(y, b) sums a out.
    prior = np.log([0.4, 0.6])
    a = np.log([[[0.7, 0.3]], [[0.2, 0.8]]])  # (class, 1, r_a)
    b = np.log([[[0.9, 0.1], [0.5, 0.5]], [[0.6, 0.4], [0.1, 0.9]]])  # (class, r_a, r_b)
    scores = forest_coalition_scores(np.array([[1, 0]]), [-1, 0], [a, b], prior)
    by_hand_b = [0.4 * (0.7 * 0.9 + 0.3 * 0.5), 0.6 * (0.2 * 0.6 + 0.8 * 0.1)]  # coalition {b}
    assert np.allclose(np.exp(scores[0, 0b10]), by_hand_b)
    assert np.allclose(np.exp(scores[0, 0b11]), [0.4 * 0.3 * 0.5, 0.6 * 0.8 * 0.1])
    assert np.allclose(np.exp(scores[0, 0b00]), [0.4, 0.6])


def test_sampling_is_within_its_error_of_the_exact_values_and_keeps_efficiency():
    X, y = _data(5, p=6)
    model = gm.TAN().fit(X, y)
    exact = gm.shapley_values(model, X.head(5))
    sampled, error = gm.shapley_values(
        model, X.head(5), method="sampling", n_permutations=300, random_state=0, return_std=True
    )
    assert sampled.attrs["method"].startswith("sampling")
    assert np.allclose(sampled.sum(axis=1), exact.sum(axis=1), atol=1e-10)
    gap = np.abs(sampled - exact).to_numpy()[:, 1:]
    assert (error.to_numpy()[:, 1:] > 0).any()
    assert (gap <= 5 * error.to_numpy()[:, 1:] + 1e-12).all()
    _, none = gm.shapley_values(model, X.head(5), return_std=True)
    assert (none.to_numpy() == 0).all()


def test_auto_samples_beyond_max_exact_and_errors_are_clear():
    X, y = _data(6, p=5)
    model = gm.TAN().fit(X, y)
    assert gm.shapley_values(model, X.head(2), max_exact=3, random_state=0).attrs["method"].startswith("sampling")
    with pytest.raises(ValueError, match="method"):
        gm.shapley_values(model, X.head(2), method="kernel")
    with pytest.raises(ValueError, match="n_permutations"):
        gm.shapley_values(model, X.head(2), method="sampling", n_permutations=1)
    with pytest.raises(gm.models.NotFittedError):
        gm.shapley_values(gm.TAN(), X.head(2))
