"""Multi-label problem transformations: binary relevance, label powerset, probabilistic classifier chains."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import graphmodels as gm
from graphmodels.models import BaseMultiLabelClassifier, label_transformations

WRAPPERS = [gm.BinaryRelevance, gm.LabelPowerset, gm.ClassifierChain]


def multilabel_table(rng, n_rows=300, label_cards=(2, 3, 2)):
    """String attributes and labels that depend on the attributes and on the previous label."""
    hidden = rng.integers(3, size=n_rows)
    X = pd.DataFrame(
        {
            f"x{j}": [f"s{v}" for v in np.where(rng.random(n_rows) < 0.7, hidden % r, rng.integers(r, size=n_rows))]
            for j, r in enumerate((2, 3, 3, 2))
        }
    )
    labels, previous = {}, hidden
    for j, r in enumerate(label_cards):
        value = np.where(rng.random(n_rows) < 0.6, (previous + j) % r, rng.integers(r, size=n_rows))
        labels[f"L{j}"] = [f"v{v}" for v in value]
        previous = value
    return X, pd.DataFrame(labels)


def all_label_vectors(model):
    """Every label vector, as a DataFrame with ``label_names_`` columns, in itertools order."""
    rows = list(itertools.product(*[list(values) for values in model.classes_]))
    return pd.DataFrame(rows, columns=model.label_names_)


def chain_conditional_by_hand(model, X, k, prefix):
    """P(c_{order_[k]} | x, prefix) from ``estimators_[k]``, building the extra columns independently."""
    extra = {}
    for name, value in zip(model.order_[:k], prefix):
        classes = model.classes_[model.label_names_.index(name)]
        extra[name] = pd.Categorical([value] * len(X), categories=classes)
    features = X.reset_index(drop=True).assign(**extra)
    return model.estimators_[k].predict_proba(features)


def chain_joint_by_hand(model, X):
    """P(c | x) for every row and label vector (columns in `all_label_vectors` order), by the chain rule."""
    vectors = all_label_vectors(model)
    joint = np.ones((len(X), len(vectors)))
    tables = {}  # vectors share their prefixes: each conditional is computed once
    for v, vector in enumerate(vectors.itertuples(index=False)):
        by_name = dict(zip(model.label_names_, vector))
        for k, name in enumerate(model.order_):
            j = model.label_names_.index(name)
            prefix = tuple(by_name[n] for n in model.order_[:k])
            if (k, prefix) not in tables:
                tables[k, prefix] = chain_conditional_by_hand(model, X, k, prefix)
            table = tables[k, prefix]
            joint[:, v] *= table[:, list(model.classes_[j]).index(by_name[name])]
    return vectors, joint


# ----------------------------------------------------------------------------- common invariants


@pytest.mark.parametrize(
    "model",
    [
        gm.BinaryRelevance(),
        gm.BinaryRelevance(base=gm.TAN()),
        gm.LabelPowerset(),
        gm.ClassifierChain(),
        gm.ClassifierChain(inference="exact", order=["L2", "L0", "L1"]),
    ],
    ids=repr,
)
def test_probabilities_are_normalized_and_consistent(model):
    rng = np.random.default_rng(0)
    X, Y = multilabel_table(rng)
    model.fit(X, Y)
    assert isinstance(model, BaseMultiLabelClassifier)
    assert model.label_names_ == ["L0", "L1", "L2"]
    proba, log_proba = model.predict_proba(X), model.predict_log_proba(X)
    assert [p.shape for p in proba] == [(300, 2), (300, 3), (300, 2)]
    for j in range(3):
        assert model.classes_[j].tolist() == sorted(set(Y.iloc[:, j]))
        np.testing.assert_allclose(proba[j].sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(np.log(proba[j]), log_proba[j], atol=1e-12)
    predicted = model.predict(X)
    assert predicted.shape == (300, 3)
    assert model.score(X, Y) == np.mean(np.all(predicted == Y.to_numpy(), axis=1))
    # Permuting the rows permutes the outputs.
    perm = rng.permutation(len(X))
    np.testing.assert_array_equal(model.predict(X.iloc[perm]), predicted[perm])
    for a, b in zip(model.predict_proba(X.iloc[perm]), proba):
        np.testing.assert_allclose(a, b[perm], rtol=1e-12)


# ----------------------------------------------------------------------------- binary relevance


@pytest.mark.parametrize("base", [gm.NaiveBayes(), gm.TAN(estimator="laplace"), gm.AODE()], ids=repr)
def test_binary_relevance_is_one_classifier_per_label(base):
    rng = np.random.default_rng(1)
    X, Y = multilabel_table(rng, label_cards=(2, 4, 3))
    model = gm.BinaryRelevance(base=base).fit(X, Y)
    assert len(model.estimators_) == 3 and model.estimators_[0] is not base and not hasattr(base, "classes_")
    proba = model.predict_proba(X)
    predicted = model.predict(X)
    for j, name in enumerate(Y.columns):
        by_hand = type(base)(**base.get_params()).fit(X, Y[name])
        np.testing.assert_array_equal(proba[j], by_hand.predict_proba(X))
        np.testing.assert_array_equal(predicted[:, j], by_hand.predict(X))


def test_binary_relevance_default_base_is_naive_bayes():
    rng = np.random.default_rng(2)
    X, Y = multilabel_table(rng)
    model = gm.BinaryRelevance().fit(X, Y)
    assert model.base is None and all(type(e) is gm.NaiveBayes for e in model.estimators_)


class ProbaOnly:
    """A scikit-learn-like classifier with `predict_proba` only, classes in reverse order."""

    def __init__(self, smoothing=1.0):
        self.smoothing = smoothing

    def get_params(self, deep=True):
        return {"smoothing": self.smoothing}

    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y, dtype=object)
        self.classes_ = np.array(sorted(set(y.tolist()), reverse=True), dtype=object)
        counts = np.array([(y == c).sum() for c in self.classes_], dtype=float) + self.smoothing
        self.prior_ = counts / counts.sum()
        return self

    def predict_proba(self, X):
        return np.tile(self.prior_, (len(X), 1))


def test_scikit_learn_like_bases():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(3, size=(200, 3)), columns=["a", "b", "c"])
    Y = pd.DataFrame({"u": (X["a"] + rng.integers(2, size=200)) % 2, "v": np.where(X["b"] > 0, "hi", "lo")})
    model = gm.BinaryRelevance(base=LogisticRegression()).fit(X, Y)
    for j, name in enumerate(Y.columns):
        np.testing.assert_allclose(model.predict_proba(X)[j], LogisticRegression().fit(X, Y[name]).predict_proba(X))
    # predict_proba only, and classes in another order than classes_: columns still follow classes_.
    prior = gm.BinaryRelevance(base=ProbaOnly()).fit(X, Y).predict_proba(X.head(1))[1]
    counts = Y["v"].value_counts()
    np.testing.assert_allclose(prior[0], [(counts["hi"] + 1) / 202, (counts["lo"] + 1) / 202])
    # A chain with a numeric scikit-learn base: numeric labels become categorical integer columns.
    chain = gm.ClassifierChain(base=LogisticRegression(), inference="exact").fit(X, Y[["u"]].assign(w=X["c"] % 2))
    joint = chain.joint_log_proba(
        pd.concat([X.head(3)] * 4),
        pd.DataFrame(np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 3, axis=0), columns=["u", "w"]),
    )
    np.testing.assert_allclose(np.exp(joint).reshape(4, 3).sum(axis=0), 1.0)


# ----------------------------------------------------------------------------- label powerset


def test_label_powerset_by_hand_with_maximum_likelihood():
    # One constant attribute: the posterior is the frequency of each combination.
    Y = pd.DataFrame({"a": ["p"] * 5 + ["q"] * 3 + ["q"] * 2, "b": [0] * 5 + [0] * 3 + [2] * 2})
    X = pd.DataFrame({"x": ["k"] * 10})
    model = gm.LabelPowerset(base=gm.NaiveBayes(estimator="mle")).fit(X, Y)
    assert model.label_sets_.to_dict("list") == {"a": ["p", "q", "q"], "b": [0, 0, 2]}
    np.testing.assert_array_equal(model.label_set_codes_, [[0, 0], [1, 0], [1, 1]])
    np.testing.assert_allclose(model.predict_joint_proba(X.head(1)), [[0.5, 0.3, 0.2]])
    marginals = model.predict_proba(X.head(1))
    np.testing.assert_allclose(marginals[0], [[0.5, 0.5]])
    np.testing.assert_allclose(marginals[1], [[0.8, 0.2]])
    assert model.predict(X.head(1)).tolist() == [["p", 0]]


def test_label_powerset_equals_a_classifier_of_the_combined_class():
    rng = np.random.default_rng(4)
    X, Y = multilabel_table(rng, label_cards=(3, 2, 3))
    model = gm.LabelPowerset().fit(X, Y)
    combined = Y.apply(lambda row: "|".join(row), axis=1)
    by_hand = gm.NaiveBayes().fit(X, combined)
    sets = ["|".join(row) for row in model.label_sets_.itertuples(index=False)]
    assert sorted(sets) == sorted(set(combined)) and len(sets) == len(set(sets))
    columns = [list(by_hand.classes_).index(s) for s in sets]
    np.testing.assert_allclose(model.predict_joint_proba(X), by_hand.predict_proba(X)[:, columns], rtol=1e-12)


def test_label_powerset_marginals_and_mode_come_from_the_joint():
    rng = np.random.default_rng(5)
    X, Y = multilabel_table(rng, label_cards=(2, 3, 3))
    model = gm.LabelPowerset(base=gm.TAN()).fit(X, Y)
    joint = model.predict_joint_proba(X)
    assert joint.shape == (300, len(model.label_sets_))
    np.testing.assert_allclose(joint.sum(axis=1), 1.0)
    marginals = model.predict_proba(X)
    for j, name in enumerate(model.label_names_):
        for v, value in enumerate(model.classes_[j]):
            summed = joint[:, (model.label_sets_[name] == value).to_numpy()].sum(axis=1)
            np.testing.assert_allclose(marginals[j][:, v], summed, rtol=1e-10)
    best = model.label_sets_.to_numpy()[np.argmax(joint, axis=1)]
    np.testing.assert_array_equal(model.predict(X), best)
    # Only observed combinations are ever predicted.
    observed = set(map(tuple, Y.to_numpy().tolist()))
    assert set(map(tuple, model.predict(X).tolist())) <= observed


# ----------------------------------------------------------------------------- classifier chains


def test_chain_hand_computed_and_greedy_differs_from_the_joint_mode():
    # P(c1=0)=0.4, P(c1=1)=0.6; c2=0 always when c1=0, P(c2=0 | c1=1)=31/60.
    # Joint: (0,0)=0.40, (1,0)=0.31, (1,1)=0.29: greedy picks c1=1 then c2=0 (0.31),
    # the joint mode is (0,0) (0.40).
    Y = pd.DataFrame({"c1": [0] * 40 + [1] * 60, "c2": [0] * 40 + [0] * 31 + [1] * 29})
    X = pd.DataFrame({"x": ["k"] * 100})
    greedy = gm.ClassifierChain(base=gm.NaiveBayes(estimator="mle")).fit(X, Y)
    exact = gm.ClassifierChain(base=gm.NaiveBayes(estimator="mle"), inference="exact").fit(X, Y)
    row = X.head(1)
    assert greedy.predict(row).tolist() == [[1, 0]]
    np.testing.assert_allclose(greedy.predict_proba(row)[0], [[0.4, 0.6]])
    np.testing.assert_allclose(greedy.predict_proba(row)[1], [[31 / 60, 29 / 60]])
    assert exact.predict(row).tolist() == [[0, 0]]
    np.testing.assert_allclose(exact.predict_proba(row)[0], [[0.4, 0.6]])
    np.testing.assert_allclose(exact.predict_proba(row)[1], [[0.71, 0.29]])
    np.testing.assert_allclose(np.exp(exact.joint_log_proba(X.head(3), [[0, 0], [1, 0], [1, 1]])), [0.4, 0.31, 0.29])
    assert exact.joint_log_proba(row, exact.predict(row)) > exact.joint_log_proba(row, greedy.predict(row))
    assert exact.score(X, Y) == 0.4 and greedy.score(X, Y) == 0.31


def test_greedy_differs_from_exact_on_generated_data():
    # Per row, P(c1=1 | x) is about 0.6 and c2 is nearly uniform given c1=1 but certain given c1=0.
    rng = np.random.default_rng(6)
    n = 2000
    X = pd.DataFrame({"x": rng.choice(["a", "b"], n)})
    c1 = (rng.random(n) < 0.6).astype(int)
    c2 = np.where(c1 == 0, 0, (rng.random(n) < 0.5).astype(int))
    Y = pd.DataFrame({"c1": c1, "c2": c2})
    greedy = gm.ClassifierChain().fit(X, Y).predict(X)
    exact_model = gm.ClassifierChain(inference="exact").fit(X, Y)
    exact = exact_model.predict(X)
    differ = np.any(greedy != exact, axis=1)
    assert differ.any()
    assert np.all(exact_model.joint_log_proba(X, exact) >= exact_model.joint_log_proba(X, greedy) - 1e-12)
    assert np.all(exact_model.joint_log_proba(X, exact)[differ] > exact_model.joint_log_proba(X, greedy)[differ])


@pytest.mark.parametrize(
    "label_cards, order, base",
    [
        ((2, 3, 2), None, gm.NaiveBayes()),
        ((3, 2, 2), ["L2", "L0", "L1"], gm.TAN()),
        ((2, 2, 3, 2), ["L3", "L1", "L2", "L0"], gm.NaiveBayes(estimator="laplace")),
        ((2, 4, 2, 3), "random", gm.AODE()),
    ],
)
def test_exact_chain_against_brute_force(label_cards, order, base):
    rng = np.random.default_rng(sum(label_cards))
    X, Y = multilabel_table(rng, n_rows=200, label_cards=label_cards)
    model = gm.ClassifierChain(base=base, order=order, inference="exact", random_state=3).fit(X, Y)
    test = X.iloc[:25]
    vectors, joint = chain_joint_by_hand(model, test)
    assert len(vectors) == np.prod(label_cards)
    np.testing.assert_allclose(joint.sum(axis=1), 1.0)
    # The joint mode.
    np.testing.assert_array_equal(model.predict(test), vectors.to_numpy()[np.argmax(joint, axis=1)])
    # The exact marginals.
    marginals = model.predict_proba(test)
    for j, name in enumerate(model.label_names_):
        for v, value in enumerate(model.classes_[j]):
            summed = joint[:, (vectors[name] == value).to_numpy()].sum(axis=1)
            np.testing.assert_allclose(marginals[j][:, v], summed, rtol=1e-9)
    # joint_log_proba of each vector for each row (in one call: every row with every vector).
    rows = pd.concat([test] * len(vectors), ignore_index=True)
    repeated = vectors.loc[vectors.index.repeat(len(test))].reset_index(drop=True)
    np.testing.assert_allclose(model.joint_log_proba(rows, repeated), np.log(joint.T.ravel()), rtol=1e-9)


def test_greedy_chain_against_hand_computed_path():
    rng = np.random.default_rng(7)
    X, Y = multilabel_table(rng, label_cards=(3, 2, 3))
    model = gm.ClassifierChain(order=["L1", "L2", "L0"]).fit(X, Y)
    test = X.iloc[:40].reset_index(drop=True)
    predicted = model.predict(test)
    proba = model.predict_proba(test)
    chosen = []
    for k, name in enumerate(model.order_):
        j = model.label_names_.index(name)
        # Feed back the predicted previous labels row by row (fine here: a reference implementation).
        table = np.vstack(
            [chain_conditional_by_hand(model, test.iloc[[i]], k, [c[i] for c in chosen]) for i in range(len(test))]
        )
        np.testing.assert_allclose(proba[j], table, rtol=1e-12)
        chosen.append(model.classes_[j][np.argmax(table, axis=1)])
        np.testing.assert_array_equal(predicted[:, j], chosen[-1])


@pytest.mark.parametrize("inference", ["greedy", "exact"])
def test_joint_log_proba_sums_to_one_over_all_label_vectors(inference):
    rng = np.random.default_rng(8)
    X, Y = multilabel_table(rng, label_cards=(2, 3, 2, 3))
    model = gm.ClassifierChain(inference=inference, order="random", random_state=0).fit(X, Y)
    vectors = all_label_vectors(model)
    for i in (0, 5, 17):
        rows = pd.concat([X.iloc[[i]]] * len(vectors))
        assert abs(logsumexp(model.joint_log_proba(rows, vectors))) < 1e-10
    # Label columns are matched by name.
    shuffled = vectors[["L3", "L1", "L0", "L2"]]
    rows = pd.concat([X.iloc[[0]]] * len(vectors))
    np.testing.assert_array_equal(model.joint_log_proba(rows, shuffled), model.joint_log_proba(rows, vectors))


def test_exact_inference_in_small_blocks_matches(monkeypatch):
    rng = np.random.default_rng(9)
    X, Y = multilabel_table(rng, n_rows=50, label_cards=(2, 3, 2))
    model = gm.ClassifierChain(inference="exact").fit(X, Y)
    predicted, marginals = model.predict(X), model.predict_proba(X)
    monkeypatch.setattr(label_transformations, "_JOINT_CELLS", 7 * 12)  # blocks of 7 rows
    monkeypatch.setattr(label_transformations, "_ROWS_PER_CALL", 15)  # 2 prefixes per call
    np.testing.assert_array_equal(model.predict(X), predicted)
    for a, b in zip(model.predict_proba(X), marginals):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_exact_inference_calls_each_classifier_once_per_prefix(monkeypatch):
    rng = np.random.default_rng(10)
    X, Y = multilabel_table(rng, n_rows=120, label_cards=(2, 3, 2))
    model = gm.ClassifierChain(inference="exact").fit(X, Y)
    calls = []
    original = gm.NaiveBayes.predict_log_proba

    def counting(self, frame):
        calls.append(len(frame))
        return original(self, frame)

    monkeypatch.setattr(gm.NaiveBayes, "predict_log_proba", counting)
    model.predict(X)
    assert calls == [120, 2 * 120, 6 * 120]  # one call per level, every prefix and row at once
    calls.clear()
    monkeypatch.setattr(label_transformations, "_ROWS_PER_CALL", 120)
    model.predict(X)
    assert calls == [120] * (1 + 2 + 6)  # one call per prefix, all rows at once


def test_random_order_is_reproducible():
    rng = np.random.default_rng(11)
    X, Y = multilabel_table(rng, label_cards=(2, 3, 2, 2, 3))
    first = gm.ClassifierChain(order="random", random_state=5).fit(X, Y)
    second = gm.ClassifierChain(order="random", random_state=5).fit(X, Y)
    assert first.order_ == second.order_ and sorted(first.order_) == list(Y.columns)
    np.testing.assert_array_equal(first.predict(X), second.predict(X))
    orders = {tuple(gm.ClassifierChain(order="random", random_state=s).fit(X, Y).order_) for s in range(6)}
    assert len(orders) > 1
    assert gm.ClassifierChain(order=list(reversed(Y.columns))).fit(X, Y).order_ == list(reversed(Y.columns))


# ----------------------------------------------------------------------------- labels, names and weights


@pytest.mark.parametrize("model_class", WRAPPERS)
def test_awkward_labels_and_names(model_class):
    rng = np.random.default_rng(12)
    X, Y = multilabel_table(rng, label_cards=(3, 2))
    X.columns = ["#", "a b", "é", "x"]
    Y = pd.DataFrame(
        {
            "label #1": Y["L0"].map({"v0": "1", "v1": "10", "v2": "2"}),
            "ünï côdé": Y["L1"].map({"v0": True, "v1": False}),
        }
    )
    model = model_class().fit(X, Y)
    assert model.label_names_ == ["label #1", "ünï côdé"]
    assert model.classes_[0].tolist() == ["1", "10", "2"] and model.classes_[1].tolist() == [False, True]
    proba = model.predict_proba(X)
    if model_class is not gm.LabelPowerset:
        # The first label of the chain and binary relevance are naive Bayes on that label alone.
        by_hand = gm.NaiveBayes().fit(X, Y["label #1"])
        np.testing.assert_allclose(proba[0], by_hand.predict_proba(X), rtol=1e-12)
    predicted = model.predict(X)
    assert set(predicted[:, 0]) <= {"1", "10", "2"} and set(predicted[:, 1]) <= {True, False}
    if model_class is gm.ClassifierChain:
        rows = pd.concat([X.head(1)] * 6)
        vectors = pd.DataFrame({"label #1": ["1", "1", "10", "10", "2", "2"], "ünï côdé": [False, True] * 3})
        assert abs(logsumexp(model.joint_log_proba(rows, vectors))) < 1e-10


@pytest.mark.parametrize(
    "model",
    [
        gm.BinaryRelevance(),
        gm.LabelPowerset(base=gm.TAN()),
        gm.ClassifierChain(inference="exact"),
        gm.ClassifierChain(base=gm.AODE(), order=["L1", "L0", "L2"]),
    ],
    ids=repr,
)
def test_sample_weight_equals_duplicated_rows(model):
    rng = np.random.default_rng(13)
    X, Y = multilabel_table(rng, n_rows=120)
    weight = rng.integers(0, 4, size=len(X))
    weighted = gm.models.clone_model(model).fit(X, Y, sample_weight=weight)
    rows = np.repeat(np.arange(len(X)), weight)
    duplicated = gm.models.clone_model(model).fit(X.iloc[rows], Y.iloc[rows])
    for a, b in zip(weighted.predict_proba(X), duplicated.predict_proba(X)):
        np.testing.assert_allclose(a, b, rtol=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), duplicated.predict(X))
    # Weights change something.
    unweighted = gm.models.clone_model(model).fit(X, Y)
    assert not np.allclose(unweighted.predict_proba(X)[0], weighted.predict_proba(X)[0])


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("model_class", WRAPPERS)
def test_bad_label_tables(model_class):
    rng = np.random.default_rng(14)
    X, Y = multilabel_table(rng, n_rows=40)
    with pytest.raises(ValueError, match="2-dimensional"):
        model_class().fit(X, Y["L0"])
    with pytest.raises(ValueError, match="2-dimensional"):
        model_class().fit(X, Y["L0"].to_numpy())
    missing = Y.copy()
    missing.loc[3, "L1"] = None
    with pytest.raises(ValueError, match="'L1'.*missing"):
        model_class().fit(X, missing)
    with pytest.raises(ValueError, match=r"\['x1'\].*columns of `X`"):
        model_class().fit(X, Y.rename(columns={"L1": "x1"}))
    with pytest.raises(ValueError, match="rows"):
        model_class().fit(X, Y.iloc[:-1])
    with pytest.raises(TypeError, match="`base`"):
        model_class(base=gm.NaiveBayes).fit(X, Y)
    with pytest.raises(TypeError, match="`base`"):
        model_class(base="nb").fit(X, Y)
    with pytest.raises(ValueError, match="not fitted"):
        model_class().predict(X)


@pytest.mark.parametrize(
    "order, message",
    [
        (["L0", "L1"], r"missing labels \['L2'\]"),
        (["L0", "L1", "L1"], r"repeated labels \['L1'\]"),
        (["L0", "L1", "L9"], r"unknown labels \['L9'\]"),
        ("reverse", "`order` must be None or 'random' or a list of label names"),
        (3, "`order` must be None or 'random' or a list of label names"),
    ],
)
def test_order_must_be_a_permutation(order, message):
    rng = np.random.default_rng(15)
    X, Y = multilabel_table(rng, n_rows=40)
    with pytest.raises(ValueError, match=message):
        gm.ClassifierChain(order=order).fit(X, Y)


def test_chain_parameter_and_size_errors():
    rng = np.random.default_rng(16)
    X, Y = multilabel_table(rng, n_rows=60, label_cards=(2, 3, 2))
    with pytest.raises(ValueError, match="`inference` must be one of"):
        gm.ClassifierChain(inference="beam").fit(X, Y)
    for bad in (0, -3, 2.5, True, "many"):
        with pytest.raises(ValueError, match="`max_label_vectors` must be an integer in \\[1, inf\\)"):
            gm.ClassifierChain(max_label_vectors=bad).fit(X, Y)
    with pytest.raises(ValueError, match=r"12 label vectors.*`max_label_vectors`=11"):
        gm.ClassifierChain(inference="exact", max_label_vectors=11).fit(X, Y)
    gm.ClassifierChain(inference="exact", max_label_vectors=12).fit(X, Y).predict(X)
    model = gm.ClassifierChain(max_label_vectors=11).fit(X, Y)  # greedy needs no enumeration
    model.predict(X)
    model.set_params(inference="exact")
    with pytest.raises(ValueError, match="`max_label_vectors`"):
        model.predict_proba(X)
    model.set_params(inference="greedy")
    with pytest.raises(ValueError, match=r"missing label\(s\) \['L2'\]"):
        model.joint_log_proba(X, Y[["L0", "L1"]])
    with pytest.raises(ValueError, match="not seen in fit"):
        model.joint_log_proba(X, Y.assign(L1="v9"))
    with pytest.raises(ValueError, match="rows"):
        model.joint_log_proba(X, Y.iloc[:-1])


# ----------------------------------------------------------------------------- persistence


@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.parametrize(
    "model",
    [
        gm.BinaryRelevance(base=gm.TAN(estimator="laplace")),
        gm.LabelPowerset(base=gm.AODE()),
        gm.ClassifierChain(inference="exact", order="random", random_state=2),
        gm.ClassifierChain(base=gm.KikuchiBayes(), order=["ünï côdé", "label #1", "L2"]),
    ],
    ids=repr,
)
@pytest.mark.unseen_values
def test_save_and_load_round_trip(tmp_path, model, extension):
    rng = np.random.default_rng(17)
    X, Y = multilabel_table(rng, n_rows=150, label_cards=(3, 2, 2))
    X.columns = ["#", "a b", "é", 1]
    Y.columns = ["label #1", "ünï côdé", "L2"]
    Y["label #1"] = Y["label #1"].map({"v0": "1", "v1": "10", "v2": "2"})
    Y["L2"] = Y["L2"].map({"v0": 0, "v1": 7})
    model.fit(X, Y)
    path = tmp_path / f"model{extension}"
    model.save(path)
    loaded = gm.load_model(path)
    assert type(loaded) is type(model) and repr(loaded) == repr(model)
    assert loaded.label_names_ == model.label_names_
    assert loaded.classes_[0].tolist() == ["1", "10", "2"] and loaded.classes_[2].tolist() == [0, 7]
    test = X.assign(**{"é": "unseen state"})
    np.testing.assert_array_equal(loaded.predict(test), model.predict(test))
    for a, b in zip(loaded.predict_proba(test), model.predict_proba(test)):
        np.testing.assert_array_equal(a, b)
    if isinstance(model, gm.LabelPowerset):
        pd.testing.assert_frame_equal(loaded.label_sets_, model.label_sets_)
        np.testing.assert_array_equal(loaded.predict_joint_proba(test), model.predict_joint_proba(test))
    else:
        assert [type(e) for e in loaded.estimators_] == [type(e) for e in model.estimators_]
    if isinstance(model, gm.ClassifierChain):
        assert loaded.order_ == model.order_
        np.testing.assert_array_equal(loaded.joint_log_proba(X, Y), model.joint_log_proba(X, Y))


def test_nested_models_in_the_saved_document(tmp_path):
    import json

    rng = np.random.default_rng(18)
    X, Y = multilabel_table(rng, n_rows=60)
    gm.BinaryRelevance(base=gm.TAN()).fit(X, Y).save(tmp_path / "br.json")
    document = json.loads((tmp_path / "br.json").read_text())
    assert document["model"] == "BinaryRelevance"
    assert document["params"]["__dict__"][0][1]["__model__"]["model"] == "TAN"
    assert [e["__model__"]["model"] for e in document["fitted"]["estimators_"]] == ["TAN"] * 3
    # A nested class name outside the registry is refused.
    text = (tmp_path / "br.json").read_text().replace('"model": "TAN"', '"model": "os.system"', 1)
    (tmp_path / "evil.json").write_text(text)
    with pytest.raises(ValueError, match="Unknown model 'os.system'"):
        gm.load_model(tmp_path / "evil.json")


def test_unregistered_nested_model_cannot_be_saved(tmp_path):
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(19)
    X = pd.DataFrame(rng.integers(3, size=(50, 2)), columns=["a", "b"])
    Y = pd.DataFrame({"u": rng.integers(2, size=50), "v": rng.integers(2, size=50)})
    model = gm.BinaryRelevance(base=LogisticRegression()).fit(X, Y)
    with pytest.raises(TypeError, match="LogisticRegression.*register_model"):
        model.save(tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("model_class", WRAPPERS)
def test_arrays_in_and_out(model_class):
    rng = np.random.default_rng(20)
    X = rng.integers(3, size=(80, 3))
    Y = np.column_stack([(X[:, 0] + rng.integers(2, size=80)) % 3, X[:, 1] > 0])
    model = model_class().fit(X, Y)
    assert model.label_names_ == ["label_0", "label_1"]
    assert model.classes_[0].tolist() == [0, 1, 2] and model.classes_[1].tolist() == [False, True]
    assert model.predict(X).shape == (80, 2)
    frame_model = model_class().fit(pd.DataFrame(X), pd.DataFrame(Y.astype(object), columns=["label_0", "label_1"]))
    for a, b in zip(model.predict_proba(X), frame_model.predict_proba(pd.DataFrame(X))):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    if model_class is gm.ClassifierChain:
        np.testing.assert_allclose(
            model.joint_log_proba(X, Y), frame_model.joint_log_proba(pd.DataFrame(X), Y), rtol=1e-12
        )


def test_array_input_at_prediction_after_a_frame_at_fit():
    # A plain array is read by position against the training columns.
    from graphmodels.models import ClassifierChain, MultiDimensionalTAN

    rng = np.random.default_rng(21)
    X = pd.DataFrame({"p q": rng.integers(0, 3, 200).astype(str), "r": rng.integers(0, 2, 200).astype(str)})
    Y = pd.DataFrame({"a": (X["p q"] == "1").astype(int), "b": rng.integers(0, 2, 200)})
    for model in (ClassifierChain(inference="exact"), MultiDimensionalTAN()):
        model.fit(X, Y)
        assert (model.predict(X.to_numpy()) == model.predict(X)).all()
