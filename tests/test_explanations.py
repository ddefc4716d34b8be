"""model.explain: each row's score split exactly into the model's own terms (issue 30).

Every registered classifier (through the registry, so a new one is checked with no new code),
the settings that take other code paths, a hand-computed naive Bayes, the terms read back from
the model's tables (``cpd``), rows with states never seen, and the invariants of the averaged
models.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from registry_models import quick_model

import graphmodels as gm
from graphmodels.models import registered_models

CLASSIFIERS = registered_models("classifier")


def _binary(seed=0, n_rows=150):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n_rows)
    b = (a + (rng.random(n_rows) < 0.3)) % 3
    c = rng.integers(0, 2, n_rows)
    d = rng.integers(0, 2, n_rows)
    y = np.where((a + c + (rng.random(n_rows) < 0.15)) % 2 == 0, "yes", "no")
    X = pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": c.astype(str), "d": d.astype(str)})
    return X, pd.Series(y, name="label")


def _sums_to_model(model, X, frame):
    log_proba = model.predict_log_proba(X)
    if len(model.classes_) == 2:
        return np.abs(frame.sum(axis=1).to_numpy() - (log_proba[:, 1] - log_proba[:, 0])).max()
    return max(np.abs(frame[c].sum(axis=1).to_numpy() - log_proba[:, k]).max() for k, c in enumerate(model.classes_))


@pytest.fixture(scope="module")
def binary_data():
    return _binary(n_rows=100)


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_explanations_sum_to_the_log_odds_of_every_registered_classifier(name, binary_data):
    X, y = binary_data
    model = quick_model(name).fit(X, y)  # tests/registry_models.py: quicker searches (HNB still adds a latent here)
    frame = model.explain(X)
    assert frame.index.equals(X.index)
    assert frame.columns[0] == "<prior>"
    # Fully observed rows: the terms alone rebuild the model's score (no remainder column).
    assert "<unobserved>" not in frame.columns
    assert _sums_to_model(model, X, frame) < 1e-10


@pytest.mark.parametrize(
    "model",
    [
        gm.TAN(estimator="discriminative"),
        gm.KDB(k=2),
        gm.AnDE(n=2, frequency_threshold=40),
        gm.AODE(frequency="attribute-class", frequency_threshold=20),
        gm.HyperforestClassifier(representation="joint"),
        gm.HyperforestClassifier(representation="shared"),
        gm.HyperforestClassifier(representation="free"),
        gm.KikuchiBayes(averaging=False, max_region_size=3),
        gm.ChowLiu(representation="free"),
    ],
    ids=lambda m: repr(m),
)
def test_other_code_paths_sum_too_with_and_without_unseen_states(model, binary_data):
    X, y = binary_data
    model.fit(X, y)
    frame = model.explain(X.head(30))
    assert "<unobserved>" not in frame.columns
    assert _sums_to_model(model, X.head(30), frame) < 1e-10
    unseen = X.head(6).copy()
    unseen.iloc[0, 0] = "new"  # a root or parent summed out with its neighbours
    unseen.iloc[1, 3] = "new"
    unseen.iloc[2, [1, 2]] = "new"  # (a column mostly seen: no warning)
    frame = model.explain(unseen)
    assert _sums_to_model(model, unseen, frame) < 1e-10


def test_each_class_block_sums_to_its_log_probability(random_table):
    X, y = random_table(np.random.default_rng(1), n_rows=200)
    for model in (gm.TAN(), gm.AODE(), gm.KikuchiBayes(max_region_size=3)):
        model.fit(X, y)
        frame = model.explain(X.head(20))
        assert list(frame.columns.get_level_values(0).unique()) == list(model.classes_)
        assert _sums_to_model(model, X.head(20), frame) < 1e-10
        # The terms are centred over the classes: a class-free term tells nothing.
        for term in set(frame.columns.get_level_values("term")) - {"<prior>", "<normalizer>"}:
            assert np.allclose(frame.xs(term, axis=1, level="term").sum(axis=1), 0.0)


def test_naive_bayes_terms_by_hand():
    # Laplace estimates: P(y) = (n_y + 1) / (N + 2), P(x | y) = (n_xy + 1) / (n_y + 2).
    X = pd.DataFrame({"x": ["u", "u", "v", "v", "v"]})
    y = ["p", "p", "p", "q", "q"]
    model = gm.NaiveBayes(estimator="laplace").fit(X, y)
    frame = model.explain(pd.DataFrame({"x": ["u", "v"]}))
    prior = np.log(3 / 7) - np.log(4 / 7)  # log P(q) / P(p)
    u = np.log(1 / 4) - np.log(3 / 5)  # P(u | q) = (0 + 1) / (2 + 2), P(u | p) = (2 + 1) / (3 + 2)
    v = np.log(3 / 4) - np.log(2 / 5)
    assert np.allclose(frame["<prior>"], prior)
    assert np.allclose(frame["x"], [u, v])


def test_family_terms_are_the_tables_entries(binary_data):
    X, y = binary_data
    tan = gm.TAN().fit(X, y)
    frame = tan.explain(X.head(5))
    for row in range(5):
        x = X.iloc[row]
        for j, name in enumerate(X.columns):
            table = tan.cpd(name)  # rows (class[, parent]), columns: the states of `name`
            parent = tan.feature_parents_[j]
            yes, no = ("yes", x[X.columns[parent]]), ("no", x[X.columns[parent]])
            if parent < 0:
                yes, no = "yes", "no"
            expected = np.log(table.loc[yes, x[name]]) - np.log(table.loc[no, x[name]])
            assert frame.iloc[row][name] == pytest.approx(expected, abs=1e-12)


def test_a_hidden_leaf_drops_out_and_a_hidden_parent_goes_to_unobserved(binary_data):
    X, y = binary_data
    nb = gm.NaiveBayes().fit(X, y)
    row = X.head(1).copy()
    row.iloc[0, 0] = "new"
    with pytest.warns(UserWarning, match="never seen"):
        frame = nb.explain(row)
    assert "<unobserved>" not in frame.columns and frame.iloc[0]["a"] == pytest.approx(0.0, abs=1e-12)
    tan = gm.TAN().fit(X, y)
    parent = next(name for name, p in zip(X.columns, tan.feature_parents_) if p < 0)  # the root has children
    row = X.head(1).copy()
    row[parent] = "new"
    with pytest.warns(UserWarning, match="never seen"):
        frame = tan.explain(row)
    # The children of the hidden root are summed out with it: their terms are its remainder.
    children = [X.columns[j] for j, p in enumerate(tan.feature_parents_) if p == X.columns.get_loc(parent)]
    assert (frame.iloc[0][[parent, *children]] == 0).all()
    assert frame.iloc[0]["<unobserved>"] != 0


def test_members_term_of_an_average_is_at_most_zero(binary_data):
    X, y = binary_data
    aode = gm.AODE(frequency_threshold=0).fit(X, y)
    terms = aode._explanation_terms(aode._encode_new(X))
    members = terms.terms[:, :, -1]
    assert terms.names[-1] == "<members>"
    assert (members <= 1e-12).all() and (members < -1e-6).any()


def test_kikuchi_map_terms_are_the_regions(binary_data):
    X, y = binary_data
    model = gm.KikuchiBayes(averaging=False, max_region_size=3).fit(X, y)
    frame = model.explain(X.head(3))
    regions = [r for r in model.stage_counting_numbers_[model.map_step_] if len(r) > 1]
    assert set(frame.columns[1:]) == {"{" + ", ".join(r[:-1]) + "}" for r in regions}


def test_hnb_terms_are_the_class_children(binary_data):
    X, y = binary_data
    model = gm.HierarchicalNaiveBayes(n_folds=2, random_state=0).fit(X, y)
    frame = model.explain(X.head(4))
    assert list(frame.columns[1:]) == list(model.children_)
    assert any(name.startswith("L") for name in model.children_)
    assert _sums_to_model(model, X.head(4), frame) < 1e-10


def test_default_chain_rule_is_exact_for_any_classifier(binary_data):
    from graphmodels.models.explanations import chain_rule_terms

    X, y = binary_data
    model = gm.AODE().fit(X, y)
    codes = model._encode_new(X.head(10))
    parts = chain_rule_terms(model, codes)
    scores = model._class_log_scores(codes)
    assert np.allclose(parts.intercept + parts.terms.sum(axis=2), scores, atol=1e-10)
    # For a Bayesian network in topological order, the chain rule's terms are the families'.
    tan = gm.TAN().fit(X, y)
    order = np.array([np.sum(tan.feature_parents_[j] >= 0) for j in range(4)])
    if (np.diff(np.argsort(order)) >= 0).all():
        assert np.allclose(chain_rule_terms(tan, codes).terms, tan._explanation_terms(codes).terms)
